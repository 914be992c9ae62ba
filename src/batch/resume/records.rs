//! verify's records read back (jsonl and csv), and the pieces reconcile's rows share with
//! them: outcome names and exit codes, csv splitting, the status a final outcome implies.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::*;
use crate::domain::checks::StoredChecks;
use crate::domain::outcome::OutcomeKind;
use crate::domain::reconcile::RowResult;
use crate::exit::Exit;
use crate::reference::Reference;
use crate::render::csv;

/// What a final record comes to, as the index keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Final {
    /// Its exit status.
    pub(super) exit: Exit,
    /// Its outcome name.
    pub(super) name: &'static str,
    /// Whether its checks gave warnings.
    pub(super) warned: bool,
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
    let warnings = map.get("checks").and_then(|c| c.get("warnings"));
    let carried = Final {
        exit,
        name,
        warned: warnings
            .and_then(Value::as_array)
            .is_some_and(|w| !w.is_empty()),
    };
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

pub(super) fn csv_record(line: &str, shape: &Shape) -> Result<Parsed, String> {
    if line.chars().any(char::is_control) {
        return Err("holds a control character".into());
    }
    let fields = split_csv(line).ok_or("is not a well-formed csv row")?;
    if fields.len() != shape.columns.len() {
        return Err(format!(
            "has {} fields, not the {} of the header",
            fields.len(),
            shape.columns.len()
        ));
    }
    let get = |column: &str| {
        shape
            .columns
            .iter()
            .position(|c| *c == column)
            .map_or("", |i| fields[i].as_str())
    };
    let key = get("reference").to_owned();
    if key.is_empty() {
        return Err("has no reference".into());
    }
    let (name, exit) = name_and_exit(shape, get("outcome"), Some(get("exit_code")))?;
    if !(shape.is_final)(name) {
        return Ok((key, None));
    }
    let status = Some(get("status")).filter(|s| !s.is_empty());
    consistent(name, status)?;
    let carried = Final {
        exit,
        name,
        warned: warned_in(get("checks")),
    };
    match exit {
        Exit::Successful if !get("error").is_empty() => Err("is SUCCESSFUL with an error".into()),
        // No response, no hmac: nothing in a csv row proves it came from the service, and
        // nothing can be checked again under this run's expectations, which could turn a
        // CHECK_FAILED into a pass or a pass into a CHECK_FAILED: both are asked again. A
        // FAILED or NOT_FOUND record is that whatever the checks.
        Exit::Successful | Exit::CheckFailed => Ok((key, Some(None))),
        _ => Ok((key, Some(Some(carried)))),
    }
}

/// Whether a stored checks summary came with a warning ([`StoredChecks::warned`]).
pub(super) fn warned_in(checks: &str) -> bool {
    StoredChecks::read(checks).warned()
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

/// The CSV cell a reference is written as, when no other reference is written the same:
/// references with characters the CSV escapes, or starting with `'`, have none (they are
/// asked again rather than matched loosely).
pub(super) fn csv_key(reference: &str) -> Option<String> {
    if reference.starts_with('\'')
        || reference.contains('\\')
        || reference.chars().any(crate::terminal::is_unsafe)
    {
        return None;
    }
    Some(match csv::is_formula_like(reference) {
        true => format!("'{reference}"),
        false => reference.to_owned(),
    })
}

/// One RFC 4180 row on one line: fields split at commas, quoted fields unquoted (`""` is a
/// quote). `None` when a quote is unbalanced or stray.
pub(super) fn split_csv(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next()? {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => break,
                    c => field.push(c),
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Some(fields);
                }
                Some(',') => {}
                Some(_) => return None,
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Some(fields);
                    }
                    Some(',') => break,
                    Some('"') => return None,
                    Some(c) => field.push(c),
                }
            }
        }
        fields.push(field);
    }
}
