//! Reconciliation: what one row of a merchant's orders file comes to once the gateway has
//! answered for its reference. Pure: a verdict and the row's expectations in, a result out.

use crate::domain::checks::{CheckFailure, Expectations};
pub(crate) use crate::domain::job::Row;
use crate::domain::model::Verification;
use crate::domain::money::Kobo;
use crate::domain::outcome::{Outcome, Verdict};
pub(crate) use crate::domain::outcome_table::{RESULT_NAMES, RowResult};
use crate::domain::shop::ShopStatus;

/// A row decided from the file alone, without asking the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decided {
    /// The row.
    pub(crate) row: Row,
    /// DUPLICATE or INVALID_ROW.
    pub(crate) result: RowResult,
    /// Why, for the `error` column.
    pub(crate) why: String,
    /// The row's amount, when it could be read (it counts in the totals).
    pub(crate) expected: Option<Kobo>,
    /// The currency the row expects (its cell, or `--currency`): whose totals it counts in.
    pub(crate) currency: String,
}

impl RowResult {
    /// Whether the result is decided from the orders file alone, never from an answer: a
    /// resumed run decides it again from the input rather than carrying it.
    pub(crate) fn decided_from_input(self) -> bool {
        matches!(
            self,
            RowResult::Duplicate
                | RowResult::LineItem
                | RowResult::NoReference
                | RowResult::UnpaidNoReference
                | RowResult::InvalidRow
                | RowResult::Skipped
                | RowResult::Totals
                | RowResult::TotalsMismatch
        )
    }

    /// Whether the row's amount is money at risk when it is not MATCHED: every result but
    /// SPLIT_PAID (the gateway's part confirmed, the rest paid otherwise), SKIPPED (not a
    /// gateway payment), LINE_ITEM (counted once, on its order's row), BOTH_UNPAID (neither
    /// side counts it as paid) and UNPAID_NO_REFERENCE (never paid, nothing to verify).
    pub(crate) fn at_risk(self) -> bool {
        !matches!(
            self,
            RowResult::Matched
                | RowResult::SplitPaid
                | RowResult::UnpaidNoReference
                | RowResult::Skipped
                | RowResult::LineItem
                | RowResult::BothUnpaid
                | RowResult::Totals
                | RowResult::TotalsMismatch
        )
    }

    /// Whether the row's amount counts in the totals: every result but LINE_ITEM, whose
    /// order total is counted once, on the order's first row, the file's own totals row
    /// (TOTALS, TOTALS_MISMATCH), which would count every row twice, and
    /// UNPAID_NO_REFERENCE, an order the shop says was never paid: no money is expected.
    pub(crate) fn counts_amount(self) -> bool {
        !matches!(
            self,
            RowResult::LineItem
                | RowResult::UnpaidNoReference
                | RowResult::Totals
                | RowResult::TotalsMismatch
        )
    }
}

/// What a verified row comes to: `verdict` is the gateway's answer with the checks run
/// against `expect` (the row's own amount, currency and merchant ref), then held against
/// the shop's order status when the row states one ([`shop_against_gateway`]).
///
/// A row is MATCHED only when the response is SUCCESSFUL and every check passed; a failed
/// check is then named by the first of amount, currency, merchant ref that differs, and
/// otherwise (hmac under `--hmac require`, code not 00, an answer for another reference,
/// a WooCommerce merchantRef naming another order than the row's) is INTEGRITY_FAILED. A SUCCESSFUL response that states no amount cannot be compared:
/// it is INTEGRITY_FAILED too, never a match.
pub(crate) fn classify(verdict: &Verdict, expect: &Expectations) -> RowResult {
    let split = expect.other_methods.is_some();
    let result = shop_against_gateway(expect.shop, gateway_result(verdict, split));
    // Only a FAILED answer that passed every check this run asked for (the reference check
    // always) says the payment did not go through: BOTH_UNPAID (exit 0) rests on it. One
    // about another transaction, unsigned under `--hmac require`, or of the wrong mode,
    // amount or currency proves nothing about this payment, which may have gone through.
    // (Without a shop status saying unpaid, such a row stays FAILED: exit 1, at risk.)
    if result == RowResult::BothUnpaid && !verdict.checks.as_ref().is_some_and(|c| c.passed()) {
        return RowResult::IntegrityFailed;
    }
    result
}

