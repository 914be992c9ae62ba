//! The magic references: the one list that `sandbox --help`, the banner, the README (a test
//! keeps it in step) and the sandbox itself read. A kind of reference is added by adding its
//! row here, with how such a reference is recognised, and its answer in `super::reply`.

use std::time::Duration;

use crate::domain::money::Kobo;

use super::{MAX_SETTLE, MAX_SLOW, Outcome, SAMPLE_REFERENCE};

/// One kind of magic reference.
pub struct MagicReference {
    /// How it is written, e.g. `SANDBOX-AMOUNT-<kobo>-<anything>`.
    pub pattern: &'static str,
    /// What the sandbox answers it with.
    pub answer: &'static str,
    /// The reference's meaning when it is one of this kind; the first row that recognises a
    /// reference answers it.
    recognise: fn(&str) -> Option<Magic>,
}

impl MagicReference {
    /// Whether `reference` is of this kind.
    #[cfg(test)]
    pub(super) fn recognises(&self, reference: &str) -> bool {
        (self.recognise)(reference).is_some()
    }
}

/// Every magic reference, in the order they are documented and tried.
pub const MAGIC_REFERENCES: &[MagicReference] = &[
    MagicReference {
        pattern: SAMPLE_REFERENCE,
        answer: "the documented sample: SUCCESSFUL, ₦40,000.00",
        recognise: |r| (r == SAMPLE_REFERENCE).then_some(Magic::Sample),
    },
    MagicReference {
        pattern: "<order id>_<unix time>",
        answer: "WooCommerce merchant reference: SUCCESSFUL, ₦40,000.00",
        recognise: |r| merchant_form(r).filter(|_| r.split('_').count() == 2),
    },
    MagicReference {
        pattern: "<order id>_<unix time>_<kobo>",
        answer: "SUCCESSFUL with that amount (_1250000: ₦12,500.00)",
        recognise: |r| {
            let last = r.rsplit('_').next().unwrap_or_default();
            let amount = last.bytes().all(|b| b.is_ascii_digit()) && r.split('_').count() == 3;
            merchant_form(r).filter(|_| amount || last == "SUCCESSFUL")
        },
    },
    MagicReference {
        pattern: "<order id>_<unix time>_<kobo>_FAILED",
        answer: "FAILED with that amount, code 51",
        recognise: |r| merchant_form(r).filter(|_| r.ends_with("_FAILED")),
    },
    MagicReference {
        pattern: "<order id>_<unix time>_<kobo>_PENDING",
        answer: "PENDING with that amount (not final)",
        recognise: |r| merchant_form(r).filter(|_| r.ends_with("_PENDING")),
    },
    MagicReference {
        pattern: "SANDBOX-OK-<anything>",
        answer: "SUCCESSFUL, ₦40,000.00",
        recognise: |r| word(r, "OK-").map(|_| Magic::Ok),
    },
    MagicReference {
        pattern: "SANDBOX-AMOUNT-<kobo>-<anything>",
        answer: "SUCCESSFUL with that amount",
        recognise: |r| {
            let kobo = number(r, "AMOUNT-")?;
            Some(Magic::Amount(Kobo(i64::try_from(kobo).ok()?)))
        },
    },
    MagicReference {
        pattern: "SANDBOX-CURRENCY-<code>-<anything>",
        answer: "SUCCESSFUL, 4000000 in currency <code> (3 letters, e.g. USD)",
        recognise: |r| {
            let code = parameter(r, "CURRENCY-")?;
            (code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()))
                .then(|| Magic::Currency(code.to_owned()))
        },
    },
    MagicReference {
        pattern: "SANDBOX-MERCHANT-<merchantRef>",
        answer: "SUCCESSFUL, ₦40,000.00, merchantRef <merchantRef>",
        recognise: |r| {
            let merchant = word(r, "MERCHANT-")?;
            (!merchant.is_empty()).then(|| Magic::MerchantRef(merchant.to_owned()))
        },
    },
    MagicReference {
        pattern: "SANDBOX-CODE-<code>-<anything>",
        answer: "SUCCESSFUL, code <code> (1 to 4 letters or digits)",
        recognise: |r| {
            let code = parameter(r, "CODE-")?;
            (code.len() <= 4 && code.bytes().all(|b| b.is_ascii_alphanumeric()))
                .then(|| Magic::Code(code.to_owned()))
        },
    },
    MagicReference {
        pattern: "SANDBOX-MODE-<mode>-<anything>",
        answer: "SUCCESSFUL, mode <mode> (letters or digits, e.g. live)",
        recognise: |r| {
            let mode = parameter(r, "MODE-")?;
            (mode.len() <= 16 && mode.bytes().all(|b| b.is_ascii_alphanumeric()))
                .then(|| Magic::Mode(mode.to_owned()))
        },
    },
    MagicReference {
        pattern: "SANDBOX-NOHMAC-<anything>",
        answer: "SUCCESSFUL with no hmac",
        recognise: |r| word(r, "NOHMAC-").map(|_| Magic::NoHmac),
    },
    MagicReference {
        pattern: "SANDBOX-BADHMAC-<anything>",
        answer: "SUCCESSFUL with an hmac that does not match",
        recognise: |r| word(r, "BADHMAC-").map(|_| Magic::BadHmac),
    },
    MagicReference {
        pattern: "SANDBOX-FAILED-<anything>",
        answer: "FAILED, code 51, description Insufficient Funds",
        recognise: |r| word(r, "FAILED-").map(|_| Magic::Failed),
    },
    MagicReference {
        pattern: "SANDBOX-PENDING-<anything>",
        answer: "status PENDING (not final)",
        recognise: |r| word(r, "PENDING-").map(|_| Magic::Pending),
    },
    MagicReference {
        pattern: "SANDBOX-FLAKY-<anything>",
        answer: "503 on the first attempt for that reference, then SUCCESSFUL",
        recognise: |r| word(r, "FLAKY-").map(|_| Magic::Flaky),
    },
    MagicReference {
        pattern: "SANDBOX-RATELIMIT-<anything>",
        answer: "429 with Retry-After: 1 on the first attempt, then SUCCESSFUL",
        recognise: |r| word(r, "RATELIMIT-").map(|_| Magic::RateLimit),
    },
    MagicReference {
        pattern: "SANDBOX-ERROR-<anything>",
        answer: "500 every time",
        recognise: |r| word(r, "ERROR-").map(|_| Magic::Error),
    },
    MagicReference {
        pattern: "SANDBOX-SLOW-<ms>-<anything>",
        answer: "SUCCESSFUL after that delay (at most 120000 ms)",
        recognise: |r| {
            let ms = number(r, "SLOW-").filter(|ms| *ms <= MAX_SLOW.as_millis() as u64)?;
            Some(Magic::Slow(Duration::from_millis(ms)))
        },
    },
    MagicReference {
        pattern: "SANDBOX-SETTLES-<ms>-<anything>",
        answer: "PENDING until <ms> after the first request for it, then SUCCESSFUL",
        recognise: |r| settle(number(r, "SETTLES-")?).map(|after| Magic::Settles(after, false)),
    },
    MagicReference {
        pattern: "SANDBOX-SETTLES-FAILED-<ms>-<anything>",
        answer: "PENDING until <ms> after the first request for it, then FAILED",
        recognise: |r| {
            settle(number(r, "SETTLES-FAILED-")?).map(|after| Magic::Settles(after, true))
        },
    },
    MagicReference {
        pattern: "anything else",
        answer: "404 with a JSON message",
        recognise: |_| Some(Magic::Unknown),
    },
];

