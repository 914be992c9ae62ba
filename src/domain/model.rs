//! The Verify Transaction response: the raw JSON object as received, and a typed view of it.
//!
//! Every field may be absent or null. The fields a decision hinges on (status, code, amount,
//! currencyCode, merchantRef, hmac) must have their documented type when present; a wrong
//! type there is a bad response, not something to guess around. Display-only fields are
//! shown as whatever scalar the service sent.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::domain::json::BodyError;
pub(crate) use crate::domain::json::{json_kind, parse_object};
use crate::domain::money::Kobo;

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
    /// The response object exactly as received (key order and unknown fields kept);
    /// shared, so a record that shows it (reconcile's row) holds it without a copy.
    pub raw: Arc<Map<String, Value>>,
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
    /// Whether the answer says when the payment was made: a `paymentDate` that shows
    /// something, with a digit in it (any date does). What the gateway's own plugin
    /// requires before it acts (see [`crate::domain::judge::settled`]); blank text, or
    /// only characters a reader does not see (a zero-width space, a byte-order mark, a
    /// control character), is no date.
    pub fn has_payment_date(&self) -> bool {
        self.payment_date.as_deref().is_some_and(|date| {
            let seen = |c: char| !c.is_whitespace() && !crate::unseen::is_unsafe(c);
            date.chars().any(seen) && date.chars().any(|c| c.is_ascii_digit())
        })
    }

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
            transaction_ref: name(&raw, "transactionRef")?,
            payment_ref: name(&raw, "paymentRef")?,
            hmac,
            mode: display(&raw, "mode"),
            option: display(&raw, "option"),
            next_action: display(&raw, "nextAction"),
            transaction_date: display(&raw, "transactionDate"),
            payment_date: strict("paymentDate")?,
            card,
            raw: Arc::new(raw),
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

/// A field that names the payment (`transactionRef`, `paymentRef`): what the reference is
/// matched against and a payment is claimed by, so typed as strictly as a decision field. A
/// string as it is, or a whole number's digits (the interface calls them strings of digits,
/// and a gateway may send one unquoted); anything else (`[]`, `false`, `{...}`, `1.2e4`) is a
/// bad response, never a name made of its JSON text.
fn name(raw: &Map<String, Value>, key: &'static str) -> Result<Option<String>, BodyError> {
    match raw.get(key) {
        Some(Value::Number(n)) if n.as_str().bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(n.as_str().to_owned()))
        }
        Some(Value::Number(n)) => Err(BodyError::BadField {
            field: key,
            problem: format!("is the number {n}, not a string of digits"),
        }),
        _ => strict_string(raw, key),
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
}
