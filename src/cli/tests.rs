use super::*;
use std::time::Duration;

use crate::domain::checks::HmacMode;
use crate::domain::money::Kobo;
use crate::render::ColorChoice;

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    try_parse_from(std::iter::once("payverify").chain(args.iter().copied()))
}

fn verify(cli: &Cli) -> &VerifyArgs {
    match &cli.command {
        Command::Verify(v) => v,
        other => panic!("not verify: {other:?}"),
    }
}

#[test]
fn sandbox_flag_conflicts_with_real_endpoint_flags() {
    assert!(
        parse(&["verify", "R", "--sandbox"])
            .unwrap()
            .command_is_verify()
    );
    for flag in [
        "--base-url",
        "--client-id",
        "--profile",
        "--config",
        "--client-secret-file",
    ] {
        let err = parse(&["verify", "R", "--sandbox", flag, "x"]).unwrap_err();
        assert_eq!(
            err.kind(),
            clap::error::ErrorKind::ArgumentConflict,
            "{flag}"
        );
    }
}

#[test]
fn sandbox_defaults_and_help() {
    let cli = parse(&["sandbox"]).unwrap();
    let Command::Sandbox(s) = &cli.command else {
        panic!("not sandbox")
    };
    assert_eq!((s.port, s.latency_ms), (8089, 0));
    let help = parse(&["sandbox", "--help"]).unwrap_err().to_string();
    assert!(help.contains("SANDBOX-RATELIMIT-<anything>"), "{help}");
    assert!(parse(&["sandbox", "--latency-ms", "-1"]).is_err());
}

impl Cli {
    fn command_is_verify(&self) -> bool {
        matches!(self.command, Command::Verify(_))
    }
}

#[test]
fn command_is_well_formed() {
    command().debug_assert();
}

#[test]
fn global_flags_work_after_the_subcommand() {
    let cli = parse(&[
        "verify",
        "REF",
        "--base-url",
        "https://x",
        "--profile",
        "p",
        "-v",
    ])
    .unwrap();
    assert_eq!(cli.global.base_url.as_deref(), Some("https://x"));
    assert_eq!(cli.global.profile.as_deref(), Some("p"));
    assert_eq!(cli.global.verbose, 1);
    let cli = parse(&["--base-url", "https://y", "verify", "REF"]).unwrap();
    assert_eq!(cli.global.base_url.as_deref(), Some("https://y"));
}

#[test]
fn verify_defaults() {
    let cli = parse(&["verify", "REF"]).unwrap();
    let v = verify(&cli);
    assert_eq!(v.references, ["REF"]);
    assert!(!v.is_batch());
    assert_eq!(v.batch.jobs, 4);
    assert_eq!(v.output, None);
    assert_eq!(v.format(), OutputFormat::Table);
    assert_eq!(v.profile_args.timeout, None);
    assert_eq!(cli.global.color, ColorChoice::Auto);
}

#[test]
fn there_is_no_client_secret_flag() {
    let err = parse(&["verify", "REF", "--client-secret", "s"]).unwrap_err();
    assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
}

#[test]
fn timeout_accepts_fractions_and_refuses_nonsense() {
    let cli = parse(&["verify", "R", "--timeout", "0.5"]).unwrap();
    assert_eq!(
        verify(&cli).profile_args.timeout,
        Some(Duration::from_millis(500))
    );
    for bad in ["0", "-1", "abc", "inf", "NaN", "100000"] {
        assert!(parse(&["verify", "R", "--timeout", bad]).is_err(), "{bad}");
    }
}

#[test]
fn output_and_auth_style_values() {
    let cli = parse(&["verify", "R", "-o", "json", "--auth-style", "literal"]).unwrap();
    assert_eq!(verify(&cli).format(), OutputFormat::Json);
    let upper = parse(&["verify", "R", "-o", "JSON"]).unwrap();
    assert_eq!(verify(&upper).format(), OutputFormat::Json);
    assert_eq!(
        verify(&cli).profile_args.auth_style,
        Some(AuthStyle::Literal)
    );
    assert!(parse(&["verify", "R", "-o", "xml"]).is_err());
    assert_eq!(AuthStyle::from_config("LITERAL"), Some(AuthStyle::Literal));
    assert_eq!(AuthStyle::from_config("weird"), None);
}

