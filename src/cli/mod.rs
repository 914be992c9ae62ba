//! Command-line types (clap derive). Parsing only: meaning is given in `settings`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::domain::checks::{Expectations, HmacMode};
use crate::domain::class::FailOn;
use crate::domain::money::Kobo;
use crate::domain::outcome_table::class_table;
use crate::exit::Exit;
use crate::settings::Flags;
use crate::settings::duration;
// The value enums live with the layer that acts on them; clap parses them here.
pub(crate) use crate::batch::csv_input::AmountUnit;
pub(crate) use crate::render::{ColorChoice, OutputFormat};
pub(crate) use crate::transport::client::AuthStyle;

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
        }
    }
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
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout.
    Man,
}

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

/// Arguments of `payverify sandbox`.
#[derive(Debug, Args)]
pub(crate) struct SandboxArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8089, value_name = "N")]
    pub(crate) port: u16,

    /// Milliseconds added to every response, to model a real network.
    #[arg(long, default_value_t = 0, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub(crate) latency_ms: u64,

    /// Serve HTTPS, with a certificate for 127.0.0.1, ::1 and localhost signed by a CA made
    /// at start; its PEM path is printed on the second line of stdout, for --ca-cert.
    #[arg(long)]
    pub(crate) tls: bool,

    /// Write the CA's PEM here instead of a temporary file (which is removed on exit).
    #[arg(long, value_name = "PATH", requires = "tls")]
    pub(crate) tls_ca_out: Option<PathBuf>,

    /// Throttle like a rate-limited gateway: a token bucket of N requests per second (50/s,
    /// 0.5/s, 600/m); a request that finds it empty gets --rate-limit-status. Change it
    /// while running: POST /sandbox/rate-limit?rate=20/s (rate=off lifts it); counts per
    /// second: GET /sandbox/stats.
    #[arg(long, value_name = "N/s", value_parser = parse_sandbox_rate)]
    pub(crate) rate_limit: Option<f64>,

    /// With --rate-limit: requests the bucket holds when full, the burst sent at once
    /// [default: one second's worth]
    #[arg(long, value_name = "B", requires = "rate_limit",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) burst: Option<u32>,

    /// With --rate-limit: the status of a throttled answer.
    #[arg(long, value_name = "429|503", requires = "rate_limit", default_value_t = 429,
          value_parser = parse_throttle_status)]
    pub(crate) rate_limit_status: u16,

    /// With --rate-limit: the Retry-After of a throttled answer, whole seconds, or `none`
    /// to send none.
    #[arg(long, value_name = "SECS|none", requires = "rate_limit", default_value = "1",
          value_parser = parse_retry_after_flag)]
    pub(crate) retry_after: RetryAfterFlag,
}

/// `--retry-after`: whole seconds, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryAfterFlag(pub(crate) Option<u32>);

fn parse_retry_after_flag(s: &str) -> Result<RetryAfterFlag, String> {
    match s.trim() {
        "none" => Ok(RetryAfterFlag(None)),
        t => whole_in_range(t, 0, 86_400)
            .map(|n| RetryAfterFlag(u32::try_from(n).ok()))
            .map_err(|_| format!("'{s}' is not whole seconds from 0 to 86400, or none")),
    }
}

fn parse_throttle_status(s: &str) -> Result<u16, String> {
    match s.trim() {
        "429" => Ok(429),
        "503" => Ok(503),
        _ => Err(format!("'{s}' is not 429 or 503")),
    }
}

fn parse_sandbox_rate(s: &str) -> Result<f64, String> {
    crate::sandbox::parse_rate(s)
}

