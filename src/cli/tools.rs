//! The arguments of the commands that look at the set-up or a payload: config, doctor and
//! webhook.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::global::{ModeArg, ProfileArgs};
use super::verify::ExpectArgs;

/// `payverify config ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print the config file that would be used.
    Path,
    /// Print the effective settings of the selected profile and where each comes from.
    Show {
        /// `text`: a table of key, value and source; `json`: one object for scripts, with
        /// the same values and sources and every problem (never the secret).
        #[arg(short, long, value_enum, default_value_t = ShowFormat::Text, value_name = "FORMAT")]
        output: ShowFormat,
    },
    /// Write a commented config file (mode 0600) with one profile, taking --profile,
    /// --base-url, --client-id and --client-secret-file; on an existing file, add the profile
    /// and keep the rest of the file as it is.
    Init {
        /// Replace the profile if the file already has one of that name (the others are kept).
        #[arg(long)]
        force: bool,
    },
    /// List the profiles, marking the default.
    Profiles {
        /// Only the names, one a line, nothing else on stdout or stderr, exit 0 even without
        /// a readable config file (what shell completion of --profile calls).
        #[arg(long)]
        names: bool,
    },
}

/// `payverify webhook ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum WebhookCommand {
    /// Check a webhook body or saved verify response with the client secret, offline.
    /// Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a
    /// paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final;
    /// 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret.
    Check(WebhookCheckArgs),
}

/// Arguments of `payverify webhook check`.
#[derive(Debug, Args)]
pub(crate) struct WebhookCheckArgs {
    /// The JSON payload file, or - for stdin [default: -]
    #[arg(value_name = "FILE|-")]
    pub(crate) input: Option<PathBuf>,

    /// Expectations.
    #[command(flatten)]
    pub(crate) expect: ExpectArgs,

    /// The mode the payload must have.
    #[command(flatten)]
    pub(crate) mode: ModeArg,
}

/// Arguments of `payverify doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// A real transaction reference: verify it and say whether its hmac verifies under the
    /// configured secret, i.e. whether hmac = "require" is safe to set.
    #[arg(value_name = "REFERENCE")]
    pub(crate) reference: Option<String>,

    /// `text`: one line per check; `json`: one object for scripts and support tickets
    /// (never holding the secret).
    #[arg(short, long, value_enum, default_value_t = DoctorFormat::Text, value_name = "FORMAT")]
    pub(crate) output: DoctorFormat,

    /// Settings a profile can also set; --timeout bounds each step.
    #[command(flatten)]
    pub(crate) profile_args: ProfileArgs,
}

/// How `payverify doctor` prints its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DoctorFormat {
    /// One line per check: its name, ok/warn/FAIL, what was found and the fix.
    Text,
    /// One JSON object: the checks, each with its details, and the exit status.
    Json,
}

/// How `payverify config show` prints the settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShowFormat {
    /// A table: key, value, where it came from, and a mark on each line with a problem.
    Text,
    /// One JSON object: `ok`, `exit`, `config`, `profile`, `settings` (each key's value
    /// and source), `problems`, `warnings`.
    Json,
}

/// Arguments of `payverify history`.
#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    /// The reference whose checks to show, oldest first (after `--` when it starts with
    /// `-`).
    #[arg(
        value_name = "REFERENCE",
        required_unless_present = "changed",
        conflicts_with = "changed"
    )]
    pub(crate) reference: Option<String>,

    /// Instead, every reference whose status, amount or currency changed between two of
    /// its checks (a payment reversed, an amount corrected), with both answers
    #[arg(long)]
    pub(crate) changed: bool,

    /// With --changed: only the changes whose later check is this recent, e.g. 24h, 7d
    #[arg(long, value_name = "DURATION", requires = "changed",
          value_parser = |s: &str| crate::settings::duration::SINCE.parse(s).map_err(|why| format!("'{s}' {why}")))]
    pub(crate) since: Option<std::time::Duration>,

    /// `table` for people, or `json`: one array of the entries (with --changed, of
    /// `{reference, before, after}`)
    #[arg(short, long, value_enum, default_value_t = HistoryFormat::Table, value_name = "FORMAT")]
    pub(crate) output: HistoryFormat,
}

/// How `payverify history` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HistoryFormat {
    /// One row per check.
    Table,
    /// One JSON array.
    Json,
}
