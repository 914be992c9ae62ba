//! reconcile's record of one row: its result, difference, error text and figures, decided
//! once, here. Every output format is a view of it (`render::reconcile`), the totals add
//! what it contributes ([`crate::domain::totals`]), and `--resume` reads its JSON back.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::domain::checks::CheckReport;
use crate::domain::money::{Kobo, naira_total};
use crate::domain::outcome::{Outcome, OutcomeKind, Record};
use crate::domain::reconcile::{self, Decided, RowResult};
use crate::domain::seal::Judged;
use crate::domain::shop::ShopStatus;
use crate::exit::Exit;
use crate::terminal;

/// One row as reconcile reports it. The serialised fields are jsonl's, in order, between
/// the row (`line`, `row`) and nothing else; the rest is what the views and the totals need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RowRecord {
    /// The input row's line.
    #[serde(skip)]
    pub(crate) line: u64,
    /// The input row's cells, exactly as read.
    #[serde(skip)]
    pub(crate) cells: Vec<String>,
    /// The row's result.
    #[serde(serialize_with = "result_name", deserialize_with = "named_result")]
    pub(crate) result: RowResult,
    /// The gateway's amount less the expected one (negative when underpaid).
    pub(crate) difference_kobo: Option<i128>,
    pub(crate) gateway_status: Option<String>,
    pub(crate) gateway_code: Option<String>,
    pub(crate) gateway_amount_kobo: Option<i64>,
    pub(crate) expected_amount_kobo: Option<i64>,
    pub(crate) gateway_currency: Option<String>,
    /// The checks summary; `None` when there was nothing to check.
    pub(crate) checks: Option<String>,
    /// Why the row needs a look; `None` when it does not.
    pub(crate) error: Option<String>,
    /// The gateway's answer, as received (redacted where it entered).
    #[serde(default)]
    pub(crate) response: Option<std::sync::Arc<Map<String, Value>>>,
    /// What judged its answer ([`crate::domain::seal::Judged`]), for `--resume` and
    /// `--state`; absent for a row decided from the input alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) judged: Option<Value>,
    /// The currency the row expects: whose totals it counts in.
    #[serde(skip)]
    pub(crate) row_currency: String,
    /// A check gave a warning (the hmac under `--hmac warn`): a MATCHED row that still
    /// needs a look.
    #[serde(skip)]
    pub(crate) warned: bool,
    /// A payment the file itself says failed or was reversed: its amount is no money the
    /// file expects (not in the expected total), though it is at risk if the gateway took it.
    #[serde(skip)]
    pub(crate) not_expected: bool,
}

fn result_name<S: Serializer>(result: &RowResult, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(result.name())
}

/// A result read back by name; UNVERIFIED, whose exit the record does not keep, as
/// [`Exit::Unavailable`]: it is never carried, asked again whatever its exit was.
fn named_result<'de, D: Deserializer<'de>>(d: D) -> Result<RowResult, D::Error> {
    let name = String::deserialize(d)?;
    let unverified = RowResult::Unverified(Exit::Unavailable);
    RowResult::named(&name)
        .or((name == unverified.name()).then_some(unverified))
        .ok_or_else(|| serde::de::Error::custom("has an unknown result"))
}

/// The naira, the gateway's own currency, whose totals the summary leads with.
pub(crate) const NAIRA: &str = "NGN";

/// Whether `currency` is the naira.
pub(crate) fn is_naira(currency: &str) -> bool {
    currency.trim().eq_ignore_ascii_case(NAIRA)
}

/// An amount in minor units with its currency: `₦40,000.00`, `USD 40,000.00`.
pub(crate) fn money(currency: &str, minor: i128) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    match is_naira(currency) {
        true => format!("{sign}₦{}", naira_total(minor.abs())),
        false => format!(
            "{sign}{} {}",
            terminal::scrub(&currency.trim().to_ascii_uppercase()),
            naira_total(minor.abs())
        ),
    }
}

