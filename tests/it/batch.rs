//! Batch verification end to end: order, duplicates, formats, exit status, interruption,
//! connection reuse and shared back-off.

use std::io::{BufReader, Write};
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::common::*;
use predicates::prelude::*;
use serde_json::Value;

#[test]
fn order_is_preserved_under_concurrency() {
    // Slow ones first: with 8 workers they finish last but must still come out first.
    let refs: Vec<String> = (0..16)
        .map(|i| format!("SANDBOX-SLOW-{}-{i}", (16 - i) * 20))
        .collect();
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "-j", "8"])
        .args(&refs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let got: Vec<String> = jsonl(&out.stdout)
        .iter()
        .map(|r| r["reference"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(got, refs);
}

#[test]
fn records_have_the_documented_fields() {
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "SANDBOX-OK-1", "nope"])
        .output()
        .unwrap();
    let records = jsonl(&out.stdout);
    let keys: Vec<&String> = records[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "reference",
            "outcome",
            "exit_code",
            "http_status",
            "error",
            "checks",
            "response",
            "judged",
            "seal"
        ]
    );
    // payverify's seal: 64 hex digits, what --resume checks before carrying a record.
    let seal = records[0]["seal"].as_str().unwrap();
    assert!(
        seal.len() == 64 && seal.bytes().all(|b| b.is_ascii_hexdigit()),
        "{seal}"
    );
    assert_eq!(records[0]["outcome"], "SUCCESSFUL");
    assert_eq!(records[0]["response"]["transactionRef"], "SANDBOX-OK-1");
    assert_eq!(records[0]["checks"]["integrity"], "hmac valid");
    assert_eq!(records[1]["outcome"], "NOT_FOUND");
    assert_eq!(records[1]["exit_code"], 3);
    assert_eq!(records[1]["http_status"], 404);
    assert_eq!(records[1]["response"], Value::Null);
    assert!(records[1]["error"].as_str().unwrap().contains("'nope'"));
}

#[test]
fn every_outcome_name_and_exit_is_the_most_severe() {
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "--retries",
            "0",
            "--hmac",
            "require",
        ])
        .args([
            "SANDBOX-OK-1",
            "SANDBOX-FAILED-1",
            "nope",
            "SANDBOX-BADHMAC-1",
            "SANDBOX-ERROR-1",
            "SANDBOX-PENDING-1",
        ])
        .output()
        .unwrap();
    // A failed check (4) is never hidden behind unavailable (7) or not final (9).
    assert_eq!(out.status.code(), Some(4), "most severe of 0,1,3,4,7,9");
    let outcomes: Vec<String> = jsonl(&out.stdout)
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        outcomes,
        [
            "SUCCESSFUL",
            "FAILED",
            "NOT_FOUND",
            "CHECK_FAILED",
            "UNAVAILABLE",
            "NOT_FINAL"
        ]
    );
    assert!(stderr_of(&out).contains("6 references in"));
    assert!(stderr_of(&out).contains(
        "1 SUCCESSFUL, 1 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED, 1 UNAVAILABLE, 1 NOT_FINAL"
    ));
    payverify()
        .args(["verify", "--sandbox", "-q", "SANDBOX-OK-1", "SANDBOX-OK-2"])
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
}

#[test]
fn with_comments_stdin_and_file_skip_blanks_and_comments_and_collapse_duplicates() {
    let dir = TempDir::new("batch-input");
    let file = dir.write(
        "refs.txt",
        "# settlement 2026-11-21\nSANDBOX-OK-b\n\n  SANDBOX-OK-a  \n",
    );
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "--comments",
            "-",
            "--from",
        ])
        .arg(&file)
        .write_stdin("SANDBOX-OK-a\n\n# comment\nSANDBOX-OK-c\r\nSANDBOX-OK-a\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let got: Vec<String> = jsonl(&out.stdout)
        .iter()
        .map(|r| r["reference"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(got, ["SANDBOX-OK-a", "SANDBOX-OK-c", "SANDBOX-OK-b"]);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("reference 'SANDBOX-OK-a' given again (stdin line 5); verified once"),
        "{stderr}"
    );
    assert!(
        stderr.contains("given again (") && stderr.contains("refs.txt line 4"),
        "{stderr}"
    );
    assert!(stderr.contains("3 references in"), "{stderr}");
}

#[test]
fn invalid_lines_are_reported_and_raise_the_exit_status() {
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "-"])
        .write_stdin("SANDBOX-OK-a\nbad\u{1}ref\nSANDBOX-OK-b\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(jsonl(&out.stdout).len(), 2);
    assert!(
        stderr_of(&out)
            .contains("stdin line 2 skipped: the reference contains a control character")
    );
}

