//! The one judge: an answer (the service's, a carried record's, a webhook payload) checked
//! and held to the one rule for "final and paid". Pure: the asking is the batch's
//! (`batch::verifier`).

use crate::domain::checks::{self, CheckReport, Expectations, HmacMode};
use crate::domain::outcome::{Outcome, Verdict};
use crate::secret::Secret;

/// Checks an answer about `reference`: the hmac as `hmac` says under `secret`, the
/// expectations, the run's expected `mode`, and that it is an answer about `reference` at
/// all (a webhook payload, which answers no request, has none); then the one rule for
/// "final and paid" ([`settled`]). A fresh answer, a record carried over by `--resume`
/// (which must pass these again) and a webhook payload go through this one function.
pub(crate) fn judge(
    outcome: Outcome,
    reference: Option<&str>,
    hmac: HmacMode,
    secret: &Secret,
    expect: &Expectations,
    mode: Option<&str>,
) -> Verdict {
    let checks = outcome.verification().map(|v| {
        let mut report = checks::evaluate(v, hmac, secret, expect);
        report.failures.extend(checks::mode_failure(v, mode));
        // Another transaction's answer (a cache, a proxy, a bug) proves nothing about
        // this one; it goes first because every other check is then beside the point.
        if let Some(failure) = reference.and_then(|r| checks::answers_for(v, r)) {
            report.failures.insert(0, failure);
        }
        report
    });
    decided(outcome, checks)
}

/// The verdict of `outcome` (the one reading of an answer's status) with its `checks`:
/// the rule for "final and paid" ([`settled`]) where every check passed. A fresh answer's
/// checks were just run ([`judge`]); a carried record's are the ones it was decided with,
/// kept in the record and never run again (`domain::seal::Judged`).
pub(crate) fn decided(outcome: Outcome, checks: Option<CheckReport>) -> Verdict {
    let outcome = match checks.as_ref().is_none_or(CheckReport::passed) {
        true => settled(outcome),
        false => outcome,
    };
    Verdict { outcome, checks }
}

/// The one rule for "final and paid", for every command that judges an answer (verify,
/// gate, reconcile, `--wait`, a carried record, `webhook check`; docs/checks.md): a
/// SUCCESSFUL answer that passed its checks is paid only once it has a `paymentDate`. The
/// gateway's own plugin acts on an answer only when `paymentDate` is set (and code is 00);
/// one without it is NOT_FINAL (exit 9, asked again under `--wait`), never exit 0. An answer
/// that failed a check stays what the check makes it: it says nothing about this payment.
pub(crate) fn settled(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Successful(v) if !v.has_payment_date() => Outcome::NotFinal(v),
        other => other,
    }
}
