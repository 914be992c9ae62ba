//! `reconcile`'s input: a merchant's orders file or a bank's settlement file (CSV with a
//! header row, title lines above it skipped) read row by row with the `csv` crate, its
//! columns found by header name, each row turned into a job with its own expectations, or
//! decided at once (INVALID_ROW, DUPLICATE).

use std::collections::VecDeque;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use clap::ValueEnum;

mod columns;
mod header;
mod quoting;

use super::resume::Carried;
use super::seen::Seen;
use super::{Entry, Item, Sink, Source, Tally};
use crate::domain::checks::Expectations;
use crate::domain::currency::iso_code;
use crate::domain::job::Job;
use crate::domain::money::{AmountError, Kobo, has_naira_mark};
use crate::domain::reconcile::{Decided, RESULT_NAMES, Row, RowResult};
use crate::domain::reference::Reference;
use crate::exit::Failure;
use crate::files::ORDERS;
use crate::render::reconcile::{Judged, ReconcileWriter, ReferenceLines};
use crate::terminal;
use columns::*;
pub(crate) use columns::{Given, Role};
use header::*;
use quoting::*;

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

/// Where each column the rows are read by is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Columns {
    pub(crate) reference: usize,
    pub(crate) amount: usize,
    pub(crate) currency: Option<usize>,
    pub(crate) merchant_ref: Option<usize>,
    /// Found for what finance reads (one order on several rows, its status against the
    /// gateway's); no row's result depends on them yet.
    pub(crate) order_id: Option<usize>,
    pub(crate) payment_method: Option<usize>,
    pub(crate) status: Option<usize>,
}

impl Columns {
    /// The column of `role`, if the file has one.
    pub(crate) fn of(&self, role: Role) -> Option<usize> {
        match role {
            Role::Reference => Some(self.reference),
            Role::Amount => Some(self.amount),
            Role::Currency => self.currency,
            Role::MerchantRef => self.merchant_ref,
            Role::OrderId => self.order_id,
            Role::PaymentMethod => self.payment_method,
            Role::Status => self.status,
        }
    }
}

