//! Command-line types (clap derive). Parsing only: meaning is given in `settings`.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::domain::outcome_table::class_table;
use crate::exit::Exit;
// The value enums live with the layer that acts on them; clap parses them here.
pub(crate) use crate::render::OutputFormat;
pub(crate) use crate::transport::client::AuthStyle;

mod examples;
mod global;
mod reconcile;
mod sandbox;
mod tools;
mod verify;

pub(crate) use examples::NIGHTLY_WHAT;
pub use examples::{GATE, NIGHTLY};
pub(crate) use global::{GlobalArgs, ModeArg, ProfileArgs};
pub(crate) use reconcile::{ReconcileArgs, parse_delimiter};
pub(crate) use sandbox::SandboxArgs;
pub(crate) use tools::{
    ConfigCommand, DoctorArgs, DoctorFormat, HistoryArgs, HistoryFormat, ShowFormat,
    WebhookCheckArgs, WebhookCommand,
};
pub(crate) use verify::{BatchArgs, GateArgs, VerifyArgs};

/// The widest help text is wrapped to, however wide the terminal.
const MAX_HELP_WIDTH: usize = 100;

/// Verify payment transactions against the gateway's Verify Transaction operation.
#[derive(Debug, Parser)]
#[command(
    name = "payverify",
    version,
    propagate_version = true,
    max_term_width = MAX_HELP_WIDTH
)]
pub(crate) struct Cli {
    /// Options every subcommand accepts, before or after the subcommand name.
    #[command(flatten)]
    pub(crate) global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Verify a transaction by its reference and report its outcome.
    Verify(VerifyArgs),
    /// Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a
    /// genuine hmac, of this order's amount, currency and merchant reference, in the mode
    /// the profile expects. Nothing on stdout; on stderr, why not.
    Gate(GateArgs),
    /// Check an orders or settlement file (CSV) row by row against the gateway: each row
    /// MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status.
    Reconcile(ReconcileArgs),
    /// Serve a local stand-in for the service, with magic references for testing scripts.
    Sandbox(SandboxArgs),
    /// Check payloads the gateway signed, offline.
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Inspect or create the config file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check the set-up step by step (config, settings, base URL, name resolution,
    /// connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies
    /// under the configured secret.
    Doctor(DoctorArgs),
    /// Show what the journal remembers: every check of a reference, oldest first, or
    /// (--changed) the payments whose answer changed between two checks.
    History(HistoryArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout.
    Man,
}

/// The width help text is wrapped to, found as clap would find it: the first of stdout,
/// stderr and stdin that is a terminal (so `sandbox --help | less` on an 80-column terminal
/// is 80), else `COLUMNS`, else 100; at most [`MAX_HELP_WIDTH`]. A width of 0 (`COLUMNS=0`,
/// `stty cols 0`) says nothing and is passed over: clap wrapped every word onto a line.
fn help_width() -> usize {
    let columns = terminal_size::terminal_size()
        .map(|(width, _)| usize::from(width.0))
        .filter(|&c| c > 0)
        .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .unwrap_or(MAX_HELP_WIDTH);
    columns.min(MAX_HELP_WIDTH)
}

/// The clap command with the texts that are built at run time (the exit-code table).
pub(crate) fn command() -> clap::Command {
    // The magic-reference table is laid out for the width clap wraps help to, so clap never
    // re-wraps it through its columns.
    let magic = format!(
        "{}\nCredentials: client id '{}', client secret '{}'.",
        crate::sandbox::magic_section_for(help_width().saturating_sub(2)),
        crate::sandbox::CLIENT_ID,
        crate::sandbox::CLIENT_SECRET
    );
    // Set, so clap does not find a width of its own (it took COLUMNS=0 as 0); every
    // subcommand inherits it.
    let mut cmd = Cli::command().term_width(help_width());
    // A subcommand's own argument of the same id takes the place of a global one, so these
    // hidden copies keep the options accepted but out of the help of commands that ignore them.
    let hidden: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| NOT_FOR_LOCAL_COMMANDS.contains(&a.get_id().as_str()))
        .map(|a| a.clone().global(false).hide(true))
        .collect();
    for name in ["sandbox", "man", "completions"] {
        cmd = cmd.mut_subcommand(name, |c| c.args(hidden.clone()));
    }
    let cmd = cmd
        .mut_subcommand("verify", |c| {
            c.after_help(format!("{}\n{}", Exit::table(), class_table()))
        })
        // One reference: the workers and the pace do not apply; the hmac is always required.
        .mut_subcommand("gate", |c| {
            c.mut_arg("jobs", |a| a.hide(true))
                .mut_arg("rate", |a| a.hide(true))
                .mut_arg("hmac", |a| a.hide(true))
                .after_help(Exit::table())
        })
        .mut_subcommand("reconcile", |c| c.after_help(reconcile_exit()))
        .mut_subcommand("sandbox", |c| c.after_help(magic))
        // Doctor makes one attempt per step, each bounded by --timeout: retries do not apply.
        .mut_subcommand("doctor", |c| {
            c.mut_arg("retries", |a| a.hide(true))
                .mut_arg("wait", |a| a.hide(true))
                .mut_arg("give_up_after", |a| a.hide(true))
                .after_help(DOCTOR_EXIT)
        });
    with_examples(cmd, "")
}

/// `cmd` and its subcommands with their EXAMPLES after the rest of their help.
fn with_examples(cmd: clap::Command, path: &str) -> clap::Command {
    let mut cmd = match examples::section(path) {
        Some(section) => {
            let after = match cmd.get_after_help() {
                Some(text) => format!("{}\n\n{section}", text.to_string().trim_end()),
                None => section,
            };
            cmd.after_help(after)
        }
        None => cmd,
    };
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        let sub_path = match path {
            "" => name.clone(),
            _ => format!("{path} {name}"),
        };
        cmd = cmd.mut_subcommand(&name, |c| with_examples(c, &sub_path));
    }
    cmd
}

