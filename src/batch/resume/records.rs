//! verify's jsonl records read back, and the pieces reconcile's rows share with them:
//! outcome names and exit codes, the status a final outcome implies.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::*;
use crate::domain::outcome::OutcomeKind;
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

pub(super) fn name_and_exit(
    shape: &Shape,
    outcome: &str,
    exit_code: Option<&str>,
) -> Result<(&'static str, Exit), String> {
    let Some((name, exit)) = shape.outcomes.iter().find(|(n, _)| *n == outcome) else {
        return Err(format!("has an unknown {}", shape.outcome));
    };
    if shape.exit_code && exit_code != Some(exit.code().to_string().as_str()) {
        return Err(format!(
            "has an exit_code that disagrees with its outcome {name}"
        ));
    }
    Ok((name, *exit))
}

pub(super) fn json_record(line: &str, shape: &Shape, trust: &Checker) -> Result<Parsed, String> {
    let map: Map<String, Value> = crate::domain::json::parse_record(line)?;
    if let Some(key) = map
        .keys()
        .find(|k| !shape.columns.contains(k) && !shape.json_only.contains(&k.as_str()))
    {
        return Err(format!(
            "has a field payverify does not write ({})",
            crate::terminal::quoted(key)
        ));
    }
    let text = |key: &str| match map.get(key) {
        Some(Value::String(s)) => Ok(s.as_str()),
        _ => Err(format!("has no string \"{key}\"")),
    };
    let reference = text("reference")?;
    if Reference::parse(reference).map(|r| r.as_str() == reference) != Ok(true) {
        return Err("has an invalid reference".into());
    }
    let exit_code = match map.get("exit_code") {
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("has no numeric \"exit_code\"".into()),
    };
    let (name, exit) = name_and_exit(shape, text("outcome")?, Some(&exit_code))?;
    if !(shape.is_final)(name) {
        return Ok((reference.to_owned(), None));
    }
    let response = match map.get("response") {
        Some(Value::Object(r)) => Some(r),
        Some(Value::Null) | None => None,
        Some(_) => return Err("has a \"response\" that is not an object".into()),
    };
    let status = response
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str);
    consistent(name, status)?;
    let carried = Final { exit, name };
    if exit != Exit::Successful {
        return Ok((reference.to_owned(), Some(Some(carried))));
    }
    let checks_passed = map
        .get("checks")
        .and_then(|c| c.get("passed"))
        .and_then(Value::as_bool);
    let error_null = matches!(map.get("error"), Some(Value::Null) | None);
    if checks_passed == Some(false) || !error_null {
        return Err("is SUCCESSFUL with a failed check or an error".into());
    }
    // Its shape is checked first: a record that is not payverify's at all is refused, not
    // quietly asked again.
    let stored = stored_response(line)?;
    let trusted = trust.sealed(line)
        && stored.is_some_and(|r| trust.carries(reference, r.get(), &trust.trust.expect));
    Ok((reference.to_owned(), Some(trusted.then_some(carried))))
}

/// The `response` of a jsonl record as the text it was written as: checked again as the
/// service's body, byte for byte (a re-encoded object could differ from what was signed).
/// A key given twice is refused: payverify never writes one, and readers differ on which
/// of the two counts.
pub(super) fn stored_response(line: &str) -> Result<Option<&RawValue>, String> {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    #[allow(dead_code)] // the other keys are named only so that a repeated one is an error
    struct Stored<'a> {
        #[serde(borrow, default)]
        response: Option<&'a RawValue>,
        reference: Option<IgnoredAny>,
        outcome: Option<IgnoredAny>,
        exit_code: Option<IgnoredAny>,
        http_status: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
        checks: Option<IgnoredAny>,
        seal: Option<IgnoredAny>,
    }
    crate::domain::json::from_record::<Stored>(line).map(|stored| stored.response)
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
