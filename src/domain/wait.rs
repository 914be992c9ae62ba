//! `--wait`: when a not-final transaction is asked again, when the asking stops, and what
//! one check comes to when an answer is already in hand.
//!
//! The schedule and that rule live here; the batch engine (one reference is a batch of
//! one) parks a waiting reference in its work queue, so no worker sleeps.

use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, Instant};

use crate::domain::outcome::{Outcome, Verdict};
use crate::reference::Reference;
use crate::transport::client::Ended;

/// What one request for a reference comes to, given the answer in hand (`--wait`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check {
    /// The verdict to go on with: an answer, or, with nothing in hand, whatever the asking
    /// came to (UNAVAILABLE included).
    Answer(Verdict),
    /// The service gave no answer (unavailable, throttled, cut at the deadline, whatever
    /// `--retries` is): the answer in hand stands, and the wait goes on. `why` says what
    /// happened, for messages.
    Kept {
        /// The answer in hand.
        last: Verdict,
        /// Why this check left it standing.
        why: String,
        /// When the service's Retry-After lets the reference be asked again, if it said.
        not_before: Option<Instant>,
    },
    /// The run is stopping: the answer in hand, if any, is all there is (a waiting
    /// reference stays NOT_FINAL; one never answered is not verified).
    Stopped(Option<Verdict>),
}

/// The rule after each request: a signal keeps the answer in hand;
/// a request that got no answer keeps it too, so `--wait`'s result depends on what the
/// service said, never on how many retries a failed check had; anything the service did
/// say replaces it.
pub(crate) fn settle(
    checked: Verdict,
    ended: &Ended,
    last: Option<Verdict>,
    reference: &Reference,
) -> Check {
    match (ended, last) {
        (Ended::Stopped, last) => Check::Stopped(last),
        (_, Some(last)) if matches!(checked.outcome, Outcome::Unavailable { .. }) => Check::Kept {
            why: checked.outcome.message(reference),
            last,
            not_before: match ended {
                Ended::Deadline(_, retry_at) => *retry_at,
                _ => None,
            },
        },
        _ => Check::Answer(checked),
    }
}

/// The transaction status of a not-final verdict, quoted, for messages.
pub(crate) fn status_of(verdict: &Verdict) -> String {
    verdict
        .outcome
        .verification()
        .and_then(|v| v.status.as_deref())
        .map_or_else(|| "-".to_owned(), crate::terminal::quoted)
}

/// The pause before the second request for a reference.
pub(crate) const FIRST_PAUSE: Duration = Duration::from_secs(2);
/// The longest pause between two requests for a reference.
pub(crate) const LONGEST_PAUSE: Duration = Duration::from_secs(30);

/// Test-only, read by debug builds alone: a first pause in milliseconds shorter than
/// [`FIRST_PAUSE`], so that an end-to-end test sees a reference settle, a countdown or a
/// check made while waiting without sitting out two seconds each time.
#[cfg(debug_assertions)]
const DEBUG_FIRST_PAUSE_VAR: &str = "PAYVERIFY_DEBUG_WAIT_FIRST_PAUSE_MS";

/// The pause before the second request: [`FIRST_PAUSE`].
///
/// Debug builds (the binary `cargo test` runs end to end) honour
/// `PAYVERIFY_DEBUG_WAIT_FIRST_PAUSE_MS`, and only to shorten it; the later pauses double
/// from it as they do from 2 s. Release builds compile the variable out, so it cannot
/// change what a shipped binary does (`scripts/check-release.sh` checks that no release
/// binary holds a `PAYVERIFY_DEBUG_` name).
fn first_pause() -> Duration {
    #[cfg(debug_assertions)]
    let asked = std::env::var(DEBUG_FIRST_PAUSE_VAR).ok();
    #[cfg(not(debug_assertions))]
    let asked: Option<String> = None;
    shortened_first_pause(asked.as_deref())
}

/// [`FIRST_PAUSE`], or `asked` milliseconds when that is a number and shorter.
fn shortened_first_pause(asked: Option<&str>) -> Duration {
    asked
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(FIRST_PAUSE, |ms| Duration::from_millis(ms).min(FIRST_PAUSE))
}

/// One reference's polling: started at its first request, ending at `limit` after it.
#[derive(Debug, Clone)]
pub(crate) struct Polls {
    started: Instant,
    limit: Duration,
    /// The first pause, which the later ones double from.
    first: Duration,
    /// Pauses taken so far.
    taken: u32,
    /// Not asked again before this: the service's Retry-After on the last check.
    not_before: Option<Instant>,
    jitter: RandomState,
}

impl Polls {
    /// Polling that began at `started` (the first request) and may go on for `limit`.
    pub(crate) fn new(started: Instant, limit: Duration) -> Self {
        Polls {
            started,
            limit,
            first: first_pause(),
            taken: 0,
            not_before: None,
            jitter: RandomState::new(),
        }
    }

