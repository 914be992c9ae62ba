//! One check as the journal keeps it: what was asked, when, by which command, and what came
//! back, redacted as stdout is. The same struct is written and read back (`history`).

use std::sync::LazyLock;

use rusqlite::{Connection, Row, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::Run;
use crate::domain::checks::Integrity;
use crate::domain::outcome::Record;
use crate::domain::signature::push_lower_hex;
use crate::exit::Exit;
use crate::secret::redact;

/// One check of a reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Entry {
    /// The reference asked.
    pub(crate) reference: String,
    /// When the answer was judged, RFC 3339 UTC.
    pub(crate) checked_at: String,
    /// `verify`, `gate` or `reconcile`.
    pub(crate) command: String,
    pub(crate) profile: Option<String>,
    /// The service's host, or `sandbox`.
    pub(crate) host: String,
    /// The verdict's outcome (SUCCESSFUL, CHECK_FAILED, NOT_FOUND, ...).
    pub(crate) outcome: String,
    /// reconcile's result for the row (MATCHED, DUPLICATE, ...); `None` elsewhere.
    pub(crate) result: Option<String>,
    /// The exit status the check came to.
    pub(crate) exit_code: u8,
    pub(crate) status: Option<String>,
    pub(crate) code: Option<String>,
    pub(crate) amount_kobo: Option<i64>,
    pub(crate) currency: Option<String>,
    pub(crate) merchant_ref: Option<String>,
    pub(crate) transaction_ref: Option<String>,
    pub(crate) payment_ref: Option<String>,
    pub(crate) mode: Option<String>,
    /// `valid`, `mismatch` or `not_checked`; `None` when there was no answer to check.
    pub(crate) hmac: Option<String>,
    /// Every check that failed, one line each.
    pub(crate) failed_checks: Vec<String>,
    /// The order it was checked for: reconcile's order id, gate's merchant reference.
    pub(crate) order: Option<String>,
    /// Why it is not a plain success, as the run said it.
    pub(crate) message: Option<String>,
    /// The service's answer as payverify shows it (redacted), compact JSON.
    #[serde(serialize_with = "as_json")]
    pub(crate) answer: Option<String>,
    /// The SHA-256 of `answer`'s text, hex.
    pub(crate) answer_sha256: Option<String>,
}

/// The answer written as the JSON object it is, not as a string holding it.
fn as_json<S: serde::Serializer>(answer: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    let value = answer
        .as_deref()
        .and_then(|text| crate::domain::json::parse_object(text.as_bytes()).ok())
        .map(serde_json::Value::Object);
    serde::Serialize::serialize(&value, s)
}

/// The columns in the order [`Entry::insert`] and [`Entry::read`] take them.
pub(super) const COLUMNS: &str = "reference, checked_at, command, profile, host, outcome, result, \
     exit_code, status, code, amount_kobo, currency, merchant_ref, transaction_ref, \
     payment_ref, mode, hmac, failed_checks, \"order\", message, answer, answer_sha256";

