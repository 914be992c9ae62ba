//! Shell and team fit: completions, man page, config commands, secret sources, proxies.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use predicates::prelude::*;

const SHELLS: [(&str, &str); 5] = [
    ("bash", "payverify.bash"),
    ("zsh", "_payverify"),
    ("fish", "payverify.fish"),
    ("powershell", "_payverify.ps1"),
    ("elvish", "payverify.elv"),
];

#[test]
fn committed_completions_match_the_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for (shell, file) in SHELLS {
        let out = payverify().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let committed = std::fs::read(dir.join(file)).unwrap_or_default();
        assert!(
            committed == out.stdout,
            "completions/{file} is stale; regenerate it with:\n  \
             cargo run -- completions {shell} > completions/{file}"
        );
    }
}

#[test]
fn man_page_has_the_documented_sections() {
    let out = payverify().arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = stdout_of(&out);
    assert!(
        page.starts_with(".ie") || page.starts_with(".TH"),
        "roff: {}",
        &page[..40]
    );
    for section in [
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH EXAMPLES",
        ".SH \"VERIFY OPTIONS\"",
    ] {
        assert!(page.contains(section), "missing {section}");
    }
    assert!(page.contains("PAYVERIFY_CLIENT_SECRET"));
    assert!(page.contains("130"));
}

fn config_env(dir: &TempDir) -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("XDG_CONFIG_HOME", dir.path());
    cmd
}

#[test]
fn config_path_follows_flag_env_and_xdg() {
    let dir = TempDir::new("config-path");
    let want = dir.path().join("payverify").join("config.toml");
    config_env(&dir)
        .args(["config", "path"])
        .assert()
        .code(0)
        .stdout(format!("{}\n", want.display()))
        .stderr(predicate::str::contains("does not exist yet"));
    config_env(&dir)
        .args(["config", "path"])
        .env("PAYVERIFY_CONFIG", "/tmp/elsewhere.toml")
        .assert()
        .stdout("/tmp/elsewhere.toml\n");
    config_env(&dir)
        .args(["config", "path", "--config", "/tmp/flag.toml"])
        .env("PAYVERIFY_CONFIG", "/tmp/elsewhere.toml")
        .assert()
        .stdout("/tmp/flag.toml\n");
}

