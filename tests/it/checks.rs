//! Trust checks end to end: hmac modes, expectations, and `webhook check`.

use crate::common::*;
use predicates::prelude::*;

const PATH: &str = "/api/payment/verify/0000000000000044177";

fn sandbox(args: &[&str]) -> assert_cmd::assert::Assert {
    payverify()
        .args(["verify", "--sandbox"])
        .args(args)
        .assert()
}

#[test]
fn genuine_hmac_shows_valid_integrity() {
    sandbox(&["SANDBOX-OK-1"])
        .code(0)
        .stdout(predicate::str::contains("Integrity         hmac valid"))
        .stderr("");
}

#[test]
fn bad_hmac_warns_by_default_and_fails_under_require() {
    sandbox(&["SANDBOX-BADHMAC-1"])
        .code(0)
        .stdout(predicate::str::contains("hmac MISMATCH"))
        .stderr(predicate::str::starts_with(
            "payverify: warning: hmac MISMATCH",
        ))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    sandbox(&["SANDBOX-BADHMAC-1", "--hmac", "require"])
        .code(4)
        .stderr(predicate::str::contains(
            "check failed for 'SANDBOX-BADHMAC-1': hmac MISMATCH",
        ));
    sandbox(&["SANDBOX-BADHMAC-1", "--hmac", "off"])
        .code(0)
        .stdout(predicate::str::contains("not checked (--hmac off)"))
        .stderr("");
    sandbox(&["SANDBOX-BADHMAC-1", "-q"]).code(0).stderr("");
}

#[test]
fn json_output_is_unchanged_by_checks() {
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "SANDBOX-BADHMAC-1",
            "-o",
            "json",
            "--hmac",
            "require",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "SUCCESSFUL");
    assert!(v.get("checks").is_none());
}

#[test]
fn expectations_pass_and_fail_exactly() {
    sandbox(&[
        "0000000000000044177",
        "--expect-amount",
        "40000",
        "--expect-currency",
        "ngn",
        "--expect-merchant-ref",
        "WQ-506391000507913",
    ])
    .code(0);
    sandbox(&["0000000000000044177", "--expect-amount", "40000.00"]).code(0);
    sandbox(&["0000000000000044177", "--expect-amount-kobo", "4000000"]).code(0);
    sandbox(&["SANDBOX-AMOUNT-4000050-x", "--expect-amount", "40000.5"]).code(0);
    sandbox(&[
        "0000000000000044177",
        "--expect-amount",
        "40000.01",
        "--expect-currency",
        "USD",
    ])
    .code(4)
    .stderr(predicate::str::contains(
        "expected amount ₦40,000.01 (4000001 kobo), service says ₦40,000.00 (4000000 kobo)",
    ))
    .stderr(predicate::str::contains(
        "expected currency USD, service says NGN",
    ))
    .stderr(predicate::function(|s: &str| s.lines().count() == 2));
    sandbox(&["0000000000000044177", "--expect-merchant-ref", "WQ-1"])
        .code(4)
        .stderr(predicate::str::contains("expected merchant ref \"WQ-1\""));
}

#[test]
fn failed_and_not_final_keep_their_codes_whatever_the_checks() {
    sandbox(&[
        "SANDBOX-FAILED-1",
        "--expect-amount",
        "1",
        "--hmac",
        "require",
    ])
    .code(1);
    sandbox(&[
        "SANDBOX-PENDING-1",
        "--expect-amount",
        "1",
        "--hmac",
        "require",
    ])
    .code(9);
}

#[test]
fn malformed_expected_amounts_are_usage_errors() {
    for bad in ["12.345", "abc", "-5", "1,00", "400,50", ""] {
        payverify()
            .args(["verify", "R", "--expect-amount", bad])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("payverify: invalid value"));
    }
}

