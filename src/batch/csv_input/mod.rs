//! `reconcile`'s input: a merchant's orders file or a bank's settlement file (CSV with a
//! header row, title lines above it skipped) read row by row (`records`), its columns found
//! by header name (`columns`), each row turned into a job with its own expectations, or
//! decided from the file alone (INVALID_ROW, DUPLICATE, LINE_ITEM, SKIPPED, a trailing totals
//! row checked against the rows above it); `sink` takes each row's record once it is decided.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use clap::ValueEnum;

mod columns;
mod records;
mod select;
mod sink;

use super::resume::Carried;
use super::seen::{Seen, kept_line};
use super::{Entry, Item, Sink, Source, Tally};
use crate::domain::checks::{Expectations, order_number};
use crate::domain::currency::iso_code;
use crate::domain::job::Job;
use crate::domain::money::{AmountError, Kobo, has_naira_mark, naira_total};
use crate::domain::reconcile::ReferenceLines;
use crate::domain::reconcile::{Decided, RESULT_NAMES, Row, RowResult};
use crate::domain::shop::{ShopStatus, never_paid, plain};
use crate::exit::Failure;
use crate::files::ORDERS;
use crate::reference::Reference;
use crate::render::reconcile::ReconcileWriter;
use crate::terminal;
use columns::*;
pub(crate) use columns::{Given, Role};
use records::*;
pub(crate) use select::Only;
use select::Selection;
pub(crate) use sink::ReconcileSink;

/// How the amount column is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum AmountUnit {
    /// Naira, exact to the kobo: 40000, 40000.5, 40,000.00, ₦40,000.00.
    #[default]
    Naira,
    /// Kobo, whole numbers only: 4000000.
    Kobo,
}

/// What the command line (or the profile's `[profiles.NAME.reconcile]` table) says about
/// the file.
#[derive(Debug, Clone, Default)]
pub(crate) struct CsvOptions {
    /// `,`, `;` or tab; detected from the header line when `None`.
    pub(crate) delimiter: Option<u8>,
    /// The header row's line (`--header-row`); found among the first lines when `None`.
    pub(crate) header_row: Option<u64>,
    /// `--reference-column`.
    pub(crate) reference_column: Option<Given>,
    /// `--amount-column`.
    pub(crate) amount_column: Option<Given>,
    /// `--currency-column`.
    pub(crate) currency_column: Option<Given>,
    /// `--merchant-ref-column`.
    pub(crate) merchant_ref_column: Option<Given>,
    /// `--no-currency-column`: no column is read for the currency, even one whose name says
    /// it is; every row expects `currency`.
    pub(crate) no_currency_column: bool,
    /// How amounts are written.
    pub(crate) unit: AmountUnit,
    /// The currency (ISO 4217 alphabetic) every row expects when there is no currency
    /// column, or its cell is empty (then with a warning).
    pub(crate) currency: String,
    /// `--only COLUMN=PATTERN`: the rows the run is about; the rest are SKIPPED.
    pub(crate) only: Vec<Only>,
    /// `--reference-pattern REGEX`: the reference is taken out of the reference column's
    /// text; a row it does not match, or a debit, is SKIPPED.
    pub(crate) reference_pattern: Option<regex::Regex>,
}

impl CsvOptions {
    /// The column name given for `role`, if one was.
    pub(crate) fn given(&self, role: Role) -> Option<&Given> {
        match role {
            Role::Reference => self.reference_column.as_ref(),
            Role::Amount => self.amount_column.as_ref(),
            Role::Currency => self.currency_column.as_ref(),
            Role::MerchantRef => self.merchant_ref_column.as_ref(),
            Role::OrderId | Role::PaymentMethod | Role::Status => None,
        }
    }
}

/// A row decided without asking: from the file alone, or carried over from an earlier
/// run's output (`--resume`).
#[derive(Debug)]
pub(crate) enum Reconciled {
    /// INVALID_ROW or DUPLICATE.
    Row(Decided),
    /// An earlier run's final row, written again by value.
    Carried(Carried),
}

impl From<Carried> for Reconciled {
    fn from(carried: Carried) -> Self {
        Reconciled::Carried(carried)
    }
}

