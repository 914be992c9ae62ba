//! The findings of the attack reviews of issues 22 and 23, each through the real binary with
//! the attack's own reproduction: exit status, stdout and stderr.

use crate::common::{CLIENT_ID, SECRET, TempDir, payverify, stderr_of, stdout_of};

/// Everything a run printed, stdout then stderr.
fn printed(out: &std::process::Output) -> String {
    format!("{}{}", stdout_of(out), stderr_of(out))
}

/// Writes a config file readable by its owner only (as a file holding credentials must be).
fn private_config(dir: &TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.write(name, text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

// attack 22 #1: a base URL whose password holds `/`, `?` or `#` was printed (most of it by
// the "invalid port" message), from a flag, the environment or the config file, in errors,
// config show and doctor. The secret command keeps the client secret itself unknown until
// it runs, so nothing else could redact the password.
#[test]
fn a_base_url_password_with_slash_query_or_hash_is_never_printed() {
    let dir = TempDir::new("userinfo-leak");
    let secret_file = private_config(&dir, "pw.secret", "other-secret-123\n");
    for (password, fragments) in [
        (
            "Zq7-secret_VALUE+/=42",
            &["Zq7-secret", "VALUE+", "=42"][..],
        ),
        ("Zq7#secretVALUE", &["Zq7#", "secretVALUE"]),
        ("Zq7?secretVALUE", &["Zq7?", "secretVALUE"]),
        ("Zq7/sec?ret#VALUE", &["Zq7/", "sec?ret", "ret#", "VALUE"]),
    ] {
        let url = format!("https://leakid:{password}@127.0.0.1:18089");
        let config = private_config(
            &dir,
            "c.toml",
            &format!(
                "[profiles.default]\nbase_url = \"{url}\"\nclient_id = \"leakid\"\n\
                 client_secret_command = [\"cat\", \"{}\"]\n",
                secret_file.display()
            ),
        );
        let config = config.to_str().unwrap();
        let mut runs = Vec::new();
        for args in [
            &["verify", "--", "SANDBOX-OK-1"][..],
            &["config", "show"],
            &["doctor"],
            &["doctor", "-o", "json"],
        ] {
            // From the config file.
            runs.push((
                "config",
                payverify()
                    .args(["--config", config])
                    .args(args)
                    .output()
                    .unwrap(),
            ));
            // From the environment and from the flag (the config's secret command still
            // supplies the secret).
            runs.push((
                "env",
                payverify()
                    .env("PAYVERIFY_BASE_URL", &url)
                    .args(["--config", config])
                    .args(args)
                    .output()
                    .unwrap(),
            ));
            runs.push((
                "flag",
                payverify()
                    .args(["--config", config, "--base-url", &url])
                    .args(args)
                    .output()
                    .unwrap(),
            ));
        }
        for (from, out) in runs {
            let all = printed(&out);
            assert_eq!(out.status.code(), Some(6), "{from} {password}: {all}");
            for fragment in fragments {
                assert!(!all.contains(fragment), "{from} {password}: {all}");
            }
            assert!(
                all.contains("must not carry credentials")
                    || all.contains("(refused: credentials belong"),
                "{from} {password}: {all}"
            );
        }
    }
}

// attack 22 #8: base URLs that hold the operation path as a server reads it slipped past the
// exit-6 rule (every reference then read "not found").
#[test]
fn a_base_url_holding_the_operation_path_as_a_server_reads_it_is_exit_6() {
    for path in [
        "/api//payment/verify",
        "/api/./payment/verify",
        "/%61pi/payment/verify",
        "/api;v=1/payment/verify",
        "/api/payment/verify%20",
        "/API/Payment/Verify/.",
        "/api/payment/verify/SANDBOX-OK-1/x/..",
    ] {
        let base = format!("http://127.0.0.1:9{path}");
        let out = payverify()
            .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .args(["--base-url", &base, "verify", "--", "SANDBOX-OK-1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(6), "{path}: {}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{path}");
        let err = stderr_of(&out);
        assert!(
            err.starts_with(&format!("payverify: base URL '{base}' already ends in "))
                && err.contains("use 'http://127.0.0.1:9'"),
            "{path}: {err}"
        );
    }
}

// attack 22 #2: in a list, a line starting with `#` was a comment and a blank line was
// skipped, so a customer's reference `#...` or an empty one was dropped and the batch
// exited 0. Now every line is a reference unless the list opts in with --comments.
#[test]
fn a_hash_or_blank_line_in_a_list_is_a_reference_unless_comments_is_given() {
    let dir = TempDir::new("list-hash");
    // Today's references from return URLs: order 1 paid, order 2's customer typed
    // '#SANDBOX-FAILED-2', order 3's reference is empty.
    let today = dir.write("today.txt", "SANDBOX-OK-1\n#SANDBOX-FAILED-2\n\n");
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "csv", "--from"])
        .arg(&today)
        .output()
        .unwrap();
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    // The line skipped (2: an order not verified) outranks the NOT_FOUND (3).
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(
        rows[0].starts_with("SANDBOX-OK-1,SUCCESSFUL,0,"),
        "{stdout}"
    );
    assert!(
        rows[1].starts_with("#SANDBOX-FAILED-2,NOT_FOUND,3,"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "today.txt line 3 skipped: the reference is empty (a blank line is skipped only \
             with --comments)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "today.txt line 2 starts with # and was verified as a reference: a customer's \
             reference can start with #; if the list has comments, pass --comments"
        ),
        "{stderr}"
    );
    // The same on stdin, quiet: the exit status alone says not every payment is good.
    let out = payverify()
        .args(["verify", "--sandbox", "-q", "-"])
        .write_stdin("SANDBOX-OK-1\n#SANDBOX-FAILED-2\n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(printed(&out), "");
    // A blank line alone is an empty reference: exit 2.
    let out = payverify()
        .args(["verify", "--sandbox", "-q", "-"])
        .write_stdin("SANDBOX-OK-1\n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A hand-written list opts in: the comment and the blank line are skipped.
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "csv", "--comments", "--from"])
        .arg(&today)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out).lines().count(), 2, "{}", stdout_of(&out));
    assert!(!stderr_of(&out).contains("pass --comments"));
}

