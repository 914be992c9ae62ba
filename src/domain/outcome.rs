//! The one place where an HTTP exchange becomes an outcome, and an outcome an exit status.
//!
//! It is also where the service's text enters payverify, so it is where registered secrets
//! are redacted from it ([`crate::secret::redact`]): in the whole text of every message and
//! reason, and in every string of a response object, before anything is truncated, folded,
//! checked or rendered.

use serde_json::Value;

use crate::domain::checks::CheckReport;
use crate::domain::class::Class;
use crate::domain::job::Job;
use crate::domain::json::BodyError;
use crate::domain::model::{Verification, parse_object};
use crate::exit::Exit;
use crate::reference::Reference;
use crate::secret::{REDACTED, redact, redact_json};
use crate::terminal::quoted;
use crate::transport::client::{Ended, Exchange, Response, TransportError, throttle_status};

pub use crate::domain::outcome_table::OUTCOME_NAMES;
pub(crate) use crate::domain::outcome_table::OutcomeKind;
pub(crate) use crate::domain::outcome_table::{OUTCOME_EXITS, is_final_name};

/// What verifying one reference established.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `status` is SUCCESSFUL.
    Successful(Box<Verification>),
    /// `status` is FAILED.
    Failed(Box<Verification>),
    /// Some other `status`: the transaction is not final yet.
    NotFinal(Box<Verification>),
    /// HTTP 404.
    NotFound {
        /// The service's message, if it sent one.
        message: Option<String>,
    },
    /// HTTP 401 or 403.
    AuthRejected {
        /// The HTTP status.
        status: u16,
        /// The service's message, if it sent one.
        message: Option<String>,
    },
    /// Network trouble, timeout or 5xx after the retries, or throttled past the deadline.
    Unavailable {
        /// What went wrong on the last attempt.
        reason: String,
        /// HTTP status of the last attempt, if it got one.
        status: Option<u16>,
    },
    /// A response that is not a usable verification result.
    BadResponse {
        /// What is wrong with it.
        reason: String,
        /// HTTP status, if there was a response.
        status: Option<u16>,
    },
    /// payverify itself failed while verifying (a worker panicked): nothing is known.
    Internal {
        /// What failed.
        reason: String,
    },
}

impl Outcome {
    /// The exit status for this outcome, before any checks.
    pub fn exit(&self) -> Exit {
        self.kind().row().exit
    }