/// The rows of an orders file, lazily, in order.
pub(crate) struct Orders {
    /// The file, past its header row.
    input: BufReader<Box<dyn Read + Send>>,
    records: Records,
    delimiter: u8,
    name: String,
    header: Arc<[String]>,
    columns: Columns,
    unit: AmountUnit,
    currency: Arc<str>,
    seen: Arc<Mutex<Seen<u32>>>,
    record: csv::ByteRecord,
    /// What the header left open to doubt (two columns that could be the same one), each
    /// held against every row: a warning at the end only if they differ.
    doubts: Vec<Doubt>,
    /// `--only`: the rows the run is about.
    selection: Selection,
    /// `--reference-pattern`, and a statement's debit columns when it has them.
    pattern: Option<(regex::Regex, DebitColumns)>,
    /// How many rows `--only` kept (read by the command once the run is over).
    selected: Arc<AtomicU64>,
    /// The order the last rows belong to, while they are its line items.
    order_above: Option<OrderAbove>,
    /// The last row that named an order and was not one of its line items, whatever it
    /// came to: the order Shopify's line-item rows below it belong to.
    last_order: Option<LastOrder>,
    /// The file starts with a UTF-8 byte-order mark.
    bom: bool,
    /// The sum of every row's amount so far, per currency: what a totals row is checked
    /// against.
    sums: std::collections::HashMap<String, i128>,
    /// What was read ahead of its turn (to tell whether a totals row was the last row).
    peeked: Option<Result<Option<(csv::ByteRecord, u64)>, Failure>>,
    /// The header row's line.
    header_line: u64,
    /// Per column, whether every row read so far filled it in; and how many rows that is.
    always_filled: Vec<bool>,
    rows_above: u64,
    /// Rows whose currency cell was empty, so they expect `currency`: how many, and the
    /// first few lines.
    no_currency: (usize, Vec<u64>),
    blank: usize,
    done: bool,
    /// Why reading stopped at an error (the rows after it were never read), kept for the
    /// command after the engine has the reader.
    input_error: InputError,
}

/// Why the file could not be read past some line, once it could not.
pub(crate) type InputError = Arc<Mutex<Option<String>>>;

impl Orders {
    /// Opens `path` (`-` is stdin), reads its header row and finds the columns; a missing
    /// or unreadable file, an empty one, a UTF-16 one or a missing or ambiguous required
    /// column is a usage error (exit 2) before any request.
    pub(crate) fn open(path: &Path, options: &CsvOptions) -> Result<Orders, Failure> {
        let (input, name): (Box<dyn Read + Send>, String) = if path.as_os_str() == "-" {
            let stdin = crate::files::stdin(&ORDERS)
                .map_err(|e| Failure::usage(format!("cannot read stdin: {e}")))?;
            (Box::new(stdin), "stdin".into())
        } else {
            let name = path.display().to_string();
            let file = crate::files::open(path, &ORDERS)
                .map_err(|e| Failure::usage(format!("cannot read {name}: {e}")))?;
            (Box::new(file), name)
        };
        Orders::from_reader(input, name, options)
    }

    /// As [`Orders::open`], on any reader; `name` is how messages call it.
    pub(crate) fn from_reader(
        input: Box<dyn Read + Send>,
        name: String,
        options: &CsvOptions,
    ) -> Result<Orders, Failure> {
        let mut input = BufReader::new(input);
        // Read before the header drops it: the output keeps it for Excel (`--bom`).
        let bom = input
            .fill_buf()
            .is_ok_and(|start| start.starts_with(b"\xEF\xBB\xBF"));
        let found = find_header(&mut input, &name, options)?;
        let (columns, doubts) = find_columns(&found.cells, options, &name, found.line)?;
        let selection = Selection::find(&options.only, &found.cells, &name)?;
        let header: Arc<[String]> = found.cells.into();
        let test = RowTest {
            delimiter: found.delimiter,
            reference: columns.reference,
            amount: columns.amount,
            unit: options.unit,
            names: (
                header[columns.reference].clone(),
                header[columns.amount].clone(),
            ),
        };
        // The rows start on the line after the header; nothing above it is read again.
        let records = Records::new(&name, found.line + 1, test);
        let width = header.len();
        let pattern = (options.reference_pattern.clone()).map(|p| (p, debit_columns(&header)));
        Ok(Orders {
            input,
            records,
            delimiter: found.delimiter,
            name,
            header,
            columns,
            unit: options.unit,
            currency: options.currency.as_str().into(),
            seen: Arc::default(),
            record: csv::ByteRecord::new(),
            doubts,
            selection,
            pattern,
            selected: Arc::default(),
            order_above: None,
            last_order: None,
            bom,
            sums: Default::default(),
            peeked: None,
            header_line: found.line,
            always_filled: vec![true; width],
            rows_above: 0,
            no_currency: (0, Vec::new()),
            blank: 0,
            done: false,
            input_error: InputError::default(),
        })
    }

