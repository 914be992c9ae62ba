//! The one sanitiser for text from outside (response fields, service messages, references
//! read from files) on its way to a table, CSV or stderr: nothing a terminal would act on
//! gets through raw.
//!
//! A response can carry `\e[2K\e[1A` to erase rows, an OSC sequence to set the window title,
//! or U+202E to make text read backwards. Such characters are shown escaped instead:
//! `\e`, `\r`, `\n`, `\t`, `\0`, and `\u{hex}` for every other one. `-o json`/`jsonl` do not
//! use this: JSON's own escaping keeps them exact and inert.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw: C0 controls, DEL, C1 controls, the bidi
/// embedding, override and isolate marks, the Unicode line and paragraph separators, and
/// the invisible format characters (zero-width space and joiners, word joiner and
/// invisible operators, the byte-order mark, the soft hyphen) that make `ABC\u{200b}` look
/// exactly like `ABC`.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{feff}'
        )
}

/// `text` with every unsafe character shown escaped; borrowed when there is none.
pub(crate) fn safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `text` in double quotes, with quotes and backslashes escaped as well as unsafe
/// characters, for values whose exact form matters (`status " SUCCESSFUL"`).
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => push_escaped(&mut out, c),
        }
    }
    out.push('"');
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\u{1b}' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_escaped() {
        assert_eq!(
            safe("\r\u{1b}[2K\u{1b}[32mStatus SUCCESSFUL"),
            "\\r\\e[2K\\e[32mStatus SUCCESSFUL"
        );
        assert_eq!(
            safe("\u{1b}]0;title\u{7}x"),
            "\\e]0;title\\u{7}x",
            "OSC with BEL"
        );
        assert_eq!(safe("a\u{9b}31m\u{7f}"), "a\\u{9b}31m\\u{7f}");
        assert_eq!(safe("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(safe("\t\n\0"), "\\t\\n\\0");
        assert_eq!(
            safe("A\u{200b}B\u{200d}C\u{2060}D\u{2064}E\u{feff}F\u{ad}G"),
            "A\\u{200b}B\\u{200d}C\\u{2060}D\\u{2064}E\\u{feff}F\\u{ad}G"
        );
        assert!(matches!(safe("₦40,000.00 ok"), Cow::Borrowed(_)));
    }

    #[test]
    fn quoted_shows_surrounding_space_and_quotes() {
        assert_eq!(quoted(" SUCCESSFUL"), "\" SUCCESSFUL\"");
        assert_eq!(quoted("a\"b\\c\u{1b}"), "\"a\\\"b\\\\c\\e\"");
    }
}
