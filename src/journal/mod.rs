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
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, OptionalExtension, params};

use crate::domain::outcome::Record;
use crate::exit::{Cause, Exit, Failure};
pub(crate) use entry::Entry;
use entry::Packed;
pub(crate) use history::{Change, changes, entries};
pub(crate) use open::Refusal;

/// How long a write transaction stays open while records come: other processes wait at
/// most about this for the journal.
const COMMIT_EVERY: Duration = Duration::from_millis(200);
/// The most checks that wait to be written.
const COMMIT_ROWS: usize = 256;

/// What every check of a run shares: the command, the profile and the service's host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// `verify`, `gate` or `reconcile`.
    pub(crate) command: &'static str,
    /// The profile the settings came from, if any.
    pub(crate) profile: Option<String>,
    /// The base URL's host (`host:port` when it names a port), or `sandbox`.
    pub(crate) host: String,
    /// The merchant account the payments are of: the client id, or `sandbox`. A claim
    /// holds among one account's payments, however the base URL is spelt (`localhost`,
    /// `127.0.0.1`, another host name of the same gateway).
    pub(crate) account: String,
}

/// A payment as the gateway names it: by its transactionRef, its paymentRef, or both. A
/// claim is on each name it has, so an answer that names it by one only is still the same
/// payment. An answer with neither names its payment by its merchantRef alone (the
/// interface does not say the two are always there): that is then its name, so such a
/// payment is claimed too, never passed again for another order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Payment<'a> {
    pub(crate) transaction_ref: Option<&'a str>,
    pub(crate) payment_ref: Option<&'a str>,
    /// Used only when there is neither of the other two.
    pub(crate) merchant_ref: Option<&'a str>,
}

impl<'a> Payment<'a> {
    /// The payment an answer to `asked` is for. A field that is only a placeholder names
    /// nothing (every answer with an empty, `0` or `null` transactionRef would otherwise be
    /// one payment, and every later one a DUPLICATE), unless it is the reference asked:
    /// what was asked by is a name, however it looks.
    pub(crate) fn of(answer: &'a crate::domain::model::Verification, asked: &str) -> Payment<'a> {
        let name =
            |field: &'a Option<String>| field.as_deref().filter(|n| *n == asked || !placeholder(n));
        Payment {
            transaction_ref: name(&answer.transaction_ref),
            payment_ref: name(&answer.payment_ref),
            merchant_ref: name(&answer.merchant_ref),
        }
    }

    /// The payment as people name it: its transactionRef, else its paymentRef, else its
    /// merchantRef.
    pub(crate) fn shown(&self) -> Option<&'a str> {
        (self.transaction_ref.or(self.payment_ref)).or(self.merchant_ref)
    }

    /// The names it is known by, each with its field: its transactionRef and paymentRef,
    /// or its merchantRef when it has neither. Two answers that share one (in whichever
    /// field) are one payment.
    pub(crate) fn names(&self) -> Vec<(&'static str, &'a str)> {
        let names = [
            ("transactionRef", self.transaction_ref),
            ("paymentRef", self.payment_ref),
        ];
        let mut named: Vec<_> = (names.into_iter())
            .filter_map(|(kind, name)| Some((kind, name?)))
            .collect();
        if named.is_empty()
            && let Some(merchant_ref) = self.merchant_ref
        {
            named.push(("merchantRef", merchant_ref));
        }
        named
    }

    /// Whether it is named by its merchantRef alone (it has neither other name).
    pub(crate) fn by_merchant_ref_alone(&self) -> bool {
        self.transaction_ref.is_none() && self.payment_ref.is_none()
    }

    /// The keys a claim on it is written under: one a name (`transactionRef:T`,
    /// `paymentRef:P`, `merchantRef:M`), and for a payment with other names its merchantRef
    /// as [`MERCHANT_OF`]`:M`, which only a payment named by a merchantRef alone is held
    /// against.
    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = (self.names().into_iter())
            .map(|(kind, name)| format!("{kind}:{name}"))
            .collect();
        if !self.by_merchant_ref_alone()
            && let Some(merchant_ref) = self.merchant_ref
        {
            keys.push(format!("{MERCHANT_OF}:{merchant_ref}"));
        }
        keys
    }

    /// The keys an earlier claim on it may be under: the [`rivals`] of each of its keys.
    fn lookups(&self) -> Vec<String> {
        self.keys().iter().flat_map(|key| rivals(key)).collect()
    }
}

