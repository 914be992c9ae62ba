//! `reconcile`'s input: a merchant's orders file or a bank's settlement file (CSV with a
//! header row, title lines above it skipped) read row by row (`quoting`), its columns found
//! by header name, each row turned into a job with its own expectations, or decided at once
//! (INVALID_ROW, DUPLICATE).

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use clap::ValueEnum;

mod columns;
mod footer;
mod header;
mod quoting;
mod reconciled;
mod row;
mod select;
mod sink;

use super::resume::Carried;
use super::seen::Seen;
use super::{Entry, Item, Sink, Source, Tally};
use crate::domain::checks::Expectations;
use crate::domain::currency::iso_code;
use crate::domain::job::Job;
use crate::domain::money::{AmountError, Kobo, has_naira_mark};
use crate::domain::reconcile::ReferenceLines;
use crate::domain::reconcile::{Decided, RESULT_NAMES, Row, RowResult};
use crate::domain::shop::ShopStatus;
use crate::exit::Failure;
use crate::files::ORDERS;
use crate::reference::Reference;
use crate::render::reconcile::ReconcileWriter;
use crate::terminal;
use columns::*;
pub(crate) use columns::{Given, Role};
use header::*;
use quoting::*;
pub(crate) use reconciled::Reconciled;
use row::parse_amount;
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
    /// Found for what finance reads and what a row is held to: one order on several rows,
    /// its status against the gateway's, a WooCommerce merchantRef against the order id.
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
    /// The file, past its header row.
    input: BufReader<Box<dyn Read + Send>>,
    records: Records,
    delimiter: u8,
    name: String,
    header: Arc<[String]>,
    columns: Columns,
    unit: AmountUnit,
    currency: Arc<str>,
    seen: Arc<Mutex<Seen<u64>>>,
    record: csv::ByteRecord,
    /// What the header left open to doubt (two columns that could be the same one).
    warnings: Vec<String>,
    /// `--only`: the rows the run is about.
    selection: Selection,
    /// How many rows `--only` kept (read by the command once the run is over).
    selected: Arc<AtomicU64>,
    /// The order the last rows belong to, while they are its line items.
    order_above: Option<row::OrderAbove>,
    /// The file starts with a UTF-8 byte-order mark.
    bom: bool,
    /// The sum of every row's amount so far, per currency: what a totals row is checked
    /// against.
    sums: std::collections::HashMap<String, i128>,
    /// What was read ahead of its turn (to tell whether a totals row was the last row).
    peeked: Option<Result<Option<(csv::ByteRecord, u64)>, Failure>>,
    /// The header row's line.
    header_line: u64,
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
        let (columns, warnings) = find_columns(&found.cells, options, &name, found.line)?;
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
            warnings,
            selection,
            selected: Arc::default(),
            order_above: None,
            bom,
            sums: Default::default(),
            peeked: None,
            header_line: found.line,
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

    /// Warnings about the header, for stderr.
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
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

impl Source<Reconciled> for Orders {
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
        if self.looks_like_totals() {
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
}

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
