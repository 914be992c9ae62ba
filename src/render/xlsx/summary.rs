//! The Summary sheet's tables: verify's count per outcome; reconcile's rows and totals per
//! result and per currency, as the summary table on stderr and `--summary-json` give them
//! ([`crate::render::totals`]).

use std::collections::BTreeMap;

use super::XlsxCell;
use crate::domain::reconcile::RESULT_NAMES;
use crate::domain::row_record::is_naira;
use crate::domain::totals::Summary;
use crate::render::totals::overall_figures;

/// The first cell of verify's table header.
pub(crate) const OUTCOME_HEADING: &str = "Outcome";
/// The first cell of reconcile's table headers.
pub(crate) const RESULT_HEADING: &str = "Result";

/// verify's Summary: each outcome in `names` (the summary line's order) with how many
/// records came to it (`counts`), then the total.
pub(crate) fn outcomes(names: &[&str], counts: &BTreeMap<&'static str, u64>) -> Vec<Vec<XlsxCell>> {
    let count = |n: u64| XlsxCell::Integer(i64::try_from(n).unwrap_or(i64::MAX));
    let mut rows = vec![vec![
        XlsxCell::text(OUTCOME_HEADING),
        XlsxCell::text("References"),
    ]];
    for name in names {
        let n = counts.get(name).copied().unwrap_or(0);
        rows.push(vec![XlsxCell::text(*name), count(n)]);
    }
    rows.push(vec![XlsxCell::text("Total"), count(counts.values().sum())]);
    rows
}

/// reconcile's Summary: for each currency (naira first), the rows and the expected and
/// gateway amounts per result and in total, then the overall figures; a currency other
/// than the naira under a line saying it is not in the naira totals.
pub(crate) fn totals(summary: &Summary) -> Vec<Vec<XlsxCell>> {
    let mut rows = Vec::new();
    let count = |n: u64| XlsxCell::Integer(i64::try_from(n).unwrap_or(i64::MAX));
    for (currency, block) in summary.ordered() {
        let naira = is_naira(currency);
        let money = |minor: i128| XlsxCell::Money { minor, naira };
        let unit = match naira {
            true => "₦".to_owned(),
            false => currency.to_owned(),
        };
        if !naira {
            rows.push(vec![XlsxCell::Text(format!(
                "Rows in {currency} (not included in the naira totals):"
            ))]);
        }
        rows.push(vec![
            XlsxCell::text(RESULT_HEADING),
            XlsxCell::text("Rows"),
            XlsxCell::Text(format!("Expected ({unit})")),
            XlsxCell::Text(format!("Gateway ({unit})")),
        ]);
        for (slot, t) in &block.by_result {
            rows.push(vec![
                XlsxCell::text(RESULT_NAMES[*slot]),
                count(t.rows),
                money(t.expected),
                money(t.gateway),
            ]);
        }
        rows.push(vec![
            XlsxCell::text("Total"),
            count(block.all.rows),
            money(block.all.expected),
            money(block.all.gateway),
        ]);
        rows.push(vec![]);
        for (label, _, minor) in overall_figures(&block) {
            rows.push(vec![XlsxCell::text(label), XlsxCell::Empty, money(minor)]);
        }
        rows.push(vec![]);
    }
    rows
}
