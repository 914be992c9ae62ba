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
