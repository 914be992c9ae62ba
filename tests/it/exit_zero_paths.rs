//! Reconcile's exit-0 results that ask nothing or accept less (SKIPPED, SPLIT_PAID,
//! UNPAID_NO_REFERENCE, TOTALS), held against the shapes an attack on them found
//! (issue 38, after items 1-8): each of these files came out exit 0 for an order that was
//! paid with nothing to verify it by, underpaid, or never asked about.

use crate::common::{
    RawServer, SAMPLE, TempDir, payverify, payverify_at, read_head, respond, stderr_of,
};

/// `reconcile --sandbox FILE -o jsonl ARGS` on `csv`: its exit status and each row's result.
fn results(csv: &str, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let dir = TempDir::new("exit-zero-paths");
    dir.write("orders.csv", csv);
    let out = payverify()
        .current_dir(dir.path())
        .args(["reconcile", "--sandbox", "orders.csv", "-o", "jsonl"])
        .args(args)
        .output()
        .unwrap();
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let row: serde_json::Value = serde_json::from_str(l).unwrap();
            row["result"].as_str().unwrap().to_owned()
        })
        .collect();
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
    (out.status.code(), rows)
}

const SHOPIFY: &str = "Name,Financial Status,Lineitem name,Currency,Total,Payment Method,\
                       Payment Reference\n";

#[test]
fn the_gateway_named_in_brackets_is_the_gateway() {
    // `Card (PayWithBank3D)`: paid through the gateway, nothing to verify it by.
    let csv = format!("{SHOPIFY}#8201,paid,Adire wrapper,NGN,40000.00,Card (PayWithBank3D),\n");
    assert_eq!(results(&csv, &[]), (Some(4), vec!["NO_REFERENCE".into()]));
}

#[test]
fn a_plus_inside_the_gateways_own_title_is_no_split_payment() {
    // The gateway's title for its channels: ₦1.00 of ₦40,000.00 is UNDERPAID, not a split.
    let csv = format!(
        "{SHOPIFY}#8301,paid,Adire wrapper,NGN,40000.00,\"PayWithBank3D (Card + Bank Account \
         + USSD)\",SANDBOX-AMOUNT-100-8301\n"
    );
    assert_eq!(results(&csv, &[]), (Some(4), vec!["UNDERPAID".into()]));
}

#[test]
fn a_pattern_matching_through_its_second_group_gives_that_reference() {
    let csv = "Trans. Date,Value. Date,Reference,Debits,Credits,Balance,Remarks\n\
               21/11/2026,21/11/2026,BNK1,,\"40,000.00\",1,PWB3D/SANDBOX-OK-1 Ada\n\
               21/11/2026,21/11/2026,BNK2,,\"40,000.00\",1,PAYWITHBANK3D SANDBOX-FAILED-2\n\
               21/11/2026,21/11/2026,BNK3,,\"40,000.00\",1,PAYWITHBANK3D NOSUCHREF-3\n";
    let args = [
        "--reference-column",
        "Remarks",
        "--amount-column",
        "Credits",
        "--reference-pattern",
        r"PWB3D/(\S+)|PAYWITHBANK3D (\S+)",
    ];
    let (code, rows) = results(csv, &args);
    assert_eq!(rows, ["MATCHED", "FAILED", "NOT_FOUND"]);
    assert_ne!(code, Some(0));
    // A match in which no group took part has no reference: the row cannot be read.
    let (code, rows) = results(
        csv,
        &[&args[..4], &["--reference-pattern", r"PWB3D/(x)?"]].concat(),
    );
    assert_eq!(rows[0], "INVALID_ROW");
    assert_eq!(code, Some(2));
}

