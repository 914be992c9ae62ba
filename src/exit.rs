//! The exit-code contract: the one enum every outcome is mapped to.
//!
//! Scripts gate on these numbers, so they never change meaning. `payverify verify --help`
//! and the README print the table that [`Exit::table`] renders from this enum.

use std::fmt;

/// A process exit status with a documented meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exit {
    /// The transaction is SUCCESSFUL and every requested check passed.
    Successful,
    /// The service reports the transaction did not succeed (FAILED).
    Failed,
    /// Bad arguments or reference.
    Usage,
    /// HTTP 404: no transaction has that reference.
    NotFound,
    /// An integrity or expectation check failed.
    CheckFailed,
    /// HTTP 401 or 403: the credentials were rejected.
    AuthRejected,
    /// Missing or invalid credentials, base URL or config file.
    Config,
    /// Network error, timeout or 5xx after the retries, or throttled past the deadline.
    Unavailable,
    /// A response that is not the documented shape, an unexpected HTTP status, or too large.
    BadResponse,
    /// A status other than SUCCESSFUL or FAILED.
    NotFinal,
    /// payverify could not do its own local work (writing the output failed, a worker
    /// failed), or a batch ended before every input item was decided: nothing is known
    /// about the payments it did not reach.
    Internal,
    /// Interrupted by Ctrl-C or SIGTERM.
    Interrupted,
}

impl Exit {
    /// Every exit status, in table order.
    pub const ALL: [Exit; 12] = [
        Exit::Successful,
        Exit::Failed,
        Exit::Usage,
        Exit::NotFound,
        Exit::CheckFailed,
        Exit::AuthRejected,
        Exit::Config,
        Exit::Unavailable,
        Exit::BadResponse,
        Exit::NotFinal,
        Exit::Internal,
        Exit::Interrupted,
    ];

    /// The numeric process exit status.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Successful => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::NotFound => 3,
            Exit::CheckFailed => 4,
            Exit::AuthRejected => 5,
            Exit::Config => 6,
            Exit::Unavailable => 7,
            Exit::BadResponse => 8,
            Exit::NotFinal => 9,
            Exit::Internal => 10,
            Exit::Interrupted => 130,
        }
    }

    /// One line saying what the status means, as printed in `--help` and the README.
    pub const fn meaning(self) -> &'static str {
        match self {
            Exit::Successful => {
                "SUCCESSFUL (and every requested check passed); reconcile: every row MATCHED, \
                 LINE_ITEM (of an order counted once), BOTH_UNPAID (FAILED, and not paid in the \
                 shop), SKIPPED (not a gateway payment) or TOTALS (the file's own totals row, \
                 adding up)"
            }
            Exit::Failed => "FAILED: the service reports the transaction did not succeed",
            Exit::Usage => "usage error: bad arguments or reference",
            Exit::NotFound => "not found: HTTP 404, no transaction has that reference",
            Exit::CheckFailed => {
                "check failed: hmac, code 00, reference match, expected amount, currency, \
                 merchant ref or mode; reconcile: also DUPLICATE, NO_REFERENCE, PAID_SHOP_UNPAID, \
                 TOTALS_MISMATCH"
            }
            Exit::AuthRejected => "authentication rejected: HTTP 401 or 403",
            Exit::Config => {
                "configuration error: missing/invalid credentials, base URL or config file"
            }
            Exit::Unavailable => {
                "service unavailable: network error, timeout or 5xx after the retries, or \
                 still throttled (429, 503) at --give-up-after"
            }
            Exit::BadResponse => {
                "bad response: not a JSON object, no status, other HTTP status, too large"
            }
            Exit::NotFinal => "not final: a status other than SUCCESSFUL or FAILED",
            Exit::Internal => {
                "local error: payverify could not write its output or failed internally, or the \
                 run ended before every input item was verified"
            }
            Exit::Interrupted => "interrupted by Ctrl-C or SIGTERM",
        }
    }

    /// Every exit status from the most severe to the least: the merge rule's order. A run
    /// that is broken (stopped, incomplete, misconfigured, its credentials rejected) comes
    /// first; then what needs a person now (a failed check, an answer that is not the
    /// service's, a row that cannot be read), never hidden behind what only needs time or
    /// nothing (unavailable, not final, not found, declined). The codes keep their numbers,
    /// which say nothing of this order.
    pub const BY_SEVERITY: [Exit; 12] = [
        Exit::Interrupted,
        Exit::Internal,
        Exit::Config,
        Exit::AuthRejected,
        Exit::CheckFailed,
        Exit::BadResponse,
        Exit::Usage,
        Exit::Unavailable,
        Exit::NotFinal,
        Exit::NotFound,
        Exit::Failed,
        Exit::Successful,
    ];

    /// Where the status is in [`Exit::BY_SEVERITY`]: 0 the most severe.
    fn rank(self) -> usize {
        Exit::BY_SEVERITY
            .iter()
            .position(|e| *e == self)
            .unwrap_or(Exit::BY_SEVERITY.len())
    }

    /// The merge rule for several results: the more severe wins ([`Exit::BY_SEVERITY`]), so
    /// 0 means every reference was SUCCESSFUL and passed its checks, and a script reading
    /// `$?` sees a failed check (4) before a payment that is only not final yet (9).
    pub fn merge(self, other: Exit) -> Exit {
        match other.rank() < self.rank() {
            true => other,
            false => self,
        }
    }

    /// The merge order as help prints it: `130, 10, 6, ...`.
    pub fn severity_line() -> String {
        let codes: Vec<String> = Exit::BY_SEVERITY
            .iter()
            .map(|e| e.code().to_string())
            .collect();
        format!(
            "A batch exits with its most severe status, most severe first: {}.",
            codes.join(", ")
        )
    }

    /// The exit-code table as plain text, for `--help`.
    pub fn table() -> String {
        let mut out = String::from("Exit status:\n");
        for exit in Exit::ALL {
            out.push_str(&format!("  {:>3}  {}\n", exit.code(), exit.meaning()));
        }
        out.push_str(&format!("  {}\n", Exit::severity_line()));
        out
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

/// An error that already knows its exit status and its one-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The exit status the process ends with.
    pub exit: Exit,
    /// What kind of problem it is, for callers that branch on it (today `doctor`, which
    /// files config-file and profile trouble under its `config` check and the rest under
    /// `settings`); the message is for people and may change.
    pub cause: Cause,
    /// What happened, with a hint in parentheses where one helps; never a secret.
    pub message: String,
}

