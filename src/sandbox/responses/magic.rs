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
    /// What a reference of this kind asks for, given the text that stands for the pattern's
    /// first `<...>` (the whole reference for a pattern not starting `SANDBOX-`); the first
    /// row that recognises a reference answers it.
    meaning: fn(&str) -> Option<Magic>,
}

impl MagicReference {
    /// What `reference` asks for when it is of this kind. A `SANDBOX-` pattern is read as
    /// written: its text up to the first `<` starts the reference, and a placeholder with
    /// `-<anything>` after it is the non-empty text up to the next `-` (which must be there).
    fn recognise(&self, reference: &str) -> Option<Magic> {
        let Some(head) = self
            .pattern
            .find('<')
            .filter(|_| self.pattern.starts_with("SANDBOX-"))
        else {
            return (self.meaning)(reference);
        };
        let rest = reference.strip_prefix(&self.pattern[..head])?;
        if self.pattern[head..].ends_with(">-<anything>") {
            let (value, _) = rest.split_once('-')?;
            return (self.meaning)(value).filter(|_| !value.is_empty());
        }
        (self.meaning)(rest)
    }

    /// Whether `reference` is of this kind.
    #[cfg(test)]
    pub(super) fn recognises(&self, reference: &str) -> bool {
        self.recognise(reference).is_some()
    }
}

/// Every magic reference, in the order they are documented and tried.
// One row a kind of reference, laid out as a table rather than one field a line.
#[rustfmt::skip]
pub const MAGIC_REFERENCES: &[MagicReference] = &[
    row(SAMPLE_REFERENCE, "the documented sample: SUCCESSFUL, ₦40,000.00",
        |r| (r == SAMPLE_REFERENCE).then_some(Magic::Sample)),
    row("<order id>_<unix time>", "WooCommerce merchant reference: SUCCESSFUL, ₦40,000.00",
        |r| merchant_form(r).filter(|_| r.split('_').count() == 2)),
    row("<order id>_<unix time>_<kobo>", "SUCCESSFUL with that amount (_1250000: ₦12,500.00), merchantRef <order id>_<unix time>",
        |r| merchant_form(r).filter(|_| merchant_amount(r))),
    row("<order id>_<unix time>_<kobo>_FAILED", "FAILED with that amount, code 51",
        |r| merchant_form(r).filter(|_| r.ends_with("_FAILED"))),
    row("<order id>_<unix time>_<kobo>_PENDING", "PENDING with that amount (not final)",
        |r| merchant_form(r).filter(|_| r.ends_with("_PENDING"))),
    row("<order id>_<unix time>_<minor>_<code>",
        "SUCCESSFUL with that amount in currency <code> (_8500_USD: USD 85.00)",
        |r| merchant_form(r).filter(|m| matches!(m, Magic::Merchant(.., Some(_))))),
    row("SANDBOX-OK-<anything>", "SUCCESSFUL, ₦40,000.00", |_| Some(Magic::Ok)),
    row("SANDBOX-AMOUNT-<kobo>-<anything>", "SUCCESSFUL with that amount",
        |kobo| Some(Magic::Amount(Kobo(i64::try_from(number(kobo)?).ok()?)))),
    row("SANDBOX-CURRENCY-<code>-<anything>",
        "SUCCESSFUL, 4000000 in currency <code> (3 letters, e.g. USD)",
        |code| (code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()))
            .then(|| Magic::Currency(code.to_owned()))),
    row("SANDBOX-MERCHANT-<merchantRef>", "SUCCESSFUL, ₦40,000.00, merchantRef <merchantRef>",
        |merchant| (!merchant.is_empty()).then(|| Magic::MerchantRef(merchant.to_owned()))),
    row("SANDBOX-CODE-<code>-<anything>", "SUCCESSFUL, code <code> (1 to 4 letters or digits)",
        |code| alphanumeric(code, 4).map(Magic::Code)),
    row("SANDBOX-MODE-<mode>-<anything>", "SUCCESSFUL, mode <mode> (letters or digits, e.g. live)",
        |mode| alphanumeric(mode, 16).map(Magic::Mode)),
    row("SANDBOX-NOHMAC-<anything>", "SUCCESSFUL with no hmac", |_| Some(Magic::NoHmac)),
    row("SANDBOX-BADHMAC-<anything>", "SUCCESSFUL with an hmac that does not match",
        |_| Some(Magic::BadHmac)),
    row("SANDBOX-FAILED-<anything>", "FAILED, code 51, description Insufficient Funds",
        |_| Some(Magic::Failed)),
    row("SANDBOX-PENDING-<anything>", "status PENDING (not final)", |_| Some(Magic::Pending)),
    row("SANDBOX-FLAKY-<anything>", "503 on the first attempt for that reference, then SUCCESSFUL",
        |_| Some(Magic::Flaky)),
    row("SANDBOX-RATELIMIT-<anything>",
        "429 with Retry-After: 1 on the first attempt, then SUCCESSFUL",
        |_| Some(Magic::RateLimit)),
    row("SANDBOX-REVERSED-<anything>",
        "SUCCESSFUL on the first ask, FAILED (code 51, reversed) from the second; --sandbox \
         counts the asks of earlier runs kept in the journal",
        |_| Some(Magic::Reversed)),
    row("SANDBOX-ERROR-<anything>", "500 every time", |_| Some(Magic::Error)),
    row("SANDBOX-SLOW-<ms>-<anything>", "SUCCESSFUL after that delay (at most 120000 ms)",
        |ms| wait(ms, MAX_SLOW).map(Magic::Slow)),
    row("SANDBOX-SETTLES-<ms>-<anything>",
        "PENDING until <ms> after the first request for it, then SUCCESSFUL",
        |ms| wait(ms, MAX_SETTLE).map(|after| Magic::Settles(after, false))),
    row("SANDBOX-SETTLES-FAILED-<ms>-<anything>",
        "PENDING until <ms> after the first request for it, then FAILED",
        |ms| wait(ms, MAX_SETTLE).map(|after| Magic::Settles(after, true))),
    row("anything else", "404 with a JSON message", |_| Some(Magic::Unknown)),
];

