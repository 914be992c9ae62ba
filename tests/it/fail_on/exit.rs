//! The exit status under --fail-on: the differential over every outcome, a resumed run, a
//! signal, and the run failures it never leaves out.

use std::io::{BufReader, Write};
use std::process::Stdio;

use super::{ALWAYS, CLASS_OF, CLASS_ORDER, class_of, most_severe};
use crate::common::gateway::Txn;
use crate::common::*;

/// Reference prefixes the fake gateway answers, with the outcome each gives: every outcome
/// a record can carry (the sandbox has no 401 and no unreadable answer).
const KINDS: [(&str, &str); 9] = [
    ("OK", "SUCCESSFUL"),
    ("FAIL", "FAILED"),
    ("GONE", "NOT_FOUND"),
    ("MIS", "CHECK_FAILED"),
    ("AUTH", "AUTH_REJECTED"),
    ("DOWN", "UNAVAILABLE"),
    ("BAD", "BAD_RESPONSE"),
    ("PEND", "NOT_FINAL"),
    ("PANIC", "INTERNAL_ERROR"),
];

/// A gateway that answers each reference by its prefix (`OK-3`, `FAIL-7`, ...).
fn gateway() -> KeepAliveServer {
    KeepAliveServer::start(|path, _| {
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        let kind = reference.split('-').next().unwrap_or("");
        let paid = Txn::paid(&reference, 4_000_000).body();
        let (status, body) = match kind {
            "OK" | "PANIC" => ("200 OK", paid),
            "FAIL" => ("200 OK", Txn::failed(&reference, 4_000_000).body()),
            // SUCCESSFUL with a code the gateway does not approve with: a failed check.
            "MIS" => ("200 OK", paid.replace(r#""code":"00""#, r#""code":"51""#)),
            "PEND" => (
                "200 OK",
                paid.replace(r#""status":"SUCCESSFUL""#, r#""status":"PENDING""#),
            ),
            "AUTH" => ("401 Unauthorized", r#"{"message":"no"}"#.to_owned()),
            "DOWN" => ("500 Internal Server Error", "{}".to_owned()),
            "BAD" => ("200 OK", "<html>".to_owned()),
            _ => ("404 Not Found", r#"{"message":"not found"}"#.to_owned()),
        };
        (status.to_owned(), vec![], body)
    })
}

/// A small deterministic generator, so a failing case can be run again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A mixed batch for `seed`: some kinds, each a few times, in a shuffled order; at most one
/// reference that makes payverify fail (the debug knob names one).
fn batch(seed: u64) -> (Vec<String>, Option<String>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut refs = Vec::new();
    let mut panic_on = None;
    for (prefix, _) in KINDS {
        if rng.below(2) == 0 {
            continue;
        }
        let count = match prefix {
            "PANIC" => 1,
            _ => 1 + rng.below(3),
        };
        for i in 0..count {
            let reference = format!("{prefix}-{seed}-{i}");
            if prefix == "PANIC" {
                panic_on = Some(reference.clone());
            }
            refs.push(reference);
        }
    }
    refs.push(format!("OK-{seed}-x"));
    refs.push(format!("FAIL-{seed}-x"));
    for i in (1..refs.len()).rev() {
        refs.swap(i, rng.below(i + 1));
    }
    (refs, panic_on)
}

/// Runs the batch against `url` with `fail_on` (none: the default) at `-j jobs`: exit
/// status, the records' `(reference, outcome, exit_code)` and stderr.
fn run(
    url: &str,
    refs: &[String],
    panic_on: &Option<String>,
    fail_on: Option<&str>,
    jobs: &str,
) -> (i32, Vec<(String, String, i64)>, String) {
    let mut cmd = payverify_at(url);
    cmd.args(["verify", "--retries", "0", "-o", "jsonl", "-j", jobs]);
    if let Some(classes) = fail_on {
        cmd.args(["--fail-on", classes]);
    }
    if let Some(reference) = panic_on {
        cmd.env("PAYVERIFY_DEBUG_PANIC_ON", reference);
    }
    let out = cmd.arg("--").args(refs).output().unwrap();
    let records = jsonl(&out.stdout)
        .iter()
        .map(|r| {
            (
                r["reference"].as_str().unwrap().to_owned(),
                r["outcome"].as_str().unwrap().to_owned(),
                r["exit_code"].as_i64().unwrap(),
            )
        })
        .collect();
    (out.status.code().unwrap(), records, stderr_of(&out))
}

#[test]
fn exit_is_the_worst_record_of_the_classes_named_at_any_jobs() {
    let server = gateway();
    // `paid` is refused (it can never count): fail_on_refuses_paid.
    let subsets = [
        "declined",
        "not_found",
        "mismatch",
        "pending",
        "unverified",
        "fault",
        "unverified,mismatch",
        "declined,pending,not_found",
        "declined,not_found,mismatch,pending,unverified,fault",
    ];
    let mut exits_seen = std::collections::BTreeSet::new();
    for (seed, subset) in subsets.iter().enumerate() {
        let (refs, panic_on) = batch(seed as u64 + 1);
        let named: Vec<&str> = subset.split(',').collect();
        let (code, records, stderr) = run(&server.url, &refs, &panic_on, Some(subset), "1");
        // Every reference has its record, with the outcome its prefix asks for.
        assert_eq!(records.len(), refs.len(), "{stderr}");
        for ((reference, outcome, _), asked) in records.iter().zip(&refs) {
            assert_eq!(reference, asked);
            let prefix = reference.split('-').next().unwrap();
            let want = KINDS.iter().find(|(p, _)| *p == prefix).unwrap().1;
            assert_eq!(outcome, want, "{reference}: {stderr}");
        }
        // The differential: the worst exit among the records whose class is named (or
        // always counted), read back from the records' own outcome field; else 0.
        let counted = |outcome: &str| {
            let class = class_of(outcome);
            class == ALWAYS || named.contains(&class)
        };
        let want = most_severe(
            records
                .iter()
                .filter(|(_, outcome, _)| counted(outcome))
                .map(|(_, _, exit)| *exit),
        );
        assert_eq!(
            i64::from(code),
            want,
            "--fail-on {subset} on {refs:?}:\n{stderr}"
        );
        exits_seen.insert(code);
        // The summary names every record left out that is not exit 0, by outcome.
        let mut left_out: Vec<(&str, usize)> = Vec::new();
        for (outcome, _) in CLASS_OF {
            let n = records
                .iter()
                .filter(|(_, o, e)| o == outcome && *e != 0 && !counted(o))
                .count();
            if n > 0 {
                left_out.push((outcome, n));
            }
        }
        let summary = stderr.lines().last().unwrap_or_default();
        if left_out.is_empty() {
            assert!(!summary.contains("not in --fail-on"), "{summary}");
        } else {
            let listed = left_out
                .iter()
                .map(|(o, n)| format!("{n} {o}"))
                .collect::<Vec<_>>()
                .join(", ");
            // Named back once each, in the classes' order.
            let named_back = CLASS_ORDER
                .iter()
                .filter(|c| named.contains(c))
                .copied()
                .collect::<Vec<_>>()
                .join(",");
            assert!(
                summary.ends_with(&format!(
                    "; exit {code}: {listed} not in --fail-on {named_back}"
                )),
                "{summary}"
            );
        }
        // -j 8: the same records, the same exit status.
        let (code8, records8, stderr8) = run(&server.url, &refs, &panic_on, Some(subset), "8");
        assert_eq!((code8, &records8), (code, &records), "-j 8:\n{stderr8}");
    }
    // The mixes reach both sides: runs that are 0 only because of --fail-on, and runs that
    // are not.
    assert!(exits_seen.contains(&0), "{exits_seen:?}");
    assert!(exits_seen.iter().any(|e| *e != 0), "{exits_seen:?}");
    // Without --fail-on nothing changed: the worst record.
    let (refs, panic_on) = batch(3);
    let (code, records, stderr) = run(&server.url, &refs, &panic_on, None, "4");
    let worst = most_severe(records.iter().map(|(_, _, e)| *e));
    assert_eq!(i64::from(code), worst, "{stderr}");
    assert!(!stderr.contains("--fail-on"), "{stderr}");
}

#[test]
fn an_interrupted_run_is_still_130() {
    // Only FAILED and SUCCESSFUL records, none of them counted: the signal still decides.
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "-j", "2"])
        .args(["--fail-on", "mismatch", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..40 {
        match i % 2 {
            0 => writeln!(stdin, "SANDBOX-FAILED-{i}").unwrap(),
            _ => writeln!(stdin, "SANDBOX-SLOW-200-{i}").unwrap(),
        }
    }
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let _ = read_lines(&mut stdout, 2);
    send_signal(&child, "-INT");
    let (_, status, stderr) = finish(child, &mut stdout);
    drop(stdin);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted after "), "{stderr}");
}

#[test]
fn records_carried_by_resume_count_by_their_class() {
    let dir = TempDir::new("fail-on-resume");
    let refs = [
        "SANDBOX-OK-1",
        "SANDBOX-FAILED-2",
        "SANDBOX-ERROR-3",
        "SANDBOX-NOTFOUND-4",
    ];
    let first = payverify()
        .args(["verify", "--sandbox", "--retries", "0", "-o", "jsonl"])
        .args(refs)
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(7), "{}", stderr_of(&first));
    let run1 = dir.write("run1.jsonl", stdout_of(&first));
    // FAILED and NOT_FOUND are carried over, UNAVAILABLE asked again: none of them counted
    // under mismatch; the carried FAILED is under declined.
    for (classes, code, left_out) in [
        (
            "mismatch",
            0,
            "exit 0: 1 FAILED, 1 NOT_FOUND, 1 UNAVAILABLE not in --fail-on mismatch",
        ),
        (
            "declined",
            1,
            "exit 1: 1 NOT_FOUND, 1 UNAVAILABLE not in --fail-on declined",
        ),
    ] {
        let out = payverify()
            .args(["verify", "--sandbox", "--retries", "0", "-o", "jsonl"])
            .args(["--fail-on", classes, "--resume"])
            .arg(&run1)
            .args(refs)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(code), "{classes}: {stderr}");
        assert!(
            stderr.contains("4 references (3 carried over, 1 asked) in "),
            "{stderr}"
        );
        assert!(stderr.ends_with(&format!("; {left_out}\n")), "{stderr}");
    }
}

#[test]
fn usage_and_incomplete_runs_are_never_left_out() {
    // Records left out or not, output that cannot be written is exit 10.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = spawnable()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "--fail-on",
            "mismatch",
        ])
        .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(10), "{}", stderr_of(&out));
    // A line that cannot be a reference is skipped and makes the run at least 2.
    let dir = TempDir::new("fail-on-usage");
    let list = dir.write(
        "refs.txt",
        "SANDBOX-FAILED-1\nSANDBOX-\u{7}BELL\nSANDBOX-OK-2\n",
    );
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "--fail-on",
            "mismatch",
            "--from",
        ])
        .arg(&list)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 2 skipped: "), "{stderr}");
    assert!(
        stderr.ends_with("; exit 2: 1 FAILED not in --fail-on mismatch\n"),
        "{stderr}"
    );
}
