//! Issue 22, item 3: a resumed reconciliation is judged like a fresh one. Whatever a resumed
//! run carries goes through the same one-payment-one-order rule, the same checks and the
//! same totals, in either row order: against an unchanged gateway, resuming any cut-short
//! earlier run (of this file, or of an earlier version of it) writes what a fresh run
//! writes and exits as it exits.
//!
//! The differential test runs generated orders files and interruption points through both
//! paths, and checks the fresh run itself against a model of the documented precedence, so
//! that neither path can drift from the rule unnoticed.

use std::collections::{HashMap, HashSet};
use std::process::Output;

use serde_json::Value;

use crate::common::gateway::{Gateway, Txn};
use crate::common::{TempDir, payverify_at, stderr_of};

/// The case: one payment answers to its transaction reference and its payment
/// reference. The earlier run had a typo on the first row (INVALID_ROW), so the second row
/// was MATCHED there; with the typo fixed, a fresh run makes the second row DUPLICATE.
#[test]
fn a_carried_match_is_held_against_the_row_asked_now_in_either_order() {
    let dir = TempDir::new("resume-like-fresh-issue");
    let payment = Txn::paid("0000000000000044177", 4_000_000).also_as("330137174040");
    let gateway = Gateway::start(&[payment]);
    for (first, second) in [
        ("0000000000000044177", "330137174040"),
        ("330137174040", "0000000000000044177"),
    ] {
        let earlier = format!("reference,amount\n{first},4O000\n{second},40000\n");
        let fixed = format!("reference,amount\n{first},40000\n{second},40000\n");
        dir.write("earlier.csv", &earlier);
        dir.write("orders.csv", &fixed);
        let run1 = reconcile(&gateway, &dir, &["earlier.csv", "-o", "jsonl"]);
        assert_eq!(run1.status.code(), Some(2), "{}", stderr_of(&run1));
        assert_eq!(results(&run1), ["INVALID_ROW", "MATCHED"]);
        std::fs::write(dir.path().join("run1.jsonl"), &run1.stdout).unwrap();

        let fresh = reconcile(&gateway, &dir, &["orders.csv", "-o", "jsonl"]);
        let resumed = reconcile(
            &gateway,
            &dir,
            &["orders.csv", "-o", "jsonl", "--resume", "run1.jsonl"],
        );
        let stderr = stderr_of(&resumed);
        assert_eq!(results(&fresh), ["MATCHED", "DUPLICATE"]);
        assert_eq!(results(&resumed), ["MATCHED", "DUPLICATE"], "{stderr}");
        assert_eq!(resumed.status.code(), Some(4), "{stderr}");
        assert_eq!(resumed.stdout, fresh.stdout, "{stderr}");
        // The MATCHED row was carried as decided, and this run's claims made it the
        // DUPLICATE a fresh run makes it: the one-payment-one-order rule is the writer's,
        // for carried rows and asked ones alike.
        assert!(stderr.contains("(1 carried over, 1 asked)"), "{stderr}");
    }
}

fn reconcile(gateway: &Gateway, dir: &TempDir, args: &[&str]) -> Output {
    payverify_at(&gateway.url)
        .current_dir(dir.path())
        .arg("reconcile")
        .args(args)
        .output()
        .unwrap()
}

/// Each row's result, in output order, from jsonl or csv output.
fn results(out: &Output) -> Vec<String> {
    let text = String::from_utf8_lossy(&out.stdout);
    match text.starts_with('{') || text.is_empty() {
        true => text
            .lines()
            .map(|l| {
                let row: Value = serde_json::from_str(l).unwrap();
                row["result"].as_str().unwrap().to_owned()
            })
            .collect(),
        false => {
            let mut rows = csv::Reader::from_reader(text.as_bytes());
            let at = rows.headers().unwrap().iter().position(|h| h == "result");
            rows.records()
                .map(|r| r.unwrap()[at.unwrap()].to_owned())
                .collect()
        }
    }
}

