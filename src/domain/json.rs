//! Untrusted JSON text in: the service's body, a webhook payload, a `--resume` record. One
//! parse, three refusals: a key given twice at any depth (readers differ on which counts),
//! more values or depth than a verify response can have (checked before any tree is
//! built), and an object key that serde_json reads as one of its private markers.
//!
//! Why the last. payverify's serde_json has `arbitrary_precision` (to echo numbers as sent)
//! and `raw_value`; with them, serde_json's `Value` reads an object whose key is
//! `$serde_json::private::Number` as the number in its string, and one whose key is
//! `$serde_json::private::RawValue` as the JSON text in its string. So
//! `"amount": {"$serde_json::private::Number": "4000000"}` came out as the amount 4000000.
//! serde_json 1.0.154 (the locked version) has exactly these two tokens; every object key
//! starting `$serde_json::private::` (any escaped spelling too) is refused here, before
//! serde_json sees the text, so neither is ever honoured. Code that reads untrusted JSON
//! goes through this module: clippy's `disallowed-methods` (clippy.toml) refuses serde_json's
//! own text parsers elsewhere.
#![allow(clippy::disallowed_methods)]

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

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
    /// An object key that serde_json would read as one of its private markers (a number or
    /// raw JSON in disguise): no service sends one, so the body is refused, never honoured.
    ReservedKey(String),
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
            BodyError::ReservedKey(key) => write!(
                f,
                "the body has the key \"{key}\", which is no field of a verify response"
            ),
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

/// Parses bytes as one JSON object, refusing duplicate keys at any depth, bodies with more
/// than [`MAX_VALUES`] values or deeper than [`MAX_DEPTH`], and any serde_json private key.
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, BodyError> {
    // A separate pass that builds nothing: serde_json's Value silently keeps the last
    // duplicate, and its size must be known before it is built.
    scan(bytes, MAX_VALUES, MAX_DEPTH)?;
    if let Some(key) = reserved_key(bytes) {
        return Err(BodyError::ReservedKey(key));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(BodyError::NotAnObject(json_kind(&other))),
        Err(e) => Err(BodyError::NotJson(e.to_string())),
    }
}

/// Walks `bytes` as one JSON document without building it: a key repeated in any object,
/// more than `max_values` values or nesting past `max_depth` is refused.
fn scan(bytes: &[u8], max_values: usize, max_depth: usize) -> Result<(), BodyError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let count = Cell::new(0);
    let scan = Scan {
        count: &count,
        depth: 0,
        max: max_values,
        max_depth,
    };
    if let Err(e) = scan.deserialize(&mut de).and_then(|_| de.end()) {
        let text = e.to_string();
        if let Some(rest) = text.strip_prefix(DUPLICATE_PREFIX) {
            let key = rest.split(" at line").next().unwrap_or(rest);
            return Err(BodyError::DuplicateKey(key.to_owned()));
        }
        if let Some(rest) = text.strip_prefix(TOO_LARGE_PREFIX) {
            let why = rest.split(" at line").next().unwrap_or(rest);
            return Err(BodyError::TooComplex(why.to_owned()));
        }
        return Err(BodyError::NotJson(text));
    }
    Ok(())
}

const DUPLICATE_PREFIX: &str = "duplicate key ";
const TOO_LARGE_PREFIX: &str = "too large: ";
/// The key under which `arbitrary_precision` passes a number's text through a visitor.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

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

/// Walks any JSON document without building it: fails on the first object with a repeated
/// key, on the value past its most values, and on nesting past its deepest.
#[derive(Clone, Copy)]
struct Scan<'a> {
    /// Values seen so far in the whole document.
    count: &'a Cell<usize>,
    /// Arrays and objects enclosing this value.
    depth: usize,
    /// Most values the document may hold.
    max: usize,
    /// Deepest nesting the document may have.
    max_depth: usize,
}