/// Arguments of `payverify verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Transaction references, each verified exactly as given: one with whitespace around
    /// it is refused (exit 2), never trimmed into another. `-` reads them from stdin, one
    /// per line, as --from does. Put `--` before a reference from outside (`-- "$ref"`): a
    /// customer can write one like an option.
    #[arg(value_name = "REFERENCE", required_unless_present_any = ["from", "after_dashes"])]
    pub(crate) references: Vec<String>,

    /// References after `--`, taken as written: never an option, and `-` there is a
    /// reference, not stdin (a customer's reference can be `-`).
    #[arg(last = true, value_name = "REFERENCE")]
    pub(crate) after_dashes: Vec<String>,

    /// Read references from FILE, one per line, each exactly as written: only the spaces,
    /// tabs and CR around it are taken off. A blank line is an empty reference (refused,
    /// exit 2) and a line starting with # is a reference like any other, unless --comments
    /// is given (a customer's reference can start with #).
    #[arg(long, value_name = "FILE")]
    pub(crate) from: Option<PathBuf>,

    /// The lists (--from, -) are written by hand: skip blank lines and lines starting with
    /// #. Without it, every line is a reference as a customer gave it, and none is dropped
    /// without a word.
    #[arg(long)]
    pub(crate) comments: bool,

    /// Output format. One reference: table or the service's JSON object. Several: one
    /// record per reference (json is one array of the jsonl records). Given explicitly, it
    /// is written even with -q [default: table]
    #[arg(short, long, value_enum, ignore_case = true, value_name = "FORMAT")]
    pub(crate) output: Option<OutputFormat>,

    /// Continue an earlier run: FILE is its output (-o jsonl or csv, the same -o as now,
    /// complete or cut short). References whose record there is a final answer are not asked
    /// again: the answer it holds is judged again under this run's checks and written in its
    /// place as a fresh record is (a csv SUCCESSFUL or CHECK_FAILED is asked). Write to a new
    /// file.
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,

    /// For a scheduled batch: exit non-zero only for records of these outcome classes (the
    /// worst exit among them, else 0), so a declined card does not page anyone; the
    /// classes and their outcomes are listed below. Needs a batch (--from, -, or several
    /// references) and -o csv, jsonl or json; refused for one reference argument and for
    /// gate. The summary line names the records it left out [default: every record counts]
    #[arg(long, value_name = "CLASS[,CLASS...]", value_parser = parse_fail_on)]
    pub(crate) fail_on: Option<FailOn>,

    /// Workers, pacing and the sandbox.
    #[command(flatten)]
    pub(crate) batch: BatchArgs,

    /// Settings a profile can also set.
    #[command(flatten)]
    pub(crate) profile_args: ProfileArgs,

    /// Expectations.
    #[command(flatten)]
    pub(crate) expect: ExpectArgs,
}

/// Arguments of `payverify gate`: the order's expectations are required, every check is on.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("order_amount").required(true).args(["amount", "amount_kobo"])))]
pub(crate) struct GateArgs {
    /// The reference to verify, after `--` (a customer controls it: nothing there is read as
    /// an option).
    #[arg(last = true, required = true, value_name = "REFERENCE")]
    pub(crate) reference: String,

    /// The order's amount in naira, at most two decimals (40000, 40000.50, 40,000,
    /// ₦40,000.00); compared exactly in kobo. Or --amount-kobo.
    #[arg(long, visible_alias = "expect-amount", value_name = "NAIRA", value_parser = parse_naira,
          allow_hyphen_values = true)]
    pub(crate) amount: Option<Kobo>,

    /// The order's amount in kobo (an integer).
    #[arg(long, visible_alias = "expect-amount-kobo", value_name = "KOBO",
          value_parser = parse_kobo, allow_hyphen_values = true, conflicts_with = "amount")]
    pub(crate) amount_kobo: Option<Kobo>,

    /// The merchant reference the order was paid under, exactly (what the shop stored for
    /// it): a payment made for another order never passes.
    #[arg(long, visible_alias = "expect-merchant-ref", value_name = "REF", required = true,
          value_parser = parse_merchant_ref)]
    pub(crate) merchant_ref: String,

    /// The order's currency (case-insensitive).
    #[arg(long, visible_alias = "expect-currency", value_name = "CODE", default_value = "NGN",
          value_parser = parse_currency)]
    pub(crate) currency: String,

    /// Refused with its own message: a gate's exit status is its one payment's.
    #[arg(long, hide = true, value_name = "CLASS", allow_hyphen_values = true)]
    pub(crate) fail_on: Option<String>,

    /// Waiting, pacing and the sandbox, as for verify.
    #[command(flatten)]
    pub(crate) batch: BatchArgs,

    /// Settings a profile can also set; the hmac is always required.
    #[command(flatten)]
    pub(crate) profile_args: ProfileArgs,
}

