//! Many references: a reader, N workers sharing one client, and one writer that keeps
//! input order and writes each record as soon as it and every earlier one are done.
//!
//! The engine is generic over what an input position can be besides a job to verify (`D`:
//! decided without asking, e.g. a record carried over from an earlier run, or a row that
//! reconciliation refuses) and over how entries are written ([`Sink`]), so `verify` and
//! `reconcile` share one reader, one worker pool, one pacing gate and one ordered writer.

pub(crate) mod csv_input;
pub(crate) mod input;
pub(crate) mod resume;
mod seen;

use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::domain::job::Job;
use crate::domain::outcome::{Outcome, Record, Verdict};
use crate::domain::reference::Reference;
use crate::domain::verifier::Verifier;
use crate::domain::wait::{Polls, human};
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    /// The entry's exit status.
    pub(crate) exit: Exit,
    /// Its name in the summary line, one of [`Sink::names`].
    pub(crate) name: &'static str,
    /// Whether it passed with warnings worth a look.
    pub(crate) warned: bool,
    /// Whether it was carried over from an earlier run (`--resume`) rather than asked.
    pub(crate) carried: bool,
}

/// Where a batch's entries go, on the main thread: `begin`, then each entry in input
/// order, then `finish`.
pub(crate) trait Sink<D> {
    /// Writes what comes before the first entry (a CSV header, a JSON `[`).
    fn begin(&mut self) -> io::Result<()>;
    /// What `entry` counts as. Called for every entry the exit status merges, written or
    /// not (after the reader of stdout went away), so a sink that keeps totals keeps them
    /// here and they agree with the exit status.
    fn tally(&mut self, entry: &Entry<D>) -> Tally;
    /// Writes one entry.
    fn write(&mut self, entry: &Entry<D>) -> io::Result<()>;
    /// Writes what comes after the last entry (a JSON `]`, a table).
    fn finish(&mut self) -> io::Result<()>;
    /// Every name [`Sink::tally`] gives, in the order the summary line lists them.
    fn names(&self) -> &'static [&'static str];
    /// Told that the batch stopped before every position of the input was decided (the
    /// reader of stdout went away, or a signal); returns what that adds to the exit
    /// status. verify's rule: nothing (the merge of the references completed stands).
    fn stopped_early(&mut self) -> Exit {
        Exit::Successful
    }
}

pub(crate) use resume::Carried;

impl Sink<Carried> for RecordWriter {
    fn begin(&mut self) -> io::Result<()> {
        RecordWriter::begin(self)
    }

    fn tally(&mut self, entry: &Entry<Carried>) -> Tally {
        match entry {
            Entry::Verified(record) => Tally {
                exit: record.verdict.exit(),
                name: record.verdict.name(),
                warned: record
                    .verdict
                    .checks
                    .as_ref()
                    .is_some_and(|c| !c.warnings.is_empty()),
                carried: false,
            },
            Entry::Decided(carried) => Tally {
                exit: carried.exit,
                name: carried.name,
                warned: carried.warned,
                carried: true,
            },
        }
    }

    fn write(&mut self, entry: &Entry<Carried>) -> io::Result<()> {
        match entry {
            Entry::Verified(record) => RecordWriter::write(self, record),
            Entry::Decided(carried) => RecordWriter::write_carried(self, &carried.text),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        RecordWriter::finish(self)
    }

    fn names(&self) -> &'static [&'static str] {
        &crate::domain::outcome::OUTCOME_NAMES
    }
}

/// How far the reader may run ahead of the writer, per worker: bounds memory however long
/// the input and however slow one reference is.
const WINDOW_PER_JOB: usize = 16;

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
}

enum Event<D> {
    Done(usize, Box<Entry<D>>),
    Skipped(usize),
    Note(Item<D>),
    InputFailed(Failure),
    /// How many positions the input held, the line to show if that was none, and the
    /// input's closing warnings.
    InputEnd(usize, String, Unshown, Vec<String>),
}

/// Notes counted but not shown, per kind.
#[derive(Debug, Default, Clone, Copy)]
struct Unshown {
    duplicates: usize,
    invalid: usize,
}

/// Counts of entries per name, and timing, for the summary line.
#[derive(Debug, Default)]
struct Summary {
    names: &'static [&'static str],
    counts: BTreeMap<&'static str, usize>,
    total: usize,
    with_warnings: usize,
    /// Entries carried over from an earlier run (`--resume`).
    carried: usize,
    /// Entries the service was asked about in this run.
    asked: usize,
}

/// Why a batch stopped before its input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    Interrupted,
    OutputClosed,
}

