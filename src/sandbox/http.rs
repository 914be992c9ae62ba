//! A minimal HTTP/1.1 server for the sandbox: GET only, keep-alive, a thread per connection,
//! over plain TCP or TLS (the HTTP code sees only a `Read + Write` stream).
//!
//! Why not tiny_http: its 0.12 task pool can queue a new connection behind a keep-alive one
//! that holds the only idle thread, so under a burst of parallel clients some requests wait
//! until another connection closes (seen as 30 s stalls in the batch tests). A thread per
//! connection cannot starve, and a GET-only sandbox needs very little HTTP.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// Largest request head accepted; a verify request is a few hundred bytes.
const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once; more are refused, so a runaway client cannot exhaust threads.
const MAX_CONNECTIONS: usize = 512;
/// How long an idle keep-alive connection is kept.
const IDLE: Duration = Duration::from_secs(30);
/// The first byte of a TLS handshake record (a ClientHello).
const TLS_HANDSHAKE: u8 = 0x16;

/// One parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Method, e.g. GET.
    pub method: String,
    /// Request target as sent (path and query, still percent-encoded).
    pub target: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The first header named `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Extra headers (Content-Type and Content-Length are added).
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: Vec<u8>,
}

/// What a server has done, for the stop line and the benchmarks (connections opened is
/// what connection reuse is judged by).
#[derive(Debug, Default)]
pub struct Counts {
    /// Connections accepted.
    pub connections: AtomicUsize,
    /// TLS handshakes completed.
    pub handshakes: AtomicUsize,
}

/// A listening server; [`Server::shutdown`] stops accepting.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
    acceptor: Option<thread::JoinHandle<()>>,
}

impl Server {
    /// Binds `addr` and serves each connection on its own thread with `handler`, over TLS
    /// when `tls` is given.
    pub fn start<H>(
        addr: SocketAddr,
        tls: Option<Arc<ServerConfig>>,
        handler: H,
    ) -> io::Result<Server>
    where
        H: Fn(&Request) -> Response + Send + Sync + 'static,
    {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let open = Arc::new(AtomicUsize::new(0));
        let counts = Arc::new(Counts::default());
        let counted = counts.clone();
        let stopping = stop.clone();
        let acceptor = thread::Builder::new()
            .name("sandbox-accept".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    counted.connections.fetch_add(1, Ordering::Relaxed);
                    if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                        open.fetch_sub(1, Ordering::SeqCst);
                        continue; // dropped: the client sees the connection close
                    }
                    let (handler, open, stop) = (handler.clone(), open.clone(), stopping.clone());
                    let (tls, counts) = (tls.clone(), counted.clone());
                    let spawned =
                        thread::Builder::new()
                            .name("sandbox-conn".into())
                            .spawn(move || {
                                let _ = connection(stream, tls, &counts, handler.as_ref(), &stop);
                                open.fetch_sub(1, Ordering::SeqCst);
                            });
                    if spawned.is_err() {
                        // The closure (and its count) was dropped with the failed spawn.
                        continue;
                    }
                }
            })?;
        Ok(Server {
            addr,
            stop,
            counts,
            acceptor: Some(acceptor),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections and TLS handshakes so far (the stop's own wake-up connection included).
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Stops accepting; connections in progress finish their current request.
    pub fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection of our own.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Serves one connection: TLS or plain as configured, after a look at the first byte so a
/// client speaking the other protocol gets an answer it understands at once.
fn connection<H>(
    mut stream: TcpStream,
    tls: Option<Arc<ServerConfig>>,
    counts: &Counts,
    handler: &H,
    stop: &AtomicBool,
) -> io::Result<()>
where
    H: Fn(&Request) -> Response,
{
    stream.set_read_timeout(Some(IDLE))?;
    stream.set_nodelay(true)?;
    let mut first = [0u8; 1];
    if stream.peek(&mut first)? == 0 {
        return Ok(());
    }
    let hello = first[0] == TLS_HANDSHAKE;
    match tls {
        Some(config) if hello => {
            let mut tls = ServerConnection::new(config).map_err(io::Error::other)?;
            while tls.is_handshaking() {
                tls.complete_io(&mut stream)?;
            }
            counts.handshakes.fetch_add(1, Ordering::Relaxed);
            serve(StreamOwned::new(tls, stream), handler, stop)
        }
        Some(_) => wrong_scheme(&mut stream, "HTTPS: use an https://"),
        None if hello => {
            // What a plain web server does with a ClientHello: an HTTP 400 at once, which a
            // TLS client reads as "not TLS", so an `https://` client fails in milliseconds
            // with its scheme hint instead of both sides waiting for the other to speak.
            wrong_scheme(&mut stream, "plain HTTP: use an http://")
        }
        None => serve(stream, handler, stop),
    }
}

