//! reconcile's totals: what each row's record contributes, per currency and per result
//! (the summary table and `--summary-json` are views of them, in `render::reconcile`).

use std::collections::BTreeMap;

use crate::domain::reconcile::RowResult;
use crate::domain::row_record::{NAIRA, RowRecord};

/// The totals of one result, or of the whole file.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Rows.
    pub(crate) rows: u64,
    /// What those rows expect, in minor units (kobo for naira) (rows whose amount could be
    /// read).
    pub(crate) expected: i128,
    /// What the gateway reported for them, in minor units (rows it stated an amount for,
    /// in the row's currency).
    pub(crate) gateway: i128,
}

/// The totals of the rows that expect one currency: amounts in two currencies are never
/// added together.
#[derive(Debug, Default, Clone)]
pub(crate) struct Block {
    /// By result, in precedence order ([`RowResult::index`]).
    pub(crate) by_result: BTreeMap<usize, Totals>,
    /// Every row's.
    pub(crate) all: Totals,
    /// What the MATCHED rows expect.
    pub(crate) matched: i128,
    /// What the gateway has as SUCCESSFUL for the rows, in their currency: the money it
    /// collected (a payment two rows name counts once: the DUPLICATE row's is left out).
    pub(crate) collected: i128,
    /// What the rows not MATCHED expect, less those that are no money at risk (SKIPPED).
    pub(crate) at_risk: i128,
    /// What SKIPPED rows expect: not gateway payments, or left out by `--only`.
    pub(crate) skipped: i128,
    /// What the other methods of SPLIT_PAID rows covered: each order's total less the
    /// gateway's part.
    pub(crate) other_methods: i128,
    /// The sum of gateway - expected over the rows the gateway answered SUCCESSFUL for:
    /// non-zero only for UNDERPAID and OVERPAID rows.
    pub(crate) net_difference: i128,
}

/// What the summary says: per currency, per result, and overall.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    /// By currency code (upper case); naira is `NGN`.
    pub(crate) blocks: BTreeMap<String, Block>,
    /// Rows counted.
    pub(crate) rows: u64,
    /// `Some` when the run ended before every row was decided (these are then the totals
    /// of the rows decided, not of the file), with how many rows were never decided when
    /// the whole file was read (`None`: the rest of it never was).
    pub(crate) incomplete: Option<Option<u64>>,
    /// Why the input could not be read past some line (naming the lines), when it could
    /// not: in the summary file too, so a run under `-q` still says it.
    pub(crate) input_error: Option<String>,
}

impl Summary {
    /// Counts one row.
    pub(crate) fn add(&mut self, row: &RowRecord) {
        self.rows += 1;
        let currency = row.row_currency.trim().to_ascii_uppercase();
        // A gateway amount in another currency than the row's is not added to its totals.
        let same_currency = row.same_currency();
        let block = self.blocks.entry(currency).or_default();
        let amount = match row.result.counts_amount() {
            true => row.expected_amount_kobo.map_or(0, i128::from),
            false => 0,
        };
        // A payment the file says failed or was reversed is no money it expects; still at
        // risk when the gateway took it.
        let expected = if row.not_expected { 0 } else { amount };
        let gateway = match same_currency {
            true => row.gateway_amount_kobo.map_or(0, i128::from),
            false => 0,
        };
        for totals in [
            block.by_result.entry(row.result.index()).or_default(),
            &mut block.all,
        ] {
            totals.rows += 1;
            totals.expected += expected;
            totals.gateway += gateway;
        }
        if row.result == RowResult::Matched {
            block.matched += expected;
        }
        if row.result.at_risk() {
            block.at_risk += amount;
        }
        if row.collected() {
            block.collected += row.gateway_amount_kobo.map_or(0, i128::from);
        }
        if row.result == RowResult::Skipped {
            block.skipped += expected;
        }
        if row.result == RowResult::SplitPaid {
            block.other_methods += expected - gateway;
        }
        if same_currency {
            block.net_difference += row.difference_kobo.unwrap_or(0);
        }
    }

    /// Whether the run stopped before every row was decided.
    pub(crate) fn incomplete(&self) -> bool {
        self.incomplete.is_some()
    }

    /// The naira block first (also when empty, if nothing else is there), then one per
    /// other currency.
    pub(crate) fn ordered(&self) -> Vec<(&str, Block)> {
        let mut out = Vec::new();
        if self.blocks.contains_key(NAIRA) || self.blocks.is_empty() {
            out.push((NAIRA, self.blocks.get(NAIRA).cloned().unwrap_or_default()));
        }
        for (currency, block) in &self.blocks {
            if currency != NAIRA {
                out.push((currency.as_str(), block.clone()));
            }
        }
        out
    }
}
