//! Issue 22, item 2: a run that ends before every input item was verified is never exit 0.
//! Whatever stops it (a reader of stdout that leaves, a full or closed stdout, a signal, an
//! input unreadable past some line), `verify` and `reconcile` exit 10 (130 for a signal)
//! whatever the items they reached say, and `--summary-json` says `"complete": false` with
//! how many rows were never decided.
//!
//! The runs that a reader leaves are made deterministic with the test gateway: the first
//! item is answered at once (so there is a line to read), the next `jobs` are held until the
//! test has closed the pipe (so the write that finds it closed comes after them), then
//! `2 * jobs` paid items answered after 50 ms (what workers may start before the stop
//! reaches them), then FAILED ones. A run that stops in time has decided only paid items,
//! as the issue's `| head -1` run had: before the fix it exited 0.

use std::io::BufReader;
use std::process::{Command, ExitStatus, Stdio};

use serde_json::Value;

use crate::common::gateway::{Gateway, Txn};
use crate::common::{CLIENT_ID, SECRET, TempDir, read_lines, status_and_stderr};

/// The input items of a run a reader leaves part way (see the module's comment): `total`
/// items for `jobs` workers, and the transactions behind them.
fn layout(jobs: usize, total: usize) -> (Vec<String>, Vec<Txn>) {
    let mut refs = vec!["OK-1".to_owned()];
    refs.extend((0..jobs).map(|i| format!("GATE-OK-{i}")));
    refs.extend((0..2 * jobs).map(|i| format!("SLOW-OK-{i}")));
    let paid = refs.len();
    assert!(
        total > paid,
        "the layout needs FAILED items after the paid ones"
    );
    refs.extend((paid..total).map(|i| format!("SLOW-FAILED-{i}")));
    let txns = refs
        .iter()
        .map(|r| match r.contains("FAILED") {
            true => Txn::failed(r, 4_000_000),
            false => Txn::paid(r, 4_000_000),
        })
        .collect();
    (refs, txns)
}

/// payverify against `url` with the tests' credentials, its stdout and stderr piped.
fn payverify_cmd(url: &str) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("payverify"));
    for (key, _) in std::env::vars() {
        if key.starts_with("PAYVERIFY_") || key.to_ascii_lowercase().ends_with("_proxy") {
            cmd.env_remove(key);
        }
    }
    cmd.env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("PAYVERIFY_JOURNAL", "off")
        .env("PAYVERIFY_BASE_URL", url)
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// What a run that a reader left came to.
struct Cut {
    status: ExitStatus,
    stderr: String,
    first: String,
    summary: Option<Value>,
}

/// Runs `args` against a fresh gateway for `txns`; reads one line of stdout and closes it,
/// as `| head -1` does, and only then lets the held requests through (`open_first`: before
/// reading, for the table, which is written only once every item is decided).
fn cut_after_one_line(args: &[String], txns: &[Txn], dir: &TempDir, open_first: bool) -> Cut {
    let gateway = Gateway::start(txns);
    let summary = dir.path().join("summary.json");
    let _ = std::fs::remove_file(&summary);
    let mut child = payverify_cmd(&gateway.url)
        .current_dir(dir.path())
        .args(args)
        .spawn()
        .unwrap();
    if open_first {
        gateway.open();
    }
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let first = read_lines(&mut stdout, 1).remove(0);
    drop(stdout);
    gateway.open();
    let (status, stderr) = status_and_stderr(child);
    let summary = std::fs::read_to_string(&summary)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    Cut {
        status,
        stderr,
        first,
        summary,
    }
}

/// A small input (inside the read-ahead window of 16 items per worker, as a small shop's
/// day is) and a large one, for `jobs` workers.
fn sizes(jobs: usize) -> [(&'static str, usize); 2] {
    let small = 1 + 3 * jobs + 8;
    assert!(small <= 16 * jobs);
    [("small", small), ("large", 3000)]
}

fn orders_csv(refs: &[String]) -> String {
    let mut text = String::from("reference,amount\n");
    for r in refs {
        text.push_str(&format!("{r},40000\n"));
    }
    text
}

fn were(n: u64) -> &'static str {
    if n == 1 { "was" } else { "were" }
}

/// The number in stderr's `... stopped after N rows` summary line.
fn stopped_after(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.split("stopped after ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no 'stopped after N' line: {stderr}"))
}

