//! The HTTP exchange: one shared agent, authentication, timeouts, retries and back-off.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use clap::ValueEnum;
use ureq::Agent;
use ureq::tls::TlsConfig;

use crate::domain::reference::Reference;
use crate::exit::Failure;
use crate::log::Log;
use crate::secret::Secret;
use crate::settings::Endpoint;
use crate::transport::base_url::BaseUrl;
use crate::transport::gate::Gate;
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
    /// No attempt was started: the shared 429 pause or the `--rate` slot ends after the
    /// exchange's deadline (`--wait`).
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
                "no request could start before the --wait deadline: the shared 429 pause or the \
                 --rate slot ends after it",
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
    /// True when the exchange's deadline stopped it: a retry pause (or the wait for the
    /// first attempt) would have ended past it, so the retries were not all made.
    pub(crate) cut_short: bool,
}

/// How a client behaves beyond the endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Each attempt, connect to last byte.
    pub(crate) timeout: Duration,
    /// Retries after the first attempt.
    pub(crate) retries: u32,
    /// Connections kept open for reuse: one per worker.
    pub(crate) pool: usize,
    /// Shared pacing (429 pause, rate).
    pub(crate) gate: Arc<Gate>,
    /// Once set (Ctrl-C), no further retry is started.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    /// PEM roots trusted besides Mozilla's and `--ca-cert`: the in-process TLS sandbox's CA.
    pub(crate) extra_roots: Option<String>,
}

impl Options {
    /// One worker, no pacing: what a single verification needs.
    pub(crate) fn single(timeout: Duration, retries: u32) -> Self {
        Options {
            timeout,
            retries,
            pool: 1,
            gate: Arc::new(Gate::new()),
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
                    super::proxy::shown(&url.value),
                    url.source
                )
            }),
            (None, Some(url)) => log.trace(|| {
                format!(
                    "requests go direct: the proxy from {} is not used for {} (loopback, or \
                     listed in NO_PROXY)",
                    url.source,
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

    /// Asks the service about one reference, retrying as configured: the raw exchange, not
    /// yet classified (that is `outcome::classify`).
    pub(crate) fn exchange(&self, reference: &Reference) -> Exchange {
        self.exchange_by(reference, None)
    }

    /// [`Client::exchange`], but no pause (a retry's back-off or Retry-After, the shared 429
    /// pause, the `--rate` slot) that would end after `deadline` is taken: the exchange
    /// ends there, `cut_short`, with the last result (`--wait`'s checks, which have an
    /// answer in hand and must end at their deadline). Each attempt is still bounded by
    /// `--timeout` only.
    pub(crate) fn exchange_by(&self, reference: &Reference, deadline: Option<Instant>) -> Exchange {
        let url = self.base_url.verify_url(reference);
        let total = self.options.retries + 1;
        self.log.trace(|| {
            format!(
                "> GET {url}; Accept: application/json; Content-Type: application/json; \
                 Authorization: Basic <redacted>"
            )
        });
        let mut attempt = 1;
        // The result of the attempt before this one: what a cut-short exchange ends with.
        let mut previous: Option<Result<Response, TransportError>> = None;
        loop {
            if !self.options.gate.before_attempt_by(deadline) {
                self.log.trace(|| {
                    format!(
                        "  not starting attempt {attempt}/{total}: the shared 429 pause or the \
                         --rate slot ends after the --wait deadline"
                    )
                });
                return Exchange {
                    url,
                    result: previous.unwrap_or(Err(TransportError::PastDeadline)),
                    attempts: attempt - 1,
                    cut_short: true,
                };
            }
            let started = Instant::now();
            let (result, retry_after) = self.attempt(&url);
            let elapsed = started.elapsed().as_millis();
            let stopping = self
                .options
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::SeqCst));
            let retryable = attempt < total && should_retry(&result) && !stopping;
            let delay = retry_after.unwrap_or_else(|| self.backoff(attempt));
            // A pause that would end after the deadline is not taken: the caller has an
            // answer in hand and its deadline to keep.
            let past_deadline = retryable && deadline.is_some_and(|d| Instant::now() + delay > d);
            let retry = retryable && !past_deadline;
            self.log.trace(|| {
                let what = match &result {
                    Ok(r) => format!("HTTP {}", r.status),
                    Err(e) => e.to_string(),
                };
                let next = if retry {
                    "retrying".to_owned()
                } else if past_deadline {
                    format!(
                        "not retrying: the {} ms pause would end after the --wait deadline",
                        delay.as_millis()
                    )
                } else if stopping && should_retry(&result) {
                    "interrupted, not retrying".to_owned()
                } else if attempt < total || !should_retry(&result) {
                    "done".to_owned()
                } else {
                    "no retries left".to_owned()
                };
                format!("< GET {url} attempt {attempt}/{total}: {what} in {elapsed} ms; {next}")
            });
            let rate_limited = matches!(&result, Ok(r) if r.status == 429) && retry_after.is_some();
            if rate_limited && (retry || past_deadline) {
                // The rate limit is the client's, not this request's: every worker waits,
                // even when this exchange does not retry because of its deadline.
                self.options.gate.pause_all(delay);
            }
            if !retry {
                return Exchange {
                    url,
                    result,
                    attempts: attempt,
                    cut_short: past_deadline,
                };
            }
            self.log.trace(|| {
                format!(
                    "  waiting {} ms before attempt {}",
                    delay.as_millis(),
                    attempt + 1
                )
            });
            if !rate_limited {
                std::thread::sleep(delay);
            }
            previous = Some(result);
            attempt += 1;
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

/// Whether a result is worth another attempt: network trouble, 429 and 500/502/503/504.
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