#[test]
fn config_init_writes_a_private_file_and_adds_profiles_to_it() {
    let dir = TempDir::new("config-init");
    let path = dir.path().join("payverify").join("config.toml");
    config_env(&dir)
        .args([
            "config",
            "init",
            "--profile",
            "staging",
            "--client-id",
            "pk_staging",
        ])
        .assert()
        .code(0)
        .stdout(format!("{}\n", path.display()));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("[profiles.staging]"));
    assert!(text.contains("base_url = \"https://staging.paywithbank3d.com\""));
    assert!(text.contains("client_id = \"pk_staging\""));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A second profile is added; the first, and the file's default, are kept.
    config_env(&dir)
        .args(["config", "init"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("wrote profile 'live'"));
    let two = std::fs::read_to_string(&path).unwrap();
    assert!(
        two.starts_with(&text),
        "the first profile untouched:\n{two}"
    );
    // The same profile again is refused without --force, and nothing changes.
    config_env(&dir)
        .args(["config", "init", "--profile", "staging"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("already has a profile 'staging'"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), two, "untouched");
    config_env(&dir)
        .args(["config", "init", "--force", "--profile", "staging"])
        .args(["--base-url", "https://gw.example"])
        .assert()
        .code(0);
    let replaced = std::fs::read_to_string(&path).unwrap();
    assert!(replaced.contains("https://gw.example"), "{replaced}");
    assert!(!replaced.contains("pk_staging"), "{replaced}");
    // The written file works: its first profile stays the default.
    config_env(&dir)
        .args(["config", "profiles"])
        .assert()
        .code(0)
        .stdout("live\nstaging (default)\n");
}

#[test]
fn config_init_never_waits_on_stdin() {
    let dir = TempDir::new("config-init-stdin");
    // stdin is a pipe held open and never written: a prompt would block forever.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
        .args(["config", "init"])
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _held_open = child.stdin.take();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("config init waited on stdin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert!(dir.path().join("payverify/config.toml").exists());
}

#[test]
fn config_show_gives_values_and_sources_and_points_out_env_overrides() {
    let dir = TempDir::new("config-show");
    let secret_file = dir.write("live.secret", format!("{SECRET}\n"));
    let config = dir.write(
        "config.toml",
        format!(
            "default_profile = \"live\"\n[profiles.live]\nbase_url = \"https://live.example\"\n\
             client_id = \"pk_live\"\nclient_secret_file = \"{}\"\nhmac = \"require\"\n\
             [profiles.staging]\nbase_url = \"https://staging.example\"\n",
            secret_file.display()
        ),
    );
    let out = payverify()
        .args(["config", "show", "--config"])
        .arg(&config)
        .env("PAYVERIFY_BASE_URL", "https://env.example")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = stdout_of(&out);
    let line = |key: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} line in\n{stdout}"))
            .to_owned()
    };
    assert!(line("profile").contains("live") && line("profile").contains("default_profile"));
    assert!(line("base_url").contains("https://env.example"));
    assert!(line("base_url").contains("env PAYVERIFY_BASE_URL"));
    assert!(line("client_id").contains("[profiles.live] client_id"));
    assert!(line("client_secret").contains("<redacted>"));
    assert!(line("client_secret").contains("client_secret_file"));
    assert!(line("hmac").contains("require"));
    assert!(line("timeout").contains("default"));
    assert!(!stdout.contains(SECRET));
    assert!(!stderr_of(&out).contains(SECRET));
    assert!(
        stderr_of(&out).contains("PAYVERIFY_BASE_URL is set and overrides base_url"),
        "{}",
        stderr_of(&out)
    );
    payverify()
        .args(["config", "profiles", "--config"])
        .arg(&config)
        .assert()
        .stdout("live (default)\nstaging\n");
}

/// `config show` on one profile: its exit status, stdout, stderr.
fn config_show(config: &std::path::Path, profile: &str) -> (Option<i32>, String, String) {
    let out = payverify()
        .args(["config", "show", "--profile", profile, "--config"])
        .arg(config)
        .env_remove("PAYVERIFY_BASE_URL")
        .env_remove("PAYVERIFY_CLIENT_ID")
        .env_remove("PAYVERIFY_CLIENT_SECRET")
        .output()
        .unwrap();
    (out.status.code(), stdout_of(&out), stderr_of(&out))
}

/// The `key` line of a `config show` table.
fn show_line(stdout: &str, key: &str) -> String {
    stdout
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} line in\n{stdout}"))
        .to_owned()
}

