//! What a batch shows while it runs (the progress bar) and when it ends (the summary line).

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Tally;
use crate::domain::class::{Class, FailOn};
use crate::exit::Exit;
use crate::log::{Level, Log};
use crate::transport::gate::{Pacing, per_second};

/// Counts of entries per name, and timing, for the summary line.
#[derive(Debug, Default)]
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
    /// What the pacing saw: throttled answers and the rate the run settled on.
    pub(super) pacing: Option<Pacing>,
    /// Entries not exit 0 that `--fail-on` left out of the exit status, per name.
    pub(super) left_out: BTreeMap<&'static str, usize>,
}

/// What the progress bar counts: each entry that is not exit 0, under its outcome class
/// (`declined`, `mismatch`, ...) or, for an entry with none, its name; in class order, then
/// the sink's name order.
#[derive(Debug)]
pub(super) struct BarCounts {
    names: &'static [&'static str],
    counts: BTreeMap<(usize, &'static str), usize>,
}

impl BarCounts {
    pub(super) fn new(names: &'static [&'static str]) -> Self {
        BarCounts {
            names,
            counts: BTreeMap::new(),
        }
    }

    pub(super) fn add(&mut self, tally: Tally) {
        let key = match tally.class {
            Some(class) => (class as usize, class.name()),
            None => {
                let at = self.names.iter().position(|n| *n == tally.name);
                (
                    Class::ALL.len() + at.unwrap_or(self.names.len()),
                    tally.name,
                )
            }
        };
        *self.counts.entry(key).or_default() += 1;
    }

    /// `3 declined, 1 not_found, 2 mismatch`; empty while every entry is exit 0.
    pub(super) fn text(&self) -> String {
        self.counts
            .iter()
            .map(|((_, label), n)| format!("{n} {label}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
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

pub(super) fn progress_bar(known_len: Option<usize>, log: &Log) -> ProgressBar {
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
    /// Notes an entry `--fail-on` leaves out of the exit status (one of exit 0 changes
    /// nothing and is not named).
    pub(super) fn leave_out(&mut self, tally: Tally) {
        if tally.exit != Exit::Successful {
            *self.left_out.entry(tally.name).or_default() += 1;
        }
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
        let counts = self
            .names
            .iter()
            .filter_map(|name| self.left_out.get(name).map(|n| format!("{n} {name}")))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "; exit {exit}: {counts} not in --fail-on {}",
            fail_on.names()
        )
    }

    pub(super) fn add(&mut self, tally: Tally, asked: bool) {
        *self.counts.entry(tally.name).or_default() += 1;
        self.asked += usize::from(asked);
        self.total += 1;
        if tally.warned {
            self.with_warnings += 1;
        }
        if tally.carried {
            self.carried += 1;
        }
    }

    pub(super) fn line(&self, elapsed: Duration, stopped: Option<Stopped>) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.total as f64 / secs
        } else {
            0.0
        };
        let counts = self
            .names
            .iter()
            .filter_map(|name| self.counts.get(name).map(|n| format!("{n} {name}")))
            .collect::<Vec<_>>()
            .join(", ");
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
        // How often the service throttled, and the pace it allowed: what to give --rate
        // next time to be throttled less.
        let throttled = match self.pacing {
            Some(Pacing {
                throttled: n @ 1..,
                settled,
                ..
            }) => {
                let answers = if n == 1 { "answer" } else { "answers" };
                let settled = settled
                    .map(|r| format!(", settled at {}", per_second(r)))
                    .unwrap_or_default();
                format!("; {n} {answers} throttled{settled}")
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
        let mut s = Summary {
            names: &crate::domain::outcome::OUTCOME_NAMES,
            noun: ("reference", "references"),
            ..Summary::default()
        };
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