    /// Which outcome of the table it is, before any checks.
    pub(crate) fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Successful(_) => OutcomeKind::Successful,
            Outcome::Failed(_) => OutcomeKind::Failed,
            Outcome::NotFinal(_) => OutcomeKind::NotFinal,
            Outcome::NotFound { .. } => OutcomeKind::NotFound,
            Outcome::AuthRejected { .. } => OutcomeKind::AuthRejected,
            Outcome::Unavailable { .. } => OutcomeKind::Unavailable,
            Outcome::BadResponse { .. } => OutcomeKind::BadResponse,
            Outcome::Internal { .. } => OutcomeKind::InternalError,
        }
    }

    /// The machine-readable outcome name used in batch records.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The verification result, when the service gave one.
    pub fn verification(&self) -> Option<&Verification> {
        match self {
            Outcome::Successful(v) | Outcome::Failed(v) | Outcome::NotFinal(v) => Some(v),
            _ => None,
        }
    }

    /// One line for stderr describing this outcome for `reference`, without the prefix.
    pub fn message(&self, reference: &Reference) -> String {
        self.describe(Some(reference))
    }

    /// The outcome described for a row that already shows its reference (the batch
    /// table): the same words, without repeating it.
    pub fn row_message(&self) -> String {
        self.describe(None)
    }

    fn describe(&self, reference: Option<&Reference>) -> String {
        // `transaction 'R' ` in a sentence, nothing in a row.
        let tx = reference
            .map(|r| format!("transaction '{r}' "))
            .unwrap_or_default();
        let service = |m: &Option<String>| m.as_ref().map(|m| format!(": {m}")).unwrap_or_default();
        match self {
            Outcome::Successful(_) => format!("{tx}is SUCCESSFUL"),
            Outcome::Failed(v) => {
                let why = [v.code.as_deref(), v.description.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" ");
                let why = if why.is_empty() {
                    String::new()
                } else {
                    format!(" ({why})")
                };
                // The gateway's own plugins decide on code 00 alone and would ship this.
                let disagree = if v.code.as_deref() == Some(crate::domain::checks::APPROVED) {
                    "; status FAILED and code 00 disagree, and payverify goes by the status"
                } else {
                    ""
                };
                format!("{tx}FAILED{why}{disagree}")
            }
            // The one status that is not final only for want of a paymentDate (see
            // `judge::settled`).
            Outcome::NotFinal(v) if v.status.as_deref() == Some("SUCCESSFUL") => format!(
                "{tx}is not final: SUCCESSFUL, but with no paymentDate, and the gateway's own \
                 plugin acts only once one is set (verify again later)"
            ),
            Outcome::NotFinal(v) => format!(
                "{tx}is not final: status {} (verify again later)",
                v.status.as_deref().map_or_else(|| "-".to_owned(), quoted)
            ),
            Outcome::NotFound { message } => match reference {
                Some(r) => format!(
                    "no transaction has reference '{r}' (HTTP 404{})",
                    service(message)
                ),
                None => format!("no such transaction (HTTP 404{})", service(message)),
            },
            Outcome::AuthRejected { status, message } => format!(
                "the service rejected the credentials (HTTP {status}{}; check the client id, \
                 the secret and --auth-style)",
                service(message)
            ),
            Outcome::Unavailable { reason, .. } => format!("service unavailable: {reason}"),
            Outcome::BadResponse { reason, .. } => {
                format!("bad response from the service: {reason}")
            }
            Outcome::Internal { reason } => match reference {
                Some(r) => format!("internal error while verifying '{r}': {reason}"),
                None => format!("internal error: {reason}"),
            },
        }
    }

    /// The HTTP status of the final response, if there was one.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Outcome::Successful(_) | Outcome::Failed(_) | Outcome::NotFinal(_) => Some(200),
            Outcome::NotFound { .. } => Some(404),
            Outcome::AuthRejected { status, .. } => Some(*status),
            Outcome::Unavailable { status, .. } | Outcome::BadResponse { status, .. } => *status,
            Outcome::Internal { .. } => None,
        }
    }
}

/// An outcome together with the checks run on it: what a reference finally comes to.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What the service said.
    pub outcome: Outcome,
    /// The checks, when there was a verification result to check.
    pub checks: Option<CheckReport>,
}

impl Verdict {
    /// The exit status: only a SUCCESSFUL transaction can become a check failure; FAILED
    /// stays 1 and not-final stays 9 whatever the checks say.
    pub fn exit(&self) -> Exit {
        match (&self.outcome, &self.checks) {
            (Outcome::Successful(_), Some(checks)) if !checks.passed() => Exit::CheckFailed,
            (outcome, _) => outcome.exit(),
        }
    }

    /// Which outcome of the table it is: the outcome's, or CHECK_FAILED.
    pub(crate) fn kind(&self) -> OutcomeKind {
        match self.exit() {
            Exit::CheckFailed => OutcomeKind::CheckFailed,
            _ => self.outcome.kind(),
        }
    }

    /// The machine-readable name: the outcome's, or CHECK_FAILED.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// What a person has to do about it: its class in the outcome table, but `mismatch`
    /// for any answer that failed a check this run asked for, whatever its status. A
    /// FAILED (or PENDING) answer about another transaction, unsigned under `--hmac
    /// require`, or of the wrong mode, amount or currency says nothing about this payment:
    /// it keeps its name and exit status (only a SUCCESSFUL transaction becomes
    /// CHECK_FAILED), but `--fail-on` never leaves it out as `declined` or `pending`.
    pub fn class(&self) -> Class {
        if self.checks.as_ref().is_some_and(|c| !c.passed()) {
            return Class::Mismatch;
        }
        self.kind().row().class
    }
}

