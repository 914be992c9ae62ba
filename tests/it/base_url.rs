//! Issue 22, item 6: one base-URL rule. A base URL that already ends in `/api`,
//! `/api/payment` or `/api/payment/verify` (with or without a reference after it) is exit 6
//! naming the URL to use, in `verify`, `reconcile`, `config show` and `doctor` alike, before
//! any request. (`verify --base-url http://host/api/payment` reported every reference as
//! NOT_FOUND, exit 3, while doctor refused the same URL.)

use std::sync::atomic::Ordering;

use crate::common::{
    CLIENT_ID, RawServer, SECRET, TempDir, payverify, read_head, respond, stderr_of, stdout_of,
};

/// The suffixes, each with what the message says the URL ends in.
const SUFFIXES: [(&str, &str); 7] = [
    (
        "/api",
        "/api, the start of the operation path /api/payment/verify",
    ),
    (
        "/API/",
        "/api, the start of the operation path /api/payment/verify",
    ),
    (
        "/api/payment",
        "/api/payment, the start of the operation path /api/payment/verify",
    ),
    (
        "/api/Payment/",
        "/api/payment, the start of the operation path /api/payment/verify",
    ),
    (
        "/api/payment/verify",
        "the operation path /api/payment/verify",
    ),
    (
        "/api/payment/verify/0000000000000044177",
        "the operation path /api/payment/verify and a reference",
    ),
    (
        "/api/payment/verify/R-1/",
        "the operation path /api/payment/verify and a reference",
    ),
];

#[test]
fn every_command_refuses_a_base_url_holding_the_operation_path_naming_the_fix() {
    // A service that would answer every reference 404: what the wrong URL used to give.
    let service = RawServer::start(|mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "404 Not Found", br#"{"message":"not found"}"#);
    });
    let dir = TempDir::new("base-url-rule");
    dir.write(
        "orders.csv",
        "reference,amount\n0000000000000044177,40000\n",
    );
    for prefix in ["", "/gw"] {
        let root = format!("{}{prefix}", service.url);
        for (suffix, found) in SUFFIXES {
            let base = format!("{root}{suffix}");
            let run = |args: &[&str]| {
                payverify()
                    .current_dir(dir.path())
                    .env("PAYVERIFY_BASE_URL", &base)
                    .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
                    .env("PAYVERIFY_CLIENT_SECRET", SECRET)
                    .args(args)
                    .output()
                    .unwrap()
            };
            let refusal = format!(
                "base URL '{base}' already ends in {found}, which payverify adds itself; use \
                 '{root}'; it came from env PAYVERIFY_BASE_URL"
            );
            for args in [
                &["verify", "--", "0000000000000044177"][..],
                &["verify", "-o", "jsonl", "A-1", "A-2"],
                &["reconcile", "orders.csv"],
            ] {
                let out = run(args);
                assert_eq!(
                    out.status.code(),
                    Some(6),
                    "{base} {args:?}: {}",
                    stderr_of(&out)
                );
                assert_eq!(stdout_of(&out), "", "{base} {args:?}");
                assert_eq!(
                    stderr_of(&out),
                    format!("payverify: {refusal}\n"),
                    "{base} {args:?}"
                );
            }
            let out = run(&["config", "show"]);
            assert_eq!(out.status.code(), Some(6), "{base}: {}", stderr_of(&out));
            assert!(
                stderr_of(&out).contains(&format!("payverify: base_url: {refusal}\n")),
                "{base}: {}",
                stderr_of(&out)
            );
            let out = run(&["doctor"]);
            assert_eq!(out.status.code(), Some(6), "{base}: {}", stdout_of(&out));
            let report = stdout_of(&out);
            let last = report.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("base_url  FAIL: ")
                    && last.contains(&format!("it ends in {found}"))
                    && last.ends_with(&format!("fix: set the base URL to {root}")),
                "{base}: {report}"
            );
        }
    }
    // Nothing was ever asked of the service.
    assert_eq!(service.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn the_rule_is_the_same_from_a_flag_and_a_config_profile() {
    let dir = TempDir::new("base-url-sources");
    let config = dir.write(
        "config.toml",
        "[profiles.default]\nbase_url = \"https://gw.example/api/payment\"\nclient_id = \"c\"\n\
         client_secret = \"a-long-enough-secret\"\n",
    );
    let out = payverify()
        .args(["--config", config.to_str().unwrap(), "verify", "--", "R-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("use 'https://gw.example'; it came from"),
        "{}",
        stderr_of(&out)
    );
    let out = payverify()
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
        .args([
            "--base-url",
            "https://gw.example/api",
            "verify",
            "--",
            "R-1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("use 'https://gw.example'; it came from flag --base-url"),
        "{}",
        stderr_of(&out)
    );
    // A prefix that only looks alike is a prefix, kept.
    for fine in ["https://gw.example/apis", "https://gw.example/api/payments"] {
        let out = payverify()
            .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
            .env("PAYVERIFY_CLIENT_SECRET", SECRET)
            .args(["--base-url", fine, "config", "show"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{fine}: {}", stderr_of(&out));
    }
}
