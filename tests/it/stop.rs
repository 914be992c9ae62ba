//! Issue 23 item 13: one SIGTERM ends payverify within a second whatever the network is
//! doing (connecting, sending a body slowly, asking to wait with Retry-After, a reference
//! waited for with --wait, or one whose check hangs), for one reference and for a batch:
//! no new attempt starts after it, and a waiting reference keeps its last answer
//! (NOT_FINAL). Each state lasts 30 s or more without the fix; the bound asserted is 5 s.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::*;

/// What the service does with the reference under test (`R-...`); any other reference is
/// answered SUCCESSFUL at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hang {
    /// Sends the head and one byte of a 1000-byte body, then nothing.
    Body,
    /// 429 with `Retry-After: 30`.
    RetryAfter,
    /// PENDING, every time (the client waits with --wait 10m).
    Pending,
    /// PENDING, then the check hangs in its body.
    PendingThenBody,
    /// PENDING, then 429 with `Retry-After: 30` (a pause within the wait).
    PendingThenRetryAfter,
}

const PENDING: &str = r#"{"status":"PENDING","code":"09","transactionRef":"R-1"}"#;

/// A service that hangs as `hang` says for `R-1`; it reports on `reached` when the state
/// under test has begun, and counts every request.
fn service(hang: Hang) -> (RawServer, mpsc::Receiver<()>, Arc<AtomicUsize>) {
    let (tx, reached) = mpsc::channel();
    let tx = Mutex::new(tx);
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    let asked_r = Arc::new(AtomicUsize::new(0));
    let server = RawServer::start(move |mut stream| {
        loop {
            let head = read_head(&mut stream);
            if head.is_empty() {
                return;
            }
            counted.fetch_add(1, Ordering::SeqCst);
            let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
            let reference = path.rsplit('/').next().unwrap_or("").to_owned();
            if reference != "R-1" {
                let body = format!(
                    r#"{{"status":"SUCCESSFUL","code":"00","paymentDate":"2026-11-22T10:00:00.000Z","transactionRef":"{reference}"}}"#
                );
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if stream.write_all(reply.as_bytes()).is_err() {
                    return;
                }
                continue;
            }
            let n = asked_r.fetch_add(1, Ordering::SeqCst) + 1;
            let reached = || {
                let _ = tx.lock().unwrap().send(());
            };
            let step = match (hang, n) {
                (Hang::Body, _) | (Hang::PendingThenBody, 2..) => "body",
                (Hang::RetryAfter, _) | (Hang::PendingThenRetryAfter, 2..) => "429",
                _ => "pending",
            };
            match step {
                "body" => {
                    let _ = stream.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
                    );
                    let _ = stream.flush();
                    reached();
                    std::thread::sleep(Duration::from_secs(120));
                    return;
                }
                "429" => {
                    let body = r#"{"message":"slow down"}"#;
                    let reply = format!(
                        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(reply.as_bytes());
                    reached();
                }
                _ => {
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{PENDING}",
                        PENDING.len()
                    );
                    let _ = stream.write_all(reply.as_bytes());
                    if hang == Hang::Pending {
                        reached();
                    }
                }
            }
        }
    });
    (server, reached, requests)
}

/// How the run ended after one SIGTERM: exit code, stdout, stderr, and how long after the
/// signal it took.
struct Ended {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// What [`terminate_when`] waits for before it signals.
enum Reached<'a> {
    /// The service reports the state under test.
    Told(&'a mpsc::Receiver<()>),
    /// A connection to this loopback port is being opened (SYN sent, never answered).
    Connecting(u16),
}

/// Whether a socket in this network namespace is opening a connection to `port` on
/// loopback: SYN_SENT (state 02) in /proc/net/tcp. Where that file is not to be had, after
/// a generous second from the start.
fn connecting_to(port: u16, started: Instant) -> bool {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return started.elapsed() > Duration::from_secs(1);
    };
    let remote = format!("0100007F:{port:04X}");
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.get(2) == Some(&remote.as_str()) && fields.get(3) == Some(&"02")
    })
}

/// Runs payverify against `url` with `args`, waits until it has `reached` the state under
/// test and then `settle` more, sends one SIGTERM and collects the end.
fn terminate_when(url: &str, args: &[&str], reached: Reached, settle: Duration) -> Ended {
    let started = Instant::now();
    // A short first pause: the states met while waiting begin at its end.
    let child = spawnable_at(url)
        .env(WAIT_FIRST_PAUSE_MS, "200")
        .args(["verify", "--hmac", "off", "--timeout", "60"])
        .args(args)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    match reached {
        Reached::Told(reached) => reached
            .recv_timeout(Duration::from_secs(30))
            .expect("the state under test was reached"),
        Reached::Connecting(port) => {
            wait_until("a connection being opened", || connecting_to(port, started));
        }
    }
    // Into the state: the client reads, pauses or waits by now.
    std::thread::sleep(settle);
    let signalled = Instant::now();
    send_signal(&child, "-TERM");
    let out = child.wait_with_output().unwrap();
    Ended {
        code: out.status.code(),
        stdout: stdout_of(&out),
        stderr: stderr_of(&out),
        took: signalled.elapsed(),
    }
}

