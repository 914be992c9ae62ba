//! `--wait DURATION`: a not-final transaction is asked again until it is final or the wait
//! runs out; against the sandbox's SETTLES references, which turn final a set time after
//! their first request.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{
    Captured, KeepAliveServer, TempDir, WAIT_FIRST_PAUSE_MS, jsonl, payverify, reference_outcomes,
    send_signal, spawnable, stderr_of, stdout_of,
};

#[test]
fn a_single_reference_that_settles_within_the_wait_is_its_final_answer() {
    let (out, elapsed) = timed(
        payverify()
            .args([
                "verify",
                "--sandbox",
                "SANDBOX-SETTLES-1000-a",
                "--wait",
                "60s",
            ])
            .args(["-o", "json"]),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["status"], "SUCCESSFUL");
    // Only the final answer is printed, and no status line off a terminal.
    assert_eq!(stdout_of(&out).matches("\"status\"").count(), 1);
    assert_eq!(stderr_of(&out), "");
    // The second request comes after 1.6 to 2.4 s: well before the 60 s deadline.
    assert!(elapsed >= Duration::from_millis(1500), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");

    // The rest of the module shortens the first pause (WAIT_FIRST_PAUSE_MS): what a wait
    // does, not the 2 s above. 200 ms: 160 to 240 ms, past the 100 ms to settle.
    let failed = payverify()
        .env(WAIT_FIRST_PAUSE_MS, "200")
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-SETTLES-FAILED-100-a",
            "--wait",
            "1m",
        ])
        .args(["-v", "-o", "json"])
        .output()
        .unwrap();
    let stderr = stderr_of(&failed);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stdout_of(&failed).contains("\"status\": \"FAILED\""));
    // -v shows each poll.
    assert!(
        stderr.contains(
            "'SANDBOX-SETTLES-FAILED-100-a': status \"PENDING\" (request 1); next check in"
        ),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("GET /api/payment/verify/").count(),
        2,
        "{stderr}"
    );
}