    /// Where the header row was, when lines above it were skipped (for stderr).
    pub(crate) fn skipped_note(&self) -> Option<String> {
        (self.header_line > 1).then(|| {
            format!(
                "{}: the header row is line {}; the {} above it {} skipped (title lines, not \
                 rows)",
                self.name,
                self.header_line,
                match self.header_line {
                    2 => "line".to_owned(),
                    n => format!("{} lines", n - 1),
                },
                if self.header_line == 2 { "is" } else { "are" }
            )
        })
    }

    /// Which column each role is read from, for `-v`.
    pub(crate) fn columns_note(&self) -> String {
        let found: Vec<String> = ROLES
            .iter()
            .filter_map(|role| {
                let i = self.columns.of(*role)?;
                Some(format!(
                    "{} column {} ({})",
                    role.what(),
                    i + 1,
                    terminal::quoted(&self.header[i])
                ))
            })
            .collect();
        let currency = match self.columns.currency {
            Some(_) => String::new(),
            None => format!("; every row expects {}", self.currency),
        };
        format!(
            "{}: header row on line {}: {}{currency}",
            self.name,
            self.header_line,
            found.join(", ")
        )
    }

    /// How many rows `--only` kept, once the run is over; `None` without `--only`.
    pub(crate) fn selected(&self) -> Option<Box<dyn Fn() -> u64 + Send>> {
        let count = self.selected.clone();
        (!self.selection.is_empty())
            .then(|| Box::new(move || count.load(Ordering::Relaxed)) as Box<dyn Fn() -> u64 + Send>)
    }

    /// Where the reason reading stopped will be, if it stops before the end.
    pub(crate) fn input_error(&self) -> InputError {
        self.input_error.clone()
    }

    /// The header row, as written.
    pub(crate) fn header(&self) -> Arc<[String]> {
        self.header.clone()
    }

    /// Where the reference column is.
    pub(crate) fn reference_column(&self) -> usize {
        self.columns.reference
    }

    /// Where the order id column is, if the file has one.
    pub(crate) fn order_column(&self) -> Option<usize> {
        self.columns.order_id
    }

    /// Whether the file starts with a UTF-8 byte-order mark (Excel's "CSV UTF-8").
    pub(crate) fn had_bom(&self) -> bool {
        self.bom
    }

    /// The raw bytes of the current record's reference cell.
    fn reference_bytes(&self) -> &[u8] {
        self.record.get(self.columns.reference).unwrap_or_default()
    }

    /// Looks up the line a reference was first verified on, as the reader has read so far:
    /// what the writer needs to tell that two rows name one transaction by different
    /// references (its transaction and its payment reference).
    pub(crate) fn reference_lines(&self) -> ReferenceLines {
        let seen = self.seen.clone();
        Box::new(move |reference| seen.lock().ok()?.find(reference).map(u64::from))
    }

    /// The line of an earlier row that was asked about `reference`, if there is one; when
    /// there is none and `claims`, the reference is recorded as asked about on `line`.
    fn earlier_line(&mut self, reference: &Reference, line: u64, claims: bool) -> Option<u64> {
        let mut seen = self.seen.lock().ok()?;
        let earlier = match claims {
            true => seen.first(reference.as_str(), kept_line(line)),
            false => seen.find(reference.as_str()),
        };
        earlier.map(u64::from)
    }
}