/// A small deterministic generator (splitmix64): the same seed, the same case.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One row of an orders file: its order id, reference, amount cell, payment method and
/// the shop's order status, and whether it has all its cells.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    order: String,
    reference: String,
    amount: String,
    method: &'static str,
    status: &'static str,
    whole: bool,
}

/// Order statuses: paid in the shop, not paid, and none the reader knows or none at all.
const STATUSES: [&str; 7] = [
    "Processing",
    "Completed",
    "Cancelled",
    "Failed",
    "Pending payment",
    "Draft",
    "",
];

/// Whether the shop counts an order of `status` as not paid (the README's list).
fn shop_unpaid(status: &str) -> bool {
    ["Cancelled", "Failed", "Pending payment", "Refunded"].contains(&status)
}

/// The gateway's payment method id, as WooCommerce exports write it.
const GATEWAY: &str = "paywithbank3d";

impl Row {
    fn line(&self, n: usize) -> String {
        // A file's own totals row holds its label and amounts only: no customer's note (a
        // row labelled Total beside other text is an order's).
        let footer = self.order == "Total" && self.reference.is_empty();
        match self.whole {
            true if footer => format!(
                "{},{},{},{},{},\n",
                self.order, self.reference, self.amount, self.method, self.status
            ),
            true => format!(
                "{},{},{},{},{},note {n}\n",
                self.order, self.reference, self.amount, self.method, self.status
            ),
            false => format!(
                "{},{},{},{},{}\n",
                self.order, self.reference, self.amount, self.method, self.status
            ),
        }
    }

    /// Whether reconcile can ask about this row at all.
    fn valid(&self) -> bool {
        self.whole && self.amount.parse::<f64>().is_ok()
    }

    fn expected_kobo(&self) -> i64 {
        (self.amount.parse::<f64>().unwrap() * 100.0).round() as i64
    }
}

fn file(rows: &[Row]) -> String {
    let mut text = String::from("order id,reference,amount,payment method,status,note\n");
    for (n, row) in rows.iter().enumerate() {
        text.push_str(&row.line(n));
    }
    text
}

/// A generated case: the gateway's transactions, the orders file as it is now, and an
/// earlier version of it that the interrupted run reconciled.
struct Case {
    txns: Vec<Txn>,
    rows: Vec<Row>,
    earlier: Vec<Row>,
    /// Where the rows of a payment named twice on purpose are (0-based), if one is.
    planted: Option<(usize, usize)>,
}

fn naira(kobo: i64) -> String {
    format!("{}.{:02}", kobo / 100, kobo % 100)
}

