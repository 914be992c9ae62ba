//! `-o xlsx`: the workbook read back with calamine, as a spreadsheet reads it: its sheets,
//! the type and value of each cell (numbers, dates, text), no formula anywhere, and the
//! exit status; on a terminal, exit 2 and nothing written.

use std::io::Cursor;

use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};

use crate::common::{TempDir, on_terminal, payverify, stderr_of};

/// A workbook's bytes, opened.
fn open(bytes: &[u8]) -> Xlsx<Cursor<Vec<u8>>> {
    open_workbook_from_rs(Cursor::new(bytes.to_vec())).expect("stdout is an xlsx workbook")
}

/// Every row of `sheet`, each cell as calamine reads it.
fn rows(book: &mut Xlsx<Cursor<Vec<u8>>>, sheet: &str) -> Vec<Vec<Data>> {
    let range = book.worksheet_range(sheet).expect("the sheet is there");
    range.rows().map(<[Data]>::to_vec).collect()
}

/// The row of `rows` whose first cell is the text `first`.
fn row_of<'a>(rows: &'a [Vec<Data>], first: &str) -> &'a [Data] {
    rows.iter()
        .find(|r| r.first() == Some(&text(first)))
        .unwrap_or_else(|| panic!("no row {first:?} in {rows:?}"))
}

/// A text cell.
fn text(s: &str) -> Data {
    Data::String(s.to_owned())
}

/// The cell under `column` (a header name) in `row`.
fn cell<'a>(header: &[Data], row: &'a [Data], column: &str) -> &'a Data {
    let at = header
        .iter()
        .position(|h| *h == text(column))
        .unwrap_or_else(|| panic!("no column {column:?} in {header:?}"));
    &row[at]
}

/// Asserts that no cell of any sheet of the workbook is a formula.
fn no_formulas(book: &mut Xlsx<Cursor<Vec<u8>>>) {
    for name in book.sheet_names() {
        let formulas = book.worksheet_formula(&name).unwrap();
        assert!(
            formulas.used_cells().all(|(_, _, f)| f.is_empty()),
            "{name} has a formula: {formulas:?}"
        );
    }
}

#[test]
fn verify_writes_a_summary_the_records_that_need_a_look_and_every_record() {
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "xlsx", "--"])
        .args([
            "SANDBOX-OK-1",
            "SANDBOX-FAILED-2",
            "SANDBOX-AMOUNT-4000050-3",
            "SANDBOX-CURRENCY-USD-4",
            "=1+1",
        ])
        .output()
        .unwrap();
    // The FAILED payment is exit 1; "=1+1" is no sandbox reference (NOT_FOUND, exit 3).
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    let mut book = open(&out.stdout);
    assert_eq!(book.sheet_names(), ["Summary", "Needs a look", "All rows"]);
    no_formulas(&mut book);

    let all = rows(&mut book, "All rows");
    let header = &all[0];
    assert_eq!(
        header,
        &[
            "reference",
            "outcome",
            "exit_code",
            "status",
            "code",
            "amount",
            "currency",
            "merchant_ref",
            "transaction_ref",
            "payment_ref",
            "transaction_date",
            "payment_date",
            "error",
            "checks",
        ]
        .map(text)
    );
    assert_eq!(all.len(), 6, "the header and one row per reference");
    let paid = row_of(&all, "SANDBOX-AMOUNT-4000050-3");
    assert_eq!(cell(header, paid, "outcome"), &text("SUCCESSFUL"));
    assert_eq!(cell(header, paid, "exit_code"), &Data::Float(0.0));
    // ₦40,000.50 is the number 40000.5, exact; the code stays the text "00".
    assert_eq!(cell(header, paid, "amount"), &Data::Float(40_000.5));
    assert_eq!(cell(header, paid, "code"), &text("00"));
    assert_eq!(cell(header, paid, "currency"), &text("NGN"));
    for column in ["transaction_date", "payment_date"] {
        let Data::DateTime(date) = cell(header, paid, column) else {
            panic!("{column} is not a date: {paid:?}");
        };
        assert!(date.is_datetime(), "{date:?}");
        assert!(date.as_f64() > 40_000.0, "{date:?}");
    }
    let dollars = row_of(&all, "SANDBOX-CURRENCY-USD-4");
    assert_eq!(cell(header, dollars, "amount"), &Data::Float(40_000.0));
    assert_eq!(cell(header, dollars, "currency"), &text("USD"));
    // A reference that looks like a formula is the text it was.
    let formula = row_of(&all, "=1+1");
    assert_eq!(cell(header, formula, "outcome"), &text("NOT_FOUND"));

    // Needs a look: an exit other than 0 (the FAILED and the NOT_FOUND), in input order.
    let looks = rows(&mut book, "Needs a look");
    assert_eq!(&looks[0], header);
    let named: Vec<&Data> = looks[1..].iter().map(|r| &r[0]).collect();
    assert_eq!(named, [&text("SANDBOX-FAILED-2"), &text("=1+1")]);

    let summary = rows(&mut book, "Summary");
    assert_eq!(summary[0][0], text("Run"));
    assert!(
        matches!(&summary[0][1], Data::String(s) if s.starts_with("complete")),
        "{summary:?}"
    );
    assert_eq!(row_of(&summary, "Exit status")[1], Data::Float(3.0));
    assert_eq!(row_of(&summary, "SUCCESSFUL")[1], Data::Float(3.0));
    assert_eq!(row_of(&summary, "FAILED")[1], Data::Float(1.0));
    assert_eq!(row_of(&summary, "NOT_FOUND")[1], Data::Float(1.0));
    assert_eq!(row_of(&summary, "CHECK_FAILED")[1], Data::Float(0.0));
    assert_eq!(row_of(&summary, "Total")[1], Data::Float(5.0));
}

