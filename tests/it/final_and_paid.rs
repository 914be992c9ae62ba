//! Issue 36, item 3: one rule for "final and paid", the same in every command. An answer
//! SUCCESSFUL, code 00, with a genuine hmac, the right amount and merchant ref, but no
//! `paymentDate` (absent, null or blank) is NOT_FINAL (exit 9) for `verify`, `gate`,
//! `reconcile`, `webhook check` and a `--resume` of an earlier record, as the gateway's own
//! plugin acts only once `paymentDate` is set (docs/checks.md). Before the fix, `gate` exited
//! 0 on it while `webhook check` said NOT FINAL. One whose `paymentDate` is not a string is
//! a bad response (exit 8) everywhere; one that failed a check stays CHECK_FAILED.

use serde_json::Value;

use crate::common::{KeepAliveServer, SAMPLE, SECRET, TempDir, payverify, payverify_at, stderr_of};

/// The sample's own reference.
const REF: &str = "0000000000000044177";

/// The sample (signed with the tests' secret) with its `paymentDate` set to `date`
/// (`None`: the key left out).
fn answer(date: Option<Value>) -> String {
    let mut body: Value = serde_json::from_str(&SAMPLE).unwrap();
    let object = body.as_object_mut().unwrap();
    match date {
        Some(date) => object.insert("paymentDate".into(), date),
        None => object.remove("paymentDate"),
    };
    body.to_string()
}

/// The exit code of each command judging `body`: verify, gate, reconcile, webhook check,
/// and verify `--resume` of verify's own `-o jsonl` record of it.
fn exits(body: &str, dir: &TempDir) -> Vec<(&'static str, Option<i32>, String)> {
    let served = body.to_owned();
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], served.clone()));
    let url = server.url.clone();
    let run = |args: &[&str]| {
        payverify_at(&url)
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    dir.write("orders.csv", format!("reference,amount\n{REF},40000\n"));
    dir.write("payload.json", body);
    // verify as a gate would run it; --resume of its own record below.
    let checked = [
        "verify",
        "--hmac",
        "require",
        "--expect-amount",
        "40000",
        "-o",
        "jsonl",
    ];
    let verify = run(&[&checked[..], &["--", REF]].concat());
    dir.write("run1.jsonl", &verify.stdout);
    // The sample's mode is dev.
    let gate = run(&[
        "gate",
        "--amount",
        "40000",
        "--merchant-ref",
        "WQ-506391000507913",
        "--expect-mode",
        "dev",
        "--",
        REF,
    ]);
    let reconcile = run(&["reconcile", "orders.csv", "-o", "csv"]);
    let webhook = payverify()
        .current_dir(dir.path())
        .env("PAYVERIFY_CLIENT_ID", "test-client")
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args(["webhook", "check", "payload.json"])
        .output()
        .unwrap();
    // The earlier record, carried or asked again, comes to the same.
    let resumed = run(&[&checked[..], &["--resume", "run1.jsonl", "--", REF]].concat());
    [
        ("verify", verify),
        ("gate", gate),
        ("reconcile", reconcile),
        ("webhook check", webhook),
        ("verify --resume", resumed),
    ]
    .into_iter()
    .map(|(name, out)| (name, out.status.code(), stderr_of(&out)))
    .collect()
}

#[test]
fn no_payment_date_is_not_final_in_every_command() {
    let dir = TempDir::new("final-and-paid");
    // The differential twin: with its date, every command calls it paid.
    for (name, code, stderr) in exits(&answer(Some("2022-11-14T22:34:24.913Z".into())), &dir) {
        assert_eq!(code, Some(0), "{name} with a paymentDate: {stderr}");
    }
    // Blank, unseen (a zero-width space, a byte-order mark, a control character, a blank
    // filler) or with no digit in it: no date.
    let no_dates = [
        None,
        Some(Value::Null),
        Some("".into()),
        Some("  ".into()),
        Some("\u{200b}".into()),
        Some("\u{feff}\u{200b}".into()),
        Some("\u{1f}".into()),
        Some("\u{3164}".into()),
        Some("N/A".into()),
    ];
    for date in no_dates {
        for (name, code, stderr) in exits(&answer(date.clone()), &dir) {
            assert_eq!(code, Some(9), "{name}, paymentDate {date:?}: {stderr}");
        }
    }
    // verify names why.
    let body = answer(None);
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], body.clone()));
    let out = payverify_at(&server.url)
        .args(["verify", "--", REF])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9));
    assert!(
        stderr_of(&out).contains("is not final: SUCCESSFUL, but with no paymentDate"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_payment_date_that_is_not_a_string_is_a_bad_response_everywhere() {
    let dir = TempDir::new("final-and-paid-type");
    for date in [Value::from(0), Value::from(false), serde_json::json!({})] {
        for (name, code, stderr) in exits(&answer(Some(date.clone())), &dir) {
            assert_eq!(code, Some(8), "{name}, paymentDate {date}: {stderr}");
        }
    }
}

#[test]
fn an_answer_that_failed_a_check_stays_check_failed_without_a_date() {
    let dir = TempDir::new("final-and-paid-check");
    // The amount is not the order's: CHECK_FAILED (4) whether or not a date is there, as
    // webhook check has always said.
    let body = answer(None).replace("4000000", "3900000");
    let served = body.clone();
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], served.clone()));
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args([
            "gate",
            "--amount",
            "40000",
            "--merchant-ref",
            "WQ-506391000507913",
        ])
        .args(["--expect-mode", "dev", "--", REF])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
}