/// The fields of an answer that name its payment.
const NAME_FIELDS: [&str; 3] = ["transactionRef", "paymentRef", "merchantRef"];

/// The kind of key a named payment's merchantRef is kept under. It is no name of that
/// payment (one order's retried payments share a merchantRef, and must not be one), but a
/// payment an answer names by a merchantRef alone may be any payment of that merchantRef:
/// it is held against them, whichever of the two came first.
const MERCHANT_OF: &str = "merchantOf";

/// The keys under which another order's claim is a claim on the same payment as one
/// written under `key`: a name in any field (another answer may give it in another),
/// and between a merchantRef alone and a named payment's merchantRef, each the other.
fn rivals(key: &str) -> Vec<String> {
    let Some((kind, name)) = key.split_once(':') else {
        return Vec::new();
    };
    if kind == MERCHANT_OF {
        return vec![format!("merchantRef:{name}")];
    }
    let mut rivals: Vec<String> = (NAME_FIELDS.iter())
        .map(|field| format!("{field}:{name}"))
        .collect();
    if kind == "merchantRef" {
        rivals.push(format!("{MERCHANT_OF}:{name}"));
    }
    rivals
}

/// Whether `name` stands for no name. Its ASCII letters and digits alone are read, the
/// full-width forms (`Ｎｕｌｌ`, `０`) as the ASCII ones: blanks, punctuation, unseen
/// characters and other scripts' letters and digits are set aside, so `n/a`, `#N/A`,
/// `(null)`, `--` and `𝐧𝐮𝐥𝐥` are as `na`, `na`, `null`, nothing and nothing. A placeholder
/// is one with none at all, zeros alone (`0.0`), or a word for nothing. (The names the
/// interface describes are digits; a name with no ASCII letter or digit names nothing.)
/// Allocates nothing: it is asked of every answer's names, on the batch's one writer.
fn placeholder(name: &str) -> bool {
    let seen = || {
        (name.chars())
            .map(|c| match c {
                '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xfee0).unwrap_or(c),
                _ => c,
            })
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
    };
    seen().all(|c| c == '0')
        || ["null", "none", "nil", "undefined", "na", "nan"]
            .iter()
            .any(|word| seen().eq(word.chars()))
}

/// An open journal, shared by the parts of a run that write to it.
#[derive(Clone)]
pub(crate) struct Journal(Arc<Shared>);

struct Shared {
    path: PathBuf,
    run: Run,
    /// What waits to be written. The run's writer only adds to it, so a batch's writer
    /// never waits on SQLite; the journal's own thread writes it (see [`Journal::open`]).
    /// Lock order: `store` before `queue`, wherever both are held.
    queue: Mutex<Queue>,
    /// Wakes the journal's thread: a full queue, or the run's end.
    wake: Condvar,
    store: Mutex<Store>,
}

/// Checks not yet written, and when they are due. The journal's thread writes them in one
/// short transaction [`COMMIT_EVERY`] after the oldest came, or at [`COMMIT_ROWS`]: no
/// transaction is ever open while the run waits on anything else (a slow gateway, a
/// stdout a slow reader holds), so other processes never wait on this one for longer
/// than a write.
#[derive(Default)]
struct Queue {
    pending: Vec<Packed>,
    due_at: Option<Instant>,
    /// The run has ended: the journal's thread stops.
    closed: bool,
}

impl Queue {
    /// Whether what waits should be written now.
    fn due(&self) -> bool {
        self.pending.len() >= COMMIT_ROWS || self.due_at.is_some_and(|at| at <= Instant::now())
    }
}

/// The connection, and what writing through it came to.
struct Store {
    conn: Connection,
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
    /// Whether `key` is an order id as the shop wrote it (reconcile's), not worked out
    /// from a merchant reference (gate's).
    pub(crate) by_id: bool,
    /// Whether `key` is an order id at all: reconcile's, or the one a WooCommerce merchant
    /// reference names. A gate's other merchant references are keys of their own kind: a
    /// merchant reference `1002` is not order `1002`.
    pub(crate) key_is_id: bool,
}

