//! A final record read back when its turn comes, into what this run writes in its place:
//! never its bytes. The stored answer (or a NOT_FOUND's error) is judged again under this
//! run's checks for this run's job, and the record rebuilt as a fresh one, so it is written
//! in any output format as a fresh one is.

use super::*;
use crate::domain::outcome::{Outcome, OutcomeKind, is_final_name};
use crate::domain::reconcile::RowResult;
use crate::reference::Reference;

/// verify's record `text` carried for `job`, or `None` when it is to be asked again.
pub(super) fn verify_record(text: &str, job: &Job, checker: &Checker) -> Option<Carried> {
    let verdict = rejudge(text, job, checker)?;
    let (exit, name) = (verdict.exit(), verdict.name());
    Some(Carried::new(job, verdict, exit, name))
}

impl Carried {
    /// `job`'s record rebuilt from `verdict`, carried with `exit` and `name`.
    fn new(job: &Job, verdict: Verdict, exit: Exit, name: &'static str) -> Carried {
        Carried {
            warned: verdict
                .checks
                .as_ref()
                .is_some_and(|c| !c.warnings.is_empty()),
            record: Box::new(Record {
                job: job.clone(),
                verdict,
            }),
            exit,
            name,
        }
    }
}

/// reconcile's row `text` (indexed as `slot`, already found to be `job`'s row as it was:
/// see [`RowRecord::still_holds`]) as it is carried, or `None` when it is to be asked
/// again.
///
/// Its stored answer (a NOT_FOUND row's: the outcome its error names) is judged again under
/// this run's checks (the row's expectations, `--expect-mode`, `--hmac`) as a fresh answer
/// would be, and carried only when that comes to the result it has: then it is written,
/// claimed and counted as a row asked now (see `csv_input::sink`), its checks as this run
/// words them. A result this run's checks would change (an INTEGRITY_FAILED under `--hmac
/// require` that `--hmac off` would let through, an OVERPAID that fails this run's
/// `--expect-mode`) is asked again: never a result this run would not give.
pub(super) fn reconcile_row(
    stored: &StoredRow<'_>,
    job: &Job,
    row: &RowShape,
    slot: &Slot,
    checker: &Checker,
) -> Option<Carried> {
    let outcome = match stored.response {
        Some(response) => classify_response(&Response {
            status: 200,
            body: response.get().as_bytes().to_vec(),
        }),
        None => not_found(stored.record.error.as_deref()?, &job.reference)?,
    };
    let verdict = judge(
        outcome,
        Some(job.reference.as_str()),
        checker.hmac(),
        checker.secret()?,
        &job.expect,
        checker.expect_mode(),
    );
    if Some((row.classify)(&verdict, &job.expect)) != RowResult::named(slot.name) {
        return None;
    }
    Some(Carried::new(job, verdict, slot.exit, slot.name))
}

/// The verdict a fresh run would reach on the answer verify's jsonl record `line` stores,
/// for `job`: the stored answer judged under this run's expectations, `--expect-mode` and
/// `--hmac`, exactly as if the service had sent it now. The record was decided under the
/// earlier run's checks, which may not be this run's, so its outcome and checks are never
/// taken as written: a SUCCESSFUL from a run without `--expect-amount` fails this run's
/// `--expect-amount`, and a CHECK_FAILED whose answer passes this run's checks passes.
///
/// `None` (asked again) unless payverify wrote the record under this run's secret and
/// nobody changed it since (its seal holds: the gateway's hmac does not cover a record's
/// reference, outcome or error), and, when the verdict is exit 0, unless the answer's hmac
/// is valid under this run's secret whatever `--hmac` says (only that shows the service
/// said it). A NOT_FOUND record holds no answer: its outcome is rebuilt from its error.
pub(super) fn rejudge(line: &str, job: &Job, checker: &Checker) -> Option<Verdict> {
    if !checker.sealed(line) {
        return None;
    }
    let secret = checker.secret()?;
    let record = read::record(line).ok()?;
    let reference = job.reference.as_str();
    let stored = record.response;
    let outcome = match OutcomeKind::parse(&record.outcome) {
        Some(OutcomeKind::NotFound) => not_found(record.error.as_deref()?, &job.reference)?,
        _ => classify_response(&Response {
            status: 200,
            body: stored?.get().as_bytes().to_vec(),
        }),
    };
    let verdict = judge(
        outcome,
        Some(reference),
        checker.hmac(),
        secret,
        &job.expect,
        checker.expect_mode(),
    );
    if !is_final_name(verdict.name()) {
        return None;
    }
    if verdict.exit() == Exit::Successful
        && !stored.is_some_and(|r| checker.carries(reference, r.get(), &job.expect))
    {
        return None;
    }
    Some(verdict)
}

/// The NOT_FOUND outcome whose record error is `error` (`no transaction has reference 'R'
/// (HTTP 404: the service's message)`), or `None` when it is not one payverify writes.
fn not_found(error: &str, reference: &Reference) -> Option<Outcome> {
    let bare = Outcome::NotFound { message: None };
    let text = bare.message(reference);
    if error == text {
        return Some(bare);
    }
    let message = error
        .strip_prefix(text.strip_suffix(')')?)?
        .strip_prefix(": ")?
        .strip_suffix(')')?;
    Some(Outcome::NotFound {
        message: Some(message.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_not_found_error_gives_back_its_outcome_or_none() {
        let r = Reference::parse("R-1").unwrap();
        for message in [None, Some("no such payment".to_owned()), Some(")(".into())] {
            let outcome = Outcome::NotFound { message };
            assert_eq!(not_found(&outcome.message(&r), &r), Some(outcome));
        }
        assert_eq!(
            not_found("no transaction has reference 'R-2' (HTTP 404)", &r),
            None
        );
        assert_eq!(not_found("something else", &r), None);
    }
}