/// What a reference asks the sandbox for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Magic {
    Sample,
    Ok,
    Amount(Kobo),
    /// SUCCESSFUL in another currency.
    Currency(String),
    /// SUCCESSFUL for this merchant reference.
    MerchantRef(String),
    /// A WooCommerce merchant reference: the amount and status it states.
    Merchant(Kobo, Outcome),
    /// SUCCESSFUL with this code.
    Code(String),
    /// SUCCESSFUL with this mode.
    Mode(String),
    /// SUCCESSFUL without an hmac.
    NoHmac,
    BadHmac,
    Failed,
    Pending,
    Flaky,
    RateLimit,
    Error,
    Slow(Duration),
    /// PENDING for this long after the first request, then FAILED (`true`) or SUCCESSFUL.
    Settles(Duration, bool),
    Unknown,
}

/// What the WooCommerce references answer besides status and amount, for `--help` and the
/// banner.
pub const MERCHANT_NOTE: &str = "WooCommerce merchant references answer as the gateway's \
WooCommerce plugin expects: merchantRef is the reference, transactionRef digits of the \
sandbox's own. Write an order's total in kobo after it to try reconcile --sandbox on a file \
shaped like your export.";

/// The WooCommerce plugin's merchant reference, `<order id>_<unix time>`, with an
/// optional `_<kobo>` and `_FAILED` / `_PENDING` / `_SUCCESSFUL` after it; `None` for
/// anything else (a stray part, a time that is not ten digits, an amount beyond i64).
fn merchant_form(reference: &str) -> Option<Magic> {
    let digits = |t: &str, len: std::ops::RangeInclusive<usize>| {
        len.contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit())
    };
    let mut parts = reference.split('_');
    let (order, time) = (parts.next()?, parts.next()?);
    if !digits(order, 1..=19) || !digits(time, 10..=10) {
        return None;
    }
    let mut amount = Kobo(4_000_000);
    let mut outcome = Outcome::Successful;
    let mut rest: Vec<&str> = parts.collect();
    if let Some(&status) = rest.last().filter(|s| !digits(s, 1..=19)) {
        outcome = match status {
            "SUCCESSFUL" => Outcome::Successful,
            "FAILED" => Outcome::Failed,
            "PENDING" => Outcome::Pending,
            _ => return None,
        };
        rest.pop();
    }
    match rest.as_slice() {
        [] => {}
        [kobo] if digits(kobo, 1..=19) => amount = Kobo(kobo.parse().ok()?),
        _ => return None,
    }
    Some(Magic::Merchant(amount, outcome))
}

