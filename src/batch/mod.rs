//! Many references: a reader, N workers sharing one client, and one writer that keeps
//! input order and writes each record as soon as it and every earlier one are done.
//!
//! The engine is generic over what an input position can be besides a job to verify (`D`:
//! decided without asking, e.g. a record carried over from an earlier run, or a row that
//! reconciliation refuses) and over how entries are written ([`Sink`]), so `verify` and
//! `reconcile` share one reader, one worker pool, one pacing gate and one ordered writer.

pub(crate) mod csv_input;
mod ending;
mod engine;
pub(crate) mod input;
mod one;
mod queue;
mod reader;
pub(crate) mod resume;
mod seen;
mod shared;
mod summary;
pub(crate) mod verifier;
mod window;
mod worker;
mod writer;

pub(crate) use one::Answer;
use queue::{Closing, Task, Turn, Waiting, WorkQueue};
pub(crate) use shared::Batch;
use summary::{Stopped, Summary};
use window::{Ticket, Window};

use std::io::{self};

use crate::domain::class::Class;
use crate::domain::job::Job;
use crate::domain::outcome::Record;
use crate::exit::{Exit, Failure};
use crate::render::records::RecordWriter;
pub(crate) use input::{Input, InputSource};

/// What a batch's input yields, position by position. Every position but a note becomes
/// one entry of the output, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item<D> {
    /// A reference to ask the service about (a worker does).
    Job(Job),
    /// An entry decided without asking, written in its place.
    Decided(D),
    /// A reference already seen: verified once, reported once (a warning, no entry).
    Duplicate {
        /// The reference.
        reference: String,
        /// Where it appeared again, e.g. `stdin line 7`.
        origin: String,
    },
    /// A line that is not a usable reference (a warning, no entry; exit 2 in the end).
    Invalid {
        /// Where it is, e.g. `refs.txt line 3`.
        origin: String,
        /// Why.
        why: String,
    },
}

/// A batch's input: its items, read lazily on the reader thread.
pub(crate) trait Source<D>: Iterator<Item = Result<Item<D>, Failure>> + Send {
    /// The error line when the input held nothing to verify, saying what it did hold
    /// (e.g. `no references to verify: 3 lines read, 2 blank, 1 comment`).
    fn empty_message(&self) -> String;

    /// Warnings to give once the input has been read to its end (e.g. `--resume` records
    /// that matched no reference of the input).
    fn end_notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What the writer gets for one position.
#[derive(Debug)]
pub(crate) enum Entry<D> {
    /// Verified by a worker during this run.
    Verified(Record),
    /// Decided without asking.
    Decided(D),
}

/// What one entry counts as: merged into the exit status and the summary before it is
/// written, so output that cannot be written never lowers the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tally {
    /// The entry's exit status.
    pub(crate) exit: Exit,
    /// Its name in the summary line, one of [`Sink::names`].
    pub(crate) name: &'static str,
    /// Whether it passed with warnings worth a look.
    pub(crate) warned: bool,
    /// Whether it was carried over from an earlier run (`--resume`) rather than asked.
    pub(crate) carried: bool,
    /// Its outcome class (`--fail-on`, the progress bar): verify's outcome's, reconcile's
    /// result's; `None` for an entry that has none, which always counts.
    pub(crate) class: Option<Class>,
    /// Whether the service answered for it (a transaction it knows, of any status), now or
    /// in the run it was carried from: `--fail-on`'s quiet exit needs an answer to be
    /// quiet about. A row decided from the file alone is none.
    pub(crate) answered: bool,
    /// What the closing lines say of it, when it needs a person's look (an exit other than
    /// 0, or a warning); `None` when it does not.
    pub(crate) look: Option<Box<Look>>,
}

/// An entry that needs a person, as the closing lines name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Look {
    /// Where it is: verify's reference; reconcile's line, order id and reference.
    pub(crate) what: String,
    /// Its outcome or result name.
    pub(crate) name: &'static str,
    /// Why, in one line.
    pub(crate) why: String,
}