#[test]
fn reconcile_cut_short_by_its_reader_is_exit_10_and_its_summary_says_incomplete() {
    let dir = TempDir::new("incomplete-reconcile");
    for jobs in [1, 8] {
        for (size, total) in sizes(jobs) {
            let (refs, txns) = layout(jobs, total);
            dir.write("orders.csv", orders_csv(&refs));
            for format in ["csv", "jsonl", "json"] {
                let case = format!("-j {jobs}, {size} file ({total} rows), -o {format}");
                // -q: the cron form; silent, and its exit status still honest.
                let args: Vec<String> = [
                    "reconcile",
                    "orders.csv",
                    "-q",
                    "-o",
                    format,
                    "-j",
                    &jobs.to_string(),
                    "--summary-json",
                    "summary.json",
                ]
                .map(str::to_owned)
                .to_vec();
                let cut = cut_after_one_line(&args, &txns, &dir, false);
                assert_eq!(cut.status.code(), Some(10), "{case}: {}", cut.stderr);
                assert_eq!(cut.stderr, "", "{case}: -q prints nothing");
                assert!(!cut.first.is_empty(), "{case}");
                let summary = cut.summary.unwrap_or_else(|| panic!("{case}: no summary"));
                assert_eq!(summary["complete"], false, "{case}: {summary}");
                assert_eq!(summary["exit_code"], 10, "{case}: {summary}");
                assert_eq!(summary["interrupted"], false, "{case}: {summary}");
                let rows = summary["rows"].as_u64().unwrap();
                assert!(rows >= 1 && rows < total as u64, "{case}: {summary}");
                // Inside the window the whole file was read: how many rows were never
                // decided is known. Beyond it, the rest of the file never was.
                let not_reached = match size {
                    "small" => Value::from(total as u64 - rows),
                    _ => Value::Null,
                };
                assert_eq!(
                    summary["rows_not_reached"], not_reached,
                    "{case}: {summary}"
                );
            }
        }
    }
}

#[test]
fn reconcile_says_on_stderr_why_a_cut_short_run_is_exit_10() {
    let dir = TempDir::new("incomplete-reconcile-stderr");
    let (refs, txns) = layout(1, 12);
    dir.write("orders.csv", orders_csv(&refs));
    let args = ["reconcile", "orders.csv", "-o", "csv", "-j", "1"].map(str::to_owned);
    let cut = cut_after_one_line(&args, &txns, &dir, false);
    assert_eq!(cut.status.code(), Some(10), "{}", cut.stderr);
    let decided = stopped_after(&cut.stderr);
    let line = format!(
        "payverify: output closed before every row was reconciled ({decided} of 12 {}), so \
         this run proves nothing about the other {} rows (exit 10)\n",
        were(decided),
        12 - decided
    );
    assert!(cut.stderr.contains(&line), "{line}\n{}", cut.stderr);
    assert!(
        cut.stderr
            .contains("summary (incomplete: of the rows decided before the run stopped)"),
        "{}",
        cut.stderr
    );
}

#[test]
fn verify_cut_short_by_its_reader_is_exit_10_whatever_it_verified() {
    let dir = TempDir::new("incomplete-verify");
    for jobs in [1, 8] {
        for (size, total) in sizes(jobs) {
            let (refs, txns) = layout(jobs, total);
            dir.write("refs.txt", refs.join("\n") + "\n");
            for format in ["csv", "jsonl", "json"] {
                let case = format!("-j {jobs}, {size} file ({total} references), -o {format}");
                let args: Vec<String> = [
                    "verify",
                    "--from",
                    "refs.txt",
                    "-o",
                    format,
                    "-j",
                    &jobs.to_string(),
                ]
                .map(str::to_owned)
                .to_vec();
                let cut = cut_after_one_line(&args, &txns, &dir, false);
                assert_eq!(cut.status.code(), Some(10), "{case}: {}", cut.stderr);
                let decided = stopped_after(&cut.stderr);
                assert!(decided >= 1 && decided <= total as u64, "{case}");
                if decided == total as u64 {
                    // The writer, starved on a loaded machine, found the pipe closed only
                    // after the workers had decided every reference: still exit 10, the
                    // records after the first never reached the reader (see
                    // a_reader_that_left_after_every_reference_was_decided_is_exit_10).
                    let said = format!(
                        "payverify: output closed before every reference was written out (1 of \
                         {total} was; all {total} were verified), so its reader did not get \
                         every record (exit 10)\n"
                    );
                    assert!(cut.stderr.contains(&said), "{case}: {said}\n{}", cut.stderr);
                    continue;
                }
                let count = match size {
                    "small" => format!("({decided} of {total} {})", were(decided)),
                    _ => format!(
                        "({decided} {}; the rest of the input was not read)",
                        were(decided)
                    ),
                };
                let said = format!(
                    "payverify: output closed before every reference was verified {count}, so \
                     this run proves nothing about"
                );
                assert!(cut.stderr.contains(&said), "{case}: {said}\n{}", cut.stderr);
                assert!(!cut.stderr.contains("interrupted"), "{case}");
            }
        }
    }
    // Arguments rather than a file: the same rule.
    let (refs, txns) = layout(1, 12);
    let mut args = vec!["verify".to_owned(), "-o".into(), "jsonl".into()];
    args.extend(["-j".into(), "1".into()]);
    args.extend(refs);
    let cut = cut_after_one_line(&args, &txns, &dir, false);
    assert_eq!(cut.status.code(), Some(10), "{}", cut.stderr);
    assert!(cut.first.contains("\"OK-1\""), "{}", cut.first);
}

