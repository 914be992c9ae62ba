//! What the sandbox answers: magic references, deterministic derived values, auth.
//!
//! Pure functions of (method, path, Authorization header, per-reference attempt count), so
//! every reply is unit-tested without a socket.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::domain::money::Kobo;
use crate::domain::signature;
use crate::reference::decode_segment;
use crate::secret::Secret;

/// The sandbox's client id.
pub const CLIENT_ID: &str = "sandbox";
/// The sandbox's client secret (not a secret: it is printed in the banner).
pub const CLIENT_SECRET: &str = "sandbox-secret";
/// The reference of the documented sample.
pub const SAMPLE_REFERENCE: &str = "0000000000000044177";
/// The operation path prefix.
pub(crate) const VERIFY_PREFIX: &str = "/api/payment/verify/";
/// Longest delay `SANDBOX-SLOW-<ms>-` may ask for.
pub(crate) const MAX_SLOW: Duration = Duration::from_secs(120);
/// Longest time `SANDBOX-SETTLES-<ms>-` may stay pending: a day.
pub(crate) const MAX_SETTLE: Duration = Duration::from_secs(86_400);

mod magic;
pub use magic::{
    MAGIC_REFERENCES, MERCHANT_NOTE, MagicReference, magic_section, magic_section_for, magic_table,
};
use magic::{Magic, magic};

/// One HTTP reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    /// HTTP status.
    pub(crate) status: u16,
    /// JSON body.
    pub(crate) body: Value,
    /// `Retry-After` seconds, when set.
    pub(crate) retry_after: Option<u32>,
    /// Extra delay before answering (SLOW references).
    pub(crate) delay: Duration,
}

