//! The rows' CSV syntax, followed byte by byte: the cells of each record (RFC 4180, as the
//! csv crate reads them), exact line numbers (LF, CRLF, bare CR), a cap on a row's size, an
//! input that ends inside a quote, and a quoted field that swallows order rows (a stray
//! quote that a later quote "closes").

use super::*;
use crate::exit::Failure;

/// The longest row (or header) read, in bytes: an orders row is far shorter, and a longer
/// one is almost always a quote left open (or not a CSV file at all). It bounds the memory a
/// row takes, as verify bounds a line.
pub(super) const MAX_ROW: u64 = 1 << 20;

/// The input failure for a quote that is never closed.
pub(super) fn unclosed_quote(name: &str, line: u64) -> Failure {
    Failure::usage(format!(
        "{name} line {line}: a quoted field opens there and is never closed, so the rest of \
         the file would be read as one cell; nothing from that line on was reconciled \
         (close the quote, or double a quote that is part of a value: \"\")"
    ))
}

/// Where the reader is in the CSV syntax, as the csv crate parses it (RFC 4180 quoting,
/// `""` inside quotes, `\r`, `\n` and `\r\n` all ending a record, empty lines skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Syntax {
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

/// How a line inside a quoted cell is judged: read on its own, would it be an order row
/// (a reference where the reference column is, and an amount where the amount column is)?
/// Then the quote that made it part of a cell may be a stray one, and the order would never
/// be verified. A note or an address over several lines is none: it would need as many
/// separators before a valid amount as the file has columns before its amount column.
#[derive(Debug, Clone)]
pub(super) struct RowTest {
    pub(super) delimiter: u8,
    pub(super) reference: usize,
    pub(super) amount: usize,
    pub(super) unit: AmountUnit,
    /// The two columns' header names, for the message.
    pub(super) names: (String, String),
}

impl RowTest {
    /// Whether `line` (without its line end), read as a row, has a usable reference and a
    /// valid amount in their columns.
    pub(super) fn reads_as_order(&self, line: &[u8]) -> bool {
        let Some(record) = one_record(line, self.delimiter) else {
            return false;
        };
        let cell = |i: usize| record.get(i).map(String::from_utf8_lossy);
        match (cell(self.reference), cell(self.amount)) {
            (Some(reference), Some(amount)) => {
                Reference::from_line(&reference).is_ok() && parse_amount(&amount, self.unit).is_ok()
            }
            _ => false,
        }
    }
}

/// The first record of `bytes` as the csv crate reads it with `delimiter`, if there is one.
pub(super) fn one_record(bytes: &[u8], delimiter: u8) -> Option<csv::ByteRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(bytes.len().max(64))
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    matches!(reader.read_byte_record(&mut record), Ok(true)).then_some(record)
}

/// The reader of the rows: it follows the CSV syntax byte by byte, so it knows the line
/// every record starts on (whatever the line ends: LF, CRLF or a bare CR), refuses a row over
/// [`MAX_ROW`] bytes before holding more of it, knows whether the input ended inside a quote,
/// and refuses a record with a line inside a quoted cell that reads as an order row. The
/// csv crate cannot do these (its line count is of LFs, taken before the blank lines it
/// skips; it takes `"a"x` for `ax` and an unclosed quote for a cell), so this reader splits
/// the cells too, rather than keeping a second parser in step with it.
pub(super) struct Records {
    /// How messages call the file.
    name: String,
    state: Syntax,
    /// The current line (1-based).
    line: u64,
    /// The last byte was a CR: a line ends there unless an LF follows.
    after_cr: bool,
    /// Bytes of the current record so far, and the line it starts on.
    row_bytes: u64,
    row_line: u64,
    /// The current record's cells so far, and the cell being read.
    cells: csv::ByteRecord,
    cell: Vec<u8>,
    /// The line the current quoted field opened on.
    quote_line: u64,
    /// The line of the current quoted field's last quote (where it closes, if it does).
    quote_end: u64,
    /// The lines that started inside the current quoted field (only a quoted field holds
    /// a line end): each one's number and where it starts in `cell`; none for a record on
    /// one line, which is nearly every record.
    inside: Vec<(u64, usize)>,
    /// The current record's lines that read as order rows, and where the quoted field that
    /// holds the first of them opened and closed.
    hidden: Vec<u64>,
    hidden_span: Option<(u64, u64)>,
    test: RowTest,
}

