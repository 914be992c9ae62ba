//! Reaching the service: the agent, extra root certificates and name resolution (the proxy
//! is [`crate::transport::proxy`]'s).

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use ureq::Agent;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::tls::{Certificate, RootCerts};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::time::Duration as Budget;
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport,
};

use crate::exit::{Cause, Failure};

/// The agent every request goes through, with a resolver that does not start a thread per
/// request.
pub(crate) fn agent(config: Config) -> Agent {
    agent_with(config, CachingResolver::<DefaultResolver>::default())
}

/// The agent with `resolver` for its lookups (a test passes a counting one).
fn agent_with<R: Resolver>(config: Config, resolver: R) -> Agent {
    let connector = DefaultConnector::default().chain(Lean);
    Agent::with_parts(config, connector, resolver)
}

/// How long after a probe found a connection open a second probe, with no I/O between, is
/// answered from the first. ureq probes a kept connection twice between two requests: when
/// the answer has been read (before the connection goes back to the pool) and when it is
/// taken out again, the second time while it holds the pool's lock. A server that closes
/// a connection within this long of its last answer is found by the next request instead,
/// as one that closes right after the second probe always was.
const PROBE_STANDS: Duration = Duration::from_millis(100);

/// Socket timeouts are rounded up to this, so that the next request's, which differ from
/// the last by the microseconds its start took, are the same value and ureq does not set
/// them again (two `setsockopt` calls a request).
const TIMEOUT_GRAIN: Duration = Duration::from_millis(10);

/// The last link of the connector chain: wraps every connection ureq makes in [`LeanTransport`].
#[derive(Debug)]
struct Lean;

impl Connector<Box<dyn Transport>> for Lean {
    type Out = LeanTransport;

    fn connect(
        &self,
        _: &ConnectionDetails,
        chained: Option<Box<dyn Transport>>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        Ok(chained.map(|inner| LeanTransport {
            inner,
            probed_open: None,
        }))
    }
}

/// A connection as ureq made it (TCP, SOCKS, TLS), with fewer system calls per request:
/// 3 of the 6 its two pool probes make (see [`PROBE_STANDS`]), and the 2 that set its socket
/// timeouts again (see [`TIMEOUT_GRAIN`]). Everything else is the inner transport's.
#[derive(Debug)]
struct LeanTransport {
    inner: Box<dyn Transport>,
    /// When a probe last found the connection open, if no I/O came since.
    probed_open: Option<Instant>,
}

impl Transport for LeanTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.probed_open = None;
        self.inner.transmit_output(amount, coarse(timeout))
    }

    fn maybe_await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.probed_open = None;
        self.inner.maybe_await_input(coarse(timeout))
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.probed_open = None;
        self.inner.await_input(coarse(timeout))
    }

    fn is_open(&mut self) -> bool {
        if self
            .probed_open
            .is_some_and(|at| at.elapsed() < PROBE_STANDS)
        {
            return true;
        }
        let open = self.inner.is_open();
        self.probed_open = open.then(Instant::now);
        open
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

/// `timeout` with its time left rounded up to [`TIMEOUT_GRAIN`]: never sooner than asked,
/// at most that much later. A budget already spent stays spent (ureq fails it at once).
fn coarse(mut timeout: NextTimeout) -> NextTimeout {
    if let Budget::Exact(left) = timeout.after
        && !left.is_zero()
    {
        let grain = TIMEOUT_GRAIN.as_nanos();
        let grains = left.as_nanos().div_ceil(grain);
        let rounded = grains
            .checked_mul(grain)
            .and_then(|ns| u64::try_from(ns).ok())
            .map_or(left, Duration::from_nanos);
        timeout.after = Budget::Exact(rounded);
    }
    timeout
}

/// Mozilla's roots (as ureq uses by default) plus every certificate in the PEM file
/// `ca_file` and in `extra_pem` (the in-process sandbox's CA); `None` when neither is given.
pub(crate) fn roots(
    ca_file: Option<&Path>,
    extra_pem: Option<&str>,
) -> Result<Option<RootCerts>, Failure> {
    let mut extra = Vec::new();
    if let Some(path) = ca_file {
        extra.extend(ca_certificates(path)?);
    }
    if let Some(pem) = extra_pem {
        let fail = |why: String| Failure::config(Cause::CaCert, format!("sandbox CA: {why}"));
        extra.extend(certificates(pem.as_bytes()).map_err(fail)?);
    }
    if extra.is_empty() {
        return Ok(None);
    }
    let mozilla = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()));
    Ok(Some(RootCerts::from(mozilla.chain(extra))))
}

