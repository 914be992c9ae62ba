//! Hostile services, files and environments (issue 10): none of them may produce a false
//! exit 0 or an exit code the table does not promise. One test per item of the issue, each
//! through the real binary, asserting the exit status, the stderr line and stdout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crate::common::*;
use hmac::{KeyInit, Mac};
use predicates::prelude::*;
use serde_json::Value;

/// The sample's own reference: a response for it matches the request.
const REF: &str = "0000000000000044177";

/// Lower-case hex HMAC-SHA256 of `message` under the tests' SECRET.
fn sign(message: &str) -> String {
    let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(message.as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A server answering every request with `status` and `body`.
fn serve(status: &'static str, body: String) -> RawServer {
    RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, status, body.as_bytes());
    })
}

fn jsonl(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

// ---- 1. A worker failure never lowers the exit status; SOCKS proxies work --------------

/// A minimal SOCKS5 server (no auth, CONNECT only) that records the requested target and
/// connects every request to `upstream` instead, whatever it asked for.
fn socks5_server(upstream: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let targets: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = targets.clone();
    let upstream = upstream.trim_start_matches("http://").to_owned();
    thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let (seen, upstream) = (seen.clone(), upstream.clone());
            thread::spawn(move || socks5_session(client, &upstream, &seen));
        }
    });
    (format!("{addr}"), targets)
}

fn socks5_session(mut client: TcpStream, upstream: &str, seen: &Mutex<Vec<String>>) {
    fn byte(client: &mut TcpStream, n: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; n];
        client.read_exact(&mut buf).map(|_| buf)
    }
    let Ok(greeting) = byte(&mut client, 2) else {
        return;
    };
    assert_eq!(greeting[0], 5, "SOCKS version");
    let _methods = byte(&mut client, usize::from(greeting[1])).unwrap();
    client.write_all(&[5, 0]).unwrap();
    let head = byte(&mut client, 4).unwrap();
    assert_eq!(&head[..3], &[5, 1, 0], "CONNECT");
    let host = match head[3] {
        1 => {
            let ip = byte(&mut client, 4).unwrap();
            format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3])
        }
        3 => {
            let len = byte(&mut client, 1).unwrap()[0];
            String::from_utf8(byte(&mut client, usize::from(len)).unwrap()).unwrap()
        }
        other => panic!("address type {other}"),
    };
    let port = byte(&mut client, 2).unwrap();
    let port = u16::from_be_bytes([port[0], port[1]]);
    seen.lock().unwrap().push(format!("{host}:{port}"));
    let server = TcpStream::connect(upstream).unwrap();
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).unwrap();
    let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    thread::spawn(move || {
        let _ = std::io::copy(&mut s2, &mut c2);
    });
    let (mut client, mut server) = (client, server);
    let _ = std::io::copy(&mut client, &mut server);
}

#[test]
fn item_01_socks5_proxies_are_supported() {
    // The SOCKS server tunnels every connection to a plain-HTTP server, so the TLS
    // handshake that follows fails: what matters is that the request went through the
    // proxy (it names the target), nothing panicked, and no record reads as a success.
    let server = RawServer::start(|mut stream| respond(&mut stream, "200 OK", SAMPLE.as_bytes()));
    let (proxy, targets) = socks5_server(server.url.clone());
    let dir = TempDir::new("socks");
    // socks5h: the proxy resolves the name; socks5: an address literal is passed as one.
    for (scheme, base, target) in [
        (
            "socks5h",
            "https://gateway.payverify.test",
            "gateway.payverify.test:443",
        ),
        ("socks5", "https://192.0.2.7:8443", "192.0.2.7:8443"),
    ] {
        let config = dir.write(
            "config.toml",
            format!(
                "[profiles.p]\nbase_url = \"{base}\"\nclient_id = \"{CLIENT_ID}\"\n\
                 proxy = \"{scheme}://{proxy}\"\n"
            ),
        );
        let out = payverify()
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .args(["verify", REF, "WQ-506391000507913", "-o", "jsonl"])
            .args(["--retries", "0", "--timeout", "5", "--profile", "p"])
            .arg("--config")
            .arg(&config)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(7), "{scheme}: {stderr}");
        assert!(!stderr.contains("internal error"), "{stderr}");
        let records = jsonl(&out.stdout);
        assert_eq!(records.len(), 2, "{scheme}");
        for record in &records {
            assert_eq!(record["outcome"], "UNAVAILABLE", "{record}");
            assert!(
                record["error"].as_str().unwrap().contains("TLS error"),
                "{record}"
            );
        }
        assert!(
            targets.lock().unwrap().iter().any(|t| t == target),
            "{scheme}: {:?}",
            targets.lock().unwrap()
        );
    }
}

#[test]
fn item_01_unsupported_proxy_scheme_is_a_config_error() {
    payverify_at("https://gateway.example")
        .args(["verify", REF, "--proxy", "gopher://127.0.0.1:70"])
        .assert()
        .code(6)
        .stdout("")
        .stderr(predicate::str::contains(
            "supported schemes: http, https, socks4, socks4a, socks5, socks5h",
        ));
}

#[test]
fn item_01_a_worker_panic_is_a_record_with_exit_10_and_nothing_is_lost() {
    // Debug builds only: PAYVERIFY_DEBUG_PANIC_ON makes verifying that reference panic.
    for format in ["jsonl", "csv"] {
        let out = payverify()
            .env("PAYVERIFY_DEBUG_PANIC_ON", "SANDBOX-OK-2")
            .args(["verify", "--sandbox", "-j", "2", "-o", format])
            .args([
                "SANDBOX-OK-1",
                "SANDBOX-OK-2",
                "SANDBOX-OK-3",
                "SANDBOX-OK-4",
            ])
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(10), "{format}: {stderr}");
        assert!(stderr.contains("internal error"), "{stderr}");
        assert!(stderr.contains("4 references"), "{stderr}");
        assert!(stderr.contains("1 INTERNAL_ERROR"), "{stderr}");
        let stdout = stdout_of(&out);
        if format == "jsonl" {
            let records = jsonl(&out.stdout);
            let names: Vec<_> = records.iter().map(|r| r["outcome"].clone()).collect();
            assert_eq!(
                names,
                ["SUCCESSFUL", "INTERNAL_ERROR", "SUCCESSFUL", "SUCCESSFUL"],
                "{stdout}"
            );
            assert_eq!(records[1]["reference"], "SANDBOX-OK-2");
            assert_eq!(records[1]["exit_code"], 10);
        } else {
            assert_eq!(stdout.lines().count(), 5, "{stdout}");
            assert!(
                stdout.contains("SANDBOX-OK-2,INTERNAL_ERROR,10,"),
                "{stdout}"
            );
        }
    }
    // One reference: the same, on the single path.
    payverify()
        .env("PAYVERIFY_DEBUG_PANIC_ON", "SANDBOX-OK-2")
        .args(["verify", "--sandbox", "SANDBOX-OK-2"])
        .assert()
        .code(10)
        .stdout("")
        .stderr(predicate::str::contains("internal error"));
}

