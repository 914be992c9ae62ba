//! Issue 22, item 1: the customer's reference is never an instruction. `--help`, `-h`,
//! `--version` and `-V` are answers only alone; with any other argument on `verify`,
//! `reconcile` or `webhook check` they are a usage error. Every example that passes a
//! reference from a variable puts `--` before it, and the README's own gate line is run
//! here with the references a customer could send.

use std::process::{Command, Stdio};

use crate::common::gateway::{Gateway, Txn};
use crate::common::{CLIENT_ID, SECRET, TempDir, payverify, stderr_of, stdout_of};

#[test]
fn help_or_version_with_any_other_argument_is_a_usage_error_on_the_gates() {
    let dir = TempDir::new("gate-help");
    dir.write("orders.csv", "reference,amount\nSANDBOX-OK-1,40000\n");
    dir.write("payload.json", "{}");
    let gate = [
        "verify",
        "-q",
        "--hmac",
        "require",
        "--expect-amount",
        "40000",
        "--expect-currency",
        "NGN",
    ];
    let commands: [(&str, &[&str], &str); 5] = [
        ("payverify verify", &gate, "reference"),
        ("payverify verify", &["-q", "verify", "R-1"], "reference"),
        (
            "payverify reconcile",
            &["reconcile", "orders.csv"],
            "file name",
        ),
        ("payverify reconcile", &["reconcile", "-q"], "file name"),
        (
            "payverify webhook check",
            &["webhook", "check", "payload.json"],
            "file name",
        ),
    ];
    for (command, args, what) in commands {
        for flag in ["--help", "-h", "--version", "-V"] {
            // After the other arguments (as a customer's reference is) and before them.
            let mut after: Vec<&str> = args.to_vec();
            after.push(flag);
            let at = args.iter().position(|a| !a.starts_with('-')).unwrap_or(0) + 1;
            let mut before: Vec<&str> = args.to_vec();
            before.insert(at.min(before.len()), flag);
            for argv in [after, before] {
                let out = payverify()
                    .current_dir(dir.path())
                    .args(&argv)
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(2), "{argv:?}");
                assert_eq!(stdout_of(&out), "", "{argv:?}");
                assert_eq!(
                    stderr_of(&out),
                    format!(
                        "payverify: {flag} cannot be combined with other arguments (a {what} \
                         that starts with '-' goes after --; see '{command} --help')\n"
                    ),
                    "{argv:?}"
                );
            }
        }
        // A bundle of short flags holding -h is another argument too.
        let mut bundled: Vec<&str> = args.to_vec();
        bundled.push("-qh");
        let out = payverify()
            .current_dir(dir.path())
            .args(&bundled)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bundled:?}");
        assert_eq!(stdout_of(&out), "", "{bundled:?}");
    }
    // Alone, to a script's stdout (`payverify verify "$ref"` with the `--` forgotten and
    // `$ref` = `--help`), they are exit 2 too, never a verdict; the help (or version) is
    // still printed on stdout, so `payverify verify --help | less` shows it (issue 36,
    // item 5), and stderr points to `payverify help`. (On a terminal they answer as always;
    // see below.)
    for command in [
        &["verify"][..],
        &["gate"],
        &["reconcile"],
        &["webhook", "check"],
    ] {
        for flag in ["--help", "-h", "--version", "-V"] {
            let out = payverify().args(command).arg(flag).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{command:?} {flag}");
            let stdout = stdout_of(&out);
            let shown = match flag {
                "--help" | "-h" => format!("Usage: payverify {}", command.join(" ")),
                _ => format!(" {}", env!("CARGO_PKG_VERSION")),
            };
            assert!(stdout.contains(&shown), "{command:?} {flag}: {stdout}");
            let stderr = stderr_of(&out);
            assert!(
                stderr.starts_with(&format!("payverify: {flag} alone on 'payverify "))
                    && stderr.contains(&format!(
                        "'payverify help {}' prints it with exit 0",
                        command.join(" ")
                    )),
                "{command:?} {flag}: {stderr}"
            );
        }
    }
    // On a terminal, help and version alone answer as always (exit 0).
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED (needs script(1) for a terminal): help alone on a terminal");
    } else {
        let bin = assert_cmd::cargo::cargo_bin!("payverify");
        for flag in ["--help", "-V"] {
            let out = std::process::Command::new("script")
                .args([
                    "-qec",
                    &format!("{} verify {flag}", bin.display()),
                    "/dev/null",
                ])
                .env("SHELL", "/bin/sh")
                .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let screen = stdout_of(&out);
            assert_eq!(out.status.code(), Some(0), "{flag}: {screen}");
            let want = match flag {
                "--help" => "Usage: payverify verify",
                _ => "0.2.0",
            };
            assert!(screen.contains(want), "{flag}: {screen}");
        }
    }
    // So does `payverify help verify`, and help on the commands that gate on nothing.
    for argv in [&["help", "verify"][..], &["config", "show", "--help"]] {
        let out = payverify().args(argv).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{argv:?}");
    }
}

