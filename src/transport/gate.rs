//! Pacing shared by every worker: when the next attempt may start.
//!
//! Nothing is paced until the service throttles (a 429, or a 503): until then the workers
//! (`-j`) are the only limit, and the gate costs two atomic loads per attempt. From the first
//! throttled answer on, the gate sends at a rate that follows the service: cut at once when
//! it throttles, raised again while answers come back, never above `--rate`.
//!
//! Before then, a run with more workers than [`INITIAL_WINDOW`] starts slowly, as TCP does:
//! at most that many attempts in flight at first, one more for each answer the service
//! accepts (so the window doubles every round trip), until it reaches `-j` or the service
//! throttles. Sixteen workers sent at once against a limit that allows a burst of ten would
//! be six throttled answers before the first one could slow anything down; the slow start
//! meets the limit with a few, and costs an unthrottled run a dozen answers' time.
//!
//! The rate follows a CUBIC curve, as in the AWS SDKs' "adaptive" retry mode (itself TCP
//! CUBIC, RFC 9438, applied to a request rate): on a throttled answer to a request sent at
//! the current rate, the rate the service was accepting becomes `w_max` and the rate drops to
//! `BETA * w_max`; then it grows as `w_max * (1 + C * (t - K)^3)`, which climbs back quickly,
//! flattens near `w_max` (where the last throttling began, so it lingers where the limit is)
//! and then accelerates to find a limit that was raised. Why this one:
//! - the signal is explicit throttling, not latency (a rate-limited gateway answers a
//!   throttled request as fast as an accepted one), so Netflix-style latency limits see
//!   nothing;
//! - Google SRE's client-side throttling rejects requests locally with a probability, which
//!   suits a client that can drop work; payverify must verify every reference, so it must
//!   slow down instead;
//! - AIMD's straight-line increase is either too slow to find a raised limit (50/s to 100/s)
//!   or too fast near the limit, where it then throttles again every few seconds; CUBIC's
//!   plateau around `w_max` gives both.
//!
//! Unlike the SDKs, the curve is relative to `w_max` (`C` is a fraction of it per second
//! cubed), so its timing is the same at 5/s as at 500/s: about 0.9 s back to `w_max`, and
//! twice it 2.3 s after a cut. One throttling episode cuts once: answers to requests sent
//! before the last cut do not cut again (as TCP reduces once per window of loss).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::log::Log;

/// The fraction of `w_max` the rate drops to when the service throttles (CUBIC's beta).
const BETA: f64 = 0.7;
/// How fast the rate grows back, as a fraction of `w_max` per second cubed (CUBIC's C).
const GROWTH: f64 = 0.4;
/// The slowest the gate paces: one attempt every two seconds across all workers.
pub(crate) const MIN_PACE: f64 = 0.5;
/// The fastest rate the gate ever names: beyond it, pacing does not hold anything back.
const MAX_PACE: f64 = 100_000.0;
/// How often a waiting worker looks at the stop flag and its deadline.
const POLL: Duration = Duration::from_millis(25);
/// The window over which the rate of accepted answers is measured.
const WINDOW: Duration = Duration::from_secs(1);
/// The buckets that window is counted in.
const BUCKETS: usize = 10;
/// Attempts in flight at the start of a run, before the service has throttled: the default
/// `-j`, so a run at the default starts as it always did.
const INITIAL_WINDOW: u32 = 4;
/// A rate change `-v` reports: a cut always; growth once it is this much above the last
/// rate reported.
const REPORTED_GROWTH: f64 = 1.1;

/// Why an attempt may not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The attempt could not start before the caller's deadline.
    PastDeadline,
    /// The run is stopping (a signal, or the reader of stdout went away).
    Stopped,
}

/// What the gate has seen, for the progress bar and the summary line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pacing {
    /// Throttled answers so far (429 and 503).
    pub(crate) throttled: u64,
    /// The rate attempts start at now, requests per second; `None` before any throttling.
    pub(crate) rate: Option<f64>,
}

