//! Batch output: one record per reference as JSON lines, CSV, a JSON array, or a table.

use std::io;

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::outcome::Record;
use crate::domain::seal::Sealer;
use crate::log::truncate;
use crate::render::OutputFormat;
use crate::render::state::StateLog;
use crate::render::{Sink, Style, batch_table, csv};
use crate::secret::redact;

/// The CSV columns, in order. `checks` is last so scripts that count columns up to `error`
/// keep working.
pub const CSV_COLUMNS: [&str; 15] = [
    "reference",
    "outcome",
    "exit_code",
    "status",
    "code",
    "amount_kobo",
    "amount",
    "currency",
    "merchant_ref",
    "transaction_ref",
    "payment_ref",
    "transaction_date",
    "payment_date",
    "error",
    "checks",
];

/// The JSON shape of a record (jsonl line, json array element). Every string is redacted
/// before it is serialised; the response was redacted where it entered.
#[derive(Serialize)]
struct RecordJson<'a> {
    reference: Cow<'a, str>,
    outcome: &'static str,
    exit_code: u8,
    http_status: Option<u16>,
    error: Option<String>,
    checks: Option<ChecksJson<'a>>,
    response: Option<&'a Map<String, Value>>,
}

#[derive(Serialize)]
struct ChecksJson<'a> {
    integrity: String,
    passed: bool,
    failures: Vec<Cow<'a, str>>,
    warnings: Vec<Cow<'a, str>>,
}

/// A record as one compact JSON object: values redacted, then serialised, then unsafe
/// characters escaped ([`crate::terminal::json_text`]).
pub(crate) fn json(record: &Record) -> String {
    let v = &record.verdict;
    let shape = RecordJson {
        reference: redact(record.job.reference.as_str()),
        outcome: v.name(),
        exit_code: v.exit().code(),
        http_status: v.outcome.http_status(),
        error: record.error().map(|e| redact(&e).into_owned()),
        checks: v.checks.as_ref().map(|c| ChecksJson {
            integrity: c.integrity.to_string(),
            passed: c.passed(),
            failures: redact_all(&c.failures),
            warnings: redact_all(&c.warnings),
        }),
        response: v.outcome.verification().map(|v| &v.raw),
    };
    // Serialising plain data to a String cannot fail; keep a valid line if it ever does.
    let text = serde_json::to_string(&shape).unwrap_or_else(|e| {
        serde_json::json!({ "reference": shape.reference, "error": e.to_string() }).to_string()
    });
    crate::terminal::json_text(text)
}

/// Each of `texts`, redacted.
fn redact_all(texts: &[String]) -> Vec<Cow<'_, str>> {
    texts.iter().map(|t| redact(t)).collect()
}

/// A record's flat fields, one per CSV column: what the CSV row and the batch table show.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) reference: String,
    pub(crate) outcome: &'static str,
    pub(crate) exit_code: u8,
    pub(crate) status: String,
    pub(crate) code: String,
    pub(crate) amount_kobo: String,
    /// The amount in naira, as a plain decimal (`40000.00`).
    pub(crate) amount: String,
    pub(crate) currency: String,
    pub(crate) merchant_ref: String,
    pub(crate) transaction_ref: String,
    pub(crate) payment_ref: String,
    pub(crate) transaction_date: String,
    pub(crate) payment_date: String,
    pub(crate) error: String,
    pub(crate) checks: String,
}