impl GateArgs {
    /// What the order expects of the payment.
    pub(crate) fn expectations(&self) -> Expectations {
        Expectations {
            amount: self.amount.or(self.amount_kobo),
            currency: Some(self.currency.clone()),
            merchant_ref: Some(self.merchant_ref.clone()),
            shop: None,
            order_id: None,
        }
    }
}

/// Arguments of `payverify reconcile`.
#[derive(Debug, Args)]
pub(crate) struct ReconcileArgs {
    /// The orders file: CSV with a header row (`,`, `;` or tab; a UTF-8 BOM and CRLF are
    /// fine), or - for stdin.
    #[arg(value_name = "FILE|-")]
    pub(crate) file: PathBuf,

    /// Output format, one entry per row of the orders file. Given explicitly, it is written
    /// even with -q [default: table]
    #[arg(short, long, value_enum, ignore_case = true, value_name = "FORMAT")]
    pub(crate) output: Option<ReconcileFormat>,

    /// With the table: list every row, MATCHED ones too (the table shows at most 1000 rows;
    /// -o csv streams every one).
    #[arg(long)]
    pub(crate) all: bool,

    /// Continue an earlier reconciliation of this file: FILE is its output (-o jsonl or csv,
    /// the same -o as now, complete or cut short). A row whose result there is final
    /// (anything but UNVERIFIED and NOT_FINAL), that is still the same row, and whose stored
    /// answer this run's checks judge to the same result is not asked again (from csv, which
    /// stores no answer, only FAILED and NOT_FOUND rows): it is written in its place as a
    /// fresh row is. Write to a new file.
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,

    /// Also write the summary (rows and totals per result and currency, at risk, net
    /// difference) as JSON to FILE, written whole at the end; `-`, stdout, stderr, a file
    /// the run reads (the orders file) and a symlink are refused.
    #[arg(long, value_name = "FILE")]
    pub(crate) summary_json: Option<PathBuf>,

    /// The column separator: `,`, `;` or `tab` [default: detected from the header line]
    /// [config: reconcile.delimiter]
    // Checked by the command (after the secret is known), so a mistyped value that is the
    // secret is never echoed raw.
    #[arg(long, value_name = "CHAR")]
    pub(crate) delimiter: Option<String>,

    /// The line of the header row [default: the first of the first 50 lines that names a
    /// reference and an amount column; title lines above it (at most 3 filled cells) are
    /// skipped] [config: reconcile.header_row]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_row: Option<u64>,

    /// The reference column [default: the first of reference, ref, transaction ref, payment
    /// reference, reference number, transaction id (WooCommerce), transaction reference, txn
    /// ref, payment ref, payment references (Shopify); never RRN] [config:
    /// reconcile.reference_column]
    #[arg(long, value_name = "NAME")]
    pub(crate) reference_column: Option<String>,

    /// The expected amount column: the gross [default: the first of amount, expected
    /// amount, amount paid, total, order total, order total amount, transaction amount,
    /// total amount, grand total, gross amount, order amount; never settlement amount, which
    /// is net of fees] [config: reconcile.amount_column]
    #[arg(long, value_name = "NAME")]
    pub(crate) amount_column: Option<String>,

    /// The currency column, its cells ISO 4217 codes: NGN or 566 [default: currency,
    /// currency code, order currency or transaction currency] [config:
    /// reconcile.currency_column]
    #[arg(long, value_name = "NAME", conflicts_with = "no_currency_column")]
    pub(crate) currency_column: Option<String>,

    /// Read no currency column, even one found by its name: every row expects --currency
    /// [config: reconcile.no_currency_column]
    #[arg(long)]
    pub(crate) no_currency_column: bool,

    /// The merchant reference column [default: merchant ref or merchant reference; an
    /// order id column is never guessed, as the gateway's merchantRef usually only contains
    /// it] [config: reconcile.merchant_ref_column]
    #[arg(long, value_name = "NAME")]
    pub(crate) merchant_ref_column: Option<String>,