impl Tally {
    /// What a record verified in this run counts as.
    pub(crate) fn of(record: &Record) -> Tally {
        let exit = record.verdict.exit();
        let name = record.verdict.name();
        let warnings = record.verdict.checks.as_ref().map(|c| &c.warnings);
        let warned = warnings.is_some_and(|w| !w.is_empty());
        let look = match (exit, warnings) {
            (Exit::Successful, Some(w)) if !w.is_empty() => Some(crate::domain::checks::join(w)),
            (Exit::Successful, _) => None,
            _ => record.row_error(),
        };
        let class = record.verdict.class();
        Tally {
            exit,
            name,
            warned,
            carried: false,
            class: Some(class),
            answered: class.is_answer(),
            look: look.map(|why| {
                Box::new(Look {
                    what: record.job.reference.to_string(),
                    name,
                    why,
                })
            }),
        }
    }
}

/// Where a batch's entries go, on the main thread: each entry in input order, then
/// `finish`.
pub(crate) trait Sink<D> {
    /// What `entry` counts as, and, when `write`, the entry written (what comes before the
    /// first entry, a CSV header or a JSON `[`, with it). One call for every entry the exit
    /// status merges, written or not (after the reader of stdout went away), so a sink that
    /// keeps totals keeps them here and they agree with the exit status, and nothing is
    /// written that was not counted.
    fn take(&mut self, entry: &Entry<D>, write: bool) -> (Tally, io::Result<()>);
    /// Writes what comes after the last entry (a JSON `]`, a table), and what comes before
    /// the first when none was written.
    fn finish(&mut self) -> io::Result<()>;
    /// Every name [`Sink::take`] gives, in the order the summary line lists them.
    fn names(&self) -> &'static [&'static str];
    /// What the summary line calls one entry and many: verify's references, reconcile's
    /// rows.
    fn noun(&self) -> (&'static str, &'static str) {
        ("reference", "references")
    }
    /// What the summary line says was done to an entry: verify's references are
    /// verified, reconcile's rows reconciled.
    fn verb(&self) -> &'static str {
        "verified"
    }
    /// Whether the closing lines name the entries that need a look: every batch's, but
    /// one reference's answer, whose own error line names it.
    fn names_each(&self) -> bool {
        true
    }
    /// Told that the batch ended before every position of the input was decided (the
    /// reader of stdout went away, the output failed, a signal, an input that could not be
    /// read to its end), with how many positions were never decided when the input was
    /// read to its end (`None`: the rest of it was never read). The engine makes such a
    /// run exit 10 (130 for a signal) whatever its entries say; a sink that reports totals
    /// marks them as those of an incomplete run.
    /// An error when what the sink keeps beside the output (`--state`) could not be kept.
    fn incomplete(&mut self, not_reached: Option<usize>) -> io::Result<()> {
        let _ = not_reached;
        Ok(())
    }
}

pub(crate) use resume::Carried;

impl Sink<Carried> for RecordWriter {
    fn take(&mut self, entry: &Entry<Carried>, write: bool) -> (Tally, io::Result<()>) {
        let (record, tally): (&Record, Tally) = match entry {
            Entry::Verified(record) => (record, Tally::of(record)),
            Entry::Decided(Carried(record)) => (
                record,
                Tally {
                    carried: true,
                    ..Tally::of(record)
                },
            ),
        };
        (tally, RecordWriter::take(self, record, write))
    }

    fn finish(&mut self) -> io::Result<()> {
        RecordWriter::finish(self)
    }

    fn names(&self) -> &'static [&'static str] {
        &crate::domain::outcome::OUTCOME_NAMES
    }

    /// A stopped run's `--state` file gets the earlier records it did not write, and its
    /// workbook says it is incomplete.
    fn incomplete(&mut self, not_reached: Option<usize>) -> io::Result<()> {
        self.stopped_short(not_reached)
    }
}