/// Global options that commands which never call the service ignore, so their help does not
/// list them; `--sandbox` conflicts with each (it brings its own service).
const NOT_FOR_LOCAL_COMMANDS: [&str; 5] = [
    "base_url",
    "client_id",
    "client_secret_file",
    "profile",
    "config",
];

/// What `payverify reconcile` exits with: each row's code, merged (the results' list from
/// the result table).
pub(crate) fn reconcile_exit() -> String {
    format!(
        "Results, in precedence order, with each row's exit code:\n{}\n{}\n{RECONCILE_EXIT_REST}",
        crate::domain::outcome_table::help_table(),
        crate::domain::outcome_table::result_class_table()
    )
}

/// What follows the results' list in [`reconcile_exit`].
const RECONCILE_EXIT_REST: &str =
    "Order status words (case, spaces, punctuation and a wc- prefix aside): paid = processing,
completed, complete, on hold, paid, authorized, authorised, approved, successful, success,
settled, captured; not paid = cancelled, canceled, failed, refunded, pending, pending
payment, unpaid, declined, voided, void, reversed, expired, abandoned; any other word leaves
the gateway's result as it is.

Exit status: the largest row code (0 only when every row is MATCHED, LINE_ITEM, BOTH_UNPAID,
SKIPPED or TOTALS); 2 for an empty file, a missing or ambiguous column, an --only that matches no
row, or bad arguments; 6 for a bad [profiles.NAME.reconcile] key; 10 when the run ends
before every row is decided (the reader of stdout went away, the output cannot be written,
the file cannot be read past a line), whatever the decided rows say; 130 when interrupted.";

/// What `payverify doctor` exits with.
pub(crate) const DOCTOR_EXIT: &str = "Exit status: 0 when no check failed (warnings allowed); otherwise the \
code of the first failure: 6 configuration, 7 unreachable (name, connection, TLS), 5 credentials \
rejected, 8 not the service, 3 REFERENCE not found, 4 the answer is for another reference or \
another mode than expect_mode.";

/// Parses arguments, with the run-time help texts.
pub(crate) fn try_parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

#[cfg(test)]
mod tests;
