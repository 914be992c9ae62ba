//! The Verify Transaction response: the raw JSON object as received, and a typed view of it.
//!
//! Every field may be absent or null. The fields a decision hinges on (status, code, amount,
//! currencyCode, merchantRef, hmac) must have their documented type when present; a wrong
//! type there is a bad response, not something to guess around. Display-only fields are
//! shown as whatever scalar the service sent.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::domain::money::Kobo;

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

/// Parses bytes as one JSON object, refusing duplicate keys at any depth and bodies with
/// more than [`MAX_VALUES`] values or deeper than [`MAX_DEPTH`].
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, BodyError> {
    // A separate pass that builds nothing: serde_json's Value silently keeps the last
    // duplicate, and its size must be known before it is built.
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let count = Cell::new(0);
    let scan = Scan {
        count: &count,
        depth: 0,
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
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(BodyError::NotAnObject(json_kind(&other))),
        Err(e) => Err(BodyError::NotJson(e.to_string())),
    }
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
}

impl Scan<'_> {
    /// Counts one value.
    fn value<E: de::Error>(self) -> Result<(), E> {
        let n = self.count.get() + 1;
        self.count.set(n);
        if n > MAX_VALUES {
            return Err(E::custom(format!(
                "{TOO_LARGE_PREFIX}it holds more than {MAX_VALUES} JSON values"
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

/// Card details from the `data` object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Card {
    /// Masked card number (first six and last four digits).
    pub pan: Option<String>,
    /// Expiry as MM/YY.
    pub expiry: Option<String>,
    /// Expiry as an ISO 8601 local date-time.
    pub expiry_date: Option<String>,
    /// The documented-but-unseen `token` field.
    pub token: Option<String>,
}

/// A typed view of one verification result, with the object as received kept beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    /// The response object exactly as received (key order and unknown fields kept).
    pub raw: Map<String, Value>,
    /// `status`: SUCCESSFUL, FAILED, or something not final.
    pub status: Option<String>,
    /// `code`: "00" accompanies an approval.
    pub code: Option<String>,
    /// `description` of the status.
    pub description: Option<String>,
    /// `amount` in kobo.
    pub amount: Option<Kobo>,
    /// `currencyCode`, e.g. NGN.
    pub currency: Option<String>,
    /// `merchantRef`.
    pub merchant_ref: Option<String>,
    /// `transactionRef`.
    pub transaction_ref: Option<String>,
    /// `paymentRef`.
    pub payment_ref: Option<String>,
    /// `hmac`, hex.
    pub hmac: Option<String>,
    /// `mode`, e.g. dev.
    pub mode: Option<String>,
    /// `option`, e.g. card.
    pub option: Option<String>,
    /// `nextAction`, e.g. APPROVE.
    pub next_action: Option<String>,
    /// `transactionDate`, ISO 8601 UTC.
    pub transaction_date: Option<String>,
    /// `paymentDate`, ISO 8601 UTC.
    pub payment_date: Option<String>,
    /// The `data` object.
    pub card: Card,
}

impl Verification {
    /// Reads the typed view out of a response object, enforcing types on decision fields.
    pub fn from_object(raw: Map<String, Value>) -> Result<Self, BodyError> {
        let strict = |key: &'static str| strict_string(&raw, key);
        let status = strict("status")?;
        let code = strict("code")?;
        let currency = strict("currencyCode")?;
        let merchant_ref = strict("merchantRef")?;
        let hmac = strict("hmac")?;
        let amount = amount(&raw)?;
        let card = match raw.get("data") {
            Some(Value::Object(data)) => Card {
                pan: display(data, "pan"),
                expiry: display(data, "expiry"),
                expiry_date: display(data, "expiryDate"),
                token: display(data, "token"),
            },
            _ => Card::default(),
        };
        Ok(Verification {
            status,
            code,
            description: display(&raw, "description"),
            amount,
            currency,
            merchant_ref,
            transaction_ref: display(&raw, "transactionRef"),
            payment_ref: display(&raw, "paymentRef"),
            hmac,
            mode: display(&raw, "mode"),
            option: display(&raw, "option"),
            next_action: display(&raw, "nextAction"),
            transaction_date: display(&raw, "transactionDate"),
            payment_date: display(&raw, "paymentDate"),
            card,
            raw,
        })
    }
}

fn strict_string(raw: &Map<String, Value>, key: &'static str) -> Result<Option<String>, BodyError> {
    match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(BodyError::BadField {
            field: key,
            problem: format!("is {}, not a string", json_kind(other)),
        }),
    }
}

/// A display-only field: strings as they are, other scalars as their JSON text.
fn display(raw: &Map<String, Value>, key: &str) -> Option<String> {
    match raw.get(key)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn amount(raw: &Map<String, Value>) -> Result<Option<Kobo>, BodyError> {
    let n = match raw.get("amount") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n,
        Some(other) => {
            return Err(BodyError::BadField {
                field: "amount",
                problem: format!("is {}, not a number", json_kind(other)),
            });
        }
    };
    // `arbitrary_precision` keeps the number's text: decide on it exactly, never via f64.
    Kobo::from_json_number(n.as_str())
        .map(Some)
        .map_err(|problem| BodyError::BadField {
            field: "amount",
            problem: format!("{n} {problem}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/verify-success.json"
    ));

    fn parse(s: &str) -> Result<Verification, BodyError> {
        Verification::from_object(parse_object(s.as_bytes())?)
    }

    #[test]
    fn reads_the_documented_sample() {
        let v = parse(SAMPLE).unwrap();
        assert_eq!(v.status.as_deref(), Some("SUCCESSFUL"));
        assert_eq!(v.amount, Some(Kobo(4_000_000)));
        assert_eq!(v.merchant_ref.as_deref(), Some("WQ-506391000507913"));
        assert_eq!(v.card.pan.as_deref(), Some("501501******5015"));
        assert_eq!(
            v.card.expiry_date.as_deref(),
            Some("2030-01-31T23:59:00.000")
        );
        assert_eq!(v.card.token, None);
    }

    #[test]
    fn tolerates_absent_and_null_fields() {
        let v = parse(r#"{"status":"FAILED","amount":null,"data":null}"#).unwrap();
        assert_eq!(v.status.as_deref(), Some("FAILED"));
        assert_eq!(v.amount, None);
        assert_eq!(v.card, Card::default());
        assert_eq!(parse("{}").unwrap().status, None);
    }

    #[test]
    fn amount_may_be_a_whole_float() {
        assert_eq!(
            parse(r#"{"amount":4000000.0}"#).unwrap().amount,
            Some(Kobo(4_000_000))
        );
        assert_eq!(
            parse(r#"{"amount":4e6}"#).unwrap().amount,
            Some(Kobo(4_000_000))
        );
    }

    #[test]
    fn impossible_amounts_are_bad_fields() {
        for body in [
            r#"{"amount":"4000000"}"#,
            r#"{"amount":-1}"#,
            r#"{"amount":4000000.5}"#,
            r#"{"amount":99999999999999999999}"#,
            r#"{"amount":1e300}"#,
            r#"{"amount":true}"#,
            r#"{"amount":3999999.9999999999999}"#,
            r#"{"amount":4000000.00000000000000001}"#,
            r#"{"amount":-0}"#,
        ] {
            assert!(
                matches!(
                    parse(body),
                    Err(BodyError::BadField {
                        field: "amount",
                        ..
                    })
                ),
                "{body}"
            );
        }
    }

    #[test]
    fn decision_fields_must_be_strings() {
        assert!(matches!(
            parse(r#"{"status":1}"#),
            Err(BodyError::BadField {
                field: "status",
                ..
            })
        ));
        assert!(matches!(
            parse(r#"{"currencyCode":["NGN"]}"#),
            Err(BodyError::BadField {
                field: "currencyCode",
                ..
            })
        ));
        // Display fields are lenient.
        assert_eq!(
            parse(r#"{"paymentRef":330137174040}"#)
                .unwrap()
                .payment_ref
                .as_deref(),
            Some("330137174040")
        );
    }

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
}
