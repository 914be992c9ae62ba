//! A worker: takes a reference from the queue, asks the service, and either hands the
//! verdict to the writer or, under `--wait`, parks the reference until its next check.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use super::shared::{Event, Shared};
use super::{Entry, Task, Turn, Waiting};
use crate::batch::verifier::Verifier;
use crate::domain::job::Job;
use crate::domain::outcome::{Outcome, Verdict};
use crate::domain::wait::{Check, Polls, human, settle, status_of};
use crate::log::Log;
use crate::reference::Reference;
use crate::transport::client::Ended;

/// What every worker of a run shares.
pub(super) struct Worker<D> {
    pub(super) shared: Shared,
    pub(super) events: mpsc::Sender<Event<D>>,
    /// Set when the run stops starting references.
    pub(super) halt: Arc<AtomicBool>,
    /// `--wait` (zero: a not-final answer is not asked again).
    pub(super) wait: Duration,
    /// Whether the run keeps a journal, which gets every answer asked on the way.
    pub(super) journaled: bool,
    pub(super) log: Log,
}

/// What one check of a reference came to.
enum Checked {
    /// The verdict to go on with, and why the check left the answer in hand standing, if so.
    Verdict(Verdict, Option<String>),
    /// The run is stopping: the reference's event.
    Stopped(Option<Verdict>),
}

impl<D> Worker<D> {
    /// Takes tasks until the queue is closed and empty, or the writer is gone.
    pub(super) fn run(&self) {
        while let Some(task) = self.shared.queue.pop(&self.halt) {
            let _turn = Turn(&self.shared.queue);
            let index = task.index;
            // Only a reference taken again (`--wait`) can have a last answer kept: the
            // others' forgetting would be a lock of the shared map every reference.
            let kept = task.waiting.is_some();
            let Some(event) = self.turn(task) else {
                continue;
            };
            let sent = self.events.send(event);
            if kept {
                self.shared.queue.forget(index);
            }
            if sent.is_err() {
                return;
            }
        }
    }

    /// One task: its event for the writer, or `None` when it was parked to be asked again.
    fn turn(&self, task: Task) -> Option<Event<D>> {
        let Task {
            index,
            job,
            waiting,
        } = task;
        let (mut polls, last, unanswered) = match waiting {
            Some(waiting) => {
                let Waiting {
                    polls,
                    last,
                    unanswered,
                } = *waiting;
                (Some(polls), Some(last), unanswered)
            }
            None => (None, None, None),
        };
        // The service's Retry-After holds this reference past its deadline: not asked again.
        let held = polls.as_ref().is_some_and(|p| !p.may_ask(Instant::now()));
        if held || self.halt.load(Ordering::SeqCst) {
            if held {
                self.log.trace(|| {
                    format!(
                        "'{}': throttled past its deadline (Retry-After); the last answer stands",
                        job.reference
                    )
                });
            }
            // Stopping, or held: a reference waited for ends as its last answer, not final.
            return Some(self.ended(index, job, last, unanswered));
        }
        let first = Instant::now();
        match self.check(&job, polls.as_mut(), last) {
            Checked::Verdict(verdict, unanswered) => {
                self.park_or_end(index, job, polls, first, verdict, unanswered)
            }
            Checked::Stopped(last) => Some(self.ended(index, job, last, None)),
        }
    }

    /// Asks the service once. A check while waiting has an answer in hand: its retries end
    /// at the deadline, and a check that gets no answer keeps that answer.
    fn check(&self, job: &Job, polls: Option<&mut Polls>, last: Option<Verdict>) -> Checked {
        let deadline = polls.as_ref().map(|p| p.deadline());
        self.shared.active.fetch_add(1, Ordering::SeqCst);
        let (checked, ended) = check_or_record_failure(&self.shared.verifier, job, deadline);
        self.shared.active.fetch_sub(1, Ordering::SeqCst);
        match settle(checked, &ended, last, &job.reference) {
            Check::Answer(verdict) => Checked::Verdict(verdict, None),
            Check::Kept {
                last,
                why,
                not_before,
            } => {
                self.log.trace(|| {
                    format!(
                        "'{}': this check got no answer ({why}); the last answer stands",
                        job.reference
                    )
                });
                if let (Some(polls), Some(at)) = (polls, not_before) {
                    polls.hold_until(at);
                }
                Checked::Verdict(last, Some(why))
            }
            Check::Stopped(last) => Checked::Stopped(last),
        }
    }

    /// A not-final verdict under `--wait` parks the reference until its next check (`None`);
    /// any other, or one at the deadline, is the reference's event.
    fn park_or_end(
        &self,
        index: usize,
        job: Job,
        polls: Option<Polls>,
        first: Instant,
        verdict: Verdict,
        unanswered: Option<String>,
    ) -> Option<Event<D>> {
        let not_final = matches!(verdict.outcome, Outcome::NotFinal(_));
        if self.wait.is_zero() || !not_final || self.halt.load(Ordering::SeqCst) {
            return Some(self.ended(index, job, Some(verdict), unanswered));
        }
        let mut polls = polls.unwrap_or_else(|| Polls::new(first, self.wait));
        let (asked, state) = (polls.requests(), status_of(&verdict));
        let Some(pause) = polls.next_pause(Instant::now()) else {
            self.log.trace(|| {
                format!(
                    "'{}': status {state} at the deadline, after {asked} requests",
                    job.reference
                )
            });
            return Some(self.ended(index, job, Some(verdict), unanswered));
        };
        self.log.trace(|| {
            format!(
                "'{}': status {state} (request {asked}); next check in {}, {} left",
                job.reference,
                human(pause),
                human(polls.deadline().saturating_duration_since(Instant::now()))
            )
        });
        // Kept where the writer finds it if the run stops while this reference is parked or
        // being checked again.
        let last = self.shared.verifier.record(job.clone(), verdict.clone());
        // An answer asked now (not one kept from an earlier check) is the journal's.
        if self.journaled && unanswered.is_none() {
            let _ = self.events.send(Event::Asked(Box::new(last.clone())));
        }
        self.shared.queue.remember(index, last);
        let waiting = Box::new(Waiting {
            polls,
            last: verdict,
            unanswered,
        });
        let task = Task {
            index,
            job,
            waiting: Some(waiting),
        };
        self.shared.queue.park(task, Instant::now() + pause);
        None
    }

    /// The event for a reference verified (or, when stopping, left with its last answer;
    /// skipped when it has none), and why its last check got no answer, if it did not.
    fn ended(
        &self,
        index: usize,
        job: Job,
        verdict: Option<Verdict>,
        unanswered: Option<String>,
    ) -> Event<D> {
        match verdict {
            Some(verdict) => Event::Done(
                index,
                Box::new(Entry::Verified(self.shared.verifier.record(job, verdict))),
                unanswered,
            ),
            None => Event::Skipped(index),
        }
    }
}

/// Verifies one job; a panic while doing so becomes that job's record (exit 10) instead of a
/// lost index, and the worker goes on with the next job. For a `--wait` check the request's
/// retries end at `deadline`; with the verdict comes why the asking ended.
fn check_or_record_failure(
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
