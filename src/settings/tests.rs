use std::collections::HashMap;

use super::*;
use crate::exit::Exit;
use crate::log::{Level, Log};
use crate::testutil::TempDir;

fn quiet() -> Log {
    Log::new(Level::Quiet)
}

fn secret_of(s: &Settings) -> String {
    s.secret(&quiet()).unwrap().expose().to_owned()
}

fn resolve(global: &Flags, vars: &[(&str, &str)]) -> Result<Settings, Failure> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lookup = |k: &str| map.get(k).cloned();
    let ctx = Context {
        env: &lookup,
        default_config: Some(PathBuf::from("/nonexistent/payverify/config.toml")),
        default_journal: None,
    };
    Settings::resolve(global, &ctx)
}

const CONFIG: &str = r#"
default_profile = "live"
[profiles.live]
base_url = "https://live.example"
client_id = "live-id"
client_secret = "live-secret"
timeout = 5
retries = 1
hmac = "require"
[profiles.staging]
base_url = "https://staging.example"
client_id = "staging-id"
auth_style = "literal"
"#;

fn with_config(fx: &TempDir) -> Flags {
    Flags {
        config: Some(fx.write("config.toml", CONFIG)),
        ..Flags::default()
    }
}

#[test]
fn flag_beats_env_beats_profile() {
    let fx = TempDir::new("precedence");
    let mut global = with_config(&fx);

    let s = resolve(&global, &[]).unwrap();
    assert_eq!(s.base_url.as_ref().unwrap().value, "https://live.example");
    assert!(matches!(
        s.base_url.unwrap().source,
        Source::Profile {
            key: "base_url",
            ..
        }
    ));

    let s = resolve(&global, &[(env::BASE_URL, "https://env.example")]).unwrap();
    assert_eq!(s.shadowed, [(env::BASE_URL, "base_url")]);
    assert_eq!(s.base_url.unwrap().source, Source::Env(env::BASE_URL));

    global.base_url = Some("https://flag.example".into());
    let s = resolve(&global, &[(env::BASE_URL, "https://env.example")]).unwrap();
    let base = s.base_url.unwrap();
    assert_eq!(base.value, "https://flag.example");
    assert_eq!(base.source, Source::Flag("--base-url"));
}

#[test]
fn secret_precedence_file_flag_then_env_then_profile() {
    let fx = TempDir::new("secret");
    let mut global = with_config(&fx);
    let s = resolve(&global, &[]).unwrap();
    assert_eq!(secret_of(&s), "live-secret");

    let s = resolve(&global, &[(env::CLIENT_SECRET, "env-secret")]).unwrap();
    assert_eq!(secret_of(&s), "env-secret");
    assert_eq!(
        s.shadowed,
        [(env::CLIENT_SECRET, "client_secret")],
        "env over config is noted"
    );

    global.client_secret_file = Some(fx.write("secret", "file-secret\n"));
    let s = resolve(&global, &[(env::CLIENT_SECRET, "env-secret")]).unwrap();
    assert_eq!(secret_of(&s), "file-secret");
    assert_eq!(
        s.client_secret.unwrap().source,
        Source::Flag("--client-secret-file")
    );
}

#[test]
fn profile_from_env_and_profile_keys() {
    let fx = TempDir::new("profile");
    let global = with_config(&fx);
    let s = resolve(&global, &[(env::PROFILE, "staging")]).unwrap();
    assert_eq!(s.client_id.unwrap().value, "staging-id");
    assert_eq!(s.auth_style.value, AuthStyle::Literal);
    assert_eq!(s.timeout.value, DEFAULT_TIMEOUT);
    let live = resolve(&global, &[]).unwrap();
    assert_eq!(live.timeout.value, Duration::from_secs(5));
    assert_eq!(live.retries.value, 1);
    assert_eq!(live.hmac.value, HmacMode::Require);
    let staging = resolve(&global, &[(env::PROFILE, "staging")]).unwrap();
    assert_eq!(staging.hmac.value, HmacMode::Warn);
}

#[test]
fn unknown_profile_lists_the_known_ones() {
    let fx = TempDir::new("unknown");
    let mut global = with_config(&fx);
    global.profile = Some("prod".into());
    let err = resolve(&global, &[]).unwrap_err();
    assert_eq!(err.exit, Exit::Config);
    assert!(err.message.contains("'prod'"), "{}", err.message);
    assert!(err.message.contains("live, staging"), "{}", err.message);
}