// ---- 2. No references is not success ---------------------------------------------------

#[test]
fn item_02_no_references_is_exit_2() {
    let dir = TempDir::new("empty");
    let comments = dir.write("refs.txt", "\n#ORDER-17\n   \n");
    let strict = ["--hmac", "require", "--expect-amount", "40000"];
    payverify()
        .args(["verify", "--sandbox", "--comments", "-"])
        .args(strict)
        .write_stdin("\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr("payverify: no references to verify: 1 line read, 1 blank, 0 comments\n");
    // Without --comments a blank line is an empty reference: refused, named.
    payverify()
        .args(["verify", "--sandbox", "-"])
        .args(strict)
        .write_stdin("\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "payverify: warning: stdin line 1 skipped: the reference is empty (a blank line is \
             skipped only with --comments)\n",
        ));
    payverify()
        .args(["verify", "--sandbox", "-q", "-"])
        .args(strict)
        .write_stdin("")
        .assert()
        .code(2)
        .stdout("")
        .stderr("");
    let empty = dir.write("empty.txt", "");
    payverify()
        .args(["verify", "--sandbox", "--from"])
        .arg(&empty)
        .args(strict)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "no references to verify: 0 lines read, 0 blank, 0 comments",
        ));
    // A usage error leaves stdout empty in every format: no CSV header, no `[]`.
    for format in ["csv", "json", "jsonl", "table"] {
        payverify()
            .args(["verify", "--sandbox", "-o", format, "--comments", "--from"])
            .arg(&comments)
            .args(strict)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "no references to verify: 3 lines read, 2 blank, 1 comment",
            ));
    }
}

// ---- 3. Amounts are decided from the exact number text ---------------------------------

fn sample_with_amount(text: &str, signed_kobo: &str) -> String {
    let hmac = sign(&format!("WQ-506391000507913NGN{signed_kobo}"));
    SAMPLE
        .replace("\"amount\": 4000000,", &format!("\"amount\": {text},"))
        .replace(SAMPLE_HMAC_FOR_SECRET, &hmac)
}

#[test]
fn item_03_fractional_and_out_of_range_amounts_are_exit_8() {
    let strict = ["--hmac", "require", "--expect-amount", "40000"];
    for (text, why) in [
        ("3999999.9999999999999", "is not a whole number of kobo"),
        ("4000000.00000000000000001", "is not a whole number of kobo"),
        ("4000000.5", "is not a whole number of kobo"),
        ("40000001e-1", "is not a whole number of kobo"),
        ("9223372036854775808", "is too large"),
        ("4e+30", "is too large"),
        ("-4000000", "is negative"),
        ("-0", "is negative"),
    ] {
        let body = sample_with_amount(text, "4000000");
        assert!(body.contains(text));
        let server = serve("200 OK", body);
        payverify_at(&server.url)
            .args(["verify", REF])
            .args(strict)
            .assert()
            .code(8)
            .stdout("")
            .stderr(format!(
                "payverify: bad response from the service: \"amount\" {text} {why}\n"
            ));
    }
}