    /// How amounts are written: naira (40000, 40000.5, 40,000.00, ₦40,000.00; exact, never
    /// rounded) or kobo (whole numbers) [default: naira] [config: reconcile.amount_unit]
    #[arg(long, value_enum, value_name = "UNIT")]
    pub(crate) amount_unit: Option<AmountUnit>,

    /// The currency rows expect when the file has no currency column (or a row's cell is
    /// empty: then said on stderr): an ISO 4217 code, NGN or 566 [default: NGN] [config:
    /// reconcile.currency]
    #[arg(long, value_name = "CODE", value_parser = parse_iso_currency)]
    pub(crate) currency: Option<String>,

    /// Reconcile only the rows whose COLUMN cell is PATTERN (the whole cell, case ignored,
    /// `*` for any text), such as --only "Order Date=2026-11-21*"; repeat it and a row must
    /// match each. COLUMN is a header name. The other rows are SKIPPED: listed, counted apart,
    /// never asked about.
    // Checked by the command, like --delimiter, so a value is never echoed raw.
    #[arg(long, value_name = "COLUMN=PATTERN")]
    pub(crate) only: Vec<String>,

    /// With -o csv: start the output with a UTF-8 byte-order mark, so Excel on Windows
    /// reads it as UTF-8 (the naira sign, names) [default: when the input file has one]
    #[arg(long, overrides_with = "no_bom")]
    pub(crate) bom: bool,

    /// With -o csv: no byte-order mark, even when the input file has one.
    #[arg(long, overrides_with = "bom")]
    pub(crate) no_bom: bool,

    /// Workers, pacing and the sandbox, as for verify.
    #[command(flatten)]
    pub(crate) batch: BatchArgs,

    /// Settings a profile can also set.
    #[command(flatten)]
    pub(crate) profile_args: ProfileArgs,
}

/// `reconcile -o`: the same four formats as verify's, described as reconcile writes them
/// (per row of the orders file, not per reference), so its help says what it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReconcileFormat {
    /// The rows that need a look (every row but a clean MATCHED, a line item or a totals row
    /// that adds up; every row with --all), led by the order id, with their checks; at most
    /// 1000; the totals go to stderr.
    Table,
    /// One array of the jsonl records.
    Json,
    /// One JSON record per row per line: line, the row's cells, result, difference_kobo,
    /// gateway_status, gateway_code, gateway_amount_kobo, expected_amount_kobo,
    /// gateway_currency, checks, error, the service's response, seal.
    Jsonl,
    /// Every row: its own columns, then result, difference_kobo, difference_naira,
    /// gateway_status, gateway_code, gateway_amount_kobo, gateway_amount_naira,
    /// expected_amount_kobo, expected_amount_naira, gateway_currency, checks, error (RFC 4180
    /// quoting; a UTF-8 BOM first with --bom, or when the input has one).
    Csv,
}

impl From<ReconcileFormat> for OutputFormat {
    fn from(format: ReconcileFormat) -> Self {
        match format {
            ReconcileFormat::Table => OutputFormat::Table,
            ReconcileFormat::Json => OutputFormat::Json,
            ReconcileFormat::Jsonl => OutputFormat::Jsonl,
            ReconcileFormat::Csv => OutputFormat::Csv,
        }
    }
}

impl ReconcileArgs {
    /// The output format: the one asked for, or the table.
    pub(crate) fn format(&self) -> OutputFormat {
        self.output.map_or(OutputFormat::Table, OutputFormat::from)
    }
}

/// How a batch is run: workers, pacing and the in-process sandbox (verify and reconcile).
#[derive(Debug, Args, Clone)]
pub(crate) struct BatchArgs {
    /// Worker threads for several references (they share one connection pool).
    #[arg(short, long, default_value_t = 4, value_name = "N", value_parser = parse_jobs,
          allow_negative_numbers = true)]
    pub(crate) jobs: u16,

    /// At most N requests per second across all workers (decimals allowed). Without it the
    /// pace adapts: unpaced until the service throttles (429, 503), then it follows the
    /// service's limit; with it, the pace adapts below N.
    #[arg(long, value_name = "N", value_parser = parse_rate, allow_negative_numbers = true)]
    pub(crate) rate: Option<f64>,

    /// Verify against a sandbox started in-process on a free loopback port, with the sandbox
    /// credentials; configured credentials and base URL are ignored. No account needed.
    #[arg(long, conflicts_with_all = ["base_url", "client_id", "client_secret_file", "profile", "config"])]
    pub(crate) sandbox: bool,

    /// With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the
    /// verification goes through a real TLS handshake.
    #[arg(long, requires = "sandbox")]
    pub(crate) tls: bool,
}

