//! Issue 36, item 1: an input that changes while a run reads it is never exit 0. An export
//! job rewriting the list in place (`>`, `cp`, `truncate`) or renaming a new one over it
//! while `verify --from` or `reconcile` reads it: the run exits 10 with one line naming the
//! file, and `--summary-json` says `"complete": false`, never exit 0 for a list of which
//! most was never asked.
//!
//! Each run is held at its first request (the test gateway holds `GATE-` references) until
//! the file has been changed: the reader has then read only its window (16 items a worker)
//! of the 3,000 lines, as the issue's `sleep 1.5; truncate` did.

use std::process::Stdio;

use serde_json::Value;

use crate::common::gateway::{Gateway, Txn};
use crate::common::{TempDir, spawnable_at, status_and_stderr, wait_until};

/// How many references or orders the input holds.
const TOTAL: usize = 3000;

/// `GATE-00000` ... one a line, each line 11 bytes.
fn references() -> Vec<String> {
    (0..TOTAL).map(|i| format!("GATE-{i:05}")).collect()
}

/// How the input is changed while the run is held.
#[derive(Debug, Clone, Copy)]
enum Change {
    /// Cut to this many bytes (`truncate -s`), mid-line or on a line end.
    CutTo(u64),
    /// Emptied (`> refs.txt`).
    Emptied,
    /// A new file of its first 100 lines renamed over it (`mv new refs.txt`).
    Replaced,
    /// Rewritten in place to the same size (`cp` of a list of other references).
    Rewritten,
    /// Rewritten so, and its modification time put back (`cp -p`, `touch -r`).
    RewrittenTimeKept,
}

impl Change {
    /// Every change, for an input whose first line is `header` bytes (0 for a list).
    fn all(header: u64) -> [Change; 6] {
        [
            // Mid-line, inside what the reader has read already, as the 600.
            Change::CutTo(header + 600),
            // On a line end, past the window: the cut falls where the reader goes on.
            Change::CutTo(header + 11 * 1000),
            Change::Emptied,
            Change::Replaced,
            Change::Rewritten,
            Change::RewrittenTimeKept,
        ]
    }

    fn apply(self, path: &std::path::Path, text: &str) {
        match self {
            Change::CutTo(size) => {
                let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                file.set_len(size).unwrap();
            }
            Change::Emptied => std::fs::write(path, "").unwrap(),
            Change::Replaced => {
                let head: String = text.split_inclusive('\n').take(100).collect();
                let new = path.with_extension("new");
                std::fs::write(&new, head).unwrap();
                std::fs::rename(&new, path).unwrap();
            }
            Change::Rewritten => {
                // The same size and lines of the same shape: only the file's clock shows it.
                std::fs::write(path, text.replace("GATE-", "GATX-")).unwrap();
            }
            Change::RewrittenTimeKept => {
                // As above, then the old modification time put back: only the inode's
                // status-change time, which no program can set, still shows it.
                let modified = std::fs::metadata(path).unwrap().modified().unwrap();
                std::fs::write(path, text.replace("GATE-", "GATX-")).unwrap();
                let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                file.set_modified(modified).unwrap();
            }
        }
    }
}

