use std::sync::Arc;

use super::*;
use crate::log::Level;

fn gate(ceiling: Option<f64>) -> Gate {
    Gate::new(ceiling, 4, Log::new(Level::Quiet))
}

#[test]
fn nothing_is_paced_until_the_service_throttles() {
    let gate = gate(None);
    let started = Instant::now();
    for _ in 0..10_000 {
        assert_eq!(gate.admit(None, None), Ok(()));
        gate.answered();
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        gate.pacing(),
        Pacing {
            throttled: 0,
            rate: None,
        }
    );
}

#[test]
fn rate_spaces_attempts() {
    let gate = gate(Some(20.0));
    let started = Instant::now();
    for _ in 0..5 {
        gate.admit(None, None).unwrap();
    }
    // Starts at 0, 50, 100, 150, 200 ms: the fifth starts no earlier than 200 ms.
    assert!(started.elapsed() >= Duration::from_millis(195));
}

#[test]
fn the_first_throttle_paces_below_what_the_service_accepted() {
    let gate = gate(None);
    gate.admit(None, None).unwrap();
    for _ in 0..50 {
        gate.answered();
    }
    std::thread::sleep(Duration::from_millis(100));
    gate.throttled(Instant::now(), 429);
    let pacing = gate.pacing();
    assert_eq!(pacing.throttled, 1);
    // 50 accepted in a little over 100 ms: about 450/s; the pace starts at 0.7 of it.
    let rate = pacing.rate.unwrap();
    assert!(rate > 100.0 && rate < 0.7 * 500.0 + 1.0, "{rate}");
}

#[test]
fn one_episode_of_throttling_cuts_once() {
    let gate = gate(None);
    gate.admit(None, None).unwrap();
    for _ in 0..1000 {
        gate.answered();
    }
    let before = Instant::now();
    std::thread::sleep(Duration::from_millis(20));
    gate.throttled(Instant::now(), 503);
    let cut = gate.pacing().rate.unwrap();
    // Answers to requests sent before the cut: counted, but no further cut.
    for _ in 0..5 {
        gate.throttled(before, 503);
    }
    let after = gate.pacing();
    assert_eq!(after.throttled, 6);
    assert!(after.rate.unwrap() >= cut, "{after:?} after {cut}");
    // A request sent after the cut that is throttled again cuts again.
    gate.throttled(Instant::now(), 503);
    assert!(gate.pacing().rate.unwrap() < cut);
}

#[test]
fn the_curve_drops_to_beta_comes_back_at_k_and_then_climbs() {
    let at = Instant::now();
    let curve = Curve {
        w_max: 50.0,
        cut_at: at,
    };
    let rate = |secs: f64| curve.rate(at + Duration::from_secs_f64(secs));
    assert!((rate(0.0) - 35.0).abs() < 1e-6);
    assert!((rate(Curve::k()) - 50.0).abs() < 1e-6);
    // Flat near w_max, then twice it a little over two seconds after the cut.
    assert!(rate(Curve::k() + 0.3) < 51.0);
    assert!(rate(2.4) > 100.0, "{}", rate(2.4));
    let mut last = 0.0;
    for i in 0..50 {
        let r = rate(f64::from(i) * 0.1);
        assert!(r >= last, "not rising at {i}: {r} < {last}");
        last = r;
    }
    assert!(rate(1e9) <= MAX_PACE);
}

#[test]
fn the_ceiling_caps_the_adaptive_pace() {
    let gate = gate(Some(5.0));
    gate.admit(None, None).unwrap();
    for _ in 0..1000 {
        gate.answered();
    }
    gate.throttled(Instant::now(), 429);
    // Throttled below the ceiling: the pace drops below it too, from it.
    assert!((gate.pacing().rate.unwrap() - 3.5).abs() < 0.01);
    // However long without throttling, the curve never takes the pace above the ceiling.
    let long_ago = Instant::now() - Duration::from_secs(60);
    gate.state.lock().unwrap().curve = Some(Curve {
        w_max: 5.0,
        cut_at: long_ago,
    });
    assert_eq!(gate.pacing().rate, Some(5.0));
}

#[test]
fn a_deadline_refuses_a_wait_that_ends_after_it_without_taking_a_turn() {
    let rated = gate(Some(0.5));
    let now = Instant::now();
    assert_eq!(
        rated.admit(Some(now), None),
        Ok(()),
        "a free start is taken even at the deadline"
    );
    // The next start is 2 s away: refused at once, and the refusal does not move it.
    let asked = Instant::now();
    assert_eq!(
        rated.admit(Some(asked + Duration::from_millis(500)), None),
        Err(Refused::PastDeadline)
    );
    assert!(asked.elapsed() < Duration::from_millis(400));
    let last = rated.state.lock().unwrap().last_start;
    assert!(last.is_some_and(|l| l <= now + Duration::from_millis(100)));
}

#[test]
fn a_stop_ends_every_wait_at_once() {
    let gate = Arc::new(gate(Some(0.001)));
    gate.admit(None, None).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let (gate, stop) = (gate.clone(), stop.clone());
            std::thread::spawn(move || gate.admit(None, Some(&stop)))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let stopped = Instant::now();
    stop.store(true, Ordering::SeqCst);
    for waiter in waiters {
        assert_eq!(waiter.join().unwrap(), Err(Refused::Stopped));
    }
    // The next start was 1000 s away.
    assert!(stopped.elapsed() < Duration::from_secs(5));
    assert_eq!(gate.admit(None, Some(&stop)), Err(Refused::Stopped));
}

