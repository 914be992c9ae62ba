//! Issue 38: a Shopify "Export orders" CSV reconciled as Shopify writes it (tests/data/
//! shopify-orders.csv: all 79 columns in Shopify's order, one row per line item with the
//! order-level cells on an order's first row only, `Name` as `#1001`, notes with commas and
//! newlines, one USD order, references of the sandbox's `<order id>_<unix time>_<kobo>`
//! form), with no flags: the leading `#` of an order id, Shopify's line items, the two
//! reference columns holding one value, orders the shop marks unpaid with nothing to verify
//! (UNPAID_NO_REFERENCE) and split payments (SPLIT_PAID); each with the near misses an
//! adversary would try.

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{TempDir, jsonl, payverify, stderr_of};

pub const SHOPIFY: &str = include_str!("../data/shopify-orders.csv");

/// `reconcile --sandbox export.csv -o jsonl --summary-json summary.json ARGS` on
/// `contents` (bytes, so a test can give a BOM or CRLF), in a fresh directory: the output,
/// the rows, and the summary.
pub fn reconcile(contents: &[u8], args: &[&str]) -> (std::process::Output, Vec<Value>, Value) {
    let dir = TempDir::new("shopify");
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
pub fn results(rows: &[Value], column: &str) -> Vec<(u64, String, String)> {
    rows.iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["row"][column].as_str().unwrap().to_owned(),
                r["result"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What every row of tests/data/shopify-orders.csv comes to: (line, Name, result).
#[rustfmt::skip]
pub const WANT: [(u64, &str, &str); 41] = [
    // Paid through the gateway; its two further line items carry nothing of the order's.
    (2, "#1001", "MATCHED"), (3, "#1001", "LINE_ITEM"), (4, "#1001", "LINE_ITEM"),
    // The customer's note "gate code 4411,<LF>Leave with security" spans lines 5 and 6.
    (5, "#1002", "MATCHED"),
    // An abandoned gateway checkout: pending, the gateway, no reference.
    (7, "#1003", "UNPAID_NO_REFERENCE"), (8, "#1003", "LINE_ITEM"),
    // Cash on delivery and a bank deposit: not gateway payments.
    (9, "#1004", "SKIPPED"), (10, "#1004", "LINE_ITEM"), (11, "#1005", "SKIPPED"),
    // Gift Card + PayWithBank3D: ₦30,000 of ₦50,000 at the gateway.
    (12, "#1006", "SPLIT_PAID"), (13, "#1006", "LINE_ITEM"),
    // Gift Card + PayWithBank3D, but the gateway has more than the order's total.
    (14, "#1007", "OVERPAID"),
    // Gift Card + PayWithBank3D, the gateway has the whole total.
    (15, "#1008", "MATCHED"),
    // Voided, no reference: nothing to verify.
    (16, "#1009", "UNPAID_NO_REFERENCE"),
    // Voided with a SUCCESSFUL gateway payment: money taken for an order that will not ship.
    (17, "#1010", "PAID_SHOP_UNPAID"),
    // Pending WITH a reference is verified, never waved through: SUCCESSFUL, then pending.
    (18, "#1011", "PAID_SHOP_UNPAID"), (19, "#1012", "NOT_FINAL"),
    (20, "#1013", "PAID_SHOP_UNPAID"), (21, "#1013", "LINE_ITEM"),
    // A note over two lines (22 and 23).
    (22, "#1014", "UNDERPAID"),
    (24, "#1015", "FAILED"), (25, "#1016", "BOTH_UNPAID"),
    // Paid through the gateway, says the shop, with no reference.
    (26, "#1017", "NO_REFERENCE"),
    // The USD order: the gateway answers in NGN.
    (27, "#1018", "CURRENCY_MISMATCH"),
    // A payment whose merchantRef names order 1099, not #1019.
    (28, "#1019", "INTEGRITY_FAILED"),
    // Order #1002's payment again.
    (29, "#1020", "DUPLICATE"),
    (30, "#1021", "SKIPPED"),
    // A formula for a note.
    (31, "#1022", "MATCHED"),
    // authorized is paid; partially_refunded is no word the shop's side is read from.
    (32, "#1023", "MATCHED"), (33, "#1024", "MATCHED"), (34, "#1024", "LINE_ITEM"),
    (35, "#1025", "MATCHED"),
    // Abandoned with no payment method at all.
    (37, "#1026", "UNPAID_NO_REFERENCE"),
    // Gift Card + PayWithBank3D whose gateway part FAILED: at risk.
    (38, "#1027", "FAILED"),
    (39, "#1028", "MATCHED"), (40, "#1029", "MATCHED"), (41, "#1029", "LINE_ITEM"),
    (42, "#1029", "LINE_ITEM"), (43, "#1030", "MATCHED"), (44, "#1031", "MATCHED"),
    // The last order: its customer typed "Total" as the billing name; still an order.
    (45, "#1032", "NO_REFERENCE"),
];

fn want() -> Vec<(u64, String, String)> {
    WANT.iter()
        .map(|(l, n, r)| (*l, (*n).to_owned(), (*r).to_owned()))
        .collect()
}

#[test]
fn a_shopify_export_reconciles_with_no_flags_and_no_editing() {
    let (out, rows, summary) = reconcile(SHOPIFY.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    // Failed checks (4) are the most severe: never hidden behind the NOT_FINAL (9).
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(results(&rows, "Name"), want(), "{stderr}");
    // Payment Reference and Payment References hold the same value on every row: one
    // column, no warning; and no line-item row is a row with an empty reference.
    assert!(!stderr.contains("could both be"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(!stderr.contains("INVALID_ROW"), "{stderr}");
    assert!(
        stderr.contains(
            ": 11 MATCHED, 1 SPLIT_PAID, 1 UNDERPAID, 1 OVERPAID, 1 CURRENCY_MISMATCH, 3 \
             PAID_SHOP_UNPAID, 1 INTEGRITY_FAILED, 2 FAILED, 1 BOTH_UNPAID, 1 NOT_FINAL, 1 \
             DUPLICATE, 9 LINE_ITEM, 2 NO_REFERENCE, 3 UNPAID_NO_REFERENCE, 3 SKIPPED\n"
        ),
        "{stderr}"
    );
    let row = |line: u64| {
        rows.iter()
            .find(|r| r["line"] == line)
            .unwrap_or_else(|| panic!("no row on line {line}"))
    };
    // `#1001` is order 1001: its payment's merchantRef `1001_...` names it.
    assert_eq!(row(2)["error"], Value::Null);
    assert_eq!(
        row(28)["error"],
        "the payment is for order 1099 (merchantRef \"1099_1795301099\"), not this \
         row's order \"#1019\""
    );
    assert_eq!(
        row(3)["error"],
        "a line item of order \"#1001\" (line 2): one order, one result, its total and result \
         on line 2"
    );
    assert_eq!(
        row(7)["error"],
        "no reference, and \"Financial Status\" is \"pending\": never paid, nothing to \
         verify, nothing owed"
    );
    assert_eq!(
        row(12)["error"],
        "split payment: the gateway has ₦30,000.00 (SUCCESSFUL) of the order's ₦50,000.00; \
         the other ₦20,000.00, by \"Gift Card\", is not the gateway's to confirm"
    );
    // The gateway's part is no difference: nothing under- or overpaid.
    assert_eq!(row(12)["difference_kobo"], Value::Null);
    assert_eq!(row(12)["gateway_amount_kobo"], 3_000_000);
    assert_eq!(
        row(14)["error"],
        "overpaid by ₦10,000.00 (1000000 kobo): the gateway has ₦60,000.00, the row expects \
         ₦50,000.00"
    );
    // Decided from the file alone: never asked about.
    for r in rows
        .iter()
        .filter(|r| ["UNPAID_NO_REFERENCE", "LINE_ITEM"].contains(&r["result"].as_str().unwrap()))
    {
        assert_eq!(r["response"], Value::Null, "{r}");
    }
    assert_eq!(
        row(5)["row"]["Notes"],
        "gate code 4411,\nLeave with security"
    );
    // Each order once; the three never-paid orders are not expected money nor at risk; the
    // split order is expected whole, its gift card part said apart.
    assert_eq!(summary["rows"], 41, "{summary}");
    assert_eq!(summary["exit_code"], 4);
    assert_eq!(summary["expected_total_kobo"], 74_310_000, "{summary}");
    assert_eq!(summary["matched_total_kobo"], 31_980_000, "{summary}");
    assert_eq!(summary["collected_total_kobo"], 53_630_000, "{summary}");
    assert_eq!(summary["at_risk_kobo"], 30_330_000, "{summary}");
    assert_eq!(summary["other_methods_total_kobo"], 2_000_000, "{summary}");
    assert_eq!(
        summary["other_methods_total_naira"], "20000.00",
        "{summary}"
    );
    assert_eq!(summary["net_difference_kobo"], 950_000, "{summary}");
    let unpaid = &summary["results"]["UNPAID_NO_REFERENCE"];
    assert_eq!(unpaid["rows"], 3, "{summary}");
    assert_eq!(unpaid["expected_kobo"], 0, "{summary}");
    assert_eq!(summary["other_currencies"]["USD"]["rows"], 1, "{summary}");
    assert!(
        stderr.contains("Paid by other methods (SPLIT_PAID)            ₦20,000.00\n"),
        "{stderr}"
    );
    // The closing lines name the rows that need a look, never an exit-0 one.
    assert!(
        stderr.contains(
            "payverify: needs a look: line 14, order #1007, reference \
                         1007_1795301007_6000000: OVERPAID"
        ),
        "{stderr}"
    );
    for quiet in ["line 7,", "line 12,", "line 16,", "line 37,"] {
        assert!(
            !stderr.contains(&format!("needs a look: {quiet}")),
            "{stderr}"
        );
    }
}

/// A three-column orders file of `(order id, reference)` rows, each ₦40,000.
fn orders(rows: &[(&str, &str)]) -> String {
    let mut text = String::from("Order ID,Reference,Amount\n");
    for (order, reference) in rows {
        text.push_str(&format!("{order},{reference},40000\n"));
    }
    text
}

#[test]
fn one_leading_hash_is_not_the_order_id_but_a_near_miss_is_another_order() {
    let (out, rows, _) = reconcile(
        orders(&[
            ("#1001", "1001_1795300001"),
            (" #1002 ", "1002_1795300002"),
            ("1003", "1003_1795300003"),
            ("# 1004", "1004_1795300004"),
            ("##1005", "1005_1795300005"),
            ("1006#", "1006_1795300006"),
            ("SO-1007", "1007_1795300007"),
            ("#1008", "1080_1795300008"),
            ("#", "1009_1795300009"),
        ])
        .as_bytes(),
        &[],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            "MATCHED",
            "MATCHED",
            "MATCHED",
            "INTEGRITY_FAILED",
            "INTEGRITY_FAILED",
            "INTEGRITY_FAILED",
            "INTEGRITY_FAILED",
            "INTEGRITY_FAILED",
            "INTEGRITY_FAILED"
        ],
        "{stderr}"
    );
    assert_eq!(
        rows[3]["error"],
        "the payment is for order 1004 (merchantRef \"1004_1795300004\"), not this row's order \
         \"# 1004\""
    );
}

/// The Shopify file with `edit` applied to every cell of the column `name`.
fn with_column(name: &str, edit: impl Fn(usize, &str) -> String) -> String {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(SHOPIFY.as_bytes());
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let mut column = None;
    for (i, record) in reader.records().enumerate() {
        let record = record.unwrap();
        let at = *column.get_or_insert_with(|| record.iter().position(|h| h == name).unwrap());
        let cells: Vec<String> = record
            .iter()
            .enumerate()
            .map(|(j, c)| match j == at && i > 0 {
                true => edit(i, c),
                false => c.to_owned(),
            })
            .collect();
        writer.write_record(&cells).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

#[test]
fn two_reference_columns_that_differ_on_a_row_are_still_warned_about() {
    // The 7th record (line 9's order #1004) names another reference in Payment References.
    let edited = with_column("Payment References", |i, c| match i {
        7 => "1004_1795301004_1600000".to_owned(),
        _ => c.to_owned(),
    });
    let (out, rows, _) = reconcile(edited.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(
            "payverify: warning: export.csv: columns 49 and 79 (\"Payment References\") could \
             both be the reference column, and they differ (line 9 first); column 49 \
             (\"Payment Reference\") is used (choose with --reference-column NAME)\n"
        ),
        "{stderr}"
    );
    // Column 49 is read: order #1004 is still cash on delivery with no reference.
    assert_eq!(results(&rows, "Name"), want(), "{stderr}");
}

#[test]
fn a_line_item_is_only_a_row_of_the_order_right_above_with_its_order_cells_empty() {
    // A row of #1001 with the total filled, or one after another order, or one with no
    // order id, is no line item: rows with no reference, never exit 0.
    let text = "Name,Financial Status,Total,Payment Method,Payment Reference,Lineitem name\n\
                #1001,paid,40000.00,PayWithBank3D,1001_1795300001,Cap\n\
                #1001,,,,,Tote\n\
                #1001,,40000.00,,,Wrapper\n\
                #1002,paid,40000.00,PayWithBank3D,1002_1795300002,Cap\n\
                1002,,,,,Scarf\n\
                #1001,,,,,Pillow\n\
                ,,,,,Pillow\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            "MATCHED",
            "LINE_ITEM",
            "INVALID_ROW",
            "MATCHED",
            // `1002` is order #1002, one `#` aside.
            "LINE_ITEM",
            "INVALID_ROW",
            "INVALID_ROW",
        ],
        "{stderr}"
    );
    assert_eq!(summary["expected_total_kobo"], 12_000_000, "{summary}");
}

#[test]
fn only_an_order_the_shop_says_was_never_paid_and_has_no_reference_is_let_go() {
    let text = "Name,Financial Status,Total,Payment Method,Payment Reference\n\
                #1,pending,15000.00,PayWithBank3D,\n\
                #2,voided,12000.00,PayWithBank3D,\n\
                #3,cancelled,12000.00,,\n\
                #4,wc-failed,12000.00,PayWithBank3D,\n\
                #5,paid,40000.00,PayWithBank3D,5_1795300005\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    // Nothing to verify is not a risk: a clean run.
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            "UNPAID_NO_REFERENCE",
            "UNPAID_NO_REFERENCE",
            "UNPAID_NO_REFERENCE",
            "UNPAID_NO_REFERENCE",
            "MATCHED"
        ],
        "{stderr}"
    );
    assert_eq!(summary["expected_total_kobo"], 4_000_000, "{summary}");
    assert_eq!(summary["at_risk_kobo"], 0, "{summary}");
    // Refunded and reversed moved money: not let go. Paid with no reference: at risk. A
    // pending order with a reference is asked about (not final here), and a voided one
    // whose payment went through is money taken for an order that will not ship.
    let text = "Name,Financial Status,Total,Payment Method,Payment Reference\n\
                #1,refunded,15000.00,PayWithBank3D,\n\
                #2,Reversed,15000.00,,\n\
                #3,paid,15000.00,PayWithBank3D,\n\
                #4,pending,15000.00,PayWithBank3D,4_1795300004_1500000_PENDING\n\
                #5,voided,40000.00,PayWithBank3D,5_1795300005\n\
                #6,Partially refunded,15000.00,PayWithBank3D,\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            "NO_REFERENCE",
            "INVALID_ROW",
            "NO_REFERENCE",
            "NOT_FINAL",
            "PAID_SHOP_UNPAID",
            "NO_REFERENCE"
        ],
        "{stderr}"
    );
    assert_eq!(summary["results"]["UNPAID_NO_REFERENCE"], Value::Null);
    assert_eq!(summary["at_risk_kobo"], 11_500_000, "{summary}");
}

#[test]
fn a_split_payment_is_never_underpaid_for_the_other_part_nor_more_than_the_total() {
    let text = "Name,Financial Status,Total,Payment Method,Payment Reference,Lineitem name\n\
                #1,paid,50000.00,Gift Card + PayWithBank3D,1_1795300001_3000000,Cap\n\
                #2,paid,50000.00,Gift Card + PayWithBank3D,2_1795300002_5000001,Cap\n\
                #3,paid,50000.00,Gift Card + PayWithBank3D,3_1795300003_0,Cap\n\
                #4,paid,50000.00,Gift Card + PayWithBank3D,4_1795300004_3000000_FAILED,Cap\n\
                #5,paid,50000.00,Gift Card,5_1795300005_3000000,Cap\n\
                #6,paid,50000.00,Gift Card + PayWithBank3D,9_1795300006_3000000,Cap\n\
                #7,paid,50000.00,PayWithBank3D + Store credit,7_1795300007_4999999,Cap\n\
                #8,voided,50000.00,Gift Card + PayWithBank3D,8_1795300008_3000000,Cap\n\
                #9,paid,50000.00,Gift Card + PayWithBank3D,1_1795300001_3000000,Cap\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [
            "SPLIT_PAID",
            // One kobo over the total.
            "OVERPAID",
            // Nothing at the gateway is no gateway part.
            "UNDERPAID",
            "FAILED",
            // The gateway alone is not named: no split, the whole total expected.
            "UNDERPAID",
            // Another order's payment.
            "INTEGRITY_FAILED",
            "SPLIT_PAID",
            "PAID_SHOP_UNPAID",
            // Order #1's payment again.
            "DUPLICATE",
        ],
        "{stderr}"
    );
    assert_eq!(
        summary["other_methods_total_kobo"],
        2_000_000 + 1,
        "{summary}"
    );
    assert_eq!(summary["results"]["SPLIT_PAID"]["rows"], 2, "{summary}");
    // A file of split payments that all hold is a clean run.
    let text = "Name,Financial Status,Total,Payment Method,Payment Reference,Lineitem name\n\
                #1,paid,50000.00,Gift Card + PayWithBank3D,1_1795300001_3000000,Cap\n\
                #2,paid,50000.00,Gift Card + PayWithBank3D,2_1795300002_5000000,Cap\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(rows[1]["result"], "MATCHED");
    assert_eq!(summary["at_risk_kobo"], 0, "{summary}");
}

