//! The ordered writer, on the calling thread: takes what the reader and the workers send,
//! writes each entry once it and every earlier one are decided, and notes why the run
//! stopped, for the ending to report.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::one::Countdown;
use super::shared::{Batch, Event, Shared, Unshown};
use super::{BarCounts, Entry, Item, Sink, Stopped, Summary, progress_bar};
use crate::domain::class::Class;
use crate::exit::Exit;
use crate::log::Log;
use crate::transport::gate::per_second;

/// How long a signal lets the requests in flight finish: one SIGTERM ends payverify within
/// a second, whatever a request is waiting for (a connection, a body, a Retry-After).
const STOP_GRACE: Duration = Duration::from_millis(300);

/// The writer's state: what came back, what was written, and why the run stopped.
pub(super) struct Writer<'a, D> {
    pub(super) batch: &'a Batch,
    pub(super) shared: Shared,
    pub(super) log: &'a Log,
    pub(super) bar: ProgressBar,
    /// A run of one reference: its countdown while it waits, instead of the bar, and no
    /// line of the batch's own.
    pub(super) countdown: Option<Countdown>,
    /// Records to a terminal that also shows the bar: the bar is cleared before each write
    /// and drawn again after it, so no bar line is left among the rows.
    shared_terminal: bool,
    pub(super) stopped: Option<Stopped>,
    /// What comes before the first record (a CSV header, a JSON `[`) is written with it, so
    /// a run that has nothing to verify (a usage error) leaves stdout empty.
    pub(super) begun: bool,
    /// What the bar counts: each entry that is not exit 0, by its class (or name).
    counts: BarCounts,
    /// Every entry's exit, counted or not: the exit status of a run of one entry.
    pub(super) worst: Exit,
    /// Whether the service answered for any reference (a transaction it knows, of any
    /// status): --fail-on's quiet exit needs an answer to be quiet about.
    pub(super) answered: bool,
    /// The reader read every position of the input (no stop or read error cut it short):
    /// `total` is then exact.
    pub(super) input_complete: bool,
    pub(super) exit: Exit,
    pub(super) summary: Summary,
    pending: BTreeMap<usize, Option<Box<Entry<D>>>>,
    /// Positions come back out of order and wait in `pending` until every earlier one is
    /// written: all come back are `next` once `pending` is empty, so no second count.
    pub(super) next: usize,
    pub(super) total: Option<usize>,
    written_jobs: usize,
    /// Records that reached stdout: fewer than the entries decided once the output is gone.
    pub(super) records_out: usize,
    pub(super) empty_message: String,
    pub(super) end_notes: Vec<String>,
    pub(super) unshown: Unshown,
    pub(super) disconnected: bool,
    /// When a signal came, until the references still out are no longer waited for.
    interrupted_at: Option<Instant>,
    /// The bar's message as last set: set again only when it changes.
    shown: String,
    /// Why the last check of the last reference decided got no answer, if it did not.
    pub(super) unanswered: Option<String>,
}