impl Batch {
    /// Verifies every reference of `input`, writing records to `writer`; returns the merge
    /// (largest exit code) of every reference's record, 2 when there was no reference at
    /// all, or 130 when interrupted. Every reference issued to a worker ends as a record,
    /// even when the worker fails; a reader of stdout going away stops the batch without
    /// lowering its exit status.
    pub(crate) fn run<D: Send + 'static>(
        &self,
        verifier: Arc<Verifier>,
        input: impl Source<D> + 'static,
        writer: &mut dyn Sink<D>,
        log: &Log,
    ) -> Result<Exit, Failure> {
        let started = Instant::now();
        let window = Arc::new(Window::new(self.jobs * WINDOW_PER_JOB));
        let issued = Arc::new(AtomicUsize::new(0));
        // Lines the reader dropped (duplicates, invalid): they shrink the counted total.
        let dropped = Arc::new(AtomicUsize::new(0));
        // References a worker is verifying right now: what a first Ctrl-C waits for.
        let active = Arc::new(AtomicUsize::new(0));
        // As deep as the window: the reader refills half of it per wake-up.
        let queue = Arc::new(WorkQueue::new(self.jobs * WINDOW_PER_JOB));
        let (events_tx, events) = mpsc::channel::<Event<D>>();

        spawn_reader(
            input,
            queue.clone(),
            events_tx.clone(),
            &window,
            &issued,
            &dropped,
            &self.halt,
        )?;
        for n in 0..self.jobs {
            let (queue, events_tx, halt) = (queue.clone(), events_tx.clone(), self.halt.clone());
            let (verifier, active) = (verifier.clone(), active.clone());
            let (wait, log) = (self.wait, log.clone());
            thread::Builder::new()
                .name(format!("verify-{n}"))
                .spawn(move || worker(&verifier, &queue, &events_tx, &halt, &active, wait, &log))
                .map_err(|e| Failure::new(Exit::Internal, format!("cannot start a worker: {e}")))?;
        }
        drop(events_tx);

        let bar = progress_bar(self.known_len, log);
        // Records to a terminal that also shows the bar: the bar is cleared before each
        // write and drawn again after it, so no bar line is left among the rows.
        let shared_terminal = io::stdout().is_terminal() && io::stderr().is_terminal();
        let to_stdout = |write: &mut dyn FnMut() -> io::Result<()>| match shared_terminal {
            true => bar.suspend(write),
            false => write(),
        };
        let mut stopped = None;
        self.write(to_stdout(&mut || writer.begin()), &mut stopped)?;
        let mut failed = 0usize;
        let mut input_complete = false;
        let mut exit = Exit::Successful;
        let mut summary = Summary {
            names: writer.names(),
            ..Summary::default()
        };
        let mut pending: BTreeMap<usize, Option<Box<Entry<D>>>> = BTreeMap::new();
        let (mut next, mut completed, mut total) = (0usize, 0usize, None);
        let mut written_jobs = 0usize;
        let mut empty_message = String::new();
        let mut end_notes = Vec::new();
        let mut unshown = Unshown::default();
        let mut disconnected = false;
        loop {
            match events.recv_timeout(Duration::from_millis(50)) {
                Ok(Event::Done(i, entry)) => {
                    pending.insert(i, Some(entry));
                    completed += 1;
                }
                Ok(Event::Skipped(i)) => {
                    pending.insert(i, None);
                    completed += 1;
                }
                Ok(Event::Note(item)) => {
                    let line = match item {
                        Item::Duplicate { reference, origin } => {
                            format!("reference '{reference}' given again ({origin}); verified once")
                        }
                        Item::Invalid { origin, why } => {
                            exit = exit.merge(Exit::Usage);
                            format!("{origin} skipped: {why}")
                        }
                        Item::Job(_) | Item::Decided(_) => String::new(),
                    };
                    bar.suspend(|| log.warn(&line));
                }
                Ok(Event::InputFailed(failure)) => {
                    exit = exit.merge(failure.exit);
                    bar.suspend(|| log.error(&failure.message));
                }
                Ok(Event::InputEnd(n, message, rest, notes)) => {
                    (total, empty_message) = (Some(n), message);
                    end_notes = notes;
                    // Read to its end before any stop: `n` is then every reference.
                    input_complete = stopped.is_none() && !self.halt.load(Ordering::SeqCst);
                    bar.set_length(n as u64);
                    unshown = rest;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    disconnected = true;
                    break;
                }
            }
            if stopped.is_none() && self.stop.load(Ordering::SeqCst) {
                stopped = Some(Stopped::Interrupted);
                self.halt.store(true, Ordering::SeqCst);
                let line = format!(
                    "finishing {} in flight; Ctrl-C again to quit now",
                    active.load(Ordering::SeqCst)
                );
                bar.suspend(|| log.info(&line));
                bar.set_message(line);
            }
            if total.is_none()
                && let Some(known) = self.known_len
            {
                let left = known.saturating_sub(dropped.load(Ordering::SeqCst));
                bar.set_length(left as u64);
            }
            while let Some(entry) = pending.remove(&next) {
                // A skipped position (None) was a job too.
                if !matches!(entry.as_deref(), Some(Entry::Decided(_))) {
                    written_jobs += 1;
                }
                if let Some(entry) = entry {
                    // Merged before it is written: output that cannot be written never
                    // lowers the exit status.
                    let tally = writer.tally(&entry);
                    exit = exit.merge(tally.exit);
                    summary.add(tally, matches!(*entry, Entry::Verified(_)));
                    if stopped != Some(Stopped::OutputClosed) {
                        self.write(to_stdout(&mut || writer.write(&entry)), &mut stopped)?;
                    }
                    if tally.exit != Exit::Successful {
                        failed += 1;
                        if stopped.is_none() {
                            bar.set_message(format!("{failed} failed"));
                        }
                    }
                    bar.inc(1);
                }
                next += 1;
                window.advance(next, written_jobs);
            }
            let drained = next == completed;
            if drained && total == Some(completed) {
                break;
            }
            if drained
                && self.halt.load(Ordering::SeqCst)
                && completed == issued.load(Ordering::SeqCst)
            {
                break;
            }
        }
        bar.finish_and_clear();
        for note in &end_notes {
            log.warn(note);
        }
        if unshown.duplicates > 0 {
            log.warn(&format!(
                "{} more references were given again and verified once (the first \
                 {NOTES_SHOWN} are listed above)",
                unshown.duplicates
            ));
        }
        if unshown.invalid > 0 {
            log.warn(&format!(
                "{} more lines were skipped (the first {NOTES_SHOWN} are listed above)",
                unshown.invalid
            ));
        }
        // Every thread is gone: every issued reference must have come back as a record.
        // One that did not is a failure of payverify itself, never a silent gap.
        let lost = match disconnected {
            true => issued.load(Ordering::SeqCst).saturating_sub(next),
            false => 0,
        };
        if lost > 0 {
            exit = exit.merge(Exit::Internal);
            log.error(&format!(
                "internal error: {lost} reference(s) got no result (a worker failed)"
            ));
        }
        if stopped != Some(Stopped::OutputClosed) {
            self.write(writer.finish(), &mut stopped)?;
        }
        if self.stop.load(Ordering::SeqCst) {
            stopped = Some(Stopped::Interrupted);
        }
        // Every position read was written or tallied; a stop before the input's end (or
        // before its last positions came back) leaves some undecided. A reader halted by
        // the stop reports as its total only what it had read, so that total equalling the
        // positions written proves nothing unless the input was read to its end first.
        if stopped.is_some() && !(input_complete && total == Some(next)) {
            exit = exit.merge(writer.stopped_early());
        }
        if stopped == Some(Stopped::Interrupted) {
            // Exact when the input was read to its end before the stop; otherwise the
            // counted total, or, for stdin, what was read and the unread rest.
            let not_started = match (input_complete, total, self.known_len) {
                (true, Some(n), _) => n.saturating_sub(summary.total).to_string(),
                (_, _, Some(known)) => known
                    .saturating_sub(dropped.load(Ordering::SeqCst))
                    .saturating_sub(summary.total)
                    .to_string(),
                _ => format!(
                    "{} read and the unread rest of the input",
                    issued.load(Ordering::SeqCst).saturating_sub(summary.total)
                ),
            };
            log.info(&format!(
                "{}; not started: {not_started}",
                summary.line(started.elapsed(), stopped)
            ));
            if let Some(command) = &self.resume_hint {
                log.info(&format!("to finish this run, resume it: {command}"));
            }
            return Ok(Exit::Interrupted);
        }
        if summary.total == 0 && lost == 0 && stopped.is_none() {
            // Verifying nothing proves nothing: an empty file must never read as success.
            log.error(&empty_message);
            return Ok(exit.merge(Exit::Usage));
        }
        log.info(&summary.line(started.elapsed(), stopped));
        Ok(exit)
    }

    /// Writes batch output; a reader that went away (`| head -1`) stops the batch: no new
    /// references start and nothing more is written. Any other error is exit 10.
    fn write(&self, result: io::Result<()>, stopped: &mut Option<Stopped>) -> Result<(), Failure> {
        if let Err(e) = &result
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            if stopped.is_none() {
                *stopped = Some(Stopped::OutputClosed);
            }
            self.halt.store(true, Ordering::SeqCst);
            return Ok(());
        }
        crate::render::write_output(result)
    }
}

