//! `reconcile --resume FILE`: an earlier reconciliation's final rows are carried over
//! unchanged, in their place, and count in the totals exactly; the rest is asked again;
//! a carried MATCHED row never outlives a change of what its row expects.

use serde_json::Value;

use crate::common::{
    TempDir, interrupted_into, payverify, sandbox_in, sandbox_requests as requests, stderr_of,
    stdout_of,
};

/// One row of every result: MATCHED, UNDERPAID, OVERPAID, FAILED, NOT_FOUND (carried);
/// NOT_FINAL and UNVERIFIED (asked again); DUPLICATE and INVALID_ROW (decided from the
/// file). A quoted comma in a cell, an empty currency cell, and differences of 50 kobo and
/// 1 kobo so that any rounding would show in the totals.
const ORDERS: &str = "Order ID,Reference,Customer,Amount,Currency\n\
1001,SANDBOX-OK-1001,\"Okafor, Ada\",40000,NGN\n\
1002,SANDBOX-AMOUNT-3999950-1002,Bola,40000,\n\
1003,SANDBOX-AMOUNT-4000001-1003,Chi,40000,NGN\n\
1004,SANDBOX-FAILED-1004,Dayo,40000.5,NGN\n\
1005,NO-SUCH-1005,Efe,40000,NGN\n\
1006,SANDBOX-PENDING-1006,Femi,40000,NGN\n\
1007,SANDBOX-ERROR-1007,Gbenga,40000,NGN\n\
1008,SANDBOX-OK-1001,Hauwa,40000,NGN\n\
1009,SANDBOX-OK-1009,Ife,forty,NGN\n";
/// How many rows of ORDERS are asked again on resume: NOT_FINAL and UNVERIFIED.
const ASKED_AGAIN: usize = 2;

/// `payverify reconcile --sandbox -v --retries 0 FILE ARGS` in `dir`.
fn reconcile(dir: &TempDir, file: &str, args: &[&str]) -> std::process::Output {
    sandbox_in(dir, &["reconcile", "--retries", "0", file], args)
}

/// The summary table on stderr (from its heading to the end).
fn summary_table(out: &std::process::Output) -> String {
    let stderr = stderr_of(out);
    let at = stderr.find("payverify: summary\n").unwrap_or(stderr.len());
    stderr[at..].to_owned()
}

fn summary_json(dir: &TempDir, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap()
}

#[test]
fn resuming_a_complete_reconciliation_asks_only_what_was_not_final() {
    {
        let format = "jsonl";
        let dir = TempDir::new("reconcile-resume-complete");
        dir.write("orders.csv", ORDERS);
        let first = reconcile(
            &dir,
            "orders.csv",
            &["-o", format, "--summary-json", "s1.json"],
        );
        assert_eq!(first.status.code(), Some(4), "{}", stderr_of(&first));
        assert_eq!(requests(&first), 7, "{}", stderr_of(&first));
        dir.write(&format!("run1.{format}"), &first.stdout);

        let run1 = format!("run1.{format}");
        let args = ["-o", format, "--summary-json", "s2.json", "--resume", &run1];
        let again = reconcile(&dir, "orders.csv", &args);
        assert_eq!(again.status.code(), Some(4), "{}", stderr_of(&again));
        assert_eq!(
            requests(&again),
            ASKED_AGAIN,
            "{format}: {}",
            stderr_of(&again)
        );
        // Every row in its place; the carried ones byte for byte.
        assert_eq!(stdout_of(&again), stdout_of(&first), "{format}");
        // The totals count the carried rows exactly, to the kobo.
        assert_eq!(summary_json(&dir, "s2.json"), summary_json(&dir, "s1.json"));
        assert_eq!(summary_table(&again), summary_table(&first));
        let s = summary_json(&dir, "s2.json");
        // 7 rows of ₦40,000 and one of ₦40,000.50 (the invalid row counts nothing).
        assert_eq!(s["expected_total_kobo"], 32_000_050, "{s}");
        assert_eq!(s["matched_total_kobo"], 4_000_000, "{s}");
        assert_eq!(s["net_difference_kobo"], -49, "{s}");
        assert_eq!(s["results"]["OVERPAID"]["gateway_kobo"], 4_000_001, "{s}");
        assert!(
            stderr_of(&again).contains(&format!(
                "payverify: 9 rows ({} carried over, {} asked, 2 decided from the input) in ",
                7 - ASKED_AGAIN,
                ASKED_AGAIN
            )),
            "{}",
            stderr_of(&again)
        );

        // Resuming the resumed run's output asks the same rows again, no more.
        dir.write(&format!("run2.{format}"), &again.stdout);
        let run2 = format!("run2.{format}");
        let third = reconcile(&dir, "orders.csv", &["-o", format, "--resume", &run2]);
        assert_eq!(third.status.code(), Some(4));
        assert_eq!(requests(&third), ASKED_AGAIN);
        assert_eq!(stdout_of(&third), stdout_of(&first));
    }
}

