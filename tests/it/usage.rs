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
