//! The CSV quoting followed in front of the csv crate: exact line numbers (LF, CRLF, bare
//! CR), a cap on a row's size, an input that ends inside a quote, and a quoted field that
//! swallows order rows (a stray quote that a later quote "closes").

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use super::*;
use crate::exit::Failure;

/// The longest row (or header) read, in bytes: an orders row is far shorter, and a longer
/// one is almost always a quote left open (or not a CSV file at all). It bounds the memory a
/// row takes, as verify bounds a line.
pub(super) const MAX_ROW: u64 = 1 << 20;

/// What [`Newlines`] tells [`Orders`], shared because the csv reader owns the reader.
#[derive(Debug, Default)]
pub(super) struct Track {
    /// The line each record read ahead starts on, in order (the csv crate yields exactly
    /// one record per start).
    pub(super) starts: VecDeque<u64>,
    /// The input ended inside a quoted field that opened on this line.
    pub(super) unclosed: Option<u64>,
    /// Why reading stopped at a quoted field that would hide rows (`line N: ...`), when it
    /// did.
    pub(super) refused: Option<String>,
}

/// The input failure for a read error: a quoted field refused by [`Newlines`] is named as
/// such, anything else is the csv crate's or the system's reason.
pub(super) fn read_failure(track: &Mutex<Track>, name: &str, error: &csv::Error) -> Failure {
    match track.lock().ok().and_then(|t| t.refused.clone()) {
        Some(why) => Failure::usage(format!("{name} {why}")),
        None => Failure::usage(format!("cannot read {name}: {error}")),
    }
}

/// The line the next record starts on (`None` if unknown), and, when that record runs to
/// the end of an input that ended inside a quote, the line where the quote opened.
pub(super) fn next_record(track: &Mutex<Track>) -> (Option<u64>, Option<u64>) {
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

/// The reader in front of the csv crate: it follows the CSV syntax byte by byte, so it
/// knows the line every record starts on (whatever the line ends: LF, CRLF or a bare CR),
/// refuses a row over [`MAX_ROW`] bytes before the csv crate holds it, knows whether the
/// input ended inside a quote, and refuses a record with a line inside a quoted cell that
/// reads as an order row before the csv crate sees that record end.
pub(super) struct Newlines<R> {
    pub(super) inner: R,
    pub(super) delimiter: u8,
    pub(super) state: Syntax,
    /// The current line (1-based).
    pub(super) line: u64,
    /// The last byte was a CR: a line ends there unless an LF follows.
    pub(super) after_cr: bool,
    /// Bytes of the current record so far, and the line it starts on.
    pub(super) row_bytes: u64,
    pub(super) row_line: u64,
    /// The line the current quoted field opened on.
    pub(super) quote_line: u64,
    /// The line of the current quoted field's last quote (where it closes, if it does).
    pub(super) quote_end: u64,
    /// The current record's bytes after its first line end (only a quoted field holds a
    /// line end, so each of these lines starts inside one), as written; empty for a record
    /// on one line, which is nearly every record, so they cost nothing.
    pub(super) later: Vec<u8>,
    /// Each of those lines: its number, where it starts in `later`, and, once the quoted
    /// field it started in has closed on it, where that field's closing quote is (what is
    /// inside the cell ends there).
    pub(super) later_lines: Vec<(u64, usize, Option<usize>)>,
    /// Where in `later` the current quoted field's last quote is.
    pub(super) quote_at: usize,
    /// The current record's quoted fields that spanned lines: where each opened and closed.
    pub(super) spans: Vec<(u64, u64)>,
    pub(super) test: RowTest,
    /// The refusal of a quoted field, when the last `Err` from [`Newlines::step`] is one.
    pub(super) refused: Option<String>,
    /// A row over the limit or a refusal: every later read fails.
    pub(super) failed: Option<String>,
    pub(super) track: Arc<Mutex<Track>>,
}

impl<R> Newlines<R> {
    /// A reader of `inner`, whose first byte is on line `line`.
    pub(super) fn new(inner: R, line: u64, test: RowTest, track: Arc<Mutex<Track>>) -> Self {
        Newlines {
            inner,
            delimiter: test.delimiter,
            state: Syntax::RecordStart,
            line,
            after_cr: false,
            row_bytes: 0,
            row_line: line,
            quote_line: 0,
            quote_end: 0,
            later: Vec::new(),
            later_lines: Vec::new(),
            quote_at: 0,
            spans: Vec::new(),
            test,
            refused: None,
            failed: None,
            track,
        }
    }

    /// A new line starts here; inside a quoted field it is one to judge.
    fn line_starts(&mut self) {
        if self.state == Syntax::Quoted {
            self.later_lines.push((self.line, self.later.len(), None));
        }
    }

    /// Follows one byte; `Err` when it makes the row too long, or ends (or breaks) a
    /// record that hides order rows.
    pub(super) fn step(&mut self, b: u8, starts: &mut VecDeque<u64>) -> Result<(), String> {
        if self.after_cr && b != b'\n' {
            self.line += 1;
            self.line_starts();
        }
        self.after_cr = b == b'\r';
        let end = b == b'\r' || b == b'\n';
        if self.state == Syntax::RecordStart && !end {
            starts.push_back(self.line);
            self.row_line = self.line;
            self.row_bytes = 0;
            self.later.clear();
            self.later_lines.clear();
            self.spans.clear();
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
            if !self.later_lines.is_empty() {
                self.later.push(b);
            }
        }
        let delimiter = self.delimiter;
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
                Syntax::FieldStart
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if end => {
                self.record_ends()?;
                Syntax::RecordStart
            }
            Syntax::FieldStart | Syntax::Unquoted => Syntax::Unquoted,
            Syntax::Quoted if b == b'"' => {
                self.quote_end = self.line;
                self.quote_at = self.later.len().saturating_sub(1);
                Syntax::QuoteInQuoted
            }
            Syntax::Quoted => Syntax::Quoted,
            Syntax::QuoteInQuoted if b == b'"' => Syntax::Quoted,
            Syntax::QuoteInQuoted => {
                // Order rows hidden say more than the stray text that follows them.
                self.quoted_field_closes();
                self.record_ends()?;
                return Err(self.refuse(self.text_after_quote()));
            }
        };
        if b == b'\n' {
            self.line += 1;
            self.line_starts();
        }
        Ok(())
    }

    /// The input has ended: a record still open ends here.
    fn input_ends(&mut self) -> Result<(), String> {
        if matches!(
            self.state,
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted
        ) {
            if self.state == Syntax::QuoteInQuoted {
                self.quoted_field_closes();
            }
            self.state = Syntax::RecordStart;
            self.record_ends()?;
        }
        Ok(())
    }
}

