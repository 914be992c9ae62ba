//! Trust checks on a verification result: hmac integrity and the caller's expectations.

use std::borrow::Cow;
use std::fmt;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::domain::model::Verification;
use crate::domain::money::Kobo;
use crate::domain::signature;
use crate::secret::Secret;
use crate::terminal;

/// How the `hmac` field is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default, Serialize)]
pub enum HmacMode {
    /// Do not check it.
    Off,
    /// Check it; a mismatch or a missing hmac is a warning on stderr.
    #[default]
    Warn,
    /// Check it; a mismatch or a missing hmac fails the verification (exit 4).
    Require,
}

impl HmacMode {
    /// Parses the config-file spelling.
    pub fn from_config(s: &str) -> Option<Self> {
        <HmacMode as ValueEnum>::from_str(s, true).ok()
    }
}

/// What the caller expects of the transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Expectations {
    /// Exact amount in kobo.
    pub amount: Option<Kobo>,
    /// Currency code, compared case-insensitively.
    pub currency: Option<String>,
    /// Merchant reference, compared exactly.
    pub merchant_ref: Option<String>,
    /// What the shop's order status says (reconcile, with an order status column): held
    /// against the gateway's status, never a check of the answer itself.
    pub shop: Option<crate::domain::shop::ShopStatus>,
    /// The row's order id, trimmed (reconcile, with an order id column): a WooCommerce
    /// merchantRef in the answer (`<order id>_<unix time>`) must name this order.
    pub order_id: Option<String>,
    /// The payment methods besides the gateway the row's payment method names (`Gift
    /// Card` of `Gift Card + PayWithBank3D`), when it names both (reconcile): the
    /// gateway's part may then be less than the amount, never more. A result of
    /// reconcile's, never a check of the answer: the amount check still fails.
    pub other_methods: Option<String>,
}

/// The integrity verdict shown in the table's Integrity row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrity {
    /// The hmac matches.
    Valid,
    /// The hmac does not match.
    Mismatch,
    /// Not checked, and why.
    NotChecked(String),
}

impl Integrity {
    /// The verdict when `--hmac off` asked for no check.
    fn off() -> Integrity {
        Integrity::NotChecked(HMAC_OFF.into())
    }

    /// The verdict as the `checks` summary opens with it.
    fn summary_text(&self) -> String {
        match self {
            Integrity::NotChecked(why) => format!("hmac not checked ({why})"),
            other => other.to_string(),
        }
    }
}

/// Why the hmac was not checked when `--hmac off` asked for no check.
const HMAC_OFF: &str = "--hmac off";

/// How the summary marks a warning line.
const WARNING: &str = "warning: ";

impl fmt::Display for Integrity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Integrity::Valid => f.write_str("hmac valid"),
            Integrity::Mismatch => f.write_str("hmac MISMATCH"),
            Integrity::NotChecked(why) => write!(f, "not checked ({why})"),
        }
    }
}

/// The result of all checks on one verification.
///
/// Serialised (typed) in a sealed record's `judged` key, so `--resume` carries it as it was
/// decided (`domain::seal`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    /// The hmac verdict.
    pub integrity: Integrity,
    /// The checks that fail the verification (exit 4 on a SUCCESSFUL transaction), in the
    /// order they are reported.
    pub failures: Vec<CheckFailure>,
    /// The checks that only warn (the hmac under `--hmac warn`).
    pub warnings: Vec<CheckFailure>,
}

impl CheckReport {
    /// True when nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The failures' lines joined with `; `, as a record's error states them.
    pub fn failure_lines(&self) -> String {
        join(&self.failures)
    }