/// What a [`Failure`] is about, beyond its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Bad arguments or input (exit 2).
    Usage,
    /// The config file cannot be read or is not valid TOML of the documented shape.
    ConfigFile,
    /// The profile asked for does not exist, or the file has profiles and none is selected.
    Profile,
    /// A setting nothing gave (base URL, client id, client secret).
    SettingMissing,
    /// A setting with a value out of its range or not one of its choices.
    SettingInvalid,
    /// The client secret's source cannot be read (file, command) or gives no usable secret.
    Secret,
    /// The base URL is not usable.
    BaseUrl,
    /// The proxy URL is not usable.
    Proxy,
    /// The CA certificate file is not usable.
    CaCert,
    /// Stdout cannot take the output.
    Output,
    /// payverify itself failed (a thread could not start, ...).
    /// The journal cannot be opened, is not payverify's, or cannot be written.
    Journal,
    Internal,
    /// Anything else; its exit status says enough.
    Other,
}

impl Failure {
    /// A failure with the given exit status and message, its cause told by the status.
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        let cause = match exit {
            Exit::Usage => Cause::Usage,
            Exit::Internal => Cause::Internal,
            _ => Cause::Other,
        };
        Failure {
            exit,
            cause,
            message: message.into(),
        }
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(Exit::Usage, message)
    }

    /// A configuration error (exit 6) of the given cause.
    pub fn config(cause: Cause, message: impl Into<String>) -> Self {
        Failure {
            cause,
            ..Failure::new(Exit::Config, message)
        }
    }

    /// The same failure, filed under `cause`.
    pub fn because(self, cause: Cause) -> Self {
        Failure { cause, ..self }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_contract() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 130]);
    }

    #[test]
    fn merge_keeps_the_most_severe() {
        assert_eq!(Exit::Successful.merge(Exit::Failed), Exit::Failed);
        assert_eq!(Exit::Successful.merge(Exit::Successful), Exit::Successful);
        // A failed check or a bad answer is never hidden behind not final, unavailable, not
        // found or declined, whichever comes first.
        for look in [Exit::CheckFailed, Exit::BadResponse] {
            for wait in [
                Exit::NotFinal,
                Exit::Unavailable,
                Exit::NotFound,
                Exit::Failed,
            ] {
                assert_eq!(look.merge(wait), look, "{look:?} {wait:?}");
                assert_eq!(wait.merge(look), look, "{wait:?} {look:?}");
            }
        }
        // A broken run is above every record's status.
        for exit in Exit::ALL {
            assert_eq!(
                Exit::Internal.merge(exit).merge(Exit::Interrupted),
                Exit::Interrupted
            );
            if exit != Exit::Interrupted {
                assert_eq!(exit.merge(Exit::Internal), Exit::Internal, "{exit:?}");
            }
        }
        // Every status once, and 0 the least.
        let mut ranked = Exit::BY_SEVERITY.to_vec();
        ranked.sort();
        assert_eq!(ranked, Exit::ALL);
        assert_eq!(Exit::BY_SEVERITY.last(), Some(&Exit::Successful));
    }

    #[test]
    fn order_follows_the_numbers() {
        for pair in Exit::ALL.windows(2) {
            assert!(
                pair[0] < pair[1],
                "{:?} should sort before {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn table_lists_every_code() {
        let table = Exit::table();
        for exit in Exit::ALL {
            assert!(table.contains(exit.meaning()));
        }
    }
}
