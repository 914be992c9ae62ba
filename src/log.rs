//! Everything payverify says on stderr: errors, warnings and `-v` traces, one line each.
//!
//! Every line passes through [`Log::line`] and so through the one sanitiser,
//! [`terminal::scrub`]: registered secrets are redacted from the whole line first, then
//! control characters are escaped, so neither a secret nor an escape sequence echoed by a
//! service reaches stderr.

use crate::secret;
use crate::terminal::scrub;

/// How much to say on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Nothing at all (`-q`).
    Quiet,
    /// Errors and warnings.
    Normal,
    /// Plus a line per attempt (`-v`).
    Verbose,
}

/// The stderr writer; cheap to clone and shared between threads.
#[derive(Clone)]
pub struct Log {
    level: Level,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl Log {
    /// A log at the given level.
    pub fn new(level: Level) -> Self {
        Log { level }
    }

    /// What this log lets through to stderr.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Registers a value that must never be printed (see [`secret::register`]).
    pub fn add_secret(&self, value: &str) {
        secret::register(value);
    }

    /// `payverify: <message>` for what went wrong, unless quiet.
    pub fn error(&self, message: &str) {
        self.say(message);
    }

    /// `payverify: <message>` for information, unless quiet.
    pub fn info(&self, message: &str) {
        self.say(message);
    }

    /// Errors and information share one form; the names say which a caller means.
    fn say(&self, message: &str) {
        if self.level != Level::Quiet {
            self.line(&format!("payverify: {message}"));
        }
    }

    /// `payverify: warning: <message>`, unless quiet.
    pub fn warn(&self, message: &str) {
        if self.level != Level::Quiet {
            self.line(&format!("payverify: warning: {message}"));
        }
    }

    /// A trace line, only with `-v`.
    pub fn trace(&self, message: impl FnOnce() -> String) {
        if self.level == Level::Verbose {
            self.line(&format!("payverify: {}", message()));
        }
    }

    fn line(&self, text: &str) {
        // stderr is a file the run was asked to read: a line would be written into it.
        if crate::files::stderr_is_input() {
            return;
        }
        let mut line = scrub(text);
        line.push('\n');
        // One write per line keeps lines whole when worker threads log at once; a closed
        // stderr is not worth failing a verification for. Marked as a write under way, so a
        // stderr nobody reads cannot keep a signalled process alive.
        crate::signal::write_stderr(line.as_bytes());
    }
}

/// The one stderr line for a panic: what it said, scrubbed of every registered secret.
pub fn panic_line(payload: &(dyn std::any::Any + Send)) -> String {
    format!(
        "payverify: internal error (a bug, please report it): {}",
        panic_message(payload)
    )
}

/// A panic's message, scrubbed of secrets and folded to one line.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    one_line(&scrub(&what))
}

/// Folds runs of ASCII whitespace (newlines, tabs) into one space. Other control
/// characters are left for the terminal sanitiser to show escaped. Callers redact secrets
/// before folding, so a secret with two spaces in it is still recognised.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last_space = false;
    for c in text.trim_matches(|c: char| c.is_ascii_whitespace()).chars() {
        let c = if c.is_ascii_whitespace() { ' ' } else { c };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_removes_registered_secrets_and_escapes_controls() {
        let log = Log::new(Level::Normal);
        log.add_secret("s3cr3t-value");
        log.add_secret("ab");
        assert_eq!(
            scrub("bad key s3cr3t-value\nline two\u{1b}[2K"),
            "bad key <redacted>\\nline two\\e[2K"
        );
        assert_eq!(scrub("ab is not redacted"), "ab is not redacted");
    }

    #[test]
    fn panic_output_is_scrubbed() {
        let log = Log::new(Level::Normal);
        log.add_secret("panic-s3cret-77");
        let payload: Box<dyn std::any::Any + Send> =
            Box::new(String::from("boom with panic-s3cret-77\nsecond line"));
        let line = panic_line(payload.as_ref());
        assert_eq!(
            line,
            "payverify: internal error (a bug, please report it): boom with <redacted>\\nsecond line"
        );
        let caught = std::panic::catch_unwind(|| panic!("static panic-s3cret-77"));
        let line = panic_line(caught.unwrap_err().as_ref());
        assert!(line.ends_with("static <redacted>"), "{line}");
    }

    #[test]
    fn one_line_folds_whitespace() {
        assert_eq!(one_line("a\r\n\tb  c"), "a b c");
        assert_eq!(one_line("a\u{1b}b"), "a\u{1b}b");
    }
}
