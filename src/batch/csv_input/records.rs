//! The file's CSV text: the header row found line by line (past the title lines a bank's
//! settlement report puts above it, or on the line `--header-row` names, so nothing above it
//! is ever a row), then the rows' records, split by the csv crate's parser (csv-core, field by
//! field). Each field's bytes as written give what the parser does not say: the line every
//! record starts on (LF, CRLF or a bare CR), a cap on a row's size, an input that ends inside
//! a quote, text after a closing quote, and a quoted field that swallows order rows (a stray
//! quote that a later quote "closes").

use super::*;

/// The longest row (or header line) read, in bytes: an orders row is far shorter, and a
/// longer one is almost always a quote left open (or not a CSV file at all). It bounds the
/// memory a row takes, as verify bounds a line.
const MAX_ROW: u64 = 1 << 20;

/// Most lines looked at for the header row when `--header-row` does not say.
const HEADER_SCAN_LINES: u64 = 50;

/// The most non-empty cells a title line above the header has (`Merchant:,Adire Home
/// Stores`); a wider line that names no reference and amount column is taken for a header
/// with missing columns, and the search stops there.
const TITLE_CELLS: usize = 3;

/// The header row found.
#[derive(Debug)]
pub(super) struct HeaderRow {
    /// Its line (1-based); the rows start on the next.
    pub(super) line: u64,
    pub(super) cells: Vec<String>,
    pub(super) delimiter: u8,
}

/// One line read before the rows.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// Its bytes, without the line end.
    Text(Vec<u8>),
    /// The input has ended.
    End,
    /// Longer than [`MAX_ROW`].
    TooLong,
}

/// Reads one line, ending at LF, CRLF or a bare CR (the end is consumed, not kept).
fn read_line(input: &mut dyn BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut any = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(match any {
                true => Line::Text(line),
                false => Line::End,
            });
        }
        any = true;
        let end = buf.iter().position(|&b| b == b'\n' || b == b'\r');
        let take = end.unwrap_or(buf.len());
        if (line.len() + take) as u64 > MAX_ROW {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&buf[..take]);
        match end {
            None => {
                let n = buf.len();
                input.consume(n);
            }
            Some(i) => {
                let cr = buf[i] == b'\r';
                input.consume(i + 1);
                // CRLF is one line end; the LF may be in the next buffer.
                if cr && input.fill_buf()?.first() == Some(&b'\n') {
                    input.consume(1);
                }
                return Ok(Line::Text(line));
            }
        }
    }
}

/// The cells of one line as the csv crate reads them with `delimiter`, and whether the line
/// ends inside a quoted field: read with a line end after it, only such a field (RFC 4180: it
/// runs to the quote that is not doubled) keeps that line end in its cell.
fn cells(line: &[u8], delimiter: u8) -> (Vec<String>, bool) {
    let record = one_record(&[line, b"\n"].concat(), delimiter).unwrap_or_default();
    let open = record
        .iter()
        .next_back()
        .is_some_and(|c| c.ends_with(b"\n"));
    let cells = record
        .iter()
        .map(|c| String::from_utf8_lossy(c).into_owned());
    (cells.collect(), open)
}

