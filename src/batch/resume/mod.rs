//! `--resume FILE` (an earlier run's `-o jsonl` output, complete or cut short) or `--state
//! FILE` (the sealed records a run keeps beside any output, see [`state`]) read into an
//! index keyed by reference, so that a batch's [`Source`] can hand the references whose
//! earlier record is a final answer to the writer, read back into its values (never its
//! bytes; see [`carry`]), and ask only the rest.
//!
//! The index knows nothing of verify or reconcile beyond a [`Shape`] (columns, where the
//! reference and the outcome are, outcome names, which are final, and for reconcile the
//! copy of the input row each record holds), so both commands resume the same way.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

mod lines;
mod read;
mod records;
mod source;
mod state;

pub(crate) use source::Resuming;
pub(crate) use state::{open_memory, resume_needs_jsonl};

use super::{Item, Source};
use crate::domain::checks::HmacMode;
use crate::domain::job::Job;
use crate::domain::outcome::Record;
use crate::domain::seal::Sealer;
use crate::exit::{Exit, Failure};
use crate::log::Log;
use crate::render::state::StateLog;
use crate::secret::Secret;
use lines::{Lines, Reading, Step};

/// Longest line read from a resume file. A record is a few kilobytes, but it holds the
/// response, which may be up to the client's 1 MiB body limit, and escaping can make its
/// text several times longer: a genuine output must never be refused for a long line.
pub(crate) const MAX_RECORD: usize = 8 << 20;

/// How many lines are read between two looks at the run's stop flag: a look is one atomic
/// load, a line tens of microseconds of checks (seal, parse), so a signal is heard within
/// milliseconds of a file of any size.
const STOP_EVERY: usize = 256;

/// A record carried over from an earlier run: the verdict it was decided as, rebuilt from
/// what it keeps (never its bytes, never judged again), for this run's job, written and
/// counted through the path a fresh one takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Carried(pub(crate) Box<Record>);

/// What a command's records look like, for reading them back.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    /// The command, for messages (`payverify verify`).
    pub(crate) command: &'static str,
    /// Whether an outcome is a final answer, carried over rather than asked again.
    pub(crate) is_final: fn(&str) -> bool,
    /// Reconcile: each record holds its input row; the reference is one of its cells.
    pub(crate) row: Option<RowShape>,
}

/// The input row a reconcile record holds: the orders file's own columns, first in the
/// CSV, under `row` in jsonl.
#[derive(Debug, Clone)]
pub(crate) struct RowShape {
    /// The keys of jsonl's `row` object, in order (the input header's names, a repeated
    /// name as `name (N)`).
    pub(crate) keys: Vec<String>,
    /// Which cell is the reference.
    pub(crate) reference: usize,
    /// Outcomes decided from the input alone (`DUPLICATE`, `INVALID_ROW`): never carried,
    /// and not keyed (they share their reference with the row that was verified).
    pub(crate) unkeyed: fn(&str) -> bool,
}

/// What a record must prove to be carried over, so that a resumed run never earns exit 0
/// more cheaply than a fresh one, nor writes what a fresh one would not. The file is not
/// the service: anyone who can write it could write "SUCCESSFUL". So a record is carried
/// only under payverify's seal for this run's secret (no one else can make one), judged by
/// what this run would judge the same job by (the fingerprint it keeps: the judging
/// version, the job's expectations and row, `--hmac`, `--expect-mode`); then it is carried
/// as it was decided, never judged again. An exit 0 also needs the hmac it was found to
/// have valid, whatever `--hmac` says: only that signature shows the answer came from the
/// service, and from this service (not the sandbox, another profile or an edited copy).
#[derive(Debug, Clone, Default)]
pub(crate) struct Trust {
    /// This run's client secret; without one nothing is carried.
    pub(crate) secret: Option<Secret>,
    /// The `mode` this run expects of every answer, if any.
    pub(crate) expect_mode: Option<String>,
    /// How this run checks the hmac.
    pub(crate) hmac: HmacMode,
}

