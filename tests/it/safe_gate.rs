//! Issue 27, items 1, 2 and 14: the safe gate is the short one (`payverify gate`), one text
//! in the README, `--help` and the man page; `--expect-mode` and `expect_mode`; the sandbox
//! references that let every expectation be tried end to end. Through the real binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};

use payverify::GATE;
use payverify::sandbox::MAGIC_REFERENCES;

use crate::common::Standalone;
use crate::common::{KeepAliveServer, RawServer, TempDir, payverify, stderr_of, stdout_of};

const README: &str = include_str!("../../README.md");

/// The page that holds the gate's own section.
fn gate_page() -> String {
    crate::common::pages::page("docs/gate.md").text
}

/// `payverify sandbox` on a free port (quiet), stopped when dropped: it checks Authorization
/// exactly as the service does.
fn sandbox() -> Standalone {
    Standalone::start(&["-q"])
}

/// A private config whose default profile is the sandbox at `url`, with `extra` lines.
fn sandbox_config(dir: &TempDir, name: &str, url: &str, extra: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.write(
        name,
        format!(
            "[profiles.default]\nbase_url = \"{url}\"\nclient_id = \"sandbox\"\n\
             client_secret = \"sandbox-secret\"\n{extra}"
        ),
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

/// PATH with the built binary first, so a shell line can say `payverify`.
fn path_with_payverify() -> String {
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs a shell line as a shop's script would: `$total`, `$order_ref` and `$ref` set, the
/// config file named, nothing else of the environment; stdin holds what a CGI request body
/// could (the paid reference).
fn shell(line: &str, config: &Path, total: &str, order_ref: &str, reference: &str) -> Output {
    use std::io::Write;
    let mut child = StdCommand::new("bash")
        .arg("-c")
        .arg(line)
        .env_clear()
        // No journal in the tester's home: see common::payverify.
        .env("PAYVERIFY_JOURNAL", "off")
        .env("PATH", path_with_payverify())
        .env("HOME", "/nonexistent/payverify-test-home")
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("PAYVERIFY_CONFIG", config)
        .env("total", total)
        .env("order_ref", order_ref)
        .env("ref", reference)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SANDBOX-MERCHANT-ORDER-17\n");
    child.wait_with_output().unwrap()
}

/// A reference of each row of the magic table (the catch-all as an unknown reference).
fn magic_instances() -> Vec<String> {
    MAGIC_REFERENCES
        .iter()
        .map(|row| match row.pattern {
            "anything else" => "NOT-A-SANDBOX-REF-1".to_owned(),
            "SANDBOX-CODE-<code>-<anything>" => "SANDBOX-CODE-10-g".to_owned(),
            "SANDBOX-SETTLES-<ms>-<anything>" => "SANDBOX-SETTLES-600000-g".to_owned(),
            pattern => pattern
                .replace("<order id>", "4101")
                .replace("<unix time>", "1763730000")
                .replace("<anything>", "g")
                .replace("<kobo>", "150")
                .replace("<minor>", "4000000")
                .replace("<ms>", "0")
                .replace("<code>", "USD")
                .replace("<mode>", "live")
                .replace("<merchantRef>", "ORDER-17"),
        })
        .collect()
}

// ---- 1. One text in the README, --help and the man page -----------------------------------

#[test]
fn item_01_the_gate_is_one_text_in_readme_help_and_man_page() {
    assert!(GATE.starts_with("payverify gate "), "{GATE}");
    assert!(
        GATE.ends_with(" -- \"$ref\""),
        "the reference after --: {GATE}"
    );
    // Short enough to type, and to read on one line of an 80-column terminal.
    assert!(GATE.len() <= 76, "{} characters: {GATE}", GATE.len());
    // The README's first gate recipe is this one.
    let first = README
        .lines()
        .find(|l| l.trim_start().starts_with("if payverify"))
        .unwrap();
    assert_eq!(first.trim(), format!("if {GATE}; then"));
    assert!(
        gate_page().contains(&format!("```sh\n{GATE}\n```")),
        "docs/gate.md's own section"
    );
    let help = |args: &[&str]| {
        let out = payverify()
            .env("COLUMNS", "80")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        stdout_of(&out)
    };
    for args in [
        &["help", "verify"][..],
        &["help", "gate"],
        &["help", "gate"],
    ] {
        let text = help(args);
        assert!(
            text.lines().any(|l| l == format!("  {GATE}")),
            "{args:?} lacks the gate line, or it wraps:\n{text}"
        );
    }
    // The man page, its roff escapes undone.
    let page = help(&["man"]).replace("\\-", "-");
    assert!(
        page.contains(&format!("\\fB{GATE}\\fR")),
        "man page lacks {GATE}"
    );
    // The long form in docs/gate.md is the gate's checks, says so, and says gate alone
    // claims.
    assert!(gate_page().contains(
        "Its checks are exactly `payverify verify -q --hmac require --expect-amount \"$total\"\n\
         --expect-currency NGN --expect-merchant-ref \"$order_ref\" -- \"$ref\"` with \
         `expect_mode`\nrequired. What that verify does not do is claim"
    ));
}

// ---- 1 and 14. Only a good payment of this order passes ------------------------------------

#[test]
fn item_01_the_gate_passes_only_a_good_payment_of_this_order() {
    let sandbox = sandbox();
    let dir = TempDir::new("gate-magic");
    let config = sandbox_config(&dir, "config.toml", &sandbox.url, "expect_mode = \"dev\"\n");
    // Each magic reference, gated with its own merchant reference and ₦40,000.00: only the
    // answers that are a good payment pass, each other one for the reason it is not.
    let own_merchant = |reference: &str| {
        let out = payverify()
            .args(["verify", "--sandbox", "-o", "json", "--", reference])
            .output()
            .unwrap();
        serde_json::from_str::<serde_json::Value>(&stdout_of(&out))
            .ok()
            .and_then(|v| v["merchantRef"].as_str().map(str::to_owned))
            .unwrap_or_else(|| "ORDER-17".into())
    };
    let want = |reference: &str| -> (i32, &str) {
        // WooCommerce merchant references: the amount and status they state.
        if reference.contains('_') {
            return match reference.rsplit('_').next().unwrap() {
                "FAILED" => (1, "FAILED"),
                "PENDING" => (9, "PENDING"),
                // The order's amount, in dollars: never this naira order's payment.
                "USD" => (4, "expected currency NGN, service says USD"),
                "150" => (
                    4,
                    "expected amount ₦40,000.00 (4000000 kobo), service says ₦1.50",
                ),
                _ => (0, ""),
            };
        }
        let kind = reference.trim_start_matches("SANDBOX-");
        match kind.split('-').next().unwrap() {
            "0000000000000044177" | "OK" | "FLAKY" | "RATELIMIT" | "SLOW" | "MERCHANT"
            // Each is asked once here: the reversal shows from the second ask.
            | "REVERSED" => (0, ""),
            "AMOUNT" => (
                4,
                "expected amount ₦40,000.00 (4000000 kobo), service says ₦1.50",
            ),
            "CURRENCY" => (4, "expected currency NGN, service says USD"),
            "CODE" => (4, "status is SUCCESSFUL but code is '10'"),
            "MODE" => (4, "expected mode \"dev\", service says \"live\""),
            "NOHMAC" => (4, "the response has no hmac"),
            "BADHMAC" => (4, "hmac MISMATCH"),
            "FAILED" => (1, "FAILED"),
            "PENDING" => (9, "PENDING"),
            "SETTLES" if kind.starts_with("SETTLES-FAILED") => (1, "FAILED"),
            "SETTLES" => (9, "PENDING"),
            "ERROR" => (7, "HTTP 500"),
            _ => (3, "no transaction has reference"),
        }
    };
    let instances = magic_instances();
    assert_eq!(instances.len(), MAGIC_REFERENCES.len());
    let mut passed = Vec::new();
    let (config_ref, own_merchant_ref, want_ref) = (&config, &own_merchant, &want);
    std::thread::scope(|scope| {
        let handles: Vec<_> = instances
            .chunks(instances.len().div_ceil(4))
            .map(|chunk| {
                let (config, own_merchant, want) = (config_ref, own_merchant_ref, want_ref);
                scope.spawn(move || {
                    let mut passed = Vec::new();
                    for reference in chunk {
                        let order_ref = own_merchant(reference);
                        let out = shell(GATE, config, "40000", &order_ref, reference);
                        let (code, why) = want(reference);
                        assert_eq!(
                            out.status.code(),
                            Some(code),
                            "{reference}: {}",
                            stderr_of(&out)
                        );
                        assert_eq!(stdout_of(&out), "", "{reference}: nothing on stdout");
                        assert!(
                            stderr_of(&out).contains(why),
                            "{reference}: {}",
                            stderr_of(&out)
                        );
                        if code == 0 {
                            assert_eq!(stderr_of(&out), "", "{reference}");
                            passed.push(reference.clone());
                        }
                    }
                    passed
                })
            })
            .collect();
        for handle in handles {
            passed.extend(handle.join().unwrap());
        }
    });
    assert_eq!(passed.len(), 8, "{passed:?}");

    // The good payment, with anything about the order not as it is paid: never 0.
    let paid = "SANDBOX-MERCHANT-ORDER-17";
    for (total, order_ref) in [
        ("40000", "ORDER-17"),
        ("40000.01", "ORDER-17"),
        ("39999.99", "ORDER-17"),
        ("4000000", "ORDER-17"),
        ("40000", "ORDER-18"),
        ("40000", "ORDER-17 "),
        ("40000", "order-17"),
        ("40000", "ORDER-1"),
    ] {
        let out = shell(GATE, &config, total, order_ref, paid);
        let want = if (total, order_ref) == ("40000", "ORDER-17") {
            0
        } else {
            4
        };
        assert_eq!(
            out.status.code(),
            Some(want),
            "{total} {order_ref:?}: {}",
            stderr_of(&out)
        );
    }
    // An order and a profile as a script could get them wrong: exit 2 or 6, never 0.
    for (total, order_ref) in [("", "ORDER-17"), ("40000", ""), ("forty", "ORDER-17")] {
        let out = shell(GATE, &config, total, order_ref, paid);
        assert_eq!(out.status.code(), Some(2), "{total:?} {order_ref:?}");
        assert_eq!(stdout_of(&out), "");
    }
    let live = sandbox_config(&dir, "live.toml", &sandbox.url, "expect_mode = \"live\"\n");
    let out = shell(GATE, &live, "40000", "ORDER-17", paid);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("expected mode \"live\", service says \"dev\""));
    // A profile that turns the hmac off does not turn it off for the gate.
    let off = sandbox_config(
        &dir,
        "off.toml",
        &sandbox.url,
        "expect_mode = \"dev\"\nhmac = \"off\"\n",
    );
    let badhmac = "SANDBOX-BADHMAC-g";
    let merchant = own_merchant(badhmac);
    let out = shell(GATE, &off, "40000", &merchant, badhmac);
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &off)
        .args([
            "verify",
            "-q",
            "--expect-amount",
            "40000",
            "--expect-merchant-ref",
            &merchant,
        ])
        .args(["--", badhmac])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "verify obeys the profile's hmac = off"
    );
}

