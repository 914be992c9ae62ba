//! `payverify verify` end to end: the real binary against a real local HTTP server.

use std::time::{Duration, Instant};

use crate::common::*;
use mockito::Matcher;
use predicates::prelude::*;

const PATH: &str = "/api/payment/verify/0000000000000044177";

fn sample_with(status: &str, code: &str, description: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&SAMPLE).unwrap();
    v["status"] = status.into();
    v["code"] = code.into();
    v["description"] = description.into();
    v.to_string()
}

#[test]
fn successful_prints_the_table_and_exits_0() {
    let mut server = mockito::Server::new();
    let mock = server
        .mock("GET", PATH)
        .match_header("authorization", AUTH_STANDARD)
        .match_header("accept", "application/json")
        .match_header("content-type", "application/json")
        .match_header(
            "user-agent",
            Matcher::Regex(r"^payverify/\d+\.\d+\.\d+$".into()),
        )
        .with_status(200)
        .with_body(SAMPLE.as_str())
        .create();
    let out = payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .output()
        .unwrap();
    mock.assert();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    for want in [
        "SUCCESSFUL",
        "₦40,000.00 (4000000 kobo)",
        "WQ-506391000507913",
        "501501******5015",
    ] {
        assert!(stdout.contains(want), "missing {want}:\n{stdout}");
    }
    assert!(!stdout.contains('\u{1b}'), "no colour off a terminal");
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn literal_auth_style_sends_the_pair_unencoded() {
    let mut server = mockito::Server::new();
    let mock = server
        .mock("GET", PATH)
        .match_header(
            "authorization",
            format!("Basic {CLIENT_ID}:{SECRET}").as_str(),
        )
        .with_body(SAMPLE.as_str())
        .create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "--auth-style", "literal"])
        .assert()
        .code(0);
    mock.assert();
}

#[test]
fn json_output_is_the_object_as_received() {
    let body = r#"{"zeta":1.10,"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"0000000000000044177","amount":4000000,"big":123456789012345678901234567890,"nested":{"b":[1,2.50],"a":null},"alpha":"\u00e9"}"#;
    let mut server = mockito::Server::new();
    server.mock("GET", PATH).with_body(body).create();
    let out = payverify_at(&server.url())
        .args([
            "verify",
            "0000000000000044177",
            "-o",
            "json",
            "--hmac",
            "off",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = stdout_of(&out);
    // Same keys in the same order, numbers written exactly as the service wrote them.
    let compact: String = stdout.split_whitespace().collect();
    assert_eq!(
        compact,
        r#"{"zeta":1.10,"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"0000000000000044177","amount":4000000,"big":123456789012345678901234567890,"nested":{"b":[1,2.50],"a":null},"alpha":"é"}"#
    );
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn failed_is_exit_1_with_the_reason_on_stderr() {
    let mut server = mockito::Server::new();
    server
        .mock("GET", PATH)
        .with_body(sample_with("FAILED", "51", "Insufficient Funds"))
        .create();
    let out = payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout_of(&out).contains("FAILED"));
    assert_eq!(
        stderr_of(&out),
        "payverify: transaction '0000000000000044177' FAILED (51 Insufficient Funds)\n"
    );
}

#[test]
fn other_status_is_not_final_exit_9() {
    let mut server = mockito::Server::new();
    server
        .mock("GET", PATH)
        .with_body(sample_with("PENDING", "09", "Pending"))
        .create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(9)
        .stderr(predicate::str::contains(
            "not final: status \"PENDING\" (verify again later)",
        ));
}

#[test]
fn not_found_names_the_reference_and_the_service_message() {
    let mut server = mockito::Server::new();
    server
        .mock("GET", "/api/payment/verify/NOPE-1")
        .with_status(404)
        .with_body(r#"{"message":"Transaction not found"}"#)
        .create();
    payverify_at(&server.url())
        .args(["verify", "NOPE-1"])
        .assert()
        .code(3)
        .stdout("")
        .stderr(
            "payverify: no transaction has reference 'NOPE-1' (HTTP 404: Transaction not found)\n",
        );
}

#[test]
fn rejected_credentials_are_exit_5_and_not_retried() {
    for status in [401, 403] {
        let mut server = mockito::Server::new();
        let mock = server
            .mock("GET", PATH)
            .with_status(status)
            .with_body(r#"{"error":"Invalid credentials"}"#)
            .expect(1)
            .create();
        payverify_at(&server.url())
            .args(["verify", "0000000000000044177"])
            .assert()
            .code(5)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "HTTP {status}: Invalid credentials"
            )));
        mock.assert();
    }
}

#[test]
fn persistent_502_is_retried_then_exit_7() {
    let mut server = mockito::Server::new();
    let mock = server.mock("GET", PATH).with_status(502).expect(3).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(7)
        .stdout("")
        .stderr(predicate::str::contains("HTTP 502 after 3 attempts"));
    mock.assert();
}

#[test]
fn retries_0_means_one_attempt() {
    let mut server = mockito::Server::new();
    let mock = server.mock("GET", PATH).with_status(500).expect(1).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "--retries", "0"])
        .assert()
        .code(7)
        .stderr(predicate::str::contains("after 1 attempt"));
    mock.assert();
}

