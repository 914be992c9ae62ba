//! Doctor's questions to the service itself: are the credentials accepted (7), and, given a
//! REFERENCE, does its hmac verify under this secret (8).

use std::time::Instant;

use crate::domain::checks::{self, HmacMode};
use crate::domain::model::parse_object;
use crate::domain::outcome::{Outcome, classify, message_after};
use crate::domain::signature;
use crate::exit::Exit;
use crate::log::Log;
use crate::reference::Reference;
use crate::secret::Secret;
use crate::settings::{Settings, Source};
use crate::transport::Endpoint;
use crate::transport::client::{self, Client, Response, TransportError};

use super::report::{Check, Report};

/// Runs the credentials check and, when it passed and a reference was given, the reference
/// and hmac checks.
pub(crate) fn checks(
    report: &mut Report,
    settings: &Settings,
    endpoint: &Endpoint,
    reference: Option<&Reference>,
    log: &Log,
) -> Option<()> {
    // One attempt per step: --timeout bounds each, and a retry would double it.
    let options = client::Options::single(settings.timeout.value, 0);
    let client = report.step(
        Client::new(endpoint, options, log.clone()).map_err(|failure| {
            Check::fail(
                "credentials",
                failure.exit,
                failure.message,
                "correct the proxy or CA setting named",
            )
        }),
    )?;
    report.pass(credentials(&client, settings))?;
    let secret = &endpoint.client_secret;
    reference_checks(report, &client, settings, secret, reference?)
}

/// A reference no transaction can have, so the answer says only whether the service is
/// there and took the credentials.
fn probe_reference() -> Option<Reference> {
    use std::hash::BuildHasher;
    // RandomState is seeded from the OS: different on every run, so no cache can answer.
    let random = std::collections::hash_map::RandomState::new();
    let nonce = random.hash_one(std::time::SystemTime::now());
    Reference::parse(&format!("payverify-doctor-{nonce:016x}")).ok()
}

/// Check 7: one GET for a made-up reference; a JSON 404 means the service is there and
/// accepted the credentials.
fn credentials(client: &Client, settings: &Settings) -> Check {
    let Some(probe) = probe_reference() else {
        return Check::fail(
            "credentials",
            Exit::Internal,
            "cannot make a probe reference",
            "report this bug",
        );
    };
    let started = Instant::now();
    let exchange = client.exchange(&probe);
    let ms = super::ms(started);
    let sources = credential_sources(settings);
    // verify's one classification decides what the answer is, and so the exit; doctor only
    // words it for a probe, with the fix.
    let outcome = classify(&exchange);
    let check = match &exchange.result {
        Ok(response) => answer(&outcome, response, &probe, &sources, ms),
        Err(e) => transport(&outcome, e),
    };
    let status = exchange.result.as_ref().ok().map(|r| r.status);
    check
        .with("probe_reference", probe.as_str())
        .with("http_status", status)
        .with("ms", ms)
}

/// What the probe's answer, classified as `outcome`, says of the service and the
/// credentials.
fn answer(
    outcome: &Outcome,
    response: &Response,
    probe: &Reference,
    sources: &str,
    ms: u64,
) -> Check {
    let message = message_after(&response.body);
    let not_the_service = "check the base URL: it should be the gateway's root (e.g. \
                           https://paywithbank3d.com), not a web page or another API";
    let status = response.status;
    let (found, fix) = match outcome {
        Outcome::NotFound { .. } => {
            return Check::ok(
                "credentials",
                format!(
                    "the service answered the made-up reference {probe} with a JSON \
                     404{message} in {ms} ms: it is there and accepted the credentials"
                ),
            );
        }
        _ if outcome.verification().is_some() => {
            return Check::warn(
                "credentials",
                format!(
                    "the service answered HTTP 200 with JSON for the made-up reference {probe} \
                     in {ms} ms: it took the credentials, but does not answer unknown \
                     references with 404"
                ),
                "verify a known reference (payverify doctor REFERENCE) to see what it answers",
            );
        }
        Outcome::AuthRejected { .. } => (
            format!("the service rejected the credentials (HTTP {status}{message}) in {ms} ms"),
            format!(
                "check {sources}; the gateway's dashboard calls the client id the public key \
                 and the secret the secret key (live and staging keys differ)"
            ),
        ),
        Outcome::Unavailable { .. } => (
            format!("the service is unavailable (HTTP {status}{message})"),
            "try again later; if it persists, ask the gateway about its status".to_owned(),
        ),
        _ if status == 404 => (
            format!(
                "HTTP 404 that is not JSON for {probe} (a web page?) in {ms} ms: the base URL \
                 is probably wrong"
            ),
            not_the_service.to_owned(),
        ),
        _ => (
            format!(
                "HTTP {status}{} for {probe}{message}: this does not look like the service, \
                 the base URL is probably wrong",
                match parse_object(&response.body).is_ok() {
                    true => "",
                    false => " that is not JSON",
                }
            ),
            not_the_service.to_owned(),
        ),
    };
    Check::fail("credentials", outcome.exit(), found, fix)
}