#[test]
fn csv_has_a_header_and_quotes_per_rfc_4180() {
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "csv", "SANDBOX-OK-1", "a,b\"c"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "reference,outcome,exit_code,status,code,amount_kobo,amount,currency,merchant_ref,transaction_ref,payment_ref,transaction_date,payment_date,error,checks"
    );
    assert!(
        lines[1].starts_with("SANDBOX-OK-1,SUCCESSFUL,0,SUCCESSFUL,00,4000000,40000.00,NGN,SBX-")
    );
    assert!(
        lines[1].ends_with(",,hmac valid"),
        "no error for a success, and its checks: {}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("\"a,b\"\"c\",NOT_FOUND,3,"),
        "{}",
        lines[2]
    );
    assert_eq!(lines.len(), 3);
}

#[test]
fn json_is_one_array_of_the_records() {
    let out = payverify()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "json",
            "SANDBOX-OK-1",
            "SANDBOX-FAILED-1",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = v.as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["outcome"], "FAILED");
    // Nothing to verify is a usage error: no array at all, not an empty one.
    let empty = payverify()
        .args(["verify", "--sandbox", "-o", "json", "--comments", "-"])
        .write_stdin("# nothing\n")
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(2));
    assert_eq!(stdout_of(&empty), "");
}

#[test]
fn table_has_one_row_per_reference() {
    payverify()
        .args(["verify", "--sandbox", "SANDBOX-OK-1", "SANDBOX-FAILED-1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Reference"))
        .stdout(predicate::function(|s: &str| {
            s.lines().filter(|l| l.contains("SANDBOX-")).count() == 2
        }));
}

#[test]
fn single_reference_with_a_record_format_is_one_record() {
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "SANDBOX-OK-1"])
        .output()
        .unwrap();
    assert_eq!(jsonl(&out.stdout).len(), 1);
}

#[test]
fn bad_arguments_fail_before_any_request() {
    payverify()
        .args(["verify", "--sandbox", "-j", "65", "A", "B"])
        .assert()
        .code(2);
    payverify()
        .args(["verify", "--sandbox", "A", "", "B"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "reference argument 2: the reference is empty",
        ));
    payverify()
        .args(["verify", "--sandbox", "--from", "/nonexistent/refs.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such file"));
}

