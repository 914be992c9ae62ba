//! What a carried record puts on stdout (issue 23, the review of `--resume`): anyone who can
//! write the file can write any bytes into it, so a carried record is read back into its
//! values and written as a fresh one is (redaction and the sanitiser by value, this run's
//! seal), never copied; a key given twice makes the file foreign (exit 2), as it makes a
//! response body bad.

use payverify::is_unsafe;

use crate::common::{
    RawServer, SAMPLE, SECRET, TempDir, payverify_at, read_head, respond, sandbox_in,
    sandbox_requests as requests, sealed, stderr_of, stdout_of,
};

/// The reference of the signed sample response.
const REF: &str = "0000000000000044177";

/// The sample answered as FAILED.
fn failed_body() -> String {
    SAMPLE
        .replace("\"SUCCESSFUL\"", "\"FAILED\"")
        .replace("\"00\"", "\"51\"")
}

fn serve_failed() -> RawServer {
    let body = failed_body();
    RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "200 OK", body.as_bytes());
    })
}

/// Every character of `text` as a JSON `\u00XX` escape: the same string to a JSON reader,
/// and none of its bytes.
pub fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect()
}

/// The FAILED jsonl (or csv) output of a run on REF against a service that says FAILED.
fn failed_output(dir: &TempDir, format: &str) -> String {
    let failed = serve_failed();
    dir.write("refs.txt", format!("{REF}\n"));
    let out = payverify_at(&failed.url)
        .current_dir(dir.path())
        .args(["verify", "--from", "refs.txt", "-o", format])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    stdout_of(&out)
}

/// Resumes REF from `file` against a service that says FAILED: the output and how many
/// requests it made.
fn resume(dir: &TempDir, file: &str, format: &str) -> (std::process::Output, usize) {
    let failed = serve_failed();
    let out = payverify_at(&failed.url)
        .current_dir(dir.path())
        .args([
            "verify", "--from", "refs.txt", "-o", format, "--resume", file,
        ])
        .output()
        .unwrap();
    let requests = failed.connections.load(std::sync::atomic::Ordering::SeqCst);
    (out, requests)
}

/// Every string in a JSON value, keys included.
pub fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// Asserts that no line of a jsonl stdout holds the secret, in its bytes or in any value a
/// JSON reader gets back, and that nothing unsafe reaches a terminal.
fn assert_clean_jsonl(stdout: &str, what: &str) {
    assert!(!stdout.contains(SECRET), "{what}: {stdout}");
    for line in stdout.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut texts = Vec::new();
        strings(&value, &mut texts);
        assert!(
            texts.iter().all(|t| !t.contains(SECRET)),
            "{what}: the secret is in a value: {line}"
        );
    }
    assert_terminal_safe(stdout, what);
}

pub fn assert_terminal_safe(stdout: &str, what: &str) {
    let raw: Vec<char> = stdout
        .chars()
        .filter(|&c| c != '\n' && is_unsafe(c))
        .collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in {stdout:?}");
}

#[test]
fn a_carried_record_with_the_secret_in_json_escapes_never_prints_it() {
    let dir = TempDir::new("resume-escaped-secret");
    let genuine = failed_output(&dir, "jsonl");
    let description = "Approved by Financial Institution";
    assert!(genuine.contains(description), "{genuine}");
    // The secret in the service's description and in the error, each character a \u00XX
    // escape; and once with only its dashes escaped.
    let partly = SECRET.replace('-', "\\u002d");
    let edited = genuine.replacen(description, &escaped(SECRET), 2).replacen(
        "\"mode\":\"dev\"",
        &format!("\"mode\":\"dev\",\"note\":\"{partly}\""),
        1,
    );
    assert_ne!(edited, genuine);
    for (what, file) in [
        ("resealed under this run's secret", sealed(&edited, SECRET)),
        ("edited, its seal broken", edited.clone()),
    ] {
        dir.write("run1.jsonl", &file);
        let (out, requests) = resume(&dir, "run1.jsonl", "jsonl");
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr_of(&out));
        let stdout = stdout_of(&out);
        assert_eq!(stdout.lines().count(), 1, "{what}: {stdout}");
        assert_clean_jsonl(&stdout, what);
        assert!(!stderr_of(&out).contains(SECRET), "{what}");
        if what.starts_with("resealed") {
            // Carried (nothing asked), and shown redacted by value.
            assert_eq!(requests, 0, "{what}: {}", stderr_of(&out));
            assert!(stdout.contains("<redacted>"), "{what}: {stdout}");
        }
    }
}

#[test]
fn a_carried_record_shows_no_raw_control_or_bidi_character() {
    let dir = TempDir::new("resume-raw-controls");
    let genuine = failed_output(&dir, "jsonl");
    let description = "Approved by Financial Institution";
    // U+202E raw, a C1 control (U+0085) raw, ESC escaped: each the same string to JSON.
    let edited = genuine.replacen(
        description,
        "paid\u{202e}diap \u{85}\\u001b[2J\\u009b31m",
        2,
    );
    dir.write("run1.jsonl", sealed(&edited, SECRET));
    let (out, requests) = resume(&dir, "run1.jsonl", "jsonl");
    assert_eq!(
        (out.status.code(), requests),
        (Some(1), 0),
        "{}",
        stderr_of(&out)
    );
    let stdout = stdout_of(&out);
    assert_terminal_safe(&stdout, "jsonl");
    // The values are kept, escaped: a JSON reader gets them back.
    let value: serde_json::Value = serde_json::from_str(stdout.trim_end()).unwrap();
    assert_eq!(
        value["response"]["description"],
        "paid\u{202e}diap \u{85}\u{1b}[2J\u{9b}31m"
    );
}

