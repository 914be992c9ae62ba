//! `payverify doctor` through the real binary, against the sandbox and hostile local servers.

use std::io::Write;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::*;
use payverify::sandbox::{self, Sandbox};
use payverify::{Level, Log};
use predicates::prelude::*;

fn sandbox() -> Sandbox {
    Sandbox::start(
        sandbox::Options {
            port: 0,
            latency: Duration::ZERO,
            log_requests: false,
            tls: false,
            rate_limit: None,
            memory: None,
        },
        Log::new(Level::Quiet),
    )
    .unwrap()
}

/// doctor with the sandbox's credentials for `url` in the environment.
fn doctor_at(url: &str, secret: &str) -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_BASE_URL", url)
        .env("PAYVERIFY_CLIENT_ID", sandbox::CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", secret)
        .arg("doctor");
    cmd
}

/// The check names and statuses of a text report, in order.
fn statuses(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or("").to_owned();
            let status = words.next().unwrap_or("").trim_end_matches(':').to_owned();
            (name, status)
        })
        .collect()
}

#[test]
fn all_ok_against_the_sandbox_with_the_hmac_recommendation() {
    let sb = sandbox();
    let out = doctor_at(sb.url(), sandbox::CLIENT_SECRET)
        .arg(sandbox::SAMPLE_REFERENCE)
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", stderr_of(&out));
    let names: Vec<(String, String)> = statuses(&stdout);
    let want = [
        "config",
        "settings",
        "journal",
        "base_url",
        "resolve",
        "connect",
        "tls",
        "credentials",
        "reference",
        "hmac",
        "mode",
    ];
    assert_eq!(
        names,
        want.iter()
            .map(|n| (n.to_string(), "ok".to_string()))
            .collect::<Vec<_>>(),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok: the hmac verifies; you can set hmac = \"require\""),
        "{stdout}"
    );
    assert!(stdout.contains("status \"SUCCESSFUL\", code 00, ₦40,000.00 (4000000 kobo)"));
    assert!(stdout.contains("with a JSON 404"), "{stdout}");
    assert!(!stdout.contains(sandbox::CLIENT_SECRET), "{stdout}");
    assert_eq!(stderr_of(&out), "payverify: doctor: all 11 checks ok\n");
}

#[test]
fn the_recommendation_names_the_profile_and_file() {
    let sb = sandbox();
    let dir = TempDir::new("doctor-profile");
    let secret = dir.write("secret", format!("{}\n", sandbox::CLIENT_SECRET));
    #[cfg(unix)]
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let config = dir.write(
        "config.toml",
        format!(
            "default_profile = \"live\"\n[profiles.live]\nbase_url = \"{}\"\nclient_id = \"sandbox\"\n\
             client_secret_file = \"{}\"\n",
            sb.url(),
            secret.display()
        ),
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["doctor", "SANDBOX-OK-1"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("profile 'live' (the file's default_profile)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "add the line hmac = \"require\" under [profiles.live] in {}",
            config.display()
        )),
        "{stdout}"
    );
    // Already required: no advice to set it again.
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["doctor", "SANDBOX-OK-1", "--hmac", "require"])
        .output()
        .unwrap();
    assert!(
        stdout_of(&out).contains("hmac = \"require\" is already set (flag --hmac)"),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn a_bad_hmac_is_a_warning_showing_what_was_signed() {
    let sb = sandbox();
    let out = doctor_at(sb.url(), sandbox::CLIENT_SECRET)
        .arg("SANDBOX-BADHMAC-7")
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings allow exit 0: {stdout}"
    );
    let hmac = stdout.lines().find(|l| l.starts_with("hmac")).unwrap();
    assert!(
        hmac.starts_with("hmac         warn: the hmac does not verify under this secret"),
        "{hmac}"
    );
    // The signed text: merchantRef + currencyCode + amount.
    assert!(hmac.contains("NGN4000000\""), "{hmac}");
    assert!(
        hmac.contains("merchantRef + currencyCode + amount"),
        "{hmac}"
    );
    assert!(hmac.contains("; fix: "), "{hmac}");
    assert!(stderr_of(&out).contains("1 warning"), "{}", stderr_of(&out));
}

