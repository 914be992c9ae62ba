//! Issue 27, items 7 to 13: what a careless operator's config file, `config init`,
//! `config show` and `doctor` do with near misses, through the real binary.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::Standalone;
use crate::common::{RawServer, TempDir, payverify, stderr_of, stdout_of};

/// `payverify sandbox` on a free port (quiet), stopped when dropped: it checks Authorization
/// exactly as the service does.
fn sandbox() -> Standalone {
    Standalone::start(&["-q"])
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A private config file holding `text`.
fn config(dir: &TempDir, text: &str) -> PathBuf {
    let path = dir.write("config.toml", text);
    set_mode(&path, 0o600);
    path
}

/// A `[profiles.NAME]` table on `url` with the sandbox's credentials, and `extra` lines.
fn profile(name: &str, url: &str, extra: &str) -> String {
    format!(
        "[profiles.{name}]\nbase_url = \"{url}\"\nclient_id = \"sandbox\"\n\
         client_secret = \"sandbox-secret\"\n{extra}"
    )
}

fn run(config: &Path, args: &[&str]) -> Output {
    payverify()
        .env("PAYVERIFY_CONFIG", config)
        .args(args)
        .output()
        .unwrap()
}

fn show_json(config: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = run(config, &[args, &["config", "show", "-o", "json"]].concat());
    let json = serde_json::from_str(&stdout_of(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout_of(&out)));
    (out.status.code(), json, stderr_of(&out))
}

// ---- 7. Every duration key takes the same forms ------------------------------------------

#[test]
fn item_07_every_duration_key_takes_the_same_forms() {
    let dir = TempDir::new("durations");
    let forms: [(&str, f64); 9] = [
        ("\"30s\"", 30.0),
        ("30", 30.0),
        ("\"30\"", 30.0),
        ("\"30 s\"", 30.0),
        ("\"30s \"", 30.0),
        ("2.5", 2.5),
        ("\"2.5\"", 2.5),
        ("\"1m 30s\"", 90.0),
        // A TOML float written with an exponent is a number like any other.
        ("1e3", 1000.0),
    ];
    for key in ["timeout", "wait"] {
        for (written, seconds) in forms {
            let path = config(
                &dir,
                &profile(
                    "default",
                    "https://pay.example",
                    &format!("{key} = {written}\n"),
                ),
            );
            let (code, json, stderr) = show_json(&path, &[]);
            assert_eq!(code, Some(0), "{key} = {written}: {stderr}");
            assert_eq!(
                json["settings"][key]["seconds"].as_f64(),
                Some(seconds),
                "{key} = {written}: {json:#}"
            );
            assert!(
                json["settings"][key]["source"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("[profiles.default] {key}")),
                "{json:#}"
            );
        }
        // The flags take the same words (and refuse the same near misses, exit 2).
        for flag in ["30s", "30", "2.5", "30 s", "1m 30s"] {
            let out = payverify()
                .args(["verify", "--sandbox", "-q", &format!("--{key}"), flag])
                .arg("SANDBOX-OK-1")
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "--{key} {flag}: {}",
                stderr_of(&out)
            );
        }
        for flag in ["-1s", "1e3", "30 parsecs", "+5"] {
            let out = payverify()
                .args(["verify", "--sandbox", &format!("--{key}"), flag])
                .arg("SANDBOX-OK-1")
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "--{key} {flag}");
            assert_eq!(stdout_of(&out), "");
        }
    }
    // Near misses: exit 6, one line naming the key and why, never the value.
    for (key, written, why) in [
        ("timeout", "\"-1s\"", "timeout in "),
        ("timeout", "-1", "is negative"),
        (
            "timeout",
            "\"1e3\"",
            "is not a duration such as 90s, 5m or 1h",
        ),
        (
            "timeout",
            "\"30 parsecs\"",
            "is not a duration such as 90s, 5m or 1h",
        ),
        (
            "timeout",
            "\"3601\"",
            "is longer than the longest timeout, 3600 seconds",
        ),
        (
            "timeout",
            "99999999999999999999",
            "is longer than the longest timeout",
        ),
        ("timeout", "0", "is shorter than the shortest timeout"),
        ("timeout", "\"s3cr3t-pasted-here\"", "is not a duration"),
        (
            "wait",
            "\"-1s\"",
            "wait is negative; a wait is from 0 to 24h",
        ),
        ("wait", "\"25h\"", "is longer than the longest wait, 24h"),
        ("wait", "inf", "is not a duration"),
        (
            "timeout",
            "true",
            "key timeout: invalid type: boolean, expected a duration",
        ),
        (
            "wait",
            "[30]",
            "key wait: invalid type: sequence, expected a duration",
        ),
    ] {
        let path = config(
            &dir,
            &profile(
                "default",
                "https://pay.example",
                &format!("{key} = {written}\n"),
            ),
        );
        let out = run(&path, &["verify", "R-1"]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{key} = {written}: {stderr}");
        assert_eq!(stdout_of(&out), "", "{key} = {written}");
        assert_eq!(stderr.lines().count(), 1, "{key} = {written}: {stderr}");
        assert!(stderr.contains(why), "{key} = {written}: {stderr}");
        assert!(stderr.contains(key), "{key} = {written}: {stderr}");
        assert!(!stderr.contains("s3cr3t"), "{stderr}");
    }
}

