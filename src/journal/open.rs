//! Opening a journal file: made owner-only (0600 in a 0700 directory) when payverify makes
//! it; refused when others can change it, when it is not payverify's, when a newer
//! payverify wrote it, or when it cannot be written; its schema made or brought forward.
//! Nothing here ever replaces, truncates or repairs a file.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// What marks the file as payverify's journal (SQLite's `application_id`): `PVJL`.
pub(crate) const APPLICATION_ID: i32 = 0x5056_4a4c;
/// The schema this payverify writes (SQLite's `user_version`); older ones are brought
/// forward by [`MIGRATIONS`], newer ones refused.
pub(crate) const SCHEMA_VERSION: i32 = 1;
/// How long a process waits for another one's write: a batch commits every few hundred
/// milliseconds, so 20 gates at once wait well under this.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema, version 1.
const SCHEMA_1: &str = "
CREATE TABLE checks (
    id INTEGER PRIMARY KEY,
    reference TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    command TEXT NOT NULL,
    profile TEXT,
    host TEXT NOT NULL,
    outcome TEXT NOT NULL,
    result TEXT,
    exit_code INTEGER NOT NULL,
    status TEXT,
    code TEXT,
    amount_kobo INTEGER,
    currency TEXT,
    merchant_ref TEXT,
    transaction_ref TEXT,
    payment_ref TEXT,
    mode TEXT,
    hmac TEXT,
    failed_checks TEXT NOT NULL,
    \"order\" TEXT,
    message TEXT,
    answer TEXT,
    answer_sha256 TEXT
);
CREATE INDEX checks_by_reference ON checks (reference, id);
CREATE TABLE claims (
    account TEXT NOT NULL,
    payment TEXT NOT NULL,
    \"order\" TEXT NOT NULL,
    merchant_ref TEXT,
    reference TEXT NOT NULL,
    command TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    PRIMARY KEY (account, payment)
) WITHOUT ROWID;
";

/// What brings a schema of version `n` (the index) to `n + 1`; the last one reaches
/// [`SCHEMA_VERSION`]. Version 0 is a new, empty file.
const MIGRATIONS: &[&str] = &[SCHEMA_1];

/// Why a journal cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The file could not be made where none was (a read-only or missing directory): only
    /// the default place may go on without a journal.
    Unmade(String),
    /// Anything else: the file is there, or was named, and cannot be used.
    Unusable(String),
}

/// Opens `path` for a run to write, making it (and, for the default place, its directory)
/// when it is not there.
pub(super) fn for_writing(path: &Path, make_directory: bool) -> Result<Connection, Refusal> {
    not_a_stream(path)?;
    if make_directory {
        make_directory_of(path)?;
    }
    // Before anything is made: a journal is never made where it would be refused. A file
    // made here is the user's, in a directory only they can write: nothing to check again.
    trusted(path)?;
    make(path)?;
    // Looked at before anything is written: a file that is not a journal, or a newer
    // payverify's, is refused as it was found (WAL mode alone rewrites the header).
    let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    // Persistent in the file: a no-op once set. Readers never block the writer, and a run
    // killed mid-write leaves the last commit whole.
    let mode: String =
        patiently(|| conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)))
            .map_err(unusable)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Refusal::Unusable(format!(
            "SQLite keeps it in {mode} mode, not WAL (is it on a network file system?)"
        )));
    }
    // In WAL mode NORMAL still leaves the journal whole after a power cut, and saves a
    // sync a commit: a batch's last checks may be lost to one. A claim gate answers on is
    // synced at its commit (`Journal::claim`).
    conn.execute_batch(
        "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 8192; PRAGMA cache_size = -256",
    )
    .map_err(unusable)?;
    // The write lock first: two processes making one new journal make it once, and a file
    // that cannot be written is found now, before any request.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(unwritable)?;
    let ready = schema(&conn).and_then(|()| conn.execute_batch("COMMIT").map_err(unwritable));
    if ready.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    ready.map(|()| conn)
}

/// Opens `path` to read (`history`); `None` when there is no file there.
pub(super) fn for_reading(path: &Path) -> Result<Option<Connection>, Refusal> {
    not_a_stream(path)?;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Refusal::Unusable(crate::io_util::io_reason(&e))),
        Ok(_) => {}
    }
    trusted(path)?;
    connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map(Some)
}