// attack 22 #3b: an argument padded with Unicode whitespace was trimmed and verified as the
// bare reference, exit 0 for a reference other than the one asked. In lists only what a
// line end or a spreadsheet adds (spaces, tabs, CR) is taken off.
#[test]
fn a_padded_reference_is_refused_never_trimmed_into_another() {
    let gate = |reference: &str| {
        payverify()
            .args([
                "verify",
                "--sandbox",
                "-q",
                "--hmac",
                "require",
                "--expect-amount",
                "40000",
                "--expect-currency",
                "NGN",
                "--",
                reference,
            ])
            .output()
            .unwrap()
    };
    let out = gate("SANDBOX-OK-1001");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    for (padded, named) in [
        ("\u{3000}SANDBOX-OK-1001", "U+3000) at its start"),
        ("SANDBOX-OK-1001\u{a0}", "U+00A0) at its end"),
        ("SANDBOX-OK-1001\u{2028}", "U+2028) at its end"),
        ("SANDBOX-OK-1001 ", "U+0020) at its end"),
        ("\tSANDBOX-OK-1001", "U+0009) at its start"),
        ("\u{feff}SANDBOX-OK-1001", "U+FEFF) at its start"),
    ] {
        let out = gate(padded);
        assert_eq!(out.status.code(), Some(2), "{padded:?}");
        assert_eq!(printed(&out), "", "{padded:?}");
        let out = payverify()
            .args(["verify", "--sandbox", "--", padded])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{padded:?}");
        assert_eq!(stdout_of(&out), "", "{padded:?}");
        assert_eq!(
            stderr_of(&out),
            format!(
                "payverify: the reference has whitespace ({named}; give it exactly, nothing is \
                 trimmed (the reference verified must be the one asked) (give the transaction \
                 reference to verify)\n"
            ),
            "{padded:?}"
        );
    }
    // In a list: a CRLF line, spaces and tabs are a line's padding; other whitespace is not.
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl", "-"])
        .write_stdin(
            " SANDBOX-OK-1\t\r\n\u{3000}SANDBOX-OK-2\nSANDBOX-OK-3\u{a0}\r\nSANDBOX-OK-4\u{2028}\n",
        )
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let records = crate::common::jsonl(&out.stdout);
    assert_eq!(records.len(), 1, "{stderr}");
    assert_eq!(records[0]["reference"], "SANDBOX-OK-1");
    for (line, named) in [(2, "U+3000"), (3, "U+00A0"), (4, "U+2028")] {
        assert!(
            stderr.contains(&format!(
                "stdin line {line} skipped: the reference has whitespace ({named})"
            )),
            "{stderr}"
        );
    }
}

/// Runs payverify with `args` reading a stdin in non-blocking mode (as a parent can leave it),
/// fed `first`, then `rest` only once a first line of output shows the run read `first` and
/// looked for more: its read then finds no data yet (EAGAIN).
#[cfg(unix)]
fn with_nonblocking_stdin(args: &[&str], first: &str, rest: &str) -> (i32, String, String) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::os::unix::net::UnixStream;
    let (theirs, mut ours) = UnixStream::pair().unwrap();
    // O_NONBLOCK belongs to the open file description, which the child shares.
    theirs.set_nonblocking(true).unwrap();
    let mut child = crate::common::spawnable()
        .env("HOME", "/nonexistent/payverify-test-home")
        .args(args)
        .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs,
        )))
        .spawn()
        .unwrap();
    ours.write_all(first.as_bytes()).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    ours.write_all(rest.as_bytes()).unwrap();
    drop(ours);
    stdout.read_to_string(&mut line).unwrap();
    let (status, stderr) = crate::common::status_and_stderr(child);
    (status.code().unwrap_or(-1), line, stderr)
}