#[test]
fn item_07_a_timeout_written_as_a_duration_bounds_each_attempt() {
    // A server that accepts and never answers: only the timeout ends the attempt.
    let server = RawServer::start(|stream| {
        std::thread::sleep(Duration::from_secs(60));
        drop(stream);
    });
    let dir = TempDir::new("timeout-string");
    let path = config(
        &dir,
        &format!(
            "[profiles.default]\nbase_url = \"{}\"\nclient_id = \"pk\"\n\
             client_secret = \"long-enough-secret\"\ntimeout = \"1s\"\nretries = 0\n",
            server.url
        ),
    );
    let started = Instant::now();
    let out = run(&path, &["verify", "R-1"]);
    assert_eq!(out.status.code(), Some(7), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("no complete answer within 1s after 1 attempt"),
        "{}",
        stderr_of(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

// ---- 8. A problem in a profile that is not selected is a warning ---------------------------

#[test]
fn item_08_a_typo_in_a_profile_not_in_use_is_a_warning() {
    let sandbox = sandbox();
    let dir = TempDir::new("unused-profile");
    let text = format!(
        "{}\n[profiles.staging]\nbase_url = \"https://staging.paywithbank3d.com\"\n\
         hmca = \"require\"\n\n[profiles.qa]\nbase_url = \"https://qa.example\"\n\
         timeout = \"-1s\"\n\n[profiles.w]\nclient_secret = 12345678901234\n",
        profile("live", &sandbox.url, "")
    );
    let path = config(&dir, &text);

    let out = run(&path, &["--profile", "live", "verify", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("SUCCESSFUL"),
        "{}",
        stdout_of(&out)
    );
    let stderr = stderr_of(&out);
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), 3, "{stderr}");
    let staging = format!(
        "payverify: warning: profile 'staging' in {} is not in use, and could not be read: \
         line 8, key hmca: unknown field `hmca`, expected one of `base_url`, ",
        path.display()
    );
    assert!(
        warnings[0].starts_with(&staging)
            && warnings[0].ends_with("; correct it before that profile is selected"),
        "{stderr}"
    );
    // A value of the wrong type is named by key and type, never shown.
    assert!(
        warnings[1].starts_with("payverify: warning: profile 'w' in ")
            && warnings[1].ends_with(
                "is not in use, and could not be read: line 15, key client_secret: invalid \
                 type: integer, expected a string; correct it before that profile is selected"
            ),
        "{stderr}"
    );
    assert!(
        warnings[2].starts_with("payverify: warning: profile 'qa' in ")
            && warnings[2].contains("is not in use, and its timeout is negative"),
        "{stderr}"
    );
    assert!(!stderr.contains("12345678901234"), "{stderr}");
    // -q: no warning, and the exit status is the verification's.
    let out = run(
        &path,
        &["--profile", "live", "verify", "-q", "SANDBOX-OK-1"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr_of(&out), "");

    // The selected profile stays strict: the same problems are exit 6, one line.
    for (name, why) in [
        ("staging", "line 8, key hmca: unknown field `hmca`"),
        ("qa", "timeout in "),
        ("w", "line 15, key client_secret: invalid type: integer"),
    ] {
        let out = run(&path, &["--profile", name, "verify", "SANDBOX-OK-1"]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{name}: {stderr}");
        assert_eq!(stdout_of(&out), "", "{name}");
        assert!(stderr.lines().any(|l| l.contains(why)), "{name}: {stderr}");
        assert!(!stderr.contains("12345678901234"), "{stderr}");
    }
    // Selected by default_profile is selected too.
    let by_default = config(&dir, &format!("default_profile = \"staging\"\n{text}"));
    let out = run(&by_default, &["verify", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("key hmca: unknown field"),
        "{}",
        stderr_of(&out)
    );
    // Every profile is still listed, the unreadable one too.
    let out = run(&path, &["config", "profiles", "--names"]);
    assert_eq!(stdout_of(&out), "live\nqa\nstaging\nw\n");
    // A typo at the top level concerns every profile: the file is refused.
    let top = config(&dir, &format!("default_profle = \"live\"\n{text}"));
    let out = run(&top, &["--profile", "live", "verify", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(6));
    assert!(
        stderr_of(&out).contains("line 1, key default_profle"),
        "{}",
        stderr_of(&out)
    );
}

// ---- 9. The client id is trimmed as the secret is -----------------------------------------

#[test]
fn item_09_the_client_id_is_trimmed_like_the_secret_from_every_source() {
    let sandbox = sandbox();
    let dir = TempDir::new("client-id-trim");
    // The sandbox answers 401 unless Authorization is exactly Basic base64(sandbox:...).
    let from_file = config(
        &dir,
        &format!(
            "[profiles.default]\nbase_url = \"{}\"\nclient_id = \"sandbox \"\n\
             client_secret = \" sandbox-secret\\n\"\n",
            sandbox.url
        ),
    );
    let out = run(&from_file, &["verify", "-q", "SANDBOX-OK-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let env = |id: &str, quiet: bool| {
        payverify()
            .env("PAYVERIFY_BASE_URL", &sandbox.url)
            .env("PAYVERIFY_CLIENT_ID", id)
            .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret ")
            .args(["verify", "SANDBOX-OK-1"])
            .args(quiet.then_some("-q"))
            .output()
            .unwrap()
    };
    for id in ["sandbox ", " sandbox", "\tsandbox\n"] {
        assert_eq!(env(id, true).status.code(), Some(0), "{id:?}");
    }
    let flag = |id: &str| {
        payverify()
            .env("PAYVERIFY_BASE_URL", &sandbox.url)
            .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret")
            .args(["--client-id", id, "verify", "SANDBOX-OK-1"])
            .output()
            .unwrap()
    };
    let out = flag("sandbox  ");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // What no trimming can make a client id: exit 6 naming the source, before any request.
    let colon = "contains ':', which HTTP Basic authentication cannot carry in a client id \
                 (the first ':' ends it)";
    for (out, source, why) in [
        (flag("   "), "flag --client-id", "is empty"),
        (env("sand:box", false), "env PAYVERIFY_CLIENT_ID", colon),
        (flag(" sand:box"), "flag --client-id", colon),
        (
            env("sand\u{7}box", false),
            "env PAYVERIFY_CLIENT_ID",
            "contains a control character",
        ),
    ] {
        assert_eq!(out.status.code(), Some(6), "{why}");
        assert_eq!(stdout_of(&out), "");
        assert_eq!(
            stderr_of(&out),
            format!("payverify: the client id from {source} {why}\n"),
        );
    }
    // doctor and config show say so.
    let out = run(&from_file, &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
    let stdout = stdout_of(&out);
    let settings = stdout.lines().find(|l| l.starts_with("settings")).unwrap();
    assert!(
        settings.contains(
            "client id sandbox (the whitespace around it was taken off, as around a secret)"
        ),
        "{settings}"
    );
    let (code, json, _) = show_json(&from_file, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(json["settings"]["client_id"]["value"], "sandbox");
    assert_eq!(json["settings"]["client_id"]["trimmed"], true);
    let out = run(&from_file, &["config", "show"]);
    let line = stdout_of(&out)
        .lines()
        .find(|l| l.starts_with("client_id"))
        .unwrap()
        .to_owned();
    assert!(
        line.ends_with("client_id (the whitespace around it taken off)"),
        "{line}"
    );
}

// ---- 10. doctor with no config file mentions config init -----------------------------------

#[test]
fn item_10_doctor_without_a_config_file_points_to_config_init() {
    let out = payverify().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(6));
    let stdout = stdout_of(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "config    ok: file none (/nonexistent/payverify-test-config/payverify/config.toml does \
         not exist; payverify config init writes one); no profile"
    );
    assert!(
        lines[1].starts_with(
            "settings  FAIL: no base URL, no client id, no client secret configured; \
             fix: run payverify config init --client-id ID --client-secret-file PATH (it writes a \
             profile for the live service), or set base URL: "
        ),
        "{stdout}"
    );
    // With a config file, the fix is to complete it, not to write another.
    let dir = TempDir::new("doctor-with-file");
    let path = config(
        &dir,
        "[profiles.default]\nbase_url = \"https://pay.example\"\n",
    );
    let out = run(&path, &["doctor"]);
    assert_eq!(out.status.code(), Some(6));
    assert!(
        !stdout_of(&out).contains("config init"),
        "{}",
        stdout_of(&out)
    );
}

// ---- 11. config init: each line once, the example's real place, the secret file --------

#[test]
fn item_11_config_init_writes_each_line_once_and_says_where_the_example_is() {
    let dir = TempDir::new("init-once");
    let secret = dir.write("live.secret", "live-secret-value-9\n");
    set_mode(&secret, 0o600);
    let path = dir.path().join("conf/config.toml");
    // A relative --client-secret-file, as typed in the directory holding it.
    let out = payverify()
        .current_dir(dir.path())
        .env("PAYVERIFY_CONFIG", &path)
        .args(["config", "init", "--client-id", "pk_live"])
        .args(["--client-secret-file", "live.secret"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "payverify: wrote profile 'live'; next, check it: payverify --profile live doctor\n"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("# One secret source").count(), 1, "{text}");
    assert!(!text.contains("# client_secret_file"), "{text}");
    // Written absolute, so a cron job in another directory reads the same file.
    assert!(
        text.contains(&format!(
            "\nclient_secret_file = \"{}\"\n",
            secret.display()
        )),
        "{text}"
    );
    assert!(
        text.starts_with(
            "# payverify configuration. Every key is explained in config.example.toml: the \
             .deb installs it\n# as /usr/share/doc/payverify/config.example.toml"
        ),
        "{text}"
    );
    for (line, once) in text.lines().map(|l| (l, text.matches(l).count())) {
        if line.starts_with('#') && !line.starts_with("# payverify") {
            assert_eq!(once, 1, "{line:?} twice: {text}");
        }
    }
    // The header's claim holds: the .deb and the release archives carry the file.
    let cargo = include_str!("../../Cargo.toml");
    assert!(cargo.contains(
        "[\"config.example.toml\", \"usr/share/doc/payverify/config.example.toml\", \"644\"]"
    ));
    let release = include_str!("../../scripts/release.sh");
    assert!(release.contains("config.example.toml \"$top/\""));

    // --force replaces the profile and leaves nothing of the old one.
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &path)
        .args(["config", "init", "--force", "--client-id", "pk_new"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("pk_live") && !text.contains("live.secret"),
        "{text}"
    );
    for hint in [
        "# One secret source",
        "# client_secret_file = ",
        "# ca_cert = ",
    ] {
        assert_eq!(text.matches(hint).count(), 1, "{hint}: {text}");
    }
    assert!(
        text.contains("default_profile = \"live\"\n\n[profiles.live]\n"),
        "{text}"
    );

    // A secret file that is not there yet: written, with a warning and what to do next.
    let later = dir.path().join("later.secret");
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &path)
        .args(["--profile", "qa", "config", "init", "--client-id", "pk_qa"])
        .arg("--client-secret-file")
        .arg(&later)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        format!(
            "payverify: warning: the client secret file cannot be used yet: cannot read {0}: no \
             such file; the profile is written, and verifies nothing until the file holds the \
             secret\npayverify: wrote profile 'qa'; next, put the client secret in {0}\n",
            later.display()
        )
    );
    let out = run(&path, &["--profile", "qa", "config", "show"]);
    assert_eq!(
        out.status.code(),
        Some(6),
        "not usable until the file is there"
    );
    std::fs::write(&later, "qa-secret-value-12\n").unwrap();
    set_mode(&later, 0o600);
    let out = run(&path, &["--profile", "qa", "config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // A secret file others can read: written, and the warning says how to fix it.
    let open = dir.write("open.secret", "open-secret-value-1\n");
    set_mode(&open, 0o644);
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &path)
        .args([
            "--profile",
            "dev",
            "config",
            "init",
            "--client-id",
            "pk_dev",
        ])
        .arg("--client-secret-file")
        .arg(&open)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr_of(&out).starts_with(&format!(
            "payverify: warning: {0} holds a client secret and is readable by others (mode \
             644); run: chmod 600 {0}\n",
            open.display()
        )),
        "{}",
        stderr_of(&out)
    );
}

// ---- 12. doctor says each thing once ------------------------------------------------------

#[test]
fn item_12_doctor_names_the_config_path_once_per_line_and_each_fix_once() {
    let sandbox = sandbox();
    let dir = TempDir::new("doctor-once");
    let path = dir.write("config.toml", profile("default", &sandbox.url, ""));
    set_mode(&path, 0o644);
    let out = run(&path, &["doctor"]);
    let stdout = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let shown = path.display().to_string();
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {stdout}"))
            .to_owned()
    };
    let settings = line("settings");
    assert!(!settings.contains(&shown), "{settings}");
    assert_eq!(
        settings,
        format!(
            "settings     ok: from profile 'default': base URL {}, client id sandbox, client \
             secret set (not shown)",
            sandbox.url
        )
    );
    let config = line("config");
    assert_eq!(
        config,
        format!(
            "config       warn: file {shown}; profile 'default' (named default, and no \
             default_profile names another); {shown} holds a client secret and is readable by \
             others (mode 644); fix: chmod 600 {shown}"
        )
    );
    assert!(!stdout.contains("run: chmod"), "{stdout}");
    // Sources that differ are each named once, in order.
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &path)
        .env("PAYVERIFY_BASE_URL", &sandbox.url)
        .args(["--client-id", "sandbox", "doctor"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    let settings = stdout.lines().find(|l| l.starts_with("settings")).unwrap();
    assert!(
        settings.starts_with(&format!(
            "settings     warn: from env PAYVERIFY_BASE_URL: base URL {}; from flag \
             --client-id: client id sandbox; from profile 'default': client secret set (not \
             shown); PAYVERIFY_BASE_URL overrides the profile's base_url",
            sandbox.url
        )),
        "{settings}"
    );
}

// ---- 13. config show -o json ---------------------------------------------------------------

#[test]
fn item_13_config_show_json_is_for_scripts_and_never_holds_a_secret() {
    let dir = TempDir::new("show-json");
    let secret = "zq-inline-secret-4471";
    let path = config(
        &dir,
        &format!(
            "default_profile = \"live\"\n[profiles.live]\nbase_url = \"https://pay.example\"\n\
             client_id = \"pk_live\"\nclient_secret = \"{secret}\"\ntimeout = \"45s\"\n\
             proxy = \"http://ops:pr0xy-pass-981@proxy.example:3128\"\n"
        ),
    );
    let (code, json, stderr) = show_json(&path, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(json["ok"], true);
    assert_eq!(json["exit"], 0);
    assert_eq!(json["config"]["value"], path.display().to_string());
    assert_eq!(json["config"]["loaded"], true);
    assert_eq!(json["profile"]["value"], "live");
    let s = &json["settings"];
    assert_eq!(s["base_url"]["value"], "https://pay.example");
    assert_eq!(
        s["base_url"]["source"],
        format!("{} [profiles.live] base_url", path.display())
    );
    assert_eq!(s["client_secret"]["value"], "<redacted>");
    assert_eq!(s["client_secret"]["from"], "value");
    assert_eq!(s["timeout"]["seconds"], 45.0);
    assert_eq!(s["retries"]["value"], 2);
    assert_eq!(s["retries"]["source"], "default");
    assert_eq!(s["proxy"]["value"], "http://<redacted>@proxy.example:3128");
    assert_eq!(s["ca_cert"]["value"], serde_json::Value::Null);
    assert_eq!(s["ca_cert"]["source"], serde_json::Value::Null);
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "base_url",
            "client_id",
            "client_secret",
            "auth_style",
            "timeout",
            "retries",
            "wait",
            "give_up_after",
            "hmac",
            "expect_mode",
            "proxy",
            "ca_cert",
            "journal"
        ]
    );
    let out = run(&path, &["config", "show", "-o", "json"]);
    for leak in [secret, "pr0xy-pass-981"] {
        assert!(!stdout_of(&out).contains(leak), "{leak}");
        assert!(!stderr_of(&out).contains(leak), "{leak}");
    }

    // The secret pasted into another key, and the environment beating the profile: the
    // value is redacted, the override a warning in the object and on stderr.
    let pasted = config(
        &dir,
        &format!(
            "[profiles.default]\nbase_url = \"https://pay.example\"\nclient_id = \"{secret}\"\n\
             client_secret = \"{secret}\"\n"
        ),
    );
    let out = payverify()
        .env("PAYVERIFY_CONFIG", &pasted)
        .env("PAYVERIFY_BASE_URL", "https://other.example")
        .args(["config", "show", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout_of(&out).contains(secret), "{}", stdout_of(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(json["settings"]["client_id"]["value"], "<redacted>");
    assert_eq!(
        json["settings"]["base_url"]["source"],
        "env PAYVERIFY_BASE_URL"
    );
    assert_eq!(
        json["warnings"][0],
        "PAYVERIFY_BASE_URL is set and overrides base_url from the config profile"
    );

    // A configuration that cannot work: still one JSON object, naming the problem; exit 6.
    let broken = config(
        &dir,
        "[profiles.default]\nbase_url = \"https://pay.example\"\nclient_id = \"pk\"\n\
         client_secret_file = \"/nonexistent/x.secret\"\n",
    );
    let (code, json, stderr) = show_json(&broken, &[]);
    assert_eq!(code, Some(6), "{stderr}");
    assert_eq!(json["ok"], false);
    assert_eq!(json["exit"], 6);
    assert_eq!(json["problems"][0]["key"], "client_secret");
    assert_eq!(json["problems"][0]["broken"], true);
    assert_eq!(
        json["settings"]["client_secret"]["problems"][0]["broken"],
        true
    );
    // A file that cannot be read at all: the object says so, and nothing else.
    let invalid = config(&dir, "[profiles.default]\nbase_url = \n");
    let (code, json, _) = show_json(&invalid, &[]);
    assert_eq!(code, Some(6));
    assert_eq!(json["ok"], false);
    assert_eq!(json["settings"], serde_json::Value::Null);
    assert!(
        json["errors"][0]
            .as_str()
            .unwrap()
            .contains("is invalid: line 2"),
        "{json:#}"
    );
    // Nothing but the object on stdout, also on a bad -o.
    let out = run(&path, &["config", "show", "-o", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout_of(&out), "");
}