#[test]
fn item_03_exact_integers_beyond_f64_are_not_rounded() {
    // 9007199254740993.0 is exactly ...993: an hmac over ...992 (what f64 would read) fails.
    let body = sample_with_amount("9007199254740993.0", "9007199254740992");
    let server = serve("200 OK", body);
    payverify_at(&server.url)
        .args(["verify", REF, "--hmac", "require"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("hmac MISMATCH"));
    // The same amount signed as ...993 is genuine; the table shows the exact figure.
    let body = sample_with_amount("9007199254740993.0", "9007199254740993");
    let server = serve("200 OK", body);
    payverify_at(&server.url)
        .args(["verify", REF, "--hmac", "require"])
        .args(["--expect-amount-kobo", "9007199254740993"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("(9007199254740993 kobo)"));
}

#[test]
fn item_03_whole_values_in_any_spelling_are_that_integer() {
    for text in ["4000000.00", "4e6", "4.0E+6", "40000000e-1"] {
        let server = serve("200 OK", sample_with_amount(text, "4000000"));
        let out = payverify_at(&server.url)
            .args(["verify", REF, "-o", "csv", "--hmac", "require"])
            .args(["--expect-amount", "40000"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{text}: {}", stderr_of(&out));
        let row = stdout_of(&out).lines().nth(1).unwrap().to_owned();
        assert!(row.contains(",4000000,40000.00,NGN,"), "{text}: {row}");
    }
}

// ---- 4. Empty and whitespace-only credentials ------------------------------------------

#[test]
fn item_04_whitespace_secret_or_client_id_is_exit_6_naming_the_source() {
    let server = serve("200 OK", SAMPLE.clone());
    payverify_at(&server.url)
        .env("PAYVERIFY_CLIENT_SECRET", "   ")
        .args(["verify", REF, "--hmac", "require"])
        .assert()
        .code(6)
        .stdout("")
        .stderr(predicate::str::contains(
            "PAYVERIFY_CLIENT_SECRET is set but empty (or only whitespace)",
        ));
    let dir = TempDir::new("blank-secret");
    for (key, value, what) in [
        ("client_secret", "\"\"", "client secret"),
        ("client_secret", "\" \\t \"", "client secret"),
        ("client_id", "\"  \"", "client id"),
    ] {
        let (id, secret) = if key == "client_id" {
            (value.to_owned(), format!("\"{SECRET}\""))
        } else {
            (format!("\"{CLIENT_ID}\""), value.to_owned())
        };
        let config = dir.write(
            "config.toml",
            format!(
                "[profiles.p]\nbase_url = \"{}\"\nclient_id = {id}\nclient_secret = {secret}\n",
                server.url
            ),
        );
        std::fs::set_permissions(&config, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        payverify()
            .args(["verify", REF, "--profile", "p", "--config"])
            .arg(&config)
            .assert()
            .code(6)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "the {what} from {} [profiles.p] {key} is empty",
                config.display()
            )));
    }
    let blank = dir.write("secret", "  \n");
    payverify_at(&server.url)
        .args(["verify", REF, "--client-secret-file"])
        .arg(&blank)
        .assert()
        .code(6)
        .stderr(predicate::str::contains("is empty"));
    assert_eq!(server.connections.load(Ordering::SeqCst), 0, "no request");
}

// ---- 5. code 00 is required --------------------------------------------------------------

#[test]
fn item_05_missing_or_null_code_fails_and_failed_00_disagrees() {
    let no_code = SAMPLE.replace("\"code\": \"00\",", "");
    let null_code = SAMPLE.replace("\"code\": \"00\"", "\"code\": null");
    for body in [no_code, null_code] {
        let server = serve("200 OK", body);
        payverify_at(&server.url)
            .args([
                "verify",
                REF,
                "--hmac",
                "require",
                "--expect-amount",
                "40000",
            ])
            .assert()
            .code(4)
            .stdout(predicate::str::contains("SUCCESSFUL"))
            .stderr(format!(
                "payverify: check failed for '{REF}': approval code missing: status is \
                 SUCCESSFUL but there is no code 00\n"
            ));
    }
    let failed_00 = SAMPLE.replace("\"SUCCESSFUL\"", "\"FAILED\"");
    let server = serve("200 OK", failed_00);
    payverify_at(&server.url)
        .args(["verify", REF])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAILED"))
        .stderr(predicate::str::contains(
            "status FAILED and code 00 disagree, and payverify goes by the status",
        ));
}

// ---- 6. The response must be for the requested reference -------------------------------

#[test]
fn item_06_an_answer_for_another_transaction_fails_in_every_format() {
    let server = serve("200 OK", SAMPLE.clone());
    let why = "response is for transactionRef \"0000000000000044177\" (merchantRef \
               \"WQ-506391000507913\", paymentRef \"330137174040\"), not the requested \
               reference ORDER-9";
    payverify_at(&server.url)
        .args(["verify", "ORDER-9", "--hmac", "require"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("0000000000000044177"))
        .stderr(format!("payverify: check failed for 'ORDER-9': {why}\n"));
    let out = payverify_at(&server.url)
        .args(["verify", "ORDER-9", REF, "-o", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let records = jsonl(&out.stdout);
    assert_eq!(records[0]["outcome"], "CHECK_FAILED");
    assert_eq!(records[0]["checks"]["failures"][0], why);
    assert_eq!(records[1]["outcome"], "SUCCESSFUL");
    let out = payverify_at(&server.url)
        .args(["verify", "ORDER-9", "-o", "csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let row = stdout_of(&out).lines().nth(1).unwrap().to_owned();
    assert!(row.starts_with("ORDER-9,CHECK_FAILED,4,"), "{row}");
    assert!(row.contains("not the requested reference ORDER-9"), "{row}");
    // Any one of the three naming the reference is enough: the merchant's own reference.
    payverify_at(&server.url)
        .args(["verify", "WQ-506391000507913", "-q"])
        .assert()
        .code(0);
}

#[test]
fn item_06_the_sandbox_answers_with_the_reference_asked_for() {
    let refs = [
        "SANDBOX-OK-a",
        "SANDBOX-AMOUNT-100-b",
        "SANDBOX-FAILED-c",
        "SANDBOX-PENDING-d",
        "SANDBOX-FLAKY-e",
        "SANDBOX-RATELIMIT-f",
        "SANDBOX-SLOW-10-g",
        "SANDBOX-BADHMAC-h",
        REF,
    ];
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "--hmac", "off"])
        .args(refs)
        .output()
        .unwrap();
    for (record, reference) in jsonl(&out.stdout).iter().zip(refs) {
        assert_eq!(record["response"]["transactionRef"], reference);
        let failures = record["checks"]["failures"].as_array().unwrap();
        assert!(failures.is_empty(), "{record}");
    }
}

// ---- 7. webhook check: genuine is not paid ---------------------------------------------

fn webhook() -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args(["webhook", "check", "-"]);
    cmd
}

#[test]
fn item_07_webhook_check_follows_the_verify_table() {
    let no_date = SAMPLE.replace(
        "\"paymentDate\": \"2022-11-14T22:34:24.913Z\"",
        "\"paymentDate\": null",
    );
    assert_ne!(no_date, *SAMPLE);
    let no_hmac = SAMPLE.replace(&format!("\"hmac\": \"{SAMPLE_HMAC_FOR_SECRET}\","), "");
    assert_ne!(no_hmac, *SAMPLE);
    let cases: [(String, &[&str], i32, &str, &str); 7] = [
        (
            SAMPLE.clone(),
            &["--expect-amount", "40000"],
            0,
            "genuine, paid",
            "",
        ),
        (
            SAMPLE.replace("\"SUCCESSFUL\"", "\"FAILED\""),
            &["--expect-amount", "40000"],
            1,
            "genuine, FAILED",
            "genuine, but the payment FAILED",
        ),
        (
            SAMPLE.replace("\"SUCCESSFUL\"", "\"PENDING\""),
            &[],
            9,
            "genuine, NOT FINAL",
            "not final: status \"PENDING\"",
        ),
        (
            SAMPLE.replace("\"SUCCESSFUL\"", "\" SUCCESSFUL\""),
            &[],
            9,
            "genuine, NOT FINAL",
            "not final: status \" SUCCESSFUL\"",
        ),
        (no_date, &[], 9, "genuine, NOT FINAL", "no paymentDate"),
        (no_hmac, &[], 4, "MISSING hmac", "the payload has no hmac"),
        (
            SAMPLE.replace("\"amount\": 4000000", "\"amount\": 4000001"),
            &[],
            4,
            "MISMATCH",
            "hmac MISMATCH",
        ),
    ];
    for (payload, flags, code, verdict, why) in cases {
        let out = webhook().args(flags).write_stdin(payload).output().unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(code), "{verdict}: {stderr}");
        assert!(
            stdout_of(&out).contains(&format!("verdict       {verdict}\n")),
            "{}",
            stdout_of(&out)
        );
        if why.is_empty() {
            assert_eq!(stderr, "");
        } else {
            assert!(stderr.starts_with("payverify: stdin: "), "{stderr}");
            assert!(stderr.contains(why), "{stderr}");
        }
    }
    // A genuine SUCCESSFUL payload that misses an expectation is 4, not 0.
    webhook()
        .args(["--expect-amount", "400"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(4)
        .stderr(predicate::str::contains("expected amount ₦400.00"));
    // No secret: 6, before any verdict.
    payverify()
        .args(["webhook", "check", "-"])
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(6)
        .stdout("");
}

// ---- 8. hmac parsing is strict ----------------------------------------------------------

#[test]
fn item_08_an_hmac_that_is_not_exactly_64_hex_digits_is_a_mismatch() {
    // "+a" is what u8::from_str_radix read as 0x0a: put it where the signature has "0a".
    let at = (0..64)
        .step_by(2)
        .find(|&i| SAMPLE_HMAC_FOR_SECRET.as_bytes()[i] == b'0')
        .expect("a byte below 0x10 in the signature");
    let mut plus = SAMPLE_HMAC_FOR_SECRET.to_owned();
    plus.replace_range(at..=at, "+");
    let variants = [
        format!(" {SAMPLE_HMAC_FOR_SECRET} "),
        format!("{SAMPLE_HMAC_FOR_SECRET}\\n"),
        plus,
        format!("{SAMPLE_HMAC_FOR_SECRET}0"),
        SAMPLE_HMAC_FOR_SECRET[..62].to_owned(),
    ];
    for hmac in variants {
        let body = SAMPLE.replace(SAMPLE_HMAC_FOR_SECRET, &hmac);
        let server = serve("200 OK", body.clone());
        payverify_at(&server.url)
            .args(["verify", REF, "--hmac", "require"])
            .assert()
            .code(4)
            .stdout(predicate::str::contains("hmac MISMATCH"))
            .stderr(format!(
                "payverify: check failed for '{REF}': hmac MISMATCH: hmac is not 64 hex digits\n"
            ));
        webhook()
            .write_stdin(body)
            .assert()
            .code(4)
            .stderr(predicate::str::contains("hmac is not 64 hex digits"));
    }
}

// ---- 9. A reader that goes away, a closed or full stdout -------------------------------

/// A reader that leaves before every reference was verified is not an interrupt (no 130),
/// and the run is incomplete: exit 10, whatever the references verified say (issue 22
/// withdrew the older rule that the merge of the completed references stood).
#[test]
fn item_09_a_reader_that_goes_away_is_not_an_interrupt() {
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "-j", "2"])
        .args((0..200).map(|i| format!("SANDBOX-OK-{i}")))
        .spawn()
        .unwrap();
    // `| head -1`: read one line, then go away.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    drop(stdout);
    let (status, stderr) = status_and_stderr(child);
    assert!(first.contains("\"SANDBOX-OK-0\""), "{first}");
    assert_eq!(status.code(), Some(10), "{stderr}");
    assert!(stderr.contains("output closed; stopped after"), "{stderr}");
    assert!(
        stderr.contains("output closed before every reference was verified"),
        "{stderr}"
    );
    assert!(!stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn item_09_a_reader_that_goes_away_keeps_a_failure() {
    // The first reference FAILED and the reader left before the rest were verified: the
    // exit is never lower than either (the incomplete run's 10).
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
        .args([
            "verify",
            "--sandbox",
            "-o",
            "jsonl",
            "-j",
            "1",
            "SANDBOX-FAILED-0",
        ])
        .args((0..100).map(|i| format!("SANDBOX-OK-{i}")))
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    drop(stdout);
    assert_eq!(child.wait().unwrap().code(), Some(10));
}

fn shell(script: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    Command::new("bash")
        .arg("-c")
        .arg(script.replace("PAYVERIFY", &bin.display().to_string()))
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .output()
        .unwrap()
}

/// `payverify ARGS` with stdout closed (`>&-`) and full (`/dev/full`): exit 10, and stderr
/// says why (`says` checks the line).
fn assert_unwritable_stdout_is_exit_10(args: &str, says: impl Fn(&str) -> bool) {
    for redirect in [">&-", ">/dev/full"] {
        let out = shell(&format!("PAYVERIFY {args} {redirect}"));
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(10), "{args} {redirect}: {stderr}");
        assert!(says(&stderr), "{args} {redirect}: {stderr}");
    }
}

#[test]
fn item_09_closed_or_full_stdout_is_exit_10() {
    for args in [
        "verify --sandbox SANDBOX-OK-1",
        "verify --sandbox SANDBOX-OK-1 -o json",
        "verify --sandbox SANDBOX-OK-1 SANDBOX-OK-2 -o jsonl",
        "verify --sandbox SANDBOX-OK-1 SANDBOX-OK-2 -o csv",
        "verify --sandbox SANDBOX-OK-1 SANDBOX-OK-2",
    ] {
        assert_unwritable_stdout_is_exit_10(args, |stderr| {
            stderr.contains("payverify: cannot write the output: ")
        });
    }
    // Discarding output on purpose is not an error.
    let out = shell("PAYVERIFY verify --sandbox SANDBOX-OK-1 >/dev/null");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let dir = TempDir::new("webhook-closed");
    let empty = dir.write("empty.json", "");
    let out = shell(&format!("PAYVERIFY webhook check {} >&-", empty.display()));
    assert_eq!(out.status.code(), Some(8), "{}", stderr_of(&out));
}

// ---- 10. Signals end in 130 -------------------------------------------------------------

/// Runs `args` and sends `signal` once `written` is on stdout (with none, once the signal
/// handlers are in place): the exit code, stdout, stderr and how long the signal took.
fn signal_during(
    args: &[&str],
    signal: &str,
    written: Option<&str>,
) -> (Option<i32>, String, String, Duration) {
    let mut child = spawnable().args(args).spawn().unwrap();
    let stdout = Captured::start(child.stdout.take().unwrap());
    let stderr = Captured::start(child.stderr.take().unwrap());
    match written {
        Some(text) => stdout.wait_for(&[text]),
        None => wait_for_signal_handlers(&child),
    }
    send_signal(&child, signal);
    let signalled = Instant::now();
    let status = child.wait().unwrap();
    let took = signalled.elapsed();
    let text = |c: Captured| String::from_utf8_lossy(&c.finish()).into_owned();
    (status.code(), text(stdout), text(stderr), took)
}

#[test]
fn item_10_a_signal_during_one_reference_is_exit_130() {
    // Signalled once the request is at the service (the handlers are in place from the
    // start, before verify is listening: that the request arrived is what says it is).
    let (server, arrived) = silent_service();
    for signal in ["-TERM", "-INT"] {
        let mut child = spawnable_at(&server.url)
            .args(["verify", "--retries", "0", "R-SLOW-x"])
            .spawn()
            .unwrap();
        let stdout = Captured::start(child.stdout.take().unwrap());
        let stderr = Captured::start(child.stderr.take().unwrap());
        arrived.recv_timeout(Duration::from_secs(60)).unwrap();
        send_signal(&child, signal);
        let signalled = Instant::now();
        let status = child.wait().unwrap();
        let took = signalled.elapsed();
        let stderr = String::from_utf8_lossy(&stderr.finish()).into_owned();
        assert_eq!(status.code(), Some(130), "{signal}: {stderr}");
        assert_eq!(stdout.finish(), b"");
        assert_eq!(
            stderr,
            "payverify: interrupted before 'R-SLOW-x' was verified; nothing is known about it\n"
        );
        assert!(took < Duration::from_secs(5), "slow to stop: {took:?}");
    }
}

#[test]
fn item_10_interrupted_batches_keep_well_formed_output_in_every_format() {
    let refs: Vec<String> = (0..40).map(|i| format!("SANDBOX-SLOW-300-{i}")).collect();
    for (format, signal) in [
        ("json", "-TERM"),
        ("csv", "-INT"),
        ("csv", "-TERM"),
        ("jsonl", "-TERM"),
    ] {
        let mut args = vec!["verify", "--sandbox", "-j", "2", "-o", format];
        args.extend(refs.iter().map(String::as_str));
        // Once the first record is out: there is something to keep well-formed.
        let (code, stdout, stderr, took) = signal_during(&args, signal, Some("SANDBOX-SLOW-300-0"));
        assert_eq!(code, Some(130), "{format} {signal}: {stderr}");
        assert!(took < Duration::from_secs(5), "slow to stop: {took:?}");
        let written: Vec<String> = match format {
            "json" => {
                let array: Value = serde_json::from_str(&stdout).expect("a closed JSON array");
                array
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["reference"].as_str().unwrap().to_owned())
                    .collect()
            }
            "csv" => {
                let mut lines = stdout.lines();
                assert!(lines.next().unwrap().starts_with("reference,outcome,"));
                lines
                    .map(|l| l.split(',').next().unwrap().to_owned())
                    .collect()
            }
            _ => jsonl(stdout.as_bytes())
                .iter()
                .map(|r| r["reference"].as_str().unwrap().to_owned())
                .collect(),
        };
        assert!(written.len() < 40, "{format}: it did not stop early");
        assert_eq!(written, refs[..written.len()], "{format}: in order, no gap");
        assert!(
            stderr.contains(&format!("interrupted after {} ", written.len())),
            "{stderr}"
        );
    }
}

// ---- 11. Numeric flags --------------------------------------------------------------------

#[test]
fn item_11_invalid_numbers_are_usage_errors_naming_the_range() {
    let cases: [(&[&str], &str); 12] = [
        (&["--rate", "1e-300"], "from 0.001 to 100000"),
        (&["--rate", "NaN"], "from 0.001 to 100000"),
        (&["--rate", "1e9"], "from 0.001 to 100000"),
        (&["--jobs", "0"], "from 1 to 64"),
        (&["--jobs", "65"], "from 1 to 64"),
        (&["--jobs", "+4"], "from 1 to 64"),
        (&["--timeout", "1e-300"], "from 0.001 to 3600"),
        (&["--timeout", "inf"], "from 0.001 to 3600"),
        (&["--retries", "11"], "from 0 to 10"),
        (&["--retries", "-1"], "from 0 to 10"),
        (
            &["--expect-amount", "40000.001"],
            "accepted: 0 to 92233720368547758.07 naira",
        ),
        (
            &["--expect-amount-kobo", "1e6"],
            "or 0 to 9223372036854775807 kobo",
        ),
    ];
    for (flags, range) in cases {
        payverify()
            .args(["verify", "--sandbox", "SANDBOX-OK-1", "SANDBOX-OK-2"])
            .args(flags)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("payverify: "))
            .stderr(predicate::str::contains(range))
            .stderr(predicate::str::contains("panicked").not());
    }
}

// ---- 12. Over-long references ----------------------------------------------------------

#[test]
fn item_12_a_reference_over_4_kib_is_a_usage_error_before_any_request() {
    let server = serve("200 OK", SAMPLE.clone());
    let long = "R".repeat(120 * 1024);
    for extra in [&[][..], &["SANDBOX-OK-1"][..]] {
        payverify_at(&server.url)
            .arg("verify")
            .arg(&long)
            .args(extra)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "the reference is 122880 bytes long; the most accepted is 4096",
            ));
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
    payverify_at(&server.url)
        .args(["verify", &"R".repeat(4097)])
        .assert()
        .code(2);
}

// ---- 14. Retry-After as an HTTP date ----------------------------------------------------

#[test]
fn item_14_retry_after_http_dates_are_honoured() {
    let server = KeepAliveServer::start(|_, n| {
        if n == 1 {
            let at = SystemTime::now() + Duration::from_secs(3);
            return (
                "503 Service Unavailable".into(),
                vec![format!("Retry-After: {}", httpdate::fmt_http_date(at))],
                r#"{"message":"later"}"#.into(),
            );
        }
        ("200 OK".into(), vec![], SAMPLE.clone())
    });
    let started = Instant::now();
    payverify_at(&server.url)
        .args(["verify", REF, "--retries", "1", "-q"])
        .assert()
        .code(0);
    // The date has one-second resolution: at least 2 s of the 3 s must have been waited.
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(2), "retried after {waited:?}");
    assert_eq!(server.requests.lock().unwrap().len(), 2);
}