/// The single-reference form and the batch form (the reference under test first, one that
/// answers at once after it) of one state. Without `waiting`, the reference under test is
/// not verified: no output for it; with it, its last answer (PENDING) is reported.
fn one_sigterm_ends_it(hang: Hang, extra: &[&str], waiting: bool) {
    let single = std::thread::spawn({
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        move || {
            let (server, reached, requests) = service(hang);
            let mut args = vec!["R-1", "-o", "json"];
            args.extend(extra.iter().map(String::as_str));
            let end = terminate_when(
                &server.url,
                &args,
                Reached::Told(&reached),
                Duration::from_millis(300),
            );
            (end, requests.load(Ordering::SeqCst), requests)
        }
    });
    let (server, reached, requests) = service(hang);
    let mut args = vec!["R-1", "OK-2", "-j", "2", "-o", "jsonl"];
    args.extend_from_slice(extra);
    let batch = terminate_when(
        &server.url,
        &args,
        Reached::Told(&reached),
        Duration::from_millis(300),
    );
    let asked_at_signal = requests.load(Ordering::SeqCst);

    assert!(
        batch.took < Duration::from_secs(5),
        "{hang:?} batch took {:?}",
        batch.took
    );
    assert_eq!(batch.code, Some(130), "{hang:?} batch: {}", batch.stderr);
    let records = jsonl(batch.stdout.as_bytes());
    let expected: &[(&str, &str)] = match waiting {
        true => &[("R-1", "NOT_FINAL"), ("OK-2", "SUCCESSFUL")],
        false => &[("OK-2", "SUCCESSFUL")],
    };
    assert_eq!(
        reference_outcomes(&records),
        expected,
        "{hang:?}: {}",
        batch.stderr
    );
    if waiting {
        assert_eq!(records[0]["response"]["status"], "PENDING", "{hang:?}");
    }
    assert!(
        batch
            .stderr
            .contains("payverify: stopping: no new requests")
            && batch.stderr.contains("payverify: interrupted after "),
        "{hang:?}: {}",
        batch.stderr
    );
    // No attempt started after the signal (the count was taken after the exit).
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(requests.load(Ordering::SeqCst), asked_at_signal, "{hang:?}");

    let (single, asked, requests) = single.join().unwrap();
    assert!(
        single.took < Duration::from_secs(5),
        "{hang:?} single took {:?}",
        single.took
    );
    assert_eq!(single.code, Some(130), "{hang:?} single: {}", single.stderr);
    match waiting {
        true => {
            let body: serde_json::Value = serde_json::from_str(&single.stdout).unwrap();
            assert_eq!(body["status"], "PENDING", "{hang:?}");
            assert!(
                single.stderr.ends_with(
                    "payverify: interrupted while waiting for 'R-1': not final, status \"PENDING\"\n"
                ),
                "{hang:?}: {}",
                single.stderr
            );
        }
        false => {
            assert_eq!(single.stdout, "", "{hang:?}");
            assert_eq!(
                single.stderr,
                "payverify: interrupted before 'R-1' was verified; nothing is known about it\n",
                "{hang:?}"
            );
        }
    }
    assert_eq!(requests.load(Ordering::SeqCst), asked, "{hang:?}");
}

#[test]
fn one_sigterm_ends_a_body_that_never_comes() {
    one_sigterm_ends_it(Hang::Body, &[], false);
}

#[test]
fn one_sigterm_ends_a_retry_after_pause() {
    one_sigterm_ends_it(Hang::RetryAfter, &[], false);
}

#[test]
fn one_sigterm_ends_a_wait_with_the_last_answer() {
    one_sigterm_ends_it(Hang::Pending, &["--wait", "10m"], true);
}

#[test]
fn one_sigterm_ends_a_check_that_hangs_while_waiting_with_the_last_answer() {
    one_sigterm_ends_it(Hang::PendingThenBody, &["--wait", "10m"], true);
}

#[test]
fn one_sigterm_ends_a_retry_after_while_waiting_with_the_last_answer() {
    one_sigterm_ends_it(Hang::PendingThenRetryAfter, &["--wait", "10m"], true);
}

/// A listening socket whose queue is full: a new connection's handshake gets no answer, so
/// connecting hangs until --timeout. The fillers are kept open as long as it lives.
fn unanswered_listener() -> (TcpListener, Vec<TcpStream>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    for _ in 0..4096 {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            Ok(stream) => fillers.push(stream),
            Err(_) => return (listener, fillers),
        }
    }
    panic!("the listen queue never filled");
}

#[test]
fn one_sigterm_ends_a_connection_that_never_opens() {
    let (listener, _fillers) = unanswered_listener();
    let port = listener.local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    // Signalled while the connection is being opened: its SYN is sent and never answered.
    let single = terminate_when(&url, &["R-1"], Reached::Connecting(port), Duration::ZERO);
    assert!(
        single.took < Duration::from_secs(5),
        "took {:?}",
        single.took
    );
    assert_eq!(single.code, Some(130), "{}", single.stderr);
    assert_eq!(single.stdout, "");
    assert_eq!(
        single.stderr,
        "payverify: interrupted before 'R-1' was verified; nothing is known about it\n"
    );
    let batch = terminate_when(
        &url,
        &["R-1", "R-2", "-o", "jsonl"],
        Reached::Connecting(port),
        Duration::ZERO,
    );
    assert!(batch.took < Duration::from_secs(5), "took {:?}", batch.took);
    assert_eq!(batch.code, Some(130), "{}", batch.stderr);
    assert_eq!(batch.stdout, "");
    assert!(
        batch.stderr.contains("interrupted after 0 references")
            && batch.stderr.contains("; not verified: 2"),
        "{}",
        batch.stderr
    );
}