impl Fields {
    /// The fields of `record`; empty text where the service said nothing.
    pub(crate) fn of(record: &Record) -> Fields {
        let v = record.verdict.outcome.verification();
        let text = |get: fn(&crate::domain::model::Verification) -> Option<String>| {
            v.and_then(get).unwrap_or_default()
        };
        let amount = v.and_then(|v| v.amount);
        Fields {
            reference: record.job.reference.to_string(),
            outcome: record.verdict.name(),
            exit_code: record.verdict.exit().code(),
            status: text(|v| v.status.clone()),
            code: text(|v| v.code.clone()),
            amount_kobo: amount.map(|a| a.0.to_string()).unwrap_or_default(),
            amount: amount.map(|a| a.naira_decimal()).unwrap_or_default(),
            currency: text(|v| v.currency.clone()),
            merchant_ref: text(|v| v.merchant_ref.clone()),
            transaction_ref: text(|v| v.transaction_ref.clone()),
            payment_ref: text(|v| v.payment_ref.clone()),
            transaction_date: text(|v| v.transaction_date.clone()),
            payment_date: text(|v| v.payment_date.clone()),
            error: record.error().unwrap_or_default(),
            checks: checks_cell(record),
        }
    }

    /// The CSV row's cells, in [`CSV_COLUMNS`] order.
    pub(crate) fn csv_cells(&self) -> [&str; 15] {
        [
            &self.reference,
            self.outcome,
            exit_code_text(self.exit_code),
            &self.status,
            &self.code,
            &self.amount_kobo,
            &self.amount,
            &self.currency,
            &self.merchant_ref,
            &self.transaction_ref,
            &self.payment_ref,
            &self.transaction_date,
            &self.payment_date,
            &self.error,
            &self.checks,
        ]
    }
}

/// An exit code as text without allocating: every code payverify has is below 256.
fn exit_code_text(code: u8) -> &'static str {
    const TEXT: [&str; 11] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
    match code {
        130 => "130",
        c => TEXT.get(usize::from(c)).copied().unwrap_or("?"),
    }
}

/// The `checks` cell: the hmac verdict and every failed check or warning (see
/// [`crate::checks::CheckReport::summary`]); empty when there was no response to check.
fn checks_cell(record: &Record) -> String {
    record
        .verdict
        .checks
        .as_ref()
        .map(|c| c.summary())
        .unwrap_or_default()
}

/// What ends a JSON array that has no element yet, and one that has.
pub(crate) const CLOSE_EMPTY: &str = "]\n";
/// An `-o json` output stopped before it began: still one (empty) array.
pub(crate) const EMPTY_ARRAY: &str = "[]\n";
pub(crate) const CLOSE: &str = "\n]\n";

/// Writes one whole element of a batch's output on `out`, after `written` others: for
/// `-o json` one array element with its separator, after which the array still needs its
/// `]` (what a hurried exit writes); for the line formats, the line.
pub(crate) fn write_element(
    out: &Sink,
    format: OutputFormat,
    written: usize,
    text: &str,
) -> io::Result<()> {
    match format {
        OutputFormat::Json => {
            let sep = if written == 0 { "\n  " } else { ",\n  " };
            out.write(format!("{sep}{text}").as_bytes(), Some(CLOSE))
        }
        _ => out.write(text.as_bytes(), None),
    }
}

/// Writes records as they come, in the chosen format.
pub(crate) struct RecordWriter {
    out: Sink,
    format: OutputFormat,
    style: Style,
    written: usize,
    table_rows: Vec<[String; 7]>,
    discard: bool,
    /// Seals each jsonl/json record, so `--resume` can tell it from an edited copy.
    sealer: Option<Sealer>,
    /// `--state`: where every record is kept, sealed, whatever the format.
    state: Option<StateLog>,
}

impl RecordWriter {
    /// The same writer, sealing each jsonl/json record with `sealer`.
    pub(crate) fn sealed(self, sealer: Sealer) -> Self {
        RecordWriter {
            sealer: Some(sealer),
            ..self
        }
    }

    /// The same writer, keeping every record in `state` (`--state`).
    pub(crate) fn with_state(self, state: Option<StateLog>) -> Self {
        RecordWriter { state, ..self }
    }

    /// Keeps `record` in the `--state` file, if there is one: called for every record the
    /// exit status merges, written to stdout or not.
    pub(crate) fn keep(&mut self, record: &Record) {
        if self.state.is_some() {
            let text = self.json_text(record);
            let key = record.job.reference.as_str();
            self.state
                .iter_mut()
                .for_each(|state| state.append(key, &text));
        }
    }

