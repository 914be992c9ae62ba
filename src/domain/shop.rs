//! What the shop's own order status says of the payment: paid (the order ships) or not
//! paid (it will not), read from the status words shops, export plugins and settlement
//! files write. reconcile holds it against the gateway's status.

/// The shop's side of an order, when its status column says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ShopStatus {
    /// The shop counts the order as paid: it ships.
    Paid,
    /// The shop counts the order as not paid: it will not ship.
    Unpaid,
}

/// Status words read as paid, as [`plain`] writes them: WooCommerce's Processing,
/// Completed and On hold; Shopify's financial statuses paid and authorized; settlement
/// files' Approved, Successful, Settled.
#[rustfmt::skip]
pub(crate) const PAID_WORDS: [&str; 12] = [
    "processing", "completed", "complete", "onhold", "paid", "authorized", "authorised", "approved",
    "successful", "success", "settled", "captured",
];

/// Status words read as not paid: WooCommerce's Cancelled, Failed, Refunded, Pending
/// payment; Shopify's pending, refunded, voided; settlement files' Declined, Reversed.
#[rustfmt::skip]
pub(crate) const UNPAID_WORDS: [&str; 13] = [
    "cancelled", "canceled", "failed", "refunded", "pending", "pendingpayment", "unpaid",
    "declined", "voided", "void", "reversed", "expired", "abandoned",
];

impl ShopStatus {
    /// The status a cell states, case, spaces and punctuation aside (`On hold`, `on-hold`
    /// and WooCommerce's internal `wc-on-hold` are one word); `None` for an empty cell or a
    /// word that is neither list's (`Partially refunded`, `Draft`): then the row is judged
    /// on the gateway's answer alone, as without a status column.
    pub fn read(cell: &str) -> Option<ShopStatus> {
        let word = plain(cell);
        let word = word
            .strip_prefix("wc")
            .filter(|rest| known(rest).is_some())
            .unwrap_or(&word);
        known(word)
    }
}

/// Status words that say the order was never paid at all, as [`plain`] writes them: a
/// subset of [`UNPAID_WORDS`] without refunded and reversed (money that moved and moved
/// back is for a person to confirm).
#[rustfmt::skip]
const NEVER_PAID_WORDS: [&str; 11] = [
    "cancelled", "canceled", "failed", "pending", "pendingpayment", "unpaid", "declined",
    "voided", "void", "expired", "abandoned",
];

/// Whether a status cell says the order was never paid (pending, voided, cancelled,
/// failed, abandoned, ...), read as [`ShopStatus::read`] reads it: an order with no
/// reference and such a status has nothing to verify and nothing owed.
pub(crate) fn never_paid(cell: &str) -> bool {
    let word = plain(cell);
    let word = word
        .strip_prefix("wc")
        .filter(|rest| NEVER_PAID_WORDS.contains(rest))
        .unwrap_or(&word);
    NEVER_PAID_WORDS.contains(&word)
}

fn known(word: &str) -> Option<ShopStatus> {
    if PAID_WORDS.contains(&word) {
        Some(ShopStatus::Paid)
    } else if UNPAID_WORDS.contains(&word) {
        Some(ShopStatus::Unpaid)
    } else {
        None
    }
}

/// A cell's letters and digits, lower case: how a status, a payment method or a debit
/// mark is read, case, spaces and punctuation aside.
pub(crate) fn plain(cell: &str) -> String {
    cell.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shops_status_words_are_read_whatever_their_spelling() {
        for paid in [
            "Processing",
            "Completed",
            "On hold",
            "on-hold",
            "wc-on-hold",
            "wc-completed",
            "paid",
            "Approved",
            " SUCCESSFUL ",
        ] {
            assert_eq!(ShopStatus::read(paid), Some(ShopStatus::Paid), "{paid}");
        }
        for unpaid in [
            "Cancelled",
            "Canceled",
            "Failed",
            "Refunded",
            "Pending payment",
            "wc-pending",
            "pending",
            "Declined",
            "voided",
        ] {
            assert_eq!(
                ShopStatus::read(unpaid),
                Some(ShopStatus::Unpaid),
                "{unpaid}"
            );
        }
        for never in ["pending", "Voided", "wc-cancelled", "Abandoned", "Failed"] {
            assert!(never_paid(never), "{never}");
        }
        for not_never in [
            "refunded",
            "Reversed",
            "paid",
            "",
            "partially_refunded",
            "x",
        ] {
            assert!(!never_paid(not_never), "{not_never}");
        }
        for unknown in [
            "",
            "Partially refunded",
            "Draft",
            "wc",
            "paid?!x",
            "processingx",
        ] {
            assert_eq!(ShopStatus::read(unknown), None, "{unknown}");
        }
    }
}
