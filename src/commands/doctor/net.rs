//! Checks 4-6, the network below HTTP: name resolution, the TCP connection and the TLS
//! handshake, each bounded by `--timeout`. Doctor does them itself (the resolver on a thread
//! it can leave behind, rustls with ureq's provider and roots) to say which step failed and
//! to read the protocol and certificate.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use ureq::http::Uri;

use super::{Check, Report, ms};
use crate::exit::{Exit, Failure};
use crate::settings::{Settings, Sourced};
use crate::transport::base_url::BaseUrl;

/// 4-6. Name resolution, TCP connection and TLS; `None` when one failed.
pub(super) fn network_checks(
    report: &mut Report,
    settings: &Settings,
    target: &Target,
    proxy: Option<&ureq::Proxy>,
    timeout: Duration,
) -> Option<()> {
    let (host, port, via) = match proxy {
        Some(p) => (
            p.host().to_owned(),
            p.port(),
            format!(" (the proxy {}:{})", p.host(), p.port()),
        ),
        None => (target.host.clone(), target.port, String::new()),
    };
    let started = Instant::now();
    let addrs = report.step(resolve(&host, port, timeout).map_err(|why| {
        Check::fail(
            "resolve",
            Exit::Unavailable,
            format!("cannot resolve {host}{via}: {why}"),
            "check the host name in the base URL (or proxy) and this machine's DNS",
        )
    }))?;
    let list: Vec<String> = addrs.iter().map(|a| a.ip().to_string()).collect();
    let found = match unbracketed(&host).parse::<IpAddr>() {
        Ok(_) => format!("{host}{via} is an address: nothing to resolve"),
        Err(_) => format!("{host}{via} resolves to {}", list.join(", ")),
    };
    report.add(
        Check::ok("resolve", found)
            .with("host", host.clone())
            .with("addresses", list)
            .with("ms", ms(started)),
    );
    let started = Instant::now();
    let (stream, addr) = report.step(connect(&addrs, timeout).map_err(|why| {
        Check::fail(
            "connect",
            Exit::Unavailable,
            format!("cannot connect to {host}:{port}{via}: {why}"),
            "check the port in the base URL, that the service is up, and that no firewall \
             is in the way",
        )
    }))?;
    let connect_ms = ms(started);
    report.add(
        Check::ok(
            "connect",
            format!("connected to {addr}{via} in {connect_ms} ms"),
        )
        .with("address", addr.to_string())
        .with("ms", connect_ms),
    );
    if let Some(p) = proxy {
        report.add(Check::ok(
            "tls",
            format!(
                "not checked here: requests go through the proxy {}:{}; the credentials \
                 check below goes through it",
                p.host(),
                p.port()
            ),
        ));
        return Some(());
    }
    if !target.https {
        report.add(Check::ok(
            "tls",
            "not used: plain http to a loopback address",
        ));
        return Some(());
    }
    tls_check(report, settings, &stream, &target.host, timeout)
}

/// 6. The handshake; `None` when it failed.
fn tls_check(
    report: &mut Report,
    settings: &Settings,
    stream: &TcpStream,
    host: &str,
    timeout: Duration,
) -> Option<()> {
    let ca = settings.ca_cert.as_ref();
    let roots = report.step(
        Roots::new(ca.map(|c| c.value.as_path())).map_err(|failure| {
            let from = ca
                .map(|c| format!(" (from {})", c.source))
                .unwrap_or_default();
            Check::fail(
                "tls",
                Exit::Config,
                format!("{}{from}", failure.message),
                "point --ca-cert or the profile's ca_cert at a PEM file of root certificates",
            )
        }),
    )?;
    let started = Instant::now();
    let check = match handshake(stream, host, &roots, timeout) {
        Ok(facts) => handshake_check(&facts, ca, host).with("ms", ms(started)),
        Err(failure) => {
            let mut text = format!("TLS handshake with {host} failed: {}", failure.reason);
            if let Some(leaf) = &failure.leaf {
                text.push_str(&format!(
                    "; its certificate is for {}, issued by {}, expires {}",
                    leaf.subject, leaf.issuer, leaf.not_after
                ));
            }
            Check::fail("tls", Exit::Unavailable, text, tls_fix(&failure, ca))
        }
    };
    report.pass(check)
}

