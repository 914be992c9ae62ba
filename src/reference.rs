//! Transaction references: validation and encoding as exactly one URL path segment.
//!
//! The reference verified is exactly the one asked: nothing is taken off an argument, and a
//! line of a list or a cell of a file loses only what a line end or a spreadsheet adds
//! around it (ASCII spaces, tabs, a CR). Other whitespace around a reference (a no-break
//! space, an ideographic space, a line separator) is refused, never trimmed: a shop that
//! asks whether `\u{3000}REF` was already used would not find `REF`, and would ship twice.

use std::fmt;

/// A validated transaction reference: non-empty, no whitespace around it, free of control
/// characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference(String);

/// Why a reference was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceError {
    /// Nothing at all, or nothing but whitespace.
    Empty,
    /// Whitespace (or an invisible character) at its start or end, which would be a
    /// different reference from the one shown.
    Padded {
        /// The character found.
        found: char,
        /// Whether it is at the start (else at the end).
        at_start: bool,
    },
    /// Contains a control character (newline, tab, NUL, ...), which no real reference has.
    ControlCharacter,
    /// Longer than [`MAX_LEN`] bytes: no real reference is, and no server takes such a URL.
    TooLong(usize),
}

/// The longest reference accepted, in bytes (UTF-8), on every path.
pub(crate) const MAX_LEN: usize = 4096;

/// What a line end or a spreadsheet adds around a reference in a list or a cell, and is
/// taken off there: ASCII spaces, tabs and the CR of a CRLF line end. Nothing else is.
pub(crate) fn is_line_padding(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r')
}

/// Whether `c` cannot stand at either end of a reference: Unicode whitespace, and the
/// invisible characters that read as nothing (zero-width space and joiners, word joiner,
/// byte-order mark, Mongolian vowel separator).
fn is_padding_char(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{180e}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'
        )
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::Empty => f.write_str("the reference is empty"),
            ReferenceError::Padded { found, at_start } => write!(
                f,
                "the reference has whitespace (U+{:04X}) at its {}; give it exactly, nothing \
                 is trimmed (the reference verified must be the one asked)",
                u32::from(*found),
                if *at_start { "start" } else { "end" }
            ),
            ReferenceError::ControlCharacter => {
                f.write_str("the reference contains a control character")
            }
            ReferenceError::TooLong(len) => write!(
                f,
                "the reference is {len} bytes long; the most accepted is {MAX_LEN}"
            ),
        }
    }
}

impl std::error::Error for ReferenceError {}

impl Reference {
    /// Validates a reference given as it is to be verified (an argument): nothing is taken
    /// off, and whitespace at either end is refused.
    pub fn parse(input: &str) -> Result<Self, ReferenceError> {
        if input.chars().all(is_padding_char) {
            return Err(ReferenceError::Empty);
        }
        let first = input.chars().next().filter(|&c| is_padding_char(c));
        let last = input.chars().next_back().filter(|&c| is_padding_char(c));
        if let Some(found) = first {
            return Err(ReferenceError::Padded {
                found,
                at_start: true,
            });
        }
        if let Some(found) = last {
            return Err(ReferenceError::Padded {
                found,
                at_start: false,
            });
        }
        if input.len() > MAX_LEN {
            return Err(ReferenceError::TooLong(input.len()));
        }
        if input.chars().any(char::is_control) {
            return Err(ReferenceError::ControlCharacter);
        }
        Ok(Reference(input.to_owned()))
    }

    /// Validates a line of a list or a cell of a file: what a line end or a spreadsheet
    /// adds around it ([`is_line_padding`]) is taken off, then it is read as
    /// [`Reference::parse`] reads an argument.
    pub fn from_line(line: &str) -> Result<Self, ReferenceError> {
        Reference::parse(line.trim_matches(|c: char| u8::try_from(c).is_ok_and(is_line_padding)))
    }