impl Source<Reconciled> for Orders {
    fn end_notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self
            .doubts
            .iter()
            .filter_map(|d| d.warning(&self.header, &self.name))
            .collect();
        let (count, lines) = &self.no_currency;
        let Some(column) = self.columns.currency.filter(|_| *count > 0) else {
            return notes;
        };
        let shown: Vec<String> = lines.iter().map(u64::to_string).collect();
        let more = match count - lines.len() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let (rows, have) = match count {
            1 => ("1 row", "has"),
            _ => (&*format!("{count} rows"), "have"),
        };
        notes.push(format!(
            "{}: {rows} {have} an empty {} cell (line{} {}{more}); {} {} (--currency)",
            self.name,
            terminal::quoted(&self.header[column]),
            if *count == 1 { "" } else { "s" },
            columns::and_list(&shown),
            if *count == 1 {
                "it expects"
            } else {
                "they expect"
            },
            self.currency
        ));
        notes
    }

    fn empty_message(&self) -> String {
        // Reading stopped at an error: the rows after it were never read.
        if self.input_error.lock().is_ok_and(|e| e.is_some()) {
            return format!("no row of {} was reconciled", self.name);
        }
        format!(
            "no rows to reconcile: {} has a header row and nothing else ({} blank lines)",
            self.name, self.blank
        )
    }
}

impl Iterator for Orders {
    type Item = Result<Item<Reconciled>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.peeked.take().unwrap_or_else(|| self.read());
        let line = match next {
            Ok(Some((record, line))) => {
                self.record = record;
                let record = &self.record;
                for doubt in &mut self.doubts {
                    doubt.check(line, |i| record.get(i).unwrap_or_default());
                }
                line
            }
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(failure) => return Some(Err(self.stop(failure))),
        };
        // A totals row only as the last row: one further up is an ordinary row. The row
        // after it (or the end, or a read error) is read ahead and kept for the next call.
        let totals = self.looks_like_totals();
        self.note_filled();
        if totals {
            let after = self.read();
            let last = matches!(after, Ok(None));
            self.peeked = Some(after);
            if last {
                return Some(Ok(self.totals(line)));
            }
        }
        Some(Ok(self.order(line)))
    }
}

impl Orders {
    /// The next record that is not blank (blank lines counted), with its line; `None` at
    /// the end of the input.
    fn read(&mut self) -> Result<Option<(csv::ByteRecord, u64)>, Failure> {
        loop {
            match self.records.next(&mut self.input)? {
                Some((record, _)) if record.iter().all(|c| c.trim_ascii().is_empty()) => {
                    self.blank += 1;
                }
                read => return Ok(read),
            }
        }
    }

    /// Reading stops at `failure`: nothing after it is read, and why is kept.
    fn stop(&mut self, failure: Failure) -> Failure {
        self.done = true;
        if let Ok(mut slot) = self.input_error.lock() {
            *slot = Some(failure.message.clone());
        }
        failure
    }

