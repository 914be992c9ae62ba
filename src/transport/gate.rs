//! Pacing shared by every worker: a common pause after a 429, and an optional request rate.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Decides when the next attempt may start; one per run, shared by all workers.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    paused_until: Mutex<Option<Instant>>,
    rate: Option<Rate>,
}

#[derive(Debug)]
struct Rate {
    interval: Duration,
    next_slot: Mutex<Option<Instant>>,
}

impl Gate {
    /// A gate with no rate limit.
    pub(crate) fn new() -> Self {
        Gate::default()
    }

    /// A gate that starts at most `per_second` attempts per second across all workers.
    pub(crate) fn with_rate(per_second: f64) -> Self {
        Gate {
            paused_until: Mutex::default(),
            rate: Some(Rate {
                // The CLI bounds the rate; a value outside them must still not panic.
                interval: Duration::try_from_secs_f64(1.0 / per_second)
                    .unwrap_or(Duration::from_secs(1000)),
                next_slot: Mutex::default(),
            }),
        }
    }

    /// Blocks until an attempt may start: after any shared pause, in the next rate slot;
    /// unless the attempt could not start by `deadline`: then it returns false at once,
    /// without taking a rate slot, and the caller makes no attempt.
    pub(crate) fn before_attempt_by(&self, deadline: Option<Instant>) -> bool {
        let too_late = |at: Instant| deadline.is_some_and(|d| at > d);
        loop {
            let until = self.paused_until.lock().ok().and_then(|p| *p);
            match until {
                Some(t) if t > Instant::now() => {
                    if too_late(t) {
                        return false;
                    }
                    std::thread::sleep(t - Instant::now());
                }
                _ => break,
            }
        }
        if let Some(rate) = &self.rate {
            let slot = {
                let Ok(mut next) = rate.next_slot.lock() else {
                    return true;
                };
                let now = Instant::now();
                let slot = next.map_or(now, |n| n.max(now));
                if slot > now && too_late(slot) {
                    return false;
                }
                *next = Some(slot + rate.interval);
                slot
            };
            let now = Instant::now();
            if slot > now {
                std::thread::sleep(slot - now);
            }
        }
        true
    }

    /// Makes every worker wait `delay` from now (a 429 with Retry-After is about the
    /// client, not the one request that got it).
    pub(crate) fn pause_all(&self, delay: Duration) {
        if let Ok(mut paused) = self.paused_until.lock() {
            let until = Instant::now() + delay;
            *paused = Some(paused.map_or(until, |p| p.max(until)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_spaces_attempts() {
        let gate = Gate::with_rate(20.0);
        let started = Instant::now();
        for _ in 0..5 {
            gate.before_attempt_by(None);
        }
        // Slots at 0, 50, 100, 150, 200 ms: the fifth starts no earlier than 200 ms.
        assert!(started.elapsed() >= Duration::from_millis(200));
    }

    #[test]
    fn pause_holds_every_caller_and_only_extends() {
        let gate = Gate::new();
        gate.pause_all(Duration::from_millis(150));
        gate.pause_all(Duration::from_millis(10));
        let started = Instant::now();
        gate.before_attempt_by(None);
        assert!(started.elapsed() >= Duration::from_millis(140));
    }

    #[test]
    fn a_deadline_refuses_a_wait_that_ends_after_it_without_taking_a_slot() {
        let gate = Gate::new();
        gate.pause_all(Duration::from_secs(30));
        let started = Instant::now();
        assert!(!gate.before_attempt_by(Some(started + Duration::from_secs(1))));
        assert!(started.elapsed() < Duration::from_secs(1));

        let rated = Gate::with_rate(0.5);
        let now = Instant::now();
        assert!(
            rated.before_attempt_by(Some(now)),
            "a free slot is taken even at the deadline"
        );
        // The next slot is 2 s away: refused, and the refusal does not move it further.
        assert!(!rated.before_attempt_by(Some(Instant::now() + Duration::from_millis(500))));
        let next = rated
            .rate
            .as_ref()
            .and_then(|r| *r.next_slot.lock().unwrap());
        assert!(next.is_some_and(|n| n <= now + Duration::from_millis(2100)));
    }
}