fn spawn_reader<D: Send + 'static>(
    mut input: impl Source<D> + 'static,
    work: Arc<WorkQueue>,
    events: mpsc::Sender<Event<D>>,
    window: &Arc<Window>,
    issued: &Arc<AtomicUsize>,
    dropped: &Arc<AtomicUsize>,
    halt: &Arc<AtomicBool>,
) -> Result<(), Failure> {
    let (window, issued, halt) = (window.clone(), issued.clone(), halt.clone());
    let dropped = dropped.clone();
    thread::Builder::new()
        .name("read-references".into())
        .spawn(move || {
            // Closes the queue however this thread ends, so workers never wait forever.
            let work = Closing(work);
            let (mut index, mut jobs) = (0, 0);
            let (mut duplicates, mut invalid) = (0usize, 0usize);
            for item in input.by_ref() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                match item {
                    Ok(Item::Job(job)) => {
                        let ticket = Ticket {
                            index,
                            job: Some(jobs),
                        };
                        if !window.wait_for_room(ticket, &halt) {
                            break;
                        }
                        issued.store(index + 1, Ordering::SeqCst);
                        if !work.0.push((index, job), &halt) {
                            break;
                        }
                        index += 1;
                        jobs += 1;
                    }
                    Ok(Item::Decided(decided)) => {
                        if !window.wait_for_room(Ticket { index, job: None }, &halt) {
                            break;
                        }
                        issued.store(index + 1, Ordering::SeqCst);
                        let entry = Box::new(Entry::Decided(decided));
                        if events.send(Event::Done(index, entry)).is_err() {
                            break;
                        }
                        index += 1;
                    }
                    Ok(note) => {
                        let seen = match note {
                            Item::Duplicate { .. } => &mut duplicates,
                            _ => &mut invalid,
                        };
                        *seen += 1;
                        dropped.fetch_add(1, Ordering::SeqCst);
                        if *seen <= NOTES_SHOWN {
                            let _ = events.send(Event::Note(note));
                        }
                    }
                    Err(failure) => {
                        let _ = events.send(Event::InputFailed(failure));
                        break;
                    }
                }
            }
            let unshown = Unshown {
                duplicates: duplicates.saturating_sub(NOTES_SHOWN),
                invalid: invalid.saturating_sub(NOTES_SHOWN),
            };
            let notes = input.end_notes();
            let _ = events.send(Event::InputEnd(
                index,
                input.empty_message(),
                unshown,
                notes,
            ));
        })
        .map(|_| ())
        .map_err(|e| Failure::new(Exit::Internal, format!("cannot start the reader: {e}")))
}

