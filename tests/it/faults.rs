//! The real binary against misbehaving local servers: one case per fault. Each asserts the
//! exit status, a single `payverify:` line on stderr, an empty stdout and a bounded time.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::common::*;

struct Fault {
    code: i32,
    stderr: String,
    elapsed: Duration,
}

/// Runs `payverify verify R` against `base`, checking the invariants every fault shares.
fn verify_against(base: &str, extra: &[&str]) -> Fault {
    let started = Instant::now();
    let out = payverify_at(base)
        .args(["verify", "0000000000000044177"])
        .args(extra)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stderr = stderr_of(&out);
    assert_eq!(stdout_of(&out), "", "stdout must stay empty on a fault");
    assert_eq!(
        stderr.lines().count(),
        1,
        "exactly one stderr line: {stderr:?}"
    );
    assert!(stderr.starts_with("payverify: "), "{stderr:?}");
    assert!(!stderr.contains(SECRET), "{stderr:?}");
    Fault {
        code: out.status.code().unwrap_or(-1),
        stderr,
        elapsed,
    }
}

fn serve_bytes(response: Vec<u8>) -> RawServer {
    let response = Arc::new(response);
    RawServer::start(move |mut stream| {
        read_head(&mut stream);
        let _ = stream.write_all(&response);
    })
}

fn serve_json(status: &str, body: &[u8]) -> RawServer {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    serve_bytes(bytes)
}

#[test]
fn connection_refused() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let f = verify_against(&format!("http://127.0.0.1:{port}"), &["--retries", "1"]);
    assert_eq!(f.code, 7);
    assert!(
        f.stderr.to_lowercase().contains("connection refused"),
        "{}",
        f.stderr
    );
    assert!(f.stderr.contains("after 2 attempts"));
    assert!(f.elapsed < Duration::from_secs(5), "{:?}", f.elapsed);
}

#[test]
fn connection_reset_mid_body() {
    let server = RawServer::start(|mut stream| {
        // Leave most of the request unread: closing with unread data makes the kernel send
        // RST instead of FIN, after a partial body.
        let mut first = [0u8; 4];
        let _ = stream.read_exact(&mut first);
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"status\":\"SUCC",
        );
        let _ = stream.flush();
        std::thread::sleep(Duration::from_millis(50));
    });
    let f = verify_against(&server.url, &["--retries", "0"]);
    assert_eq!(f.code, 7, "{}", f.stderr);
    assert!(f.stderr.contains("network error"), "{}", f.stderr);
    assert!(f.elapsed < Duration::from_secs(5), "{:?}", f.elapsed);
}

#[test]
fn server_accepts_and_never_answers() {
    let server = RawServer::start(|mut stream| {
        read_head(&mut stream);
        std::thread::sleep(Duration::from_secs(30));
    });
    let f = verify_against(&server.url, &["--timeout", "0.5", "--retries", "1"]);
    assert_eq!(f.code, 7);
    assert!(
        f.stderr
            .contains("no complete answer within 0.5s after 2 attempts"),
        "{}",
        f.stderr
    );
    assert!(f.elapsed < Duration::from_secs(6), "{:?}", f.elapsed);
}