    /// The order a row comes to.
    fn order(&mut self, line: u64) -> Item<Reconciled> {
        // The order the rows just above belong to: kept only by a row of that order (a
        // line item) or replaced by a row that is asked about.
        let above = self.order_above.take();
        let width = self.header.len();
        let (row, fields, not_utf8) = self.cells(line);
        let whole = not_utf8.is_none() && fields == width;
        // Shopify exports one row per line item, the order-level cells (reference, total,
        // currency, payment method, status) on the order's first row only: a row below it
        // with the same order id and those cells empty is that order's, whatever the order
        // came to (its result and total are on its first row).
        if whole && let Some((first, why, currency)) = self.line_item(&row) {
            self.order_above = above;
            self.last_order = Some(first);
            return decided(row, RowResult::LineItem, why, None, currency);
        }
        self.last_order = self
            .columns
            .order_id
            .filter(|_| whole)
            .and_then(|i| LastOrder::of(&row, i, self.columns.currency));
        let cell = |i: usize| row.cells.get(i).map(String::as_str).unwrap_or("");
        let amount_cell = cell(self.columns.amount);
        let amount = parse_amount(amount_cell, self.unit);
        // The row's amount when it can be read: a row that is not asked about still counts
        // it in its result's totals.
        let expected = amount.as_ref().ok().copied();
        let reference_text = self.reference_text(cell(self.columns.reference));
        let reference = Reference::from_line(reference_text.as_deref().unwrap_or(""));
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
        if whole && let Some(why) = self.selection.left_out(&row.cells) {
            return decided(row, RowResult::Skipped, why, expected, currency);
        }
        self.selected
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if whole && let Some(why) = self.not_in_statement(&row, reference_text.is_some()) {
            return decided(row, RowResult::Skipped, why, expected, currency);
        }
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

    /// The reference the reference column's `text` gives: the text itself, or with
    /// `--reference-pattern` the first capture group of its first match that took part in
    /// it (`A/(\S+)|B (\S+)`: either), the whole match for a pattern with no group, and
    /// nothing (an empty reference: INVALID_ROW) when no group took part; `None` when the
    /// pattern does not match.
    fn reference_text<'t>(&self, text: &'t str) -> Option<std::borrow::Cow<'t, str>> {
        let Some((pattern, _)) = &self.pattern else {
            return Some(text.into());
        };
        let found = pattern.captures(text)?;
        let taken = match found.len() {
            1 => found.get(0).map_or("", |m| m.as_str()),
            _ => found
                .iter()
                .skip(1)
                .flatten()
                .next()
                .map_or("", |m| m.as_str()),
        };
        Some(taken.into())
    }

    /// With `--reference-pattern`, why a row of the statement is no gateway payment: a
    /// debit, or a reference column whose text the pattern does not match (`matched`).
    fn not_in_statement(&self, row: &Row, matched: bool) -> Option<String> {
        let (pattern, debit) = self.pattern.as_ref()?;
        let cell = |i: usize| row.cells.get(i).map_or("", |c| c.trim());
        let marked = debit
            .marker
            .is_some_and(|i| DEBIT_MARKS.contains(&plain(cell(i)).as_str()));
        let amount = debit
            .amount
            .filter(|&i| parse_amount(cell(i), AmountUnit::Naira).is_ok_and(|kobo| kobo.0 != 0));
        if let Some(i) = amount.or(debit.marker.filter(|_| marked)) {
            return Some(format!(
                "not a gateway payment: a debit ({} {})",
                terminal::quoted(&self.header[i]),
                terminal::quoted(cell(i))
            ));
        }
        (!matched).then(|| {
            format!(
                "not a gateway payment: {} does not match --reference-pattern {}",
                terminal::quoted(&self.header[self.columns.reference]),
                terminal::quoted(pattern.as_str())
            )
        })
    }

    /// Whether `row` is a line item of the order on the rows just above it, as Shopify
    /// writes one: its order id, and no reference, amount, currency, merchant ref, payment
    /// method or status. With that order, why, and the order's currency (whose rows it
    /// counts among).
    fn line_item(&self, row: &Row) -> Option<(LastOrder, String, String)> {
        let last = self.last_order.as_ref()?;
        let cell = |i: usize| row.cells.get(i).map_or("", |c| c.trim());
        let id = cell(self.columns.order_id?);
        let c = &self.columns;
        let order_level = [Some(c.reference), Some(c.amount), c.currency]
            .into_iter()
            .chain([c.merchant_ref, c.payment_method, c.status]);
        let empty = order_level.flatten().all(|i| cell(i).is_empty());
        if !empty || id.is_empty() || order_number(id) != order_number(&last.id) {
            return None;
        }
        let why = format!(
            "a line item of order {} (line {}): one order, one result, its total and result \
             on line {}",
            terminal::quoted(&last.id),
            last.line,
            last.line
        );
        let currency = last
            .currency
            .clone()
            .unwrap_or_else(|| self.currency.to_string());
        Some((last.clone(), why, currency))
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

    /// A row with no reference that the file's own status says was never paid, through
    /// the gateway or no method named (UNPAID_NO_REFERENCE); or whose payment method says
    /// it was paid some other way (SKIPPED), or through the gateway with nothing to verify
    /// it by (NO_REFERENCE).
    fn paid_otherwise(&self, row: &Row) -> Option<(RowResult, String)> {
        let cell = |i: usize| row.cells.get(i).map(String::as_str).unwrap_or("");
        let no_reference = cell(self.columns.reference)
            .trim_matches([' ', '\t', '\r'])
            .is_empty();
        if !no_reference {
            return None;
        }
        let method = self.columns.payment_method.map(cell).unwrap_or("");
        let gateway_or_none = method.trim().is_empty() || select::is_gateway_method(method);
        // Nothing to verify only when no column the header left in doubt says otherwise: a
        // second reference column holding one (Shopify's `Payment References`), a second
        // status column saying anything but never paid (`Payment Status: Paid`).
        let others_agree = Doubt::columns_of(&self.doubts, Role::Reference)
            .into_iter()
            .all(|i| cell(i).trim().is_empty())
            && (0..self.header.len())
                .filter(|&i| is_status_name(&self.header[i]))
                .all(|i| cell(i).trim().is_empty() || never_paid(cell(i)));
        if let Some(i) = self.columns.status
            && gateway_or_none
            && others_agree
            && never_paid(cell(i))
        {
            let why = format!(
                "no reference, and {} is {}: never paid, nothing to verify, nothing owed",
                terminal::quoted(&self.header[i]),
                terminal::quoted(cell(i).trim())
            );
            return Some((RowResult::UnpaidNoReference, why));
        }
        let i = self.columns.payment_method?;
        let shown = terminal::quoted(method.trim());
        let column = terminal::quoted(&self.header[i]);
        if select::is_gateway_method(method) {
            let what = match self.columns.order_id {
                Some(_) => "this order's payment",
                None => "this payment",
            };
            let why = format!(
                "no reference, but the payment method is the gateway ({column} {shown}): \
                 nothing to verify {what} by"
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
        // A payment method naming the gateway and another: the gateway's part may be less.
        let other_methods = self
            .columns
            .payment_method
            .and_then(|i| select::other_methods(row.cells.get(i).map_or("", String::as_str)));
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
                other_methods,
            }),
            row: Some(Box::new(row)),
        })
    }

    /// Whether the current record reads as a totals row: a `Total` label (`TOTAL`,
    /// `Totals`, `Grand total`, ...) as its first filled cell, or as its one label, among
    /// cells that are all amounts (or the currency), in any column (a customer's name
    /// `Total` beside an email or a date is an order's); an amount that can be
    /// read; and no order id, payment method, status or merchant reference. The label may
    /// stand in the reference column only on a row left blank where every row above has a
    /// cell (a settlement report's S/N, its dates): the customer chooses references, and a
    /// reference `Total` on an order is an order's.
    fn looks_like_totals(&self) -> bool {
        let text = |i: usize| {
            self.record
                .get(i)
                .and_then(|c| std::str::from_utf8(c).ok())
                .unwrap_or("")
        };
        let filled: Vec<usize> = (0..self.record.len())
            .filter(|&i| {
                !self
                    .record
                    .get(i)
                    .unwrap_or_default()
                    .trim_ascii()
                    .is_empty()
            })
            .collect();
        let is_label = |i: usize| TOTAL_LABELS.contains(&columns::normalized(text(i)).as_str());
        let reference = self.columns.reference;
        let labels: Vec<usize> = filled.iter().copied().filter(|&i| is_label(i)).collect();
        let label = match (filled.first(), labels.as_slice()) {
            (Some(&first), _) if is_label(first) && first != reference => first,
            (_, [one]) => *one,
            _ => return false,
        };
        let amounts_only = filled.iter().all(|&i| {
            i == label
                || Some(i) == self.columns.currency
                || parse_amount(text(i), AmountUnit::Naira).is_ok()
                || parse_amount(text(i), self.unit).is_ok()
        });
        // The row is blank where orders are not: a column every row above filled in.
        let footer_shaped = self.rows_above > 0
            && (0..self.header.len()).any(|i| {
                i != reference
                    && i != self.columns.amount
                    && Some(i) != self.columns.currency
                    && self.always_filled.get(i) == Some(&true)
                    && text(i).trim().is_empty()
            });
        // A totals row belongs to no order: a row that names an order, a payment method or
        // a status besides its label is an order (a customer-typed `Total` in its first
        // cell makes it no footer; with the gateway as its method it is NO_REFERENCE, never
        // exit 0). The label itself may stand in the order id column, as a footer's does.
        let blank =
            |column: Option<usize>| column.is_none_or(|i| i == label || text(i).trim().is_empty());
        blank(Some(reference))
            && (label != reference || footer_shaped)
            && amounts_only
            && blank(self.columns.order_id)
            && blank(self.columns.payment_method)
            && blank(self.columns.status)
            && blank(self.columns.merchant_ref)
            && parse_amount(text(self.columns.amount), self.unit).is_ok()
    }

    /// Notes which columns the current record fills: what a footer's blank cells are told
    /// by ([`Orders::looks_like_totals`]).
    fn note_filled(&mut self) {
        self.rows_above += 1;
        for (i, filled) in self.always_filled.iter_mut().enumerate() {
            *filled &= !self
                .record
                .get(i)
                .unwrap_or_default()
                .trim_ascii()
                .is_empty();
        }
    }

    /// The trailing totals row on `line`, checked against the sum of the amounts of every
    /// row above it in its currency (as a spreadsheet's SUM of the column): TOTALS when they
    /// agree, TOTALS_MISMATCH (exit 4) when they do not.
    fn totals(&mut self, line: u64) -> Item<Reconciled> {
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
        decided(row, result, why, Some(stated), currency)
    }
}

