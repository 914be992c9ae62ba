//! `--state FILE`: a run's memory kept beside any output. Every record the run decides is
//! written to FILE as it is decided, sealed exactly as an `-o jsonl` line is, whatever `-o`
//! says (see `render::state`). A run given an existing FILE first reads it as `--resume`
//! reads a jsonl output (the same trust: seals, records carried only under this run's
//! checks, one record per reference, one payment for one order) and carries what is final.
//!
//! Bounded: the run fills a new file beside FILE with its own records, the carried ones
//! included, in input order; the earlier one is read on through the handle already open.
//! So FILE never holds more than one run's records, and a rerun carries everything the run
//! before it wrote. A first run puts its file in place at its first record; a rerun only at
//! its end, once the new file also holds the earlier file's final records it did not write
//! (see [`Shared`] and `render::state`), so whatever a rerun meets (a full disk, SIGKILL),
//! the records an earlier run kept are still in FILE. A run refused, or stopped before
//! deciding anything, leaves FILE as it was.

use std::path::Path;

use std::hash::BuildHasher;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Memory, ResumeIndex, Shape, Slot, Trust};
use crate::exit::Failure;
use crate::files::{Pending, Replace, STATE};
use crate::log::Log;
use crate::render::OutputFormat;
use crate::render::state::{Earlier, StateLog};

/// Opens `--state path` for a run whose records look like `shape`: the index of what the
/// file holds (`None` when there is no file yet), and the new file prepared beside it, for
/// the run's records. A path that is stdout, stderr or one of the run's inputs is refused
/// (exit 2) before it is read, and so is anything `--resume` refuses in it. `stop` ends
/// the reading (see [`ResumeIndex::open`]).
fn open_state(
    path: &Path,
    shape: &Shape,
    trust: &Trust,
    log: &Log,
    stop: &AtomicBool,
) -> Result<(Option<ResumeIndex>, Pending), Failure> {
    let refuse = |why: String| Failure::usage(format!("--state {}: {why}", path.display()));
    if path.as_os_str() == "-" {
        return Err(refuse("stdout carries the output; give a file name".into()));
    }
    let replace = Replace {
        mode: None,
        updating: Some(STATE.what),
    };
    let pending = crate::files::prepare(path, replace).map_err(|e| refuse(e.why))?;
    let index = match std::fs::symlink_metadata(path) {
        Ok(_) => Some(ResumeIndex::open(
            path,
            Memory::State,
            shape,
            trust,
            log,
            stop,
        )?),
        Err(_) => None,
    };
    Ok((index, pending))
}

/// `--resume` reads `-o jsonl` output only: a csv row bears no seal and holds no answer
/// to judge again, so anyone could turn a CHECK_FAILED row into a FAILED one (exit 2 for
/// any other `-o`, pointing to `--state`).
pub(crate) fn resume_needs_jsonl(format: OutputFormat) -> Result<(), Failure> {
    match format {
        OutputFormat::Jsonl => Ok(()),
        OutputFormat::Csv => Err(Failure::usage(
            "--resume reads -o jsonl output only (a csv row cannot prove what the service \
             said); for -o csv, keep the run's records with --state FILE and run it again \
             with the same --state",
        )),
        _ => Err(Failure::usage(
            "--resume needs -o jsonl, the format of the earlier run's output; with another \
             -o, keep the run's records with --state FILE",
        )),
    }
}

/// What a batch remembers of earlier runs: the index of `--resume FILE` or of `--state
/// FILE` (when it holds anything), and the `--state` file this run writes. `stop`, the
/// run's stop flag, ends the reading of either at the first signal.
pub(crate) fn open_memory(
    resume: Option<&Path>,
    state: Option<&Path>,
    shape: &Shape,
    trust: &Trust,
    log: &Log,
    stop: &AtomicBool,
) -> Result<(Option<ResumeIndex>, Option<StateLog>), Failure> {
    if let Some(path) = state {
        let (index, pending) = open_state(path, shape, trust, log, stop)?;
        let state = StateLog::new(pending);
        let index = index.map(|index| index.keeping(Some(state.clone())));
        return Ok((index, Some(state)));
    }
    let index = resume
        .map(|path| ResumeIndex::open(path, Memory::Resume, shape, trust, log, stop))
        .transpose()?;
    Ok((index, None))
}

/// The index as the reader takes from it and a stopped run's `--state` file asks it for
/// what was not written ([`Earlier`]).
pub(super) struct Shared(pub(super) Arc<Mutex<ResumeIndex>>);

impl Shared {
    /// The index, whatever a panic elsewhere left it as (each take is whole under the lock).
    pub(super) fn lock_of(index: &Mutex<ResumeIndex>) -> MutexGuard<'_, ResumeIndex> {
        index
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What a run stopped part way gives back to its own `--state` file: the earlier file's
/// final records it never reached (unless the input was read to its end: then they are for
/// references it does not have) and those it read ahead, all as they were written, in the
/// earlier file's order; nothing is given out after (the run is stopping).
impl Earlier for Shared {
    fn unwritten(&self) -> Vec<(String, String)> {
        let mut index = Shared::lock_of(&self.0);
        index.closed = true;
        let mut slots: Vec<(String, Slot)> = std::mem::take(&mut index.taken);
        if !index.input_read {
            slots.extend(index.records.drain());
        }
        slots.retain(|(_, slot)| slot.sealed);
        slots.sort_by_key(|(_, slot)| slot.offset);
        let mut lines = Vec::new();
        for (key, slot) in slots {
            let mut text = vec![0u8; slot.len];
            let read = index
                .file
                .seek(SeekFrom::Start(slot.offset))
                .and_then(|_| index.file.read_exact(&mut text));
            // One that changed since it was read is left out (and asked next time).
            if read.is_ok() && index.hasher.hash_one(&text[..]) == slot.hash {
                if let Ok(line) = String::from_utf8(text) {
                    lines.push((key, line));
                }
            }
        }
        lines
    }
}