fn worker<D>(
    verifier: &Verifier,
    work: &WorkQueue,
    events: &mpsc::Sender<Event<D>>,
    halt: &AtomicBool,
    active: &AtomicUsize,
    wait: Duration,
    log: &Log,
) {
    while let Some(task) = work.pop(halt) {
        let _turn = Turn(work);
        let Task {
            index,
            job,
            waiting,
        } = task;
        let event = match (halt.load(Ordering::SeqCst), waiting) {
            (true, None) => Event::Skipped(index),
            // Stopping: a reference waited for ends as its last answer, not final.
            (true, Some(waiting)) => Event::Done(
                index,
                Box::new(Entry::Verified(Record {
                    job,
                    verdict: waiting.last,
                })),
            ),
            (false, waiting) => {
                let first = Instant::now();
                // A check while waiting has an answer in hand: its retries end at the
                // deadline, and a check they left without an answer keeps that answer.
                let deadline = waiting.as_ref().map(|w| w.polls.deadline());
                active.fetch_add(1, Ordering::SeqCst);
                let (checked, cut_short) = check_or_record_failure(verifier, &job, deadline);
                active.fetch_sub(1, Ordering::SeqCst);
                let (verdict, waiting) = match (cut_short, waiting) {
                    (true, Some(waiting)) => {
                        log.trace(|| {
                            format!(
                                "'{}': this check got no answer before the deadline ({}); \
                                 the last answer stands",
                                job.reference,
                                checked.outcome.message(&job.reference)
                            )
                        });
                        let Waiting { polls, last } = *waiting;
                        (last, Some(polls))
                    }
                    (_, waiting) => (checked, waiting.map(|w| w.polls)),
                };
                let not_final = matches!(verdict.outcome, Outcome::NotFinal(_));
                if !wait.is_zero() && not_final && !halt.load(Ordering::SeqCst) {
                    let mut polls = waiting.unwrap_or_else(|| Polls::new(first, wait));
                    let asked = polls.requests();
                    if let Some(pause) = polls.next_pause(Instant::now()) {
                        log.trace(|| {
                            format!(
                                "'{}': not final (request {asked}); next check in {}, {} left",
                                job.reference,
                                human(pause),
                                human(polls.deadline().saturating_duration_since(Instant::now()))
                            )
                        });
                        let waiting = Box::new(Waiting {
                            polls,
                            last: verdict,
                        });
                        let task = Task {
                            index,
                            job,
                            waiting: Some(waiting),
                        };
                        work.park(task, Instant::now() + pause);
                        continue;
                    }
                    log.trace(|| {
                        format!(
                            "'{}': still not final at the deadline, after {asked} requests",
                            job.reference
                        )
                    });
                }
                Event::Done(index, Box::new(Entry::Verified(Record { job, verdict })))
            }
        };
        if events.send(event).is_err() {
            return;
        }
    }
}