fn generate(seed: u64) -> Case {
    let mut rng = Rng(seed);
    let amounts = [4_000_000, 3_950_000, 1_250_050];
    let mut txns = Vec::new();
    for i in 0..3 + rng.below(4) {
        let reference = format!("T{seed}-{i}");
        let amount = amounts[rng.below(amounts.len())];
        let txn = match rng.chance(20) {
            true => Txn::failed(&reference, amount),
            false => Txn::paid(&reference, amount),
        };
        // Most payments also answer to a payment reference: the way two rows name one.
        txns.push(match rng.chance(80) {
            true => txn.also_as(&format!("P{seed}-{i}")),
            false => txn,
        });
    }
    // Most cases name one payment twice on purpose, by its two references in either order,
    // each row expecting what was paid: the second row is the one-payment-one-order rule's.
    // The other rows then name other payments, so nothing else decides those two rows.
    let twice: Vec<&Txn> = txns.iter().filter(|t| t.payment_ref.is_some()).collect();
    let pair = match !twice.is_empty() && rng.chance(70) {
        true => {
            let txn = twice[rng.below(twice.len())];
            let mut pair = [
                txn.transaction_ref.clone(),
                txn.payment_ref.clone().unwrap(),
            ];
            if rng.chance(50) {
                pair.reverse();
            }
            Some((pair, txn.amount_kobo))
        }
        false => None,
    };
    let mut names: Vec<(String, i64)> = Vec::new();
    for txn in &txns {
        for name in [Some(&txn.transaction_ref), txn.payment_ref.as_ref()]
            .into_iter()
            .flatten()
        {
            if !pair.as_ref().is_some_and(|(p, _)| p.contains(name)) {
                names.push((name.clone(), txn.amount_kobo));
            }
        }
    }
    names.push((format!("U{seed}-0"), 4_000_000));
    let mut rows: Vec<Row> = Vec::new();
    for n in 0..4 + rng.below(7) {
        // One order exported one row per item: the row above again, right below it.
        if let Some(above) = rows.last().filter(|_| rng.chance(20)) {
            rows.push(above.clone());
            continue;
        }
        let (reference, paid) = names[rng.below(names.len())].clone();
        let expected = match rng.chance(85) {
            true => paid,
            false => amounts[rng.below(amounts.len())],
        };
        let mut row = Row {
            // Now and then a file with no order id on a row.
            order: match rng.chance(10) {
                true => String::new(),
                false => format!("{}", 4100 + n),
            },
            reference,
            amount: naira(expected),
            method: GATEWAY,
            // Mostly paid in the shop.
            status: match rng.chance(60) {
                true => STATUSES[rng.below(2)],
                false => STATUSES[rng.below(STATUSES.len())],
            },
            whole: true,
        };
        // Now and then the current file has a broken row too.
        if rng.chance(8) {
            row.amount = row.amount.replace('0', "O");
        }
        // And rows with no reference: paid another way (SKIPPED), said to be paid through
        // the gateway (NO_REFERENCE), or with no method to tell (INVALID_ROW).
        if rng.chance(15) {
            row.reference.clear();
            row.method = ["cod", "bacs", GATEWAY, ""][rng.below(4)];
        }
        rows.push(row);
    }
    let planted = pair.map(|(pair, paid)| {
        let first = rng.below(rows.len() - 1);
        let second = first + 1 + rng.below(rows.len() - 1 - first);
        for (at, reference) in [(first, &pair[0]), (second, &pair[1])] {
            rows[at] = Row {
                order: rows[at].order.clone(),
                reference: reference.clone(),
                amount: naira(paid),
                method: GATEWAY,
                // Paid in the shop: the rule decides the second row, not the status.
                status: "Processing",
                whole: true,
            };
        }
        (first, second)
    });
    // Now and then a totals row at the end, as a settlement file has: the sum of the amounts
    // above, or a kobo off.
    if rng.chance(30) {
        let sum: i64 = rows
            .iter()
            .filter(|r| r.amount.parse::<f64>().is_ok())
            .map(Row::expected_kobo)
            .sum();
        rows.push(Row {
            order: "Total".into(),
            reference: String::new(),
            amount: naira(sum + i64::from(rng.chance(30))),
            method: "",
            status: "",
            whole: true,
        });
    }
    // The earlier version: some rows differed (a typo since fixed, another amount, another
    // reference, a cell missing), so their earlier results are not this row's; the first
    // row of a planted pair often so (never by another amount, which would still claim the
    // payment), which let the second one match there.
    let mut earlier = rows.clone();
    for (at, row) in earlier.iter_mut().enumerate() {
        let (odds, kinds) = match planted.is_some_and(|(first, _)| first == at) {
            true => (80, 3),
            false => (25, 7),
        };
        if rng.chance(odds) {
            match rng.below(kinds) {
                0 => row.amount = row.amount.replace('0', "O"),
                1 => row.whole = false,
                2 => row.reference = names[rng.below(names.len())].0.clone(),
                3 => row.amount = naira(amounts[rng.below(amounts.len())]),
                // Another payment method then: a skipped row is not carried.
                4 => row.method = ["cod", GATEWAY][rng.below(2)],
                // Another order id: a line item then was a DUPLICATE, or the reverse.
                5 => row.order = format!("{}", 4200 + rng.below(3)),
                // Another order status then: cancelled since, or paid since.
                _ => row.status = STATUSES[rng.below(STATUSES.len())],
            }
        }
    }
    Case {
        txns,
        rows,
        earlier,
        planted,
    }
}