impl Order {
    /// The order of a reconcile row whose order id cell is empty, in a file with an order
    /// id column, asked as `reference`: that row alone (its re-run is the same order; a
    /// blank row asking another reference, in any file, is another).
    pub(crate) fn without_id(reference: &str, merchant_ref: Option<&str>) -> Order {
        Order {
            key: format!("{NO_ORDER_ID}{}", crate::secret::redact(reference)),
            merchant_ref: merchant_ref.map(str::to_owned),
            by_id: true,
            key_is_id: true,
        }
    }

    /// The order gate passes a payment for: its merchant reference.
    pub(crate) fn of_merchant_ref(merchant_ref: &str) -> Order {
        let order = crate::domain::checks::woocommerce_order(merchant_ref);
        Order {
            key: order.unwrap_or(merchant_ref).to_owned(),
            merchant_ref: Some(merchant_ref.to_owned()),
            by_id: false,
            key_is_id: order.is_some(),
        }
    }

    /// The order a reconcile row names by its order id (without a leading `#`), with the
    /// row's merchant reference where the file has one.
    pub(crate) fn of_id(id: &str, merchant_ref: Option<&str>) -> Order {
        Order {
            key: crate::domain::checks::order_number(id).to_owned(),
            merchant_ref: merchant_ref.map(str::to_owned),
            by_id: true,
            key_is_id: true,
        }
    }

    /// Whether `other` is this order: the same key of the same kind (two order ids, or two
    /// merchant references); or, where one of the two knows its order only by a merchant
    /// reference (gate's), the same merchant reference. Two order ids that differ are two
    /// orders, whatever merchant reference their rows give: one payment never pays for
    /// both; nor is a merchant reference an order id because it reads the same. A reconcile file with no merchant ref column and a gate
    /// whose merchant references are not WooCommerce's cannot be told to be one order: they
    /// count as two, and the later is a DUPLICATE naming the first, for a person to look.
    pub(crate) fn is(&self, other: &Order) -> bool {
        let same_ref =
            matches!((&self.merchant_ref, &other.merchant_ref), (Some(a), Some(b)) if a == b);
        let same_key = self.key == other.key && self.key_is_id == other.key_is_id;
        same_key || (same_ref && !(self.by_id && other.by_id))
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
    /// The claim as the error line says it: `order 1001 (gate, 2026-12-01T10:00:00Z)`, or
    /// `a row with no order id (reconcile, ...)` for a row whose order id cell was empty.
    pub(crate) fn said(&self) -> String {
        let (command, at) = (&self.command, &self.at);
        if let Some(reference) = self.order.strip_prefix(NO_ORDER_ID) {
            let reference = crate::terminal::scrub(reference);
            return format!("a row with no order id, reference {reference} ({command}, {at})");
        }
        match self.order.as_str() {
            SEVERAL_ORDERS => {
                format!("several orders, by named payments of its merchantRef ({command}, {at})")
            }
            order => format!("order {order} ({command}, {at})"),
        }
    }
}

/// The claim on payment key `key` in `account`, with the order that holds it.
fn earlier_claim(
    conn: &Connection,
    account: &str,
    key: &str,
) -> rusqlite::Result<Option<(Order, Claim)>> {
    conn.prepare_cached(
        "SELECT \"order\", merchant_ref, claimed_at, command FROM claims \
         WHERE account = ?1 AND payment = ?2",
    )?
    .query_row(params![account, key], |row| {
        let command: String = row.get(3)?;
        let (key, merchant_ref): (String, Option<String>) = (row.get(0)?, row.get(1)?);
        // Only reconcile claims by an order id; gate by a merchant reference, whose key is
        // an order id only where it is the one a WooCommerce reference names (it is then
        // not the whole reference).
        let by_id = command == "reconcile";
        let key_is_id = by_id || merchant_ref.as_deref() != Some(key.as_str());
        let order = Order {
            key,
            merchant_ref,
            by_id,
            key_is_id,
        };
        let claim = Claim {
            order: order.key.clone(),
            at: row.get(2)?,
            command,
        };
        Ok((order, claim))
    })
    .optional()
}

/// The order a [`MERCHANT_OF`] claim is held by once two orders' named payments gave its
/// merchantRef: a payment named by that merchantRef alone may be either, so it is none of
/// them (no order id or merchant reference is this text, NUL and all).
const SEVERAL_ORDERS: &str = "\0several orders";

/// What an [`Order::without_id`]'s key starts with, before the reference it was asked as.
const NO_ORDER_ID: &str = "\0no order id, reference ";

/// Writes `order`'s claim on payment key `key`, unless it is claimed already: whether it
/// was written. A [`MERCHANT_OF`] key another order holds becomes [`SEVERAL_ORDERS`]'.
fn insert_claim(
    conn: &Connection,
    run: &Run,
    key: &str,
    order: &Order,
    reference: &str,
    at: &str,
) -> rusqlite::Result<bool> {
    let written = conn
        .prepare_cached(
            "INSERT INTO claims (account, payment, \"order\", merchant_ref, reference, command, \
             claimed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            run.account,
            key,
            order.key,
            order.merchant_ref,
            crate::secret::redact(reference),
            run.command,
            at
        ])?;
    if written == 0
        && key.starts_with(MERCHANT_OF)
        && let Some((earlier, _)) = earlier_claim(conn, &run.account, key)?
        && !earlier.is(order)
    {
        conn.prepare_cached(
            "UPDATE claims SET \"order\" = ?3, merchant_ref = NULL \
             WHERE account = ?1 AND payment = ?2",
        )?
        .execute(params![run.account, key, SEVERAL_ORDERS])?;
    }
    Ok(written == 1)
}