#[test]
fn trickling_server_is_bounded_by_the_whole_attempt_timeout() {
    let server = RawServer::start(|mut stream| {
        read_head(&mut stream);
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        for _ in 0..60 {
            if stream.write_all(b" ").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let f = verify_against(&server.url, &["--timeout", "1", "--retries", "0"]);
    assert_eq!(f.code, 7);
    assert!(
        f.stderr.contains("no complete answer within 1s"),
        "{}",
        f.stderr
    );
    // Each read gets a byte every 200 ms (for 12 s), so only a whole-attempt budget stops
    // this.
    assert!(f.elapsed >= Duration::from_millis(950), "{:?}", f.elapsed);
    assert!(f.elapsed < Duration::from_secs(6), "{:?}", f.elapsed);
}

#[test]
fn twenty_megabyte_body() {
    let server = RawServer::start(|mut stream| {
        read_head(&mut stream);
        let size = 20 * 1024 * 1024;
        let _ = stream.write_all(
            format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n{{\"status\":\"SUCCESSFUL\",\"pad\":\"").as_bytes(),
        );
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..(size / chunk.len()) {
            if stream.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let f = verify_against(&server.url, &[]);
    assert_eq!(f.code, 8);
    assert!(f.stderr.contains("larger than 1024 KiB"), "{}", f.stderr);
    assert!(f.elapsed < Duration::from_secs(10), "{:?}", f.elapsed);
}

/// A response head past the 64 KiB limit is a bad response (exit 8), whatever room a
/// connection reads into: never taken for a dropped connection (exit 7, asked again).
#[test]
fn a_response_head_over_the_limit_is_a_bad_response() {
    for pad in [70 * 1024, 200 * 1024] {
        let server = RawServer::start(move |mut stream| {
            read_head(&mut stream);
            let head = format!("HTTP/1.1 200 OK\r\nX-Pad: {}\r\n", "a".repeat(pad));
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(b"Content-Length: 2\r\n\r\n{}");
        });
        let f = verify_against(&server.url, &["--retries", "0"]);
        assert_eq!(f.code, 8, "{pad}: {}", f.stderr);
        assert!(
            f.stderr.contains("headers too large"),
            "{pad}: {}",
            f.stderr
        );
    }
}

#[test]
fn json_that_is_not_an_object() {
    for (body, kind) in [
        ("[1,2]", "an array"),
        ("\"SUCCESSFUL\"", "a string"),
        ("null", "null"),
    ] {
        let server = serve_json("200 OK", body.as_bytes());
        let f = verify_against(&server.url, &[]);
        assert_eq!(f.code, 8);
        assert!(
            f.stderr
                .contains(&format!("the body is JSON {kind}, not an object")),
            "{}",
            f.stderr
        );
    }
}

#[test]
fn status_of_the_wrong_type() {
    for body in [
        r#"{"status":1}"#,
        r#"{"status":["SUCCESSFUL"]}"#,
        r#"{"status":true}"#,
    ] {
        let server = serve_json("200 OK", body.as_bytes());
        let f = verify_against(&server.url, &[]);
        assert_eq!(f.code, 8);
        assert!(f.stderr.contains("\"status\" is"), "{}", f.stderr);
    }
}

#[test]
fn impossible_amounts() {
    for (amount, why) in [
        ("\"4000000\"", "a string, not a number"),
        ("-1", "negative"),
        ("99999999999999999999", "too large"),
        ("40.5", "not a whole number"),
    ] {
        let body = format!(r#"{{"status":"SUCCESSFUL","amount":{amount}}}"#);
        let server = serve_json("200 OK", body.as_bytes());
        let f = verify_against(&server.url, &[]);
        assert_eq!(f.code, 8, "{amount}");
        assert!(f.stderr.contains(why), "{amount}: {}", f.stderr);
    }
}

#[test]
fn duplicate_keys() {
    let server = serve_json("200 OK", br#"{"status":"FAILED","status":"SUCCESSFUL"}"#);
    let f = verify_against(&server.url, &[]);
    assert_eq!(f.code, 8);
    assert!(
        f.stderr.contains("the key \"status\" twice"),
        "{}",
        f.stderr
    );
}

#[test]
fn invalid_utf8() {
    let server = serve_json("200 OK", b"{\"status\":\"SUCCESSFUL\",\"x\":\"\xff\xfe\"}");
    let f = verify_against(&server.url, &[]);
    assert_eq!(f.code, 8);
    assert!(f.stderr.contains("not valid JSON"), "{}", f.stderr);
}

#[test]
fn redirect_to_another_host_is_not_followed() {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let other = RawServer::start(move |mut stream| {
        counted.fetch_add(1, Ordering::SeqCst);
        read_head(&mut stream);
        respond(&mut stream, "200 OK", br#"{"status":"SUCCESSFUL"}"#);
    });
    // "localhost" vs 127.0.0.1: another host name for the same machine.
    let target = other.url.replace("127.0.0.1", "localhost");
    let redirect = format!(
        "HTTP/1.1 302 Found\r\nLocation: {target}/api/payment/verify/R\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let server = serve_bytes(redirect.into_bytes());
    let f = verify_against(&server.url, &[]);
    assert_eq!(f.code, 8);
    assert!(f.stderr.contains("302 redirect"), "{}", f.stderr);
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the redirect target was contacted"
    );
}

#[test]
fn tls_to_a_plain_http_port() {
    let server = RawServer::start(|mut stream| {
        let mut buf = [0u8; 512];
        let _ = stream.read(&mut buf);
        let _ = stream.write_all(
            b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    });
    let https = server.url.replace("http://", "https://");
    let f = verify_against(&https, &[]);
    assert_eq!(f.code, 7, "{}", f.stderr);
    assert!(f.stderr.contains("TLS error"), "{}", f.stderr);
    assert!(f.elapsed < Duration::from_secs(5), "{:?}", f.elapsed);
}

#[test]
fn garbage_instead_of_http() {
    let server = serve_bytes(b"SSH-2.0-OpenSSH_9.2\r\n".to_vec());
    let f = verify_against(&server.url, &[]);
    assert_eq!(f.code, 8, "{}", f.stderr);
    assert!(
        f.stderr.contains("not a valid HTTP response"),
        "{}",
        f.stderr
    );
    assert!(f.elapsed < Duration::from_secs(5), "{:?}", f.elapsed);
}

#[test]
fn the_secret_never_appears_for_any_exit_code() {
    let b64 = AUTH_STANDARD.trim_start_matches("Basic ");
    let mut cases: Vec<(u16, String)> = vec![
        (200, SAMPLE.clone()),
        (200, SAMPLE.replace("SUCCESSFUL", "FAILED")),
        (404, format!(r#"{{"message":"no {SECRET}"}}"#)),
        (200, SAMPLE.replace("4000000", "1")),
        (401, format!(r#"{{"message":"bad {b64}"}}"#)),
        (503, format!(r#"{{"error":"{SECRET}"}}"#)),
        (418, format!(r#"{{"description":"{SECRET}"}}"#)),
        (200, SAMPLE.replace("SUCCESSFUL", "PENDING")),
    ];
    cases.push((
        200,
        format!(r#"{{"status":"SUCCESSFUL","echo":"{SECRET}"}}"#),
    ));
    let mut codes = Vec::new();
    for (status, body) in cases {
        let server = serve_json(&format!("{status} X"), body.as_bytes());
        let out = payverify_at(&server.url)
            .args([
                "verify",
                "0000000000000044177",
                "-v",
                "--retries",
                "0",
                // A 503 is throttling: given up at once, so the throttled path is exit 7.
                "--give-up-after",
                "0",
                "--expect-amount",
                "40000",
                "--hmac",
                "require",
            ])
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        codes.push(out.status.code().unwrap_or(-1));
        assert!(!stderr.contains(SECRET), "{stderr}");
        assert!(!stderr.contains(b64), "{stderr}");
        // stdout is the data the user asked for; the table shows no secret either.
        assert!(!stdout_of(&out).contains(b64));
    }
    // Exit 6 (config error) with the secret present elsewhere in the environment.
    let out = payverify()
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .env("PAYVERIFY_BASE_URL", "http://gateway.example")
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .args(["verify", "R", "-v"])
        .output()
        .unwrap();
    codes.push(out.status.code().unwrap_or(-1));
    assert!(!stderr_of(&out).contains(SECRET));
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(
        codes,
        [0, 1, 3, 4, 5, 6, 7, 8, 9],
        "every outcome was exercised"
    );
}

#[test]
fn a_slow_reader_of_stdout_does_not_lose_the_exit_status() {
    // `| head -c 10`: the reader goes away; payverify still reports the outcome.
    let mut server = mockito::Server::new();
    server
        .mock("GET", "/api/payment/verify/0000000000000044177")
        .with_body(SAMPLE.as_str())
        .create();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
        .args(["verify", "0000000000000044177"])
        .env("PAYVERIFY_BASE_URL", server.url())
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let (status, stderr) = status_and_stderr(child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