#[test]
fn item_01_no_reference_a_customer_can_send_passes_the_gate() {
    let sandbox = sandbox();
    let dir = TempDir::new("gate-hostile");
    let config = sandbox_config(&dir, "config.toml", &sandbox.url, "expect_mode = \"dev\"\n");
    dir.write("refs.txt", "SANDBOX-MERCHANT-ORDER-17\n");
    let long = "A".repeat(5 * 1024);
    let mut hostile: Vec<String> = [
        "--help",
        "-h",
        "--version",
        "-V",
        "-hV",
        "-qh",
        "--",
        "---",
        "-",
        "--from=-",
        "--from=refs.txt",
        "--sandbox",
        "--hmac=off",
        "--expect-mode=live",
        "--amount=1",
        "--merchant-ref=X",
        "--config=/dev/null",
        "--profile=live",
        "-q",
        "",
        " ",
        "\t",
        "\n",
        "SANDBOX-MERCHANT-ORDER-17\nSANDBOX-MERCHANT-ORDER-17",
        // The paid reference padded: nothing is trimmed (attack 22 #3b).
        " SANDBOX-MERCHANT-ORDER-17\n",
        "\u{3000}SANDBOX-MERCHANT-ORDER-17",
        "SANDBOX-MERCHANT-ORDER-17\u{a0}",
        "SANDBOX-MERCHANT-ORDER-17\u{2028}",
        "SANDBOX-MERCHANT-ORDER-17\u{7}",
        "SANDBOX-MERCHANT-ORDER-17\u{200b}",
        "sandbox-merchant-order-17",
        "SANDBOX-MERCHANT-ORDER-17/../x",
        "SANDBOX-MERCHANT-ORDER-17 SANDBOX-OK-1",
        "SANDBOX-MERCHANT-ORDER-18",
        "SANDBOX-MERCHANT-ORDER-1",
        "SANDBOX-OK-ORDER-17",
        "WQ-506391000507913",
    ]
    .map(str::to_owned)
    .to_vec();
    hostile.push(long);
    hostile.extend(
        magic_instances()
            .into_iter()
            .filter(|r| r != "SANDBOX-MERCHANT-ORDER-17"),
    );
    // Every option the gate's help lists, bare and with a value that reads the paid
    // reference back (stdin, the file).
    let help = stdout_of(&payverify().args(["help", "gate"]).output().unwrap());
    let mut options: Vec<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .map(|w| w.split('=').next().unwrap_or("").to_owned())
        .filter(|f| {
            let long = f.starts_with("--") && f.len() > 2;
            let short = f.len() == 2 && f.starts_with('-') && f != "--";
            (long || short)
                && f[1..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        .collect();
    options.sort();
    options.dedup();
    assert!(options.len() >= 20, "{options:?}");
    for flag in &options {
        let join = if flag.starts_with("--") { "=" } else { "" };
        hostile.push(flag.clone());
        hostile.push(format!("{flag}{join}-"));
        hostile.push(format!("{flag}{join}refs.txt"));
    }
    std::thread::scope(|scope| {
        for chunk in hostile.chunks(hostile.len().div_ceil(4)) {
            let config = &config;
            scope.spawn(move || {
                for reference in chunk {
                    let out = shell(GATE, config, "40000", "ORDER-17", reference);
                    assert_ne!(
                        out.status.code(),
                        Some(0),
                        "{reference:?} passed the gate: {}",
                        stderr_of(&out)
                    );
                    assert!(out.status.code().is_some(), "{reference:?}");
                    assert_eq!(stdout_of(&out), "", "{reference:?}");
                }
            });
        }
    });
    // The paid one passes, exactly as it was paid.
    let out = shell(
        GATE,
        &config,
        "40000",
        "ORDER-17",
        "SANDBOX-MERCHANT-ORDER-17",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn item_01_the_gate_refuses_what_would_weaken_it() {
    let paid = ["--", "SANDBOX-MERCHANT-ORDER-17"];
    let gate = |args: &[&str]| {
        payverify()
            .args(["gate", "--sandbox"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = gate(
        &[
            &["--amount", "40000", "--merchant-ref", "ORDER-17"][..],
            &paid,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        (stdout_of(&out).as_str(), stderr_of(&out).as_str()),
        ("", "")
    );
    // The same with the aliases verify's users know.
    let out = gate(
        &[
            &[
                "--expect-amount",
                "40000",
                "--expect-merchant-ref",
                "ORDER-17",
            ][..],
            &["--expect-currency", "ngn"],
            &paid,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    for (args, why) in [
        (
            &["--merchant-ref", "ORDER-17"][..],
            "--amount <NAIRA>|--amount-kobo <KOBO>",
        ),
        (&["--amount", "40000"], "--merchant-ref <REF>"),
        (&["--amount", "40000", "--merchant-ref", ""], "is empty"),
        (
            &[
                "--amount",
                "40000",
                "--merchant-ref",
                "ORDER-17",
                "--hmac",
                "off",
            ],
            "gate always requires a genuine hmac; --hmac off is for payverify verify",
        ),
        (
            &[
                "--amount",
                "40000",
                "--merchant-ref",
                "ORDER-17",
                "--hmac",
                "warn",
            ],
            "--hmac warn",
        ),
        (
            &[
                "--amount",
                "40000",
                "--amount-kobo",
                "4000000",
                "--merchant-ref",
                "ORDER-17",
            ],
            "cannot be used with",
        ),
        (
            &[
                "--amount",
                "40000",
                "--merchant-ref",
                "ORDER-17",
                "--currency",
                " ",
            ],
            "is empty",
        ),
        (
            &[
                "--amount",
                "40000",
                "--merchant-ref",
                "ORDER-17",
                "--expect-mode",
                "dev ",
            ],
            "has whitespace around it",
        ),
    ] {
        let out = gate(&[args, &paid].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{args:?}");
        assert!(
            stderr_of(&out).contains(why),
            "{args:?}: {}",
            stderr_of(&out)
        );
        assert_eq!(
            stderr_of(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
    let base = ["--amount", "40000", "--merchant-ref", "ORDER-17"];
    // The reference only after --, and only one.
    for tail in [
        &["SANDBOX-MERCHANT-ORDER-17"][..],
        &[
            "--",
            "SANDBOX-MERCHANT-ORDER-17",
            "SANDBOX-MERCHANT-ORDER-17",
        ],
        &[],
        &["--"],
        &["--", "SANDBOX-MERCHANT-ORDER-17", "--help"],
    ] {
        let out = gate(&[&base[..], tail].concat());
        assert_eq!(out.status.code(), Some(2), "{tail:?}: {}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{tail:?}");
    }
    // Help among other arguments is a usage error, never an answer.
    for flag in ["--help", "-h", "--version", "-V"] {
        let out = gate(&[&base[..], &[flag], &paid].concat());
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert_eq!(stdout_of(&out), "", "{flag}");
        assert_eq!(
            stderr_of(&out),
            format!(
                "payverify: {flag} cannot be combined with other arguments (a reference that \
                 starts with '-' goes after --; see 'payverify gate --help')\n"
            )
        );
    }
    // -q: the exit status alone.
    let out = gate(&[&["-q", "--amount", "1"][..], &base[2..], &paid].concat());
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(
        (stdout_of(&out).as_str(), stderr_of(&out).as_str()),
        ("", "")
    );

    // A profile that sets no mode: exit 6 before any request, saying how to set one.
    let server = RawServer::start(|_| {});
    let dir = TempDir::new("gate-no-mode");
    let config = {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.write(
            "config.toml",
            format!(
                "[profiles.live]\nbase_url = \"{}\"\nclient_id = \"pk\"\n\
                 client_secret = \"long-enough-secret\"\n",
                server.url
            ),
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        path
    };
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["--profile", "live", "gate"])
        .args(base)
        .args(paid)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "");
    assert_eq!(
        stderr_of(&out),
        "payverify: gate needs the mode your payments carry, and nothing sets one: set \
         expect_mode in the profile (payverify doctor -- \"$known_ref\" shows the mode of a \
         real payment, and the line to add), or pass --expect-mode MODE\n"
    );
    assert_eq!(
        server.connections.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "no request"
    );
}

// ---- 2. --expect-mode and expect_mode ------------------------------------------------------

#[test]
fn item_02_another_mode_is_exit_4_from_the_flag_or_the_profile() {
    let verify = |args: &[&str]| {
        payverify()
            .args(["verify", "--sandbox"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = verify(&["--expect-mode", "dev", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = verify(&["--expect-mode", "live", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stdout_of(&out).contains("SUCCESSFUL"),
        "the table is still printed"
    );
    assert_eq!(
        stderr_of(&out),
        "payverify: check failed for 'SANDBOX-OK-1': expected mode \"live\", service says \
         \"dev\"\n"
    );
    // Compared exactly: another case is another mode.
    assert_eq!(
        verify(&["--expect-mode", "LIVE", "SANDBOX-MODE-live-1"])
            .status
            .code(),
        Some(4)
    );
    assert_eq!(
        verify(&["--expect-mode", "live", "SANDBOX-MODE-live-1"])
            .status
            .code(),
        Some(0)
    );
    // Only a SUCCESSFUL answer can become 4; a FAILED one stays 1.
    assert_eq!(
        verify(&["--expect-mode", "live", "SANDBOX-FAILED-1"])
            .status
            .code(),
        Some(1)
    );
    for bad in ["", " ", "live ", " live", "li\u{7}ve"] {
        let out = verify(&["--expect-mode", bad, "SANDBOX-OK-1"]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert_eq!(stdout_of(&out), "", "{bad:?}");
    }
    // In a batch: the record's checks say it, and the run's exit is 4.
    let out = verify(&[
        "--expect-mode",
        "live",
        "-o",
        "jsonl",
        "SANDBOX-OK-1",
        "SANDBOX-MODE-live-2",
    ]);
    assert_eq!(out.status.code(), Some(4));
    let records = crate::common::jsonl(&out.stdout);
    assert_eq!(records[0]["outcome"], "CHECK_FAILED");
    assert_eq!(
        records[0]["checks"]["failures"][0],
        "expected mode \"live\", service says \"dev\""
    );
    assert_eq!(records[1]["outcome"], "SUCCESSFUL");

    // The profile key, beaten by the flag.
    let sandbox = sandbox();
    let dir = TempDir::new("expect-mode-key");
    let config = sandbox_config(
        &dir,
        "config.toml",
        &sandbox.url,
        "expect_mode = \"live\"\n",
    );
    let run = |config: &Path, args: &[&str]| {
        payverify()
            .env("PAYVERIFY_CONFIG", config)
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(
        run(&config, &["verify", "-q", "SANDBOX-OK-1"])
            .status
            .code(),
        Some(4)
    );
    assert_eq!(
        run(&config, &["verify", "-q", "SANDBOX-MODE-live-1"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        run(
            &config,
            &["verify", "-q", "--expect-mode", "dev", "SANDBOX-OK-1"]
        )
        .status
        .code(),
        Some(0)
    );
    let out = run(&config, &["config", "show", "-o", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(json["settings"]["expect_mode"]["value"], "live");
    for (written, why) in [
        ("\" live\"", "has whitespace around it"),
        ("\"\"", "is empty"),
        (
            "3",
            "key expect_mode: invalid type: integer, expected a string",
        ),
    ] {
        let bad = sandbox_config(
            &dir,
            "bad.toml",
            &sandbox.url,
            &format!("expect_mode = {written}\n"),
        );
        let out = run(&bad, &["verify", "SANDBOX-OK-1"]);
        assert_eq!(out.status.code(), Some(6), "{written}");
        assert!(
            stderr_of(&out).contains(why),
            "{written}: {}",
            stderr_of(&out)
        );
        assert!(stderr_of(&out).contains("expect_mode"), "{written}");
    }

    // reconcile: a row of another mode is not MATCHED.
    dir.write(
        "orders.csv",
        "reference,amount\nSANDBOX-OK-1,40000\nSANDBOX-MODE-live-1,40000\n",
    );
    let out = run(
        &config,
        &[
            "reconcile",
            "-o",
            "csv",
            dir.path().join("orders.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let csv = stdout_of(&out);
    let rows: Vec<&str> = csv.lines().collect();
    assert!(
        rows[1].starts_with("SANDBOX-OK-1,40000,INTEGRITY_FAILED,"),
        "{csv}"
    );
    assert!(
        rows[1].contains("expected mode \"\"live\"\", service says \"\"dev\"\""),
        "{csv}"
    );
    assert!(
        rows[2].starts_with("SANDBOX-MODE-live-1,40000,MATCHED,"),
        "{csv}"
    );

    // --resume carries a SUCCESSFUL record only if its answer has this run's mode.
    let first = run(
        &config,
        &[
            "verify",
            "--expect-mode",
            "dev",
            "-o",
            "jsonl",
            "SANDBOX-OK-1",
            "SANDBOX-OK-2",
        ],
    );
    assert_eq!(first.status.code(), Some(0));
    let earlier = dir.write("run1.jsonl", &first.stdout);
    let resumed = run(
        &config,
        &[
            "verify",
            "-o",
            "jsonl",
            "--resume",
            earlier.to_str().unwrap(),
            "SANDBOX-OK-1",
            "SANDBOX-OK-2",
        ],
    );
    assert_eq!(resumed.status.code(), Some(4), "{}", stderr_of(&resumed));
    assert!(
        stderr_of(&resumed).contains("2 final records of the --resume file were asked again"),
        "{}",
        stderr_of(&resumed)
    );
    let carried = run(
        &config,
        &[
            "verify",
            "--expect-mode",
            "dev",
            "-o",
            "jsonl",
            "--resume",
            earlier.to_str().unwrap(),
            "SANDBOX-OK-1",
            "SANDBOX-OK-2",
        ],
    );
    assert_eq!(carried.status.code(), Some(0));
    assert!(
        stderr_of(&carried).contains("(2 carried over, 0 asked)"),
        "{}",
        stderr_of(&carried)
    );
}

#[test]
fn item_02_a_mode_that_is_not_a_string_is_not_the_mode() {
    let body = crate::common::SAMPLE.replace("\"mode\": \"dev\"", "\"mode\": 1");
    assert!(body.contains("\"mode\": 1"), "{body}");
    let server = KeepAliveServer::start(move |_, _| ("200 OK".into(), vec![], body.clone()));
    let out = crate::common::payverify_at(&server.url)
        .args(["verify", "--expect-mode", "1", "0000000000000044177"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out)
            .contains("expected mode \"1\", service says \"1\" (a number, not a string)"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn item_02_webhook_check_expects_the_mode_too() {
    let dir = TempDir::new("webhook-mode");
    let payload = dir.write("payload.json", crate::common::SAMPLE.as_str());
    let check = |mode: &str| {
        crate::common::payverify_at("https://unused.example")
            .args(["webhook", "check", "--expect-mode", mode])
            .arg(&payload)
            .output()
            .unwrap()
    };
    assert_eq!(
        check("dev").status.code(),
        Some(0),
        "{}",
        stderr_of(&check("dev"))
    );
    let out = check("live");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stdout_of(&out).contains("genuine, CHECK FAILED"),
        "{}",
        stdout_of(&out)
    );
    assert!(
        stderr_of(&out).contains("check failed: expected mode \"live\", service says \"dev\""),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn item_02_doctor_shows_the_mode_it_saw_and_the_line_to_expect_it() {
    let sandbox = sandbox();
    let dir = TempDir::new("doctor-mode");
    let doctor = |config: &Path, reference: &str| {
        payverify()
            .env("PAYVERIFY_CONFIG", config)
            .args(["doctor", "--", reference])
            .output()
            .unwrap()
    };
    let line = |out: &Output, name: &str| {
        stdout_of(out)
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name}: {}", stdout_of(out)))
            .to_owned()
    };
    let unset = sandbox_config(&dir, "unset.toml", &sandbox.url, "");
    let out = doctor(&unset, "SANDBOX-MODE-live-1");
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
    assert!(
        line(&out, "reference").contains(", mode \"live\", in "),
        "{}",
        stdout_of(&out)
    );
    assert_eq!(
        line(&out, "mode"),
        format!(
            "mode         ok: \"live\"; nothing expects a mode, so an answer of any mode \
             verifies (a test payment's too): if REFERENCE is a real payment of this account, \
             add the line expect_mode = \"live\" under [profiles.default] in {}",
            unset.display()
        )
    );
    let dev = sandbox_config(&dir, "dev.toml", &sandbox.url, "expect_mode = \"dev\"\n");
    let out = doctor(&dev, "SANDBOX-OK-1");
    assert_eq!(out.status.code(), Some(0));
    assert!(line(&out, "mode").starts_with("mode         ok: \"dev\", as expect_mode expects ("));
    let out = doctor(&dev, "SANDBOX-MODE-live-1");
    assert_eq!(out.status.code(), Some(4), "{}", stdout_of(&out));
    assert!(
        line(&out, "mode").starts_with(
            "mode         FAIL: the answer's mode is \"live\", but \"dev\" is expected ("
        ),
        "{}",
        stdout_of(&out)
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &dev)
        .args(["doctor", "-o", "json", "--", "SANDBOX-MODE-live-1"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let checks = json["checks"].as_array().unwrap();
    let mode = checks.iter().find(|c| c["check"] == "mode").unwrap();
    assert_eq!(mode["details"]["mode"], "live");
    assert_eq!(mode["details"]["expect_mode"], "dev");
    assert_eq!(mode["exit"], 4);
}

// ---- 14. Every expectation tried end to end against the sandbox ----------------------------

#[test]
fn item_14_every_expectation_can_be_tried_against_the_sandbox() {
    let verify = |args: &[&str]| {
        payverify()
            .args(["verify", "--sandbox"])
            .args(args)
            .output()
            .unwrap()
    };
    for (args, code, why) in [
        (
            &["--expect-currency", "NGN", "SANDBOX-CURRENCY-USD-1"][..],
            4,
            "expected currency NGN, service says USD",
        ),
        (
            &["--expect-currency", "usd", "SANDBOX-CURRENCY-USD-1"],
            0,
            "",
        ),
        (
            &[
                "--hmac",
                "require",
                "--expect-currency",
                "USD",
                "SANDBOX-CURRENCY-USD-1",
            ],
            0,
            "",
        ),
        (
            &[
                "--expect-merchant-ref",
                "ORDER-17",
                "SANDBOX-MERCHANT-ORDER-17",
            ],
            0,
            "",
        ),
        (
            &[
                "--expect-merchant-ref",
                "ORDER-17",
                "SANDBOX-MERCHANT-ORDER-18",
            ],
            4,
            "expected merchant ref \"ORDER-17\", service says \"ORDER-18\"",
        ),
        (
            &[
                "--expect-merchant-ref",
                "ORDER-17",
                "SANDBOX-MERCHANT-ORDER-17x",
            ],
            4,
            "service says \"ORDER-17x\"",
        ),
        (
            &["SANDBOX-CODE-10-1"],
            4,
            "status is SUCCESSFUL but code is '10'",
        ),
        (&["SANDBOX-CODE-00-1"], 0, ""),
        (
            &["--expect-mode", "dev", "SANDBOX-MODE-test-1"],
            4,
            "expected mode \"dev\", service says \"test\"",
        ),
        (
            &["SANDBOX-NOHMAC-1"],
            0,
            "warning: the response has no hmac",
        ),
        (
            &["--hmac", "require", "SANDBOX-NOHMAC-1"],
            4,
            "check failed for 'SANDBOX-NOHMAC-1': the response has no hmac",
        ),
        (
            &[
                "--expect-amount",
                "40000",
                "--expect-amount-kobo",
                "1",
                "SANDBOX-OK-1",
            ],
            2,
            "",
        ),
    ] {
        let out = verify(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            stderr_of(&out)
        );
        assert!(
            stderr_of(&out).contains(why),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
    // The table in --help: every row once, in an 80-column terminal without a line clap had
    // to wrap, an answer too long for its column wrapped under itself.
    let out = payverify()
        .env("COLUMNS", "80")
        .args(["sandbox", "--help"])
        .output()
        .unwrap();
    let help = stdout_of(&out);
    for line in help.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    let lines: Vec<&str> = help.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("  0000000000000044177 "))
        .unwrap();
    let column = lines[first].find("the documented sample").unwrap();
    let mut i = first;
    for row in MAGIC_REFERENCES {
        assert!(
            lines[i].starts_with(&format!("  {} ", row.pattern)),
            "{}: {}",
            row.pattern,
            lines[i]
        );
        let mut answer = lines[i][column..].to_owned();
        i += 1;
        while lines[i].len() > column && lines[i][..column].trim().is_empty() {
            answer.push(' ');
            answer.push_str(&lines[i][column..]);
            i += 1;
        }
        assert_eq!(answer, row.answer);
    }
    // The banner lists the same table.
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin!("payverify"))
        .args(["sandbox", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut banner = String::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    while !banner.contains("Stop with Ctrl-C.") {
        if reader.read_line(&mut banner).unwrap() == 0 {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(banner.contains(&payverify_magic_section()), "{banner}");
}

/// The table as `sandbox --help` prints it, from its first row to its last.
fn payverify_magic_section() -> String {
    let help = stdout_of(
        &payverify()
            // The banner's table is laid out for an 80-column terminal, as help's is at 80.
            .env("COLUMNS", "80")
            .args(["sandbox", "--help"])
            .output()
            .unwrap(),
    );
    let start = help.find("  0000000000000044177 ").unwrap();
    let end = help.find("\nCredentials:").unwrap();
    help[start..end].trim_end().to_owned()
}

#[test]
fn item_14_the_documented_gate_examples_on_the_sandbox_exit_as_commented() {
    let page = gate_page();
    let block = page
        .split("```sh\n")
        .find(|b| b.starts_with("payverify gate --sandbox"))
        .unwrap();
    let mut seen = 0;
    for line in block.lines().take_while(|l| !l.starts_with("```")) {
        let (command, code) = line.rsplit_once('#').unwrap();
        let code: i32 = code.trim().parse().unwrap();
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = payverify().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{line}: {}", stderr_of(&out));
        seen += 1;
    }
    assert_eq!(seen, 3);
}