#[test]
fn wrong_secret_fails_at_credentials_with_exit_5() {
    let sb = sandbox();
    let out = doctor_at(sb.url(), "not-the-secret-4x")
        .arg(sandbox::SAMPLE_REFERENCE)
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(5), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("credentials  FAIL: the service rejected the credentials (HTTP 401"));
    // The fix names where the credentials came from.
    assert!(
        last.contains("client id (from env PAYVERIFY_CLIENT_ID)"),
        "{last}"
    );
    assert!(
        last.contains("client secret (from env PAYVERIFY_CLIENT_SECRET)"),
        "{last}"
    );
    // It stopped there: the reference was not verified.
    assert!(!stdout.contains("\nreference"), "{stdout}");
    assert!(!stdout.contains("not-the-secret-4x"));
    assert!(stderr_of(&out).contains("credentials FAILED (exit 5)"));
}

/// A secret verify refuses (too short) fails the settings check with verify's exit 6 and
/// verify's reason, where doctor used to pass it on to the credentials probe.
#[test]
fn a_secret_verify_refuses_as_too_short_fails_settings_with_exit_6() {
    let sb = sandbox();
    let verify = payverify()
        .env("PAYVERIFY_BASE_URL", sb.url())
        .env("PAYVERIFY_CLIENT_ID", sandbox::CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", "abc")
        .args(["verify", sandbox::SAMPLE_REFERENCE])
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(6));
    assert!(stderr_of(&verify).contains("is shorter than 8 characters"));

    let out = doctor_at(sb.url(), "abc").output().unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(6), "{stdout}");
    let settings = stdout.lines().find(|l| l.starts_with("settings")).unwrap();
    assert_eq!(
        settings,
        "settings  FAIL: the client secret from env PAYVERIFY_CLIENT_SECRET is shorter than 8 \
         characters; fix: correct that source (payverify config show lists every setting and its \
         source)"
    );
    // The network is still checked; the credentials, which need a usable secret, are not.
    let names: Vec<String> = statuses(&stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "config", "settings", "journal", "base_url", "resolve", "connect", "tls"
        ]
    );
    assert_eq!(
        stderr_of(&out),
        "payverify: doctor: settings FAILED (exit 6)\n"
    );
}

#[test]
fn wrong_port_is_exit_7_at_connect() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let out = doctor_at(&format!("http://127.0.0.1:{port}"), SECRET)
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "connect   FAIL: cannot connect to 127.0.0.1:{port}"
        )),
        "{last}"
    );
    assert!(last.contains("fix: check the port"), "{last}");
}

