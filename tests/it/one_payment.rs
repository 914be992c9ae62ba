//! One payment pays for one order, however the gateway names it (the attack on issue 38's
//! item 9 found three ways round it, each an exit 0): two references answered as one
//! payment without either answer naming the other's reference; two orders of different ids
//! whose rows give one merchant reference; and a payment an answer names by its
//! merchantRef alone, which was never claimed. Each through the real binary, against a
//! gateway that answers what the test says.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::common::{KeepAliveServer, SECRET, TempDir, jsonl, payverify_at, stderr_of};

/// What the gateway answers for one reference: a SUCCESSFUL payment of ₦18,500.00 with
/// these names (`None`: the field is left out).
#[derive(Clone)]
struct Names {
    transaction_ref: Option<&'static str>,
    payment_ref: Option<&'static str>,
    merchant_ref: &'static str,
}

fn body(names: &Names) -> String {
    let amount = 1_850_000;
    let hmac = payverify::sign(
        &payverify::Secret::new(SECRET),
        &format!("{}NGN{amount}", names.merchant_ref),
    );
    let mut body = serde_json::json!({
        "hmac": hmac,
        "mode": "live",
        "status": "SUCCESSFUL",
        "code": "00",
        "description": "Approved by Financial Institution",
        "amount": amount,
        "merchantRef": names.merchant_ref,
        "currencyCode": "NGN",
        "paymentDate": "2026-11-22T10:00:00.000Z",
    });
    if let Some(t) = names.transaction_ref {
        body["transactionRef"] = t.into();
    }
    if let Some(p) = names.payment_ref {
        body["paymentRef"] = p.into();
    }
    body.to_string()
}

