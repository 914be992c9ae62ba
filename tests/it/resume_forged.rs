//! Resume and state files read back into the one record struct each command writes
//! (issue 24 item 2): a line is refused (exit 2, one line, nothing asked, nothing written)
//! for any key, type or number payverify does not write, even under a valid seal; a state
//! file of another export says how to start afresh; a file of over-long lines alone is
//! refused, not replaced.

use std::process::Output;

use crate::common::{
    SANDBOX_SECRET, TempDir, sandbox_in, sandbox_requests as requests, sealed, stderr_of, stdout_of,
};

/// `payverify verify --sandbox -v --from refs.txt --retries 0 -o jsonl ARGS` in `dir`.
fn verify(dir: &TempDir, args: &[&str]) -> Output {
    let command = [
        "verify",
        "--from",
        "refs.txt",
        "--retries",
        "0",
        "-o",
        "jsonl",
    ];
    sandbox_in(dir, &command, args)
}

/// `payverify reconcile --sandbox -v FILE --retries 0 -o jsonl ARGS` in `dir`.
fn reconcile(dir: &TempDir, file: &str, args: &[&str]) -> Output {
    sandbox_in(
        dir,
        &["reconcile", file, "--retries", "0", "-o", "jsonl"],
        args,
    )
}

/// `out` is exit 2 with the one line `line` on stderr, nothing asked, nothing on stdout.
fn refused(out: &Output, line: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(out));
    assert_eq!(stderr_of(out), format!("{line}\n"));
    assert_eq!(requests(out), 0);
    assert!(out.stdout.is_empty());
}

/// Each forgery of a genuine verify record, sealed again under the run's secret (what a
/// holder of the secret could write), is refused naming what is wrong, never quoting a
/// value; the genuine line is carried.
#[test]
fn a_verify_record_payverify_does_not_write_is_refused_even_sealed() {
    let dir = TempDir::new("forged-verify");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    let fresh = verify(&dir, &[]);
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr_of(&fresh));
    let ok = stdout_of(&fresh);
    let ok = ok.trim_end();
    let after_reference =
        |insert: &str| ok.replacen(",\"outcome\"", &format!(",{insert},\"outcome\""), 1);
    let cases: Vec<(String, &str)> = vec![
        // csv-only columns as jsonl keys: accepted before.
        (
            after_reference("\"status\":\"SUCCESSFUL\""),
            "has a field payverify does not write (\"status\")",
        ),
        (
            after_reference("\"amount_kobo\":\"4000000\""),
            "has a field payverify does not write (\"amount_kobo\")",
        ),
        (
            after_reference("\"\\u001b[2J\":1"),
            "has a field payverify does not write (\"\\e[2J\")",
        ),
        (
            ok.replace("\"exit_code\":0", "\"exit_code\":\"0\""),
            "has a \"exit_code\" payverify does not write (a string)",
        ),
        (
            ok.replace("\"exit_code\":0", "\"exit_code\":256"),
            "has a \"exit_code\" payverify does not write (a number)",
        ),
        (
            ok.replace("\"exit_code\":0", "\"exit_code\":1e999"),
            "has a \"exit_code\" that is not a whole number",
        ),
        (ok.replace("\"exit_code\":0,", ""), "has no \"exit_code\""),
        (
            ok.replace("\"reference\":\"SANDBOX-OK-1\"", "\"reference\":null"),
            "has a \"reference\" payverify does not write (null)",
        ),
        (
            ok.replace("\"passed\":true", "\"passed\":\"true\""),
            "has a \"checks\" payverify does not write (an object)",
        ),
        (
            ok.replace("\"passed\":true", "\"passed\":true,\"extra\":1"),
            "has a \"checks\" payverify does not write (an object)",
        ),
    ];
    for (record, why) in cases {
        assert_ne!(record, ok, "{why}: the forgery changed nothing");
        dir.write("forged.jsonl", sealed(&record, SANDBOX_SECRET));
        let out = verify(&dir, &["--resume", "forged.jsonl"]);
        refused(
            &out,
            &format!(
                "payverify: --resume forged.jsonl: line 1 {why}; this is not an output of \
                 payverify verify (resume from the earlier run's stdout, with the same -o)"
            ),
        );
    }
    // The genuine line, sealed again the same way, is carried: nothing asked, same output.
    dir.write("genuine.jsonl", sealed(ok, SANDBOX_SECRET));
    let out = verify(&dir, &["--resume", "genuine.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!((requests(&out), stdout_of(&out)), (0, stdout_of(&fresh)));
}

const ORDERS: &str = "Order ID,Reference,Amount\n1001,SANDBOX-OK-1001,40000\n";

/// reconcile's csv-only columns (the naira figures) are no jsonl keys: a record with one,
/// sealed again under the run's secret, is refused; before, it was read as a record.
#[test]
fn a_reconcile_record_with_a_csv_only_column_is_refused_even_sealed() {
    let dir = TempDir::new("forged-reconcile");
    dir.write("orders.csv", ORDERS);
    let fresh = reconcile(&dir, "orders.csv", &[]);
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr_of(&fresh));
    let row = stdout_of(&fresh);
    for (from, to, why) in [
        (
            ",\"difference_kobo\"",
            ",\"difference_naira\":\"0.00\",\"difference_kobo\"",
            "has a field payverify does not write (\"difference_naira\")",
        ),
        (
            "\"expected_amount_kobo\":4000000",
            "\"expected_amount_kobo\":\"4000000\"",
            "has a \"expected_amount_kobo\" payverify does not write (a string)",
        ),
        (
            "\"expected_amount_kobo\":4000000",
            "\"expected_amount_kobo\":9223372036854775808",
            "has a \"expected_amount_kobo\" payverify does not write (a number)",
        ),
    ] {
        let forged = row.trim_end().replacen(from, to, 1);
        assert_ne!(forged, row.trim_end(), "{why}");
        dir.write("forged.jsonl", sealed(&forged, SANDBOX_SECRET));
        let out = reconcile(&dir, "orders.csv", &["--resume", "forged.jsonl"]);
        refused(
            &out,
            &format!(
                "payverify: --resume forged.jsonl: line 1 {why}; this is not an output of \
                 payverify reconcile (resume from the earlier run's stdout, with the same -o)"
            ),
        );
    }
}

