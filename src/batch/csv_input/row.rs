//! One row of the file judged from the file alone: the job that asks the gateway about it
//! with the row's own expectations, or its result at once (INVALID_ROW, DUPLICATE).

use super::*;

impl Orders {
    /// The order a row comes to.
    pub(super) fn order(&mut self, line: u64) -> Item<Reconciled> {
        // The order the rows just above belong to: kept only by a row of that order (a
        // line item) or replaced by a row that is asked about.
        let above = self.order_above.take();
        let width = self.header.len();
        let (row, fields, not_utf8) = self.cells(line);
        let cell = |i: usize| row.cells.get(i).map(String::as_str).unwrap_or("");
        let amount_cell = cell(self.columns.amount);
        let amount = parse_amount(amount_cell, self.unit);
        // The row's amount when it can be read: a row that is not asked about still counts
        // it in its result's totals.
        let expected = amount.as_ref().ok().copied();
        let reference = Reference::from_line(cell(self.columns.reference));
        let (currency, bad_currency, no_currency) =
            self.row_currency(self.columns.currency.map(|i| cell(i).trim()), amount_cell);
        // Every amount that can be read counts in its currency's column sum, whatever the
        // row comes to: what a trailing totals row is checked against.
        if let Ok(kobo) = &amount
            && bad_currency.is_none()
        {
            *self.sums.entry(currency.clone()).or_default() += i128::from(kobo.0);
        }
        let refused = self.refused(
            (not_utf8, fields),
            reference.as_ref().err().map(ToString::to_string),
            amount.as_ref().err().cloned(),
            bad_currency,
            &currency,
            amount_cell,
        );
        if no_currency && refused.is_none() {
            self.no_currency.0 += 1;
            if self.no_currency.1.len() < NOTED_LINES {
                self.no_currency.1.push(row.line);
            }
        }
        // Rows the run is not about, once the row is whole (a row with the wrong number of
        // cells may have its cells shifted, so no cell of it can leave it out): left out by
        // --only, or no reference on a row paid some other way.
        let whole = not_utf8.is_none() && fields == width;
        if whole && let Some(why) = self.selection.left_out(&row.cells) {
            return decided(row, RowResult::Skipped, why, expected, currency);
        }
        self.selected
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if whole && let Some((result, why)) = self.paid_otherwise(&row) {
            return decided(row, result, why, expected, currency);
        }
        // The reference as the row gives it, when it is one: a reference cell that is not
        // UTF-8 text is no reference to compare with the earlier rows'.
        let reference = reference
            .ok()
            .filter(|_| std::str::from_utf8(self.reference_bytes()).is_ok());
        let Some(reference) = reference else {
            let why = refused.unwrap_or_else(|| "the reference cannot be read".to_owned());
            return decided(row, RowResult::InvalidRow, why, expected, currency);
        };
        // DUPLICATE comes before INVALID_ROW in the precedence, whatever made the row
        // invalid; only a row that can be asked about claims its reference.
        let claims = refused.is_none();
        // One order exported one row per item: the rows right below its first, with its
        // order id, reference, total and currency, are that order, not DUPLICATEs of it.
        // Its result and its total are on its first row alone.
        let order_id = self
            .columns
            .order_id
            .map(|i| cell(i).trim().to_owned())
            .filter(|id| !id.is_empty());
        let this = order_id.clone().map(|id| OrderAbove {
            line: row.line,
            id,
            reference: reference.as_str().to_owned(),
            amount: expected,
            currency: currency.clone(),
        });
        if claims
            && let (Some(above), Some(this)) = (above, this.as_ref())
            && above.is_same_order(this)
        {
            let why = format!(
                "a line item of order {} (line {}): one order, one result, its total and \
                 result on line {}",
                terminal::quoted(&above.id),
                above.line,
                above.line
            );
            self.order_above = Some(above);
            return decided(row, RowResult::LineItem, why, expected, currency);
        }
        if let Some(first) = self.earlier_line(&reference, row.line, claims) {
            let why = format!("reference {reference} is already on line {first}, verified there");
            return decided(row, RowResult::Duplicate, why, expected, currency);
        }
        if let Some(why) = refused {
            return decided(row, RowResult::InvalidRow, why, expected, currency);
        }
        self.order_above = this;
        self.job(row, reference, expected, currency, order_id)
    }

