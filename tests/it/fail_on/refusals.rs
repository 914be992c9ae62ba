//! What --fail-on refuses, so one payment's exit status stays its own: one reference, the
//! gate, output that is not records; and the class names it takes.

use crate::common::*;

#[test]
fn one_payment_is_never_left_out() {
    // One reference argument, whatever -o says and wherever it stands: exit 2, before any
    // request, nothing on stdout.
    for args in [
        &["--fail-on", "mismatch", "SANDBOX-FAILED-1"][..],
        &["--fail-on", "mismatch", "-o", "jsonl", "SANDBOX-FAILED-1"],
        &[
            "--fail-on",
            "mismatch",
            "-o",
            "csv",
            "--",
            "SANDBOX-FAILED-1",
        ],
    ] {
        payverify()
            .args(["verify", "--sandbox"])
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                "payverify: --fail-on is for a batch (--from FILE, -, or several references): \
                 one reference exits with its own status, so a FAILED payment is never 0; use \
                 payverify gate to decide one payment\n",
            );
    }
    // The gate decides one payment: refused, with its own message.
    payverify()
        .args([
            "gate",
            "--sandbox",
            "--fail-on",
            "mismatch",
            "--amount",
            "40000",
        ])
        .args(["--merchant-ref", "M-1", "--", "SANDBOX-FAILED-1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "payverify: gate decides one payment and exits with its own status: --fail-on is \
             for scheduled batches of payverify verify\n",
        );
    // A batch that turns out to hold one reference (a one-line file, a reference given
    // twice) keeps that reference's own status, and says so.
    let dir = TempDir::new("fail-on-one");
    let list = dir.write("one.txt", "SANDBOX-FAILED-1\n");
    for args in [
        vec!["--from".to_owned(), list.display().to_string()],
        vec!["SANDBOX-FAILED-1".to_owned(), "SANDBOX-FAILED-1".to_owned()],
    ] {
        let out = payverify()
            .args([
                "verify",
                "--sandbox",
                "--fail-on",
                "mismatch",
                "-o",
                "jsonl",
            ])
            .args(&args)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            reference_outcomes(&jsonl(&out.stdout)),
            [("SANDBOX-FAILED-1", "FAILED")]
        );
        assert!(
            stderr.contains(
                "payverify: warning: --fail-on leaves nothing out of a run of one reference: \
                 its exit status is its own\n"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("not in --fail-on"), "{stderr}");
    }
}

#[test]
fn fail_on_needs_records_a_script_reads() {
    let refused = "payverify: --fail-on needs -o csv, jsonl or json: the exit status then leaves \
                   records out, so each record must say what its reference came to, in a file a \
                   script or a person reads\n";
    for (output, stderr) in [
        (&[][..], refused),
        (&["-o", "table"], refused),
        (&["-q"], ""),
    ] {
        payverify()
            .args(["verify", "--sandbox", "--fail-on", "mismatch"])
            .args(output)
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(stderr);
    }
    for output in ["csv", "jsonl", "json"] {
        payverify()
            .args(["verify", "--sandbox", "--fail-on", "mismatch", "-o", output])
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(0);
    }
}

#[test]
fn class_names_unknown_empty_repeated_and_in_any_case() {
    let valid = "paid, declined, not_found, mismatch, pending, unverified, fault";
    for (value, why) in [
        (
            "bogus",
            format!("\"bogus\" is not an outcome class; the classes are: {valid}"),
        ),
        (
            "mismatch,FAILED",
            format!("\"FAILED\" is not an outcome class; the classes are: {valid}"),
        ),
        (
            "",
            format!("names no class; give CLASS[,CLASS...] from: {valid}"),
        ),
        (
            "mismatch,",
            format!("\"mismatch,\" names an empty class; give CLASS[,CLASS...] from: {valid}"),
        ),
    ] {
        payverify()
            .args(["verify", "--sandbox", "-o", "jsonl", "--fail-on", value])
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "payverify: invalid value '{value}' for '--fail-on <CLASS[,CLASS...]>': {why} \
                 (see 'payverify verify --help')\n"
            ));
    }
    // Any case, spaces around names, a name twice: the same as written once.
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl"])
        .args(["--fail-on", " MisMatch , mismatch"])
        .args(["SANDBOX-OK-1", "SANDBOX-FAILED-2", "SANDBOX-FAILED-3"])
        .args(["SANDBOX-NOTFOUND-4", "SANDBOX-CODE-51-5"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.ends_with(
            ": 1 SUCCESSFUL, 2 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED; exit 4: 2 FAILED, 1 \
             NOT_FOUND not in --fail-on mismatch\n"
        ),
        "{stderr}"
    );
}

/// A run in which the service answered for no reference (every one NOT_FOUND: the wrong
/// environment; or unreachable) verified nothing: --fail-on must not make it exit 0. A run
/// with one answer among the not-found is quiet as before.
#[test]
fn a_run_the_service_answered_for_nothing_keeps_its_worst_exit() {
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "--fail-on",
            "mismatch,unverified",
            "-o",
            "csv",
        ])
        .args(["NOPE-1", "NOPE-2", "NOPE-3"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the service answered for no reference"),
        "{stderr}"
    );
    let out = payverify_at("http://127.0.0.1:1")
        .args([
            "verify",
            "--retries",
            "0",
            "--fail-on",
            "mismatch",
            "-o",
            "jsonl",
        ])
        .args(["R-1", "R-2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr_of(&out));
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "--fail-on",
            "mismatch,unverified",
            "-o",
            "csv",
        ])
        .args(["NOPE-1", "SANDBOX-FAILED-2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}
