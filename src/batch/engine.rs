//! The run: a reader thread, N workers sharing one verifier, and the ordered writer on the
//! calling thread, started and driven.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Instant;

use super::one::Countdown;
use super::reader::Reader;
use super::shared::{Batch, Event, Shared};
use super::summary::Progress;
use super::worker::Worker;
use super::writer::Writer;
use super::{Sink, Source, Summary, Window, WorkQueue};
use crate::batch::verifier::Verifier;
use crate::exit::{Exit, Failure};
use crate::log::Log;

/// How far the reader may run ahead of the writer, per worker: bounds memory however long
/// the input and however slow one reference is.
const WINDOW_PER_JOB: usize = 16;

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
        let mut run = self.drive(verifier, input, writer, None, log)?;
        let exit = run.end(writer, started)?;
        Ok(self.close_journal(exit, log))
    }

    /// The run's exit status once the journal has kept everything: exit 6 merged in, with
    /// its line, when a check or a claim could not be kept.
    pub(super) fn close_journal(&self, exit: Exit, log: &Log) -> Exit {
        match self.journal.as_ref().map(|j| j.close()) {
            Some(Err(failure)) => {
                failure.message.lines().for_each(|line| log.error(line));
                exit.merge(failure.exit)
            }
            _ => exit,
        }
    }

    /// Starts the reader and the workers, then writes what they send until the run ends:
    /// the writer's state, for the ending to report. `countdown`: a run of one reference.
    pub(super) fn drive<'a, D: Send + 'static>(
        &'a self,
        verifier: Arc<Verifier>,
        input: impl Source<D> + 'static,
        writer: &mut dyn Sink<D>,
        countdown: Option<Countdown>,
        log: &'a Log,
    ) -> Result<Writer<'a, D>, Failure> {
        let shared = Shared {
            verifier,
            window: Arc::new(Window::new(self.jobs * WINDOW_PER_JOB)),
            // As deep as the window: the reader refills half of it per wake-up.
            queue: Arc::new(WorkQueue::new(self.jobs * WINDOW_PER_JOB)),
            issued: Arc::default(),
            dropped: Arc::default(),
            active: Arc::default(),
        };
        // A signal before the run started (while a --state or --resume file was read):
        // not one request, the workers are halted before they could start one.
        if self.stop.load(Ordering::SeqCst) {
            self.halt.store(true, Ordering::SeqCst);
        }
        let events = self.spawn(&shared, input, log)?;
        let progress = Progress::new(self.known_len, writer.names(), countdown, log);
        let summary = Summary::new(writer.names(), writer.noun());
        let mut run = Writer::new(self, shared, progress, summary, log);
        run.collect(&events, writer);
        Ok(run)
    }

    /// Starts the reader and the workers; the receiver of what they send.
    fn spawn<D: Send + 'static>(
        &self,
        shared: &Shared,
        input: impl Source<D> + 'static,
        log: &Log,
    ) -> Result<Receiver<Event<D>>, Failure> {
        let (events_tx, events) = mpsc::channel::<Event<D>>();
        let reader = Reader {
            shared: shared.clone(),
            events: events_tx.clone(),
            halt: self.halt.clone(),
        };
        reader.spawn(input)?;
        for n in 0..self.jobs {
            let worker = Worker {
                shared: shared.clone(),
                events: events_tx.clone(),
                halt: self.halt.clone(),
                wait: self.wait,
                journaled: self.journal.is_some(),
                log: log.clone(),
            };
            thread::Builder::new()
                .name(format!("verify-{n}"))
                .spawn(move || worker.run())
                .map_err(|e| Failure::new(Exit::Internal, format!("cannot start a worker: {e}")))?;
        }
        Ok(events)
    }
}