// ---- 16. What -o json changes in a number ---------------------------------------------

#[test]
fn item_16_json_output_normalises_only_the_exponent_marker() {
    let body = sample_with_amount("4E6", "4000000").replace(
        "\"mode\": \"dev\"",
        "\"mode\": \"dev\", \"fee\": 1.50, \"tiny\": 1E-2, \"big\": 123456789012345678901234567890",
    );
    let server = serve("200 OK", body);
    let out = payverify_at(&server.url)
        .args(["verify", REF, "-o", "json", "--hmac", "require"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    for kept in [
        "\"amount\": 4e+6",
        "\"fee\": 1.50",
        "\"tiny\": 1e-2",
        "\"big\": 123456789012345678901234567890",
    ] {
        assert!(stdout.contains(kept), "{kept}: {stdout}");
    }
}

// ---- More hostile cases -----------------------------------------------------------------

#[test]
fn near_miss_statuses_and_codes_never_pass() {
    for (from, to, code) in [
        (
            "\"status\": \"SUCCESSFUL\"",
            "\"status\": \"successful\"",
            9,
        ),
        (
            "\"status\": \"SUCCESSFUL\"",
            "\"status\": \"SUCCESSFUL \"",
            9,
        ),
        ("\"code\": \"00\"", "\"code\": \" 00\"", 4),
        ("\"code\": \"00\"", "\"code\": \"0\"", 4),
        ("\"code\": \"00\"", "\"code\": 0", 8),
        ("\"code\": \"00\"", "\"code\": \"00\", \"code\": \"00\"", 8),
    ] {
        let body = SAMPLE.replace(from, to);
        assert_ne!(body, *SAMPLE);
        let server = serve("200 OK", body);
        let out = payverify_at(&server.url)
            .args(["verify", REF, "--hmac", "require"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{to}: {}", stderr_of(&out));
        assert!(stderr_of(&out).starts_with("payverify: "), "{to}");
    }
}

#[test]
fn a_reference_match_in_a_wrong_case_or_with_padding_does_not_count() {
    for reference in ["wq-506391000507913", "WQ-50639100050791"] {
        let server = serve("200 OK", SAMPLE.clone());
        payverify_at(&server.url)
            .args(["verify", reference, "-q"])
            .assert()
            .code(4);
    }
}

#[test]
fn an_hmac_signed_with_the_empty_key_fails_under_a_real_secret() {
    let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(b"").unwrap();
    mac.update(b"WQ-506391000507913NGN4000000");
    let empty_key: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let server = serve("200 OK", SAMPLE.replace(SAMPLE_HMAC_FOR_SECRET, &empty_key));
    payverify_at(&server.url)
        .args(["verify", REF, "--hmac", "require"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("hmac MISMATCH"));
}

// ---- Attack review findings --------------------------------------------------------------

#[test]
fn a_success_naming_no_reference_cannot_pass() {
    // A generic success (a cache, a proxy, a hostile endpoint) and a real success for some
    // transaction with every reference field left out or null: neither is tied to REF.
    let mut no_refs: Value = serde_json::from_str(&SAMPLE).unwrap();
    let object = no_refs.as_object_mut().unwrap();
    for key in ["transactionRef", "merchantRef", "paymentRef"] {
        object.remove(key);
    }
    let mut null_refs: Value = serde_json::from_str(&SAMPLE).unwrap();
    for key in ["transactionRef", "merchantRef", "paymentRef"] {
        null_refs[key] = Value::Null;
    }
    let why = "response names no reference: cannot tell it is for ORDER-9";
    for body in [
        r#"{"status":"SUCCESSFUL","code":"00"}"#.to_owned(),
        no_refs.to_string(),
        null_refs.to_string(),
    ] {
        let server = serve("200 OK", body.clone());
        for hmac in ["off", "warn"] {
            payverify_at(&server.url)
                .args(["verify", "ORDER-9", "-q", "--hmac", hmac])
                .assert()
                .code(4)
                .stdout("");
        }
        let out = payverify_at(&server.url)
            .args(["verify", "ORDER-9", "--hmac", "off"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4), "{body}");
        assert_eq!(
            stderr_of(&out),
            format!("payverify: check failed for 'ORDER-9': {why}\n")
        );
        let out = payverify_at(&server.url)
            .args(["verify", "ORDER-9", "-o", "jsonl", "--hmac", "off"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4));
        let records = jsonl(&out.stdout);
        assert_eq!(records[0]["outcome"], "CHECK_FAILED");
        assert_eq!(records[0]["checks"]["failures"][0], why);
    }
    // A FAILED answer naming nothing stays what it is: exit 1, not a check failure.
    let server = serve("200 OK", r#"{"status":"FAILED","code":"51"}"#.into());
    payverify_at(&server.url)
        .args(["verify", "ORDER-9", "-q"])
        .assert()
        .code(1);
}

#[test]
fn an_invalid_port_in_the_base_url_is_exit_6_and_nothing_is_called() {
    for port in ["99999", "65536", "-1", "18801x", "1880100000", "0", ""] {
        let base = format!("http://127.0.0.1:{port}");
        payverify_at(&base)
            .args(["verify", REF])
            .assert()
            .code(6)
            .stdout("")
            .stderr(format!(
                "payverify: base URL '{base}' has an invalid port '{port}' (a port is a \
                 number from 1 to 65535); it came from env PAYVERIFY_BASE_URL\n"
            ));
    }
}

#[test]
fn a_base_url_ending_in_the_operation_path_is_exit_6_naming_the_fix() {
    let server = serve("404 Not Found", r#"{"message":"not found"}"#.into());
    let base = format!("{}/api/payment/verify/", server.url);
    payverify_at(&base)
        .args(["verify", REF])
        .assert()
        .code(6)
        .stdout("")
        .stderr(format!(
            "payverify: base URL '{base}' already ends in the operation path \
             /api/payment/verify, which payverify adds itself; use '{}'; it came from env \
             PAYVERIFY_BASE_URL\n",
            server.url
        ));
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn a_404_that_is_not_json_is_exit_8_naming_the_url() {
    // A plain web server's page: nothing about any transaction.
    for body in ["<html><body>Not Found</body></html>", ""] {
        let server = serve("404 Not Found", body.into());
        let url = format!("{}/api/payment/verify/ORDER-1", server.url);
        payverify_at(&server.url)
            .args(["verify", "ORDER-1"])
            .assert()
            .code(8)
            .stdout("")
            .stderr(format!(
                "payverify: bad response from the service: HTTP 404 with a non-JSON body from \
                 {url}: is the base URL right?\n"
            ));
        let out = payverify_at(&server.url)
            .args(["verify", "ORDER-1", "ORDER-2", "-o", "jsonl"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(8));
        assert_eq!(jsonl(&out.stdout)[0]["outcome"], "BAD_RESPONSE");
    }
    // The service's own JSON 404 stays what it says: no such transaction.
    let server = serve(
        "404 Not Found",
        r#"{"message":"Transaction not found"}"#.into(),
    );
    payverify_at(&server.url)
        .args(["verify", "ORDER-1"])
        .assert()
        .code(3);
}

#[test]
fn a_refused_connection_names_the_url_called() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    payverify_at(&base)
        .args(["verify", "ORDER-1", "--retries", "0"])
        .assert()
        .code(7)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "(calling {base}/api/payment/verify/ORDER-1)"
        )));
}

#[test]
fn webhook_paid_needs_a_non_empty_payment_date_string() {
    let date = "\"paymentDate\": \"2022-11-14T22:34:24.913Z\"";
    assert!(SAMPLE.contains(date));
    let flags = [
        "--expect-amount",
        "40000",
        "--expect-currency",
        "NGN",
        "--expect-merchant-ref",
        "WQ-506391000507913",
    ];
    // Empty or blank: no date yet, so not final.
    for value in ["\"\"", "\" \""] {
        let out = webhook()
            .args(flags)
            .write_stdin(SAMPLE.replace(date, &format!("\"paymentDate\": {value}")))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(9), "{value}: {}", stderr_of(&out));
        assert!(stdout_of(&out).contains("verdict       genuine, NOT FINAL\n"));
        assert_eq!(
            stderr_of(&out),
            "payverify: stdin: genuine, but not final: SUCCESSFUL with code 00 and no \
             paymentDate\n"
        );
    }
    // Not a string at all: malformed, whatever the hmac says.
    for (value, kind) in [
        ("0", "a number"),
        ("false", "a boolean"),
        ("{}", "an object"),
        ("[\"2022-11-14\"]", "an array"),
    ] {
        webhook()
            .args(flags)
            .write_stdin(SAMPLE.replace(date, &format!("\"paymentDate\": {value}")))
            .assert()
            .code(8)
            .stdout("")
            .stderr(format!(
                "payverify: stdin: \"paymentDate\" is {kind}, not a string\n"
            ));
    }
    // A date string is what pays.
    webhook()
        .args(flags)
        .write_stdin(SAMPLE.as_str())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("verdict       genuine, paid\n"));
}

/// A server answering every reference with the sample re-pointed at that reference, and
/// recording the paths asked for.
fn serve_any_reference() -> (RawServer, Arc<Mutex<Vec<String>>>) {
    let paths: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = paths.clone();
    let server = RawServer::start(move |mut stream| {
        let head = read_head(&mut stream);
        let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        seen.lock().unwrap().push(path);
        let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
        v["transactionRef"] = reference.into();
        respond(&mut stream, "200 OK", v.to_string().as_bytes());
    });
    (server, paths)
}

#[test]
fn a_utf8_byte_order_mark_is_dropped_from_files_and_stdin() {
    let (server, paths) = serve_any_reference();
    let dir = TempDir::new("bom-input");
    let file = dir.write("refs.txt", "\u{feff}OK-BOM\r\nOK-CRLF\r\n");
    let commented = dir.write("commented.txt", "\u{feff}# orders of the day\nOK-2\n");
    for (args, stdin) in [
        (vec!["--from".to_owned(), file.display().to_string()], None),
        (vec!["-".to_owned()], Some("\u{feff}OK-BOM\nOK-CRLF\n")),
        (
            vec!["--from".to_owned(), "-".to_owned()],
            Some("\u{feff}OK-BOM\nOK-CRLF\n"),
        ),
    ] {
        let mut cmd = payverify_at(&server.url);
        cmd.args(["verify", "-o", "jsonl", "--hmac", "off"])
            .args(&args);
        if let Some(stdin) = stdin {
            cmd.write_stdin(stdin);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        let records = jsonl(&out.stdout);
        assert_eq!(records[0]["reference"], "OK-BOM", "{args:?}");
        assert_eq!(records[1]["reference"], "OK-CRLF", "{args:?}");
    }
    // A BOM before a comment leaves a comment, not a reference.
    let out = payverify_at(&server.url)
        .args([
            "verify",
            "-o",
            "jsonl",
            "--hmac",
            "off",
            "--comments",
            "--from",
        ])
        .arg(&commented)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(jsonl(&out.stdout).len(), 1);
    let paths = paths.lock().unwrap();
    assert!(paths.iter().all(|p| !p.contains("%EF%BB%BF")), "{paths:?}");
    assert!(paths.iter().all(|p| !p.contains("%23")), "{paths:?}");
}

#[test]
fn utf16_and_unreadable_inputs_are_exit_2_with_nothing_on_stdout() {
    let (server, paths) = serve_any_reference();
    let dir = TempDir::new("bad-input");
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("R1\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let utf16 = dir.write("utf16.txt", utf16);
    let name = utf16.display().to_string();
    for format in ["table", "json", "csv"] {
        payverify_at(&server.url)
            .args(["verify", "-o", format, "--from", &name])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "payverify: {name} is UTF-16 (it starts with a UTF-16 byte-order mark); \
                 references must be UTF-8: save it as UTF-8\n"
            ));
    }
    payverify_at(&server.url)
        .args(["verify", "-"])
        .write_stdin(std::fs::read(&utf16).unwrap())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with("payverify: stdin is UTF-16"));
    let here = dir.path().display().to_string();
    for format in ["table", "json", "csv"] {
        payverify_at(&server.url)
            .args(["verify", "-o", format, "--from", &here])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "payverify: cannot read references from {here}: it is a directory\n"
            ));
    }
    // Opens, but every read fails (EIO at offset 0).
    payverify_at(&server.url)
        .args(["verify", "--from", "/proc/self/mem"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "payverify: cannot read references from /proc/self/mem: ",
        ));
    assert!(paths.lock().unwrap().is_empty());
}