/// An orders file whose customers typed formulas, control characters and Excel's own
/// escape; amounts as a shop writes them.
const ORDERS: &str = "Order ID,Reference,Customer,Amount,Currency\n\
1001,SANDBOX-AMOUNT-4000050-1001,\"=HYPERLINK(\"\"http://evil\"\")\",40000.50,NGN\n\
1002,SANDBOX-AMOUNT-3999950-1002,+1+cmd|' /C calc'!A0,\"40,000.00\",NGN\n\
1003,SANDBOX-OK-1003,@SUM(A1),-2+3,NGN\n\
1004,SANDBOX-OK-1004,\"a\u{7}b\tc _x0041_\",40000,NGN\n\
1005,SANDBOX-OK-1005,Efe,40000,USD\n";

#[test]
fn reconcile_keeps_the_files_cells_as_text_and_gives_amounts_as_naira() {
    let dir = TempDir::new("xlsx-reconcile");
    dir.write("orders.csv", ORDERS);
    let out = payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "orders.csv", "-o", "xlsx"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    // UNDERPAID (1002) and INVALID_ROW (1003's amount) are exit 4 and 2 ... the worst wins.
    assert!(out.status.code().is_some_and(|c| c != 0), "{stderr}");
    let mut book = open(&out.stdout);
    assert_eq!(book.sheet_names(), ["Summary", "Needs a look", "All rows"]);
    no_formulas(&mut book);

    let all = rows(&mut book, "All rows");
    let header = &all[0];
    assert_eq!(
        header,
        &[
            "Order ID",
            "Reference",
            "Customer",
            "Amount",
            "Currency",
            "result",
            "difference",
            "gateway_status",
            "gateway_code",
            "gateway_amount",
            "expected_amount",
            "expected_currency",
            "gateway_currency",
            "checks",
            "error",
        ]
        .map(text)
    );
    assert_eq!(all.len(), 6, "{all:?}");
    // The file's own cells as they were: text, formulas and all, never evaluated.
    let first = row_of(&all, "1001");
    assert_eq!(
        cell(header, first, "Customer"),
        &text("=HYPERLINK(\"http://evil\")")
    );
    assert_eq!(cell(header, first, "Amount"), &text("40000.50"));
    assert_eq!(cell(header, first, "result"), &text("MATCHED"));
    assert_eq!(
        cell(header, first, "expected_amount"),
        &Data::Float(40_000.5)
    );
    assert_eq!(
        cell(header, first, "gateway_amount"),
        &Data::Float(40_000.5)
    );
    assert_eq!(cell(header, first, "difference"), &Data::Float(0.0));
    let second = row_of(&all, "1002");
    assert_eq!(
        cell(header, second, "Customer"),
        &text("+1+cmd|' /C calc'!A0")
    );
    assert_eq!(cell(header, second, "result"), &text("UNDERPAID"));
    assert_eq!(cell(header, second, "difference"), &Data::Float(-0.5));
    let third = row_of(&all, "1003");
    assert_eq!(cell(header, third, "Customer"), &text("@SUM(A1)"));
    assert_eq!(cell(header, third, "Amount"), &text("-2+3"));
    // Control characters and a literal `_x0041_` come back exactly.
    let fourth = row_of(&all, "1004");
    assert_eq!(
        cell(header, fourth, "Customer"),
        &text("a\u{7}b\tc _x0041_")
    );
    let fifth = row_of(&all, "1005");
    assert_eq!(cell(header, fifth, "expected_currency"), &text("USD"));
    assert_eq!(
        cell(header, fifth, "expected_amount"),
        &Data::Float(40_000.0)
    );

    let looks = rows(&mut book, "Needs a look");
    let named: Vec<&Data> = looks[1..].iter().map(|r| &r[0]).collect();
    assert!(
        !named.contains(&&text("1001")),
        "a clean MATCHED row: {named:?}"
    );
    assert!(named.contains(&&text("1002")) && named.contains(&&text("1003")));

    let summary = rows(&mut book, "Summary");
    assert!(matches!(&summary[0][1], Data::String(s) if s.starts_with("complete")));
    let heading = row_of(&summary, "Result");
    assert_eq!(heading[2], text("Expected (₦)"));
    let matched = row_of(&summary, "MATCHED");
    // 1001 and 1004 in naira (the USD row has its own block, further down).
    assert_eq!(matched[1], Data::Float(2.0));
    assert_eq!(matched[2], Data::Float(80_000.5));
    assert!(
        summary
            .iter()
            .any(|r| r.first() == Some(&text("Rows in USD (not included in the naira totals):"))),
        "{summary:?}"
    );
}