/// `,`, `;` or a tab (`tab`, `\t`).
pub(crate) fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "," | "comma" => Ok(b','),
        ";" | "semicolon" => Ok(b';'),
        "\t" | "\\t" | "tab" => Ok(b'\t'),
        _ => Err(format!(
            "--delimiter {}: not a delimiter payverify reads: use , ; or tab",
            crate::terminal::quoted(s)
        )),
    }
}

/// Per-command settings that a config profile can also set (config key of the same name).
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ProfileArgs {
    /// How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration
    /// (30s, 500ms, 1m) [default: 30s] [config: timeout]
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, allow_negative_numbers = true)]
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
    #[arg(long, value_name = "DURATION", value_parser = parse_wait, allow_hyphen_values = true)]
    pub(crate) wait: Option<Duration>,

    /// How long a reference the service keeps throttling (429, 503) is asked again, paced,
    /// from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait,
    /// whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again)
    /// [default: 10m] [config: give_up_after]
    #[arg(long, value_name = "DURATION", value_parser = parse_give_up_after,
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

/// What the transaction must be; any mismatch fails a SUCCESSFUL verification (exit 4).
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ExpectArgs {
    /// Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00,
    /// NGN 40000); compared exactly in kobo, never rounded.
    #[arg(long, value_name = "NAIRA", value_parser = parse_naira,
          conflicts_with = "expect_amount_kobo", allow_hyphen_values = true)]
    pub(crate) expect_amount: Option<Kobo>,

    /// Expected amount in kobo (an integer).
    #[arg(long, value_name = "KOBO", value_parser = parse_kobo, allow_hyphen_values = true)]
    pub(crate) expect_amount_kobo: Option<Kobo>,

    /// Expected currency code, e.g. NGN (case-insensitive).
    #[arg(long, value_name = "CODE", value_parser = parse_currency)]
    pub(crate) expect_currency: Option<String>,

    /// Expected merchant reference (exact: nothing is trimmed).
    #[arg(long, value_name = "REF", value_parser = parse_merchant_ref)]
    pub(crate) expect_merchant_ref: Option<String>,
}

impl ExpectArgs {
    /// The expectations these flags state.
    pub(crate) fn expectations(&self) -> Expectations {
        Expectations {
            amount: self.expect_amount.or(self.expect_amount_kobo),
            currency: self.expect_currency.clone(),
            merchant_ref: self.expect_merchant_ref.clone(),
            shop: None,
            order_id: None,
        }
    }
}

/// A currency code to expect: not blank (an empty expectation is a mistake in the caller's
/// script, not a currency every response fails).
fn parse_currency(s: &str) -> Result<String, String> {
    match s.trim().is_empty() {
        true => Err("is empty; give a currency code such as NGN".into()),
        false => Ok(s.to_owned()),
    }
}

