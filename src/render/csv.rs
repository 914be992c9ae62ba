//! CSV fields with RFC 4180 quoting.

/// One field: quoted when it holds a comma, a quote, CR or LF (quotes doubled), or
/// leading/trailing spaces a spreadsheet would trim.
pub fn field(value: &str) -> String {
    let needs_quotes =
        value.contains([',', '"', '\r', '\n']) || value.starts_with(' ') || value.ends_with(' ');
    if needs_quotes {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

/// One row, newline-terminated.
pub fn row<S: AsRef<str>>(fields: &[S]) -> String {
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
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field(" pad"), "\" pad\"");
        assert_eq!(row(&["a", "b,c", ""]), "a,\"b,c\",\n");
    }
}
