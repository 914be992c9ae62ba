//! The reader thread: reads the input position by position, hands jobs to the workers and
//! decided entries straight to the writer, within the window.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

use super::shared::{Event, InputEnd, NOTES_SHOWN, Shared, Unshown};
use super::{Closing, Entry, Item, Source, Ticket};
use crate::exit::{Exit, Failure};

/// What the reader shares with the rest of the run.
pub(super) struct Reader<D> {
    pub(super) shared: Shared,
    pub(super) events: mpsc::Sender<Event<D>>,
    pub(super) halt: Arc<AtomicBool>,
}

/// Where the reader is in its input.
#[derive(Default)]
struct Place {
    index: usize,
    jobs: usize,
    duplicates: usize,
    invalid: usize,
}

impl<D: Send + 'static> Reader<D> {
    /// Starts reading `input` on its own thread.
    pub(super) fn spawn(self, input: impl Source<D> + 'static) -> Result<(), Failure> {
        thread::Builder::new()
            .name("read-references".into())
            .spawn(move || self.read(input))
            .map(|_| ())
            .map_err(|e| Failure::new(Exit::Internal, format!("cannot start the reader: {e}")))
    }

    fn read(self, mut input: impl Source<D>) {
        // Closes the queue however this thread ends, so workers never wait forever.
        let work = Closing(self.shared.queue.clone());
        let mut place = Place::default();
        // Set only when the input itself ends; every other way out of the loop (a stop, a
        // read error) leaves positions unread.
        let mut read_to_end = false;
        loop {
            let Some(item) = input.next() else {
                read_to_end = true;
                break;
            };
            if self.halt.load(Ordering::SeqCst) || !self.take(item, &mut place, &work) {
                break;
            }
        }
        let _ = self.events.send(Event::InputEnd(InputEnd {
            issued: place.index,
            read_to_end,
            empty_message: input.empty_message(),
            unshown: Unshown {
                duplicates: place.duplicates.saturating_sub(NOTES_SHOWN),
                invalid: place.invalid.saturating_sub(NOTES_SHOWN),
            },
            notes: input.end_notes(),
        }));
    }

    /// Issues one item; false when the reading stops (a halt, a read error).
    fn take(&self, item: Result<Item<D>, Failure>, at: &mut Place, work: &Closing) -> bool {
        match item {
            Ok(Item::Job(job)) => {
                let ticket = Ticket {
                    index: at.index,
                    job: Some(at.jobs),
                };
                if !self.shared.window.wait_for_room(ticket, &self.halt) {
                    return false;
                }
                self.shared.issued.store(at.index + 1, Ordering::SeqCst);
                if !work.0.push((at.index, job), &self.halt) {
                    return false;
                }
                at.index += 1;
                at.jobs += 1;
            }
            Ok(Item::Decided(decided)) => {
                let ticket = Ticket {
                    index: at.index,
                    job: None,
                };
                if !self.shared.window.wait_for_room(ticket, &self.halt) {
                    return false;
                }
                self.shared.issued.store(at.index + 1, Ordering::SeqCst);
                let entry = Box::new(Entry::Decided(decided));
                if self
                    .events
                    .send(Event::Done(at.index, entry, None))
                    .is_err()
                {
                    return false;
                }
                at.index += 1;
            }
            Ok(note) => {
                let seen = match note {
                    Item::Duplicate { .. } => &mut at.duplicates,
                    _ => &mut at.invalid,
                };
                *seen += 1;
                self.shared.dropped.fetch_add(1, Ordering::SeqCst);
                if *seen <= NOTES_SHOWN {
                    let _ = self.events.send(Event::Note(note));
                }
            }
            Err(failure) => {
                let _ = self.events.send(Event::InputFailed(failure));
                return false;
            }
        }
        true
    }
}