/// The gate spelled out with verify's flags, as docs/checks.md prints it (continuation
/// lines joined). `payverify gate`, the short one, is run against the same kind of
/// references in safe_gate.rs.
fn readme_gate() -> String {
    let page = crate::common::pages::page("docs/checks.md").text;
    let start = page
        .find("```sh\npayverify verify -q --hmac require")
        .expect("docs/checks.md has its verify gate line")
        + "```sh\n".len();
    let rest = &page[start..];
    let end = rest
        .find("-- \"$ref\"")
        .expect("the gate line ends in -- \"$ref\"");
    rest[..end + "-- \"$ref\"".len()].replace("\\\n", " ")
}

#[test]
fn the_readme_gate_line_never_passes_a_hostile_reference() {
    let gate = readme_gate();
    assert!(gate.ends_with(r#"-- "$ref""#), "{gate}");
    // The paid order: ₦40,000.00, its hmac signed with the tests' secret. PAID-SMALL is
    // someone else's smaller payment, FAILED-1 a declined one.
    let gateway = Gateway::start(&[
        Txn::paid("PAID-1", 4_000_000),
        Txn::paid("PAID-SMALL", 100_000),
        Txn::failed("FAILED-1", 4_000_000),
    ]);
    let binary = assert_cmd::cargo::cargo_bin!("payverify");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = TempDir::new("gate-readme");
    // A file a `--from` could name, holding the paid reference.
    dir.write("refs.txt", "PAID-1\n");
    let long = "A".repeat(5 * 1024);
    let hostile: Vec<&str> = vec![
        "--help",
        "-h",
        "--version",
        "-V",
        "-hV",
        "-qh",
        "--from=-",
        "--from=refs.txt",
        "--from=/dev/stdin",
        "--from",
        "-",
        "--",
        "---",
        "-0",
        "--sandbox",
        "--tls",
        "-o",
        "--output=json",
        "--resume=refs.txt",
        "--base-url=http://127.0.0.1:9",
        "--hmac=off",
        "--expect-amount=1",
        "--expect-amount-kobo=100000",
        "-j",
        "-v",
        "-q",
        "--color=always",
        "--config=/dev/null",
        "--profile=live",
        "--client-secret-file=/etc/passwd",
        "--wait=1s",
        "",
        " ",
        "\t",
        "\n",
        "PAID-1\nPAID-1",
        "PAID-1\u{7}",
        "PAID-1\u{200b}",
        "paid-1",
        "PAID-1/../PAID-1",
        "../PAID-1",
        "PAID-SMALL",
        "FAILED-1",
        "FAILED-1 ",
        // The paid reference padded: nothing is trimmed, so none of these is the reference
        // a shop would look up as already used.
        "PAID-1 ",
        " PAID-1",
        "\tPAID-1\n",
        "\u{3000}PAID-1",
        "PAID-1\u{a0}",
        "PAID-1\u{2028}",
        "\u{feff}PAID-1",
        "UNKNOWN-1",
        &long,
    ];
    let run = |reference: &str| {
        Command::new("bash")
            .arg("-c")
            .arg(&gate)
            .current_dir(dir.path())
            .env_clear()
            // No journal in the tester's home: see common::payverify.
            .env("PAYVERIFY_JOURNAL", "off")
            .env("PATH", &path)
            .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
            .env("PAYVERIFY_BASE_URL", &gateway.url)
            .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .env("order_total", "40000")
            .env("order_ref", "M-PAID-1")
            .env("ref", reference)
            // A CGI script's stdin is the request body: the customer's too.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                // A payverify that refuses its arguments exits before it reads stdin, and
                // may be gone before this write: that is no failure of the gate.
                match child.stdin.take().unwrap().write_all(b"PAID-1\n") {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e),
                    _ => {}
                }
                child.wait_with_output()
            })
            .unwrap()
    };
    // Every option verify's help lists, bare and with a value that would read the paid
    // reference back (stdin, the file): the list grows with the options.
    let help = stdout_of(&payverify().args(["help", "verify"]).output().unwrap());
    let mut options: Vec<String> = Vec::new();
    for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
        let flag = word.split('=').next().unwrap_or("");
        let long = flag.starts_with("--") && flag.len() > 2;
        let short = flag.len() == 2 && flag.starts_with('-') && flag != "--";
        if (long || short)
            && flag[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            options.push(flag.to_owned());
        }
    }
    options.sort();
    options.dedup();
    assert!(options.len() >= 25, "{options:?}");
    let mut derived: Vec<String> = Vec::new();
    for flag in &options {
        let join = if flag.starts_with("--") { "=" } else { "" };
        derived.push(flag.clone());
        derived.push(format!("{flag}{join}-"));
        derived.push(format!("{flag}{join}refs.txt"));
    }
    let all: Vec<String> = hostile
        .into_iter()
        .map(str::to_owned)
        .chain(derived)
        .collect();
    // Four at a time: each run is a shell and payverify.
    std::thread::scope(|scope| {
        for chunk in all.chunks(all.len().div_ceil(4)) {
            let run = &run;
            scope.spawn(move || {
                for reference in chunk {
                    let out = run(reference);
                    assert_ne!(
                        out.status.code(),
                        Some(0),
                        "{reference:?} passed the gate: {}",
                        stderr_of(&out)
                    );
                    assert!(
                        out.status.code().is_some(),
                        "{reference:?}: {:?}",
                        out.status
                    );
                    assert_eq!(stdout_of(&out), "", "{reference:?}");
                }
            });
        }
    });
    // Only the paid reference, exactly, passes.
    let out = run("PAID-1");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// Each line of `text` that runs `payverify verify` or `payverify doctor` with a reference