/// The certificates of the CA file `path` (`--ca-cert`, `ca_cert`), each one checked to be
/// an X.509 certificate: read as every file is (bounded, regular files only), a UTF-8
/// byte-order mark dropped. Exit 6 with one readable line when it cannot be used.
pub(crate) fn ca_certificates(path: &Path) -> Result<Vec<Certificate<'static>>, Failure> {
    let fail =
        |why: String| Failure::config(Cause::CaCert, format!("CA file {}: {why}", path.display()));
    let pem = crate::files::read(path, &crate::files::CA_FILE).map_err(|e| {
        e.failure(format!("CA file {}: {e}", path.display()), |message| {
            Failure::config(Cause::CaCert, message)
        })
    })?;
    certificates(&pem).map_err(fail)
}

/// Every certificate in a PEM text; at least one, and each one X.509. Sections of other
/// kinds (a private key) are skipped.
fn certificates(pem: &[u8]) -> Result<Vec<Certificate<'static>>, String> {
    use rustls::pki_types::pem::{PemObject, SectionKind};
    // An editor's byte-order mark would hide the first BEGIN line.
    let text = pem.strip_prefix(b"\xef\xbb\xbf").unwrap_or(pem);
    let mut found = Vec::new();
    for item in <(SectionKind, Vec<u8>)>::pem_slice_iter(text) {
        let (kind, der) = item.map_err(|e| pem_error(text, &e))?;
        if kind != SectionKind::Certificate {
            continue;
        }
        let n = found.len() + 1;
        match x509_parser::parse_x509_certificate(&der) {
            Ok(([], _)) => {}
            Ok(_) => {
                return Err(format!(
                    "certificate {n} is not a valid X.509 certificate: bytes follow its end"
                ));
            }
            Err(e) => {
                return Err(format!(
                    "certificate {n} is not a valid X.509 certificate ({})",
                    x509_reason(&e)
                ));
            }
        }
        found.push(Certificate::from_der(&der).to_owned());
    }
    if found.is_empty() {
        return Err("holds no PEM certificate (a -----BEGIN CERTIFICATE----- block)".into());
    }
    Ok(found)
}

/// A PEM error as one readable line: the PEM library's own text prints bytes as arrays.
fn pem_error(text: &[u8], e: &rustls::pki_types::pem::Error) -> String {
    use rustls::pki_types::pem::Error;
    let shown = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        crate::terminal::quoted(text.trim_end())
    };
    match e {
        Error::MissingSectionEnd { end_marker } => format!(
            "not valid PEM: a {} block has no END line",
            shown(end_marker)
        ),
        Error::IllegalSectionStart { line } => {
            let wanted = line.trim_ascii_end();
            let at = text
                .split(|&b| b == b'\n')
                .position(|l| l.trim_ascii_end() == wanted)
                .map(|i| i + 1);
            let at = at.map(|n| format!("line {n}: ")).unwrap_or_default();
            format!(
                "not valid PEM: {at}a BEGIN line that is not of the form -----BEGIN LABEL----- ({})",
                shown(line)
            )
        }
        Error::Base64Decode(why) => format!("not valid PEM: a block is not valid base64 ({why})"),
        Error::SectionTooLarge => "not valid PEM: a block is too large".to_owned(),
        other => format!(
            "not valid PEM: {}",
            crate::terminal::scrub(&other.to_string())
        ),
    }
}

/// Why x509-parser refused a certificate, in a few words.
fn x509_reason(e: &x509_parser::nom::Err<x509_parser::error::X509Error>) -> String {
    match e {
        x509_parser::nom::Err::Error(e) | x509_parser::nom::Err::Failure(e) => e.to_string(),
        x509_parser::nom::Err::Incomplete(_) => "it is cut short".to_owned(),
    }
}

/// How long a looked-up address is reused before the name is looked up again, so a long
/// batch still follows a DNS change.
const RESOLVE_REUSE: Duration = Duration::from_secs(60);

/// Resolves the service's host once and reuses the answer, instead of once per request.
///
/// Why: ureq's `DefaultResolver` bounds each lookup by starting a thread whenever a timeout
/// is set, even for an IP literal and even when a pooled connection is then reused: one
/// `clone3` and a handful of `futex` calls per verification. An IP literal needs no lookup;
/// a name is looked up (on `DefaultResolver`'s bounded thread, within the timeout) at most
/// once per [`RESOLVE_REUSE`].
#[derive(Default)]
pub(crate) struct CachingResolver<R = DefaultResolver> {
    lookup: R,
    cached: RwLock<Option<Cached>>,
}

