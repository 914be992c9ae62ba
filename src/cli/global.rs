//! The options every subcommand takes, and the per-run settings a config profile can also set.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::domain::checks::HmacMode;
use crate::render::ColorChoice;
use crate::settings::Flags;
use crate::settings::duration;
use crate::transport::client::AuthStyle;

/// Options accepted before or after any subcommand; help lists them under their own heading,
/// after the subcommand's own options.
#[derive(Debug, Args, Default, Clone)]
#[command(next_help_heading = "Global options")]
pub(crate) struct GlobalArgs {
    /// Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) base_url: Option<String>,

    /// Client id (the dashboard's public key) [env: PAYVERIFY_CLIENT_ID]
    #[arg(long, global = true, value_name = "ID")]
    pub(crate) client_id: Option<String>,

    /// Read the client secret from this file. There is no --client-secret flag on purpose:
    /// argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file.
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) client_secret_file: Option<PathBuf>,

    /// Config profile to use [env: PAYVERIFY_PROFILE] [default: the file's default_profile,
    /// else a profile named default]
    #[arg(long, global = true, value_name = "NAME")]
    pub(crate) profile: Option<String>,

    /// Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml;
    /// macOS ~/Library/Application Support/payverify/config.toml; Windows
    /// %APPDATA%\payverify\config\config.toml]
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,

    /// When to colour output; `auto` colours only a terminal and honours NO_COLOR.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub(crate) color: ColorChoice,

    /// Log each attempt (method, URL, status, time, retry decision) to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,

    /// Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL]
    /// [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS
    /// ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        value_parser = parse_journal,
        conflicts_with = "no_journal"
    )]
    pub(crate) journal: Option<PathBuf>,

    /// Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and
    /// journal = "off" in a profile do the same)
    #[arg(long, global = true)]
    pub(crate) no_journal: bool,

    /// Print nothing on stderr and no default table: the exit status is the answer. An
    /// explicit -o still writes its data on stdout.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
}

impl GlobalArgs {
    /// The settings flags of this command line: these global ones and a subcommand's
    /// per-run ones (`ProfileArgs::default()` for subcommands without them).
    pub(crate) fn flags(&self, run: &ProfileArgs) -> Flags {
        Flags {
            config: self.config.clone(),
            profile: self.profile.clone(),
            base_url: self.base_url.clone(),
            client_id: self.client_id.clone(),
            client_secret_file: self.client_secret_file.clone(),
            auth_style: run.auth_style,
            timeout: run.timeout,
            retries: run.retries,
            wait: run.wait,
            give_up_after: run.give_up_after,
            hmac: run.hmac,
            proxy: run.proxy.clone(),
            ca_cert: run.ca_cert.clone(),
            expect_mode: run.mode.expect_mode.clone(),
            journal: self.journal.clone(),
            no_journal: self.no_journal,
        }
    }
}

/// Per-command settings that a config profile can also set (config key of the same name).
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ProfileArgs {
    /// How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration
    /// (30s, 500ms, 1m) [default: 30s] [config: timeout]
    #[arg(long, value_name = "DURATION", value_parser = duration_flag(duration::TIMEOUT), allow_negative_numbers = true)]
    pub(crate) timeout: Option<Duration>,

    /// Retries after the first attempt, for failures: network errors, timeouts and
    /// 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after
    /// [default: 2] [config: retries]
    #[arg(long, value_name = "N", value_parser = parse_retries, allow_negative_numbers = true)]
    pub(crate) retries: Option<u32>,

    /// Ask a not-final (e.g. PENDING) transaction again until it is final or this long has
    /// passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer
    /// (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on
    /// [default: 0] [config: wait]
    #[arg(long, value_name = "DURATION", value_parser = duration_flag(duration::WAIT), allow_hyphen_values = true)]
    pub(crate) wait: Option<Duration>,

    /// How long a reference the service keeps throttling (429, 503) is asked again, paced,
    /// from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait,
    /// whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again)
    /// [default: 10m] [config: give_up_after]
    #[arg(long, value_name = "DURATION", value_parser = duration_flag(duration::GIVE_UP_AFTER),
          allow_hyphen_values = true)]
    pub(crate) give_up_after: Option<Duration>,

    /// How the Authorization header carries the credentials [default: standard]
    /// [config: auth_style]
    #[arg(long, value_enum, value_name = "STYLE")]
    pub(crate) auth_style: Option<AuthStyle>,

    /// Check the response's hmac: `warn` on a mismatch or a missing hmac, `require` it
    /// (exit 4), or `off` [default: warn] [config: hmac]
    #[arg(long, value_enum, value_name = "MODE")]
    pub(crate) hmac: Option<HmacMode>,

    /// Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from
    /// the environment, minus NO_PROXY] [config: proxy]
    #[arg(long, value_name = "URL")]
    pub(crate) proxy: Option<String>,

    /// Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection
    /// CA [config: ca_cert]
    #[arg(long, value_name = "PATH")]
    pub(crate) ca_cert: Option<PathBuf>,

    /// The expected mode.
    #[command(flatten)]
    pub(crate) mode: ModeArg,
}

/// `--expect-mode`: a setting a profile can also set, and an expectation.
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ModeArg {
    /// Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode,
    /// or none, fails the checks (exit 4). The interface documents only dev, its test
    /// sample's; `payverify doctor REFERENCE` shows the mode a real payment carries
    /// [config: expect_mode]
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub(crate) expect_mode: Option<String>,
}

/// A mode to expect (see [`crate::settings::mode_problem`]).
fn parse_mode(s: &str) -> Result<String, String> {
    match crate::settings::mode_problem(s) {
        Some(why) => Err(format!(
            "{why}; give the mode your payments carry, e.g. live"
        )),
        None => Ok(s.to_owned()),
    }
}

/// A duration flag's parser: `bounds`' grammar and range, the message quoting the value.
fn duration_flag(
    bounds: duration::Bounds,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |s| bounds.parse(s).map_err(|why| format!("'{s}' {why}"))
}

/// A journal file's path: not empty, and not `-`, which names no file here (the journal
/// is read and written at once, never a stream).
fn parse_journal(s: &str) -> Result<PathBuf, String> {
    match s.trim() {
        "" => Err("the journal needs a file's path".to_owned()),
        "-" => Err("the journal is a file, not stdin or stdout: give a path".to_owned()),
        _ => Ok(PathBuf::from(s)),
    }
}

fn parse_retries(s: &str) -> Result<u32, String> {
    whole_in_range(s, 0, u64::from(crate::settings::MAX_RETRIES))
}

/// A whole number from `low` to `high` (a range `T` holds), or a message naming that range.
pub(super) fn whole_in_range<T: TryFrom<u64>>(s: &str, low: u64, high: u64) -> Result<T, String> {
    let t = s.trim();
    (t.parse::<u64>().ok())
        .filter(|n| t.bytes().all(|b| b.is_ascii_digit()) && (low..=high).contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| format!("'{s}' is not a whole number from {low} to {high}"))
}
