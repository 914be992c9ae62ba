//! The ordered writer, on the calling thread: takes what the reader and the workers send,
//! writes each entry once it and every earlier one are decided, and notes why the run
//! stopped, for the ending to report.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::shared::{Batch, Event, InputEnd, Shared};
use super::summary::Progress;
use super::{Entry, Item, Sink, Stopped, Summary};
use crate::exit::Exit;
use crate::log::Log;

/// How long a signal lets the requests in flight finish: one SIGTERM ends payverify within
/// a second, whatever a request is waiting for (a connection, a body, a Retry-After).
const STOP_GRACE: Duration = Duration::from_millis(300);

/// The writer's state: what came back, what was written, and why the run stopped.
pub(super) struct Writer<'a, D> {
    pub(super) batch: &'a Batch,
    pub(super) shared: Shared,
    pub(super) log: &'a Log,
    /// What stderr shows while the run goes.
    pub(super) progress: Progress,
    pub(super) stopped: Option<Stopped>,
    /// The exit status so far: the entries', the input's errors.
    pub(super) exit: Exit,
    /// What the entries written so far come to.
    pub(super) summary: Summary,
    /// Positions come back out of order and wait here until every earlier one is written.
    pending: BTreeMap<usize, Option<Box<Entry<D>>>>,
    /// The next position to write: all come back are `next` once `pending` is empty.
    pub(super) next: usize,
    /// What the reader said when it stopped reading (`None`: it has not yet): how many
    /// positions it issued, whether that is every position of the input.
    pub(super) input: Option<InputEnd>,
    /// Records that reached stdout: fewer than the entries decided once the output is gone.
    pub(super) records_out: usize,
    /// The reader and every worker are gone.
    pub(super) disconnected: bool,
    /// When a signal came, until the references still out are no longer waited for.
    interrupted_at: Option<Instant>,
    /// Why the last check of the last reference decided got no answer, if it did not.
    pub(super) unanswered: Option<String>,
}

impl<'a, D> Writer<'a, D> {
    /// The writer of a run whose entries `progress` shows and `summary` counts.
    pub(super) fn new(
        batch: &'a Batch,
        shared: Shared,
        progress: Progress,
        summary: Summary,
        log: &'a Log,
    ) -> Self {
        Writer {
            batch,
            shared,
            log,
            progress,
            stopped: None,
            exit: Exit::Successful,
            summary,
            pending: BTreeMap::new(),
            next: 0,
            input: None,
            records_out: 0,
            disconnected: false,
            interrupted_at: None,
            unanswered: None,
        }
    }

    /// How many positions of the input were never decided, once the reader read every one
    /// (no stop or read error cut it short); `None`: their number is not known.
    pub(super) fn not_reached(&self) -> Option<usize> {
        let input = self.input.as_ref().filter(|input| input.read_to_end)?;
        Some(input.issued.saturating_sub(self.summary.total))
    }

    /// Whether nothing more can be written.
    fn output_gone(&self) -> bool {
        self.stopped.is_some_and(Stopped::output_gone)
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
            if self
                .input
                .as_ref()
                .is_some_and(|end| end.issued == self.next)
                || (self.batch.halt.load(Ordering::SeqCst)
                    && self.next == self.shared.issued.load(Ordering::SeqCst))
            {
                break;
            }
        }
        self.progress.finish();
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
            Event::Asked(record) => {
                if let Some(journal) = &self.batch.journal {
                    let tally = super::Tally::of(&record);
                    let why = tally.look.as_ref().map(|l| l.why.as_str());
                    journal.record(&record, tally.name, tally.exit, why);
                }
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
                self.progress.bar.suspend(|| self.log.warn(&line));
            }
            Event::InputFailed(failure) => {
                self.exit = self.exit.merge(failure.exit);
                self.progress
                    .bar
                    .suspend(|| self.log.error(&failure.message));
            }
            Event::InputEnd(end) => {
                self.progress.bar.set_length(end.issued as u64);
                self.input = Some(end);
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
        if self.progress.one() {
            return;
        }
        let line = format!(
            "stopping: no new requests; {} in flight get {} ms to finish; Ctrl-C again to quit \
             now",
            self.shared.active.load(Ordering::SeqCst),
            STOP_GRACE.as_millis()
        );
        self.progress.bar.suspend(|| self.log.info(&line));
        self.progress.bar.set_message(line);
    }

    /// The bar's message and length, or the countdown of a reference that waits.
    fn show(&mut self) {
        if self.progress.countdown(&self.shared.queue) {
            return;
        }
        if self.stopped.is_none() {
            self.progress.message(self.rate());
        }
        if self.input.is_none()
            && let Some(known) = self.batch.known_len
        {
            let left = known.saturating_sub(self.shared.dropped.load(Ordering::SeqCst));
            self.progress.bar.set_length(left as u64);
        }
    }

    /// The pace the service allows, once it has throttled.
    fn rate(&self) -> Option<f64> {
        self.shared.verifier.client.pacing().rate
    }

    /// Writes every entry whose turn has come.
    fn write_ready(&mut self, writer: &mut dyn Sink<D>) {
        while let Some(entry) = self.pending.remove(&self.next) {
            if let Some(entry) = entry {
                self.write_entry(&entry, writer);
            }
            self.next += 1;
            // A skipped position (None) was a job too.
            let jobs = self.next - self.summary.not_asked();
            self.shared.window.advance(self.next, jobs);
        }
    }

    /// Counts an entry, merged into the exit status whether it can be written or not
    /// (output that cannot be written never lowers the exit status), and writes it unless
    /// the output is gone.
    fn write_entry(&mut self, entry: &Entry<D>, writer: &mut dyn Sink<D>) {
        self.progress.clear_countdown();
        let write = !self.output_gone();
        let (tally, result) = match write {
            true => self.progress.writing(|| writer.take(entry, true)),
            false => writer.take(entry, false),
        };
        let asked = matches!(entry, Entry::Verified(_));
        // The record event: every answer asked this run is kept, as the run counted it.
        if let (Some(journal), Entry::Verified(record)) = (&self.batch.journal, entry) {
            let why = tally.look.as_ref().map(|l| l.why.as_str());
            journal.record(record, tally.name, tally.exit, why);
        }
        let merged = self.summary.add(&tally, asked, self.batch.fail_on.as_ref());
        self.exit = self.exit.merge(merged);
        if write {
            match self.failed(result) {
                Some(line) => self.progress.bar.suspend(|| self.log.error(&line)),
                None if !self.output_gone() => self.records_out += 1,
                None => {}
            }
        }
        if tally.exit != Exit::Successful {
            let rate = self.rate();
            self.progress.count(&tally, rate, self.stopped.is_some());
        }
        self.progress.bar.inc(1);
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