#[test]
fn reference_may_start_with_a_hyphen_after_double_dash() {
    let cli = parse(&["verify", "-v", "--", "-abc"]).unwrap();
    assert_eq!(cli.global.verbose, 1);
    let args: Vec<_> = verify(&cli).arguments().collect();
    assert_eq!(args, [("-abc", false)]);
    // After `--` even `-` is a reference as written, not stdin; before it, it is stdin.
    let cli = parse(&["verify", "A", "-", "--", "-", "--help"]).unwrap();
    let args: Vec<_> = verify(&cli).arguments().collect();
    assert_eq!(
        args,
        [("A", true), ("-", true), ("-", false), ("--help", false)]
    );
}

#[test]
fn expectation_flags() {
    let cli = parse(&[
        "verify",
        "R",
        "--expect-amount",
        "40000.5",
        "--expect-currency",
        "ngn",
    ])
    .unwrap();
    let e = verify(&cli).expect.expectations();
    assert_eq!(e.amount, Some(Kobo(4_000_050)));
    assert_eq!(e.currency.as_deref(), Some("ngn"));
    let cli = parse(&["verify", "R", "--expect-amount-kobo", "150"]).unwrap();
    assert_eq!(verify(&cli).expect.expectations().amount, Some(Kobo(150)));
    for bad in ["12.345", "abc", "-5", "1e3"] {
        let err = parse(&["verify", "R", "--expect-amount", bad]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation, "{bad}");
    }
    assert!(
        parse(&[
            "verify",
            "R",
            "--expect-amount",
            "1",
            "--expect-amount-kobo",
            "100"
        ])
        .is_err()
    );
    let cli = parse(&["verify", "R", "--hmac", "require"]).unwrap();
    assert_eq!(verify(&cli).profile_args.hmac, Some(HmacMode::Require));
}

#[test]
fn webhook_check_takes_a_file_or_stdin() {
    let cli = parse(&["webhook", "check", "-", "--expect-currency", "NGN"]).unwrap();
    let Command::Webhook(WebhookCommand::Check(w)) = &cli.command else {
        panic!()
    };
    assert_eq!(w.input.as_deref(), Some(std::path::Path::new("-")));
    let cli = parse(&["webhook", "check"]).unwrap();
    let Command::Webhook(WebhookCommand::Check(w)) = &cli.command else {
        panic!()
    };
    assert_eq!(w.input, None);
}

#[test]
fn batch_inputs() {
    let batch = |args: &[&str]| verify(&parse(args).unwrap()).is_batch();
    assert!(batch(&["verify", "A", "B"]));
    assert!(batch(&["verify", "-"]));
    assert!(batch(&["verify", "--from", "refs.txt"]));
    assert!(batch(&["verify", "A", "-o", "jsonl"]));
    assert!(batch(&["verify", "A", "-o", "csv"]));
    assert!(!batch(&["verify", "A", "-o", "json"]));
    let cli = parse(&["verify", "A", "B", "-j", "16", "--rate", "2.5"]).unwrap();
    assert_eq!(
        (verify(&cli).batch.jobs, verify(&cli).batch.rate),
        (16, Some(2.5))
    );
    for bad in [["-j", "0"], ["-j", "65"], ["--rate", "0"], ["--rate", "x"]] {
        assert!(parse(&["verify", "A", bad[0], bad[1]]).is_err(), "{bad:?}");
    }
}

#[test]
fn config_and_tooling_subcommands() {
    let cli = parse(&["config", "init", "--profile", "staging", "--force"]).unwrap();
    assert!(matches!(
        cli.command,
        Command::Config(ConfigCommand::Init { force: true })
    ));
    assert_eq!(cli.global.profile.as_deref(), Some("staging"));
    assert!(parse(&["config", "show"]).is_ok());
    assert!(parse(&["completions", "zsh"]).is_ok());
    assert!(parse(&["completions", "tcsh"]).is_err());
    assert!(parse(&["man"]).is_ok());
}

#[test]
fn quiet_and_verbose_conflict() {
    assert!(parse(&["verify", "R", "-q", "-v"]).is_err());
}

#[test]
fn verify_help_shows_the_exit_codes() {
    let err = parse(&["verify", "--help"]).unwrap_err();
    let help = err.to_string();
    assert!(help.contains("Exit status:"), "{help}");
    assert!(help.contains("130"));
}