/// Decides when the next attempt may start; one per run, shared by all workers.
#[derive(Debug)]
pub(crate) struct Gate {
    /// `--rate`: never more attempts per second than this.
    ceiling: Option<f64>,
    /// Set at the first throttled answer: from then on every attempt is paced.
    engaged: AtomicBool,
    /// Set once the slow start is over (the window reached the workers, or the service
    /// throttled): from then on, until pacing is engaged, nothing holds an attempt back.
    ramped: AtomicBool,
    /// The workers (`-j`): the slow start's window grows up to it.
    pool: u32,
    /// Answers that were not throttled, counted before pacing was engaged (one atomic add:
    /// an unthrottled run pays nothing more).
    accepted_before: AtomicU64,
    /// Throttled answers, all run long.
    throttled: AtomicU64,
    /// When the first attempt was admitted: what `accepted_before` is a rate over.
    first: OnceLock<Instant>,
    state: Mutex<State>,
    /// Wakes the next worker waiting to be the one at the head of the queue.
    turn: Condvar,
    log: Log,
}

#[derive(Debug)]
struct State {
    /// When the last attempt was admitted (paced or under `--rate`).
    last_start: Option<Instant>,
    /// A worker is waiting for the next start; the others wait behind it.
    head_taken: bool,
    curve: Option<Curve>,
    meter: Meter,
    /// The rate `-v` last reported.
    reported: f64,
    /// The slow start: attempts in flight, and how many may be.
    in_flight: u32,
    window: u32,
}

/// The CUBIC curve since the last cut.
#[derive(Debug, Clone, Copy)]
struct Curve {
    w_max: f64,
    /// When the last cut happened: answers to requests sent before it do not cut again.
    cut_at: Instant,
}

impl Curve {
    fn k() -> f64 {
        ((1.0 - BETA) / GROWTH).cbrt()
    }

    fn rate(&self, now: Instant) -> f64 {
        let t = now.saturating_duration_since(self.cut_at).as_secs_f64() - Curve::k();
        (self.w_max * (1.0 + GROWTH * t * t * t)).clamp(MIN_PACE, MAX_PACE)
    }
}

/// Answers per bucket over the last [`WINDOW`], once pacing is engaged: all of them, and
/// those the service accepted (not throttled).
#[derive(Debug)]
struct Meter {
    origin: Instant,
    counts: [Counts; BUCKETS],
    /// The number of the newest bucket counted into.
    newest: u64,
    /// The rates measured before pacing began, standing in for the part of the window that
    /// lies before it.
    before: Rates,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    answers: u32,
    accepted: u32,
}

/// Answers per second, all and accepted, and how many were accepted (how much the accepted
/// rate can be trusted).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Rates {
    answers: f64,
    accepted: f64,
    accepted_count: f64,
}

/// Fewest accepted answers a rate is taken from; with fewer (the first answer of a run can
/// be the throttled one), the rate of all answers stands in.
const MEASURABLE: f64 = 5.0;

impl Rates {
    /// Where the service's limit was found: the rate it accepted, when there were enough
    /// accepted answers to tell; otherwise the rate it answered at, an upper bound.
    fn limit(&self) -> f64 {
        match self.accepted_count >= MEASURABLE {
            true => self.accepted,
            false => self.answers,
        }
    }
}

impl Meter {
    fn new(origin: Instant, before: Rates) -> Self {
        Meter {
            origin,
            counts: [Counts::default(); BUCKETS],
            newest: 0,
            before,
        }
    }

    fn bucket_len() -> Duration {
        WINDOW / BUCKETS as u32
    }

    fn bucket(&self, now: Instant) -> u64 {
        (now.saturating_duration_since(self.origin).as_nanos() / Meter::bucket_len().as_nanos())
            as u64
    }

    fn advance(&mut self, to: u64) {
        if to >= self.newest + BUCKETS as u64 {
            self.counts = [Counts::default(); BUCKETS];
        } else {
            for b in self.newest + 1..=to {
                self.counts[(b % BUCKETS as u64) as usize] = Counts::default();
            }
        }
        self.newest = self.newest.max(to);
    }

    fn add(&mut self, now: Instant, accepted: bool) {
        let b = self.bucket(now);
        self.advance(b);
        let slot = &mut self.counts[(b % BUCKETS as u64) as usize];
        slot.answers = slot.answers.saturating_add(1);
        slot.accepted = slot.accepted.saturating_add(u32::from(accepted));
    }