#[test]
fn other_4xx_is_not_retried_and_is_a_bad_response() {
    let mut server = mockito::Server::new();
    let mock = server.mock("GET", PATH).with_status(400).expect(1).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(8)
        .stderr(predicate::str::contains("unexpected HTTP 400"));
    mock.assert();
}

#[test]
fn retry_after_is_honoured() {
    let mut server = mockito::Server::new();
    let limited = server
        .mock("GET", PATH)
        .with_status(429)
        .with_header("retry-after", "1")
        .expect(1)
        .create();
    let ok = server
        .mock("GET", PATH)
        .with_body(SAMPLE.as_str())
        .expect(1)
        .create();
    let started = Instant::now();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "-q"])
        .assert()
        .code(0);
    let elapsed = started.elapsed();
    limited.assert();
    ok.assert();
    assert!(
        elapsed >= Duration::from_secs(1),
        "waited only {elapsed:?} despite Retry-After: 1"
    );
}

#[test]
fn timeout_bounds_an_attempt_against_a_silent_server() {
    let server = RawServer::start(|mut stream| {
        read_head(&mut stream);
        std::thread::sleep(Duration::from_secs(20));
    });
    let started = Instant::now();
    payverify_at(&server.url)
        .args(["verify", "R", "--timeout", "0.5", "--retries", "1"])
        .assert()
        .code(7)
        .stdout("")
        .stderr(predicate::str::contains(
            "no complete answer within 0.5s after 2 attempts",
        ));
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(8), "took {elapsed:?}");
}

#[test]
fn body_over_1_mib_is_a_bad_response() {
    let mut server = mockito::Server::new();
    let huge = format!(
        r#"{{"status":"SUCCESSFUL","pad":"{}"}}"#,
        "x".repeat(1024 * 1024)
    );
    server.mock("GET", PATH).with_body(huge).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(8)
        .stdout("")
        .stderr(predicate::str::contains("larger than 1024 KiB"));
}

#[test]
fn body_just_under_the_cap_is_fine() {
    let mut server = mockito::Server::new();
    let pad = "x".repeat(1024 * 1024 - 150);
    let body = format!(
        r#"{{"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"0000000000000044177","pad":"{pad}"}}"#
    );
    assert!(body.len() < 1024 * 1024);
    server.mock("GET", PATH).with_body(body).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "-q"])
        .assert()
        .code(0);
}

#[test]
fn bad_bodies_are_exit_8() {
    for body in [
        "<html>oops</html>",
        "[]",
        "null",
        r#"{"code":"00"}"#,
        r#"{"status":7}"#,
    ] {
        let mut server = mockito::Server::new();
        server.mock("GET", PATH).with_body(body).create();
        payverify_at(&server.url())
            .args(["verify", "0000000000000044177"])
            .assert()
            .code(8)
            .stdout("")
            .stderr(predicate::str::starts_with(
                "payverify: bad response from the service",
            ));
    }
}