/// What the documented precedence gives each row of `rows` against `txns` (a model written
/// from the README's table, independent of payverify's code).
fn model(txns: &[Txn], rows: &[Row]) -> Vec<&'static str> {
    let mut by_reference: HashMap<&str, &Txn> = HashMap::new();
    for txn in txns {
        by_reference.insert(&txn.transaction_ref, txn);
        if let Some(p) = &txn.payment_ref {
            by_reference.insert(p, txn);
        }
    }
    // The line each reference was first asked about on.
    let mut asked: HashMap<&str, usize> = HashMap::new();
    // The row asked about that the rows right below may be line items of.
    let mut order_above: Option<&Row> = None;
    let mut out = Vec::new();
    for (line, row) in rows.iter().enumerate() {
        let reference = row.reference.as_str();
        let earlier = asked.contains_key(reference);
        let above = order_above.take();
        // The last row, labelled Total, with no reference: the file's totals row, checked
        // against the sum of every amount above it.
        if line + 1 == rows.len()
            && row.order == "Total"
            && reference.is_empty()
            && row.amount.parse::<f64>().is_ok()
        {
            let sum: i64 = rows[..line]
                .iter()
                .filter(|r| r.amount.parse::<f64>().is_ok())
                .map(Row::expected_kobo)
                .sum();
            out.push(match sum == row.expected_kobo() {
                true => "TOTALS",
                false => "TOTALS_MISMATCH",
            });
            continue;
        }
        // A whole row with no reference is told by its payment method, and by a status
        // saying it was never paid (not refunded: money moved) unless another method paid it.
        let never_paid = ["Cancelled", "Failed", "Pending payment"].contains(&row.status);
        if row.whole && reference.is_empty() && never_paid && [GATEWAY, ""].contains(&row.method) {
            out.push("UNPAID_NO_REFERENCE");
            continue;
        }
        if row.whole && reference.is_empty() {
            out.push(match row.method {
                GATEWAY => "NO_REFERENCE",
                "" => "INVALID_ROW",
                _ => "SKIPPED",
            });
            continue;
        }
        if !row.valid() {
            out.push(if earlier { "DUPLICATE" } else { "INVALID_ROW" });
            continue;
        }
        // The same order id (one is given), reference and total as the order right above:
        // one of its line items.
        if let Some(above) = above.filter(|a| {
            !row.order.is_empty()
                && a.order == row.order
                && a.reference == row.reference
                && a.expected_kobo() == row.expected_kobo()
        }) {
            out.push("LINE_ITEM");
            order_above = Some(above);
            continue;
        }
        if earlier {
            out.push("DUPLICATE");
            continue;
        }
        asked.insert(reference, line);
        order_above = Some(row).filter(|r| !r.order.is_empty());
        let Some(txn) = by_reference.get(reference) else {
            out.push("NOT_FOUND");
            continue;
        };
        // The shop's status against the gateway's: a payment taken for an order the
        // shop counts as not paid, or both sides unpaid.
        // BOTH_UNPAID only on a FAILED answer that passed every check (the amount is one):
        // one that did not says nothing of this order's payment.
        if txn.status == "FAILED" {
            out.push(match shop_unpaid(row.status) {
                true if txn.amount_kobo == row.expected_kobo() => "BOTH_UNPAID",
                true => "INTEGRITY_FAILED",
                false => "FAILED",
            });
            continue;
        }
        if shop_unpaid(row.status) {
            out.push("PAID_SHOP_UNPAID");
            continue;
        }
        let expected = row.expected_kobo();
        out.push(match txn.amount_kobo.cmp(&expected) {
            std::cmp::Ordering::Less => "UNDERPAID",
            std::cmp::Ordering::Greater => "OVERPAID",
            std::cmp::Ordering::Equal => {
                // One payment, one order: another of its names asked about on an earlier row.
                let names: HashSet<&str> = [Some(&txn.transaction_ref), txn.payment_ref.as_ref()]
                    .into_iter()
                    .flatten()
                    .map(String::as_str)
                    .filter(|n| *n != reference)
                    .collect();
                match names
                    .iter()
                    .any(|n| asked.get(n).is_some_and(|&l| l < line))
                {
                    true => "DUPLICATE",
                    false => "MATCHED",
                }
            }
        });
    }
    out
}

