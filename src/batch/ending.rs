//! How a batch ends: the input's closing notes, the output finished, and the lines and exit
//! status that say whether every position was decided and written.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::shared::NOTES_SHOWN;
use super::writer::Writer;
use super::{Sink, Stopped};
use crate::exit::{Exit, Failure};

impl<D> Writer<'_, D> {
    /// Finishes the output and says how the run went: the summary line, why it is
    /// incomplete if it is; the exit status (see [`super::Batch::run`]).
    pub(super) fn end(
        &mut self,
        writer: &mut dyn Sink<D>,
        started: Instant,
    ) -> Result<Exit, Failure> {
        self.input_notes();
        let lost = self.lost();
        // Verifying nothing proves nothing: an empty input must never read as success (a
        // usage error, with nothing on stdout).
        let nothing = self.summary.total == 0
            && lost == 0
            && self.stopped.is_none()
            && !self.batch.stop.load(Ordering::SeqCst);
        if !nothing {
            self.finish_output(writer);
        }
        if self.batch.stop.load(Ordering::SeqCst) {
            self.stopped = Some(Stopped::Interrupted);
        }
        self.summary.pacing = Some(self.shared.verifier.client.pacing());
        // Complete: the input was read to its end and every position of it was decided
        // (tallied). A position a worker skipped after a stop comes back without a result,
        // so a count of positions come back would call a cut-short run complete.
        let complete = self.not_reached() == Some(0);
        self.incomplete(writer, complete, lost);
        if self.stopped == Some(Stopped::Interrupted) {
            self.interrupted(started, writer.names_each());
            return Ok(Exit::Interrupted);
        }
        if nothing
            && complete
            && let Some(input) = &self.input
        {
            self.log.error(&input.empty_message);
            return Ok(self.exit.merge(Exit::Usage));
        }
        self.fail_on_rules();
        let left_out = match &self.batch.fail_on {
            Some(fail_on) => self.summary.left_out_note(self.exit, fail_on),
            None => String::new(),
        };
        if writer.names_each() {
            let written = !self.stopped.is_some_and(Stopped::output_gone);
            for look in self.summary.look_lines(written) {
                self.log.info(&look);
            }
        }
        let line = self.summary.line(started.elapsed(), self.stopped);
        self.log.info(&format!("{line}{left_out}"));
        Ok(self.exit)
    }

    /// The input's closing warnings, and how many notes were not shown one by one.
    fn input_notes(&self) {
        let Some(input) = &self.input else {
            return;
        };
        for note in &input.notes {
            self.log.warn(note);
        }
        if input.unshown.duplicates > 0 {
            self.log.warn(&format!(
                "{} more references were given again and verified once (the first \
                 {NOTES_SHOWN} are listed above)",
                input.unshown.duplicates
            ));
        }
        if input.unshown.invalid > 0 {
            self.log.warn(&format!(
                "{} more lines were skipped (the first {NOTES_SHOWN} are listed above)",
                input.unshown.invalid
            ));
        }
    }

    /// Every thread is gone: every issued reference must have come back as a record. One
    /// that did not is a failure of payverify itself, never a silent gap: how many.
    pub(super) fn lost(&mut self) -> usize {
        let lost = match self.disconnected {
            true => self
                .shared
                .issued
                .load(Ordering::SeqCst)
                .saturating_sub(self.next),
            false => 0,
        };
        if lost > 0 {
            self.exit = self.exit.merge(Exit::Internal);
            self.log.error(&format!(
                "internal error: {lost} reference(s) got no result (a worker failed)"
            ));
        }
        lost
    }

    /// What comes after the last entry (and before the first, if nothing was written).
    fn finish_output(&mut self, writer: &mut dyn Sink<D>) {
        if !self.stopped.is_some_and(Stopped::output_gone)
            && let Some(line) = self.failed(writer.finish())
        {
            self.log.error(&line);
        }
    }

    /// Output that could not be written, or whose reader left (`| head -1`), is exit 10
    /// even when every entry was decided (a reader that left while the writer lagged
    /// behind the workers): what was asked for did not reach its reader, and an exit status
    /// that merges records nobody got must not pass for the whole run's. So is a run that
    /// did not decide every position of its input.
    fn incomplete(&mut self, writer: &mut dyn Sink<D>, complete: bool, lost: usize) {
        if self.stopped.is_some_and(Stopped::output_gone) {
            self.exit = self.exit.merge(Exit::Internal);
            if complete && self.stopped == Some(Stopped::OutputClosed) {
                let line = unwritten_line(writer, self.records_out, self.summary.total);
                self.log.error(&line);
            }
        }
        if complete {
            return;
        }
        let not_reached = self.not_reached();
        if let Err(e) = writer.incomplete(not_reached) {
            self.log
                .error(&format!("cannot keep the run's records: {e}"));
        }
        self.exit = self.exit.merge(Exit::Internal);
        // A signal says so in its own summary line (exit 130); a lost reference was
        // reported already.
        if self.stopped != Some(Stopped::Interrupted) && lost == 0 {
            let line = incomplete_line(writer, self.stopped, self.summary.total, not_reached);
            self.log.error(&line);
        }
    }

    /// The summary of a run a signal stopped, with what was not verified and the command
    /// that finishes it.
    fn interrupted(&self, started: Instant, names_each: bool) {
        // Exact when the input was read to its end before the stop; otherwise the counted
        // total, or, for stdin, what was read and the unread rest.
        let decided = self.summary.total;
        let not_started = match (self.not_reached(), self.batch.known_len) {
            (Some(n), _) => n.to_string(),
            (_, Some(known)) => known
                .saturating_sub(self.shared.dropped.load(Ordering::SeqCst))
                .saturating_sub(decided)
                .to_string(),
            _ => format!(
                "{} read and the unread rest of the input",
                self.shared
                    .issued
                    .load(Ordering::SeqCst)
                    .saturating_sub(decided)
            ),
        };
        if names_each {
            for look in self.summary.look_lines(true) {
                self.log.info(&look);
            }
        }
        self.log.info(&format!(
            "{}; not verified: {not_started}",
            self.summary.line(started.elapsed(), self.stopped)
        ));
        if let Some(command) = &self.batch.resume_hint {
            self.log
                .info(&format!("to finish this run, resume it: {command}"));
        }
    }

    /// Where `--fail-on` leaves nothing out after all.
    fn fail_on_rules(&mut self) {
        if !self.summary.left_out_any() {
            return;
        }
        // One entry is one payment: its exit status is its own, whatever --fail-on names.
        if self.summary.total <= 1 {
            self.exit = self.exit.merge(self.summary.worst);
            self.summary.count_all();
            self.log.warn(
                "--fail-on leaves nothing out of a run of one reference: its exit status is \
                 its own",
            );
        } else if !self.summary.answered {
            // The service down, or the wrong one (every reference NOT_FOUND): a scheduled
            // run that verified nothing must not read as "nothing to act on".
            self.exit = self.exit.merge(self.summary.worst);
            self.summary.count_all();
            self.log.warn(
                "--fail-on leaves nothing out of a run in which the service answered for no \
                 reference (every record NOT_FOUND, UNAVAILABLE or BAD_RESPONSE): its exit \
                 status is its worst record's",
            );
        }
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