#[test]
fn redirects_are_not_followed() {
    let mut server = mockito::Server::new();
    let target = server.mock("GET", "/elsewhere").expect(0).create();
    server
        .mock("GET", PATH)
        .with_status(302)
        .with_header("location", &format!("{}/elsewhere", server.url()))
        .create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(8)
        .stderr(predicate::str::contains("302 redirect"));
    target.assert();
}

#[test]
fn awkward_references_are_one_encoded_segment() {
    let cases = [
        ("a/b", "/api/payment/verify/a%2Fb"),
        ("100%", "/api/payment/verify/100%25"),
        ("a b", "/api/payment/verify/a%20b"),
        ("naïra", "/api/payment/verify/na%C3%AFra"),
        ("..", "/api/payment/verify/%2E%2E"),
        ("x?y#z", "/api/payment/verify/x%3Fy%23z"),
    ];
    let mut server = mockito::Server::new();
    for (reference, path) in cases {
        // The service answers for the reference it was asked about.
        let mut body: serde_json::Value = serde_json::from_str(&SAMPLE).unwrap();
        body["transactionRef"] = reference.into();
        let mock = server
            .mock("GET", path)
            .with_body(body.to_string())
            .expect(1)
            .create();
        payverify_at(&server.url())
            .args(["verify", "-q", "--", reference])
            .assert()
            .code(0);
        mock.assert();
    }
}

#[test]
fn base_url_prefix_and_trailing_slash() {
    let mut server = mockito::Server::new();
    let mock = server
        .mock("GET", "/gw/api/payment/verify/0000000000000044177")
        .with_body(SAMPLE.as_str())
        .create();
    payverify_at(&format!("{}/gw/", server.url()))
        .args(["verify", "0000000000000044177", "-q"])
        .assert()
        .code(0);
    mock.assert();
}

#[test]
fn bad_references_are_usage_errors_before_any_request() {
    let mut server = mockito::Server::new();
    let mock = server.mock("GET", Matcher::Any).expect(0).create();
    for reference in ["", "   ", "a\nb", "tab\there"] {
        payverify_at(&server.url())
            .args(["verify", "--", reference])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("payverify: the reference"));
    }
    mock.assert();
}

