//! Issue 38, the settlement side: a bank's totals row wherever its label sits (item 6), and
//! a file of payments worded as payments, its failed and reversed rows no expected money
//! (item 7); each with what a customer choosing a reference could make of it.

use serde_json::Value;

use crate::common::stderr_of;
use crate::shopify::reconcile;

/// Each row's result.
fn got(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["result"].as_str().unwrap()).collect()
}

const HEAD: &str = "S/N,Transaction Date,Reference,Narration,Amount,Fee,Status\n\
                    1,21/11/2026,SANDBOX-OK-1,card,\"40,000.00\",600.00,Approved\n\
                    2,21/11/2026,SANDBOX-OK-2,card,\"40,000.00\",600.00,Approved\n";

#[test]
fn a_totals_row_is_the_footer_wherever_its_label_sits_and_never_sent() {
    for footer in [
        // Under the reference column, as the bank writes it.
        ",,TOTAL,,\"80,000.00\",\"1,200.00\",\n",
        // After the amounts, in the narration.
        ",,,,\"80,000.00\",\"1,200.00\",Total\n",
        // First, as before.
        "Grand Total,,,,\"80,000.00\",,\n",
    ] {
        let (out, rows, summary) = reconcile(format!("{HEAD}{footer}").as_bytes(), &[]);
        let stderr = stderr_of(&out);
        assert_eq!(
            got(&rows),
            ["MATCHED", "MATCHED", "TOTALS"],
            "{footer}{stderr}"
        );
        assert_eq!(out.status.code(), Some(0), "{footer}{stderr}");
        assert_eq!(rows[2]["response"], Value::Null, "{footer}");
        assert_eq!(summary["expected_total_kobo"], 8_000_000, "{summary}");
        // Not added up: a row missing, added or changed.
        let wrong = footer.replacen("80,000.00", "80,000.01", 1);
        let (out, rows, _) = reconcile(format!("{HEAD}{wrong}").as_bytes(), &[]);
        let stderr = stderr_of(&out);
        assert_eq!(
            got(&rows),
            ["MATCHED", "MATCHED", "TOTALS_MISMATCH"],
            "{stderr}"
        );
        assert_eq!(out.status.code(), Some(4), "{stderr}");
        assert_eq!(rows[2]["response"], Value::Null);
    }
}

