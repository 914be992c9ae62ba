//! The arguments of `verify` and `gate`, and the batch options verify and reconcile share.

use std::path::PathBuf;

use clap::Args;

use super::global::{ProfileArgs, whole_in_range};
use crate::domain::checks::Expectations;
use crate::domain::class::FailOn;
use crate::domain::money::Kobo;
use crate::render::OutputFormat;

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

    /// Continue an earlier run: FILE is its -o jsonl output, complete or cut short (for
    /// another -o, see --state). References whose record there is a final answer, decided
    /// by the same checks as this run's (the same payverify, expectations, --hmac and
    /// --expect-mode), are not asked again: the record is carried as it was decided and
    /// written in its place as a fresh record is; the rest are asked. Write to a new file.
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,

    /// Keep the run's memory in FILE, whatever -o is: each record, sealed as an -o jsonl
    /// line is, is written to FILE as it is decided, so a run stopped, killed or cut short
    /// by `| head` keeps what it decided. Run again with the same --state: references
    /// whose record there is a final answer are carried as --resume carries them, and FILE
    /// then holds this run's records. It makes a
    /// run a batch, even of one reference: `verify REF --state FILE` writes the batch table
    /// (one row; -o json, an array of one record) and a summary line on stderr, not REF's
    /// own table. Not stdout, an input or the --summary-json file.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub(crate) state: Option<PathBuf>,

    /// For a scheduled batch: exit non-zero only for records of these outcome classes (the
    /// worst exit among them, else 0), so a declined card does not page anyone; the
    /// classes and their outcomes are listed below. Needs a batch (--from, -, or several
    /// references) and -o csv, jsonl or json; refused for one reference argument and for
    /// gate. The summary line names the records it left out [default: every record counts]
    #[arg(long, value_name = "CLASS[,CLASS...]", value_parser = FailOn::parse)]
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
    #[arg(long, visible_alias = "expect-amount", value_name = "NAIRA", value_parser = Kobo::parse_naira,
          allow_hyphen_values = true)]
    pub(crate) amount: Option<Kobo>,

    /// The order's amount in kobo (an integer).
    #[arg(long, visible_alias = "expect-amount-kobo", value_name = "KOBO",
          value_parser = Kobo::parse_kobo, allow_hyphen_values = true, conflicts_with = "amount")]
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
            ..Expectations::default()
        }
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
    #[arg(long, conflicts_with_all = super::NOT_FOR_LOCAL_COMMANDS)]
    pub(crate) sandbox: bool,

    /// With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the
    /// verification goes through a real TLS handshake.
    #[arg(long, requires = "sandbox")]
    pub(crate) tls: bool,
}

/// What the transaction must be; any mismatch fails a SUCCESSFUL verification (exit 4).
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ExpectArgs {
    /// Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00,
    /// NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate's name for it.
    #[arg(long, visible_alias = "amount", value_name = "NAIRA", value_parser = Kobo::parse_naira,
          conflicts_with = "expect_amount_kobo", allow_hyphen_values = true)]
    pub(crate) expect_amount: Option<Kobo>,

    /// Expected amount in kobo (an integer).
    #[arg(long, visible_alias = "amount-kobo", value_name = "KOBO", value_parser = Kobo::parse_kobo,
          allow_hyphen_values = true)]
    pub(crate) expect_amount_kobo: Option<Kobo>,

    /// Expected currency code, e.g. NGN (case-insensitive).
    #[arg(long, visible_alias = "currency", value_name = "CODE", value_parser = parse_currency)]
    pub(crate) expect_currency: Option<String>,

    /// Expected merchant reference (exact: nothing is trimmed).
    #[arg(long, visible_alias = "merchant-ref", value_name = "REF", value_parser = parse_merchant_ref)]
    pub(crate) expect_merchant_ref: Option<String>,
}

impl ExpectArgs {
    /// The expectations these flags state.
    pub(crate) fn expectations(&self) -> Expectations {
        Expectations {
            amount: self.expect_amount.or(self.expect_amount_kobo),
            currency: self.expect_currency.clone(),
            merchant_ref: self.expect_merchant_ref.clone(),
            ..Expectations::default()
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

/// A merchant reference to expect, exactly as given; only an empty one is refused.
fn parse_merchant_ref(s: &str) -> Result<String, String> {
    match s.is_empty() {
        true => Err("is empty; give the merchant reference the order was paid under".into()),
        false => Ok(s.to_owned()),
    }
}

impl VerifyArgs {
    /// Whether this is a batch: several references, a stream, or a record format.
    /// One plain reference keeps the single-reference output exactly.
    pub(crate) fn is_batch(&self) -> bool {
        self.is_list()
            || self.arguments().count() == 0
            || matches!(
                self.output,
                Some(OutputFormat::Jsonl | OutputFormat::Csv | OutputFormat::Xlsx)
            )
            || self.state.is_some()
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

fn parse_jobs(s: &str) -> Result<u16, String> {
    whole_in_range(s, 1, u64::from(MAX_JOBS))
}