/// A probe that got no answer (`e`), classified as `outcome`.
fn transport(outcome: &Outcome, e: &TransportError) -> Check {
    let text = crate::secret::redact(&e.to_string()).into_owned();
    let fix = match outcome {
        Outcome::Unavailable { .. } => {
            "check the service is up and reachable from here (payverify -v doctor traces the \
             request)"
        }
        _ => "check the base URL: what answers there is not the service",
    };
    Check::fail("credentials", outcome.exit(), text, fix)
}

/// "the client id (from X), the client secret (from Y) and --auth-style standard (default)".
fn credential_sources(settings: &Settings) -> String {
    let from = |s: Option<&Source>| {
        s.map(|s| format!(" (from {s})"))
            .unwrap_or_else(|| " (not set)".into())
    };
    format!(
        "the client id{}, the client secret{} and the auth style {} ({}; the other one is \
         --auth-style {})",
        from(settings.client_id.as_ref().map(|c| &c.source)),
        from(settings.client_secret.as_ref().map(|c| &c.source)),
        format!("{:?}", settings.auth_style.value).to_lowercase(),
        settings.auth_style.source,
        match settings.auth_style.value {
            crate::cli::AuthStyle::Standard => "literal",
            crate::cli::AuthStyle::Literal => "standard",
        }
    )
}

/// 8. Verifies REFERENCE and says whether its hmac verifies under this secret.
fn reference_checks(
    report: &mut Report,
    client: &Client,
    settings: &Settings,
    secret: &Secret,
    reference: &Reference,
) -> Option<()> {
    let started = Instant::now();
    let outcome = classify(&client.exchange(reference));
    let ms = super::ms(started);
    let Some(v) = outcome.verification() else {
        let fix = match &outcome {
            Outcome::NotFound { .. } => {
                "give the reference of a real transaction made with these credentials"
            }
            Outcome::AuthRejected { .. } => {
                "the credentials were accepted for the probe but not for this reference: ask \
                 the gateway"
            }
            Outcome::Unavailable { .. } => "try again later",
            _ => "the answer is not a verification result; ask the gateway",
        };
        let found = outcome.message(reference);
        let check = Check::fail("reference", outcome.exit(), found, fix);
        return report.pass(
            check
                .with("http_status", outcome.http_status())
                .with("ms", ms),
        );
    };
    let amount = v
        .amount
        .map(|a| a.display_with_currency(v.currency.as_deref()))
        .unwrap_or_else(|| "no amount".into());
    let status = v
        .status
        .as_deref()
        .map(crate::terminal::quoted)
        .unwrap_or_default();
    let code = v
        .code
        .as_deref()
        .map(|c| format!(", code {c}"))
        .unwrap_or_default();
    let mode = match v.raw.get("mode") {
        Some(serde_json::Value::String(mode)) => {
            format!(", mode {}", crate::terminal::quoted(mode))
        }
        None | Some(serde_json::Value::Null) => ", no mode".to_owned(),
        Some(other) => format!(", mode {} (not a string)", other),
    };
    let found = format!("{reference}: status {status}{code}, {amount}{mode}, in {ms} ms");
    let check = match checks::answers_for(v, reference.as_str()) {
        Some(other) => Check::fail(
            "reference",
            Exit::CheckFailed,
            format!("{found}; {other}"),
            "the service (or something between) answered for another transaction: do not \
             trust its answers until the gateway explains",
        ),
        None => Check::ok("reference", found),
    };
    report.pass(
        check
            .with("status", v.status.clone())
            .with("code", v.code.clone())
            .with("amount_kobo", v.amount.map(|a| a.0))
            .with("currency", v.currency.clone())
            .with("mode", v.raw.get("mode").cloned())
            .with("ms", ms),
    )?;
    report.pass(hmac_check(v, settings, secret))?;
    report.pass(mode_check(v, settings))
}

