//! The embedded sandbox: `verify --sandbox` and the standalone `payverify sandbox` server.

use std::io::{BufRead, Read};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;
use predicates::prelude::*;

#[test]
fn every_magic_reference_through_verify_sandbox() {
    let cases = [
        ("0000000000000044177", 0),
        ("SANDBOX-OK-anything", 0),
        ("SANDBOX-AMOUNT-150-x", 0),
        ("SANDBOX-FAILED-x", 1),
        ("SANDBOX-PENDING-x", 9),
        ("SANDBOX-FLAKY-x", 0),
        ("SANDBOX-RATELIMIT-x", 0),
        ("SANDBOX-ERROR-x", 7),
        ("SANDBOX-SLOW-200-x", 0),
        ("SANDBOX-BADHMAC-x", 0),
        ("no-such-reference", 3),
    ];
    for (reference, code) in cases {
        payverify()
            .args(["verify", "--sandbox", "-q", reference])
            .assert()
            .code(code);
    }
}

#[test]
fn sandbox_needs_no_config_and_ignores_the_environment() {
    let dir = TempDir::new("sandbox-env");
    let broken = dir.write("broken.toml", "this is not toml = = =");
    payverify()
        .env("PAYVERIFY_CONFIG", &broken)
        .env("PAYVERIFY_BASE_URL", "https://must-not-be-used.example")
        .env("PAYVERIFY_CLIENT_SECRET", "wrong")
        .args(["verify", "--sandbox", "0000000000000044177"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("₦40,000.00 (4000000 kobo)"))
        .stdout(predicate::str::contains("WQ-506391000507913"));
}

#[test]
fn sandbox_sample_json_is_the_fixture_with_a_sandbox_hmac() {
    let out = payverify()
        .args(["verify", "--sandbox", "0000000000000044177", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut want: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    want["hmac"] = "77853356f563e755193ac00e060341745b9a098bec1728fb43a215eba4566581".into();
    assert_eq!(got, want);
}

#[test]
fn sandbox_amount_and_failure_details() {
    payverify()
        .args(["verify", "--sandbox", "SANDBOX-AMOUNT-123456-x"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("₦1,234.56 (123456 kobo)"));
    payverify()
        .args(["verify", "--sandbox", "SANDBOX-FAILED-x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("FAILED (51 Insufficient Funds)"));
}

#[test]
fn flags_still_apply_under_sandbox() {
    // A throttled answer is not asked again with --give-up-after 0: the flaky reference's
    // first 503 is final.
    payverify()
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-FLAKY-y",
            "--give-up-after",
            "0",
        ])
        .assert()
        .code(7);
    // The sandbox checks the header like the real service: the literal style is refused.
    payverify()
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-OK-y",
            "--auth-style",
            "literal",
        ])
        .assert()
        .code(5);
    payverify()
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-SLOW-3000-y",
            "--timeout",
            "0.3",
            "--retries",
            "0",
        ])
        .assert()
        .code(7);
}

#[test]
fn sandbox_conflicts_with_an_explicit_endpoint() {
    payverify()
        .args([
            "verify",
            "--sandbox",
            "R",
            "--base-url",
            "https://x.example",
        ])
        .assert()
        .code(2);
}

const SANDBOX_AUTH: &str = "Basic c2FuZGJveDpzYW5kYm94LXNlY3JldA==";

#[test]
fn standalone_server_checks_credentials_and_stops_on_sigterm() {
    let server = Standalone::start(&[]);
    let (status, body) = raw_get(server.addr(), "/api/payment/verify/SANDBOX-OK-1", None);
    assert_eq!(status, 401);
    assert!(body.contains("\"message\""), "{body}");
    let (status, body) = raw_get(
        server.addr(),
        "/api/payment/verify/SANDBOX-OK-1",
        Some(SANDBOX_AUTH),
    );
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["status"], "SUCCESSFUL");
    let (status, _) = raw_get(
        server.addr(),
        "/api/payment/verify/nope",
        Some(SANDBOX_AUTH),
    );
    assert_eq!(status, 404);

    // The real binary, configured the way the banner says.
    payverify_at(&server.url)
        .env("PAYVERIFY_CLIENT_ID", "sandbox")
        .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret")
        .args(["verify", "-q", "SANDBOX-FAILED-z"])
        .assert()
        .code(1);

    let (code, stderr) = server.terminate();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("sandbox stopped"), "{stderr}");
    assert!(
        stderr.contains("GET /api/payment/verify/SANDBOX-OK-1 -> 200"),
        "requests are logged on stderr: {stderr}"
    );
}

#[test]
fn banner_gives_url_credentials_exports_and_references() {
    let mut server = Standalone::start(&[]);
    let url = server.url.clone();
    let mut rest = String::new();
    // The banner ends with the stop hint; read up to it.
    while !rest.contains("Stop with Ctrl-C.") {
        let mut line = String::new();
        if server.stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        rest.push_str(&line);
    }
    for want in [
        format!("export PAYVERIFY_BASE_URL={url}"),
        "export PAYVERIFY_CLIENT_ID=sandbox".to_owned(),
        "export PAYVERIFY_CLIENT_SECRET=sandbox-secret".to_owned(),
        "SANDBOX-SLOW-<ms>-<anything>".to_owned(),
        "0000000000000044177".to_owned(),
    ] {
        assert!(rest.contains(&want), "missing {want:?} in\n{rest}");
    }
}

#[test]
fn quiet_sandbox_prints_only_its_url() {
    let mut server = Standalone::start(&["-q"]);
    let (code, stderr) = {
        let url = server.url.clone();
        let mut rest = String::new();
        // Terminate first so stdout reaches EOF, then read what followed the URL line.
        let child_id = server.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &child_id])
            .status()
            .unwrap();
        server.stdout.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "", "only the URL line with -q, got more after {url}");
        let status = server.child.wait().unwrap();
        let mut stderr = String::new();
        server
            .child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status.code(), stderr)
    };
    assert_eq!(code, Some(0));
    assert_eq!(stderr, "");
}

/// The sandbox answers requests at once, not one after another. Each request is timed on
/// its own thread from its own start: a server that serves fewer than all of them at once
/// makes at least one wait out another's whole latency first (2 latencies or more; one at
/// a time, 8), so every request under 2 latencies shows they were served together. The
/// whole run's time, thread start-up included, is not the measure: on a loaded machine it
/// ran past 3 latencies (2.4 s for 0.4 s) with the requests served together all the same.
#[test]
fn concurrent_requests_with_latency_take_about_one_latency() {
    let latency = Duration::from_millis(1000);
    let n = 8;
    let server = Standalone::start(&["--latency-ms", "1000", "-q"]);
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let addr = server.addr().to_owned();
            std::thread::spawn(move || {
                let started = Instant::now();
                let status = raw_get(
                    &addr,
                    &format!("/api/payment/verify/SANDBOX-OK-{i}"),
                    Some(SANDBOX_AUTH),
                )
                .0;
                (status, started.elapsed())
            })
        })
        .collect();
    for h in handles {
        let (status, took) = h.join().unwrap();
        assert_eq!(status, 200);
        assert!(took >= latency, "latency not applied: {took:?}");
        assert!(
            took < latency * 2,
            "a request took {took:?}: it waited for another's {latency:?} latency \
             ({n} requests one at a time would take {:?})",
            latency * n
        );
    }
}

#[test]
fn port_in_use_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    payverify()
        .args(["sandbox", "--port", &port])
        .timeout(Duration::from_secs(10))
        .assert()
        .code(6)
        .stdout("")
        .stderr(predicate::str::contains("cannot listen on 127.0.0.1:"));
}
