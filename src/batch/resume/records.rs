//! A line of a resume or state file as the index keeps it (its key and whether it is a
//! final record), and, when its turn comes, as the record it is carried as: the verdict it
//! was decided as, rebuilt from its `judged` key and its stored answer, for this run's job.
//! Nothing is judged again: a record is carried only when the fingerprint of what judged it
//! is this run's for the same job (`domain::seal`).

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::*;
use crate::domain::checks::Integrity;
use crate::domain::model::Verification;
use crate::domain::outcome::OUTCOME_EXITS;
use crate::domain::outcome::kept_answer;
use crate::domain::row_record::RowRecord;
use crate::domain::seal::{Judged, fingerprint};
use crate::reference::Reference;

/// Why a record cannot be read.
pub(super) enum Unread {
    /// A reconcile record of an input whose row has other columns than this input's header.
    Layout,
    /// Not a record of this command at all.
    Foreign(String),
}

impl From<String> for Unread {
    fn from(why: String) -> Self {
        Unread::Foreign(why)
    }
}

impl From<&str> for Unread {
    fn from(why: &str) -> Self {
        Unread::Foreign(why.to_owned())
    }
}

/// A line as the index keeps it: its key, and whether its outcome is final (carried when
/// its seal and fingerprint hold); `None` for a row decided from the input alone
/// (reconcile's DUPLICATE, INVALID_ROW), which shares its reference with the row that was
/// asked and is decided again.
pub(super) fn indexed(line: &str, shape: &Shape) -> Result<Option<(String, bool)>, Unread> {
    let stored = Stored::read(line, shape)?;
    let Some(key) = stored.key else {
        return Ok(None);
    };
    Ok(Some((key, (shape.is_final)(stored.name))))
}

/// What a record keeps, read from its line for either command.
struct Stored<'a> {
    /// Its reference (verify's) or its reference cell (reconcile's); `None` for a row
    /// decided from the input alone.
    key: Option<String>,
    /// Its outcome or result name.
    name: &'static str,
    /// Its answer as the text it was written as (verify's), or as read (reconcile's).
    response: Option<Answer<'a>>,
    /// Its `judged` key.
    judged: Option<Value>,
    /// reconcile's row: its line and cells.
    row: Option<(u64, Vec<String>)>,
}

/// A stored answer: verify's as its text, reconcile's as the object its record read.
enum Answer<'a> {
    Text(&'a RawValue),
    Object(std::sync::Arc<serde_json::Map<String, Value>>),
}

impl Answer<'_> {
    /// The answer's fields, read (not judged) as a fresh answer enters: what the service
    /// said, as it was kept, redacted under this run's secrets.
    fn verification(self) -> Option<Verification> {
        let object = match self {
            Answer::Text(text) => crate::domain::json::parse_record(text.get()).ok()?,
            Answer::Object(object) => std::sync::Arc::unwrap_or_clone(object),
        };
        kept_answer(object)
    }
}

impl<'a> Stored<'a> {
    fn read(line: &'a str, shape: &Shape) -> Result<Stored<'a>, Unread> {
        match &shape.row {
            None => Stored::verify(line),
            Some(row) => Stored::reconcile(line, row),
        }
    }

    /// verify's record `line`.
    fn verify(line: &'a str) -> Result<Stored<'a>, Unread> {
        let record = read::record(line)?;
        let reference = record.reference.as_ref();
        if Reference::parse(reference).map(|r| r.as_str() == reference) != Ok(true) {
            return Err("has an invalid reference".into());
        }
        let Some((name, exit)) = OUTCOME_EXITS.iter().find(|(n, _)| *n == record.outcome) else {
            return Err("has an unknown outcome".into());
        };
        if record.exit_code != exit.code() {
            return Err(format!("has an exit_code that disagrees with its outcome {name}").into());
        }
        Ok(Stored {
            key: Some(reference.to_owned()),
            name,
            response: record.response.map(Answer::Text),
            judged: record.judged,
            row: None,
        })
    }

    /// reconcile's record `line`, for an input whose row has `row`'s keys: the row's `line`
    /// and `row` object, then the record's own fields, then its seal.
    fn reconcile(line: &'a str, row: &RowShape) -> Result<Stored<'a>, Unread> {
        let mut map = crate::domain::json::parse_record(line)?;
        let (number, cells) = (map.shift_remove("line"), map.shift_remove("row"));
        if !matches!(map.shift_remove("seal"), None | Some(Value::String(_))) {
            return Err("has a \"seal\" payverify does not write".into());
        }
        let record: RowRecord = read::typed(&map)?;
        let Some(Value::Object(cells)) = cells else {
            return Err("has no \"row\" object".into());
        };
        if !cells.keys().eq(row.keys.iter()) {
            return Err(Unread::Layout);
        }
        let cells = cells
            .into_iter()
            .map(|(_, v)| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or("has a row cell that is not a string")?;
        let number = number
            .as_ref()
            .and_then(Value::as_u64)
            .ok_or("has no line number")?;
        let name = record.result.name();
        let key = match (row.unkeyed)(name) {
            true => None,
            false => {
                let key = cells.get(row.reference).cloned().unwrap_or_default();
                if key.is_empty() || Reference::from_line(&key).is_err() {
                    return Err("has no valid reference".into());
                }
                Some(key)
            }
        };
        Ok(Stored {
            key,
            name,
            response: record.response.map(Answer::Object),
            judged: record.judged,
            row: Some((number, cells)),
        })
    }

    /// The record carried for `job`, or `None` when it is to be asked again: it must be
    /// `job`'s own row as it was (reconcile), judged by what this run would judge it by
    /// (its fingerprint), and rebuild into the verdict it was written as (its stored answer
    /// and checks making the outcome and result it names). An exit 0 also needs the hmac it
    /// was found to have valid: only that signature shows the answer came from the service.
    fn carry(self, job: &Job, trust: &Trust) -> Option<Carried> {
        if let (Some(stored), Some(input)) = (&self.row, &job.row) {
            let mut cells = input.cells.clone();
            cells.resize(stored.1.len(), String::new());
            if stored.0 != input.line || stored.1 != cells {
                return None;
            }
        }
        let judged = Judged::deserialize(self.judged?).ok()?;
        if judged.by != fingerprint(job, trust.hmac, trust.expect_mode.as_deref()) {
            return None;
        }
        let answer = match self.response {
            Some(answer) => Some(answer.verification()?),
            None => None,
        };
        let judged_by = judged.by.clone().into_owned();
        let verdict = judged.verdict(answer)?;
        let signed = || {
            verdict
                .checks
                .as_ref()
                .is_some_and(|c| c.integrity == Integrity::Valid)
        };
        // The name the record shows must be what its verdict comes to (reconcile: the
        // row's result from it, by the one rule the writer applies): one relabelled, even
        // under a seal, is no record payverify wrote.
        let name = match self.row {
            None => verdict.name(),
            Some(_) => crate::domain::reconcile::classify(&verdict, &job.expect).name(),
        };
        if name != self.name {
            return None;
        }
        if verdict.exit() == Exit::Successful && !signed() {
            return None;
        }
        Some(Carried(Box::new(Record {
            job: job.clone(),
            verdict,
            judged_by,
        })))
    }
}

/// The record `text` (its seal found to hold when the file was read, its bytes the same
/// since) carried for `job`, or `None` when it is to be asked again (see
/// [`Stored::carry`]).
pub(super) fn carried(text: &str, job: &Job, shape: &Shape, trust: &Trust) -> Option<Carried> {
    Stored::read(text, shape).ok()?.carry(job, trust)
}
