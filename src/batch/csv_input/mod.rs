//! `reconcile`'s input: a merchant's orders file (CSV with a header row) read row by row
//! with the `csv` crate, its columns found by header name, each row turned into a job with
//! its own expectations, or decided at once (INVALID_ROW, DUPLICATE).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use clap::ValueEnum;

use super::resume::Carried;
use super::seen::Seen;
use super::{Entry, Item, Sink, Source, Tally};
use crate::domain::checks::Expectations;
use crate::domain::job::Job;
use crate::domain::money::{AmountError, Kobo, has_naira_mark};
use crate::domain::reconcile::{Decided, RESULT_NAMES, Row, RowResult};
use crate::domain::reference::Reference;
use crate::exit::Failure;
use crate::render::reconcile::{Judged, ReconcileWriter};
use crate::terminal;

/// How the amount column is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum AmountUnit {
    /// Naira, exact to the kobo: 40000, 40000.5, 40,000.00, ₦40,000.00.
    #[default]
    Naira,
    /// Kobo, whole numbers only: 4000000.
    Kobo,
}

/// Header names tried for each column, in order, when no flag names it.
const REFERENCE_NAMES: [&str; 6] = [
    "reference",
    "ref",
    "transaction ref",
    "transactionRef",
    "payment reference",
    "reference number",
];
const AMOUNT_NAMES: [&str; 5] = [
    "amount",
    "expected amount",
    "amount paid",
    "total",
    "order total",
];
const CURRENCY_NAMES: [&str; 2] = ["currency", "currency code"];
// Never an order id column: a shop's order id is usually only part of the gateway's
// merchantRef (`<order id>_<suffix>`), and a wrong guess would fail every row.
const MERCHANT_REF_NAMES: [&str; 1] = ["merchant ref"];

/// The longest header line read to detect the delimiter; a longer one is not a header.
const MAX_HEADER_LINE: u64 = 1 << 20;

/// What the command line says about the file.
#[derive(Debug, Clone, Default)]
pub(crate) struct CsvOptions {
    /// `,`, `;` or tab; detected from the header line when `None`.
    pub(crate) delimiter: Option<u8>,
    /// `--reference-column`.
    pub(crate) reference_column: Option<String>,
    /// `--amount-column`.
    pub(crate) amount_column: Option<String>,
    /// `--currency-column`.
    pub(crate) currency_column: Option<String>,
    /// `--merchant-ref-column`.
    pub(crate) merchant_ref_column: Option<String>,
    /// How amounts are written.
    pub(crate) unit: AmountUnit,
    /// The currency every row expects when there is no currency column (or its cell is
    /// empty).
    pub(crate) currency: String,
}

/// Where each column the rows are read by is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Columns {
    pub(crate) reference: usize,
    pub(crate) amount: usize,
    pub(crate) currency: Option<usize>,
    pub(crate) merchant_ref: Option<usize>,
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
    seen: Seen<u64>,
    record: csv::ByteRecord,
    /// What the reader in front of the csv crate saw: where records start, and whether the
    /// input ended inside a quoted field.
    track: Arc<Mutex<Track>>,
    /// What the header left open to doubt (two columns that could be the same one).
    warnings: Vec<String>,
    rows: usize,
    blank: usize,
    done: bool,
    /// Reading stopped at an error (the rows after it were never read).
    failed: bool,
}

