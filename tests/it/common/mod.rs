//! Helpers shared by the end-to-end tests: a hermetic command and raw TCP servers.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use assert_cmd::Command;

mod child;
pub mod gateway;
pub mod pages;
mod sandbox_runs;
mod standalone;
mod terminal;
#[cfg(target_os = "linux")]
pub use child::blocked_on_a_full_pipe;
pub use child::{
    Captured, finish, interrupted_into, read_lines, send_signal, spawnable, spawnable_at,
    status_and_stderr, wait_for_signal_handlers, wait_until, wait_until_blocked_on_a_pipe,
};
pub use sandbox_runs::{SANDBOX_SECRET, sandbox_in, sandbox_requests, sealed};
pub use standalone::{Standalone, raw_get, raw_request};
pub use terminal::on_terminal;

/// The documented sample response, as published (signed with the gateway's own secret).
pub const FIXTURE: &str = include_str!("../../data/verify-success.json");
/// HMAC-SHA256(SECRET, "WQ-506391000507913NGN4000000"), computed with python3 hmac/hashlib.
pub const SAMPLE_HMAC_FOR_SECRET: &str =
    "af9bf5ee80ea7ebd15293c9b9ba319ddf70a86aa3464b243826bf6a320adc11d";
/// The documented sample re-signed with the tests' SECRET, as the service would send it.
pub static SAMPLE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    FIXTURE.replace(
        "feffc947c4a88cc1d91d5d3e7c3392838f0e50502bd3a7f8313d7854a9632714",
        SAMPLE_HMAC_FOR_SECRET,
    )
});
/// The secret the tests use; asserted never to appear in output.
pub const SECRET: &str = "test-secret-Zq81xv";
/// The client id the tests use.
pub const CLIENT_ID: &str = "test-client";
/// `Basic base64(test-client:test-secret-Zq81xv)`.
pub const AUTH_STANDARD: &str = "Basic dGVzdC1jbGllbnQ6dGVzdC1zZWNyZXQtWnE4MXh2";

/// The debug build's knob for `--wait`'s first pause, in milliseconds (src/domain/wait.rs:
/// it only shortens the 2 s, and the later pauses double from it). Set by the tests that
/// are about what a wait does, not about how long its first pause is: one test,
/// wait::a_single_reference_that_settles_within_the_wait_is_its_final_answer, keeps the
/// real schedule.
pub const WAIT_FIRST_PAUSE_MS: &str = "PAYVERIFY_DEBUG_WAIT_FIRST_PAUSE_MS";

/// payverify with a clean environment: no PAYVERIFY_* vars, no user config, no colour.
pub fn payverify() -> Command {
    let mut cmd = Command::cargo_bin("payverify").unwrap();
    for (key, _) in std::env::vars() {
        let proxy = key.to_ascii_lowercase().ends_with("_proxy");
        if key.starts_with("PAYVERIFY_") || key == "NO_COLOR" || key == "CLICOLOR_FORCE" || proxy {
            cmd.env_remove(key);
        }
    }
    // No journal unless a test names one: tests run at once, and one journal shared by
    // all would let one test's claims decide another's (tests/it/journal.rs tests it).
    cmd.env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("HOME", "/nonexistent/payverify-test-home")
        .env("PAYVERIFY_JOURNAL", "off");
    cmd
}

/// The lines of `stderr` that are payverify's own (`payverify: ...`).
pub fn own_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("payverify: "))
        .collect()
}

/// payverify with credentials for `base_url` in the environment.
pub fn payverify_at(base_url: &str) -> Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_BASE_URL", base_url)
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", SECRET);
    cmd
}

// The unit tests' TempDir, shared rather than written twice.
#[path = "../../../src/testutil.rs"]
mod testutil;
pub(crate) use testutil::TempDir;

/// A loopback TCP server that hands each connection to `handler` on its own thread.
/// It lives as long as the test process; tests are short.
pub struct RawServer {
    pub url: String,
    pub connections: Arc<AtomicUsize>,
}