    /// The checks in one line, for the batch outputs' `checks` column: the hmac verdict,
    /// then each failure and warning that is not about the hmac (the verdict says that),
    /// separated by `; `. E.g. `hmac valid` or `hmac MISMATCH; expected amount ...`.
    pub fn summary(&self) -> String {
        let integrity = self.integrity.summary_text();
        let not_hmac = |f: &&CheckFailure| !matches!(f, CheckFailure::Hmac(_));
        std::iter::once(integrity)
            .chain(
                self.failures
                    .iter()
                    .filter(not_hmac)
                    .map(ToString::to_string),
            )
            .chain(
                self.warnings
                    .iter()
                    .filter(not_hmac)
                    .map(|l| format!("{WARNING}{l}")),
            )
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// `failures`' lines joined with `; `.
pub(crate) fn join(failures: &[CheckFailure]) -> String {
    failures
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// One check an answer failed, with what was wanted and what the answer has: what every
/// command decides by (reconcile's UNDERPAID, CURRENCY_MISMATCH, ... are these, never a
/// second comparison), and the one wording of each line (its `Display`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CheckFailure {
    /// The answer is not about the reference asked: it names others (`named`: each
    /// reference field it has, in the order transactionRef, merchantRef, paymentRef), or, a
    /// SUCCESSFUL one, none at all (`named` empty).
    Reference {
        /// The reference asked.
        requested: String,
        /// The reference fields the answer has, with their values.
        named: Vec<(Cow<'static, str>, String)>,
    },
    /// The hmac does not show the gateway signed the answer.
    Hmac(HmacProblem),
    /// SUCCESSFUL without the approval code 00 (`found`: the code it has, if any).
    Code {
        /// The answer's code.
        found: Option<String>,
    },
    /// Not the amount expected.
    Amount {
        /// The amount expected.
        wanted: Kobo,
        /// The answer's amount, if it has one.
        found: Option<Kobo>,
        /// The answer's currency, for showing both amounts.
        currency: Option<String>,
    },
    /// Not the currency expected.
    Currency {
        /// The currency expected, as given (trimmed).
        wanted: String,
        /// The answer's currency, if it has one.
        found: Option<String>,
    },
    /// Not the merchant reference expected (compared exactly).
    MerchantRef {
        /// The merchant reference expected.
        wanted: String,
        /// The answer's merchant reference, if it has one.
        found: Option<String>,
    },
    /// A WooCommerce merchantRef (`<order id>_<unix time>`) naming another order than the
    /// row's: the payment is that order's.
    Order {
        /// The row's order id (trimmed).
        wanted: String,
        /// The order the merchantRef names.
        found: String,
        /// The merchantRef.
        merchant_ref: String,
    },
    /// Not the `mode` every answer must have.
    Mode {
        /// The mode expected.
        wanted: String,
        /// What the answer has there.
        found: ModeFound,
    },
    /// The payment already paid for another order (the journal's claims, issue 40): one
    /// payment pays for one order, on any day.
    Claimed {
        /// The payment: its transactionRef, else its paymentRef.
        payment: String,
        /// The order that claimed it, with the command and when.
        by: String,
    },
}

/// Why an hmac does not show the gateway signed the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HmacProblem {
    /// The answer has no hmac.
    Missing,
    /// The answer lacks these signed fields (comma-separated), so the hmac cannot be
    /// checked.
    Lacks(String),
    /// The hmac is not 64 hex digits.
    NotHex,
    /// The hmac does not match.
    Mismatch,
}

/// What an answer has where a `mode` is expected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeFound {
    /// Nothing (absent or null).
    Nothing,
    /// A string, not the one expected.
    Text(String),
    /// A JSON value that is not a string: its text and its kind.
    Other(String, Cow<'static, str>),
}

impl fmt::Display for HmacProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HmacProblem::Missing => f.write_str("the response has no hmac"),
            HmacProblem::Lacks(missing) => write!(
                f,
                "the response lacks {missing}, so its hmac cannot be checked"
            ),
            HmacProblem::NotHex => f.write_str("hmac MISMATCH: hmac is not 64 hex digits"),
            HmacProblem::Mismatch => f.write_str(
                "hmac MISMATCH: the hmac does not match merchantRef + currencyCode + amount \
                 signed with the client secret (tampered response, or the wrong secret)",
            ),
        }
    }
}

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = terminal::quoted;
        let says = |found: Option<String>| found.unwrap_or_else(|| "nothing".into());
        match self {
            CheckFailure::Reference { requested, named } => match named.split_first() {
                None => write!(
                    f,
                    "response names no reference: cannot tell it is for {requested}"
                ),
                Some(((first_key, first), rest)) => {
                    let others = rest
                        .iter()
                        .map(|(key, value)| format!("{key} {}", quoted(value)))
                        .collect::<Vec<_>>();
                    let others = match others.is_empty() {
                        true => String::new(),
                        false => format!(" ({})", others.join(", ")),
                    };
                    write!(
                        f,
                        "response is for {first_key} {}{others}, not the requested reference \
                         {requested}",
                        quoted(first)
                    )
                }
            },
            CheckFailure::Hmac(problem) => problem.fmt(f),
            CheckFailure::Code { found: Some(code) } => write!(
                f,
                "status is SUCCESSFUL but code is '{code}'; the gateway approves only with code 00"
            ),
            CheckFailure::Code { found: None } => {
                f.write_str("approval code missing: status is SUCCESSFUL but there is no code 00")
            }
            CheckFailure::Amount {
                wanted,
                found,
                currency,
            } => {
                let currency = currency.as_deref();
                write!(
                    f,
                    "expected amount {}, service says {}",
                    wanted.display_with_currency(currency),
                    says(found.map(|k| k.display_with_currency(currency)))
                )
            }
            CheckFailure::Currency { wanted, found } => write!(
                f,
                "expected currency {}, service says {}",
                wanted.to_ascii_uppercase(),
                says(found.clone())
            ),
            CheckFailure::MerchantRef { wanted, found } => write!(
                f,
                "expected merchant ref {}, service says {}",
                quoted(wanted),
                says(found.as_deref().map(quoted))
            ),
            CheckFailure::Order {
                wanted,
                found,
                merchant_ref,
            } => write!(
                f,
                "the payment is for order {found} (merchantRef {}), not this row's order {}",
                quoted(merchant_ref),
                quoted(wanted)
            ),
            CheckFailure::Claimed { payment, by } => write!(
                f,
                "the payment {} already paid for {by}: one payment counts for one order",
                quoted(payment)
            ),
            CheckFailure::Mode { wanted, found } => {
                let wanted = quoted(wanted);
                match found {
                    ModeFound::Nothing => {
                        write!(f, "expected mode {wanted}, service says nothing")
                    }
                    ModeFound::Text(mode) => {
                        write!(f, "expected mode {wanted}, service says {}", quoted(mode))
                    }
                    ModeFound::Other(text, kind) => write!(
                        f,
                        "expected mode {wanted}, service says {} ({kind}, not a string)",
                        quoted(text)
                    ),
                }
            }
        }
    }
}