/// Finds the header row in `input`, consuming every line up to and including it: the line
/// `--header-row` names, or else the first of the first [`HEADER_SCAN_LINES`] lines whose
/// names give a reference and an amount column, blank lines and title lines (at most
/// [`TITLE_CELLS`] non-empty cells) before it skipped. When none does, the line that came
/// closest (for the error that lists what is missing). A UTF-8 byte-order mark is dropped;
/// an empty or UTF-16 file is refused.
pub(super) fn find_header(
    input: &mut dyn BufRead,
    name: &str,
    options: &CsvOptions,
) -> Result<HeaderRow, Failure> {
    let start = input.fill_buf().map_err(|e| unreadable(name, &e))?;
    if start.starts_with(&[0xFF, 0xFE]) || start.starts_with(&[0xFE, 0xFF]) {
        return Err(Failure::usage(format!(
            "{name} is UTF-16 text; save it as CSV UTF-8 (or convert it with iconv -f UTF-16 -t UTF-8)"
        )));
    }
    // A UTF-8 byte-order mark (what Excel's "CSV UTF-8" writes) is not part of the first
    // header name.
    if start.starts_with(b"\xEF\xBB\xBF") {
        input.consume(3);
    }
    let mut best: Option<(usize, HeaderRow)> = None;
    let mut number = 0u64;
    let last = options.header_row.unwrap_or(HEADER_SCAN_LINES);
    while number < last {
        let line = match read_line(input) {
            Ok(Line::Text(line)) => line,
            Ok(Line::End) => break,
            Ok(Line::TooLong) => {
                return Err(Failure::usage(format!(
                    "{name} line {}: longer than 1 MiB before the header row was found; not \
                     an orders file's header (is this a CSV file?)",
                    number + 1
                )));
            }
            Err(e) => return Err(unreadable(name, &e)),
        };
        number += 1;
        if options.header_row.is_some_and(|n| n != number) {
            continue;
        }
        let delimiter = options.delimiter.unwrap_or_else(|| detect_delimiter(&line));
        let (cells, open) = cells(&line, delimiter);
        let row = HeaderRow {
            line: number,
            cells,
            delimiter,
        };
        let filled = row.cells.iter().filter(|c| !c.trim().is_empty()).count();
        match (filled, options.header_row) {
            (0, None) => continue,
            (0, Some(n)) => {
                return Err(Failure::usage(format!(
                    "{name} line {n} is blank; --header-row names the line that holds the \
                     column names"
                )));
            }
            _ => {}
        }
        if open {
            return Err(Failure::usage(format!(
                "{name} line {number}: a quoted field opens in the header row and is never \
                 closed on its line, so the rest of the file would be read as one header \
                 cell (close the quote, or double a quote that is part of a name: \"\")"
            )));
        }
        let present = required_columns_in(&row.cells, options);
        if options.header_row.is_some() || present == 2 {
            return Ok(row);
        }
        let wide = filled > TITLE_CELLS;
        if best.as_ref().is_none_or(|(n, _)| present > *n) {
            best = Some((present, row));
        }
        // A line this wide is the header row (with columns missing) or already an order:
        // nothing below it is a header.
        if wide {
            break;
        }
    }
    match (best, options.header_row) {
        (Some((_, row)), _) => Ok(row),
        (None, Some(n)) => Err(Failure::usage(format!(
            "{name} has {number} lines; --header-row {n} is past its end"
        ))),
        (None, None) => Err(Failure::usage(format!(
            "{name} is empty: a header row naming the columns is expected, then one row \
             per order"
        ))),
    }
}

fn unreadable(name: &str, e: &io::Error) -> Failure {
    let stopped = "no row of it was reconciled";
    crate::files::changed(name, e, stopped).unwrap_or_else(|| {
        Failure::usage(format!(
            "cannot read {name}: {}",
            crate::io_util::io_reason(e)
        ))
    })
}

/// The delimiter the header line uses most, outside quotes: `,`, `;` or tab (`,` on a tie
/// or when there is none).
pub(super) fn detect_delimiter(line: &[u8]) -> u8 {
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(slot) = counts.iter_mut().find(|(d, _)| *d == b) {
            slot.1 += 1;
        }
    }
    // The last of the most counted, read backwards: the first in this order.
    counts
        .iter()
        .rev()
        .max_by_key(|c| c.1)
        .map_or(b',', |c| c.0)
}