struct Cached {
    host: String,
    port: u16,
    addrs: ResolvedSocketAddrs,
    at: Instant,
}

impl<R> std::fmt::Debug for CachingResolver<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachingResolver").finish_non_exhaustive()
    }
}

impl<R: Resolver> Resolver for CachingResolver<R> {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().unwrap_or_default();
        let port = uri.port_u16().or_else(|| match uri.scheme_str() {
            Some("https") => Some(443),
            Some("http") => Some(80),
            _ => None,
        });
        let Some(port) = port else {
            return self.lookup.resolve(uri, config, timeout);
        };
        // `Uri::host` keeps the brackets of an IPv6 literal.
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = literal.parse::<IpAddr>() {
            let mut addrs = self.empty();
            addrs.push(SocketAddr::new(ip, port));
            return Ok(addrs);
        }
        if let Ok(cached) = self.cached.read()
            && let Some(c) = cached.as_ref()
            && c.port == port
            && c.host == host
            && c.at.elapsed() < RESOLVE_REUSE
        {
            return Ok(c.addrs.clone());
        }
        let addrs = self.lookup.resolve(uri, config, timeout)?;
        if let Ok(mut cached) = self.cached.write() {
            *cached = Some(Cached {
                host: host.to_owned(),
                port,
                addrs: addrs.clone(),
                at: Instant::now(),
            });
        }
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A lookup that counts its calls and answers 192.0.2.1, or fails for `bad.example`.
    #[derive(Debug, Default)]
    struct Counting(AtomicUsize);

    impl Resolver for Counting {
        fn resolve(
            &self,
            uri: &Uri,
            _: &Config,
            _: NextTimeout,
        ) -> Result<ResolvedSocketAddrs, ureq::Error> {
            self.0.fetch_add(1, Ordering::SeqCst);
            if uri.host() == Some("bad.example") {
                return Err(ureq::Error::HostNotFound);
            }
            let mut addrs = self.empty();
            addrs.push(SocketAddr::from(([192, 0, 2, 1], 443)));
            Ok(addrs)
        }
    }

    fn resolve(r: &CachingResolver<Counting>, url: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: Uri = url.parse().unwrap();
        r.resolve(&uri, &Config::default(), NextTimeout::default())
            .map(|a| a.iter().copied().collect())
    }

    /// A lookup that counts its calls and sends every name to `to`.
    #[derive(Debug)]
    struct Redirect {
        calls: std::sync::Arc<AtomicUsize>,
        to: SocketAddr,
    }