/// Every row MATCHED or FAILED: the exit is the merge over carried and asked rows alike.
#[test]
fn the_exit_status_merges_carried_and_asked_rows() {
    let dir = TempDir::new("reconcile-resume-exit");
    dir.write(
        "orders.csv",
        "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,40000\n",
    );
    let first = reconcile(&dir, "orders.csv", &["-o", "jsonl"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    dir.write("run1.jsonl", &first.stdout);
    dir.write(
        "more.csv",
        "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,40000\nSANDBOX-FAILED-3,40000\n",
    );
    let out = reconcile(&dir, "more.csv", &["-o", "jsonl", "--resume", "run1.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(requests(&out), 1);
    // Only MATCHED rows carried, the FAILED asked: carried exit 0 plus asked exit 1.
    let stdout = stdout_of(&out);
    assert!(stdout.starts_with(&stdout_of(&first)), "{stdout}");
}

/// Kill a reconciliation part way, resume from what it wrote: the same rows in the same
/// order, and the same summary figures, as a run that was never interrupted.
#[test]
fn resuming_an_interrupted_reconciliation_gives_the_uninterrupted_result() {
    let dir = TempDir::new("reconcile-resume-interrupted");
    let mut orders = String::from("reference,amount,note\n");
    for i in 0..40 {
        match i % 5 {
            0 => orders.push_str(&format!("SANDBOX-FAILED-{i},40000,\"a, b\"\n")),
            _ => orders.push_str(&format!("SANDBOX-SLOW-150-{i},40000.{:02},x\n", i)),
        }
    }
    dir.write("orders.csv", &orders);
    let full = reconcile(
        &dir,
        "orders.csv",
        &["-o", "jsonl", "-j", "4", "--summary-json", "full.json"],
    );
    assert_eq!(full.status.code(), Some(4), "{}", stderr_of(&full));

    let part = dir.path().join("part.jsonl");
    let (stderr, written) = interrupted_into(
        dir.path(),
        &[
            "reconcile",
            "--sandbox",
            "orders.csv",
            "-o",
            "jsonl",
            "-j",
            "2",
        ],
        &part,
        40,
    );
    assert!(
        stderr.contains(
            "payverify: to finish this run, resume it: payverify reconcile --sandbox \
             orders.csv -o jsonl -j 2 --resume part.jsonl > part-resumed.jsonl\n"
        ),
        "{stderr}"
    );

    let resumed = reconcile(
        &dir,
        "orders.csv",
        &[
            "-o",
            "jsonl",
            "--resume",
            "part.jsonl",
            "--summary-json",
            "resumed.json",
        ],
    );
    assert_eq!(resumed.status.code(), Some(4), "{}", stderr_of(&resumed));
    assert_eq!(requests(&resumed), 40 - written);
    assert_eq!(stdout_of(&resumed), stdout_of(&full));
    assert_eq!(
        summary_json(&dir, "resumed.json"),
        summary_json(&dir, "full.json")
    );
    assert_eq!(summary_table(&resumed), summary_table(&full));
}

#[test]
fn a_torn_last_line_is_ignored_with_a_warning_and_its_row_asked_again() {
    {
        let format = "jsonl";
        let dir = TempDir::new("reconcile-resume-torn");
        dir.write(
            "orders.csv",
            "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-FAILED-2,40000\nSANDBOX-OK-3,40000\n",
        );
        let first = reconcile(&dir, "orders.csv", &["-o", format]);
        assert_eq!(first.status.code(), Some(1));
        let text = stdout_of(&first);
        let torn = format!("torn.{format}");
        dir.write(&torn, &text[..text.len() - 20]);
        let again = reconcile(&dir, "orders.csv", &["-o", format, "--resume", &torn]);
        assert_eq!(again.status.code(), Some(1), "{}", stderr_of(&again));
        assert_eq!(stdout_of(&again), text);
        // The torn row.
        assert_eq!(requests(&again), 1, "{format}");
        assert!(
            stderr_of(&again).contains(&format!(
                "payverify: warning: --resume {torn}: the last line is incomplete (the run \
                 was stopped while writing it); it is ignored and its reference asked again\n"
            )),
            "{}",
            stderr_of(&again)
        );
    }
}

/// What is not a reconcile output of this file's layout in this format: exit 2, one line,
/// nothing on stdout, no request.
#[test]
fn foreign_verify_and_other_layout_files_are_refused_before_any_request() {
    let dir = TempDir::new("reconcile-resume-foreign");
    dir.write("orders.csv", "reference,amount\nSANDBOX-OK-1,40000\n");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    for format in ["jsonl", "csv"] {
        let verify = payverify()
            .current_dir(dir.path())
            .args(["verify", "--sandbox", "--from", "refs.txt", "-o", format])
            .output()
            .unwrap();
        assert_eq!(verify.status.code(), Some(0));
        dir.write(&format!("verify.{format}"), &verify.stdout);
        // The same orders under another header (a renamed column).
        dir.write("renamed.csv", "Reference,Amount\nSANDBOX-OK-1,40000\n");
        let other = reconcile(&dir, "renamed.csv", &["-o", format]);
        assert_eq!(other.status.code(), Some(0));
        dir.write(&format!("renamed.{format}"), &other.stdout);
    }
    let ours = reconcile(&dir, "orders.csv", &["-o", "jsonl"]);
    dir.write("ours.jsonl", &ours.stdout);
    let matched = stdout_of(&ours);
    let cases: Vec<(&str, &str, String, &str)> = vec![
        (
            "verify.jsonl",
            "jsonl",
            String::new(),
            "line 1 has a field payverify does not write (\"reference\"); this is not an \
             output of payverify reconcile",
        ),
        (
            "verify.csv",
            "jsonl",
            String::new(),
            "line 1 is not a jsonl record (a csv output cannot be read back: keep a run's \
             records with --state FILE); this is not an output of payverify reconcile",
        ),
        (
            "renamed.jsonl",
            "jsonl",
            String::new(),
            "line 1 is a row of an orders file with other columns than this one's header",
        ),
        (
            "notes.txt",
            "jsonl",
            "SANDBOX-OK-1 was fine\n".into(),
            "line 1 is not a jsonl record",
        ),
        (
            "unknown-result.jsonl",
            "jsonl",
            matched.replace("\"MATCHED\"", "\"PAID\""),
            "line 1 has an unknown result",
        ),
        (
            "fractional.jsonl",
            "jsonl",
            matched.replace(
                "\"expected_amount_kobo\":4000000",
                "\"expected_amount_kobo\":4000000.5",
            ),
            "line 1 has a \"expected_amount_kobo\" that is not a whole number",
        ),
        (
            "twice.jsonl",
            "jsonl",
            format!("{matched}{}", matched.replace("\"line\":2", "\"line\":3")),
            "line 2 is a second record for reference \"SANDBOX-OK-1\" (the first is on line 1)",
        ),
    ];
    for (name, format, content, why) in cases {
        if !content.is_empty() {
            dir.write(name, &content);
        }
        let out = reconcile(&dir, "orders.csv", &["-o", format, "--resume", name]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.starts_with(&format!("payverify: --resume {name}: {why}"))
                && stderr.lines().count() == 1,
            "{name}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{name}");
        assert_eq!(requests(&out), 0, "{name}");
    }
    // Rows shaped as payverify's whose figures no answer gives (a FAILED status under
    // MATCHED, a code other than 00) bear no seal: never carried nor judged, asked again as
    // a fresh run asks them.
    let fresh = reconcile(&dir, "orders.csv", &["-o", "jsonl"]);
    for (name, content) in [
        (
            "forged-status.jsonl",
            matched.replace(
                "\"gateway_status\":\"SUCCESSFUL\"",
                "\"gateway_status\":\"FAILED\"",
            ),
        ),
        (
            "forged-code.jsonl",
            matched.replace("\"gateway_code\":\"00\"", "\"gateway_code\":\"51\""),
        ),
    ] {
        dir.write(name, &content);
        let out = reconcile(&dir, "orders.csv", &["-o", "jsonl", "--resume", name]);
        assert_eq!(out.status.code(), fresh.status.code(), "{name}");
        assert_eq!(requests(&out), 1, "{name}");
        assert_eq!(out.stdout, fresh.stdout, "{name}");
        assert!(
            stderr_of(&out).contains("warning: 1 rows of the --resume file were asked again"),
            "{name}: {}",
            stderr_of(&out)
        );
    }
    // Formats --resume does not read back (--state keeps any run's rows).
    let out = reconcile(&dir, "orders.csv", &["-o", "csv", "--resume", "ours.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_of(&out),
        "payverify: --resume reads -o jsonl output only (a csv row cannot prove what the \
         service said); for -o csv, keep the run's records with --state FILE and run it \
         again with the same --state\n"
    );
    for format in ["table", "json"] {
        let out = reconcile(
            &dir,
            "orders.csv",
            &["-o", format, "--resume", "ours.jsonl"],
        );
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert_eq!(
            stderr_of(&out),
            "payverify: --resume needs -o jsonl, the format of the earlier run's output; with \
             another -o, keep the run's records with --state FILE\n"
        );
    }
}

/// A MATCHED row is carried only while this input's row still expects what it matched:
/// a changed amount, a changed default currency or a merchant ref now checked has it
/// asked again (never a stale exit 0); so does `--hmac require` over a run that let a bad
/// hmac through.
#[test]
fn a_carried_matched_row_never_outlives_a_change_of_what_its_row_expects() {
    {
        let format = "jsonl";
        let dir = TempDir::new("reconcile-resume-trust");
        dir.write(
            "orders.csv",
            "Order ID,reference,amount,currency\n1001,SANDBOX-OK-1,40000,\n1002,SANDBOX-OK-2,40000,NGN\n",
        );
        let first = reconcile(&dir, "orders.csv", &["-o", format]);
        assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
        let run1 = format!("run1.{format}");
        dir.write(&run1, &first.stdout);
        let asked = |n: usize| n;

        // The same file: in jsonl everything carried, nothing asked, exit 0.
        let same = reconcile(&dir, "orders.csv", &["-o", format, "--resume", &run1]);
        assert_eq!(same.status.code(), Some(0));
        assert_eq!(requests(&same), asked(0), "{format}");
        assert_eq!(same.stdout, first.stdout);

        // The first order now expects ₦45,000: asked again, UNDERPAID, exit 4.
        dir.write(
            "changed.csv",
            "Order ID,reference,amount,currency\n1001,SANDBOX-OK-1,45000,\n1002,SANDBOX-OK-2,40000,NGN\n",
        );
        let out = reconcile(&dir, "changed.csv", &["-o", format, "--resume", &run1]);
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), asked(1), "{format}");
        let stdout = stdout_of(&out);
        assert!(
            stdout.contains("UNDERPAID") && !stdout.contains("45000,,MATCHED"),
            "{stdout}"
        );
        assert!(
            stderr_of(&out).contains(&format!(
                "payverify: warning: {} rows of the --resume file were asked again: a row is \
                 carried only if it is this input's row as it was (its line and every cell), \
                 bears payverify's seal under this run's secret and was judged by this run's \
                 checks (the same payverify, expectations, --hmac and --expect-mode); a paid \
                 one also needs the hmac it was found to have valid\n",
                asked(1)
            )),
            "{}",
            stderr_of(&out)
        );

        // A jsonl record edited to answer for another transaction: asked again.
        {
            let text = stdout_of(&first).replacen(
                "\"transactionRef\":\"SANDBOX-OK-1\"",
                "\"transactionRef\":\"SANDBOX-OK-9\"",
                1,
            );
            assert_ne!(text, stdout_of(&first));
            dir.write("other-ref.jsonl", &text);
            let out = reconcile(
                &dir,
                "orders.csv",
                &["-o", format, "--resume", "other-ref.jsonl"],
            );
            assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
            assert_eq!(requests(&out), 1);
            assert_eq!(out.stdout, first.stdout);
        }

        // Same cells, but the currency an empty cell expects is now USD.
        let out = reconcile(
            &dir,
            "orders.csv",
            &["-o", format, "--resume", &run1, "--currency", "USD"],
        );
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), asked(1), "{format}");
        assert!(stdout_of(&out).contains("CURRENCY_MISMATCH"));

        // Same cells, but a merchant ref is now expected (read from the Order ID column).
        let out = reconcile(
            &dir,
            "orders.csv",
            &[
                "-o",
                format,
                "--resume",
                &run1,
                "--merchant-ref-column",
                "Order ID",
            ],
        );
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 2, "{format}");

        // The same amounts written in kobo (--amount-unit kobo): the same expectations,
        // but not the same cells as the earlier rows, so asked again (and still MATCHED).
        dir.write(
            "kobo.csv",
            "Order ID,reference,amount,currency\n1001,SANDBOX-OK-1,4000000,\n1002,SANDBOX-OK-2,4000000,NGN\n",
        );
        let out = reconcile(
            &dir,
            "kobo.csv",
            &["-o", format, "--resume", &run1, "--amount-unit", "kobo"],
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 2, "{format}");

        // Rows moved down a line: jsonl records the line, so they are asked again there.
        dir.write(
            "moved.csv",
            "Order ID,reference,amount,currency\n\n1001,SANDBOX-OK-1,40000,\n1002,SANDBOX-OK-2,40000,NGN\n",
        );
        let out = reconcile(&dir, "moved.csv", &["-o", format, "--resume", &run1]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(requests(&out), 2, "{format}");

        // A forged file for the ₦45,000 order: the row, its expected amount and the stored
        // response's amount all say ₦45,000, still MATCHED. The hmac no longer signs that
        // answer: asked again, UNDERPAID, never a false exit 0.
        {
            let forged = stdout_of(&first)
                .replacen("\"amount\":\"40000\"", "\"amount\":\"45000\"", 1)
                .replacen(
                    "\"expected_amount_kobo\":4000000",
                    "\"expected_amount_kobo\":4500000",
                    1,
                )
                .replacen(
                    "\"gateway_amount_kobo\":4000000",
                    "\"gateway_amount_kobo\":4500000",
                    1,
                )
                .replacen("\"amount\":4000000", "\"amount\":4500000", 1);
            assert_eq!(forged.matches("4500000").count(), 3, "{forged}");
            dir.write("forged.jsonl", &forged);
            let out = reconcile(
                &dir,
                "changed.csv",
                &["-o", format, "--resume", "forged.jsonl"],
            );
            assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
            assert_eq!(requests(&out), 1);
            assert!(stdout_of(&out).contains("\"result\":\"UNDERPAID\""));
        }
    }

    // --hmac warn let a bad hmac through as MATCHED: a row is carried only with a valid
    // hmac whatever --hmac says, so it is asked again (still MATCHED under warn, and
    // INTEGRITY_FAILED under require).
    {
        let format = "jsonl";
        let dir = TempDir::new("reconcile-resume-hmac");
        dir.write("orders.csv", "reference,amount\nSANDBOX-BADHMAC-1,40000\n");
        let first = reconcile(&dir, "orders.csv", &["-o", format, "--hmac", "warn"]);
        assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
        assert!(stdout_of(&first).contains("MATCHED"));
        let run1 = format!("run1.{format}");
        dir.write(&run1, &first.stdout);
        let out = reconcile(
            &dir,
            "orders.csv",
            &["-o", format, "--resume", &run1, "--hmac", "warn"],
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1);
        let out = reconcile(
            &dir,
            "orders.csv",
            &["-o", format, "--resume", &run1, "--hmac", "require"],
        );
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1);
        assert!(stdout_of(&out).contains("INTEGRITY_FAILED"));
    }
}

