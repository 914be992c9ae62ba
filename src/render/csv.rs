//! CSV fields with RFC 4180 quoting, made safe for spreadsheets and terminals.
//!
//! Reconciliation files are opened in spreadsheets, which run a cell starting with `=`,
//! `+`, `-` or `@` (or tab or CR) as a formula. Following OWASP's CSV-injection guidance,
//! such a cell is written with a leading single quote unless it is a plain number, and
//! control characters are shown escaped as in the table; but a cell of the input file is
//! written as its text, its line breaks and tabs kept inside its quotes (RFC 4180), unless
//! the output is a terminal. `-o jsonl` has the exact values.

use crate::terminal;

/// Whether a spreadsheet could take the cell for a formula (OWASP's list of first
/// characters) and it is not simply a number like `-150` or `40000.00`.
pub(crate) fn is_formula_like(value: &str) -> bool {
    value.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_plain_number(value)
}

/// An optional sign, digits, and an optional fraction of digits.
fn is_plain_number(value: &str) -> bool {
    let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(whole) && digits(fraction)
}

/// A field's text before quoting: formula-like values prefixed with `'`, secrets redacted
/// and control characters escaped ([`terminal::scrub`]): what a CSV reader gets back.
pub(crate) fn cell_text(value: &str) -> String {
    if is_formula_like(value) {
        format!("'{}", terminal::scrub(value))
    } else {
        terminal::scrub(value)
    }
}

/// A cell of the input file as the CSV output writes it: as [`cell_text`], but its line
/// breaks and tabs kept as they were (a note over two lines stays two lines in its quoted
/// cell, as a spreadsheet wrote it); every other unsafe character still escaped.
pub(crate) fn input_cell_text(value: &str) -> String {
    let redacted = crate::secret::redact(value);
    let mut kept = String::with_capacity(redacted.len());
    let mut rest: &str = &redacted;
    while let Some(at) = rest.find(['\n', '\r', '\t']) {
        kept.push_str(&terminal::safe(&rest[..at]));
        kept.push_str(&rest[at..=at]);
        rest = &rest[at + 1..];
    }
    kept.push_str(&terminal::safe(rest));
    match is_formula_like(value) {
        true => format!("'{kept}"),
        false => kept,
    }
}

/// One row, newline-terminated: each cell defused ([`cell_text`]), then written by
/// `csv::Writer` ([`quote`]).
pub(crate) fn row<S: AsRef<str>>(fields: &[S]) -> String {
    row_keeping(fields, 0)
}

/// [`row`], its first `input` cells the input file's own, written as their text
/// ([`input_cell_text`]).
pub(crate) fn row_keeping<S: AsRef<str>>(fields: &[S], input: usize) -> String {
    let cells: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match i < input {
            true => quote(&input_cell_text(f.as_ref())),
            false => quote(&cell_text(f.as_ref())),
        })
        .collect();
    let mut line = cells.join(",");
    line.push('\n');
    line
}

/// A defused cell as `csv::Writer` writes it: quoted when it holds a comma, a quote, a CR
/// or an LF (quotes doubled), and when it starts or ends with a
/// space a spreadsheet would trim, which no `QuoteStyle` says: such a cell is written by a
/// writer that quotes always. Each cell is its own one-field record (an empty one needs
/// no writer: `csv::Writer` quotes a record of one empty field).
fn quote(cell: &str) -> String {
    if cell.is_empty() {
        return String::new();
    }
    let style = match cell.starts_with(' ') || cell.ends_with(' ') {
        true => csv::QuoteStyle::Always,
        false => csv::QuoteStyle::Necessary,
    };
    let mut out = csv::WriterBuilder::new()
        .quote_style(style)
        .terminator(csv::Terminator::Any(b'\n'))
        .buffer_capacity(cell.len() + 8)
        .from_writer(Vec::new());
    // Writing text to memory cannot fail; an empty cell stands in if it ever does.
    let bytes = out
        .write_record([cell])
        .ok()
        .and_then(|()| out.into_inner().ok())
        .unwrap_or_default();
    let mut text = String::from_utf8(bytes).unwrap_or_default();
    text.pop();
    text
}

/// The values of a record's CSV view `value` (a struct of scalars), in field order, and
/// their names: a CSV header and its cells are both derived from the one struct.
pub(crate) fn named_cells<T: serde::Serialize>(value: &T) -> Vec<(String, String)> {
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(value) else {
        return Vec::new();
    };
    map.into_iter()
        .map(|(name, value)| {
            let cell = match value {
                serde_json::Value::String(s) => s,
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            (name, cell)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One cell as a row writes it.
    fn field(value: &str) -> String {
        row(&[value]).trim_end_matches('\n').to_owned()
    }

    #[test]
    fn quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field(""), "");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(
            field("two\nlines"),
            "two\\nlines",
            "escaped, like the table"
        );
        assert_eq!(field(" pad"), "\" pad\"");
        assert_eq!(field("pad "), "\"pad \"");
        assert_eq!(field("mid space"), "mid space");
        assert_eq!(row(&["a", "b,c", ""]), "a,\"b,c\",\n");
    }

    #[test]
    fn an_input_cell_keeps_its_line_breaks_and_tabs_and_nothing_else() {
        let row = |cell: &str| row_keeping(&[cell, cell], 1);
        assert_eq!(
            row("gate code 4411,\nLeave with security"),
            "\"gate code 4411,\nLeave with security\",\"gate code 4411,\\nLeave with security\"\n"
        );
        assert_eq!(row("a\r\nb\tc").split(',').next(), Some("\"a\r\nb\tc\""));
        assert_eq!(
            row("a\u{1b}[2Kb\n").split(',').next(),
            Some("\"a\\e[2Kb\n\"")
        );
        assert_eq!(row("=1+1\n").split(',').next(), Some("\"'=1+1\n\""));
        assert_eq!(row("\n=1").split(',').next(), Some("\"\n=1\""));
        assert_eq!(row("\t=1").split(',').next(), Some("'\t=1"));
    }

    #[test]
    fn formulas_are_defused_but_numbers_are_not() {
        assert_eq!(
            field("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(field("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
        assert_eq!(field("-2+3"), "'-2+3");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("\t=1"), "'\\t=1");
        assert_eq!(field("\r=1"), "'\\r=1");
        for number in ["-150", "40000.00", "+7", "0", "-0.5"] {
            assert_eq!(field(number), number);
        }
        for not_number in ["-", "-.5", "--1", "-1.", "+-1", "-1e3"] {
            assert!(field(not_number).starts_with('\''), "{not_number}");
        }
        assert_eq!(field("a\u{1b}[2Kb"), "a\\e[2Kb");
        assert_eq!(field("mid=dle"), "mid=dle");
    }
}
