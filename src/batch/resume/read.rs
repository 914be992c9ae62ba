//! A line of a resume or state file read into the record struct its command writes
//! (verify's [`RecordJson`], reconcile's [`RowRecord`]), with serde's refusals (a key
//! payverify does not write, a wrong type, a number out of range, a field missing) put as
//! one line of ours that names the key and never quotes the value.

use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::domain::json::{checked_record, json_kind, key_named, parse_record, typed_record};
use crate::render::records::RecordJson;

/// verify's record as read back: its response as the text it was written as.
pub(super) type StoredRecord<'a> = RecordJson<'a, &'a RawValue>;

/// verify's record in `line`, or why the line is not one. Every line of a file is read
/// here when it is opened and again when its turn comes: only the typed view is built,
/// and the record's keys are parsed into a map only to word a refusal.
pub(super) fn record(line: &str) -> Result<StoredRecord<'_>, String> {
    checked_record(line)?;
    typed_record(line).map_err(|e| match parse_record(line) {
        Ok(map) => why::<RecordJson<'static, IgnoredAny>>(&map, &e),
        Err(not_an_object) => not_an_object,
    })
}

/// `map` read as `T`, or why it is not one.
pub(super) fn typed<T: DeserializeOwned>(map: &Map<String, Value>) -> Result<T, String> {
    T::deserialize(map).map_err(|e| why::<T>(map, &e))
}

/// Why `map` (a record's keys and values) is not a `T`, which serde refused with `err`: the
/// first key serde refuses on its own, named (quoted and escaped, never its value);
/// else the field missing.
fn why<T: DeserializeOwned>(map: &Map<String, Value>, err: &serde_json::Error) -> String {
    for (key, value) in map {
        let alone = Value::Object(Map::from_iter([(key.clone(), value.clone())]));
        let Err(e) = T::deserialize(&alone) else {
            continue;
        };
        let text = e.to_string();
        if text.starts_with("missing field") {
            continue;
        }
        // serde's own words for a key of this record it does not know (not one nested in
        // this key's value, which the value's refusal below covers).
        let unknown = text
            .strip_prefix("unknown field `")
            .is_some_and(|rest| rest.starts_with(&format!("{key}`,")));
        if unknown {
            return format!("has a field payverify does not write ({})", key_named(key));
        }
        // A refusal of ours (a result's name), worded for this message.
        if text.starts_with("has ") {
            return text;
        }
        let whole = value.as_i64().is_some() || value.as_u64().is_some();
        return match value {
            Value::Number(_) if !whole => {
                format!("has a {} that is not a whole number", key_named(key))
            }
            _ => format!(
                "has a {} payverify does not write ({})",
                key_named(key),
                json_kind(value)
            ),
        };
    }
    let text = err.to_string();
    match text
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
    {
        Some((field, _)) => format!("has no {}", key_named(field)),
        None => "is not a record payverify writes".to_owned(),
    }
}
