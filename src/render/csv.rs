//! CSV fields with RFC 4180 quoting, made safe for spreadsheets and terminals.
//!
//! Reconciliation files are opened in spreadsheets, which run a cell starting with `=`,
//! `+`, `-` or `@` (or tab or CR) as a formula. Following OWASP's CSV-injection guidance,
//! such a cell is written with a leading single quote unless it is a plain number, and
//! control characters are shown escaped as in the table. `-o jsonl` has the exact values.

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

/// One field: formula-like cells prefixed with `'`, control characters escaped, then
/// quoted when it holds a comma, a quote, CR or LF (quotes doubled), or leading/trailing
/// spaces a spreadsheet would trim.
pub(crate) fn field(value: &str) -> String {
    let value = cell_text(value);
    let value = value.as_str();
    let needs_quotes =
        value.contains([',', '"', '\r', '\n']) || value.starts_with(' ') || value.ends_with(' ');
    if needs_quotes {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
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

/// One row, newline-terminated.
pub(crate) fn row<S: AsRef<str>>(fields: &[S]) -> String {
    let mut line = fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(row(&["a", "b,c", ""]), "a,\"b,c\",\n");
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