/// What `reference` asks for: the first row that recognises it.
pub(crate) fn magic(reference: &str) -> Magic {
    MAGIC_REFERENCES
        .iter()
        .find_map(|row| (row.recognise)(reference))
        .unwrap_or(Magic::Unknown)
}

/// The text after `SANDBOX-` and `kind` (say `OK-`), when the reference starts so.
fn word<'a>(reference: &'a str, kind: &str) -> Option<&'a str> {
    reference.strip_prefix("SANDBOX-")?.strip_prefix(kind)
}

/// The non-empty text between `SANDBOX-<kind>` and the next `-` (which must be there).
fn parameter<'a>(reference: &'a str, kind: &str) -> Option<&'a str> {
    let (value, _) = word(reference, kind)?.split_once('-')?;
    (!value.is_empty()).then_some(value)
}

/// The parameter as a whole number of digits only.
fn number(reference: &str, kind: &str) -> Option<u64> {
    let digits = parameter(reference, kind)?;
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| digits.parse().ok())
        .flatten()
}

fn settle(ms: u64) -> Option<Duration> {
    Some(Duration::from_millis(ms)).filter(|d| *d <= MAX_SETTLE)
}

/// The heading (what every answer has unless its reference asks otherwise) and the table,
/// as the banner prints them: for an 80-column terminal.
pub fn magic_section() -> String {
    magic_section_for(TABLE_WIDTH)
}

/// The same, no line wider than `width` columns: `sandbox --help` passes the width of the
/// terminal it prints on, since clap wraps a longer line back to the left margin, through
/// the table's columns.
pub fn magic_section_for(width: usize) -> String {
    let width = width.max(MIN_WIDTH);
    let heading = "Magic references (each answer has mode \"dev\", currencyCode NGN, code 00 \
                   when SUCCESSFUL, and an hmac signed with the sandbox secret, unless the \
                   reference says otherwise):";
    format!(
        "{}\n{}{}\n",
        wrap(heading, width).join("\n"),
        magic_table_for(width),
        wrap(MERCHANT_NOTE, width).join("\n")
    )
}

/// Widest line of the table: it must read on an 80-column terminal, where clap would
/// otherwise wrap a long line back to the left margin.
const TABLE_WIDTH: usize = 78;

/// Narrowest width laid out; a terminal narrower than this wraps what it must.
const MIN_WIDTH: usize = 30;

/// Fewest columns an answer gets beside the patterns; with less, each answer goes on the
/// lines under its pattern instead.
const MIN_ANSWER_WIDTH: usize = 28;

/// The magic references as two aligned columns, each answer wrapped under itself so no line
/// passes [`TABLE_WIDTH`] columns.
pub fn magic_table() -> String {
    magic_table_for(TABLE_WIDTH)
}

/// The table in `width` columns: two aligned columns when the answers get
/// [`MIN_ANSWER_WIDTH`] beside the widest pattern, else each pattern on its own line with its
/// answer indented below it.
fn magic_table_for(width: usize) -> String {
    let column = MAGIC_REFERENCES
        .iter()
        .map(|row| row.pattern.chars().count())
        .max()
        .unwrap_or(0)
        + 4;
    let mut out = String::new();
    if width < column + MIN_ANSWER_WIDTH {
        for row in MAGIC_REFERENCES {
            out.push_str(&format!("  {}\n", row.pattern));
            for line in wrap(row.answer, width.saturating_sub(STACKED_INDENT)) {
                out.push_str(&format!("{:STACKED_INDENT$}{line}\n", ""));
            }
        }
        return out;
    }
    for row in MAGIC_REFERENCES {
        let mut lines = wrap(row.answer, width.saturating_sub(column)).into_iter();
        let first = lines.next().unwrap_or_default();
        out.push_str(&format!(
            "  {:<width$}{first}\n",
            row.pattern,
            width = column - 2
        ));
        for line in lines {
            out.push_str(&format!("{:column$}{line}\n", ""));
        }
    }
    out
}

/// Where an answer starts under its pattern in the narrow layout.
const STACKED_INDENT: usize = 6;

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stands
/// alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}