    impl Resolver for Redirect {
        fn resolve(
            &self,
            _: &Uri,
            _: &Config,
            _: NextTimeout,
        ) -> Result<ResolvedSocketAddrs, ureq::Error> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let mut addrs = self.empty();
            addrs.push(self.to);
            Ok(addrs)
        }
    }

    /// ureq's resolver hook is an `unversioned` API (Cargo.toml pins ureq to ~3.5 for it):
    /// this fails if a ureq release stops asking the agent's resolver, or the cache stops
    /// sparing the second lookup.
    #[test]
    fn the_agent_resolves_names_through_the_caching_resolver() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            for stream in listener.incoming().take(2) {
                let mut stream = stream.unwrap();
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = stream.read(&mut buf).unwrap();
                    assert!(n > 0, "the client closed before its request ended");
                    request.extend_from_slice(&buf[..n]);
                }
                stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    )
                    .unwrap();
            }
        });
        let calls = std::sync::Arc::new(AtomicUsize::new(0));
        let resolver = CachingResolver {
            lookup: Redirect {
                calls: calls.clone(),
                to,
            },
            cached: RwLock::default(),
        };
        let agent = agent_with(Config::default(), resolver);
        for _ in 0..2 {
            let url = format!("http://pay.example:{}/api/payment/verify/x", to.port());
            let body = agent
                .get(&url)
                .call()
                .unwrap()
                .body_mut()
                .read_to_string()
                .unwrap();
            assert_eq!(body, "ok");
        }
        server.join().unwrap();
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "one lookup for two requests"
        );
    }

    /// A connection that counts its probes and answers them with `open`.
    #[derive(Debug)]
    struct Probed {
        buffers: ureq::unversioned::transport::LazyBuffers,
        probes: std::sync::Arc<AtomicUsize>,
        open: bool,
    }

    impl Transport for Probed {
        fn buffers(&mut self) -> &mut dyn Buffers {
            &mut self.buffers
        }
        fn transmit_output(&mut self, _: usize, _: NextTimeout) -> Result<(), ureq::Error> {
            Ok(())
        }
        fn await_input(&mut self, _: NextTimeout) -> Result<bool, ureq::Error> {
            Ok(false)
        }
        fn is_open(&mut self) -> bool {
            self.probes.fetch_add(1, Ordering::SeqCst);
            self.open
        }
    }

    fn lean(open: bool) -> (LeanTransport, std::sync::Arc<AtomicUsize>) {
        let probes = std::sync::Arc::new(AtomicUsize::new(0));
        let inner = Probed {
            buffers: ureq::unversioned::transport::LazyBuffers::new(64, 64),
            probes: probes.clone(),
            open,
        };
        let transport = LeanTransport {
            inner: Box::new(inner),
            probed_open: None,
        };
        (transport, probes)
    }

    #[test]
    fn a_second_probe_with_no_io_between_is_answered_from_the_first() {
        let (mut conn, probes) = lean(true);
        let first = Instant::now();
        assert!(conn.is_open());
        assert!(conn.is_open());
        if first.elapsed() < PROBE_STANDS {
            assert_eq!(probes.load(Ordering::SeqCst), 1);
        }
        // Any I/O since, and the next probe is made again.
        for io in 0..3 {
            let before = probes.load(Ordering::SeqCst);
            match io {
                0 => conn
                    .transmit_output(0, NextTimeout::default())
                    .map(|_| false),
                1 => conn.await_input(NextTimeout::default()),
                _ => conn.maybe_await_input(NextTimeout::default()),
            }
            .unwrap();
            assert!(conn.is_open());
            assert_eq!(probes.load(Ordering::SeqCst), before + 1, "after I/O {io}");
        }
    }

    #[test]
    fn a_connection_found_closed_is_probed_again_every_time() {
        let (mut conn, probes) = lean(false);
        for n in 1..=3 {
            assert!(!conn.is_open());
            assert_eq!(probes.load(Ordering::SeqCst), n);
        }
    }

    #[test]
    fn socket_timeouts_are_rounded_up_never_down() {
        let left = |after: Budget| {
            coarse(NextTimeout {
                after,
                ..NextTimeout::default()
            })
            .after
        };
        let exact = |d: Duration| Budget::Exact(d);
        // What a request's socket sees a few microseconds into its 30 s: the same value
        // every time.
        let start = Duration::from_secs(30);
        for spent in [1, 250, 999, 9_999] {
            let later = start - Duration::from_micros(spent);
            assert_eq!(left(exact(later)), exact(start), "{spent} us in");
        }
        assert_eq!(
            left(exact(Duration::from_millis(1_234))),
            exact(Duration::from_millis(1_240))
        );
        assert_eq!(
            left(exact(Duration::from_millis(20))),
            exact(Duration::from_millis(20))
        );
        assert_eq!(left(exact(Duration::from_nanos(1))), exact(TIMEOUT_GRAIN));
        // Spent stays spent (ureq fails it), and none stays none.
        assert_eq!(left(exact(Duration::ZERO)), exact(Duration::ZERO));
        assert_eq!(left(Budget::NotHappening), Budget::NotHappening);
    }

    #[test]
    fn ip_literals_need_no_lookup() {
        let r = CachingResolver::<Counting>::default();
        assert_eq!(
            resolve(&r, "http://127.0.0.1:8089/x").unwrap(),
            vec!["127.0.0.1:8089".parse().unwrap()]
        );
        assert_eq!(
            resolve(&r, "https://[::1]/x").unwrap(),
            vec!["[::1]:443".parse().unwrap()]
        );
        assert_eq!(
            resolve(&r, "http://10.1.2.3/x").unwrap(),
            vec!["10.1.2.3:80".parse().unwrap()]
        );
        assert_eq!(r.lookup.0.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_name_is_looked_up_once_per_host_and_port_and_failures_are_not_kept() {
        let r = CachingResolver::<Counting>::default();
        for _ in 0..5 {
            assert_eq!(resolve(&r, "https://pay.example/a").unwrap().len(), 1);
        }
        assert_eq!(r.lookup.0.load(Ordering::SeqCst), 1);
        resolve(&r, "https://pay.example:8443/a").unwrap();
        resolve(&r, "https://other.example/a").unwrap();
        assert_eq!(r.lookup.0.load(Ordering::SeqCst), 3);
        assert!(resolve(&r, "https://bad.example/a").is_err());
        assert!(resolve(&r, "https://bad.example/a").is_err());
        assert_eq!(r.lookup.0.load(Ordering::SeqCst), 5);
    }
}