/// Runs `seeds` through fresh and resumed reconciliation and compares them (see the
/// module's comment).
fn fresh_equals_resumed(seeds: std::ops::Range<u64>) {
    let dir = TempDir::new("resume-like-fresh");
    for seed in seeds {
        let case = generate(seed);
        let gateway = Gateway::start(&case.txns);
        // jsonl resumed from its output; csv from the --state file it kept.
        let format = ["jsonl", "jsonl", "jsonl", "csv"][(seed % 4) as usize];
        let (flag, memory) = match format {
            "csv" => ("--state", "run1.state"),
            _ => ("--resume", "run1.jsonl"),
        };
        let jobs = ["1", "4"][(seed / 4 % 2) as usize];
        dir.write("orders.csv", file(&case.rows));
        dir.write("earlier.csv", file(&case.earlier));
        let base = ["-o", format, "-j", jobs, "--hmac", "require"];
        let run = |file: &str, extra: &[&str]| {
            let mut args = vec![file];
            args.extend(base);
            args.extend(extra);
            reconcile(&gateway, &dir, &args)
        };
        let earlier = run(
            "earlier.csv",
            &["--state", "earlier.state"][..2 * usize::from(format == "csv")],
        );
        let written = match format {
            "csv" => std::fs::read(dir.path().join("earlier.state")).unwrap(),
            _ => earlier.stdout.clone(),
        };
        // The interruption: the earlier run's records cut after some of its lines, perhaps
        // in the middle of the next one (the run was killed while writing it).
        let lines: Vec<&[u8]> = written.split_inclusive(|b| *b == b'\n').collect();
        let mut rng = Rng(seed ^ 0x5eed);
        // Anywhere; with a planted pair, mostly after its second row (a line per row).
        let keep = match case.planted {
            Some((_, second)) if rng.chance(70) => {
                let after = second + 1;
                after + rng.below(lines.len() + 1 - after)
            }
            _ => rng.below(lines.len() + 1),
        };
        let mut part: Vec<u8> = lines[..keep].concat();
        if keep < lines.len() && rng.chance(30) {
            part.extend_from_slice(&lines[keep][..lines[keep].len() / 2]);
        }
        std::fs::write(dir.path().join(memory), &part).unwrap();

        let fresh = run("orders.csv", &["--summary-json", "fresh.json"]);
        let resumed = run(
            "orders.csv",
            &[flag, memory, "--summary-json", "resumed.json"],
        );
        let case_text = format!(
            "seed {seed} (-o {format} -j {jobs}, earlier output cut after {keep} of {} \
             lines)\norders:\n{}earlier:\n{}resumed stderr:\n{}",
            lines.len(),
            file(&case.rows),
            file(&case.earlier),
            stderr_of(&resumed)
        );
        let want = model(&case.txns, &case.rows);
        assert_eq!(
            results(&fresh),
            want,
            "fresh run against the model: {case_text}"
        );
        assert_eq!(results(&resumed), want, "resumed run: {case_text}");
        assert_eq!(resumed.status.code(), fresh.status.code(), "{case_text}");
        assert_eq!(
            String::from_utf8_lossy(&resumed.stdout),
            String::from_utf8_lossy(&fresh.stdout),
            "{case_text}"
        );
        let summary = |name: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap()
        };
        assert_eq!(
            summary("resumed.json"),
            summary("fresh.json"),
            "{case_text}"
        );
    }
}

// Four tests of 12 seeds each, so the harness runs them side by side.
#[test]
fn fresh_and_resumed_agree_on_generated_orders_seeds_0_to_11() {
    fresh_equals_resumed(0..12);
}

#[test]
fn fresh_and_resumed_agree_on_generated_orders_seeds_12_to_23() {
    fresh_equals_resumed(12..24);
}

#[test]
fn fresh_and_resumed_agree_on_generated_orders_seeds_24_to_35() {
    fresh_equals_resumed(24..36);
}

#[test]
fn fresh_and_resumed_agree_on_generated_orders_seeds_36_to_47() {
    fresh_equals_resumed(36..48);
}