/// Opens the SQLite file at `path` with `flags`, and refuses one that is not a journal
/// as payverify made it (a new, empty file passes: there is nothing in it yet).
fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, Refusal> {
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(unusable)?;
    conn.busy_handler(Some(wait_briefly)).map_err(unusable)?;
    let (id, version, tables) = marks(&conn)?;
    if !fresh(id, version, tables) {
        known(id, version)?;
        as_made(&conn, version)?;
    }
    Ok(conn)
}

/// Whether the marks [`marks`] read are a new file's, whoever made it.
fn fresh(id: i32, version: i32, tables: i64) -> bool {
    id == 0 && version == 0 && tables == 0
}

/// Refuses `-` (from the environment or a profile; the flag refuses it itself): it names
/// no file here, and a journal is read and written at once, never a stream.
fn not_a_stream(path: &Path) -> Result<(), Refusal> {
    match path.as_os_str() == "-" {
        true => Err(Refusal::Unusable(
            "the journal is a file, not stdin or stdout: give a path".to_owned(),
        )),
        false => Ok(()),
    }
}

/// Makes the directory for the journal at `path` (the default place), owner-only, when
/// it is missing.
fn make_directory_of(path: &Path) -> Result<(), Refusal> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|e| {
            Refusal::Unmade(format!(
                "cannot make the directory {}: {}",
                dir.display(),
                crate::io_util::io_reason(&e)
            ))
        })?;
    }
    Ok(())
}

/// Makes an empty file at `path`, owner-only, when there is none: SQLite takes an empty
/// file as a new database, and its `-wal` and `-shm` files get the mode of this one.
fn make(path: &Path) -> Result<(), Refusal> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // Another process made it first: it is opened as any existing journal is.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Refusal::Unmade(format!(
            "cannot make it: {}",
            crate::io_util::io_reason(&e)
        ))),
    }
}

/// Refuses a journal that anyone but the invoking user and root can change: its claims
/// decide whether a payment may pay for a second order.
fn trusted(path: &Path) -> Result<(), Refusal> {
    if let Some(why) = crate::files::untrusted_file(path) {
        return Err(Refusal::Unusable(why));
    }
    // SQLite opens `-wal` and `-shm` beside the journal by name and replays what a `-wal`
    // holds: the directory must be the user's alone, and files already there theirs.
    let real = std::fs::canonicalize(path).ok();
    let dir = match &real {
        Some(real) => real.parent().map(Path::to_path_buf),
        None => std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().and_then(|d| std::fs::canonicalize(d).ok())),
    };
    if let Some(why) = dir.as_deref().and_then(crate::files::others_can_add_to) {
        return Err(Refusal::Unusable(why));
    }
    for suffix in ["-wal", "-shm"] {
        let mut beside = real
            .clone()
            .unwrap_or_else(|| path.to_owned())
            .into_os_string();
        beside.push(suffix);
        let beside = std::path::PathBuf::from(beside);
        if let Some(why) = crate::files::untrusted_file(&beside) {
            return Err(Refusal::Unusable(format!(
                "{} beside it: {why}",
                beside.display()
            )));
        }
    }
    Ok(())
}

/// Makes a new file's schema, brings an older one forward, refuses one not payverify's or
/// newer; inside the caller's write transaction.
fn schema(conn: &Connection) -> Result<(), Refusal> {
    let (id, version, tables) = marks(conn)?;
    let fresh = fresh(id, version, tables);
    if !fresh {
        known(id, version)?;
    }
    let from = usize::try_from(version).unwrap_or(0);
    for migration in MIGRATIONS.iter().skip(from) {
        conn.execute_batch(migration).map_err(unwritable)?;
    }
    if fresh {
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(unwritable)?;
    }
    if version != SCHEMA_VERSION {
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(unwritable)?;
    }
    as_made(conn, SCHEMA_VERSION)
}

