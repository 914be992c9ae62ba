//! What a batch shows while it runs (the progress bar, or one reference's countdown) and
//! what its entries come to when it ends (the summary line, `--fail-on`'s rules).

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::one::Countdown;
use super::{Look, Tally, WorkQueue};
use crate::domain::class::{Class, FailOn};
use crate::exit::Exit;
use crate::log::{Level, Log};
use crate::secret::redact;
use crate::terminal::cut;
use crate::transport::gate::{Pacing, per_second};

/// How many entries that need a look the closing lines name one by one.
pub(super) const LOOKS_SHOWN: usize = 20;

/// The longest a closing line's "where" (a reference, a line and an order id) and "why"
/// are shown, in characters.
const LOOK_WHAT: usize = 160;
const LOOK_WHY: usize = 300;

/// What the entries decided so far come to: counts per name for the summary line, and
/// what `--fail-on`'s rules need.
#[derive(Debug)]
pub(super) struct Summary {
    pub(super) names: &'static [&'static str],
    /// What one entry is called, and many.
    pub(super) noun: (&'static str, &'static str),
    pub(super) counts: BTreeMap<&'static str, usize>,
    pub(super) total: usize,
    pub(super) with_warnings: usize,
    /// Entries carried over from an earlier run (`--resume`).
    pub(super) carried: usize,
    /// Entries the service was asked about in this run.
    pub(super) asked: usize,
    /// What the pacing saw: throttled answers and the pace at the end.
    pub(super) pacing: Option<Pacing>,
    /// Entries not exit 0 that `--fail-on` left out of the exit status, per name.
    pub(super) left_out: BTreeMap<&'static str, usize>,
    /// Every entry's exit, left out or not: the exit status of a run of one entry.
    pub(super) worst: Exit,
    /// Whether the service answered for any reference (a transaction it knows, of any
    /// status): --fail-on's quiet exit needs an answer to be quiet about.
    pub(super) answered: bool,
    /// The entries that need a look, the first [`LOOKS_SHOWN`] of those the exit status
    /// counts and of those `--fail-on` leaves out (the closing lines name them), with how
    /// many of each there were in all.
    looks: [(Vec<Look>, usize); 2],
}

/// Why a batch stopped before its input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stopped {
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// The reader of stdout went away (`| head -1`).
    OutputClosed,
    /// stdout could not take the output (a full disk, a closed descriptor).
    OutputFailed,
}

impl Stopped {
    /// Whether nothing more can be written: the output is closed or failing.
    pub(super) fn output_gone(self) -> bool {
        matches!(self, Stopped::OutputClosed | Stopped::OutputFailed)
    }
}

/// What stderr shows while a run goes: the progress bar, or, for one reference, its
/// countdown while it waits (and no bar).
pub(super) struct Progress {
    pub(super) bar: ProgressBar,
    countdown: Option<Countdown>,
    /// Records to a terminal that also shows the bar: the bar is cleared before each write
    /// and drawn again after it, so no bar line is left among the rows.
    shared_terminal: bool,
    /// What the bar counts: each entry that is not exit 0, under its outcome class
    /// (`declined`, `mismatch`, ...) or, for an entry with none, its name; in class order,
    /// then in the order of `names`.
    counts: BTreeMap<(usize, &'static str), usize>,
    names: &'static [&'static str],
    /// The bar's message as last set: set again only when it changes.
    shown: String,
}

impl Progress {
    /// The bar of a run of `known_len` entries named one of `names`, or `countdown`'s
    /// line for a run of one reference.
    pub(super) fn new(
        known_len: Option<usize>,
        names: &'static [&'static str],
        countdown: Option<Countdown>,
        log: &Log,
    ) -> Self {
        Progress {
            bar: progress_bar(known_len, log),
            countdown,
            shared_terminal: io::stdout().is_terminal() && io::stderr().is_terminal(),
            counts: BTreeMap::new(),
            names,
            shown: String::new(),
        }
    }

    /// Whether this is a run of one reference, which has no lines of the batch's own.
    pub(super) fn one(&self) -> bool {
        self.countdown.is_some()
    }

    /// Runs `write` (to stdout) with the bar out of the way when they share a terminal.
    pub(super) fn writing<T>(&self, write: impl FnOnce() -> T) -> T {
        match self.shared_terminal {
            true => self.bar.suspend(write),
            false => write(),
        }
    }

    /// Redraws the countdown of a reference that waits; whether there is one.
    pub(super) fn countdown(&mut self, queue: &WorkQueue) -> bool {
        self.countdown.as_mut().map(|c| c.show(queue)).is_some()
    }

    /// Clears the countdown before the answer is written, or the run ends.
    pub(super) fn clear_countdown(&mut self) {
        self.countdown.iter_mut().for_each(Countdown::clear);
    }

    /// Counts an entry that is not exit 0; the message shows it unless the run stopped.
    pub(super) fn count(&mut self, tally: &Tally, rate: Option<f64>, stopped: bool) {
        let key = match tally.class {
            Some(class) => (class as usize, class.name()),
            None => {
                let at = self.names.iter().position(|n| *n == tally.name);
                let at = at.unwrap_or(self.names.len());
                (Class::ALL.len() + at, tally.name)
            }
        };
        *self.counts.entry(key).or_default() += 1;
        if !stopped {
            self.message(rate);
        }
    }

    /// The bar's message: the entries so far that are not exit 0 (`3 declined, 1
    /// not_found`) and, once the service has throttled (`rate`), the pace, so a slow run
    /// says why. Set only when it changes.
    pub(super) fn message(&mut self, rate: Option<f64>) {
        let counted = self
            .counts
            .iter()
            .map(|((_, label), n)| format!("{n} {label}"));
        let counted = counted.collect::<Vec<_>>().join(", ");
        let message = match rate {
            Some(rate) if counted.is_empty() => format!("throttled: {}", per_second(rate)),
            Some(rate) => format!("{counted}  throttled: {}", per_second(rate)),
            None => counted,
        };
        if message != self.shown {
            self.bar.set_message(message.clone());
            self.shown = message;
        }
    }

    /// The run is over: no bar and no countdown left on the screen.
    pub(super) fn finish(&mut self) {
        self.bar.finish_and_clear();
        self.clear_countdown();
    }
}

