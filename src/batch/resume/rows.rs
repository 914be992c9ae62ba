//! reconcile's records read back: the input row each holds, its result and its figures.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::*;
use crate::domain::checks::{APPROVED, HmacMode, Integrity};
use crate::domain::job::Job;
use crate::domain::outcome::classify_response;
use crate::domain::reconcile::{RowResult, claimed_by};
use crate::domain::verifier::judge;
use crate::exit::{Exit, Failure};
use crate::reference::Reference;

/// A reconcile record whose input row has other columns than this input's header.
pub(super) fn other_layout(flag: &str, name: &str, n: usize) -> Failure {
    Failure::usage(format!(
        "{flag} {name}: line {n} is a row of an orders file with other columns than this \
         one's header; resume from the output of a run on this file's layout"
    ))
}

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

/// One reconcile record read back: the input row it holds and what it says of it.
pub(super) struct RowRecord {
    /// The input line the row was on.
    pub(super) line: u64,
    /// The row's cells, exact values.
    pub(super) cells: Vec<String>,
    pub(super) name: &'static str,
    pub(super) exit: Exit,
    pub(super) status: Option<String>,
    pub(super) code: Option<String>,
    pub(super) error: bool,
    pub(super) amounts: Amounts,
}

impl RowRecord {
    pub(super) fn from_json(
        line: &str,
        shape: &Shape,
        row: &RowShape,
    ) -> Result<RowRecord, RowError> {
        let map: Map<String, Value> = crate::domain::json::parse_record(line)?;
        let own = shape.own_columns();
        if let Some(key) = map
            .keys()
            .find(|k| !own.contains(k) && !shape.json_only.contains(&k.as_str()))
        {
            return Err(format!(
                "has a field payverify does not write ({})",
                crate::terminal::quoted(key)
            )
            .into());
        }
        let Some(Value::Object(cells)) = map.get("row") else {
            return Err("has no \"row\" object".into());
        };
        if !cells.keys().eq(row.keys.iter()) {
            return Err(RowError::Layout);
        }
        let cells = cells
            .values()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("has a row cell that is not a string")?;
        let text = |key: &str| match map.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Null) | None => Ok(None),
            Some(_) => Err(format!("has a \"{key}\" that is not a string")),
        };
        let number = |key: &str| match map.get(key) {
            Some(Value::Number(n)) => n
                .to_string()
                .parse::<i128>()
                .map(Some)
                .map_err(|_| format!("has a \"{key}\" that is not a whole number")),
            Some(Value::Null) | None => Ok(None),
            Some(_) => Err(format!("has a \"{key}\" that is not a number")),
        };
        let Some(result) = text(shape.outcome)? else {
            return Err(format!("has no string \"{}\"", shape.outcome).into());
        };
        let (name, exit) = name_and_exit(shape, &result, None)?;
        if !matches!(
            map.get("response"),
            Some(Value::Object(_) | Value::Null) | None
        ) {
            return Err("has a \"response\" that is not an object".into());
        }
        stored_row_response(line)?;
        let line = match map.get("line") {
            Some(Value::Number(n)) => n.as_u64(),
            _ => None,
        }
        .ok_or("has no line number")?;
        let amounts = Amounts {
            expected: kobo(number("expected_amount_kobo")?)?,
            gateway: kobo(number("gateway_amount_kobo")?)?,
            difference: number("difference_kobo")?,
        };
        figures_agree(name, &amounts)?;
        Ok(RowRecord {
            line,
            cells,
            name,
            exit,
            status: text("gateway_status")?,
            code: text("gateway_code")?,
            error: text("error")?.is_some_and(|e| !e.is_empty()),
            amounts,
        })
    }

    /// What the index keeps of the record: its key (the reference cell) and, when its
    /// result is final, what it comes to; `None` for a row decided from the input alone
    /// (DUPLICATE, INVALID_ROW), which is decided again rather than carried.
    pub(super) fn indexed(self, shape: &Shape, row: &RowShape) -> Result<Option<Parsed>, String> {
        if (row.unkeyed)(self.name) {
            return Ok(None);
        }
        let key = self.cells.get(row.reference).cloned().unwrap_or_default();
        if key.is_empty() || Reference::from_line(&key).is_err() {
            return Err("has no valid reference".into());
        }
        if !(shape.is_final)(self.name) {
            return Ok(Some((key, None)));
        }
        consistent(self.name, self.status.as_deref())?;
        let matched = RowResult::named(self.name) == Some(RowResult::Matched);
        if matched && (self.error || self.code.as_deref() != Some(APPROVED)) {
            return Err(format!(
                "is {} with an error or a code other than 00",
                self.name
            ));
        }
        let carried = Final {
            exit: self.exit,
            name: self.name,
        };
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
        self,
        text: &str,
        job: &Job,
        row: &RowShape,
        trust: &Checker,
        claims: Option<&Claims>,
    ) -> Option<()> {
        let input = job.row.as_ref()?;
        let mut cells = input.cells.clone();
        cells.resize(row.keys.len(), String::new());
        let same_row = self.line == input.line && self.cells == cells;
        if !same_row || self.amounts.expected != job.expect.amount.map(|k| k.0) {
            return None;
        }
        // A row counts in the totals only as payverify wrote it: its seal must hold.
        if !trust.sealed(text) {
            return None;
        }
        if RowResult::named(self.name) == Some(RowResult::Matched) {
            let secret = trust.secret()?;
            let stored = stored_row_response(text).ok()??;
            let outcome = classify_response(&Response {
                status: 200,
                body: stored.get().as_bytes().to_vec(),
            });
            let reference = job.reference.as_str();
            let verdict = judge(
                outcome,
                reference,
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

/// The `response` of a reconcile jsonl record as the text it was written as (checked again
/// as the service's body, byte for byte); a key given twice is refused, as for verify.
pub(super) fn stored_row_response(line: &str) -> Result<Option<&RawValue>, String> {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    #[allow(dead_code)] // the other keys are named only so that a repeated one is an error
    struct Stored<'a> {
        #[serde(borrow, default)]
        response: Option<&'a RawValue>,
        line: Option<IgnoredAny>,
        row: Option<IgnoredAny>,
        result: Option<IgnoredAny>,
        difference_kobo: Option<IgnoredAny>,
        gateway_status: Option<IgnoredAny>,
        gateway_code: Option<IgnoredAny>,
        gateway_amount_kobo: Option<IgnoredAny>,
        expected_amount_kobo: Option<IgnoredAny>,
        gateway_currency: Option<IgnoredAny>,
        checks: Option<IgnoredAny>,
        seal: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
    }
    crate::domain::json::from_record::<Stored>(line).map(|stored| stored.response)
}

/// A kobo figure as the record states it: a whole number in range.
pub(super) fn kobo(n: Option<i128>) -> Result<Option<i64>, String> {
    n.map(|n| i64::try_from(n).map_err(|_| "has a kobo amount out of range".to_owned()))
        .transpose()
}

/// A row's figures as payverify writes them: the difference is the gateway amount less the
/// expected one, below zero for UNDERPAID and above for OVERPAID. A row whose figures
/// disagree was not written by payverify, and would put wrong money into the totals.
pub(super) fn figures_agree(name: &str, amounts: &Amounts) -> Result<(), String> {
    let disagree = || Err("has figures that disagree with each other".to_owned());
    if let Some(d) = amounts.difference {
        let (Some(g), Some(e)) = (amounts.gateway, amounts.expected) else {
            return disagree();
        };
        if d != i128::from(g) - i128::from(e) {
            return disagree();
        }
    }
    match (RowResult::named(name), amounts.difference) {
        (Some(RowResult::Underpaid), Some(d)) if d < 0 => Ok(()),
        (Some(RowResult::Overpaid), Some(d)) if d > 0 => Ok(()),
        (Some(RowResult::Underpaid | RowResult::Overpaid), _) => disagree(),
        _ => Ok(()),
    }
}
