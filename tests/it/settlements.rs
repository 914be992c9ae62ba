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