/// The Shopify file rewritten: its columns in `order`, `;` or `,` between cells, CRLF or LF
/// after each record, a byte-order mark or none; the cells as they were.
fn rewritten(order: &[usize], semicolon: bool, crlf: bool, bom: bool) -> Vec<u8> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(SHOPIFY.as_bytes());
    let mut writer = csv::WriterBuilder::new()
        .delimiter(if semicolon { b';' } else { b',' })
        .terminator(match crlf {
            true => csv::Terminator::CRLF,
            false => csv::Terminator::Any(b'\n'),
        })
        .from_writer(Vec::new());
    for record in reader.records() {
        let record = record.unwrap();
        writer
            .write_record(order.iter().map(|&i| &record[i]))
            .unwrap();
    }
    let mut out = match bom {
        true => b"\xEF\xBB\xBF".to_vec(),
        false => Vec::new(),
    };
    out.extend(writer.into_inner().unwrap());
    out
}

/// What a run says of one row: its line, Name, result and error.
type RowVerdict = (u64, String, String, Value);
/// What a run says of each row, then its exit status and the summary's figures.
type Verdicts = (Vec<RowVerdict>, Option<i32>, Value);

/// What a run says of each row and of the whole.
fn verdicts(contents: &[u8]) -> Verdicts {
    let (out, rows, mut summary) = reconcile(contents, &[]);
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("warning"), "{stderr}");
    let rows = rows
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["row"]["Name"].as_str().unwrap().to_owned(),
                r["result"].as_str().unwrap().to_owned(),
                r["error"].clone(),
            )
        })
        .collect();
    summary["exit_code"] = Value::Null;
    (rows, out.status.code(), summary)
}