#[test]
fn a_run_that_stopped_part_way_says_so_in_the_summary() {
    // A quote never closed on line 3: line 2 was reconciled, nothing after it (exit 10).
    let dir = TempDir::new("xlsx-incomplete");
    dir.write(
        "orders.csv",
        "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,\"40000\nSANDBOX-FAILED-3,40000\n",
    );
    let out = payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "orders.csv", "-o", "xlsx"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(10), "{}", stderr_of(&out));
    let mut book = open(&out.stdout);
    assert_eq!(
        book.sheet_names(),
        ["Summary (INCOMPLETE)", "Needs a look", "All rows"]
    );
    let summary = rows(&mut book, "Summary (INCOMPLETE)");
    assert!(
        matches!(&summary[0][1], Data::String(s) if s.starts_with("INCOMPLETE")),
        "{summary:?}"
    );
    assert_eq!(row_of(&summary, "Exit status")[1], Data::Float(10.0));
    assert_eq!(rows(&mut book, "All rows").len(), 2);
}

#[test]
fn on_a_terminal_it_is_exit_2_with_where_to_send_it() {
    for command in [
        "verify --sandbox SANDBOX-OK-1 -o xlsx",
        "reconcile --sandbox /nonexistent/orders.csv -o xlsx",
    ] {
        let out = on_terminal(command).output().unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{command}: {shown}");
        assert!(
            shown.contains(
                "payverify: -o xlsx writes a workbook, which a terminal cannot show: send it \
                 to a file (> file.xlsx)"
            ),
            "{command}: {shown}"
        );
        assert!(
            !shown.contains("PK"),
            "{command}: a workbook reached the terminal"
        );
    }
}

