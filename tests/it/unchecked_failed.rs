//! A FAILED (or PENDING) answer that fails payverify's own checks says nothing about the
//! payment asked about (found by an attack on the release binary, F16): one about another
//! transaction, unsigned or forged under `--hmac require`, or of another mode under
//! `--expect-mode`. reconcile must not make such a row BOTH_UNPAID (exit 0, "nothing is
//! at risk"), and `verify --fail-on` must not leave it out as `declined` or `pending`.

use crate::common::gateway::Txn;
use crate::common::*;

/// A hostile gateway, answering each reference by its first letter: `O` FAILED and `Q`
/// PENDING about another transaction (OTHER-1, validly signed), `B` FAILED with a forged
/// hmac, `N` FAILED with no hmac, `M` FAILED of mode "x"; anything else a genuine FAILED,
/// signed, mode "live", of 40,000.00 naira.
fn hostile() -> KeepAliveServer {
    KeepAliveServer::start(|path, _| {
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        let own = Txn::failed(&reference, 4_000_000).body();
        let other = Txn::failed("OTHER-1", 4_000_000).body();
        let set = |body: &str, key: &str, value: serde_json::Value| {
            let mut v: serde_json::Value = serde_json::from_str(body).unwrap();
            match value {
                serde_json::Value::Null => v.as_object_mut().unwrap().remove(key),
                value => v.as_object_mut().unwrap().insert(key.into(), value),
            };
            v.to_string()
        };
        let body = match reference.chars().next() {
            Some('O') => other,
            Some('Q') => set(&other, "status", "PENDING".into()),
            Some('B') => set(&own, "hmac", "0".repeat(64).into()),
            Some('N') => set(&own, "hmac", serde_json::Value::Null),
            Some('M') => set(&own, "mode", "x".into()),
            _ => own,
        };
        ("200 OK".to_owned(), vec![], body)
    })
}

/// The orders file: every reference a Cancelled order of 40,000.00.
fn orders(dir: &TempDir, references: &[&str]) {
    let mut text = String::from("Order ID,Reference,Amount,Status\n");
    for (i, r) in references.iter().enumerate() {
        text.push_str(&format!("{},{r},40000,Cancelled\n", i + 1));
    }
    dir.write("orders.csv", text);
}

/// Each csv row's reference and result.
fn results(stdout: &str) -> Vec<(String, String)> {
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (reference, result) = (at("Reference"), at("result"));
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[reference].to_owned(), cells[result].to_owned())
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn reconcile_never_counts_a_failed_answer_about_another_transaction_as_both_unpaid() {
    let server = hostile();
    let dir = TempDir::new("unchecked-failed");
    orders(&dir, &["O-1", "G-2"]);
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(["reconcile", "orders.csv", "-o", "csv", "--all"])
        .output()
        .unwrap();
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(4), "{stdout}{stderr}");
    assert_eq!(
        results(&stdout),
        pairs(&[("O-1", "INTEGRITY_FAILED"), ("G-2", "BOTH_UNPAID")]),
        "{stdout}"
    );
    let o1 = stdout.lines().nth(1).unwrap();
    assert!(
        o1.contains("FAILED at the gateway, but the answer failed its checks")
            && o1.contains("not the requested reference O-1")
            && o1.contains("proves nothing about this payment"),
        "{o1}"
    );
    assert!(
        stderr.contains("1 INTEGRITY_FAILED, 1 BOTH_UNPAID"),
        "{stderr}"
    );
}