impl Reply {
    fn new(status: u16, body: Value) -> Self {
        Reply {
            status,
            body,
            retry_after: None,
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn message(status: u16, message: &str) -> Self {
        Reply::new(status, json!({ "message": message }))
    }
}

/// What a sandbox remembers of runs before it: whether a reference was asked about then.
/// `--sandbox` starts a sandbox for one run, so a reference that answers differently the
/// second time needs the journal's memory to do so on the second run.
#[derive(Clone)]
pub struct Memory(Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl Memory {
    /// A memory that asks `asked_before`.
    pub fn new(asked_before: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        Memory(Arc::new(asked_before))
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memory(..)")
    }
}

/// Per-reference attempt counts, for the references that fail only the first time, and
/// when each settling reference was first asked about.
#[derive(Debug, Default)]
pub(crate) struct State {
    attempts: Mutex<HashMap<String, u32>>,
    first_asked: Mutex<HashMap<String, Instant>>,
    /// Earlier runs' asks, when the sandbox has them.
    memory: Option<Memory>,
}

impl State {
    /// A sandbox's state before its first request, knowing what `memory` knows.
    pub(crate) fn remembering(memory: Option<Memory>) -> Self {
        State {
            memory,
            ..State::default()
        }
    }

    /// Whether `reference` was asked about before this request: by this sandbox, or in an
    /// earlier run its memory knows of.
    fn asked_before(&self, reference: &str) -> bool {
        self.attempt(reference) > 1 || self.memory.as_ref().is_some_and(|m| (m.0)(reference))
    }

    /// Whether `after` has passed since the first request for `reference` (this one, if it
    /// is the first).
    fn settled(&self, reference: &str, after: Duration) -> bool {
        let now = Instant::now();
        let Ok(mut map) = self.first_asked.lock() else {
            return false;
        };
        let first = *map.entry(reference.to_owned()).or_insert(now);
        now.duration_since(first) >= after
    }

    fn attempt(&self, reference: &str) -> u32 {
        let Ok(mut map) = self.attempts.lock() else {
            return 1;
        };
        let n = map.entry(reference.to_owned()).or_insert(0);
        *n += 1;
        *n
    }
}

/// The expected `Authorization` header: `Basic base64(sandbox:sandbox-secret)`.
pub(crate) fn expected_authorization() -> String {
    let pair = format!("{CLIENT_ID}:{CLIENT_SECRET}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// The reply to one request.
pub(crate) fn reply(
    state: &State,
    method: &str,
    raw_path: &str,
    authorization: Option<&str>,
) -> Reply {
    let path = raw_path.split('?').next().unwrap_or(raw_path);
    let Some(segment) = path
        .strip_prefix(VERIFY_PREFIX)
        .filter(|s| !s.contains('/'))
    else {
        return Reply::message(
            404,
            "no such endpoint; use GET /api/payment/verify/{reference}",
        );
    };
    if method != "GET" {
        return Reply::message(405, "only GET is supported");
    }
    if authorization != Some(expected_authorization().as_str()) {
        return Reply::message(
            401,
            "invalid credentials: use client id 'sandbox' and secret 'sandbox-secret' \
             (HTTP Basic, base64)",
        );
    }
    let Some(reference) = decode_segment(segment).filter(|r| !r.is_empty()) else {
        return Reply::message(404, "the reference is not valid percent-encoded UTF-8");
    };
    let answer = |outcome, amount| transaction(&reference, outcome, amount);
    let paid = || answer(Outcome::Successful, Kobo(4_000_000));
    // A SUCCESSFUL answer with one field changed, signed again when the field is signed.
    let changed = |key: &str, value: &str| {
        let mut body = paid();
        body[key] = Value::String(value.to_owned());
        resign(&mut body);
        Reply::new(200, body)
    };
    match magic(&reference) {
        Magic::Sample | Magic::Ok => Reply::new(200, paid()),
        Magic::Amount(kobo) => Reply::new(200, answer(Outcome::Successful, kobo)),
        Magic::Currency(code) => changed("currencyCode", &code),
        Magic::MerchantRef(merchant) => changed("merchantRef", &merchant),
        Magic::Code(code) => changed("code", &code),
        Magic::Mode(mode) => changed("mode", &mode),
        Magic::NoHmac => {
            let mut body = paid();
            if let Some(fields) = body.as_object_mut() {
                fields.remove("hmac");
            }
            Reply::new(200, body)
        }
        Magic::Failed => Reply::new(200, answer(Outcome::Failed, Kobo(4_000_000))),
        Magic::Pending => Reply::new(200, answer(Outcome::Pending, Kobo(4_000_000))),
        Magic::Flaky if state.attempt(&reference) == 1 => {
            Reply::message(503, "service temporarily unavailable (sandbox: flaky)")
        }
        Magic::RateLimit if state.attempt(&reference) == 1 => Reply {
            retry_after: Some(1),
            ..Reply::message(429, "too many requests (sandbox: rate limit)")
        },
        Magic::Flaky | Magic::RateLimit => Reply::new(200, paid()),
        Magic::Reversed if !state.asked_before(&reference) => Reply::new(200, paid()),
        Magic::Reversed => {
            let mut body = answer(Outcome::Failed, Kobo(4_000_000));
            body["description"] = Value::String("Transaction reversed".to_owned());
            Reply::new(200, body)
        }
        Magic::Error => Reply::message(500, "internal server error (sandbox: error)"),
        Magic::Slow(delay) => Reply {
            delay,
            ..Reply::new(200, paid())
        },
        Magic::Settles(after, _) if !state.settled(&reference, after) => {
            Reply::new(200, answer(Outcome::Pending, Kobo(4_000_000)))
        }
        Magic::Settles(_, false) => Reply::new(200, paid()),
        Magic::Settles(_, true) => Reply::new(200, answer(Outcome::Failed, Kobo(4_000_000))),
        Magic::BadHmac => {
            let mut body = paid();
            body["hmac"] = Value::String(sign(&merchant_ref(&reference), "NGN", Kobo(4_000_001)));
            Reply::new(200, body)
        }
        Magic::Merchant(amount, outcome, currency) => {
            let currency = currency.as_deref().unwrap_or("NGN");
            Reply::new(
                200,
                merchant_transaction(&reference, outcome, amount, currency),
            )
        }
        Magic::Unknown => Reply::message(
            404,
            &format!("no transaction with reference '{reference}' (sandbox)"),
        ),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Successful,
    Failed,
    Pending,
}

fn sign(merchant_ref: &str, currency: &str, amount: Kobo) -> String {
    signature::sign(
        &Secret::new(CLIENT_SECRET),
        &signature::message(merchant_ref, currency, amount),
    )
}

/// Signs `body` again over its own merchantRef, currencyCode and amount, as the gateway
/// would have signed it.
fn resign(body: &mut Value) {
    let merchant = body["merchantRef"].as_str().unwrap_or_default().to_owned();
    let currency = body["currencyCode"].as_str().unwrap_or_default().to_owned();
    let amount = Kobo(body["amount"].as_i64().unwrap_or_default());
    body["hmac"] = Value::String(sign(&merchant, &currency, amount));
}

/// Stable 64-bit FNV-1a: derived values must not change between runs or versions.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn merchant_ref(reference: &str) -> String {
    if reference == SAMPLE_REFERENCE {
        return "WQ-506391000507913".into();
    }
    format!("SBX-{:015}", fnv1a(reference) % 1_000_000_000_000_000)
}

fn transaction(reference: &str, outcome: Outcome, amount: Kobo) -> Value {
    let h = fnv1a(reference);
    let sample = reference == SAMPLE_REFERENCE;
    let (payment_ref, transaction_ms) = if sample {
        ("330137174040".to_owned(), 1_668_465_217_833)
    } else {
        // Some moment of 2022, fixed per reference.
        let year_ms = 365 * 86_400_000;
        (
            format!("{:012}", (h >> 7) % 1_000_000_000_000),
            1_640_995_200_000 + (h % year_ms),
        )
    };
    let (status, code, description, next_action) = match outcome {
        Outcome::Successful => (
            "SUCCESSFUL",
            "00",
            "Approved by Financial Institution",
            "APPROVE",
        ),
        Outcome::Failed => ("FAILED", "51", "Insufficient Funds", "DECLINE"),
        Outcome::Pending => ("PENDING", "09", "Transaction in progress", "WAIT"),
    };
    let merchant = merchant_ref(reference);
    json!({
        "hmac": sign(&merchant, "NGN", amount),
        "mode": "dev",
        "status": status,
        "code": code,
        "description": description,
        "amount": amount.0,
        "merchantRef": merchant,
        "transactionRef": reference,
        "paymentRef": payment_ref,
        "currencyCode": "NGN",
        "data": {
            "pan": "501501******5015",
            "expiry": "01/30",
            "expiryDate": "2030-01-31T23:59:00.000"
        },
        "option": "card",
        "nextAction": next_action,
        "transactionDate": iso8601_ms(transaction_ms),
        "paymentDate": iso8601_ms(transaction_ms + 47_080),
    })
}

/// The answer for a WooCommerce merchant reference, as the gateway gives it: the
/// merchantRef is the plugin's `<order id>_<unix time>` (and is signed as such), the
/// gateway's transactionRef is its own digits (19 of them, as in the documented sample), and
/// the payment happened at the reference's unix time, the moment the plugin opened the
/// payment page.
///
/// A reference with the sandbox's `_<kobo>` (and status or currency) after it is answered as
/// the payment page's own reference for that merchant reference: the merchantRef is the
/// WooCommerce part alone, as the shop stored it, and the reference asked comes back as the
/// paymentRef, so the answer still names it. `gate 1007_1763730000_1850000 --merchant-ref
/// 1007_1763730000` then checks what a WooCommerce checkout would.
fn merchant_transaction(reference: &str, outcome: Outcome, amount: Kobo, currency: &str) -> Value {
    let mut body = transaction(reference, outcome, amount);
    let h = fnv1a(reference);
    let mut parts = reference.splitn(3, '_');
    let woocommerce = match (parts.next(), parts.next(), parts.next()) {
        (Some(order), Some(time), Some(_)) => {
            body["paymentRef"] = Value::String(reference.to_owned());
            &reference[..order.len() + 1 + time.len()]
        }
        _ => reference,
    };
    body["currencyCode"] = Value::String(currency.to_owned());
    body["hmac"] = Value::String(sign(woocommerce, currency, amount));
    body["merchantRef"] = Value::String(woocommerce.to_owned());
    body["transactionRef"] = Value::String(format!("{:019}", h % 10_000_000_000_000_000_000));
    let at_ms = reference
        .split('_')
        .nth(1)
        .and_then(|t| t.parse::<u64>().ok())
        .map_or(0, |s| s * 1000 + h % 1000);
    body["transactionDate"] = Value::String(iso8601_ms(at_ms));
    body["paymentDate"] = Value::String(iso8601_ms(at_ms + 47_080));
    body
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the Unix epoch (UTC).
fn iso8601_ms(epoch_ms: u64) -> String {
    let days = (epoch_ms / 86_400_000) as i64;
    let ms_of_day = epoch_ms % 86_400_000;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000
    )
}

#[cfg(test)]
mod tests;
