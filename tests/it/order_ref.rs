//! reconcile holds a WooCommerce merchantRef (`<order id>_<unix time>`) against the row's
//! order id (finding F17 of the attack on the release binary): a payment whose merchantRef
//! names another order is that order's, never a MATCHED for this one, in a fresh run and in
//! a resumed one.

use crate::common::{
    SANDBOX_SECRET, TempDir, sandbox_in, sandbox_requests as requests, sealed, stderr_of, stdout_of,
};

const HEADER: &str = "Order Number,Order Status,Order Currency,Order Total Amount,\
                      Payment Method,Transaction ID\n";

/// Order 4101 paid with its own reference (its order id cell padded with spaces), and
/// order 4200 whose Transaction ID is order 4102's payment.
const ORDERS: &str = " 4101 ,Processing,NGN,\"14,500.00\",paywithbank3d,4101_1795244531_1450000\n\
                      4200,Processing,NGN,\"14,500.00\",paywithbank3d,4102_1795244600_1450000\n";

/// The check line the row of order 4200 fails with.
const OTHER_ORDER: &str = "the payment is for order 4102 (merchantRef \"\"4102_1795244600\"\"), \
                           not this row's order \"\"4200\"\"";

/// `payverify reconcile --sandbox -v --retries 0 orders.csv ARGS` in `dir`.
fn reconcile(dir: &TempDir, args: &[&str]) -> std::process::Output {
    sandbox_in(dir, &["reconcile", "--retries", "0", "orders.csv"], args)
}

#[test]
fn a_payment_whose_merchant_ref_names_another_order_is_integrity_failed() {
    let dir = TempDir::new("order-ref");
    dir.write("orders.csv", format!("{HEADER}{ORDERS}"));
    let out = reconcile(&dir, &["-o", "csv"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(
        rows[0].starts_with("\" 4101 \",")
            && rows[0].ends_with(
                ",MATCHED,0,0.00,SUCCESSFUL,00,1450000,14500.00,1450000,14500.00,NGN,hmac valid,"
            ),
        "{stdout}"
    );
    assert_eq!(
        rows[1],
        format!(
            "4200,Processing,NGN,\"14,500.00\",paywithbank3d,4102_1795244600_1450000,\
             INTEGRITY_FAILED,0,0.00,SUCCESSFUL,00,1450000,14500.00,1450000,14500.00,NGN,\
             \"hmac valid; {OTHER_ORDER}\",\"{OTHER_ORDER}\""
        ),
        "{stdout}"
    );
    assert!(
        stderr_of(&out).contains("payverify: 2 rows in ")
            && stderr_of(&out).contains("): 1 MATCHED, 1 INTEGRITY_FAILED\n"),
        "{}",
        stderr_of(&out)
    );
    // Without an order id column there is no order to hold the merchantRef against.
    dir.write(
        "orders.csv",
        "Order Total Amount,Transaction ID\n\"14,500.00\",4102_1795244600_1450000\n",
    );
    let out = reconcile(&dir, &["-o", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).ends_with(
            ",MATCHED,0,0.00,SUCCESSFUL,00,1450000,14500.00,1450000,14500.00,NGN,hmac valid,\n"
        ),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn resume_asks_again_for_a_matched_record_of_another_orders_payment() {
    let dir = TempDir::new("order-ref-resume");
    // A MATCHED record as a run that did not hold the merchantRef against the order id
    // wrote it: order 4102's own row, its order id then made 4200's, sealed again.
    dir.write(
        "orders.csv",
        format!(
            "{HEADER}4102,Processing,NGN,\"14,500.00\",paywithbank3d,4102_1795244600_1450000\n"
        ),
    );
    let first = reconcile(&dir, &["-o", "jsonl"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let record =
        stdout_of(&first).replacen("\"Order Number\":\"4102\"", "\"Order Number\":\"4200\"", 1);
    assert!(
        record.contains("\"Order Number\":\"4200\"") && record.contains("\"MATCHED\""),
        "{record}"
    );
    dir.write("run1.jsonl", sealed(&record, SANDBOX_SECRET));
    dir.write(
        "orders.csv",
        format!(
            "{HEADER}4200,Processing,NGN,\"14,500.00\",paywithbank3d,4102_1795244600_1450000\n"
        ),
    );
    let again = reconcile(&dir, &["-o", "jsonl", "--resume", "run1.jsonl"]);
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(4), 1),
        "{}",
        stderr_of(&again)
    );
    let stdout = stdout_of(&again);
    assert!(
        stdout.contains("\"result\":\"INTEGRITY_FAILED\"")
            && stdout.contains("the payment is for order 4102 (merchantRef \\\"4102_1795244600\\\"), not this row's order \\\"4200\\\""),
        "{stdout}"
    );
}