#[test]
fn config_show_exits_6_and_marks_each_broken_secret_source() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("config-show-broken");
    let private = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let good = dir.write("good.secret", format!("{SECRET}\n"));
    private(&good, 0o600);
    let empty = dir.write("empty.secret", "");
    private(&empty, 0o600);
    let blank = dir.write("blank.secret", "\u{feff}  \n\t\n");
    private(&blank, 0o600);
    let short = dir.write("short.secret", "abc\n");
    private(&short, 0o600);
    let shared = dir.write("shared.secret", format!("{SECRET}\n"));
    private(&shared, 0o644);
    let not_exec = dir.write("not-exec", "#!/bin/sh\necho x\n");
    private(&not_exec, 0o644);
    let subdir = dir.path().join("a-directory");
    std::fs::create_dir(&subdir).unwrap();
    let complete = "base_url = \"https://x.example\"\nclient_id = \"pk\"\n";
    let file_profile = |name: &str, path: &std::path::Path| {
        format!(
            "[profiles.{name}]\n{complete}client_secret_file = \"{}\"\n",
            path.display()
        )
    };
    let text = [
        file_profile("good", &good),
        file_profile("missing", &dir.path().join("nope.secret")),
        file_profile("empty", &empty),
        file_profile("blank", &blank),
        file_profile("short", &short),
        file_profile("dir", &subdir),
        file_profile("shared", &shared),
        format!("[profiles.nocmd]\n{complete}client_secret_command = \"no-such-pm-7q2 show x\"\n"),
        format!(
            "[profiles.notexec]\n{complete}client_secret_command = [\"{}\"]\n",
            not_exec.display()
        ),
        format!("[profiles.shortvalue]\n{complete}client_secret = \"   \"\n"),
        format!("[profiles.nourl]\nclient_id = \"pk\"\nclient_secret_file = \"{}\"\n", good.display()),
        format!("[profiles.noid]\nbase_url = \"https://x.example\"\nclient_secret_file = \"{}\"\n", good.display()),
        format!("[profiles.nosecret]\n{complete}"),
        format!("[profiles.badurl]\nbase_url = \"ftp://x.example\"\nclient_id = \"pk\"\nclient_secret_file = \"{}\"\n", good.display()),
    ]
    .concat();
    let config = dir.write("config.toml", &text);
    private(&config, 0o600);

    // A working profile: exit 0, nothing marked, nothing on stderr.
    let (code, stdout, stderr) = config_show(&config, "good");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("<-"), "{stdout}");
    // Nothing about the profile in use; one warning about a profile not in use whose value
    // would be refused (issue 27: a warning, never an error, for a profile not selected).
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with("payverify: warning: profile 'badurl' in ")
            && warnings[0].contains("is not in use, and its base_url is refused: base URL"),
        "{stderr}"
    );

    // A group/world readable file works but is warned about, with the fix.
    let (code, stdout, stderr) = config_show(&config, "shared");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        show_line(&stdout, "client_secret").ends_with("<- WARNING"),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!("mode 644); run: chmod 600 {}", shared.display())),
        "{stderr}"
    );

    for (profile, key, why) in [
        // A path that names nothing there could be a pasted secret: <redacted>, the key
        // and source named instead (attack 23 #2).
        ("missing", "client_secret", "<redacted>: no such file"),
        ("empty", "client_secret", "empty or only whitespace"),
        ("blank", "client_secret", "empty or only whitespace"),
        ("short", "client_secret", "shorter than 8 characters"),
        ("dir", "client_secret", "it is a directory"),
        (
            "nocmd",
            "client_secret",
            "program <redacted> is not on PATH",
        ),
        (
            "notexec",
            "client_secret",
            "does not exist or is not executable",
        ),
        ("shortvalue", "client_secret", "empty or only whitespace"),
        ("nourl", "base_url", "no base URL configured"),
        ("noid", "client_id", "no client id configured"),
        ("nosecret", "client_secret", "no client secret configured"),
        ("badurl", "base_url", "ftp"),
    ] {
        let (code, stdout, stderr) = config_show(&config, profile);
        assert_eq!(code, Some(6), "{profile}: {stdout}{stderr}");
        // Only the broken line is marked; the table is still printed in full.
        let marked: Vec<&str> = stdout.lines().filter(|l| l.contains("<- BROKEN")).collect();
        assert_eq!(marked.len(), 1, "{profile}: {stdout}");
        assert!(marked[0].starts_with(key), "{profile}: {stdout}");
        assert!(stdout.lines().any(|l| l.starts_with("ca_cert")), "{stdout}");
        assert!(
            stderr.contains(&format!("payverify: {key}: ")),
            "{profile}: {stderr}"
        );
        assert!(stderr.contains(why), "{profile}: {stderr}");
        assert!(
            stderr.ends_with(&format!(
                "payverify: this configuration cannot work: fix {key} (marked BROKEN)\n"
            )),
            "{profile}: {stderr}"
        );
        assert!(
            !stdout.contains(SECRET) && !stderr.contains(SECRET),
            "{profile}"
        );
    }
}