/// The order of the last row asked about, while the rows below it are its line items.
#[derive(Debug)]
struct OrderAbove {
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
        order_number(&self.id) == order_number(&row.id)
            && self.reference == row.reference
            && self.amount == row.amount
            && self.currency == row.currency
    }
}

/// The last order named above the current row: what its line items are told by.
#[derive(Debug, Clone)]
struct LastOrder {
    /// Its order id, trimmed.
    id: String,
    /// Its first row's line.
    line: u64,
    /// Its currency, when its row names one that is an ISO 4217 code.
    currency: Option<String>,
}

impl LastOrder {
    /// The order `row` names in its column `order` (with its currency, from `currency`),
    /// if the cell is not empty.
    fn of(row: &Row, order: usize, currency: Option<usize>) -> Option<LastOrder> {
        let cell = |i: usize| row.cells.get(i).map_or("", |c| c.trim());
        let id = cell(order);
        (!id.is_empty()).then(|| LastOrder {
            id: id.to_owned(),
            line: row.line,
            currency: currency.and_then(|i| iso_code(cell(i))).map(str::to_owned),
        })
    }
}

/// A bank statement's debit columns: an amount column (`Debit`, `Debits`, `Debit Amount`,
/// `Withdrawal(s)`, `Withdrawal Amount`, `DR`) whose amount makes a row a debit, and a
/// marker column (`Dr/Cr`, `Cr/Dr`, `Debit/Credit`, `Type`, `Transaction Type`) whose
/// `DR`, `D`, `Debit` or `Withdrawal` does.
#[derive(Debug, Clone, Copy)]
struct DebitColumns {
    amount: Option<usize>,
    marker: Option<usize>,
}