/// Verifies one job; a panic while doing so becomes that job's record (exit 10) instead of a
/// lost index, and the worker goes on with the next job. For a `--wait` check the request's
/// retries end at `deadline`, and true comes with the verdict when they were cut short there.
pub(crate) fn check_or_record_failure(
    verifier: &Verifier,
    job: &Job,
    deadline: Option<Instant>,
) -> (Verdict, bool) {
    // The verifier holds no state a panic could leave half-updated that a later
    // verification relies on (the gate's mutexes recover from poisoning).
    let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        inject_failure(&job.reference);
        verifier.verify_by(job, deadline)
    }));
    attempt.unwrap_or_else(|payload| {
        let verdict = Verdict {
            outcome: Outcome::Internal {
                reason: crate::log::panic_message(payload.as_ref()),
            },
            checks: None,
        };
        (verdict, false)
    })
}

/// Debug builds only: `PAYVERIFY_DEBUG_PANIC_ON=<reference>` makes verifying that reference
/// panic, so the tests can prove a failed worker still yields a record and exit 10. Release
/// builds compile this to nothing and ignore the variable.
#[cfg(debug_assertions)]
fn inject_failure(reference: &Reference) {
    if std::env::var_os("PAYVERIFY_DEBUG_PANIC_ON").is_some_and(|r| r == reference.as_str()) {
        panic!("injected failure (PAYVERIFY_DEBUG_PANIC_ON)");
    }
}

#[cfg(not(debug_assertions))]
fn inject_failure(_: &Reference) {}

fn progress_bar(known_len: Option<usize>, log: &Log) -> ProgressBar {
    let wanted = io::stderr().is_terminal() && log.level() == Level::Normal && known_len != Some(1);
    if !wanted {
        return ProgressBar::hidden();
    }
    let (bar, template) = match known_len {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr()),
            "{bar:30} {pos}/{len} ({percent}%) verified  {rate}  ETA {eta}  {msg}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {pos} verified  {rate}  {elapsed}  {msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        let rate = |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1}/s", state.per_sec());
        };
        bar.set_style(style.with_key("rate", rate));
    }
    bar.set_message("0 failed");
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

impl Summary {
    fn add(&mut self, tally: Tally, asked: bool) {
        *self.counts.entry(tally.name).or_default() += 1;
        self.asked += usize::from(asked);
        self.total += 1;
        if tally.warned {
            self.with_warnings += 1;
        }
        if tally.carried {
            self.carried += 1;
        }
    }

    fn line(&self, elapsed: Duration, stopped: Option<Stopped>) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.total as f64 / secs
        } else {
            0.0
        };
        let counts = self
            .names
            .iter()
            .filter_map(|name| self.counts.get(name).map(|n| format!("{n} {name}")))
            .collect::<Vec<_>>()
            .join(", ");
        let counts = if counts.is_empty() {
            "nothing verified".to_owned()
        } else {
            counts
        };
        let noun = if self.total == 1 {
            "reference"
        } else {
            "references"
        };
        let head = match stopped {
            Some(Stopped::Interrupted) => "interrupted after ",
            Some(Stopped::OutputClosed) => "output closed; stopped after ",
            None => "",
        };
        let warned = match self.with_warnings {
            0 => String::new(),
            n => format!("; {n} with warnings (see their checks)"),
        };
        // Entries neither carried nor asked were decided from the input (reconcile's
        // DUPLICATE and INVALID_ROW rows).
        let carried = match (
            self.carried,
            self.total.saturating_sub(self.carried + self.asked),
        ) {
            (0, _) => String::new(),
            (n, 0) => format!(" ({n} carried over, {} asked)", self.asked),
            (n, d) => format!(
                " ({n} carried over, {} asked, {d} decided from the input)",
                self.asked
            ),
        };
        format!(
            "{head}{} {noun}{carried} in {secs:.2}s ({rate:.1}/s): {counts}{warned}",
            self.total
        )
    }
}

