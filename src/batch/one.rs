//! One reference (`verify REF`, `gate`) is a batch of one through the same reader, worker,
//! queue and writer: the same `--wait`, Ctrl-C and closed output. What differs is what it
//! shows: the answer itself (a field/value table or the service's JSON object, not a
//! record), a countdown while it waits instead of the bar, and instead of a summary line
//! the lines that say why its exit status is not 0.

use std::convert::Infallible;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::shared::Batch;
use super::{Entry, Item, Sink, Source, Stopped, Tally, WorkQueue};
use crate::batch::verifier::Verifier;
use crate::domain::checks::CheckFailure;
use crate::domain::job::Job;
use crate::domain::outcome::{OUTCOME_NAMES, Outcome, Record, Verdict};
use crate::domain::wait::{exact, human, status_of};
use crate::exit::{Exit, Failure};
use crate::journal::{Journal, Order, Payment};
use crate::log::{Level, Log};
use crate::render::{OutputFormat, Printer};

/// The one job, as a batch's input.
struct OneJob(Option<Job>);

impl Iterator for OneJob {
    type Item = Result<Item<Infallible>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.take().map(|job| Ok(Item::Job(job)))
    }
}

impl Source<Infallible> for OneJob {
    fn empty_message(&self) -> String {
        String::new()
    }
}

/// Where the one answer goes: printed as it is, in `format` (`None`: nothing on stdout),
/// and kept for the lines that follow it.
pub(crate) struct Answer {
    printer: Printer,
    format: Option<OutputFormat>,
    record: Option<Record>,
    /// gate's journal: a payment that passes is claimed for the order (the expected
    /// merchant reference), and one another order claimed fails.
    claims: Option<Journal>,
}

impl Answer {
    pub(crate) fn new(printer: Printer, format: Option<OutputFormat>) -> Self {
        Answer {
            printer,
            format,
            record: None,
            claims: None,
        }
    }

    /// The answer of a gate whose passing payment `journal` claims for its order.
    pub(crate) fn claiming(self, journal: Option<Journal>) -> Self {
        Answer {
            claims: journal,
            ..self
        }
    }

    /// `record` once its payment is claimed for its order, when it passed: a CHECK_FAILED
    /// naming the order that claimed it first, when another did. A journal that cannot
    /// answer leaves it as it is; the run then ends with exit 6 (the journal says why).
    fn claimed(&self, record: &Record) -> Option<Record> {
        let journal = self.claims.as_ref()?;
        let order = record.job.expect.merchant_ref.as_deref()?;
        let v = record.verdict.outcome.verification()?;
        let payment = Payment::of(v, record.job.reference.as_str());
        let shown = payment.shown()?;
        if record.verdict.exit() != Exit::Successful {
            return None;
        }
        let order = Order::of_merchant_ref(order);
        let claim = (journal.claim(payment, &order, record.job.reference.as_str())).ok()??;
        let mut record = record.clone();
        let checks = record.verdict.checks.as_mut()?;
        checks.failures.push(CheckFailure::Claimed {
            payment: shown.to_owned(),
            by: claim.said(),
        });
        Some(record)
    }
}

impl Sink<Infallible> for Answer {
    fn take(&mut self, entry: &Entry<Infallible>, write: bool) -> (Tally, io::Result<()>) {
        let record = match entry {
            Entry::Verified(record) => record,
            Entry::Decided(never) => match *never {},
        };
        let claimed = self.claimed(record);
        let record = claimed.as_ref().unwrap_or(record);
        let verdict = &record.verdict;
        let shown = match (verdict.outcome.verification(), self.format) {
            (Some(v), Some(format)) if write => {
                let integrity = verdict.checks.as_ref().map(|c| &c.integrity);
                self.printer
                    .answer(v, integrity, format == OutputFormat::Table)
            }
            _ => Ok(()),
        };
        if write {
            self.record = Some(record.clone());
        }
        (Tally::of(record), shown)
    }

    /// One reference's answer names it in its own error line.
    fn names_each(&self) -> bool {
        false
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn names(&self) -> &'static [&'static str] {
        &OUTCOME_NAMES
    }
}

impl Batch {
    /// Verifies `job` as a batch of one and reports it: the answer on stdout through
    /// `answer`, why it is not a plain success on stderr. The exit status is the verdict's
    /// (130 when interrupted, 10 when the answer could not be written; a reader of stdout
    /// that left changes nothing).
    pub(crate) fn run_one(
        &self,
        verifier: Arc<Verifier>,
        job: Job,
        answer: &mut Answer,
        log: &Log,
    ) -> Result<Exit, Failure> {
        let exit = self.answer_one(verifier, job, answer, log)?;
        Ok(self.close_journal(exit, log))
    }