#[test]
fn config_show_does_not_run_the_secret_command() {
    let dir = TempDir::new("config-show-cmd");
    let marker = dir.path().join("ran");
    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"https://x.example\"\nclient_id = \"pk\"\n\
             client_secret_command = [\"touch\", \"{}\"]\n",
            marker.display()
        ),
    );
    // `touch` is on PATH: the source is fine, and found without being run.
    payverify()
        .args(["config", "show", "--profile", "p", "--config"])
        .arg(&config)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("output of `touch")
                .and(predicate::str::contains("BROKEN").not()),
        )
        .stderr("");
    assert!(
        !marker.exists(),
        "config show ran the password-manager command"
    );
}

#[test]
fn secret_command_supplies_the_secret_and_its_failure_is_exit_6() {
    let mut server = mockito::Server::new();
    let mock = server
        .mock("GET", "/api/payment/verify/0000000000000044177")
        .match_header("authorization", AUTH_STANDARD)
        .with_body(SAMPLE.as_str())
        .create();
    let dir = TempDir::new("secret-cmd");
    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\n\
             client_secret_command = \"printf '%s' {SECRET}\"\n\
             [profiles.broken]\nbase_url = \"{}\"\nclient_id = \"x\"\n\
             client_secret_command = [\"sh\", \"-c\", \"exit 2\"]\n",
            server.url(),
            server.url()
        ),
    );
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "-q",
            "--profile",
            "p",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(0);
    mock.assert();
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "--profile",
            "broken",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(6)
        .stderr(predicate::str::contains(
            "client_secret_command `sh` (2 arguments, not shown) exited with status 2",
        ));
}