/// The 400 for a client that speaks the other scheme: `this sandbox speaks {speaks} base URL`.
fn wrong_scheme(stream: &mut TcpStream, speaks: &str) -> io::Result<()> {
    let body = format!(r#"{{"message":"this sandbox speaks {speaks} base URL"}}"#);
    let response = Response {
        status: 400,
        headers: vec![],
        body: body.into_bytes(),
    };
    write_response(stream, &response, false)
}

fn serve<S, H>(stream: S, handler: &H, stop: &AtomicBool) -> io::Result<()>
where
    S: Read + Write,
    H: Fn(&Request) -> Response,
{
    let mut reader = BufReader::new(stream);
    loop {
        let (request, keep_alive) = match read_request(&mut reader)? {
            Parsed::Request(r, keep_alive) => (r, keep_alive),
            Parsed::Closed => return Ok(()),
            Parsed::Bad(why) => {
                let body = format!(r#"{{"message":"bad request: {why}"}}"#).into_bytes();
                let response = Response {
                    status: 400,
                    headers: vec![],
                    body,
                };
                write_response(reader.get_mut(), &response, false)?;
                return Ok(());
            }
        };
        let response = handler(&request);
        let keep_alive = keep_alive && !stop.load(Ordering::SeqCst);
        write_response(reader.get_mut(), &response, keep_alive)?;
        if !keep_alive {
            return Ok(());
        }
    }
}

enum Parsed {
    Request(Request, bool),
    Closed,
    Bad(&'static str),
}

fn read_request<S: Read>(reader: &mut BufReader<S>) -> io::Result<Parsed> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let n = reader
            .by_ref()
            .take((MAX_HEAD - before + 1) as u64)
            .read_until(b'\n', &mut head)?;
        if n == 0 {
            return Ok(if head.is_empty() {
                Parsed::Closed
            } else {
                Parsed::Bad("incomplete request")
            });
        }
        if head.len() > MAX_HEAD {
            return Ok(Parsed::Bad("request head too large"));
        }
        if head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") {
            break;
        }
        // Tolerate blank lines before a request line (RFC 9112 2.2).
        if head == b"\r\n" || head == b"\n" {
            head.clear();
        }
    }
    let Ok(text) = std::str::from_utf8(&head) else {
        return Ok(Parsed::Bad("request head is not UTF-8"));
    };
    let mut lines = text.lines();
    let mut start = lines.next().unwrap_or("").split_whitespace();
    let (Some(method), Some(target), Some(version)) = (start.next(), start.next(), start.next())
    else {
        return Ok(Parsed::Bad("malformed request line"));
    };
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Ok(Parsed::Bad("malformed header"));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let request = Request {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
    };
    // A body is never expected; discard one that is announced, up to the head limit.
    if let Some(len) = request.header("content-length") {
        match len.parse::<u64>() {
            Ok(n) if n <= MAX_HEAD as u64 => {
                io::copy(&mut reader.by_ref().take(n), &mut io::sink())?;
            }
            _ => return Ok(Parsed::Bad("request body not accepted")),
        }
    }
    if request.header("transfer-encoding").is_some() {
        return Ok(Parsed::Bad("request body not accepted"));
    }
    let connection = request
        .header("connection")
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let keep_alive = match version {
        "HTTP/1.1" => !connection.contains("close"),
        _ => connection.contains("keep-alive"),
    };
    Ok(Parsed::Request(request, keep_alive))
}

fn write_response(out: &mut impl Write, response: &Response, keep_alive: bool) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: {}\r\n",
        response.status,
        reason(response.status),
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" }
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&response.body);
    out.write_all(&bytes)?;
    out.flush()
}

/// The reason phrase of `status` (every status the sandbox sends has one).
fn reason(status: u16) -> &'static str {
    let code = ureq::http::StatusCode::from_u16(status).ok();
    code.and_then(|c| c.canonical_reason()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn start() -> Server {
        Server::start(
            SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            None,
            |r: &Request| Response {
                status: 200,
                headers: vec![(
                    "X-Auth".into(),
                    r.header("authorization").unwrap_or("-").into(),
                )],
                body: r.target.clone().into_bytes(),
            },
        )
        .unwrap()
    }

    fn exchange(server: &Server, raw: &str) -> String {
        let mut s = TcpStream::connect(server.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(raw.as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn keep_alive_serves_several_requests_on_one_connection() {
        let server = start();
        let out = exchange(
            &server,
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nAuthorization: Basic z\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(out.matches("HTTP/1.1 200 OK").count(), 2, "{out}");
        assert!(out.contains("X-Auth: Basic z"));
        assert!(out.ends_with("/b"), "{out}");
    }

    #[test]
    fn malformed_and_oversized_requests_get_400() {
        let server = start();
        assert!(exchange(&server, "nonsense\r\n\r\n").starts_with("HTTP/1.1 400"));
        let huge = format!("GET /{} HTTP/1.1\r\n\r\n", "x".repeat(MAX_HEAD * 2));
        assert!(exchange(&server, &huge).starts_with("HTTP/1.1 400"));
        let body = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(exchange(&server, body).starts_with("HTTP/1.1 400"));
    }

    #[test]
    fn http_1_0_closes_unless_asked() {
        let server = start();
        let out = exchange(&server, "GET /a HTTP/1.0\r\n\r\n");
        assert!(out.contains("Connection: close"), "{out}");
    }

    #[test]
    fn shutdown_stops_accepting() {
        let mut server = start();
        let addr = server.addr();
        server.shutdown();
        let refused = TcpStream::connect_timeout(&addr, Duration::from_millis(500))
            .map(|mut s| {
                let _ = s.write_all(b"GET / HTTP/1.1\r\n\r\n");
                let mut buf = String::new();
                let _ = s.read_to_string(&mut buf);
                buf.is_empty()
            })
            .unwrap_or(true);
        assert!(refused);
    }
}
