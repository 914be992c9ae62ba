//! Real TLS handshakes: the HTTPS sandbox, `--ca-cert`, and certificates a client must refuse.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use payverify::sandbox::{Identity, LOOPBACK_NAMES, Validity};
use payverify::sandbox::{Request, Response, Server};
use predicates::prelude::*;

/// A standalone `payverify sandbox` with its first stdout lines read.
struct Standalone {
    child: Child,
    lines: Vec<String>,
}

impl Standalone {
    fn start(args: &[&str], lines: usize) -> Standalone {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
            .args(["sandbox", "--port", "0", "-q"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let lines = (0..lines)
            .map(|_| {
                let mut line = String::new();
                stdout.read_line(&mut line).unwrap();
                line.trim_end().to_owned()
            })
            .collect();
        Standalone { child, lines }
    }

    /// Stops it with SIGTERM and waits.
    fn stop(mut self) {
        assert!(self.terminate(), "sandbox did not stop on SIGTERM");
    }

    /// SIGTERM (so it removes its temporary CA file), then up to 10 s for it to exit.
    fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return; // already stopped (and reaped): its pid may belong to another process now
        }
        if !self.terminate() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn sandbox_verify(url: &str) -> assert_cmd::Command {
    let mut cmd = payverify_at(url);
    cmd.env("PAYVERIFY_CLIENT_ID", "sandbox")
        .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret")
        .timeout(Duration::from_secs(60));
    cmd
}

#[test]
fn https_sandbox_works_with_its_ca_and_is_refused_without_it() {
    let dir = TempDir::new("tls-ca");
    let ca = dir.path().join("ca.pem");
    let ca_arg = ca.to_str().unwrap();
    let server = Standalone::start(&["--tls", "--tls-ca-out", ca_arg], 2);
    let url = server.lines[0].clone();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    assert_eq!(server.lines[1], ca_arg, "the CA path is the second line");
    let pem = std::fs::read_to_string(&ca).unwrap();
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");

    sandbox_verify(&url)
        .args(["verify", "SANDBOX-OK-tls", "--ca-cert", ca_arg])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("SUCCESSFUL"))
        .stdout(predicate::str::contains("hmac valid"));
    // The certificate names localhost too.
    let by_name = url.replace("127.0.0.1", "localhost");
    sandbox_verify(&by_name)
        .args(["verify", "-q", "SANDBOX-OK-tls", "--ca-cert", ca_arg])
        .assert()
        .code(0);

    // Without the CA: exit 7, one line, one attempt although two retries are allowed.
    let started = Instant::now();
    let out = sandbox_verify(&url)
        .args(["verify", "SANDBOX-OK-tls", "--retries", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(stdout_of(&out), "");
    let stderr = stderr_of(&out);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("payverify: "), "{stderr}");
    for want in [
        "TLS certificate refused",
        "UnknownIssuer",
        "--ca-cert",
        "1 attempt",
    ] {
        assert!(stderr.contains(want), "missing {want:?}: {stderr}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "no back-off: {:?}",
        started.elapsed()
    );
    server.stop();
    assert!(ca.exists(), "a chosen CA path is left for the user");
}

#[test]
fn temporary_ca_file_is_printed_and_removed_on_stop() {
    let server = Standalone::start(&["--tls"], 2);
    let ca = std::path::PathBuf::from(&server.lines[1]);
    assert!(ca.is_absolute(), "{ca:?}");
    sandbox_verify(&server.lines[0])
        .args(["verify", "-q", "SANDBOX-OK-1", "--ca-cert"])
        .arg(&ca)
        .assert()
        .code(0);
    server.stop();
    assert!(!ca.exists(), "{ca:?} left behind");
}

#[test]
fn tls_ca_out_needs_tls_and_a_writable_path() {
    payverify()
        .args(["sandbox", "--tls-ca-out", "/tmp/x.pem"])
        .assert()
        .code(2);
    payverify()
        .args(["sandbox", "--port", "0", "--tls", "--tls-ca-out"])
        .arg("/nonexistent/dir/ca.pem")
        .timeout(Duration::from_secs(30))
        .assert()
        .code(6)
        .stdout("")
        .stderr(predicate::str::contains(
            "cannot write the sandbox CA to /nonexistent/dir/ca.pem",
        ));
    // Written like every file payverify writes: never through a symlink (issue 23).
    let dir = TempDir::new("ca-out-link");
    let kept = dir.write("kept.pem", "someone else's file\n");
    let link = dir.path().join("ca.pem");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    payverify()
        .args(["sandbox", "--port", "0", "--tls", "--tls-ca-out"])
        .arg(&link)
        .timeout(Duration::from_secs(30))
        .assert()
        .code(6)
        .stdout("")
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "someone else's file\n"
    );
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
}

#[test]
fn in_process_tls_sandbox_verifies_over_https() {
    payverify()
        .args(["verify", "--sandbox", "--tls", "-v", "SANDBOX-OK-x"])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("SUCCESSFUL"))
        .stderr(predicate::str::contains("GET https://127.0.0.1:"));
    // A batch shares the pool over TLS too, and bad answers still classify.
    payverify()
        .args(["verify", "--sandbox", "--tls", "-o", "jsonl", "-j", "4"])
        .args(["SANDBOX-OK-1", "SANDBOX-FAILED-2", "nope", "SANDBOX-OK-3"])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(3)
        .stdout(predicate::function(|s: &str| s.lines().count() == 4));
    payverify()
        .args(["verify", "--tls", "R"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--sandbox"));
}

/// A TLS server with a certificate made for the test, answering every request with 200.
fn tls_server(names: &[&str], validity: Validity) -> (Server, TempDir, String) {
    let identity = Identity::generate(names, validity).unwrap();
    let dir = TempDir::new("tls-bad");
    let ca = dir.write("ca.pem", &identity.ca_pem);
    let server = Server::start(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        Some(identity.config),
        |_: &Request| Response {
            status: 200,
            headers: vec![],
            body: SAMPLE.as_bytes().to_vec(),
        },
    )
    .unwrap();
    (server, dir, ca.to_str().unwrap().to_owned())
}

fn refused(names: &[&str], validity: Validity, reason: &str) {
    let (server, _dir, ca) = tls_server(names, validity);
    let url = format!("https://{}", server.addr());
    let out = payverify_at(&url)
        .args(["verify", "0000000000000044177", "--ca-cert", &ca])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert_eq!(stdout_of(&out), "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("TLS certificate refused"), "{stderr}");
    assert!(stderr.contains(reason), "missing {reason:?}: {stderr}");
    assert!(stderr.contains("1 attempt"), "{stderr}");
    assert!(!stderr.contains(SECRET));
    assert_eq!(
        server
            .counts()
            .handshakes
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );
}

#[test]
fn the_same_ca_with_a_good_certificate_is_accepted() {
    // The control for the refusals below: only the certificate differs.
    let (server, _dir, ca) = tls_server(&LOOPBACK_NAMES, Validity::Current);
    payverify_at(&format!("https://{}", server.addr()))
        .args(["verify", "-q", "0000000000000044177", "--ca-cert", &ca])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0);
    assert_eq!(
        server
            .counts()
            .handshakes
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[test]
fn item7_a_ca_file_with_a_byte_order_mark_is_accepted() {
    // What Notepad saves: the same CA with a UTF-8 byte-order mark before its BEGIN line.
    let (server, dir, ca) = tls_server(&LOOPBACK_NAMES, Validity::Current);
    let pem = std::fs::read_to_string(&ca).unwrap();
    let bom = dir.write("bom.pem", format!("\u{feff}{pem}"));
    payverify_at(&format!("https://{}", server.addr()))
        .args(["verify", "-q", "0000000000000044177", "--ca-cert"])
        .arg(&bom)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    assert_eq!(
        server
            .counts()
            .handshakes
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    refused(
        &["other.example", "10.9.8.7"],
        Validity::Current,
        "not valid for name \"127.0.0.1\"",
    );
}

#[test]
fn an_expired_certificate_is_refused() {
    refused(&LOOPBACK_NAMES, Validity::Expired, "certificate expired");
}

#[test]
fn https_against_the_plain_sandbox_fails_at_once_with_the_scheme_hint() {
    // Issue 13 item 7: it used to hang until three 30 s timeouts had passed.
    let server = Standalone::start(&[], 1);
    let https = server.lines[0].replace("http://", "https://");
    let started = Instant::now();
    let out = sandbox_verify(&https)
        .args(["verify", "SANDBOX-OK-1", "--timeout", "30"])
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("does the base URL's scheme match the server?"),
        "{stderr}"
    );
    assert!(stderr.contains("1 attempt"), "{stderr}");
    // Generous for a loaded machine; the old behaviour took 92 s.
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");

    // And the other way round: http:// against the HTTPS sandbox names the fix.
    let tls = Standalone::start(&["--tls"], 2);
    let http = tls.lines[0].replace("https://", "http://");
    let out = sandbox_verify(&http)
        .args(["verify", "SANDBOX-OK-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(8));
    assert!(
        stderr_of(&out).contains("this sandbox speaks HTTPS: use an https:// base URL"),
        "{}",
        stderr_of(&out)
    );
}
