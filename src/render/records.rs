//! Batch output: one record per reference as JSON lines, CSV, a JSON array, or a table.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::outcome::Record;
use crate::log::truncate;
use crate::render::OutputFormat;
use crate::render::{Style, batch_table, csv};

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

/// The JSON shape of a record (jsonl line, json array element).
#[derive(Serialize)]
struct RecordJson<'a> {
    reference: &'a str,
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
    failures: &'a [String],
    warnings: &'a [String],
}

/// A record as one compact JSON object.
pub fn json(record: &Record) -> String {
    let v = &record.verdict;
    let shape = RecordJson {
        reference: record.job.reference.as_str(),
        outcome: v.name(),
        exit_code: v.exit().code(),
        http_status: v.outcome.http_status(),
        error: record.error(),
        checks: v.checks.as_ref().map(|c| ChecksJson {
            integrity: c.integrity.to_string(),
            passed: c.passed(),
            failures: &c.failures,
            warnings: &c.warnings,
        }),
        response: v.outcome.verification().map(|v| &v.raw),
    };
    // Serialising plain data to a String cannot fail; keep a valid line if it ever does.
    serde_json::to_string(&shape).unwrap_or_else(|e| {
        serde_json::json!({ "reference": record.job.reference.as_str(), "error": e.to_string() })
            .to_string()
    })
}

/// A record's CSV fields, in [`CSV_COLUMNS`] order.
pub fn csv_fields(record: &Record) -> [String; 15] {
    let v = record.verdict.outcome.verification();
    let text = |get: fn(&crate::domain::model::Verification) -> Option<String>| {
        v.and_then(get).unwrap_or_default()
    };
    let amount = v.and_then(|v| v.amount);
    [
        record.job.reference.to_string(),
        record.verdict.name().to_owned(),
        record.verdict.exit().code().to_string(),
        text(|v| v.status.clone()),
        text(|v| v.code.clone()),
        amount.map(|a| a.0.to_string()).unwrap_or_default(),
        amount.map(|a| a.naira_decimal()).unwrap_or_default(),
        text(|v| v.currency.clone()),
        text(|v| v.merchant_ref.clone()),
        text(|v| v.transaction_ref.clone()),
        text(|v| v.payment_ref.clone()),
        text(|v| v.transaction_date.clone()),
        text(|v| v.payment_date.clone()),
        record.error().unwrap_or_default(),
        checks_cell(record),
    ]
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

/// Writes records as they come, in the chosen format.
pub struct RecordWriter {
    out: Box<dyn Write + Send>,
    format: OutputFormat,
    style: Style,
    written: usize,
    table_rows: Vec<[String; 7]>,
    discard: bool,
}

impl RecordWriter {
    /// A writer on `out`.
    pub fn new(out: Box<dyn Write + Send>, format: OutputFormat, style: Style) -> Self {
        RecordWriter {
            out,
            format,
            style,
            written: 0,
            table_rows: Vec::new(),
            discard: false,
        }
    }

    /// A writer that formats nothing and keeps nothing: for `-q`, where formatting every
    /// record only to throw it away was a tenth of a batch's CPU (and a table kept every row).
    pub fn discard() -> Self {
        RecordWriter {
            discard: true,
            ..RecordWriter::new(Box::new(io::sink()), OutputFormat::Jsonl, Style::PLAIN)
        }
    }

    /// Writes what comes before the first record (CSV header, JSON `[`).
    pub fn begin(&mut self) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => self.out.write_all(csv::row(&CSV_COLUMNS).as_bytes())?,
            OutputFormat::Json => self.out.write_all(b"[")?,
            OutputFormat::Jsonl | OutputFormat::Table => {}
        }
        self.out.flush()
    }

    /// Writes one record; line formats are flushed at once so a reader sees it.
    pub fn write(&mut self, record: &Record) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Jsonl => {
                let mut line = json(record);
                line.push('\n');
                self.out.write_all(line.as_bytes())?;
            }
            OutputFormat::Csv => {
                self.out
                    .write_all(csv::row(&csv_fields(record)).as_bytes())?;
            }
            OutputFormat::Json => {
                let sep = if self.written == 0 { "\n  " } else { ",\n  " };
                self.out
                    .write_all(format!("{sep}{}", json(record)).as_bytes())?;
            }
            OutputFormat::Table => {
                let f = csv_fields(record);
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
                        f[0].clone(),
                        f[1].clone(),
                        f[4].clone(),
                        amount,
                        f[8].clone(),
                        truncate(&f[14], 80),
                        truncate(&record.row_error().unwrap_or_default(), 80),
                    ]
                    .map(|cell| crate::terminal::safe(&cell).into_owned()),
                );
            }
        }
        self.written += 1;
        self.out.flush()
    }

    /// Writes what comes after the last record (JSON `]`, the table).
    pub fn finish(&mut self) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Json => {
                let close = if self.written == 0 { "]\n" } else { "\n]\n" };
                self.out.write_all(close.as_bytes())?;
            }
            // No records, no table: a header alone reads like a result.
            OutputFormat::Table if self.written == 0 => {}
            OutputFormat::Table => {
                let mut text = batch_table::render(&self.table_rows, self.style);
                self.table_rows.clear();
                text.push('\n');
                self.out.write_all(text.as_bytes())?;
            }
            OutputFormat::Jsonl | OutputFormat::Csv => {}
        }
        self.out.flush()
    }
}