impl Orders {
    /// Opens `path` (`-` is stdin), reads its header row and finds the columns; a missing
    /// or unreadable file, an empty one, a UTF-16 one or a missing or ambiguous required
    /// column is a usage error (exit 2) before any request.
    pub(crate) fn open(path: &Path, options: &CsvOptions) -> Result<Orders, Failure> {
        let (input, name): (Box<dyn Read + Send>, String) = if path.as_os_str() == "-" {
            (Box::new(io::stdin()), "stdin".into())
        } else {
            let name = path.display().to_string();
            let unreadable = |why: String| Failure::usage(format!("cannot read {name}: {why}"));
            let file = File::open(path).map_err(|e| unreadable(crate::io_util::io_reason(&e)))?;
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(unreadable("it is a directory".into()));
            }
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
        let mut first = Vec::new();
        (&mut input)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut first)
            .map_err(|e| {
                Failure::usage(format!(
                    "cannot read {name}: {}",
                    crate::io_util::io_reason(&e)
                ))
            })?;
        if first.starts_with(&[0xFF, 0xFE]) || first.starts_with(&[0xFE, 0xFF]) {
            return Err(Failure::usage(format!(
                "{name} is UTF-16 text; save it as CSV UTF-8 (or convert it with iconv -f UTF-16 -t UTF-8)"
            )));
        }
        // A UTF-8 byte-order mark (what Excel's "CSV UTF-8" writes) is not part of the first
        // header name.
        if first.starts_with(b"\xEF\xBB\xBF") {
            first.drain(..3);
        }
        if first.iter().all(u8::is_ascii_whitespace) {
            return Err(Failure::usage(format!(
                "{name} is empty: a header row naming the columns is expected, then one row \
                 per order"
            )));
        }
        let delimiter = options
            .delimiter
            .unwrap_or_else(|| detect_delimiter(&first));
        let track = Arc::new(Mutex::new(Track::default()));
        let joined: Box<dyn Read + Send> = Box::new(Newlines::new(
            Cursor::new(first).chain(input),
            delimiter,
            track.clone(),
        ));
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .has_headers(true)
            .from_reader(joined);
        let header: Arc<[String]> = reader
            .byte_headers()
            .map_err(|e| Failure::usage(format!("cannot read {name}: {e}")))?
            .iter()
            .map(|cell| String::from_utf8_lossy(cell).into_owned())
            .collect();
        if let Some(line) = next_record(&track).1 {
            return Err(unclosed_quote(&name, line));
        }
        let (columns, warnings) = find_columns(&header, options, &name)?;
        Ok(Orders {
            reader,
            delimiter,
            name,
            header,
            columns,
            unit: options.unit,
            currency: options.currency.as_str().into(),
            seen: Seen::default(),
            record: csv::ByteRecord::new(),
            track,
            warnings,
            rows: 0,
            blank: 0,
            done: false,
            failed: false,
        })
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
        let currency = self
            .columns
            .currency
            .map(|i| cell(i).trim())
            .filter(|c| !c.is_empty())
            .map_or_else(|| self.currency.to_string(), str::to_owned);
        let invalid = |row: Row, why: String, expected: Option<Kobo>| {
            Item::Decided(Decided {
                row,
                result: RowResult::InvalidRow,
                why,
                expected,
                currency: currency.clone(),
            })
        };
        if let Some(i) = not_utf8 {
            let why = format!("column {} is not UTF-8 text", i + 1);
            return invalid(row, why, amount.ok());
        }
        if fields != width {
            // The usual cause: `40,000.00` unquoted in a comma-separated file.
            let hint = match self.delimiter == b',' && fields > width {
                true => " (a value with a comma, such as 40,000.00, must be in double quotes)",
                false => "",
            };
            let why = format!("the row has {fields} fields; the header has {width}{hint}");
            return invalid(row, why, amount.ok());
        }
        let reference = match reference {
            Ok(r) => r,
            Err(e) => return invalid(row, e.to_string(), amount.ok()),
        };
        let amount = match amount {
            Ok(kobo) => kobo,
            // DUPLICATE comes before INVALID_ROW in the precedence.
            Err(why) => {
                return self
                    .maybe_duplicate(row, &reference, None, &currency)
                    .unwrap_or_else(|row| invalid(row, why, None));
            }
        };
        // `₦40,000` on a row that expects GHS contradicts itself: which does it mean?
        if !currency.eq_ignore_ascii_case("NGN") && has_naira_mark(cell(self.columns.amount)) {
            let why = format!(
                "amount {} is marked as naira, but the row's currency is {}",
                terminal::quoted(cell(self.columns.amount)),
                terminal::quoted(&currency)
            );
            // Like an unreadable amount, it does not claim the reference.
            return self
                .maybe_duplicate(row, &reference, None, &currency)
                .unwrap_or_else(|row| invalid(row, why, Some(amount)));
        }
        let merchant_ref = self
            .columns
            .merchant_ref
            .map(cell)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        match self.maybe_duplicate(row, &reference, Some(amount), &currency) {
            Ok(duplicate) => duplicate,
            Err(row) => Item::Job(Job {
                origin: format!("{} line {line}", self.name),
                reference,
                expect: Arc::new(Expectations {
                    amount: Some(amount),
                    currency: Some(currency),
                    merchant_ref,
                }),
                row: Some(Box::new(row)),
            }),
        }
    }

    /// A DUPLICATE when `reference` was verified on an earlier row; otherwise the row back,
    /// and the reference recorded as verified on this line when its amount was usable.
    fn maybe_duplicate(
        &mut self,
        row: Row,
        reference: &Reference,
        expected: Option<Kobo>,
        currency: &str,
    ) -> Result<Item<Decided>, Row> {
        let earlier = match expected {
            Some(_) => self.seen.first(reference.as_str(), row.line),
            None => self.seen.find(reference.as_str()),
        };
        match earlier {
            Some(first) => Ok(Item::Decided(Decided {
                row,
                result: RowResult::Duplicate,
                why: format!("reference {reference} is already on line {first}, verified there"),
                expected,
                currency: currency.to_owned(),
            })),
            None => Err(row),
        }
    }
}