    /// Why the row cannot be asked about, in the order the messages name it; the first that
    /// applies is the one given. `shape`: the first cell that is not UTF-8, and how many
    /// fields the row has.
    fn refused(
        &self,
        shape: (Option<usize>, usize),
        reference: Option<String>,
        amount: Option<String>,
        bad_currency: Option<String>,
        currency: &str,
        amount_cell: &str,
    ) -> Option<String> {
        let (not_utf8, fields) = shape;
        let width = self.header.len();
        if let Some(i) = not_utf8 {
            Some(format!("column {} is not UTF-8 text", i + 1))
        } else if fields != width {
            // The usual cause: `40,000.00` unquoted in a comma-separated file.
            let hint = match self.delimiter == b',' && fields > width {
                true => " (a value with a comma, such as 40,000.00, must be in double quotes)",
                false => "",
            };
            Some(format!(
                "the row has {fields} fields; the header has {width}{hint}"
            ))
        } else if reference.is_some() {
            reference
        } else if amount.is_some() {
            amount
        } else if bad_currency.is_some() {
            bad_currency
        } else if !currency.eq_ignore_ascii_case("NGN") && has_naira_mark(amount_cell) {
            // `₦40,000` on a row that expects GHS contradicts itself: which does it mean?
            Some(format!(
                "amount {} is marked as naira, but the row's currency is {}",
                terminal::quoted(amount_cell),
                terminal::quoted(currency)
            ))
        } else {
            None
        }
    }

    /// The record's cells as text, as many as the header has (a spreadsheet's trailing
    /// empty cells dropped), with how many fields the row had and the first that is not
    /// UTF-8.
    fn cells(&self, line: u64) -> (Row, usize, Option<usize>) {
        let width = self.header.len();
        let not_utf8 = self
            .record
            .iter()
            .position(|c| std::str::from_utf8(c).is_err());
        let mut texts: Vec<String> = self
            .record
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        // Extra empty cells (a spreadsheet's trailing separators) are not data.
        while texts.len() > width && texts.last().is_some_and(|c| c.trim().is_empty()) {
            texts.pop();
        }
        let fields = texts.len();
        texts.resize(width.max(fields), String::new());
        (Row { line, cells: texts }, fields, not_utf8)
    }

    /// The row's currency: its cell (`cell`, if the file has the column), read as an ISO
    /// 4217 code; `--currency` only when the file has no currency column. An empty cell is
    /// the naira an amount marked `₦` states, or else `--currency`, said on stderr at the
    /// end (never silently). With why a cell is no currency, and whether it was empty.
    fn row_currency(&self, cell: Option<&str>, amount: &str) -> (String, Option<String>, bool) {
        match cell {
            None => (self.currency.to_string(), None, false),
            Some("") if has_naira_mark(amount) => ("NGN".to_owned(), None, false),
            Some("") => (self.currency.to_string(), None, true),
            Some(code) => match iso_code(code) {
                Some(alpha) => (alpha.to_owned(), None, false),
                None => {
                    let why = format!(
                        "currency {} is not an ISO 4217 currency code (such as NGN, or 566 as \
                         settlement files write it)",
                        terminal::quoted(code)
                    );
                    (shown_code(code), Some(why), false)
                }
            },
        }
    }

