//! payverify: verify payment transactions against a gateway's Verify Transaction operation.
//!
//! Data flows one way: args -> settings -> job -> request -> response -> outcome -> checks ->
//! record -> render. The modules, in that order ([`run`] is the whole program):
//!
//! - [`cli`]: clap types; read only by `commands` and [`run`].
//! - [`commands`]: one module per subcommand, wiring the layers below together.
//! - [`settings`]: flag > env > config file > default, each value with its source.
//! - [`batch`]: many jobs: input, reader, workers, the ordered writer.
//! - [`journal`]: every check remembered (SQLite), and the payments orders claimed.
//! - [`transport`]: base URL, network set-up, pacing, the HTTP exchange and its retries.
//! - [`domain`]: reference, money, response model, signature, checks, outcome, job, verifier.
//! - [`render`]: tables, records (csv, jsonl, json), colour, stdout.
//! - [`sandbox`]: the loopback stand-in for the service.
//! - support: [`exit`], [`files`], [`log`], [`signal`], [`secret`], [`terminal`], [`io_util`].

// Tests read the JSON they made themselves; code reads untrusted JSON through domain::json
// (clippy.toml's disallowed-methods).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

mod batch;
mod cli;
mod commands;
mod domain;
mod journal;
mod render;
pub mod sandbox;
mod settings;
mod transport;

mod exit;
mod files;
mod io_util;
mod log;
mod reference;
mod secret;
mod signal;
mod terminal;

// The library's surface: what the binary, the integration tests (tests/it) and the fuzz
// targets (fuzz/) use. Everything else is private to the crate.
pub use cli::{GATE, NIGHTLY};
pub use domain::checks::{Expectations, HmacMode, evaluate, signed_message};
pub use domain::class::Class;
pub use domain::json::parse_object;
pub use domain::model::Verification;
pub use domain::money::Kobo;
pub use domain::outcome::{OUTCOME_NAMES, Outcome, Verdict, classify_response};
pub use domain::outcome_table::class_members;
pub use domain::signature::{sign, verify as verify_signature};
pub use exit::Exit;
pub use log::{Level, Log, panic_line};
pub use reference::{Reference, decode_segment, encode_segment};
pub use secret::Secret;
pub use settings::file::parse as parse_config;
pub use terminal::is_unsafe;
pub use transport::base_url::BaseUrl;
pub use transport::client::Response;

#[cfg(test)]
mod testutil;
mod unseen;

use std::ffi::OsString;

use crate::cli::{Command, GlobalArgs, WebhookCommand};
use crate::exit::Failure;
use crate::settings::Context;

/// Runs payverify with `args` (including the program name) and returns its exit status.
pub fn run<I, T>(args: I) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // First: a signal from here on is exit 130 and ends what payverify started.
    if let Err(failure) = signal::install() {
        signal::write_stderr(format!("payverify: {}\n", failure.message).as_bytes());
        return failure.exit;
    }
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e, &args),
    };
    let log = Log::new(level(&cli.global));
    let ctx = Context::process();
    let result: Result<Exit, Failure> = match &cli.command {
        Command::Verify(args) => commands::verify::run(&cli.global, args, &log, &ctx),
        Command::Gate(args) => commands::gate::run(&cli.global, args, &log, &ctx),
        Command::Reconcile(args) => commands::reconcile::run(&cli.global, args, &log, &ctx),
        Command::Sandbox(args) => commands::sandbox::run(&cli.global, args, &log, &ctx),
        Command::Webhook(WebhookCommand::Check(args)) => {
            commands::webhook::check(&cli.global, args, &log, &ctx)
        }
        Command::Config(command) => commands::config::run(&cli.global, command, &log, &ctx),
        Command::Doctor(args) => commands::doctor::run(&cli.global, args, &log, &ctx),
        Command::History(args) => commands::history::run(&cli.global, args, &log, &ctx),
        Command::Completions { shell } => commands::docs::completions(*shell),
        Command::Man => commands::docs::man(),
    };
    match result {
        Ok(exit) => exit,
        Err(failure) => {
            log.error(&failure.message);
            failure.exit
        }
    }
}

fn level(global: &GlobalArgs) -> Level {
    if global.quiet {
        Level::Quiet
    } else if global.verbose > 0 {
        Level::Verbose
    } else {
        Level::Normal
    }
}