#[test]
fn a_debit_told_by_a_marker_column_is_skipped() {
    for (header, mark) in [("Dr/Cr", "DR"), ("Type", "Debit"), ("Cr/Dr", "D")] {
        let csv = format!(
            "Date,Narration,Amount,{header}\n21/11/2026,REVERSAL PWB3D/SANDBOX-OK-1,\
             \"40,000.00\",{mark}\n21/11/2026,PWB3D/SANDBOX-OK-2,\"40,000.00\",CR\n"
        );
        let args = [
            "--reference-column",
            "Narration",
            "--reference-pattern",
            r"PWB3D/(\S+)",
        ];
        assert_eq!(
            results(&csv, &args),
            (Some(0), vec!["SKIPPED".into(), "MATCHED".into()]),
            "{header}"
        );
    }
    // A withdrawal amount column makes the row a debit too.
    let csv = "Date,Narration,Withdrawal Amount,Deposit Amount\n\
               21/11/2026,PWB3D/SANDBOX-OK-1,\"40,000.00\",\n";
    let args = [
        "--reference-column",
        "Narration",
        "--amount-column",
        "Deposit Amount",
        "--reference-pattern",
        r"PWB3D/(\S+)",
    ];
    assert_eq!(results(csv, &args).1, ["SKIPPED"]);
}

#[test]
fn nothing_to_verify_needs_every_doubtful_column_to_agree() {
    // A second status column says paid: a paid order with no reference needs a look.
    let csv = "Order Number,Order Status,Payment Status,Payment Method,Transaction ID,\
               Order Total Amount\n6002,Pending,Paid,paywithbank3d,,40000\n";
    assert_eq!(results(csv, &[]), (Some(4), vec!["NO_REFERENCE".into()]));
    // Shopify's second reference column holds the reference the first one lacks.
    let csv = "Name,Financial Status,Lineitem name,Currency,Total,Payment Method,Payment \
               Reference,Payment References\n#1102,pending,A,NGN,40000,PayWithBank3D,,\
               SANDBOX-OK-1102\n";
    let (code, rows) = results(csv, &[]);
    assert_ne!(rows, ["UNPAID_NO_REFERENCE"]);
    assert_ne!(code, Some(0));
    // Both agree: still nothing to verify.
    let csv = "Order Number,Order Status,Payment Status,Payment Method,Transaction ID,\
               Order Total Amount\n6002,Pending,Pending,paywithbank3d,,40000\n";
    assert_eq!(
        results(csv, &[]),
        (Some(0), vec!["UNPAID_NO_REFERENCE".into()])
    );
}

#[test]
fn a_customer_named_total_beside_an_email_is_an_order() {
    let csv = "Customer,Email,Date,Reference,Amount\n\
               Ada,a@x.ng,2026-11-21,SANDBOX-OK-1,40000\n\
               Total,t@x.ng,2026-11-21,,40000\n";
    let (code, rows) = results(csv, &[]);
    assert_eq!(rows[0], "MATCHED");
    assert_ne!(rows[1], "TOTALS");
    assert_ne!(code, Some(0));
    // The file's own footer, label and amounts only, is still its totals row.
    let csv = "Customer,Email,Date,Reference,Amount\n\
               Ada,a@x.ng,2026-11-21,SANDBOX-OK-1,40000\n\
               Total,,,,40000\n";
    assert_eq!(
        results(csv, &[]),
        (Some(0), vec!["MATCHED".into(), "TOTALS".into()])
    );
}

#[test]
fn a_split_payment_without_a_payment_date_is_not_final() {
    // The gateway's own plugin acts only once paymentDate is set: a SUCCESSFUL part of a
    // split payment without one is no more paid than a whole payment without one.
    let body = SAMPLE.replace(",\n  \"paymentDate\": \"2022-11-14T22:34:24.913Z\"", "");
    assert_ne!(body, *SAMPLE, "the sample lost its paymentDate");
    let service = RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "200 OK", body.as_bytes());
    });
    let dir = TempDir::new("exit-zero-split-date");
    dir.write(
        "orders.csv",
        "Order ID,Reference,Amount,Payment Method\n\
         1001,0000000000000044177,50000,Gift Card + PayWithBank3D\n",
    );
    let out = payverify_at(&service.url)
        .current_dir(dir.path())
        .args(["reconcile", "orders.csv", "-o", "jsonl"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"result\":\"NOT_FINAL\""),
        "{stdout}{}",
        stderr_of(&out)
    );
    assert_eq!(out.status.code(), Some(9), "{}", stderr_of(&out));
}