#[test]
fn a_reference_the_customer_typed_as_total_is_still_a_reference() {
    // A label under the reference column with text beside it, or on a row that fills what
    // every row above fills (its S/N, its date): an order's row, asked about.
    for last in [
        ",,TOTAL,2 transactions,\"80,000.00\",\"1,200.00\",\n",
        "3,21/11/2026,TOTAL,,\"80,000.00\",,\n",
        "3,21/11/2026,Total,card,\"80,000.00\",600.00,Approved\n",
    ] {
        let (out, rows, _) = reconcile(format!("{HEAD}{last}").as_bytes(), &[]);
        let stderr = stderr_of(&out);
        assert_eq!(
            got(&rows),
            ["MATCHED", "MATCHED", "NOT_FOUND"],
            "{last}{stderr}"
        );
        assert_eq!(out.status.code(), Some(3), "{last}{stderr}");
    }
    // A file of references and amounts alone: no cell says a row is no order, so a last
    // `Total` whose amount is the sum of the rows above is a customer's reference.
    let (out, rows, _) = reconcile(b"Ref,Amount\nSANDBOX-OK-1,40000\nTotal,40000\n", &[]);
    assert_eq!(got(&rows), ["MATCHED", "NOT_FOUND"]);
    assert_eq!(out.status.code(), Some(3));
    // An order whose customer left the note empty (other notes are empty too): an order.
    let notes = "Customer Note,Transaction ID,Order Total Amount\n\
                 ,SANDBOX-OK-1,40000\nring twice,SANDBOX-OK-2,40000\n,Total,80000\n";
    let (out, rows, _) = reconcile(notes.as_bytes(), &[]);
    assert_eq!(got(&rows), ["MATCHED", "MATCHED", "NOT_FOUND"]);
    assert_eq!(out.status.code(), Some(3));
    // An orders file's last order, with the label as its reference: it names an order.
    let order = "Order Number,Transaction ID,Order Total Amount\n\
                 4101,SANDBOX-OK-1,40000\n4102,Total,40000\n";
    let (out, rows, _) = reconcile(order.as_bytes(), &[]);
    assert_eq!(got(&rows), ["MATCHED", "NOT_FOUND"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_file_of_payments_speaks_of_payments_and_expects_no_failed_or_reversed_money() {
    let file = format!(
        "{HEAD}3,21/11/2026,4103_1795300003_1500000,card,\"15,000.00\",225.00,Reversed\n\
         4,21/11/2026,4104_1795300004_900000_FAILED,card,\"9,000.00\",0.00,Declined\n\
         5,21/11/2026,,card,\"5,000.00\",0.00,Approved\n"
    );
    // The Payment Method column, so the row with no reference names the gateway.
    let file = file
        .replace("Status\n", "Status,Payment Type\n")
        .replace("Approved\n", "Approved,PayWithBank3D\n")
        .replace("Reversed\n", "Reversed,PayWithBank3D\n")
        .replace("Declined\n", "Declined,PayWithBank3D\n");
    let (out, rows, summary) = reconcile(file.as_bytes(), &[]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(
        got(&rows),
        [
            "MATCHED",
            "MATCHED",
            "PAID_SHOP_UNPAID",
            "BOTH_UNPAID",
            "NO_REFERENCE"
        ],
        "{stderr}"
    );
    assert_eq!(
        rows[2]["error"],
        "paid at the gateway (SUCCESSFUL ₦15,000.00), but the file's status says the payment \
         failed or was reversed: money the gateway took that the file does not count (confirm \
         the reversal, or refund it)"
    );
    assert_eq!(
        rows[3]["error"],
        "FAILED at the gateway, and the file's status says the payment failed or was \
         reversed: both agree, nothing is at risk"
    );
    assert_eq!(
        rows[4]["error"],
        "no reference, but the payment method is the gateway (\"Payment Type\" \
         \"PayWithBank3D\"): nothing to verify this payment by"
    );
    assert!(!stderr.contains("order"), "{stderr}");
    // Expected: the two approved payments and the one with no reference; the reversed and
    // the declined ones are no money the file expects, but the reversed one the gateway
    // took is at risk.
    assert_eq!(summary["expected_total_kobo"], 8_500_000, "{summary}");
    assert_eq!(summary["at_risk_kobo"], 2_000_000, "{summary}");
    assert_eq!(summary["collected_total_kobo"], 9_500_000, "{summary}");
    let reversed = &summary["results"]["PAID_SHOP_UNPAID"];
    assert_eq!(reversed["expected_kobo"], 0, "{summary}");
    assert_eq!(reversed["gateway_kobo"], 1_500_000, "{summary}");
}

const STATEMENT: &str = "Trans. Date,Value. Date,Reference,Debits,Credits,Balance,Remarks\n\
    21/11/2026,21/11/2026,FT26325,,\"40,000.00\",\"140,000.00\",PWB3D/1001_1795300001 ADA OKAFOR\n\
    21/11/2026,21/11/2026,FT26326,\"5,000.00\",,\"135,000.00\",POS WITHDRAWAL PWB3D/1009_1795300009\n\
    21/11/2026,21/11/2026,FT26327,,\"12,000.00\",\"147,000.00\",TRF FROM BOLA ADE\n\
    21/11/2026,21/11/2026,FT26328,,\"39,400.00\",\"186,400.00\",PWB3D/1002_1795300002 NET OF FEE\n\
    21/11/2026,21/11/2026,FT26329,,\"40,000.00\",\"226,400.00\",PWB3D/1003_1795300003_FAILED\n";

const PATTERN: &str = "PWB3D/([0-9]+_[0-9]{10}(_[0-9]+)?)";

#[test]
fn a_statement_gives_its_reference_out_of_its_remarks_and_skips_what_is_no_payment() {
    let args = [
        "--reference-column",
        "Remarks",
        "--amount-column",
        "Credits",
        "--reference-pattern",
        PATTERN,
    ];
    let (out, rows, summary) = reconcile(STATEMENT.as_bytes(), &args);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(
        got(&rows),
        // The first capture group is the reference; a debit (whatever its remarks say) and
        // a transfer with no gateway reference are no gateway payments; a credit net of the
        // gateway's fee is less than the gateway's gross; `1003_1795300003` matched only up
        // to the `_FAILED` the pattern leaves out, and the gateway has it at ₦40,000.00.
        ["MATCHED", "SKIPPED", "SKIPPED", "OVERPAID", "MATCHED"],
        "{stderr}"
    );
    assert_eq!(
        rows[1]["error"],
        "not a gateway payment: a debit (\"Debits\" \"5,000.00\")"
    );
    assert_eq!(
        rows[2]["error"],
        format!(
            "not a gateway payment: \"Remarks\" does not match --reference-pattern \"{PATTERN}\""
        )
    );
    // What was asked is the reference taken out; the row keeps its text as written.
    assert_eq!(rows[0]["response"]["merchantRef"], "1001_1795300001");
    assert_eq!(
        rows[0]["row"]["Remarks"],
        "PWB3D/1001_1795300001 ADA OKAFOR"
    );
    assert_eq!(summary["results"]["SKIPPED"]["rows"], 2, "{summary}");
    // With no group, the whole match.
    let whole = [
        "--reference-column",
        "Remarks",
        "--amount-column",
        "Credits",
    ];
    let (out, rows, _) = reconcile(
        STATEMENT.as_bytes(),
        &[&whole[..], &["--reference-pattern", "[0-9]+_[0-9]{10}"]].concat(),
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert_eq!(rows[0]["response"]["merchantRef"], "1001_1795300001");
}

#[test]
fn a_reference_pattern_that_is_no_regular_expression_is_one_line_and_exit_2() {
    let (out, rows, _) = reconcile(
        STATEMENT.as_bytes(),
        &[
            "--reference-column",
            "Remarks",
            "--reference-pattern",
            "PWB3D/(\u{1b}[2J",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(rows.is_empty());
    assert_eq!(
        stderr_of(&out),
        "payverify: --reference-pattern \"PWB3D/(\\e[2J\": not a regular expression (unclosed \
         character class)\n"
    );
    let (out, _, _) = reconcile(
        STATEMENT.as_bytes(),
        &["--reference-pattern", PATTERN, "--state", "s.state"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out)
            .starts_with("payverify: --reference-pattern cannot be used with --resume or --state"),
        "{}",
        stderr_of(&out)
    );
}