#[test]
fn connections_are_reused() {
    let server = KeepAliveServer::start(|path, _| {
        let reference = path.rsplit('/').next().unwrap_or("");
        let body = format!(
            r#"{{"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"{reference}"}}"#
        );
        ("200 OK".into(), vec![], body)
    });
    let refs: String = (0..200).map(|i| format!("R{i}\n")).collect();
    let out = payverify_at(&server.url)
        .args(["verify", "-", "-o", "jsonl", "-j", "4", "--hmac", "off"])
        .write_stdin(refs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(jsonl(&out.stdout).len(), 200);
    let connections = server.connections.load(Ordering::SeqCst);
    assert!(
        connections <= 8,
        "200 requests over {connections} connections: the pool is not reused"
    );
}

#[test]
fn rate_limits_requests_per_second() {
    let started = Instant::now();
    payverify()
        .args(["verify", "--sandbox", "-q", "--rate", "20", "-j", "4"])
        .args((0..10).map(|i| format!("SANDBOX-OK-{i}")))
        .assert()
        .code(0);
    // Ten slots 50 ms apart: the last starts no earlier than 450 ms.
    assert!(
        started.elapsed() >= Duration::from_millis(450),
        "{:?}",
        started.elapsed()
    );
}

/// A service answering each reference SUCCESSFUL but the first request, which gets 429
/// with `Retry-After: {retry_after}`; it sends each request's path down the returned
/// receiver as it arrives.
fn throttling_the_first(retry_after: u32) -> (KeepAliveServer, std::sync::mpsc::Receiver<String>) {
    let (asked, arrived) = std::sync::mpsc::channel();
    let asked = std::sync::Mutex::new(asked);
    let server = KeepAliveServer::start(move |path, n| {
        let _ = asked.lock().unwrap().send(path.to_owned());
        if n == 1 {
            return (
                "429 Too Many Requests".into(),
                vec![format!("Retry-After: {retry_after}")],
                r#"{"message":"slow down"}"#.into(),
            );
        }
        let reference = path.rsplit('/').next().unwrap_or("");
        (
            "200 OK".into(),
            vec![],
            format!(
                r#"{{"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"{reference}"}}"#
            ),
        )
    });
    (server, arrived)
}

/// A 429 with Retry-After holds back the reference that got it, for that long; the
/// other workers go on (paced, not paused), and a throttled answer uses up no retry: even
/// with `--retries 0` the reference is asked again and verified.
#[test]
fn a_429_holds_back_its_reference_not_every_worker_and_uses_no_retry() {
    let refs: String = (0..12).map(|i| format!("R{i}\n")).collect();
    let args = ["verify", "-", "-j", "4", "--hmac", "off", "--retries", "0"];
    // Held back for 30 s (the longest Retry-After honoured): the other eleven are asked
    // while it is, waited on as they arrive. A pause of every worker would bring none of
    // them before the hold ends (this asked for all eleven within 1 s of a 1 s
    // Retry-After, which a loaded machine's slower pacing missed).
    let (server, arrived) = throttling_the_first(30);
    let mut child = spawnable_at(&server.url)
        .args(args)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(refs.as_bytes())
        .unwrap();
    let stderr = Captured::start(child.stderr.take().unwrap());
    let held_from = Instant::now();
    let limited = arrived.recv_timeout(Duration::from_secs(60)).unwrap();
    let mut others = std::collections::BTreeSet::new();
    while others.len() < 11 {
        let left = Duration::from_secs(25).saturating_sub(held_from.elapsed());
        match arrived.recv_timeout(left) {
            Ok(path) => {
                assert_ne!(path, limited, "asked again within its 30 s Retry-After");
                others.insert(path);
            }
            Err(_) => panic!(
                "only {} others asked while it was held: {others:?}",
                others.len()
            ),
        }
    }
    send_signal(&child, "-TERM");
    let status = child.wait().unwrap();
    let stderr = String::from_utf8_lossy(&stderr.finish()).into_owned();
    assert_eq!(status.code(), Some(130), "{stderr}");

    // Held back for 1 s, then asked again and verified though --retries is 0.
    let (server, _arrived) = throttling_the_first(1);
    let out = payverify_at(&server.url)
        .args(args)
        .write_stdin(refs)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("12 SUCCESSFUL; the service asked to slow down once; the run finished at "),
        "{stderr}"
    );
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 13, "12 references plus one retry");
    let (limited_at, limited) = requests[0].clone();
    let again = requests[1..].iter().find(|(_, p)| *p == limited).unwrap();
    assert!(
        again.0 >= limited_at + Duration::from_millis(950),
        "asked again {:?} after the 429",
        again.0 - limited_at
    );
}

#[test]
fn interrupted_batch_keeps_finished_lines_and_exits_130() {
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "-j", "2", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..40 {
        writeln!(stdin, "SANDBOX-SLOW-200-{i}").unwrap();
    }
    stdin.flush().unwrap();
    // stdin stays open: the reader is blocked on it when the signal comes.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = read_lines(&mut stdout, 3);
    send_signal(&child, "-INT");
    let started = Instant::now();
    let (rest, status, stderr) = finish(child, &mut stdout);
    drop(stdin);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(5), "slow to stop");
    lines.extend(rest.lines().map(|l| format!("{l}\n")));
    assert!(lines.len() < 40, "it stopped early: {} lines", lines.len());
    for (i, line) in lines.iter().enumerate() {
        assert!(line.ends_with('\n'), "torn line {line:?}");
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            v["reference"],
            format!("SANDBOX-SLOW-200-{i}"),
            "in order, no gap"
        );
        assert_eq!(v["outcome"], "SUCCESSFUL");
    }
    assert!(
        stderr.contains(&format!("interrupted after {} references", lines.len())),
        "{stderr}"
    );
}