impl<'a, D> Writer<'a, D> {
    pub(super) fn new(
        batch: &'a Batch,
        shared: Shared,
        names: &'static [&'static str],
        noun: (&'static str, &'static str),
        countdown: Option<Countdown>,
        log: &'a Log,
    ) -> Self {
        Writer {
            batch,
            shared,
            log,
            bar: progress_bar(batch.known_len, log),
            countdown,
            shared_terminal: io::stdout().is_terminal() && io::stderr().is_terminal(),
            stopped: None,
            begun: false,
            counts: BarCounts::new(names),
            worst: Exit::Successful,
            answered: false,
            input_complete: false,
            exit: Exit::Successful,
            summary: Summary {
                names,
                noun,
                ..Summary::default()
            },
            pending: BTreeMap::new(),
            next: 0,
            total: None,
            written_jobs: 0,
            records_out: 0,
            empty_message: String::new(),
            end_notes: Vec::new(),
            unshown: Unshown::default(),
            disconnected: false,
            interrupted_at: None,
            shown: String::new(),
            unanswered: None,
        }
    }

    /// Takes events and writes entries in input order until every position is written, or
    /// the run stopped and every position issued is accounted for.
    pub(super) fn collect(&mut self, events: &Receiver<Event<D>>, writer: &mut dyn Sink<D>) {
        loop {
            match events.recv_timeout(Duration::from_millis(50)) {
                Ok(event) => self.take(event),
                Err(RecvTimeoutError::Timeout) => self.give_up_on_the_rest(),
                Err(RecvTimeoutError::Disconnected) => {
                    self.disconnected = true;
                    break;
                }
            }
            self.watch_for_a_signal();
            self.show();
            self.write_ready(writer);
            if !self.pending.is_empty() {
                continue;
            }
            if self.total == Some(self.next)
                || (self.batch.halt.load(Ordering::SeqCst)
                    && self.next == self.shared.issued.load(Ordering::SeqCst))
            {
                break;
            }
        }
        self.bar.finish_and_clear();
        if let Some(countdown) = &mut self.countdown {
            countdown.clear();
        }
    }

    fn take(&mut self, event: Event<D>) {
        match event {
            Event::Done(i, entry, unanswered) => {
                self.pending.insert(i, Some(entry));
                self.unanswered = unanswered;
            }
            Event::Skipped(i) => {
                self.pending.insert(i, None);
            }
            Event::Note(item) => {
                let line = match item {
                    Item::Duplicate { reference, origin } => {
                        format!("reference '{reference}' given again ({origin}); verified once")
                    }
                    Item::Invalid { origin, why } => {
                        self.exit = self.exit.merge(Exit::Usage);
                        format!("{origin} skipped: {why}")
                    }
                    Item::Job(_) | Item::Decided(_) => String::new(),
                };
                self.bar.suspend(|| self.log.warn(&line));
            }
            Event::InputFailed(failure) => {
                self.exit = self.exit.merge(failure.exit);
                self.bar.suspend(|| self.log.error(&failure.message));
            }
            Event::InputEnd(end) => {
                (self.total, self.empty_message) = (Some(end.issued), end.empty_message);
                self.end_notes = end.notes;
                self.input_complete = end.read_to_end;
                self.bar.set_length(end.issued as u64);
                self.unshown = end.unshown;
            }
        }
    }

    /// Nothing came back for a while after a signal: the references still out are not
    /// waited for (a request can hang for --timeout). A waiting one keeps its last answer;
    /// the others are not verified.
    fn give_up_on_the_rest(&mut self) {
        if let Some(at) = self.interrupted_at
            && at.elapsed() >= STOP_GRACE
        {
            self.interrupted_at = None;
            for index in self.next..self.shared.issued.load(Ordering::SeqCst) {
                self.pending.entry(index).or_insert_with(|| {
                    let last = self.shared.queue.take_last_answer(index);
                    last.map(|record| Box::new(Entry::Verified(record)))
                });
            }
        }
    }

    /// A first signal: no new requests, and those in flight get [`STOP_GRACE`].
    fn watch_for_a_signal(&mut self) {
        if self.stopped.is_some() || !self.batch.stop.load(Ordering::SeqCst) {
            return;
        }
        self.stopped = Some(Stopped::Interrupted);
        self.interrupted_at = Some(Instant::now());
        self.batch.halt.store(true, Ordering::SeqCst);
        if self.countdown.is_some() {
            return;
        }
        let line = format!(
            "stopping: no new requests; {} in flight get {} ms to finish; Ctrl-C again to quit \
             now",
            self.shared.active.load(Ordering::SeqCst),
            STOP_GRACE.as_millis()
        );
        self.bar.suspend(|| self.log.info(&line));
        self.bar.set_message(line);
    }

    /// The bar's message and length, or the countdown of a reference that waits.
    fn show(&mut self) {
        if let Some(countdown) = &mut self.countdown {
            countdown.show(&self.shared.queue);
            return;
        }
        if self.stopped.is_none() {
            self.bar_message();
        }
        if self.total.is_none()
            && let Some(known) = self.batch.known_len
        {
            let left = known.saturating_sub(self.shared.dropped.load(Ordering::SeqCst));
            self.bar.set_length(left as u64);
        }
    }

    /// The bar's message: the entries so far that are not exit 0, counted by class and,
    /// once the service has throttled, the pace, so a slow run says why. Set only when it
    /// changes.
    fn bar_message(&mut self) {
        let counted = self.counts.text();
        let message = match self.shared.verifier.client.pacing().rate {
            Some(rate) if counted.is_empty() => format!("throttled: {}", per_second(rate)),
            Some(rate) => format!("{counted}  throttled: {}", per_second(rate)),
            None => counted,
        };
        if message != self.shown {
            self.bar.set_message(message.clone());
            self.shown = message;
        }
    }

    /// Writes every entry whose turn has come.
    fn write_ready(&mut self, writer: &mut dyn Sink<D>) {
        while let Some(entry) = self.pending.remove(&self.next) {
            // A skipped position (None) was a job too.
            if !matches!(entry.as_deref(), Some(Entry::Decided(_))) {
                self.written_jobs += 1;
            }
            if let Some(entry) = entry {
                self.write_entry(&entry, writer);
            }
            self.next += 1;
            self.shared.window.advance(self.next, self.written_jobs);
        }
    }

    fn write_entry(&mut self, entry: &Entry<D>, writer: &mut dyn Sink<D>) {
        // Merged before it is written: output that cannot be written never lowers the exit
        // status.
        let tally = writer.tally(entry);
        self.worst = self.worst.merge(tally.exit);
        self.answered |= matches!(
            tally.class,
            Some(Class::Paid | Class::Declined | Class::Mismatch | Class::Pending)
        );
        match (&self.batch.fail_on, tally.class) {
            (Some(fail_on), Some(class)) if !fail_on.counts(class) => {
                self.summary.leave_out(tally);
            }
            _ => self.exit = self.exit.merge(tally.exit),
        }
        self.summary.add(tally, matches!(entry, Entry::Verified(_)));
        if let Some(countdown) = &mut self.countdown {
            countdown.clear();
        }
        if !std::mem::replace(&mut self.begun, true) {
            self.put(&mut || writer.begin());
        }
        if self.put(&mut || writer.write(entry)) {
            self.records_out += 1;
        }
        if tally.exit != Exit::Successful {
            self.counts.add(tally);
            if self.stopped.is_none() {
                self.bar_message();
            }
        }
        self.bar.inc(1);
    }

    /// Writes to stdout unless the output is gone; whether it was written.
    fn put(&mut self, write: &mut dyn FnMut() -> io::Result<()>) -> bool {
        if self.stopped.is_some_and(Stopped::output_gone) {
            return false;
        }
        let result = match self.shared_terminal {
            true => self.bar.suspend(write),
            false => write(),
        };
        match self.failed(result) {
            Some(line) => self.bar.suspend(|| self.log.error(&line)),
            None => return !self.stopped.is_some_and(Stopped::output_gone),
        }
        false
    }

    /// Takes the result of writing batch output: a reader that went away (`| head -1`) or
    /// output that cannot be written (a full disk, a closed descriptor) stops the batch: no
    /// new references start and nothing more is written. Returns the error line to show
    /// for a failed write (a reader going away is the reader's choice, not an error).
    pub(super) fn failed(&mut self, result: io::Result<()>) -> Option<String> {
        let Err(e) = result else {
            return None;
        };
        self.batch.halt.store(true, Ordering::SeqCst);
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
        if self.stopped.is_none() {
            self.stopped = Some(cause);
        }
        line
    }
}