/// The longest row (or header) read, in bytes: an orders row is far shorter, and a longer
/// one is almost always a quote left open (or not a CSV file at all). It bounds the memory a
/// row takes, as verify bounds a line.
const MAX_ROW: u64 = 1 << 20;

/// What [`Newlines`] tells [`Orders`], shared because the csv reader owns the reader.
#[derive(Debug, Default)]
struct Track {
    /// The line each record read ahead starts on, in order (the csv crate yields exactly
    /// one record per start).
    starts: VecDeque<u64>,
    /// The input ended inside a quoted field that opened on this line.
    unclosed: Option<u64>,
}

/// The line the next record starts on (`None` if unknown), and, when that record runs to
/// the end of an input that ended inside a quote, the line where the quote opened.
fn next_record(track: &Mutex<Track>) -> (Option<u64>, Option<u64>) {
    match track.lock() {
        Ok(mut track) => {
            let line = track.starts.pop_front();
            // No record can start inside a quoted field: the one that holds the unclosed
            // quote is the last one.
            let unclosed = track.unclosed.filter(|_| track.starts.is_empty());
            (line, unclosed)
        }
        Err(_) => (None, None),
    }
}

/// The input failure for a quote that is never closed.
fn unclosed_quote(name: &str, line: u64) -> Failure {
    Failure::usage(format!(
        "{name} line {line}: a quoted field opens there and is never closed, so the rest of \
         the file would be read as one cell; nothing from that line on was reconciled \
         (close the quote, or double a quote that is part of a value: \"\")"
    ))
}

/// Where the reader is in the CSV syntax, as the csv crate parses it (RFC 4180 quoting,
/// `""` inside quotes, `\r`, `\n` and `\r\n` all ending a record, empty lines skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// Between records (empty lines are skipped here).
    RecordStart,
    /// At the start of a field.
    FieldStart,
    /// In a field that did not start with a quote.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// Just after a quote inside a quoted field: the end of the quotes, or `""`.
    QuoteInQuoted,
}

/// The reader in front of the csv crate: it follows the CSV syntax byte by byte, so it
/// knows the line every record starts on (whatever the line ends: LF, CRLF or a bare CR),
/// refuses a row over [`MAX_ROW`] bytes before the csv crate holds it, and knows whether
/// the input ended inside a quote.
struct Newlines<R> {
    inner: R,
    delimiter: u8,
    state: Syntax,
    /// The current line (1-based).
    line: u64,
    /// The last byte was a CR: a line ends there unless an LF follows.
    after_cr: bool,
    /// Bytes of the current record so far, and the line it starts on.
    row_bytes: u64,
    row_line: u64,
    /// The line the current quoted field opened on.
    quote_line: u64,
    /// A row over the limit: every later read fails.
    failed: Option<String>,
    track: Arc<Mutex<Track>>,
}

impl<R> Newlines<R> {
    fn new(inner: R, delimiter: u8, track: Arc<Mutex<Track>>) -> Self {
        Newlines {
            inner,
            delimiter,
            state: Syntax::RecordStart,
            line: 1,
            after_cr: false,
            row_bytes: 0,
            row_line: 1,
            quote_line: 0,
            failed: None,
            track,
        }
    }

