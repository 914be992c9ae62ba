//! Issue 22, item 4: one precedence. Each reconcile row gets the first result of the
//! documented table that applies, whatever made it invalid: a row that repeats the
//! reference of an earlier row verified there is DUPLICATE (above INVALID_ROW in the table)
//! whether its amount is unreadable, it has too few or too many cells, a cell is not UTF-8
//! or its amount contradicts its currency. A row that could not be asked about claims no
//! reference, so the same reference on a later valid row is still verified.

use crate::common::{TempDir, payverify};

#[test]
fn a_repeated_reference_is_duplicate_whatever_made_the_row_invalid() {
    let dir = TempDir::new("precedence");
    let mut orders = b"reference,amount,currency,note\n".to_vec();
    for row in [
        &b"SANDBOX-OK-1,40000,NGN,first\n"[..],
        b"SANDBOX-OK-1,40000,NGN\n",
        b"SANDBOX-OK-1,40000,NGN,a,extra\n",
        b"SANDBOX-OK-1,forty,NGN,a\n",
        b"SANDBOX-OK-1,40000,NGN,\xff\xfe\n",
        "SANDBOX-OK-1,₦40000,GHS,a\n".as_bytes(),
        b"SANDBOX-OK-2,40000,NGN\n",
        b"SANDBOX-OK-2,40000,NGN,fixed\n",
        b"SANDBOX-OK-3,x,NGN,a\n",
        b"SANDBOX-OK-3,40000,NGN,fixed\n",
    ] {
        orders.extend_from_slice(row);
    }
    std::fs::write(dir.path().join("orders.csv"), &orders).unwrap();
    let out = payverify()
        .current_dir(dir.path())
        .args([
            "reconcile",
            "--sandbox",
            "orders.csv",
            "-o",
            "jsonl",
            "-j",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = crate::common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let rows = crate::common::jsonl(&out.stdout);
    let got: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (2, "MATCHED"),
            (3, "DUPLICATE"),
            (4, "DUPLICATE"),
            (5, "DUPLICATE"),
            (6, "DUPLICATE"),
            (7, "DUPLICATE"),
            // An invalid row claims nothing: the valid row after it is verified.
            (8, "INVALID_ROW"),
            (9, "MATCHED"),
            (10, "INVALID_ROW"),
            (11, "MATCHED"),
        ],
        "{stderr}"
    );
    for row in &rows[1..6] {
        assert_eq!(
            row["error"], "reference SANDBOX-OK-1 is already on line 2, verified there",
            "{row}"
        );
    }
    assert!(
        rows[6]["error"]
            .as_str()
            .unwrap()
            .starts_with("the row has 3 fields; the header has 4"),
        "{}",
        rows[6]
    );
    // The summary counts each row once, under its one result.
    assert!(
        stderr.contains("10 rows") && stderr.contains("3 MATCHED, 5 DUPLICATE, 2 INVALID_ROW"),
        "{stderr}"
    );
}
