//! Issue 25: real shop exports and bank settlement files reconciled as they come,
//! with no column flags and no editing: a WooCommerce orders export and a card settlement
//! file (tests/data/), header aliases, title lines, currency columns (ISO 4217 alphabetic
//! and numeric), multi-line notes, a saved layout per profile, and the sandbox's WooCommerce
//! merchant references. Then rows that are not gateway payments (SKIPPED, NO_REFERENCE,
//! --only), one order on several rows (LINE_ITEM), the shop's order status against the
//! gateway's (PAID_SHOP_UNPAID, BOTH_UNPAID), the totals footer (TOTALS, TOTALS_MISMATCH) and
//! what finance reads (the table by order id, collected, naira columns, the BOM).

use serde_json::Value;

use crate::common::{TempDir, jsonl, payverify, stderr_of, stdout_of};

const WOOCOMMERCE: &str = include_str!("../data/woocommerce-orders.csv");
const SETTLEMENT: &str = include_str!("../data/card-settlement.csv");

/// `reconcile --sandbox FILE -o jsonl --summary-json summary.json ARGS` on `contents`, in a
/// fresh directory: the output, the rows, and the summary.
fn reconcile(contents: &str, args: &[&str]) -> (std::process::Output, Vec<Value>, Value) {
    let dir = TempDir::new("exports");
    dir.write("export.csv", contents);
    let out = payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "--retries", "0", "export.csv"])
        .args(["-o", "jsonl", "--summary-json", "summary.json"])
        .args(args)
        .output()
        .unwrap();
    let summary = std::fs::read_to_string(dir.path().join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let rows = jsonl(&out.stdout);
    (out, rows, summary)
}