/// The check of a handshake that passed: the protocol, the certificate and whether the
/// extra root was needed; a warning when the certificate expires soon.
fn handshake_check(facts: &TlsFacts, ca: Option<&Sourced<PathBuf>>, host: &str) -> Check {
    let mut text = facts.version.clone();
    if let Some(leaf) = &facts.leaf {
        text.push_str(&format!(
            "; certificate for {}, issued by {}, expires {} (in {} days)",
            leaf.subject, leaf.issuer, leaf.not_after, leaf.days_left
        ));
    }
    match (ca, facts.extra_root_needed) {
        (Some(ca), true) => text.push_str(&format!(
            "; the extra root from --ca-cert {} ({}) was needed",
            ca.value.display(),
            ca.source
        )),
        (Some(ca), false) => text.push_str(&format!(
            "; the extra root from {} ({}) was not needed: a Mozilla root signs it",
            ca.value.display(),
            ca.source
        )),
        (None, _) => text.push_str("; signed by a Mozilla root, no --ca-cert needed"),
    }
    let leaf = facts.leaf.as_ref();
    let check = match leaf.map(|l| l.days_left) {
        Some(days) if days < EXPIRY_WARNING_DAYS => Check::warn(
            "tls",
            text,
            format!(
                "the certificate expires in under {EXPIRY_WARNING_DAYS} days: tell whoever runs \
                 {host} (or your TLS-inspecting proxy) to renew it"
            ),
        ),
        _ => Check::ok("tls", text),
    };
    check
        .with("version", facts.version.clone())
        .with("subject", leaf.map(|l| l.subject.clone()))
        .with("issuer", leaf.map(|l| l.issuer.clone()))
        .with("not_after", leaf.map(|l| l.not_after.clone()))
        .with("days_left", leaf.map(|l| l.days_left))
        .with("ca_cert_needed", facts.extra_root_needed)
}

/// What to do about a handshake that failed, by what the certificate was refused for.
fn tls_fix(failure: &TlsFailure, ca: Option<&Sourced<PathBuf>>) -> String {
    use rustls::CertificateError as C;
    match (&failure.certificate, ca) {
        (Some(C::UnknownIssuer), None) => "if a TLS-inspecting proxy or a private CA signs this \
            certificate, add its root with --ca-cert PEM (or ca_cert in the profile)"
            .to_owned(),
        (Some(C::UnknownIssuer | C::BadSignature), Some(ca)) => format!(
            "neither a Mozilla root nor the roots in {} ({}) sign this certificate: point \
             --ca-cert at the root that does",
            ca.value.display(),
            ca.source
        ),
        (Some(C::NotValidForName | C::NotValidForNameContext { .. }), _) => {
            "the certificate is for another name: check the base URL's host".to_owned()
        }
        (Some(C::Expired | C::ExpiredContext { .. }), _) => {
            "the server's certificate has expired: its operator must renew it".to_owned()
        }
        _ => "check that the base URL's scheme and port are the service's https ones".to_owned(),
    }
}

/// Days before expiry under which the certificate is a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;

/// Where the TCP connection goes: the base URL's host and port.
pub(super) struct Target {
    host: String,
    port: u16,
    https: bool,
}

impl Target {
    /// The host and port of `base`; `None` when it has no host.
    pub(super) fn of(base: &BaseUrl) -> Option<Target> {
        let uri: Uri = base.to_string().parse().ok()?;
        let https = uri.scheme_str() == Some("https");
        Some(Target {
            host: uri.host()?.to_owned(),
            port: uri.port_u16().unwrap_or(if https { 443 } else { 80 }),
            https,
        })
    }
}

/// The addresses `host` resolves to for `port`, or why not, within `timeout`.
///
/// The system resolver has no time limit of its own, so it runs on a thread that is left
/// behind (it ends when the resolver gives up) if it does not answer in time.
fn resolve(host: &str, port: u16, timeout: Duration) -> Result<Vec<SocketAddr>, String> {
    let bare = unbracketed(host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let (tx, rx) = mpsc::channel();
    let name = bare.to_owned();
    std::thread::Builder::new()
        .name("doctor-resolve".into())
        .spawn(move || {
            let _ = tx.send((name.as_str(), port).to_socket_addrs().map(Vec::from_iter));
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(timeout) {
        Ok(Ok(addrs)) if addrs.is_empty() => Err("it has no addresses".into()),
        Ok(Ok(addrs)) => Ok(addrs),
        // glibc's text ("failed to lookup address information: Name or service not known").
        Ok(Err(e)) => {
            let text = e.to_string();
            let prefix = "failed to lookup address information: ";
            Err(text.strip_prefix(prefix).map(str::to_owned).unwrap_or(text))
        }
        Err(_) => Err(format!("no answer within {}", secs(timeout))),
    }
}

/// A TCP connection to the first of `addrs` that accepts one, all within `timeout`; the
/// error lists why each address failed.
fn connect(addrs: &[SocketAddr], timeout: Duration) -> Result<(TcpStream, SocketAddr), String> {
    let deadline = Instant::now() + timeout;
    let mut failures = Vec::new();
    for addr in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            failures.push(format!("{addr}: not tried, the time was up"));
            continue;
        }
        match TcpStream::connect_timeout(addr, left) {
            Ok(stream) => return Ok((stream, *addr)),
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                failures.push(format!("{addr}: no answer within {}", secs(left)));
            }
            Err(e) => failures.push(format!("{addr}: {}", crate::io_util::io_reason(&e))),
        }
    }
    match (addrs, failures.as_slice()) {
        // One address: its name is already in the caller's message.
        ([_], [one]) => Err(one
            .split_once(": ")
            .map_or(one.clone(), |(_, why)| why.to_owned())),
        _ => Err(failures.join("; ")),
    }
}