    /// Answers per second over the last window; the part of the window before pacing began
    /// counts at the rates measured then.
    fn rates(&mut self, now: Instant) -> Rates {
        let b = self.bucket(now);
        self.advance(b);
        let (answers, accepted) = self
            .counts
            .iter()
            .fold((0u32, 0u32), |(n, a), c| (n + c.answers, a + c.accepted));
        let since = now.saturating_duration_since(self.origin).min(WINDOW);
        let share = (WINDOW - since).as_secs_f64() / WINDOW.as_secs_f64();
        let window = WINDOW.as_secs_f64();
        Rates {
            answers: f64::from(answers) / window + share * self.before.answers,
            accepted: f64::from(accepted) / window + share * self.before.accepted,
            accepted_count: f64::from(accepted) + share * self.before.accepted_count,
        }
    }
}

impl Gate {
    /// A gate for `pool` workers that paces only once the service throttles, and never
    /// above `ceiling` (`--rate`) when one is given; `log` gets a `-v` line for each change
    /// of rate. Under a ceiling there is no slow start: the rate is known from the first
    /// attempt.
    pub(crate) fn new(ceiling: Option<f64>, pool: usize, log: Log) -> Self {
        let now = Instant::now();
        let pool = u32::try_from(pool).unwrap_or(u32::MAX);
        Gate {
            ceiling,
            engaged: AtomicBool::new(false),
            ramped: AtomicBool::new(ceiling.is_some() || pool <= INITIAL_WINDOW),
            pool,
            accepted_before: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
            first: OnceLock::new(),
            state: Mutex::new(State {
                last_start: None,
                head_taken: false,
                curve: None,
                meter: Meter::new(now, Rates::default()),
                reported: 0.0,
                in_flight: 0,
                window: INITIAL_WINDOW,
            }),
            turn: Condvar::new(),
            log,
        }
    }

    /// Blocks until an attempt may start: at once while nothing is paced, else in its turn
    /// at the current rate. Refused, without taking a turn, when it could not start by
    /// `deadline`, or when `stop` is set (checked while waiting, so a stop ends the wait at
    /// once).
    pub(crate) fn admit(
        &self,
        deadline: Option<Instant>,
        stop: Option<&AtomicBool>,
    ) -> Result<(), Refused> {
        let stopped = || stop.is_some_and(|s| s.load(Ordering::SeqCst));
        if stopped() {
            return Err(Refused::Stopped);
        }
        if self.ceiling.is_none() && !self.engaged.load(Ordering::Relaxed) {
            if !self.ramped.load(Ordering::Relaxed) {
                return self.slow_start(deadline, stop);
            }
            self.first.get_or_init(Instant::now);
            return Ok(());
        }
        let Ok(mut state) = self.state.lock() else {
            return Ok(());
        };
        // One worker at a time waits for the next start, so the start is timed at the rate
        // of the moment it comes (a cut or a rise applies at once, not after the turns
        // already handed out).
        while state.head_taken {
            state = match self.nap(state, deadline, &stopped) {
                Ok(guard) => guard,
                Err(refused) => return refused,
            };
        }
        state.head_taken = true;
        let admitted = loop {
            let now = Instant::now();
            let Some(rate) = self.rate_at(&state, now) else {
                break Ok(now);
            };
            let start = state.last_start.map_or(now, |last| last + secs(1.0 / rate));
            if start <= now {
                // Late by more than one interval (the workers were all busy): start now,
                // without a burst to make up for the time.
                let start = match now.saturating_duration_since(start) > secs(1.0 / rate) {
                    true => now,
                    false => start,
                };
                break Ok(start);
            }
            if deadline.is_some_and(|d| start > d) {
                break Err(Refused::PastDeadline);
            }
            if stopped() {
                break Err(Refused::Stopped);
            }
            let nap = (start - now).min(POLL);
            state = match self.turn.wait_timeout(state, nap) {
                Ok((guard, _)) => guard,
                Err(_) => return Ok(()),
            };
        };
        state.head_taken = false;
        let result = admitted.map(|start| state.last_start = Some(start));
        drop(state);
        self.turn.notify_one();
        self.first.get_or_init(Instant::now);
        result
    }