impl Records {
    /// A reader of the rows of the file `name`, whose first byte is on line `line`.
    pub(super) fn new(name: &str, line: u64, test: RowTest) -> Self {
        Records {
            name: name.to_owned(),
            state: Syntax::RecordStart,
            line,
            after_cr: false,
            row_bytes: 0,
            row_line: line,
            cells: csv::ByteRecord::new(),
            cell: Vec::new(),
            quote_line: 0,
            quote_end: 0,
            inside: Vec::new(),
            hidden: Vec::new(),
            hidden_span: None,
            test,
        }
    }

    /// The next record of `input` and the line it starts on; `None` at the end of the
    /// input. An `Err` ends the reading: the records before it have all been given.
    pub(super) fn next(
        &mut self,
        input: &mut dyn BufRead,
    ) -> Result<Option<(csv::ByteRecord, u64)>, Failure> {
        loop {
            let buf = input.fill_buf().map_err(|e| {
                let from = match self.state {
                    Syntax::RecordStart => self.line,
                    _ => self.row_line,
                };
                let stopped = format!("nothing from its line {from} on was reconciled");
                crate::files::changed(&self.name, &e, &stopped)
                    .unwrap_or_else(|| Failure::usage(format!("cannot read {}: {e}", self.name)))
            })?;
            let mut ended = match buf.is_empty() {
                true => return Ok(self.input_ends()?.then(|| self.take())),
                false => false,
            };
            let mut used = 0;
            while !ended && used < buf.len() {
                ended = self.step(buf[used])?;
                used += 1;
            }
            input.consume(used);
            if ended {
                return Ok(Some(self.take()));
            }
        }
    }

    /// The record just ended, with its line.
    fn take(&mut self) -> (csv::ByteRecord, u64) {
        (std::mem::take(&mut self.cells), self.row_line)
    }

    /// The cell being read ends.
    fn cell_ends(&mut self) {
        self.cells.push_field(&self.cell);
        self.cell.clear();
    }

    /// A new line starts here; inside a quoted field it is one to judge.
    fn line_starts(&mut self) {
        if self.state == Syntax::Quoted {
            self.inside.push((self.line, self.cell.len()));
        }
    }

