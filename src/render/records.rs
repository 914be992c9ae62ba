//! verify's record in each output format: JSON (jsonl, json), its flat CSV view, the
//! batch table's row; and an earlier run's record as `--resume` carries it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::domain::outcome::Record;
use crate::domain::row_record::is_naira;
use crate::domain::seal::Judged;
use crate::render::writer::{View, Writer};
use crate::render::xlsx::XlsxCell;
use crate::render::{Style, batch_table, csv};
use crate::secret::redact;

/// The JSON shape of a record (jsonl line, json array element), written and read back
/// (`--resume`, `--state`) as this one struct: `R` is the response, the answer's object
/// when written and its text as stored when read back (read as a fresh answer enters). Every
/// string is redacted before it is serialised; the response was redacted where it entered.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordJson<'a, R, J = serde_json::Value> {
    pub(crate) reference: Cow<'a, str>,
    pub(crate) outcome: Cow<'a, str>,
    pub(crate) exit_code: u8,
    pub(crate) http_status: Option<u16>,
    pub(crate) error: Option<String>,
    pub(crate) checks: Option<ChecksJson<'a>>,
    pub(crate) response: Option<R>,
    /// What judged it, for `--resume` and `--state` ([`crate::domain::seal::Judged`]):
    /// written from the verdict, read back as JSON, made typed when a record is carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) judged: Option<J>,
    /// payverify's seal, written after the record ([`crate::domain::seal`]): named so that
    /// a sealed record reads back; the seal is checked on the line's text.
    #[serde(default, skip_serializing)]
    #[allow(dead_code)]
    pub(crate) seal: Option<String>,
}

/// A record's checks, as written and read back.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChecksJson<'a> {
    pub(crate) integrity: String,
    pub(crate) passed: bool,
    pub(crate) failures: Vec<Cow<'a, str>>,
    pub(crate) warnings: Vec<Cow<'a, str>>,
}

/// A record as one compact JSON object: values redacted, then serialised, then unsafe
/// characters escaped ([`crate::terminal::json_text`]).
pub(crate) fn json(record: &Record) -> String {
    let v = &record.verdict;
    let shape = RecordJson {
        reference: redact(record.job.reference.as_str()),
        outcome: Cow::Borrowed(v.name()),
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
        judged: Some(Judged::of(record).written()),
        seal: None,
    };
    // Made with room for the whole line, its seal and its newline: serde_json's to_string
    // grows from 128 bytes, three or four reallocations and copies a record.
    let mut bytes = Vec::with_capacity(RECORD_ROOM);
    // Serialising plain data cannot fail, and serde_json writes UTF-8; keep a valid line if
    // either ever fails.
    let text = serde_json::to_writer(&mut bytes, &shape)
        .map_err(|e| e.to_string())
        .and_then(|()| String::from_utf8(bytes).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| {
            serde_json::json!({ "reference": shape.reference, "error": e }).to_string()
        });
    crate::terminal::json_text(text)
}

/// The room a record's line is made with: a sandbox answer's sealed line is some 800 bytes.
/// Up to 1,032 bytes, glibc's allocator serves it from its per-thread cache.
const RECORD_ROOM: usize = 1024;

/// Each of `lines`, redacted.
fn redact_all(lines: &[impl std::fmt::Display]) -> Vec<Cow<'static, str>> {
    lines
        .iter()
        .map(|line| Cow::Owned(redact(&line.to_string()).into_owned()))
        .collect()
}

/// A record's flat fields, one per CSV column, named as the columns (the header and the
/// cells are both derived from it: [`csv::named_cells`]): what the CSV row and the batch
/// table show.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
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

/// Writes verify's records.
pub(crate) type RecordWriter = Writer<VerifyView>;

impl RecordWriter {
    /// A writer that formats nothing and keeps nothing (`-q`).
    pub(crate) fn discard() -> Self {
        Writer::discarding(VerifyView)
    }
}

/// verify's record in each format.
pub(crate) struct VerifyView;

impl View for VerifyView {
    type Record = Record;

    fn csv_header(&self) -> Vec<String> {
        let names = csv::named_cells(&Fields::default());
        names.into_iter().map(|(name, _)| name).collect()
    }

    fn csv_cells(&self, record: &Record) -> Vec<String> {
        let cells = csv::named_cells(&Fields::of(record));
        cells.into_iter().map(|(_, cell)| cell).collect()
    }

    fn json(&self, record: &Record) -> String {
        json(record)
    }

    fn table_row(&self, record: &Record) -> Option<Vec<String>> {
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
        use crate::terminal::{cell, scrub};
        let row = [
            scrub(&f.reference),
            f.outcome.to_owned(),
            scrub(&f.code),
            scrub(&amount),
            scrub(&f.merchant_ref),
            cell(&f.checks, 80),
            cell(&record.row_error().unwrap_or_default(), 80),
        ];
        Some(row.into())
    }

    fn table(&self, rows: &[Vec<String>], style: Style) -> String {
        batch_table::render(rows, style)
    }

    fn key<'a>(&self, record: &'a Record) -> &'a str {
        record.job.reference.as_str()
    }

    /// The CSV's columns but `amount_kobo`: the amount is one number, exact to the kobo.
    fn xlsx_header(&self) -> Vec<String> {
        let header = self.csv_header().into_iter();
        header.filter(|name| name != "amount_kobo").collect()
    }

    fn xlsx_cells(&self, record: &Record) -> Vec<XlsxCell> {
        let f = Fields::of(record);
        let v = record.verdict.outcome.verification();
        let amount = v.and_then(|v| {
            let naira = v.currency.as_deref().is_none_or(is_naira);
            v.amount.map(|a| XlsxCell::Money {
                minor: i128::from(a.0),
                naira,
            })
        });
        vec![
            XlsxCell::text(f.reference),
            XlsxCell::text(f.outcome),
            XlsxCell::Integer(f.exit_code.into()),
            XlsxCell::text(f.status),
            XlsxCell::text(f.code),
            amount.unwrap_or(XlsxCell::Empty),
            XlsxCell::text(f.currency),
            XlsxCell::text(f.merchant_ref),
            XlsxCell::text(f.transaction_ref),
            XlsxCell::text(f.payment_ref),
            XlsxCell::Date(f.transaction_date),
            XlsxCell::Date(f.payment_date),
            XlsxCell::text(f.error),
            XlsxCell::text(f.checks),
        ]
    }

    /// An exit other than 0, or a warning: what the closing lines name.
    fn needs_look(&self, record: &Record) -> bool {
        let warned = record.verdict.checks.as_ref();
        record.verdict.exit().code() != 0 || warned.is_some_and(|c| !c.warnings.is_empty())
    }

    fn name(&self, record: &Record) -> &'static str {
        record.verdict.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV header is the field names of [`Fields`]: a field added without its column
    /// (or a column without its field) fails here.
    #[test]
    fn the_csv_header_is_the_fields_of_the_record() {
        // `checks` is last so scripts that count columns up to `error` keep working.
        assert_eq!(
            VerifyView.csv_header(),
            [
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
            ]
        );
    }
}