#[test]
fn a_web_server_serving_html_404s_is_exit_8() {
    let server = RawServer::start(|mut stream| {
        read_head(&mut stream);
        let body = "<html><body><h1>404 Not Found</h1></body></html>";
        let _ = write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let out = doctor_at(&server.url, SECRET).output().unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(8), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("credentials  FAIL: HTTP 404 that is not JSON"),
        "{last}"
    );
    assert!(last.contains("the base URL is probably wrong"), "{last}");
}

#[test]
fn base_url_with_the_operation_path_is_exit_6() {
    let sb = sandbox();
    for suffix in [
        "/api/payment/verify",
        "/api/payment/verify/",
        "/API/Payment",
    ] {
        let url = format!("{}{suffix}", sb.url());
        let out = doctor_at(&url, sandbox::CLIENT_SECRET).output().unwrap();
        let stdout = stdout_of(&out);
        assert_eq!(out.status.code(), Some(6), "{url}: {stdout}");
        let last = stdout.lines().last().unwrap();
        assert!(last.starts_with("base_url  FAIL: "), "{last}");
        assert!(last.contains("already holds the operation path"), "{last}");
        assert!(
            last.ends_with(&format!("fix: set the base URL to {}", sb.url())),
            "{last}"
        );
    }
    // A prefix that is not the operation path is kept, and works.
    doctor_at(&format!("{}/", sb.url()), sandbox::CLIENT_SECRET)
        .assert()
        .code(0);
}

#[test]
fn base_url_refusals_are_exit_6_without_quoting_userinfo() {
    let out = doctor_at("https://cid:S3CRET-pw@127.0.0.1:9", SECRET)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
    assert!(all.contains("must not carry credentials"), "{all}");
    assert!(!all.contains("S3CRET"), "{all}");
    doctor_at("http://gateway.example", SECRET)
        .assert()
        .code(6)
        .stdout(predicate::str::contains(
            "base_url  FAIL: base URL 'http://gateway.example' uses plain http",
        ));
}

fn config_with_secret_command(dir: &TempDir, url: &str, command: &str) -> std::path::PathBuf {
    dir.write(
        "config.toml",
        format!(
            "default_profile = \"p\"\n[profiles.p]\nbase_url = \"{url}\"\nclient_id = \"sandbox\"\n\
             client_secret_command = {command}\n"
        ),
    )
}

#[test]
fn a_failing_secret_command_is_exit_6_and_the_network_is_still_checked() {
    let sb = sandbox();
    let dir = TempDir::new("doctor-cmd");
    let config = config_with_secret_command(
        &dir,
        sb.url(),
        r#"["sh", "-c", "printf '%s-%s' leaked output; exit 3"]"#,
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(6), "{stdout}");
    let settings = stdout.lines().find(|l| l.starts_with("settings")).unwrap();
    assert!(
        settings.starts_with("settings  FAIL: client_secret_command"),
        "{settings}"
    );
    assert!(settings.contains("exited with status 3"), "{settings}");
    assert!(!stdout.contains("leaked-output"), "{stdout}");
    // The network does not need the secret, so it is still checked; credentials are not.
    let names: Vec<String> = statuses(&stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "config", "settings", "journal", "base_url", "resolve", "connect", "tls"
        ]
    );
}

#[test]
fn the_secret_command_is_run_and_its_secret_used() {
    let sb = sandbox();
    let dir = TempDir::new("doctor-cmd-ok");
    let config = config_with_secret_command(
        &dir,
        sb.url(),
        r#"["sh", "-c", "printf '%s-%s' sandbox secret"]"#,
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["doctor", "SANDBOX-OK-2"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // Never the command's arguments (one can hold a session token), in text or JSON.
    assert!(
        stdout.contains("client secret printed by `sh` (2 arguments, not shown);")
            || stdout.contains("client secret printed by `sh` (2 arguments, not shown)\n")
            || stdout.contains("client secret printed by `sh` (2 arguments, not shown) "),
        "{stdout}"
    );
    assert!(!stdout.contains("printf"), "{stdout}");
    let json = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["doctor", "-o", "json", "SANDBOX-OK-2"])
        .output()
        .unwrap();
    assert!(!stdout_of(&json).contains("printf"), "{}", stdout_of(&json));
    assert!(
        stdout.contains("hmac         ok: the hmac verifies"),
        "{stdout}"
    );
}

#[test]
fn timeout_bounds_each_step() {
    // A secret command that never finishes, and a server that accepts and never answers:
    // each is cut off at --timeout, far inside the 60 s a secret command otherwise gets.
    let dir = TempDir::new("doctor-timeout");
    let silent = RawServer::start(|mut stream| {
        read_head(&mut stream);
        std::thread::sleep(Duration::from_secs(60));
    });
    let config = config_with_secret_command(&dir, &silent.url, r#""sleep 60""#);
    let started = Instant::now();
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["doctor", "--timeout", "1"])
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(6), "{}", stdout_of(&out));
    assert!(stdout_of(&out).contains("did not finish within 1 s"));

    let started = Instant::now();
    let out = doctor_at(&silent.url, SECRET)
        .args(["--timeout", "1"])
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("credentials  FAIL: no complete answer within 1s"),
        "{last}"
    );
}