    /// Requests made so far, counting the first.
    pub(crate) fn requests(&self) -> u32 {
        self.taken + 1
    }

    /// When the asking stops.
    pub(crate) fn deadline(&self) -> Instant {
        self.started + self.limit
    }

    /// The service asked (Retry-After) not to be asked again before `at`: the next pause
    /// lasts until then at least, and a reference it holds past the deadline is not asked
    /// again at all.
    pub(crate) fn hold_until(&mut self, at: Instant) {
        self.not_before = Some(self.not_before.map_or(at, |t| t.max(at)));
    }

    /// Whether the reference may be asked at `now`: false while the service's Retry-After
    /// holds it (then the answer in hand is the last).
    pub(crate) fn may_ask(&self, now: Instant) -> bool {
        self.not_before.is_none_or(|t| t <= now)
    }

    /// The pause before the next request after a not-final answer at `now`, or `None` when
    /// the deadline has come (the answer at hand is the last). 2 s doubling up to 30 s, each
    /// jittered by ±20 % so that references started together spread out, and never past the
    /// deadline: the last request is made at it.
    pub(crate) fn next_pause(&mut self, now: Instant) -> Option<Duration> {
        let left = self.deadline().saturating_duration_since(now);
        if left.is_zero() {
            return None;
        }
        let base = self
            .first
            .saturating_mul(1u32 << self.taken.min(8))
            .min(LONGEST_PAUSE);
        // A factor from 0.8 to 1.2.
        let spread = (self.jitter.hash_one(self.taken) % 401) as f64 / 1000.0 + 0.8;
        let held = self
            .not_before
            .map_or(Duration::ZERO, |t| t.saturating_duration_since(now));
        let pause = base.mul_f64(spread).min(LONGEST_PAUSE).max(held).min(left);
        self.taken += 1;
        Some(pause)
    }
}

/// A duration as people write it, rounded to whole seconds (`3m 12s`), for status lines.
pub(crate) fn human(d: Duration) -> String {
    let secs = d.as_secs() + u64::from(d.subsec_millis() >= 500);
    humantime::format_duration(Duration::from_secs(secs))
        .to_string()
        .replace(' ', "")
}

/// A duration exactly as long as it is, in humantime's words (`5m`, `1h 30m`, `1s 500ms`,
/// `1ns`): for a wait the user gave, which may be shorter than a second.
pub(crate) fn exact(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_from_2s_to_30s_with_jitter_and_stop_at_the_deadline() {
        let start = Instant::now();
        let mut polls = Polls::new(start, Duration::from_secs(3600));
        let mut at = start;
        let mut pauses = Vec::new();
        for _ in 0..8 {
            let pause = polls.next_pause(at).unwrap();
            pauses.push(pause);
            at += pause;
        }
        let bounds = [2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0, 30.0];
        for (pause, base) in pauses.iter().zip(bounds) {
            let s = pause.as_secs_f64();
            assert!(
                s >= base * 0.8 - 1e-9 && s <= (base * 1.2).min(30.0) + 1e-9,
                "{pauses:?}"
            );
        }
        assert_eq!(polls.requests(), 9);

        let mut short = Polls::new(start, Duration::from_secs(3));
        assert!(short.next_pause(start).unwrap() <= Duration::from_millis(2400));
        // Never past the deadline: the pause ends at it, then there is none.
        let near = start + Duration::from_millis(2900);
        assert_eq!(short.next_pause(near), Some(Duration::from_millis(100)));
        assert_eq!(short.next_pause(start + Duration::from_secs(3)), None);
        assert_eq!(short.next_pause(start + Duration::from_secs(99)), None);
    }

    #[test]
    fn the_debug_first_pause_only_shortens() {
        assert_eq!(shortened_first_pause(None), FIRST_PAUSE);
        assert_eq!(shortened_first_pause(Some("soon")), FIRST_PAUSE);
        assert_eq!(shortened_first_pause(Some("60000")), FIRST_PAUSE);
        assert_eq!(
            shortened_first_pause(Some(" 200 ")),
            Duration::from_millis(200)
        );
    }

    #[test]
    fn jitter_spreads_references_started_together() {
        let start = Instant::now();
        let firsts: std::collections::HashSet<_> = (0..20)
            .map(|_| Polls::new(start, Duration::from_secs(60)).next_pause(start))
            .collect();
        assert!(firsts.len() > 1, "{firsts:?}");
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(Duration::from_secs(300)), "5m");
        assert_eq!(human(Duration::from_millis(192_400)), "3m12s");
        assert_eq!(human(Duration::from_millis(7_600)), "8s");
        assert_eq!(human(Duration::ZERO), "0s");
        assert_eq!(exact(Duration::from_nanos(1)), "1ns");
        assert_eq!(exact(Duration::from_millis(1_500)), "1s 500ms");
        assert_eq!(exact(Duration::from_secs(5400)), "1h 30m");
    }
}