/// What a debit marker column says of a debit, letters only, lower case.
const DEBIT_MARKS: [&str; 4] = ["dr", "d", "debit", "withdrawal"];

/// Whether a header names an order or payment status (any of the names the status column
/// is found by): every one of them must agree before a row is left unasked.
fn is_status_name(header: &str) -> bool {
    let name = columns::normalized(header);
    columns::STATUS_NAMES
        .iter()
        .any(|known| columns::normalized(known) == name)
}

fn debit_columns(header: &[String]) -> DebitColumns {
    const AMOUNTS: [&str; 8] = [
        "debit",
        "debits",
        "debitamount",
        "withdrawal",
        "withdrawals",
        "withdrawalamount",
        "withdrawalamounts",
        "dr",
    ];
    const MARKERS: [&str; 6] = [
        "drcr",
        "crdr",
        "debitcredit",
        "creditdebit",
        "type",
        "transactiontype",
    ];
    let find = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.contains(&columns::normalized(h).as_str()))
    };
    DebitColumns {
        amount: find(&AMOUNTS),
        marker: find(&MARKERS),
    }
}

/// What the first filled cell of a totals row says, as header names are matched.
const TOTAL_LABELS: [&str; 3] = ["total", "totals", "grandtotal"];

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
fn decided(
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
fn parse_amount(cell: &str, unit: AmountUnit) -> Result<Kobo, String> {
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

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
