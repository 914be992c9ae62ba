//! A hostile service hides the secret or text from the eye (found by an attack on the
//! release binary): the secret echoed with a character a reader does not see inside it (a
//! zero-width space, a soft hyphen, a tag character, a terminal escape sequence) or in
//! another mix of case is still the secret, and is <redacted>; every format character and
//! blank filler (the tag block of "ASCII smuggling" included) reaches no output raw.

use std::io::Write;

use crate::common::*;

/// A service whose answer to `R-<n>` is the documented sample for that reference with
/// `hide(n)` in its description, its option and, for R-404-..., a 404 message.
fn serve(hide: fn(&str) -> String) -> RawServer {
    RawServer::start(move |mut stream| {
        let head = read_head(&mut stream);
        let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        let which = reference.rsplit('-').next().unwrap_or("").to_owned();
        let text = hide(&which);
        let (status, body) = match reference.starts_with("R-404-") {
            true => (
                "404 Not Found",
                serde_json::json!({ "message": format!("no such payment; key {text}") })
                    .to_string(),
            ),
            false => {
                let mut v: serde_json::Value = serde_json::from_str(&SAMPLE).unwrap();
                v["transactionRef"] = reference.clone().into();
                v["merchantRef"] = serde_json::Value::Null;
                v["paymentRef"] = serde_json::Value::Null;
                v["description"] = format!("key was {text}").into();
                v["option"] = text.into();
                ("200 OK", v.to_string())
            }
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes());
    })
}

/// The test secret with something hidden in it, picked by `which`.
fn hidden_secret(which: &str) -> String {
    let (head, tail) = SECRET.split_at(5);
    match which {
        "zwsp" => format!("{head}\u{200b}{tail}"),
        "shy" => format!("{head}\u{ad}{tail}"),
        "tag" => format!("{head}\u{e0041}{tail}"),
        "ansi" => format!("{head}\u{1b}[0m{tail}"),
        "osc" => format!("{head}\u{1b}]0;t\u{7}{tail}"),
        "case" => {
            let mut flipped: String = SECRET
                .chars()
                .map(|c| match c.is_ascii_lowercase() {
                    true => c.to_ascii_uppercase(),
                    false => c.to_ascii_lowercase(),
                })
                .collect();
            flipped.replace_range(0..1, &SECRET[0..1]);
            flipped
        }
        _ => SECRET.to_owned(),
    }
}

/// Whether `text` shows the secret to a reader: with every escape marker payverify writes
/// taken out, and in any case.
fn shows_secret(text: &str) -> bool {
    let mut plain = text.to_owned();
    for marker in [
        "\\u{200b}",
        "\\u{ad}",
        "\\u{e0041}",
        "\\u200b",
        "\\u00ad",
        "\\udb40\\udc41",
        "\\e[0m",
        "\\u001b[0m",
        "\\e]0;t\\u{7}",
        "\\u001b]0;t\\u0007",
    ] {
        plain = plain.replace(marker, "");
    }
    plain
        .to_ascii_lowercase()
        .contains(&SECRET.to_ascii_lowercase())
}

#[test]
fn a_secret_hidden_by_unseen_characters_or_case_is_redacted_in_every_output() {
    let server = serve(hidden_secret);
    for which in ["zwsp", "shy", "tag", "ansi", "osc", "case"] {
        let reference = format!("R-{which}");
        let not_found = format!("R-404-{which}");
        for args in [
            vec!["verify", reference.as_str()],
            vec!["verify", "-o", "jsonl", reference.as_str()],
            vec!["verify", "-o", "csv", reference.as_str()],
            vec!["verify", "-o", "json", reference.as_str()],
            vec!["verify", "--retries", "0", not_found.as_str()],
        ] {
            let out = payverify_at(&server.url).args(&args).output().unwrap();
            let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
            assert!(!shows_secret(&stdout), "{which} {args:?}: {stdout}");
            assert!(!shows_secret(&stderr), "{which} {args:?}: {stderr}");
            // CSV has no column for the echoing fields.
            assert!(
                args.contains(&"csv")
                    || stdout.contains("<redacted>")
                    || stderr.contains("<redacted>"),
                "{which} {args:?}: {stdout}{stderr}"
            );
            let expected = match args.contains(&not_found.as_str()) {
                true => 3,
                false => 0,
            };
            assert_eq!(
                out.status.code(),
                Some(expected),
                "{which} {args:?}: {stderr}"
            );
            if args.contains(&"jsonl") || args.contains(&"json") {
                let _: serde_json::Value = serde_json::from_str(stdout.trim())
                    .unwrap_or_else(|e| panic!("{which} {args:?}: not JSON ({e}): {stdout}"));
            }
        }
    }
}

#[test]
fn format_characters_and_blank_fillers_reach_no_output_raw() {
    fn smuggled(_: &str) -> String {
        // ABC followed by the tag characters for "PAID", then other Cf and fillers.
        "ABC\u{e0050}\u{e0041}\u{e0049}\u{e0044} x\u{180e}y\u{206a}z\u{fff9}w\u{1d173}v\u{3164}u\u{2800}t"
            .to_owned()
    }
    let server = serve(smuggled);
    let hidden = |c: char| {
        matches!(
            c,
            '\u{e0000}'
                ..='\u{e007f}'
                    | '\u{180e}'
                    | '\u{206a}'
                    | '\u{fff9}'
                    | '\u{1d173}'
                    | '\u{3164}'
                    | '\u{2800}'
        )
    };
    for args in [
        vec!["verify", "R-1"],
        vec!["verify", "-o", "jsonl", "R-1"],
        vec!["verify", "--retries", "0", "R-404-1"],
    ] {
        let out = payverify_at(&server.url).args(&args).output().unwrap();
        let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
        assert!(!stdout.chars().any(hidden), "{args:?}: {stdout:?}");
        assert!(!stderr.chars().any(hidden), "{args:?}: {stderr:?}");
        let all = format!("{stdout}{stderr}");
        assert!(
            all.contains("ABC\\u{e0050}") || all.contains("ABC\\udb40\\udc50"),
            "{args:?}: {all}"
        );
        if args.contains(&"jsonl") {
            let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
            assert_eq!(
                v["response"]["option"],
                smuggled(""),
                "the value is kept exact"
            );
        }
    }
}

#[test]
fn doctor_quotes_the_mode_it_suggests_for_a_shell() {
    // A hostile service's mode must not become a command for the operator to paste.
    let server = RawServer::start(|mut stream| {
        let _ = read_head(&mut stream);
        let mut v: serde_json::Value = serde_json::from_str(&SAMPLE).unwrap();
        v["mode"] = "live$(touch pwned)".into();
        v["transactionRef"] = "R-1".into();
        let body = v.to_string();
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes());
    });
    let out = payverify_at(&server.url)
        .args(["doctor", "--", "R-1"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("--expect-mode 'live$(touch pwned)'"),
        "{stdout}"
    );
    assert!(!stdout.contains("--expect-mode live$"), "{stdout}");
}
