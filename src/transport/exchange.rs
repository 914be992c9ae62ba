//! What one reference's exchange with the service comes to: the response or why there was
//! none, how many attempts it took and why the asking stopped; and the retry policy that
//! decides between attempts.

use std::time::{Duration, Instant};

/// The most body payverify reads; a verification result is well under a kilobyte.
pub(crate) const MAX_BODY_BYTES: u64 = 1024 * 1024;
/// The longest `Retry-After` honoured.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// First back-off delay; it doubles each retry.
pub(super) const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// Largest back-off delay before jitter.
pub(super) const BACKOFF_CAP: Duration = Duration::from_secs(5);

/// A complete HTTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// The body, at most [`MAX_BODY_BYTES`].
    pub body: Vec<u8>,
}

/// Why no complete response was had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TransportError {
    /// The attempt ran past `--timeout`.
    Timeout(Duration),
    /// No connection, or it broke: refused, reset, DNS failure.
    Network(String),
    /// The TLS handshake failed (not TLS at the other end, no common protocol).
    Tls(String),
    /// The server's certificate was refused: unknown CA, another host's, or out of date.
    Certificate(String),
    /// The server did not speak HTTP properly.
    Protocol(String),
    /// The body is larger than [`MAX_BODY_BYTES`].
    TooLarge,
    /// The body came with a `Content-Encoding` payverify did not ask for (it asks for
    /// none), so it is not read, let alone decoded.
    Encoded(String),
    /// Both `Transfer-Encoding` and `Content-Length`: where the body ends is ambiguous
    /// (RFC 9112 section 6.3), the shape of a request-smuggling proxy.
    AmbiguousLength,
    /// No attempt was started: the pacing (after throttling, or `--rate`) had no turn
    /// before the exchange's deadline (`--wait`).
    PastDeadline,
}

impl TransportError {
    pub(super) fn retryable(&self) -> bool {
        matches!(
            self,
            TransportError::Timeout(_) | TransportError::Network(_)
        )
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Timeout(t) => write!(f, "no complete answer within {}", secs(*t)),
            TransportError::Network(e) => write!(f, "network error: {e}"),
            TransportError::Tls(e) => write!(
                f,
                "TLS error: {e} (does the base URL's scheme match the server? behind TLS \
                 inspection, --ca-cert adds its root)"
            ),
            TransportError::Certificate(e) => write!(
                f,
                "TLS certificate refused: {e} (is it issued for the base URL's host and in \
                 date? a private or TLS-inspection CA needs --ca-cert PATH)"
            ),
            TransportError::Protocol(e) => write!(f, "not a valid HTTP response: {e}"),
            TransportError::TooLarge => {
                write!(f, "the body is larger than {} KiB", MAX_BODY_BYTES / 1024)
            }
            TransportError::Encoded(encoding) => write!(
                f,
                "the body has Content-Encoding {encoding}, which payverify did not ask for \
                 (it sends no Accept-Encoding and reads only plain bodies)"
            ),
            TransportError::AmbiguousLength => f.write_str(
                "the response has both Transfer-Encoding and Content-Length, so where its body \
                 ends is ambiguous",
            ),
            TransportError::PastDeadline => f.write_str(
                "no request could start before the --wait deadline: the pacing (after \
                 throttling, or --rate) had no turn for it before then",
            ),
        }
    }
}

/// The result of all attempts for one reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exchange {
    /// The URL called (a base URL never carries credentials, so it can be shown).
    pub(crate) url: String,
    /// The last response, or why there was none.
    pub(crate) result: Result<Response, TransportError>,
    /// How many attempts were made.
    pub(crate) attempts: u32,
    /// How many of them the service throttled (429, 503).
    pub(crate) throttled: u32,
    /// Why the asking stopped.
    pub(crate) ended: Ended,
}

/// Why an exchange stopped asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// An answer came, or the retries (`--retries`) for failures were spent.
    Finished,
    /// The deadline came first: a pause (Retry-After, back-off, the pacing's turn) would
    /// have ended past it. The text names it, e.g. `the --wait deadline`; the time is when
    /// the service's Retry-After lets the reference be asked again, when that was the pause.
    Deadline(&'static str, Option<Instant>),
    /// The run is stopping (a signal, or the reader of stdout went away): no further
    /// attempt was started.
    Stopped,
}