/// The earlier run's final records by reference, and what reading it found. Only where
/// each record is in the file is kept, not its text: the text is read again when its turn
/// comes, so resuming a run of a million records does not hold the file in memory.
#[derive(Debug)]
pub(crate) struct ResumeIndex {
    /// Which flag named the file, for messages.
    memory: Memory,
    shape: Shape,
    /// This run's trust, for carrying.
    trust: Trust,
    file: File,
    records: HashMap<String, Slot>,
    /// Tells a record read again from one that changed in between.
    hasher: RandomState,
    /// Final records not carried: not under this run's seal, judged by other checks than
    /// this run's, or (reconcile) for a row this input no longer has as it was.
    distrusted: usize,
    /// Records that were no longer as first read when their turn came (the file changed).
    changed: usize,
    /// `--state`: this run's file, to which a run that stops before the end of its input
    /// hands the earlier records it did not reach (see [`state`]).
    state: Option<StateLog>,
    /// Whether the input was read to its end: then a record not taken is for a reference
    /// the input does not have.
    input_read: bool,
    /// With `--state`: the records given out, which a stopped run may not have written.
    taken: Vec<(String, Slot)>,
    /// A stopped run took back what it did not write: nothing more is given out.
    closed: bool,
}

/// Where a final record is in the file, a hash of its bytes as first read, and whether
/// its seal held then (one that did not is never carried, nor handed to a `--state` file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    offset: u64,
    len: usize,
    hash: u64,
    sealed: bool,
}

/// Which flag names the file a run's memory is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Memory {
    /// `--resume FILE`: an earlier run's `-o jsonl` output.
    Resume,
    /// `--state FILE`: the records a run keeps beside any output.
    State,
}

impl Memory {
    /// The flag, for messages.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Memory::Resume => "--resume",
            Memory::State => "--state",
        }
    }

    /// The file `path` names, to be read back: a regular file under this flag's cap (its
    /// size is checked when it is opened), whose records are read again as their turns
    /// come; stdin is refused (exit 2).
    fn open(self, path: &Path) -> Result<File, Failure> {
        let refuse =
            |why: String| Failure::usage(format!("{} {}: {why}", self.flag(), path.display()));
        if path.as_os_str() == "-" {
            return Err(refuse(
                "the earlier output must be a file: stdin cannot be read back as records are \
                 carried"
                    .into(),
            ));
        }
        let limit = match self {
            Memory::Resume => &crate::files::RESUME,
            Memory::State => &crate::files::STATE,
        };
        Ok(crate::files::open(path, limit)
            .map_err(|e| refuse(e.why))?
            .into_inner())
    }

    /// What the file must be, for the message refusing one that is not.
    fn expected(self, command: &str) -> String {
        match self {
            Memory::Resume => format!(
                "this is not an output of {command} (resume from the earlier run's stdout, with \
                 the same -o)"
            ),
            Memory::State => format!("this is not a --state file of {command}"),
        }
    }
}