#[test]
fn usage_errors_are_one_line_exit_2() {
    let out = payverify()
        .args(["verify", "R", "--retries", "many"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("payverify: invalid value 'many'"),
        "{stderr}"
    );
    payverify()
        .args(["verify"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("REFERENCE"));
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    payverify()
        .args(["help", "verify"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Exit status:"))
        .stdout(predicate::str::contains(
            "9  not final: a status other than SUCCESSFUL or FAILED",
        ));
    payverify()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("payverify "));
}

#[test]
fn missing_settings_are_exit_6_with_all_three_ways() {
    payverify()
        .args(["verify", "R"])
        .assert()
        .code(6)
        .stdout("")
        .stderr(
            "payverify: no base URL configured (pass --base-url URL, set PAYVERIFY_BASE_URL, \
             or set base_url in a config profile)\n",
        );
    payverify()
        .args([
            "verify",
            "R",
            "--base-url",
            "https://x.example",
            "--client-id",
            "id",
        ])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("PAYVERIFY_CLIENT_SECRET"));
}

#[test]
fn plain_http_to_a_remote_host_is_refused() {
    payverify_at("http://gateway.example")
        .args(["verify", "R"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("https"));
}

#[test]
fn precedence_flag_over_env_over_profile() {
    let mut by_profile = mockito::Server::new();
    let mut by_env = mockito::Server::new();
    let mut by_flag = mockito::Server::new();
    let dir = TempDir::new("precedence");
    let config = dir.write(
        "config.toml",
        format!(
            "default_profile = \"main\"\n[profiles.main]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\nclient_secret = \"{SECRET}\"\n",
            by_profile.url()
        ),
    );
    let run = |cmd: &mut assert_cmd::Command| {
        cmd.args(["verify", "0000000000000044177", "-q"])
            .env("PAYVERIFY_CONFIG", &config)
            .assert()
            .code(0);
    };
    let m = by_profile
        .mock("GET", PATH)
        .with_body(SAMPLE.as_str())
        .expect(1)
        .create();
    run(&mut payverify());
    m.assert();
    let m = by_env
        .mock("GET", PATH)
        .with_body(SAMPLE.as_str())
        .expect(1)
        .create();
    run(payverify().env("PAYVERIFY_BASE_URL", by_env.url()));
    m.assert();
    let m = by_flag
        .mock("GET", PATH)
        .with_body(SAMPLE.as_str())
        .expect(1)
        .create();
    run(payverify()
        .env("PAYVERIFY_BASE_URL", by_env.url())
        .args(["--base-url", &by_flag.url()]));
    m.assert();
}

#[test]
fn unknown_profile_lists_known_profiles() {
    let dir = TempDir::new("profiles");
    let config = dir.write(
        "config.toml",
        "[profiles.live]\nbase_url = \"https://a.example\"\n[profiles.staging]\n",
    );
    payverify()
        .args(["verify", "R", "--profile", "prod", "--config"])
        .arg(&config)
        .assert()
        .code(6)
        .stderr(predicate::str::contains("no profile 'prod'"))
        .stderr(predicate::str::contains("live, staging"));
}

#[test]
fn verbose_traces_attempts_without_the_secret() {
    let mut server = mockito::Server::new();
    server.mock("GET", PATH).with_status(500).expect(1).create();
    server.mock("GET", PATH).with_body(SAMPLE.as_str()).create();
    let out = payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "-v"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("Authorization: Basic <redacted>"),
        "{stderr}"
    );
    assert!(stderr.contains("attempt 1: HTTP 500"), "{stderr}");
    assert!(stderr.contains("retry 1/2 in "), "{stderr}");
    assert!(stderr.contains("attempt 2: HTTP 200"), "{stderr}");
    assert!(stderr.contains(" ms"), "{stderr}");
    let b64 = AUTH_STANDARD.trim_start_matches("Basic ");
    for leak in [SECRET, b64] {
        assert!(!stderr.contains(leak), "secret leaked: {stderr}");
        assert!(!stdout_of(&out).contains(leak));
    }
}

#[test]
fn a_service_echoing_the_secret_is_redacted() {
    let mut server = mockito::Server::new();
    server
        .mock("GET", PATH)
        .with_status(401)
        .with_body(format!(r#"{{"message":"bad secret {SECRET}"}}"#))
        .create();
    let out = payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let stderr = stderr_of(&out);
    assert!(!stderr.contains(SECRET), "{stderr}");
    assert!(stderr.contains("bad secret <redacted>"), "{stderr}");
}

#[test]
fn quiet_prints_nothing_at_all() {
    let mut server = mockito::Server::new();
    server
        .mock("GET", PATH)
        .with_body(sample_with("FAILED", "51", "Insufficient Funds"))
        .create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "-q"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    payverify()
        .args(["verify", "R", "-q"])
        .assert()
        .code(6)
        .stdout("")
        .stderr("");
}

#[test]
fn colour_always_marks_the_status_and_no_color_is_honoured() {
    let mut server = mockito::Server::new();
    server.mock("GET", PATH).with_body(SAMPLE.as_str()).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177", "--color", "always"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\u{1b}["));
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn connection_refused_is_unavailable() {
    // Bind then drop to get a port with nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    payverify_at(&format!("http://127.0.0.1:{port}"))
        .args(["verify", "R", "--retries", "1"])
        .assert()
        .code(7)
        .stdout("")
        .stderr(predicate::str::contains("after 2 attempts"));
}