/// What to do after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    Done,
    Stop,
    NoRetriesLeft,
    Retry(Duration),
    PastDeadline(Duration),
}

impl Next {
    /// A pause that would end after `until` is not taken.
    pub(super) fn by(self, until: Instant) -> Next {
        match self {
            Next::Retry(delay) if Instant::now() + delay > until => Next::PastDeadline(delay),
            other => other,
        }
    }

    /// What the trace of an attempt says comes next; `retry` is the failures' retries used
    /// and allowed, `by` the deadline's name.
    pub(super) fn describe(&self, throttled: bool, retry: (u32, u32), by: &str) -> String {
        let (failures, retries) = retry;
        match (self, throttled) {
            (Next::Done, _) => "done".to_owned(),
            (Next::Stop, _) => "interrupted, not retrying".to_owned(),
            (Next::NoRetriesLeft, _) => format!("no retries left ({retries})"),
            (Next::Retry(d), true) if !d.is_zero() => format!(
                "throttled; asking again in {} ms (Retry-After), in the pacing's turn",
                d.as_millis()
            ),
            (Next::Retry(_), true) => "throttled; asking again in the pacing's turn".to_owned(),
            (Next::Retry(d), false) => {
                format!("retry {failures}/{retries} in {} ms", d.as_millis())
            }
            (Next::PastDeadline(d), _) => format!(
                "not retrying: the {} ms pause would end after {by}",
                d.as_millis()
            ),
        }
    }
}

/// The status of a throttled answer: 429, or 503 (with or without Retry-After), which
/// gateways send for the same reason.
pub(crate) fn throttle_status(result: &Result<Response, TransportError>) -> Option<u16> {
    match result {
        Ok(r) if matches!(r.status, 429 | 503) => Some(r.status),
        _ => None,
    }
}

/// Whether a result is worth another attempt: network trouble, throttling (429, 503) and
/// 500/502/504.
pub(crate) fn should_retry(result: &Result<Response, TransportError>) -> bool {
    match result {
        Ok(r) => matches!(r.status, 429 | 500 | 502 | 503 | 504),
        Err(e) => e.retryable(),
    }
}

/// `Retry-After` as seconds or as an HTTP date (RFC 9110 section 10.2.3), capped at 30 s;
/// a date in the past means "now".
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    parse_retry_after_at(value, std::time::SystemTime::now())
}

/// [`parse_retry_after`] as of `now`.
pub(crate) fn parse_retry_after_at(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    let delay = match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => {
            Duration::from_secs_f64(secs.min(MAX_RETRY_AFTER.as_secs_f64()))
        }
        Ok(_) => return None,
        Err(_) => {
            let at = httpdate::parse_http_date(value).ok()?;
            at.duration_since(now).unwrap_or(Duration::ZERO)
        }
    };
    Some(delay.min(MAX_RETRY_AFTER))
}

/// A duration as whole seconds where it is whole (`30s`, `2.5s`).
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

/// A refused certificate apart from other handshake failures: they need different fixes.
pub(super) fn tls_error(e: &rustls::Error) -> TransportError {
    match e {
        rustls::Error::InvalidCertificate(_) => TransportError::Certificate(e.to_string()),
        other => TransportError::Tls(other.to_string()),
    }
}

/// Refuses a body payverify cannot take at face value: one with a `Content-Encoding` other
/// than `identity`, or with both `Transfer-Encoding` and `Content-Length`.
pub(super) fn plain_framing(headers: &ureq::http::HeaderMap) -> Result<(), TransportError> {
    for value in headers.get_all("content-encoding") {
        let text = String::from_utf8_lossy(value.as_bytes());
        let text = text.trim();
        if !text.eq_ignore_ascii_case("identity") && !text.is_empty() {
            // The name is the service's text: redacted whole, then cut to a readable length.
            let shown = crate::terminal::cut(&crate::secret::redact(text), 40);
            return Err(TransportError::Encoded(shown));
        }
    }
    if headers.contains_key("transfer-encoding") && headers.contains_key("content-length") {
        return Err(TransportError::AmbiguousLength);
    }
    Ok(())
}

/// A seed for the back-off jitter: the clock and the process id.
pub(super) fn seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    (nanos ^ u64::from(std::process::id()).rotate_left(32)) | 1
}