/// A carried row counts in the totals of the currency its row expects, as an asked one
/// does: the same per-currency summary whether the rows were carried or asked.
#[test]
fn carried_rows_count_in_their_own_currency() {
    let dir = TempDir::new("reconcile-resume-currency");
    dir.write(
        "orders.csv",
        "reference,amount,currency\nSANDBOX-OK-1,40000,USD\nSANDBOX-OK-2,40000,NGN\n\
         SANDBOX-PENDING-3,10.5,USD\n",
    );
    let first = reconcile(
        &dir,
        "orders.csv",
        &["-o", "jsonl", "--summary-json", "s1.json"],
    );
    assert_eq!(first.status.code(), Some(4), "{}", stderr_of(&first));
    dir.write("run1.jsonl", &first.stdout);
    let args = [
        "-o",
        "jsonl",
        "--summary-json",
        "s2.json",
        "--resume",
        "run1.jsonl",
    ];
    let again = reconcile(&dir, "orders.csv", &args);
    assert_eq!(again.status.code(), Some(4), "{}", stderr_of(&again));
    assert_eq!(requests(&again), 1);
    assert_eq!(again.stdout, first.stdout);
    let s = summary_json(&dir, "s2.json");
    assert_eq!(s, summary_json(&dir, "s1.json"));
    let usd = &s["other_currencies"]["USD"];
    assert_eq!(
        usd["results"]["CURRENCY_MISMATCH"]["expected_minor"], 4_000_000,
        "{s}"
    );
    assert_eq!(usd["expected_total_minor"], 4_001_050, "{s}");
    assert_eq!(s["matched_total_kobo"], 4_000_000, "{s}");
}