/// The (sub)command a command line is in, e.g. `payverify webhook check`: each argument
/// that names a subcommand of the one before it. Its help is what a usage error points to.
fn command_path(args: &[OsString]) -> String {
    let root = cli::command();
    let mut command = root.clone();
    let mut path = vec!["payverify".to_owned()];
    let mut value_next = false;
    for arg in args.iter().skip(1).filter_map(|a| a.to_str()) {
        if arg == "--" {
            break;
        }
        // `--profile verify` names a profile, not the subcommand.
        if std::mem::take(&mut value_next) {
            continue;
        }
        if let Some(flag) = arg.strip_prefix("--").filter(|f| !f.contains('=')) {
            value_next = [&root, &command].iter().any(|c| {
                c.get_arguments()
                    .any(|a| a.get_long() == Some(flag) && a.get_action().takes_values())
            });
            continue;
        }
        let Some(sub) = command.find_subcommand(arg).cloned() else {
            continue;
        };
        path.push(sub.get_name().to_owned());
        command = sub;
    }
    path.join(" ")
}

/// Help and version go to stdout (exit 0); a usage error becomes one stderr line (exit 2)
/// pointing to the help of the (sub)command it is in. So does help or version asked for
/// with other arguments on a command that gates on a reference (see [`help_among_others`]).
fn clap_error(e: &clap::Error, args: &[OsString]) -> Exit {
    use clap::error::ErrorKind;
    let command = command_path(args);
    if let Some(flag) = help_among_others(e, args, &command) {
        let what = match command.as_str() {
            "payverify verify" | "payverify gate" => "reference",
            _ => "file name",
        };
        signal::write_stderr(
            format!(
                "payverify: {flag} cannot be combined with other arguments (a {what} that \
                 starts with '-' goes after --; see '{command} --help')\n"
            )
            .as_bytes(),
        );
        return Exit::Usage;
    }
    if let Some(flag) = help_off_a_terminal(e, args, &command) {
        // The help itself still reaches a pager or grep; only the exit status says it was
        // no verdict. A stdout that cannot take it changes nothing: the exit is 2 anyway.
        let _ = render::write_output(render::Printer::plain_stdout().text(&e.render().to_string()));
        let sub = command.trim_start_matches("payverify ");
        signal::write_stderr(
            format!(
                "payverify: {flag} alone on '{command}' exits 2 when stdout is not a \
                 terminal, so a reference that starts with '-' is never exit 0 to a script \
                 (such a reference goes after --); the help is on stdout, and 'payverify \
                 help {sub}' prints it with exit 0\n"
            )
            .as_bytes(),
        );
        return Exit::Usage;
    }
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        // Asked-for output like any other: a stdout that cannot take it is exit 10.
        let written = render::Printer::plain_stdout().text(&e.render().to_string());
        return match render::write_output(written) {
            Ok(()) => Exit::Successful,
            Err(failure) => {
                signal::write_stderr(format!("payverify: {}\n", failure.message).as_bytes());
                failure.exit
            }
        };
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        signal::write_stderr(e.render().to_string().as_bytes());
        return Exit::Usage;
    }
    // The message quotes the arguments, which can come from anyone (a reference taken
    // from a return URL): through the one sanitiser like every other stderr line.
    signal::write_stderr(
        format!(
            "payverify: {}\n",
            terminal::scrub(&clap_one_line(e, &command))
        )
        .as_bytes(),
    );
    Exit::Usage
}

/// The commands whose exit status gates on text from outside (a customer's reference, an
/// orders file, a webhook payload): there help and version are answers only when asked
/// for alone, never a verdict (`payverify verify -q ... "$ref"` with `$ref` = `--help` used
/// to print help and exit 0, which a shop's gate read as a payment shown good).
const GATES: [&str; 4] = [
    "payverify verify",
    "payverify gate",
    "payverify reconcile",
    "payverify webhook check",
];

/// For help or version asked for with its flag (not the `help` subcommand) on one of
/// [`GATES`] while stdout is not a terminal, the flag to name in the usage error. A script
/// running `payverify verify "$ref"` with a customer's `$ref` = `--help` (the `--` forgotten)
/// would otherwise get exit 0, the status of a paid order; so it is exit 2, the help
/// still printed (`payverify verify --help | less` shows it), and `payverify help verify`
/// gives it with exit 0 anywhere.
fn help_off_a_terminal(e: &clap::Error, args: &[OsString], command: &str) -> Option<String> {
    use clap::error::ErrorKind;
    use std::io::IsTerminal;
    if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || !GATES.contains(&command)
        || std::io::stdout().is_terminal()
    {
        return None;
    }
    args.iter().skip(1).find_map(|a| {
        let a = a.to_str()?;
        let flag = matches!(a, "--help" | "-h" | "--version" | "-V")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains(['h', 'V']));
        flag.then(|| a.to_owned())
    })
}

