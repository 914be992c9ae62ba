//! One check as the journal keeps it: what was asked, when, by which command, and what came
//! back, redacted as stdout is. The same struct is written and read back (`history`).

use std::io::Write as _;
use std::sync::LazyLock;
use std::time::SystemTime;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Row, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::Run;
use crate::domain::checks::Integrity;
use crate::domain::model::Verification;
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

/// How many of [`COLUMNS`] are text: all but `exit_code` and `amount_kobo`.
const TEXTS: usize = 20;

/// A check as it waits for the journal's thread: its text columns in one buffer, in
/// [`COLUMNS`] order, so making one is one allocation and the thread frees it whole (an
/// [`Entry`]'s twenty strings, made on the run's writer and freed on the journal's thread,
/// were a tenth of the journal's cost).
pub(super) struct Packed {
    text: Vec<u8>,
    /// Each text column's start and end in `text`; `None` for NULL.
    spans: [Option<(u32, u32)>; TEXTS],
    /// How many text columns are in.
    filled: usize,
    exit_code: u8,
    amount_kobo: Option<i64>,
}

impl Packed {
    /// `record` as run `run` judged it: `counted` is the name the run counted it by (the
    /// verdict's, or gate's CHECK_FAILED for a payment claimed by another order, or
    /// reconcile's row result), `exit` its exit status, `why` the line that says why it is
    /// not a plain success. Every text from outside is redacted as stdout shows it.
    pub(super) fn of(
        record: &Record,
        run: &Run,
        counted: &str,
        exit: Exit,
        why: Option<&str>,
    ) -> Packed {
        let verdict = &record.verdict;
        let answer = verdict.outcome.verification();
        let mut entry = Packed {
            text: Vec::with_capacity(1024),
            spans: [None; TEXTS],
            filled: 0,
            exit_code: exit.code(),
            amount_kobo: answer.and_then(|v| v.amount).map(|k| k.0),
        };
        let (outcome, result) = match run.command {
            "reconcile" => (verdict.name(), Some(counted)),
            _ => (counted, None),
        };
        entry.put_redacted(Some(record.job.reference.as_str()));
        entry.put_with(|text| {
            let now = humantime::format_rfc3339_millis(SystemTime::now());
            let _ = write!(text, "{now}");
        });
        entry.put(Some(run.command));
        entry.put(run.profile.as_deref());
        entry.put(Some(&run.host));
        entry.put(Some(outcome));
        entry.put(result);
        let field = |f: fn(&Verification) -> &Option<String>| answer.and_then(|v| f(v).as_deref());
        entry.put(field(|v| &v.status));
        entry.put(field(|v| &v.code));
        entry.put(field(|v| &v.currency));
        entry.put(field(|v| &v.merchant_ref));
        entry.put(field(|v| &v.transaction_ref));
        entry.put(field(|v| &v.payment_ref));
        entry.put(field(|v| &v.mode));
        entry.put(verdict.checks.as_ref().map(|c| match c.integrity {
            Integrity::Valid => "valid",
            Integrity::Mismatch => "mismatch",
            Integrity::NotChecked(_) => "not_checked",
        }));
        let failed: Vec<String> = (verdict.checks.iter())
            .flat_map(|c| c.failures.iter())
            .map(|f| redact(&f.to_string()).into_owned())
            .collect();
        entry.put_with(|text| {
            // Plain strings into a Vec cannot fail to serialise.
            let _ = serde_json::to_writer(text, &failed);
        });
        let expect = &record.job.expect;
        entry.put_redacted((expect.order_id.as_deref()).or(expect.merchant_ref.as_deref()));
        match why {
            Some(why) => entry.put_redacted(Some(why)),
            None => entry.put_redacted(record.error().as_deref()),
        }
        match answer {
            Some(v) => {
                let at = entry.text.len();
                entry.put_with(|text| {
                    let _ = serde_json::to_writer(&mut *text, &v.raw);
                });
                let sha = Sha256::digest(&entry.text[at..]);
                let mut hex = String::with_capacity(64);
                push_lower_hex(&sha, &mut hex);
                entry.put(Some(&hex));
            }
            None => {
                entry.put(None);
                entry.put(None);
            }
        }
        entry
    }

    /// Adds the next text column, written by `write`.
    fn put_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.text.len();
        write(&mut self.text);
        if let Some(span) = self.spans.get_mut(self.filled) {
            // An entry is a few KiB: its offsets fit a u32 with room to spare.
            *span = Some((start as u32, self.text.len() as u32));
        }
        self.filled += 1;
    }

    /// Adds the next text column: `text`, or NULL.
    fn put(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.put_with(|buf| buf.extend_from_slice(text.as_bytes())),
            None => self.filled += 1,
        }
    }

    /// [`Packed::put`] of `text` redacted.
    fn put_redacted(&mut self, text: Option<&str>) {
        self.put(text.map(redact).as_deref());
    }

    /// Text column `n`, as SQLite binds it.
    fn column(&self, n: usize) -> Option<ToSqlOutput<'_>> {
        let (start, end) = self.spans.get(n).copied().flatten()?;
        let text = self.text.get(start as usize..end as usize)?;
        Some(ToSqlOutput::Borrowed(ValueRef::Text(text)))
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
        let c = |n| self.column(n);
        conn.prepare_cached(&INSERT)?.execute(params![
            c(0),
            c(1),
            c(2),
            c(3),
            c(4),
            c(5),
            c(6),
            self.exit_code,
            c(7),
            c(8),
            self.amount_kobo,
            c(9),
            c(10),
            c(11),
            c(12),
            c(13),
            c(14),
            c(15),
            c(16),
            c(17),
            c(18),
            c(19),
        ])?;
        Ok(())
    }
}

impl Entry {
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