/// A row of [`MAGIC_REFERENCES`].
const fn row(
    pattern: &'static str,
    answer: &'static str,
    meaning: fn(&str) -> Option<Magic>,
) -> MagicReference {
    MagicReference {
        pattern,
        answer,
        meaning,
    }
}

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
    /// A WooCommerce merchant reference: the amount and status it states, and the
    /// currency when it names one (else NGN).
    Merchant(Kobo, Outcome, Option<String>),
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
    /// SUCCESSFUL the first time it is asked, FAILED after: a payment reversed.
    Reversed,
    Error,
    Slow(Duration),
    /// PENDING for this long after the first request, then FAILED (`true`) or SUCCESSFUL.
    Settles(Duration, bool),
    Unknown,
}

/// What the WooCommerce references answer besides status and amount, for `--help` and the
/// banner.
pub const MERCHANT_NOTE: &str = "WooCommerce merchant references answer as the gateway's \
WooCommerce plugin expects: merchantRef is <order id>_<unix time>, transactionRef digits of \
the sandbox's own. Write an order's total in kobo after it to choose the amount (the \
reference asked then comes back as paymentRef, and gate --merchant-ref <order id>_<unix time> \
passes), or to try reconcile --sandbox on a file shaped like your WooCommerce or Shopify \
export.";

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
    // `_USD` after the amount: SUCCESSFUL in that currency (an ISO 4217 code's form).
    let currency = rest
        .last()
        .filter(|c| rest.len() == 2 && c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()))
        .map(|c| (*c).to_owned());
    if currency.is_some() {
        rest.pop();
    } else if let Some(&status) = rest.last().filter(|s| !digits(s, 1..=19)) {
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
    Some(Magic::Merchant(amount, outcome, currency))
}

/// Whether the merchant reference `r` states an amount and no status (or SUCCESSFUL).
fn merchant_amount(r: &str) -> bool {
    let last = r.rsplit('_').next().unwrap_or_default();
    let amount = last.bytes().all(|b| b.is_ascii_digit()) && r.split('_').count() == 3;
    amount || last == "SUCCESSFUL"
}

/// What `reference` asks for: the first row that recognises it.
pub(crate) fn magic(reference: &str) -> Magic {
    MAGIC_REFERENCES
        .iter()
        .find_map(|row| row.recognise(reference))
        .unwrap_or(Magic::Unknown)
}

/// `text` as a whole number, when it is digits only.
fn number(text: &str) -> Option<u64> {
    text.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| text.parse().ok())
        .flatten()
}

/// `text`, when it is at most `max` letters or digits.
fn alphanumeric(text: &str, max: usize) -> Option<String> {
    (text.len() <= max && text.bytes().all(|b| b.is_ascii_alphanumeric())).then(|| text.to_owned())
}

/// `ms` milliseconds, when it is a number of them no longer than `max`.
fn wait(ms: &str, max: Duration) -> Option<Duration> {
    Some(Duration::from_millis(number(ms)?)).filter(|d| *d <= max)
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
