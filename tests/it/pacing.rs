//! Issue 26: a throttling service. Adaptive pacing, throttled answers that never use up
//! --retries, --give-up-after, what the run shows, and the throttling sandbox. Every test
//! judges by counts (the sandbox's own per-second counts, the records), never by how fast.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

/// `payverify sandbox -q` with `args`: no line per request on its stderr, which nobody
/// reads while it runs.
fn quiet_sandbox(args: &[&str]) -> Standalone {
    let mut all = vec!["-q"];
    all.extend_from_slice(args);
    Standalone::start(&all)
}

/// `payverify verify` against a standalone sandbox.
fn verify_at(sandbox: &Standalone) -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_BASE_URL", &sandbox.url)
        .env("PAYVERIFY_CLIENT_ID", "sandbox")
        .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret");
    cmd
}

/// The sandbox's counts: `GET /sandbox/stats`.
fn stats(sandbox: &Standalone) -> Value {
    let (status, body) = raw_get(sandbox.addr(), "/sandbox/stats", None);
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn references(n: usize, prefix: &str) -> String {
    (0..n)
        .map(|i| format!("SANDBOX-OK-{prefix}{i}\n"))
        .collect()
}

/// The summary line's count of throttled answers (`; the service asked to slow down N
/// times`, or `once`), 0 without one.
fn throttled_in_summary(stderr: &str) -> u64 {
    let Some((_, after)) = stderr.split_once("; the service asked to slow down ") else {
        return 0;
    };
    if after.starts_with("once") {
        return 1;
    }
    let word = after.split(' ').next().unwrap_or("");
    word.parse()
        .unwrap_or_else(|_| panic!("no count after 'slow down': {stderr}"))
}

/// At -j 64 against a limit the workers could exceed many times over, with 429 and
/// Retry-After, and with 503 and none: every reference verified, exit 0, throttled answers
/// a small share of the requests, and the summary's count is the server's.
#[test]
fn at_j_64_throttling_gives_no_reference_up_and_stays_under_a_bound() {
    let runs = [
        (
            "429",
            vec!["--rate-limit-status", "429", "--retry-after", "1"],
        ),
        (
            "503",
            vec!["--rate-limit-status", "503", "--retry-after", "none"],
        ),
    ];
    let handles: Vec<_> = runs
        .into_iter()
        .map(|(name, flags)| {
            std::thread::spawn(move || {
                let mut args = vec![
                    "--rate-limit",
                    "200/s",
                    "--burst",
                    "10",
                    "--latency-ms",
                    "5",
                ];
                args.extend(flags);
                let sandbox = quiet_sandbox(&args);
                let n = 600;
                let out = verify_at(&sandbox)
                    .args(["verify", "-", "-j", "64", "-o", "jsonl", "--retries", "0"])
                    .write_stdin(references(n, name))
                    .output()
                    .unwrap();
                let stderr = stderr_of(&out);
                assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
                let records = jsonl(&out.stdout);
                assert_eq!(records.len(), n, "{name}");
                assert!(
                    records.iter().all(|r| r["outcome"] == "SUCCESSFUL"),
                    "{name}: {stderr}"
                );
                let stats = stats(&sandbox);
                let requests = stats["requests"].as_u64().unwrap();
                let throttled = stats["throttled"].as_u64().unwrap();
                assert_eq!(requests, n as u64 + throttled, "{name}: {stats}");
                assert_eq!(throttled_in_summary(&stderr), throttled, "{name}: {stderr}");
                // Unpaced, 64 workers at 5 ms send thousands a second against 200: about
                // half the answers throttled with Retry-After: 1 (each throttled reference
                // waits its second), nearly all without. Paced: the first wave (64 at once
                // against a burst of 10, some 54 throttled before any answer came back) and
                // a few more.
                eprintln!("{name}: {throttled} of {requests} throttled");
                assert!(
                    throttled * 100 <= requests * 25,
                    "{name}: {throttled} of {requests} throttled"
                );
                assert!(
                    stderr.contains("; the run finished at "),
                    "{name}: {stderr}"
                );
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

/// `--rate` is a ceiling the adaptive pace never crosses: against a service that never
/// throttles, and against one that throttles at 10/s and then lifts its limit part way
/// (the pace is cut, then its curve grows on, far past 30/s within seconds, and must stop
/// at the ceiling). Counted per second on the server side; a second may hold one request
/// more than the rate as requests sent on time arrive a few milliseconds apart.
#[test]
fn rate_is_never_exceeded_counted_per_second_by_the_server() {
    let cases = [
        ("free", vec!["--rate-limit", "100000/s"], 20.0, 60),
        (
            "lifted",
            vec!["--rate-limit", "10/s", "--burst", "2"],
            30.0,
            180,
        ),
    ];
    let handles: Vec<_> = cases
        .into_iter()
        .map(|(name, flags, rate, n)| {
            std::thread::spawn(move || {
                let sandbox = quiet_sandbox(&flags);
                let mut cmd = verify_at(&sandbox);
                cmd.args(["verify", "-", "-j", "16", "-q", "--rate"])
                    .arg(rate.to_string())
                    .write_stdin(references(n, name));
                let run = std::thread::spawn(move || cmd.output().unwrap());
                if name == "lifted" {
                    // Once the service has throttled (pacing is on), the limit goes.
                    let deadline = Instant::now() + Duration::from_secs(20);
                    while stats(&sandbox)["throttled"].as_u64() == Some(0) {
                        assert!(Instant::now() < deadline, "never throttled");
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    let lift = "/sandbox/rate-limit?rate=off";
                    assert_eq!(raw_request(sandbox.addr(), "POST", lift, None).0, 200);
                }
                let out = run.join().unwrap();
                assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr_of(&out));
                let stats = stats(&sandbox);
                let seconds = stats["per_second"].as_array().unwrap();
                let busiest = seconds
                    .iter()
                    .map(|s| s[0].as_u64().unwrap())
                    .max()
                    .unwrap();
                assert!(
                    busiest as f64 <= rate + 1.0,
                    "{name}: {busiest} requests in one second under --rate {rate}: {stats}"
                );
                assert!(stats["requests"].as_u64().unwrap() >= n as u64);
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

/// Throttled answers never use up --retries: with `--retries 0` a reference the service
/// throttles is asked again until --give-up-after, then it is UNAVAILABLE (exit 7) saying
/// so; `--give-up-after 0` asks once; and --wait, when it ends first, is the deadline.
#[test]
fn throttled_answers_use_no_retries_and_give_up_at_the_deadline() {
    let sandbox = quiet_sandbox(&["--rate-limit", "0.001/s", "--burst", "1"]);
    // The bucket's one token goes to a first reference.
    verify_at(&sandbox)
        .args(["verify", "-q", "SANDBOX-OK-first"])
        .assert()
        .code(0);
    let started = Instant::now();
    let out = verify_at(&sandbox)
        .args(["verify", "SANDBOX-OK-second", "--retries", "0"])
        .args(["--give-up-after", "2s"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert_eq!(stdout_of(&out), "");
    assert!(
        stderr.contains("HTTP 429 (rate limited): too many requests (sandbox: rate limit) after ")
            && stderr.contains(
                " attempts, all throttled; still throttled at the --give-up-after deadline"
            ),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let asked = stats(&sandbox)["throttled"].as_u64().unwrap();
    // Retry-After: 1 within 2 s: asked twice at least, although --retries is 0.
    assert!(asked >= 2, "{asked}");

    let out = verify_at(&sandbox)
        .args(["verify", "SANDBOX-OK-third", "--give-up-after", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert!(
        stderr_of(&out).contains(
            "after 1 attempt, throttled; still throttled at the --give-up-after deadline"
        ),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(stats(&sandbox)["throttled"].as_u64().unwrap(), asked + 1);

    let out = verify_at(&sandbox)
        .args([
            "verify",
            "SANDBOX-OK-fourth",
            "--give-up-after",
            "1h",
            "--wait",
            "1s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert!(
        stderr_of(&out).contains("still throttled at the --wait deadline"),
        "{}",
        stderr_of(&out)
    );
}

/// -v says when pacing begins and each change of rate; the summary line gives the count of
/// throttled answers and the settled rate; without throttling neither appears.
#[test]
fn pacing_is_visible_in_verbose_lines_and_the_summary() {
    let sandbox = quiet_sandbox(&["--rate-limit", "40/s", "--burst", "2"]);
    let out = verify_at(&sandbox)
        .args(["verify", "-", "-j", "8", "-o", "csv", "-v"])
        .write_stdin(references(60, "v"))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("payverify: pacing: HTTP 429 (throttled): pacing begins at "),
        "{stderr}"
    );
    assert!(stderr.contains("payverify: pacing: raised to "), "{stderr}");
    let summary = stderr.lines().last().unwrap();
    assert!(
        summary.starts_with("payverify: 60 references in ")
            && summary.contains(": 60 SUCCESSFUL; ")
            && summary.contains("; the service asked to slow down ")
            && summary.contains("; the run finished at ")
            && summary.ends_with("/s"),
        "{summary}"
    );
    assert_eq!(stdout_of(&out).lines().count(), 61);

    let calm = quiet_sandbox(&[]);
    let out = verify_at(&calm)
        .args(["verify", "-", "-j", "8", "-q", "-o", "csv"])
        .write_stdin(references(20, "c"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = verify_at(&calm)
        .args(["verify", "-", "-j", "8", "-o", "csv", "-v"])
        .write_stdin(references(20, "d"))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(
        !stderr.contains("pacing") && !stderr.contains("throttled"),
        "{stderr}"
    );
}

/// On a terminal the progress bar shows the pace once the service throttles.
#[test]
fn the_progress_bar_shows_the_pace_when_throttled() {
    let sandbox = quiet_sandbox(&["--rate-limit", "20/s", "--burst", "1"]);
    let dir = TempDir::new("pacing-bar");
    let file = dir.write("refs.txt", references(50, "bar"));
    let out = on_terminal(&format!(
        "verify -j 8 -o csv --from {} > /dev/null",
        file.display()
    ))
    .env("NO_COLOR", "1")
    .env("PAYVERIFY_BASE_URL", &sandbox.url)
    .env("PAYVERIFY_CLIENT_ID", "sandbox")
    .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret")
    .stdin(Stdio::null())
    .output()
    .expect("util-linux script runs payverify on a pseudo-terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    // Nothing but SUCCESSFUL: no class counted, the pace alone.
    assert!(text.contains("  throttled: "), "{text}");
    assert!(!text.contains("failed"), "{text}");
    assert!(text.contains("50 SUCCESSFUL; "), "{text}");
}

/// The throttling sandbox: flags checked, the limit shown in the banner, changed while it
/// runs through its control endpoint (and refused when nonsense), counted per second.
#[test]
fn the_throttling_sandbox_is_controlled_while_it_runs() {
    for bad in [
        vec!["--burst", "5"],
        vec!["--rate-limit", "0/s"],
        vec!["--rate-limit", "fast"],
        vec!["--rate-limit", "5/s", "--rate-limit-status", "500"],
        vec!["--rate-limit", "5/s", "--retry-after", "-1"],
        vec!["--rate-limit", "5/s", "--burst", "0"],
    ] {
        payverify()
            .arg("sandbox")
            .args(&bad)
            .assert()
            .code(2)
            .stdout("");
    }
    let sandbox = quiet_sandbox(&["--rate-limit", "1000/s"]);
    let (status, body) = raw_get(sandbox.addr(), "/sandbox/rate-limit", None);
    assert_eq!(status, 200);
    let limit: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(limit["rate_limit"]["per_second"], 1000.0);
    assert_eq!(limit["rate_limit"]["burst"], 1000);
    assert_eq!(limit["rate_limit"]["status"], 429);
    assert_eq!(limit["rate_limit"]["retry_after"], 1);

    // Down to one request, then 503 without Retry-After.
    let (status, body) = raw_request(
        sandbox.addr(),
        "POST",
        "/sandbox/rate-limit?rate=0.001/s&burst=1&status=503&retry-after=none",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let (status, _) = raw_request(sandbox.addr(), "POST", "/sandbox/rate-limit?burst=x", None);
    assert_eq!(status, 400);
    let out = verify_at(&sandbox)
        .args([
            "verify",
            "SANDBOX-OK-1",
            "SANDBOX-OK-2",
            "-j",
            "1",
            "-o",
            "jsonl",
        ])
        .args(["--give-up-after", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr_of(&out));
    let records = jsonl(&out.stdout);
    assert_eq!(
        reference_outcomes(&records),
        [
            ("SANDBOX-OK-1", "SUCCESSFUL"),
            ("SANDBOX-OK-2", "UNAVAILABLE")
        ]
    );
    assert_eq!(records[1]["http_status"], 503);
    let counts = stats(&sandbox);
    assert_eq!(
        (counts["requests"].as_u64(), counts["throttled"].as_u64()),
        (Some(2), Some(1))
    );

    // Lifted: everything goes through again.
    let (status, _) = raw_request(sandbox.addr(), "POST", "/sandbox/rate-limit?rate=off", None);
    assert_eq!(status, 200);
    verify_at(&sandbox)
        .args(["verify", "-q", "SANDBOX-OK-3", "--give-up-after", "0"])
        .assert()
        .code(0);
    let (code, stderr) = sandbox.terminate();
    assert_eq!(code, Some(0), "{stderr}");
}

/// The banner names the limit and how to change it.
#[test]
fn the_sandbox_banner_names_its_limit() {
    let mut sandbox = Standalone::start(&[
        "--rate-limit",
        "50/s",
        "--burst",
        "10",
        "--rate-limit-status",
        "503",
        "--retry-after",
        "none",
    ]);
    let mut banner = String::new();
    // The banner, to its last line (the first line, the address, is read already): the
    // sandbox runs on, and is stopped when it is dropped, where the test waited out a 2 s
    // --timeout before.
    while !banner.ends_with("Stop with Ctrl-C.\n") {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut sandbox.stdout, &mut line).unwrap() == 0 {
            break;
        }
        banner.push_str(&line);
    }
    assert!(
        banner.contains("Rate limit: 50/s, burst 10: HTTP 503 without Retry-After when exceeded."),
        "{banner}"
    );
    assert!(banner.contains("/sandbox/rate-limit?rate=20/s"), "{banner}");
}