/// The verdict for one reference: a line of batch output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    /// What was verified, and against which expectations.
    pub(crate) job: Job,
    /// What it came to.
    pub(crate) verdict: Verdict,
    /// The fingerprint of what judged it ([`crate::domain::seal::fingerprint`]), which a
    /// sealed record keeps so that a later run carries it only if it would judge alike.
    pub(crate) judged_by: String,
}

impl Record {
    /// Why the record is not a plain success, or `None` for a SUCCESSFUL one that passed.
    pub(crate) fn error(&self) -> Option<String> {
        match (self.verdict.exit(), &self.verdict.checks) {
            (Exit::Successful, _) => None,
            (Exit::CheckFailed, Some(checks)) => Some(checks.failure_lines()),
            _ => Some(self.verdict.outcome.message(&self.job.reference)),
        }
    }

    /// [`Record::error`] for a row that shows the reference beside it.
    pub(crate) fn row_error(&self) -> Option<String> {
        match (self.verdict.exit(), &self.verdict.checks) {
            (Exit::Successful, _) => None,
            (Exit::CheckFailed, Some(checks)) => Some(checks.failure_lines()),
            _ => Some(self.verdict.outcome.row_message()),
        }
    }
}

/// Classifies the result of all attempts.
pub(crate) fn classify(exchange: &Exchange) -> Outcome {
    let attempts = match (exchange.attempts, exchange.throttled) {
        (1, 0) => "1 attempt".to_owned(),
        (n, 0) => format!("{n} attempts"),
        (1, 1) => "1 attempt, throttled".to_owned(),
        (n, t) if t == n => format!("{n} attempts, all throttled"),
        (n, t) => format!("{n} attempts, {t} throttled"),
    };
    // Still throttled when the reference's own deadline came: say which one, so the user
    // knows what to raise.
    let attempts = match (&exchange.ended, throttle_status(&exchange.result)) {
        (Ended::Deadline(by, _), Some(_)) => format!("{attempts}; still throttled at {by}"),
        _ => attempts,
    };
    match &exchange.result {
        // A web server's HTML page is not the service saying the transaction does not
        // exist: most likely the base URL points somewhere else.
        Ok(response) if response.status == 404 && !crate::domain::json::is_json(&response.body) => {
            Outcome::BadResponse {
                reason: format!(
                    "HTTP 404 with a non-JSON body from {}: is the base URL right?",
                    exchange.url
                ),
                status: Some(404),
            }
        }
        Ok(response) => match classify_response(response) {
            Outcome::Unavailable { reason, status } => Outcome::Unavailable {
                reason: format!("{reason} after {attempts}"),
                status,
            },
            other => other,
        },
        Err(
            e @ (TransportError::TooLarge
            | TransportError::Protocol(_)
            | TransportError::Encoded(_)
            | TransportError::AmbiguousLength),
        ) => Outcome::BadResponse {
            reason: redact(&e.to_string()).into_owned(),
            status: None,
        },
        // Reaching the service failed: say which URL, so a wrong base URL shows.
        Err(e @ (TransportError::Network(_) | TransportError::Tls(_))) => Outcome::Unavailable {
            reason: format!(
                "{} after {attempts} (calling {})",
                redact(&e.to_string()),
                exchange.url
            ),
            status: None,
        },
        // No attempt was made, so there is no count to give.
        Err(e @ TransportError::PastDeadline) => Outcome::Unavailable {
            reason: e.to_string(),
            status: None,
        },
        Err(e) => Outcome::Unavailable {
            reason: format!("{} after {attempts}", redact(&e.to_string())),
            status: None,
        },
    }
}