#[test]
fn help_version_man_and_completions_to_a_closed_or_full_stdout_are_exit_10() {
    for args in [
        "man",
        "--version",
        "--help",
        "help verify",
        "completions bash",
    ] {
        assert_unwritable_stdout_is_exit_10(args, |stderr| {
            stderr.starts_with("payverify: cannot write the output: ")
        });
        // A reader that goes away early is its choice, and /dev/null is a real stdout.
        for tail in [
            "| head -c 1 >/dev/null; exit ${PIPESTATUS[0]}",
            ">/dev/null",
        ] {
            let out = shell(&format!("PAYVERIFY {args} {tail}"));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args} {tail}: {}",
                stderr_of(&out)
            );
        }
    }
}

#[test]
fn config_init_refuses_names_and_ids_it_could_not_read_back() {
    let dir = TempDir::new("init");
    let path = dir.path().join("config.toml");
    for name in ["a\"\nb", "", "a.b", "live profile", "ü"] {
        payverify()
            .args(["config", "init", "--force", "--profile", name, "--config"])
            .arg(&path)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::ends_with(
                "is not allowed: use letters, digits, '_' and '-' only\n",
            ));
        assert!(!path.exists(), "{name:?}");
    }
    for id in ["", "   ", "\t"] {
        payverify()
            .args(["config", "init", "--client-id", id, "--config"])
            .arg(&path)
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                "payverify: --client-id is empty or only whitespace; give the dashboard's \
                 public key\n",
            );
        assert!(!path.exists());
    }
    // Any client id is written so that it reads back as exactly itself, and nothing more.
    let id = "x\"\nclient_secret = \"injected\\";
    payverify()
        .args([
            "config",
            "init",
            "--profile",
            "ops_2-b",
            "--client-id",
            id,
            "--config",
        ])
        .arg(&path)
        .assert()
        .code(0);
    let out = payverify()
        .args(["config", "show", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    // The injected line did not become a secret: the profile still has none, so the
    // configuration cannot work (exit 6) and that line is marked.
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    let shown = stdout_of(&out);
    assert!(
        shown.contains("x\"\\nclient_secret = \"injected\\"),
        "{shown}"
    );
    assert!(
        shown.lines().any(|l| l.starts_with("client_secret")
            && l.contains("not set")
            && l.ends_with("<- BROKEN")),
        "{shown}"
    );
}

#[test]
fn expectations_are_exact_and_an_empty_one_is_a_usage_error() {
    let server = serve("200 OK", SAMPLE.clone());
    for padded in ["WQ-506391000507913 ", " WQ-506391000507913"] {
        payverify_at(&server.url)
            .args(["verify", REF, "--expect-merchant-ref", padded])
            .assert()
            .code(4)
            .stdout(predicate::str::contains("WQ-506391000507913"))
            .stderr(predicate::str::contains(format!(
                "expected merchant ref \"{padded}\", service says \"WQ-506391000507913\""
            )));
    }
    payverify_at(&server.url)
        .args([
            "verify",
            REF,
            "-q",
            "--expect-merchant-ref",
            "WQ-506391000507913",
        ])
        .assert()
        .code(0);
    for (flag, value) in [
        ("--expect-currency", ""),
        ("--expect-currency", "  "),
        ("--expect-merchant-ref", ""),
    ] {
        payverify_at(&server.url)
            .args(["verify", REF, flag, value])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!("for '{flag}")))
            .stderr(predicate::str::contains("is empty"));
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1 + 2);
}