#[test]
fn a_signal_part_way_writes_the_rows_decided_under_an_incomplete_summary() {
    use crate::common::{
        Captured, SAMPLE, held_service, send_signal, spawnable_at, status_and_stderr,
        wait_for_signal_handlers,
    };
    let (server, arrived, answer) = held_service(SAMPLE.as_bytes().to_vec());
    let mut child = spawnable_at(&server.url)
        .args(["verify", "-j", "1", "--retries", "0", "-o", "xlsx", "--"])
        .args(["0000000000000044177", "SANDBOX-HELD-2"])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = Captured::start(child.stdout.take().unwrap());
    // The first is answered; the second is held when the signal comes.
    arrived.recv().unwrap();
    answer.send(()).unwrap();
    arrived.recv().unwrap();
    wait_for_signal_handlers(&child);
    send_signal(&child, "-INT");
    let (status, stderr) = status_and_stderr(child);
    assert_eq!(status.code(), Some(130), "{stderr}");
    let mut book = open(&stdout.finish());
    assert_eq!(
        book.sheet_names(),
        ["Summary (INCOMPLETE)", "Needs a look", "All rows"]
    );
    let all = rows(&mut book, "All rows");
    assert_eq!(
        all.len(),
        2,
        "the header and the one record decided: {all:?}"
    );
    assert_eq!(all[1][0], text("0000000000000044177"));
    let summary = rows(&mut book, "Summary (INCOMPLETE)");
    assert_eq!(row_of(&summary, "Exit status")[1], Data::Float(130.0));
}

#[test]
fn a_reader_that_leaves_before_the_workbook_is_whole_is_exit_10() {
    use crate::common::{spawnable, status_and_stderr};
    let mut child = spawnable()
        .args([
            "verify",
            "--sandbox",
            "-o",
            "xlsx",
            "SANDBOX-OK-1",
            "SANDBOX-OK-2",
        ])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The reader is gone before anything is written: the workbook is written at the end.
    drop(child.stdout.take());
    let (status, stderr) = status_and_stderr(child);
    assert_eq!(status.code(), Some(10), "{stderr}");
    assert!(
        stderr.contains(
            "payverify: output closed before the workbook was written whole, so its reader \
             did not get it (exit 10)"
        ),
        "{stderr}"
    );
}

/// What the second attack found: amounts from 2^52 kobo on were written a kobo off (two
/// kobo apart can be one double), a list with a line that is no reference said
/// "complete: every row of the input was decided", and a reader that left made the zip
/// crate print its own line on stderr, glued to payverify's.
#[test]
fn amounts_are_exact_or_text_and_a_skipped_line_is_not_called_complete() {
    let dir = TempDir::new("xlsx-attack");
    let file = dir.write(
        "orders.csv",
        "Order ID,Reference,Amount\n\
         1,SANDBOX-AMOUNT-7756689994076132-x,\"77,566,899,940,761.32\"\n\
         2,SANDBOX-AMOUNT-99999999999999-y,999999999999.99\n",
    );
    let out = payverify()
        .args(["reconcile", "--sandbox", "-o", "xlsx"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let mut book = open(&out.stdout);
    let all = rows(&mut book, "All rows");
    let header = all[0].clone();
    let big = cell(&header, row_of(&all, "1"), "gateway_amount");
    assert_eq!(*big, text("77566899940761.32"), "{all:?}");
    let exact = cell(&header, row_of(&all, "2"), "gateway_amount");
    assert_eq!(*exact, Data::Float(999_999_999_999.99), "{all:?}");

    let list = dir.write(
        "refs.txt",
        "SANDBOX-OK-1\nSANDBOX-FAILED-\u{1b}[2K-1\nSANDBOX-OK-3\n",
    );
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "xlsx", "--from"])
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let mut book = open(&out.stdout);
    let summary = rows(&mut book, "Summary");
    let status = &row_of(&summary, "Run")[1];
    let Data::String(status) = status else {
        panic!("{summary:?}")
    };
    assert!(
        status.starts_with("complete, but the input has lines"),
        "{status}"
    );
}

#[test]
fn a_reader_that_leaves_gets_payverifys_line_alone() {
    let refs: String = (0..3000).map(|i| format!("SANDBOX-OK-{i}\n")).collect();
    let dir = TempDir::new("xlsx-leaves");
    let list = dir.write("refs.txt", refs);
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' verify --sandbox -o xlsx --from '{}' 2>'{err}' | head -c 100 >/dev/null; \
             cat '{err}'",
            assert_cmd::cargo::cargo_bin("payverify").display(),
            list.display(),
            err = dir.path().join("err").display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!stderr.contains("ZipWriter"), "{stderr}");
    for line in stderr.lines() {
        assert!(line.starts_with("payverify: "), "{line:?} in {stderr}");
    }
}