/// The input failure for a quote that is never closed.
fn unclosed_quote(name: &str, line: u64) -> Failure {
    Failure::usage(format!(
        "{name} line {line}: a quoted field opens there and is never closed, so the rest of \
         the file would be read as one cell; nothing from that line on was reconciled \
         (close the quote, or double a quote that is part of a value: \"\")"
    ))
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
    fn reads_as_order(&self, line: &[u8]) -> bool {
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
fn one_record(bytes: &[u8], delimiter: u8) -> Option<csv::ByteRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(bytes.len().max(64))
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    matches!(reader.read_byte_record(&mut record), Ok(true)).then_some(record)
}

/// A field that starts with a quote, read again as written: where its quotes open and
/// close, and the lines that start inside them.
struct Quoted {
    /// The opening quote's line.
    opened: u64,
    /// The closing quote: where it is in the field's bytes, and its line; `None` while the
    /// quotes are open.
    closed: Option<(usize, u64)>,
    /// Each line that starts inside the quotes: its number and where it starts.
    inside: Vec<(u64, usize)>,
}

impl Quoted {
    /// `field` (as written, from its first byte, on line `line`) when it starts with a quote.
    /// RFC 4180 as the csv crate reads it: `""` inside the quotes is one quote, the first
    /// quote not doubled closes them.
    fn read(field: &[u8], mut line: u64) -> Option<Quoted> {
        if field.first() != Some(&b'"') {
            return None;
        }
        let mut quoted = Quoted {
            opened: line,
            closed: None,
            inside: Vec::new(),
        };
        let (mut i, mut after_cr) = (1, false);
        while i < field.len() {
            let b = field[i];
            if after_cr && b != b'\n' {
                line += 1;
                quoted.inside.push((line, i));
            }
            after_cr = b == b'\r';
            match b {
                b'"' if field.get(i + 1) == Some(&b'"') => i += 1,
                b'"' => {
                    quoted.closed = Some((i, line));
                    break;
                }
                b'\n' => {
                    line += 1;
                    quoted.inside.push((line, i + 1));
                }
                _ => {}
            }
            i += 1;
        }
        Some(quoted)
    }
}

/// The reader of the rows. csv-core splits the cells; this reader keeps the current field's
/// bytes as written beside them, because the csv crate cannot say what a run depends on: its
/// line count is of LFs, taken before the blank lines it skips; it holds a whole record before
/// giving any of it; it takes `"a"x` for `ax` and an unclosed quote for a cell.
pub(super) struct Records {
    /// How messages call the file.
    name: String,
    csv: csv_core::Reader,
    /// No byte has gone to `csv` yet.
    fresh: bool,
    /// The current line (1-based), and whether the last byte was a CR: a line ends there
    /// unless an LF follows.
    line: u64,
    after_cr: bool,
    /// Whether a record has started and not ended; its line, and its bytes so far.
    in_record: bool,
    row_line: u64,
    row_bytes: u64,
    /// The current record's cells so far.
    cells: csv::ByteRecord,
    /// The field being read: its cell as csv-core unescapes it (the first `out` bytes), its
    /// bytes as written, and the line it starts on.
    cell: Vec<u8>,
    out: usize,
    written: Vec<u8>,
    field_line: u64,
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
            csv: csv_core::ReaderBuilder::new()
                .delimiter(test.delimiter)
                .build(),
            fresh: true,
            line,
            after_cr: false,
            in_record: false,
            row_line: line,
            row_bytes: 0,
            cells: csv::ByteRecord::new(),
            cell: vec![0; 1024],
            out: 0,
            written: Vec::new(),
            field_line: line,
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
            let buf = match input.fill_buf() {
                Ok(buf) => buf,
                Err(e) => return Err(self.unreadable(&e)),
            };
            if !self.in_record {
                // Line ends between records (blank lines) are skipped, as csv-core would.
                let blank = buf
                    .iter()
                    .take_while(|&&b| b == b'\r' || b == b'\n')
                    .count();
                if buf.is_empty() {
                    return Ok(None);
                }
                let starts = blank < buf.len();
                self.count_lines(&buf[..blank]);
                input.consume(blank);
                if starts {
                    self.record_starts();
                }
                continue;
            }
            let at_end = buf.is_empty();
            // Never a byte past the cap, so no more than the cap is ever held; the first
            // byte alone, so csv-core's dropping of a byte-order mark at the start of its
            // input never takes one from a row's first cell.
            let room = usize::try_from(MAX_ROW + 1 - self.row_bytes).unwrap_or(usize::MAX);
            let take = match self.fresh {
                true => buf.len().min(1),
                false => buf.len().min(room),
            };
            let (result, nin, nout) = self
                .csv
                .read_field(&buf[..take], &mut self.cell[self.out..]);
            self.fresh &= take == 0;
            self.written.extend_from_slice(&buf[..nin]);
            self.count_lines(&buf[..nin]);
            input.consume(nin);
            self.out += nout;
            self.row_bytes += nin as u64;
            if self.row_bytes > MAX_ROW {
                return Err(self.too_long());
            }
            let record_end = match result {
                csv_core::ReadFieldResult::InputEmpty => continue,
                csv_core::ReadFieldResult::OutputFull => {
                    let longer = self.cell.len() * 2;
                    self.cell.resize(longer, 0);
                    continue;
                }
                csv_core::ReadFieldResult::Field { record_end } => record_end,
                // Not given inside a record (the end of the input ends its last field), but
                // if it were, the record read so far ends there rather than being lost.
                csv_core::ReadFieldResult::End => true,
            };
            // The field's own bytes, without the separator or line end that ended it.
            let len = self.written.len() - usize::from(!at_end);
            self.field_ends(len)?;
            if record_end {
                self.record_ends()?;
                self.in_record = false;
                return Ok(Some((std::mem::take(&mut self.cells), self.row_line)));
            }
        }
    }

    /// Follows the line ends among `bytes`, the next ones read.
    fn count_lines(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.after_cr && b != b'\n' {
                self.line += 1;
            }
            self.after_cr = b == b'\r';
            if b == b'\n' {
                self.line += 1;
            }
        }
    }

    /// A record starts at the next byte, which is no line end.
    fn record_starts(&mut self) {
        if std::mem::take(&mut self.after_cr) {
            self.line += 1;
        }
        self.in_record = true;
        self.row_line = self.line;
        self.field_line = self.line;
        self.row_bytes = 0;
    }

    /// The field being read has ended after its first `len` bytes. One still inside its
    /// quotes (at the end of the input) is never a cell: it would hold the rest of the file.
    fn field_ends(&mut self, len: usize) -> Result<(), Failure> {
        // csv-core ends a field inside quotes only at the end of the input.
        if let Some(opened) = self.examine(len)? {
            return Err(unclosed_quote(&self.name, opened));
        }
        self.cells.push_field(&self.cell[..self.out]);
        self.out = 0;
        self.written.clear();
        self.field_line = self.line;
        Ok(())
    }

    /// Reads the current field's first `len` bytes again as written. Once its quotes close,
    /// each line that started inside them is judged; text after the closing quote ends the
    /// reading. While they are open, the line they opened on.
    fn examine(&mut self, len: usize) -> Result<Option<u64>, Failure> {
        let field = &self.written[..len];
        let Some(quoted) = Quoted::read(field, self.field_line) else {
            return Ok(None);
        };
        let Some((close, closed_on)) = quoted.closed else {
            return Ok(Some(quoted.opened));
        };
        // Each line as written (a quote in the cell is `""`), up to the next such line or
        // the closing quote.
        for (i, &(line, start)) in quoted.inside.iter().enumerate() {
            let end = quoted.inside.get(i + 1).map_or(close, |&(_, next)| next);
            let mut text = &field[start..end];
            while let [rest @ .., b'\r' | b'\n'] = text {
                text = rest;
            }
            if self.test.reads_as_order(text) {
                self.hidden_span.get_or_insert((quoted.opened, closed_on));
                self.hidden.push(line);
            }
        }
        if close + 1 < len {
            // Order rows hidden say more than the stray text that follows them.
            self.record_ends()?;
            return Err(self.refuse(self.text_after_quote(quoted.opened, closed_on)));
        }
        Ok(None)
    }

    /// The current row is longer than [`MAX_ROW`]; what the reader would have refused in
    /// it before that byte (text after a closing quote) comes first.
    fn too_long(&mut self) -> Failure {
        let before = self.written.len().saturating_sub(1);
        let hint = match self.examine(before) {
            Err(refused) => return refused,
            Ok(Some(opened)) => {
                format!("; a quote opened on line {opened} is probably never closed")
            }
            Ok(None) => String::new(),
        };
        Failure::usage(format!(
            "cannot read {}: the row starting on line {} is longer than 1 MiB, more than any \
             orders row{hint}",
            self.name, self.row_line
        ))
    }

    /// Reading failed with `e` (or the file changed while it was read); what the bytes
    /// before it already refused comes first.
    fn unreadable(&mut self, e: &io::Error) -> Failure {
        if self.in_record
            && let Err(refused) = self.examine(self.written.len())
        {
            return refused;
        }
        let from = match self.in_record {
            true => self.row_line,
            false => self.line,
        };
        let stopped = format!("nothing from its line {from} on was reconciled");
        crate::files::changed(&self.name, e, &stopped)
            .unwrap_or_else(|| Failure::usage(format!("cannot read {}: {e}", self.name)))
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
    fn text_after_quote(&self, open: u64, close: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8]) -> Vec<Vec<u8>> {
        let mut input = io::BufReader::with_capacity(3, text);
        std::iter::from_fn(|| match read_line(&mut input).unwrap() {
            Line::Text(line) => Some(line),
            _ => None,
        })
        .collect()
    }

    #[test]
    fn lines_end_at_lf_crlf_and_a_bare_cr_across_buffers() {
        let got = lines(b"a,b\r\nc\rd\n\ne\r\r\nf");
        let want: Vec<&[u8]> = vec![b"a,b", b"c", b"d", b"", b"e", b"", b"f"];
        assert_eq!(got, want);
        assert!(lines(b"").is_empty());
        assert_eq!(lines(b"\n"), vec![b"".to_vec()]);
    }

    #[test]
    fn a_line_ending_inside_quotes_is_told() {
        for (line, quoted) in [
            (&b"a,\"b"[..], true),
            (b"a,\"b\"", false),
            (b"a,\"b\"\"", true),
            (b"a,\"b\"\"\"", false),
            (b"a,5\" screen", false),
            (b"\"a\",\"", true),
            (b"\"a\"x,\"b", true),
        ] {
            assert_eq!(
                cells(line, b',').1,
                quoted,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
