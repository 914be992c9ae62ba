//! The one sanitiser for text from outside (response fields, service messages, references
//! and cells read from files, webhook payloads) on its way to any output: nothing a terminal
//! would act on gets through raw, and no registered secret gets through at all.
//!
//! A response can carry `\e[2K\e[1A` to erase rows, an OSC sequence to set the window title,
//! or U+202E to make text read backwards. Such characters are shown escaped instead:
//! `\e`, `\r`, `\n`, `\t`, `\0`, and `\u{hex}` for every other one ([`scrub`], for tables,
//! CSV cells, text reports and every stderr line). JSON keeps values exact instead: its
//! strings carry them as `\u` escapes ([`json_text`]), the same value to a JSON reader and
//! inert on a terminal. Secrets are redacted from values before either ([`crate::secret`]),
//! never from the bytes of serialised output, so every format stays valid.

use std::borrow::Cow;
use std::fmt::Write as _;

pub use crate::unseen::is_unsafe;

/// `text` from outside as any text output shows it: every registered secret form redacted
/// (from the whole value, before anything could cut it), then every unsafe character shown
/// escaped. Used for table cells, CSV cells, text reports and every stderr line.
pub(crate) fn scrub(text: &str) -> String {
    safe(&crate::secret::redact(text)).into_owned()
}

/// [`scrub`] for a cell of at most `max_chars` characters (before escaping): every secret
/// redacted from the whole value first (a cut could leave part of one unrecognisable), then
/// cut, then every unsafe character escaped (a newline shows as `\n`).
pub(crate) fn cell(text: &str, max_chars: usize) -> String {
    safe(&cut(&crate::secret::redact(text), max_chars)).into_owned()
}

/// Cuts text from outside (a service message, a cell) to a readable length, the
/// whitespace around it trimmed. A newline or tab inside is kept, for the sanitiser to show
/// as `\n` or `\t` where the text is printed: folded into a space, `Transaction\nnot found`
/// and `Transaction not found` would read the same, and a value would not be shown as it
/// is. Redact secrets before calling this: a cut can leave part of a secret unrecognisable.
pub(crate) fn cut(text: &str, max_chars: usize) -> String {
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars).collect();
    out.push('…');
    out
}

/// JSON text as serde_json writes it, with every unsafe character it leaves raw (DEL, the
/// C1 controls, bidi and invisible format characters, the line and paragraph separators)
/// written as a `\uXXXX` escape instead. serde_json escapes `"`, `\\` and every C0 control
/// inside strings (so a raw newline or tab is the pretty printer's own layout), and outside
/// strings its output is ASCII, so each character escaped here is inside a string literal:
/// the escape is the same value to a JSON reader, and a terminal showing the output sees
/// only ASCII where it was. A character beyond the Basic Multilingual Plane (a tag
/// character) is written as its UTF-16 surrogate pair, as JSON spells it.
pub(crate) fn json_text(json: String) -> String {
    let raw = |c: char| c >= '\u{7f}' && is_unsafe(c);
    // Text with no byte from 0x7f up has no character from U+007F up: one pass over the
    // bytes, not a decoding of every character (every record's line comes through here).
    if !json.bytes().any(|b| b >= 0x7f) || !json.chars().any(raw) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match raw(c) {
            true => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            false => out.push(c),
        }
    }
    out
}

/// `text` with every unsafe character shown escaped; borrowed when there is none. Text
/// that may hold a secret goes through [`scrub`] instead.
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
    fn cut_trims_and_cuts_and_keeps_newlines_for_the_sanitiser() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut(" a\nb\t ", 9), "a\nb", "kept inside, for the sanitiser");
        assert_eq!(cell(" a\nb\t ", 9), "a\\nb");
    }

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
    fn every_format_character_and_blank_filler_is_escaped() {
        // Tag characters after ABC ("ASCII smuggling"), Cf outside the common list, blank
        // fillers and private use: each drawn as nothing or as anything.
        let hidden = "A\u{e0041}B\u{180e}C\u{206a}D\u{fff9}E\u{1d173}F\u{3164}G\u{2800}H\u{e000}I";
        let shown = safe(hidden);
        assert!(shown.is_ascii(), "{shown}");
        assert_eq!(
            shown,
            "A\\u{e0041}B\\u{180e}C\\u{206a}D\\u{fff9}E\\u{1d173}F\\u{3164}G\\u{2800}H\\u{e000}I"
        );
        // Emoji keep their variation selector; the naira sign and accents are text.
        assert!(matches!(safe("\u{2764}\u{fe0f} ₦ é"), Cow::Borrowed(_)));
        let json = json_text(serde_json::to_string(&serde_json::json!(hidden)).unwrap());
        assert!(json.is_ascii(), "{json}");
        assert!(json.contains("A\\udb40\\udc41B"), "{json}");
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, hidden);
    }

    #[test]
    fn json_text_escapes_what_serde_json_leaves_raw_and_keeps_the_value() {
        let value = serde_json::json!({
            "a": "x\u{9b}2J\u{7f}\u{202e}cba\u{200b}\u{2028}\u{1b}]0;t\u{7}",
            "b": ["\u{85}", 1, "₦40,000 ok"],
        });
        let raw = serde_json::to_string_pretty(&value).unwrap();
        assert!(raw.contains('\u{9b}'), "serde_json leaves C1 raw: {raw:?}");
        let text = json_text(raw);
        assert!(
            !text.chars().any(|c| is_unsafe(c) && !matches!(c, '\n')),
            "{text:?}"
        );
        assert!(
            text.contains("\\u009b2J\\u007f\\u202ecba\\u200b\\u2028"),
            "{text}"
        );
        assert!(text.contains("₦40,000 ok"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn quoted_shows_surrounding_space_and_quotes() {
        assert_eq!(quoted(" SUCCESSFUL"), "\" SUCCESSFUL\"");
        assert_eq!(quoted("a\"b\\c\u{1b}"), "\"a\\\"b\\\\c\\e\"");
    }
}