/// Runs `args` (in `dir`, its stdout to `out`) against a gateway holding every reference
/// until `change` has been made to `input`, whose text was `text`; the exit code and stderr.
fn changed_while_read(
    dir: &TempDir,
    args: &[&str],
    input: &str,
    text: &str,
    change: Change,
) -> (Option<i32>, String) {
    let txns: Vec<Txn> = references()
        .iter()
        .map(|r| Txn::paid(r, 4_000_000))
        .collect();
    let gateway = Gateway::start(&txns);
    let path = dir.write(input, text);
    let out = std::fs::File::create(dir.path().join("out")).unwrap();
    let child = spawnable_at(&gateway.url)
        .current_dir(dir.path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .spawn()
        .unwrap();
    wait_until("the first request", || gateway.requests() > 0);
    change.apply(&path, text);
    gateway.open();
    let (status, stderr) = status_and_stderr(child);
    (status.code(), stderr)
}

#[test]
fn a_list_changed_while_verify_reads_it_is_exit_10_naming_the_file() {
    let dir = TempDir::new("changed-list");
    let text: String = references().iter().map(|r| format!("{r}\n")).collect();
    for jobs in ["1", "8"] {
        for change in Change::all(0) {
            let case = format!("-j {jobs}, {change:?}");
            let args = ["verify", "--from", "refs.txt", "-j", jobs, "-o", "csv"];
            let (code, stderr) = changed_while_read(&dir, &args, "refs.txt", &text, change);
            assert_eq!(code, Some(10), "{case}: {stderr}");
            assert!(
                stderr.contains("payverify: refs.txt changed while it was read: "),
                "{case}: {stderr}"
            );
            // A cut or emptied list was not verified whole: fewer rows than references
            // (the header, then one a reference). A list renamed over or rewritten may have
            // been read to its end, and is exit 10 all the same.
            let rows = std::fs::read_to_string(dir.path().join("out")).unwrap();
            if matches!(change, Change::CutTo(_) | Change::Emptied) {
                assert!(rows.lines().count() < TOTAL + 1, "{case}");
            }
        }
    }
}

#[test]
fn an_orders_file_changed_while_reconcile_reads_it_is_exit_10_and_incomplete() {
    let dir = TempDir::new("changed-orders");
    let header = "reference,amount\n";
    let mut text = header.to_owned();
    for r in references() {
        // 11 bytes a line as the list's: `GATE-00000,40000` is more; the cut points are
        // bytes from the header either way.
        text.push_str(&format!("{r},40000\n"));
    }
    for jobs in ["1", "8"] {
        for change in Change::all(header.len() as u64) {
            let case = format!("-j {jobs}, {change:?}");
            let args = [
                "reconcile",
                "orders.csv",
                "-j",
                jobs,
                "-o",
                "csv",
                "--summary-json",
                "summary.json",
            ];
            let (code, stderr) = changed_while_read(&dir, &args, "orders.csv", &text, change);
            assert_eq!(code, Some(10), "{case}: {stderr}");
            assert!(
                stderr.contains("payverify: orders.csv changed while it was read: "),
                "{case}: {stderr}"
            );
            let summary = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
            let summary: Value = serde_json::from_str(&summary).unwrap();
            assert_eq!(summary["complete"], false, "{case}: {summary}");
        }
    }
}

/// The same list read while nothing changes it is exit 0: the check at its end finds it as
/// it was opened (the differential twin of the tests above).
#[test]
fn a_list_nothing_changes_is_read_whole_and_exit_0() {
    let dir = TempDir::new("unchanged-list");
    let text: String = references().iter().map(|r| format!("{r}\n")).collect();
    let txns: Vec<Txn> = references()
        .iter()
        .map(|r| Txn::paid(r, 4_000_000))
        .collect();
    let gateway = Gateway::start(&txns);
    gateway.open();
    dir.write("refs.txt", &text);
    for jobs in ["1", "8"] {
        let out = crate::common::payverify_at(&gateway.url)
            .current_dir(dir.path())
            .args([
                "verify", "--from", "refs.txt", "-j", jobs, "-o", "csv", "-q",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "-j {jobs}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().count(),
            TOTAL + 1,
            "-j {jobs}"
        );
    }
}

/// A list given as stdin redirected from a file (`- < refs.txt`) is checked the same way:
/// cut while it is read, exit 10 naming stdin.
#[test]
fn a_list_on_stdin_from_a_file_cut_while_read_is_exit_10() {
    let dir = TempDir::new("changed-stdin");
    let text: String = references().iter().map(|r| format!("{r}\n")).collect();
    let path = dir.write("refs.txt", &text);
    let txns: Vec<Txn> = references()
        .iter()
        .map(|r| Txn::paid(r, 4_000_000))
        .collect();
    let gateway = Gateway::start(&txns);
    let child = spawnable_at(&gateway.url)
        .current_dir(dir.path())
        .args(["verify", "-", "-j", "1", "-o", "csv"])
        .stdin(std::fs::File::open(&path).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the first request", || gateway.requests() > 0);
    Change::CutTo(600).apply(&path, &text);
    gateway.open();
    let (status, stderr) = status_and_stderr(child);
    assert_eq!(status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("payverify: stdin changed while it was read: it ended after "),
        "{stderr}"
    );
}