/// A carried row's figures go into the money totals: an edited jsonl row (its figures
/// disagreeing with each other, or consistent but false) loses its seal and is asked again.
#[test]
fn carried_rows_with_edited_figures_never_reach_the_totals() {
    let dir = TempDir::new("reconcile-resume-figures");
    dir.write("orders.csv", ORDERS);
    let first = reconcile(&dir, "orders.csv", &["-o", "jsonl"]);
    let jsonl = stdout_of(&first);
    // gateway 3999950, expected 4000000: the difference written is -50.
    assert!(jsonl.contains("\"difference_kobo\":-50,"), "{jsonl}");
    dir.write(
        "disagree.jsonl",
        jsonl.replace(
            "\"difference_kobo\":-50,",
            "\"difference_kobo\":-999999950,",
        ),
    );
    let out = reconcile(
        &dir,
        "orders.csv",
        &["-o", "jsonl", "--resume", "disagree.jsonl"],
    );
    // Its seal is broken: asked again (with the two that were never final), and the
    // figures are the gateway's, never the file's.
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert_eq!(requests(&out), 3, "{}", stderr_of(&out));
    assert_eq!(out.stdout, first.stdout);

    // Consistent but false figures: the seal is what tells.
    let edited = jsonl
        .replace("\"difference_kobo\":-50,", "\"difference_kobo\":-1050,")
        .replace(
            "\"gateway_amount_kobo\":3999950,",
            "\"gateway_amount_kobo\":3998950,",
        );
    assert_ne!(edited, jsonl);
    dir.write("edited.jsonl", edited);
    let out = reconcile(
        &dir,
        "orders.csv",
        &["-o", "jsonl", "--resume", "edited.jsonl"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    // The edited row is asked again (with the two that were never final) and comes back
    // as the gateway says: 50 kobo short.
    assert_eq!(requests(&out), 3, "{}", stderr_of(&out));
    assert_eq!(out.stdout, first.stdout);
}

/// Column names that would give jsonl's `row` one key twice: a name holding the client
/// secret next to the text it redacts to, and a name written as another column's `name (N)`.
/// Each column keeps its own key and value, and the output resumes as it was written (a
/// key twice would lose a value, and the resume reader refuses such a record).
#[test]
fn column_names_that_clash_after_redaction_keep_a_key_each_and_resume() {
    let dir = TempDir::new("reconcile-clashing-keys");
    dir.write(
        "orders.csv",
        "Order,Reference,Amount,x sandbox-secret,x <redacted>,Note (8),Note,Note\n\
         1,SANDBOX-OK-1,40000,a,b,c,d,e\n",
    );
    let first = reconcile(&dir, "orders.csv", &["-o", "jsonl"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let stdout = stdout_of(&first);
    assert!(!stdout.contains("sandbox-secret"), "{stdout}");
    let record: Value = serde_json::from_str(stdout.trim_end()).unwrap();
    let row = record["row"].as_object().unwrap();
    let mut values: Vec<&str> = row.values().filter_map(Value::as_str).collect();
    values.sort_unstable();
    assert_eq!(
        values,
        ["1", "40000", "SANDBOX-OK-1", "a", "b", "c", "d", "e"],
        "{stdout}"
    );
    dir.write("run1.jsonl", &stdout);
    let again = reconcile(
        &dir,
        "orders.csv",
        &["-o", "jsonl", "--resume", "run1.jsonl"],
    );
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(0), 0),
        "{}",
        stderr_of(&again)
    );
    assert_eq!(stdout_of(&again), stdout);
}
