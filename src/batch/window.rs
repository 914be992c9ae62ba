//! How far the reader may run ahead of the writer: bounds memory however long the input and
//! however slow one reference is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Lets the reader run at most `size` jobs, and `size * DECIDED_SLACK` positions, ahead of
/// the writer.
pub(super) struct Window {
    pub(super) state: Mutex<WindowState>,
    pub(super) moved: Condvar,
    pub(super) size: usize,
    pub(super) positions: usize,
}

/// How many more positions than jobs the window holds. A decided entry (a record carried
/// over by `--resume`, a refused row) is a line of text already made, not a request: with
/// a window of positions alone, a run that is 99 % carried over kept only two or three
/// requests in flight, however many workers.
pub(super) const DECIDED_SLACK: usize = 16;

/// A position the reader wants to issue: its index, and for a job, how many jobs came
/// before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ticket {
    pub(super) index: usize,
    pub(super) job: Option<usize>,
}

pub(super) struct WindowState {
    pub(super) written: usize,
    /// Jobs among the positions written.
    pub(super) written_jobs: usize,
    /// The ticket the reader is blocked on. The writer wakes it only once half the window
    /// is free: a wake-up is a system call (even with nobody waiting), and waking the reader
    /// for every reference written made two futex calls a reference.
    pub(super) waiting_for: Option<Ticket>,
}

impl Window {
    pub(super) fn new(size: usize) -> Self {
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
    pub(super) fn fits(&self, state: &WindowState, ticket: Ticket, free: (usize, usize)) -> bool {
        ticket.index + free.0 < state.written + self.positions
            && ticket
                .job
                .is_none_or(|job| job + free.1 < state.written_jobs + self.size)
    }

    /// Waits until `ticket` may be issued; false when stopping.
    pub(super) fn wait_for_room(&self, ticket: Ticket, stop: &AtomicBool) -> bool {
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
    pub(super) fn advance(&self, written: usize, written_jobs: usize) {
        let wake = match self.state.lock() {
            Ok(mut state) => {
                state.written = written;
                state.written_jobs = written_jobs;
                // All issued references end up written, so both counts reach the ticket
                // waited for, and the reader is always woken in the end.
                let half = (self.positions / 2, self.size / 2);
                let wake = state
                    .waiting_for
                    .is_some_and(|ticket| self.fits(&state, ticket, half));
                // Woken once: until the reader runs again (on a busy machine, a while),
                // each record written would wake it again, a system call each (0.14 a
                // reference at -j 16). It names its ticket again if it must wait more.
                if wake {
                    state.waiting_for = None;
                }
                wake
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
    use std::sync::Arc;
    use std::thread;
    use std::time::Instant;

    use super::*;

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