/// The rows of an orders file, lazily, in order.
pub(crate) struct Orders {
    reader: csv::Reader<Box<dyn Read + Send>>,
    delimiter: u8,
    name: String,
    header: Arc<[String]>,
    columns: Columns,
    unit: AmountUnit,
    currency: Arc<str>,
    seen: Arc<Mutex<Seen<u64>>>,
    record: csv::ByteRecord,
    /// What the reader in front of the csv crate saw: where records start, and whether the
    /// input ended inside a quoted field.
    track: Arc<Mutex<Track>>,
    /// What the header left open to doubt (two columns that could be the same one).
    warnings: Vec<String>,
    /// The header row's line.
    header_line: u64,
    /// Rows whose currency cell was empty, so they expect `currency`: how many, and the
    /// first few lines.
    no_currency: (usize, Vec<u64>),
    rows: usize,
    blank: usize,
    done: bool,
    /// Reading stopped at an error (the rows after it were never read).
    failed: bool,
    /// That error's line, kept for the command after the engine has the reader.
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
            (Box::new(crate::files::stdin(&ORDERS)), "stdin".into())
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
        let found = find_header(&mut input, &name, options)?;
        let (columns, warnings) = find_columns(&found.cells, options, &name, found.line)?;
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
        let track = Arc::new(Mutex::new(Track::default()));
        // The rows start on the line after the header; nothing above it is read again.
        let rows: Box<dyn Read + Send> =
            Box::new(Newlines::new(input, found.line + 1, test, track.clone()));
        let reader = csv::ReaderBuilder::new()
            .delimiter(found.delimiter)
            .flexible(true)
            .has_headers(false)
            .from_reader(rows);
        Ok(Orders {
            reader,
            delimiter: found.delimiter,
            name,
            header,
            columns,
            unit: options.unit,
            currency: options.currency.as_str().into(),
            seen: Arc::default(),
            record: csv::ByteRecord::new(),
            track,
            warnings,
            header_line: found.line,
            no_currency: (0, Vec::new()),
            rows: 0,
            blank: 0,
            done: false,
            failed: false,
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

    /// Where the reason reading stopped will be, if it stops before the end.
    pub(crate) fn input_error(&self) -> InputError {
        self.input_error.clone()
    }

    /// The header row, as written.
    pub(crate) fn header(&self) -> Arc<[String]> {
        self.header.clone()
    }

    /// Warnings about the header, for stderr.
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Where the reference column is.
    pub(crate) fn reference_column(&self) -> usize {
        self.columns.reference
    }

    /// The order a row comes to.
    fn order(&mut self, line: u64) -> Item<Decided> {
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
        let row = Row { line, cells: texts };
        let cell = |i: usize| row.cells.get(i).map(String::as_str).unwrap_or("");
        let amount = parse_amount(cell(self.columns.amount), self.unit);
        let reference = Reference::parse(cell(self.columns.reference));
        // The row's currency: its cell, read as an ISO 4217 code; `--currency` only when the
        // file has no currency column. An empty cell is the naira an amount marked `₦`
        // states, or else `--currency`, said on stderr at the end (never silently).
        let mut no_currency = false;
        let (currency, bad_currency) = match self.columns.currency.map(|i| cell(i).trim()) {
            None => (self.currency.to_string(), None),
            Some("") if has_naira_mark(cell(self.columns.amount)) => ("NGN".to_owned(), None),
            Some("") => {
                no_currency = true;
                (self.currency.to_string(), None)
            }
            Some(code) => match iso_code(code) {
                Some(alpha) => (alpha.to_owned(), None),
                None => (
                    shown_code(code),
                    Some(format!(
                        "currency {} is not an ISO 4217 currency code (such as NGN, or 566 as \
                         settlement files write it)",
                        terminal::quoted(code)
                    )),
                ),
            },
        };
        // Why the row cannot be asked about, in the order the messages name it; the first
        // that applies is the one given.
        let refused = if let Some(i) = not_utf8 {
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
        } else if let Err(e) = &reference {
            Some(e.to_string())
        } else if let Err(why) = &amount {
            Some(why.clone())
        } else if let Some(why) = bad_currency {
            Some(why)
        } else if !currency.eq_ignore_ascii_case("NGN") && has_naira_mark(cell(self.columns.amount))
        {
            // `₦40,000` on a row that expects GHS contradicts itself: which does it mean?
            Some(format!(
                "amount {} is marked as naira, but the row's currency is {}",
                terminal::quoted(cell(self.columns.amount)),
                terminal::quoted(&currency)
            ))
        } else {
            None
        };
        if no_currency && refused.is_none() {
            self.no_currency.0 += 1;
            if self.no_currency.1.len() < NOTED_LINES {
                self.no_currency.1.push(row.line);
            }
        }
        // The reference as the row gives it, when it is one: a reference cell that is not
        // UTF-8 text is no reference to compare with the earlier rows'.
        let reference = reference
            .ok()
            .filter(|_| std::str::from_utf8(self.reference_bytes()).is_ok());
        let expected = amount.as_ref().ok().copied();
        let Some(reference) = reference else {
            let why = refused.unwrap_or_else(|| "the reference cannot be read".to_owned());
            return decided(row, RowResult::InvalidRow, why, expected, currency);
        };
        // DUPLICATE comes before INVALID_ROW in the precedence, whatever made the row
        // invalid; only a row that can be asked about claims its reference.
        let claims = refused.is_none();
        if let Some(first) = self.earlier_line(&reference, row.line, claims) {
            let why = format!("reference {reference} is already on line {first}, verified there");
            return decided(row, RowResult::Duplicate, why, expected, currency);
        }
        if let Some(why) = refused {
            return decided(row, RowResult::InvalidRow, why, expected, currency);
        }
        let merchant_ref = self
            .columns
            .merchant_ref
            .map(|i| row.cells.get(i).map(String::as_str).unwrap_or(""))
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        Item::Job(Job {
            origin: format!("{} line {line}", self.name),
            reference,
            expect: Arc::new(Expectations {
                amount: expected,
                currency: Some(currency),
                merchant_ref,
            }),
            row: Some(Box::new(row)),
        })
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
        Box::new(move |reference| seen.lock().ok()?.find(reference))
    }

    /// The line of an earlier row that was asked about `reference`, if there is one; when
    /// there is none and `claims`, the reference is recorded as asked about on `line`.
    fn earlier_line(&mut self, reference: &Reference, line: u64, claims: bool) -> Option<u64> {
        let mut seen = self.seen.lock().ok()?;
        match claims {
            true => seen.first(reference.as_str(), line),
            false => seen.find(reference.as_str()),
        }
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
fn decided(
    row: Row,
    result: RowResult,
    why: String,
    expected: Option<Kobo>,
    currency: String,
) -> Item<Decided> {
    Item::Decided(Decided {
        row,
        result,
        why,
        expected,
        currency,
    })
}

/// A row decided without asking: from the file alone, or carried over from an earlier
/// run's output (`--resume`).
#[derive(Debug)]
pub(crate) enum Reconciled {
    /// INVALID_ROW or DUPLICATE.
    Row(Decided),
    /// An earlier run's final row, written again unchanged.
    Carried(Carried),
}

impl From<Carried> for Reconciled {
    fn from(carried: Carried) -> Self {
        Reconciled::Carried(carried)
    }
}

/// The orders' rows as the engine's input, with room for carried rows (`--resume`).
pub(crate) struct Rows(pub(crate) Orders);

impl Iterator for Rows {
    type Item = Result<Item<Reconciled>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.0.next()?.map(|item| match item {
            Item::Job(job) => Item::Job(job),
            Item::Decided(decided) => Item::Decided(Reconciled::Row(decided)),
            Item::Duplicate { reference, origin } => Item::Duplicate { reference, origin },
            Item::Invalid { origin, why } => Item::Invalid { origin, why },
        }))
    }
}

impl Source<Reconciled> for Rows {
    fn empty_message(&self) -> String {
        self.0.empty_message()
    }

    fn end_notes(&self) -> Vec<String> {
        self.0.end_notes()
    }
}

/// Reconciled rows go to the engine's ordered writer like verify's records: each entry is
/// judged and counted in the totals when the engine tallies it (so the totals are exactly
/// the rows the exit status merges, written or not), and judged again to be written; a
/// carried row counts from the figures read back from it, and is written as it was.
impl Sink<Reconciled> for ReconcileWriter {
    fn begin(&mut self) -> io::Result<()> {
        ReconcileWriter::begin(self)
    }

    fn tally(&mut self, entry: &Entry<Reconciled>) -> Tally {
        let mut judged = judge(entry);
        if let Entry::Verified(record) = entry {
            self.claim(&mut judged, record);
        }
        self.count(&judged);
        let (warned, carried) = match entry {
            Entry::Verified(record) => (
                record
                    .verdict
                    .checks
                    .as_ref()
                    .is_some_and(|c| !c.warnings.is_empty()),
                false,
            ),
            Entry::Decided(Reconciled::Row(_)) => (false, false),
            Entry::Decided(Reconciled::Carried(c)) => (c.warned, true),
        };
        Tally {
            exit: judged.result.exit(),
            name: judged.result.name(),
            warned,
            carried,
        }
    }

    fn write(&mut self, entry: &Entry<Reconciled>) -> io::Result<()> {
        match entry {
            Entry::Decided(Reconciled::Carried(carried)) => {
                ReconcileWriter::write_carried(self, &carried.text)
            }
            _ => {
                let mut judged = judge(entry);
                self.settle(&mut judged);
                ReconcileWriter::write(self, &judged)
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        ReconcileWriter::finish(self)
    }

    fn noun(&self) -> (&'static str, &'static str) {
        ("row", "rows")
    }

    fn names(&self) -> &'static [&'static str] {
        &RESULT_NAMES
    }

    fn verb(&self) -> &'static str {
        "reconciled"
    }

    /// The totals are those of the rows decided, not of the file: the summary says so.
    fn incomplete(&mut self, not_reached: Option<usize>) {
        self.mark_incomplete(not_reached.map(|n| n as u64));
    }
}

fn judge(entry: &Entry<Reconciled>) -> Judged<'_> {
    match entry {
        Entry::Verified(record) => Judged::verified(record),
        Entry::Decided(Reconciled::Row(decided)) => Judged::decided(decided),
        Entry::Decided(Reconciled::Carried(carried)) => Judged::carried(carried),
    }
}

impl Source<Decided> for Orders {
    fn end_notes(&self) -> Vec<String> {
        let (count, lines) = &self.no_currency;
        let Some(column) = self.columns.currency.filter(|_| *count > 0) else {
            return Vec::new();
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
        vec![format!(
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
        )]
    }

    fn empty_message(&self) -> String {
        if self.failed {
            return format!("no row of {} was reconciled", self.name);
        }
        format!(
            "no rows to reconcile: {} has a header row and nothing else ({} blank lines)",
            self.name, self.blank
        )
    }
}

impl Iterator for Orders {
    type Item = Result<Item<Decided>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.reader.read_byte_record(&mut self.record) {
                Ok(false) => self.done = true,
                Ok(true) => {
                    let (line, unclosed) = next_record(&self.track);
                    if let Some(at) = unclosed {
                        // Never judged as a row: its last cell holds the rest of the file.
                        return Some(Err(self.stop(unclosed_quote(&self.name, at))));
                    }
                    let line = line.unwrap_or(0);
                    if self.record.iter().all(|c| c.trim_ascii().is_empty()) {
                        self.blank += 1;
                        continue;
                    }
                    self.rows += 1;
                    return Some(Ok(self.order(line)));
                }
                Err(e) => {
                    let failure = read_failure(&self.track, &self.name, &e);
                    return Some(Err(self.stop(failure)));
                }
            }
        }
        None
    }
}

impl Orders {
    /// Reading stops at `failure`: nothing after it is read, and why is kept.
    fn stop(&mut self, failure: Failure) -> Failure {
        (self.done, self.failed) = (true, true);
        if let Ok(mut slot) = self.input_error.lock() {
            *slot = Some(failure.message.clone());
        }
        failure
    }
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