/// References waiting for a worker.
///
/// Why not a bounded channel behind a mutex: there every hand-off woke the reader (one
/// slot free) and the next worker queued on the mutex, several futex calls a reference.
/// Here a worker takes a reference under a short lock, and the reader is woken only when
/// the queue is down to half, so it refills many slots per wake-up.
struct WorkQueue {
    state: Mutex<QueueState>,
    room: Condvar,
    work: Condvar,
    capacity: usize,
}

/// One reference for a worker: new, or asked before and not final yet (`--wait`).
struct Task {
    index: usize,
    job: Job,
    waiting: Option<Box<Waiting>>,
}

/// A reference that is not final yet: its polling schedule and its last answer (what it
/// comes to if the waiting ends now).
struct Waiting {
    polls: Polls,
    last: Verdict,
}

/// A parked reference and when it is due again; the heap's top is the earliest.
struct Parked {
    due: Instant,
    task: Task,
}

impl PartialEq for Parked {
    fn eq(&self, other: &Self) -> bool {
        self.due == other.due
    }
}

impl Eq for Parked {}

impl PartialOrd for Parked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Parked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: BinaryHeap is a max-heap, and the earliest due comes first.
        other.due.cmp(&self.due)
    }
}

struct QueueState {
    items: VecDeque<(usize, Job)>,
    /// References waiting to be asked again: no worker sleeps for them.
    parked: BinaryHeap<Parked>,
    /// Tasks a worker has taken and not yet finished (it may park one again).
    taken: usize,
    closed: bool,
    reader_waiting: bool,
    workers_waiting: usize,
}

impl WorkQueue {
    fn new(capacity: usize) -> Self {
        WorkQueue {
            state: Mutex::new(QueueState {
                items: VecDeque::with_capacity(capacity),
                parked: BinaryHeap::new(),
                taken: 0,
                closed: false,
                reader_waiting: false,
                workers_waiting: 0,
            }),
            room: Condvar::new(),
            work: Condvar::new(),
            capacity: capacity.max(2),
        }
    }

    /// Queues a reference, waiting for room; false when halted.
    fn push(&self, item: (usize, Job), halt: &AtomicBool) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        while state.items.len() >= self.capacity {
            if halt.load(Ordering::SeqCst) {
                state.reader_waiting = false;
                return false;
            }
            state.reader_waiting = true;
            match self.room.wait_timeout(state, Duration::from_millis(100)) {
                Ok((guard, _)) => state = guard,
                Err(_) => return false,
            }
        }
        state.reader_waiting = false;
        state.items.push_back(item);
        if state.workers_waiting > 0 {
            self.work.notify_one();
        }
        true
    }

    /// Parks a taken task until `due`; a worker takes it again then (at once when halted).
    fn park(&self, task: Task, due: Instant) {
        if let Ok(mut state) = self.state.lock() {
            state.parked.push(Parked { due, task });
        }
        self.work.notify_one();
    }

    /// A worker is done with the task it took (finished or parked).
    fn done(&self) {
        let last = match self.state.lock() {
            Ok(mut state) => {
                state.taken = state.taken.saturating_sub(1);
                state.taken == 0 && state.closed
            }
            Err(_) => true,
        };
        if last {
            self.work.notify_all();
        }
    }

    /// No more references will come: idle workers end once the queue is empty.
    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
        }
        self.work.notify_all();
    }

    /// The next task: a parked reference that is due (any parked one once `halt` is set, so
    /// Ctrl-C ends the waits at once), else the next new one. `None` once the queue is
    /// closed, nothing is parked and no worker holds a task it could park. Every task taken
    /// must be followed by [`WorkQueue::done`].
    fn pop(&self, halt: &AtomicBool) -> Option<Task> {
        let mut state = self.state.lock().ok()?;
        loop {
            let now = Instant::now();
            let due = state
                .parked
                .peek()
                .is_some_and(|p| p.due <= now || halt.load(Ordering::SeqCst));
            if due && let Some(parked) = state.parked.pop() {
                state.taken += 1;
                return Some(parked.task);
            }
            if let Some((index, job)) = state.items.pop_front() {
                if state.reader_waiting && state.items.len() <= self.capacity / 2 {
                    state.reader_waiting = false;
                    self.room.notify_one();
                }
                state.taken += 1;
                return Some(Task {
                    index,
                    job,
                    waiting: None,
                });
            }
            if state.closed && state.parked.is_empty() && state.taken == 0 {
                return None;
            }
            // Until the earliest parked reference is due; a halt is seen within 100 ms.
            let nap = state.parked.peek().map_or(Duration::from_millis(100), |p| {
                p.due
                    .saturating_duration_since(now)
                    .min(Duration::from_millis(100))
            });
            state.workers_waiting += 1;
            state = self.work.wait_timeout(state, nap).ok()?.0;
            state.workers_waiting -= 1;
        }
    }
}