impl Scan<'_> {
    /// Counts one value.
    fn value<E: de::Error>(self) -> Result<(), E> {
        let n = self.count.get() + 1;
        self.count.set(n);
        if n > self.max {
            return Err(E::custom(format!(
                "{TOO_LARGE_PREFIX}it holds more than {} JSON values",
                self.max
            )));
        }
        Ok(())
    }

    /// Counts a container and gives the scanner for its members.
    fn enter<E: de::Error>(self) -> Result<Self, E> {
        self.value()?;
        if self.depth + 1 > self.max_depth {
            return Err(E::custom(format!(
                "{TOO_LARGE_PREFIX}it nests deeper than {} levels",
                self.max_depth
            )));
        }
        Ok(Scan {
            depth: self.depth + 1,
            ..self
        })
    }
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.value()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.value()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.value()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.value()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.value()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.value()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.enter()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut key = map.next_key::<Key<'de>>()?;
        // `arbitrary_precision` hands a number over as a one-entry map holding its text:
        // that is one scalar, not an object.
        if key.as_ref().is_some_and(|k| k.0 == NUMBER_TOKEN) {
            map.next_value::<de::IgnoredAny>()?;
            return self.value();
        }
        let inner = self.enter()?;
        // A response object has about twenty keys: a linear scan of keys borrowed from the
        // body beats hashing and copying each one (this pass runs for every verification).
        // Past SCAN keys a hash set takes over, so a hostile body cannot make it quadratic.
        const SCAN: usize = 32;
        let mut few: Vec<Key<'de>> = Vec::new();
        let mut many: std::collections::HashSet<Key<'de>> = std::collections::HashSet::new();
        while let Some(k) = key {
            map.next_value_seed(inner)?;
            let repeated = if many.is_empty() && few.len() < SCAN {
                few.contains(&k)
            } else {
                many.extend(few.drain(..));
                many.contains(&k)
            };
            if repeated {
                return Err(de::Error::custom(format!("{DUPLICATE_PREFIX}{}", k.0)));
            }
            match many.is_empty() {
                true => few.push(k),
                false => {
                    many.insert(k);
                }
            }
            key = map.next_key::<Key<'de>>()?;
        }
        Ok(())
    }
}

/// An object key, borrowed from the input unless it had escapes to decode.
#[derive(PartialEq, Eq, Hash)]
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Borrowed(key)))
    }
    fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Owned(key.to_owned())))
    }
}

/// What every key serde_json gives a meaning of its own starts with.
const PRIVATE_PREFIX: &str = "$serde_json::private::";

/// The first object key in the JSON text `bytes` that starts with [`PRIVATE_PREFIX`], as
/// decoded (an escaped spelling such as `\u0024serde_json...` is the same key). A lexical
/// pass over the text, so it sees every key as written, whatever serde_json later makes of
/// it: a string followed by `:` is a key. Keys that could decode to the prefix start with
/// `$` or hold an escape; only those are decoded.
fn reserved_key(bytes: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        let mut escaped = false;
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            if bytes[i] == b'\\' {
                escaped = true;
                i += 1;
            }
            i += 1;
        }
        let end = i.min(bytes.len().saturating_sub(1));
        i += 1;
        let after = bytes[i.min(bytes.len())..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        let literal = &bytes[start..=end];
        if after == Some(&b':') && (escaped || literal.get(1) == Some(&b'$')) {
            match serde_json::from_slice::<String>(literal) {
                Ok(key) if key.starts_with(PRIVATE_PREFIX) => return Some(key),
                _ => {}
            }
        }
    }
    None
}

/// A `--resume` record (one jsonl line) as an object, refusing a serde_json private key as
/// [`parse_object`] does; no size limits (a record holds a response that passed them).
pub(crate) fn parse_record(text: &str) -> Result<Map<String, Value>, String> {
    checked_record(text)?;
    record_object(text)
}

/// Refuses a record (one jsonl line) with a serde_json private key or a key given twice,
/// without building it: what [`parse_record`] checks, for a reader that builds only its
/// typed view ([`typed_record`]).
pub(crate) fn checked_record(text: &str) -> Result<(), String> {
    no_private_key(text)?;
    no_duplicate_key(text)
}

/// A record's keys and values, or why it is not a JSON object.
pub(crate) fn record_object(text: &str) -> Result<Map<String, Value>, String> {
    serde_json::from_str(text).map_err(|e| format!("is not a JSON object ({e})"))
}

/// `text`, which [`checked_record`] has taken (no private key, no key given twice), read as
/// `T` (a record's typed view); serde's refusal as it is, for the caller to word without
/// quoting the record.
pub(crate) fn typed_record<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    serde_json::from_str(text)
}

/// A record's refusal when an object in it, at any depth, has a key twice: payverify never
/// writes one, and readers differ on which of the two counts (serde_json's `Value` keeps
/// the last, many others the first), so a record saying FAILED to payverify could say
/// SUCCESSFUL to the next reader. Records are not bodies: no cap on their values beyond
/// the cap on a line's length.
fn no_duplicate_key(text: &str) -> Result<(), String> {
    match scan(text.as_bytes(), usize::MAX, RECORD_DEPTH) {
        Err(BodyError::DuplicateKey(key)) => Err(format!("has the key {} twice", key_named(&key))),
        Err(BodyError::TooComplex(why)) => Err(format!("is not a record payverify writes ({why})")),
        // Not JSON at all: the parse after says so.
        _ => Ok(()),
    }
}

/// A record's refusal when it holds a serde_json private key.
fn no_private_key(text: &str) -> Result<(), String> {
    match reserved_key(text.as_bytes()) {
        Some(key) => Err(format!(
            "has the key {}, which payverify never writes",
            key_named(&key)
        )),
        None => Ok(()),
    }
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
    serde_json::from_slice::<de::IgnoredAny>(bytes).is_ok()
}

#[cfg(test)]
mod tests;
