//! The CSV quoting followed in front of the csv crate: exact line numbers (LF, CRLF, bare
//! CR), a cap on a row's size, and an input that ends inside a quote.

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