#[test]
fn sleeping_ends_when_stopped() {
    let stop = AtomicBool::new(true);
    let started = Instant::now();
    assert!(!sleep_until(started + Duration::from_secs(60), Some(&stop)));
    assert!(sleep_until(Instant::now(), None));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn the_meter_counts_a_sliding_second() {
    let origin = Instant::now();
    let before = Rates {
        answers: 200.0,
        accepted: 100.0,
        accepted_count: 100.0,
    };
    let mut meter = Meter::new(origin, before);
    // Nothing counted yet: the whole window is "before", at its rates.
    assert_eq!(meter.rates(origin), before);
    for i in 0..30 {
        meter.add(origin + Duration::from_millis(1000 + i * 10), i % 3 != 0);
    }
    let later = meter.rates(origin + Duration::from_millis(1350));
    assert!((later.answers - 30.0).abs() < 1e-6, "{later:?}");
    assert!((later.accepted - 20.0).abs() < 1e-6, "{later:?}");
    assert!((later.limit() - 20.0).abs() < 1e-6);
    // A second and more later, those answers have left the window.
    let gone = meter.rates(origin + Duration::from_millis(2500));
    assert!(gone.answers.abs() < 1e-6 && gone.accepted.abs() < 1e-6);
}

#[test]
fn too_few_accepted_answers_to_measure_fall_back_to_all_answers() {
    let rates = Rates {
        answers: 40.0,
        accepted: 2.0,
        accepted_count: 2.0,
    };
    assert_eq!(rates.limit(), 40.0);
    // The very first answer of a run is the throttled one: pacing begins at 0.7 of the
    // rate of answers, not at the floor.
    let gate = gate(None);
    gate.admit(None, None).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    gate.throttled(Instant::now(), 429);
    let rate = gate.pacing().rate.unwrap();
    assert!(rate > MIN_PACE * 2.0, "{rate}");
}

#[test]
fn a_run_of_many_workers_starts_with_four_in_flight_and_grows_one_per_accepted_answer() {
    let gate = Gate::new(None, 16, Log::new(Level::Quiet));
    let soon = || Some(Instant::now() + Duration::from_millis(30));
    for _ in 0..INITIAL_WINDOW {
        assert_eq!(gate.admit(soon(), None), Ok(()));
    }
    // The window is full: a fifth waits for a place, and its deadline comes first.
    assert_eq!(gate.admit(soon(), None), Err(Refused::PastDeadline));
    // An attempt that got no answer frees its place, and grows nothing.
    gate.failed();
    assert_eq!(gate.admit(soon(), None), Ok(()));
    assert_eq!(gate.admit(soon(), None), Err(Refused::PastDeadline));
    // An accepted answer frees its place and makes room for one more.
    gate.answered();
    assert_eq!(gate.admit(soon(), None), Ok(()));
    assert_eq!(gate.admit(soon(), None), Ok(()));
    assert_eq!(gate.admit(soon(), None), Err(Refused::PastDeadline));
    // Once the window reaches the workers, nothing waits for a place.
    for _ in 0..16 {
        gate.answered();
    }
    for _ in 0..100 {
        assert_eq!(gate.admit(soon(), None), Ok(()));
    }
    assert_eq!(gate.pacing().rate, None);
}

#[test]
fn a_throttled_answer_ends_the_slow_start_and_pacing_takes_over() {
    let gate = Gate::new(None, 64, Log::new(Level::Quiet));
    for _ in 0..INITIAL_WINDOW {
        gate.admit(None, None).unwrap();
    }
    let sent = Instant::now();
    for _ in 0..3 {
        gate.answered();
    }
    std::thread::sleep(Duration::from_millis(20));
    gate.throttled(sent, 429);
    assert!(gate.ramped.load(Ordering::Relaxed));
    assert!(gate.pacing().rate.is_some());
}

#[test]
fn a_waiting_worker_starts_when_a_place_frees_and_hears_a_stop() {
    let gate = Arc::new(Gate::new(None, 8, Log::new(Level::Quiet)));
    for _ in 0..INITIAL_WINDOW {
        gate.admit(None, None).unwrap();
    }
    let waiting = {
        let gate = gate.clone();
        std::thread::spawn(move || gate.admit(None, None))
    };
    std::thread::sleep(Duration::from_millis(50));
    assert!(!waiting.is_finished());
    gate.failed();
    assert_eq!(waiting.join().ok(), Some(Ok(())));
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = {
        let (gate, stop) = (gate.clone(), stop.clone());
        std::thread::spawn(move || gate.admit(None, Some(&stop)))
    };
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::SeqCst);
    assert_eq!(stopped.join().ok(), Some(Err(Refused::Stopped)));
}

#[test]
fn a_run_at_the_default_workers_or_under_a_rate_has_no_slow_start() {
    for gate in [
        Gate::new(None, 4, Log::new(Level::Quiet)),
        Gate::new(None, 1, Log::new(Level::Quiet)),
        Gate::new(Some(100_000.0), 64, Log::new(Level::Quiet)),
    ] {
        assert!(gate.ramped.load(Ordering::Relaxed));
    }
}

#[test]
fn an_attempt_that_unwinds_before_it_is_reported_frees_its_place() {
    let gate = Gate::new(None, 16, Log::new(Level::Quiet));
    let soon = || Some(Instant::now() + Duration::from_millis(30));
    for _ in 0..INITIAL_WINDOW {
        assert_eq!(gate.admit(soon(), None), Ok(()));
        drop(gate.unreported());
    }
    // Every place was freed by its guard: a fifth starts at once.
    assert_eq!(gate.admit(soon(), None), Ok(()));
    // A reported attempt frees nothing twice.
    gate.unreported().reported();
    for _ in 0..INITIAL_WINDOW - 1 {
        assert_eq!(gate.admit(soon(), None), Ok(()));
    }
    assert_eq!(gate.admit(soon(), None), Err(Refused::PastDeadline));
}
