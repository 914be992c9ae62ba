//! One module per subcommand: each turns parsed arguments into an exit status.

pub(crate) mod config;
pub(crate) mod docs;
pub(crate) mod doctor;
pub(crate) mod gate;
pub(crate) mod history;
pub(crate) mod reconcile;
pub(crate) mod sandbox;
mod service;
pub(crate) mod verify;
pub(crate) mod webhook;

/// `word` as a shell reads it back, for a command payverify prints to be run as printed:
/// bare when it is plain, single-quoted otherwise, and as `$'...'` with escapes when it holds
/// a character a terminal must not see raw (so the printed command is both safe to show and
/// names the same file; bash, zsh and ksh read `$'...'`).
pub(crate) fn shell_word(word: &str) -> String {
    use std::fmt::Write as _;
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        return word.to_owned();
    }
    if !word.chars().any(crate::terminal::is_unsafe) {
        return format!("'{}'", word.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if crate::terminal::is_unsafe(c) => {
                let _ = match u32::from(c) {
                    n @ 0..=0xff => write!(out, "\\x{n:02x}"),
                    n @ 0x100..=0xffff => write!(out, "\\u{n:04x}"),
                    n => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_read_back_as_written_and_show_nothing_raw() {
        assert_eq!(shell_word("refs.txt"), "refs.txt");
        assert_eq!(shell_word("it's here"), "'it'\\''s here'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("live$(touch x)"), "'live$(touch x)'");
        let shown = shell_word("r\u{1b}]0;T\u{7}\u{202e}'.txt");
        assert_eq!(shown, "$'r\\x1b]0;T\\x07\\u202e\\'.txt'");
        assert!(!shown.chars().any(crate::terminal::is_unsafe));
    }
}