// attack 22 #12: a read of the references or the orders that found no data yet on a
// non-blocking stdin (EAGAIN), or was interrupted (EINTR), ended the run (exit 2 or 10). It
// is tried again, as a blocking read would have waited. (EINTR through the binary needs
// strace's fault injection, so it is a unit test: files::tests.)
#[cfg(unix)]
#[test]
fn a_non_blocking_stdin_with_no_data_yet_is_read_again_not_an_error() {
    let (code, stdout, stderr) = with_nonblocking_stdin(
        &["verify", "--sandbox", "-o", "jsonl", "-j", "1", "-"],
        "SANDBOX-OK-1\n",
        "SANDBOX-OK-2\nSANDBOX-OK-3\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let records = crate::common::jsonl(stdout.as_bytes());
    let refs: Vec<&str> = records
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    assert_eq!(
        refs,
        ["SANDBOX-OK-1", "SANDBOX-OK-2", "SANDBOX-OK-3"],
        "{stderr}"
    );
    let (code, stdout, stderr) = with_nonblocking_stdin(
        &["reconcile", "--sandbox", "-o", "jsonl", "-j", "1", "-"],
        "reference,amount\nSANDBOX-OK-1,40000\n",
        "SANDBOX-OK-2,40000\n",
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}{stderr}");
}

// attack 22 #10: a service echoing the secret hex-encoded, upper-cased, URL-encoded twice or
// inside a longer base64 text got it onto stdout.
#[test]
fn a_service_echoing_the_secret_in_another_exact_form_gets_it_redacted() {
    use base64::Engine as _;
    let b64 = |text: String| base64::engine::general_purpose::STANDARD.encode(text);
    let pair = format!("{CLIENT_ID}:{SECRET}");
    let hex: String = SECRET.bytes().map(|b| format!("{b:02x}")).collect();
    let echoes = [
        hex.clone(),
        hex.to_uppercase(),
        SECRET.to_uppercase(),
        // Percent-encoded twice: `-` is unreserved, so the secret's own text stays; the
        // pair's `:` is what shows the double encoding.
        format!("{CLIENT_ID}%253A{SECRET}"),
        b64(format!("auth={pair}")),
        b64(format!("x{pair}")),
        b64(format!("xy{pair}")),
    ];
    let description = echoes.join(" ");
    let body = crate::common::SAMPLE.replace(
        "\"Approved by Financial Institution\"",
        &format!("\"{description}\""),
    );
    assert!(
        body.contains(&hex),
        "the sample has no description to replace"
    );
    let server = crate::common::RawServer::start(move |mut stream| {
        crate::common::read_head(&mut stream);
        crate::common::respond(&mut stream, "200 OK", body.as_bytes());
    });
    for format in ["json", "jsonl", "csv", "table"] {
        let out = crate::common::payverify_at(&server.url)
            .args(["verify", "-v", "-o", format, "--", "0000000000000044177"])
            .output()
            .unwrap();
        let all = printed(&out);
        assert_eq!(out.status.code(), Some(0), "{format}: {all}");
        for echo in &echoes {
            assert!(!all.contains(echo.as_str()), "{format}: {echo} in {all}");
        }
        if format.starts_with("json") {
            // The description is there, redacted (csv and the table leave it out).
            assert!(stdout_of(&out).contains("<redacted>"), "{format}: {all}");
        }
    }
}

/// Every way a command shows settings: verify's error, config show and doctor, text and JSON.
const SHOWING: [&[&str]; 5] = [
    &["verify", "--", "SANDBOX-OK-1"],
    &["config", "show"],
    &["config", "show", "-o", "json"],
    &["doctor"],
    &["doctor", "-o", "json"],
];

// attack 23 #2: a secret pasted into a key that names a file or a program (client_secret_file,
// client_secret_command, ca_cert, and the --client-secret-file and --ca-cert flags) was
// printed in errors, config show and doctor, text and JSON. Such a value that names nothing
// there is shown as <redacted>, the message naming its key and source.
#[test]
fn a_secret_pasted_into_a_path_key_is_never_printed() {
    let dir = TempDir::new("path-key-leak");
    let pasted = "Zq7-secret_VALUE+/=42";
    let head =
        "[profiles.default]\nbase_url = \"https://paywithbank3d.com\"\nclient_id = \"leakid\"\n";
    let cases = [
        (
            "client_secret_file",
            format!("client_secret_file = \"{pasted}\"\n"),
            vec![],
        ),
        (
            "client_secret_command",
            format!("client_secret_command = \"{pasted}\"\n"),
            vec![],
        ),
        (
            "client_secret_command",
            format!("client_secret_command = [\"{pasted}\", \"--field\"]\n"),
            vec![],
        ),
        (
            "ca_cert",
            format!("client_secret = \"another-secret-1\"\nca_cert = \"{pasted}\"\n"),
            vec![],
        ),
        (
            "--client-secret-file",
            String::new(),
            vec!["--client-secret-file", pasted],
        ),
        (
            "--ca-cert",
            "client_secret = \"another-secret-1\"\n".to_owned(),
            vec!["--ca-cert", pasted],
        ),
    ];
    for (key, text, flags) in cases {
        let config = private_config(&dir, "p.toml", &format!("{head}{text}"));
        for args in SHOWING {
            // --ca-cert is an option of verify and doctor, after their name.
            if key == "--ca-cert" && args[0] == "config" {
                continue;
            }
            let out = payverify()
                .args(["--config", config.to_str().unwrap()])
                .args(&args[..1])
                .args(&flags)
                .args(&args[1..])
                .output()
                .unwrap();
            let all = printed(&out);
            // (doctor stops at name resolution before it reads a CA file)
            if !(key.contains("ca_cert") || key.contains("ca-cert")) || args[0] != "doctor" {
                assert_eq!(out.status.code(), Some(6), "{key} {args:?}: {all}");
                assert!(all.contains("<redacted>"), "{key} {args:?}: {all}");
            }
            assert!(!all.contains("Zq7"), "{key} {args:?}: {all}");
            assert!(!all.contains("VALUE"), "{key} {args:?}: {all}");
            // The key and where it came from say which setting it is.
            let source = match key.starts_with("--") {
                true => format!("flag {key}"),
                false => format!("{} [profiles.default] {key}", config.display()),
            };
            if args[0] == "verify" {
                assert!(
                    stderr_of(&out).contains(&format!("; it came from {source}")),
                    "{key}: {all}"
                );
            }
        }
    }
    // A path that is there is a path: shown, so the message says which file is wrong.
    let not_pem = dir.write("roots-not-pem.txt", "hello\n");
    let config = private_config(
        &dir,
        "p.toml",
        &format!(
            "{head}client_secret = \"another-secret-1\"\nca_cert = \"{}\"\n",
            not_pem.display()
        ),
    );
    let out = payverify()
        .args(["--config", config.to_str().unwrap(), "verify", "--", "R-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(
        stderr_of(&out).contains(&format!("CA file {}", not_pem.display())),
        "{}",
        stderr_of(&out)
    );
}

// attack 22 #9 (first half): config show printed a secret command's arguments, which may
// hold the secret (`printf %s SECRET`), and so did a failing command's message.
#[test]
fn a_secret_commands_arguments_are_never_printed() {
    let dir = TempDir::new("command-args");
    let head = "[profiles.default]\nbase_url = \"http://127.0.0.1:9\"\nclient_id = \"leakid\"\n";
    let printing = private_config(
        &dir,
        "a.toml",
        &format!("{head}client_secret_command = [\"printf\", \"%s\", \"Zq7-secret_VALUE+/=42\"]\n"),
    );
    for args in [
        &["config", "show"][..],
        &["config", "show", "-o", "json"],
        &["doctor"],
    ] {
        let out = payverify()
            .args(["--config", printing.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        let all = printed(&out);
        assert!(!all.contains("Zq7"), "{args:?}: {all}");
        assert!(all.contains("printf"), "{args:?}: {all}");
    }
    let out = payverify()
        .args(["--config", printing.to_str().unwrap(), "config", "show"])
        .output()
        .unwrap();
    assert!(
        stdout_of(&out).contains("<redacted> (output of `printf` (2 arguments, not shown))"),
        "{}",
        stdout_of(&out)
    );
    let out = payverify()
        .args([
            "--config",
            printing.to_str().unwrap(),
            "config",
            "show",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["settings"]["client_secret"]["command"],
        serde_json::json!(["printf", "<redacted>", "<redacted>"])
    );
    // A command that fails: its message names the program only.
    let failing = private_config(
        &dir,
        "b.toml",
        &format!("{head}client_secret_command = [\"sh\", \"-c\", \"exit 3\", \"Zq7-secret\"]\n"),
    );
    let out = payverify()
        .args(["--config", failing.to_str().unwrap(), "verify", "--", "R-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert_eq!(
        stderr_of(&out),
        format!(
            "payverify: client_secret_command `sh` (3 arguments, not shown) exited with status 3; \
             it came from {} [profiles.default] client_secret_command\n",
            failing.display()
        )
    );
}