/// Classifies one complete HTTP response. Total: any status and any bytes give an outcome.
pub fn classify_response(response: &Response) -> Outcome {
    let status = response.status;
    match status {
        200 => classify_body(&response.body),
        404 => Outcome::NotFound {
            message: service_message(&response.body),
        },
        401 | 403 => Outcome::AuthRejected {
            status,
            message: service_message(&response.body),
        },
        429 | 500..=599 => {
            let what = if status == 429 {
                "HTTP 429 (rate limited)".to_owned()
            } else {
                format!("HTTP {status}")
            };
            Outcome::Unavailable {
                reason: format!("{what}{}", message_after(&response.body)),
                status: Some(status),
            }
        }
        300..=399 => Outcome::BadResponse {
            reason: format!("HTTP {status} redirect, which payverify does not follow"),
            status: Some(status),
        },
        _ => Outcome::BadResponse {
            reason: format!("unexpected HTTP {status}{}", message_after(&response.body)),
            status: Some(status),
        },
    }
}

/// The fields a check compares with a value payverify was given (the reference asked, which
/// the customer chose; `--merchant-ref`; `--expect-mode`) or that the hmac signs. Checks run
/// on the redacted answer, so a secret in one of them would be compared as `<redacted>`,
/// which a customer can type into a reference.
const COMPARED: [&str; 7] = [
    "transactionRef",
    "paymentRef",
    "merchantRef",
    "mode",
    "currencyCode",
    "amount",
    "hmac",
];

/// The body as a JSON object with every registered secret redacted from its strings and
/// keys; the error, if any, redacted too (a duplicated key can be the secret). Refused when
/// a [`COMPARED`] field holds a secret, or `<redacted>` where one was (a record kept by a
/// payverify that compared redacted text): no genuine answer has either there.
fn redacted_object(body: &[u8]) -> Result<serde_json::Map<String, Value>, String> {
    let object = parse_object(body).map_err(|e| redact(&e.to_string()).into_owned())?;
    redacted(object)
}

