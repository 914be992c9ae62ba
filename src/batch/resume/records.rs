//! verify's jsonl records read back, and the pieces reconcile's rows share with them:
//! outcome names and exit codes, the status a final outcome implies.

use serde_json::Value;
use serde_json::value::RawValue;

use super::*;
use crate::domain::outcome::{OUTCOME_EXITS, OutcomeKind};
use crate::domain::reconcile::RowResult;
use crate::exit::Exit;
use crate::reference::Reference;

/// What a final record comes to, as the index keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Final {
    /// Its exit status.
    pub(super) exit: Exit,
    /// Its outcome name.
    pub(super) name: &'static str,
}

/// A record's key and what it comes to: `None` when not final (asked again),
/// `Some(None)` when final but no longer trusted by this run's checks.
pub(super) type Parsed = (String, Option<Option<Final>>);

/// verify's outcome `outcome` with its `exit_code`, as payverify writes them: its name and
/// exit status.
fn name_and_exit(outcome: &str, exit_code: u8) -> Result<(&'static str, Exit), String> {
    let Some((name, exit)) = OUTCOME_EXITS.iter().find(|(n, _)| *n == outcome) else {
        return Err("has an unknown outcome".into());
    };
    if exit_code != exit.code() {
        return Err(format!(
            "has an exit_code that disagrees with its outcome {name}"
        ));
    }
    Ok((name, *exit))
}

/// verify's record `line` as the index keeps it: its reference and, when final, what it
/// comes to if this run's checks still let it through.
pub(super) fn json_record(line: &str, shape: &Shape, trust: &Checker) -> Result<Parsed, String> {
    let record = read::record(line)?;
    let reference = record.reference.as_ref();
    if Reference::parse(reference).map(|r| r.as_str() == reference) != Ok(true) {
        return Err("has an invalid reference".into());
    }
    let (name, exit) = name_and_exit(&record.outcome, record.exit_code)?;
    if !(shape.is_final)(name) {
        return Ok((reference.to_owned(), None));
    }
    consistent(name, response_status(record.response)?.as_deref())?;
    let carried = Final { exit, name };
    if exit != Exit::Successful {
        return Ok((reference.to_owned(), Some(Some(carried))));
    }
    let checks_failed = record.checks.as_ref().is_some_and(|c| !c.passed);
    if checks_failed || record.error.is_some() {
        return Err("is SUCCESSFUL with a failed check or an error".into());
    }
    let trusted = trust.sealed(line)
        && record
            .response
            .is_some_and(|r| trust.carries(reference, r.get(), &trust.trust.expect));
    Ok((reference.to_owned(), Some(trusted.then_some(carried))))
}

/// The transaction status of a stored response (`None` without one, or without a status).
pub(super) fn response_status(response: Option<&RawValue>) -> Result<Option<String>, String> {
    let Some(response) = response else {
        return Ok(None);
    };
    let Ok(object) = crate::domain::json::parse_record(response.get()) else {
        return Err("has a \"response\" that is not an object".into());
    };
    Ok(object
        .get("status")
        .and_then(Value::as_str)
        .map(str::to_owned))
}

/// A final outcome (verify's) or result (reconcile's) must agree with the transaction
/// status its record shows.
pub(super) fn consistent(name: &str, status: Option<&str>) -> Result<(), String> {
    let want = OutcomeKind::parse(name)
        .and_then(OutcomeKind::gateway_status)
        .or_else(|| RowResult::named(name).and_then(RowResult::gateway_status));
    match (want, status) {
        (Some(w), Some(s)) if w == s => Ok(()),
        // A SUCCESSFUL answer that cannot be trusted, or a FAILED one that failed a check.
        (None, Some("SUCCESSFUL" | "FAILED")) if name == "INTEGRITY_FAILED" => Ok(()),
        (None, _) if name == "INTEGRITY_FAILED" => {
            Err(format!("is {name} without a matching transaction status"))
        }
        (Some(_), _) => Err(format!("is {name} without a matching transaction status")),
        (None, _) => Ok(()),
    }
}
