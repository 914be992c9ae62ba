//! The arguments of `reconcile`.

use std::path::PathBuf;

use clap::Args;

use super::global::ProfileArgs;
use super::verify::BatchArgs;
use crate::batch::csv_input::AmountUnit;
use crate::domain::class::FailOn;
use crate::render::OutputFormat;

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

    /// Continue an earlier reconciliation of this file: FILE is its -o jsonl output,
    /// complete or cut short (for another -o, see --state). A row whose result there is
    /// final (anything but UNVERIFIED and NOT_FINAL), that is still the same row, and whose
    /// stored answer this run's checks judge to the same result is not asked again: it is
    /// written in its place as a fresh row is. Write to a new file.
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,

    /// Keep the run's memory in FILE, whatever -o is: each row, sealed as an -o jsonl line
    /// is, is written to FILE as it is decided, so a run stopped, killed or cut short by
    /// `| head` keeps what it decided. Run again with the same --state: rows whose result
    /// there is final are carried as --resume carries them, and FILE then holds this run's
    /// rows. Not stdout, an input or the --summary-json file.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub(crate) state: Option<PathBuf>,

    /// Also write the summary (rows and totals per result and currency, at risk, net
    /// difference) as JSON to FILE, written whole at the end; `-`, stdout, stderr, a file
    /// the run reads (the orders file) and a symlink are refused.
    #[arg(long, value_name = "FILE")]
    pub(crate) summary_json: Option<PathBuf>,

    /// For a scheduled run: exit non-zero only for rows of these classes (the most severe
    /// exit among them, else 0), verify's class names; each result's class is in the
    /// list of results below. Needs -o csv, jsonl or json, so every row still says what it
    /// came to. The summary line names the rows it left out [default: every row counts]
    #[arg(long, value_name = "CLASS[,CLASS...]", value_parser = FailOn::parse)]
    pub(crate) fail_on: Option<FailOn>,

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

    /// For a bank statement: take the reference out of the reference column's text (its
    /// Remarks or Narration) with REGEX, the first capture group if it has one, else the
    /// whole match, such as --reference-pattern 'PWB3D[/ ]([0-9]+_[0-9]{10}(_[0-9]+)?)'. A
    /// row whose text does not match, and a debit row, is SKIPPED: not a gateway payment.
    /// Name the credits with --amount-column. Not with --resume or --state.
    // Compiled by the command, so a bad pattern is one line naming the flag.
    #[arg(long, value_name = "REGEX")]
    pub(crate) reference_pattern: Option<String>,

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

/// `reconcile -o`: the same five formats as verify's, described as reconcile writes them
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
    /// An Excel workbook, to a file or pipe (not a terminal): a Summary sheet (rows and
    /// totals per result and currency), the rows that need a look, every row (its own
    /// columns as they were, then the result's); amounts as numbers, dates as dates.
    Xlsx,
}

impl From<ReconcileFormat> for OutputFormat {
    fn from(format: ReconcileFormat) -> Self {
        match format {
            ReconcileFormat::Table => OutputFormat::Table,
            ReconcileFormat::Json => OutputFormat::Json,
            ReconcileFormat::Jsonl => OutputFormat::Jsonl,
            ReconcileFormat::Csv => OutputFormat::Csv,
            ReconcileFormat::Xlsx => OutputFormat::Xlsx,
        }
    }
}

impl ReconcileArgs {
    /// The output format: the one asked for, or the table.
    pub(crate) fn format(&self) -> OutputFormat {
        self.output.map_or(OutputFormat::Table, OutputFormat::from)
    }
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

/// An ISO 4217 currency code, alphabetic or numeric, as its alphabetic code.
fn parse_iso_currency(s: &str) -> Result<String, String> {
    crate::domain::currency::iso_code(s)
        .map(str::to_owned)
        .ok_or_else(|| "is not an ISO 4217 currency code; give one such as NGN (or 566)".into())
}