#[test]
fn json_is_one_object_with_the_checks_and_no_secret() {
    // A service that echoes the Authorization header and the secret back in its 404.
    let server = RawServer::start(|mut stream| {
        let head = read_head(&mut stream);
        let auth = head
            .lines()
            .find_map(|l| {
                l.strip_prefix("authorization: ")
                    .or(l.strip_prefix("Authorization: "))
            })
            .unwrap_or("")
            .to_owned();
        let body = serde_json::json!({ "message": format!("unknown; you sent {auth} {SECRET}") });
        respond(&mut stream, "404 Not Found", body.to_string().as_bytes());
    });
    let out = payverify_at(&server.url)
        .args(["doctor", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
    for leak in [SECRET, AUTH_STANDARD.trim_start_matches("Basic ")] {
        assert!(!all.contains(leak), "{leak} leaked: {all}");
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["exit"], 0);
    let checks = report["checks"].as_array().unwrap();
    let names: Vec<&str> = checks
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "config",
            "settings",
            "journal",
            "base_url",
            "resolve",
            "connect",
            "tls",
            "credentials"
        ]
    );
    for check in checks {
        assert_eq!(check["status"], "ok", "{check}");
        assert!(check["found"].is_string() && check["details"].is_object());
    }
    let credentials = &checks[7];
    assert_eq!(credentials["details"]["http_status"], 404);
    assert!(credentials["details"]["ms"].is_u64());
    assert!(
        credentials["found"]
            .as_str()
            .unwrap()
            .contains("<redacted>"),
        "{credentials}"
    );
    let settings = &checks[1]["details"];
    assert_eq!(
        settings["client_secret_source"],
        "env PAYVERIFY_CLIENT_SECRET"
    );
    assert_eq!(settings["client_secret_read"], true);

    // A failure: its exit status in the check and at the top.
    let out = doctor_at(&server.url, SECRET)
        .args(["-o", "json", "--base-url", "http://127.0.0.1:9/api/payment"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["exit"], 6);
    let last = report["checks"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["check"], "base_url");
    assert_eq!(last["status"], "FAIL");
    assert_eq!(last["exit"], 6);
    assert!(last["fix"].is_string());
}

#[test]
fn never_prompts_with_stdin_held_open() {
    let sb = sandbox();
    // No credentials at all, and stdin a pipe that stays open and silent: a prompt would
    // hang here.
    for env in [
        vec![],
        vec![("PAYVERIFY_CLIENT_SECRET", sandbox::CLIENT_SECRET)],
    ] {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin!("payverify"));
        command
            .args(["doctor", sandbox::SAMPLE_REFERENCE])
            .env_clear()
            // No journal in the tester's home: see common::payverify.
            .env("PAYVERIFY_JOURNAL", "off")
            .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
            .env("HOME", "/nonexistent/payverify-test-home")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("PAYVERIFY_BASE_URL", sb.url())
            .env("PAYVERIFY_CLIENT_ID", sandbox::CLIENT_ID)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let _held_open = child.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("doctor waited on stdin");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let want = if env.is_empty() { 6 } else { 0 };
        assert_eq!(status.code(), Some(want));
    }
}

#[test]
fn missing_settings_are_named_with_how_to_set_them() {
    let out = payverify().arg("doctor").output().unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(6), "{stdout}");
    // The journal needs no settings, so it is still reported; nothing that asks the service is.
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.last().unwrap().starts_with("journal "), "{stdout}");
    let settings = lines[lines.len() - 2];
    assert!(
        settings.starts_with("settings  FAIL: no base URL configured, no client id configured")
            || settings.starts_with(
                "settings  FAIL: no base URL, no client id, no client secret configured"
            ),
        "{settings}"
    );
    assert!(settings.contains("PAYVERIFY_BASE_URL"), "{settings}");
}