    /// The run stopped part way: the `--state` file gets the earlier records it did not
    /// write ([`StateLog::stopped`]).
    pub(crate) fn stopped(&mut self) {
        self.state.iter_mut().for_each(StateLog::stopped);
    }

    /// A record as one JSON object, sealed when this writer seals.
    fn json_text(&self, record: &Record) -> String {
        let text = json(record);
        match &self.sealer {
            Some(sealer) => sealer.seal(&text),
            None => text,
        }
    }

    /// A writer on `out`.
    pub(crate) fn new(out: Sink, format: OutputFormat, style: Style) -> Self {
        if format == OutputFormat::Json {
            out.empty_document(EMPTY_ARRAY);
        }
        RecordWriter {
            out,
            format,
            style,
            written: 0,
            sealer: None,
            state: None,
            table_rows: Vec::new(),
            discard: false,
        }
    }

    /// A writer that formats nothing and keeps nothing: for `-q`, where formatting every
    /// record only to throw it away was a tenth of a batch's CPU (and a table kept every row).
    pub(crate) fn discard() -> Self {
        RecordWriter {
            discard: true,
            ..RecordWriter::new(
                Sink::new(Box::new(io::sink())),
                OutputFormat::Jsonl,
                Style::PLAIN,
            )
        }
    }

    /// Writes one whole element of the output ([`write_element`]).
    fn element(&mut self, text: &str) -> io::Result<()> {
        write_element(&self.out, self.format, self.written, text)?;
        self.written += 1;
        Ok(())
    }

    /// Writes what comes before the first record (CSV header, JSON `[`).
    pub(crate) fn begin(&mut self) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => self.out.write(csv::row(&CSV_COLUMNS).as_bytes(), None),
            OutputFormat::Json => self.out.write(b"[", Some(CLOSE_EMPTY)),
            OutputFormat::Jsonl | OutputFormat::Table => Ok(()),
        }
    }

    /// Writes one record; line formats are flushed at once so a reader sees it.
    pub(crate) fn write(&mut self, record: &Record) -> io::Result<()> {
        self.state.iter_mut().try_for_each(StateLog::check)?;
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Jsonl => {
                let mut line = self.json_text(record);
                line.push('\n');
                self.element(&line)
            }
            OutputFormat::Csv => {
                let fields = Fields::of(record);
                self.element(&csv::row(&fields.csv_cells()))
            }
            OutputFormat::Json => {
                let text = self.json_text(record);
                self.element(&text)
            }
            OutputFormat::Table => {
                let f = Fields::of(record);
                let amount = record
                    .verdict
                    .outcome
                    .verification()
                    .and_then(|v| {
                        v.amount
                            .map(|a| a.display_with_currency(v.currency.as_deref()))
                    })
                    .unwrap_or_default();
                self.table_rows.push(
                    [
                        f.reference,
                        f.outcome.to_owned(),
                        f.code,
                        amount,
                        f.merchant_ref,
                        truncate(&f.checks, 80),
                        truncate(&record.row_error().unwrap_or_default(), 80),
                    ]
                    .map(|cell| crate::terminal::scrub(&cell)),
                );
                self.written += 1;
                Ok(())
            }
        }
    }

    /// Writes what comes after the last record (JSON `]`, the table).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.state.iter_mut().try_for_each(StateLog::check)?;
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Json => {
                let close = if self.written == 0 {
                    CLOSE_EMPTY
                } else {
                    CLOSE
                };
                self.out.write(close.as_bytes(), None)
            }
            // No records, no table: a header alone reads like a result.
            OutputFormat::Table if self.written == 0 => Ok(()),
            OutputFormat::Table => {
                let mut text = batch_table::render(&self.table_rows, self.style);
                self.table_rows.clear();
                text.push('\n');
                self.out.write(text.as_bytes(), None)
            }
            OutputFormat::Jsonl | OutputFormat::Csv => Ok(()),
        }
    }
}