    /// The reference as it was asked.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The reference percent-encoded as one path segment.
    pub fn path_segment(&self) -> String {
        encode_segment(&self.0)
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Percent-encodes `input` (as UTF-8) so that it is exactly one path segment.
///
/// Only RFC 3986 unreserved characters pass through; `/`, `?`, `#`, `%` and everything else
/// is encoded. A segment made only of dots would be a dot-segment (`.`/`..`) that URL
/// normalisers resolve, so its dots are encoded too.
pub fn encode_segment(input: &str) -> String {
    let all_dots = !input.is_empty() && input.bytes().all(|b| b == b'.');
    let mut out = String::with_capacity(input.len() * 3);
    for byte in input.bytes() {
        let unreserved = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'~');
        if unreserved || (byte == b'.' && !all_dots) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes; the inverse of [`encode_segment`], used by the sandbox server.
///
/// Returns `None` for a malformed escape or bytes that are not UTF-8.
pub fn decode_segment(input: &str) -> Option<String> {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_is_taken_exactly_and_a_line_loses_only_its_ascii_padding() {
        assert_eq!(Reference::parse("abc").map(|r| r.0), Ok("abc".into()));
        assert_eq!(Reference::parse("a b").map(|r| r.0), Ok("a b".into()));
        assert_eq!(Reference::parse(""), Err(ReferenceError::Empty));
        assert_eq!(Reference::parse(" \t "), Err(ReferenceError::Empty));
        assert_eq!(Reference::parse("\u{3000}"), Err(ReferenceError::Empty));
        for (padded, found, at_start) in [
            (" abc", ' ', true),
            ("abc ", ' ', false),
            ("abc\n", '\n', false),
            ("\tabc", '\t', true),
            ("\u{3000}abc", '\u{3000}', true),
            ("abc\u{a0}", '\u{a0}', false),
            ("abc\u{2028}", '\u{2028}', false),
            ("\u{feff}abc", '\u{feff}', true),
            ("abc\u{200b}", '\u{200b}', false),
        ] {
            assert_eq!(
                Reference::parse(padded),
                Err(ReferenceError::Padded { found, at_start }),
                "{padded:?}"
            );
        }
        assert_eq!(
            Reference::from_line("  abc \t\r").map(|r| r.0),
            Ok("abc".into())
        );
        assert_eq!(Reference::from_line(" \t \r"), Err(ReferenceError::Empty));
        for padded in ["\u{3000}abc", " abc\u{a0} ", "abc\u{2028}\r", "\u{b}abc"] {
            assert!(
                matches!(
                    Reference::from_line(padded),
                    Err(ReferenceError::Padded { .. })
                ),
                "{padded:?}"
            );
        }
        assert_eq!(
            Reference::parse("a\nb"),
            Err(ReferenceError::ControlCharacter)
        );
        assert_eq!(
            Reference::parse("a\u{0}b"),
            Err(ReferenceError::ControlCharacter)
        );
        assert!(
            Reference::parse("abc\u{2028}")
                .unwrap_err()
                .to_string()
                .contains("U+2028")
        );
    }

    #[test]
    fn length_is_bounded_in_bytes() {
        assert!(Reference::parse(&"x".repeat(MAX_LEN)).is_ok());
        assert_eq!(
            Reference::parse(&"x".repeat(MAX_LEN + 1)),
            Err(ReferenceError::TooLong(MAX_LEN + 1))
        );
        // Two bytes each: 2049 of them is over the limit though under 4096 characters.
        assert_eq!(
            Reference::parse(&"é".repeat(2049)),
            Err(ReferenceError::TooLong(4098))
        );
    }

    #[test]
    fn awkward_characters_stay_in_one_segment() {
        assert_eq!(encode_segment("a/b"), "a%2Fb");
        assert_eq!(encode_segment("100%"), "100%25");
        assert_eq!(encode_segment("a b?c#d"), "a%20b%3Fc%23d");
        assert_eq!(encode_segment("naïra"), "na%C3%AFra");
        assert_eq!(encode_segment("../x"), "..%2Fx");
        assert_eq!(encode_segment(".."), "%2E%2E");
        assert_eq!(encode_segment("."), "%2E");
        assert_eq!(encode_segment("WQ-5063.91_~"), "WQ-5063.91_~");
    }

    #[test]
    fn decode_inverts_encode() {
        for s in ["a/b", "..", "naïra ₦", "100%", "plain"] {
            assert_eq!(decode_segment(&encode_segment(s)).as_deref(), Some(s));
        }
        assert_eq!(decode_segment("%zz"), None);
        assert_eq!(decode_segment("%4"), None);
    }
}