/// An ISO 4217 currency code, alphabetic or numeric, as its alphabetic code.
fn parse_iso_currency(s: &str) -> Result<String, String> {
    crate::domain::currency::iso_code(s)
        .map(str::to_owned)
        .ok_or_else(|| "is not an ISO 4217 currency code; give one such as NGN (or 566)".into())
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

/// A merchant reference to expect, exactly as given; only an empty one is refused.
fn parse_merchant_ref(s: &str) -> Result<String, String> {
    match s.is_empty() {
        true => Err("is empty; give the merchant reference the order was paid under".into()),
        false => Ok(s.to_owned()),
    }
}

fn parse_fail_on(s: &str) -> Result<FailOn, String> {
    FailOn::parse(s)
}

fn parse_naira(s: &str) -> Result<Kobo, String> {
    Kobo::parse_naira(s).map_err(|e| e.to_string())
}

fn parse_kobo(s: &str) -> Result<Kobo, String> {
    Kobo::parse_kobo(s).map_err(|e| e.to_string())
}

impl VerifyArgs {
    /// Whether this is a batch: several references, a stream, or a record format.
    /// One plain reference keeps the single-reference output exactly.
    pub(crate) fn is_batch(&self) -> bool {
        self.from.is_some()
            || self.arguments().count() != 1
            || self.arguments().any(|(r, stream)| stream && r == "-")
            || matches!(self.output, Some(OutputFormat::Jsonl | OutputFormat::Csv))
    }

    /// The reference arguments in order, each with whether `-` there means stdin: only
    /// before `--` (after it, everything is a reference as written).
    pub(crate) fn arguments(&self) -> impl Iterator<Item = (&str, bool)> {
        let before = self.references.iter().map(|r| (r.as_str(), true));
        before.chain(self.after_dashes.iter().map(|r| (r.as_str(), false)))
    }

    /// The output format: the one asked for, or the table.
    pub(crate) fn format(&self) -> OutputFormat {
        self.output.unwrap_or(OutputFormat::Table)
    }

    /// Whether the references come as a list: a file, stdin or several arguments (one
    /// reference argument with `-o jsonl` is a batch of one record, not a list).
    pub(crate) fn is_list(&self) -> bool {
        self.from.is_some()
            || self.arguments().count() > 1
            || self.arguments().any(|(r, stream)| stream && r == "-")
    }

    /// Whether stdout gets the result under `-q`: only when `-o` asked for it explicitly
    /// (the default table is for people, and `-q` means none is watching).
    pub(crate) fn writes_when_quiet(&self) -> bool {
        self.output.is_some()
    }
}

/// Fewest requests per second `--rate` accepts: one every 1000 s. Below it the interval
/// between requests is not a duration a clock can hold.
pub(crate) const MIN_RATE: f64 = 0.001;
/// Most requests per second `--rate` accepts.
pub(crate) const MAX_RATE: f64 = 100_000.0;
/// Most worker threads.
pub(crate) const MAX_JOBS: u16 = 64;

fn parse_rate(s: &str) -> Result<f64, String> {
    let range = format!("a number from {MIN_RATE} to {MAX_RATE} (requests per second)");
    match s.trim().parse::<f64>() {
        Ok(rate) if (MIN_RATE..=MAX_RATE).contains(&rate) => Ok(rate),
        _ => Err(format!("'{s}' is not {range}")),
    }
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    duration::TIMEOUT
        .parse(s)
        .map_err(|why| format!("'{s}' {why}"))
}

fn parse_wait(s: &str) -> Result<Duration, String> {
    duration::WAIT
        .parse(s)
        .map_err(|why| format!("'{s}' {why}"))
}

fn parse_give_up_after(s: &str) -> Result<Duration, String> {
    duration::GIVE_UP_AFTER
        .parse(s)
        .map_err(|why| format!("'{s}' {why}"))
}

fn parse_jobs(s: &str) -> Result<u16, String> {
    whole_in_range(s, 1, u64::from(MAX_JOBS))
        .and_then(|n| u16::try_from(n).map_err(|e| e.to_string()))
}

fn parse_retries(s: &str) -> Result<u32, String> {
    whole_in_range(s, 0, u64::from(crate::settings::MAX_RETRIES))
        .and_then(|n| u32::try_from(n).map_err(|e| e.to_string()))
}

/// A whole number from `low` to `high`, or a message naming that range.
fn whole_in_range(s: &str, low: u64, high: u64) -> Result<u64, String> {
    let t = s.trim();
    match t.parse::<u64>() {
        Ok(n) if t.bytes().all(|b| b.is_ascii_digit()) && (low..=high).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from {low} to {high}")),
    }
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
/// list them.
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
        "Results, in precedence order, with each row's exit code:\n{}\n{RECONCILE_EXIT_REST}",
        crate::domain::result_table::help_table()
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

mod examples;
pub(crate) use examples::NIGHTLY_WHAT;
pub use examples::{GATE, NIGHTLY};

#[cfg(test)]
mod tests;
