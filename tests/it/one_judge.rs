//! Issue 37: one judge for every command. The same answer, generated over the fields a
//! verdict turns on (status, code, hmac, amount, currency, mode, paymentDate, the reference
//! it names), must come to the same verdict in `verify`, `gate`, `reconcile` and `webhook
//! check`, and to what an oracle written from docs/checks.md and docs/reconcile.md says:
//! the oracle here never asks payverify for the answer.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::{KeepAliveServer, SECRET, TempDir, payverify, payverify_at, stderr_of};

/// The merchant reference every generated answer carries (the row's, the gate's).
const MERCHANT_REF: &str = "WQ-506391000507913";

/// One generated answer: each field a verdict turns on.
#[derive(Debug, Clone, Copy)]
struct Answer {
    status: &'static str,
    /// `None`: no code.
    code: Option<&'static str>,
    /// 0 valid, 1 tampered, 2 absent.
    hmac: u8,
    amount: i64,
    currency: &'static str,
    mode: &'static str,
    dated: bool,
    /// Whether the answer names the reference asked, or another transaction.
    ours: bool,
}

const STATUSES: [&str; 3] = ["SUCCESSFUL", "FAILED", "PENDING"];
const CODES: [Option<&str>; 3] = [Some("00"), Some("05"), None];
const AMOUNTS: [i64; 3] = [4_000_000, 3_999_999, 4_000_001];
// A padded currency is not the currency: the checks and the totals take the service's
// text as it is.
const CURRENCIES: [&str; 3] = ["NGN", " NGN", "USD"];
const MODES: [&str; 2] = ["dev", "live"];

impl Answer {
    /// The answer every check passes.
    const GOOD: Answer = Answer {
        status: "SUCCESSFUL",
        code: Some("00"),
        hmac: 0,
        amount: 4_000_000,
        currency: "NGN",
        mode: "dev",
        dated: true,
        ours: true,
    };

    /// The `n`th of a fixed pseudo-random walk over every field (the same list every run).
    fn generated(n: u64) -> Answer {
        let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
        let mut pick = |len: usize| {
            state ^= state >> 31;
            state = state.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            state ^= state >> 29;
            (state % len as u64) as usize
        };
        Answer {
            status: STATUSES[pick(3)],
            code: CODES[pick(3)],
            hmac: pick(3) as u8,
            amount: AMOUNTS[pick(3)],
            currency: CURRENCIES[pick(3)],
            mode: MODES[pick(2)],
            dated: pick(4) != 0,
            ours: pick(5) != 0,
        }
    }

    /// The answer's body for `reference`, signed with the tests' secret as the gateway
    /// signs it (or not, as `hmac` says).
    fn body(&self, reference: &str) -> String {
        let message = format!("{MERCHANT_REF}{}{}", self.currency, self.amount);
        let mut body = json!({
            "status": self.status,
            "amount": self.amount,
            "currencyCode": self.currency,
            "merchantRef": MERCHANT_REF,
            "transactionRef": if self.ours { reference.to_owned() } else { format!("{reference}-X") },
            "mode": self.mode,
        });
        let object = body.as_object_mut().unwrap();
        if let Some(code) = self.code {
            object.insert("code".into(), code.into());
        }
        if self.dated {
            object.insert("paymentDate".into(), "2026-11-30T10:00:00.000Z".into());
        }
        match self.hmac {
            0 => object.insert(
                "hmac".into(),
                payverify::sign(&payverify::Secret::new(SECRET), &message).into(),
            ),
            1 => object.insert("hmac".into(), "0".repeat(64).into()),
            _ => None,
        };
        body.to_string()
    }

    /// Whether every check verify and gate make here passes (the hmac required, 40000.00
    /// NGN, the merchant ref, mode dev; for a SUCCESSFUL answer code 00; the reference).
    fn checks_pass(&self, reference_checked: bool) -> bool {
        let code = self.status != "SUCCESSFUL" || self.code == Some("00");
        self.hmac == 0
            && code
            && self.amount == 4_000_000
            && self.currency == "NGN"
            && self.mode == "dev"
            && (self.ours || !reference_checked)
    }

    /// verify's (and gate's) exit, from docs/checks.md: FAILED is 1 and any other status
    /// not final 9 whatever the checks say; SUCCESSFUL is 4 when a check failed, 9 without
    /// a paymentDate, else 0.
    fn verify_exit(&self) -> i32 {
        match self.status {
            "FAILED" => 1,
            "PENDING" => 9,
            _ if !self.checks_pass(true) => 4,
            _ if !self.dated => 9,
            _ => 0,
        }
    }

