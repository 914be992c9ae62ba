//! The run: a reader thread, N workers sharing one verifier, and the ordered writer on the
//! calling thread.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::{
    BarCounts, Closing, Entry, Item, Sink, Source, Stopped, Summary, Task, Ticket, Turn, Waiting,
    Window, WorkQueue, progress_bar,
};
use crate::domain::class::{Class, FailOn};
use crate::domain::job::Job;
use crate::domain::outcome::{Outcome, Record, Verdict};
use crate::domain::verifier::Verifier;
use crate::domain::wait::{Check, Polls, human, settle};
use crate::exit::{Exit, Failure};
use crate::log::Log;
use crate::reference::Reference;
use crate::transport::client::Ended;
use crate::transport::gate::per_second;

/// How far the reader may run ahead of the writer, per worker: bounds memory however long
/// the input and however slow one reference is.
const WINDOW_PER_JOB: usize = 16;

/// How long a signal lets the requests in flight finish: one SIGTERM ends payverify within
/// a second, whatever a request is waiting for (a connection, a body, a Retry-After).
const STOP_GRACE: Duration = Duration::from_millis(300);

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
}

pub(super) enum Event<D> {
    Done(usize, Box<Entry<D>>),
    Skipped(usize),
    Note(Item<D>),
    InputFailed(Failure),
    /// How many positions the reader issued, whether that is every position of the input
    /// (it was read to its end: no stop and no read error cut it short), the line to show
    /// if the input held none, and the input's closing warnings.
    InputEnd(InputEnd),
}

/// What the reader says when it stops reading.
pub(super) struct InputEnd {
    issued: usize,
    read_to_end: bool,
    empty_message: String,
    unshown: Unshown,
    notes: Vec<String>,
}

/// Notes counted but not shown, per kind.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Unshown {
    duplicates: usize,
    invalid: usize,
}