#[test]
fn reconcile_never_counts_an_unchecked_failed_answer_as_both_unpaid() {
    let server = hostile();
    let dir = TempDir::new("unchecked-failed");
    orders(&dir, &["B-1", "N-2", "M-3", "G-4"]);
    let args = [
        "reconcile",
        "orders.csv",
        "--all",
        "--hmac",
        "require",
        "--expect-mode",
        "live",
    ];
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(args)
        .args(["-o", "csv"])
        .output()
        .unwrap();
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(4), "{stdout}{stderr}");
    let want = pairs(&[
        ("B-1", "INTEGRITY_FAILED"),
        ("N-2", "INTEGRITY_FAILED"),
        ("M-3", "INTEGRITY_FAILED"),
        ("G-4", "BOTH_UNPAID"),
    ]);
    assert_eq!(results(&stdout), want, "{stdout}");
    for needle in [
        "hmac MISMATCH",
        "the response has no hmac",
        "expected mode \"\"live\"\", service says \"\"x\"\"",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
    // Resumed from its own jsonl, the run comes to the same rows and exit.
    let jsonl = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(args)
        .args(["-o", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(jsonl.status.code(), Some(4), "{}", stderr_of(&jsonl));
    dir.write("first.jsonl", stdout_of(&jsonl));
    let resumed = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(args)
        .args(["--resume", "first.jsonl", "-o", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(4), "{}", stderr_of(&resumed));
    assert_eq!(stdout_of(&resumed), stdout_of(&jsonl));
}

#[test]
fn verify_fail_on_never_leaves_out_a_failed_or_pending_answer_that_failed_a_check() {
    let server = hostile();
    let dir = TempDir::new("unchecked-failed");
    let run = |extra: &[&str], refs: &[&str]| {
        payverify_at(&server.url)
            .current_dir(dir.path())
            .args(["verify", "--fail-on", "mismatch,unverified", "-o", "jsonl"])
            .args(extra)
            .arg("--")
            .args(refs)
            .output()
            .unwrap()
    };
    // Genuine declines are left out: exit 0.
    let genuine = run(&[], &["G-1", "G-2"]);
    assert_eq!(genuine.status.code(), Some(0), "{}", stderr_of(&genuine));
    // Answers about another transaction: counted, with their own names and exit status.
    let other = run(&[], &["O-1", "Q-2", "G-3"]);
    let stderr = stderr_of(&other);
    assert_eq!(other.status.code(), Some(9), "{stderr}");
    let records = jsonl(&other.stdout);
    assert_eq!(
        reference_outcomes(&records),
        [("O-1", "FAILED"), ("Q-2", "NOT_FINAL"), ("G-3", "FAILED")]
    );
    assert!(
        stderr.contains("exit 9: 1 FAILED not in --fail-on mismatch,unverified"),
        "{stderr}"
    );
    // Forged, unsigned, or of another mode, under the checks the run asked for.
    let checked = ["--hmac", "require", "--expect-mode", "live"];
    let unchecked = run(&checked, &["B-1", "N-2", "M-3", "G-4"]);
    let stderr = stderr_of(&unchecked);
    assert_eq!(unchecked.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("4 FAILED") && stderr.contains("exit 1: 1 FAILED not in --fail-on"),
        "{stderr}"
    );
    // Resumed from its own output, the same exit, without a request.
    dir.write(
        "first.jsonl",
        String::from_utf8(unchecked.stdout.clone()).unwrap(),
    );
    let mut resume = checked.to_vec();
    resume.extend(["--resume", "first.jsonl"]);
    let resumed = run(&resume, &["B-1", "N-2", "M-3", "G-4"]);
    assert_eq!(resumed.status.code(), Some(1), "{}", stderr_of(&resumed));
    assert_eq!(resumed.stdout, unchecked.stdout);
    assert!(
        stderr_of(&resumed).contains("4 carried over"),
        "{}",
        stderr_of(&resumed)
    );
}

#[test]
fn fail_on_refuses_a_csv_resume_file() {
    let dir = TempDir::new("unchecked-failed");
    dir.write("refs.txt", "SANDBOX-OK-1\nSANDBOX-BADHMAC-2\n");
    dir.write("run1.csv", "reference,outcome\n");
    payverify()
        .current_dir(dir.path())
        .args([
            "verify",
            "--sandbox",
            "--from",
            "refs.txt",
            "--fail-on",
            "mismatch",
        ])
        .args(["-o", "csv", "--resume", "run1.csv"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "payverify: --resume reads -o jsonl output only (a csv row cannot prove what the \
             service said); for -o csv, keep the run's records with --state FILE and run it \
             again with the same --state\n",
        );
}

#[test]
fn fail_on_refuses_paid() {
    payverify()
        .args(["verify", "--sandbox", "--fail-on", "paid", "-o", "csv"])
        .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
        .assert()
        .code(2)
        .stdout("");
}