#[test]
fn missing_values_name_all_three_ways() {
    let global = Flags {
        config: None,
        ..Flags::default()
    };
    let s = resolve(&global, &[]).unwrap();
    let err = s.endpoint(&quiet()).unwrap_err();
    assert_eq!(err.exit, Exit::Config);
    for part in ["base URL", "--base-url", env::BASE_URL, "base_url"] {
        assert!(err.message.contains(part), "{}", err.message);
    }

    let s = resolve(&global, &[(env::BASE_URL, "https://x.example")]).unwrap();
    let err = s.endpoint(&quiet()).unwrap_err();
    for part in ["client id", "--client-id", env::CLIENT_ID, "client_id"] {
        assert!(err.message.contains(part), "{}", err.message);
    }

    let s = resolve(
        &global,
        &[(env::BASE_URL, "https://x.example"), (env::CLIENT_ID, "id")],
    )
    .unwrap();
    let err = s.endpoint(&quiet()).unwrap_err();
    for part in [
        "client secret",
        "--client-secret-file",
        env::CLIENT_SECRET,
        "client_secret",
    ] {
        assert!(err.message.contains(part), "{}", err.message);
    }
}

#[test]
fn plain_http_base_url_is_a_config_error() {
    let global = Flags::default();
    let s = resolve(
        &global,
        &[
            (env::BASE_URL, "http://gateway.example"),
            (env::CLIENT_ID, "id"),
            (env::CLIENT_SECRET, "s"),
        ],
    )
    .unwrap();
    let err = s.endpoint(&quiet()).unwrap_err();
    assert_eq!(err.exit, Exit::Config);
    assert!(err.message.contains("https"));
    assert!(
        err.message.contains(env::BASE_URL),
        "names the source: {}",
        err.message
    );
}

#[test]
fn named_config_must_exist_and_parse() {
    let fx = TempDir::new("named");
    let global = Flags {
        config: Some(fx.path().join("absent.toml")),
        ..Flags::default()
    };
    assert_eq!(resolve(&global, &[]).unwrap_err().exit, Exit::Config);
    let global = Flags {
        config: Some(fx.write("bad.toml", "default_profile = [")),
        ..Flags::default()
    };
    assert_eq!(resolve(&global, &[]).unwrap_err().exit, Exit::Config);
    let err = resolve(&Flags::default(), &[(env::CONFIG, "/nonexistent/x.toml")]).unwrap_err();
    assert!(
        err.message.contains("/nonexistent/x.toml"),
        "{}",
        err.message
    );
}

// Runs printf as a secret command, which Windows lacks.
#[cfg(unix)]
#[test]
fn secret_file_problems_are_config_errors_without_content() {
    let fx = TempDir::new("secretfile");
    let global = Flags {
        client_secret_file: Some(fx.write("empty", "\n")),
        ..Flags::default()
    };
    let err = resolve(&global, &[]).unwrap().secret(&quiet()).unwrap_err();
    assert!(err.message.contains("empty"));
    let cfg = fx.write(
        "both.toml",
        "[profiles.p]\nclient_secret = \"abc\"\nclient_secret_file = \"/x\"\n",
    );
    let global = Flags {
        config: Some(cfg),
        profile: Some("p".into()),
        ..Flags::default()
    };
    let err = resolve(&global, &[]).unwrap_err();
    assert!(err.message.contains("keep one"), "{}", err.message);
    let cmd = fx.write(
        "cmd.toml",
        "[profiles.p]\nclient_secret_command = \"printf 'from-command'\"\n",
    );
    let global = Flags {
        config: Some(cmd),
        profile: Some("p".into()),
        ..Flags::default()
    };
    let s = resolve(&global, &[]).unwrap();
    assert_eq!(secret_of(&s), "from-command");
    let array = fx.write(
        "array.toml",
        "[profiles.p]\nclient_secret_command = [\"printf\", \"a b c d e\"]\n",
    );
    let global = Flags {
        config: Some(array),
        profile: Some("p".into()),
        ..Flags::default()
    };
    assert_eq!(secret_of(&resolve(&global, &[]).unwrap()), "a b c d e");
    assert!(!err.message.contains("abc"));
}

#[test]
fn debug_of_settings_redacts_the_secret() {
    let s = resolve(&Flags::default(), &[(env::CLIENT_SECRET, "sup3r-s3cret")]).unwrap();
    let shown = format!("{s:?}");
    assert!(!shown.contains("sup3r-s3cret"), "{shown}");
}

#[test]
fn short_secrets_are_refused_naming_their_source() {
    let err = resolve(&Flags::default(), &[(env::CLIENT_SECRET, "abcdefg")])
        .unwrap()
        .secret(&quiet())
        .unwrap_err();
    assert_eq!(err.exit, Exit::Config);
    assert!(
        err.message
            .contains("from env PAYVERIFY_CLIENT_SECRET is shorter than 8"),
        "{}",
        err.message
    );
    assert!(!err.message.contains("abcdefg"), "{}", err.message);
    // Eight characters, counted as characters, not bytes.
    let s = resolve(&Flags::default(), &[(env::CLIENT_SECRET, "₦bcdefgh")]).unwrap();
    assert_eq!(secret_of(&s), "₦bcdefgh");
}