/// Each row's line, the value of `column`, and its result.
fn results<'a>(rows: &'a [Value], column: &str) -> Vec<(u64, &'a str, &'a str)> {
    rows.iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["row"][column].as_str().unwrap(),
                r["result"].as_str().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_woocommerce_export_reconciles_with_no_flags_and_no_editing() {
    let (out, rows, summary) = reconcile(WOOCOMMERCE, &[]);
    let stderr = stderr_of(&out);
    // A row that failed its checks (4) is the most severe: never hidden behind NOT_FINAL (9).
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    // Found by name: Transaction ID, Order Total Amount, Order Currency; no warning about
    // columns, and no empty currency cell.
    assert!(!stderr.contains("warning"), "{stderr}");
    let got = results(&rows, "Order Number");
    let want: Vec<(u64, &str, &str)> = vec![
        (2, "4101", "MATCHED"),
        // The customer note spans lines 3 and 4 ("call first<CR><LF>then, leave at gate").
        (3, "4102", "MATCHED"),
        // Cash on delivery, bank transfer, and an order cancelled before paying: no
        // Transaction ID, another payment method: SKIPPED (not at risk, exit unaffected).
        (5, "4103", "SKIPPED"),
        (6, "4104", "SKIPPED"),
        // One order on three rows (one per item), its total on each: one order, one
        // result, on its first row; the rows below it are its line items.
        (7, "4105", "MATCHED"),
        (8, "4105", "LINE_ITEM"),
        (9, "4105", "LINE_ITEM"),
        // A USD order: the gateway answers in NGN (issue 25 item 2: it was MATCHED).
        (10, "4106", "CURRENCY_MISMATCH"),
        // Failed in the shop, FAILED at the gateway: both agree, nothing at risk.
        (11, "4107", "BOTH_UNPAID"),
        (12, "4108", "SKIPPED"),
        (13, "4109", "UNDERPAID"),
        (14, "4110", "NOT_FINAL"),
        // Cancelled in the shop, paid at the gateway: money taken for an order that will
        // not ship (a refund or a re-opened order is due).
        (15, "4111", "PAID_SHOP_UNPAID"),
        (16, "4112", "MATCHED"),
        (17, "4112", "LINE_ITEM"),
        // Another two-line note, whose second line holds a comma.
        (18, "4113", "MATCHED"),
        (20, "4114", "MATCHED"),
        (21, "4115", "MATCHED"),
        (22, "4115", "LINE_ITEM"),
        (23, "4116", "MATCHED"),
        (24, "4117", "MATCHED"),
        (25, "4118", "SKIPPED"),
        (26, "4119", "MATCHED"),
        (27, "4120", "MATCHED"),
        (28, "4120", "LINE_ITEM"),
        (29, "4121", "MATCHED"),
        (30, "4122", "MATCHED"),
        (31, "4123", "MATCHED"),
        (32, "4124", "MATCHED"),
        (33, "4124", "LINE_ITEM"),
        (34, "4125", "MATCHED"),
        (35, "4126", "MATCHED"),
        (36, "4127", "MATCHED"),
        (37, "4128", "MATCHED"),
        (38, "4128", "LINE_ITEM"),
        (39, "4129", "MATCHED"),
        (40, "4130", "MATCHED"),
        (41, "4130", "LINE_ITEM"),
        // Paid through the gateway, says its payment method, yet no Transaction ID (the
        // payment page never came back): nothing to verify it by, a person must look.
        (42, "4131", "NO_REFERENCE"),
        // A customer who replayed order 4116's payment page return for another order: one
        // payment never pays two orders.
        (43, "4132", "DUPLICATE"),
        // Cancelled after the card was declined: both unpaid.
        (44, "4133", "BOTH_UNPAID"),
        // Refunded in the shop, the payment SUCCESSFUL at the gateway: finance confirms the
        // refund went out.
        (45, "4134", "PAID_SHOP_UNPAID"),
        // Completed (shipped) in the shop, FAILED at the gateway: at risk.
        (46, "4135", "FAILED"),
    ];
    assert_eq!(got, want, "{stderr}");
    assert_eq!(
        rows[2]["error"], "not a gateway payment: no reference, \"Payment Method\" is \"cod\"",
        "{}",
        rows[2]
    );
    assert_eq!(
        rows[38]["error"],
        "no reference, but the payment method is the gateway (\"Payment Method\" \
         \"paywithbank3d\"): nothing to verify this order's payment by"
    );
    // A skipped row is never asked about: no answer, no gateway figures.
    for row in rows.iter().filter(|r| r["result"] == "SKIPPED") {
        assert_eq!(row["response"], Value::Null, "{row}");
        assert_eq!(row["gateway_status"], Value::Null, "{row}");
    }
    assert!(stderr.contains(", 4 SKIPPED"), "{stderr}");
    assert!(stderr.contains("payverify: 43 rows in "), "{stderr}");
    assert!(
        stderr.contains(
            ": 21 MATCHED, 1 UNDERPAID, 1 CURRENCY_MISMATCH, 2 PAID_SHOP_UNPAID, 1 FAILED, 2 \
             BOTH_UNPAID, 1 NOT_FINAL, 1 DUPLICATE, 8 LINE_ITEM, 1 NO_REFERENCE, 4 SKIPPED\n"
        ),
        "{stderr}"
    );
    assert_eq!(
        rows[12]["error"],
        "paid at the gateway (SUCCESSFUL ₦10,500.00), but the shop's order status says not \
         paid: money taken for an order that will not ship (refund it, or re-open the order)"
    );
    assert_eq!(rows[12]["gateway_status"], "SUCCESSFUL");
    assert_eq!(
        rows[8]["error"],
        "FAILED at the gateway, and the shop's order status says not paid: both agree, \
         nothing is at risk"
    );
    assert_eq!(
        rows[6]["error"],
        "a line item of order \"4105\" (line 7): one order, one result, its total and result \
         on line 7"
    );
    assert_eq!(
        rows[39]["error"],
        "reference 4116_1795251783_700000 is already on line 23, verified there"
    );
    // A line item is never asked about: its order's row was.
    for row in rows.iter().filter(|r| r["result"] == "LINE_ITEM") {
        assert_eq!(row["response"], Value::Null, "{row}");
    }
    assert!(stderr.contains(", 1 NO_REFERENCE"), "{stderr}");
    assert_eq!(
        rows[1]["row"]["Customer Note"],
        "call first\r\nthen, leave at gate"
    );
    assert_eq!(
        rows[7]["error"], "expected currency USD, service says NGN",
        "{}",
        rows[7]
    );
    // The expected amount is the order total with its thousands separators, exactly.
    assert_eq!(rows[0]["expected_amount_kobo"], 1_450_000);
    assert_eq!(
        rows[10]["error"],
        "underpaid by ₦500.00 (50000 kobo): the gateway has ₦46,000.00, the row expects ₦46,500.00"
    );
    // Totals: each order's total once (the line items' rows add nothing); the four skipped
    // orders (₦59,800.00) are counted apart and are not at risk, nor are the two both
    // unpaid. At risk: UNDERPAID ₦46,500, PAID_SHOP_UNPAID ₦10,500 and ₦22,000, FAILED
    // ₦6,500, NOT_FINAL ₦27,500, NO_REFERENCE ₦15,000, DUPLICATE ₦7,000.
    assert_eq!(summary["rows"], 43, "{summary}");
    assert_eq!(summary["complete"], true);
    assert_eq!(summary["input_error"], Value::Null);
    assert_eq!(summary["matched_total_kobo"], 55_480_000, "{summary}");
    assert_eq!(summary["expected_total_kobo"], 80_560_000, "{summary}");
    assert_eq!(summary["results"]["BOTH_UNPAID"]["rows"], 2, "{summary}");
    assert_eq!(
        summary["results"]["PAID_SHOP_UNPAID"]["rows"], 2,
        "{summary}"
    );
    assert_eq!(summary["results"]["LINE_ITEM"]["rows"], 8, "{summary}");
    assert_eq!(
        summary["results"]["LINE_ITEM"]["expected_kobo"], 0,
        "{summary}"
    );
    assert_eq!(summary["skipped_total_kobo"], 5_980_000, "{summary}");
    assert_eq!(summary["skipped_total_naira"], "59800.00", "{summary}");
    assert_eq!(summary["results"]["SKIPPED"]["rows"], 4, "{summary}");
    assert_eq!(summary["results"]["NO_REFERENCE"]["rows"], 1, "{summary}");
    assert_eq!(summary["at_risk_kobo"], 13_500_000, "{summary}");
    let usd = &summary["other_currencies"]["USD"];
    assert_eq!(usd["results"]["CURRENCY_MISMATCH"]["rows"], 1, "{summary}");
    assert_eq!(usd["expected_total_minor"], 8_500, "{summary}");
}

#[test]
fn the_woocommerce_export_round_trips_through_csv_output() {
    // -o csv writes every row back with its own cells: the two-line note stays one cell
    // (its line end shown escaped, as every control character in output is), the formula
    // typed as a note is defused, and a spreadsheet reader gets 43 rows.
    let dir = TempDir::new("exports-csv");
    let file = dir.write("export.csv", WOOCOMMERCE);
    let out = payverify()
        .args(["reconcile", "--sandbox", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header = reader.headers().unwrap().clone();
    assert_eq!(&header[0], "Order Number", "the BOM is not part of it");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 43);
    let note = header.iter().position(|h| h == "Customer Note").unwrap();
    let result = header.iter().position(|h| h == "result").unwrap();
    // The note as the export wrote it, its CRLF inside the quoted cell (issue 38 item 8).
    assert_eq!(&records[1][note], "call first\r\nthen, leave at gate");
    assert_eq!(&records[1][result], "MATCHED");
    let formula = records.iter().find(|r| &r[0] == "4117").unwrap();
    assert!(
        formula[note].starts_with("'=HYPERLINK("),
        "{:?}",
        &formula[note]
    );
}

#[test]
fn only_limits_the_run_and_skips_the_rest() {
    // Processing orders numbered 411x: 4113, 4114, 4116 and 4117, all paid; every other
    // row (the FAILED, NOT_FINAL, UNDERPAID ones included) is SKIPPED and asks nothing.
    let (out, rows, summary) = reconcile(
        WOOCOMMERCE,
        &[
            "--only",
            "order number=411*",
            "--only",
            "Order Status=PROCESSING",
        ],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let asked: Vec<&str> = rows
        .iter()
        .filter(|r| r["result"] != "SKIPPED")
        .map(|r| r["row"]["Order Number"].as_str().unwrap())
        .collect();
    assert_eq!(asked, ["4113", "4114", "4116", "4117"], "{stderr}");
    assert!(
        rows.iter()
            .filter(|r| r["result"] != "SKIPPED")
            .all(|r| r["result"] == "MATCHED")
    );
    assert_eq!(rows.len(), 43);
    assert_eq!(
        rows[0]["error"], "left out by --only \"order number\"=\"411*\"",
        "{}",
        rows[0]
    );
    assert_eq!(
        rows[11]["error"], "left out by --only \"Order Status\"=\"PROCESSING\"",
        "{}",
        rows[11]
    );
    assert_eq!(summary["results"]["SKIPPED"]["rows"], 38, "{summary}");
    let usd = &summary["other_currencies"]["USD"];
    assert_eq!(usd["results"]["SKIPPED"]["rows"], 1, "{summary}");
    assert_eq!(usd["skipped_total_minor"], 8_500, "{summary}");
    assert_eq!(summary["at_risk_kobo"], 0, "{summary}");
    assert!(stderr.contains("4 MATCHED, 39 SKIPPED"), "{stderr}");

    // Without it the same file is exit 4: the filter is what made it 0.
    let (out, ..) = reconcile(WOOCOMMERCE, &[]);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn only_that_matches_nothing_or_names_no_column_is_never_exit_0() {
    // A typo in the pattern: every row SKIPPED, nothing verified: exit 2, said.
    let (out, rows, summary) = reconcile(WOOCOMMERCE, &["--only", "Order Status=Procesing"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(rows.iter().all(|r| r["result"] == "SKIPPED"));
    assert!(
        stderr.contains("payverify: --only matched no row of export.csv: nothing was reconciled"),
        "{stderr}"
    );
    assert_eq!(summary["exit_code"], 2, "{summary}");
    // A column the header does not have, and no COLUMN= at all: exit 2 before any request,
    // nothing on stdout; the value is shown escaped.
    for (only, want) in [
        (
            "Order Stat\u{1b}[31m=Processing",
            "payverify: --only \"Order Stat\\e[31m\": no column is named that in export.csv; its header row has \"Order Number\", \"Order Status\"",
        ),
        (
            "--help",
            "payverify: --only: expected COLUMN=PATTERN, such as \"Payment Method=paywithbank3d\"",
        ),
        (
            "=cod",
            "payverify: --only: expected COLUMN=PATTERN, such as \"Payment Method=paywithbank3d\"",
        ),
    ] {
        let (out, rows, _) = reconcile(WOOCOMMERCE, &[&format!("--only={only}")]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{only:?}: {stderr}");
        assert!(rows.is_empty(), "{only:?}");
        assert!(stderr.starts_with(want), "{only:?}: {stderr}");
        assert!(!stderr.contains('\u{1b}'), "{stderr}");
    }
}

#[test]
fn a_row_with_no_reference_is_skipped_only_when_paid_another_way() {
    let export = "Order Number,Payment Method,Transaction ID,Order Total Amount\n\
                  1,cod,,100.00\n\
                  2,  Cash on delivery ,\t ,100.00\n\
                  3,paywithbank3d,,100.00\n\
                  4,PAYWITHBANK3D (Card),,100.00\n\
                  5,,,100.00\n\
                  6,cod,,not an amount\n\
                  7,cod,,100.00,extra\n\
                  8,cod,SANDBOX-OK-40000,40000\n";
    let (out, rows, summary) = reconcile(export, &[]);
    let stderr = stderr_of(&out);
    let got = results(&rows, "Order Number");
    assert_eq!(
        got,
        [
            (2, "1", "SKIPPED"),
            // Spaces, a tab and the CR around an empty reference are nothing.
            (3, "2", "SKIPPED"),
            (4, "3", "NO_REFERENCE"),
            (5, "4", "NO_REFERENCE"),
            // No method to tell it by: an empty reference is a bad row, as before.
            (6, "5", "INVALID_ROW"),
            // A skipped row needs no amount to be skipped.
            (7, "6", "SKIPPED"),
            // A row whose cells may be shifted is never skipped by one of them.
            (8, "7", "INVALID_ROW"),
            // A reference is verified whatever the method says.
            (9, "8", "MATCHED"),
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(summary["skipped_total_kobo"], 20_000, "{summary}");
    // Without the NO_REFERENCE and INVALID_ROW rows, the skipped ones leave exit 0.
    let clean: String = export
        .lines()
        .enumerate()
        .filter(|(i, _)| [0, 1, 2, 6, 8].contains(i))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let (out, rows, _) = reconcile(&clean, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(rows.len(), 4);
}

#[test]
fn one_order_on_several_rows_is_one_result_and_one_reference_on_two_orders_is_not() {
    let export = "Order Number,Transaction ID,Order Total Amount\n\
                  1,SANDBOX-OK-1,40000\n\
                  1,SANDBOX-OK-1,40000\n\
                  \" 1 \",SANDBOX-OK-1,\"40,000.00\"\n\
                  2,SANDBOX-OK-1,40000\n\
                  1,SANDBOX-OK-1,40000\n\
                  3,SANDBOX-FAILED-3,40000\n\
                  3,SANDBOX-FAILED-3,40000\n\
                  4,SANDBOX-OK-4,40000\n\
                  4,SANDBOX-OK-4,39000\n\
                  ,SANDBOX-OK-5,40000\n\
                  ,SANDBOX-OK-5,40000\n\
                  6,SANDBOX-OK-6,4O000\n\
                  6,SANDBOX-OK-6,40000\n\
                  6,SANDBOX-OK-6,40000\n";
    let (out, rows, summary) = reconcile(export, &[]);
    let stderr = stderr_of(&out);
    let got: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (2, "MATCHED"),
            // The same order id (spaces aside), reference and total, right below.
            (3, "LINE_ITEM"),
            (4, "LINE_ITEM"),
            // Another order with the same reference: one payment, one order.
            (5, "DUPLICATE"),
            // Order 1 again, but not right below its rows: not told from a second order.
            (6, "DUPLICATE"),
            // A FAILED order is one FAILED result; its line item adds nothing.
            (7, "FAILED"),
            (8, "LINE_ITEM"),
            // The same order and reference with another total contradicts itself.
            (9, "MATCHED"),
            (10, "DUPLICATE"),
            // No order id: nothing says the two rows are one order.
            (11, "MATCHED"),
            (12, "DUPLICATE"),
            // A row that could not be asked about has no line items: the next is asked.
            (13, "INVALID_ROW"),
            (14, "MATCHED"),
            (15, "LINE_ITEM"),
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    // Each order's total once: rows 2, 5, 6, 7, 9, 10, 11, 12 and 14 (13's cannot be read).
    assert_eq!(
        summary["expected_total_kobo"],
        8 * 4_000_000 + 3_900_000,
        "{summary}"
    );
    assert_eq!(summary["results"]["LINE_ITEM"]["rows"], 4, "{summary}");
    assert_eq!(summary["matched_total_kobo"], 4 * 4_000_000, "{summary}");
    // Only the rows asked about reached the gateway, each once.
    assert!(
        stderr.contains("4 MATCHED, 1 FAILED, 4 DUPLICATE, 4 LINE_ITEM, 1 INVALID_ROW"),
        "{stderr}"
    );

    // An export of whole orders only (every order paid, some on several rows) is exit 0.
    let clean = "Order Number,Transaction ID,Order Total Amount\n\
                 1,SANDBOX-OK-1,40000\n1,SANDBOX-OK-1,40000\n2,SANDBOX-OK-2,40000\n";
    let (out, rows, _) = reconcile(clean, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(rows[1]["result"], "LINE_ITEM");
}

#[test]
fn shop_status_against_gateway_status() {
    let export = "Order Number,Order Status,Transaction ID,Order Total Amount\n\
                  1,Cancelled,SANDBOX-OK-1,40000\n\
                  2,wc-pending,SANDBOX-AMOUNT-3950000-2,40000\n\
                  3,Failed,SANDBOX-FAILED-3,40000\n\
                  4,Processing,SANDBOX-FAILED-4,40000\n\
                  5,Completed,SANDBOX-OK-5,40000\n\
                  6,Draft,SANDBOX-OK-6,40000\n\
                  7,Refunded,SANDBOX-PENDING-7,40000\n\
                  8,Cancelled,NO-SUCH-PAYMENT-8,40000\n";
    let (out, rows, summary) = reconcile(export, &[]);
    let stderr = stderr_of(&out);
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            // Paid at the gateway, not paid in the shop, underpaid or not.
            "PAID_SHOP_UNPAID",
            "PAID_SHOP_UNPAID",
            "BOTH_UNPAID",
            // Paid in the shop, FAILED at the gateway: at risk, as before.
            "FAILED",
            "MATCHED",
            // A status word the reader does not know: the gateway's result alone.
            "MATCHED",
            // Not final, not found: the gateway's result stands.
            "NOT_FINAL",
            "NOT_FOUND",
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(rows[1]["difference_kobo"], -50_000);
    // At risk: rows 1, 2, 4, 7 and 8 (₦40,000 each), never row 3.
    assert_eq!(summary["at_risk_kobo"], 5 * 4_000_000, "{summary}");

    // Without the rows a person must look at, both unpaid leaves exit 0.
    let agree = "Order Number,Order Status,Transaction ID,Order Total Amount\n\
                 3,Failed,SANDBOX-FAILED-3,40000\n5,Completed,SANDBOX-OK-5,40000\n";
    let (out, _, _) = reconcile(agree, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn a_trailing_totals_row_is_checked_never_asked_and_one_further_up_is_a_row() {
    const SETTLEMENT_HEAD: usize = 8;
    // The settlement file with one row's amount changed: the footer no longer adds up.
    let changed = SETTLEMENT.replacen("\"14,500.00\"", "\"14,000.00\"", 1);
    assert_ne!(changed, SETTLEMENT);
    let (out, rows, summary) = reconcile(&changed, &[]);
    let stderr = stderr_of(&out);
    let footer = rows.last().unwrap();
    assert_eq!(footer["result"], "TOTALS_MISMATCH", "{stderr}");
    assert_eq!(
        footer["error"],
        "the file's totals row says ₦371,100.00, but the rows above in NGN sum to ₦370,600.00 \
         (a row missing, added or changed?)"
    );
    // Row 1 is OVERPAID now (exit 4 either way); the footer is never counted.
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    // (The declined payment's ₦38,000.00 is no expected money: issue 38 item 7.)
    assert_eq!(summary["expected_total_kobo"], 33_260_000, "{summary}");
    assert_eq!(rows.len(), 16);
    assert!(rows.len() > SETTLEMENT_HEAD);

    // A matching footer with nothing else wrong is exit 0; blank lines after it are
    // nothing; TOTALS, Grand Total and "Totals:" are each read as the label.
    for label in ["TOTAL", "Grand Total", "Totals:"] {
        let file = format!(
            "S/N,Ref,Amount,Currency\n1,SANDBOX-OK-1,40000,566\n2,SANDBOX-OK-2,\"40,000.00\",NGN\n\
             3,SANDBOX-OK-3,85,USD\n{label},,\"80,000.00\",566\n\n\n"
        );
        let (out, rows, summary) = reconcile(&file, &["--no-currency-column"]);
        let _ = summary;
        let stderr = stderr_of(&out);
        // (Under --no-currency-column every row is NGN: 85 naira is OVERPAID at the gateway.)
        assert_eq!(rows.len(), 4, "{label}: {stderr}");
        assert_eq!(rows[3]["result"], "TOTALS_MISMATCH", "{label}: {stderr}");
        let (out, rows, summary) = reconcile(&file, &[]);
        let stderr = stderr_of(&out);
        assert_eq!(rows[3]["result"], "TOTALS", "{label}: {stderr}");
        assert_eq!(summary["expected_total_kobo"], 8_000_000, "{summary}");
        // The USD row's CURRENCY_MISMATCH is the only row that needs a look.
        assert_eq!(out.status.code(), Some(4), "{label}: {stderr}");
    }

    // A "Total" row with rows below it is no footer: a row with no reference, as before.
    let middle = "S/N,Ref,Amount\n1,SANDBOX-OK-1,40000\nTotal,,40000\n2,SANDBOX-OK-2,40000\n";
    let (out, rows, _) = reconcile(middle, &[]);
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(got, ["MATCHED", "INVALID_ROW", "MATCHED"]);
    assert_eq!(out.status.code(), Some(2));
    // A last row with a reference is asked about, whatever its label says; and "Total" as
    // the reference (the customer's to choose) is a reference, never a footer, even when
    // its amount is the sum of the rows above.
    let labelled = "Label,Ref,Amount\nx,SANDBOX-OK-1,40000\nTotal,SANDBOX-OK-2,40000\n";
    let (out, rows, _) = reconcile(labelled, &[]);
    assert_eq!(rows[1]["result"], "MATCHED");
    assert_eq!(out.status.code(), Some(0));
    let customer = "Ref,Amount\nSANDBOX-OK-1,40000\nTotal,40000\n";
    let (out, rows, _) = reconcile(customer, &[]);
    assert_eq!(rows[1]["result"], "NOT_FOUND");
    assert_eq!(out.status.code(), Some(3));
    // A last "Total" row followed by a line the reader refuses: the row is judged as a row,
    // then the run stops incomplete, as before.
    let cut = "S/N,Ref,Amount\n1,SANDBOX-OK-1,40000\nTotal,,40000\n\"2,SANDBOX-OK-2,40000\n";
    let (out, rows, summary) = reconcile(cut, &[]);
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(got, ["MATCHED", "INVALID_ROW"], "{}", stderr_of(&out));
    assert_eq!(summary["complete"], false, "{summary}");
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn what_finance_reads_table_by_order_collected_naira_columns_and_bom() {
    // The table leads with the Order Number; every row that is not a clean MATCHED is in
    // it, with its checks, an hmac-warned MATCHED one too (--hmac warn, the default);
    // line items and clean matches are not.
    let mut export = WOOCOMMERCE.to_owned();
    export.push_str(
        "4136,Processing,2026-11-21 12:40:00,,Kunle,Bello,1 Broad Street,Lagos Island,Lagos,\
         +234 8036 555 413,kunle.bello@example.com,paywithbank3d,PayWithBank3D,\
         SANDBOX-BADHMAC-4136,NGN,\"38,000.00\",\"2,000.00\",\"40,000.00\",1,Aso-oke cap,2,\
         \"18,000.00\"\r\n",
    );
    let dir = TempDir::new("exports-finance");
    let file = dir.write("export.csv", &export);
    let out = payverify()
        .args(["reconcile", "--sandbox", "--summary-json"])
        .arg(dir.path().join("summary.json"))
        .arg(&file)
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("Order Number  Line  Reference"),
        "{stdout}"
    );
    assert!(lines[0].contains("  Checks  "), "{stdout}");
    let listed: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            "4103", "4104", "4106", "4107", "4108", "4109", "4110", "4111", "4118", "4131", "4132",
            "4133", "4134", "4135", "4136"
        ],
        "{stdout}"
    );
    let warned = lines.iter().find(|l| l.starts_with("4136")).unwrap();
    assert!(warned.contains("MATCHED"), "{warned}");
    assert!(warned.contains("hmac MISMATCH"), "{warned}");
    // Totals: collected is what the gateway has as SUCCESSFUL (naira rows): MATCHED
    // ₦554,800 + ₦40,000 (4136), UNDERPAID's ₦46,000, PAID_SHOP_UNPAID ₦10,500 + ₦22,000.
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["collected_total_kobo"], 67_330_000, "{summary}");
    assert_eq!(summary["collected_total_naira"], "673300.00", "{summary}");
    assert!(
        stderr.contains("Collected (SUCCESSFUL at the gateway)"),
        "{stderr}"
    );

    // -o csv: naira beside kobo, exact, naira rows only; the input's BOM starts the output
    // (Excel), --no-bom leaves it out, --bom adds it to a file that had none.
    let csv_of = |file: &std::path::Path, extra: &[&str]| {
        let out = payverify()
            .args(["reconcile", "--sandbox", "-o", "csv"])
            .args(extra)
            .arg(file)
            .output()
            .unwrap();
        out.stdout
    };
    let with_bom = csv_of(&file, &[]);
    assert!(with_bom.starts_with("\u{feff}Order Number,".as_bytes()));
    let text = String::from_utf8(with_bom.clone()).unwrap();
    let underpaid = text.lines().find(|l| l.starts_with("4109,")).unwrap();
    assert!(
        underpaid.contains(
            ",UNDERPAID,-50000,-500.00,SUCCESSFUL,00,4600000,46000.00,4650000,46500.00,NGN,"
        ),
        "{underpaid}"
    );
    let usd = text.lines().find(|l| l.starts_with("4106,")).unwrap();
    assert!(usd.contains(",8500,,NGN,"), "{usd}");
    let without = csv_of(&file, &["--no-bom"]);
    assert_eq!(&without[..], &with_bom[3..]);
    let plain = dir.write("plain.csv", export.replacen('\u{feff}', "", 1));
    assert!(csv_of(&plain, &[]).starts_with(b"Order Number,"));
    assert!(csv_of(&plain, &["--bom"]).starts_with("\u{feff}Order Number,".as_bytes()));
    // The last of --bom and --no-bom wins; never a BOM in jsonl.
    assert!(csv_of(&file, &["--no-bom", "--bom"]).starts_with("\u{feff}".as_bytes()));
    let out = payverify()
        .args(["reconcile", "--sandbox", "-o", "jsonl", "--bom"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.stdout.starts_with(b"{"));
}

#[test]
fn a_card_settlement_file_reconciles_past_its_title_lines() {
    let (out, rows, summary) = reconcile(SETTLEMENT, &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(
            "export.csv: the header row is line 8; the 7 lines above it are skipped (title \
             lines, not rows)"
        ),
        "{stderr}"
    );
    let got = results(&rows, "S/N");
    let mut want: Vec<(u64, &str, &str)> = Vec::new();
    let numbers = [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    for (i, n) in numbers.iter().enumerate() {
        let result = match *n {
            // Currency 840: a USD card payment; the gateway answers in NGN.
            "4" => "CURRENCY_MISMATCH",
            // Declined at the card network (Response Code 51), and the bank's Status says
            // Declined: both unpaid.
            "5" => "BOTH_UNPAID",
            _ => "MATCHED",
        };
        want.push((i as u64 + 9, n, result));
    }
    // The TOTAL footer row: recognised, checked against the rows above (₦371,100.00, the
    // NGN rows' Transaction Amount), never asked about and never counted.
    want.push((24, "TOTAL", "TOTALS"));
    assert_eq!(got, want, "{stderr}");
    // The reference asked is the Transaction Ref (never the RRN), and 566 is read as NGN:
    // each MATCHED answer is for that reference, in naira.
    for row in rows.iter().filter(|r| r["result"] == "MATCHED") {
        // The sandbox answers the reference asked as the paymentRef, and its WooCommerce
        // part as the merchantRef.
        assert_eq!(row["response"]["paymentRef"], row["row"]["Transaction Ref"]);
        let asked = row["row"]["Transaction Ref"].as_str().unwrap();
        assert!(
            asked.starts_with(&format!(
                "{}_",
                row["response"]["merchantRef"].as_str().unwrap()
            )),
            "{row}"
        );
        assert_eq!(row["row"]["Currency"], "566");
        assert_eq!(row["gateway_currency"], "NGN");
        // The gross is compared: the Settlement Amount (net of the fee) is less.
        assert_ne!(
            row["row"]["Settlement Amount"],
            row["row"]["Transaction Amount"]
        );
    }
    assert_eq!(rows[0]["expected_amount_kobo"], 1_450_000);
    assert_eq!(summary["matched_total_kobo"], 33_310_000, "{summary}");
    // The footer's ₦371,100.00 is not counted again, nor at risk; nor is the declined
    // payment's ₦38,000.00, which the file itself says failed (issue 38 item 7).
    assert_eq!(summary["expected_total_kobo"], 33_310_000, "{summary}");
    assert_eq!(
        summary["results"]["BOTH_UNPAID"]["expected_kobo"], 0,
        "{summary}"
    );
    assert_eq!(summary["at_risk_kobo"], 0, "{summary}");
    assert_eq!(
        summary["results"]["TOTALS"]["expected_kobo"], 0,
        "{summary}"
    );
    let footer = rows.last().unwrap();
    assert_eq!(
        footer["error"],
        "the file's totals row: ₦371,100.00, the sum of the rows above in NGN; never sent to \
         the service, not counted again"
    );
    assert_eq!(footer["response"], Value::Null);
    assert!(stderr.contains(", 1 TOTALS\n"), "{stderr}");
    assert_eq!(
        summary["other_currencies"]["USD"]["results"]["CURRENCY_MISMATCH"]["rows"],
        1
    );
    // -v says which column is which.
    let dir = TempDir::new("exports-v");
    let file = dir.write("s.csv", SETTLEMENT);
    let out = payverify()
        .args(["-v", "reconcile", "--sandbox", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        stderr_of(&out).contains(
            "s.csv: header row on line 8: reference column 9 (\"Transaction Ref\"), amount \
             column 11 (\"Transaction Amount\"), currency column 10 (\"Currency\"), order \
             status column 15 (\"Status\")"
        ),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn header_row_names_the_line_and_a_wrong_one_is_one_clear_error() {
    let (out, rows, _) = reconcile(SETTLEMENT, &["--header-row", "8"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert_eq!(rows.len(), 16);
    // Without --header-row the same file gives the same rows.
    let (_, auto, _) = reconcile(SETTLEMENT, &[]);
    assert_eq!(results(&rows, "S/N"), results(&auto, "S/N"));
    for (line, says) in [
        ("1", "its header row (line 1) has \"LAGOON BANK PLC\""),
        (
            "7",
            "export.csv line 7 is blank; --header-row names the line",
        ),
        ("99", "has 24 lines; --header-row 99 is past its end"),
    ] {
        let (out, rows, summary) = reconcile(SETTLEMENT, &["--header-row", line]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{line}: {stderr}");
        assert!(stderr.contains(says), "{line}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{line}: {stderr}");
        assert!(rows.is_empty() && summary.is_null(), "{line}");
    }
    for bad in ["0", "-1", "x"] {
        let (out, _, _) = reconcile(SETTLEMENT, &["--header-row", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(stdout_of(&out), "", "{bad}");
    }
}

#[test]
fn every_missing_column_is_named_at_once_with_the_headers_seen() {
    let (out, rows, _) = reconcile(
        "S/N,RRN,Terminal ID,Settlement Amount,Status\n1,633200244531,T1,\"14,282.50\",Approved\n",
        &[],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(rows.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for needle in [
        "export.csv: no reference column and no amount column",
        "\"RRN\" is the card network's retrieval reference number, not the gateway's reference",
        "\"Settlement Amount\" is net of the card fee",
        "its header row (line 1) has \"S/N\", \"RRN\", \"Terminal ID\", \"Settlement Amount\", \"Status\"",
        "name the columns with --reference-column NAME and --amount-column NAME",
    ] {
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    // A hostile header cannot reach the terminal raw, in the list of names either.
    let (out, _, _) = reconcile("Order,\u{1b}]0;owned\u{7}Total\n1,2\n", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr_of(&out).contains('\u{1b}'), "{}", stderr_of(&out));
    // RRN named by the user is their choice: it is used.
    let (out, rows, _) = reconcile(
        "RRN,Settlement Amount\nSANDBOX-OK-1,40000\n",
        &[
            "--reference-column",
            "RRN",
            "--amount-column",
            "Settlement Amount",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(rows[0]["result"], "MATCHED");
}

#[test]
fn header_names_match_whatever_their_case_spacing_punctuation_or_suffix() {
    for header in [
        "TRANSACTION-ID,Order Total (NGN),order_currency",
        "transaction_id,ORDER_TOTAL,Order Currency (Billing)",
        " Txn Ref ,Transaction Amount (₦),CCY",
        "Payment Reference,Total,Currency",
        "Txn. Ref.,Amount:,Currency #",
        "Transaction/Ref,Order Total.,CURRENCY CODE",
    ] {
        let text = format!("{header}\nSANDBOX-OK-1,\"40,000.00\",566\n");
        let (out, rows, _) = reconcile(&text, &[]);
        assert_eq!(out.status.code(), Some(0), "{header}: {}", stderr_of(&out));
        assert_eq!(rows[0]["result"], "MATCHED", "{header}");
    }
}

#[test]
fn a_currency_column_is_always_honoured() {
    let text = "Reference,Amount,Order Currency\n\
                SANDBOX-OK-1,40000,566\n\
                SANDBOX-OK-2,40000,USD\n\
                SANDBOX-OK-3,40000,840\n\
                SANDBOX-OK-4,40000,XYZ\n\
                SANDBOX-OK-5,40000,\n\
                SANDBOX-OK-6,40000,ngn\n";
    let (out, rows, _) = reconcile(text, &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(
        results(&rows, "Order Currency"),
        [
            (2, "566", "MATCHED"),
            (3, "USD", "CURRENCY_MISMATCH"),
            (4, "840", "CURRENCY_MISMATCH"),
            (5, "XYZ", "INVALID_ROW"),
            (6, "", "MATCHED"),
            (7, "ngn", "MATCHED"),
        ]
    );
    assert_eq!(
        rows[3]["error"],
        "currency \"XYZ\" is not an ISO 4217 currency code (such as NGN, or 566 as settlement files write it)"
    );
    // The empty cell fell back to --currency, and the run says so.
    assert!(
        stderr.contains(
            "warning: export.csv: 1 row has an empty \"Order Currency\" cell (line 6); it \
             expects NGN (--currency)"
        ),
        "{stderr}"
    );
    // --no-currency-column: the column is not read; every row expects --currency.
    let (out, rows, _) = reconcile(text, &["--no-currency-column"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(rows.iter().all(|r| r["result"] == "MATCHED"));
    assert!(!stderr_of(&out).contains("warning"), "{}", stderr_of(&out));
    let (out, rows, _) = reconcile(text, &["--no-currency-column", "--currency", "840"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert!(rows.iter().all(|r| r["result"] == "CURRENCY_MISMATCH"));
    // A flag that is no code, or both flags at once, is a usage error before anything.
    for args in [
        &["--currency", "XYZ"][..],
        &["--currency", "5660"],
        &[
            "--no-currency-column",
            "--currency-column",
            "Order Currency",
        ],
    ] {
        let (out, rows, _) = reconcile(text, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(rows.is_empty(), "{args:?}");
    }
}

/// The issue's note, `"call first<CR><LF>then, leave at gate"`, on the second of five
/// orders; the last three are FAILED, unknown and underpaid, so a run that stopped at the
/// note would have hidden them.
const NOTE_FILE: &str = "Order Number,Customer Note,Transaction ID,Order Total Amount\r\n\
    5001,,5001_1795244531_1450000,\"14,500.00\"\r\n\
    5002,\"call first\r\nthen, leave at gate\",5002_1795244980_2000000,\"20,000.00\"\r\n\
    5003,,5003_1795245000_1000000_FAILED,\"10,000.00\"\r\n\
    5004,,NO-SUCH-5004,\"5,000.00\"\r\n\
    5005,,5005_1795245100_1000000,\"10,500.00\"\r\n";

#[test]
fn a_multi_line_customer_note_reconciles_every_row() {
    for args in [&[][..], &["-q"]] {
        let (out, rows, summary) = reconcile(NOTE_FILE, args);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {}", stderr_of(&out));
        assert_eq!(
            results(&rows, "Order Number"),
            [
                (2, "5001", "MATCHED"),
                (3, "5002", "MATCHED"),
                (5, "5003", "FAILED"),
                (6, "5004", "NOT_FOUND"),
                (7, "5005", "UNDERPAID"),
            ],
            "{args:?}"
        );
        assert_eq!(
            (
                &summary["rows"],
                &summary["complete"],
                &summary["input_error"]
            ),
            (&Value::from(5), &Value::from(true), &Value::Null),
            "{args:?}"
        );
    }
}

#[test]
fn a_stray_quote_still_stops_the_run_naming_the_lines_even_under_q() {
    // A note whose closing quote is missing: the quote runs on to the next quote in the
    // file (the start of a later note), and the FAILED and unknown orders between would be
    // one cell, never verified.
    let stray = "Order Number,Customer Note,Transaction ID,Order Total Amount\r\n\
                 5001,,5001_1795244531_1450000,14500.00\r\n\
                 5002,\"call first,5002_1795244980_2000000,20000.00\r\n\
                 5003,,5003_1795245000_1000000_FAILED,10000.00\r\n\
                 5004,,NO-SUCH-5004,5000.00\r\n\
                 5005,\"gift wrap\",5005_1795245100_1050000,10500.00\r\n";
    for args in [&[][..], &["-q"]] {
        let (out, rows, summary) = reconcile(stray, args);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(10), "{args:?}: {stderr}");
        // Only the row before the stray quote was reconciled.
        assert_eq!(results(&rows, "Order Number"), [(2, "5001", "MATCHED")]);
        assert_eq!(summary["complete"], false, "{summary}");
        assert_eq!(summary["rows_not_reached"], Value::Null, "{summary}");
        let why = summary["input_error"].as_str().unwrap_or_default();
        assert!(
            why.contains(
                "line 3: a quoted field opens there and closes on line 6; lines 4 and 5 \
                 inside it read as order rows"
            ) && why.contains("nothing from line 3 on was reconciled"),
            "{args:?}: {summary}"
        );
        match args.is_empty() {
            true => assert!(stderr.contains(why), "{stderr}"),
            false => assert_eq!(stderr, "", "-q says nothing on stderr"),
        }
    }
}

#[test]
fn a_saved_layout_per_profile_reads_a_renamed_export() {
    use crate::common::gateway::{Gateway, Txn};
    use crate::common::{CLIENT_ID, SECRET};
    let gateway = Gateway::start(&[Txn::paid("REF-1", 1_250_000), Txn::paid("REF-2", 500_000)]);
    let dir = TempDir::new("exports-profile");
    let secret = dir.write("shop.secret", format!("{SECRET}\n"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // A plugin set up with its own names, two wide lines above the header (so it is not
    // found by itself), semicolons, and a settlement-style numeric currency default.
    dir.write(
        "orders.csv",
        "Shop export;generated;2026-11-21;by plugin\n\
         a;b;c;d\n\
         Order;Gateway Ref;Paid;Note\n\
         1;REF-1;12500;ok\n\
         2;REF-2;5000;\n",
    );
    let config = |table: &str| {
        dir.write(
            "config.toml",
            format!(
                "[profiles.shop]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\n\
                 client_secret_file = \"{}\"\n\n[profiles.shop.reconcile]\n{table}",
                gateway.url,
                secret.display()
            ),
        )
    };
    let run = |args: &[&str]| {
        payverify()
            .current_dir(dir.path())
            .args(["--config", "config.toml", "--profile", "shop", "reconcile"])
            .args(["orders.csv", "-o", "jsonl"])
            .args(args)
            .output()
            .unwrap()
    };
    config(
        "reference_column = \"Gateway Ref\"\namount_column = \"Paid\"\nheader_row = 3\n\
         delimiter = \";\"\ncurrency = \"566\"\n",
    );
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let rows = jsonl(&out.stdout);
    assert_eq!(
        results(&rows, "Order"),
        [(4, "1", "MATCHED"), (5, "2", "MATCHED")]
    );
    // A flag beats the profile's key.
    let out = run(&["--amount-column", "Note"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(jsonl(&out.stdout)[0]["result"], "INVALID_ROW");
    // A saved name the file does not have is named with where it came from.
    config("reference_column = \"Gateway Reference\"\nheader_row = 3\ndelimiter = \";\"\n");
    let out = run(&[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no column is named \"Gateway Reference\" (reconcile.reference_column in config.toml [profiles.shop])")
            && stderr.contains("no amount column"),
        "{stderr}"
    );
    // Without the profile's layout the file is not read.
    config("");
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    // Bad values are configuration errors naming the key, never echoing the value.
    for (table, key) in [
        ("delimiter = \"|SECRETISH\"", "reconcile.delimiter"),
        ("amount_unit = \"SECRETISH\"", "reconcile.amount_unit"),
        ("currency = \"SECRETISH\"", "reconcile.currency"),
        ("header_row = 0", "reconcile.header_row"),
        ("reference_column = \"\"", "reconcile.reference_column"),
        (
            "currency_column = \"Note\"\nno_currency_column = true",
            "reconcile.no_currency_column",
        ),
        ("reference_colum = \"SECRETISH\"", "reference_colum"),
    ] {
        config(table);
        let out = run(&[]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{table}: {stderr}");
        assert!(stderr.contains(key), "{table}: {stderr}");
        assert!(!stderr.contains("SECRETISH"), "{table}: {stderr}");
        assert_eq!(stdout_of(&out), "", "{table}");
    }
    assert_eq!(
        gateway.requests(),
        2,
        "only the runs that read the file asked"
    );
}

#[test]
fn the_sandbox_answers_woocommerce_merchant_references() {
    let run = |reference: &str, args: &[&str]| {
        payverify()
            .args(["verify", "--sandbox", "--hmac", "require"])
            .args(args)
            .arg(reference)
            .output()
            .unwrap()
    };
    let out = run(
        "4101_1795244531_1250000",
        &["-o", "json", "--expect-amount", "12,500"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The `_<kobo>` chooses the answer; the merchantRef is what WooCommerce stored, and the
    // reference asked comes back as the paymentRef.
    assert_eq!(body["merchantRef"], "4101_1795244531");
    assert_eq!(body["paymentRef"], "4101_1795244531_1250000");
    assert_ne!(body["transactionRef"], body["merchantRef"]);
    assert_eq!(
        body["transactionDate"],
        "2026-11-21T07:02:11.489Z"
            .replace(".489", &body["transactionDate"].as_str().unwrap()[19..23])
    );
    assert!(
        body["transactionDate"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-21T07:02:11.")
    );
    assert_eq!(
        run("4101_1795244531_1250000", &["--expect-amount", "12,500.01"])
            .status
            .code(),
        Some(4)
    );
    assert_eq!(
        run("4101_1795244531_1250000_FAILED", &[]).status.code(),
        Some(1)
    );
    assert_eq!(
        run("4101_1795244531_1250000_PENDING", &[]).status.code(),
        Some(9)
    );
    assert_eq!(
        run("4101_1795244531", &["--expect-amount", "40000"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(run("4101_179524453_1250000", &[]).status.code(), Some(3));
    let help = stdout_of(&payverify().args(["sandbox", "--help"]).output().unwrap());
    for row in [
        "<order id>_<unix time>_<kobo>_FAILED",
        "WooCommerce merchant references answer as the gateway's",
    ] {
        assert!(help.contains(row), "{row}: {help}");
    }
}

mod generated {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::reconcile;
    use crate::common::stderr_of;

    const HEADER: [&str; 6] = [
        "Order Number",
        "Customer Note",
        "Payment Method Title",
        "Transaction ID",
        "Address 1&2 (Billing)",
        "Order Total Amount",
    ];

    /// Customer-typed text: commas, quotes, line breaks of every kind, no digits (so no
    /// line of it can read as an order row, whose amount needs one).
    fn typed() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("call first"),
            Just(", "),
            Just("\""),
            Just("\r\n"),
            Just("\n"),
            Just("\r"),
            Just(";"),
            Just("₦"),
            Just("leave at gate"),
            Just("Ikeja, Lagos"),
            Just("=cmd|' /C calc'!A"),
        ];
        prop::collection::vec(piece, 0..6).prop_map(|p| p.concat())
    }

    fn export() -> impl Strategy<Value = Vec<[String; 6]>> {
        let amount = prop_oneof![
            Just("40000".to_owned()),
            Just("40,000.00".to_owned()),
            Just("₦40,000.00".to_owned())
        ];
        prop::collection::vec((typed(), typed(), typed(), amount), 1..8).prop_map(|rows| {
            rows.into_iter()
                .enumerate()
                .map(|(i, (note, method, address, amount))| {
                    [
                        (4100 + i).to_string(),
                        note,
                        method,
                        format!("{}_1795244531", 4100 + i),
                        address,
                        amount,
                    ]
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Exports written by the csv crate (as a plugin's fputcsv writes them: quoted cells
        /// spanning lines, doubled quotes, CRLF or LF, a BOM or none) go through the real
        /// binary: every row comes out with the cells and the line the csv crate reads, and
        /// every one is MATCHED (each Transaction ID answers ₦40,000.00), exit 0, complete.
        #[test]
        fn exports_read_through_the_binary_as_the_csv_crate_reads_them(
            rows in export(),
            crlf in any::<bool>(),
            bom in any::<bool>(),
        ) {
            let mut writer = csv::WriterBuilder::new()
                .terminator(match crlf {
                    true => csv::Terminator::CRLF,
                    false => csv::Terminator::Any(b'\n'),
                })
                .from_writer(Vec::new());
            writer.write_record(HEADER).unwrap();
            let mut lines = Vec::new();
            let mut line = 2u64;
            for row in &rows {
                writer.write_record(row).unwrap();
                lines.push(line);
                // Each line end inside a cell is one more line (CRLF counts once).
                line += 1 + row
                    .iter()
                    .map(|c| c.replace("\r\n", "\n").matches(['\r', '\n']).count() as u64)
                    .sum::<u64>();
            }
            let mut text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
            if bom {
                text.insert(0, '\u{feff}');
            }
            let by_crate: Vec<Vec<String>> = csv::ReaderBuilder::new()
                .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
                .records()
                .map(|r| r.unwrap().iter().map(str::to_owned).collect())
                .collect();
            let (out, got, summary) = reconcile(&text, &[]);
            prop_assert_eq!(out.status.code(), Some(0), "{}\n{}", stderr_of(&out), text);
            prop_assert_eq!(got.len(), by_crate.len());
            for ((record, cells), line) in got.iter().zip(&by_crate).zip(&lines) {
                prop_assert_eq!(&record["line"], &Value::from(*line), "{}", text);
                prop_assert_eq!(&record["result"], "MATCHED");
                for (name, cell) in HEADER.iter().zip(cells) {
                    prop_assert_eq!(&record["row"][*name], &Value::from(cell.as_str()), "{}", text);
                }
            }
            prop_assert_eq!(&summary["complete"], &Value::from(true));
        }
    }
}

/// A customer-typed `Total` in the first cell of the last row (a note, a name) never makes
/// an order the file's totals row: an order paid by the gateway with no reference is
/// NO_REFERENCE (exit 4), and one with an order number but no method column is no footer.
#[test]
fn a_customer_typed_total_on_the_last_order_is_not_a_totals_row() {
    let with_method = "Customer Note,Order Number,Order Status,Payment Method,Transaction ID,\
Order Currency,Order Total Amount\n\
,4101,Processing,paywithbank3d,4101_1763730000_1250000,NGN,\"12,500.00\"\n\
Total,4102,Processing,paywithbank3d,,NGN,\"12,500.00\"\n";
    let (out, rows, _) = reconcile(with_method, &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(rows[1]["result"], "NO_REFERENCE", "{stderr}");
    let no_method = "Customer Note,Order Number,Transaction ID,Order Total Amount\n\
,4101,4101_1763730000_1250000,\"12,500.00\"\n\
Total,4102,,\"12,500.00\"\n";
    let (out, rows, _) = reconcile(no_method, &[]);
    let stderr = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert_ne!(rows[1]["result"], "TOTALS", "{stderr}");
}