/// Checks `v`: the hmac according to `mode` under `secret`, then each expectation.
pub fn evaluate(
    v: &Verification,
    mode: HmacMode,
    secret: &Secret,
    expect: &Expectations,
) -> CheckReport {
    let mut report = CheckReport {
        integrity: Integrity::off(),
        failures: Vec::new(),
        warnings: Vec::new(),
    };
    if mode != HmacMode::Off {
        let (integrity, problem) = integrity(v, secret);
        report.integrity = integrity;
        if let Some(problem) = problem {
            match mode {
                HmacMode::Require => report.failures.push(CheckFailure::Hmac(problem)),
                _ => report.warnings.push(CheckFailure::Hmac(problem)),
            }
        }
    }
    // The gateway's own integrations decide on `code === '00'` alone: without it, a
    // SUCCESSFUL status is not an approval anyone else would act on.
    if v.status.as_deref() == Some("SUCCESSFUL") && v.code.as_deref() != Some(APPROVED) {
        report.failures.push(CheckFailure::Code {
            found: v.code.clone(),
        });
    }
    report.failures.extend(expectation_failures(v, expect));
    report
}

/// The approval code that must accompany a SUCCESSFUL status.
pub(crate) const APPROVED: &str = "00";

/// Whether the response is about `requested`: when it names any of transactionRef,
/// merchantRef or paymentRef, one of them must be the requested reference; a SUCCESSFUL
/// response that names none of them cannot be tied to the request (a generic success from
/// a cache, a proxy or a hostile endpoint), so it fails too. `None` when it is about
/// `requested` (or is not a success naming nothing); otherwise the failure.
pub(crate) fn answers_for(v: &Verification, requested: &str) -> Option<CheckFailure> {
    let refs = [
        ("transactionRef", &v.transaction_ref),
        ("merchantRef", &v.merchant_ref),
        ("paymentRef", &v.payment_ref),
    ];
    // Looked at borrowed: an answer about the reference (nearly every one) copies nothing.
    let mut named = refs
        .iter()
        .filter_map(|(key, value)| value.as_deref().map(|value| (*key, value)));
    let about = match named.clone().next() {
        None => v.status.as_deref() != Some("SUCCESSFUL"),
        Some(_) => named.any(|(_, value)| value == requested),
    };
    (!about).then(|| CheckFailure::Reference {
        requested: requested.to_owned(),
        named: refs
            .iter()
            .filter_map(|(key, value)| {
                value
                    .as_ref()
                    .map(|value| (Cow::Borrowed(*key), value.clone()))
            })
            .collect(),
    })
}

/// The signed message of `v`, or which signed fields are missing.
pub fn signed_message(v: &Verification) -> Result<String, String> {
    match (&v.merchant_ref, &v.currency, v.amount) {
        (Some(m), Some(c), Some(a)) => Ok(signature::message(m, c, a)),
        _ => {
            let missing: Vec<&str> = [
                ("merchantRef", v.merchant_ref.is_none()),
                ("currencyCode", v.currency.is_none()),
                ("amount", v.amount.is_none()),
            ]
            .iter()
            .filter(|(_, absent)| *absent)
            .map(|(name, _)| *name)
            .collect();
            Err(missing.join(", "))
        }
    }
}