#[cfg(unix)]
#[test]
fn config_warnings_readable_secrets_unpicked_profiles_and_env_overrides() {
    use std::os::unix::fs::PermissionsExt;
    let sb = sandbox();
    let dir = TempDir::new("doctor-warn");
    let secret = dir.write("secret", format!("{}\n", sandbox::CLIENT_SECRET));
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let config = dir.write(
        "config.toml",
        format!(
            "default_profile = \"live\"\n[profiles.live]\nbase_url = \"http://127.0.0.1:9\"\n\
             client_id = \"sandbox\"\nclient_secret_file = \"{}\"\n",
            secret.display()
        ),
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .env("PAYVERIFY_BASE_URL", sb.url())
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "warnings only: {stdout}");
    let settings = stdout.lines().find(|l| l.starts_with("settings")).unwrap();
    assert!(settings.starts_with("settings     warn: "), "{settings}");
    assert!(
        settings.contains("readable by others (mode 644)"),
        "{settings}"
    );
    assert!(
        settings.contains(&format!("chmod 600 {}", secret.display())),
        "{settings}"
    );
    assert!(
        settings.contains("PAYVERIFY_BASE_URL overrides the profile's base_url"),
        "{settings}"
    );
    // The warning is in the report, not repeated on stderr.
    assert!(
        !stderr_of(&out).contains("readable by others"),
        "{}",
        stderr_of(&out)
    );

    // Profiles that nothing selects.
    let unpicked = dir.write(
        "unpicked.toml",
        "[profiles.staging]\nclient_id = \"a\"\n[profiles.live]\nclient_id = \"b\"\n",
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &unpicked)
        .arg("doctor")
        .output()
        .unwrap();
    let config_line = stdout_of(&out).lines().next().unwrap().to_owned();
    assert!(config_line.starts_with("config    warn: "), "{config_line}");
    assert!(
        config_line.contains("profiles (live, staging) are not used"),
        "{config_line}"
    );
    assert!(
        config_line.contains("add default_profile = \"live\""),
        "{config_line}"
    );
    // A profile named 'default' is picked by its name when nothing else picks one.
    let named = dir.write(
        "named.toml",
        "[profiles.default]\nclient_id = \"a\"\n[profiles.live]\nclient_id = \"b\"\n",
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &named)
        .arg("doctor")
        .output()
        .unwrap();
    let config_line = stdout_of(&out).lines().next().unwrap().to_owned();
    assert!(
        config_line.contains("profile 'default' (named default, and no default_profile"),
        "{config_line}"
    );
    assert!(!config_line.contains("not used"), "{config_line}");

    // An unknown key in the profile in use is a FAIL at config, naming the line and key.
    let typo = dir.write("typo.toml", "[profiles.p]\nclient_sekret = \"v4lue-77\"\n");
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &typo)
        .args(["--profile", "p", "doctor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let stdout = stdout_of(&out);
    assert!(stdout.starts_with("config  FAIL: config file "), "{stdout}");
    assert!(stdout.contains("line 2, key client_sekret"), "{stdout}");
    assert!(!stdout.contains("v4lue-77"), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    // In a profile not in use (none is selected here), it is a warning at config, naming
    // the same line and key; the run then fails for want of settings, not for the typo.
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &typo)
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let stdout = stdout_of(&out);
    let config_line = stdout.lines().next().unwrap();
    assert!(config_line.starts_with("config    warn: "), "{stdout}");
    assert!(
        config_line.contains("profile 'p' in ")
            && config_line
                .contains("is not in use, and could not be read: line 2, key client_sekret"),
        "{stdout}"
    );
    assert!(!stdout.contains("v4lue-77"), "{stdout}");
    assert!(
        stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("settings  FAIL: "),
        "{stdout}"
    );
}

#[test]
fn https_to_a_plain_http_server_fails_at_tls() {
    // A plain-http server answers the ClientHello with an HTTP error...
    let answering = RawServer::start(|mut stream| {
        let mut buf = [0u8; 512];
        let _ = std::io::Read::read(&mut stream, &mut buf);
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    });
    // ...or waits for the end of a request head that never comes.
    let sb = sandbox();
    for url in [answering.url.clone(), sb.url().to_owned()] {
        let url = url.replace("http://", "https://");
        let started = Instant::now();
        let out = doctor_at(&url, sandbox::CLIENT_SECRET)
            .args(["--timeout", "2"])
            .output()
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        let stdout = stdout_of(&out);
        assert_eq!(out.status.code(), Some(7), "{stdout}");
        let last = stdout.lines().last().unwrap();
        assert!(
            last.starts_with("tls       FAIL: TLS handshake with 127.0.0.1 failed: "),
            "{last}"
        );
        assert!(last.contains("plain http"), "{last}");
    }
}

#[test]
fn quiet_prints_nothing_and_a_bad_reference_is_a_usage_error() {
    let sb = sandbox();
    doctor_at(sb.url(), "wrong-secret-x")
        .arg("-q")
        .assert()
        .code(5)
        .stdout("")
        .stderr("");
    doctor_at(sb.url(), sandbox::CLIENT_SECRET)
        .arg("bad\u{7}ref")
        .assert()
        .code(2)
        .stdout("");
    // A reference that does not exist is that check's FAIL (exit 3), after all else passed.
    let out = doctor_at(sb.url(), sandbox::CLIENT_SECRET)
        .arg("no-such-ref")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stdout_of(&out)
            .lines()
            .last()
            .unwrap()
            .starts_with("reference    FAIL: no transaction")
    );
}