#[test]
fn a_single_reference_still_pending_at_the_deadline_is_exit_9_in_bounded_time() {
    let (out, elapsed) = timed(payverify().args([
        "verify",
        "--sandbox",
        "SANDBOX-SETTLES-600000-b",
        "--wait",
        "1s",
    ]));
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    assert_eq!(
        stderr,
        "payverify: transaction 'SANDBOX-SETTLES-600000-b' is still not final after 1s: \
         status \"PENDING\"\n"
    );
    assert!(
        stdout_of(&out).contains("PENDING"),
        "the last answer is shown"
    );
    // The last check is at the deadline, not before it.
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

#[test]
fn only_not_final_is_asked_again() {
    // Without --wait, not final is the answer at once.
    let out = payverify()
        .args(["verify", "--sandbox", "SANDBOX-SETTLES-1-c", "-v"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9));
    assert_eq!(stderr_of(&out).matches("sandbox: GET").count(), 1);
    // Answers are answers: 404, FAILED, a check failure, 500 (its own retries) are not
    // waited on, however long the wait.
    for (reference, code) in [
        ("NOPE-1", 3),
        ("SANDBOX-FAILED-1", 1),
        ("SANDBOX-AMOUNT-1-x", 4),
        ("SANDBOX-ERROR-1", 7),
    ] {
        let started = Instant::now();
        let out = payverify()
            .args(["verify", "--sandbox", reference, "--wait", "1h"])
            .args(["--expect-amount-kobo", "4000000", "--retries", "0"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{reference}: {}",
            stderr_of(&out)
        );
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{reference} waited"
        );
    }
}

#[test]
fn bad_waits_are_usage_errors() {
    for (value, why) in [
        ("soon", "is not a duration such as 90s, 5m or 1h"),
        ("-5s", "is negative; a wait is from 0 to 24h"),
        ("5 parsecs", "is not a duration such as 90s, 5m or 1h"),
        ("25h", "is longer than the longest wait, 24h"),
        (
            "99999999999999999999",
            "is longer than the longest wait, 24h",
        ),
        ("1e3", "is not a duration such as 90s, 5m or 1h"),
        ("", "is not a duration such as 90s, 5m or 1h"),
    ] {
        let out = payverify()
            .args(["verify", "--sandbox", "SANDBOX-OK-1", "--wait", value])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{value:?}");
        assert!(
            stderr_of(&out).contains(why),
            "{value:?}: {}",
            stderr_of(&out)
        );
        assert!(out.stdout.is_empty());
    }
}

/// The config key: a profile's `wait` applies, --wait 0 turns it off, a bad value is a
/// config error naming the key and the file.
#[test]
fn the_wait_config_key() {
    let body = crate::common::SAMPLE.replace("\"SUCCESSFUL\"", "\"PENDING\"");
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], body.clone()));
    let dir = TempDir::new("wait-config");
    let profile = |wait: &str| {
        format!(
            "[profiles.default]\nbase_url = \"{}\"\nclient_id = \"pk\"\n\
             client_secret = \"{}\"\nwait = \"{wait}\"\n",
            server.url,
            crate::common::SECRET
        )
    };
    let config = dir.write("config.toml", profile("1s"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let run = |extra: &[&str]| {
        payverify()
            .arg("--config")
            .arg(&config)
            .args(["verify", "0000000000000044177"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("still not final after 1s"),
        "{}",
        stderr_of(&out)
    );
    let asked = server.requests.lock().unwrap().len();
    assert!(asked >= 2, "{asked} requests");

    let out = run(&["--wait", "0"]);
    assert_eq!(out.status.code(), Some(9));
    assert!(
        !stderr_of(&out).contains("still not final"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(server.requests.lock().unwrap().len(), asked + 1);

    let shown = payverify()
        .arg("--config")
        .arg(&config)
        .args(["config", "show"])
        .output()
        .unwrap();
    assert!(
        stdout_of(&shown).contains("\nwait           1s "),
        "{}",
        stdout_of(&shown)
    );

    std::fs::write(&config, profile("a while")).unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(6));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("wait in") && stderr.contains("is not a duration such as 90s"),
        "{stderr}"
    );
}

/// References that settle late hold back only their own place: with one worker, five
/// references each pending for two pauses and ten quick ones finish in about one wait, not
/// five, because a waiting reference parks instead of holding the worker. The first pause
/// is 500 ms here (the second 1 s): each settling reference is asked a third time.
#[test]
fn a_batch_keeps_order_while_late_references_settle_and_workers_stay_free() {
    let mut refs = Vec::new();
    for i in 0..15 {
        refs.push(match i % 3 {
            0 => format!("SANDBOX-SETTLES-750-{i}"),
            _ => format!("SANDBOX-SLOW-100-{i}"),
        });
    }
    refs[3] = "SANDBOX-SETTLES-FAILED-700-3".into();
    let (out, elapsed) = timed(
        payverify()
            .env(WAIT_FIRST_PAUSE_MS, "500")
            .args([
                "verify",
                "--sandbox",
                "-o",
                "jsonl",
                "-j",
                "1",
                "--wait",
                "2m",
            ])
            .args(&refs),
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let records = jsonl(&out.stdout);
    let got: Vec<_> = records
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    assert_eq!(got, refs, "input order");
    for record in &records {
        let want = match record["reference"].as_str().unwrap() {
            r if r.contains("FAILED") => "FAILED",
            _ => "SUCCESSFUL",
        };
        assert_eq!(record["outcome"], want, "{record}");
    }
    assert!(stderr.ends_with("14 SUCCESSFUL, 1 FAILED\n"), "{stderr}");
    // Settling takes 0.4 to 0.6 s, then 0.8 to 1.2 s of pauses; a sleeping worker would
    // take five times that (7.5 s), and the ten quick ones 1 s more.
    assert!(elapsed >= Duration::from_millis(1200), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
}

/// Runs `cmd` to its end and says how long it took: a wait is judged by its exit status and
/// by how long it ran, against the deadline.
fn timed(cmd: &mut assert_cmd::Command) -> (std::process::Output, Duration) {
    let started = Instant::now();
    let out = cmd.output().unwrap();
    (out, started.elapsed())
}

/// Ctrl-C ends every wait at once: the waiting references are written as not final, the
/// others as they came, and the exit is 130.
#[test]
fn ctrl_c_ends_batch_waits_at_once_as_not_final() {
    // -v: signalled once both waits have begun and OK-b has its answer.
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "--wait", "10m", "-v"])
        .args([
            "SANDBOX-PENDING-a",
            "SANDBOX-OK-b",
            "SANDBOX-SETTLES-600000-c",
        ])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = Captured::start(child.stdout.take().unwrap());
    let stderr = Captured::start(child.stderr.take().unwrap());
    stderr.wait_for(&[
        "'SANDBOX-PENDING-a': status \"PENDING\" (request 1)",
        "'SANDBOX-SETTLES-600000-c': status \"PENDING\" (request 1)",
        "SANDBOX-OK-b attempt 1: HTTP 200",
    ]);
    let signalled = Instant::now();
    send_signal(&child, "-INT");
    let status = child.wait().unwrap();
    assert!(signalled.elapsed() < Duration::from_secs(5), "slow to stop");
    let stderr = String::from_utf8(stderr.finish()).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    let records = jsonl(&stdout.finish());
    assert_eq!(
        reference_outcomes(&records),
        [
            ("SANDBOX-PENDING-a", "NOT_FINAL"),
            ("SANDBOX-OK-b", "SUCCESSFUL"),
            ("SANDBOX-SETTLES-600000-c", "NOT_FINAL")
        ]
    );
    assert!(
        stderr.contains("interrupted after 3 references") && stderr.contains("2 NOT_FINAL"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_ends_a_single_wait_at_once_with_the_last_answer() {
    let mut child = spawnable()
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-PENDING-s",
            "--wait",
            "10m",
            "-v",
        ])
        .args(["-o", "json"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Signal once the first answer is in and the wait has begun.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("next check in") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
    }
    let signalled = Instant::now();
    send_signal(&child, "-INT");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(signalled.elapsed() < Duration::from_secs(5), "slow to stop");
    assert_eq!(out.status.code(), Some(130), "{seen}{rest}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["status"], "PENDING");
    assert!(
        rest.ends_with(
            "payverify: interrupted while waiting for 'SANDBOX-PENDING-s': not final, status \
             \"PENDING\"\n"
        ),
        "{rest}"
    );
}

/// On a terminal, a one-line countdown on stderr, rewritten in place and cleared before the
/// answer; -q shows none. payverify runs on a pseudo-terminal (util-linux `script`).
#[test]
fn a_terminal_gets_a_one_line_countdown_and_quiet_gets_none() {
    let on_terminal = |extra: &str| {
        let out = crate::common::on_terminal(&format!(
            "verify --sandbox SANDBOX-SETTLES-100-t --wait 30s -o json {extra} >/dev/null"
        ))
        .env(WAIT_FIRST_PAUSE_MS, "200")
        .output()
        .expect("util-linux script runs payverify on a pseudo-terminal");
        assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
        stdout_of(&out)
    };
    let screen = on_terminal("");
    let frames: Vec<&str> = screen.split("\r\u{1b}[2K").collect();
    assert!(
        frames.iter().any(|f| f
            .starts_with("waiting for SANDBOX-SETTLES-100-t: \"PENDING\", next check in ")
            && f.ends_with("s left")),
        "{screen:?}"
    );
    // Cleared at the end: the last thing written is the erase, nothing after it.
    assert!(screen.ends_with("\r\u{1b}[2K"), "{screen:?}");
    assert!(
        !screen.contains('\n'),
        "one line, rewritten in place: {screen:?}"
    );
    assert_eq!(on_terminal("-q"), "");
}

/// `reconcile` runs on the same engine and gets --wait with it: a row whose payment settles
/// within the wait is MATCHED, one that stays PENDING is NOT_FINAL at the deadline (exit 9).
#[test]
fn reconcile_waits_too() {
    let dir = TempDir::new("wait-reconcile");
    let orders = dir.write(
        "orders.csv",
        "Order ID,Reference,Amount\n1,SANDBOX-SETTLES-100-r1,40000\n2,SANDBOX-OK-2,40000\n\
         3,SANDBOX-PENDING-3,40000\n",
    );
    let (out, elapsed) = timed(
        payverify()
            .env(WAIT_FIRST_PAUSE_MS, "200")
            .args(["reconcile", "--sandbox", "--wait", "1s", "-o", "csv"])
            .arg(&orders),
    );
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
    let results: Vec<_> = stdout_of(&out)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap_or("").to_owned())
        .collect();
    assert_eq!(results, ["MATCHED", "MATCHED", "NOT_FINAL"]);
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

/// A server whose every reference answers PENDING at its first request and `then` (status,
/// headers, body) at every later one: the shape of a service that starts rate limiting or
/// failing while a reference is waited for.
fn pending_then(then: (&'static str, &'static str, &'static str)) -> KeepAliveServer {
    let pending = crate::common::SAMPLE.replace("\"SUCCESSFUL\"", "\"PENDING\"");
    let seen = std::sync::Mutex::new(std::collections::HashMap::<String, usize>::new());
    KeepAliveServer::start(move |path, _| {
        let n = {
            let mut seen = seen.lock().unwrap();
            let n = seen.entry(path.to_owned()).or_default();
            *n += 1;
            *n
        };
        match n {
            1 => ("200 OK".into(), vec![], pending.clone()),
            _ => {
                let headers = match then.1 {
                    "" => vec![],
                    header => vec![header.to_owned()],
                };
                (then.0.into(), headers, then.2.into())
            }
        }
    })
}

/// A check made while waiting keeps the deadline: a 429 with `Retry-After: 30` is not
/// waited out past it, and the answer in hand (PENDING) is the result, exit 9, with the
/// rate limit named. Before, `--wait 5s` ran about 62 s and ended UNAVAILABLE (exit 7).
/// The first pause is 200 ms here: the 429 comes well inside the 1 s wait.
#[test]
fn a_429_while_waiting_does_not_carry_the_wait_past_its_deadline() {
    let server = pending_then((
        "429 Too Many Requests",
        "Retry-After: 30",
        r#"{"message":"slow down"}"#,
    ));
    let (out, elapsed) = timed(
        crate::common::payverify_at(&server.url)
            .env(WAIT_FIRST_PAUSE_MS, "200")
            .args([
                "verify",
                "0000000000000044177",
                "--wait",
                "1s",
                "-o",
                "json",
            ]),
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body["status"], "PENDING",
        "the last answer in hand is printed"
    );
    assert!(
        stderr.starts_with(
            "payverify: transaction '0000000000000044177' is still not final after 1s: status \
             \"PENDING\" (the last check got no answer in time: service unavailable: "
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Well under the 30 s Retry-After, let alone two of them; at least the wait itself.
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(elapsed >= Duration::from_millis(950), "{elapsed:?}");
    // The first check gets the 429; the one at the deadline is not even sent, because the
    // reference's Retry-After ends after it.
    assert_eq!(server.requests.lock().unwrap().len(), 2);
}

/// The same for 5xx back-off: with `--retries 10` a check's back-off alone would run about
/// 30 s; while waiting, it ends at the deadline with the answer in hand. -v says why.
#[test]
fn server_errors_while_waiting_end_at_the_deadline_with_the_last_answer() {
    let server = pending_then(("502 Bad Gateway", "", r#"{"message":"busy"}"#));
    let (out, elapsed) = timed(
        crate::common::payverify_at(&server.url)
            .env(WAIT_FIRST_PAUSE_MS, "200")
            .args(["verify", "0000000000000044177", "--wait", "1s"])
            .args(["--retries", "10", "-v"]),
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    assert!(stdout_of(&out).contains("PENDING"));
    assert!(
        stderr.contains("would end after the --wait deadline"),
        "{stderr}"
    );
    assert!(
        stderr.contains("this check got no answer (service unavailable: HTTP 502"),
        "{stderr}"
    );
    assert!(
        stderr.contains("still not final after 1s: status \"PENDING\" (the last check got no answer in time: service unavailable: HTTP 502"),
        "{stderr}"
    );
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
}

/// In a batch, a parked reference's checks keep its deadline too: a Retry-After that ends
/// past it is not waited out, and the answer in hand stands.
#[test]
fn batch_checks_keep_each_references_deadline_under_429s() {
    let server = pending_then((
        "429 Too Many Requests",
        "Retry-After: 30",
        r#"{"message":"slow down"}"#,
    ));
    let (out, elapsed) = timed(
        crate::common::payverify_at(&server.url)
            .env(WAIT_FIRST_PAUSE_MS, "200")
            .args(["verify", "PEND-A-1", "PEND-B-2", "PEND-C-3", "-j", "2"])
            .args(["--wait", "1s", "-o", "jsonl", "-v"]),
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    let records = jsonl(&out.stdout);
    assert_eq!(
        reference_outcomes(&records),
        [
            ("PEND-A-1", "NOT_FINAL"),
            ("PEND-B-2", "NOT_FINAL"),
            ("PEND-C-3", "NOT_FINAL")
        ]
    );
    assert!(
        stderr.contains("this check got no answer (service unavailable: HTTP 429"),
        "{stderr}"
    );
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

/// The config key takes a TOML integer as seconds, as the flag takes a bare number; a
/// float or a negative number is a config error (exit 6) naming the key.
#[test]
fn the_wait_config_key_takes_whole_seconds() {
    let body = crate::common::SAMPLE.replace("\"SUCCESSFUL\"", "\"PENDING\"");
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], body.clone()));
    let dir = TempDir::new("wait-config-int");
    let config = dir.path().join("config.toml");
    let run = |wait: &str| {
        let text = format!(
            "[profiles.default]\nbase_url = \"{}\"\nclient_id = \"pk\"\n\
             client_secret = \"{}\"\nwait = {wait}\n",
            server.url,
            crate::common::SECRET
        );
        std::fs::write(&config, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        payverify()
            .arg("--config")
            .arg(&config)
            .args(["verify", "0000000000000044177"])
            .output()
            .unwrap()
    };
    let out = run("1");
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("still not final after 1s"),
        "{}",
        stderr_of(&out)
    );
    let asked = server.requests.lock().unwrap().len();
    assert!(asked >= 2, "{asked} requests");

    let out = run("0");
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("still not final"));
    assert_eq!(server.requests.lock().unwrap().len(), asked + 1);

    // A fraction is seconds, as for every duration key (timeout takes 2.5 too).
    let out = run("1.5");
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("still not final after 1s 500ms"),
        "{}",
        stderr_of(&out)
    );
    let asked = server.requests.lock().unwrap().len();

    for (wait, why) in [
        ("\"1e3\"", "wait is not a duration such as 90s, 5m or 1h"),
        ("-3", "wait is negative"),
        ("90000", "wait is longer than the longest wait, 24h"),
        (
            "true",
            "key wait: invalid type: boolean, expected a duration",
        ),
    ] {
        let out = run(wait);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{wait}: {stderr}");
        assert!(stderr.contains(why), "{wait}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{wait}: {stderr}");
    }
    assert_eq!(server.requests.lock().unwrap().len(), asked);
}

/// A wait shorter than a second is reported as given, not rounded to `0s`.
#[test]
fn sub_second_waits_are_reported_exactly() {
    for (wait, shown) in [("1ns", "1ns"), ("1500ms", "1s 500ms"), ("250ms", "250ms")] {
        let out = payverify()
            .args([
                "verify",
                "--sandbox",
                "SANDBOX-SETTLES-600000-s",
                "--wait",
                wait,
            ])
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(9), "{stderr}");
        assert_eq!(
            stderr,
            format!(
                "payverify: transaction 'SANDBOX-SETTLES-600000-s' is still not final after \
                 {shown}: status \"PENDING\"\n"
            )
        );
    }
}

/// Issue 23 item 14: `--wait`'s exit depends on what the service said, not on --retries.
/// PENDING, then a check that hangs past the deadline (--timeout 1.5 against --wait 1s), or
/// that fails at once before it (502): with 0, 1 or 3 retries, the answer in hand stands and
/// the exit is 9, with the same output. Before, it was 7 with --retries 0 and 9 with 1.
/// The first pause is 200 ms: the check that hangs or fails is well inside the wait.
#[test]
fn the_wait_status_depends_on_what_the_service_said_not_on_retries() {
    let hanging = || {
        let pending = crate::common::SAMPLE.replace("\"SUCCESSFUL\"", "\"PENDING\"");
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        crate::common::RawServer::start(move |mut stream| {
            loop {
                if crate::common::read_head(&mut stream).is_empty() {
                    return;
                }
                if asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
                    std::thread::sleep(Duration::from_secs(30));
                    return;
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{pending}",
                    pending.len()
                );
                let _ = std::io::Write::write_all(&mut stream, reply.as_bytes());
            }
        })
    };
    let mut runs = Vec::new();
    for retries in ["0", "1", "3"] {
        let server = hanging();
        runs.push(std::thread::spawn(move || {
            crate::common::payverify_at(&server.url)
                .env(WAIT_FIRST_PAUSE_MS, "200")
                .args(["verify", "0000000000000044177", "-o", "json"])
                .args(["--wait", "1s", "--timeout", "1.5", "--retries", retries])
                .output()
                .unwrap()
        }));
        let failing = pending_then(("502 Bad Gateway", "", r#"{"message":"down"}"#));
        runs.push(std::thread::spawn(move || {
            crate::common::payverify_at(&failing.url)
                .env(WAIT_FIRST_PAUSE_MS, "200")
                .args(["verify", "0000000000000044177", "-o", "json"])
                .args(["--wait", "1s", "--retries", retries])
                .output()
                .unwrap()
        }));
    }
    for (n, run) in runs.into_iter().enumerate() {
        let out = run.join().unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(9), "run {n}: {stderr}");
        let body: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(body["status"], "PENDING", "run {n}");
        assert!(
            stderr.starts_with(
                "payverify: transaction '0000000000000044177' is still not final after "
            ) && stderr.contains("(the last check got no answer in time: service unavailable: "),
            "run {n}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "run {n}: {stderr}");
    }
}