fn progress_bar(known_len: Option<usize>, log: &Log) -> ProgressBar {
    let wanted = io::stderr().is_terminal() && log.level() == Level::Normal && known_len != Some(1);
    if !wanted {
        return ProgressBar::hidden();
    }
    let (bar, template) = match known_len {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr()),
            "{bar:30} {pos}/{len} ({percent}%) verified  {rate}  ETA {eta}  {msg}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {pos} verified  {rate}  {elapsed}  {msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        let rate = |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1}/s", state.per_sec());
        };
        bar.set_style(style.with_key("rate", rate));
    }
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

impl Summary {
    /// A summary of no entries yet, each called `noun` (one, many) and named one of
    /// `names`.
    pub(super) fn new(names: &'static [&'static str], noun: (&'static str, &'static str)) -> Self {
        Summary {
            names,
            noun,
            counts: BTreeMap::new(),
            total: 0,
            with_warnings: 0,
            carried: 0,
            asked: 0,
            pacing: None,
            left_out: BTreeMap::new(),
            worst: Exit::Successful,
            answered: false,
            looks: Default::default(),
        }
    }

    /// Counts an entry (`asked`: the service was asked about it in this run); what the exit
    /// status merges of it: its own exit, or 0 when `--fail-on` leaves it out (one of exit
    /// 0 changes nothing and is not named).
    pub(super) fn add(&mut self, tally: &Tally, asked: bool, fail_on: Option<&FailOn>) -> Exit {
        *self.counts.entry(tally.name).or_default() += 1;
        self.asked += usize::from(asked);
        self.total += 1;
        self.with_warnings += usize::from(tally.warned);
        self.carried += usize::from(tally.carried);
        self.worst = self.worst.merge(tally.exit);
        self.answered |= tally.answered;
        let left_out = match (fail_on, tally.class) {
            (Some(fail_on), Some(class)) => !fail_on.counts(class),
            _ => false,
        };
        if let Some(look) = &tally.look {
            // An exit-0 entry with a warning is left out of nothing: it is always named.
            let hidden = left_out && tally.exit != Exit::Successful;
            let (shown, all) = &mut self.looks[usize::from(hidden)];
            if shown.len() < LOOKS_SHOWN {
                shown.push(Look::clone(look));
            }
            *all += 1;
        }
        match left_out {
            true => {
                if tally.exit != Exit::Successful {
                    *self.left_out.entry(tally.name).or_default() += 1;
                }
                Exit::Successful
            }
            false => tally.exit,
        }
    }

    /// The closing lines that name the entries needing a person: each one the exit status
    /// counts (every one, once `--fail-on` leaves nothing out after all), at most
    /// [`LOOKS_SHOWN`], then how many more and where they are (`written`: whether every
    /// record reached the output). Each part is cut to a readable length: a cell or a
    /// reference may be kilobytes long.
    pub(super) fn look_lines(&self, written: bool) -> Vec<String> {
        let [(counted, n), (left_out, m)] = &self.looks;
        let (shown, all): (Vec<&Look>, usize) = match self.left_out.is_empty() {
            // --fail-on left something out: its line says what and why.
            false => (counted.iter().collect(), *n),
            true => (counted.iter().chain(left_out).collect(), n + m),
        };
        let mut lines: Vec<String> = shown
            .iter()
            .take(LOOKS_SHOWN)
            .map(|l| {
                // Redacted whole before it is cut: a cut through a secret would leave a
                // part of it that no redaction recognises.
                let shown = |text: &str, max| cut(&redact(text), max);
                let (what, why) = (shown(&l.what, LOOK_WHAT), shown(&l.why, LOOK_WHY));
                match l.why.starts_with(l.name) {
                    // FAILED's own reason opens with its name.
                    true => format!("needs a look: {what}: {why}"),
                    false => format!("needs a look: {what}: {}: {why}", l.name),
                }
            })
            .collect();
        let more = all.saturating_sub(lines.len());
        if more > 0 {
            let there = match written {
                true => format!(
                    "every {} is in the output, with its result and why",
                    self.noun.0
                ),
                false => "the output was closed before every record was written".to_owned(),
            };
            lines.push(format!("and {more} more that need a look: {there}"));
        }
        lines
    }

    /// Entries decided without asking (carried over, or decided from the input): the
    /// positions written that were not jobs.
    pub(super) fn not_asked(&self) -> usize {
        self.total - self.asked
    }

    /// `3 SUCCESSFUL, 2 NOT_FOUND`: `counts` in the order of the names.
    fn listed(&self, counts: &BTreeMap<&'static str, usize>) -> String {
        self.names
            .iter()
            .filter_map(|name| counts.get(name).map(|n| format!("{n} {name}")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether `--fail-on` left any entry out.
    pub(super) fn left_out_any(&self) -> bool {
        !self.left_out.is_empty()
    }

    /// Every entry counted after all (a run of one reference).
    pub(super) fn count_all(&mut self) {
        self.left_out.clear();
    }

    /// What the summary line adds when `--fail-on` left entries out, so a person reading a
    /// cron mail sees them: `; exit 0: 3 FAILED, 1 NOT_FOUND not in --fail-on mismatch`.
    pub(super) fn left_out_note(&self, exit: Exit, fail_on: &FailOn) -> String {
        if self.left_out.is_empty() {
            return String::new();
        }
        let counts = self.listed(&self.left_out);
        format!(
            "; exit {exit}: {counts} not in --fail-on {}",
            fail_on.names()
        )
    }

    pub(super) fn line(&self, elapsed: Duration, stopped: Option<Stopped>) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.total as f64 / secs
        } else {
            0.0
        };
        let counts = self.listed(&self.counts);
        let counts = if counts.is_empty() {
            "nothing verified".to_owned()
        } else {
            counts
        };
        let noun = match self.total {
            1 => self.noun.0,
            _ => self.noun.1,
        };
        let head = match stopped {
            Some(Stopped::Interrupted) => "interrupted after ",
            Some(Stopped::OutputClosed) => "output closed; stopped after ",
            Some(Stopped::OutputFailed) => "output failed; stopped after ",
            None => "",
        };
        let warned = match self.with_warnings {
            0 => String::new(),
            n => format!("; {n} with warnings (see their checks)"),
        };
        // Entries neither carried nor asked were decided from the input (reconcile's
        // DUPLICATE and INVALID_ROW rows).
        let carried = match (
            self.carried,
            self.total.saturating_sub(self.carried + self.asked),
        ) {
            (0, _) => String::new(),
            (n, 0) => format!(" ({n} carried over, {} asked)", self.asked),
            (n, d) => format!(
                " ({n} carried over, {} asked, {d} decided from the input)",
                self.asked
            ),
        };
        // Said only when it happened, in plain words: how often the service asked to slow
        // down, and the pace the run had come to by its end (what to give --rate next time
        // to be throttled less).
        let throttled = match self.pacing {
            Some(Pacing {
                throttled: n @ 1..,
                rate,
                ..
            }) => {
                let times = match n {
                    1 => "once".to_owned(),
                    n => format!("{n} times"),
                };
                let pace = rate
                    .map(|r| format!("; the run finished at {}", per_second(r)))
                    .unwrap_or_default();
                format!("; the service asked to slow down {times}{pace}")
            }
            _ => String::new(),
        };
        format!(
            "{head}{} {noun}{carried} in {secs:.2}s ({rate:.1}/s): {counts}{warned}{throttled}",
            self.total
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lists_outcomes_in_contract_order() {
        let mut s = Summary::new(
            &crate::domain::outcome::OUTCOME_NAMES,
            ("reference", "references"),
        );
        s.counts.insert("NOT_FOUND", 2);
        s.counts.insert("SUCCESSFUL", 3);
        s.total = 5;
        let line = s.line(Duration::from_secs(2), None);
        assert_eq!(
            line,
            "5 references in 2.00s (2.5/s): 3 SUCCESSFUL, 2 NOT_FOUND"
        );
        assert!(
            s.line(Duration::from_secs(1), Some(Stopped::Interrupted))
                .starts_with("interrupted after 5")
        );
        s.with_warnings = 1;
        assert!(
            s.line(Duration::from_secs(1), None)
                .ends_with("; 1 with warnings (see their checks)")
        );
        (s.carried, s.asked) = (3, 2);
        assert!(
            s.line(Duration::from_secs(1), None)
                .starts_with("5 references (3 carried over, 2 asked) in")
        );
        s.asked = 1;
        assert!(
            s.line(Duration::from_secs(1), None)
                .starts_with("5 references (3 carried over, 1 asked, 1 decided from the input) in")
        );
    }
}