impl RawServer {
    pub fn start<F>(handler: F) -> RawServer
    where
        F: Fn(TcpStream) + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = connections.clone();
        let handler = Arc::new(handler);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                let handler = handler.clone();
                thread::spawn(move || handler(stream));
            }
        });
        RawServer { url, connections }
    }
}

/// A service that never answers: it sends `()` down the returned channel as each request
/// arrives (what a test waits on before it signals), and holds the request unanswered.
pub fn silent_service() -> (RawServer, std::sync::mpsc::Receiver<()>) {
    // A held service never released: its sender is dropped here.
    let (server, arrived, _never) = held_service(Vec::new());
    (server, arrived)
}

/// A service that tells the test as each request arrives (`()` down the returned receiver)
/// and holds it until the test sends `()` down the returned sender, then answers it with
/// `body` (200 OK); unanswered for 30 s when the sender is dropped or nothing is sent.
pub fn held_service(
    body: Vec<u8>,
) -> (
    RawServer,
    std::sync::mpsc::Receiver<()>,
    std::sync::mpsc::Sender<()>,
) {
    const HOLD: Duration = Duration::from_secs(30);
    let (asked, arrived) = std::sync::mpsc::channel();
    let (answer, go) = std::sync::mpsc::channel::<()>();
    let (asked, go) = (std::sync::Mutex::new(asked), std::sync::Mutex::new(go));
    let server = RawServer::start(move |mut stream| {
        let _ = read_head(&mut stream);
        let _ = asked.lock().unwrap().send(());
        let held = std::time::Instant::now();
        if go.lock().unwrap().recv_timeout(HOLD).is_ok() {
            respond(&mut stream, "200 OK", &body);
        } else {
            thread::sleep(HOLD.saturating_sub(held.elapsed()));
        }
    });
    (server, arrived, answer)
}

/// Reads the request head (up to the blank line) and returns it.
pub fn read_head(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Writes a complete HTTP/1.1 response with `Connection: close`.
pub fn respond(stream: &mut TcpStream, status: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// Each line of a `-o jsonl` stdout as a JSON value; a line that is not JSON fails the test.
pub fn jsonl(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

/// stdout of a finished command as text.
pub fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr of a finished command as text.
pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A keep-alive HTTP/1.1 server that answers every GET with `body` after `delay`, counting
/// connections and recording when each request arrived and its path.
pub struct KeepAliveServer {
    pub url: String,
    pub connections: Arc<AtomicUsize>,
    pub requests: Arc<std::sync::Mutex<Vec<(std::time::Instant, String)>>>,
}

impl KeepAliveServer {
    pub fn start<F>(respond_to: F) -> KeepAliveServer
    where
        F: Fn(&str, usize) -> (String, Vec<String>, String) + Send + Sync + 'static,
    {
        let requests: Arc<std::sync::Mutex<Vec<(std::time::Instant, String)>>> = Arc::default();
        let seen = requests.clone();
        let respond_to = Arc::new(respond_to);
        let server = RawServer::start(move |mut stream| {
            loop {
                let head = read_head(&mut stream);
                if head.is_empty() {
                    return;
                }
                let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                let n = {
                    let mut list = seen.lock().unwrap();
                    list.push((std::time::Instant::now(), path.clone()));
                    list.len()
                };
                let (status, headers, body) = respond_to(&path, n);
                let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
                let reply = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
                    body.len()
                );
                if stream.write_all(reply.as_bytes()).is_err() {
                    return;
                }
            }
        });
        KeepAliveServer {
            url: server.url,
            connections: server.connections,
            requests,
        }
    }
}

/// Each record's `(reference, outcome)`, in output order: what a batch decided, for one
/// comparison against the expected list.
pub fn reference_outcomes(records: &[serde_json::Value]) -> Vec<(&str, &str)> {
    records
        .iter()
        .map(|r| {
            (
                r["reference"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect()
}