/// F5: a --state file kept for an export with other columns refused every rerun (exit 2)
/// without saying what to do; it says to remove the file or name another one.
#[test]
fn a_state_file_of_another_export_says_how_to_start_afresh() {
    let dir = TempDir::new("state-other-export");
    dir.write("orders.csv", ORDERS);
    dir.write(
        "other.csv",
        "Order,Reference,Amount,Note\n1001,SANDBOX-OK-1001,40000,x\n",
    );
    let first = reconcile(&dir, "other.csv", &["--state", "s.jsonl"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let kept = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let out = reconcile(&dir, "orders.csv", &["--state", "s.jsonl"]);
    refused(
        &out,
        "payverify: --state s.jsonl: line 1 is a row of an orders file with other columns than \
         this one's header; it holds the rows of another orders file: remove s.jsonl (or name \
         another --state file) to start afresh",
    );
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), kept);
}

/// A file whose only lines are over 8 MiB and open like payverify's record was read as an
/// empty state and replaced: it is refused, kept as it was; beside one record payverify
/// sealed, such a line is still asked again (state::a_record_longer_than_...).
#[test]
fn a_file_of_over_long_lines_alone_is_refused_not_replaced() {
    let dir = TempDir::new("state-only-long");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    let long = format!(
        "{{\"reference\":\"SANDBOX-OK-1\",\"error\":\"{}\"}}\n",
        "x".repeat(8 << 20)
    );
    for (name, content) in [
        ("ended.jsonl", long.clone()),
        ("cut.jsonl", long.trim_end().to_owned()),
    ] {
        dir.write(name, &content);
        let out = verify(&dir, &["--state", name]);
        refused(
            &out,
            &format!(
                "payverify: --state {name}: line 1 is longer than 8388608 bytes, and no line of \
                 the file is a record payverify sealed under this run's secret; this is not a \
                 --state file of payverify verify"
            ),
        );
        let now = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(now == content, "{name} was changed");
    }
}