proptest! {
    // Each case runs the binary on 41 rows; a dozen orders and layouts is enough to move
    // every column everywhere.
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Shopify's export as Excel or another tool saves it again: columns in another order,
    /// `;`, CRLF, a byte-order mark. No row's result, error or figure changes.
    #[test]
    fn the_shopify_export_means_the_same_whatever_its_layout(
        order in Just((0..79).collect::<Vec<usize>>()).prop_shuffle(),
        semicolon in any::<bool>(),
        crlf in any::<bool>(),
        bom in any::<bool>(),
    ) {
        static BASE: std::sync::OnceLock<Verdicts> = std::sync::OnceLock::new();
        let base = BASE.get_or_init(|| verdicts(SHOPIFY.as_bytes()));
        prop_assert_eq!(base.1, Some(4));
        let got = verdicts(&rewritten(&order, semicolon, crlf, bom));
        let results: Vec<(u64, &str, &str)> =
            got.0.iter().map(|(l, n, r, _)| (*l, n.as_str(), r.as_str())).collect();
        prop_assert_eq!(results, WANT.to_vec());
        prop_assert_eq!(&got.0, &base.0);
        prop_assert_eq!(got.1, base.1);
        prop_assert_eq!(&got.2, &base.2);
    }
}

#[test]
fn the_csv_output_keeps_each_cell_of_the_export_as_written() {
    let dir = TempDir::new("shopify-csv");
    let file = dir.write("orders_export_1.csv", SHOPIFY);
    let out = payverify()
        .args(["reconcile", "--sandbox", "-q", "-o", "csv"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
    // Read back as a spreadsheet reads it: one record per row, every cell of the export as
    // it was, a note's line break a line break (RFC 4180), a formula still defused.
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), WANT.len());
    let mut export = csv::Reader::from_reader(SHOPIFY.as_bytes());
    let notes = header.iter().position(|h| h == "Notes").unwrap();
    for (written, read) in records.iter().zip(export.records().map(Result::unwrap)) {
        for (i, cell) in read.iter().enumerate() {
            // A phone number's `+`, a formula's `=`: defused with a `'`, as before.
            match cell.starts_with(['=', '+', '-', '@']) {
                true => assert_eq!(&written[i], format!("'{cell}")),
                false => assert_eq!(&written[i], cell, "column {}", header[i]),
            }
        }
    }
    assert_eq!(&records[3][notes], "gate code 4411,\nLeave with security");
    assert_eq!(
        &records[31][notes],
        "Deliver after 5pm, ring twice\nthe gate is blue, \"big\" one"
    );
    let result = header.iter().position(|h| h == "result").unwrap();
    assert_eq!(&records[3][result], "MATCHED");
    // A terminal sees no raw line break, nor any other control character of a cell.
    let shown = crate::common::on_terminal(&format!(
        "reconcile --sandbox -q -o csv {} 2>/dev/null",
        file.display()
    ))
    .output()
    .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("gate code 4411,\\nLeave with security"),
        "{shown}"
    );
}

#[test]
fn the_sandbox_answers_a_usd_payment_of_the_amount_its_reference_names() {
    // `<order id>_<unix time>_<minor>_<code>`: SUCCESSFUL, that amount, that currency.
    let text = "Name,Financial Status,Currency,Total,Payment Method,Payment Reference,Lineitem name\n\
                #1018,paid,USD,85.00,PayWithBank3D,1018_1795301018_8500_USD,Cap\n\
                #1019,paid,USD,85.00,PayWithBank3D,1019_1795301019_8400_USD,Cap\n\
                #1020,paid,NGN,85.00,PayWithBank3D,1020_1795301020_8500_USD,Cap\n";
    let (out, rows, summary) = reconcile(text.as_bytes(), &["--hmac", "require"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let got: Vec<&str> = rows.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        ["MATCHED", "UNDERPAID", "CURRENCY_MISMATCH"],
        "{stderr}"
    );
    assert_eq!(rows[0]["gateway_currency"], "USD");
    assert_eq!(rows[0]["response"]["amount"], 8500);
    assert_eq!(
        summary["other_currencies"]["USD"]["matched_total_minor"],
        8500
    );
}
