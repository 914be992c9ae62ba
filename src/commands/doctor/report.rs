//! Doctor's checks as data, and their two renderings: one line each, or one JSON object.

use serde_json::{Map, Value, json};

use crate::exit::Exit;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Nothing to do.
    Ok,
    /// Works, but something deserves attention.
    Warn,
    /// Will not work; the exit status is this failure's.
    Fail(Exit),
}

impl Status {
    /// The word printed for it, in text and JSON alike.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail(_) => "FAIL",
        }
    }
}

/// One check's result: what was found and, on warn or FAIL, the fix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Check {
    /// Its name: config, settings, base_url, resolve, connect, tls, credentials, reference
    /// or hmac.
    pub(crate) name: &'static str,
    /// Its outcome.
    pub(crate) status: Status,
    /// What was found, one line.
    pub(crate) found: String,
    /// What to do about a warning or failure.
    pub(crate) fix: Option<String>,
    /// Figures for `-o json` (addresses, milliseconds, certificate fields...).
    pub(crate) details: Map<String, Value>,
}

impl Check {
    /// A passed check.
    pub(crate) fn ok(name: &'static str, found: impl Into<String>) -> Self {
        Check {
            name,
            status: Status::Ok,
            found: found.into(),
            fix: None,
            details: Map::new(),
        }
    }

    /// A warning with its fix.
    pub(crate) fn warn(
        name: &'static str,
        found: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Warn,
            fix: Some(fix.into()),
            ..Check::ok(name, found)
        }
    }

    /// A failure ending in `exit`, with its fix.
    pub(crate) fn fail(
        name: &'static str,
        exit: Exit,
        found: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Fail(exit),
            fix: Some(fix.into()),
            ..Check::ok(name, found)
        }
    }

    /// The check with one more detail for `-o json`.
    pub(crate) fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Whether it failed.
    pub(crate) fn failed(&self) -> bool {
        matches!(self.status, Status::Fail(_))
    }
}

/// The checks run, in order.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Each check as it was run; doctor stops after a failure that makes the rest
    /// meaningless, so the last one may be the only FAIL.
    pub(crate) checks: Vec<Check>,
}

impl Report {
    /// Adds a check and says whether it failed.
    pub(crate) fn add(&mut self, check: Check) -> bool {
        let failed = check.failed();
        self.checks.push(check);
        failed
    }

    /// Adds a check; `None` when it failed, which ends the run (the checks after it would
    /// mean nothing).
    pub(crate) fn pass(&mut self, check: Check) -> Option<()> {
        (!self.add(check)).then_some(())
    }

    /// What a step found, when it worked; when it did not, its failed check added and `None`.
    pub(crate) fn step<T>(&mut self, step: Result<T, Check>) -> Option<T> {
        step.map_err(|check| self.add(check)).ok()
    }

    /// 0 when nothing failed (warnings allowed), else the first failure's code.
    pub(crate) fn exit(&self) -> Exit {
        self.checks
            .iter()
            .find_map(|c| match c.status {
                Status::Fail(exit) => Some(exit),
                _ => None,
            })
            .unwrap_or(Exit::Successful)
    }

    /// One line per check: `name  ok: found` or `name  FAIL: found; fix: ...`. Secrets are
    /// redacted and control characters escaped: much of the text comes from outside.
    pub(crate) fn text(&self) -> String {
        let width = self.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        let mut out = String::new();
        for check in &self.checks {
            let mut line = format!(
                "{:<width$}  {}: {}",
                check.name,
                check.status.word(),
                check.found
            );
            if let Some(fix) = &check.fix {
                line.push_str("; fix: ");
                line.push_str(fix);
            }
            out.push_str(&crate::terminal::scrub(&line));
            out.push('\n');
        }
        out
    }

    /// The whole report as one JSON object (printed redacted of registered secrets).
    pub(crate) fn json(&self) -> Value {
        let exit = self.exit();
        let checks: Vec<Value> = self
            .checks
            .iter()
            .map(|c| {
                json!({
                    "check": c.name,
                    "status": c.status.word(),
                    "found": c.found,
                    "fix": c.fix,
                    "exit": match c.status {
                        Status::Fail(exit) => Some(exit.code()),
                        _ => None,
                    },
                    "details": c.details,
                })
            })
            .collect();
        json!({
            "ok": exit == Exit::Successful,
            "exit": exit.code(),
            "warnings": self.checks.iter().filter(|c| c.status == Status::Warn).count(),
            "checks": checks,
        })
    }

    /// The stderr summary line.
    pub(crate) fn summary(&self) -> String {
        let warnings = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Warn)
            .count();
        let plural = if warnings == 1 { "" } else { "s" };
        match self.checks.iter().find(|c| c.failed()) {
            Some(failed) => format!(
                "doctor: {} FAILED (exit {}){}",
                failed.name,
                self.exit().code(),
                match warnings {
                    0 => String::new(),
                    n => format!("; {n} warning{plural} before it"),
                }
            ),
            None if warnings == 0 => format!("doctor: all {} checks ok", self.checks.len()),
            None => format!(
                "doctor: no failures, {warnings} warning{plural} in {} checks",
                self.checks.len()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_decides_the_exit() {
        let mut report = Report::default();
        assert!(!report.add(Check::ok("config", "none")));
        assert!(!report.add(Check::warn("settings", "w", "f")));
        assert_eq!(report.exit(), Exit::Successful);
        assert!(report.add(Check::fail(
            "connect",
            Exit::Unavailable,
            "refused",
            "port?"
        )));
        report.add(Check::fail("tls", Exit::Config, "x", "y"));
        assert_eq!(report.exit(), Exit::Unavailable);
        assert_eq!(
            report.summary(),
            "doctor: connect FAILED (exit 7); 1 warning before it"
        );
    }

    #[test]
    fn text_lines_are_aligned_and_escaped() {
        let mut report = Report::default();
        report.add(Check::ok("tls", "TLSv1.3"));
        report.add(Check::warn("credentials", "bad\u{1b}[2K", "fix it"));
        assert_eq!(
            report.text(),
            "tls          ok: TLSv1.3\ncredentials  warn: bad\\e[2K; fix: fix it\n"
        );
    }
}
