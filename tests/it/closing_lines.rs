//! Issue 39, item 1: the closing lines name what needs a person. After verify and reconcile,
//! stderr names each entry that needs a look (the reference, the order id where there is
//! one, the result and its reason), at most 20, then how many more; `-q` silences them;
//! `--fail-on`'s own line still says what it left out; throttling is mentioned only when
//! it happened.

use crate::common::{TempDir, payverify, stderr_of};

/// The closing lines naming entries, in order.
fn looks(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("payverify: needs a look: "))
        .collect()
}

/// The line saying how many more need a look, if there is one.
fn more(stderr: &str) -> Option<&str> {
    stderr.lines().find(|l| l.starts_with("payverify: and "))
}

/// `verify --sandbox` of `refs` (one per line) with `args`.
fn verify(refs: &[String], args: &[&str]) -> std::process::Output {
    payverify()
        .args([
            "verify",
            "--sandbox",
            "--retries",
            "0",
            "-o",
            "jsonl",
            "--from",
            "-",
        ])
        .args(args)
        .write_stdin(refs.join("\n") + "\n")
        .output()
        .unwrap()
}

#[test]
fn verify_names_each_reference_that_needs_a_look_then_how_many_more() {
    // 3 paid, then 23 that need a look: NOT_FOUND and FAILED, interleaved with paid ones.
    let mut refs: Vec<String> = (0..3).map(|i| format!("SANDBOX-OK-{i}")).collect();
    for i in 0..23 {
        refs.push(match i % 2 {
            0 => format!("SANDBOX-NOTFOUND-{i}"),
            _ => format!("SANDBOX-FAILED-{i}"),
        });
        refs.push(format!("SANDBOX-OK-x{i}"));
    }
    let out = verify(&refs, &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let named = looks(&stderr);
    assert_eq!(named.len(), 20, "{stderr}");
    // In input order, each with its result and why; no paid reference among them.
    assert!(
        named[0].starts_with("SANDBOX-NOTFOUND-0: NOT_FOUND: no such transaction (HTTP 404"),
        "{}",
        named[0]
    );
    assert!(
        named[1].starts_with("SANDBOX-FAILED-1: FAILED (51"),
        "{}",
        named[1]
    );
    assert!(
        named.iter().all(|l| !l.starts_with("SANDBOX-OK")),
        "{stderr}"
    );
    assert_eq!(
        more(&stderr),
        Some(
            "payverify: and 3 more that need a look: every reference is in the output, with its \
             result and why"
        ),
        "{stderr}"
    );
    // The summary line is still the last, and says nothing of throttling: there was none.
    let last = stderr.lines().last().unwrap();
    assert!(last.starts_with("payverify: 49 references in "), "{last}");
    assert!(!stderr.contains("slow down"), "{stderr}");

    // -q: none of them.
    let quiet = verify(&refs, &["-q"]);
    assert_eq!(quiet.status.code(), Some(3));
    assert_eq!(stderr_of(&quiet), "");

    // Twenty or fewer: every one, and no "more" line.
    let few = verify(&refs[..10], &[]);
    let stderr = stderr_of(&few);
    assert_eq!(looks(&stderr).len(), 4, "{stderr}");
    assert_eq!(more(&stderr), None, "{stderr}");
}

#[test]
fn with_fail_on_only_what_it_counts_is_named_and_its_line_says_what_it_left_out() {
    // --expect-amount 1 makes every answer fail a check: a SUCCESSFUL one is CHECK_FAILED,
    // and a FAILED one keeps its name but is of the mismatch class too (it says nothing of
    // the payment). NOT_FOUND is not_found, which --fail-on mismatch leaves out.
    let refs: Vec<String> = [
        "SANDBOX-OK-1",
        "SANDBOX-FAILED-2",
        "SANDBOX-NOTFOUND-3",
        "SANDBOX-OK-4",
    ]
    .map(str::to_owned)
    .into();
    let out = verify(&refs, &["--fail-on", "mismatch", "--expect-amount", "1"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let named = looks(&stderr);
    assert_eq!(named.len(), 3, "{stderr}");
    assert!(
        named[0].starts_with("SANDBOX-OK-1: CHECK_FAILED: expected amount ₦1.00"),
        "{}",
        named[0]
    );
    assert!(
        named[1].starts_with("SANDBOX-FAILED-2: FAILED (51 "),
        "{stderr}"
    );
    assert!(
        named[2].starts_with("SANDBOX-OK-4: CHECK_FAILED: "),
        "{stderr}"
    );
    let last = stderr.lines().last().unwrap();
    assert!(
        last.ends_with("; exit 4: 1 NOT_FOUND not in --fail-on mismatch"),
        "{last}"
    );
    // Nothing it counts: no names, and the line says what it left out.
    let out = verify(&refs[1..3], &["--fail-on", "mismatch"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(looks(&stderr), Vec::<&str>::new(), "{stderr}");
    assert!(
        stderr.contains("; exit 0: 1 FAILED, 1 NOT_FOUND not in --fail-on mismatch"),
        "{stderr}"
    );
}

#[test]
fn a_batch_of_one_names_it_and_a_warning_is_named_whatever_fail_on_leaves_out() {
    // A list of one is a batch: no error line of its own, so the closing line names it.
    let one = verify(&["SANDBOX-NOTFOUND-1".to_owned()], &[]);
    let stderr = stderr_of(&one);
    assert_eq!(out_code(&one), 3, "{stderr}");
    assert_eq!(looks(&stderr).len(), 1, "{stderr}");
    // A paid record with an hmac warning is exit 0 and left out of nothing: it is named
    // even when --fail-on leaves a declined card out.
    let refs: Vec<String> = ["SANDBOX-BADHMAC-1", "SANDBOX-OK-1", "SANDBOX-FAILED-1"]
        .map(str::to_owned)
        .into();
    let out = verify(&refs, &["--fail-on", "mismatch,unverified"]);
    let stderr = stderr_of(&out);
    assert_eq!(out_code(&out), 0, "{stderr}");
    let named = looks(&stderr);
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(
        named[0].starts_with("SANDBOX-BADHMAC-1: SUCCESSFUL: "),
        "{stderr}"
    );
    // A secret the cut would go through is redacted whole first: no part of it is shown.
    for pad in 135..150 {
        let reference = format!("NOPE-{}sandbox-secret", "A".repeat(pad));
        let out = verify(&[reference, "SANDBOX-OK-2".to_owned()], &[]);
        let stderr = stderr_of(&out);
        for part in ["sandbox-se", "box-secret"] {
            assert!(!stderr.contains(part), "{pad}: {stderr}");
        }
    }
    // A reference kilobytes long is cut in the line, not printed whole.
    let long = format!("SANDBOX-NOTFOUND-{}", "9".repeat(3000));
    let out = verify(&[long, "SANDBOX-OK-2".to_owned()], &[]);
    let stderr = stderr_of(&out);
    let named = looks(&stderr);
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(named[0].chars().count() < 600, "{}", named[0].len());
}

/// The exit status of `out`.
fn out_code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap()
}

#[test]
fn a_single_reference_is_named_once_by_its_own_error() {
    let out = payverify()
        .args(["verify", "--sandbox", "SANDBOX-NOTFOUND-1"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(looks(&stderr), Vec::<&str>::new(), "{stderr}");
    let naming = stderr.lines().filter(|l| l.contains("SANDBOX-NOTFOUND-1"));
    assert_eq!(naming.count(), 1, "{stderr}");
}

#[test]
fn reconcile_names_the_line_the_order_and_the_reference() {
    let dir = TempDir::new("closing-lines");
    let file = dir.write(
        "orders.csv",
        "Order,Payment Reference,Total,Note\n\
         #1001,SANDBOX-OK-1001,40000,fine\n\
         #1002,SANDBOX-AMOUNT-3999950-1002,40000,\"gate code 4411,\nLeave\u{1b}[2K with security\"\n\
         #1003,SANDBOX-NOTFOUND-1003,40000,\n\
         #1004,,40000,\n",
    );
    let out = payverify()
        .args(["reconcile", "--sandbox", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    let named = looks(&stderr);
    assert_eq!(named.len(), 3, "{stderr}");
    assert!(
        named[0].starts_with(
            "line 3, order #1002, reference SANDBOX-AMOUNT-3999950-1002: UNDERPAID: underpaid by \
             ₦0.50 (50 kobo)"
        ),
        "{}",
        named[0]
    );
    assert!(
        named[1].starts_with("line 5, order #1003, reference SANDBOX-NOTFOUND-1003: NOT_FOUND: "),
        "{}",
        named[1]
    );
    // A row with no reference: its line and order, no empty reference.
    assert!(
        named[2].starts_with("line 6, order #1004: "),
        "{}",
        named[2]
    );
    // Nothing of the shop's text reaches the terminal raw.
    assert!(!stderr.contains('\u{1b}'), "{stderr}");
    let quiet = payverify()
        .args(["reconcile", "--sandbox", "-q", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(stderr_of(&quiet), "");
    assert_eq!(quiet.status.code(), out.status.code());
}