    /// webhook check's exit: an hmac that does not show the gateway sent the payload is 4
    /// whatever it says; otherwise verify's, with no reference to compare.
    fn webhook_exit(&self) -> i32 {
        match (self.hmac, self.status) {
            (1 | 2, _) => 4,
            (_, "FAILED") => 1,
            (_, "PENDING") => 9,
            _ if !self.checks_pass(false) => 4,
            _ if !self.dated => 9,
            _ => 0,
        }
    }

    /// reconcile's result for a row expecting 40000.00 NGN, from docs/reconcile.md's
    /// precedence: for a SUCCESSFUL answer a differing amount, then the currency, then any
    /// other failed check (INTEGRITY_FAILED); FAILED stays FAILED (no shop status says the
    /// order is unpaid); anything else not final.
    fn reconcile_result(&self) -> &'static str {
        match self.status {
            "FAILED" => "FAILED",
            "PENDING" => "NOT_FINAL",
            _ if self.amount < 4_000_000 => "UNDERPAID",
            _ if self.amount > 4_000_000 => "OVERPAID",
            _ if self.currency != "NGN" => "CURRENCY_MISMATCH",
            _ if !self.checks_pass(true) => "INTEGRITY_FAILED",
            _ if !self.dated => "NOT_FINAL",
            _ => "MATCHED",
        }
    }
}

/// The generated answers, the good one first, each with the reference it answers.
fn answers() -> Vec<(String, Answer)> {
    let mut all = vec![Answer::GOOD];
    // Each field alone made wrong, then a walk over all of them together.
    all.extend([
        Answer {
            code: Some("05"),
            ..Answer::GOOD
        },
        Answer {
            hmac: 1,
            ..Answer::GOOD
        },
        Answer {
            amount: 3_999_999,
            currency: " NGN",
            ..Answer::GOOD
        },
        Answer {
            currency: " NGN",
            ..Answer::GOOD
        },
        Answer {
            mode: "live",
            ..Answer::GOOD
        },
        Answer {
            dated: false,
            ..Answer::GOOD
        },
        Answer {
            ours: false,
            ..Answer::GOOD
        },
        Answer {
            status: "FAILED",
            hmac: 2,
            ..Answer::GOOD
        },
    ]);
    all.extend((0..28).map(Answer::generated));
    all.into_iter()
        .enumerate()
        .map(|(i, a)| (format!("JUDGE-{i:03}"), a))
        .collect()
}

/// A service answering each of `answers`' references with its answer, anything else 404.
fn serving(answers: &[(String, Answer)]) -> KeepAliveServer {
    let bodies: HashMap<String, String> = answers
        .iter()
        .map(|(r, a)| (format!("/api/payment/verify/{r}"), a.body(r)))
        .collect();
    KeepAliveServer::start(move |path, _| match bodies.get(path) {
        Some(body) => ("200 OK".into(), vec![], body.clone()),
        None => ("404 Not Found".into(), vec![], "{}".into()),
    })
}