/// Refuses a file whose tables, indexes, triggers and views are not exactly what
/// payverify's migrations make for schema `version`: a trigger that deletes claims, or a
/// claims table without its key, would let one payment pay for two orders.
fn as_made(conn: &Connection, version: i32) -> Result<(), Refusal> {
    fn objects(conn: &Connection) -> rusqlite::Result<Vec<(String, String, Option<String>)>> {
        let mut statement = conn.prepare(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' \
             ORDER BY type, name",
        )?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect()
    }
    let made = || -> rusqlite::Result<_> {
        let fresh = Connection::open_in_memory()?;
        let upto = usize::try_from(version).unwrap_or(0);
        for migration in MIGRATIONS.iter().take(upto) {
            fresh.execute_batch(migration)?;
        }
        objects(&fresh)
    };
    let (want, found) = (made().map_err(unusable)?, objects(conn).map_err(unusable)?);
    if want == found {
        return Ok(());
    }
    let odd = (found.iter())
        .find(|object| !want.contains(object))
        .map(|(kind, name, _)| format!("a {kind} {name} payverify did not make"))
        .or_else(|| {
            (want.iter().find(|o| !found.contains(o)))
                .map(|(kind, name, _)| format!("its {kind} {name} is missing or changed"))
        })
        .unwrap_or_else(|| "its schema is not as payverify made it".to_owned());
    Err(Refusal::Unusable(format!(
        "it is not as payverify made it: {}",
        crate::terminal::scrub(&odd)
    )))
}

/// The file's `application_id`, its `user_version` and how many tables it has (none: a
/// new file, whoever made it), read in one statement, so from one snapshot: another
/// process making the schema at the same moment is seen before or after, never half way.
fn marks(conn: &Connection) -> Result<(i32, i32, i64), Refusal> {
    patiently(|| {
        conn.query_row(
            "SELECT (SELECT application_id FROM pragma_application_id()), \
                    (SELECT user_version FROM pragma_user_version()), \
                    (SELECT count(*) FROM sqlite_master)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
    })
    .map_err(unusable)
}

/// Refuses a file not marked as payverify's, or of a schema newer than this payverify's.
fn known(id: i32, version: i32) -> Result<(), Refusal> {
    if id != APPLICATION_ID {
        return Err(Refusal::Unusable(
            "it is an SQLite file, but not a payverify journal".to_owned(),
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(Refusal::Unusable(format!(
            "a newer payverify wrote it (schema {version}; this one knows up to \
             {SCHEMA_VERSION}): upgrade payverify"
        )));
    }
    Ok(())
}

/// SQLite's busy handler for a journal connection: another connection holds the lock, so
/// try again in a quarter of a millisecond, for up to about [`BUSY_TIMEOUT`]. (SQLite's own
/// busy timeout backs off to tries 100 ms apart: a gate behind a busy reconcile's
/// transactions, a commit for each row, would wait a tenth of a second a try for a lock
/// that is free most of the time.)
fn wait_briefly(tries: i32) -> bool {
    wait(tries, Duration::from_micros(250))
}

/// The busy handler of a batch's connection: tries every 2 ms, so that when the lock comes
/// free a gate (a checkout waiting on its answer) takes it before a batch does.
fn wait_behind_gates(tries: i32) -> bool {
    wait(tries, Duration::from_millis(2))
}

/// Sleeps `step` and says to try again, until `tries` steps come to [`BUSY_TIMEOUT`].
fn wait(tries: i32, step: Duration) -> bool {
    if step * u32::try_from(tries).unwrap_or(0) >= BUSY_TIMEOUT {
        return false;
    }
    std::thread::sleep(step);
    true
}

/// Makes `conn`, a batch's, wait for a busy lock behind any gate (see [`wait_behind_gates`]).
pub(super) fn behind_gates(conn: &Connection) -> Result<(), Refusal> {
    conn.busy_handler(Some(wait_behind_gates)).map_err(unusable)
}

/// `step`, tried again while SQLite says another connection holds the file, for up to
/// [`BUSY_TIMEOUT`]. The busy timeout covers most waits, but not all: a new file that
/// another process is making (in rollback mode, before it turns to WAL) answers a read
/// or the switch to WAL with "database is locked" at once, and two gates making one new
/// journal must both go on.
fn patiently<T>(mut step: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let until = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < until =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            done => return done,
        }
    }
}

fn unusable(e: rusqlite::Error) -> Refusal {
    Refusal::Unusable(reason(&e))
}

fn unwritable(e: rusqlite::Error) -> Refusal {
    Refusal::Unusable(format!("cannot write to it: {}", reason(&e)))
}

/// SQLite's words for what went wrong, e.g. `file is not a database`.
pub(super) fn reason(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(code, Some(message)) if !message.is_empty() => {
            format!("{message} ({:?})", code.code)
        }
        rusqlite::Error::SqliteFailure(code, _) => format!("{:?}", code.code),
        other => other.to_string(),
    }
}