/// A file of one line without a line end (a token, compact JSON) was taken for a state file
/// whose last record a stop cut short, and replaced by the run's records: it is refused,
/// kept as it was. A record of ours cut short is still ignored and asked again.
#[test]
fn a_one_line_file_without_a_line_end_is_not_taken_for_a_cut_record() {
    let dir = TempDir::new("state-unterminated");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    for (name, content) in [
        ("token.txt", "my-api-token-9f8e7d6c5b4a"),
        ("app.json", "{\"db_password\":\"hunter2hunter2\"}"),
    ] {
        dir.write(name, content);
        let out = verify(&dir, &["--state", name]);
        refused(
            &out,
            &format!(
                "payverify: --state {name}: line 1 has no line end and does not begin as a \
                 record payverify writes; this is not a --state file of payverify verify"
            ),
        );
        let now = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(now == content, "{name} was changed");
    }
    for cut in ["{\"refer", "{\"reference\":\"SANDBOX-OK-1\",\"outc"] {
        dir.write("cut.jsonl", cut);
        let out = verify(&dir, &["--state", "cut.jsonl"]);
        assert_eq!(out.status.code(), Some(0), "{cut}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1);
    }
}

/// An answer nested as deep as a body may be (64 levels) makes a record one level deeper;
/// reading that record back refused the whole file, so every rerun of a --resume or
/// --state run was exit 2 over one odd answer. It is read back like any record.
#[test]
fn a_record_of_an_answer_nested_as_deep_as_allowed_is_read_back() {
    use crate::common::gateway::Txn;
    use crate::common::{KeepAliveServer, payverify_at};
    let deep = |depth: usize| -> String {
        let body = Txn::paid("DEEP-1", 40000).body();
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        format!("{},\"x\":{nested}}}", body.trim_end_matches('}'))
    };
    let server = KeepAliveServer::start(move |path, _| {
        let body = match path.rsplit('/').next() {
            Some("DEEP-1") => deep(63),
            _ => Txn::paid("OK-1", 40000).body(),
        };
        ("200 OK".into(), vec![], body)
    });
    let dir = TempDir::new("resume-deep");
    dir.write("refs.txt", "DEEP-1\nOK-1\n");
    let run = |args: &[&str]| {
        payverify_at(&server.url)
            .current_dir(dir.path())
            .args([
                "verify",
                "--from",
                "refs.txt",
                "-o",
                "jsonl",
                "--retries",
                "0",
            ])
            .args(args)
            .output()
            .unwrap()
    };
    let fresh = run(&["--state", "s.jsonl"]);
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr_of(&fresh));
    let asked = server.requests.lock().unwrap().len();
    assert_eq!(asked, 2);
    std::fs::copy(dir.path().join("s.jsonl"), dir.path().join("run1.jsonl")).unwrap();
    for args in [&["--state", "s.jsonl"][..], &["--resume", "run1.jsonl"]] {
        let again = run(args);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr_of(&again)
        );
        assert_eq!(again.stdout, fresh.stdout, "{args:?}");
    }
    assert_eq!(
        server.requests.lock().unwrap().len(),
        asked,
        "a carried record was asked"
    );
}

/// A forged record whose unknown key is a megabyte long gave a stderr line as long: the key
/// is named by its first 64 characters.
#[test]
fn a_huge_forged_key_is_named_shortly() {
    let dir = TempDir::new("forged-long-key");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    let fresh = verify(&dir, &[]);
    let ok = stdout_of(&fresh);
    let key = "\u{1b}".repeat(1 << 20);
    let forged = ok.trim_end().replacen(
        ",\"outcome\"",
        &format!(",{}:1,\"outcome\"", serde_json::to_string(&key).unwrap()),
        1,
    );
    dir.write("forged.jsonl", &(sealed(&forged, SANDBOX_SECRET) + "\n"));
    let out = verify(&dir, &["--resume", "forged.jsonl"]);
    refused(
        &out,
        &format!(
            "payverify: --resume forged.jsonl: line 1 has a field payverify does not write \
             (\"{}\"…); this is not an output of payverify verify (resume from the earlier \
             run's stdout, with the same -o)",
            "\\e".repeat(64)
        ),
    );
}