#[test]
fn every_command_comes_to_the_oracles_verdict_on_the_same_answer() {
    let answers = answers();
    let server = serving(&answers);
    let dir = TempDir::new("one-judge");
    let run = |args: &[&str]| {
        payverify_at(&server.url)
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let references: Vec<&str> = answers.iter().map(|(r, _)| r.as_str()).collect();
    dir.write("refs.txt", references.join("\n") + "\n");
    let orders: String = references
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{},{r},40000,NGN,{MERCHANT_REF}\n", 1000 + i))
        .collect();
    dir.write(
        "orders.csv",
        format!("order id,reference,amount,currency,merchant ref\n{orders}"),
    );
    let checks = [
        "--hmac",
        "require",
        "--expect-mode",
        "dev",
        "--expect-amount",
        "40000",
        "--expect-currency",
        "NGN",
        "--merchant-ref",
        MERCHANT_REF,
    ];
    // verify: the whole list as one batch, a record per reference.
    let verify = run(&[
        &["verify", "--from", "refs.txt", "-o", "jsonl"][..],
        &checks,
    ]
    .concat());
    let verified: HashMap<String, i64> = crate::common::jsonl(&verify.stdout)
        .into_iter()
        .map(|r| {
            let reference = r["reference"].as_str().unwrap().to_owned();
            (reference, r["exit_code"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(verified.len(), answers.len(), "{}", stderr_of(&verify));
    // reconcile: the orders file, a row per reference.
    let reconcile = run(&[
        "reconcile",
        "orders.csv",
        "--hmac",
        "require",
        "--expect-mode",
        "dev",
        "-o",
        "jsonl",
    ]);
    let results: HashMap<String, String> = crate::common::jsonl(&reconcile.stdout)
        .into_iter()
        .map(|r| {
            let reference = r["row"]["reference"].as_str().unwrap().to_owned();
            (reference, r["result"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(results.len(), answers.len(), "{}", stderr_of(&reconcile));
    let mut wrong = Vec::new();
    for (reference, answer) in &answers {
        let want = answer.verify_exit();
        let verify_exit = verified[reference.as_str()];
        if verify_exit != i64::from(want) {
            wrong.push(format!(
                "verify {reference} {answer:?}: {verify_exit}, want {want}"
            ));
        }
        let gate = run(&[
            "gate",
            "--amount",
            "40000",
            "--merchant-ref",
            MERCHANT_REF,
            "--expect-mode",
            "dev",
            "--",
            reference,
        ]);
        if gate.status.code() != Some(want) {
            let got = gate.status.code();
            wrong.push(format!("gate {reference} {answer:?}: {got:?}, want {want}"));
        }
        let result = &results[reference.as_str()];
        if result != answer.reconcile_result() {
            let want = answer.reconcile_result();
            wrong.push(format!(
                "reconcile {reference} {answer:?}: {result}, want {want}"
            ));
        }
        dir.write("payload.json", answer.body(reference));
        let webhook = payverify()
            .current_dir(dir.path())
            .env("PAYVERIFY_CLIENT_ID", "test-client")
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .args(["webhook", "check", "payload.json", "--expect-mode", "dev"])
            .args(["--expect-amount", "40000", "--expect-currency", "NGN"])
            .args(["--merchant-ref", MERCHANT_REF])
            .output()
            .unwrap();
        let want = answer.webhook_exit();
        if webhook.status.code() != Some(want) {
            let got = webhook.status.code();
            let stderr = stderr_of(&webhook);
            wrong.push(format!(
                "webhook {answer:?}: {got:?}, want {want}: {stderr}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The one currency rule reaches reconcile's totals: a SUCCESSFUL answer in ` NGN` fails
/// the currency check (CURRENCY_MISMATCH), and so its money is not counted as naira the
/// gateway collected either (before, the totals trimmed the currency the check did not).
#[test]
fn a_padded_currency_is_neither_the_rows_currency_nor_counted_in_its_totals() {
    let padded = Answer {
        currency: " NGN",
        ..Answer::GOOD
    };
    let server = serving(&[
        ("R-PADDED".to_owned(), padded),
        ("R-GOOD".to_owned(), Answer::GOOD),
    ]);
    let dir = TempDir::new("one-judge-currency");
    dir.write(
        "orders.csv",
        "order id,reference,amount,currency\n1,R-GOOD,40000,NGN\n2,R-PADDED,40000,NGN\n",
    );
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(["reconcile", "orders.csv", "--summary-json", "sum.json"])
        .args(["-o", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let results: Vec<String> = crate::common::jsonl(&out.stdout)
        .iter()
        .map(|r| r["result"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(results, ["MATCHED", "CURRENCY_MISMATCH"]);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sum.json")).unwrap())
            .unwrap();
    // Only the MATCHED row's 40,000.00 is naira the gateway has.
    let text = summary.to_string();
    assert_eq!(
        summary["collected_total_kobo"], 4_000_000,
        "the padded currency's money counted as naira: {text}"
    );
}

/// doctor's credentials probe and verify classify the same answer the same way: whatever
/// the service sends for a reference, doctor's exit for the probe is verify's for it (a
/// JSON 404 is the one answer doctor passes, and an answer with a status one it warns of).
/// Before, doctor mapped HTTP statuses to exits itself, and passed (with a warning) a JSON
/// 200 that verify calls a bad response.
#[test]
fn doctor_and_verify_classify_the_probes_answer_alike() {
    let answers: [(&str, &str); 9] = [
        ("401 Unauthorized", r#"{"message":"bad key"}"#),
        ("403 Forbidden", ""),
        ("429 Too Many Requests", "{}"),
        ("503 Service Unavailable", "<html>down</html>"),
        ("302 Found", ""),
        ("418 I'm a teapot", "{}"),
        ("200 OK", "<html>a shop</html>"),
        ("200 OK", r#"{"message":"no such transaction"}"#),
        ("404 Not Found", "<html>not here</html>"),
    ];
    for (status, body) in answers {
        let (status, body) = (status.to_owned(), body.to_owned());
        let server = KeepAliveServer::start(move |_, _| (status.clone(), vec![], body.clone()));
        let verify = payverify_at(&server.url)
            .args([
                "verify",
                "--retries",
                "0",
                "--give-up-after",
                "0",
                "--",
                "ANY-REF-1",
            ])
            .output()
            .unwrap();
        let doctor = payverify_at(&server.url)
            .args(["doctor", "--retries", "0"])
            .output()
            .unwrap();
        let verify_exit = verify.status.code();
        assert!(matches!(verify_exit, Some(5 | 7 | 8)), "{verify_exit:?}");
        assert_eq!(
            doctor.status.code(),
            verify_exit,
            "{:?}: {}",
            server.url,
            crate::common::stdout_of(&doctor)
        );
    }
}
