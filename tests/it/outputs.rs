//! Nothing raw, nothing leaked, nothing left open: every output through the one sanitiser and
//! the one redaction (`webhook check` included), redaction on values so machine-read output
//! stays valid, proxy credentials kept out like the client secret, proxies from the
//! environment held to the flag's rules, and a second signal that still closes `-o json`
//! and removes temporary files.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::*;
use payverify::Secret;
use payverify::sandbox::{Identity, Request, Response, Server, Validity};
use serde_json::Value;

/// The documented sample's own transaction reference.
const REF: &str = "0000000000000044177";
/// The message the sample's hmac signs.
const SIGNED: &str = "WQ-506391000507913NGN4000000";

/// Every character of `text` that a terminal would act on, other than the line ends
/// payverify writes itself.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c != '\n' && payverify::is_unsafe(c))
        .collect()
}

/// Asserts that nothing in `text` would act on a terminal.
fn assert_inert(text: &str, what: &str) {
    assert_eq!(raw_controls(text), [] as [char; 0], "{what}: {text:?}");
}

// ---- item 9: webhook check goes through the one sanitiser ---------------------------------

/// A payload's field that tries everything: an OSC title, a clear screen, a line end and a
/// forged verdict line, a conceal sequence to hide the real one, a C1 CSI, a C1 next-line,
/// a bidi override and a zero-width space.
const FORGED_FIELD: &str = "\u{1b}]0;payment OK\u{7}\u{1b}[2J\u{1b}[HWQ-1\r\nverdict       \
     genuine, paid\n\u{1b}[8m\u{9b}2J\u{85}\u{202e}diap\u{200b}";

/// The sample with every shown field hostile, signed with `secret` when it is given (else
/// keeping a signature that does not match).
fn hostile_payload(secret: Option<&str>, status: &str) -> String {
    let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
    v["merchantRef"] = FORGED_FIELD.into();
    v["status"] = status.into();
    v["code"] = "00\u{9b}8m".into();
    v["paymentDate"] = "2022-11-14\u{1b}[8m\u{202e}".into();
    if let Some(secret) = secret {
        let message = format!("{FORGED_FIELD}NGN4000000");
        v["hmac"] = payverify::sign(&Secret::new(secret), &message).into();
    }
    v.to_string()
}

#[test]
fn item_09_webhook_check_shows_every_payload_field_escaped() {
    for (payload, code, verdict) in [
        (hostile_payload(None, "SUCCESSFUL"), 4, "MISMATCH"),
        (
            hostile_payload(Some(SECRET), "PENDING\u{1b}[8m"),
            9,
            "genuine, NOT FINAL",
        ),
        (
            hostile_payload(Some(SECRET), "SUCCESSFUL"),
            4,
            "genuine, CHECK FAILED",
        ),
    ] {
        for color in ["never", "always"] {
            let out = payverify()
                .env("PAYVERIFY_CLIENT_SECRET", SECRET)
                .args(["webhook", "check", "-", "--color", color])
                .write_stdin(payload.clone())
                .output()
                .unwrap();
            let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
            assert_eq!(out.status.code(), Some(code), "{verdict}: {stderr}");
            assert_inert(&stdout, verdict);
            assert_inert(&stderr, verdict);
            // One line per field: the forged line never starts a line of its own, and the
            // real verdict is there, in the clear.
            assert_eq!(stdout.lines().count(), 9, "{stdout}");
            let verdicts: Vec<&str> = stdout
                .lines()
                .filter(|l| l.starts_with("verdict"))
                .collect();
            assert_eq!(verdicts, [format!("verdict       {verdict}")], "{stdout}");
            assert!(
                stdout.contains(
                    "merchantRef   \\e]0;payment OK\\u{7}\\e[2J\\e[HWQ-1\\r\\nverdict       \
                     genuine, paid\\n\\e[8m\\u{9b}2J\\u{85}\\u{202e}diap\\u{200b}\n"
                ),
                "{stdout}"
            );
        }
    }
}

#[test]
fn item_09_webhook_check_redacts_an_echoed_secret() {
    let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
    let reference = format!("WQ-{SECRET}");
    v["merchantRef"] = reference.clone().into();
    v["status"] = format!("PENDING {SECRET}").into();
    v["hmac"] = payverify::sign(&Secret::new(SECRET), &format!("{reference}NGN4000000")).into();
    let out = payverify()
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args(["webhook", "check", "-"])
        .write_stdin(v.to_string())
        .output()
        .unwrap();
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stdout}{stderr}"
    );
    assert!(stdout.contains("merchantRef   WQ-<redacted>\n"), "{stdout}");
    assert!(
        stdout.contains("message       WQ-<redacted>NGN4000000\n"),
        "{stdout}"
    );
}