#[test]
fn successful_with_a_non_approval_code_fails_the_checks() {
    let mut server = mockito::Server::new();
    let body = SAMPLE.replace("\"code\": \"00\"", "\"code\": \"05\"");
    assert_ne!(body, *SAMPLE);
    server.mock("GET", PATH).with_body(body).create();
    payverify_at(&server.url())
        .args(["verify", "0000000000000044177"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("code is '05'"));
}

#[test]
fn hmac_mode_from_the_config_profile() {
    let mut server = mockito::Server::new();
    // The published fixture is signed with the gateway's secret, not ours: a mismatch.
    server.mock("GET", PATH).with_body(FIXTURE).create();
    let dir = TempDir::new("hmac-config");
    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\nclient_secret = \"{SECRET}\"\nhmac = \"require\"\n",
            server.url()
        ),
    );
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "--profile",
            "p",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(4);
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "--profile",
            "p",
            "--hmac",
            "warn",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(0);
}

fn webhook() -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args(["webhook", "check"]);
    cmd
}

#[test]
fn webhook_check_genuine_from_a_file_and_stdin() {
    let dir = TempDir::new("webhook");
    let file = dir.write("payload.json", SAMPLE.as_str());
    webhook()
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "message       WQ-506391000507913NGN4000000",
        ))
        .stdout(predicate::str::contains("verdict       genuine"))
        .stderr("");
    webhook()
        .arg("-")
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(0);
    webhook().write_stdin(SAMPLE.as_str()).assert().code(0);
    webhook()
        .args(["-", "-q"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
}

#[test]
fn webhook_check_needs_no_base_url_but_a_secret() {
    payverify()
        .args(["webhook", "check", "-"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(6)
        .stderr(predicate::str::contains("no client secret"));
    let dir = TempDir::new("webhook-secret");
    let secret_file = dir.write("secret", format!("{SECRET}\n"));
    payverify()
        .args(["webhook", "check", "-", "--client-secret-file"])
        .arg(&secret_file)
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(0);
}

#[test]
fn webhook_check_detects_tampering_of_each_signed_field() {
    for (from, to) in [
        ("\"amount\": 4000000", "\"amount\": 4000001"),
        ("\"currencyCode\": \"NGN\"", "\"currencyCode\": \"USD\""),
        ("WQ-506391000507913", "WQ-506391000507914"),
    ] {
        let tampered = SAMPLE.replace(from, to);
        assert_ne!(tampered, *SAMPLE, "{from}");
        webhook()
            .arg("-")
            .write_stdin(tampered)
            .assert()
            .code(4)
            .stdout(predicate::str::contains("verdict       MISMATCH"))
            .stderr(predicate::str::contains("hmac MISMATCH"));
    }
}

#[test]
fn webhook_check_bad_payloads_are_exit_8() {
    let no_amount = SAMPLE.replace("\"amount\": 4000000,", "");
    for (payload, why) in [
        ("[1,2]", "not an object"),
        ("not json", "not valid JSON"),
        ("null", "not an object"),
        (no_amount.as_str(), "lacks amount"),
        (r#"{"amount":"4000000"}"#, "\"amount\""),
    ] {
        webhook()
            .arg("-")
            .write_stdin(payload)
            .assert()
            .code(8)
            .stdout("")
            .stderr(predicate::str::contains(why));
    }
}

#[test]
fn webhook_check_expectations() {
    webhook()
        .args(["-", "--expect-amount", "40000", "--expect-currency", "NGN"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(0);
    webhook()
        .args(["-", "--expect-amount", "400"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(4)
        .stderr(predicate::str::contains("expected amount ₦400.00"));
}

#[test]
fn webhook_check_genuine_is_not_paid_without_code_00() {
    // The hmac covers merchantRef, currencyCode and amount only: a genuine payload with
    // another code is not an approval the gateway's own plugin would act on.
    let payload = SAMPLE.replace("\"code\": \"00\"", "\"code\": \"05\"");
    assert_ne!(payload, *SAMPLE);
    webhook()
        .arg("-")
        .write_stdin(payload)
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "verdict       genuine, CHECK FAILED",
        ))
        .stderr(predicate::str::contains("code is '05'"));
}

#[test]
fn webhook_check_missing_file_is_a_usage_error() {
    webhook()
        .arg("/nonexistent/payload.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such file"));
}