/// Tells the queue a worker is done with its task however the worker's turn ends.
struct Turn<'a>(&'a WorkQueue);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// Closes the work queue when the reader ends, normally or by a panic.
struct Closing(Arc<WorkQueue>);

impl Drop for Closing {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Lets the reader run at most `size` jobs, and `size * DECIDED_SLACK` positions, ahead of
/// the writer.
struct Window {
    state: Mutex<WindowState>,
    moved: Condvar,
    size: usize,
    positions: usize,
}

/// How many more positions than jobs the window holds. A decided entry (a record carried
/// over by `--resume`, a refused row) is a line of text already made, not a request: with
/// a window of positions alone, a run that is 99 % carried over kept only two or three
/// requests in flight, however many workers.
const DECIDED_SLACK: usize = 16;

/// A position the reader wants to issue: its index, and for a job, how many jobs came
/// before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ticket {
    index: usize,
    job: Option<usize>,
}

struct WindowState {
    written: usize,
    /// Jobs among the positions written.
    written_jobs: usize,
    /// The ticket the reader is blocked on. The writer wakes it only once half the window
    /// is free: a wake-up is a system call (even with nobody waiting), and waking the reader
    /// for every reference written made two futex calls a reference.
    waiting_for: Option<Ticket>,
}

impl Window {
    fn new(size: usize) -> Self {
        Window {
            state: Mutex::new(WindowState {
                written: 0,
                written_jobs: 0,
                waiting_for: None,
            }),
            moved: Condvar::new(),
            size,
            positions: size.saturating_mul(DECIDED_SLACK),
        }
    }

    /// Whether `ticket` fits when `free` of each bound must be left over (0: just fits).
    fn fits(&self, state: &WindowState, ticket: Ticket, free: (usize, usize)) -> bool {
        ticket.index + free.0 < state.written + self.positions
            && ticket
                .job
                .is_none_or(|job| job + free.1 < state.written_jobs + self.size)
    }

