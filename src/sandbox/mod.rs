//! The embedded sandbox: a loopback stand-in for the Verify Transaction service.
//!
//! The verify path does not know it talks to a sandbox: it is handed a base URL and the
//! sandbox credentials like any other endpoint.

pub mod responses;

use std::io::Cursor;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tiny_http::{Header, Request, Response, Server};

use crate::exit::Failure;
use crate::log::Log;

pub use responses::{CLIENT_ID, CLIENT_SECRET, SAMPLE_REFERENCE, magic_table};

/// A running sandbox server; stops when dropped.
pub struct Sandbox {
    server: Arc<Server>,
    acceptor: Option<JoinHandle<()>>,
    url: String,
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
}

impl Sandbox {
    /// Binds 127.0.0.1 and starts serving; each request is answered on its own thread so
    /// slow or delayed answers never queue behind one another.
    pub fn start(options: Options, log: Log) -> Result<Sandbox, Failure> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
        let server = Server::http(addr).map_err(|e| {
            Failure::config(format!(
                "cannot listen on {addr}: {e} (pick another --port, or --port 0 for a free one)"
            ))
        })?;
        let bound = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| Failure::config("the sandbox is not listening on an IP address"))?;
        let server = Arc::new(server);
        let state = Arc::new(responses::State::default());
        let accepting = server.clone();
        let acceptor = thread::Builder::new()
            .name("sandbox-accept".into())
            .spawn(move || {
                // recv() fails only when unblocked by shutdown.
                while let Ok(request) = accepting.recv() {
                    let state = state.clone();
                    let log = log.clone();
                    let options = options.clone();
                    let spawned = thread::Builder::new()
                        .name("sandbox-request".into())
                        .spawn(move || answer(request, &state, &options, &log));
                    if spawned.is_err() {
                        // Out of threads: the request is dropped and its client sees a
                        // closed connection, which is what an overloaded server does.
                        continue;
                    }
                }
            })
            .map_err(|e| Failure::config(format!("cannot start the sandbox thread: {e}")))?;
        Ok(Sandbox {
            server,
            acceptor: Some(acceptor),
            url: format!("http://{bound}"),
        })
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn answer(request: Request, state: &responses::State, options: &Options, log: &Log) {
    let authorization = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .map(|h| h.value.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let path = request.url().to_owned();
    let reply = responses::reply(state, &method, &path, authorization.as_deref());
    thread::sleep(options.latency + reply.delay);
    let line = format!("sandbox: {method} {path} -> {}", reply.status);
    if options.log_requests {
        log.info(&line);
    } else {
        log.trace(|| line);
    }
    let body = reply.body.to_string().into_bytes();
    let mut response = Response::new(
        reply.status.into(),
        Vec::new(),
        Cursor::new(body.clone()),
        Some(body.len()),
        None,
    );
    if let Ok(h) = Header::from_bytes("Content-Type", "application/json") {
        response.add_header(h);
    }
    if let Some(secs) = reply.retry_after
        && let Ok(h) = Header::from_bytes("Retry-After", secs.to_string())
    {
        response.add_header(h);
    }
    // The client may have given up (timeouts are part of what the sandbox is for).
    let _ = request.respond(response);
}
