//! The journal (issue 40): every answer verify, gate and reconcile judged, kept in one
//! SQLite file, and the payments claimed by an order, so one payment never pays for two
//! orders on two days. One writer per process: the batch's ordered writer hands it each
//! record as it is written (and, under `--wait`, each answer asked on the way); a write
//! transaction is committed every few hundred milliseconds and at the end, so other
//! processes (20 gates at once) wait for one another briefly and never fail.

mod entry;
mod history;
mod open;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, OptionalExtension, params};

use crate::domain::outcome::Record;
use crate::exit::{Cause, Exit, Failure};
pub(crate) use entry::Entry;
pub(crate) use history::{Change, changes, entries};
pub(crate) use open::Refusal;

/// How long a write transaction stays open while records come: other processes wait at
/// most about this for the journal.
const COMMIT_EVERY: Duration = Duration::from_millis(200);
/// The most checks one transaction holds.
const COMMIT_ROWS: usize = 1024;

/// What every check of a run shares: the command, the profile and the service's host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// `verify`, `gate` or `reconcile`.
    pub(crate) command: &'static str,
    /// The profile the settings came from, if any.
    pub(crate) profile: Option<String>,
    /// The base URL's host (`host:port` when it names a port), or `sandbox`: a claim holds
    /// among the payments of one service.
    pub(crate) host: String,
}

/// An open journal, shared by the parts of a run that write to it.
#[derive(Clone)]
pub(crate) struct Journal(Arc<Shared>);

struct Shared {
    path: PathBuf,
    run: Run,
    inner: Mutex<Inner>,
}

struct Inner {
    conn: Connection,
    /// Checks not yet written, and since when the oldest has waited. They are written in
    /// one short transaction every [`COMMIT_EVERY`] or [`COMMIT_ROWS`]: no transaction is
    /// ever open while the run waits on anything else (a stdout a slow reader holds), so
    /// other processes never wait on this one for longer than a write.
    pending: Vec<Entry>,
    since: Option<Instant>,
    /// Why the journal stopped taking checks, once it has.
    failed: Option<String>,
}

/// The order a payment is claimed for, as gate and reconcile know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Order {
    /// reconcile's order id (without a leading `#`); gate's merchant reference, or the order
    /// id a WooCommerce merchant reference (`<order id>_<unix time>`) names.
    pub(crate) key: String,
    /// The order's merchant reference, where it is known (gate's, a row's merchant ref
    /// column).
    pub(crate) merchant_ref: Option<String>,
}

impl Order {
    /// The order gate passes a payment for: its merchant reference.
    pub(crate) fn of_merchant_ref(merchant_ref: &str) -> Order {
        let key = crate::domain::checks::woocommerce_order(merchant_ref).unwrap_or(merchant_ref);
        Order {
            key: key.to_owned(),
            merchant_ref: Some(merchant_ref.to_owned()),
        }
    }

    /// Whether `other` is this order: the same key, or the same merchant reference where
    /// both know one. A reconcile file with no merchant ref column and a gate whose
    /// merchant references are not WooCommerce's cannot be told to be one order: they
    /// count as two, and the later is a DUPLICATE naming the first, for a person to look.
    pub(crate) fn is(&self, other: &Order) -> bool {
        let same_ref =
            matches!((&self.merchant_ref, &other.merchant_ref), (Some(a), Some(b)) if a == b);
        self.key == other.key || same_ref
    }
}

/// A payment an order already claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The order it was claimed for.
    pub(crate) order: String,
    /// When, RFC 3339 UTC.
    pub(crate) at: String,
    /// The command that claimed it.
    pub(crate) command: String,
}

impl Claim {
    /// The claim as the error line says it: `order 1001 (gate, 2026-12-01T10:00:00Z)`.
    pub(crate) fn said(&self) -> String {
        format!("order {} ({}, {})", self.order, self.command, self.at)
    }
}

/// The time now as the journal writes it: RFC 3339, UTC, to the millisecond, so the text
/// sorts as the time does.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// The one-line error for a journal at `path` that cannot be used, with the fixes.
pub(crate) fn refused(path: &Path, why: &str) -> Failure {
    Failure::config(
        Cause::Journal,
        format!(
            "the journal {} cannot be used: {why}; move the file away, name another with \
             --journal PATH, or run with --no-journal",
            path.display()
        ),
    )
}

