//! Doctor's network steps below HTTP: name resolution, TCP connect, and a TLS handshake of
//! its own (rustls, with ureq's provider and roots) to read the protocol and certificate.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use crate::exit::Failure;

/// The addresses `host` resolves to for `port`, or why not, within `timeout`.
///
/// The system resolver has no time limit of its own, so it runs on a thread that is left
/// behind (it ends when the resolver gives up) if it does not answer in time.
pub(crate) fn resolve(host: &str, port: u16, timeout: Duration) -> Result<Vec<SocketAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
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
pub(crate) fn connect(
    addrs: &[SocketAddr],
    timeout: Duration,
) -> Result<(TcpStream, SocketAddr), String> {
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
pub(crate) struct TlsFacts {
    /// `TLSv1.3` or `TLSv1.2`.
    pub(crate) version: String,
    /// The server certificate, if it sent one that parses.
    pub(crate) leaf: Option<Leaf>,
    /// Whether only the `--ca-cert` roots made the chain trusted.
    pub(crate) extra_root_needed: bool,
}

/// The fields of the server certificate doctor reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Leaf {
    /// Subject distinguished name, RFC 4514 style.
    pub(crate) subject: String,
    /// Issuer distinguished name.
    pub(crate) issuer: String,
    /// notAfter, as the certificate writes it.
    pub(crate) not_after: String,
    /// Whole days from now to notAfter (negative once expired).
    pub(crate) days_left: i64,
}

/// Why the handshake failed, with whatever was learnt of the certificate first.
#[derive(Debug)]
pub(crate) struct TlsFailure {
    /// What went wrong, one line.
    pub(crate) reason: String,
    /// The certificate error, when the chain was refused.
    pub(crate) certificate: Option<rustls::CertificateError>,
    /// The server certificate, when one was received.
    pub(crate) leaf: Option<Leaf>,
}

/// The roots doctor checks against: ureq's own set without `--ca-cert`, and with it the
/// set ureq's client is configured with (Mozilla's roots plus the file's certificates).
pub(crate) struct Roots {
    default: RootCertStore,
    extra: Option<RootCertStore>,
}

impl Roots {
    /// The roots for an optional `--ca-cert` file; exit 6 if it cannot be used.
    pub(crate) fn new(ca_cert: Option<&Path>) -> Result<Roots, Failure> {
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
pub(crate) fn handshake(
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
    let bare = host.trim_start_matches('[').trim_end_matches(']');
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
pub(crate) fn parse_leaf(der: &[u8]) -> Option<Leaf> {
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

fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