#[test]
fn a_resume_line_with_a_key_given_twice_is_refused() {
    let dir = TempDir::new("resume-duplicate-keys");
    let genuine = failed_output(&dir, "jsonl");
    let cases = [
        (
            "outcome",
            genuine.replacen(
                "\"outcome\":\"FAILED\"",
                "\"outcome\":\"SUCCESSFUL\",\"outcome\":\"FAILED\"",
                1,
            ),
        ),
        (
            "outcome",
            genuine.replacen(
                "\"outcome\":\"FAILED\"",
                "\"outcome\":\"FAILED\",\"outcome\":\"SUCCESSFUL\"",
                1,
            ),
        ),
        (
            "code",
            genuine.replacen("\"code\":\"51\"", "\"code\":\"00\",\"code\":\"51\"", 1),
        ),
        (
            "passed",
            genuine.replacen("\"passed\":", "\"passed\":true,\"passed\":", 1),
        ),
    ];
    for (key, line) in cases {
        assert_ne!(line, genuine, "{key}");
        for file in [sealed(&line, SECRET), line.clone()] {
            dir.write("run1.jsonl", &file);
            let (out, requests) = resume(&dir, "run1.jsonl", "jsonl");
            assert_eq!(
                (out.status.code(), requests, stdout_of(&out)),
                (Some(2), 0, String::new()),
                "{key}: {}",
                stderr_of(&out)
            );
            assert_eq!(
                stderr_of(&out),
                format!(
                    "payverify: --resume run1.jsonl: line 1 has the key \"{key}\" twice; this \
                     is not an output of payverify verify (resume from the earlier run's \
                     stdout, with the same -o)\n"
                ),
                "{line}"
            );
        }
    }
}

#[test]
fn a_second_line_for_a_reference_is_refused_whatever_its_outcome() {
    let dir = TempDir::new("resume-two-lines");
    let genuine = failed_output(&dir, "jsonl");
    let relabelled = sealed(
        &genuine
            .replacen("\"outcome\":\"FAILED\"", "\"outcome\":\"NOT_FOUND\"", 1)
            .replacen("\"exit_code\":1", "\"exit_code\":3", 1),
        SECRET,
    );
    dir.write("run1.jsonl", format!("{genuine}{relabelled}"));
    let (out, requests) = resume(&dir, "run1.jsonl", "jsonl");
    assert_eq!(
        (out.status.code(), requests, stdout_of(&out)),
        (Some(2), 0, String::new())
    );
    assert_eq!(
        stderr_of(&out),
        format!(
            "payverify: --resume run1.jsonl: line 2 is a second record for reference \
             \"{REF}\" (the first is on line 1); this is not an output of payverify verify \
             (resume from the earlier run's stdout, with the same -o)\n"
        )
    );
}

/// `verify --sandbox -v --from refs.txt -o jsonl ARGS` in `dir`.
fn sandbox(dir: &TempDir, args: &[&str]) -> std::process::Output {
    sandbox_in(dir, &["verify", "--from", "refs.txt", "-o", "jsonl"], args)
}

#[test]
fn a_record_is_carried_only_under_the_checks_that_judged_it() {
    let dir = TempDir::new("resume-rejudged");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    // Passed without an expectation; this run's amount is another: asked again, not exit 0.
    let first = sandbox(&dir, &[]);
    assert_eq!(first.status.code(), Some(0));
    dir.write("run1.jsonl", &first.stdout);
    let again = sandbox(&dir, &["--expect-amount", "999", "--resume", "run1.jsonl"]);
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(4), 1),
        "{}",
        stderr_of(&again)
    );
    assert!(stdout_of(&again).contains("\"outcome\":\"CHECK_FAILED\""));
    // Failed the earlier run's amount; this run's expectation is met: asked again (its
    // CHECK_FAILED was another run's judgement), exit 0 as a fresh run.
    let first = sandbox(&dir, &["--expect-amount", "999"]);
    assert_eq!(first.status.code(), Some(4));
    dir.write("run1.jsonl", &first.stdout);
    let fresh = sandbox(&dir, &["--expect-amount", "40000"]);
    let again = sandbox(
        &dir,
        &["--expect-amount", "40000", "--resume", "run1.jsonl"],
    );
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(0), 1),
        "{}",
        stderr_of(&again)
    );
    assert_eq!(stdout_of(&again), stdout_of(&fresh));
    // The same checks as the run that decided it: carried as it was, nothing asked, the
    // output a fresh run's.
    let again = sandbox(&dir, &["--expect-amount", "999", "--resume", "run1.jsonl"]);
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(4), 0),
        "{}",
        stderr_of(&again)
    );
    assert_eq!(again.stdout, first.stdout);
    // An answer without an hmac never passes --hmac require from the file: the run's
    // verdict is the fresh one's (CHECK_FAILED).
    dir.write("refs.txt", "SANDBOX-NOHMAC-1\n");
    let first = sandbox(&dir, &["--hmac", "off"]);
    assert_eq!(first.status.code(), Some(0));
    dir.write("run1.jsonl", &first.stdout);
    let fresh = sandbox(&dir, &["--hmac", "require"]);
    let again = sandbox(&dir, &["--hmac", "require", "--resume", "run1.jsonl"]);
    assert_eq!(fresh.status.code(), Some(4));
    assert_eq!(again.status.code(), Some(4), "{}", stderr_of(&again));
    assert_eq!(stdout_of(&again), stdout_of(&fresh));
}