impl Journal {
    /// Opens (or makes) the journal at `path` for `run`. `make_directory`: the default
    /// place, whose directory is made owner-only when missing.
    pub(crate) fn open(path: &Path, make_directory: bool, run: Run) -> Result<Journal, Refusal> {
        let conn = open::for_writing(path, make_directory)?;
        Ok(Journal(Arc::new(Shared {
            path: path.to_owned(),
            run,
            inner: Mutex::new(Inner {
                conn,
                pending: Vec::new(),
                since: None,
                failed: None,
            }),
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing a panic could leave half-done is kept outside SQLite's own transaction.
        self.0.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps one judged record: its verdict's name and exit as the run counted them
    /// (`outcome`, `exit`; for reconcile the row's result beside the verdict's outcome),
    /// and why it is not a plain success (`why`).
    pub(crate) fn record(&self, record: &Record, counted: &str, exit: Exit, why: Option<&str>) {
        let row = Entry::of(record, &self.0.run, counted, exit, why);
        let mut inner = self.lock();
        if inner.failed.is_some() {
            return;
        }
        inner.pending.push(row);
        let since = *inner.since.get_or_insert_with(Instant::now);
        if inner.pending.len() >= COMMIT_ROWS || since.elapsed() >= COMMIT_EVERY {
            inner.flush();
        }
    }

    /// Writes the checks that have waited [`COMMIT_EVERY`]: called by the writer as it
    /// waits for answers, so a slow run's checks are not held back.
    pub(crate) fn tick(&self) {
        let mut inner = self.lock();
        if inner.since.is_some_and(|at| at.elapsed() >= COMMIT_EVERY) {
            inner.flush();
        }
    }

    /// Claims `payment` (a transactionRef, else a paymentRef) of this run's service for
    /// `order`, asked as `reference`; the earlier claim when another order holds it. The
    /// same order again (a re-run, an overlapping export, gate and reconcile on one order)
    /// is no conflict: see [`Order::is`]. An error when the journal cannot answer: then
    /// nothing may pass.
    pub(crate) fn claim(
        &self,
        payment: &str,
        order: &Order,
        reference: &str,
    ) -> Result<Option<Claim>, String> {
        let shared = &self.0;
        let mut inner = self.lock();
        // In order: the checks before the claim are written first.
        inner.flush();
        let mut found = None;
        inner.transaction(|conn| {
            let earlier = conn
                .prepare_cached(
                    "SELECT \"order\", merchant_ref, claimed_at, command FROM claims \
                     WHERE host = ?1 AND payment = ?2",
                )?
                .query_row(params![shared.run.host, payment], |row| {
                    let order = Order {
                        key: row.get(0)?,
                        merchant_ref: row.get(1)?,
                    };
                    let claim = Claim {
                        order: order.key.clone(),
                        at: row.get(2)?,
                        command: row.get(3)?,
                    };
                    Ok((order, claim))
                })
                .optional()?;
            match earlier {
                Some((earlier, claim)) if !earlier.is(order) => found = Some(claim),
                Some(_) => {}
                None => {
                    conn.prepare_cached(
                        "INSERT INTO claims (host, payment, \"order\", merchant_ref, reference, \
                         command, claimed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    )?
                    .execute(params![
                        shared.run.host,
                        payment,
                        order.key,
                        order.merchant_ref,
                        crate::secret::redact(reference),
                        shared.run.command,
                        now()
                    ])?;
                }
            }
            Ok(())
        });
        match &inner.failed {
            Some(why) => Err(why.clone()),
            None => Ok(found),
        }
    }

    /// Whether the journal holds a check of `reference` on this run's service: the
    /// sandbox's memory of what it answered in earlier runs.
    pub(crate) fn knows(&self, reference: &str) -> bool {
        let inner = self.lock();
        let host = &self.0.run.host;
        (inner.conn.prepare_cached(
            "SELECT 1 FROM checks WHERE reference = ?1 AND host = ?2 AND status IS NOT NULL",
        ))
        .and_then(|mut s| s.exists(params![reference, host]))
        .unwrap_or(false)
    }

    /// How many checks the journal keeps (0 when it cannot say).
    pub(crate) fn checks_kept(&self) -> i64 {
        let inner = self.lock();
        (inner.conn)
            .query_row("SELECT count(*) FROM checks", [], |row| row.get(0))
            .unwrap_or(0)
    }

    /// Commits what is open and says whether every check and claim was kept: the error
    /// line (exit 6) when one was not.
    pub(crate) fn close(&self) -> Result<(), Failure> {
        let mut inner = self.lock();
        inner.flush();
        match &inner.failed {
            Some(why) => Err(refused(&self.0.path, why)),
            None => Ok(()),
        }
    }
}

impl Inner {
    /// Writes every pending check, in one transaction.
    fn flush(&mut self) {
        self.since = None;
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.transaction(|conn| pending.iter().try_for_each(|entry| entry.insert(conn)));
    }

    /// Runs `write` in one write transaction (taken at once, so two processes' claims are
    /// one after the other); a failure stops the journal, and the run's end reports it.
    fn transaction(&mut self, write: impl FnOnce(&Connection) -> rusqlite::Result<()>) {
        if self.failed.is_some() {
            return;
        }
        let done =
            (self.conn.execute_batch("BEGIN IMMEDIATE")).and_then(|()| match write(&self.conn) {
                Ok(()) => self.conn.execute_batch("COMMIT"),
                Err(e) => Err(e),
            });
        if let Err(e) = done {
            let _ = self.conn.execute_batch("ROLLBACK");
            self.failed = Some(format!("cannot write to it: {}", open::reason(&e)));
        }
    }
}
