//! The CSV quoting followed in front of the csv crate: exact line numbers (LF, CRLF, bare
//! CR), a cap on a row's size, an input that ends inside a quote, and a quoted field that
//! swallows what look like rows (a stray quote that a later quote "closes").

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use super::*;
use crate::exit::Failure;

/// The longest row (or header) read, in bytes: an orders row is far shorter, and a longer
/// one is almost always a quote left open (or not a CSV file at all). It bounds the memory a
/// row takes, as verify bounds a line.
pub(super) const MAX_ROW: u64 = 1 << 20;

/// The most lines one quoted field may span. An address or a note takes a few; more is far
/// likelier a stray quote that a later quote "closes", with the orders between read as one
/// cell and never verified.
pub(super) const MAX_CELL_LINES: u64 = 10;

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

/// The reader in front of the csv crate: it follows the CSV syntax byte by byte, so it
/// knows the line every record starts on (whatever the line ends: LF, CRLF or a bare CR),
/// refuses a row over [`MAX_ROW`] bytes before the csv crate holds it, and knows whether
/// the input ended inside a quote.
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
    /// Separators outside quotes in the current record, and in the header once it is read.
    pub(super) row_delimiters: u64,
    pub(super) header_delimiters: Option<u64>,
    /// Separators on one line inside the current quoted field (a line after the one the
    /// quote opened on), and which line that is.
    pub(super) inner_line: u64,
    pub(super) inner_delimiters: u64,
    /// The first line inside the current quoted field that holds a separator: it may be a
    /// row swallowed into the cell. An order line needs at least one (the reference and the
    /// amount are two columns), and an export may leave out empty trailing cells, so no
    /// larger count is safe to wait for.
    pub(super) swallowed: Option<u64>,
    /// The refusal of a quoted field, when the last `Err` from [`Newlines::step`] is one.
    pub(super) refused: Option<String>,
    /// A row over the limit: every later read fails.
    pub(super) failed: Option<String>,
    pub(super) track: Arc<Mutex<Track>>,
}

impl<R> Newlines<R> {
    pub(super) fn new(inner: R, delimiter: u8, track: Arc<Mutex<Track>>) -> Self {
        Newlines {
            inner,
            delimiter,
            state: Syntax::RecordStart,
            line: 1,
            after_cr: false,
            row_bytes: 0,
            row_line: 1,
            quote_line: 0,
            quote_end: 0,
            row_delimiters: 0,
            header_delimiters: None,
            inner_line: 0,
            inner_delimiters: 0,
            swallowed: None,
            refused: None,
            failed: None,
            track,
        }
    }

    /// Follows one byte; `Err` when it makes the row too long.
    pub(super) fn step(&mut self, b: u8, starts: &mut VecDeque<u64>) -> Result<(), String> {
        if self.after_cr && b != b'\n' {
            self.line += 1;
        }
        self.after_cr = b == b'\r';
        let end = b == b'\r' || b == b'\n';
        if self.state == Syntax::RecordStart && !end {
            starts.push_back(self.line);
            self.row_line = self.line;
            self.row_bytes = 0;
            self.row_delimiters = 0;
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
        if matches!(self.state, Syntax::QuoteInQuoted) && (b == delimiter || end) {
            self.quoted_field_closes()?;
        }
        self.state = match self.state {
            Syntax::RecordStart => Syntax::RecordStart,
            Syntax::FieldStart if b == b'"' => {
                self.quote_line = self.line;
                self.inner_line = self.line;
                self.inner_delimiters = 0;
                self.swallowed = None;
                Syntax::Quoted
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if b == delimiter => {
                self.row_delimiters += 1;
                Syntax::FieldStart
            }
            Syntax::FieldStart | Syntax::Unquoted | Syntax::QuoteInQuoted if end => {
                if self.header_delimiters.is_none() {
                    self.header_delimiters = Some(self.row_delimiters);
                }
                Syntax::RecordStart
            }
            Syntax::FieldStart | Syntax::Unquoted => Syntax::Unquoted,
            Syntax::Quoted if b == b'"' => {
                self.quote_end = self.line;
                Syntax::QuoteInQuoted
            }
            Syntax::Quoted => {
                if b == delimiter && self.line != self.quote_line {
                    self.inner_row_separator();
                }
                Syntax::Quoted
            }
            Syntax::QuoteInQuoted if b == b'"' => Syntax::Quoted,
            Syntax::QuoteInQuoted => {
                // Rows swallowed say more than the stray text that follows them.
                self.quoted_field_closes()?;
                return Err(self.refuse(self.text_after_quote()));
            }
        };
        if b == b'\n' {
            self.line += 1;
        }
        Ok(())
    }
}

impl<R> Newlines<R> {
    /// Counts a separator inside a quoted field, on a line after the one the quote opened
    /// on; a line with as many as the header row looks like a whole row.
    fn inner_row_separator(&mut self) {
        if self.inner_line != self.line {
            (self.inner_line, self.inner_delimiters) = (self.line, 0);
        }
        self.inner_delimiters += 1;
        if self.swallowed.is_none() {
            self.swallowed = Some(self.line);
        }
    }

    /// A quoted field has just closed: refused when it spans more than [`MAX_CELL_LINES`]
    /// lines or holds a line that looks like a row.
    fn quoted_field_closes(&mut self) -> Result<(), String> {
        let (open, close) = (self.quote_line, self.quote_end);
        let why = if let Some(line) = self.swallowed {
            format!(
                "line {line} inside it holds a separator, so it may be an order read as part \
                 of one cell (a line break followed by separators inside a cell cannot be \
                 told from hidden orders)"
            )
        } else if close - open + 1 > MAX_CELL_LINES {
            format!(
                "it spans {} lines, more than the {MAX_CELL_LINES} any orders cell takes",
                close - open + 1
            )
        } else {
            return Ok(());
        };
        Err(self.refuse(format!(
            "line {open}: a quoted field opens there and closes on line {close}; {why}. \
             Usually a stray quote (one never closed) that a later quote seems to close, so \
             the orders on the lines between would never be verified; nothing from line {} \
             on was reconciled (remove the stray quote, or double a quote that is part of a \
             value: \"\")",
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

impl<R: Read> Read for Newlines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(why) = &self.failed {
            return Err(io::Error::other(why.clone()));
        }
        let n = self.inner.read(buf)?;
        let mut starts = VecDeque::new();
        let mut taken = n;
        if n == 0
            && self.state == Syntax::QuoteInQuoted
            && let Err(why) = self.quoted_field_closes()
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