/// The batch table as a terminal of `columns` shows it: payverify runs on a pseudo-terminal
/// (util-linux `script`) with `COLUMNS` set; escapes and carriage returns are removed.
fn table_on_terminal(columns: u16, refs: &[&str]) -> String {
    let out = on_terminal(&format!("verify --sandbox {} 2>/dev/null", refs.join(" ")))
        .env("COLUMNS", columns.to_string())
        .env("NO_COLOR", "1")
        .output()
        .expect("util-linux script runs payverify on a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

#[test]
fn batch_table_fits_60_80_and_120_columns_without_splitting_words() {
    let refs = [
        "SANDBOX-OK-1",
        "SANDBOX-NOTFOUND-1",
        "SANDBOX-BADHMAC-1",
        "SANDBOX-FAILED-1",
    ];
    for columns in [60, 80, 120] {
        let table = table_on_terminal(columns, &refs);
        assert!(
            table.contains('┌'),
            "{columns}: not a terminal table:\n{table}"
        );
        for line in table.lines() {
            assert!(
                line.chars().count() <= usize::from(columns),
                "{columns}: line wider than the terminal: {line:?}\n{table}"
            );
        }
        // Every reference and outcome whole, on the row of its reference.
        for (reference, outcome) in [
            ("SANDBOX-OK-1", "SUCCESSFUL"),
            ("SANDBOX-NOTFOUND-1", "NOT_FOUND"),
            ("SANDBOX-BADHMAC-1", "SUCCESSFUL"),
            ("SANDBOX-FAILED-1", "FAILED"),
        ] {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("│ {reference} ")))
                .unwrap_or_else(|| panic!("{columns}: no row for {reference}:\n{table}"));
            assert!(row.contains(&format!(" {outcome} ")), "{columns}: {row}");
        }
        assert!(
            table.contains("Reference ") && table.contains("Outcome "),
            "{table}"
        );
        for split in ["Referenc ", "SUCCESSF ", "NOT_FOUN ", "MISMATC "] {
            assert!(
                !table.contains(split),
                "{columns}: split word {split:?}:\n{table}"
            );
        }
        assert!(table.contains("hmac MISMATCH"), "{columns}:\n{table}");
        assert!(table.contains("Insufficient"), "{columns}:\n{table}");
    }
    // At 120 columns every column has room of its own; a merchant ref too long for its
    // column is cut with an ellipsis, never broken over two lines.
    let wide = table_on_terminal(120, &refs);
    assert!(
        wide.contains("Merchant ref") && wide.contains("Checks"),
        "{wide}"
    );
    assert!(
        wide.contains("SBX-") && wide.lines().all(|l| !l.contains("┆ 5 ")),
        "{wide}"
    );
}

#[test]
fn batch_table_error_does_not_repeat_the_reference() {
    let out = payverify()
        .args(["verify", "--sandbox", "SANDBOX-OK-1", "SANDBOX-FAILED-1"])
        .output()
        .unwrap();
    let table = stdout_of(&out);
    let row = table
        .lines()
        .find(|l| l.starts_with("SANDBOX-FAILED-1"))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(row.matches("SANDBOX-FAILED-1").count(), 1, "{row}");
    assert!(row.contains("FAILED (51 Insufficient Funds)"), "{row}");
}

/// Whether every colour and attribute an SGR-coloured line sets is reset before it ends.
fn ends_clean(line: &str) -> bool {
    let (mut fg, mut bold) = (false, false);
    let mut rest = line;
    while let Some(at) = rest.find("\u{1b}[") {
        let tail = &rest[at + 2..];
        let Some(end) = tail.find('m') else {
            return false;
        };
        for code in tail[..end].split(';') {
            match code {
                "0" | "" => (fg, bold) = (false, false),
                "39" => fg = false,
                "22" => bold = false,
                "1" => bold = true,
                "38" | "30" | "31" | "32" | "33" | "34" | "35" | "36" | "37" => fg = true,
                _ => {}
            }
        }
        rest = &tail[end + 1..];
    }
    !fg && !bold
}