/// The shop's order status against the gateway's: a payment SUCCESSFUL at the gateway
/// (matched or not: the money was taken) for an order the shop counts as not paid is
/// PAID_SHOP_UNPAID; a FAILED one for such an order is BOTH_UNPAID. An order the shop
/// counts as paid keeps the gateway's result (FAILED, NOT_FOUND, ... stay at risk), as
/// does an answer that cannot be trusted (INTEGRITY_FAILED) or is not final.
fn shop_against_gateway(shop: Option<ShopStatus>, result: RowResult) -> RowResult {
    match (shop, result) {
        (
            Some(ShopStatus::Unpaid),
            RowResult::Matched
            | RowResult::SplitPaid
            | RowResult::Underpaid
            | RowResult::Overpaid
            | RowResult::CurrencyMismatch
            | RowResult::MerchantRefMismatch,
        ) => RowResult::PaidShopUnpaid,
        (Some(ShopStatus::Unpaid), RowResult::Failed) => RowResult::BothUnpaid,
        (_, result) => result,
    }
}

/// What the gateway's answer alone comes to for the row, read off the checks that failed
/// (never a second comparison of the answer with the row): for a SUCCESSFUL answer, a
/// differing amount first, then the currency, then the merchant ref; any other failure (an
/// amount the answer does not state among them) is INTEGRITY_FAILED. For a `split` order
/// (the gateway and another method), an amount above nothing and below the row's is the
/// gateway's part, no failure: with every other check passed, SPLIT_PAID.
fn gateway_result(verdict: &Verdict, split: bool) -> RowResult {
    match &verdict.outcome {
        Outcome::Successful(v) => {
            // A SUCCESSFUL answer that was never checked is no match.
            let Some(checks) = &verdict.checks else {
                return RowResult::IntegrityFailed;
            };
            let part = |f: &CheckFailure| {
                split
                    && matches!(f, CheckFailure::Amount { wanted, found: Some(found), .. }
                        if found.0 > 0 && found < wanted)
            };
            let failures: Vec<&CheckFailure> =
                checks.failures.iter().filter(|f| !part(f)).collect();
            let failed = |result: fn(&CheckFailure) -> Option<RowResult>| {
                failures.iter().copied().find_map(result)
            };
            failed(|f| match f {
                CheckFailure::Amount {
                    wanted,
                    found: Some(found),
                    ..
                } if found < wanted => Some(RowResult::Underpaid),
                CheckFailure::Amount { found: Some(_), .. } => Some(RowResult::Overpaid),
                _ => None,
            })
            .or_else(|| {
                failed(|f| {
                    matches!(f, CheckFailure::Currency { .. })
                        .then_some(RowResult::CurrencyMismatch)
                })
            })
            .or_else(|| {
                failed(|f| {
                    matches!(f, CheckFailure::MerchantRef { .. })
                        .then_some(RowResult::MerchantRefMismatch)
                })
            })
            .unwrap_or(match (failures.is_empty(), checks.passed()) {
                (true, true) => RowResult::Matched,
                // The gateway's part failed the amount check, so the judge left the answer
                // as it came (`judge::decided` settles only a passed one): the one rule for
                // "final and paid" is applied here, as it is to a whole payment.
                (true, false) if v.has_payment_date() => RowResult::SplitPaid,
                (true, false) => RowResult::NotFinal,
                (false, _) => RowResult::IntegrityFailed,
            })
        }
        Outcome::Failed(_) => RowResult::Failed,
        Outcome::NotFinal(_) => RowResult::NotFinal,
        Outcome::NotFound { .. } => RowResult::NotFound,
        other @ (Outcome::AuthRejected { .. }
        | Outcome::Unavailable { .. }
        | Outcome::BadResponse { .. }
        | Outcome::Internal { .. }) => RowResult::Unverified(other.exit()),
    }
}

/// Which line a reference of the input was first asked about on, if it was (the reader of
/// the orders file keeps it).
pub(crate) type ReferenceLines = Box<dyn Fn(&str) -> Option<u64> + Send>;

/// The earlier line whose row already claimed the transaction `answer` is for, if one did.
/// One payment may answer to its transaction reference and its payment reference (and name
/// its merchant reference): it counts for one order only, so a MATCHED row whose answer
/// names, besides the row's own reference (`own`), a reference an earlier row was asked
/// about is a DUPLICATE of that row. (A later row is that row's to report, when its turn
/// comes.) The same rule for a row asked now and one carried from an earlier run.
pub(crate) fn claimed_by(
    answer: &Verification,
    own: &str,
    line: u64,
    lines_of: &dyn Fn(&str) -> Option<u64>,
) -> Option<u64> {
    [
        &answer.transaction_ref,
        &answer.payment_ref,
        &answer.merchant_ref,
    ]
    .into_iter()
    .flatten()
    .filter(|alias| alias.as_str() != own)
    .filter_map(|alias| lines_of(alias))
    .filter(|&first| first < line)
    .min()
}