    /// Waits until `ticket` may be issued; false when stopping.
    fn wait_for_room(&self, ticket: Ticket, stop: &AtomicBool) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        while !self.fits(&state, ticket, (0, 0)) {
            if stop.load(Ordering::SeqCst) {
                state.waiting_for = None;
                return false;
            }
            state.waiting_for = Some(ticket);
            match self.moved.wait_timeout(state, Duration::from_millis(100)) {
                Ok((guard, _)) => state = guard,
                Err(_) => return false,
            }
        }
        state.waiting_for = None;
        true
    }

    /// The writer has written `written` positions, `written_jobs` of them jobs.
    fn advance(&self, written: usize, written_jobs: usize) {
        let wake = match self.state.lock() {
            Ok(mut state) => {
                state.written = written;
                state.written_jobs = written_jobs;
                // All issued references end up written, so both counts reach the ticket
                // waited for, and the reader is always woken in the end.
                let half = (self.positions / 2, self.size / 2);
                state
                    .waiting_for
                    .is_some_and(|ticket| self.fits(&state, ticket, half))
            }
            Err(_) => true,
        };
        if wake {
            self.moved.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_job() -> Job {
        Job {
            row: None,
            reference: Reference::parse("R").unwrap(),
            expect: Arc::default(),
            origin: "argument 1".into(),
        }
    }

    #[test]
    fn summary_lists_outcomes_in_contract_order() {
        let mut s = Summary {
            names: &crate::domain::outcome::OUTCOME_NAMES,
            ..Summary::default()
        };
        s.counts.insert("NOT_FOUND", 2);
        s.counts.insert("SUCCESSFUL", 3);
        s.total = 5;
        let line = s.line(Duration::from_secs(2), None);
        assert_eq!(
            line,
            "5 references in 2.00s (2.5/s): 3 SUCCESSFUL, 2 NOT_FOUND"
        );
        assert!(
            s.line(Duration::from_secs(1), Some(Stopped::Interrupted))
                .starts_with("interrupted after 5")
        );
        s.with_warnings = 1;
        assert!(
            s.line(Duration::from_secs(1), None)
                .ends_with("; 1 with warnings (see their checks)")
        );
        (s.carried, s.asked) = (3, 2);
        assert!(
            s.line(Duration::from_secs(1), None)
                .starts_with("5 references (3 carried over, 2 asked) in")
        );
        s.asked = 1;
        assert!(
            s.line(Duration::from_secs(1), None)
                .starts_with("5 references (3 carried over, 1 asked, 1 decided from the input) in")
        );
    }

    #[test]
    fn work_queue_hands_every_reference_to_exactly_one_worker() {
        let queue = Arc::new(WorkQueue::new(4));
        let halt = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let queue = queue.clone();
                thread::spawn(move || {
                    let mut got = Vec::new();
                    while let Some(task) = queue.pop(&AtomicBool::new(false)) {
                        got.push(task.index);
                        queue.done();
                    }
                    got
                })
            })
            .collect();
        let job = test_job();
        for i in 0..5_000 {
            assert!(queue.push((i, job.clone()), &halt));
        }
        queue.close();
        let mut all: Vec<usize> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..5_000).collect::<Vec<_>>());
    }

    #[test]
    fn a_full_work_queue_gives_up_when_halted() {
        let queue = WorkQueue::new(2);
        let halt = AtomicBool::new(false);
        let job = test_job();
        assert!(queue.push((0, job.clone()), &halt));
        assert!(queue.push((1, job.clone()), &halt));
        halt.store(true, Ordering::SeqCst);
        assert!(!queue.push((2, job), &halt));
        queue.close();
        let not = AtomicBool::new(false);
        assert_eq!(queue.pop(&not).map(|t| t.index), Some(0));
        queue.done();
        assert_eq!(queue.pop(&not).map(|t| t.index), Some(1));
        queue.done();
        assert!(queue.pop(&not).is_none());
    }

    #[test]
    fn a_parked_reference_frees_its_worker_until_due_and_a_halt_releases_it() {
        let queue = WorkQueue::new(8);
        let halt = AtomicBool::new(false);
        assert!(queue.push((0, test_job()), &halt));
        assert!(queue.push((1, test_job()), &halt));
        queue.close();
        let first = queue.pop(&halt).unwrap();
        let parked_at = Instant::now();
        queue.park(first, parked_at + Duration::from_millis(300));
        queue.done();
        // The parked reference does not hold the next one back.
        let second = queue.pop(&halt).unwrap();
        assert_eq!(second.index, 1);
        assert!(parked_at.elapsed() < Duration::from_millis(300));
        queue.done();
        // Closed and empty, but something is parked: not the end, it comes back when due.
        let again = queue.pop(&halt).unwrap();
        assert_eq!(again.index, 0);
        assert!(parked_at.elapsed() >= Duration::from_millis(290));
        queue.park(again, Instant::now() + Duration::from_secs(600));
        queue.done();
        halt.store(true, Ordering::SeqCst);
        let started = Instant::now();
        assert_eq!(queue.pop(&halt).map(|t| t.index), Some(0));
        assert!(started.elapsed() < Duration::from_secs(5));
        queue.done();
        assert!(queue.pop(&halt).is_none());
    }

    #[test]
    fn window_blocks_the_reader_until_the_writer_advances() {
        let window = Arc::new(Window::new(2));
        let stop = AtomicBool::new(false);
        let job = |index, job| Ticket {
            index,
            job: Some(job),
        };
        assert!(window.wait_for_room(job(1, 1), &stop));
        let w = window.clone();
        let advancer = thread::spawn(move || {
            thread::sleep(Duration::from_millis(100));
            w.advance(1, 1);
        });
        let started = Instant::now();
        assert!(window.wait_for_room(job(2, 2), &stop));
        assert!(started.elapsed() >= Duration::from_millis(90));
        advancer.join().unwrap();
        stop.store(true, Ordering::SeqCst);
        assert!(!window.wait_for_room(job(10, 10), &stop));
    }

    #[test]
    fn decided_positions_do_not_use_up_the_jobs_window() {
        let window = Window::new(2);
        let stop = AtomicBool::new(false);
        let room = |ticket, state: (usize, usize)| {
            window.advance(state.0, state.1);
            window.fits(&window.state.lock().unwrap(), ticket, (0, 0))
        };
        // Nothing written: two jobs fit, a third does not, wherever they are...
        let job = |index, job| Ticket {
            index,
            job: Some(job),
        };
        assert!(room(job(30, 1), (0, 0)));
        assert!(!room(job(30, 2), (0, 0)));
        // ...and decided positions fit up to 16 times the window, jobs or not.
        assert!(room(
            Ticket {
                index: 31,
                job: None
            },
            (0, 0)
        ));
        assert!(!room(
            Ticket {
                index: 32,
                job: None
            },
            (0, 0)
        ));
        assert!(!room(job(32, 0), (0, 0)));
        assert!(room(job(32, 1), (1, 1)));
        stop.store(true, Ordering::SeqCst);
        assert!(!window.wait_for_room(
            Ticket {
                index: 40,
                job: None
            },
            &stop
        ));
    }
}