impl Batch {
    /// Verifies every reference of `input`, writing records to `writer`; returns the merge
    /// (largest exit code) of every reference's record, 2 when there was no reference at
    /// all, or 130 when interrupted. Every reference issued to a worker ends as a record,
    /// even when the worker fails. A run that ends before every position of the input was
    /// decided (the reader of stdout went away, the output failed, the input could not be
    /// read to its end) is exit 10 whatever the decided ones say: the positions it never
    /// reached could be anything.
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
        // What comes before the first record (a CSV header, a JSON `[`) is written with
        // it, so a run that has nothing to verify (a usage error) leaves stdout empty.
        let mut begun = false;
        // What the bar counts: each entry that is not exit 0, by its class (or name).
        let mut counts = BarCounts::new(writer.names());
        // Every entry's exit, counted or not: the exit status of a run of one entry.
        let mut worst = Exit::Successful;
        // Whether the service answered for any reference (a transaction it knows, of any
        // status): --fail-on's quiet exit needs an answer to be quiet about.
        let mut answered = false;
        // The reader read every position of the input (no stop or read error cut it short):
        // `total` is then exact.
        let mut input_complete = false;
        let mut exit = Exit::Successful;
        let mut summary = Summary {
            names: writer.names(),
            noun: writer.noun(),
            ..Summary::default()
        };
        let mut pending: BTreeMap<usize, Option<Box<Entry<D>>>> = BTreeMap::new();
        // Positions come back out of order and wait in `pending` until every earlier one is
        // written: all come back are `next` once `pending` is empty, so no second count.
        let (mut next, mut total) = (0usize, None);
        let mut written_jobs = 0usize;
        // Records that reached stdout: fewer than the entries decided once the output is gone.
        let mut records_out = 0usize;
        let mut empty_message = String::new();
        let mut end_notes = Vec::new();
        let mut unshown = Unshown::default();
        let mut disconnected = false;
        // When a signal came, until the references still out are no longer waited for.
        let mut interrupted_at: Option<Instant> = None;
        // The bar's message as last set: set again only when it changes.
        let mut shown = String::new();
        loop {
            match events.recv_timeout(Duration::from_millis(50)) {
                Ok(Event::Done(i, entry)) => {
                    pending.insert(i, Some(entry));
                }
                Ok(Event::Skipped(i)) => {
                    pending.insert(i, None);
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
                Ok(Event::InputEnd(end)) => {
                    (total, empty_message) = (Some(end.issued), end.empty_message);
                    end_notes = end.notes;
                    input_complete = end.read_to_end;
                    bar.set_length(end.issued as u64);
                    unshown = end.unshown;
                }
                Err(RecvTimeoutError::Timeout) => {
                    // Nothing came back for a while after a signal: the references still
                    // out are not waited for (a request can hang for --timeout). A waiting
                    // one keeps its last answer; the others are not verified.
                    if let Some(at) = interrupted_at
                        && at.elapsed() >= STOP_GRACE
                    {
                        interrupted_at = None;
                        for index in next..issued.load(Ordering::SeqCst) {
                            pending.entry(index).or_insert_with(|| {
                                let last = queue.take_last_answer(index);
                                last.map(|record| Box::new(Entry::Verified(record)))
                            });
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    disconnected = true;
                    break;
                }
            }
            if stopped.is_none() && self.stop.load(Ordering::SeqCst) {
                stopped = Some(Stopped::Interrupted);
                interrupted_at = Some(Instant::now());
                self.halt.store(true, Ordering::SeqCst);
                let line = format!(
                    "stopping: no new requests; {} in flight get {} ms to finish; Ctrl-C again \
                     to quit now",
                    active.load(Ordering::SeqCst),
                    STOP_GRACE.as_millis()
                );
                bar.suspend(|| log.info(&line));
                bar.set_message(line);
            }
            if stopped.is_none() {
                bar_message(&bar, &mut shown, &counts, &verifier);
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
                    worst = worst.merge(tally.exit);
                    answered |= matches!(
                        tally.class,
                        Some(Class::Paid | Class::Declined | Class::Mismatch | Class::Pending)
                    );
                    match (&self.fail_on, tally.class) {
                        (Some(fail_on), Some(class)) if !fail_on.counts(class) => {
                            summary.leave_out(tally);
                        }
                        _ => exit = exit.merge(tally.exit),
                    }
                    summary.add(tally, matches!(*entry, Entry::Verified(_)));
                    if !stopped.is_some_and(Stopped::output_gone) {
                        if !std::mem::replace(&mut begun, true)
                            && let Some(line) =
                                self.write(to_stdout(&mut || writer.begin()), &mut stopped)
                        {
                            bar.suspend(|| log.error(&line));
                        }
                        if !stopped.is_some_and(Stopped::output_gone) {
                            match self.write(to_stdout(&mut || writer.write(&entry)), &mut stopped)
                            {
                                Some(line) => bar.suspend(|| log.error(&line)),
                                None if !stopped.is_some_and(Stopped::output_gone) => {
                                    records_out += 1;
                                }
                                None => {}
                            }
                        }
                    }
                    if tally.exit != Exit::Successful {
                        counts.add(tally);
                        if stopped.is_none() {
                            bar_message(&bar, &mut shown, &counts, &verifier);
                        }
                    }
                    bar.inc(1);
                }
                next += 1;
                window.advance(next, written_jobs);
            }
            if !pending.is_empty() {
                continue;
            }
            if total == Some(next) {
                break;
            }
            if self.halt.load(Ordering::SeqCst) && next == issued.load(Ordering::SeqCst) {
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
        // Verifying nothing proves nothing: an empty input must never read as success (a
        // usage error, with nothing on stdout).
        let nothing = summary.total == 0
            && lost == 0
            && stopped.is_none()
            && !self.stop.load(Ordering::SeqCst);
        if !stopped.is_some_and(Stopped::output_gone) && !nothing {
            if !begun && let Some(line) = self.write(writer.begin(), &mut stopped) {
                log.error(&line);
            }
            if !stopped.is_some_and(Stopped::output_gone)
                && let Some(line) = self.write(writer.finish(), &mut stopped)
            {
                log.error(&line);
            }
        }
        if self.stop.load(Ordering::SeqCst) {
            stopped = Some(Stopped::Interrupted);
        }
        summary.pacing = Some(verifier.client.pacing());
        // Complete: the input was read to its end and every position of it was decided
        // (tallied). A position a worker skipped after a stop comes back without a result,
        // so a count of positions come back would call a cut-short run complete.
        let complete = input_complete && total == Some(summary.total);
        // Output that could not be written, or whose reader left (`| head -1`), is exit 10
        // even when every entry was decided (a reader that left while the writer lagged
        // behind the workers): what was asked for did not reach its reader, and an exit
        // status that merges records nobody got must not pass for the whole run's.
        if stopped.is_some_and(Stopped::output_gone) {
            exit = exit.merge(Exit::Internal);
            if complete && stopped == Some(Stopped::OutputClosed) {
                log.error(&unwritten_line(writer, records_out, summary.total));
            }
        }
        if !complete {
            let not_reached = match (input_complete, total) {
                (true, Some(n)) => Some(n.saturating_sub(summary.total)),
                _ => None,
            };
            writer.incomplete(not_reached);
            exit = exit.merge(Exit::Internal);
            // A signal says so in its own summary line (exit 130); a lost reference was
            // reported above.
            if stopped != Some(Stopped::Interrupted) && lost == 0 {
                log.error(&incomplete_line(
                    writer,
                    stopped,
                    summary.total,
                    not_reached,
                ));
            }
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
                "{}; not verified: {not_started}",
                summary.line(started.elapsed(), stopped)
            ));
            if let Some(command) = &self.resume_hint {
                log.info(&format!("to finish this run, resume it: {command}"));
            }
            return Ok(Exit::Interrupted);
        }
        if nothing && complete {
            log.error(&empty_message);
            return Ok(exit.merge(Exit::Usage));
        }
        // One entry is one payment: its exit status is its own, whatever --fail-on names.
        if summary.total <= 1 && summary.left_out_any() {
            exit = exit.merge(worst);
            summary.count_all();
            log.warn("--fail-on leaves nothing out of a run of one reference: its exit status is its own");
        } else if !answered && summary.left_out_any() {
            // The service down, or the wrong one (every reference NOT_FOUND): a scheduled run
            // that verified nothing must not read as "nothing to act on".
            exit = exit.merge(worst);
            summary.count_all();
            log.warn(
                "--fail-on leaves nothing out of a run in which the service answered for no \
                 reference (every record NOT_FOUND, UNAVAILABLE or BAD_RESPONSE): its exit \
                 status is its worst record's",
            );
        }
        let left_out = match &self.fail_on {
            Some(fail_on) => summary.left_out_note(exit, fail_on),
            None => String::new(),
        };
        log.info(&format!(
            "{}{left_out}",
            summary.line(started.elapsed(), stopped)
        ));
        Ok(exit)
    }

    /// Takes the result of writing batch output: a reader that went away (`| head -1`) or
    /// output that cannot be written (a full disk, a closed descriptor) stops the batch: no
    /// new references start and nothing more is written. Returns the error line to show
    /// for a failed write (a reader going away is the reader's choice, not an error).
    fn write(&self, result: io::Result<()>, stopped: &mut Option<Stopped>) -> Option<String> {
        let Err(e) = result else {
            return None;
        };
        self.halt.store(true, Ordering::SeqCst);
        let (cause, line) = match e.kind() {
            io::ErrorKind::BrokenPipe => (Stopped::OutputClosed, None),
            _ => (
                Stopped::OutputFailed,
                Some(format!(
                    "cannot write the output: {}",
                    crate::io_util::io_reason(&e)
                )),
            ),
        };
        if stopped.is_none() {
            *stopped = Some(cause);
        }
        line
    }
}

/// The stderr line for a run that ended before every position of its input was decided:
/// why, how many were, and that the exit status is 10.
fn incomplete_line<D>(
    writer: &dyn Sink<D>,
    stopped: Option<Stopped>,
    decided: usize,
    not_reached: Option<usize>,
) -> String {
    let (one, many) = writer.noun();
    let done = writer.verb();
    let were = |n: usize| if n == 1 { "was" } else { "were" };
    let rest = match not_reached {
        Some(left) => format!("the other {left} {}", if left == 1 { one } else { many }),
        None => format!("the rest of the {many}"),
    };
    let what = match stopped {
        Some(Stopped::OutputClosed) => "output closed",
        Some(Stopped::OutputFailed) => "output failed",
        _ => {
            let noun = if decided == 1 { one } else { many };
            return format!(
                "the input could not be read to its end ({decided} {noun} {} {done} before \
                 that point), so this run proves nothing about {rest} (exit 10)",
                were(decided)
            );
        }
    };
    let counted = match not_reached {
        Some(left) => format!("{decided} of {} {}", decided + left, were(decided)),
        None => format!(
            "{decided} {}; the rest of the input was not read",
            were(decided)
        ),
    };
    format!(
        "{what} before every {one} was {done} ({counted}), so this run proves nothing about \
         {rest} (exit 10)"
    )
}

/// The stderr line for a run that decided every position but whose reader left before
/// every record was written: how many reached it, and that the exit status is 10.
fn unwritten_line<D>(writer: &dyn Sink<D>, written: usize, decided: usize) -> String {
    let (one, _) = writer.noun();
    let were = if written == 1 { "was" } else { "were" };
    format!(
        "output closed before every {one} was written out ({written} of {decided} {were}; all \
         {decided} were {}), so its reader did not get every record (exit 10)",
        writer.verb()
    )
}

/// The bar's message: the entries so far that are not exit 0, counted by class and, once
/// the service has throttled, the pace, so a slow run says why. Set only when it changes.
fn bar_message(bar: &ProgressBar, shown: &mut String, counts: &BarCounts, verifier: &Verifier) {
    let counted = counts.text();
    let message = match verifier.client.pacing().rate {
        Some(rate) if counted.is_empty() => format!("throttled: {}", per_second(rate)),
        Some(rate) => format!("{counted}  throttled: {}", per_second(rate)),
        None => counted,
    };
    if message != *shown {
        bar.set_message(message.clone());
        *shown = message;
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
            // Set only when the input itself ends; every other way out of the loop (a stop,
            // a read error) leaves positions unread.
            let mut read_to_end = false;
            loop {
                let Some(item) = input.next() else {
                    read_to_end = true;
                    break;
                };
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
            let _ = events.send(Event::InputEnd(InputEnd {
                issued: index,
                read_to_end,
                empty_message: input.empty_message(),
                unshown,
                notes: input.end_notes(),
            }));
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
        let (mut polls, last) = match waiting {
            Some(waiting) => {
                let Waiting { polls, last } = *waiting;
                (Some(polls), Some(last))
            }
            None => (None, None),
        };
        // The service's Retry-After holds this reference past its deadline: not asked again.
        let held = polls.as_ref().is_some_and(|p| !p.may_ask(Instant::now()));
        let event = match (halt.load(Ordering::SeqCst) || held, last) {
            (true, None) => Event::Skipped(index),
            // Stopping, or held: a reference waited for ends as its last answer, not final.
            (true, Some(last)) => {
                if held {
                    log.trace(|| {
                        format!(
                            "'{}': throttled past its deadline (Retry-After); the last answer \
                             stands",
                            job.reference
                        )
                    });
                }
                verified(index, job, last)
            }
            (false, last) => {
                let first = Instant::now();
                // A check while waiting has an answer in hand: its retries end at the
                // deadline, and a check that gets no answer keeps that answer.
                let deadline = polls.as_ref().map(Polls::deadline);
                active.fetch_add(1, Ordering::SeqCst);
                let (checked, ended) = check_or_record_failure(verifier, &job, deadline);
                active.fetch_sub(1, Ordering::SeqCst);
                let verdict = match settle(checked, &ended, last, &job.reference) {
                    Check::Answer(verdict) => verdict,
                    Check::Kept {
                        last,
                        why,
                        not_before,
                    } => {
                        log.trace(|| {
                            format!(
                                "'{}': this check got no answer ({why}); the last answer stands",
                                job.reference
                            )
                        });
                        if let (Some(polls), Some(at)) = (polls.as_mut(), not_before) {
                            polls.hold_until(at);
                        }
                        last
                    }
                    Check::Stopped(Some(last)) => {
                        let _ = events.send(verified(index, job, last));
                        work.forget(index);
                        continue;
                    }
                    Check::Stopped(None) => {
                        let _ = events.send(Event::Skipped(index));
                        continue;
                    }
                };
                let not_final = matches!(verdict.outcome, Outcome::NotFinal(_));
                if !wait.is_zero() && not_final && !halt.load(Ordering::SeqCst) {
                    let mut polls = polls.unwrap_or_else(|| Polls::new(first, wait));
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
                        // Kept where the writer finds it if the run stops while this
                        // reference is parked or being checked again.
                        work.remember(index, &job, &verdict);
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
                verified(index, job, verdict)
            }
        };
        let sent = events.send(event);
        work.forget(index);
        if sent.is_err() {
            return;
        }
    }
}

/// The event for a reference verified (or, when stopping, left with its last answer).
fn verified<D>(index: usize, job: Job, verdict: Verdict) -> Event<D> {
    Event::Done(index, Box::new(Entry::Verified(Record { job, verdict })))
}

/// Verifies one job; a panic while doing so becomes that job's record (exit 10) instead of a
/// lost index, and the worker goes on with the next job. For a `--wait` check the request's
/// retries end at `deadline`; with the verdict comes why the asking ended.
pub(crate) fn check_or_record_failure(
    verifier: &Verifier,
    job: &Job,
    deadline: Option<Instant>,
) -> (Verdict, Ended) {
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
        (verdict, Ended::Finished)
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
