//! The embedded sandbox: a loopback stand-in for the Verify Transaction service.
//!
//! The verify path does not know it talks to a sandbox: it is handed a base URL and the
//! sandbox credentials like any other endpoint.

pub(crate) mod http;
pub(crate) mod responses;
pub(crate) mod throttle;
pub(crate) mod tls;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use crate::exit::{Cause, Failure};
use crate::log::Log;

pub use http::{Request, Response, Server};
pub use responses::{
    CLIENT_ID, CLIENT_SECRET, MAGIC_REFERENCES, MERCHANT_NOTE, MagicReference, Memory,
    SAMPLE_REFERENCE, magic_section, magic_section_for, magic_table,
};
pub use throttle::{RateLimit, default_burst, parse_rate};
pub use tls::{Identity, LOOPBACK_NAMES, Validity};

/// A running sandbox server; stops when dropped.
pub struct Sandbox {
    server: http::Server,
    url: String,
    ca_pem: Option<String>,
}

/// How the sandbox behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Added to every response.
    pub latency: Duration,
    /// Log each request on stderr (standalone) or only with `-v` (embedded).
    pub log_requests: bool,
    /// Serve HTTPS with a certificate for loopback signed by a CA made at start.
    pub tls: bool,
    /// Throttle verify requests like a rate-limited gateway (changeable while running).
    pub rate_limit: Option<RateLimit>,
    /// What earlier runs asked, for the references that answer differently once asked.
    pub memory: Option<Memory>,
}

impl Sandbox {
    /// Binds 127.0.0.1 and starts serving, each connection on its own thread so slow or
    /// delayed answers never queue behind one another.
    pub fn start(options: Options, log: Log) -> Result<Sandbox, Failure> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
        let state = Arc::new(responses::State::remembering(options.memory.clone()));
        let throttle = Arc::new(throttle::Throttle::new(options.rate_limit));
        let identity = match options.tls {
            true => Some(
                tls::Identity::generate(&tls::LOOPBACK_NAMES, tls::Validity::Current)
                    .map_err(|e| Failure::new(crate::exit::Exit::Internal, e))?,
            ),
            false => None,
        };
        let config = identity.as_ref().map(|i| i.config.clone());
        let server = http::Server::start(addr, config, move |request| {
            answer(request, &state, &throttle, &options, &log)
        })
        .map_err(|e| {
            Failure::config(
                Cause::Other,
                format!(
                    "cannot listen on {addr}: {} (pick another --port, or --port 0 for a free one)",
                    crate::io_util::io_reason(&e)
                ),
            )
        })?;
        let scheme = if identity.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{}", server.addr());
        Ok(Sandbox {
            server,
            url,
            ca_pem: identity.map(|i| i.ca_pem),
        })
    }

    /// The base URL, `http://127.0.0.1:PORT` (or `https://`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Connections accepted and TLS handshakes completed so far.
    pub fn counts(&self) -> (usize, usize) {
        let counts = self.server.counts();
        (
            counts
                .connections
                .load(std::sync::atomic::Ordering::Relaxed),
            counts.handshakes.load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// The PEM of the CA that signed the HTTPS sandbox's certificate.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }
}

fn answer(
    request: &http::Request,
    state: &responses::State,
    throttle: &throttle::Throttle,
    options: &Options,
    log: &Log,
) -> http::Response {
    if let Some((status, body)) = throttle.control(&request.method, &request.target) {
        log.trace(|| format!("sandbox: {} {} -> {status}", request.method, request.target));
        return http::Response {
            status,
            headers: vec![],
            body: body.to_string().into_bytes(),
        };
    }
    // A rate-limited gateway throttles before it looks at anything else.
    let throttled = match request.target.starts_with(responses::VERIFY_PREFIX) {
        true => throttle.take(),
        false => None,
    };
    let reply = match throttled {
        Some((status, retry_after)) => responses::Reply {
            retry_after,
            ..responses::Reply::message(status, "too many requests (sandbox: rate limit)")
        },
        None => responses::reply(
            state,
            &request.method,
            &request.target,
            request.header("authorization"),
        ),
    };
    std::thread::sleep(options.latency + reply.delay);
    let line = format!(
        "sandbox: {} {} -> {}",
        request.method, request.target, reply.status
    );
    if options.log_requests {
        log.info(&line);
    } else {
        log.trace(|| line);
    }
    let headers = reply
        .retry_after
        .map(|secs| vec![("Retry-After".to_owned(), secs.to_string())])
        .unwrap_or_default();
    http::Response {
        status: reply.status,
        headers,
        body: reply.body.to_string().into_bytes(),
    }
}