    /// [`Gate::admit`] during the slow start: waits until fewer attempts are in flight than
    /// the window allows (or the slow start ends), then counts this one in.
    fn slow_start(
        &self,
        deadline: Option<Instant>,
        stop: Option<&AtomicBool>,
    ) -> Result<(), Refused> {
        let stopped = || stop.is_some_and(|s| s.load(Ordering::SeqCst));
        let Ok(mut state) = self.state.lock() else {
            return Ok(());
        };
        loop {
            if self.ramped.load(Ordering::Relaxed) || self.engaged.load(Ordering::Relaxed) {
                drop(state);
                return self.admit(deadline, stop);
            }
            if state.in_flight < state.window {
                state.in_flight += 1;
                self.first.get_or_init(Instant::now);
                return Ok(());
            }
            state = match self.nap(state, deadline, &stopped) {
                Ok(guard) => guard,
                Err(refused) => return refused,
            };
        }
    }

    /// Waits (at most [`POLL`]) for the state to change, unless the run is stopping or
    /// `deadline` has passed: the state again, or what [`Gate::admit`] is to return (a
    /// poisoned lock admits, as everywhere here).
    fn nap<'a>(
        &self,
        state: MutexGuard<'a, State>,
        deadline: Option<Instant>,
        stopped: &dyn Fn() -> bool,
    ) -> Result<MutexGuard<'a, State>, Result<(), Refused>> {
        if stopped() {
            return Err(Err(Refused::Stopped));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Err(Refused::PastDeadline));
        }
        match self.turn.wait_timeout(state, POLL) {
            Ok((guard, _)) => Ok(guard),
            Err(_) => Err(Ok(())),
        }
    }

    /// An attempt admitted during the slow start has ended: its place is free, and, when
    /// the service accepted it (`grow`), the window is one larger; the slow start ends when
    /// the window reaches the workers.
    fn landed(&self, state: &mut State, grow: bool) {
        if self.ramped.load(Ordering::Relaxed) {
            return;
        }
        state.in_flight = state.in_flight.saturating_sub(1);
        if grow {
            state.window = state.window.saturating_add(1);
            if state.window >= self.pool {
                self.ramped.store(true, Ordering::Relaxed);
            }
        }
        self.turn.notify_all();
    }

    /// A guard for an admitted attempt: if it is dropped before [`Unreported::reported`]
    /// (the exchange panicked and unwound), the attempt counts as [`Gate::failed`], so its
    /// place in the slow start is freed and no worker waits for it forever.
    pub(crate) fn unreported(&self) -> Unreported<'_> {
        Unreported(Some(self))
    }

    /// An attempt that got no answer (a network error, a timeout) has ended.
    pub(crate) fn failed(&self) {
        if self.ramped.load(Ordering::Relaxed) {
            return;
        }
        if let Ok(mut state) = self.state.lock() {
            self.landed(&mut state, false);
        }
    }

    /// The rate attempts start at now, if anything paces them.
    fn rate_at(&self, state: &State, now: Instant) -> Option<f64> {
        let curve = state.curve.map(|c| c.rate(now));
        match (curve, self.ceiling) {
            (Some(c), Some(max)) => Some(c.min(max)),
            (c, max) => c.or(max),
        }
    }

    /// An answer that was not throttled came back.
    pub(crate) fn answered(&self) {
        if !self.engaged.load(Ordering::Relaxed) {
            self.accepted_before.fetch_add(1, Ordering::Relaxed);
            if !self.ramped.load(Ordering::Relaxed)
                && let Ok(mut state) = self.state.lock()
            {
                self.landed(&mut state, true);
            }
            return;
        }
        let now = Instant::now();
        if let Ok(mut state) = self.state.lock() {
            state.meter.add(now, true);
            self.report_growth(&mut state, now);
        }
    }

    /// A throttled answer (`status` 429 or 503) came back to a request sent at `sent`:
    /// the rate is cut, unless the request was sent before the last cut (one episode of
    /// throttling cuts once).
    pub(crate) fn throttled(&self, sent: Instant, status: u16) {
        self.throttled.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        // The service has a limit: the slow start is over, and pacing takes over below.
        if !self.ramped.load(Ordering::Relaxed) {
            self.landed(&mut state, false);
            self.ramped.store(true, Ordering::Relaxed);
        }
        if state.curve.is_some_and(|c| sent < c.cut_at) {
            state.meter.add(now, false);
            return;
        }
        let was = self.rate_at(&state, now);
        // What the service accepted over the last second: where its limit was found.
        let rates = match self.engaged.swap(true, Ordering::Relaxed) {
            true => {
                state.meter.add(now, false);
                state.meter.rates(now)
            }
            false => {
                let first = self.first.get().copied().unwrap_or(now);
                let elapsed = now.saturating_duration_since(first).as_secs_f64();
                let accepted = self.accepted_before.load(Ordering::Relaxed) as f64;
                let per = |n: f64| match elapsed > 0.0 {
                    true => n / elapsed,
                    false => n,
                };
                let before = Rates {
                    answers: per(accepted + 1.0),
                    accepted: per(accepted),
                    accepted_count: accepted,
                };
                state.meter = Meter::new(now, before);
                before
            }
        };
        let found = rates.limit();
        let w_max = match was {
            Some(rate) => rate.min(found),
            None => found,
        }
        .max(MIN_PACE);
        state.curve = Some(Curve { w_max, cut_at: now });
        let rate = self.rate_at(&state, now).unwrap_or(w_max);
        state.reported = rate;
        self.log.trace(|| match was {
            Some(was) => format!(
                "pacing: HTTP {status} (throttled): {} (was {}; the service accepted {} over \
                 the last second)",
                per_second(rate),
                per_second(was),
                per_second(rates.accepted)
            ),
            None => format!(
                "pacing: HTTP {status} (throttled): pacing begins at {} (the service accepted \
                 {} so far)",
                per_second(rate),
                per_second(rates.accepted)
            ),
        });
        drop(state);
        self.turn.notify_all();
    }

    /// A `-v` line when the rate has grown a tenth past the rate last reported.
    fn report_growth(&self, state: &mut State, now: Instant) {
        let Some(rate) = self.rate_at(state, now) else {
            return;
        };
        let capped = self.ceiling.is_some_and(|max| rate >= max);
        if rate >= state.reported * REPORTED_GROWTH || (capped && state.reported < rate) {
            let since = state
                .curve
                .map_or(Duration::ZERO, |c| now.saturating_duration_since(c.cut_at));
            let why = match capped {
                true => " (the --rate ceiling)".to_owned(),
                false => format!(", {:.1}s without throttling", since.as_secs_f64()),
            };
            self.log
                .trace(|| format!("pacing: raised to {}{why}", per_second(rate)));
            state.reported = rate;
        }
    }

    /// What the gate has seen so far.
    pub(crate) fn pacing(&self) -> Pacing {
        let throttled = self.throttled.load(Ordering::Relaxed);
        if !self.engaged.load(Ordering::Relaxed) {
            return Pacing {
                throttled,
                rate: None,
            };
        }
        let now = Instant::now();
        let state = self.state.lock().ok();
        Pacing {
            throttled,
            rate: state.as_ref().and_then(|s| self.rate_at(s, now)),
        }
    }
}

/// See [`Gate::unreported`].
pub(crate) struct Unreported<'a>(Option<&'a Gate>);

impl Unreported<'_> {
    /// The attempt's end was told to the gate (answered, throttled or failed).
    pub(crate) fn reported(mut self) {
        self.0 = None;
    }
}

impl Drop for Unreported<'_> {
    fn drop(&mut self) {
        if let Some(gate) = self.0 {
            gate.failed();
        }
    }
}

/// A rate as people read it: `47/s`, `2.5/s`.
pub(crate) fn per_second(rate: f64) -> String {
    match rate >= 10.0 {
        true => format!("{rate:.0}/s"),
        false => format!("{rate:.1}/s"),
    }
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(1000))
}

/// Sleeps until `until`, waking early when `stop` is set; false when it was.
pub(crate) fn sleep_until(until: Instant, stop: Option<&AtomicBool>) -> bool {
    loop {
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(POLL));
    }
}

#[cfg(test)]
mod tests;
