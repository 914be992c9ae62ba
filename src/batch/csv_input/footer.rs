//! A trailing totals row (a settlement file's `TOTAL` line, a spreadsheet's `Grand total`):
//! recognised, checked against the sum of the rows above it, and never sent to the service
//! nor counted in the totals.

use super::*;
use crate::domain::money::naira_total;

/// What the first filled cell of a totals row says, as header names are matched.
const TOTAL_LABELS: [&str; 3] = ["total", "totals", "grandtotal"];

impl Orders {
    /// Whether the current record reads as a totals row: no reference, its first filled
    /// cell `Total` (`TOTAL`, `Totals`, `Grand total`, ...), an amount that can be read, and no
    /// order id, payment method, status or merchant reference.
    pub(super) fn looks_like_totals(&self) -> bool {
        let text = |i: usize| {
            self.record
                .get(i)
                .and_then(|c| std::str::from_utf8(c).ok())
                .unwrap_or("")
        };
        let label = self.record.iter().position(|c| !c.trim_ascii().is_empty());
        let first = label.map(text);
        // A totals row belongs to no order: a row that names an order, a payment method or
        // a status besides its label is an order (a customer-typed `Total` in its first
        // cell makes it no footer; with the gateway as its method it is NO_REFERENCE, never
        // exit 0). The label itself may stand in the order id column, as a footer's does.
        let blank = |column: Option<usize>| {
            column.is_none_or(|i| Some(i) == label || text(i).trim().is_empty())
        };
        text(self.columns.reference).trim().is_empty()
            && blank(self.columns.order_id)
            && blank(self.columns.payment_method)
            && blank(self.columns.status)
            && blank(self.columns.merchant_ref)
            && first.is_some_and(|f| TOTAL_LABELS.contains(&columns::normalized(f).as_str()))
            && parse_amount(text(self.columns.amount), self.unit).is_ok()
    }

    /// The trailing totals row on `line`, checked against the sum of the amounts of every
    /// row above it in its currency (as a spreadsheet's SUM of the column): TOTALS when they
    /// agree, TOTALS_MISMATCH (exit 4) when they do not.
    pub(super) fn totals(&mut self, line: u64) -> Item<Reconciled> {
        let width = self.header.len();
        let mut cells: Vec<String> = self
            .record
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        cells.resize(width.max(cells.len()), String::new());
        let row = Row { line, cells };
        let cell = |i: usize| row.cells.get(i).map_or("", String::as_str);
        let Ok(stated) = parse_amount(cell(self.columns.amount), self.unit) else {
            return self.order(line);
        };
        let currency = match self.columns.currency.map(|i| cell(i).trim()) {
            Some(code) if !code.is_empty() => match iso_code(code) {
                Some(alpha) => alpha.to_owned(),
                None => return self.order(line),
            },
            _ => self.currency.to_string(),
        };
        let sum = self.sums.get(&currency).copied().unwrap_or(0);
        let shown = |minor: i128| match currency.as_str() {
            "NGN" => format!("₦{}", naira_total(minor)),
            other => format!("{other} {}", naira_total(minor)),
        };
        let stated_minor = i128::from(stated.0);
        let (result, why) = match stated_minor == sum {
            true => (
                RowResult::Totals,
                format!(
                    "the file's totals row: {}, the sum of the rows above in {currency}; never \
                     sent to the service, not counted again",
                    shown(sum)
                ),
            ),
            false => (
                RowResult::TotalsMismatch,
                format!(
                    "the file's totals row says {}, but the rows above in {currency} sum to {} \
                     (a row missing, added or changed?)",
                    shown(stated_minor),
                    shown(sum)
                ),
            ),
        };
        row::decided(row, result, why, Some(stated), currency)
    }
}