/// The gateway's amount less the expected one, for a SUCCESSFUL answer that states an
/// amount (negative when underpaid); `None` when there is nothing paid to compare.
pub(crate) fn difference(verdict: &Verdict, expected: Option<Kobo>) -> Option<i128> {
    let Outcome::Successful(v) = &verdict.outcome else {
        return None;
    };
    Some(i128::from(v.amount?.0) - i128::from(expected?.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::checks::{HmacMode, evaluate};
    use crate::domain::model::parse_object;
    use crate::exit::Exit;
    use crate::secret::Secret;

    const SECRET: &str = "sandbox-secret";

    /// A SUCCESSFUL sandbox-like answer for `reference`, signed with SECRET, edited.
    fn answer(status: &str, edit: impl FnOnce(&mut serde_json::Value)) -> Verification {
        let mut body = serde_json::json!({
            "status": status, "code": "00", "amount": 4_000_000, "currencyCode": "NGN",
            "merchantRef": "M-1", "transactionRef": "R-1",
        });
        let message = crate::domain::signature::message("M-1", "NGN", Kobo(4_000_000));
        body["hmac"] = crate::domain::signature::sign(&Secret::new(SECRET), &message).into();
        edit(&mut body);
        Verification::from_object(parse_object(body.to_string().as_bytes()).unwrap()).unwrap()
    }

    /// The verdict the verifier would give for `v` checked against `expect` under `mode`.
    fn verdict(v: Verification, mode: HmacMode, expect: &Expectations) -> Verdict {
        let mut checks = evaluate(&v, mode, &Secret::new(SECRET), expect);
        if let Some(f) = crate::domain::checks::answers_for(&v, "R-1") {
            checks.failures.insert(0, f);
        }
        let outcome = match v.status.as_deref() {
            Some("SUCCESSFUL") => Outcome::Successful(Box::new(v)),
            Some("FAILED") => Outcome::Failed(Box::new(v)),
            _ => Outcome::NotFinal(Box::new(v)),
        };
        Verdict {
            outcome,
            checks: Some(checks),
        }
    }

    fn expect(kobo: i64) -> Expectations {
        Expectations {
            amount: Some(Kobo(kobo)),
            currency: Some("NGN".into()),
            merchant_ref: None,
            shop: None,
            order_id: None,
            other_methods: None,
        }
    }

    fn result(v: Verification, mode: HmacMode, e: &Expectations) -> RowResult {
        classify(&verdict(v, mode, e), e)
    }

    #[test]
    fn matched_only_when_everything_holds() {
        let ok = || answer("SUCCESSFUL", |_| {});
        assert_eq!(
            result(ok(), HmacMode::Require, &expect(4_000_000)),
            RowResult::Matched
        );
        let with_ref = Expectations {
            merchant_ref: Some("M-1".into()),
            currency: Some(" ngn ".into()),
            ..expect(4_000_000)
        };
        assert_eq!(
            result(ok(), HmacMode::Require, &with_ref),
            RowResult::Matched
        );
        // One kobo either way is not a match.
        assert_eq!(
            result(ok(), HmacMode::Off, &expect(4_000_001)),
            RowResult::Underpaid
        );
        assert_eq!(
            result(ok(), HmacMode::Off, &expect(3_999_999)),
            RowResult::Overpaid
        );
    }

    #[test]
    fn precedence_follows_the_contract() {
        // Amount first, even when the currency and the hmac are wrong too.
        let everything_wrong = answer("SUCCESSFUL", |b| {
            b["currencyCode"] = "USD".into();
            b["hmac"] = "0".repeat(64).into();
            b["merchantRef"] = "M-2".into();
        });
        let e = Expectations {
            merchant_ref: Some("M-1".into()),
            ..expect(5_000_000)
        };
        assert_eq!(
            result(everything_wrong.clone(), HmacMode::Require, &e),
            RowResult::Underpaid
        );
        let e = Expectations {
            merchant_ref: Some("M-1".into()),
            ..expect(4_000_000)
        };
        assert_eq!(
            result(everything_wrong, HmacMode::Require, &e),
            RowResult::CurrencyMismatch
        );
        let wrong_ref = answer("SUCCESSFUL", |b| b["merchantRef"] = "M-2".into());
        assert_eq!(
            result(wrong_ref, HmacMode::Off, &e),
            RowResult::MerchantRefMismatch
        );
        let bad_hmac = || answer("SUCCESSFUL", |b| b["hmac"] = "0".repeat(64).into());
        assert_eq!(
            result(bad_hmac(), HmacMode::Require, &expect(4_000_000)),
            RowResult::IntegrityFailed
        );
        // --hmac warn: a mismatch is a warning, and the row matches.
        assert_eq!(
            result(bad_hmac(), HmacMode::Warn, &expect(4_000_000)),
            RowResult::Matched
        );
        let not_approved = answer("SUCCESSFUL", |b| b["code"] = "51".into());
        assert_eq!(
            result(not_approved, HmacMode::Off, &expect(4_000_000)),
            RowResult::IntegrityFailed
        );
        let other_reference = answer("SUCCESSFUL", |b| {
            b["transactionRef"] = "R-2".into();
            b["merchantRef"] = "M-2".into();
        });
        assert_eq!(
            result(other_reference, HmacMode::Off, &expect(4_000_000)),
            RowResult::IntegrityFailed
        );
        let no_amount = answer("SUCCESSFUL", |b| b["amount"] = serde_json::Value::Null);
        assert_eq!(
            result(no_amount, HmacMode::Off, &expect(4_000_000)),
            RowResult::IntegrityFailed
        );
    }

    #[test]
    fn the_shops_status_is_held_against_the_gateways() {
        let with = |shop, kobo| Expectations {
            shop,
            ..expect(kobo)
        };
        let unpaid = Some(ShopStatus::Unpaid);
        let ok = || answer("SUCCESSFUL", |_| {});
        // Money taken for an order the shop will not ship, whatever the amount.
        for kobo in [4_000_000, 4_000_001, 3_999_999] {
            assert_eq!(
                result(ok(), HmacMode::Require, &with(unpaid, kobo)),
                RowResult::PaidShopUnpaid,
                "{kobo}"
            );
        }
        let usd = answer("SUCCESSFUL", |b| b["currencyCode"] = "USD".into());
        assert_eq!(
            result(usd, HmacMode::Off, &with(unpaid, 4_000_000)),
            RowResult::PaidShopUnpaid
        );
        assert_eq!(
            result(
                answer("FAILED", |_| {}),
                HmacMode::Off,
                &with(unpaid, 4_000_000)
            ),
            RowResult::BothUnpaid
        );
        // A FAILED answer that failed a check says nothing of this order's payment.
        assert_eq!(
            result(answer("FAILED", |_| {}), HmacMode::Off, &with(unpaid, 1)),
            RowResult::IntegrityFailed
        );
        // Not final, or not to be trusted: the gateway's result stands.
        assert_eq!(
            result(answer("PENDING", |_| {}), HmacMode::Off, &with(unpaid, 1)),
            RowResult::NotFinal
        );
        let not_approved = answer("SUCCESSFUL", |b| b["code"] = "51".into());
        assert_eq!(
            result(not_approved, HmacMode::Off, &with(unpaid, 4_000_000)),
            RowResult::IntegrityFailed
        );
        let not_found = Verdict {
            outcome: Outcome::NotFound { message: None },
            checks: None,
        };
        assert_eq!(classify(&not_found, &with(unpaid, 1)), RowResult::NotFound);
        // Paid in the shop, or no status: the gateway's result, FAILED at risk.
        for shop in [Some(ShopStatus::Paid), None] {
            assert_eq!(
                result(answer("FAILED", |_| {}), HmacMode::Off, &with(shop, 1)),
                RowResult::Failed
            );
            assert_eq!(
                result(ok(), HmacMode::Require, &with(shop, 4_000_000)),
                RowResult::Matched
            );
        }
        assert!(RowResult::PaidShopUnpaid.at_risk());
        assert!(!RowResult::BothUnpaid.at_risk());
    }

    #[test]
    fn unsuccessful_answers() {
        let e = expect(1);
        assert_eq!(
            result(answer("FAILED", |_| {}), HmacMode::Require, &e),
            RowResult::Failed
        );
        assert_eq!(
            result(answer("PENDING", |_| {}), HmacMode::Require, &e),
            RowResult::NotFinal
        );
        let plain = |outcome| Verdict {
            outcome,
            checks: None,
        };
        let cases = [
            (Outcome::NotFound { message: None }, RowResult::NotFound),
            (
                Outcome::AuthRejected {
                    status: 401,
                    message: None,
                },
                RowResult::Unverified(Exit::AuthRejected),
            ),
            (
                Outcome::Unavailable {
                    reason: "x".into(),
                    status: None,
                },
                RowResult::Unverified(Exit::Unavailable),
            ),
            (
                Outcome::BadResponse {
                    reason: "x".into(),
                    status: Some(200),
                },
                RowResult::Unverified(Exit::BadResponse),
            ),
            (
                Outcome::Internal { reason: "x".into() },
                RowResult::Unverified(Exit::Internal),
            ),
        ];
        for (outcome, want) in cases {
            assert_eq!(classify(&plain(outcome), &e), want);
        }
        // A SUCCESSFUL outcome that was never checked is not a match.
        let unchecked = Verdict {
            outcome: Outcome::Successful(Box::new(answer("SUCCESSFUL", |_| {}))),
            checks: None,
        };
        assert_eq!(
            classify(&unchecked, &expect(4_000_000)),
            RowResult::IntegrityFailed
        );
    }

    #[test]
    fn exit_codes_and_names_follow_the_contract() {
        let all = [
            (RowResult::Matched, 0),
            (RowResult::SplitPaid, 0),
            (RowResult::Underpaid, 4),
            (RowResult::Overpaid, 4),
            (RowResult::CurrencyMismatch, 4),
            (RowResult::MerchantRefMismatch, 4),
            (RowResult::PaidShopUnpaid, 4),
            (RowResult::IntegrityFailed, 4),
            (RowResult::Failed, 1),
            (RowResult::BothUnpaid, 0),
            (RowResult::NotFinal, 9),
            (RowResult::NotFound, 3),
            (RowResult::Duplicate, 4),
            (RowResult::LineItem, 0),
            (RowResult::NoReference, 4),
            (RowResult::UnpaidNoReference, 0),
            (RowResult::InvalidRow, 2),
            (RowResult::Unverified(Exit::Unavailable), 7),
            (RowResult::Skipped, 0),
            (RowResult::Totals, 0),
            (RowResult::TotalsMismatch, 4),
        ];
        for (i, (r, code)) in all.iter().enumerate() {
            assert_eq!(r.exit().code(), *code, "{r:?}");
            assert_eq!(r.name(), RESULT_NAMES[i]);
            if !matches!(r, RowResult::Unverified(_)) {
                assert_eq!(RowResult::named(r.name()), Some(*r));
            }
        }
        let decided_from_input: Vec<_> = RESULT_NAMES
            .into_iter()
            .filter(|n| RowResult::named(n).is_some_and(RowResult::decided_from_input))
            .collect();
        assert_eq!(
            decided_from_input,
            [
                "DUPLICATE",
                "LINE_ITEM",
                "NO_REFERENCE",
                "UNPAID_NO_REFERENCE",
                "INVALID_ROW",
                "SKIPPED",
                "TOTALS",
                "TOTALS_MISMATCH"
            ]
        );
        let carried: Vec<_> = RESULT_NAMES
            .into_iter()
            .filter(|n| RowResult::is_carried(n))
            .collect();
        assert_eq!(
            carried,
            [
                "MATCHED",
                "UNDERPAID",
                "OVERPAID",
                "CURRENCY_MISMATCH",
                "MERCHANT_REF_MISMATCH",
                "PAID_SHOP_UNPAID",
                "INTEGRITY_FAILED",
                "FAILED",
                "NOT_FOUND"
            ]
        );
    }

    #[test]
    fn differences_are_exact_and_only_for_payments() {
        let e = expect(4_000_050);
        let v = verdict(answer("SUCCESSFUL", |_| {}), HmacMode::Off, &e);
        assert_eq!(difference(&v, e.amount), Some(-50));
        let failed = verdict(answer("FAILED", |_| {}), HmacMode::Off, &e);
        assert_eq!(difference(&failed, e.amount), None);
        let huge = verdict(
            answer("SUCCESSFUL", |b| b["amount"] = i64::MAX.into()),
            HmacMode::Off,
            &e,
        );
        assert_eq!(difference(&huge, Some(Kobo(0))), Some(i128::from(i64::MAX)));
    }
}
