//! The jobs waiting for a worker, and those parked by `--wait` until their next check is
//! due.

use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::domain::job::Job;
use crate::domain::outcome::{Record, Verdict};
use crate::domain::wait::Polls;

/// References waiting for a worker.
///
/// Why not a bounded channel behind a mutex: there every hand-off woke the reader (one
/// slot free) and the next worker queued on the mutex, several futex calls a reference.
/// Here a worker takes a reference under a short lock, and the reader is woken only when
/// the queue is down to half, so it refills many slots per wake-up.
pub(super) struct WorkQueue {
    pub(super) state: Mutex<QueueState>,
    pub(super) room: Condvar,
    pub(super) work: Condvar,
    pub(super) capacity: usize,
    /// The last answer of every reference that is waiting (`--wait`), parked or being
    /// checked again: what the writer reports for it when the run stops without waiting
    /// for its worker (which may hang in a request for up to `--timeout`).
    last_answers: Mutex<HashMap<usize, Record>>,
}

/// One reference for a worker: new, or asked before and not final yet (`--wait`).
pub(super) struct Task {
    pub(super) index: usize,
    pub(super) job: Job,
    pub(super) waiting: Option<Box<Waiting>>,
}

/// A reference that is not final yet: its polling schedule and its last answer (what it
/// comes to if the waiting ends now).
pub(super) struct Waiting {
    pub(super) polls: Polls,
    pub(super) last: Verdict,
    /// Why the last check got no answer, if it did not (the answer in hand stood).
    pub(super) unanswered: Option<String>,
}

/// A parked reference and when it is due again; the heap's top is the earliest.
pub(super) struct Parked {
    pub(super) due: Instant,
    pub(super) task: Task,
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

pub(super) struct QueueState {
    pub(super) items: VecDeque<(usize, Job)>,
    /// References waiting to be asked again: no worker sleeps for them.
    pub(super) parked: BinaryHeap<Parked>,
    /// Tasks a worker has taken and not yet finished (it may park one again).
    pub(super) taken: usize,
    pub(super) closed: bool,
    pub(super) reader_waiting: bool,
    pub(super) workers_waiting: usize,
}

impl WorkQueue {
    pub(super) fn new(capacity: usize) -> Self {
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
            last_answers: Mutex::default(),
        }
    }

    /// Keeps the last answer of the reference at `index`, which is waiting.
    pub(super) fn remember(&self, index: usize, record: Record) {
        if let Ok(mut answers) = self.last_answers.lock() {
            answers.insert(index, record);
        }
    }

    /// The reference at `index` has been reported: its last answer is no longer needed.
    pub(super) fn forget(&self, index: usize) {
        if let Ok(mut answers) = self.last_answers.lock()
            && !answers.is_empty()
        {
            answers.remove(&index);
        }
    }

    /// The last answer kept for the reference at `index`, taken out.
    pub(super) fn take_last_answer(&self, index: usize) -> Option<Record> {
        self.last_answers.lock().ok()?.remove(&index)
    }

    /// Queues a reference, waiting for room; false when halted.
    pub(super) fn push(&self, item: (usize, Job), halt: &AtomicBool) -> bool {
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
        // A waiting worker is woken only if the items already queued do not each have one
        // woken for them: every worker counted as waiting either sleeps or was woken and
        // will take an item, and one only ever waits when the queue is empty. Waking one
        // for every item while the reader refilled the queue was most of a run's futex
        // calls (0.7 a reference at -j 16).
        if state.workers_waiting > state.items.len() {
            self.work.notify_one();
        }
        state.items.push_back(item);
        true
    }

    /// `f` of the parked task due first and when it is due, if any is parked.
    pub(super) fn earliest_parked<R>(&self, f: impl FnOnce(&Task, Instant) -> R) -> Option<R> {
        let state = self.state.lock().ok()?;
        state
            .parked
            .peek()
            .map(|parked| f(&parked.task, parked.due))
    }

    /// Parks a taken task until `due`; a worker takes it again then (at once when halted).
    pub(super) fn park(&self, task: Task, due: Instant) {
        if let Ok(mut state) = self.state.lock() {
            state.parked.push(Parked { due, task });
        }
        self.work.notify_one();
    }

    /// A worker is done with the task it took (finished or parked).
    pub(super) fn done(&self) {
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
    pub(super) fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
        }
        self.work.notify_all();
    }

    /// The next task: a parked reference that is due (any parked one once `halt` is set, so
    /// Ctrl-C ends the waits at once), else the next new one. `None` once the queue is
    /// closed, nothing is parked and no worker holds a task it could park. Every task taken
    /// must be followed by [`WorkQueue::done`].
    pub(super) fn pop(&self, halt: &AtomicBool) -> Option<Task> {
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
pub(super) struct Turn<'a>(pub(super) &'a WorkQueue);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// Closes the work queue when the reader ends, normally or by a panic.
pub(super) struct Closing(pub(super) Arc<WorkQueue>);

impl Drop for Closing {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use crate::reference::Reference;

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
}
