//! A final record read back when its turn comes, into what this run writes in its place:
//! never its bytes. verify's jsonl record is rebuilt as a fresh one (this run's job, the
//! stored answer judged again under this run's checks); a csv row becomes its cells and
//! reconcile's jsonl row its JSON object, each written again value by value.

use serde_json::Value;

use super::*;
use crate::domain::outcome::{Outcome, OutcomeKind, Record, is_final_name};
use crate::domain::reconcile::RowResult;
use crate::reference::Reference;

/// verify's record `text` (indexed as `slot`) carried for `job`, or `None` when it is to be
/// asked again.
pub(super) fn verify_record(
    text: &str,
    format: OutputFormat,
    job: &Job,
    slot: &Slot,
    checker: &Checker,
) -> Option<Carried> {
    if format == OutputFormat::Csv {
        return Some(Carried {
            record: CarriedRecord::Cells(split_csv(text)?),
            exit: slot.exit,
            name: slot.name,
            warned: slot.warned,
            amounts: None,
        });
    }
    let verdict = rejudge(text, job, checker)?;
    Some(Carried {
        exit: verdict.exit(),
        name: verdict.name(),
        warned: verdict
            .checks
            .as_ref()
            .is_some_and(|c| !c.warnings.is_empty()),
        amounts: None,
        record: CarriedRecord::Record(Box::new(Record {
            job: job.clone(),
            verdict,
        })),
    })
}

/// reconcile's row `text` (indexed as `slot`, its figures `amounts`, already found to be
/// `job`'s row as it was: see [`RowRecord::still_holds`]) as it is carried, or `None` when
/// it is to be asked again.
///
/// A jsonl row that stores an answer is judged again under this run's checks (the row's
/// expectations, `--expect-mode`, `--hmac`) as a fresh answer would be, and carried only
/// when that comes to the result it has: then it is written, claimed and counted as a row
/// asked now (see `csv_input::sink`), its checks as this run words them. A result this
/// run's checks would change (an INTEGRITY_FAILED under `--hmac require` that `--hmac
/// off` would let through, an OVERPAID that fails this run's `--expect-mode`) is asked
/// again: never a result this run would not give. A row without an answer (NOT_FOUND, any
/// csv row) is written again by value.
pub(super) fn reconcile_row(
    text: &str,
    format: OutputFormat,
    job: &Job,
    row: &RowShape,
    slot: &Slot,
    amounts: Amounts,
    checker: &Checker,
) -> Option<Carried> {
    let stored = match format {
        OutputFormat::Csv => None,
        _ => stored_row_response(text).ok()?,
    };
    let record = match (format, stored) {
        (OutputFormat::Csv, _) => CarriedRecord::Cells(split_csv(text)?),
        (_, None) => CarriedRecord::Object(crate::domain::json::parse_record(text).ok()?),
        (_, Some(stored)) => {
            let verdict = judge(
                classify_response(&Response {
                    status: 200,
                    body: stored.get().as_bytes().to_vec(),
                }),
                job.reference.as_str(),
                checker.hmac(),
                checker.secret()?,
                &job.expect,
                checker.expect_mode(),
            );
            if Some((row.classify)(&verdict, &job.expect)) != RowResult::named(slot.name) {
                return None;
            }
            CarriedRecord::Record(Box::new(Record {
                job: job.clone(),
                verdict,
            }))
        }
    };
    let warned = match &record {
        CarriedRecord::Record(r) => r
            .verdict
            .checks
            .as_ref()
            .is_some_and(|c| !c.warnings.is_empty()),
        _ => slot.warned,
    };
    Some(Carried {
        record,
        exit: slot.exit,
        name: slot.name,
        warned,
        amounts: Some(amounts),
    })
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
    let map = crate::domain::json::parse_record(line).ok()?;
    let reference = job.reference.as_str();
    let stored = stored_response(line).ok()?;
    let outcome = match OutcomeKind::parse(map.get("outcome").and_then(Value::as_str)?) {
        Some(OutcomeKind::NotFound) => {
            not_found(map.get("error").and_then(Value::as_str)?, &job.reference)?
        }
        _ => classify_response(&Response {
            status: 200,
            body: stored?.get().as_bytes().to_vec(),
        }),
    };
    let verdict = judge(
        outcome,
        reference,
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