#[test]
fn doctor_is_documented_in_the_readme_set_up_man_page_and_completions() {
    let page = crate::common::pages::page("docs/configuration.md");
    let setup = &page.text[page.text.find("## Set-up").unwrap()..];
    let configuring = setup.find("payverify config init").unwrap();
    let doctor = setup.find("## Then: `payverify doctor`").unwrap();
    assert!(configuring < doctor, "doctor comes after configuring");
    for name in [
        "config",
        "settings",
        "journal",
        "base_url",
        "resolve",
        "connect",
        "tls",
        "credentials",
    ] {
        assert!(
            setup.contains(&format!("| `{name}` |")),
            "docs/configuration.md lacks the {name} row"
        );
    }
    let out = payverify().arg("man").output().unwrap();
    let page = stdout_of(&out);
    for want in [".SH \"DOCTOR OPTIONS\"", ".SH DOCTOR", "payverify doctor"] {
        assert!(page.contains(want), "man page lacks {want}");
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for file in ["payverify.bash", "_payverify", "payverify.fish"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("doctor"), "completions/{file} lacks doctor");
    }
    payverify()
        .args(["doctor", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "5 credentials rejected, 8 not the service",
        ))
        .stdout(predicate::str::contains("--timeout"))
        .stdout(predicate::str::contains("--retries").not());
}

/// A loopback https server with a certificate from a throwaway CA, answering every request
/// with a JSON 404 as the service does for an unknown reference.
struct TlsServer {
    url: String,
    ca_pem: std::path::PathBuf,
    _dir: TempDir,
}

impl TlsServer {
    fn start(name: &str, valid_for: time::Duration) -> TlsServer {
        TlsServer::with_ca(name, "payverify doctor test CA", valid_for)
    }

    fn with_ca(name: &str, ca_name: &str, valid_for: time::Duration) -> TlsServer {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let dir = TempDir::new(name);
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, ca_name);
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let ca_pem = dir.write("ca.pem", ca_cert.pem());
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "doctor.test");
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + valid_for;
        let cert = params.signed_by(&key, &issuer).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
        let config = std::sync::Arc::new(config);
        let server = RawServer::start(move |stream| {
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                return;
            };
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                match std::io::Read::read(&mut tls, &mut byte) {
                    Ok(1) => head.push(byte[0]),
                    _ => return,
                }
            }
            let body = br#"{"message":"Transaction not found"}"#;
            let _ = write!(
                tls,
                "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = tls.write_all(body);
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
        });
        TlsServer {
            url: server.url.replace("http://", "https://"),
            ca_pem,
            _dir: dir,
        }
    }
}

