//! A stand-in for the gateway for what the built-in sandbox cannot do: one transaction that
//! answers to two references (its transaction and its payment reference), and requests held
//! until the test lets them through, so a test decides exactly what happens first.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use payverify::Secret;

use super::{KeepAliveServer, SECRET};

/// One transaction the gateway knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txn {
    /// `SUCCESSFUL` or `FAILED`.
    pub status: &'static str,
    pub amount_kobo: i64,
    pub merchant_ref: String,
    /// What it answers to; the payment reference too, when it has one.
    pub transaction_ref: String,
    pub payment_ref: Option<String>,
}

impl Txn {
    /// A SUCCESSFUL payment of `amount_kobo` answering to `reference` only.
    pub fn paid(reference: &str, amount_kobo: i64) -> Txn {
        Txn {
            status: "SUCCESSFUL",
            amount_kobo,
            merchant_ref: format!("M-{reference}"),
            transaction_ref: reference.to_owned(),
            payment_ref: None,
        }
    }

    /// A FAILED payment answering to `reference`.
    pub fn failed(reference: &str, amount_kobo: i64) -> Txn {
        Txn {
            status: "FAILED",
            ..Txn::paid(reference, amount_kobo)
        }
    }

    /// The same transaction, also answering to `payment_ref`.
    pub fn also_as(self, payment_ref: &str) -> Txn {
        Txn {
            payment_ref: Some(payment_ref.to_owned()),
            ..self
        }
    }

    /// The response body, signed with the tests' SECRET as the gateway signs it.
    pub fn body(&self) -> String {
        let message = format!("{}NGN{}", self.merchant_ref, self.amount_kobo);
        let hmac = payverify::sign(&Secret::new(SECRET), &message);
        let (code, description) = match self.status {
            "SUCCESSFUL" => ("00", "Approved by Financial Institution"),
            _ => ("51", "Insufficient Funds"),
        };
        let mut body = serde_json::json!({
            "hmac": hmac,
            "mode": "live",
            "status": self.status,
            "code": code,
            "description": description,
            "amount": self.amount_kobo,
            "merchantRef": self.merchant_ref,
            "transactionRef": self.transaction_ref,
            "currencyCode": "NGN",
            "paymentDate": "2026-11-22T10:00:00.000Z",
        });
        // A transaction with no payment reference answers none: one placeholder shared by
        // every such answer would name them all one payment.
        if let Some(payment_ref) = &self.payment_ref {
            body["paymentRef"] = payment_ref.as_str().into();
        }
        body.to_string()
    }
}

/// The gateway. A reference starting with `GATE-` is answered only once [`Gateway::open`]
/// was called; one starting with `SLOW-` after 50 ms. Unknown references are 404.
pub struct Gateway {
    pub url: String,
    gate: Arc<(Mutex<bool>, Condvar)>,
    server: KeepAliveServer,
}

impl Gateway {
    pub fn start(txns: &[Txn]) -> Gateway {
        // Each body is made (and signed) when it is asked for: a run that a reader leaves
        // asks for a few of a large file's thousands.
        let mut by_reference = HashMap::new();
        for txn in txns {
            by_reference.insert(txn.transaction_ref.clone(), txn.clone());
            if let Some(p) = &txn.payment_ref {
                by_reference.insert(p.clone(), txn.clone());
            }
        }
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let held = gate.clone();
        let server = KeepAliveServer::start(move |path, _| {
            let reference = path.rsplit('/').next().unwrap_or("").to_owned();
            if reference.starts_with("GATE-") {
                let (open, moved) = &*held;
                let mut open = open.lock().unwrap();
                while !*open {
                    open = moved.wait(open).unwrap();
                }
            }
            if reference.starts_with("SLOW-") {
                std::thread::sleep(Duration::from_millis(50));
            }
            match by_reference.get(&reference) {
                Some(txn) => ("200 OK".into(), vec![], txn.body()),
                None => (
                    "404 Not Found".into(),
                    vec![],
                    r#"{"message":"Transaction not found"}"#.into(),
                ),
            }
        });
        Gateway {
            url: server.url.clone(),
            gate,
            server,
        }
    }

    /// Lets every `GATE-` request through, now and later.
    pub fn open(&self) {
        let (open, moved) = &*self.gate;
        *open.lock().unwrap() = true;
        moved.notify_all();
    }

    /// How many requests reached the gateway.
    pub fn requests(&self) -> usize {
        self.server.requests.lock().unwrap().len()
    }
}
