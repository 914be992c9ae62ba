//! An object where a number (or any value) belongs is never read as that value:
//! `{"$serde_json::private::Number": "4000000"}` as the amount is a bad response (exit 8),
//! not ₦40,000.00. serde_json's `Value` would read it as the number (payverify's serde_json
//! has `arbitrary_precision` and `raw_value`); payverify builds every object itself and hands
//! serde_json only scalars (issue 24, item 6), so such an object is an object wherever it
//! is: the service's answer, a webhook payload, a `--resume` record.

use crate::common::{
    RawServer, SAMPLE, SECRET, TempDir, payverify, payverify_at, read_head, respond, stderr_of,
    stdout_of,
};

/// The documented sample (signed for 4000000 kobo with the tests' secret) with `field`'s
/// value replaced by `value`.
fn sample_with(field: &str, value: &str) -> String {
    let (old, new) = match field {
        "amount" => ("\"amount\": 4000000", format!("\"amount\": {value}")),
        "status" => ("\"status\": \"SUCCESSFUL\"", format!("\"status\": {value}")),
        "code" => ("\"code\": \"00\"", format!("\"code\": {value}")),
        _ => unreachable!(),
    };
    assert!(SAMPLE.contains(old));
    SAMPLE.replace(old, &new)
}

/// Bodies that put a serde_json marker where a value belongs (read by serde_json's `Value`
/// as the value in its string: a paid ₦40,000.00, SUCCESSFUL, code 00), and what payverify
/// says of the field.
fn disguised() -> Vec<(String, &'static str)> {
    vec![
        (
            sample_with("amount", r#"{"$serde_json::private::Number": "4000000"}"#),
            "\"amount\" is an object, not a number",
        ),
        (
            sample_with("amount", r#"{"$serde_json::private::RawValue": "4000000"}"#),
            "\"amount\" is an object, not a number",
        ),
        (
            sample_with(
                "status",
                r#"{"$serde_json::private::RawValue": "\"SUCCESSFUL\""}"#,
            ),
            "\"status\" is an object, not a string",
        ),
        (
            sample_with("code", r#"{"$serde_json::private::RawValue": "\"00\""}"#),
            "\"code\" is an object, not a string",
        ),
        (
            sample_with(
                "amount",
                r#"{"\u0024serde_json::private::Number": "4000000"}"#,
            ),
            "\"amount\" is an object, not a number",
        ),
    ]
}

/// A service answering every request with `body`.
fn serving(body: &str) -> RawServer {
    let served = body.to_owned();
    RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "200 OK", served.as_bytes());
    })
}

#[test]
fn a_serde_json_marker_in_a_response_is_a_bad_response_never_a_value() {
    for (body, said) in disguised() {
        let service = serving(&body);
        // The gate, every check asked for: before, exit 0.
        let out = payverify_at(&service.url)
            .args(["verify", "--hmac", "require", "--expect-amount", "40000"])
            .args(["--expect-currency", "NGN", "--", "0000000000000044177"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(8), "{body}\n{}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{body}");
        assert_eq!(
            stderr_of(&out),
            format!("payverify: bad response from the service: {said}\n"),
        );
        // In a batch: a BAD_RESPONSE record, exit 8.
        let out = payverify_at(&service.url)
            .args([
                "verify",
                "-o",
                "jsonl",
                "0000000000000044177",
                "330137174040",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(8), "{body}");
        for record in crate::common::jsonl(&out.stdout) {
            assert_eq!(record["outcome"], "BAD_RESPONSE", "{record}");
        }
    }
}

#[test]
fn a_serde_json_marker_in_a_webhook_payload_is_malformed() {
    for (body, said) in disguised() {
        let out = payverify()
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .args(["webhook", "check", "-"])
            .write_stdin(body.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(8), "{body}\n{}", stderr_of(&out));
        let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
        assert!(!all.contains("genuine, paid"), "{all}");
        assert_eq!(
            stderr_of(&out),
            format!("payverify: stdin: {said}\n"),
            "{all}"
        );
    }
}

#[test]
fn a_serde_json_marker_in_a_resume_record_is_refused() {
    // A FAILED record whose exit_code is a number in disguise: serde_json's `Value` reads it
    // as 1; the file is not payverify's output (exit 2, before any request).
    let dir = TempDir::new("json-markers-resume");
    let record = r#"{"reference":"R-1","outcome":"FAILED","exit_code":{"$serde_json::private::Number":"1"},"http_status":200,"error":null,"checks":null,"response":{"status":"FAILED"}}"#;
    dir.write("run1.jsonl", format!("{record}\n"));
    let out = payverify_at("http://127.0.0.1:9")
        .current_dir(dir.path())
        .args([
            "verify",
            "-o",
            "jsonl",
            "--resume",
            "run1.jsonl",
            "R-1",
            "R-2",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "payverify: --resume run1.jsonl: line 1 has a \"exit_code\" payverify does not write \
         (an object); this is not an output of payverify verify (resume from the earlier \
         run's stdout, with the same -o)\n"
    );
    assert_eq!(stdout_of(&out), "");
}

#[test]
fn a_serde_json_marker_in_a_field_no_decision_reads_is_echoed_as_the_object_it_is() {
    // Before, any key with serde_json's private prefix made the answer a bad response (exit
    // 8); now an object is an object: the verdict stands on the decision fields, and `-o json`
    // echoes the object, never the number serde_json's `Value` would make of it.
    let body = SAMPLE.replacen(
        "\"amount\": 4000000",
        "\"extra\": {\"$serde_json::private::Number\": \"1\"}, \"amount\": 4000000",
        1,
    );
    assert_ne!(body, *SAMPLE);
    let service = serving(&body);
    let out = payverify_at(&service.url)
        .args(["verify", "--hmac", "require", "--expect-amount", "40000"])
        .args(["-o", "json", "--", "0000000000000044177"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("\"extra\": {\n    \"$serde_json::private::Number\": \"1\"\n  }"),
        "{stdout}"
    );
}