#[test]
fn a_table_written_only_once_every_item_is_decided_keeps_the_full_merge() {
    // -o table writes nothing until every item is decided: a reader that leaves after its
    // first line cuts nothing short, and the exit is the merge of every item (the FAILED
    // ones: 1), never the 0 of the paid ones alone.
    let dir = TempDir::new("incomplete-table");
    let (refs, txns) = layout(1, 12);
    dir.write("orders.csv", orders_csv(&refs));
    dir.write("refs.txt", refs.join("\n") + "\n");
    let runs: [&[&str]; 2] = [
        &[
            "reconcile",
            "orders.csv",
            "--all",
            "--summary-json",
            "summary.json",
        ],
        &["verify", "--from", "refs.txt"],
    ];
    for args in runs {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let cut = cut_after_one_line(&args, &txns, &dir, true);
        assert_eq!(cut.status.code(), Some(1), "{args:?}: {}", cut.stderr);
        if let Some(summary) = cut.summary {
            assert_eq!(
                (
                    &summary["complete"],
                    &summary["rows"],
                    &summary["rows_not_reached"]
                ),
                (&Value::from(true), &Value::from(12), &Value::from(0)),
                "{summary}"
            );
        }
    }
}

#[test]
fn a_signal_part_way_is_130_and_the_summary_says_incomplete() {
    // Ctrl-C while the held rows are in flight: they finish, no other row starts. The
    // summary said "complete": true here before, whenever the file had been read to its end.
    let dir = TempDir::new("incomplete-signal");
    for jobs in [1, 8] {
        let total = sizes(jobs)[0].1;
        let (refs, txns) = layout(jobs, total);
        dir.write("orders.csv", orders_csv(&refs));
        let gateway = Gateway::start(&txns);
        let _ = std::fs::remove_file(dir.path().join("summary.json"));
        let mut child = payverify_cmd(&gateway.url)
            .current_dir(dir.path())
            .args(["reconcile", "orders.csv", "-o", "jsonl", "-j"])
            .arg(jobs.to_string())
            .args(["--summary-json", "summary.json"])
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let stderr = crate::common::Captured::start(child.stderr.take().unwrap());
        read_lines(&mut stdout, 1);
        crate::common::send_signal(&child, "-INT");
        // The held rows finish only once the stop has been seen (its notice is on stderr).
        stderr.wait_for(&["payverify: stopping: no new requests"]);
        gateway.open();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
        let status = child.wait().unwrap();
        let stderr = String::from_utf8(stderr.finish()).unwrap();
        assert_eq!(status.code(), Some(130), "-j {jobs}: {stderr}");
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("summary.json")).unwrap(),
        )
        .unwrap();
        let rows = summary["rows"].as_u64().unwrap();
        assert_eq!(
            rows as usize,
            1 + rest.lines().count(),
            "-j {jobs}: {summary}"
        );
        assert_eq!(
            (&summary["complete"], &summary["interrupted"]),
            (&Value::from(false), &Value::from(true)),
            "-j {jobs}: {summary}"
        );
        assert_eq!(
            summary["rows_not_reached"],
            Value::from(total as u64 - rows),
            "-j {jobs}: {summary}"
        );
    }
}

