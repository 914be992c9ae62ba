//! The HTTP exchange: one shared agent, authentication, timeouts, retries and back-off.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use clap::ValueEnum;
use ureq::Agent;
use ureq::tls::TlsConfig;

use crate::exit::Failure;
use crate::log::Log;
use crate::reference::Reference;
use crate::secret::Secret;
use crate::transport::Endpoint;
use crate::transport::base_url::BaseUrl;
use crate::transport::gate::{Gate, Refused, sleep_until};
use crate::transport::network;

/// How the credentials are written in the Authorization header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum AuthStyle {
    /// `Basic base64(id:secret)`, RFC 7617, as the gateway's own integrations send.
    #[default]
    Standard,
    /// `Basic id:secret` unencoded, as the interface document literally writes it.
    Literal,
}

impl AuthStyle {
    /// Parses the config-file spelling.
    pub(crate) fn from_config(s: &str) -> Option<Self> {
        <AuthStyle as ValueEnum>::from_str(s, true).ok()
    }
}

/// The most body payverify reads; a verification result is well under a kilobyte.
pub(crate) const MAX_BODY_BYTES: u64 = 1024 * 1024;
/// The longest `Retry-After` honoured.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// First back-off delay; it doubles each retry.
const BACKOFF_BASE: Duration = Duration::from_millis(200);
/// Largest back-off delay before jitter.
const BACKOFF_CAP: Duration = Duration::from_secs(5);

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
    fn retryable(&self) -> bool {
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

/// How a client behaves beyond the endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Each attempt, connect to last byte.
    pub(crate) timeout: Duration,
    /// Retries after the first attempt, for failures (network errors, timeouts,
    /// 500/502/504); throttled answers do not use them up.
    pub(crate) retries: u32,
    /// How long a reference with no answer yet is asked again while the service throttles
    /// it (`--give-up-after`, or `--wait` when that is shorter), and what set it.
    pub(crate) give_up_after: (Duration, &'static str),
    /// Connections kept open for reuse: one per worker.
    pub(crate) pool: usize,
    /// Shared pacing (adaptive after throttling, `--rate`).
    pub(crate) gate: Arc<Gate>,
    /// Once set (a signal, or stdout gone), no further attempt starts and every pause ends.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    /// PEM roots trusted besides Mozilla's and `--ca-cert`: the in-process TLS sandbox's CA.
    pub(crate) extra_roots: Option<String>,
}

impl Options {
    /// One worker, one attempt per throttled answer, no pacing: what a single check needs
    /// (doctor).
    pub(crate) fn single(timeout: Duration, retries: u32) -> Self {
        Options {
            timeout,
            retries,
            give_up_after: (Duration::ZERO, "--give-up-after"),
            pool: 1,
            gate: Arc::new(Gate::new(None, Log::new(crate::log::Level::Quiet))),
            stop: None,
            extra_roots: None,
        }
    }
}

/// Makes Verify Transaction requests; share one across threads.
pub(crate) struct Client {
    agent: Agent,
    base_url: BaseUrl,
    authorization: Secret,
    options: Options,
    log: Log,
    jitter: AtomicU64,
}

impl Client {
    /// A client for `endpoint`; registers the secret and header with `log` for scrubbing.
    /// Fails (exit 6) on an unusable proxy URL or CA file.
    pub(crate) fn new(endpoint: &Endpoint, options: Options, log: Log) -> Result<Self, Failure> {
        let authorization = authorization(endpoint);
        crate::secret::register_credentials(&endpoint.client_id, &endpoint.client_secret);
        log.add_secret(authorization.expose().trim_start_matches("Basic "));
        let proxy = super::proxy::choose(
            &endpoint.base_url,
            endpoint.proxy.as_ref(),
            endpoint.no_proxy.as_deref(),
        )?;
        match (&proxy, &endpoint.proxy) {
            (Some(_), Some(url)) => log.trace(|| {
                format!(
                    "requests go through the proxy {} (from {})",
                    super::proxy::shown(&url.url),
                    url.origin
                )
            }),
            (None, Some(url)) => log.trace(|| {
                format!(
                    "requests go direct: the proxy from {} is not used for {} (loopback, or \
                     listed in NO_PROXY)",
                    url.origin,
                    endpoint.base_url.host()
                )
            }),
            (_, None) => {}
        }
        let mut tls = TlsConfig::builder();
        let extra_roots = options.extra_roots.as_deref();
        if let Some(roots) = network::roots(endpoint.ca_cert.as_deref(), extra_roots)? {
            tls = tls.root_certs(roots);
        }
        let config = Agent::config_builder()
            .proxy(proxy)
            .tls_config(tls.build())
            .http_status_as_error(false)
            // A redirect is a bad response; never follow it, so credentials never go
            // to another host.
            .max_redirects(0)
            .timeout_global(Some(options.timeout))
            .max_idle_connections(options.pool.max(3))
            .max_idle_connections_per_host(options.pool.max(3))
            .user_agent(concat!("payverify/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Client {
            agent: network::agent(config),
            base_url: endpoint.base_url.clone(),
            authorization,
            options,
            log,
            jitter: AtomicU64::new(seed()),
        })
    }

    /// What the shared pacing has seen: throttled answers and the rate, for the progress
    /// bar and the summary line.
    pub(crate) fn pacing(&self) -> crate::transport::gate::Pacing {
        self.options.gate.pacing()
    }

    /// Asks the service about one reference, retrying as configured: the raw exchange, not
    /// yet classified (that is `outcome::classify`).
    pub(crate) fn exchange(&self, reference: &Reference) -> Exchange {
        self.exchange_by(reference, None)
    }

    /// [`Client::exchange`] for a check that has an answer in hand (`--wait`): no pause
    /// (Retry-After, back-off, the pacing's turn) that would end after `deadline` is taken,
    /// and the exchange ends there with the last result. Without a deadline, throttled
    /// answers are asked again until `--give-up-after`. Each attempt is still bounded by
    /// `--timeout` only.
    pub(crate) fn exchange_by(&self, reference: &Reference, deadline: Option<Instant>) -> Exchange {
        let url = self.base_url.verify_url(reference);
        let stop = self.options.stop.as_deref();
        let retries = self.options.retries;
        let first = Instant::now();
        let (until, by) = match deadline {
            Some(d) => (d, "the --wait deadline"),
            None => (
                first + self.options.give_up_after.0,
                match self.options.give_up_after.1 {
                    "--wait" => "the --wait deadline",
                    _ => "the --give-up-after deadline",
                },
            ),
        };
        self.log.trace(|| {
            format!(
                "> GET {url}; Accept: application/json; Content-Type: application/json; \
                 Authorization: Basic <redacted>"
            )
        });
        let (mut attempts, mut failures, mut throttled) = (0u32, 0u32, 0u32);
        // The result of the attempt before this one: what an exchange cut short ends with.
        let mut previous: Option<Result<Response, TransportError>> = None;
        let end = |result: Option<Result<Response, TransportError>>, attempts, throttled, ended| {
            Exchange {
                url: url.clone(),
                result: result.unwrap_or(Err(TransportError::PastDeadline)),
                attempts,
                throttled,
                ended,
            }
        };
        loop {
            // The first attempt of a reference keeps no deadline of its own; a check made
            // while waiting keeps the wait's.
            let turn_by = match attempts {
                0 => deadline,
                _ => Some(until),
            };
            match self.options.gate.admit(turn_by, stop) {
                Ok(()) => {}
                Err(Refused::Stopped) => {
                    self.log
                        .trace(|| format!("  {url}: stopping, no attempt started"));
                    return end(previous, attempts, throttled, Ended::Stopped);
                }
                Err(Refused::PastDeadline) => {
                    self.log.trace(|| {
                        format!(
                            "  {url}: not starting attempt {}: the pacing has no turn before \
                             {by}",
                            attempts + 1
                        )
                    });
                    return end(previous, attempts, throttled, Ended::Deadline(by, None));
                }
            }
            attempts += 1;
            let sent = Instant::now();
            let (result, retry_after) = self.attempt(&url);
            let elapsed = sent.elapsed().as_millis();
            let throttle = throttle_status(&result);
            match throttle {
                Some(status) => {
                    throttled += 1;
                    self.options.gate.throttled(sent, status);
                }
                None if result.is_ok() => self.options.gate.answered(),
                None => {}
            }
            let stopping = stop.is_some_and(|s| s.load(Ordering::SeqCst));
            let next = match (should_retry(&result), throttle) {
                (false, _) => Next::Done,
                (true, _) if stopping => Next::Stop,
                // Throttled: asked again after its Retry-After, in the pacing's turn; the
                // retries are for failures and stay untouched.
                (true, Some(_)) => Next::Retry(retry_after.unwrap_or(Duration::ZERO)),
                (true, None) if failures >= retries => Next::NoRetriesLeft,
                (true, None) => {
                    failures += 1;
                    Next::Retry(retry_after.unwrap_or_else(|| self.backoff(failures)))
                }
            };
            // A pause that would end after the deadline is not taken.
            let next = match next {
                Next::Retry(delay) if Instant::now() + delay > until => Next::PastDeadline(delay),
                other => other,
            };
            self.log.trace(|| {
                let what = match &result {
                    Ok(r) => format!("HTTP {}", r.status),
                    Err(e) => e.to_string(),
                };
                let next = match (&next, throttle) {
                    (Next::Done, _) => "done".to_owned(),
                    (Next::Stop, _) => "interrupted, not retrying".to_owned(),
                    (Next::NoRetriesLeft, _) => format!("no retries left ({retries})"),
                    (Next::Retry(d), Some(_)) if !d.is_zero() => format!(
                        "throttled; asking again in {} ms (Retry-After), in the pacing's turn",
                        d.as_millis()
                    ),
                    (Next::Retry(_), Some(_)) => {
                        "throttled; asking again in the pacing's turn".to_owned()
                    }
                    (Next::Retry(d), None) => {
                        format!("retry {failures}/{retries} in {} ms", d.as_millis())
                    }
                    (Next::PastDeadline(d), _) => format!(
                        "not retrying: the {} ms pause would end after {by}",
                        d.as_millis()
                    ),
                };
                format!("< GET {url} attempt {attempts}: {what} in {elapsed} ms; {next}")
            });
            let delay = match next {
                Next::Retry(delay) => delay,
                Next::Done | Next::NoRetriesLeft => {
                    return end(Some(result), attempts, throttled, Ended::Finished);
                }
                Next::Stop => return end(Some(result), attempts, throttled, Ended::Stopped),
                Next::PastDeadline(delay) => {
                    let retry_at = retry_after.map(|_| Instant::now() + delay);
                    return end(
                        Some(result),
                        attempts,
                        throttled,
                        Ended::Deadline(by, retry_at),
                    );
                }
            };
            if !sleep_until(Instant::now() + delay, stop) {
                self.log
                    .trace(|| format!("  {url}: stopping, no attempt started"));
                return end(Some(result), attempts, throttled, Ended::Stopped);
            }
            previous = Some(result);
        }
    }

    fn attempt(&self, url: &str) -> (Result<Response, TransportError>, Option<Duration>) {
        let sent = self
            .agent
            .get(url)
            .header("Accept", "application/json")
            .header("Content-Type", "application/json")
            .header("Authorization", self.authorization.expose())
            .call();
        let response = match sent {
            Ok(r) => r,
            Err(e) => return (Err(self.transport_error(e)), None),
        };
        let status = response.status().as_u16();
        let headers = response.headers();
        if let Err(e) = plain_framing(headers) {
            return (Err(e), None);
        }
        let retry_after = headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let body = response
            .into_body()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_vec();
        match body {
            Ok(body) => (Ok(Response { status, body }), retry_after),
            Err(e) => (Err(self.transport_error(e)), None),
        }
    }

    fn transport_error(&self, e: ureq::Error) -> TransportError {
        use ureq::Error as E;
        match e {
            E::Timeout(_) => TransportError::Timeout(self.options.timeout),
            E::BodyExceedsLimit(_) => TransportError::TooLarge,
            E::HostNotFound => {
                TransportError::Network(format!("cannot resolve host {}", self.base_url.host()))
            }
            E::ConnectionFailed => TransportError::Network("connection failed".into()),
            E::Io(io) => match io.kind() {
                std::io::ErrorKind::TimedOut => TransportError::Timeout(self.options.timeout),
                // rustls reports a handshake it cannot accept (e.g. plain HTTP on the other
                // end) as InvalidData: the peer's answer, not a passing network fault.
                std::io::ErrorKind::InvalidData => {
                    let rustls = io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>());
                    match rustls {
                        Some(e) => tls_error(e),
                        None => TransportError::Tls(crate::io_util::io_reason(&io)),
                    }
                }
                _ => TransportError::Network(crate::io_util::io_reason(&io)),
            },
            E::Tls(msg) => TransportError::Tls(msg.into()),
            E::Rustls(e) => tls_error(&e),
            E::Protocol(e) => TransportError::Protocol(e.to_string()),
            E::LargeResponseHeader(..) => TransportError::Protocol("headers too large".into()),
            other => TransportError::Network(other.to_string()),
        }
    }

    /// Exponential back-off with up to 50% random jitter, so clients spread out.
    fn backoff(&self, attempt: u32) -> Duration {
        let exp = BACKOFF_BASE.saturating_mul(1 << attempt.saturating_sub(1).min(16));
        let base = exp.min(BACKOFF_CAP);
        let fraction = (self.next_random() % 1000) as f64 / 2000.0;
        base + base.mul_f64(fraction)
    }

    fn next_random(&self) -> u64 {
        // xorshift64*: jitter needs spread, not cryptographic quality.
        let mut x = self.jitter.load(Ordering::Relaxed);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.jitter.store(x, Ordering::Relaxed);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A refused certificate apart from other handshake failures: they need different fixes.
fn tls_error(e: &rustls::Error) -> TransportError {
    match e {
        rustls::Error::InvalidCertificate(_) => TransportError::Certificate(e.to_string()),
        other => TransportError::Tls(other.to_string()),
    }
}

/// The Authorization header value for the endpoint's style.
pub(crate) fn authorization(endpoint: &Endpoint) -> Secret {
    let pair = format!("{}:{}", endpoint.client_id, endpoint.client_secret.expose());
    match endpoint.auth_style {
        AuthStyle::Standard => Secret::new(format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )),
        AuthStyle::Literal => Secret::new(format!("Basic {pair}")),
    }
}

/// Refuses a body payverify cannot take at face value: one with a `Content-Encoding` other
/// than `identity`, or with both `Transfer-Encoding` and `Content-Length`.
fn plain_framing(headers: &ureq::http::HeaderMap) -> Result<(), TransportError> {
    for value in headers.get_all("content-encoding") {
        let text = String::from_utf8_lossy(value.as_bytes());
        let text = text.trim();
        if !text.eq_ignore_ascii_case("identity") && !text.is_empty() {
            // The name is the service's text: redacted whole, then cut to a readable length.
            let shown = crate::log::truncate(&crate::secret::redact(text), 40);
            return Err(TransportError::Encoded(shown));
        }
    }
    if headers.contains_key("transfer-encoding") && headers.contains_key("content-length") {
        return Err(TransportError::AmbiguousLength);
    }
    Ok(())
}

/// What to do after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Done,
    Stop,
    NoRetriesLeft,
    Retry(Duration),
    PastDeadline(Duration),
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

fn seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    (nanos ^ u64::from(std::process::id()).rotate_left(32)) | 1
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(style: AuthStyle) -> Endpoint {
        Endpoint {
            base_url: BaseUrl::parse("https://x.example").unwrap(),
            client_id: "id".into(),
            client_secret: Secret::new("secret"),
            auth_style: style,
            proxy: None,
            no_proxy: None,
            ca_cert: None,
        }
    }

    #[test]
    fn authorization_styles() {
        assert_eq!(
            authorization(&endpoint(AuthStyle::Standard)).expose(),
            "Basic aWQ6c2VjcmV0"
        );
        assert_eq!(
            authorization(&endpoint(AuthStyle::Literal)).expose(),
            "Basic id:secret"
        );
    }

    #[test]
    fn retry_after_is_capped_and_validated() {
        assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("3600"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("inf"), None);
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn retry_after_dates_are_honoured_and_capped() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let at = |v| parse_retry_after_at(v, now);
        assert_eq!(
            at("Wed, 21 Oct 2015 07:28:20 GMT"),
            Some(Duration::from_secs(20))
        );
        // The two obsolete forms RFC 9110 still requires recipients to read.
        assert_eq!(
            at("Wednesday, 21-Oct-15 07:28:20 GMT"),
            Some(Duration::from_secs(20))
        );
        assert_eq!(
            at("Wed Oct 21 07:28:20 2015"),
            Some(Duration::from_secs(20))
        );
        assert_eq!(at("Wed, 21 Oct 2015 09:00:00 GMT"), Some(MAX_RETRY_AFTER));
        assert_eq!(at("Wed, 21 Oct 2015 07:00:00 GMT"), Some(Duration::ZERO));
        assert_eq!(at("Wed, 32 Oct 2015 07:28:20 GMT"), None);
    }

    #[test]
    fn retry_policy() {
        let status = |s| {
            Ok(Response {
                status: s,
                body: vec![],
            })
        };
        for s in [429, 500, 502, 503, 504] {
            assert!(should_retry(&status(s)), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 501, 505, 302] {
            assert!(!should_retry(&status(s)), "{s}");
        }
        assert!(should_retry(&Err(TransportError::Network("reset".into()))));
        assert!(should_retry(&Err(TransportError::Timeout(
            Duration::from_secs(1)
        ))));
        assert!(!should_retry(&Err(TransportError::TooLarge)));
        assert!(!should_retry(&Err(TransportError::Tls("x".into()))));
        assert!(!should_retry(&Err(TransportError::Certificate("x".into()))));
    }

    #[test]
    fn backoff_grows_with_bounded_jitter() {
        let client = Client::new(
            &endpoint(AuthStyle::Standard),
            Options::single(Duration::from_secs(1), 2),
            Log::new(crate::log::Level::Quiet),
        )
        .unwrap();
        for attempt in 1..=10 {
            let d = client.backoff(attempt);
            let base = BACKOFF_BASE
                .saturating_mul(1 << (attempt - 1))
                .min(BACKOFF_CAP);
            assert!(
                d >= base && d <= base + base / 2,
                "attempt {attempt}: {d:?}"
            );
        }
    }
}