/// Text, or `None` when empty.
fn some(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

impl RowRecord {
    /// A row of `result` with nothing else known.
    pub(crate) fn bare(result: RowResult) -> Self {
        RowRecord {
            line: 0,
            cells: Vec::new(),
            result,
            difference_kobo: None,
            gateway_status: None,
            gateway_code: None,
            gateway_amount_kobo: None,
            expected_amount_kobo: None,
            gateway_currency: None,
            checks: None,
            error: None,
            response: None,
            judged: None,
            row_currency: NAIRA.to_owned(),
            warned: false,
            not_expected: false,
        }
    }

    /// A row the gateway was asked about (now, or in the run its record is carried from). `payments`:
    /// the file lists payments (a settlement report or statement: no order id column), so
    /// its status is the payment's, not an order's, and a payment it says failed or was
    /// reversed is no money it expects.
    pub(crate) fn verified(record: &Record, payments: bool) -> Self {
        let verdict = &record.verdict;
        let expect = &record.job.expect;
        let result = reconcile::classify(verdict, expect);
        let v = verdict.outcome.verification();
        // The gateway's part of a split payment is no difference: the rest was paid otherwise.
        let difference = reconcile::difference(verdict, expect.amount)
            .filter(|_| result != RowResult::SplitPaid);
        let row_currency = expect.currency.as_deref().unwrap_or(NAIRA);
        let gateway_amount = v.and_then(|v| v.amount);
        let gateway_currency = v.and_then(|v| v.currency.as_deref());
        let error = match (result, difference) {
            (RowResult::Matched, _) => String::new(),
            (RowResult::Underpaid | RowResult::Overpaid, Some(d)) => {
                let shown = |k: Option<Kobo>, c: &str| {
                    k.map_or_else(String::new, |k| money(c, i128::from(k.0)))
                };
                let unit = match is_naira(row_currency) {
                    true => "kobo",
                    false => "minor units",
                };
                format!(
                    "{} by {} ({} {unit}): the gateway has {}, the row expects {}",
                    if d < 0 { "underpaid" } else { "overpaid" },
                    money(row_currency, d.abs()),
                    d.abs(),
                    shown(gateway_amount, gateway_currency.unwrap_or(row_currency)),
                    shown(expect.amount, row_currency)
                )
            }
            (RowResult::SplitPaid, _) => {
                let shown = |k: Option<Kobo>| k.map_or(0, |k| i128::from(k.0));
                let (part, total) = (shown(gateway_amount), shown(expect.amount));
                format!(
                    "split payment: the gateway has {} (SUCCESSFUL) of the order's {}; the \
                     other {}, by {}, is not the gateway's to confirm",
                    money(row_currency, part),
                    money(row_currency, total),
                    money(row_currency, total - part),
                    terminal::quoted(expect.other_methods.as_deref().unwrap_or_default())
                )
            }
            (RowResult::PaidShopUnpaid, _) => {
                let paid = gateway_amount
                    .map(|k| format!(" {}", money(gateway_currency.unwrap_or(NAIRA), k.0.into())))
                    .unwrap_or_default();
                match payments {
                    true => format!(
                        "paid at the gateway (SUCCESSFUL{paid}), but the file's status says the \
                         payment failed or was reversed: money the gateway took that the file \
                         does not count (confirm the reversal, or refund it)"
                    ),
                    false => format!(
                        "paid at the gateway (SUCCESSFUL{paid}), but the shop's order status \
                         says not paid: money taken for an order that will not ship (refund \
                         it, or re-open the order)"
                    ),
                }
            }
            (RowResult::BothUnpaid, _) => match payments {
                true => {
                    "FAILED at the gateway, and the file's status says the payment failed \
                         or was reversed: both agree, nothing is at risk"
                }
                false => {
                    "FAILED at the gateway, and the shop's order status says not paid: \
                          both agree, nothing is at risk"
                }
            }
            .to_owned(),
            // A FAILED answer that failed its checks proves nothing about this payment.
            (RowResult::IntegrityFailed, _) if matches!(verdict.outcome, Outcome::Failed(_)) => {
                let failures = verdict
                    .checks
                    .as_ref()
                    .map(CheckReport::failure_lines)
                    .unwrap_or_default();
                let what = if payments {
                    "payment failed"
                } else {
                    "order unpaid"
                };
                format!(
                    "FAILED at the gateway, but the answer failed its checks ({failures}): it \
                     proves nothing about this payment; look at it before counting the {what}"
                )
            }
            _ => record.error().unwrap_or_default(),
        };
        let row = record.job.row.as_deref();
        RowRecord {
            line: row.map_or(0, |r| r.line),
            cells: row.map(|r| r.cells.clone()).unwrap_or_default(),
            result,
            difference_kobo: difference,
            gateway_status: v.and_then(|v| v.status.clone()),
            gateway_code: v.and_then(|v| v.code.clone()),
            gateway_amount_kobo: gateway_amount.map(|k| k.0),
            expected_amount_kobo: expect.amount.map(|k| k.0),
            gateway_currency: gateway_currency.map(str::to_owned),
            checks: verdict.checks.as_ref().and_then(|c| some(c.summary())),
            error: some(error),
            response: v.map(|v| v.raw.clone()),
            judged: Some(Judged::of(record).json()),
            row_currency: row_currency.to_owned(),
            warned: verdict
                .checks
                .as_ref()
                .is_some_and(|c| !c.warnings.is_empty()),
            not_expected: payments && expect.shop == Some(ShopStatus::Unpaid),
        }
    }

    /// A row decided from the file alone.
    pub(crate) fn decided(decided: &Decided) -> Self {
        RowRecord {
            line: decided.row.line,
            cells: decided.row.cells.clone(),
            expected_amount_kobo: decided.expected.map(|k| k.0),
            error: some(decided.why.clone()),
            row_currency: decided.currency.clone(),
            ..RowRecord::bare(decided.result)
        }
    }

    /// This MATCHED row's answer is the transaction line `first` was already verified for
    /// (whatever that row's result): one payment counts for one order, so it is a DUPLICATE.
    pub(crate) fn duplicate_of(&mut self, first: u64) {
        self.result = RowResult::Duplicate;
        self.error = Some(format!(
            "the gateway's answer is the transaction line {first} was already verified \
             for: one payment counts for one order"
        ));
    }

    /// This MATCHED (or SPLIT_PAID) row's payment already paid for another order, in an
    /// earlier run (the journal's claims): a DUPLICATE, saying which order and when.
    pub(crate) fn claimed(&mut self, failure: &crate::domain::checks::CheckFailure) {
        self.result = RowResult::Duplicate;
        self.error = Some(failure.to_string());
    }

    /// This paid row's payment could not be claimed for its order: the journal cannot
    /// answer (`why`), so nothing says that no other order has it. UNVERIFIED (rerun),
    /// never MATCHED: a row on stdout that says MATCHED is its payment's only order.
    pub(crate) fn unclaimed(&mut self, why: &str) {
        self.result = RowResult::Unverified(Exit::Unavailable);
        self.error = Some(format!(
            "the journal cannot say whether another order claimed this payment ({why}): \
             rerun once the journal answers"
        ));
    }

    /// Whether the row needs no look: MATCHED with no warning, a line item of an order, or
    /// the file's own totals row adding up.
    pub(crate) fn clean(&self) -> bool {
        match self.result {
            RowResult::Matched => !self.warned,
            RowResult::LineItem | RowResult::Totals => true,
            _ => false,
        }
    }

    /// Whether the gateway's amount is in the currency the row expects (or unstated): only
    /// then is it added to the row's totals.
    pub(crate) fn same_currency(&self) -> bool {
        self.gateway_currency
            .as_deref()
            .is_none_or(|c| crate::domain::checks::same_currency(c, &self.row_currency))
    }

    /// Whether the gateway took the money for this row: SUCCESSFUL, in the row's currency,
    /// and not a payment an earlier row already counts (DUPLICATE).
    pub(crate) fn collected(&self) -> bool {
        self.same_currency()
            && self.gateway_status.as_deref() == Some(OutcomeKind::Successful.name())
            && self.result != RowResult::Duplicate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_serialises_as_jsonl_states_it_and_reads_back() {
        let mut record = RowRecord::bare(RowResult::Underpaid);
        record.difference_kobo = Some(-50);
        record.gateway_amount_kobo = Some(100);
        record.expected_amount_kobo = Some(150);
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(
            text,
            "{\"result\":\"UNDERPAID\",\"difference_kobo\":-50,\"gateway_status\":null,\
             \"gateway_code\":null,\"gateway_amount_kobo\":100,\"expected_amount_kobo\":150,\
             \"gateway_currency\":null,\"checks\":null,\"error\":null,\"response\":null}"
        );
        // The row's currency is this run's (its row's), not the record's.
        let back: RowRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(
            RowRecord {
                row_currency: NAIRA.into(),
                ..back
            },
            record
        );
        assert!(serde_json::from_str::<RowRecord>(&text.replace("UNDERPAID", "PAID")).is_err());
    }
}
