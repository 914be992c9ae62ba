//! The HTTP exchange: one shared agent, authentication, timeouts, retries and back-off.

use std::io::Read as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use clap::ValueEnum;
use ureq::Agent;
use ureq::http::HeaderValue;
use ureq::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use ureq::tls::TlsConfig;

use crate::exit::Failure;
use crate::log::Log;
use crate::reference::Reference;
use crate::secret::Secret;
use crate::transport::Endpoint;
use crate::transport::base_url::BaseUrl;
pub use crate::transport::exchange::Response;
use crate::transport::exchange::{BACKOFF_BASE, BACKOFF_CAP, Next, plain_framing, seed, tls_error};
pub(crate) use crate::transport::exchange::{
    Ended, Exchange, MAX_BODY_BYTES, TransportError, parse_retry_after, should_retry,
    throttle_status,
};
#[cfg(test)]
use crate::transport::exchange::{MAX_RETRY_AFTER, parse_retry_after_at};
use crate::transport::gate::{Gate, Refused, sleep_until};
use crate::transport::network;

/// The longest response head taken (ureq's own default).
const MAX_HEAD: usize = 64 * 1024;
/// The room a connection reads into: past [`MAX_HEAD`], so a longer head fills it beyond
/// the limit and is refused as too large (exit 8), where a full buffer with no head in it
/// would read as a dropped connection (exit 7, and asked again).
const IN_BUFFER: usize = MAX_HEAD + 8 * 1024;
/// The room a connection writes a request head into, past what the endpoint adds to every
/// request ([`out_buffer`]): the longest reference percent-encoded is 12 KiB of path.
const OUT_BUFFER: usize = 32 * 1024;

/// The room for a request head to `endpoint` with `authorization`: [`OUT_BUFFER`] plus the
/// credentials and the base URL (and twice a proxy URL, whose userinfo goes out base64 in
/// a header), which every request carries whatever their length, so no credential is too
/// long to be sent (a head that does not fit fails as a bad response).
fn out_buffer(endpoint: &Endpoint, authorization: &Secret) -> usize {
    let proxy = endpoint
        .proxy
        .as_ref()
        .map_or(0, |proxy| 2 * proxy.url.len());
    OUT_BUFFER + authorization.expose().len() + endpoint.base_url.to_string().len() + proxy
}

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
            gate: Arc::new(Gate::new(None, 1, Log::new(crate::log::Level::Quiet))),
            stop: None,
            extra_roots: None,
        }
    }
}

/// The most room made for a body before it is read, whatever its Content-Length says.
const BODY_ROOM: u64 = 64 * 1024;

/// Makes Verify Transaction requests; share one across threads.
pub(crate) struct Client {
    agent: Agent,
    base_url: BaseUrl,
    authorization: Secret,
    /// The Authorization header's value, made once: from text, every request parsed and
    /// copied it. `None` when the text is no valid header value; each request then fails on
    /// it as it always did.
    authorization_header: Option<HeaderValue>,
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
            // ureq's 128 KiB each way, zeroed on a connection's first use, were half of a
            // run's heap at -j 16 (twice that over TLS, whose plain text has its own). The
            // input holds a response head, so it stays past ureq's limit on one; the
            // output holds a request head: a 4 KiB reference percent-encoded is 12 KiB.
            .input_buffer_size(IN_BUFFER)
            .max_response_header_size(MAX_HEAD)
            .output_buffer_size(out_buffer(endpoint, &authorization))
            .build();
        let authorization_header =
            HeaderValue::from_str(authorization.expose())
                .ok()
                .map(|mut value| {
                    value.set_sensitive(true);
                    value
                });
        Ok(Client {
            agent: network::agent(config),
            base_url: endpoint.base_url.clone(),
            authorization,
            authorization_header,
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
        let (until, by) = self.until(deadline);
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
            if let Err(ended) = self.turn(&url, turn_by, attempts, by) {
                return end(previous, attempts, throttled, ended);
            }
            attempts += 1;
            let sent = Instant::now();
            let unreported = self.options.gate.unreported();
            let (result, retry_after) = self.attempt(&url);
            unreported.reported();
            let elapsed = sent.elapsed().as_millis();
            let throttle = throttle_status(&result);
            match throttle {
                Some(status) => {
                    throttled += 1;
                    self.options.gate.throttled(sent, status);
                }
                None if result.is_ok() => self.options.gate.answered(),
                None => self.options.gate.failed(),
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
            }
            .by(until);
            self.log.trace(|| {
                let what = match &result {
                    Ok(r) => format!("HTTP {}", r.status),
                    Err(e) => e.to_string(),
                };
                let next = next.describe(throttle.is_some(), (failures, retries), by);
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

    /// The pacing's turn for the next attempt (`turn_by` the latest it may come), or why
    /// none comes.
    fn turn(
        &self,
        url: &str,
        turn_by: Option<Instant>,
        attempts: u32,
        by: &'static str,
    ) -> Result<(), Ended> {
        match self
            .options
            .gate
            .admit(turn_by, self.options.stop.as_deref())
        {
            Ok(()) => Ok(()),
            Err(Refused::Stopped) => {
                self.log
                    .trace(|| format!("  {url}: stopping, no attempt started"));
                Err(Ended::Stopped)
            }
            Err(Refused::PastDeadline) => {
                self.log.trace(|| {
                    format!(
                        "  {url}: not starting attempt {}: the pacing has no turn before {by}",
                        attempts + 1
                    )
                });
                Err(Ended::Deadline(by, None))
            }
        }
    }

    /// When an exchange must end, and that deadline's name: `deadline` (`--wait`'s), else
    /// `--give-up-after` (or `--wait`'s, when it is the shorter) from now.
    fn until(&self, deadline: Option<Instant>) -> (Instant, &'static str) {
        match deadline {
            Some(d) => (d, "the --wait deadline"),
            None => (
                Instant::now() + self.options.give_up_after.0,
                match self.options.give_up_after.1 {
                    "--wait" => "the --wait deadline",
                    _ => "the --give-up-after deadline",
                },
            ),
        }
    }

    fn attempt(&self, url: &str) -> (Result<Response, TransportError>, Option<Duration>) {
        // Names and values that need no parsing or copying per request.
        const JSON: HeaderValue = HeaderValue::from_static("application/json");
        let request = self
            .agent
            .get(url)
            .header(ACCEPT, JSON)
            .header(CONTENT_TYPE, JSON);
        let sent = match &self.authorization_header {
            Some(value) => request.header(AUTHORIZATION, value.clone()),
            None => request.header(AUTHORIZATION, self.authorization.expose()),
        }
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
        let body = response.into_body();
        // Room for the whole body at once when its length is given (up to BODY_ROOM: the
        // header is the service's word, not yet its bytes): ureq's read_to_vec grows from
        // empty, several reallocations and copies an answer.
        let room = body.content_length().map_or(0, |n| n.min(BODY_ROOM));
        let mut bytes = Vec::with_capacity(usize::try_from(room).unwrap_or(0));
        let read = body
            .into_with_config()
            // ureq refuses a body that reaches its limit; one of exactly MAX_BODY_BYTES is allowed.
            .limit(MAX_BODY_BYTES + 1)
            .reader()
            .read_to_end(&mut bytes);
        match read {
            Ok(_) => (
                Ok(Response {
                    status,
                    body: bytes,
                }),
                retry_after,
            ),
            // ureq's own errors (the limit, a timeout) come back wrapped in io::Error; this
            // unwraps them as read_to_vec does.
            Err(e) => (Err(self.transport_error(ureq::Error::from(e))), None),
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