    /// [`Batch::run_one`] before the journal is closed.
    fn answer_one(
        &self,
        verifier: Arc<Verifier>,
        job: Job,
        answer: &mut Answer,
        log: &Log,
    ) -> Result<Exit, Failure> {
        let reference = job.reference.clone();
        let countdown = Countdown::new(log);
        let mut run = self.drive(verifier, OneJob(Some(job)), answer, Some(countdown), log)?;
        if run.lost() > 0 {
            return Ok(Exit::Internal);
        }
        // The answer could not be written: the writer said why (exit 10). A reader that
        // left is its choice, and the exit status is still the answer's.
        if run.stopped == Some(Stopped::OutputFailed) {
            return Ok(Exit::Internal);
        }
        let interrupted = self.stop.load(Ordering::SeqCst);
        let Some(Record { verdict, .. }) = answer.record.take() else {
            log.error(&format!(
                "interrupted before '{reference}' was verified; nothing is known about it"
            ));
            return Ok(Exit::Interrupted);
        };
        let waited = !self.wait.is_zero() && matches!(verdict.outcome, Outcome::NotFinal(_));
        if !waited {
            report(&verdict, &reference, log);
            // A signal that came while the answer was on its way stops the run as it
            // stops a batch (exit 130, as a supervisor that sent it expects): the answer
            // is shown, but the caller asked for the run to end, not for its verdict.
            if interrupted {
                log.error(&format!(
                    "interrupted: '{reference}' was answered ({}) as the run was stopped",
                    verdict.name()
                ));
                return Ok(Exit::Interrupted);
            }
        } else if interrupted {
            log.error(&format!(
                "interrupted while waiting for '{reference}': not final, status {}",
                status_of(&verdict)
            ));
            return Ok(Exit::Interrupted);
        } else {
            let unanswered = run
                .unanswered
                .take()
                .map(|why| format!(" (the last check got no answer in time: {why})"))
                .unwrap_or_default();
            log.error(&format!(
                "transaction '{reference}' is still not final after {}: status {}{unanswered}",
                exact(self.wait),
                status_of(&verdict)
            ));
        }
        Ok(verdict.exit())
    }
}

/// Why a verdict is not a plain success, on stderr (check failures and warnings only
/// matter for a SUCCESSFUL transaction).
fn report(verdict: &Verdict, reference: &crate::reference::Reference, log: &Log) {
    match (&verdict.outcome, &verdict.checks) {
        (Outcome::Successful(_), Some(checks)) => {
            for warning in &checks.warnings {
                log.warn(&warning.to_string());
            }
            for failure in &checks.failures {
                log.error(&format!("check failed for '{reference}': {failure}"));
            }
        }
        (outcome, _) => log.error(&outcome.message(reference)),
    }
}

/// The one-line `waiting for ...` status while the reference is parked, redrawn in place on
/// a terminal's stderr; nothing elsewhere (a log file gets the `-v` lines instead) and
/// nothing with -q.
pub(super) struct Countdown {
    /// The text on screen now, if any: redrawn only when it changes.
    shown: Option<String>,
    enabled: bool,
}

impl Countdown {
    fn new(log: &Log) -> Self {
        Countdown {
            shown: None,
            enabled: log.level() != Level::Quiet && io::stderr().is_terminal(),
        }
    }

    /// Shows when the parked reference is asked again, or clears the line while it is
    /// being asked.
    pub(super) fn show(&mut self, queue: &WorkQueue) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let text = queue.earliest_parked(|task, due| {
            let waiting = task.waiting.as_deref()?;
            Some(format!(
                "waiting for {}: {}, next check in {}, {} left",
                task.job.reference,
                crate::terminal::scrub(&status_of(&waiting.last)),
                human(due.saturating_duration_since(now)),
                human(waiting.polls.deadline().saturating_duration_since(now))
            ))
        });
        match text.flatten() {
            Some(text) if self.shown.as_deref() != Some(&text) => {
                let line = format!("\r\x1b[2K{}", crate::terminal::scrub(&text));
                crate::signal::write_stderr(line.as_bytes());
                self.shown = Some(text);
            }
            Some(_) => {}
            None => self.clear(),
        }
    }

    pub(super) fn clear(&mut self) {
        if self.shown.take().is_some() {
            crate::signal::write_stderr(b"\r\x1b[2K");
        }
    }
}