/// Gives the claim on payment key `key` to `order`, an order id the claim's merchant
/// reference was matched to (see [`Order::is`]): later runs then tell that order from
/// another with the same merchant reference.
fn take_over_claim(
    conn: &Connection,
    run: &Run,
    key: &str,
    order: &Order,
    at: &str,
) -> rusqlite::Result<()> {
    // Its time too: a later DUPLICATE names the command and the time it was taken at,
    // not this command with the gate's time.
    conn.prepare_cached(
        "UPDATE claims SET \"order\" = ?3, command = ?4, claimed_at = ?5 \
         WHERE account = ?1 AND payment = ?2",
    )?
    .execute(params![run.account, key, order.key, run.command, at])?;
    Ok(())
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

/// Claims `payment` for `order`, asked as `reference`, in the caller's write transaction
/// (gate's and a batch's alike): the earlier claim when another order holds it under any
/// of its names, else this order's, written. A gate's claim known by its merchant
/// reference alone that a reconcile row's order id is matched to (see [`Order::is`]),
/// under the same key or a rival one, is that order id's from then on: another order id
/// with the same merchant reference is another order. (A gate's order is never by id, so
/// a gate takes nothing over.)
fn claim_payment(
    conn: &Connection,
    run: &Run,
    payment: Payment<'_>,
    order: &Order,
    reference: &str,
) -> rusqlite::Result<Option<Claim>> {
    let mut taken = Vec::new();
    for key in payment.lookups() {
        match earlier_claim(conn, &run.account, &key)? {
            Some((earlier, claim)) if !earlier.is(order) => return Ok(Some(claim)),
            Some((earlier, _)) if order.by_id && !earlier.by_id => taken.push(key),
            _ => {}
        }
    }
    let at = now();
    for key in &taken {
        take_over_claim(conn, run, key, order, &at)?;
    }
    for key in &payment.keys() {
        if !insert_claim(conn, run, key, order, reference, &at)?
            && let Some((earlier, _)) = earlier_claim(conn, &run.account, key)?
            && earlier.is(order)
            && order.by_id
            && !earlier.by_id
        {
            take_over_claim(conn, run, key, order, &at)?;
        }
    }
    Ok(None)
}

impl Journal {
    /// Opens (or makes) the journal at `path` for `run`. `make_directory`: the default
    /// place, whose directory is made owner-only when missing. A thread of its own writes
    /// what the run keeps, until [`Journal::close`].
    pub(crate) fn open(path: &Path, make_directory: bool, run: Run) -> Result<Journal, Refusal> {
        let conn = open::for_writing(path, make_directory)?;
        if run.command != "gate" {
            open::behind_gates(&conn)?;
        }
        let journal = Journal(Arc::new(Shared {
            path: path.to_owned(),
            run,
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            store: Mutex::new(Store { conn, failed: None }),
        }));
        let writer = journal.clone();
        let spawned = std::thread::Builder::new()
            .name("journal".to_owned())
            .spawn(move || writer.write_while_open());
        // Without the thread, what the run keeps is written at its end (and by claims).
        drop(spawned);
        Ok(journal)
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Nothing a panic could leave half-done is kept outside SQLite's own transaction.
        self.0.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.0.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The journal's thread: writes the queue whenever it is due, until the run ends.
    fn write_while_open(&self) {
        loop {
            let mut queue = self.queue();
            while !queue.closed && !queue.due() {
                let wait = match queue.due_at {
                    Some(at) => at.saturating_duration_since(Instant::now()),
                    None => COMMIT_EVERY,
                };
                queue = (self.0.wake.wait_timeout(queue, wait))
                    .map_or_else(|e| e.into_inner().0, |(q, _)| q);
            }
            if queue.closed {
                return;
            }
            drop(queue);
            self.flush(&mut self.store());
        }
    }

    /// Writes what the queue holds, in one transaction: the caller holds the store, so
    /// what is taken from the queue is written before anyone reads the store again.
    fn flush(&self, store: &mut Store) {
        let pending = {
            let mut queue = self.queue();
            queue.due_at = None;
            std::mem::take(&mut queue.pending)
        };
        if !pending.is_empty() {
            store.transaction(|conn| pending.iter().try_for_each(|entry| entry.insert(conn)));
        }
    }

    /// Keeps one judged record: its verdict's name and exit as the run counted them
    /// (`outcome`, `exit`; for reconcile the row's result beside the verdict's outcome),
    /// and why it is not a plain success (`why`).
    pub(crate) fn record(&self, record: &Record, counted: &str, exit: Exit, why: Option<&str>) {
        let row = Packed::of(record, &self.0.run, counted, exit, why);
        let mut queue = self.queue();
        queue.pending.push(row);
        queue
            .due_at
            .get_or_insert_with(|| Instant::now() + COMMIT_EVERY);
        let waiting = queue.pending.len();
        drop(queue);
        if waiting >= COMMIT_ROWS {
            self.0.wake.notify_one();
        }
        // The journal's thread has fallen behind: the run writes a share itself rather
        // than let what waits grow with the run (1,000,000 references in a few MB).
        if waiting >= 2 * COMMIT_ROWS {
            self.flush(&mut self.store());
        }
    }

    /// gate's claim: `payment`, under each of its names in this run's merchant account,
    /// for `order`, asked as `reference`; the earlier claim when another order holds it. The
    /// same order again (a re-run, an overlapping export, gate and reconcile on one order)
    /// is no conflict: see [`Order::is`]. An error when the journal cannot answer: then
    /// nothing may pass.
    pub(crate) fn claim(
        &self,
        payment: Payment<'_>,
        order: &Order,
        reference: &str,
    ) -> Result<Option<Claim>, String> {
        let run = &self.0.run;
        let mut store = self.store();
        // In order: the checks before the claim are written first.
        self.flush(&mut store);
        // Synced to disk before gate answers: a claim must outlast a power cut once gate
        // has said 0. The checks of a batch are not, which is what keeps them cheap.
        if let Err(e) = store.conn.execute_batch("PRAGMA synchronous = FULL") {
            return Err(store.fail(&e));
        }
        let mut found = None;
        store.transaction(|conn| {
            found = claim_payment(conn, run, payment, order, reference)?;
            Ok(())
        });
        let _ = store.conn.execute_batch("PRAGMA synchronous = NORMAL");
        match &store.failed {
            Some(why) => Err(why.clone()),
            None => Ok(found),
        }
    }

    /// A batch's claim (reconcile's rows): the earlier claim when another order holds the
    /// payment, in the journal or earlier in this run; else this claim, written. The look
    /// and the write are one short transaction of their own, committed before the row is
    /// written: another process claiming the same payment meanwhile (a gate at that
    /// moment) waits for it and then finds this claim, so a row this says nothing against
    /// is the payment's only order, and may be written as MATCHED at once. One transaction
    /// a row, not one held for many: a held one keeps every gate waiting behind a busy or
    /// stopped (Ctrl-Z) reconcile. Not synced to disk (`synchronous = NORMAL`), as a
    /// batch's checks are not.
    pub(crate) fn claim_in_batch(
        &self,
        payment: Payment<'_>,
        order: &Order,
        reference: &str,
    ) -> Result<Option<Claim>, String> {
        let run = &self.0.run;
        let mut store = self.store();
        let mut found = None;
        store.transaction(|conn| {
            found = claim_payment(conn, run, payment, order, reference)?;
            Ok(())
        });
        match &store.failed {
            Some(why) => Err(why.clone()),
            None => Ok(found),
        }
    }

    /// Whether the journal holds a check of `reference` on this run's service: the
    /// sandbox's memory of what it answered in earlier runs.
    pub(crate) fn knows(&self, reference: &str) -> bool {
        let store = self.store();
        let host = &self.0.run.host;
        (store.conn.prepare_cached(
            "SELECT 1 FROM checks WHERE reference = ?1 AND host = ?2 AND status IS NOT NULL",
        ))
        .and_then(|mut s| s.exists(params![reference, host]))
        .unwrap_or(false)
    }

    /// How many checks the journal keeps (0 when it cannot say).
    pub(crate) fn checks_kept(&self) -> i64 {
        let store = self.store();
        (store.conn)
            .query_row("SELECT count(*) FROM checks", [], |row| row.get(0))
            .unwrap_or(0)
    }

    /// Writes what is left, stops the journal's thread, and says whether every check and
    /// claim was kept: the error line (exit 6) when one was not.
    pub(crate) fn close(&self) -> Result<(), Failure> {
        let mut store = self.store();
        self.flush(&mut store);
        self.queue().closed = true;
        self.0.wake.notify_one();
        match &store.failed {
            Some(why) => Err(refused(&self.0.path, why)),
            None => Ok(()),
        }
    }
}

impl Store {
    /// Stops the journal for `e`: what the run's end reports.
    fn fail(&mut self, e: &rusqlite::Error) -> String {
        let why = format!("cannot write to it: {}", open::reason(e));
        self.failed.get_or_insert(why).clone()
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
            self.fail(&e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    fn run(command: &'static str) -> Run {
        Run {
            command,
            profile: None,
            host: "shop.example".to_owned(),
            account: "MERCHANT-1".to_owned(),
        }
    }

    fn tx(name: &str) -> Payment<'_> {
        Payment {
            transaction_ref: Some(name),
            payment_ref: None,
            merchant_ref: None,
        }
    }

    fn order(key: &str) -> Order {
        Order::of_id(key, None)
    }

    /// reconcile's row claims TX-1 for order 1001, and may print MATCHED at once; a gate
    /// for order 1002 at that moment, in another process, must then be refused: it waits
    /// for reconcile's commit and finds the claim, and reconcile's run ends clean.
    fn race(name: &str, gated: Payment<'_>) {
        let dir = TempDir::new(name);
        let path = dir.path().join("j.sqlite3");
        let reconcile = Journal::open(&path, false, run("reconcile")).unwrap();
        let gate = Journal::open(&path, false, run("gate")).unwrap();
        let queued = reconcile.claim_in_batch(tx("TX-1"), &order("1001"), "TX-1");
        assert_eq!(queued, Ok(None));
        let gated = gate.claim(gated, &order("1002"), "TX-1").unwrap();
        assert_eq!(gated.map(|c| c.order), Some("1001".to_owned()));
        assert!(reconcile.close().is_ok());
        assert!(gate.close().is_ok());
    }

    #[test]
    fn a_batch_claim_another_process_wants_meanwhile_is_never_given_to_two_orders() {
        race("journal-race", tx("TX-1"));
    }

    #[test]
    fn a_batch_claim_holds_against_a_gate_naming_it_in_another_field_meanwhile() {
        // reconcile's answer gives TX-1 as its transactionRef; the gate's, meanwhile, as
        // its paymentRef: one payment, claimed under two keys.
        let by_payment_ref = Payment {
            transaction_ref: None,
            payment_ref: Some("TX-1"),
            merchant_ref: None,
        };
        race("journal-race-field", by_payment_ref);
    }

    /// Two batches at once (two reconciles of overlapping exports): whichever looks second
    /// waits for the first's commit and finds its claim, never a second MATCHED.
    #[test]
    fn two_batches_claiming_one_payment_at_once_give_it_to_one_order() {
        let dir = TempDir::new("journal-race-batches");
        let path = dir.path().join("j.sqlite3");
        let first = Journal::open(&path, false, run("reconcile")).unwrap();
        let second = Journal::open(&path, false, run("reconcile")).unwrap();
        assert_eq!(
            first.claim_in_batch(tx("TX-1"), &order("1001"), "TX-1"),
            Ok(None)
        );
        let refused = second
            .claim_in_batch(tx("TX-1"), &order("1002"), "TX-1")
            .unwrap();
        assert_eq!(refused.map(|c| c.order), Some("1001".to_owned()));
        assert!(first.close().is_ok());
        assert!(second.close().is_ok());
    }

    /// A gate passed a payment named by its merchantRef alone (SM-a) for merchant reference
    /// SM-a; order 1001, whose merchant ref is SM-a, is matched to it by a named payment of
    /// that merchantRef, and takes the claim: order 1002, the same merchant ref, is then
    /// another order, refused. (Both were MATCHED.)
    #[test]
    fn an_order_id_matched_to_a_gates_merchant_ref_alone_claim_takes_it() {
        let dir = TempDir::new("journal-merchant-alone");
        let path = dir.path().join("j.sqlite3");
        let alone = Payment {
            transaction_ref: None,
            payment_ref: None,
            merchant_ref: Some("SM-a"),
        };
        let named = |name| Payment {
            transaction_ref: Some(name),
            payment_ref: None,
            merchant_ref: Some("SM-a"),
        };
        let gate = Journal::open(&path, false, run("gate")).unwrap();
        let by_gate = gate.claim(alone, &Order::of_merchant_ref("SM-a"), "SM-a");
        assert_eq!(by_gate, Ok(None));
        gate.close().unwrap();
        let batch = Journal::open(&path, false, run("reconcile")).unwrap();
        let first =
            batch.claim_in_batch(named("N1-a"), &Order::of_id("1001", Some("SM-a")), "N1-a");
        assert_eq!(first, Ok(None));
        let second = batch
            .claim_in_batch(named("N2-a"), &Order::of_id("1002", Some("SM-a")), "N2-a")
            .unwrap();
        assert_eq!(second.map(|c| c.order), Some("1001".to_owned()));
        batch.close().unwrap();
    }

    #[test]
    fn a_batch_claim_sees_its_own_queue_and_the_file() {
        let dir = TempDir::new("journal-batch-claims");
        let path = dir.path().join("j.sqlite3");
        let earlier = Journal::open(&path, false, run("gate")).unwrap();
        assert_eq!(earlier.claim(tx("TX-9"), &order("7"), "TX-9"), Ok(None));
        earlier.close().unwrap();
        let batch = Journal::open(&path, false, run("reconcile")).unwrap();
        // In the file, for another order: refused, naming the first.
        let refused = batch
            .claim_in_batch(tx("TX-9"), &order("8"), "TX-9")
            .unwrap();
        assert_eq!(refused.map(|c| c.order), Some("7".to_owned()));
        // The same order again is no conflict.
        assert_eq!(
            batch.claim_in_batch(tx("TX-9"), &order("7"), "TX-9"),
            Ok(None)
        );
        // Queued in this run and not yet written: still refused for another order.
        assert_eq!(
            batch.claim_in_batch(tx("TX-10"), &order("1"), "TX-10"),
            Ok(None)
        );
        let again = batch
            .claim_in_batch(tx("TX-10"), &order("2"), "TX-10")
            .unwrap();
        assert_eq!(again.map(|c| c.order), Some("1".to_owned()));
        batch.close().unwrap();
        let later = Journal::open(&path, false, run("reconcile")).unwrap();
        let kept = later
            .claim_in_batch(tx("TX-10"), &order("3"), "TX-10")
            .unwrap();
        assert_eq!(kept.map(|c| c.order), Some("1".to_owned()));
        later.close().unwrap();
    }

    #[test]
    fn placeholders_name_no_payment_and_a_merchant_ref_names_one_that_has_nothing_else() {
        for none in [
            "",
            " ",
            "0",
            "000",
            "null",
            "NULL",
            "None",
            "n/a",
            "-",
            "\u{200b}",
            "0\u{feff}",
            "--",
            "\u{2014}",
            "0.0",
            "(null)",
            "#N/A",
            "N.A.",
            "NaN",
            "\u{ff10}",
            "\u{ff2e}\u{ff55}\u{ff4c}\u{ff4c}",
            "\u{ff2e}/\u{ff21}",
            "\u{1d427}\u{1d42e}\u{1d425}\u{1d425}",
            "\u{24dd}\u{24e4}\u{24db}\u{24db}",
            "\u{660}",
            "\u{3007}",
            "\u{2070}\u{2080}",
        ] {
            assert!(placeholder(none), "{none:?}");
        }
        for name in [
            "1",
            "01",
            "T1",
            "nullable",
            "0x0",
            "330137174040",
            "\u{ff11}\u{ff12}",
        ] {
            assert!(!placeholder(name), "{name:?}");
        }
        let only_merchant = Payment {
            transaction_ref: None,
            payment_ref: None,
            merchant_ref: Some("M1"),
        };
        assert_eq!(only_merchant.keys(), ["merchantRef:M1"]);
        assert_eq!(
            only_merchant.lookups(),
            [
                "transactionRef:M1",
                "paymentRef:M1",
                "merchantRef:M1",
                "merchantOf:M1"
            ]
        );
        assert_eq!(only_merchant.shown(), Some("M1"));
        let named = Payment {
            merchant_ref: Some("M1"),
            ..tx("T1")
        };
        assert_eq!(named.keys(), ["transactionRef:T1", "merchantOf:M1"]);
        assert_eq!(
            named.lookups(),
            [
                "transactionRef:T1",
                "paymentRef:T1",
                "merchantRef:T1",
                "merchantRef:M1"
            ]
        );
    }

    #[test]
    fn a_payment_is_one_payment_by_either_name_and_on_any_host_of_the_account() {
        let dir = TempDir::new("journal-names");
        let path = dir.path().join("j.sqlite3");
        let gate = Journal::open(&path, false, run("gate")).unwrap();
        let both = Payment {
            transaction_ref: Some("T1"),
            payment_ref: Some("P1"),
            merchant_ref: None,
        };
        assert_eq!(gate.claim(both, &order("A"), "T1"), Ok(None));
        gate.close().unwrap();
        // Another host name of the same account, and the payment named by its paymentRef
        // alone: still the payment order A has.
        let other_host = Run {
            host: "localhost:8080".to_owned(),
            ..run("reconcile")
        };
        let batch = Journal::open(&path, false, other_host).unwrap();
        let by_payment_ref = Payment {
            transaction_ref: None,
            payment_ref: Some("P1"),
            merchant_ref: None,
        };
        let refused = batch
            .claim_in_batch(by_payment_ref, &order("B"), "P1")
            .unwrap();
        assert_eq!(refused.map(|c| c.order), Some("A".to_owned()));
        batch.close().unwrap();
        // Another merchant account's payments are its own.
        let other_account = Run {
            account: "MERCHANT-2".to_owned(),
            ..run("gate")
        };
        let elsewhere = Journal::open(&path, false, other_account).unwrap();
        assert_eq!(elsewhere.claim(tx("T1"), &order("B"), "T1"), Ok(None));
        elsewhere.close().unwrap();
    }
}