// ---- item 10: redaction on values, never on bytes of serialised output --------------------

/// A service signing with `secret` that answers for the reference asked, echoing the secret
/// as a number (when it is all digits), as a string, inside another string, URL-encoded, as
/// an object key and in a message.
fn echoing_service(secret: &'static str) -> RawServer {
    let hmac = payverify::sign(&Secret::new(secret), SIGNED);
    RawServer::start(move |mut stream| {
        let head = read_head(&mut stream);
        let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
        v["transactionRef"] = reference.into();
        v["hmac"] = hmac.clone().into();
        if secret.bytes().all(|b| b.is_ascii_digit()) {
            v["echo"] = serde_json::from_str::<Value>(secret).unwrap();
            v["data"]["echoes"] =
                serde_json::from_str::<Value>(&format!("[{secret}, 1{secret}.5, 7]")).unwrap();
        }
        v["echo_string"] = secret.into();
        v["note"] = format!("key={secret};").into();
        v["url"] = format!("https://gw.example/?k={}", url_encoded(secret)).into();
        v["keyed"] = serde_json::json!({ secret: true });
        if v["transactionRef"] == "R2" {
            // A decline whose description (the CSV's and the table's error cell) echoes it.
            v["status"] = "FAILED".into();
            v["code"] = "51".into();
            v["description"] = format!("declined for \"{secret}\"").into();
        }
        respond(&mut stream, "200 OK", v.to_string().as_bytes());
    })
}

/// `text` percent-encoded as a URL query carries it.
fn url_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Asserts `secret`, and its URL encoding, is in neither output channel.
fn assert_no_secret(out: &std::process::Output, secret: &str, what: &str) {
    let both = format!("{}\n{}", stdout_of(out), stderr_of(out));
    for form in [secret.to_owned(), url_encoded(secret)] {
        assert!(!both.contains(&form), "{what}: {form} leaked:\n{both}");
    }
}

/// The echoed values of one response as payverify gave them.
fn assert_echoes_redacted(response: &Value, secret: &str, what: &str) {
    assert_eq!(response["echo_string"], "<redacted>", "{what}: {response}");
    assert_eq!(response["note"], "key=<redacted>;", "{what}: {response}");
    assert_eq!(
        response["url"], "https://gw.example/?k=<redacted>",
        "{what}: {response}"
    );
    assert_eq!(
        response["keyed"],
        serde_json::json!({ "<redacted>": true }),
        "{what}"
    );
    assert_eq!(response["amount"], 4000000, "{what}: numbers stay numbers");
    if secret.bytes().all(|b| b.is_ascii_digit()) {
        assert_eq!(response["echo"], "<redacted>", "{what}: {response}");
        assert_eq!(
            response["data"]["echoes"],
            serde_json::json!(["<redacted>", "<redacted>", 7]),
            "{what}"
        );
    }
}

/// An all-digit secret (echoed as a JSON number), one whose URL encoding differs, and one
/// that JSON and CSV write escaped (a quote, a backslash), so only its value shows it.
const ECHOED_SECRETS: [&str; 3] = ["86753090124", "s3cr3t/Zq+81=x v", "qu\"o\\te-S3cr3t"];