/// from a shell variable.
fn reference_examples(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            ["payverify verify", "payverify doctor", "payverify gate"]
                .iter()
                .any(|c| l.contains(c))
        })
        .filter(|l| l.contains("\"$ref\"") || l.contains("\"$known_ref\""))
        .collect()
}

#[test]
fn every_example_passing_a_reference_puts_double_dash_before_it() {
    let help = |args: &[&str]| stdout_of(&payverify().args(args).output().unwrap());
    // The README's and docs/ pages' code blocks, continuation lines joined.
    let readme = crate::common::pages::all_text().replace("\\\n", " ");
    let sources = [
        ("README and docs/", readme),
        ("payverify --help", help(&["--help"])),
        ("payverify verify --help", help(&["help", "verify"])),
        ("payverify gate --help", help(&["help", "gate"])),
        ("payverify doctor --help", help(&["doctor", "--help"])),
        ("payverify man", help(&["man"]).replace("\\-", "-")),
    ];
    let mut seen = 0;
    for (source, text) in &sources {
        for line in reference_examples(text) {
            seen += 1;
            assert!(
                line.contains("-- \"$ref\"") || line.contains("-- \"$known_ref\""),
                "{source}: {line}"
            );
        }
    }
    assert!(seen >= 10, "only {seen} examples found");
}