impl<R> Newlines<R> {
    /// A quoted field has just closed: one that spanned lines is kept for the message, and
    /// the line it closed on is inside it only up to its closing quote.
    fn quoted_field_closes(&mut self) {
        if self.quote_end != self.quote_line {
            self.spans.push((self.quote_line, self.quote_end));
            if let Some((_, _, end @ None)) = self.later_lines.last_mut() {
                *end = Some(self.quote_at);
            }
        }
    }

    /// The current record ends (or is refused): refused when a line of it inside a quoted
    /// field reads as an order row.
    fn record_ends(&mut self) -> Result<(), String> {
        if self.later_lines.is_empty() {
            return Ok(());
        }
        let mut hidden = Vec::new();
        for (i, &(line, start, cut)) in self.later_lines.iter().enumerate() {
            let end = cut.unwrap_or_else(|| {
                self.later_lines
                    .get(i + 1)
                    .map_or(self.later.len(), |&(_, next, _)| next)
            });
            let mut text = &self.later[start..end];
            while let [rest @ .., b'\r' | b'\n'] = text {
                text = rest;
            }
            if self.test.reads_as_order(text) {
                hidden.push(line);
            }
        }
        self.later.clear();
        self.later_lines.clear();
        let Some(&first) = hidden.first() else {
            return Ok(());
        };
        let (open, close) = self
            .spans
            .iter()
            .copied()
            .find(|&(open, close)| open < first && first <= close)
            .unwrap_or((self.quote_line, self.quote_end));
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
            named_lines(&hidden),
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

    /// Keeps `why` as the reason reading stops, for [`read_failure`].
    fn refuse(&mut self, why: String) -> String {
        self.refused = Some(why.clone());
        why
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

impl<R: Read> Read for Newlines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(why) = &self.failed {
            return Err(io::Error::other(why.clone()));
        }
        let n = self.inner.read(buf)?;
        let mut starts = VecDeque::new();
        let mut taken = n;
        if n == 0
            && let Err(why) = self.input_ends()
        {
            self.failed = Some(why);
        }
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
            if track.refused.is_none() {
                track.refused.clone_from(&self.refused);
            }
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