/// For help or version asked for on one of [`GATES`] together with any other argument,
/// the flag to name in the usage error (`--help`, `-V`, ...); `None` when it is alone (or
/// on another command, or the `help` subcommand), and clap's help or version stands.
fn help_among_others(e: &clap::Error, args: &[OsString], command: &str) -> Option<String> {
    use clap::error::ErrorKind;
    let asked = match e.kind() {
        ErrorKind::DisplayHelp => "--help",
        ErrorKind::DisplayVersion => "--version",
        _ => return None,
    };
    if !GATES.contains(&command) {
        return None;
    }
    let mut rest: Vec<&std::ffi::OsStr> = args.iter().skip(1).map(OsString::as_os_str).collect();
    // The words naming the command, each once.
    for word in command.split(' ').skip(1) {
        if let Some(at) = rest.iter().position(|a| *a == word) {
            rest.remove(at);
        }
    }
    let is_flag =
        |a: &&std::ffi::OsStr| matches!(a.to_str(), Some("--help" | "-h" | "--version" | "-V"));
    let flag = match rest.iter().position(is_flag) {
        Some(at) => rest.remove(at).to_string_lossy().into_owned(),
        // Asked for inside a bundle of short flags (`-qh`): that bundle is another
        // argument already. Without either, it is the `help` subcommand.
        None => {
            let bundled = rest.iter().any(|a| {
                a.to_str().is_some_and(|a| {
                    a.starts_with('-') && !a.starts_with("--") && a.contains(['h', 'V'])
                })
            });
            match bundled {
                true => asked.to_owned(),
                false => return None,
            }
        }
    };
    (!rest.is_empty()).then_some(flag)
}

/// Whether `args` (the program name first) parse as a payverify command line, with clap's
/// message when not: what keeps the examples in README and docs/ in step with the flags.
pub fn parses<I, T>(args: I) -> Result<(), String>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
    match cli::try_parse_from(args) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind(), DisplayHelp | DisplayVersion) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Folds clap's multi-line message into `<what> <details> (<tips>; see '<command> --help')`.
pub fn clap_one_line(e: &clap::Error, command: &str) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines();
    let first = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim()
        .trim_start_matches("error: ")
        .to_owned();
    // Indented lines right after the first name the arguments concerned.
    let mut details = Vec::new();
    let mut tips = Vec::new();
    for line in lines.map(str::trim) {
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip);
        } else if line.starts_with("Usage:") || line.starts_with("For more information") {
            continue;
        } else if !line.is_empty() && tips.is_empty() {
            details.push(line);
        }
    }
    let mut message = first;
    if !details.is_empty() {
        message = format!("{message} {}", details.join(", "));
    }
    if asked_for_client_secret(e) {
        tips = vec![NO_CLIENT_SECRET_FLAG];
    }
    let after_dashes = reference_before_dashes(e, command)
        .map(|arg| format!("gate's reference goes after --: '{command} [OPTIONS] -- {arg}'"));
    if let Some(tip) = &after_dashes {
        tips = vec![tip];
    }
    let help = format!("see '{command} --help'");
    tips.push(&help);
    format!("{message} ({})", tips.join("; "))
}

/// For gate, whose one reference comes after `--` (a customer controls it, so nothing there
/// is read as an option), the argument given before `--` where clap found no place for it:
/// most likely that reference. `None` for an unknown option (`--amout`) or another command.
fn reference_before_dashes(e: &clap::Error, command: &str) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if command != "payverify gate" || e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    match e.get(ContextKind::InvalidArg)? {
        ContextValue::String(arg) if !arg.starts_with('-') => Some(arg.clone()),
        _ => None,
    }
}

/// Why `--client-secret` is refused, and the ways that work.
const NO_CLIENT_SECRET_FLAG: &str = "there is no --client-secret flag on purpose: every user of \
the machine can read a command line; give the secret with --client-secret-file PATH, the \
PAYVERIFY_CLIENT_SECRET environment variable, or a config profile's client_secret_file, \
client_secret_command or client_secret";

/// Whether the unknown argument was `--client-secret` (or `--client-secret=...`).
fn asked_for_client_secret(e: &clap::Error) -> bool {
    use clap::error::{ContextKind, ContextValue};
    matches!(
        e.get(ContextKind::InvalidArg),
        Some(ContextValue::String(arg)) if arg.split('=').next() == Some("--client-secret")
    )
}