#[test]
fn a_full_or_closed_stdout_still_writes_an_incomplete_summary() {
    // The output cannot be written from its first byte: the run stops there (exit 10), and
    // the summary file says what was decided. Before, no summary was written at all.
    let dir = TempDir::new("incomplete-full");
    let mut text = String::from("reference,amount\n");
    // Enough rows that the run cannot decide them all before its first write fails: output
    // is buffered, and six rows were all decided before the first flush once the debug
    // build was optimised (opt-level 1).
    for i in 0..300 {
        text.push_str(&format!("SANDBOX-OK-{i},40000\nSANDBOX-FAILED-{i},40000\n"));
    }
    dir.write("orders.csv", text);
    for redirect in ["> /dev/full", ">&-"] {
        let _ = std::fs::remove_file(dir.path().join("summary.json"));
        let out = Command::new("bash")
            .current_dir(dir.path())
            .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
            .arg("-c")
            .arg(format!(
                "'{}' reconcile --sandbox orders.csv -o csv -j 1 --summary-json summary.json {redirect}",
                assert_cmd::cargo::cargo_bin!("payverify").display()
            ))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(10), "{redirect}: {stderr}");
        assert!(
            stderr.contains("payverify: cannot write the output: ")
                && stderr.contains("output failed before every row was reconciled"),
            "{redirect}: {stderr}"
        );
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("summary.json"))
                .unwrap_or_else(|e| panic!("{redirect}: no summary ({e}): {stderr}")),
        )
        .unwrap();
        assert_eq!(summary["complete"], false, "{redirect}: {summary}");
        assert_eq!(summary["exit_code"], 10, "{redirect}: {summary}");
        assert!(summary["rows"].as_u64().unwrap() < 600, "{summary}");
    }
}

#[test]
fn an_input_unreadable_part_way_is_exit_10_and_incomplete() {
    // A quote that is never closed on line 3: line 2 was reconciled, nothing after it.
    // Before, this was exit 2 with "complete": true.
    let dir = TempDir::new("incomplete-quote");
    dir.write(
        "orders.csv",
        "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,\"40000\nSANDBOX-FAILED-3,40000\n",
    );
    let out = crate::common::payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "orders.csv", "-o", "jsonl"])
        .args(["--summary-json", "summary.json"])
        .output()
        .unwrap();
    let stderr = crate::common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("line 3: a quoted field opens there and is never closed")
            && stderr.contains(
                "the input could not be read to its end (1 row was reconciled before that \
                 point), so this run proves nothing about the rest of the rows (exit 10)"
            ),
        "{stderr}"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        (
            &summary["rows"],
            &summary["complete"],
            &summary["rows_not_reached"]
        ),
        (&Value::from(1), &Value::from(false), &Value::Null),
        "{summary}"
    );
}

/// `payverify verify -j 8 ... | slow-reader` where the reader leaves once every reference
/// is decided but the writer is still blocked on the full pipe: the records it had not
/// written are lost, so the run is exit 10 all the same (it was the FAILED reference's 1,
/// as though every record had been delivered). Made certain with a pipe of one page
/// (F_SETPIPE_SZ) that no one reads: the writer blocks, every answer comes in (-v shows
/// each), and only then does the read end close.
#[test]
fn a_reader_that_left_after_every_reference_was_decided_is_exit_10() {
    if !cfg!(target_os = "linux") {
        eprintln!("SKIPPED (needs Linux's F_SETPIPE_SZ): a pipe that fills after a page");
        return;
    }
    #[cfg(target_os = "linux")]
    for format in ["jsonl", "csv"] {
        use crate::common::{blocked_on_a_full_pipe, wait_until};
        let mut refs: Vec<String> = (0..60).map(|i| format!("SANDBOX-OK-{i}")).collect();
        refs.push("SANDBOX-FAILED-1".into());
        let mut args = vec!["verify", "--sandbox", "-v", "-j", "8", "-o", format];
        args.extend(refs.iter().map(String::as_str));
        let (mut child, stderr, read_end) = blocked_on_a_full_pipe(&args);
        wait_until("every reference answered", || {
            stderr.text().matches("< GET ").count() == refs.len()
        });
        drop(read_end);
        let status = child.wait().unwrap();
        let stderr = String::from_utf8(stderr.finish()).unwrap();
        assert_eq!(status.code(), Some(10), "{format}: {stderr}");
        let written = stderr
            .split("output closed before every reference was written out (")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{format}: no 'written out' line: {stderr}"));
        assert!(written >= 1 && written < refs.len(), "{format}: {stderr}");
        let said = format!(
            "payverify: output closed before every reference was written out ({written} of 61 \
             {}; all 61 were verified), so its reader did not get every record (exit 10)\n",
            were(written as u64)
        );
        assert!(stderr.contains(&said), "{format}: {said}\n{stderr}");
        assert!(!stderr.contains("interrupted"), "{format}: {stderr}");
        assert!(
            !stderr.contains("output closed before every reference was verified"),
            "{format}: {stderr}"
        );
    }
}
