//! Transaction references: validation and encoding as exactly one URL path segment.

use std::fmt;

/// A validated transaction reference: trimmed, non-empty, free of control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference(String);

/// Why a reference was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceError {
    /// Nothing but whitespace.
    Empty,
    /// Contains a control character (newline, tab, NUL, ...), which no real reference has.
    ControlCharacter,
    /// Longer than [`MAX_LEN`] bytes: no real reference is, and no server takes such a URL.
    TooLong(usize),
}

/// The longest reference accepted, in bytes (UTF-8), on every path.
pub(crate) const MAX_LEN: usize = 4096;

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceError::Empty => f.write_str("the reference is empty"),
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
    /// Trims surrounding whitespace and validates what is left.
    pub fn parse(input: &str) -> Result<Self, ReferenceError> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(ReferenceError::Empty);
        }
        if trimmed.len() > MAX_LEN {
            return Err(ReferenceError::TooLong(trimmed.len()));
        }
        if trimmed.chars().any(char::is_control) {
            return Err(ReferenceError::ControlCharacter);
        }
        Ok(Reference(trimmed.to_owned()))
    }

    /// The reference as the user gave it (trimmed).
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
    fn trims_and_rejects_empty_or_control() {
        assert_eq!(Reference::parse("  abc \n").map(|r| r.0), Ok("abc".into()));
        assert_eq!(Reference::parse(" \t "), Err(ReferenceError::Empty));
        assert_eq!(
            Reference::parse("a\nb"),
            Err(ReferenceError::ControlCharacter)
        );
        assert_eq!(
            Reference::parse("a\u{0}b"),
            Err(ReferenceError::ControlCharacter)
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