impl ResumeIndex {
    /// Reads `path`, which must be jsonl records of `shape.command`: an earlier `-o jsonl`
    /// output or a `--state` file, as `memory` says. A last line without its line end (the
    /// run was killed while writing it) is ignored with a warning; anything else that is not
    /// such a record is a usage error (exit 2) naming the line, before any request.
    ///
    /// Once `stop` is set (the run's first signal) the reading ends: the index then holds
    /// nothing and gives nothing out, so the run stops as one stopped before any request
    /// (exit 130), and the file is left as it was.
    pub(crate) fn open(
        path: &Path,
        memory: Memory,
        shape: &Shape,
        trust: &Trust,
        log: &Log,
        stop: &AtomicBool,
    ) -> Result<ResumeIndex, Failure> {
        let flag = memory.flag();
        let name = path.display().to_string();
        let file = memory.open(path)?;
        let reading = Reading {
            flag,
            name: &name,
            memory,
            shape,
            log,
        };
        let mut lines = Lines::new(&file);
        let mut records = HashMap::new();
        let hasher = RandomState::new();
        // The seal key, derived from the secret once for the whole file.
        let sealer = trust.secret.as_ref().map(Sealer::new);
        let mut lines_of: HashMap<String, usize> = HashMap::new();
        let mut sealed_any = false;
        let mut stopped = false;
        for n in 1.. {
            // 100,000 records take seconds to check: one SIGTERM must not wait for them.
            if n % STOP_EVERY == 1 && stop.load(Ordering::SeqCst) {
                stopped = true;
                break;
            }
            let line_start = lines.next_line;
            let line = match lines.next(&reading, n)? {
                Step::Line(line) => line,
                Step::Skipped => continue,
                Step::End => break,
            };
            // Rows decided from the input alone (reconcile's DUPLICATE, INVALID_ROW) share
            // their reference with the row that was verified: they are not keyed.
            let indexed = reading.index(line, n)?;
            // The gateway's hmac does not sign a record's reference, status or code: without
            // payverify's seal an edited FAILED record could look like any other.
            let sealed = sealer.as_ref().is_some_and(|sealer| sealer.holds(line));
            sealed_any = sealed_any || sealed;
            let Some((key, is_final)) = indexed else {
                continue;
            };
            // One record per reference is what payverify writes; a second one (appended,
            // or a SUCCESSFUL line added after an UNAVAILABLE one) is not its output.
            if let Some(first) = lines_of.insert(key.clone(), n) {
                return Err(reading.foreign(
                    n,
                    &format!(
                        "is a second record for reference {} (the first is on line {first})",
                        crate::terminal::quoted(&key)
                    ),
                ));
            }
            if !is_final {
                continue;
            }
            let slot = Slot {
                offset: line_start,
                len: line.len(),
                hash: hasher.hash_one(line.as_bytes()),
                sealed,
            };
            records.insert(key, slot);
        }
        if stopped {
            // Read in part: nothing of it may be carried, nor handed to a --state file.
            records.clear();
        } else {
            reading.skipped(&lines.skipped, sealed_any)?;
        }
        drop(lines);
        Ok(ResumeIndex {
            memory,
            shape: shape.clone(),
            trust: trust.clone(),
            file,
            records,
            hasher,
            distrusted: 0,
            changed: 0,
            state: None,
            input_read: false,
            taken: Vec::new(),
            closed: stopped,
        })
    }

    /// The earlier final record of `job`'s reference, once; `None` when it is to be asked
    /// (see [`records::carried`]).
    pub(crate) fn take(&mut self, job: &Job) -> Option<Carried> {
        if self.closed {
            return None;
        }
        let key = match &self.shape.row {
            Some(row) => job.row.as_ref()?.cells.get(row.reference)?,
            None => job.reference.as_str(),
        };
        let slot = self.records.remove(key)?;
        if self.state.is_some() {
            self.taken.push((key.to_owned(), slot));
        }
        let mut text = vec![0u8; slot.len];
        let read = self
            .file
            .seek(SeekFrom::Start(slot.offset))
            .and_then(|_| self.file.read_exact(&mut text));
        // Changed since it was checked: asked again rather than written unchecked.
        if read.is_err() || self.hasher.hash_one(&text[..]) != slot.hash {
            self.changed += 1;
            return None;
        }
        let text = String::from_utf8(text).ok()?;
        let carried = slot
            .sealed
            .then(|| records::carried(&text, job, &self.shape, &self.trust))
            .flatten();
        if carried.is_none() {
            self.distrusted += 1;
        }
        carried
    }

    /// The same index, handing the records it did not give out to `state` if the input is
    /// not read to its end (see [`state`]).
    pub(crate) fn keeping(mut self, state: Option<StateLog>) -> Self {
        if let Some(state) = &state {
            state.remembering();
        }
        self.state = state;
        self
    }

    /// Final records left untaken: references the file has and the input does not.
    pub(crate) fn unused(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests;