#[test]
fn tls_facts_with_the_needed_ca_cert() {
    let server = TlsServer::start("doctor-tls", time::Duration::days(90));
    let out = doctor_at(&server.url, SECRET)
        .arg("--ca-cert")
        .arg(&server.ca_pem)
        .args(["-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tls = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "tls")
        .unwrap()
        .clone();
    assert_eq!(tls["status"], "ok", "{tls}");
    let d = &tls["details"];
    assert_eq!(d["version"], "TLSv1.3");
    assert_eq!(d["subject"], "CN=doctor.test");
    assert_eq!(d["issuer"], "CN=payverify doctor test CA");
    let days = d["days_left"].as_i64().unwrap();
    assert!((88..=90).contains(&days), "{days}");
    assert_eq!(d["ca_cert_needed"], true);
    assert!(
        tls["found"].as_str().unwrap().contains("was needed"),
        "{tls}"
    );
    // And the credentials request went through the same roots.
    assert_eq!(
        report["checks"].as_array().unwrap().last().unwrap()["check"],
        "credentials"
    );
}

#[test]
fn an_unknown_ca_is_refused_at_tls_with_exit_7() {
    let server = TlsServer::start("doctor-tls-unknown", time::Duration::days(90));
    let out = doctor_at(&server.url, SECRET).output().unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(7), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("tls       FAIL: TLS handshake with 127.0.0.1 failed"),
        "{last}"
    );
    // What was refused is still described, and the fix is --ca-cert.
    assert!(
        last.contains(
            "its certificate is for CN=doctor.test, issued by CN=payverify doctor test CA"
        ),
        "{last}"
    );
    assert!(
        last.contains("certificate refused: no trusted root signs it"),
        "{last}"
    );
    assert!(last.contains("add its root with --ca-cert"), "{last}");
    // A --ca-cert that does not sign it does not help, and says so.
    let other = TlsServer::with_ca("doctor-tls-other", "another CA", time::Duration::days(90));
    let out = doctor_at(&server.url, SECRET)
        .arg("--ca-cert")
        .arg(&other.ca_pem)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert!(
        stdout_of(&out).contains("neither a Mozilla root nor the roots in"),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn a_certificate_expiring_soon_is_a_warning() {
    let server = TlsServer::start("doctor-tls-soon", time::Duration::days(5));
    let out = doctor_at(&server.url, SECRET)
        .arg("--ca-cert")
        .arg(&server.ca_pem)
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "a warning: {stdout}");
    let tls = stdout.lines().find(|l| l.starts_with("tls")).unwrap();
    assert!(
        tls.starts_with("tls          warn: TLSv1.3; certificate for CN=doctor.test"),
        "{tls}"
    );
    assert!(
        tls.contains("(in 4 days)") || tls.contains("(in 5 days)"),
        "{tls}"
    );
    assert!(
        tls.contains("fix: the certificate expires in under 14 days"),
        "{tls}"
    );
}

#[test]
fn every_bad_value_is_named_at_once_by_doctor_and_config_show() {
    let dir = TempDir::new("doctor-all-bad");
    let config = dir.write(
        "bad.toml",
        "[profiles.p]\nbase_url = \"https://pay.example\"\nclient_id = \"id\"\n\
         timeout = 0\nretries = 99\nhmac = \"sometimes\"\n",
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["--profile", "p", "doctor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    let stdout = stdout_of(&out);
    // The file is fine; its values are not: a settings failure naming all three keys.
    assert!(
        stdout.starts_with("settings  FAIL: timeout in "),
        "{stdout}"
    );
    for key in ["timeout in", "retries in", "hmac in"] {
        assert!(stdout.contains(key), "{key} missing: {stdout}");
    }

    let out = payverify()
        .env("PAYVERIFY_CONFIG", &config)
        .args(["--profile", "p", "config", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert_eq!(stdout_of(&out), "", "nothing to show when nothing resolves");
    let stderr = stderr_of(&out);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    for (line, key) in lines.iter().zip(["timeout", "retries", "hmac"]) {
        assert!(
            line.starts_with(&format!("payverify: {key} in ")) && line.contains("[profiles.p]"),
            "{line}"
        );
    }
}