/// `object` (an answer's) with every registered secret redacted, as [`redacted_object`]
/// says.
fn redacted(
    object: serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, String> {
    let refuse = |field: &str| {
        format!(
            "the body has the client secret (or {REDACTED} in its place) in \"{field}\", \
             which payverify compares with what it was given; it is never compared or signed"
        )
    };
    // An array or an object there is judged by its JSON text, as it is shown and compared
    // (`["<redacted>"]` against a reference typed that way), before its strings are
    // redacted one by one: a secret spelled across its elements (`[1234,5678]`) is in no
    // one of them. No genuine answer has one there, so this costs the common answer nothing.
    let in_text = |text: &str| text.contains(REDACTED) || crate::secret::holds_secret(text);
    if let Some(field) = COMPARED.iter().find(|field| {
        object
            .get(**field)
            .is_some_and(|value| !value.is_string() && in_text(&value.to_string()))
    }) {
        return Err(refuse(field));
    }
    // Strings are redacted first, then looked at: each is read once. One that held a secret
    // (exactly, hidden or encoded) now holds `<redacted>`, as does one that held
    // `<redacted>` itself.
    let mut object = Value::Object(object);
    redact_json(&mut object);
    let Value::Object(map) = object else {
        return Err("the body is not an object".into());
    };
    if let Some(field) = COMPARED.iter().find(|field| {
        map.get(**field)
            .and_then(Value::as_str)
            .is_some_and(|text| text.contains(REDACTED))
    }) {
        return Err(refuse(field));
    }
    Ok(map)
}

fn classify_body(body: &[u8]) -> Outcome {
    let bad = |reason: String| Outcome::BadResponse {
        reason,
        status: Some(200),
    };
    let parsed = redacted_object(body).and_then(|map| {
        Verification::from_object(map).map_err(|e: BodyError| redact(&e.to_string()).into_owned())
    });
    let verification = match parsed {
        Ok(v) => v,
        Err(e) => return bad(e),
    };
    Outcome::answered(verification)
}

/// An answer kept in a record (`--resume`, `--state`) read as a fresh one enters: redacted
/// under this run's secrets and refused as a fresh one is (a secret where payverify
/// compares), its fields read. Read, not judged: what it comes to is the record's.
pub(crate) fn kept_answer(object: serde_json::Map<String, Value>) -> Option<Verification> {
    Verification::from_object(redacted(object).ok()?).ok()
}

impl Outcome {
    /// What a verification result says by its `status`: the one reading of a status, for
    /// the service's answers, carried records and webhook payloads alike. SUCCESSFUL and
    /// FAILED exactly; any other status is not final; none is a bad response.
    pub(crate) fn answered(verification: Verification) -> Outcome {
        match verification.status.as_deref() {
            Some("SUCCESSFUL") => Outcome::Successful(Box::new(verification)),
            Some("FAILED") => Outcome::Failed(Box::new(verification)),
            Some(_) => Outcome::NotFinal(Box::new(verification)),
            None => Outcome::BadResponse {
                reason: "the body has no \"status\"".into(),
                status: Some(200),
            },
        }
    }
}

/// The `message` (or `error`, `description`) string of a JSON error body, one line, short:
/// secrets are redacted from the whole string before it is folded and cut.
pub(crate) fn service_message(body: &[u8]) -> Option<String> {
    let Ok(map) = redacted_object(body) else {
        return None;
    };
    ["message", "error", "description"]
        .iter()
        .find_map(|key| match map.get(*key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(crate::terminal::cut(s, 200)),
            _ => None,
        })
}

/// [`service_message`] as the end of a sentence, `: <message>`, or nothing.
pub(crate) fn message_after(body: &[u8]) -> String {
    service_message(body)
        .map(|m| format!(": {m}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, body: &str) -> Outcome {
        classify_response(&Response {
            status,
            body: body.as_bytes().to_vec(),
        })
    }

    #[test]
    fn statuses_map_to_the_contract() {
        let sample = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/verify-success.json"
        ));
        assert_eq!(response(200, sample).exit(), Exit::Successful);
        assert_eq!(response(200, r#"{"status":"FAILED"}"#).exit(), Exit::Failed);
        assert_eq!(
            response(200, r#"{"status":"PENDING"}"#).exit(),
            Exit::NotFinal
        );
        assert_eq!(response(200, r#"{"status":""}"#).exit(), Exit::NotFinal);
        assert_eq!(response(200, r#"{"code":"00"}"#).exit(), Exit::BadResponse);
        assert_eq!(response(200, "<html>").exit(), Exit::BadResponse);
        assert_eq!(response(404, "").exit(), Exit::NotFound);
        assert_eq!(response(401, "").exit(), Exit::AuthRejected);
        assert_eq!(response(403, "").exit(), Exit::AuthRejected);
        for s in [429, 500, 501, 502, 503, 504, 599] {
            assert_eq!(response(s, "").exit(), Exit::Unavailable, "{s}");
        }
        for s in [100, 201, 204, 301, 302, 400, 405, 418, 600] {
            assert_eq!(response(s, "").exit(), Exit::BadResponse, "{s}");
        }
    }

    #[test]
    fn outcome_exits_agree_with_the_outcomes() {
        assert_eq!(OUTCOME_EXITS.map(|(n, _)| n), OUTCOME_NAMES);
        let sample = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/verify-success.json"
        ));
        for outcome in [
            response(200, sample),
            response(200, r#"{"status":"FAILED"}"#),
            response(200, r#"{"status":"PENDING"}"#),
            response(404, ""),
            response(401, ""),
            response(503, ""),
            response(418, ""),
        ] {
            assert!(OUTCOME_EXITS.contains(&(outcome.name(), outcome.exit())));
        }
    }

    #[test]
    fn status_matching_is_exact() {
        assert_eq!(
            response(200, r#"{"status":"successful"}"#).exit(),
            Exit::NotFinal
        );
        assert_eq!(
            response(200, r#"{"status":" SUCCESSFUL"}"#).exit(),
            Exit::NotFinal
        );
    }

    #[test]
    fn service_messages_are_extracted_and_kept_as_they_are() {
        let out = response(404, r#"{"message":"Transaction\nnot found"}"#);
        let reference = Reference::parse("REF-1").unwrap();
        let msg = out.message(&reference);
        assert!(msg.contains("'REF-1'"), "{msg}");
        // The newline is kept, for the sanitiser to show as `\n` (never a space).
        assert!(msg.contains("Transaction\nnot found"), "{msg}");
        assert_eq!(
            service_message(br#"{"error":"bad"}"#).as_deref(),
            Some("bad")
        );
        assert_eq!(
            service_message(br#"{"description":"d"}"#).as_deref(),
            Some("d")
        );
        assert_eq!(service_message(br#"{"message":42}"#), None);
        assert_eq!(service_message(b"[]"), None);
        let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(1000));
        assert!(service_message(long.as_bytes()).unwrap().chars().count() <= 201);
    }

    #[test]
    fn only_successful_becomes_check_failed() {
        let failing = CheckReport {
            integrity: crate::domain::checks::Integrity::Mismatch,
            failures: vec![crate::domain::checks::CheckFailure::Code { found: None }],
            warnings: vec![],
        };
        let verdict = |body: &str| Verdict {
            outcome: response(200, body),
            checks: Some(failing.clone()),
        };
        let ok = verdict(r#"{"status":"SUCCESSFUL"}"#);
        assert_eq!((ok.exit(), ok.name()), (Exit::CheckFailed, "CHECK_FAILED"));
        assert_eq!(verdict(r#"{"status":"FAILED"}"#).exit(), Exit::Failed);
        assert_eq!(verdict(r#"{"status":"PENDING"}"#).exit(), Exit::NotFinal);
        let unchecked = Verdict {
            outcome: response(200, r#"{"status":"SUCCESSFUL"}"#),
            checks: None,
        };
        assert_eq!(
            (unchecked.exit(), unchecked.name()),
            (Exit::Successful, "SUCCESSFUL")
        );
    }

    #[test]
    fn a_secret_spelled_across_the_elements_of_a_compared_field_is_refused() {
        crate::secret::register_credentials("split-id", &crate::secret::Secret::new("9071,3388"));
        crate::secret::register_credentials(
            "split-id",
            &crate::secret::Secret::new("zq\",\"cd-99"),
        );
        for field in [
            r#""mode":[9071,3388]"#,
            r#""transactionRef":["zq","cd-99"]"#,
        ] {
            let body = format!(r#"{{"status":"SUCCESSFUL","code":"00",{field}}}"#);
            let outcome = response(200, &body);
            assert_eq!(outcome.exit(), Exit::BadResponse, "{body}: {outcome:?}");
            let Outcome::BadResponse { reason, .. } = outcome else {
                unreachable!()
            };
            assert!(reason.contains("client secret"), "{reason}");
        }
        // Not compared: kept, with each element redacted where it holds the secret.
        let outcome = response(200, r#"{"status":"FAILED","extra":["9071,3388"]}"#);
        assert_eq!(outcome.exit(), Exit::Failed);
    }

    #[test]
    fn transport_errors_classify() {
        let ex = |e| Exchange {
            url: "https://gw.example/api/payment/verify/R".into(),
            result: Err(e),
            attempts: 3,
            throttled: 0,
            ended: Ended::Finished,
        };
        let out = classify(&ex(TransportError::Network("connection refused".into())));
        assert_eq!(out.exit(), Exit::Unavailable);
        assert!(
            out.message(&Reference::parse("R").unwrap())
                .contains("after 3 attempts")
        );
        assert_eq!(
            classify(&ex(TransportError::TooLarge)).exit(),
            Exit::BadResponse
        );
        assert_eq!(
            classify(&ex(TransportError::Protocol("x".into()))).exit(),
            Exit::BadResponse
        );
        assert_eq!(
            classify(&ex(TransportError::Tls("x".into()))).exit(),
            Exit::Unavailable
        );
    }
}