/// `record` (one jsonl line) edited by `edit` and sealed again under the sandbox's secret,
/// which is public: what anyone can write for a sandbox run.
fn resealed(record: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value: serde_json::Value = serde_json::from_str(record.trim_end()).unwrap();
    value.as_object_mut().unwrap().remove("seal");
    edit(&mut value);
    sealed(&value.to_string(), SANDBOX_SECRET)
}

/// Records relabelled under a valid seal: the name a record shows must be what its kept
/// answer and checks come to (verify's outcome, reconcile's result), so a FAILED answer
/// under a SUCCESSFUL label, or a paid one under FAILED, is asked again and the run ends as
/// a fresh one does (an attack finding of issue 37: both were carried, the first to exit 0).
#[test]
fn a_relabelled_record_is_asked_again_even_under_a_valid_seal() {
    let dir = TempDir::new("resume-relabelled");
    dir.write("refs.txt", "SANDBOX-FAILED-77\n");
    let first = verify(&dir, &[]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr_of(&first));
    // The control: the genuine record is carried.
    dir.write("run1.jsonl", &first.stdout);
    let genuine = verify(&dir, &["--resume", "run1.jsonl"]);
    assert_eq!((genuine.status.code(), requests(&genuine)), (Some(1), 0));
    let paid = resealed(&stdout_of(&first), |v| {
        v["outcome"] = "SUCCESSFUL".into();
        v["exit_code"] = 0.into();
        v["error"] = serde_json::Value::Null;
        v["judged"]["outcome"] = "SUCCESSFUL".into();
    });
    dir.write("forged.jsonl", &paid);
    let out = verify(&dir, &["--resume", "forged.jsonl"]);
    assert_eq!(
        (out.status.code(), requests(&out)),
        (Some(1), 1),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(out.stdout, first.stdout);

    // reconcile: a FAILED row whose judgement says SUCCESSFUL; a paid order the shop
    // cancelled (PAID_SHOP_UNPAID, exit 4) relabelled BOTH_UNPAID with a FAILED judgement,
    // which would hide the payment; a BOTH_UNPAID row relabelled FAILED.
    let header = "Order Number,Order Status,Transaction ID,Order Currency,Order Total Amount\n";
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, &str, Edit); 3] = [
        (
            "4135,Processing,SANDBOX-FAILED-77,NGN,40000",
            "FAILED",
            |v| {
                v["judged"]["outcome"] = "SUCCESSFUL".into();
            },
        ),
        (
            "4136,Cancelled,SANDBOX-OK-77,NGN,40000",
            "PAID_SHOP_UNPAID",
            |v| {
                v["result"] = "BOTH_UNPAID".into();
                v["judged"]["outcome"] = "FAILED".into();
            },
        ),
        (
            "4137,Cancelled,SANDBOX-FAILED-78,NGN,40000",
            "BOTH_UNPAID",
            |v| {
                v["result"] = "FAILED".into();
            },
        ),
    ];
    for (row, result, edit) in cases {
        dir.write("orders.csv", format!("{header}{row}\n"));
        let fresh = reconcile(&dir, "orders.csv", &[]);
        let stdout = stdout_of(&fresh);
        assert!(
            stdout.contains(&format!("\"result\":\"{result}\"")),
            "{stdout}"
        );
        dir.write("forged.jsonl", resealed(&stdout, edit));
        let out = reconcile(&dir, "orders.csv", &["--resume", "forged.jsonl"]);
        assert_eq!(
            out.status.code(),
            fresh.status.code(),
            "{row}: {}",
            stderr_of(&out)
        );
        assert_eq!(requests(&out), 1, "{row}: {}", stderr_of(&out));
        assert_eq!(out.stdout, fresh.stdout, "{row}");
    }
}