/// A gateway answering each reference of `answers`, 404 for any other.
fn gateway(answers: &[(&'static str, Names)]) -> KeepAliveServer {
    let by_reference: Arc<HashMap<String, String>> = Arc::new(
        (answers.iter())
            .map(|(r, names)| ((*r).to_owned(), body(names)))
            .collect(),
    );
    KeepAliveServer::start(move |path, _| {
        let reference = path.rsplit('/').next().unwrap_or("");
        match by_reference.get(reference) {
            Some(body) => ("200 OK".into(), vec![], body.clone()),
            None => (
                "404 Not Found".into(),
                vec![],
                r#"{"message":"not found"}"#.into(),
            ),
        }
    })
}

const HEADER: &str = "Order ID,Reference,Amount,Currency,Merchant Ref\n";

/// `reconcile FILE -o jsonl ARGS` in `dir` against `url`: the exit and each row's result.
fn reconcile(dir: &TempDir, url: &str, file: &str, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let out = payverify_at(url)
        .current_dir(dir.path())
        .args(["reconcile", file, "-o", "jsonl", "--retries", "0"])
        .args(args)
        .output()
        .unwrap();
    let results = (jsonl(&out.stdout).iter())
        .map(|r: &Value| r["result"].as_str().unwrap_or_default().to_owned())
        .collect();
    (out.status.code(), results)
}

fn journal_dir(dir: &TempDir) -> String {
    let journal = dir.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    journal.join("j.sqlite3").to_string_lossy().into_owned()
}

/// `gate --journal JOURNAL --amount-kobo 1850000 --expect-mode live --merchant-ref M --
/// REFERENCE` against `url`: its exit, with stderr for the message.
fn gate(url: &str, journal: &str, merchant_ref: &str, reference: &str) -> (Option<i32>, String) {
    let out = payverify_at(url)
        .args(["--journal", journal, "gate", "--amount-kobo", "1850000"])
        .args([
            "--expect-mode",
            "live",
            "--merchant-ref",
            merchant_ref,
            "--",
            reference,
        ])
        .output()
        .unwrap();
    (out.status.code(), stderr_of(&out))
}

/// Each `(order id, reference, merchant ref)` reconciled alone, one run after another on
/// `journal`: each run's exit and its one row's result.
fn runs(
    dir: &TempDir,
    url: &str,
    journal: &str,
    rows: &[(&str, &str, &str)],
) -> Vec<(Option<i32>, Vec<String>)> {
    (rows.iter())
        .map(|(order, reference, merchant_ref)| {
            let row = format!("{order},{reference},18500,NGN,{merchant_ref}\n");
            dir.write("run.csv", format!("{HEADER}{row}"));
            reconcile(dir, url, "run.csv", &["--journal", journal])
        })
        .collect()
}

/// One row's run: its exit and result.
fn row(code: i32, result: &str) -> (Option<i32>, Vec<String>) {
    (Some(code), vec![result.to_owned()])
}

#[test]
fn one_payment_under_two_references_is_matched_for_one_row_only() {
    // Shared by transactionRef (each answer naming its own reference as paymentRef), then
    // by paymentRef alone: the second row is a DUPLICATE of the first, with or without a
    // journal, at -j 1 and -j 8.
    let by_transaction = |r| Names {
        transaction_ref: Some("6399594986477588676"),
        payment_ref: Some(r),
        merchant_ref: "SHOP-4101",
    };
    let by_payment = |r| Names {
        transaction_ref: Some(r),
        payment_ref: Some("330137174040"),
        merchant_ref: "SHOP-4101",
    };
    for (how, names) in [
        ("transactionRef", by_transaction as fn(_) -> _),
        ("paymentRef", by_payment),
    ] {
        let server = gateway(&[("PAY-A", names("PAY-A")), ("PAY-B", names("PAY-B"))]);
        let dir = TempDir::new("one-payment-two-refs");
        // Another order, and the same order again: one payment, one row.
        dir.write(
            "orders.csv",
            format!("{HEADER}4101,PAY-A,18500,NGN,\n4200,PAY-B,18500,NGN,\n"),
        );
        dir.write(
            "same-order.csv",
            format!("{HEADER}4101,PAY-A,18500,NGN,\n4101,PAY-B,18500,NGN,\n"),
        );
        let journal = journal_dir(&dir);
        for file in ["orders.csv", "same-order.csv"] {
            for jobs in ["1", "8"] {
                for journal in [vec!["--no-journal"], vec!["--journal", journal.as_str()]] {
                    let mut args = vec!["-j", jobs];
                    args.extend(journal.iter().copied());
                    let got = reconcile(&dir, &server.url, file, &args);
                    assert_eq!(
                        got,
                        (Some(4), vec!["MATCHED".to_owned(), "DUPLICATE".to_owned()]),
                        "{how}, {file}, {args:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn two_order_ids_whose_rows_give_one_merchant_ref_are_two_orders() {
    // One payment, T-1, each answer naming the reference asked as its paymentRef.
    let names = |r| Names {
        transaction_ref: Some("T-1"),
        payment_ref: Some(r),
        merchant_ref: "M1",
    };
    let server = gateway(&[("R1", names("R1")), ("R2", names("R2"))]);
    let dir = TempDir::new("one-payment-merchant-ref");
    let journal = journal_dir(&dir);
    // In one file.
    dir.write(
        "both.csv",
        format!("{HEADER}4101,R1,18500,NGN,M1\n4200,R2,18500,NGN,M1\n"),
    );
    let got = reconcile(&dir, &server.url, "both.csv", &["--journal", &journal]);
    assert_eq!(got, (Some(4), vec!["MATCHED".into(), "DUPLICATE".into()]));
    // Across two runs: the second order's row is the DUPLICATE; the first order's again
    // (a re-run) is not.
    let journal = journal.replace("j.sqlite3", "k.sqlite3");
    let a = ("4101", "R1", "M1");
    assert_eq!(
        runs(&dir, &server.url, &journal, &[a, ("4200", "R2", "M1"), a]),
        [row(0, "MATCHED"), row(4, "DUPLICATE"), row(0, "MATCHED")]
    );
}

#[test]
fn a_payment_named_by_its_merchant_ref_alone_is_claimed_for_one_order() {
    let names = Names {
        transaction_ref: None,
        payment_ref: None,
        merchant_ref: "REF-A",
    };
    let server = gateway(&[("REF-A", names)]);
    let dir = TempDir::new("one-payment-merchant-only");
    let journal = journal_dir(&dir);
    assert_eq!(
        runs(
            &dir,
            &server.url,
            &journal,
            &[("4101", "REF-A", ""), ("4200", "REF-A", "")]
        ),
        [row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
    // gate, which passes it only for its own merchantRef, is refused too: order 4101 has it.
    let (code, stderr) = gate(&server.url, &journal, "REF-A", "REF-A");
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("order 4101"), "{stderr}");
}

#[test]
fn a_later_row_asking_by_a_name_the_earlier_answer_gave_is_a_duplicate_in_either_order() {
    // T1 is answered {T1, P1}; P1, asked by a later row, is answered {T9, P1}: one payment
    // by its paymentRef, though the later answer names nothing the earlier row asked. And
    // the other way round: P1 answered {T1, P1}, then T1 answered {T1, P9}.
    let cases: [(&str, [(&'static str, Names); 2]); 2] = [
        (
            "T1 then P1",
            [
                (
                    "T1",
                    Names {
                        transaction_ref: Some("T1"),
                        payment_ref: Some("P1"),
                        merchant_ref: "M1",
                    },
                ),
                (
                    "P1",
                    Names {
                        transaction_ref: Some("T9"),
                        payment_ref: Some("P1"),
                        merchant_ref: "M9",
                    },
                ),
            ],
        ),
        (
            "P1 then T1",
            [
                (
                    "P1",
                    Names {
                        transaction_ref: Some("T1"),
                        payment_ref: Some("P1"),
                        merchant_ref: "M1",
                    },
                ),
                (
                    "T1",
                    Names {
                        transaction_ref: Some("T1"),
                        payment_ref: Some("P9"),
                        merchant_ref: "M9",
                    },
                ),
            ],
        ),
    ];
    for (case, answers) in cases {
        let server = gateway(&answers);
        let dir = TempDir::new("one-payment-later-name");
        let (first, second) = (answers[0].0, answers[1].0);
        for order in ["1001", "1002"] {
            dir.write(
                "orders.csv",
                format!("{HEADER}1001,{first},18500,NGN,\n{order},{second},18500,NGN,\n"),
            );
            for jobs in ["1", "8"] {
                assert_eq!(
                    reconcile(
                        &dir,
                        &server.url,
                        "orders.csv",
                        &["--no-journal", "-j", jobs]
                    ),
                    (Some(4), vec!["MATCHED".to_owned(), "DUPLICATE".to_owned()]),
                    "{case}, second order {order}, -j {jobs}"
                );
            }
        }
    }
}

#[test]
fn a_gate_claim_matched_to_an_order_id_is_that_orders_from_then_on() {
    let names = |r| Names {
        transaction_ref: Some("T1"),
        payment_ref: Some(r),
        merchant_ref: "M1",
    };
    let server = gateway(&[
        ("T1", names("P1")),
        ("R2", names("R2")),
        ("R3", names("R3")),
    ]);
    let dir = TempDir::new("one-payment-gate-then-orders");
    let journal = journal_dir(&dir);
    let (code, stderr) = gate(&server.url, &journal, "M1", "T1");
    assert_eq!(code, Some(0), "{stderr}");
    // Order 1002 gives the gate's merchant reference: the gate's order, now by its id.
    // Order 1003 with the same merchant reference is another order, on a later run and in
    // one file with 1002 again.
    assert_eq!(
        runs(
            &dir,
            &server.url,
            &journal,
            &[("1002", "R2", "M1"), ("1003", "R3", "M1")]
        ),
        [row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
    let journal = journal.replace("j.sqlite3", "k.sqlite3");
    let (code, stderr) = gate(&server.url, &journal, "M1", "T1");
    assert_eq!(code, Some(0), "{stderr}");
    dir.write(
        "both.csv",
        format!("{HEADER}1002,R2,18500,NGN,M1\n1003,R3,18500,NGN,M1\n"),
    );
    assert_eq!(
        reconcile(&dir, &server.url, "both.csv", &["--journal", &journal]),
        (Some(4), vec!["MATCHED".into(), "DUPLICATE".into()])
    );
}

#[test]
fn placeholder_names_do_not_make_two_payments_one() {
    // Two payments whose paymentRef is a placeholder (or whose transactionRef is one, with
    // the reference asked as paymentRef): each its own payment, MATCHED.
    for placeholder in ["0", "000", "null", "\u{200b}", " "] {
        let names = |t: &'static str, m: &'static str| Names {
            transaction_ref: Some(t),
            payment_ref: Some(Box::leak(placeholder.to_owned().into_boxed_str())),
            merchant_ref: m,
        };
        let server = gateway(&[("T1", names("T1", "M1")), ("T2", names("T2", "M2"))]);
        let dir = TempDir::new("one-payment-placeholders");
        dir.write(
            "orders.csv",
            format!("{HEADER}1001,T1,18500,NGN,\n1002,T2,18500,NGN,\n"),
        );
        assert_eq!(
            reconcile(&dir, &server.url, "orders.csv", &["--no-journal"]),
            (Some(0), vec!["MATCHED".to_owned(), "MATCHED".to_owned()]),
            "paymentRef {placeholder:?}"
        );
    }
}

#[test]
fn one_name_in_two_fields_is_one_payment_in_a_file_and_across_days() {
    // Q is answered {transactionRef Q, paymentRef T1}; T1 is answered {T1, P1}: T1 names
    // one payment whichever field holds it.
    let server = gateway(&[
        (
            "Q",
            Names {
                transaction_ref: Some("Q"),
                payment_ref: Some("T1"),
                merchant_ref: "MQ",
            },
        ),
        (
            "T1",
            Names {
                transaction_ref: Some("T1"),
                payment_ref: Some("P1"),
                merchant_ref: "M1",
            },
        ),
    ]);
    let dir = TempDir::new("one-payment-two-fields");
    dir.write(
        "orders.csv",
        format!("{HEADER}1001,Q,18500,NGN,\n1002,T1,18500,NGN,\n"),
    );
    assert_eq!(
        reconcile(&dir, &server.url, "orders.csv", &["--no-journal"]),
        (Some(4), vec!["MATCHED".to_owned(), "DUPLICATE".to_owned()])
    );
    let journal = journal_dir(&dir);
    assert_eq!(
        runs(
            &dir,
            &server.url,
            &journal,
            &[("1001", "T1", ""), ("1002", "Q", "")]
        ),
        [row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
}

#[test]
fn a_reference_that_looks_like_a_placeholder_still_names_the_payment_asked_by_it() {
    // The reference asked is `0`, and each answer names it so, with another merchantRef
    // each time: the second gate, for another order, is refused.
    let server = KeepAliveServer::start(|_, n| {
        let merchant_ref: &'static str = if n == 1 { "M1" } else { "M2" };
        let names = Names {
            transaction_ref: Some("0"),
            payment_ref: Some("0"),
            merchant_ref,
        };
        ("200 OK".into(), vec![], body(&names))
    });
    let dir = TempDir::new("one-payment-zero");
    let journal = journal_dir(&dir);
    let (first, stderr) = gate(&server.url, &journal, "M1", "0");
    assert_eq!(first, Some(0), "{stderr}");
    let (second, stderr) = gate(&server.url, &journal, "M2", "0");
    assert_eq!(second, Some(4), "{stderr}");
}

/// A row whose order id cell is empty, in a file with an order id column, claims its
/// payment too, as that row's (its reference): a later run giving the payment to an order
/// is a DUPLICATE naming that row, and so is the other way round, and so is a blank row
/// of another file asking the payment by another reference; the blank row again (a
/// re-run) is not.
#[test]
fn a_row_with_no_order_id_still_claims_its_payment_across_runs() {
    let names = Names {
        transaction_ref: Some("R77"),
        payment_ref: Some("P-77"),
        merchant_ref: "M77",
    };
    // The same payment, asked by its other name.
    let by_payment_ref = Names {
        transaction_ref: Some("R77"),
        payment_ref: Some("R78"),
        merchant_ref: "M77",
    };
    let server = gateway(&[("R77", names), ("R78", by_payment_ref)]);
    let dir = TempDir::new("one-payment-blank-order");
    let journal = journal_dir(&dir);
    let blank = ("", "R77", "");
    assert_eq!(
        runs(
            &dir,
            &server.url,
            &journal,
            &[blank, blank, ("4105", "R77", "")]
        ),
        [row(0, "MATCHED"), row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(["--journal", &journal, "reconcile", "run.csv", "-o", "jsonl"])
        .output()
        .unwrap();
    let record = &jsonl(&out.stdout)[0];
    assert!(
        (record["error"].as_str().unwrap_or_default())
            .contains("already paid for a row with no order id, reference R77 (reconcile, "),
        "{record}"
    );
    let journal = journal.replace("j.sqlite3", "k.sqlite3");
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("4105", "R77", ""), blank]),
        [row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
    // Two files' blank rows, the payment asked by each of its names.
    let journal = journal.replace("k.sqlite3", "l.sqlite3");
    assert_eq!(
        runs(&dir, &server.url, &journal, &[blank, ("", "R78", "")]),
        [row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
}

/// An answer naming its payment by a merchantRef alone is held against an answer that
/// names its payment and gives the same merchantRef, whichever row comes first: in one
/// file (journal or not, -j 1 and -j 8) and across runs. Two named payments of one
/// merchantRef stay two payments (one order's retries share it).
#[test]
fn a_merchant_ref_alone_meets_a_named_payment_of_that_merchant_ref_in_either_order() {
    let alone = Names {
        transaction_ref: None,
        payment_ref: None,
        merchant_ref: "M1",
    };
    let named = |r| Names {
        transaction_ref: Some(r),
        payment_ref: None,
        merchant_ref: "M1",
    };
    let server = gateway(&[("M1", alone), ("R2", named("R2")), ("R3", named("R3"))]);
    let dir = TempDir::new("one-payment-merchant-alone");
    let journal = journal_dir(&dir);
    let rows = [("4101", "M1"), ("4200", "R2")];
    for (first, second) in [(rows[0], rows[1]), (rows[1], rows[0])] {
        // A journal of its own for each order of the rows: the claims of one would decide
        // the other's.
        let journal = journal.replace("j.sqlite3", &format!("one-file-{}.sqlite3", first.0));
        let line = |(order, reference): (&str, &str)| format!("{order},{reference},18500,NGN,\n");
        dir.write(
            "both.csv",
            format!("{HEADER}{}{}", line(first), line(second)),
        );
        for jobs in ["1", "8"] {
            for journal in [vec!["--no-journal"], vec!["--journal", journal.as_str()]] {
                let mut args = vec!["-j", jobs];
                args.extend(journal.iter().copied());
                assert_eq!(
                    reconcile(&dir, &server.url, "both.csv", &args),
                    (Some(4), vec!["MATCHED".to_owned(), "DUPLICATE".to_owned()]),
                    "{first:?} then {second:?}, {args:?}"
                );
            }
        }
        let journal = dir.path().join(format!("journal/{}.sqlite3", first.0));
        let journal = journal.to_string_lossy();
        assert_eq!(
            runs(
                &dir,
                &server.url,
                &journal,
                &[(first.0, first.1, ""), (second.0, second.1, "")]
            ),
            [row(0, "MATCHED"), row(4, "DUPLICATE")],
            "{first:?} then {second:?}, across runs"
        );
    }
    // Two named payments of one merchantRef, for two orders: no DUPLICATE.
    dir.write(
        "named.csv",
        format!("{HEADER}4200,R2,18500,NGN,\n4300,R3,18500,NGN,\n"),
    );
    let journal = dir.path().join("journal/named.sqlite3");
    assert_eq!(
        reconcile(
            &dir,
            &server.url,
            "named.csv",
            &["--journal", &journal.to_string_lossy()]
        ),
        (Some(0), vec!["MATCHED".to_owned(), "MATCHED".to_owned()])
    );
}

/// A gate's merchant reference that is not WooCommerce's is no order id, however it reads:
/// a reconcile row of order `1002` is not the gate's merchant reference `1002`, so one
/// payment passed by the one is a DUPLICATE for the other, in either order (found by an
/// attack on the release build: both exited 0).
#[test]
fn a_gate_merchant_ref_that_reads_as_an_order_id_is_not_that_order() {
    let named = |r, merchant_ref| Names {
        transaction_ref: Some(r),
        payment_ref: None,
        merchant_ref,
    };
    let server = gateway(&[("P1", named("P1", "1002")), ("P2", named("P2", "1001"))]);
    let dir = TempDir::new("one-payment-merchant-ref-as-id");
    let journal = journal_dir(&dir);
    let (code, stderr) = gate(&server.url, &journal, "1002", "P1");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1002", "P1", "")]),
        [row(4, "DUPLICATE")]
    );
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1001", "P2", "")]),
        [row(0, "MATCHED")]
    );
    let (code, stderr) = gate(&server.url, &journal, "1001", "P2");
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("already paid for order 1001 (reconcile, "),
        "{stderr}"
    );
}

/// Two orders' named payments that give one merchantRef leave it held by several orders:
/// a later payment named by that merchantRef alone is a DUPLICATE for either order, not
/// only for the one that came first (found by an attack on the release build: exit 0).
#[test]
fn a_merchant_ref_two_orders_gave_is_held_against_a_merchant_ref_alone_for_either() {
    let named = |r| Names {
        transaction_ref: Some(r),
        payment_ref: None,
        merchant_ref: "M-X",
    };
    let alone = Names {
        transaction_ref: None,
        payment_ref: None,
        merchant_ref: "M-X",
    };
    let server = gateway(&[("P1", named("P1")), ("P2", named("P2")), ("M-X", alone)]);
    let dir = TempDir::new("one-payment-several-orders");
    let journal = journal_dir(&dir);
    assert_eq!(
        runs(
            &dir,
            &server.url,
            &journal,
            &[("1001", "P1", ""), ("1002", "P2", ""), ("1001", "M-X", "")]
        ),
        [row(0, "MATCHED"), row(0, "MATCHED"), row(4, "DUPLICATE")]
    );
    // The two orders in one file (the run's own queue of claims), then the merchantRef
    // alone on the next run.
    let journal = journal.replace("j.sqlite3", "f.sqlite3");
    dir.write(
        "two.csv",
        format!("{HEADER}1001,P1,18500,NGN,\n1002,P2,18500,NGN,\n"),
    );
    let got = reconcile(&dir, &server.url, "two.csv", &["--journal", &journal]);
    assert_eq!(got, (Some(0), vec!["MATCHED".into(), "MATCHED".into()]));
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1001", "M-X", "")]),
        [row(4, "DUPLICATE")]
    );
    // The same with gate: its merchant reference, then a row of another order, then gate
    // again for the merchantRef alone.
    let journal = journal.replace("f.sqlite3", "g.sqlite3");
    let (code, stderr) = gate(&server.url, &journal, "M-X", "P1");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1002", "P2", "")]),
        [row(0, "MATCHED")]
    );
    let (code, stderr) = gate(&server.url, &journal, "M-X", "M-X");
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("already paid for several orders"),
        "{stderr}"
    );
}

/// `transactionRef` and `paymentRef` of another type than a string or a whole number are a
/// bad response (exit 8), never a name made of their JSON text; and placeholder spellings
/// (`#N/A`, a full-width `Ｎｕｌｌ`) name nothing, so an answer giving only those and a
/// merchantRef is named by the merchantRef alone and meets an earlier order's named payment
/// of it (found by an attack on the release build: each passed with exit 0).
#[test]
fn names_of_another_type_are_a_bad_response_and_placeholder_spellings_name_nothing() {
    let with = |fields: Value| {
        let mut body: Value = serde_json::from_str(&body(&Names {
            transaction_ref: None,
            payment_ref: None,
            merchant_ref: "M-X",
        }))
        .unwrap();
        for (key, value) in fields.as_object().unwrap() {
            body[key] = value.clone();
        }
        body.to_string()
    };
    let mut answers: Vec<(&'static str, String)> =
        vec![("T1", with(serde_json::json!({ "transactionRef": "T1" })))];
    let odd = [
        ("B1", serde_json::json!({ "transactionRef": [] })),
        ("B2", serde_json::json!({ "paymentRef": false })),
        ("B3", serde_json::json!({ "transactionRef": { "x": 1 } })),
        ("B4", serde_json::json!({ "paymentRef": 1.2e4 })),
    ];
    for (reference, fields) in &odd {
        answers.push((reference, with(fields.clone())));
    }
    let placeholders = serde_json::json!({ "transactionRef": "#N/A", "paymentRef": "\u{ff2e}\u{ff55}\u{ff4c}\u{ff4c}" });
    answers.push(("M-X", with(placeholders)));
    let answers: Arc<HashMap<&'static str, String>> = Arc::new(answers.into_iter().collect());
    let server = KeepAliveServer::start(move |path, _| {
        let reference = path.rsplit('/').next().unwrap_or("");
        match answers.get(reference) {
            Some(body) => ("200 OK".into(), vec![], body.clone()),
            None => ("404 Not Found".into(), vec![], "{}".into()),
        }
    });
    let dir = TempDir::new("one-payment-odd-names");
    let journal = journal_dir(&dir);
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1001", "T1", "")]),
        [row(0, "MATCHED")]
    );
    for (reference, _) in &odd {
        let (code, results) = &runs(&dir, &server.url, &journal, &[("1002", reference, "")])[0];
        assert_eq!(*code, Some(8), "{reference}: {results:?}");
    }
    // The merchantRef alone (its other names placeholders) meets order 1001's T1.
    assert_eq!(
        runs(&dir, &server.url, &journal, &[("1002", "M-X", "")]),
        [row(4, "DUPLICATE")]
    );
}
