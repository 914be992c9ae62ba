//! What `payverify history` reads: every check of one reference, and the answers that
//! changed between two checks (a payment reversed, an amount corrected).

use std::path::Path;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::entry::{COLUMNS, Entry};
use super::{Refusal, open, refused};
use crate::exit::Failure;

/// A reference whose answer changed between two of its checks on one service.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Change {
    pub(crate) reference: String,
    /// The earlier answer.
    pub(crate) before: Entry,
    /// The next answer, whose status, amount or currency differs.
    pub(crate) after: Entry,
}

/// Every check of `reference` in the journal at `path`, oldest first; `None` when there is
/// no journal there.
pub(crate) fn entries(path: &Path, reference: &str) -> Result<Option<Vec<Entry>>, Failure> {
    let Some(conn) = reading(path)? else {
        return Ok(None);
    };
    let sql = format!("SELECT {COLUMNS} FROM checks WHERE reference = ?1 ORDER BY id");
    let read = || -> rusqlite::Result<Vec<Entry>> {
        let mut statement = conn.prepare(&sql)?;
        let rows = statement.query_map(params![reference], |row| Entry::read(row, 0))?;
        rows.collect()
    };
    read()
        .map(Some)
        .map_err(|e| refused(path, &open::reason(&e)))
}

/// Every change between two answered checks of a reference (on the same service) whose
/// later check is at or after `since` (RFC 3339 UTC, as the journal writes it), oldest
/// first; `None` when there is no journal at `path`.
pub(crate) fn changes(path: &Path, since: Option<&str>) -> Result<Option<Vec<Change>>, Failure> {
    let Some(conn) = reading(path)? else {
        return Ok(None);
    };
    let of = |table: &str| {
        (COLUMNS.split(", "))
            .map(|column| format!("{table}.{}", column.trim()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let width = COLUMNS.split(", ").count();
    let sql = format!(
        "WITH answered AS (
             SELECT id, LAG(id) OVER (PARTITION BY host, reference ORDER BY id) AS before_id
             FROM checks WHERE status IS NOT NULL
         )
         SELECT {}, {} FROM answered
         JOIN checks b ON b.id = answered.before_id
         JOIN checks a ON a.id = answered.id
         WHERE (b.status IS NOT a.status OR b.amount_kobo IS NOT a.amount_kobo
                OR b.currency IS NOT a.currency)
           AND a.checked_at >= ?1
         ORDER BY a.id",
        of("b"),
        of("a")
    );
    let read = || -> rusqlite::Result<Vec<Change>> {
        let mut statement = conn.prepare(&sql)?;
        let rows = statement.query_map(params![since.unwrap_or("")], |row| {
            let before = Entry::read(row, 0)?;
            let after = Entry::read(row, width)?;
            Ok(Change {
                reference: after.reference.clone(),
                before,
                after,
            })
        })?;
        rows.collect()
    };
    read()
        .map(Some)
        .map_err(|e| refused(path, &open::reason(&e)))
}

fn reading(path: &Path) -> Result<Option<Connection>, Failure> {
    open::for_reading(path).map_err(|refusal| match refusal {
        Refusal::Unmade(why) | Refusal::Unusable(why) => refused(path, &why),
    })
}
