//! Usage errors and the reference cap (issue 23, items 8 and 12): a usage error leaves
//! stdout empty in every format, and a reference is measured without the padding a line
//! adds (an argument has none taken off), the same way from every path.

use std::process::Output;

use crate::common::*;
use serde_json::Value;

const FORMATS: [&str; 4] = ["table", "csv", "json", "jsonl"];

fn assert_usage_error(out: &Output, says: &str) {
    let stderr = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stdout_of(out), "", "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(says), "missing {says:?}: {stderr}");
}

#[test]
fn item12_nothing_to_verify_leaves_stdout_empty_in_every_format() {
    let dir = TempDir::new("usage-empty");
    let empty = dir.write("empty.txt", "");
    let orders = dir.write("orders.csv", "reference,amount\n\n");
    for format in FORMATS {
        for stdin in ["", "\n# only a comment\n", "\u{feff}"] {
            let out = payverify()
                .args(["verify", "--sandbox", "-o", format, "--comments", "-"])
                .write_stdin(stdin)
                .output()
                .unwrap();
            assert_usage_error(&out, "no references to verify");
        }
        let out = payverify()
            .args(["verify", "--sandbox", "-o", format, "--from"])
            .arg(&empty)
            .output()
            .unwrap();
        assert_usage_error(&out, "no references to verify");
        let out = payverify()
            .args(["reconcile", "--sandbox", "-o", format])
            .arg(&orders)
            .output()
            .unwrap();
        assert_usage_error(&out, "no rows to reconcile");
    }
}

#[test]
fn item8_a_4096_byte_reference_is_accepted_from_every_path_and_4097_from_none() {
    let longest = format!("SANDBOX-OK-{}", "x".repeat(4085));
    assert_eq!(longest.len(), 4096);
    let over = format!("{longest}y");
    let dir = TempDir::new("usage-cap");
    // Each way a reference arrives, with the whitespace a file or a shell adds around it.
    let ways = |r: &str| {
        vec![
            ("argument", vec![r.to_owned()], None),
            ("LF line", vec![], Some(format!("{r}\n"))),
            ("CRLF line", vec![], Some(format!("{r}\r\n"))),
            ("spaced CRLF line", vec![], Some(format!(" \t {r}  \r\n"))),
            ("last line", vec![], Some(r.to_owned())),
        ]
    };
    for (how, args, file) in ways(&longest) {
        let mut cmd = payverify();
        cmd.args(["verify", "--sandbox", "-o", "jsonl"]).args(&args);
        if let Some(text) = file {
            cmd.arg("--from").arg(dir.write("refs.txt", text));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{how}: {}", stderr_of(&out));
        let records = jsonl(&out.stdout);
        assert_eq!(records.len(), 1, "{how}");
        assert_eq!(
            records[0]["reference"],
            Value::from(longest.as_str()),
            "{how}"
        );
    }
    for (how, args, file) in ways(&over) {
        let mut cmd = payverify();
        cmd.args(["verify", "--sandbox", "-o", "jsonl"]).args(&args);
        if let Some(text) = file {
            cmd.arg("--from").arg(dir.write("refs.txt", text));
        }
        let out = cmd.output().unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{how}: {stderr}");
        assert_eq!(stdout_of(&out), "", "{how}");
        assert!(
            stderr.contains("the reference is 4097 bytes long; the most accepted is 4096"),
            "{how}: {stderr}"
        );
    }
}

/// The longest reference whose every byte is percent-encoded (12 KiB of path) still fits
/// the room a connection writes its request head into, plain and over TLS.
#[test]
fn a_4096_byte_reference_that_encodes_to_three_times_its_length_is_asked() {
    let longest = format!("SANDBOX-OK-{}", "%".repeat(4085));
    assert_eq!(longest.len(), 4096);
    for tls in [false, true] {
        let mut cmd = payverify();
        cmd.args(["verify", "--sandbox", "-o", "jsonl"]);
        if tls {
            cmd.arg("--tls");
        }
        let out = cmd.args(["--", &longest]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "tls {tls}: {}", stderr_of(&out));
        let records = jsonl(&out.stdout);
        assert_eq!(records.len(), 1, "tls {tls}");
        assert_eq!(records[0]["reference"], Value::from(longest.as_str()));
        assert_eq!(records[0]["outcome"], "SUCCESSFUL", "tls {tls}");
    }
}

/// gate's names for the expectations (`--amount`, `--currency`, `--merchant-ref`) are
/// verify's too, so a slip between the two commands is understood, and a misspelling is
/// pointed at the right flag, not at `--timeout` (issue 39, item 5).
#[test]
fn verify_takes_gates_names_for_its_expectations_and_points_a_slip_at_them() {
    // The sandbox's sample is 40,000.00 NGN under merchantRef WQ-506391000507913.
    for (flags, code) in [
        (vec!["--amount", "40000"], 0),
        (vec!["--amount", "40001"], 4),
        (vec!["--amount-kobo", "4000000"], 0),
        (vec!["--currency", "USD"], 4),
        (vec!["--merchant-ref", "WQ-506391000507913"], 0),
        (vec!["--merchant-ref", "WQ-506391000507913 "], 4),
    ] {
        let out = payverify()
            .args(["verify", "--sandbox", "-o", "json"])
            .args(&flags)
            .args(["--", "0000000000000044177"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{flags:?}: {}",
            stderr_of(&out)
        );
    }
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "--ammount",
            "40000",
            "--",
            "0000000000000044177",
        ])
        .output()
        .unwrap();
    assert_usage_error(&out, "a similar argument exists: '--amount'");
}

/// A reference put before `--` on gate (where a customer's reference is never read as an
/// option) is answered with how to write it; an unknown option is not.
#[test]
fn a_gate_reference_before_the_dashes_is_shown_where_it_goes() {
    let out = payverify()
        .args([
            "gate",
            "--sandbox",
            "--amount",
            "40000",
            "--merchant-ref",
            "ORDER-17",
        ])
        .arg("SANDBOX-MERCHANT-ORDER-17")
        .output()
        .unwrap();
    assert_usage_error(
        &out,
        "gate's reference goes after --: 'payverify gate [OPTIONS] -- SANDBOX-MERCHANT-ORDER-17'",
    );
    // Whatever it holds reaches the terminal escaped.
    let out = payverify()
        .args([
            "gate",
            "--amount",
            "40000",
            "--merchant-ref",
            "ORDER-17",
            "R\u{1b}[2J",
        ])
        .output()
        .unwrap();
    assert_usage_error(&out, "-- R\\e[2J'");
    assert!(!stderr_of(&out).contains('\u{1b}'), "{}", stderr_of(&out));
    let out = payverify()
        .args([
            "gate",
            "--amout",
            "40000",
            "--merchant-ref",
            "ORDER-17",
            "--",
            "R",
        ])
        .output()
        .unwrap();
    assert_usage_error(&out, "a similar argument exists: '--amount'");
    assert!(
        !stderr_of(&out).contains("goes after"),
        "{}",
        stderr_of(&out)
    );
}
