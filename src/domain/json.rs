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

/// Parses bytes as one JSON object, refusing duplicate keys at any depth, bodies with more
/// than [`MAX_VALUES`] values or deeper than [`MAX_DEPTH`], and any serde_json private key.
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, BodyError> {
    // A separate pass that builds nothing: serde_json's Value silently keeps the last
    // duplicate, and its size must be known before it is built.
    scan(bytes, MAX_VALUES)?;
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
/// more than `max_values` values or nesting past [`MAX_DEPTH`] is refused.
fn scan(bytes: &[u8], max_values: usize) -> Result<(), BodyError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let count = Cell::new(0);
    let scan = Scan {
        count: &count,
        depth: 0,
        max: max_values,
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
/// key, on the value past [`MAX_VALUES`], and on nesting past [`MAX_DEPTH`].
#[derive(Clone, Copy)]
struct Scan<'a> {
    /// Values seen so far in the whole document.
    count: &'a Cell<usize>,
    /// Arrays and objects enclosing this value.
    depth: usize,
    /// Most values the document may hold.
    max: usize,
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
        if self.depth + 1 > MAX_DEPTH {
            return Err(E::custom(format!(
                "{TOO_LARGE_PREFIX}it nests deeper than {MAX_DEPTH} levels"
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
    no_private_key(text)?;
    no_duplicate_key(text)?;
    serde_json::from_str(text).map_err(|e| format!("is not a JSON object ({e})"))
}

/// `text` read as `T` (a record's typed view), refusing a serde_json private key or a key
/// given twice first.
pub(crate) fn from_record<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    no_private_key(text)?;
    no_duplicate_key(text)?;
    serde_json::from_str(text).map_err(|e| format!("is not a well-formed record ({e})"))
}

/// A record's refusal when an object in it, at any depth, has a key twice: payverify never
/// writes one, and readers differ on which of the two counts (serde_json's `Value` keeps
/// the last, many others the first), so a record saying FAILED to payverify could say
/// SUCCESSFUL to the next reader. Records are not bodies: no cap on their values beyond
/// the cap on a line's length.
fn no_duplicate_key(text: &str) -> Result<(), String> {
    match scan(text.as_bytes(), usize::MAX) {
        Err(BodyError::DuplicateKey(key)) => Err(format!(
            "has the key {} twice",
            crate::terminal::quoted(&key)
        )),
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
            crate::terminal::quoted(&key)
        )),
        None => Ok(()),
    }
}

/// Whether `bytes` is JSON at all (of any shape), without building it.
pub(crate) fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<de::IgnoredAny>(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_non_objects_bad_json_and_duplicates() {
        assert_eq!(
            parse_object(b"[1]"),
            Err(BodyError::NotAnObject("an array"))
        );
        assert_eq!(parse_object(b"null"), Err(BodyError::NotAnObject("null")));
        assert_eq!(
            parse_object(b"\"x\""),
            Err(BodyError::NotAnObject("a string"))
        );
        assert!(matches!(parse_object(b"{"), Err(BodyError::NotJson(_))));
        assert!(matches!(parse_object(b"{} x"), Err(BodyError::NotJson(_))));
        assert!(matches!(
            parse_object(b"\xff\xfe"),
            Err(BodyError::NotJson(_))
        ));
        assert_eq!(
            parse_object(br#"{"status":"FAILED","status":"SUCCESSFUL"}"#),
            Err(BodyError::DuplicateKey("status".into()))
        );
        assert_eq!(
            parse_object(br#"{"data":{"pan":"1","pan":"2"}}"#),
            Err(BodyError::DuplicateKey("pan".into()))
        );
        // An escaped spelling is the same key.
        assert_eq!(
            parse_object(br#"{"status":"FAILED","st\u0061tus":"SUCCESSFUL"}"#),
            Err(BodyError::DuplicateKey("status".into()))
        );
    }

    #[test]
    fn duplicates_are_found_in_objects_of_any_size() {
        for n in [31, 32, 33, 200] {
            let keys: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{i}")).collect();
            let unique = format!("{{{}}}", keys.join(","));
            assert_eq!(parse_object(unique.as_bytes()).map(|m| m.len()), Ok(n));
            for repeat in [0, n / 2, n - 1] {
                let body = format!("{{{},\"k{repeat}\":0}}", keys.join(","));
                assert_eq!(
                    parse_object(body.as_bytes()),
                    Err(BodyError::DuplicateKey(format!("k{repeat}"))),
                    "{n} keys, k{repeat} repeated"
                );
            }
        }
    }

    #[test]
    fn bodies_past_the_value_or_depth_limit_are_refused_unbuilt() {
        let at_limit = format!("{{\"pad\":[{}]}}", vec!["0"; MAX_VALUES - 2].join(","));
        assert!(parse_object(at_limit.as_bytes()).is_ok());
        let over = format!("{{\"pad\":[{}]}}", vec!["0"; MAX_VALUES - 1].join(","));
        assert!(
            matches!(parse_object(over.as_bytes()), Err(BodyError::TooComplex(ref why)) if why.contains("more than 10000")),
            "{:?}",
            parse_object(over.as_bytes())
        );
        // Numbers, strings and nulls each count one; so does every container.
        let strings = format!("{{\"pad\":[{}]}}", vec!["\"\""; MAX_VALUES].join(","));
        assert!(matches!(
            parse_object(strings.as_bytes()),
            Err(BodyError::TooComplex(_))
        ));
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        assert!(parse_object(deep(MAX_DEPTH - 1).as_bytes()).is_ok());
        assert!(matches!(
            parse_object(deep(MAX_DEPTH).as_bytes()),
            Err(BodyError::TooComplex(ref why)) if why.contains("deeper than 64")
        ));
    }

    #[test]
    fn raw_keeps_order_unknown_fields_and_number_text() {
        let map = parse_object(br#"{"z":1,"fee":1.10,"a":{"big":123456789012345678901234567890}}"#)
            .unwrap();
        let keys: Vec<&String> = map.keys().collect();
        assert_eq!(keys, ["z", "fee", "a"]);
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            r#"{"z":1,"fee":1.10,"a":{"big":123456789012345678901234567890}}"#
        );
    }

    /// The refusal above and [`Scan`]'s number rule name serde_json's private token; this
    /// fails if a serde_json release hands a number (one too long for u64 here) over under another
    /// name (then both must
    /// follow it), or stops reading the token's map as a number (then the refusal is moot).
    #[test]
    fn serde_json_still_passes_numbers_under_the_token_this_module_names() {
        struct FirstKey;
        impl<'de> Visitor<'de> for FirstKey {
            type Value = Option<String>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let key = map.next_key::<String>()?;
                map.next_value::<de::IgnoredAny>()?;
                Ok(key)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        let mut d = serde_json::Deserializer::from_str("123456789012345678901234567890");
        let key = de::Deserializer::deserialize_any(&mut d, FirstKey).unwrap();
        assert_eq!(key.as_deref(), Some(NUMBER_TOKEN));
        assert!(NUMBER_TOKEN.starts_with(PRIVATE_PREFIX));
        let read: Value = serde_json::from_str(r#"{"$serde_json::private::Number":"5"}"#).unwrap();
        assert_eq!(read, serde_json::json!(5));
    }

    #[test]
    fn a_serde_json_private_key_is_refused_however_written_wherever_it_is() {
        let number = r#""$serde_json::private::Number""#;
        let raw = r#""$serde_json::private::RawValue""#;
        for body in [
            format!(r#"{{"amount":{{{number}:"4000000"}}}}"#),
            format!(r#"{{"status":{{{raw}:"\"SUCCESSFUL\""}}}}"#),
            format!(r#"{{"data":{{"x":[1,{{{number}:"1"}}]}}}}"#),
            format!(r#"{{"amount":{{"a":1,{number}:"4000000"}}}}"#),
            format!(r#"{{"amount":{{{number} :"4000000"}}}}"#),
            format!("{{\"amount\":{{{number}\n\t:\"4000000\"}}}}"),
            r#"{"amount":{"\u0024serde_json::private::Number":"4000000"}}"#.to_owned(),
            r#"{"amount":{"$serde_json\u003a:private::Number":"4000000"}}"#.to_owned(),
            // A future token: the whole prefix is refused.
            r#"{"amount":{"$serde_json::private::Other":"4000000"}}"#.to_owned(),
            format!(r#"{{{number}:"1"}}"#),
        ] {
            assert!(
                matches!(
                    parse_object(body.as_bytes()),
                    Err(BodyError::ReservedKey(ref k)) if k.starts_with(PRIVATE_PREFIX)
                ),
                "{body}: {:?}",
                parse_object(body.as_bytes())
            );
            assert!(parse_record(&body).is_err(), "{body}");
            assert!(from_record::<de::IgnoredAny>(&body).is_err(), "{body}");
        }
    }

    #[test]
    fn the_private_prefix_as_a_value_or_a_near_miss_key_is_plain_text() {
        for body in [
            r#"{"note":"$serde_json::private::Number"}"#,
            r#"{"note":["$serde_json::private::Number", ":"]}"#,
            r#"{"$serde_json::private":"x"}"#,
            r#"{"serde_json::private::Number":"x"}"#,
            r#"{" $serde_json::private::Number":"x"}"#,
            r#"{"a\"$serde_json::private::Number":"x"}"#,
            r#"{"amount":4000000,"k":"\"$serde_json::private::Number\":"}"#,
        ] {
            assert!(parse_object(body.as_bytes()).is_ok(), "{body}");
        }
        // A real number is still a number, its text kept.
        let map = parse_object(br#"{"amount":4000000.50}"#).unwrap();
        assert_eq!(map["amount"].to_string(), "4000000.50");
    }
}
