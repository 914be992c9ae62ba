//! Untrusted JSON text in: the service's body, a webhook payload, a `--resume` record. One
//! walk ([`walk`]) reads it, refusing a key given twice at any depth (readers differ on
//! which counts) and more values or depth than a verify response can have (checked as it
//! goes, so a hostile body is never built whole).
//!
//! The walk builds every object and array itself; serde_json reads only scalars. This is
//! what keeps serde_json's private markers out: payverify's serde_json has
//! `arbitrary_precision` (to echo numbers as sent) and `raw_value`, and with them
//! serde_json's own `Value` reads an object whose single key is one of its private tokens
//! as a number or as raw JSON. An object here is only ever an object, whatever its keys,
//! so `"amount": {"$serde_json::private::Number": "4000000"}` is an amount that is not a
//! number, and no token is named in this crate. Code that reads untrusted JSON goes through
//! this module: clippy's `disallowed-methods` (clippy.toml) refuses serde_json's own text
//! parsers elsewhere.
#![allow(clippy::disallowed_methods)]

use std::fmt;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

mod walk;

/// Why a response body is not a usable verification result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// Not parseable JSON (including invalid UTF-8).
    NotJson(String),
    /// Valid JSON, but not an object (an array, a string, null...).
    NotAnObject(&'static str),
    /// The same key twice in one object: ambiguous, so refused.
    DuplicateKey(String),
    /// Too many values or too deep to be a verify response; refused before it is built.
    TooComplex(String),
    /// A decision field with the wrong type or an impossible value.
    BadField {
        /// The JSON key.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::NotJson(e) => write!(f, "the body is not valid JSON: {e}"),
            BodyError::NotAnObject(kind) => write!(f, "the body is JSON {kind}, not an object"),
            BodyError::DuplicateKey(k) => write!(f, "the body has the key \"{k}\" twice"),
            BodyError::TooComplex(why) => {
                write!(f, "the body is too large to be a verify response: {why}")
            }
            BodyError::BadField { field, problem } => write!(f, "\"{field}\" {problem}"),
        }
    }
}

impl std::error::Error for BodyError {}

/// Most JSON values (scalars, arrays and objects, each counting one) a body may hold. A
/// verify response holds a few dozen; the limit bounds the memory a parsed body takes
/// (each value costs tens of bytes as a `Value`, so a 1 MiB `[0,0,...]` would take about
/// 60 MB) before any tree is built.
pub(crate) const MAX_VALUES: usize = 10_000;

/// Deepest nesting of arrays and objects a body may have (a verify response has two).
pub(crate) const MAX_DEPTH: usize = 64;

/// Deepest nesting a record may have: each command's record holds the body one level
/// down, under `"response"`, so a body at [`MAX_DEPTH`] makes a record one deeper, and a
/// record payverify wrote must never be refused when read back.
const RECORD_DEPTH: usize = MAX_DEPTH + 1;

/// Parses bytes as one JSON object, refusing duplicate keys at any depth and bodies with
/// more than [`MAX_VALUES`] values or deeper than [`MAX_DEPTH`].
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, BodyError> {
    match walk::walk(bytes, MAX_VALUES, MAX_DEPTH, true)? {
        Value::Object(map) => Ok(map),
        other => Err(BodyError::NotAnObject(json_kind(&other))),
    }
}

/// The name of a JSON value's kind, for messages ("an array", "null").
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A `--resume` record (one jsonl line) as an object, refusing a key given twice as
/// [`parse_object`] does; no cap on its values beyond the cap on a line's length (a record
/// holds a response that passed them), and one level deeper than a body.
pub(crate) fn parse_record(text: &str) -> Result<Map<String, Value>, String> {
    match walk::walk(text.as_bytes(), usize::MAX, RECORD_DEPTH, true) {
        Ok(Value::Object(map)) => Ok(map),
        // serde's words for a record that is not an object, as they have always been
        // given: a map is refused at its first byte, so nothing of the record is built.
        Ok(_) => match serde_json::from_str::<Map<String, Value>>(text) {
            Err(e) => Err(format!("is not a JSON object ({e})")),
            Ok(_) => Err("is not a JSON object".to_owned()),
        },
        Err(BodyError::NotJson(e)) => Err(format!("is not a JSON object ({e})")),
        Err(refused) => Err(record_refusal(refused)),
    }
}

/// Refuses a record (one jsonl line) with a key given twice, or nested deeper than any
/// record payverify writes, without building it: what [`parse_record`] checks, for a reader
/// that builds only its typed view ([`typed_record`]). Text that is not JSON passes: the
/// typed read after says so.
pub(crate) fn checked_record(text: &str) -> Result<(), String> {
    match walk::walk(text.as_bytes(), usize::MAX, RECORD_DEPTH, false) {
        Err(refused @ (BodyError::DuplicateKey(_) | BodyError::TooComplex(_))) => {
            Err(record_refusal(refused))
        }
        _ => Ok(()),
    }
}

/// A record's refusal for a key given twice (payverify never writes one, and readers differ
/// on which of the two counts, so a record saying FAILED to payverify could say SUCCESSFUL to
/// the next reader) or for nesting no record of payverify's has.
fn record_refusal(refused: BodyError) -> String {
    match refused {
        BodyError::DuplicateKey(key) => format!("has the key {} twice", key_named(&key)),
        BodyError::TooComplex(why) => format!("is not a record payverify writes ({why})"),
        other => other.to_string(),
    }
}

/// `text`, which [`checked_record`] has taken (no key given twice), read as `T` (a record's
/// typed view); serde's refusal as it is, for the caller to word without quoting the
/// record. A typed field never reads an object as a number: only serde_json's `Value`,
/// `Number` and `RawValue` know its tokens, and a record's `response` (a `RawValue`) is
/// taken as the text it is, then read again through [`parse_object`].
pub(crate) fn typed_record<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    serde_json::from_str(text)
}

/// Most characters of a record's key a message names: a forged key can be megabytes long.
const KEY_SHOWN: usize = 64;

/// A record's `key` as a message names it: quoted and escaped, cut after [`KEY_SHOWN`]
/// characters.
pub(crate) fn key_named(key: &str) -> String {
    match key.char_indices().nth(KEY_SHOWN) {
        Some((at, _)) => format!("{}…", crate::terminal::quoted(&key[..at])),
        None => crate::terminal::quoted(key),
    }
}

/// Whether `bytes` is JSON at all (of any shape), without building it.
pub(crate) fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(bytes).is_ok()
}

#[cfg(test)]
mod tests;