/// Whether the answer's `mode` is the one `expect_mode` names; without one, the line that
/// would make every answer of another mode fail. The interface documents only `dev` (its
/// test sample's), so what a live payment carries is learnt here, from a real one.
fn mode_check(v: &crate::domain::model::Verification, settings: &Settings) -> Check {
    let seen = match v.raw.get("mode") {
        Some(serde_json::Value::String(mode)) => Some(mode.as_str()),
        _ => None,
    };
    let shown = seen.map_or_else(|| "none".to_owned(), crate::terminal::quoted);
    let check = match (&settings.expect_mode, seen) {
        (Some(want), Some(mode)) if want.value == mode => Check::ok(
            "mode",
            format!("{shown}, as expect_mode expects ({})", want.source),
        ),
        (Some(want), _) => Check::fail(
            "mode",
            Exit::CheckFailed,
            format!(
                "the answer's mode is {shown}, but {} is expected ({}): verify and gate \
                 refuse it (exit 4)",
                crate::terminal::quoted(&want.value),
                want.source
            ),
            "if REFERENCE is a real payment of this account, expect its mode; if not, the \
             base URL or the credentials are another environment's (a test account's?)",
        ),
        (None, Some(mode)) => {
            let line = format!("expect_mode = {}", crate::terminal::quoted(mode));
            let flag = format!("--expect-mode {}", crate::commands::shell_word(mode));
            let place = add_line(settings, &line, &flag);
            Check::ok(
                "mode",
                format!(
                    "{shown}; nothing expects a mode, so an answer of any mode verifies (a \
                     test payment's too): if REFERENCE is a real payment of this account, \
                     {place}"
                ),
            )
        }
        (None, None) => Check::ok(
            "mode",
            "the answer carries no mode, so expect_mode cannot be used with this service",
        ),
    };
    check.with("mode", seen).with(
        "expect_mode",
        settings.expect_mode.as_ref().map(|m| m.value.clone()),
    )
}

/// Where to add `line` to the config: under the profile in use in the file loaded, else
/// in "your config profile", or `flag` on the command line.
fn add_line(settings: &Settings, line: &str, flag: &str) -> String {
    match (&settings.profile, &settings.config) {
        (Some(profile), Some(config)) if settings.config_loaded => format!(
            "add the line {line} under [profiles.{}] in {}",
            profile.value,
            config.path.display()
        ),
        _ => format!("add the line {line} to your config profile, or pass {flag}"),
    }
}

/// Whether the response's hmac verifies under this secret, and what to set if it does.
fn hmac_check(
    v: &crate::domain::model::Verification,
    settings: &Settings,
    secret: &Secret,
) -> Check {
    let formula = "hex HMAC-SHA256 keyed with the client secret over merchantRef + \
                   currencyCode + amount in kobo, no separators";
    let Some(hmac) = v.hmac.as_deref() else {
        return Check::warn(
            "hmac",
            "the response has no hmac, so hmac = \"require\" would fail every verification",
            "keep hmac = \"warn\" (the default) and ask the gateway why it sends none",
        );
    };
    let message = match checks::signed_message(v) {
        Ok(message) => message,
        Err(missing) => {
            return Check::warn(
                "hmac",
                format!("the response lacks {missing}, so its hmac cannot be checked"),
                "keep hmac = \"warn\" (the default) and ask the gateway",
            );
        }
    };
    let secret_from = settings
        .client_secret
        .as_ref()
        .map(|s| s.source.to_string())
        .unwrap_or_default();
    let shown = crate::terminal::quoted(&message);
    if signature::verify(secret, &message, hmac) {
        let advice = match settings.hmac.value {
            HmacMode::Require => format!(
                "hmac = \"require\" is already set ({})",
                settings.hmac.source
            ),
            _ => add_line(settings, "hmac = \"require\"", "--hmac require"),
        };
        Check::ok(
            "hmac",
            format!("the hmac verifies; you can set hmac = \"require\" ({advice})"),
        )
        .with("matches", true)
        .with("signed_message", message)
    } else {
        let form = if signature::is_well_formed(hmac) {
            String::new()
        } else {
            " (it is not 64 hex digits)".to_owned()
        };
        Check::warn(
            "hmac",
            format!(
                "the hmac does not verify under this secret: payverify signed {shown} \
                 ({formula}) with the client secret from {secret_from}; the response's hmac \
                 is {}{form}",
                crate::terminal::quoted(hmac)
            ),
            "compare the signed text and formula with the gateway's documentation, and check \
             the secret is this account's (live and staging differ); keep hmac = \"warn\" \
             until it verifies",
        )
        .with("matches", false)
        .with("signed_message", message)
        .with("hmac", hmac)
    }
}
