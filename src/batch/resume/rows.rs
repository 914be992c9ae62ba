//! reconcile's records read back: the input row each holds, its result and its figures.

use serde_json::Value;
use serde_json::value::RawValue;

use super::*;
use crate::domain::checks::{APPROVED, HmacMode, Integrity};
use crate::domain::job::Job;
use crate::domain::judge::judge;
use crate::domain::outcome::classify_response;
use crate::domain::reconcile::{RowResult, claimed_by};
use crate::domain::row_record::RowRecord;
use crate::reference::Reference;

/// Why a reconcile record cannot be read.
pub(super) enum RowError {
    /// Its input row has other columns than this input's header.
    Layout,
    /// It is not a reconcile record at all.
    Foreign(String),
}

impl From<String> for RowError {
    fn from(why: String) -> Self {
        RowError::Foreign(why)
    }
}

impl From<&str> for RowError {
    fn from(why: &str) -> Self {
        RowError::Foreign(why.to_owned())
    }
}

/// A reconcile record read back: the domain's [`RowRecord`] (with the line and cells of
/// the input row it holds) and its response as the text it was written as.
pub(super) struct StoredRow<'a> {
    pub(super) record: RowRecord,
    pub(super) response: Option<&'a RawValue>,
}

impl<'a> StoredRow<'a> {
    /// The record `text`, for an input whose row has `row`'s keys: the row's `line` and
    /// `row` object, then the record's own fields, then its seal.
    pub(super) fn read(text: &'a str, row: &RowShape) -> Result<StoredRow<'a>, RowError> {
        let mut map = crate::domain::json::parse_record(text)?;
        let (line, cells) = (map.shift_remove("line"), map.shift_remove("row"));
        if !matches!(map.shift_remove("seal"), None | Some(Value::String(_))) {
            return Err("has a \"seal\" payverify does not write".into());
        }
        let mut record: RowRecord = read::typed(&map)?;
        let Some(Value::Object(cells)) = cells else {
            return Err("has no \"row\" object".into());
        };
        if !cells.keys().eq(row.keys.iter()) {
            return Err(RowError::Layout);
        }
        record.cells = cells
            .into_iter()
            .map(|(_, v)| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or("has a row cell that is not a string")?;
        record.line = line
            .as_ref()
            .and_then(Value::as_u64)
            .ok_or("has no line number")?;
        figures_agree(&record)?;
        Ok(StoredRow {
            record,
            response: read::response(text),
        })
    }

    /// What the index keeps of the record: its key (the reference cell) and, when its
    /// result is final, what it comes to; `None` for a row decided from the input alone
    /// (DUPLICATE, INVALID_ROW), which is decided again rather than carried.
    pub(super) fn indexed(&self, shape: &Shape, row: &RowShape) -> Result<Option<Parsed>, String> {
        let record = &self.record;
        let (name, exit) = (record.result.name(), record.result.exit());
        if (row.unkeyed)(name) {
            return Ok(None);
        }
        let key = record.cells.get(row.reference).cloned().unwrap_or_default();
        if key.is_empty() || Reference::from_line(&key).is_err() {
            return Err("has no valid reference".into());
        }
        if !(shape.is_final)(name) {
            return Ok(Some((key, None)));
        }
        consistent(name, record.gateway_status.as_deref())?;
        let error = record.error.is_some();
        let matched = record.result == RowResult::Matched;
        if matched && (error || record.gateway_code.as_deref() != Some(APPROVED)) {
            return Err(format!("is {name} with an error or a code other than 00"));
        }
        let carried = Final { exit, name };
        Ok(Some((key, Some(Some(carried)))))
    }

    /// `Some` when the record may stand for `job`'s row in this run: the same row
    /// (line and every cell), judged against the same expected amount, and, for a MATCHED
    /// record (exit 0), a stored response (`text`'s, byte for byte) that passes this row's
    /// checks as a fresh answer would, with an hmac valid under this run's secret whatever
    /// `--hmac` says, for a payment no earlier row of this input claimed (`claims`: the
    /// one-payment-one-order rule a fresh run applies to the answer). `None`: the row is
    /// asked again, and judged as fresh.
    pub(super) fn still_holds(
        &self,
        text: &str,
        job: &Job,
        row: &RowShape,
        trust: &Checker,
        claims: Option<&Claims>,
    ) -> Option<()> {
        let input = job.row.as_ref()?;
        let mut cells = input.cells.clone();
        cells.resize(row.keys.len(), String::new());
        let record = &self.record;
        let same_row = record.line == input.line && record.cells == cells;
        if !same_row || record.expected_amount_kobo != job.expect.amount.map(|k| k.0) {
            return None;
        }
        // A row counts in the totals only as payverify wrote it: its seal must hold.
        if !trust.sealed(text) {
            return None;
        }
        if record.result == RowResult::Matched {
            let secret = trust.secret()?;
            let stored = self.response?;
            let outcome = classify_response(&Response {
                status: 200,
                body: stored.get().as_bytes().to_vec(),
            });
            let reference = job.reference.as_str();
            let verdict = judge(
                outcome,
                Some(reference),
                HmacMode::Require,
                secret,
                &job.expect,
                trust.expect_mode(),
            );
            let signed = verdict
                .checks
                .as_ref()
                .is_some_and(|c| c.integrity == Integrity::Valid);
            if !signed || (row.classify)(&verdict, &job.expect) != RowResult::Matched {
                return None;
            }
            let answer = verdict.outcome.verification()?;
            let claimed = claims.is_some_and(|Claims(lines_of)| {
                claimed_by(answer, reference, input.line, lines_of.as_ref()).is_some()
            });
            if claimed {
                return None;
            }
        }
        Some(())
    }
}

/// A row's figures as payverify writes them: the difference is the gateway amount less the
/// expected one, below zero for UNDERPAID and above for OVERPAID. A row whose figures
/// disagree was not written by payverify, and would put wrong money into the totals.
fn figures_agree(record: &RowRecord) -> Result<(), String> {
    let disagree = || Err("has figures that disagree with each other".to_owned());
    if let Some(d) = record.difference_kobo {
        let (Some(g), Some(e)) = (record.gateway_amount_kobo, record.expected_amount_kobo) else {
            return disagree();
        };
        if d != i128::from(g) - i128::from(e) {
            return disagree();
        }
    }
    match (record.result, record.difference_kobo) {
        (RowResult::Underpaid, Some(d)) if d < 0 => Ok(()),
        (RowResult::Overpaid, Some(d)) if d > 0 => Ok(()),
        (RowResult::Underpaid | RowResult::Overpaid, _) => disagree(),
        _ => Ok(()),
    }
}