    /// A row with no reference whose payment method says it was paid some other way
    /// (SKIPPED), or through the gateway with nothing to verify it by (NO_REFERENCE).
    fn paid_otherwise(&self, row: &Row) -> Option<(RowResult, String)> {
        let cell = |i: usize| row.cells.get(i).map(String::as_str).unwrap_or("");
        let no_reference = cell(self.columns.reference)
            .trim_matches([' ', '\t', '\r'])
            .is_empty();
        let i = self.columns.payment_method.filter(|_| no_reference)?;
        let method = cell(i);
        let shown = terminal::quoted(method.trim());
        let column = terminal::quoted(&self.header[i]);
        if select::is_gateway_method(method) {
            let why = format!(
                "no reference, but the payment method is the gateway ({column} {shown}): \
                 nothing to verify this order's payment by"
            );
            return Some((RowResult::NoReference, why));
        }
        let why = format!("not a gateway payment: no reference, {column} is {shown}");
        (!method.trim().is_empty()).then_some((RowResult::Skipped, why))
    }

    /// The job that asks the gateway about a row, with the row's own expectations.
    fn job(
        &self,
        row: Row,
        reference: Reference,
        expected: Option<Kobo>,
        currency: String,
        order_id: Option<String>,
    ) -> Item<Reconciled> {
        let merchant_ref = self
            .columns
            .merchant_ref
            .map(|i| row.cells.get(i).map(String::as_str).unwrap_or(""))
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        // The shop's order status, when the file has one and it is a known word.
        let shop = self
            .columns
            .status
            .and_then(|i| ShopStatus::read(row.cells.get(i).map_or("", String::as_str)));
        Item::Job(Job {
            origin: format!("{} line {}", self.name, row.line),
            reference,
            expect: Arc::new(Expectations {
                amount: expected,
                currency: Some(currency),
                merchant_ref,
                shop,
                order_id,
            }),
            row: Some(Box::new(row)),
        })
    }
}

/// The order of the last row asked about, while the rows below it are its line items.
#[derive(Debug)]
pub(super) struct OrderAbove {
    /// Its first row's line.
    line: u64,
    /// The order id, trimmed.
    id: String,
    reference: String,
    amount: Option<Kobo>,
    currency: String,
}

impl OrderAbove {
    /// Whether `row` is another row of this order: the same order id, reference, total and
    /// currency, exactly. Anything else naming the reference is a DUPLICATE.
    fn is_same_order(&self, row: &OrderAbove) -> bool {
        self.id == row.id
            && self.reference == row.reference
            && self.amount == row.amount
            && self.currency == row.currency
    }
}

/// How many lines a warning about many rows names.
const NOTED_LINES: usize = 5;

/// A currency cell that is no code, shortened for the totals it is counted under.
fn shown_code(code: &str) -> String {
    const LONGEST: usize = 12;
    let upper = code.to_uppercase();
    match upper.chars().count() > LONGEST {
        true => format!("{}…", upper.chars().take(LONGEST).collect::<String>()),
        false => upper,
    }
}

/// A row decided from the file alone, as the engine's item.
pub(super) fn decided(
    row: Row,
    result: RowResult,
    why: String,
    expected: Option<Kobo>,
    currency: String,
) -> Item<Reconciled> {
    Item::Decided(Reconciled::Row(Decided {
        row,
        result,
        why,
        expected,
        currency,
    }))
}

/// A cell's amount in kobo, exactly, or why the row is invalid.
pub(super) fn parse_amount(cell: &str, unit: AmountUnit) -> Result<Kobo, String> {
    let shown = terminal::quoted(cell);
    if cell.trim().is_empty() {
        return Err("the amount is empty".into());
    }
    match unit {
        AmountUnit::Naira => Kobo::parse_naira(cell).map_err(|e| match e {
            AmountError::TooPrecise(_) => {
                format!("amount {shown} has more than two decimals (kobo is the smallest unit; nothing is rounded)")
            }
            AmountError::TooLarge(_) => format!("amount {shown} is too large"),
            AmountError::NotANumber(_) => format!(
                "amount {shown} is not a naira amount (e.g. 40000, 40000.5, 40,000.00, ₦40,000.00)"
            ),
        }),
        AmountUnit::Kobo => Kobo::parse_kobo(cell).map_err(|e| match e {
            AmountError::TooLarge(_) => format!("amount {shown} is too large"),
            _ => format!("amount {shown} is not a whole number of kobo (--amount-unit kobo)"),
        }),
    }
}