impl Entry {
    /// `record` as run `run` judged it: `counted` is the name the run counted it by (the
    /// verdict's, or gate's CHECK_FAILED for a payment claimed by another order, or
    /// reconcile's row result), `exit` its exit status, `why` the line that says why it is
    /// not a plain success.
    pub(super) fn of(
        record: &Record,
        run: &Run,
        counted: &str,
        exit: Exit,
        why: Option<&str>,
    ) -> Entry {
        let verdict = &record.verdict;
        let answer = verdict.outcome.verification();
        let field = |f: fn(&crate::domain::model::Verification) -> Option<&String>| {
            answer.and_then(f).cloned()
        };
        let text = answer.and_then(|v| serde_json::to_string(&v.raw).ok());
        let sha = text.as_ref().map(|t| {
            let mut hex = String::with_capacity(64);
            push_lower_hex(&Sha256::digest(t.as_bytes()), &mut hex);
            hex
        });
        let (outcome, result) = match run.command {
            "reconcile" => (verdict.name().to_owned(), Some(counted.to_owned())),
            _ => (counted.to_owned(), None),
        };
        let expect = &record.job.expect;
        let order = (expect.order_id.as_deref()).or(expect.merchant_ref.as_deref());
        let message = why.map(str::to_owned).or_else(|| record.error());
        Entry {
            reference: redact(record.job.reference.as_str()).into_owned(),
            checked_at: super::now(),
            command: run.command.to_owned(),
            profile: run.profile.clone(),
            host: run.host.clone(),
            outcome,
            result,
            exit_code: exit.code(),
            status: field(|v| v.status.as_ref()),
            code: field(|v| v.code.as_ref()),
            amount_kobo: answer.and_then(|v| v.amount).map(|k| k.0),
            currency: field(|v| v.currency.as_ref()),
            merchant_ref: field(|v| v.merchant_ref.as_ref()),
            transaction_ref: field(|v| v.transaction_ref.as_ref()),
            payment_ref: field(|v| v.payment_ref.as_ref()),
            mode: field(|v| v.mode.as_ref()),
            hmac: verdict.checks.as_ref().map(|c| {
                match c.integrity {
                    Integrity::Valid => "valid",
                    Integrity::Mismatch => "mismatch",
                    Integrity::NotChecked(_) => "not_checked",
                }
                .to_owned()
            }),
            failed_checks: (verdict.checks.iter())
                .flat_map(|c| c.failures.iter())
                .map(|f| redact(&f.to_string()).into_owned())
                .collect(),
            order: order.map(|o| redact(o).into_owned()),
            message: message.map(|m| redact(&m).into_owned()),
            answer: text,
            answer_sha256: sha,
        }
    }

    /// Writes the entry.
    pub(super) fn insert(&self, conn: &Connection) -> rusqlite::Result<()> {
        static INSERT: LazyLock<String> = LazyLock::new(|| {
            let places: Vec<String> = (1..=COLUMNS.split(", ").count())
                .map(|n| format!("?{n}"))
                .collect();
            format!(
                "INSERT INTO checks ({COLUMNS}) VALUES ({})",
                places.join(", ")
            )
        });
        let failed = serde_json::to_string(&self.failed_checks).unwrap_or_else(|_| "[]".into());
        conn.prepare_cached(&INSERT)?.execute(params![
            self.reference,
            self.checked_at,
            self.command,
            self.profile,
            self.host,
            self.outcome,
            self.result,
            self.exit_code,
            self.status,
            self.code,
            self.amount_kobo,
            self.currency,
            self.merchant_ref,
            self.transaction_ref,
            self.payment_ref,
            self.mode,
            self.hmac,
            failed,
            self.order,
            self.message,
            self.answer,
            self.answer_sha256,
        ])?;
        Ok(())
    }

    /// An entry read back from a row of [`COLUMNS`], starting at column `at`.
    pub(super) fn read(row: &Row, at: usize) -> rusqlite::Result<Entry> {
        let failed: String = row.get(at + 17)?;
        Ok(Entry {
            reference: row.get(at)?,
            checked_at: row.get(at + 1)?,
            command: row.get(at + 2)?,
            profile: row.get(at + 3)?,
            host: row.get(at + 4)?,
            outcome: row.get(at + 5)?,
            result: row.get(at + 6)?,
            exit_code: row.get(at + 7)?,
            status: row.get(at + 8)?,
            code: row.get(at + 9)?,
            amount_kobo: row.get(at + 10)?,
            currency: row.get(at + 11)?,
            merchant_ref: row.get(at + 12)?,
            transaction_ref: row.get(at + 13)?,
            payment_ref: row.get(at + 14)?,
            mode: row.get(at + 15)?,
            hmac: row.get(at + 16)?,
            failed_checks: crate::domain::json::typed_record(&failed).unwrap_or_default(),
            order: row.get(at + 18)?,
            message: row.get(at + 19)?,
            answer: row.get(at + 20)?,
            answer_sha256: row.get(at + 21)?,
        })
    }
}
