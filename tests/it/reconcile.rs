//! `payverify reconcile FILE` through the real binary against `--sandbox`: every result,
//! every output format, the summary figures and the exit status.

use serde_json::Value;

use crate::common::{
    TempDir, finish, payverify, read_lines, send_signal, spawnable, stderr_of, stdout_of,
};

/// A day's orders as a shop exports them: a BOM, CRLF, quoted commas, an amount with the
/// naira sign, an empty currency cell, a bad amount, a duplicated reference, a formula and
/// a terminal escape in a customer name, and one row of every result.
const ORDERS: &str = "\u{feff}Order ID,Reference,Customer,Amount,Currency,Merchant Ref\r\n\
1001,0000000000000044177,\"Okafor, Ada\",40000,NGN,WQ-506391000507913\r\n\
1002,SANDBOX-OK-1002,Bola,\"₦40,000.00\",,\r\n\
1003,SANDBOX-AMOUNT-3999950-1003,Chi,\"40,000.00\",NGN,\r\n\
1004,SANDBOX-AMOUNT-4000001-1004,Dayo,40000,NGN,\r\n\
1005,SANDBOX-OK-1005,Efe,40000,USD,\r\n\
1006,SANDBOX-OK-1006,Femi,40000,NGN,WRONG-REF\r\n\
1007,SANDBOX-BADHMAC-1007,Gbenga,40000,NGN,\r\n\
1008,SANDBOX-FAILED-1008,Hauwa,40000.5,NGN,\r\n\
1009,SANDBOX-PENDING-1009,Ife,40000,NGN,\r\n\
1010,NO-SUCH-1010,\"=HYPERLINK(\"\"http://evil\"\")\",40000,NGN,\r\n\
1011,SANDBOX-OK-1002,Jide,40000,NGN,\r\n\
1012,SANDBOX-OK-1012,Kemi,forty,NGN,\r\n\
1013,SANDBOX-ERROR-1013,\"Lola\u{1b}[2K\",40000,NGN,\r\n";

/// Each row's result, in file order.
const RESULTS: [&str; 13] = [
    "MATCHED",
    "MATCHED",
    "UNDERPAID",
    "OVERPAID",
    "CURRENCY_MISMATCH",
    "MERCHANT_REF_MISMATCH",
    "INTEGRITY_FAILED",
    "FAILED",
    "NOT_FINAL",
    "NOT_FOUND",
    "DUPLICATE",
    "INVALID_ROW",
    "UNVERIFIED",
];

/// `reconcile --sandbox --retries 0 --hmac require FILE`: the strict run most tests make,
/// for the caller to add its own arguments to.
fn reconcile_strict(file: &std::path::Path) -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.args([
        "reconcile",
        "--sandbox",
        "--retries",
        "0",
        "--hmac",
        "require",
    ])
    .arg(file);
    cmd
}

/// Runs `reconcile --sandbox --retries 0 --hmac require FILE ARGS` on `contents`.
fn reconcile(contents: &str, args: &[&str]) -> (std::process::Output, TempDir) {
    let dir = TempDir::new("reconcile");
    let file = dir.write("orders.csv", contents);
    let out = reconcile_strict(&file).args(args).output().unwrap();
    (out, dir)
}

