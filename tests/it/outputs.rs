//! Nothing raw, nothing leaked, nothing left open: every output through the one sanitiser and
//! the one redaction (`webhook check` included), redaction on values so machine-read output
//! stays valid, proxy credentials kept out like the client secret, proxies from the
//! environment held to the flag's rules, and a second signal that still closes `-o json`
//! and removes temporary files.

use crate::common::*;
use payverify::Secret;
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
