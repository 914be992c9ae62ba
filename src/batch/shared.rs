//! What the threads of a run share: how the batch runs, what the reader and the workers
//! tell the writer, and the queue, window and counters between them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Duration;

use super::{Entry, Item, Window, WorkQueue};
use crate::batch::verifier::Verifier;
use crate::domain::class::FailOn;
use crate::exit::Failure;
use crate::journal::Journal;

/// Input notes (duplicates, skipped lines) shown one by one, per kind; the rest are counted
/// and summed up at the end, so a file of a million duplicates costs no memory or scroll.
pub(crate) const NOTES_SHOWN: usize = 10;

/// How a batch runs.
pub(crate) struct Batch {
    /// Worker threads.
    pub(crate) jobs: usize,
    /// How many references the input holds, when that can be known before the run
    /// (arguments, and files counted first; an upper bound), for the progress bar and the
    /// interrupted summary.
    pub(crate) known_len: Option<usize>,
    /// Set on Ctrl-C/SIGTERM: stop starting references, exit 130.
    pub(crate) stop: Arc<AtomicBool>,
    /// Set by the batch when it stops starting references for any reason (a signal, or
    /// the reader of stdout went away); the client stops retrying when it is set.
    pub(crate) halt: Arc<AtomicBool>,
    /// `--wait`: how long a not-final reference is asked again (zero: not at all).
    pub(crate) wait: Duration,
    /// The command that would finish the run if it is interrupted (`--resume`), shown in
    /// the interrupted summary.
    pub(crate) resume_hint: Option<String>,
    /// `--fail-on`: the outcome classes the exit status counts (`None`: every entry). A
    /// run that decides one entry only exits with that entry's status whatever it names.
    pub(crate) fail_on: Option<FailOn>,
    /// Where every answer judged is kept, when the journal is on.
    pub(crate) journal: Option<Journal>,
}

/// What the reader and the workers tell the writer.
pub(super) enum Event<D> {
    /// A position decided: its entry, and, for a reference waited for, why its last check
    /// got no answer if it did not.
    Done(usize, Box<Entry<D>>, Option<String>),
    Skipped(usize),
    /// An answer asked on the way under `--wait` (not final, so asked again): for the
    /// journal only.
    Asked(Box<crate::domain::outcome::Record>),
    Note(Item<D>),
    InputFailed(Failure),
    /// How many positions the reader issued, whether that is every position of the input
    /// (it was read to its end: no stop and no read error cut it short), the line to show
    /// if the input held none, and the input's closing warnings.
    InputEnd(InputEnd),
}

/// What the reader says when it stops reading.
pub(super) struct InputEnd {
    pub(super) issued: usize,
    pub(super) read_to_end: bool,
    pub(super) empty_message: String,
    pub(super) unshown: Unshown,
    pub(super) notes: Vec<String>,
}

/// Notes counted but not shown, per kind.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Unshown {
    pub(super) duplicates: usize,
    pub(super) invalid: usize,
}

/// What the writer shares with the reader and the workers.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) verifier: Arc<Verifier>,
    pub(super) window: Arc<Window>,
    pub(super) queue: Arc<WorkQueue>,
    /// Positions the reader issued.
    pub(super) issued: Arc<AtomicUsize>,
    /// Lines the reader dropped (duplicates, invalid): they shrink the counted total.
    pub(super) dropped: Arc<AtomicUsize>,
    /// References a worker is verifying right now: what a first Ctrl-C waits for.
    pub(super) active: Arc<AtomicUsize>,
}