#[cfg(unix)]
#[test]
fn readable_secret_files_get_one_warning() {
    use std::os::unix::fs::PermissionsExt;
    let mut server = mockito::Server::new();
    server
        .mock("GET", "/api/payment/verify/0000000000000044177")
        .with_body(SAMPLE.as_str())
        .create();
    let dir = TempDir::new("perm");
    let secret = dir.write("secret", SECRET);
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = payverify()
        .env("PAYVERIFY_BASE_URL", server.url())
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .args(["verify", "0000000000000044177", "--client-secret-file"])
        .arg(&secret)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = stderr_of(&out);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("chmod 600 {}", secret.display())),
        "{stderr}"
    );

    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\nclient_secret = \"{SECRET}\"\n",
            server.url()
        ),
    );
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "--profile",
            "p",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "holds a client secret and is readable by others",
        ));
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    payverify()
        .args([
            "verify",
            "0000000000000044177",
            "--profile",
            "p",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(0)
        .stderr("");
}

/// `verify R1` at a remote-looking host, one short attempt (nothing there answers).
fn remote_verify() -> assert_cmd::Command {
    let mut cmd = payverify_at("https://gateway.example");
    cmd.args([
        "verify",
        "0000000000000044177",
        "--retries",
        "0",
        "--timeout",
        "5",
    ]);
    cmd
}

/// A proxy that records the first request line it is sent, then closes.
fn recording_proxy() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = seen.clone();
    let server = RawServer::start(move |mut stream| {
        let head = read_head(&mut stream);
        record
            .lock()
            .unwrap()
            .push(head.lines().next().unwrap_or("").to_owned());
        let _ = std::io::Write::write_all(
            &mut stream,
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
    });
    (server.url, seen)
}

#[test]
fn proxies_from_env_and_flag_are_used_for_remote_hosts() {
    let (proxy, seen) = recording_proxy();
    remote_verify().env("HTTPS_PROXY", &proxy).assert().code(7);
    let (flag_proxy, flag_seen) = recording_proxy();
    remote_verify()
        .args(["--proxy", &flag_proxy])
        .assert()
        .code(7);
    for seen in [seen, flag_seen] {
        let lines = seen.lock().unwrap().clone();
        assert_eq!(lines, ["CONNECT gateway.example:443 HTTP/1.1"], "{lines:?}");
    }
}

#[test]
fn loopback_is_never_proxied() {
    let (proxy, seen) = recording_proxy();
    let mut server = mockito::Server::new();
    server
        .mock("GET", "/api/payment/verify/0000000000000044177")
        .with_body(SAMPLE.as_str())
        .create();
    payverify_at(&server.url())
        .env("HTTP_PROXY", &proxy)
        .env("ALL_PROXY", &proxy)
        .args(["verify", "0000000000000044177", "-q", "--proxy", &proxy])
        .assert()
        .code(0);
    assert!(
        seen.lock().unwrap().is_empty(),
        "credentials went to a proxy"
    );
}

#[test]
fn bad_proxy_and_ca_cert_are_config_errors() {
    payverify_at("https://gateway.example")
        .args(["verify", "0000000000000044177", "--proxy", "::not a url::"])
        .assert()
        .code(6)
        .stderr(predicate::str::contains("not a usable proxy URL"));
    let dir = TempDir::new("ca");
    let junk = dir.write("junk.pem", "not a certificate\n");
    for (path, why) in [
        (junk.display().to_string(), "holds no PEM certificate"),
        ("/nonexistent/ca.pem".to_owned(), "no such file"),
    ] {
        payverify_at("https://gateway.example")
            .args(["verify", "0000000000000044177", "--ca-cert", &path])
            .assert()
            .code(6)
            .stderr(predicate::str::contains(why));
    }
}

#[test]
fn a_valid_ca_cert_is_accepted() {
    let (proxy, seen) = recording_proxy();
    let ca = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test-root-ca.pem");
    // The request gets as far as the (recording) proxy: the CA file was loaded.
    remote_verify()
        .args(["--proxy", &proxy, "--ca-cert"])
        .arg(&ca)
        .assert()
        .code(7);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn bash_completes_profile_names_from_the_config_file() {
    let dir = TempDir::new("complete-profiles");
    let xdg = dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("payverify")).unwrap();
    std::fs::write(
        xdg.join("payverify/config.toml"),
        "[profiles.live]\n[profiles.staging]\n[profiles.stage-2]\n",
    )
    .unwrap();
    let other = dir.write("other.toml", "[profiles.elsewhere]\n");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/payverify.bash");
    let bin = env!("CARGO_BIN_EXE_payverify");
    let complete = |words: &str, cword: usize| {
        let out = std::process::Command::new("bash")
            .arg("--norc")
            .arg("-c")
            .arg(format!(
                "source '{}'; COMP_WORDS=({words}); COMP_CWORD={cword}; \
                 _payverify_with_profiles payverify \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                script.display()
            ))
            .env("XDG_CONFIG_HOME", &xdg)
            .env("HOME", dir.path())
            .env_remove("PAYVERIFY_CONFIG")
            .env("PAYVERIFY_PROFILE", "no-such-profile")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        let mut got: Vec<String> = stdout_of(&out).lines().map(str::to_owned).collect();
        got.sort();
        got
    };
    assert_eq!(
        complete(&format!("'{bin}' --profile ''"), 2),
        ["live", "stage-2", "staging"]
    );
    assert_eq!(
        complete(&format!("'{bin}' verify --profile st"), 3),
        ["stage-2", "staging"]
    );
    // --config typed earlier on the line is the file the names come from.
    assert_eq!(
        complete(
            &format!("'{bin}' --config '{}' --profile ''", other.display()),
            4
        ),
        ["elsewhere"]
    );
    // Other words still complete as clap_complete's function does.
    assert!(complete("payverify conf", 1).contains(&"config".to_owned()));
    // No config file: nothing offered, nothing printed, no error.
    let out = payverify()
        .args(["config", "profiles", "--names", "--config"])
        .arg(dir.path().join("absent.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        (stdout_of(&out), stderr_of(&out)),
        (String::new(), String::new())
    );
}