#[test]
fn csv_keeps_every_row_and_its_columns_then_the_results() {
    let (out, _dir) = reconcile(ORDERS, &["-o", "csv"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    // The input's BOM starts the output (Excel reads it as UTF-8), never the first name.
    assert_eq!(
        lines[0],
        "\u{feff}Order ID,Reference,Customer,Amount,Currency,Merchant Ref,result,\
         difference_kobo,difference_naira,gateway_status,gateway_code,gateway_amount_kobo,\
         gateway_amount_naira,expected_amount_kobo,expected_amount_naira,gateway_currency,\
         checks,error",
    );
    assert_eq!(lines.len(), 14, "{stdout}");
    for (line, result) in lines[1..].iter().zip(RESULTS) {
        assert!(line.contains(&format!(",{result},")), "{result}: {line}");
    }
    // Own columns in their original text, quoted again where they hold a comma.
    assert!(lines[1].starts_with(
        "1001,0000000000000044177,\"Okafor, Ada\",40000,NGN,WQ-506391000507913,MATCHED,0,\
         0.00,SUCCESSFUL,00,4000000,40000.00,4000000,40000.00,NGN,hmac valid,"
    ));
    assert!(lines[2].starts_with("1002,SANDBOX-OK-1002,Bola,\"₦40,000.00\",,,MATCHED,0,"));
    assert!(
        lines[3]
            .contains(",UNDERPAID,-50,-0.50,SUCCESSFUL,00,3999950,39999.50,4000000,40000.00,NGN,"),
        "{}",
        lines[3]
    );
    assert!(
        lines[3].contains("underpaid by ₦0.50 (50 kobo)"),
        "{}",
        lines[3]
    );
    assert!(lines[4].contains(",OVERPAID,1,0.01,SUCCESSFUL,00,4000001,40000.01,4000000,"));
    assert!(lines[5].contains("expected currency USD, service says NGN"));
    assert!(lines[6].contains("expected merchant ref \"\"WRONG-REF\"\""));
    assert!(lines[7].contains(",INTEGRITY_FAILED,0,") && lines[7].contains("hmac MISMATCH"));
    assert!(lines[8].contains(",FAILED,,,FAILED,51,4000000,40000.00,4000050,40000.50,NGN,"));
    // The USD row's expected amount is cents: no naira figure for it.
    assert!(
        lines[5].contains(",CURRENCY_MISMATCH,0,,SUCCESSFUL,00,4000000,40000.00,4000000,,NGN,"),
        "{}",
        lines[5]
    );
    // CSV injection: the formula is defused with a leading quote.
    assert!(
        lines[10].starts_with("1010,NO-SUCH-1010,\"'=HYPERLINK(\"\"http://evil\"\")\",40000,"),
        "{}",
        lines[10]
    );
    assert!(lines[11].contains(",DUPLICATE,,,,,,,4000000,40000.00,,,\"reference SANDBOX-OK-1002 is already on line 3, verified there\""));
    assert!(
        lines[12].contains(",INVALID_ROW,,,,,,,,,,,\"amount \"\"forty\"\" is not a naira amount")
    );
    // Control characters are escaped, never written raw.
    assert!(lines[13].starts_with("1013,SANDBOX-ERROR-1013,Lola\\e[2K,40000,"));
    assert!(lines[13].contains(",UNVERIFIED,,,,,,,4000000,40000.00,"));
    assert!(!stdout.contains('\u{1b}'));
}

#[test]
fn summary_on_stderr_and_as_json() {
    let dir = TempDir::new("reconcile-summary");
    let file = dir.write("orders.csv", ORDERS);
    // --summary-json is relative to the working directory.
    let out = reconcile_strict(&file)
        .current_dir(dir.path())
        .args(["-o", "jsonl", "--summary-json", "sum.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let stderr = stderr_of(&out);
    let row = |name: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| panic!("no {name} line in {stderr}"))
    };
    assert_eq!(row("MATCHED"), "MATCHED 2 80,000.00 80,000.00");
    assert_eq!(row("UNDERPAID"), "UNDERPAID 1 40,000.00 39,999.50");
    assert_eq!(row("OVERPAID"), "OVERPAID 1 40,000.00 40,000.01");
    assert_eq!(row("FAILED"), "FAILED 1 40,000.50 40,000.00");
    assert_eq!(row("INVALID_ROW"), "INVALID_ROW 1 0.00 0.00");
    assert_eq!(row("UNVERIFIED"), "UNVERIFIED 1 40,000.00 0.00");
    // The USD row (CURRENCY_MISMATCH) is not in the naira totals: it has its own block.
    assert_eq!(row("Total"), "Total 12 440,000.50 319,999.51");
    assert!(stderr.contains("Expected total"), "{stderr}");
    for (what, figure) in [
        ("Expected total", "₦440,000.50"),
        ("Confirmed (MATCHED)", "₦80,000.00"),
        ("At risk (rows that need a look)", "₦360,000.50"),
        ("Underpaid/overpaid net (gateway - expected)", "-₦0.49"),
    ] {
        let line = stderr.lines().find(|l| l.starts_with(what)).unwrap();
        assert!(line.trim_end().ends_with(figure), "{line}");
    }
    assert!(!stderr.contains('\u{1b}'), "{stderr}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sum.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"], 13);
    assert_eq!(json["exit_code"], 4);
    assert_eq!(json["expected_total_kobo"], 44_000_050);
    assert_eq!(json["expected_total_naira"], "440000.50");
    assert_eq!(json["matched_total_kobo"], 8_000_000);
    assert_eq!(json["at_risk_kobo"], 36_000_050);
    assert_eq!(json["net_difference_kobo"], -49);
    assert_eq!(json["net_difference_naira"], "-0.49");
    assert_eq!(json["results"]["UNDERPAID"]["gateway_kobo"], 3_999_950);
    assert_eq!(json["results"]["DUPLICATE"]["rows"], 1);
    assert_eq!(
        json["results"].as_object().unwrap().len(),
        11,
        "every result occurs among the naira rows but CURRENCY_MISMATCH (the USD row)"
    );
    assert_eq!(
        json["other_currencies"]["USD"]["results"]["CURRENCY_MISMATCH"]["rows"],
        1
    );
    assert_eq!(
        json["other_currencies"]["USD"]["expected_total_minor"],
        4_000_000
    );
}

#[test]
fn jsonl_and_json_carry_the_row_by_header_and_the_response() {
    for format in ["jsonl", "json"] {
        let (out, _dir) = reconcile(ORDERS, &["-o", format]);
        assert_eq!(out.status.code(), Some(4));
        let stdout = stdout_of(&out);
        let rows: Vec<Value> = match format {
            "jsonl" => stdout
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
            _ => serde_json::from_str::<Vec<Value>>(&stdout).unwrap(),
        };
        assert_eq!(rows.len(), 13, "{format}");
        for (i, (row, result)) in rows.iter().zip(RESULTS).enumerate() {
            assert_eq!(row["result"], result, "{format} {row}");
            assert_eq!(row["line"], i as u64 + 2);
        }
        assert_eq!(rows[0]["row"]["Customer"], "Okafor, Ada");
        assert_eq!(rows[0]["row"]["Order ID"], "1001", "no BOM in the key");
        assert_eq!(rows[0]["response"]["merchantRef"], "WQ-506391000507913");
        assert_eq!(rows[2]["difference_kobo"], -50);
        assert_eq!(rows[2]["gateway_amount_kobo"], 3_999_950);
        assert_eq!(rows[2]["expected_amount_kobo"], 4_000_000);
        assert_eq!(
            rows[9]["row"]["Customer"], "=HYPERLINK(\"http://evil\")",
            "exact in JSON"
        );
        assert_eq!(rows[10]["response"], Value::Null);
        assert_eq!(rows[10]["difference_kobo"], Value::Null);
        assert_eq!(rows[11]["expected_amount_kobo"], Value::Null);
        assert_eq!(rows[12]["row"]["Customer"], "Lola\u{1b}[2K");
        assert!(!stdout.contains('\u{1b}'), "JSON escapes it");
    }
}

#[test]
fn the_table_shows_what_needs_a_look_and_escapes_control_characters() {
    let (out, _dir) = reconcile(ORDERS, &[]);
    assert_eq!(out.status.code(), Some(4));
    let stdout = stdout_of(&out);
    // Led by the order id, for finance; the file's line after it.
    assert!(stdout.starts_with("Order ID  Line"), "{stdout}");
    let data: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(data.len(), 11, "MATCHED rows are left out: {stdout}");
    assert!(!stdout.contains("MATCHED  "), "{stdout}");
    assert!(
        stdout.contains("UNDERPAID") && stdout.contains("-₦0.50"),
        "{stdout}"
    );
    assert!(
        stdout.contains("OVERPAID") && stdout.contains("+₦0.01"),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    let stderr = stderr_of(&out);
    assert!(stderr.contains("payverify: summary"), "{stderr}");

    let (all, _dir) = reconcile(ORDERS, &["--all"]);
    let stdout = stdout_of(&all);
    assert_eq!(stdout.lines().skip(1).count(), 13, "{stdout}");
    assert!(stdout.contains("MATCHED"));
}

#[test]
fn semicolon_delimited_kobo_file_of_matches_exits_0() {
    let orders = "reference;amount;currency\n\
                  SANDBOX-OK-a;4000000;NGN\n\
                  \"SANDBOX-AMOUNT-123-b\";123;ngn\n\
                  \n\
                  0000000000000044177;4000000;\n";
    let (out, _dir) = reconcile(orders, &["--amount-unit", "kobo", "-o", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(
        stdout.lines().skip(1).all(|l| l.contains(",MATCHED,0,")),
        "{stdout}"
    );
    let stderr = stderr_of(&out);
    assert!(stderr.contains("3 MATCHED"), "{stderr}");
    // Naira amounts are not kobo: 40000.00 is refused in kobo mode, never rounded.
    let (out, _dir) = reconcile(
        "reference;amount\nSANDBOX-OK-a;40000.00\n",
        &["--amount-unit", "kobo", "-o", "csv"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout_of(&out).contains("not a whole number of kobo"));
}

#[test]
fn one_kobo_short_is_underpaid_and_exit_4() {
    let (out, _dir) = reconcile(
        "Transaction Ref,Order Total\nSANDBOX-AMOUNT-3999999-x,40000\nSANDBOX-OK-y,40000\n",
        &["-o", "csv", "-q"],
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(stdout_of(&out).contains(",UNDERPAID,-1,"));
    assert_eq!(stderr_of(&out), "", "-q: nothing on stderr");
}

#[test]
fn quiet_without_output_prints_nothing_and_still_exits_by_the_rows() {
    let (out, _dir) = reconcile("ref,amount\nSANDBOX-FAILED-1,1\n", &["-q"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_of(&out), "");
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn a_missing_or_ambiguous_column_is_exit_2_listing_the_headers() {
    let (out, _dir) = reconcile("Order ID,Customer,Total\n1,Ada,5\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout_of(&out), "");
    let stderr = stderr_of(&out);
    assert!(stderr.starts_with("payverify: "), "{stderr}");
    assert!(stderr.contains("no reference column"), "{stderr}");
    assert!(
        stderr.contains("\"Order ID\", \"Customer\", \"Total\""),
        "{stderr}"
    );
    assert!(stderr.contains("--reference-column NAME"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let (out, _dir) = reconcile("reference,Amount,amount\nR,1,2\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("amount column is ambiguous: columns 2 and 3"),
        "{stderr}"
    );
    assert!(stderr.contains("--amount-column NAME"), "{stderr}");

    let (out, _dir) = reconcile(
        "reference,Amount,amount\nSANDBOX-OK-1,1,40000\n",
        &["--amount-column", "amount", "-o", "csv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));

    // A hostile header cannot reach the terminal raw.
    let (out, _dir) = reconcile("\u{1b}]0;owned\u{7},x\n1,2\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr_of(&out).contains('\u{1b}'), "{}", stderr_of(&out));
}

#[test]
fn empty_files_are_exit_2() {
    for (contents, says) in [
        ("", "is empty"),
        ("\u{feff}\r\n", "is empty"),
        ("reference,amount\r\n", "no rows to reconcile"),
        ("reference,amount\r\n\r\n,\r\n", "no rows to reconcile"),
    ] {
        let (out, _dir) = reconcile(contents, &["-o", "csv"]);
        assert_eq!(out.status.code(), Some(2), "{contents:?}");
        assert!(
            stderr_of(&out).contains(says),
            "{contents:?}: {}",
            stderr_of(&out)
        );
    }
    let dir = TempDir::new("reconcile-utf16");
    let file = dir.write("u16.csv", b"\xff\xfer\0e\0f\0\n\0");
    let out = payverify()
        .args(["reconcile", "--sandbox"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("UTF-16"));
}

#[test]
fn stdin_is_read_with_a_dash() {
    let out = payverify()
        .args(["reconcile", "--sandbox", "-", "-o", "jsonl"])
        .write_stdin("reference\tamount\nSANDBOX-OK-1\t40000\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let row: Value = serde_json::from_str(stdout_of(&out).trim()).unwrap();
    assert_eq!(row["result"], "MATCHED");
    assert_eq!(row["row"]["amount"], "40000");
}

#[test]
fn hmac_warn_lets_a_bad_hmac_match_with_a_warning_in_checks() {
    let dir = TempDir::new("reconcile-warn");
    let file = dir.write("o.csv", "reference,amount\nSANDBOX-BADHMAC-1,40000\n");
    let out = payverify()
        .args(["reconcile", "--sandbox", "--hmac", "warn", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout_of(&out).contains(",MATCHED,0,") && stdout_of(&out).contains("hmac MISMATCH"));
}

#[test]
fn an_unwritable_summary_file_is_refused_before_any_request() {
    let (out, _dir) = reconcile(
        "reference,amount\nSANDBOX-SLOW-60000-1,1\n",
        &["--summary-json", "/nonexistent/dir/sum.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("cannot write --summary-json"));
}

#[test]
fn help_man_page_and_bad_flags() {
    let out = payverify().args(["help", "reconcile"]).output().unwrap();
    let help = stdout_of(&out);
    for needle in [
        "--amount-unit",
        "--summary-json",
        "--reference-column",
        "-j, --jobs",
        "UNVERIFIED",
        "Examples:",
    ] {
        assert!(help.contains(needle), "{needle}");
    }
    let man = stdout_of(&payverify().arg("man").output().unwrap());
    assert!(man.contains(".SH \"RECONCILE OPTIONS\"") && man.contains(".SH RECONCILE"));
    let out = payverify()
        .args(["reconcile", "--delimiter", "|", "x.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ctrl_c_keeps_the_rows_written_in_order_and_says_so_in_the_summary() {
    use std::io::{BufReader, Write};
    use std::process::Stdio;
    let dir = TempDir::new("reconcile-interrupt");
    let summary = dir.path().join("sum.json");
    let mut child = spawnable()
        .args(["reconcile", "--sandbox", "-o", "jsonl", "-j", "2", "-"])
        .arg("--summary-json")
        .arg(&summary)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "reference,amount").unwrap();
    for i in 0..40 {
        writeln!(stdin, "SANDBOX-SLOW-200-{i},40000").unwrap();
    }
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = read_lines(&mut stdout, 3);
    send_signal(&child, "-INT");
    let (rest, status, stderr) = finish(child, &mut stdout);
    drop(stdin);
    assert_eq!(status.code(), Some(130), "{stderr}");
    lines.extend(rest.lines().map(|l| format!("{l}\n")));
    assert!(lines.len() < 40, "it stopped early: {} lines", lines.len());
    for (i, line) in lines.iter().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["line"], i as u64 + 2, "in order, no gap");
        assert_eq!(v["result"], "MATCHED");
    }
    assert!(stderr.contains("interrupted after"), "{stderr}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["exit_code"], 130);
    assert_eq!(json["rows"], lines.len() as u64);
}

#[test]
fn unverified_rows_keep_their_own_exit_code() {
    use crate::common::{KeepAliveServer, payverify_at};
    let server = KeepAliveServer::start(|path, _| {
        if path.contains("AUTH") {
            (
                "401 Unauthorized".into(),
                vec![],
                r#"{"message":"bad key"}"#.into(),
            )
        } else if path.contains("HTML") {
            ("200 OK".into(), vec![], "<html>hi</html>".into())
        } else {
            (
                "404 Not Found".into(),
                vec![],
                r#"{"message":"no such"}"#.into(),
            )
        }
    });
    let dir = TempDir::new("reconcile-unverified");
    let file = dir.write("o.csv", "reference,amount\nR-AUTH,1\nR-HTML,1\nR-GONE,1\n");
    let out = payverify_at(&server.url)
        .args(["reconcile", "--retries", "0", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[1].starts_with("R-AUTH,1,UNVERIFIED,")
            && lines[1].contains("rejected the credentials"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("R-HTML,1,UNVERIFIED,") && lines[2].contains("bad response"),
        "{stdout}"
    );
    assert!(lines[3].starts_with("R-GONE,1,NOT_FOUND,"), "{stdout}");
    assert!(
        !stdout.contains(crate::common::SECRET) && !stderr_of(&out).contains(crate::common::SECRET)
    );
}

// ---- Findings of the hostile review of the release binary (F1..F12) ----

/// Runs `reconcile --sandbox --retries 0 ARGS` with the working directory `dir`.
fn reconcile_in(dir: &TempDir, args: &[&str]) -> std::process::Output {
    payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "--retries", "0"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn f1_an_unclosed_quote_is_an_input_failure_naming_its_line_never_a_match() {
    // A stray quote in a free-text column would make the rest of the file one cell: the
    // FAILED, unknown and underpaid orders after it must never pass as exit 0.
    let text = "Order ID,Reference,Amount,Note\n\
                1000,SANDBOX-OK-1000,40000,fine\n\
                1001,SANDBOX-OK-1001,40000,\"left at the door\n\
                1002,SANDBOX-FAILED-1002,40000,\n\
                1003,UNKNOWN-1003,40000,\n";
    for args in [&["-o", "jsonl"][..], &["-q"]] {
        let (out, _dir) = reconcile(text, args);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(10), "{args:?} {stderr}");
        // -q (the cron form) is silent by design: the exit status carries it.
        assert!(
            args[0] == "-q" || (stderr.contains("line 3") && stderr.contains("quote")),
            "names where the quote opened: {stderr}"
        );
        let stdout = stdout_of(&out);
        assert!(!stdout.contains("SANDBOX-OK-1001"), "{stdout}");
        if args[0] == "-o" {
            // The row before it stands.
            let rows: Vec<Value> = stdout
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(rows.len(), 1, "{stdout}");
            assert_eq!(
                (rows[0]["line"].as_u64(), rows[0]["result"].as_str()),
                (Some(2), Some("MATCHED"))
            );
        }
    }
    // Unclosed on the first row: nothing is reconciled, and it is not called an empty file.
    let (out, _dir) = reconcile("reference,amount\n\"SANDBOX-OK-1,1\nSANDBOX-OK-2,1\n", &[]);
    assert_eq!(out.status.code(), Some(10));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("line 2: a quoted field opens there"),
        "{stderr}"
    );
    assert!(!stderr.contains("nothing else"), "{stderr}");
    // Unclosed in the header: the whole file would be one header cell.
    let (out, _dir) = reconcile("reference,\"amount\nSANDBOX-OK-1,1\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("line 1"), "{}", stderr_of(&out));
}

#[test]
fn f10_bare_cr_line_ends_give_the_file_s_line_numbers() {
    let text = "reference,amount\rSANDBOX-OK-1,40000\rSANDBOX-FAILED-2,40000\r\
                SANDBOX-OK-1,40000\r\"two\rlines\",1\rSANDBOX-OK-4,x\r";
    let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
    let rows: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<u64> = rows.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [2, 3, 4, 5, 7], "{}", stdout_of(&out));
    assert_eq!(
        rows[2]["error"],
        "reference SANDBOX-OK-1 is already on line 2, verified there"
    );
    // Mixed: CRLF, bare CR and LF in one file.
    let (out, _dir) = reconcile(
        "reference,amount\r\nSANDBOX-OK-1,1\rSANDBOX-OK-2,1\n\nSANDBOX-OK-3,1\r\n",
        &["-o", "jsonl"],
    );
    let lines: Vec<u64> = stdout_of(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["line"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [2, 3, 5]);
}

#[test]
fn f7_a_row_or_header_over_1_mib_is_an_input_failure_not_unbounded_memory() {
    let dir = TempDir::new("reconcile-huge");
    let cell = "A".repeat(3 << 20);
    let row = dir.write(
        "row.csv",
        format!("reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,{cell}\nSANDBOX-OK-3,40000\n"),
    );
    let header = dir.write(
        "header.csv",
        format!("reference,amount,{cell}\nSANDBOX-OK-1,40000\n"),
    );
    let zeros = dir.path().join("zeros.csv");
    std::fs::write(&zeros, vec![0u8; 4 << 20]).unwrap();
    // The header is refused before any request (2); a row part way through the file ends
    // a run that did not reach every row (10).
    for (file, line, code) in [
        (&row, "line 3", 10),
        (&header, "line 1", 2),
        (&zeros, "line 1", 2),
    ] {
        let out = reconcile_in(&dir, &["-o", "jsonl", file.to_str().unwrap()]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(code), "{stderr}");
        assert!(
            stderr.contains("1 MiB") && stderr.contains(line),
            "{file:?}: {stderr}"
        );
    }
}

#[test]
fn f2_summary_json_never_truncates_anything_and_refuses_the_input_or_stdout() {
    let dir = TempDir::new("reconcile-selfsum");
    let text = "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-FAILED-2,40000\n";
    let file = dir.write("orders.csv", text);
    std::fs::hard_link(&file, dir.path().join("link.csv")).unwrap();
    for target in ["orders.csv", "./orders.csv", "link.csv", "-"] {
        let out = reconcile_in(&dir, &["orders.csv", "--summary-json", target]);
        assert_eq!(out.status.code(), Some(2), "{target}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains("--summary-json"),
            "{}",
            stderr_of(&out)
        );
        assert_eq!(stdout_of(&out), "", "nothing verified");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{target}");
    }
    // stdin that is the same file.
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .current_dir(dir.path())
        .args([
            "reconcile",
            "--sandbox",
            "-",
            "--summary-json",
            "orders.csv",
        ])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // A summary file that exists is replaced at the end, whole; nothing else is left.
    std::fs::write(dir.path().join("sum.json"), "old").unwrap();
    let out = reconcile_in(&dir, &["orders.csv", "-q", "--summary-json", "sum.json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sum.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"], 2);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["link.csv", "orders.csv", "sum.json"]);
}

#[test]
fn f3_a_reader_that_goes_away_never_gives_exit_0_and_the_summary_says_what_was_decided() {
    use std::io::BufReader;
    let dir = TempDir::new("reconcile-head");
    let mut text = String::from("reference,amount\n");
    for i in 0..3000 {
        text.push_str(&format!("SANDBOX-OK-{i},40000\n"));
    }
    text.push_str("SANDBOX-FAILED-X,40000\n");
    let file = dir.write("orders.csv", &text);
    let summary = dir.path().join("sum.json");
    let mut child = spawnable()
        .args(["reconcile", "--sandbox", "-o", "csv", "--summary-json"])
        .arg(&summary)
        .arg(&file)
        .spawn()
        .unwrap();
    read_lines(&mut BufReader::new(child.stdout.take().unwrap()), 1);
    // The reader goes away, as `| head -1` does.
    let out = child.wait_with_output().unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("output closed before every row was reconciled"),
        "{stderr}"
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(json["complete"], false, "{json}");
    assert_eq!(json["exit_code"], 10);
    // The summary counts exactly the rows the stderr count line (and the exit) merged.
    let counted: u64 = stderr
        .lines()
        .find_map(|l| l.split("stopped after ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(json["rows"], counted, "{stderr}");
    assert!(counted < 3001);
    assert!(stderr.contains("incomplete"), "{stderr}");
}

#[test]
fn f4_the_secret_in_a_header_or_a_flag_value_is_redacted_in_column_errors() {
    use crate::common::{SECRET, payverify_at};
    let dir = TempDir::new("reconcile-sechdr");
    let file = dir.write("o.csv", format!("id,{SECRET}\n1,2\n"));
    let runs: [&[&str]; 3] = [
        &[],
        &["--reference-column", SECRET],
        &["--delimiter", SECRET],
    ];
    for args in runs {
        let out = payverify_at("http://127.0.0.1:9")
            .arg("reconcile")
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(!stderr.contains(SECRET), "{args:?}: {stderr}");
        assert!(stderr.contains("<redacted>"), "{args:?}: {stderr}");
    }
    // The secret file given as the orders file.
    let secret_file = dir.write("live.secret", format!("{SECRET}\n"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = payverify()
        .env("PAYVERIFY_BASE_URL", "http://127.0.0.1:9")
        .env("PAYVERIFY_CLIENT_ID", "x")
        .arg("--client-secret-file")
        .arg(&secret_file)
        .arg("reconcile")
        .arg(&secret_file)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains(SECRET), "{stderr}");
}

#[test]
fn f5_other_currencies_are_never_added_into_naira_totals() {
    let dir = TempDir::new("reconcile-currencies");
    let file = dir.write(
        "o.csv",
        "reference,amount,currency\nSANDBOX-OK-1,40000,NGN\nSANDBOX-OK-2,40000,USD\n\
         SANDBOX-OK-3,\"40,000.00\",usd\n",
    );
    let out = reconcile_in(
        &dir,
        &[
            file.to_str().unwrap(),
            "--summary-json",
            "sum.json",
            "--all",
        ],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    // The table shows a USD row's expected amount as USD; only the gateway's answer (in
    // NGN) has the naira sign.
    let usd = stdout.lines().find(|l| l.contains("SANDBOX-OK-2")).unwrap();
    assert!(usd.contains("USD 40,000.00"), "{usd}");
    assert_eq!(usd.matches('₦').count(), 1, "{usd}");
    let line = |what: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with(what))
            .unwrap_or_else(|| panic!("{what}: {stderr}"))
            .to_owned()
    };
    assert!(
        line("Expected total").trim_end().ends_with("₦40,000.00"),
        "{stderr}"
    );
    assert!(
        line("At risk (rows that need a look)")
            .trim_end()
            .ends_with("₦0.00"),
        "{stderr}"
    );
    assert!(stderr.contains("USD 80,000.00"), "{stderr}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sum.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"], 3);
    assert_eq!(json["expected_total_kobo"], 4_000_000);
    assert_eq!(json["at_risk_kobo"], 0);
    let usd = &json["other_currencies"]["USD"];
    assert_eq!(usd["rows"], 2, "{json}");
    assert_eq!(usd["expected_total_minor"], 8_000_000);
    assert_eq!(usd["expected_total"], "80000.00");
    assert_eq!(usd["at_risk_minor"], 8_000_000);
    assert_eq!(usd["results"]["CURRENCY_MISMATCH"]["rows"], 2);
}

#[test]
fn f6_a_naira_marked_amount_on_a_row_in_another_currency_is_invalid() {
    let dir = TempDir::new("reconcile-marks");
    let file = dir.write(
        "o.csv",
        "reference,amount,currency\nSANDBOX-OK-1,₦40000,GHS\nSANDBOX-OK-2,NGN 40000,GHS\n\
         SANDBOX-OK-3,\"₦40,000.00\",NGN\nSANDBOX-OK-4,40000 ngn,\n",
    );
    let out = reconcile_in(&dir, &[file.to_str().unwrap(), "-o", "jsonl"]);
    let rows: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        results,
        ["INVALID_ROW", "INVALID_ROW", "MATCHED", "MATCHED"]
    );
    assert!(
        rows[0]["error"].as_str().unwrap().contains("GHS"),
        "{}",
        rows[0]
    );
    // --currency without a column: the same rule.
    let plain = dir.write("p.csv", "reference,amount\nSANDBOX-OK-1,₦40000\n");
    let out = reconcile_in(
        &dir,
        &[plain.to_str().unwrap(), "--currency", "USD", "-o", "csv"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout_of(&out).contains(",INVALID_ROW,"),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn f8_f9_the_table_cuts_long_cells_and_keeps_a_bounded_number_of_rows() {
    let dir = TempDir::new("reconcile-table");
    let long = "B".repeat(200_000);
    let mut text = format!("reference,amount\n{long},40000\n");
    for i in 0..1200 {
        text.push_str(&format!("R-{i},x\n"));
    }
    let file = dir.write("o.csv", &text);
    let out = reconcile_in(&dir, &[file.to_str().unwrap()]);
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stdout.len() < 1_000_000, "{} bytes", stdout.len());
    let first = stdout.lines().nth(1).unwrap();
    assert!(first.contains('…') && first.len() < 1000, "{first}");
    // The first rows are shown; the rest are counted and named, not kept.
    assert!(
        stdout.contains("R-0 ") && !stdout.contains("R-1199 "),
        "{stdout}"
    );
    assert!(stderr.contains("more rows not shown"), "{stderr}");
}

#[test]
fn f11_the_difference_figure_says_what_it_sums() {
    // The gateway total here includes the FAILED row's amount, which was never paid: the
    // figure is the UNDERPAID/OVERPAID rows' difference, and its label says so.
    let (out, _dir) = reconcile(
        "reference,amount\nSANDBOX-AMOUNT-3950000-1,40000\nSANDBOX-FAILED-2,40000\n",
        &["-o", "csv"],
    );
    let stderr = stderr_of(&out);
    assert!(
        !stderr.contains("Net difference (gateway - expected)"),
        "{stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.starts_with("Underpaid/overpaid net (gateway - expected)"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.trim_end().ends_with("-₦500.00"), "{line}");
}

#[test]
fn f12_two_currency_columns_warn_which_one_is_used() {
    let (out, _dir) = reconcile(
        "reference,amount,currency,Currency Code\nSANDBOX-OK-1,40000,NGN,USD\n",
        &["-o", "csv"],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning")
            && stderr.contains("column 3")
            && stderr.contains("\"currency\""),
        "{stderr}"
    );
}

/// Each row's line and result in jsonl output.
fn lines_and_results(stdout: &str) -> Vec<(u64, String)> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| {
            let line = r["line"].as_u64().unwrap();
            (line, r["result"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn attack3_f1_a_stray_quote_closed_by_a_later_quote_never_hides_rows() {
    // The reviewer's two files: a stray quote "closed" by a later quoted cell (text then
    // follows that quote), and one closed by a quote ending a later cell (valid RFC 4180).
    // The FAILED and PENDING orders between would be one cell, never verified.
    let stray = "Order ID,Reference,Amount,Note\n\
                 1000,SANDBOX-OK-1000,40000,\n\
                 1001,SANDBOX-OK-1001,40000,\"left at the door\n\
                 1002,SANDBOX-FAILED-1002,40000,\n\
                 1003,SANDBOX-PENDING-1003,40000,\n\
                 1004,SANDBOX-OK-1004,40000,\"gift wrap\"\n\
                 1005,SANDBOX-OK-1005,40000,\n";
    let closed_later = "Order ID,Reference,Amount,Note\n\
                        1000,SANDBOX-OK-1000,40000,\n\
                        1,SANDBOX-OK-1,40000,\"oops\n\
                        2,SANDBOX-FAILED-2,40000,\n\
                        3,SANDBOX-OK-3,40000,bad\"\n\
                        4,SANDBOX-OK-4,40000,\n";
    // The same, with CRLF and the closing quote at the very end of the file.
    let at_end = "Order ID,Reference,Amount,Note\r\n\
                  1000,SANDBOX-OK-1000,40000,\r\n\
                  1,SANDBOX-OK-1,40000,\"oops\r\n\
                  2,SANDBOX-FAILED-2,40000,\r\n\
                  3,SANDBOX-OK-3,40000,bad\"";
    for (text, close) in [(stray, 6), (closed_later, 5), (at_end, 5)] {
        let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(10), "{stderr}");
        let said = format!("line 3: a quoted field opens there and closes on line {close}");
        assert!(stderr.contains(&said), "{stderr}");
        // Every line between reads as an order row (a reference and an amount in their
        // columns' places); the closing line counts up to the closing quote.
        let hidden = match close {
            6 => "lines 4, 5 and 6 inside it read as order rows",
            _ => "lines 4 and 5 inside it read as order rows",
        };
        assert!(
            stderr.contains(hidden)
                && stderr.contains("nothing from line 3 on was reconciled")
                && stderr.contains("stray quote"),
            "{stderr}"
        );
        // The row before the quote stands; nothing from the quote on is a row.
        assert_eq!(
            lines_and_results(&stdout_of(&out)),
            [(2, "MATCHED".to_owned())],
            "{stderr}"
        );
        // The cron gate: silent, and still not 0.
        for args in [&["-q"][..], &["-q", "-o", "csv"]] {
            let (out, _dir) = reconcile(text, args);
            assert_eq!(out.status.code(), Some(10), "{args:?}");
            let stdout = stdout_of(&out);
            let rows = stdout.lines().filter(|l| l.contains("SANDBOX")).count();
            assert!(
                rows <= 1 && !stdout.contains("FAILED"),
                "{args:?}: {stdout}"
            );
        }
    }
}

#[test]
fn attack3_f1_text_after_a_closing_quote_is_refused_naming_the_lines() {
    // Not RFC 4180: the csv crate would read `gift wrap"` leniently.
    let text = "Order ID,Reference,Amount,Note\n\
                1000,SANDBOX-OK-1000,40000,\n\
                1001,SANDBOX-OK-1001,40000,\"gift wrap\"x\n\
                1002,SANDBOX-FAILED-1002,40000,\n";
    let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("line 3: text follows the closing quote")
            && stderr.contains("nothing from line 3 on was reconciled"),
        "{stderr}"
    );
    assert_eq!(
        lines_and_results(&stdout_of(&out)),
        [(2, "MATCHED".to_owned())]
    );
    // A stray quote closed by a later quote with text after it, and no line between that
    // holds a separator: the text after the quote is what is named, with both lines.
    let text = "Order ID,Reference,Amount,Note\n\
                1001,SANDBOX-OK-1001,40000,\"left\n\
                at the door\n\
                see \"gift wrap\"\n";
    let (out, _dir) = reconcile(text, &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains("line 4: text follows the closing quote")
            && stderr.contains("the field opened on line 2"),
        "{stderr}"
    );
    // A doubled quote and a quote right before the separator or the line end are fine.
    let text = "Order ID,Reference,Amount,Note\n\
                1001,SANDBOX-OK-1001,40000,\"say \"\"hi\"\"\"\n\
                1002,\"SANDBOX-OK-1002\",40000,\"\"\n";
    let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let rows = crate::common::jsonl(&out.stdout);
    assert_eq!(rows[0]["row"]["Note"], "say \"hi\"");
}

#[test]
fn attack3_f1_legitimate_multi_line_cells_still_reconcile() {
    // An address over three lines, commas only on its first, and a one-line quoted cell
    // with many commas.
    let text = "Order ID,Reference,Amount,Address\n\
                1,SANDBOX-OK-1,40000,\"Flat 2, 12 Main St\n\
                Ikeja Lagos\n\
                Nigeria\"\n\
                2,SANDBOX-OK-2,40000,\"a,b,c,d,e,f\"\n\
                3,SANDBOX-OK-3,40000,\n";
    let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    assert_eq!(
        lines_and_results(&stdout),
        [
            (2, "MATCHED".to_owned()),
            (5, "MATCHED".to_owned()),
            (6, "MATCHED".to_owned())
        ]
    );
    let rows = crate::common::jsonl(&out.stdout);
    assert_eq!(
        rows[0]["row"]["Address"],
        "Flat 2, 12 Main St\nIkeja Lagos\nNigeria"
    );
    // Issue 25: no cap on a cell's lines any more (it was 10): what is refused is a line
    // that reads as an order row, however many lines the cell has. A 200-line cell whose
    // lines hold separators but no reference-and-amount is read as one cell.
    let cell = |lines: usize| vec!["x, y; z"; lines].join("\n");
    let long = format!(
        "Reference,Amount,Note\nSANDBOX-OK-1,40000,\"{}\"\nSANDBOX-OK-2,40000,\n",
        cell(200)
    );
    let (out, _dir) = reconcile(&long, &["-o", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        lines_and_results(&stdout_of(&out)),
        [(2, "MATCHED".to_owned()), (202, "MATCHED".to_owned())]
    );
    // The same cell with one line that is an order row on its own is refused, that line
    // named.
    let mut lines = vec!["x, y; z"; 200];
    lines[150] = "SANDBOX-FAILED-9,40000";
    let hiding = format!(
        "Reference,Amount,Note\nSANDBOX-OK-1,40000,\"{}\"\nSANDBOX-OK-2,40000,\n",
        lines.join("\n")
    );
    let (out, _dir) = reconcile(&hiding, &["-o", "jsonl"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains(
            "line 2: a quoted field opens there and closes on line 201; line 152 \
                         inside it reads as an order row"
        ),
        "{stderr}"
    );
    assert_eq!(stdout_of(&out), "");
}

#[test]
fn attack3_f4_a_summary_path_that_is_stdout_is_refused_before_any_request() {
    use std::process::{Command, Stdio};
    let dir = TempDir::new("reconcile-sumstdout");
    dir.write("orders.csv", "reference,amount\nSANDBOX-OK-1,40000\n");
    std::os::unix::fs::symlink("out.csv", dir.path().join("outlink.json")).unwrap();
    std::fs::hard_link(dir.write("other.csv", ""), dir.path().join("hard.json")).unwrap();
    let run = |target: &str, stdout: Stdio| {
        Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
            .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
            .current_dir(dir.path())
            .args(["reconcile", "--sandbox", "-o", "csv", "orders.csv"])
            .args(["--summary-json", target])
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    // stdout redirected to a file, reached by every name: the rows would be replaced.
    let cases = [
        ("/dev/stdout", "out.csv"),
        ("/proc/self/fd/1", "out.csv"),
        ("/dev/fd/1", "out.csv"),
        ("outlink.json", "out.csv"),
        ("out.csv", "out.csv"),
        ("hard.json", "other.csv"),
    ];
    for (target, out_file) in cases {
        let file = std::fs::File::create(dir.path().join(out_file)).unwrap();
        let out = run(target, Stdio::from(file));
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{target}: {stderr}");
        assert!(
            stderr.contains(&format!("--summary-json {target}")) && stderr.contains("stdout"),
            "{target}: {stderr}"
        );
        // Refused before the header row, let alone a request.
        assert_eq!(
            std::fs::read_to_string(dir.path().join(out_file)).unwrap(),
            "",
            "{target}"
        );
        assert!(std::fs::symlink_metadata(dir.path().join("outlink.json")).is_ok());
    }
    // stdout a pipe: the summary would be mixed into the rows.
    for target in ["/dev/stdout", "/proc/self/fd/1"] {
        let out = run(target, Stdio::piped());
        assert_eq!(out.status.code(), Some(2), "{target}");
        assert_eq!(stdout_of(&out), "", "{target}");
    }
    // stderr is an output too (issue 23): refused, and the summary never joins the messages.
    let file = std::fs::File::create(dir.path().join("out.csv")).unwrap();
    let out = run("/dev/stderr", Stdio::from(file));
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("where stderr goes"), "{stderr}");
    assert!(!stderr.contains("\"rows\""), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.csv")).unwrap(),
        ""
    );
    // Another file is still where a summary can go.
    let file = std::fs::File::create(dir.path().join("out.csv")).unwrap();
    let out = run("sum.json", Stdio::from(file));
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let summary = std::fs::read_to_string(dir.path().join("sum.json")).unwrap();
    assert!(summary.contains("\"rows\": 1"), "{summary}");
    let rows = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert!(rows.contains("SANDBOX-OK-1,40000,MATCHED"), "{rows}");
    assert!(!rows.contains("\"rows\""), "{rows}");
}

#[test]
fn attack4_n1_hidden_orders_with_fewer_separators_than_the_header_are_refused() {
    // An export that leaves out the empty trailing Note cell: the hidden lines hold one
    // separator fewer than the header. As rows they would be INVALID_ROW (exit 2); hidden in
    // a quote they must not vanish into exit 0 either.
    let text = "Order ID,Reference,Amount,Note\n\
                1001,SANDBOX-OK-1001,40000,\"left at\n\
                1002,SANDBOX-FAILED-1002,40000\n\
                1003,SANDBOX-PENDING-1003,40000\n\
                door\"\n\
                1005,SANDBOX-OK-1005,40000,\n";
    // (`reconcile` already passes --hmac require: giving it again was a usage error, exit 2
    // for the wrong reason.)
    for args in [&["-o", "jsonl"][..], &["-q"][..]] {
        let (out, _dir) = reconcile(text, args);
        assert_eq!(out.status.code(), Some(10), "{args:?}: {}", stderr_of(&out));
        assert!(!stdout_of(&out).contains("SANDBOX-OK-1005"), "{args:?}");
    }
    let (out, _dir) = reconcile(text, &["-o", "jsonl"]);
    assert!(
        stderr_of(&out).contains(
            "line 2: a quoted field opens there and closes on line 5; lines 3 and 4 inside \
             it read as order rows (a reference in the \"Reference\" column's place and an \
             amount in the \"Amount\" column's)"
        ),
        "{}",
        stderr_of(&out)
    );
    // Issue 25 narrowed the defence: an address whose later line holds a comma but no
    // reference and amount in their places is one cell, as a spreadsheet reads it (it was
    // refused before).
    let address = "Order ID,Reference,Amount,Address\n\
                   1,SANDBOX-OK-1,40000,\"Flat 2\n\
                   Ikeja, Lagos\"\n";
    let (out, _dir) = reconcile(address, &["-o", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        crate::common::jsonl(&out.stdout)[0]["row"]["Address"],
        "Flat 2\nIkeja, Lagos"
    );
}

#[test]
fn attack4_n2_one_payment_answering_two_references_matches_one_order() {
    // The gateway answers a lookup by the transaction reference and by its payment
    // reference with the same transaction: two orders, one payment. The second row is a
    // DUPLICATE of the first, never a second MATCHED (that would confirm ₦80,000 for ₦40,000).
    use crate::common::{RawServer, SAMPLE, payverify_at, read_head, respond};
    let body = SAMPLE.clone();
    let service = RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "200 OK", body.as_bytes());
    });
    let dir = TempDir::new("reconcile-one-payment");
    dir.write(
        "orders.csv",
        "Reference,Amount\n0000000000000044177,40000\n330137174040,40000\n",
    );
    let out = payverify_at(&service.url)
        .current_dir(dir.path())
        .args([
            "reconcile",
            "orders.csv",
            "-o",
            "jsonl",
            "--hmac",
            "require",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let rows = crate::common::jsonl(&out.stdout);
    assert_eq!(rows[0]["result"], "MATCHED");
    assert_eq!(rows[1]["result"], "DUPLICATE");
    assert!(
        rows[1]["error"]
            .as_str()
            .unwrap()
            .contains("the transaction line 2 was already verified for: one payment"),
        "{}",
        rows[1]
    );
    // The other way round: the payment reference first, then the transaction reference.
    dir.write(
        "reversed.csv",
        "Reference,Amount\n330137174040,40000\n0000000000000044177,40000\n",
    );
    let out = payverify_at(&service.url)
        .current_dir(dir.path())
        .args(["reconcile", "reversed.csv", "-o", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let rows = crate::common::jsonl(&out.stdout);
    assert_eq!(
        (&rows[0]["result"], &rows[1]["result"]),
        (&Value::from("MATCHED"), &Value::from("DUPLICATE"))
    );
}

#[test]
fn hostile_amount_and_currency_cells_never_match_by_accident() {
    // Each row's reference answers SUCCESSFUL for ₦40,000.00 in NGN; only the cells differ.
    let cases: [(&str, &str, &str); 17] = [
        ("40000\u{7}", "NGN", "INVALID_ROW"),
        ("4\u{1b}[2K0000", "NGN", "INVALID_ROW"),
        ("-0", "NGN", "INVALID_ROW"),
        ("-40000", "NGN", "INVALID_ROW"),
        ("₦", "NGN", "INVALID_ROW"),
        ("99999999999999999999", "NGN", "INVALID_ROW"),
        ("4e4", "NGN", "INVALID_ROW"),
        ("40000.001", "NGN", "INVALID_ROW"),
        ("40000\u{200b}", "NGN", "INVALID_ROW"),
        // The largest figure kobo holds is read exactly, and is not what was paid.
        ("92233720368547758.07", "NGN", "UNDERPAID"),
        // Whitespace around a figure (NBSP included) is not part of it.
        ("  40000 ", "NGN", "MATCHED"),
        ("\u{a0}40000\u{a0}", "NGN", "MATCHED"),
        // Currency cells: case and surrounding spaces do not matter; anything that is no
        // ISO 4217 code is INVALID_ROW naming it (issue 25; it was CURRENCY_MISMATCH).
        ("40000", " ngn ", "MATCHED"),
        ("40000", "N GN", "INVALID_ROW"),
        ("40000", "NGN\u{7}", "INVALID_ROW"),
        ("40000", "NG", "INVALID_ROW"),
        ("40000", "NGNN", "INVALID_ROW"),
    ];
    let mut orders = String::from("reference,amount,currency\n");
    for (i, (amount, currency, _)) in cases.iter().enumerate() {
        orders.push_str(&format!("SANDBOX-OK-h{i},\"{amount}\",\"{currency}\"\n"));
    }
    let (out, _dir) = reconcile(&orders, &["-o", "jsonl"]);
    let stdout = stdout_of(&out);
    let got = lines_and_results(&stdout);
    let want: Vec<(u64, String)> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, _, result))| (i as u64 + 2, (*result).to_owned()))
        .collect();
    assert_eq!(got, want, "{stdout}");
    assert_ne!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // No control character from a cell reaches the terminal raw.
    let stderr = stderr_of(&out);
    assert!(
        !stderr.contains('\u{7}') && !stderr.contains('\u{1b}'),
        "{stderr}"
    );
    let (table, _dir) = reconcile(&orders, &[]);
    let shown = format!("{}{}", stdout_of(&table), stderr_of(&table));
    assert!(
        !shown.contains('\u{7}') && !shown.contains('\u{1b}'),
        "{shown}"
    );
}
