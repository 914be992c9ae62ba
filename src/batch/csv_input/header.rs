//! The header row: the first line that names a reference and an amount column, past the
//! title lines a bank's settlement report puts above it, or the line `--header-row` names.
//! Read line by line before the rows, so nothing above the header is ever a row.

use std::io::{self, BufRead};

use super::*;
use crate::exit::Failure;

/// The longest line read while looking for the header row: a longer one is not a header.
pub(super) const MAX_HEADER_LINE: u64 = 1 << 20;

/// Most lines looked at for the header row when `--header-row` does not say.
pub(super) const HEADER_SCAN_LINES: u64 = 50;

/// The most non-empty cells a title line above the header has (`Merchant:,Adire Home
/// Stores`); a wider line that names no reference and amount column is taken for a header
/// with missing columns, and the search stops there.
pub(super) const TITLE_CELLS: usize = 3;

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
    /// Longer than [`MAX_HEADER_LINE`].
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
        if (line.len() + take) as u64 > MAX_HEADER_LINE {
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