#[test]
fn an_empty_secret_variable_is_named_not_skipped() {
    let fx = TempDir::new("emptyenv");
    let cfg = fx.write(
        "c.toml",
        "[profiles.p]\nclient_secret = \"profile-secret-1\"\n",
    );
    let global = Flags {
        config: Some(cfg),
        profile: Some("p".into()),
        ..Flags::default()
    };
    let err = resolve(&global, &[(env::CLIENT_SECRET, "")])
        .unwrap()
        .secret(&quiet())
        .unwrap_err();
    assert_eq!(err.exit, Exit::Config);
    assert_eq!(
        err.message,
        "PAYVERIFY_CLIENT_SECRET is set but empty (or only whitespace); unset it, or set it to \
         the client secret"
    );
}

#[test]
fn a_secret_file_loses_its_byte_order_mark_and_whitespace() {
    let fx = TempDir::new("bomsecret");
    let global = Flags {
        client_secret_file: Some(fx.write("s", "\u{feff}file-secret-9\r\n")),
        ..Flags::default()
    };
    assert_eq!(secret_of(&resolve(&global, &[]).unwrap()), "file-secret-9");
}

#[test]
fn resolve_all_reports_every_bad_key_and_resolve_the_first() {
    let fx = TempDir::new("all-problems");
    let config = r#"
default_profile = "live"
[profiles.live]
base_url = "https://live.example"
client_id = "live-id"
client_secret = "live-secret"
client_secret_file = "/run/secret"
timeout = 0
retries = 11
hmac = "maybe"
auth_style = "fancy"
"#;
    let global = Flags {
        config: Some(fx.write("config.toml", config)),
        ..Flags::default()
    };
    let lookup = |_: &str| None;
    let ctx = Context {
        env: &lookup,
        default_config: None,
        default_journal: None,
    };
    let problems = match Settings::resolve_all(&global, &ctx) {
        Ok(_) => panic!("five bad keys resolved"),
        Err(problems) => problems,
    };
    let keys: Vec<&str> = problems
        .iter()
        .map(|p| p.message.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(
        keys,
        ["more", "auth_style", "timeout", "retries", "hmac"],
        "{problems:?}"
    );
    assert_eq!(problems[0].cause, Cause::Secret);
    assert!(
        problems[1..]
            .iter()
            .all(|p| p.cause == Cause::SettingInvalid)
    );
    assert!(problems.iter().all(|p| p.exit == Exit::Config));
    // resolve stops at what resolve_all found first, as verify has always reported.
    let first = Settings::resolve(&global, &ctx).unwrap_err();
    assert_eq!(first, problems[0]);
}

#[test]
fn a_missing_profile_ends_resolution_with_one_problem() {
    let fx = TempDir::new("missing-profile");
    let global = Flags {
        config: Some(fx.write("config.toml", CONFIG)),
        profile: Some("nope".into()),
        ..Flags::default()
    };
    let lookup = |_: &str| None;
    let ctx = Context {
        env: &lookup,
        default_config: None,
        default_journal: None,
    };
    let Err(problems) = Settings::resolve_all(&global, &ctx) else {
        panic!("a missing profile resolved");
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].cause, Cause::Profile);
    assert!(
        problems[0].message.contains("no profile 'nope'"),
        "{problems:?}"
    );
}

/// The one duration parser (flags and config keys share it) on near-misses: scientific and
/// signed numbers, blank text and out-of-range integers are refused; padding and a space
/// before the unit are read as humantime reads them; a fraction of a second is seconds, for
/// `wait` as for `timeout` (every duration key takes the same forms).
#[test]
fn wait_near_misses() {
    use duration::{DurationValue, WAIT};
    for bad in ["1e3s", "+5", "-1s", "", "   ", "5 parsecs", "1e3", "0x10"] {
        assert!(WAIT.parse(bad).is_err(), "{bad:?} was accepted");
    }
    assert_eq!(WAIT.parse(" 90 "), Ok(Duration::from_secs(90)));
    assert_eq!(WAIT.parse("5 m"), Ok(Duration::from_secs(300)));
    assert_eq!(WAIT.parse("1.5"), Ok(Duration::from_millis(1500)));
    assert_eq!(WAIT.parse("86400"), Ok(WAIT.max));
    assert!(WAIT.parse("86401").is_err());
    assert!(WAIT.parse("24h 1ms").is_err());
    assert!(
        WAIT.read_config(&DurationValue::Text(String::new()))
            .is_err()
    );
    assert!(WAIT.read_config(&DurationValue::Seconds(i64::MAX)).is_err());
    assert!(WAIT.read_config(&DurationValue::Seconds(i64::MIN)).is_err());
    assert_eq!(
        WAIT.read_config(&DurationValue::Fraction(90.0)),
        Ok(Duration::from_secs(90))
    );
    assert_eq!(
        WAIT.read_config(&DurationValue::Seconds(86_400)),
        Ok(WAIT.max)
    );
}
