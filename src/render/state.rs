//! `--state FILE`: every record of a run, sealed as an `-o jsonl` line is, written to a file
//! of its own as the record is decided, whatever the output's format: what a later run with
//! the same `--state` reads back to carry what is final (see `batch::resume`).

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::files::Pending;

/// The `--state` file, shared by the writer (each record this run decides) and the resume
/// index (at the end, the earlier records this run did not write).
///
/// A first run (no earlier file, or one holding no record) puts its file in place when it
/// keeps its first record: each record is then one whole `write` of its line, so a run
/// killed at any point (SIGKILL included) leaves every record before it whole, and at most
/// a last line cut short, which the reader ignores.
///
/// A run given an earlier file with records never lets go of them: its records go to the
/// new file beside FILE, which is put in place only at the run's end, stopped or not, once
/// it also holds the earlier file's final records this run did not write. Whatever the run
/// meets (a full disk, `ulimit -f`, a signal, SIGKILL, a crash), FILE holds the earlier
/// run's records or a file with all of them; what such a run costs is its own records,
/// asked again next time. A run refused or stopped before deciding anything leaves FILE
/// as it was.
#[derive(Clone)]
pub(crate) struct StateLog(Arc<Mutex<Inner>>);

impl std::fmt::Debug for StateLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateLog")
    }
}

struct Inner {
    /// The new file, prepared beside the target and not yet in place.
    pending: Option<Pending>,
    /// Where records are written: the file in place, or (with earlier records to keep) the
    /// new file not yet in place.
    file: Option<File>,
    /// The first write that failed: later records are not written (the file would have a
    /// hole), and the writer reports it at its next write.
    failed: Option<io::Error>,
    done: bool,
    /// The references of the records kept, when an earlier file's records may be added at
    /// a stop (see [`StateLog::remembering`]).
    kept: Option<HashSet<String>>,
    /// The earlier file's records this run did not write, given at a stop.
    earlier: Option<Arc<dyn Earlier>>,
}

/// The earlier `--state` file's final records a run stopped part way did not write (never
/// reached, or read ahead and not written), each with its reference.
pub(crate) trait Earlier: Send + Sync {
    /// The records, once, as they were written.
    fn unwritten(&self) -> Vec<(String, String)>;
}

impl StateLog {
    /// A log that puts `pending` in place when it keeps its first record.
    pub(crate) fn new(pending: Pending) -> StateLog {
        StateLog(Arc::new(Mutex::new(Inner {
            pending: Some(pending),
            file: None,
            failed: None,
            done: false,
            kept: None,
            earlier: None,
        })))
    }

    /// Where the earlier file's records come from at the end ([`StateLog::end`]): the
    /// file is put in place only then, holding them.
    pub(crate) fn set_earlier(&self, earlier: Arc<dyn Earlier>) {
        self.lock().earlier = Some(earlier);
    }

    /// The run ended, stopped part way or not: the earlier file's final records this run
    /// did not write are added, as they were written (they are checked again whenever they
    /// are read), and the new file is put in place, so an end costs nothing an earlier run
    /// decided. A failure leaves FILE as it was, and says why.
    pub(crate) fn end(&mut self) -> io::Result<()> {
        let earlier = match self.lock() {
            inner if inner.file.is_some() => inner.earlier.clone(),
            _ => None,
        };
        for (key, line) in earlier.map(|e| e.unwritten()).unwrap_or_default() {
            self.add_earlier(&key, &line);
        }
        let mut inner = self.lock();
        // Nothing written, nothing to put in place: FILE stays as it was.
        if inner.file.is_none() {
            inner.pending = None;
        }
        if inner.failed.is_none()
            && let Some(pending) = inner.pending.take()
        {
            match pending.commit(b"") {
                Ok(()) => inner.done = true,
                Err(e) => inner.fail(&e.why),
            }
        }
        inner.failed.take().map_or(Ok(()), Err)
    }

    /// Remembers the reference of each record kept from now on, so that an earlier record
    /// added at the end ([`StateLog::end`]) never gives a reference a second record.
    pub(crate) fn remembering(&self) {
        self.lock().kept = Some(HashSet::new());
    }

    /// Adds an earlier run's record `line` for `key` (verbatim: it is checked again whenever
    /// it is read), unless this run kept a record for `key`.
    fn add_earlier(&mut self, key: &str, line: &str) {
        let known = self
            .lock()
            .kept
            .as_ref()
            .is_some_and(|kept| kept.contains(key));
        if !known {
            self.append(key, line);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Each append is one write under the lock: a panic elsewhere leaves whole lines.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends `record` (one sealed JSON object, for the reference `key`) as a line.
    pub(crate) fn append(&mut self, key: &str, record: &str) {
        let mut inner = self.lock();
        if inner.done {
            return;
        }
        if let Some(kept) = inner.kept.as_mut() {
            kept.insert(key.to_owned());
        }
        let mut line = String::with_capacity(record.len() + 1);
        line.push_str(record);
        line.push('\n');
        let reason = |e: io::Error| crate::io_util::io_reason(&e);
        let deferred = inner.earlier.is_some();
        let inner = &mut *inner;
        let written = if let Some(file) = inner.file.as_mut() {
            file.write_all(line.as_bytes()).map_err(reason)
        } else if let Some(pending) = inner.pending.as_mut().filter(|_| deferred) {
            // Earlier records to keep: the new file stays beside FILE until the end.
            let opened = pending.open().and_then(|file| {
                file.write_all(line.as_bytes()).map_err(reason)?;
                file.try_clone().map_err(reason)
            });
            opened.map(|file| inner.file = Some(file))
        } else if let Some(pending) = inner.pending.take() {
            pending
                .commit_open(line.as_bytes())
                .map(|file| inner.file = Some(file))
                .map_err(|e| e.why)
        } else {
            Ok(())
        };
        if let Err(why) = written {
            inner.fail(&why);
        }
    }

    /// The failed write, once: the writer's next write fails with it, which stops the run
    /// like output that cannot be written (and [`StateLog::end`] then leaves FILE as it
    /// was, earlier records and all).
    pub(crate) fn check(&mut self) -> io::Result<()> {
        self.lock().failed.take().map_or(Ok(()), Err)
    }
}

impl Inner {
    /// Records a write that failed: nothing more is written, the new file is not put in
    /// place (FILE keeps what it held), and the writer is told why.
    fn fail(&mut self, why: &str) {
        self.done = true;
        self.file = None;
        self.pending = None;
        let kept = match self.earlier.is_some() {
            true => {
                "; it still holds the earlier run's records, and this run's are asked again next time"
            }
            false => "",
        };
        self.failed = Some(io::Error::other(format!("--state file: {why}{kept}")));
    }
}