fn integrity(v: &Verification, secret: &Secret) -> (Integrity, Option<HmacProblem>) {
    let Some(hmac) = v.hmac.as_deref() else {
        let problem = HmacProblem::Missing;
        return (Integrity::NotChecked(problem.to_string()), Some(problem));
    };
    let message = match signed_message(v) {
        Ok(m) => m,
        Err(missing) => {
            let shown = Integrity::NotChecked(format!("no {missing}"));
            return (shown, Some(HmacProblem::Lacks(missing)));
        }
    };
    if !signature::is_well_formed(hmac) {
        return (Integrity::Mismatch, Some(HmacProblem::NotHex));
    }
    match signature::verify(secret, &message, hmac) {
        true => (Integrity::Valid, None),
        false => (Integrity::Mismatch, Some(HmacProblem::Mismatch)),
    }
}

/// The failure when `v`'s `mode` is not `want` (a JSON string equal to it: another mode,
/// none, or a number that reads the same is not it); `None` when it is, or when no mode is
/// expected. A live profile that expects its live mode never passes a test payment.
pub(crate) fn mode_failure(v: &Verification, want: Option<&str>) -> Option<CheckFailure> {
    let want = want?;
    let found = match v.raw.get("mode") {
        Some(serde_json::Value::String(mode)) if mode == want => return None,
        Some(serde_json::Value::String(mode)) => ModeFound::Text(mode.clone()),
        None | Some(serde_json::Value::Null) => ModeFound::Nothing,
        Some(other) => ModeFound::Other(
            other.to_string(),
            Cow::Borrowed(crate::domain::model::json_kind(other)),
        ),
    };
    Some(CheckFailure::Mode {
        wanted: want.to_owned(),
        found,
    })
}

/// Whether the answer's currency `found` is the currency `wanted` (as given: trimmed, any
/// case); the answer's own text is taken as it is. The one currency comparison: the checks,
/// and reconcile's totals (whose currency a row's money is counted in) go by it.
pub(crate) fn same_currency(found: &str, wanted: &str) -> bool {
    found.eq_ignore_ascii_case(wanted.trim())
}

/// Each expectation `v` does not meet.
pub(crate) fn expectation_failures(v: &Verification, expect: &Expectations) -> Vec<CheckFailure> {
    let mut failures = Vec::new();
    if let Some(wanted) = expect.amount
        && v.amount != Some(wanted)
    {
        failures.push(CheckFailure::Amount {
            wanted,
            found: v.amount,
            currency: v.currency.clone(),
        });
    }
    if let Some(wanted) = &expect.currency
        && !v
            .currency
            .as_deref()
            .is_some_and(|c| same_currency(c, wanted))
    {
        failures.push(CheckFailure::Currency {
            wanted: wanted.trim().to_owned(),
            found: v.currency.clone(),
        });
    }
    // Exact: a merchant reference with a space is another reference.
    if let Some(wanted) = &expect.merchant_ref
        && v.merchant_ref.as_deref() != Some(wanted.as_str())
    {
        failures.push(CheckFailure::MerchantRef {
            wanted: wanted.clone(),
            found: v.merchant_ref.clone(),
        });
    }
    // The WooCommerce plugin reads the order from the merchantRef's prefix: a payment
    // whose merchantRef names another order is that order's, whatever cell holds it.
    if let Some(wanted) = &expect.order_id
        && let Some(merchant_ref) = v.merchant_ref.as_deref()
        && let Some(order) = woocommerce_order(merchant_ref)
        && order != order_number(wanted)
    {
        failures.push(CheckFailure::Order {
            wanted: wanted.trim().to_owned(),
            found: order.to_owned(),
            merchant_ref: merchant_ref.to_owned(),
        });
    }
    failures
}

/// An order id as two are compared: the cell's surrounding spaces aside, and one leading
/// `#`, which Shopify's `Name` puts before the number (`#1001` is order 1001). Nothing
/// else: `# 1001`, `##1001` and `1001#` are other text, never order 1001.
pub(crate) fn order_number(id: &str) -> &str {
    let id = id.trim();
    id.strip_prefix('#').unwrap_or(id)
}

/// The order id a WooCommerce merchant reference names: the digits before the first `_`
/// of `<order id>_<unix time>` (ten digits), with anything after a further `_`; `None`
/// for a merchantRef of any other form.
pub(crate) fn woocommerce_order(merchant_ref: &str) -> Option<&str> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (order, rest) = merchant_ref.split_once('_')?;
    let time = rest.split_once('_').map_or(rest, |(time, _)| time);
    (digits(order) && time.len() == 10 && digits(time)).then_some(order)
}

#[cfg(test)]
mod tests;