/// What the TLS handshake established.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TlsFacts {
    /// `TLSv1.3` or `TLSv1.2`.
    version: String,
    /// The server certificate, if it sent one that parses.
    leaf: Option<Leaf>,
    /// Whether only the `--ca-cert` roots made the chain trusted.
    extra_root_needed: bool,
}

/// The fields of the server certificate doctor reports.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Leaf {
    /// Subject distinguished name, RFC 4514 style.
    subject: String,
    /// Issuer distinguished name.
    issuer: String,
    /// notAfter, as the certificate writes it.
    not_after: String,
    /// Whole days from now to notAfter (negative once expired).
    days_left: i64,
}

/// Why the handshake failed, with whatever was learnt of the certificate first.
#[derive(Debug)]
struct TlsFailure {
    /// What went wrong, one line.
    reason: String,
    /// The certificate error, when the chain was refused.
    certificate: Option<rustls::CertificateError>,
    /// The server certificate, when one was received.
    leaf: Option<Leaf>,
}

/// The roots doctor checks against: ureq's own set without `--ca-cert`, and with it the
/// set ureq's client is configured with (Mozilla's roots plus the file's certificates).
struct Roots {
    default: RootCertStore,
    extra: Option<RootCertStore>,
}

impl Roots {
    /// The roots for an optional `--ca-cert` file; exit 6 if it cannot be used.
    fn new(ca_cert: Option<&Path>) -> Result<Roots, Failure> {
        let default = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        // The same parsing as the client's, so a file doctor accepts is one verify accepts;
        // with no file, there is no second set.
        let extra = match crate::transport::network::roots(ca_cert, None)? {
            Some(ureq::tls::RootCerts::Specific(certs)) => {
                let mut store = RootCertStore::empty();
                store.add_parsable_certificates(
                    certs.iter().map(|c| CertificateDer::from(c.der().to_vec())),
                );
                Some(store)
            }
            _ => None,
        };
        Ok(Roots { default, extra })
    }
}