    /// Follows one byte; `Err` when it makes the row too long.
    fn step(&mut self, b: u8, starts: &mut VecDeque<u64>) -> Result<(), String> {
        if self.after_cr && b != b'\n' {
            self.line += 1;
        }
        self.after_cr = b == b'\r';
        let end = b == b'\r' || b == b'\n';
        if self.state == Syntax::RecordStart && !end {
            starts.push_back(self.line);
            self.row_line = self.line;
            self.row_bytes = 0;
            self.state = Syntax::FieldStart;
        }
        if self.state != Syntax::RecordStart {
            self.row_bytes += 1;
            if self.row_bytes > MAX_ROW {
                let hint = match self.state {
                    Syntax::Quoted => format!(
                        "; a quote opened on line {} is probably never closed",
                        self.quote_line
                    ),
                    _ => String::new(),
                };
                return Err(format!(
                    "the row starting on line {} is longer than 1 MiB, more than any orders \
                     row{hint}",
                    self.row_line
                ));
            }
        }
        let delimiter = self.delimiter;
        self.state = match self.state {
            Syntax::RecordStart => Syntax::RecordStart,
            Syntax::FieldStart if b == b'"' => {
                self.quote_line = self.line;
                Syntax::Quoted
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if b == delimiter => {
                Syntax::FieldStart
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if end => {
                Syntax::RecordStart
            }
            Syntax::FieldStart | Syntax::Unquoted => Syntax::Unquoted,
            Syntax::Quoted if b == b'"' => Syntax::QuoteInQuoted,
            Syntax::Quoted => Syntax::Quoted,
            Syntax::QuoteInQuoted if b == b'"' => Syntax::Quoted,
            Syntax::QuoteInQuoted => Syntax::Unquoted,
        };
        if b == b'\n' {
            self.line += 1;
        }
        Ok(())
    }
}

impl<R: Read> Read for Newlines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(why) = &self.failed {
            return Err(io::Error::other(why.clone()));
        }
        let n = self.inner.read(buf)?;
        let mut starts = VecDeque::new();
        let mut taken = n;
        for (i, &b) in buf[..n].iter().enumerate() {
            if let Err(why) = self.step(b, &mut starts) {
                // The bytes before it go through, so the rows before it are read; the
                // next read fails.
                self.failed = Some(why);
                taken = i;
                break;
            }
        }
        if let Ok(mut track) = self.track.lock() {
            track.starts.append(&mut starts);
            if n == 0 && self.state == Syntax::Quoted {
                track.unclosed = Some(self.quote_line);
            }
        }
        match (taken, &self.failed) {
            (0, Some(why)) => Err(io::Error::other(why.clone())),
            _ => Ok(taken),
        }
    }
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
        let judged = judge(entry);
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
            _ => ReconcileWriter::write(self, &judge(entry)),
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

    /// Unlike verify, a reconciliation that stops before every row is decided is never a
    /// success: rows it never reached could be anything. Exit 10 (the output could not be
    /// written), and the summary says it is incomplete.
    fn stopped_early(&mut self) -> crate::exit::Exit {
        self.mark_incomplete();
        crate::exit::Exit::Internal
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
                        (self.done, self.failed) = (true, true);
                        return Some(Err(unclosed_quote(&self.name, at)));
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
                    (self.done, self.failed) = (true, true);
                    return Some(Err(Failure::usage(format!(
                        "cannot read {}: {e}",
                        self.name
                    ))));
                }
            }
        }
        None
    }
}

/// The delimiter the header line uses most, outside quotes: `,`, `;` or tab (`,` on a tie
/// or when there is none).
fn detect_delimiter(line: &[u8]) -> u8 {
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(slot) = counts.iter_mut().find(|(d, _)| *d == b) {
            slot.1 += 1;
        }
    }
    let mut best = counts[0];
    for candidate in &counts[1..] {
        if candidate.1 > best.1 {
            best = *candidate;
        }
    }
    best.0
}

