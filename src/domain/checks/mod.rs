//! Trust checks on a verification result: hmac integrity and the caller's expectations.

use std::fmt;

use clap::ValueEnum;

use crate::domain::model::Verification;
use crate::domain::money::Kobo;
use crate::domain::signature;
use crate::secret::Secret;
use crate::terminal;

/// How the `hmac` field is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
}

/// The integrity verdict shown in the table's Integrity row.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// The hmac verdict.
    pub integrity: Integrity,
    /// Lines that fail the verification (exit 4 on a SUCCESSFUL transaction).
    pub failures: Vec<String>,
    /// Lines that are only warnings.
    pub warnings: Vec<String>,
    /// The line of `failures` or `warnings` the hmac verdict gave, if it gave one: the
    /// summary leaves it to the verdict.
    pub hmac_line: Option<String>,
}

impl CheckReport {
    /// True when nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The checks in one line, for the batch outputs' `checks` column: the hmac verdict,
    /// then each failure and warning that is not about the hmac (the verdict says that),
    /// separated by `; `. E.g. `hmac valid` or `hmac MISMATCH; expected amount ...`.
    pub fn summary(&self) -> String {
        let integrity = self.integrity.summary_text();
        let about_hmac = |line: &&String| self.hmac_line.as_ref() == Some(*line);
        std::iter::once(integrity)
            .chain(self.failures.iter().filter(|l| !about_hmac(l)).cloned())
            .chain(
                self.warnings
                    .iter()
                    .filter(|l| !about_hmac(l))
                    .map(|l| format!("{WARNING}{l}")),
            )
            .collect::<Vec<_>>()
            .join("; ")
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
        hmac_line: None,
    };
    if mode != HmacMode::Off {
        let (integrity, problem) = integrity(v, secret);
        report.integrity = integrity;
        if let Some(problem) = problem {
            report.hmac_line = Some(problem.clone());
            match mode {
                HmacMode::Require => report.failures.push(problem),
                _ => report.warnings.push(problem),
            }
        }
    }
    if v.status.as_deref() == Some("SUCCESSFUL") {
        // The gateway's own integrations decide on `code === '00'` alone: without it, a
        // SUCCESSFUL status is not an approval anyone else would act on.
        match v.code.as_deref() {
            Some(APPROVED) => {}
            Some(code) => report.failures.push(format!(
                "status is SUCCESSFUL but code is '{code}'; the gateway approves only with code 00"
            )),
            None => report
                .failures
                .push("approval code missing: status is SUCCESSFUL but there is no code 00".into()),
        }
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
/// `requested` (or is not a success naming nothing); otherwise the failure line. The
/// service's values are quoted: their exact form matters, and a value made to look like
/// the rest of the sentence must not blur it.
pub(crate) fn answers_for(v: &Verification, requested: &str) -> Option<String> {
    let named = [
        ("transactionRef", v.transaction_ref.as_deref()),
        ("merchantRef", v.merchant_ref.as_deref()),
        ("paymentRef", v.payment_ref.as_deref()),
    ];
    let present: Vec<(&str, &str)> = named
        .iter()
        .filter_map(|(key, value)| value.map(|value| (*key, value)))
        .collect();
    if present.is_empty() {
        return (v.status.as_deref() == Some("SUCCESSFUL"))
            .then(|| format!("response names no reference: cannot tell it is for {requested}"));
    }
    if present.iter().any(|(_, value)| *value == requested) {
        return None;
    }
    let (first_key, first) = present[0];
    let others = present[1..]
        .iter()
        .map(|(key, value)| format!("{key} {}", terminal::quoted(value)))
        .collect::<Vec<_>>();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" ({})", others.join(", "))
    };
    Some(format!(
        "response is for {first_key} {}{others}, not the requested reference {requested}",
        terminal::quoted(first)
    ))
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

fn integrity(v: &Verification, secret: &Secret) -> (Integrity, Option<String>) {
    let Some(hmac) = v.hmac.as_deref() else {
        let why = "the response has no hmac".to_owned();
        return (Integrity::NotChecked(why.clone()), Some(why));
    };
    let message = match signed_message(v) {
        Ok(m) => m,
        Err(missing) => {
            let why = format!("the response lacks {missing}, so its hmac cannot be checked");
            return (Integrity::NotChecked(format!("no {missing}")), Some(why));
        }
    };
    if !signature::is_well_formed(hmac) {
        return (
            Integrity::Mismatch,
            Some("hmac MISMATCH: hmac is not 64 hex digits".into()),
        );
    }
    if signature::verify(secret, &message, hmac) {
        (Integrity::Valid, None)
    } else {
        (
            Integrity::Mismatch,
            Some(
                "hmac MISMATCH: the hmac does not match merchantRef + currencyCode + amount \
                 signed with the client secret (tampered response, or the wrong secret)"
                    .into(),
            ),
        )
    }
}

/// The failure line when `v`'s `mode` is not `want` (a JSON string equal to it: another
/// mode, none, or a number that reads the same is not it); `None` when it is, or when no mode
/// is expected. A live profile that expects its live mode never passes a test payment.
pub(crate) fn mode_failure(v: &Verification, want: Option<&str>) -> Option<String> {
    let want = want?;
    match v.raw.get("mode") {
        Some(serde_json::Value::String(mode)) if mode == want => None,
        Some(serde_json::Value::String(mode)) => Some(format!(
            "expected mode {}, service says {}",
            terminal::quoted(want),
            terminal::quoted(mode)
        )),
        None | Some(serde_json::Value::Null) => Some(format!(
            "expected mode {}, service says nothing",
            terminal::quoted(want)
        )),
        Some(other) => Some(format!(
            "expected mode {}, service says {} ({}, not a string)",
            terminal::quoted(want),
            terminal::quoted(&other.to_string()),
            crate::domain::model::json_kind(other)
        )),
    }
}

/// One line per expectation `v` does not meet.
pub(crate) fn expectation_failures(v: &Verification, expect: &Expectations) -> Vec<String> {
    let says = |o: Option<String>| o.unwrap_or_else(|| "nothing".into());
    let mut failures = Vec::new();
    if let Some(want) = expect.amount
        && v.amount != Some(want)
    {
        let currency = v.currency.as_deref();
        failures.push(format!(
            "expected amount {}, service says {}",
            want.display_with_currency(currency),
            says(v.amount.map(|k| k.display_with_currency(currency)))
        ));
    }
    if let Some(want) = &expect.currency
        && !v
            .currency
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case(want.trim()))
    {
        failures.push(format!(
            "expected currency {}, service says {}",
            want.trim().to_ascii_uppercase(),
            says(v.currency.clone())
        ));
    }
    // Exact: a merchant reference with a space is another reference.
    if let Some(want) = &expect.merchant_ref
        && v.merchant_ref.as_deref() != Some(want.as_str())
    {
        failures.push(format!(
            "expected merchant ref {}, service says {}",
            terminal::quoted(want),
            says(v.merchant_ref.as_deref().map(terminal::quoted))
        ));
    }
    // The WooCommerce plugin reads the order from the merchantRef's prefix: a payment
    // whose merchantRef names another order is that order's, whatever cell holds it.
    if let Some(want) = &expect.order_id
        && let Some(merchant_ref) = v.merchant_ref.as_deref()
        && let Some(order) = woocommerce_order(merchant_ref)
        && order != want.trim()
    {
        failures.push(format!(
            "the payment is for order {order} (merchantRef {}), not this row's order {}",
            terminal::quoted(merchant_ref),
            terminal::quoted(want.trim())
        ));
    }
    failures
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