/// Performs a TLS handshake over `stream` for `host`, within `timeout`.
fn handshake(
    stream: &TcpStream,
    host: &str,
    roots: &Roots,
    timeout: Duration,
) -> Result<TlsFacts, Box<TlsFailure>> {
    let fail = |reason: String| {
        Box::new(TlsFailure {
            reason,
            certificate: None,
            leaf: None,
        })
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = |store: &RootCertStore| {
        WebPkiServerVerifier::builder_with_provider(Arc::new(store.clone()), provider.clone())
            .build()
            .map_err(|e| fail(format!("cannot set up certificate checks: {e}")))
    };
    let recorder = Arc::new(Recorder {
        default: verifier(&roots.default)?,
        extra: roots.extra.as_ref().map(verifier).transpose()?,
        provider: provider.clone(),
        seen: Mutex::default(),
    });
    let config = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| fail(format!("cannot set up TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(recorder.clone())
        .with_no_client_auth();
    let bare = unbracketed(host);
    let name = ServerName::try_from(bare.to_owned()).map_err(|_| {
        fail(format!(
            "'{bare}' is not a name TLS can check a certificate for"
        ))
    })?;
    let mut conn = ClientConnection::new(Arc::new(config), name)
        .map_err(|e| fail(format!("cannot start TLS: {e}")))?;
    let mut io = Deadlined {
        stream,
        deadline: Instant::now() + timeout,
    };
    let mut result = Ok(());
    while result.is_ok() && conn.is_handshaking() {
        result = conn.complete_io(&mut io).map(drop);
    }
    let seen = recorder.seen.lock().map(|s| s.clone()).unwrap_or_default();
    let leaf = seen.leaf.as_deref().and_then(parse_leaf);
    match result {
        Ok(()) => Ok(TlsFacts {
            version: conn
                .protocol_version()
                // TLSv1_3 is TLSv1.3.
                .map(|v| format!("{v:?}").replace('_', "."))
                .unwrap_or_else(|| "unknown".into()),
            leaf,
            extra_root_needed: seen.extra_needed,
        }),
        Err(e) => Err(Box::new(TlsFailure {
            reason: handshake_reason(&e, timeout),
            certificate: seen.refused,
            leaf,
        })),
    }
}

/// Why a handshake failed, one line: the time ran out, or what TLS or the stream said.
fn handshake_reason(e: &io::Error, timeout: Duration) -> String {
    if matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    ) {
        return format!(
            "no handshake within {} (a plain http server waits like this for a request)",
            secs(timeout)
        );
    }
    let tls = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match tls {
        Some(rustls::Error::InvalidMessage(_))
        | Some(rustls::Error::InappropriateMessage { .. }) => {
            "the server did not answer in TLS (is it plain http?)".into()
        }
        Some(rustls::Error::InvalidCertificate(c)) => {
            use rustls::CertificateError as C;
            let why = match c {
                C::UnknownIssuer => "no trusted root signs it".to_owned(),
                C::BadSignature => {
                    "a trusted root has its issuer's name but its signature does not verify"
                        .to_owned()
                }
                C::Expired | C::ExpiredContext { .. } => "it has expired".to_owned(),
                C::NotValidYet | C::NotValidYetContext { .. } => "it is not valid yet".to_owned(),
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    "it is not valid for this host name".to_owned()
                }
                other => format!("{other:?}"),
            };
            format!("certificate refused: {why}")
        }
        Some(rustls::Error::AlertReceived(alert)) => format!("the server refused: alert {alert:?}"),
        Some(other) => other.to_string(),
        None if e.kind() == io::ErrorKind::UnexpectedEof => {
            "the server closed the connection during the handshake (is it plain http?)".into()
        }
        None => crate::io_util::io_reason(e),
    }
}

/// The stream with every read and write bounded by one deadline for the whole handshake.
struct Deadlined<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Deadlined<'_> {
    fn left(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        Ok(left)
    }
}

impl Read for Deadlined<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        (&*self.stream).read(buf)
    }
}

impl Write for Deadlined<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        (&*self.stream).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.stream).flush()
    }
}

/// What the verifier saw during the handshake.
#[derive(Debug, Clone, Default)]
struct Seen {
    leaf: Option<Vec<u8>>,
    extra_needed: bool,
    refused: Option<rustls::CertificateError>,
}

/// The standard webpki verification, recording the server certificate (so a refused one
/// can still be described) and whether the default roots sufficed or the extra ones were
/// needed. It decides exactly as the default verifier does: nothing is accepted that
/// rustls would refuse.
#[derive(Debug)]
struct Recorder {
    default: Arc<WebPkiServerVerifier>,
    extra: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
    seen: Mutex<Seen>,
}

impl Recorder {
    fn note(&self, f: impl FnOnce(&mut Seen)) {
        if let Ok(mut seen) = self.seen.lock() {
            f(&mut seen);
        }
    }
}

impl ServerCertVerifier for Recorder {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.note(|s| s.leaf = Some(end_entity.as_ref().to_vec()));
        let verify = |v: &WebPkiServerVerifier| {
            v.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        };
        let result = match (verify(&self.default), &self.extra) {
            (Ok(ok), _) => Ok(ok),
            (
                Err(rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)),
                Some(extra),
            ) => {
                let second = verify(extra);
                if second.is_ok() {
                    self.note(|s| s.extra_needed = true);
                }
                second
            }
            (Err(e), _) => Err(e),
        };
        if let Err(rustls::Error::InvalidCertificate(c)) = &result {
            let c = c.clone();
            self.note(|s| s.refused = Some(c));
        }
        result
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.default.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.default.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The subject, issuer and expiry of a DER certificate; `None` if it does not parse.
fn parse_leaf(der: &[u8]) -> Option<Leaf> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    let not_after = &cert.validity().not_after;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())?;
    Some(Leaf {
        subject: cert.subject().to_string(),
        issuer: cert.issuer().to_string(),
        not_after: not_after.to_string(),
        days_left: (not_after.timestamp() - now).div_euclid(86_400),
    })
}

/// A duration in seconds, as the messages give it.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// `host` without the brackets of an IPv6 address in a URL.
fn unbracketed(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}