/// A header name as matched: lower case, without spaces, `_` and `-`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-' && *c != '\u{feff}')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The columns the rows are read by, or a usage error that lists the header and the flag.
fn find_columns(
    header: &[String],
    options: &CsvOptions,
    name: &str,
) -> Result<(Columns, Vec<String>), Failure> {
    let warnings = std::cell::RefCell::new(Vec::new());
    let listed = || {
        header
            .iter()
            .map(|h| terminal::quoted(h))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let find = |what: &str, flag: &str, given: &Option<String>, names: &[&str], required: bool| {
        let matching = |wanted: &str| -> Vec<usize> {
            let wanted = normalized(wanted);
            (0..header.len())
                .filter(|&i| normalized(&header[i]) == wanted)
                .collect()
        };
        let found = match given {
            // Exact spelling first, so two headers that differ only in case or spacing can
            // still be told apart.
            Some(g) => match header.iter().filter(|h| *h == g).count() {
                1 => header.iter().position(|h| h == g).into_iter().collect(),
                _ => matching(g),
            },
            None => names
                .iter()
                .map(|n| matching(n))
                .find(|m| !m.is_empty())
                .unwrap_or_default(),
        };
        match found.as_slice() {
            [one] => {
                // Another candidate name matching another column: the choice follows the
                // documented order, but one of the two may contradict the result.
                let others: Vec<usize> = match given {
                    Some(_) => Vec::new(),
                    None => (0..header.len())
                        .filter(|&i| {
                            i != *one
                                && names
                                    .iter()
                                    .any(|n| normalized(&header[i]) == normalized(n))
                        })
                        .collect(),
                };
                if !others.is_empty() {
                    warnings.borrow_mut().push(format!(
                        "{name}: columns {} and {} could both be the {what} column; column {} ({}) is used (choose with {flag} NAME)",
                        one + 1,
                        others
                            .iter()
                            .map(|i| format!("{} ({})", i + 1, terminal::quoted(&header[*i])))
                            .collect::<Vec<_>>()
                            .join(", "),
                        one + 1,
                        terminal::quoted(&header[*one]),
                    ));
                }
                Ok(Some(*one))
            }
            [] if !required && given.is_none() => Ok(None),
            [] => {
                let tried = match given {
                    Some(g) => format!("no column is named {}", terminal::quoted(g)),
                    None => format!(
                        "no {what} column (looked for {})",
                        names
                            .iter()
                            .map(|n| format!("'{n}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                Err(Failure::usage(format!(
                    "{name}: {tried}; its header row has {}; name the {what} column with {flag} NAME",
                    listed()
                )))
            }
            many => Err(Failure::usage(format!(
                "{name}: the {what} column is ambiguous: columns {} match; its header row has {}; \
                 name the one to use with {flag} NAME",
                many.iter()
                    .map(|i| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                listed()
            ))),
        }
    };
    let reference = find(
        "reference",
        "--reference-column",
        &options.reference_column,
        &REFERENCE_NAMES,
        true,
    )?;
    let amount = find(
        "amount",
        "--amount-column",
        &options.amount_column,
        &AMOUNT_NAMES,
        true,
    )?;
    let currency = find(
        "currency",
        "--currency-column",
        &options.currency_column,
        &CURRENCY_NAMES,
        false,
    )?;
    let merchant_ref = find(
        "merchant ref",
        "--merchant-ref-column",
        &options.merchant_ref_column,
        &MERCHANT_REF_NAMES,
        false,
    )?;
    match (reference, amount) {
        (Some(reference), Some(amount)) => Ok((
            Columns {
                reference,
                amount,
                currency,
                merchant_ref,
            },
            warnings.into_inner(),
        )),
        // Both are required, so `find` returned an error rather than `None`.
        _ => Err(Failure::usage(format!(
            "{name}: no reference or amount column"
        ))),
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
mod tests {
    use super::*;

    fn options() -> CsvOptions {
        CsvOptions {
            currency: "NGN".into(),
            ..CsvOptions::default()
        }
    }

    type Order = Item<Decided>;

    fn read(text: &[u8], options: &CsvOptions) -> Result<(Orders, Vec<Order>), Failure> {
        let mut orders = Orders::from_reader(
            Box::new(Cursor::new(text.to_vec())),
            "f.csv".into(),
            options,
        )?;
        let all: Vec<Order> = orders.by_ref().map(|o| o.unwrap()).collect();
        Ok((orders, all))
    }

    fn summary(order: &Order) -> String {
        match order {
            Item::Job(job) => format!(
                "{} {} {:?} {:?} line {}",
                job.reference,
                job.expect.amount.unwrap().0,
                job.expect.currency.as_deref().unwrap_or(""),
                job.expect.merchant_ref.as_deref().unwrap_or(""),
                job.row.as_ref().unwrap().line
            ),
            Item::Decided(d) => format!("{} line {}: {}", d.result.name(), d.row.line, d.why),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn delimiters_are_detected_outside_quotes() {
        assert_eq!(detect_delimiter(b"reference,amount\n"), b',');
        assert_eq!(detect_delimiter(b"reference;amount;currency\r\n"), b';');
        assert_eq!(detect_delimiter(b"reference\tamount\n"), b'\t');
        assert_eq!(detect_delimiter(b"\"a,b,c\";amount\n"), b';');
        assert_eq!(detect_delimiter(b"reference\n"), b',');
    }

    #[test]
    fn header_names_match_ignoring_case_spaces_underscores_and_dashes() {
        for header in [
            "Transaction Ref,Order Total",
            "transaction_ref,ORDER-TOTAL",
            "TransactionRef, order total ",
            "\u{feff}Reference Number,Amount Paid",
        ] {
            let (_, rows) = read(format!("{header}\nR-1,5\n").as_bytes(), &options()).unwrap();
            assert_eq!(summary(&rows[0]), "R-1 500 \"NGN\" \"\" line 2", "{header}");
        }
    }

    #[test]
    fn the_first_candidate_wins_and_flags_override() {
        // `reference` comes before `ref` in the list of names.
        let (_, rows) = read(b"ref,reference,amount\nA,B,1\n", &options()).unwrap();
        assert!(summary(&rows[0]).starts_with("B 100"));
        let chosen = CsvOptions {
            reference_column: Some("REF".into()),
            amount_column: Some("Paid".into()),
            ..options()
        };
        let (_, rows) = read(b"ref,reference,amount,paid\nA,B,1,2\n", &chosen).unwrap();
        assert!(summary(&rows[0]).starts_with("A 200"));
    }

    #[test]
    fn missing_or_ambiguous_columns_list_the_header_and_the_flag() {
        let e = read(b"order,total\n1,2\n", &options()).err().unwrap();
        assert_eq!(e.exit, crate::exit::Exit::Usage);
        assert!(e.message.contains("no reference column"), "{}", e.message);
        assert!(e.message.contains("\"order\", \"total\""), "{}", e.message);
        assert!(
            e.message.contains("--reference-column NAME"),
            "{}",
            e.message
        );
        let e = read(b"Reference,reference,amount\n", &options())
            .err()
            .unwrap();
        assert!(
            e.message.contains("ambiguous: columns 1 and 2"),
            "{}",
            e.message
        );
        let exact = CsvOptions {
            reference_column: Some("reference".into()),
            ..options()
        };
        assert!(read(b"Reference,reference,amount\n", &exact).is_ok());
        let e = read(
            b"reference,amount\n",
            &CsvOptions {
                amount_column: Some("paid".into()),
                ..options()
            },
        )
        .err()
        .unwrap();
        assert!(
            e.message.contains("no column is named \"paid\""),
            "{}",
            e.message
        );
        // An order id is never taken for the merchant ref.
        let (_, rows) = read(b"reference,amount,order id\nR,1,77\n", &options()).unwrap();
        assert_eq!(summary(&rows[0]), "R 100 \"NGN\" \"\" line 2");
    }

    #[test]
    fn empty_and_utf16_files_are_refused() {
        for empty in [&b""[..], b"\n", b"\xEF\xBB\xBF", b"  \r\n"] {
            let e = read(empty, &options()).err().unwrap();
            assert!(e.message.contains("f.csv is empty"), "{}", e.message);
        }
        let e = read(b"\xFF\xFEr\0e\0", &options()).err().unwrap();
        assert!(e.message.contains("UTF-16"), "{}", e.message);
    }

    #[test]
    fn rows_become_jobs_or_decisions() {
        let text = "\u{feff}Reference;Amount;Currency;Merchant Ref\r\n\
                    R-1;\"40.000,00\";NGN;M-1\r\n\
                    R-2;₦40,000.50;;M-2\r\n\
                    ;5;NGN;\r\n\
                    R-2;1;usd;\r\n\
                    R-3;12.345;;\r\n\
                    R-3;7;;\r\n\
                    ;;;\r\n\
                    R-4;1\r\n\
                    R-5;2;;;;\r\n";
        let (orders, rows) = read(text.as_bytes(), &options()).unwrap();
        let got: Vec<String> = rows.iter().map(summary).collect();
        assert_eq!(
            got,
            [
                "INVALID_ROW line 2: amount \"40.000,00\" is not a naira amount (e.g. 40000, 40000.5, 40,000.00, ₦40,000.00)",
                "R-2 4000050 \"NGN\" \"M-2\" line 3",
                "INVALID_ROW line 4: the reference is empty",
                "DUPLICATE line 5: reference R-2 is already on line 3, verified there",
                "INVALID_ROW line 6: amount \"12.345\" has more than two decimals (kobo is the smallest unit; nothing is rounded)",
                "R-3 700 \"NGN\" \"\" line 7",
                "INVALID_ROW line 9: the row has 2 fields; the header has 4",
                "R-5 200 \"NGN\" \"\" line 10",
            ]
        );
        assert_eq!((orders.rows, orders.blank), (8, 1));
        assert_eq!(
            &*orders.header(),
            ["Reference", "Amount", "Currency", "Merchant Ref"]
        );
    }

    #[test]
    fn quoted_fields_keep_commas_and_newlines() {
        let text = "reference,amount,note\n\"R-1\",\"40,000.00\",\"a, b\"\n\"R,2\",1,\"two\nlines\"\nR-3,2,x\n";
        let (_, rows) = read(text.as_bytes(), &options()).unwrap();
        assert_eq!(summary(&rows[0]), "R-1 4000000 \"NGN\" \"\" line 2");
        assert_eq!(summary(&rows[1]), "R,2 100 \"NGN\" \"\" line 3");
        // The line a row starts on, after a quoted newline.
        assert_eq!(summary(&rows[2]), "R-3 200 \"NGN\" \"\" line 5");
        match &rows[1] {
            Item::Job(job) => assert_eq!(job.row.as_ref().unwrap().cells[2], "two\nlines"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn line_numbers_hold_with_crlf_blank_lines_and_quoted_newlines() {
        for eol in ["\n", "\r\n"] {
            let text = [
                "reference,amount",
                "A,1",
                "",
                "\"B\",\"2",
                "\"",
                "",
                "",
                "C,3",
            ]
            .join(eol);
            let (_, rows) = read(text.as_bytes(), &options()).unwrap();
            let lines: Vec<u64> = rows
                .iter()
                .map(|o| match o {
                    Item::Job(job) => job.row.as_ref().unwrap().line,
                    Item::Decided(d) => d.row.line,
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(lines, [2, 4, 8], "{eol:?}");
        }
    }

    #[test]
    fn kobo_amounts_are_integers_only() {
        let kobo = CsvOptions {
            unit: AmountUnit::Kobo,
            ..options()
        };
        let (_, rows) = read(b"reference,amount\nA,4000000\nB,40000.5\nC,-1\n", &kobo).unwrap();
        let got: Vec<String> = rows.iter().map(summary).collect();
        assert_eq!(got[0], "A 4000000 \"NGN\" \"\" line 2");
        assert!(got[1].contains("not a whole number of kobo"), "{}", got[1]);
        assert!(got[2].contains("not a whole number of kobo"), "{}", got[2]);
    }

    #[test]
    fn a_bad_amount_does_not_claim_the_reference() {
        // The first usable row of a reference is the one verified.
        let (_, rows) = read(b"reference,amount\nA,x\nA,1\nA,2\n", &options()).unwrap();
        let got: Vec<String> = rows.iter().map(summary).collect();
        assert!(got[0].starts_with("INVALID_ROW line 2"), "{}", got[0]);
        assert_eq!(got[1], "A 100 \"NGN\" \"\" line 3");
        assert!(got[2].starts_with("DUPLICATE line 4: reference A is already on line 3"));
    }

    #[test]
    fn an_unquoted_thousands_comma_is_explained() {
        let (_, rows) = read(b"reference,amount\nA,40,000.00\n", &options()).unwrap();
        assert_eq!(
            summary(&rows[0]),
            "INVALID_ROW line 2: the row has 3 fields; the header has 2 (a value with a \
             comma, such as 40,000.00, must be in double quotes)"
        );
        let (_, rows) = read(b"reference;amount\nA;40;1\n", &options()).unwrap();
        assert_eq!(
            summary(&rows[0]),
            "INVALID_ROW line 2: the row has 3 fields; the header has 2"
        );
    }

    #[test]
    fn invalid_utf8_cells_are_invalid_rows() {
        let (_, rows) = read(b"reference,amount\nA\xff,1\n", &options()).unwrap();
        assert_eq!(
            summary(&rows[0]),
            "INVALID_ROW line 2: column 1 is not UTF-8 text"
        );
    }
}