#[test]
fn batch_table_colours_outcomes_and_resets_before_each_line_ends() {
    let out = payverify()
        .args(["verify", "--sandbox", "--color", "always"])
        .args(["SANDBOX-OK-1", "SANDBOX-FAILED-1", "SANDBOX-NOTFOUND-1"])
        .output()
        .unwrap();
    let table = stdout_of(&out);
    let row = |r: &str| {
        table
            .lines()
            .find(|l| l.starts_with(r))
            .unwrap_or_else(|| panic!("{table}"))
            .to_owned()
    };
    assert!(
        row("SANDBOX-OK-1 ").contains("\u{1b}[38;5;10m"),
        "{table:?}"
    );
    assert!(
        row("SANDBOX-FAILED-1").contains("\u{1b}[38;5;9m"),
        "{table:?}"
    );
    assert!(
        row("SANDBOX-NOTFOUND-1").contains("\u{1b}[38;5;11m"),
        "{table:?}"
    );
    for line in table.lines() {
        assert!(
            ends_clean(line),
            "colour left on past the line end: {line:?}"
        );
    }
    // The checker itself: a reset after the newline is what `| head -1` used to cut off.
    assert!(!ends_clean("\u{1b}[38;5;10m\u{1b}[1m SUCCESSFUL"));
    assert!(ends_clean("\u{1b}[38;5;11m NOT_FOUND \u{1b}[39m"));
}

/// A first Ctrl-C names how long it waits for what is in flight, and the summary counts what
/// was not verified: a file of 5 distinct references (plus a duplicate, a comment and a
/// blank line), one at a time, each 3s, interrupted during the first.
#[test]
fn interrupted_file_batch_says_what_is_in_flight_and_not_verified() {
    let dir =
        std::env::temp_dir().join(format!("payverify-bar-{}-{}", std::process::id(), line!()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("refs.txt");
    let refs = (0..5).map(|i| format!("SANDBOX-SLOW-3000-{i}\n"));
    let text = format!("# day\n\n{}SANDBOX-SLOW-3000-0\n", refs.collect::<String>());
    std::fs::write(&file, text).unwrap();
    let mut child = spawnable()
        .args([
            "-v",
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "-j",
            "1",
            "--comments",
            "--from",
        ])
        .arg(&file)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Once -v shows the first request sent, it is in flight with most of its 3 s to go (a
    // fixed time from the spawn could still be start-up on a loaded machine).
    let stdout = Captured::start(child.stdout.take().unwrap());
    let captured = Captured::start(child.stderr.take().unwrap());
    captured.wait_for(&["payverify: > GET"]);
    send_signal(&child, "-INT");
    let status = child.wait().unwrap();
    let stderr = String::from_utf8_lossy(&captured.finish()).into_owned();
    assert_eq!(status.code(), Some(130), "{stderr}");
    // The reference in flight had most of its 3 s to go: not waited for.
    assert_eq!(jsonl(&stdout.finish()).len(), 0, "{stderr}");
    assert!(
        stderr.contains(
            "payverify: stopping: no new requests; 1 in flight get 300 ms to finish; Ctrl-C \
             again to quit now\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("interrupted after 0 references") && stderr.contains("; not verified: 5\n"),
        "{stderr}"
    );
}

/// On a terminal the bar shows the counted total of a --from file, the percent, an ETA and
/// the failures so far by class; with stdout on the same terminal, every CSV row starts on a clean
/// line (the bar is cleared before it is written).
#[test]
fn progress_bar_shows_total_percent_eta_failures_and_keeps_out_of_rows() {
    let dir =
        std::env::temp_dir().join(format!("payverify-bar-{}-{}", std::process::id(), line!()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("refs.txt");
    let refs: String = (0..6).map(|i| format!("SANDBOX-SLOW-300-{i}\n")).collect();
    std::fs::write(&file, format!("{refs}SANDBOX-FAILED-1\n")).unwrap();
    let out = on_terminal(&format!(
        "verify --sandbox -j 2 -o csv --from {}",
        file.display()
    ))
    .env("NO_COLOR", "1")
    .output()
    .expect("util-linux script runs payverify on a pseudo-terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/7 ("), "total counted first: {text}");
    assert!(
        text.contains("%) verified") && text.contains("ETA "),
        "{text}"
    );
    // Counted by outcome class (issue 27 item 3; fail_on.rs has every class).
    assert!(text.contains("1 declined"), "failures so far: {text}");
    // A row is written only after the bar line was erased (`\r` then erase-line), so no
    // row shares a line with bar text.
    for line in text.split(['\r', '\n']) {
        let clean = line.replace("\u{1b}[2K", "");
        if let Some(at) = clean.find("SANDBOX-") {
            assert!(
                !clean[..at].contains("verified"),
                "bar text before a row: {clean:?}"
            );
        }
    }
}