#[test]
fn an_empty_proxy_setting_is_exit_6_from_the_flag_and_the_config() {
    let server = serve("200 OK", SAMPLE.clone());
    payverify_at(&server.url)
        .args(["verify", REF, "--proxy", ""])
        .assert()
        .code(6)
        .stdout("")
        .stderr(
            "payverify: the proxy from flag --proxy is empty; remove it (HTTPS_PROXY/HTTP_PROXY \
             then apply) or give a proxy URL\n",
        );
    let dir = TempDir::new("empty-proxy");
    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\nproxy = \"\"\n",
            server.url
        ),
    );
    payverify()
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args(["verify", REF, "--profile", "p", "--config"])
        .arg(&config)
        .assert()
        .code(6)
        .stdout("")
        .stderr(format!(
            "payverify: the proxy from {} [profiles.p] proxy is empty; remove it \
             (HTTPS_PROXY/HTTP_PROXY then apply) or give a proxy URL\n",
            config.display()
        ));
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}

/// Issue 36, item 6: a newline inside a value is shown as `\n`, never folded into a space
/// (which would show `Transaction\nnot found` as the different text `Transaction not
/// found`): in a 404 `message` on stderr, and in a reconcile reference cell in the table.
#[test]
fn a_newline_inside_a_value_is_shown_escaped_not_folded() {
    let server = KeepAliveServer::start(|_, _| {
        (
            "404 Not Found".into(),
            vec![],
            r#"{"message":"Transaction\nnot\tfound"}"#.into(),
        )
    });
    let out = payverify_at(&server.url)
        .args(["verify", "--", "R-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        stderr_of(&out),
        "payverify: no transaction has reference 'R-1' (HTTP 404: Transaction\\nnot\\tfound)\n"
    );
    let dir = TempDir::new("newline-cell");
    dir.write("orders.csv", "reference,amount\n\"R-1\nR-2\",40000\n");
    let out = payverify_at(&server.url)
        .current_dir(dir.path())
        .args(["reconcile", "orders.csv", "-o", "table"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert!(stdout.contains("R-1\\nR-2"), "{stdout}");
    assert!(!stdout.contains("R-1 R-2"), "{stdout}");
}

/// A client id and secret far longer than any real gateway key (40,000 characters between
/// them) still go out whole in the Authorization header, and the answer they sign is
/// judged as any other: the room a request head is written into grows with what every
/// request carries, rather than the run failing as a bad response (exit 8).
#[test]
fn credentials_tens_of_kilobytes_long_are_sent_whole() {
    use base64::Engine as _;
    let (id, secret) = ("I".repeat(10_000), "S".repeat(30_000));
    let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(b"WQ-506391000507913NGN4000000");
    let hmac: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let body = SAMPLE.replace(SAMPLE_HMAC_FOR_SECRET, &hmac);
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    let server = RawServer::start(move |mut stream| {
        seen.lock().unwrap().push(read_head(&mut stream));
        respond(&mut stream, "200 OK", body.as_bytes());
    });
    let out = payverify()
        .env("PAYVERIFY_BASE_URL", &server.url)
        .env("PAYVERIFY_CLIENT_ID", &id)
        .env("PAYVERIFY_CLIENT_SECRET", &secret)
        .args(["verify", "-o", "jsonl", "--hmac", "require", REF])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(jsonl(&out.stdout)[0]["outcome"], "SUCCESSFUL");
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
    let heads = heads.lock().unwrap();
    assert_eq!(heads.len(), 1);
    assert!(
        heads[0].to_ascii_lowercase().contains(&format!(
            "\r\nauthorization: basic {}\r\n",
            basic.to_ascii_lowercase()
        )),
        "{}",
        &heads[0][..200]
    );
    for shown in [stdout_of(&out), stderr] {
        assert!(
            !shown.contains(&secret[..64]) && !shown.contains(&basic[..64]),
            "{shown}"
        );
    }
}