    /// Follows one byte: whether it ends a record; `Err` when it makes the row too long,
    /// or ends (or breaks) a record that hides order rows.
    fn step(&mut self, b: u8) -> Result<bool, Failure> {
        if self.after_cr && b != b'\n' {
            self.line += 1;
            self.line_starts();
        }
        self.after_cr = b == b'\r';
        let end = b == b'\r' || b == b'\n';
        if self.state == Syntax::RecordStart && !end {
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
                return Err(Failure::usage(format!(
                    "cannot read {}: the row starting on line {} is longer than 1 MiB, more \
                     than any orders row{hint}",
                    self.name, self.row_line
                )));
            }
        }
        let delimiter = self.test.delimiter;
        let mut ended = false;
        if matches!(self.state, Syntax::QuoteInQuoted) && (b == delimiter || end) {
            self.quoted_field_closes();
        }
        self.state = match self.state {
            Syntax::RecordStart => Syntax::RecordStart,
            Syntax::FieldStart if b == b'"' => {
                self.quote_line = self.line;
                Syntax::Quoted
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if b == delimiter => {
                self.cell_ends();
                Syntax::FieldStart
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if end => {
                self.cell_ends();
                self.record_ends()?;
                ended = true;
                Syntax::RecordStart
            }
            Syntax::FieldStart | Syntax::Unquoted => {
                self.cell.push(b);
                Syntax::Unquoted
            }
            Syntax::Quoted if b == b'"' => {
                self.quote_end = self.line;
                Syntax::QuoteInQuoted
            }
            Syntax::QuoteInQuoted if b != b'"' => {
                // Order rows hidden say more than the stray text that follows them.
                self.quoted_field_closes();
                self.record_ends()?;
                return Err(self.refuse(self.text_after_quote()));
            }
            Syntax::Quoted | Syntax::QuoteInQuoted => {
                // Inside quotes every byte is the cell's, and `""` is one quote.
                self.cell.push(b);
                Syntax::Quoted
            }
        };
        if b == b'\n' {
            self.line += 1;
            self.line_starts();
        }
        Ok(ended)
    }

    /// The input has ended: whether a record still open ends here. One inside a quoted
    /// field is never a row: its last cell would hold the rest of the file.
    fn input_ends(&mut self) -> Result<bool, Failure> {
        match self.state {
            Syntax::RecordStart => return Ok(false),
            Syntax::Quoted => return Err(unclosed_quote(&self.name, self.quote_line)),
            Syntax::QuoteInQuoted => self.quoted_field_closes(),
            Syntax::FieldStart | Syntax::Unquoted => {}
        }
        self.state = Syntax::RecordStart;
        self.cell_ends();
        self.record_ends()?;
        Ok(true)
    }

    /// A quoted field has just closed: each line that started inside it is judged, as
    /// written (a quote in the cell was `""`), up to the next such line or the closing quote.
    fn quoted_field_closes(&mut self) {
        let inside = std::mem::take(&mut self.inside);
        for (i, &(line, start)) in inside.iter().enumerate() {
            let end = inside.get(i + 1).map_or(self.cell.len(), |&(_, next)| next);
            let mut text = &self.cell[start..end];
            while let [rest @ .., b'\r' | b'\n'] = text {
                text = rest;
            }
            let written = text
                .split(|&b| b == b'"')
                .collect::<Vec<_>>()
                .join(&b"\"\""[..]);
            if self.test.reads_as_order(&written) {
                self.hidden_span
                    .get_or_insert((self.quote_line, self.quote_end));
                self.hidden.push(line);
            }
        }
    }

    /// The current record ends (or is refused): refused when a line of it inside a quoted
    /// field reads as an order row.
    fn record_ends(&self) -> Result<(), Failure> {
        let (Some((open, close)), hidden) = (self.hidden_span, &self.hidden) else {
            return Ok(());
        };
        let (reference, amount) = &self.test.names;
        let (they, read) = match hidden.len() {
            1 => ("that order", "reads as an order row"),
            _ => ("those orders", "read as order rows"),
        };
        Err(self.refuse(format!(
            "line {open}: a quoted field opens there and closes on line {close}; {} inside \
             it {read} (a reference in the {} column's place and an amount in the {} \
             column's). Usually a stray quote (one never closed) that a later quote seems to \
             close, so {they} would never be verified; nothing from line {} on was reconciled \
             (remove the stray quote, or double a quote that is part of a value: \"\")",
            named_lines(hidden),
            terminal::quoted(reference),
            terminal::quoted(amount),
            self.row_line
        )))
    }

    /// The refusal of text right after a field's closing quote (`"gift wrap"x`), which RFC
    /// 4180 does not allow and which usually means the quotes pair up wrongly.
    fn text_after_quote(&self) -> String {
        let (open, close) = (self.quote_line, self.quote_end);
        let opened = match open == close {
            true => String::new(),
            false => format!(
                "; the field opened on line {open}, so a stray quote there may have made \
                 lines {open} to {close} one cell"
            ),
        };
        format!(
            "line {close}: text follows the closing quote of a quoted field (only a separator \
             or the end of the line may){opened}; nothing from line {} on was reconciled \
             (quote the whole cell, and double a quote that is part of a value: \"\")",
            self.row_line
        )
    }

    /// The refusal that stops the reading at a quoted field.
    fn refuse(&self, why: String) -> Failure {
        Failure::usage(format!("{} {why}", self.name))
    }
}

/// `line 4`, `lines 4 and 5`, `lines 4, 5, 6, 7, 8 and 3 more`.
fn named_lines(lines: &[u64]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = lines.iter().take(SHOWN).map(u64::to_string).collect();
    match lines.len() {
        1 => format!("line {}", shown[0]),
        n if n <= SHOWN => format!("lines {}", and_list(&shown)),
        n => format!("lines {} and {} more", shown.join(", "), n - SHOWN),
    }
}
