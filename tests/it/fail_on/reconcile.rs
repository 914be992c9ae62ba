//! `reconcile --fail-on CLASS,...` (issue 38, item 4): as for verify, a scheduled run exits
//! with the most severe exit among the rows of the classes named, else 0; every row is still
//! written, the summary line names the rows left out, and a row of the `fault` class (one
//! that cannot be read) always counts.

use super::{SEVERITY, most_severe};
use crate::common::{TempDir, jsonl, payverify, stderr_of};

/// Each reconcile result's class, as docs/exit-codes.md and `reconcile --help` state them:
/// the test's own oracle, written apart from the code's table.
const RESULT_CLASS: [(&str, &str); 7] = [
    ("MATCHED", "paid"),
    ("FAILED", "declined"),
    ("NOT_FOUND", "not_found"),
    ("UNDERPAID", "mismatch"),
    ("NOT_FINAL", "pending"),
    ("UNVERIFIED", "unverified"),
    ("INVALID_ROW", "fault"),
];

/// An orders file with one row of each result above.
const ORDERS: &str = "Order,Payment Reference,Total\n\
    1001,SANDBOX-OK-1001,40000\n\
    1002,SANDBOX-FAILED-1002,40000\n\
    1003,SANDBOX-NOTFOUND-1003,40000\n\
    1004,SANDBOX-AMOUNT-3999950-1004,40000\n\
    1005,SANDBOX-PENDING-1005,40000\n\
    1006,SANDBOX-ERROR-1006,40000\n\
    1007,SANDBOX-OK-1007,forty\n";

fn reconcile(file: &std::path::Path, args: &[&str]) -> std::process::Output {
    payverify()
        .args(["reconcile", "--sandbox", "--retries", "0", "-o", "jsonl"])
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn the_exit_is_the_most_severe_row_of_the_classes_named() {
    let dir = TempDir::new("reconcile-fail-on");
    let file = dir.write("orders.csv", ORDERS);
    let classes = ["declined", "not_found", "mismatch", "pending", "unverified"];
    // Every subset of the classes a row here can be left out of.
    for mask in 1..(1u32 << classes.len()) {
        let named: Vec<&str> = (0..classes.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| classes[i])
            .collect();
        let list = named.join(",");
        let out = reconcile(&file, &["--fail-on", &list]);
        let stderr = stderr_of(&out);
        let rows = jsonl(&out.stdout);
        assert_eq!(rows.len(), 7, "every row is written: {stderr}");
        let results: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
        let class = |result: &str| {
            RESULT_CLASS
                .iter()
                .find(|(r, _)| *r == result)
                .unwrap_or_else(|| panic!("no class for {result}"))
                .1
        };
        let want = most_severe(results.iter().filter_map(|result| {
            let counted = class(result) == "fault" || named.contains(&class(result));
            let exit = match *result {
                "MATCHED" => 0,
                "FAILED" => 1,
                "INVALID_ROW" => 2,
                "NOT_FOUND" => 3,
                "UNDERPAID" => 4,
                "UNVERIFIED" => 7,
                "NOT_FINAL" => 9,
                other => panic!("unexpected {other}"),
            };
            counted.then_some(exit)
        }));
        assert!(SEVERITY.contains(&want));
        assert_eq!(
            i64::from(out.status.code().unwrap()),
            want,
            "--fail-on {list}: {results:?}\n{stderr}"
        );
        // The summary line names what it left out, by result.
        let line = stderr
            .lines()
            .find(|l| l.starts_with("payverify: 7 rows in "))
            .unwrap_or_else(|| panic!("no summary line: {stderr}"));
        if !named.contains(&"declined") {
            let note = format!("not in --fail-on {list}");
            assert!(line.contains(" FAILED") && line.ends_with(&note), "{line}");
        }
    }
    // The invalid row always counts: exit 2 even when nothing else is named.
    let out = reconcile(&file, &["--fail-on", "declined"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    // The closing lines name the rows it counts, and not the ones it leaves out.
    let out = reconcile(&file, &["--fail-on", "mismatch"]);
    let stderr = stderr_of(&out);
    let named: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("payverify: needs a look: "))
        .collect();
    assert_eq!(named.len(), 2, "{stderr}");
    assert!(
        named[0].starts_with("line 5, order 1004, reference SANDBOX-AMOUNT-"),
        "{stderr}"
    );
    assert!(
        named[1].starts_with("line 8, order 1007, reference SANDBOX-OK-1007: INVALID_ROW"),
        "{stderr}"
    );
}

#[test]
fn fail_on_needs_records_and_known_classes() {
    let dir = TempDir::new("reconcile-fail-on-refused");
    let file = dir.write("orders.csv", ORDERS);
    for args in [
        &["--fail-on", "mismatch"][..],
        &["--fail-on", "mismatch", "-o", "table"],
    ] {
        let out = payverify()
            .args(["reconcile", "--sandbox"])
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr_of(&out).starts_with("payverify: --fail-on needs -o csv, jsonl or json"),
            "{}",
            stderr_of(&out)
        );
        assert!(out.stdout.is_empty());
    }
    let out = reconcile(&file, &["--fail-on", "UNDERPAID"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("\"UNDERPAID\" is not an outcome class"),
        "{}",
        stderr_of(&out)
    );
}

/// A row decided from the file alone (a cash-on-delivery row, a totals row) is no answer of
/// the service: a run in which the service answered for no row keeps its worst exit,
/// whatever `--fail-on` names, as verify's does. And a row whose credentials were rejected
/// is `fault`, never left out.
#[test]
fn no_answer_from_the_service_is_never_a_quiet_exit() {
    let dir = TempDir::new("reconcile-fail-on-unanswered");
    let wrong_env = dir.write(
        "wrongenv.csv",
        "Reference,Amount,Currency,Payment Method\nNOPE-1,40000,NGN,paywithbank3d\n\
         NOPE-2,40000,NGN,paywithbank3d\n,1000,NGN,cod\n",
    );
    let out = reconcile(&wrong_env, &["--fail-on", "mismatch,unverified"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("--fail-on leaves nothing out of a run in which the service answered"),
        "{stderr}"
    );
    let totals = dir.write(
        "totals.csv",
        "Description,Reference,Amount,Currency\nx,NOPE-1,40000,NGN\nx,NOPE-2,40000,NGN\n\
         Total,,80000,NGN\n",
    );
    let out = reconcile(&totals, &["--fail-on", "mismatch,unverified"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
}

#[test]
fn rejected_credentials_are_never_left_out() {
    let server = crate::common::KeepAliveServer::start(|path, _| match path.ends_with("REF-1") {
        true => (
            "401 Unauthorized".into(),
            vec![],
            r#"{"message":"unauthorized"}"#.into(),
        ),
        false => ("404 Not Found".into(), vec![], "{}".into()),
    });
    let dir = TempDir::new("reconcile-fail-on-auth");
    let file = dir.write(
        "auth.csv",
        "Reference,Amount,Currency,Payment Method\nREF-1,40000,NGN,paywithbank3d\n\
         REF-2,40000,NGN,paywithbank3d\n,1000,NGN,cod\n",
    );
    let out = crate::common::payverify_at(&server.url)
        .args([
            "reconcile",
            "--retries",
            "0",
            "-o",
            "csv",
            "--fail-on",
            "mismatch",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr_of(&out));
}