/// Asserts that no string, key or number inside `value` holds `secret`.
fn assert_no_secret_in(value: &Value, secret: &str, what: &str) {
    let leaks = |text: &str| text.contains(secret);
    match value {
        Value::String(s) => assert!(!leaks(s), "{what}: {s:?}"),
        Value::Number(n) => assert!(!leaks(&n.to_string()), "{what}: {n}"),
        Value::Array(items) => items
            .iter()
            .for_each(|v| assert_no_secret_in(v, secret, what)),
        Value::Object(map) => {
            for (k, v) in map {
                assert!(!leaks(k), "{what}: key {k:?}");
                assert_no_secret_in(v, secret, what);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

#[test]
fn item_10_an_echoed_secret_is_redacted_as_a_value_and_json_stays_valid() {
    for secret in ECHOED_SECRETS {
        let server = echoing_service(secret);
        let run = |args: &[&str]| {
            let out = payverify_at(&server.url)
                .env("PAYVERIFY_CLIENT_SECRET", secret)
                .args(["verify", "--hmac", "require"])
                .args(args)
                .output()
                .unwrap();
            // R2 is declined: exit 1 for any run that asks for it.
            let code = if args.contains(&"R2") { 1 } else { 0 };
            assert_eq!(
                out.status.code(),
                Some(code),
                "{args:?}: {}",
                stderr_of(&out)
            );
            assert_no_secret(&out, secret, &format!("{secret} {args:?}"));
            assert_inert(&stdout_of(&out), "stdout");
            out
        };
        // One reference, the service's object as received.
        let out = run(&[REF, "-o", "json"]);
        let object: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        assert_echoes_redacted(&object, secret, "-o json");
        assert_no_secret_in(&object, secret, "-o json");
        // A batch as an array, as lines, as CSV and as a table.
        let out = run(&[REF, "R2", "-o", "json"]);
        let array: Value = serde_json::from_slice(&out.stdout).expect("a valid JSON array");
        assert_no_secret_in(&array, secret, "batch -o json");
        for record in array.as_array().unwrap() {
            assert_echoes_redacted(&record["response"], secret, "batch -o json");
        }
        let out = run(&[REF, "R2", "-o", "jsonl"]);
        let records = jsonl(&out.stdout);
        assert_eq!(records.len(), 2);
        for record in &records {
            assert_echoes_redacted(&record["response"], secret, "-o jsonl");
            assert_no_secret_in(record, secret, "-o jsonl");
        }
        let out = run(&[REF, "R2", "-o", "csv"]);
        let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.iter().map(|r| r.len()).collect::<Vec<_>>(), [15, 15]);
        for cell in rows.iter().flatten() {
            assert!(!cell.contains(secret), "-o csv: {cell:?}");
        }
        assert!(
            rows[1][13].contains("declined for \"<redacted>\""),
            "{:?}",
            rows[1]
        );
        run(&[REF]);
        run(&[REF, "R2"]);
    }
}

#[test]
fn item_10_jsonl_with_an_echoed_numeric_secret_can_be_resumed() {
    let secret = ECHOED_SECRETS[0];
    let server = echoing_service(secret);
    let dir = TempDir::new("echo-resume");
    let first = dir.path().join("first.jsonl");
    let refs = [REF, "R3", "R4"];
    let out = payverify_at(&server.url)
        .env("PAYVERIFY_CLIENT_SECRET", secret)
        .args(["verify", "-o", "jsonl"])
        .args(refs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    std::fs::write(&first, &out.stdout).unwrap();
    let out2 = payverify_at(&server.url)
        .env("PAYVERIFY_CLIENT_SECRET", secret)
        .args(["verify", "-o", "jsonl", "--resume"])
        .arg(&first)
        .args(refs)
        .output()
        .unwrap();
    let stderr = stderr_of(&out2);
    assert_eq!(out2.status.code(), Some(0), "{stderr}");
    // Every record carried as it was: the resumed run asked the service nothing.
    assert_eq!(stdout_of(&out2), stdout_of(&out));
    assert!(stderr.contains("(3 carried over, 0 asked)"), "{stderr}");
}

/// Text a terminal acts on that JSON's own escaping leaves raw: a C1 CSI clearing the
/// screen, a C1 next-line, DEL, a bidi override, a zero-width space, the line separator.
const RAW_IN_JSON: &str = "ok\u{9b}2J\u{85}\u{7f}\u{202e}diap\u{200b}\u{2028}end";

#[test]
fn json_outputs_carry_terminal_controls_as_escapes_and_keep_the_values() {
    let server = RawServer::start(|mut stream| {
        let head = read_head(&mut stream);
        let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
        v["transactionRef"] = path.rsplit('/').next().unwrap_or("").into();
        v["description"] = RAW_IN_JSON.into();
        v[RAW_IN_JSON] = RAW_IN_JSON.into();
        respond(&mut stream, "200 OK", v.to_string().as_bytes());
    });
    for args in [
        vec![REF, "-o", "json"],
        vec![REF, "R2", "-o", "json"],
        vec![REF, "R2", "-o", "jsonl"],
    ] {
        let out = payverify_at(&server.url)
            .arg("verify")
            .args(&args)
            .output()
            .unwrap();
        let stdout = stdout_of(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        assert_inert(&stdout, &format!("{args:?}"));
        let values: Vec<Value> = match args[args.len() - 1] {
            "jsonl" => jsonl(&out.stdout),
            _ => vec![serde_json::from_str(&stdout).unwrap()],
        };
        let text = serde_json::to_string(&values).unwrap();
        // The exact values, escapes decoded: the description, the key and its value, in
        // each response.
        let responses = if args.len() == 3 { 1 } else { 2 };
        assert_eq!(
            text.matches(RAW_IN_JSON).count(),
            3 * responses,
            "{args:?}: {text}"
        );
        assert!(stdout.contains("ok\\u009b2J\\u0085\\u007f\\u202ediap\\u200b\\u2028end"));
    }
}

#[test]
fn reconcile_rows_are_redacted_and_escaped_as_values_in_every_format() {
    // The sandbox's secret typed into a customer's note, with quotes and terminal controls.
    let note = format!("paid by sandbox-secret \"{RAW_IN_JSON}\"\u{1b}]0;t\u{7}");
    let orders = format!(
        "Order,Reference,Note,Amount\n1,SANDBOX-OK-1,\"{}\",40000\n",
        note.replace('"', "\"\"")
    );
    let dir = TempDir::new("reconcile-raw");
    let file = dir.write("orders.csv", &orders);
    for format in ["json", "jsonl", "csv", "table"] {
        let out = payverify()
            .args(["reconcile", "--sandbox", "-o", format])
            .arg(&file)
            .output()
            .unwrap();
        let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        assert_inert(&stdout, format);
        assert_inert(&stderr, format);
        assert!(!stdout.contains("sandbox-secret"), "{format}: {stdout}");
        let want = format!("paid by <redacted> \"{RAW_IN_JSON}\"\u{1b}]0;t\u{7}");
        match format {
            "json" => {
                let rows: Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(rows[0]["row"]["Note"], want.as_str(), "{stdout}");
            }
            "jsonl" => assert_eq!(jsonl(&out.stdout)[0]["row"]["Note"], want.as_str()),
            "csv" => {
                let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
                let row = reader.records().next().unwrap().unwrap();
                assert_eq!(
                    &row[2],
                    "paid by <redacted> \"ok\\u{9b}2J\\u{85}\\u{7f}\\u{202e}diap\\u{200b}\\u{2028}end\"\
                     \\e]0;t\\u{7}"
                );
            }
            _ => {}
        }
    }
}

// ---- items 11 and 15: proxy credentials and proxies from the environment ----------------

/// A name that never resolves: a request that reaches it went through a proxy.
const GATEWAY: &str = "gw.payverify.test";

/// The proxy password the tests use, with characters a URL carries percent-encoded.
const PROXY_PASSWORD: &str = "Pr0xy/pa ss@word";
/// [`PROXY_PASSWORD`] as a proxy URL's userinfo writes it.
const PROXY_PASSWORD_IN_URL: &str = "Pr0xy%2Fpa%20ss%40word";

/// Every form of the proxy password that must never be printed.
fn proxy_password_forms() -> Vec<String> {
    use base64::Engine as _;
    vec![
        PROXY_PASSWORD.to_owned(),
        PROXY_PASSWORD_IN_URL.to_owned(),
        base64::engine::general_purpose::STANDARD.encode(format!("bob:{PROXY_PASSWORD}")),
    ]
}

/// Asserts that no form of the proxy password is in either output channel.
fn assert_no_proxy_password(out: &std::process::Output, what: &str) {
    let both = format!("{}\n{}", stdout_of(out), stderr_of(out));
    for form in proxy_password_forms() {
        assert!(!both.contains(&form), "{what}: {form} leaked:\n{both}");
    }
}

/// An HTTPS service for [`GATEWAY`] on loopback (with its CA file), answering the sample for
/// the reference asked; `echo` is put into each answer's `note` (a TLS-inspecting proxy, or a
/// service, that echoes what it should not).
fn gateway(echo: &'static str) -> (Server, TempDir, String) {
    let identity = Identity::generate(&[GATEWAY], Validity::Current).unwrap();
    let dir = TempDir::new("proxy-gateway");
    let ca = dir.write("ca.pem", &identity.ca_pem);
    let server = Server::start(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        Some(identity.config),
        move |request: &Request| {
            let mut v: Value = serde_json::from_str(&SAMPLE).unwrap();
            v["transactionRef"] = request.target.rsplit('/').next().unwrap_or("").into();
            v["note"] = format!("seen {echo}").into();
            Response {
                status: 200,
                headers: vec![],
                body: v.to_string().into_bytes(),
            }
        },
    )
    .unwrap();
    (server, dir, ca.to_str().unwrap().to_owned())
}

/// An HTTP CONNECT proxy on loopback that records each request head and tunnels every
/// CONNECT to `upstream`, whatever it names.
struct ConnectProxy {
    addr: SocketAddr,
    heads: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    fn start(upstream: SocketAddr) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = heads.clone();
        thread::spawn(move || {
            for mut client in listener.incoming().flatten() {
                let seen = seen.clone();
                thread::spawn(move || {
                    let head = read_head(&mut client);
                    seen.lock().unwrap().push(head);
                    let Ok(server) = TcpStream::connect(upstream) else {
                        return;
                    };
                    let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                    let (mut c2, mut s2) =
                        (client.try_clone().unwrap(), server.try_clone().unwrap());
                    thread::spawn(move || {
                        let _ = std::io::copy(&mut s2, &mut c2);
                    });
                    let (mut client, mut server) = (client, server);
                    let _ = std::io::copy(&mut client, &mut server);
                });
            }
        });
        ConnectProxy { addr, heads }
    }

    /// The proxy URL with user `bob` and [`PROXY_PASSWORD`].
    fn url(&self) -> String {
        format!("http://bob:{PROXY_PASSWORD_IN_URL}@{}", self.addr)
    }

    /// The CONNECT requests it has seen.
    fn connects(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

/// `payverify [-v] verify REF --ca-cert CA` for [`GATEWAY`] (one attempt), with no proxy
/// variable but those `env` sets.
fn verify_via(ca: &str, env: &[(&str, &str)], verbose: bool) -> assert_cmd::Command {
    let mut cmd = payverify_at(&format!("https://{GATEWAY}"));
    cmd.env_remove("REQUEST_METHOD");
    for (name, value) in env {
        cmd.env(name, value);
    }
    if verbose {
        cmd.arg("-v");
    }
    cmd.args([
        "verify",
        REF,
        "--ca-cert",
        ca,
        "--retries",
        "0",
        "--timeout",
        "10",
    ]);
    cmd
}

#[test]
fn item_15_a_proxy_from_the_environment_is_used_and_its_password_never_shown() {
    let (server, _dir, ca) = gateway(PROXY_PASSWORD);
    let proxy = ConnectProxy::start(server.addr());
    let url = proxy.url();
    for name in proxy_vars() {
        let before = proxy.connects().len();
        let out = verify_via(&ca, &[(name, &url)], true)
            .args(["-o", "json"])
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        let connects = proxy.connects();
        assert_eq!(connects.len(), before + 1, "{name}: {connects:?}");
        let head = &connects[before];
        assert!(
            head.starts_with(&format!("CONNECT {GATEWAY}:443 ")),
            "{head}"
        );
        assert!(head.contains("Proxy-Authorization: Basic "), "{head}");
        // The -v trace names the proxy and its source, never its userinfo; the echo of the
        // password in the answer is redacted like an echoed client secret.
        assert!(
            stderr.contains(&format!(
                "payverify: requests go through the proxy http://<redacted>@{} (from env {name})",
                proxy.addr
            )),
            "{stderr}"
        );
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(answer["note"], "seen <redacted>", "{name}");
        assert_no_proxy_password(&out, name);
    }
}

#[test]
fn item_15_an_unusable_proxy_from_the_environment_is_exit_6_as_the_flag_is() {
    let (server, _dir, ca) = gateway("-");
    let unusable = [
        format!("gopher://bob:{PROXY_PASSWORD_IN_URL}@127.0.0.1:70"),
        format!("http://bob:{PROXY_PASSWORD}@[::1"),
        "http://proxy.example:99999".to_owned(),
    ];
    for name in proxy_vars() {
        for value in &unusable {
            let out = verify_via(&ca, &[(name, value)], false).output().unwrap();
            let stderr = stderr_of(&out);
            assert_eq!(out.status.code(), Some(6), "{name}={value}: {stderr}");
            assert_eq!(stdout_of(&out), "");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.contains(&format!("from env {name} is not a usable proxy URL")),
                "{stderr}"
            );
            assert_no_proxy_password(&out, name);
            assert_inert(&stderr, name);
        }
    }
    // The flag, for comparison: the same message but for its source.
    let out = verify_via(&ca, &[], false)
        .args(["--proxy", &unusable[0]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(stderr_of(&out).contains(
        "proxy 'gopher://<redacted>@127.0.0.1:70' from flag --proxy is not a usable proxy URL"
    ));
    assert_no_proxy_password(&out, "--proxy");
    assert_eq!(server.counts().handshakes.load(Ordering::SeqCst), 0);
}

/// The environment variables that can name a proxy.
fn proxy_vars() -> [&'static str; 6] {
    [
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "http_proxy",
        "HTTP_PROXY",
    ]
}

#[test]
fn item_15_upper_case_http_proxy_is_ignored_under_cgi() {
    let (server, _dir, ca) = gateway("-");
    let proxy = ConnectProxy::start(server.addr());
    let url = proxy.url();
    let cgi = ("REQUEST_METHOD", "GET");
    // A CGI request's `Proxy:` header arrives as HTTP_PROXY: not followed, usable or not,
    // so the request goes direct (and the test's name resolves nowhere: exit 7).
    for value in [url.as_str(), "gopher://evil:70"] {
        let out = verify_via(&ca, &[("HTTP_PROXY", value), cgi], false)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{value}: {}", stderr_of(&out));
    }
    assert_eq!(proxy.connects(), [] as [String; 0]);
    // The lower-case name, which no request header can set, and HTTPS_PROXY still count.
    for name in ["http_proxy", "HTTPS_PROXY"] {
        let out = verify_via(&ca, &[(name, &url), cgi], false)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr_of(&out));
    }
    assert_eq!(proxy.connects().len(), 2);
    // Without REQUEST_METHOD, HTTP_PROXY is followed (the control).
    let out = verify_via(&ca, &[("HTTP_PROXY", &url)], false)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(proxy.connects().len(), 3);
}

#[test]
fn item_15_no_proxy_exempts_the_gateway_from_the_environments_proxy_only() {
    let (server, _dir, ca) = gateway("-");
    let proxy = ConnectProxy::start(server.addr());
    let url = proxy.url();
    // Listed: the request goes direct (exit 7: the name resolves nowhere), the proxy sees
    // nothing.
    for (name, list) in [
        ("NO_PROXY", GATEWAY),
        ("NO_PROXY", " other.example , .payverify.test"),
        ("no_proxy", "*.PAYVERIFY.test"),
        ("NO_PROXY", "payverify.test:443"),
        ("NO_PROXY", "*"),
    ] {
        let out = verify_via(&ca, &[("HTTPS_PROXY", &url), (name, list)], true)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(7), "{name}={list:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "requests go direct: the proxy from env HTTPS_PROXY is not used for {GATEWAY}"
            )),
            "{stderr}"
        );
    }
    assert_eq!(proxy.connects(), [] as [String; 0]);
    // Not listed: through the proxy.
    for list in ["payverify.test.evil", "w.payverify.test", "other.example"] {
        let out = verify_via(&ca, &[("HTTPS_PROXY", &url), ("NO_PROXY", list)], false)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{list}: {}", stderr_of(&out));
    }
    assert_eq!(proxy.connects().len(), 3);
    // An explicit --proxy is not the environment's: NO_PROXY does not exempt from it.
    let out = verify_via(&ca, &[("NO_PROXY", "*")], false)
        .args(["--proxy", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(proxy.connects().len(), 4);
}

#[test]
fn item_15_the_flag_then_the_profile_then_the_environment_https_first() {
    let (server, dir, ca) = gateway("-");
    let (a, b) = (
        ConnectProxy::start(server.addr()),
        ConnectProxy::start(server.addr()),
    );
    let config = dir.write(
        "config.toml",
        format!("[profiles.p]\nproxy = \"{}\"\n", b.url()),
    );
    // HTTPS_PROXY before ALL_PROXY and HTTP_PROXY.
    let out = verify_via(
        &ca,
        &[
            ("ALL_PROXY", &b.url()),
            ("HTTP_PROXY", &b.url()),
            ("HTTPS_PROXY", &a.url()),
        ],
        false,
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!((a.connects().len(), b.connects().len()), (1, 0));
    // The profile's key before the environment, even an unusable environment value.
    let out = verify_via(&ca, &[("HTTPS_PROXY", "gopher://x:1")], false)
        .args(["--profile", "p", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!((a.connects().len(), b.connects().len()), (1, 1));
    // The flag before both.
    let out = verify_via(&ca, &[("HTTPS_PROXY", &b.url())], false)
        .args(["--profile", "p", "--config"])
        .arg(&config)
        .args(["--proxy", &a.url()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!((a.connects().len(), b.connects().len()), (2, 1));
}

#[test]
fn item_11_proxy_credentials_are_redacted_in_errors_doctor_and_config_show() {
    let (server, dir, ca) = gateway(PROXY_PASSWORD);
    let proxy = ConnectProxy::start(server.addr());
    let url = proxy.url();
    let shown = format!("http://<redacted>@{}", proxy.addr);
    // An unusable proxy from the config file: the error names the key, not the password.
    let bad = format!("ftp://bob:{PROXY_PASSWORD_IN_URL}@proxy.example:21");
    let config = dir.write("bad.toml", format!("[profiles.p]\nproxy = \"{bad}\"\n"));
    let out = verify_via(&ca, &[], false)
        .args(["--profile", "p", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("proxy 'ftp://<redacted>@proxy.example:21' from "),
        "{}",
        stderr_of(&out)
    );
    assert_no_proxy_password(&out, "config error");
    // doctor, text and JSON, with the proxy from the environment: it goes through it (the
    // gateway echoes the password) and shows where the proxy came from.
    for format in ["text", "json"] {
        let out = payverify_at(&format!("https://{GATEWAY}"))
            .env("HTTPS_PROXY", &url)
            .args(["doctor", REF, "--ca-cert", &ca, "-o", format])
            .output()
            .unwrap();
        assert_no_proxy_password(&out, &format!("doctor -o {format}"));
        let stdout = stdout_of(&out);
        assert_inert(&stdout, format);
        if format == "json" {
            let report: Value = serde_json::from_str(&stdout).unwrap();
            let settings = &report["checks"][1];
            assert_eq!(settings["check"], "settings");
            assert_eq!(
                settings["details"]["proxy"],
                serde_json::json!({ "value": shown, "source": "env HTTPS_PROXY" })
            );
        }
        assert!(stdout.contains(&format!("{}", proxy.addr)), "{stdout}");
    }
    assert!(
        !proxy.connects().is_empty(),
        "doctor went through the proxy"
    );
    // config show, from the environment and from the profile.
    let good = dir.write("good.toml", format!("[profiles.p]\nproxy = \"{url}\"\n"));
    for (env, args) in [
        (vec![("HTTPS_PROXY", url.as_str())], vec![]),
        (
            vec![],
            vec!["--profile", "p", "--config", good.to_str().unwrap()],
        ),
    ] {
        let mut cmd = payverify();
        for (name, value) in env {
            cmd.env(name, value);
        }
        let out = cmd.args(&args).args(["config", "show"]).output().unwrap();
        assert_no_proxy_password(&out, "config show");
        let line = stdout_of(&out)
            .lines()
            .find(|l| l.starts_with("proxy "))
            .map(str::to_owned)
            .unwrap_or_default();
        assert!(line.contains(&shown), "{line}");
    }
}

// ---- item 5: a second signal, or one while output is stuck, still closes and cleans up ----

/// Waits up to `limit` for `child` to exit; its exit code (`None`: killed by a signal, or
/// still running at the limit, when it is killed) and how long that took.
fn exit_within(child: &mut std::process::Child, limit: Duration) -> (Option<i32>, Duration) {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), started.elapsed());
        }
        thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    (None, started.elapsed())
}

/// Reads all of a child's pipe on a thread, so it never fills.
fn drain(pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut pipe = pipe;
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Files whose name says they are payverify's temporary files, in `dir`.
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".payverify-") && name.ends_with(".tmp"))
        .collect()
}

/// Runs `args`, sends SIGINT once two answers are out (their references are on stdout) and
/// the rest are slow, then SIGINT again as soon as the first one's notice is on stderr,
/// well inside the 300 ms the first gives what is in flight: stdout, the exit code, stderr,
/// and how long the second signal took to end it.
fn interrupted_twice(
    args: &[&str],
    dir: &std::path::Path,
) -> (String, Option<i32>, String, Duration) {
    let mut child = spawnable()
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = Captured::start(child.stdout.take().unwrap());
    let stderr = Captured::start(child.stderr.take().unwrap());
    stdout.wait_for(&["SANDBOX-OK-1", "SANDBOX-OK-2"]);
    send_signal(&child, "-INT");
    stderr.wait_for(&["Ctrl-C again to quit now"]);
    send_signal(&child, "-INT");
    let (code, took) = exit_within(&mut child, Duration::from_secs(20));
    let stdout = String::from_utf8(stdout.finish()).unwrap();
    let stderr = String::from_utf8(stderr.finish()).unwrap();
    (stdout, code, stderr, took)
}

#[test]
fn item_05_a_second_signal_still_closes_the_json_array() {
    let dir = TempDir::new("second-signal");
    let mut args = vec!["verify", "--sandbox", "-j", "2", "-o", "json"];
    args.extend(["SANDBOX-OK-1", "SANDBOX-OK-2"]);
    let slow: Vec<String> = (3..12).map(|i| format!("SANDBOX-SLOW-15000-{i}")).collect();
    args.extend(slow.iter().map(String::as_str));
    let (stdout, code, stderr, took) = interrupted_twice(&args, dir.path());
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        took < Duration::from_secs(1),
        "took {took:?} after the second signal"
    );
    let records: Value = serde_json::from_str(&stdout).expect("a closed JSON array");
    let references: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    assert_eq!(references, ["SANDBOX-OK-1", "SANDBOX-OK-2"], "{stdout}");
    assert!(
        stderr.contains("Ctrl-C again to quit now")
            && stderr.ends_with("payverify: interrupted again: stopped at once\n"),
        "{stderr}"
    );
}

#[test]
fn item_05_a_second_signal_leaves_no_temporary_file_and_a_closed_array() {
    let dir = TempDir::new("second-signal-reconcile");
    let mut orders = String::from("reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-OK-2,40000\n");
    for i in 3..12 {
        orders.push_str(&format!("SANDBOX-SLOW-15000-{i},40000\n"));
    }
    dir.write("orders.csv", &orders);
    let args = [
        "reconcile",
        "--sandbox",
        "-j",
        "2",
        "-o",
        "json",
        "--summary-json",
        "summary.json",
        "orders.csv",
    ];
    let (stdout, code, stderr, took) = interrupted_twice(&args, dir.path());
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        took < Duration::from_secs(1),
        "took {took:?} after the second signal"
    );
    let rows: Value = serde_json::from_str(&stdout).expect("a closed JSON array");
    assert_eq!(rows.as_array().unwrap().len(), 2, "{stdout}");
    assert_eq!(temporaries(dir.path()), [] as [String; 0]);
    assert!(!dir.path().join("summary.json").exists());
}

/// Starts `args` with stdout piped and never read, waits until its output has filled the
/// pipe and blocked it, sends one SIGTERM: the exit code, how long it took, stdout and stderr.
fn sigterm_while_stdout_is_stuck(
    args: &[&str],
    dir: &std::path::Path,
) -> (Option<i32>, Duration, Vec<u8>, String) {
    let mut child = spawnable()
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stderr = drain(child.stderr.take().unwrap());
    // 3,000 answers make about 2 MB of output: far more than a pipe holds. Signalled once the
    // writer is blocked on it.
    wait_until_blocked_on_a_pipe(&child);
    send_signal(&child, "-TERM");
    let (code, took) = exit_within(&mut child, Duration::from_secs(20));
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    let stderr = String::from_utf8(stderr.join().unwrap()).unwrap();
    (code, took, stdout, stderr)
}

#[test]
fn item_05_one_sigterm_while_the_output_is_not_read_ends_within_a_second() {
    let dir = TempDir::new("stuck-output");
    let refs: String = (0..3000).map(|i| format!("SANDBOX-OK-{i}\n")).collect();
    dir.write("refs.txt", &refs);
    // The formats at once: each run waits a while before its signal.
    let runs: Vec<_> = ["jsonl", "json", "csv"]
        .into_iter()
        .map(|format| {
            let dir = dir.path().to_path_buf();
            thread::spawn(move || {
                let args = [
                    "verify",
                    "--sandbox",
                    "-j",
                    "4",
                    "-o",
                    format,
                    "--from",
                    "refs.txt",
                ];
                (format, sigterm_while_stdout_is_stuck(&args, &dir))
            })
        })
        .collect();
    for run in runs {
        let (format, (code, took, stdout, stderr)) = run.join().unwrap();
        assert_eq!(code, Some(130), "{format}: {stderr}");
        assert!(took < Duration::from_secs(1), "{format}: took {took:?}");
        assert!(stdout.len() >= 16 * 1024, "{format}: the pipe never filled");
        assert_eq!(
            stderr,
            "payverify: interrupted while the output was not being read: stopped at once\n"
        );
        // Whole lines only: every line a reader got is a record.
        let text = String::from_utf8(stdout).unwrap();
        assert!(
            text.ends_with('\n') || format == "json",
            "{format}: a cut line"
        );
        if format == "jsonl" {
            assert!(jsonl(text.as_bytes()).len() > 10);
        }
    }
}

#[test]
fn item_05_one_sigterm_while_the_output_is_not_read_removes_the_summary_temporary() {
    let dir = TempDir::new("stuck-reconcile");
    let mut orders = String::from("reference,amount\n");
    for i in 0..3000 {
        orders.push_str(&format!("SANDBOX-OK-{i},40000\n"));
    }
    dir.write("orders.csv", &orders);
    let args = [
        "reconcile",
        "--sandbox",
        "-j",
        "4",
        "-o",
        "csv",
        "--summary-json",
        "summary.json",
        "orders.csv",
    ];
    let (code, took, stdout, stderr) = sigterm_while_stdout_is_stuck(&args, dir.path());
    assert_eq!(code, Some(130), "{stderr}");
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert!(stdout.len() >= 16 * 1024, "the pipe never filled");
    assert_eq!(temporaries(dir.path()), [] as [String; 0]);
    assert!(!dir.path().join("summary.json").exists());
}

#[test]
fn usage_errors_quote_arguments_through_the_sanitiser() {
    // A value that reaches clap's own message: a carriage return and a forged line, a bidi
    // override, a C1 CSI, a BEL.
    let hostile = "x\rverdict ok\u{202e}\u{9b}2J\u{7}";
    for args in [
        vec!["verify", "--hmac", hostile, "R"],
        vec!["verify", "R", "--jobs", hostile],
        vec!["reconcile", "orders.csv", "--amount-unit", hostile],
    ] {
        let out = payverify().args(&args).output().unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout_of(&out), "");
        assert_inert(&stderr, &format!("{args:?}"));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        // (clap itself drops the BEL.)
        assert!(
            stderr.contains("x\\rverdict ok\\u{202e}\\u{9b}2J"),
            "{stderr}"
        );
    }
}
