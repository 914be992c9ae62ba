//! `payverify doctor [REFERENCE]`: is this set-up going to work, and can the hmac be trusted?
//!
//! The checks run in the order a request meets them (config, settings, base URL, name
//! resolution, connection, TLS, credentials, then the REFERENCE and its hmac) and doctor
//! stops at the first failure that makes the later ones meaningless. Each step gets one
//! attempt, bounded by `--timeout`; nothing reads stdin.

mod net;
mod report;
mod service;

use std::time::{Duration, Instant};

use ureq::http::Uri;

use crate::cli::{DoctorArgs, DoctorFormat, GlobalArgs};
use crate::exit::{Cause, Exit, Failure};
use crate::log::{Level, Log};
use crate::reference::Reference;
use crate::render::{Printer, write_output};
use crate::secret::Secret;
use crate::settings::{Context, SecretSource, Settings, Source};
use crate::transport::Endpoint;
use crate::transport::base_url::{BaseUrl, without_userinfo};

pub(crate) use report::{Check, Report};

/// Runs `payverify doctor`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &DoctorArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    // A bad REFERENCE is a usage error before anything runs, as for verify.
    let reference = match &args.reference {
        Some(text) => Some(Reference::parse(text).map_err(|e| {
            Failure::usage(format!(
                "{e} (give the reference of a real transaction to check its hmac)"
            ))
        })?),
        None => None,
    };
    let report = diagnose(global, args, reference.as_ref(), log, ctx);
    if log.level() != Level::Quiet {
        let mut printer = Printer::plain_stdout();
        let text = match args.output {
            DoctorFormat::Text => report.text(),
            DoctorFormat::Json => {
                format!(
                    "{}\n",
                    crate::terminal::json_text(format!("{:#}", report.json()))
                )
            }
        };
        write_output(printer.text(&text))?;
        match report.exit() {
            Exit::Successful => log.info(&report.summary()),
            _ => log.error(&report.summary()),
        }
    }
    Ok(report.exit())
}

/// The check that settings could not be resolved: `config` when the file or its profile
/// is the trouble, `settings` when only values are (each one named).
fn settings_failure(problems: &[Failure]) -> Check {
    let file_trouble = problems
        .iter()
        .any(|p| matches!(p.cause, Cause::ConfigFile | Cause::Profile));
    let found = problems
        .iter()
        .map(|p| p.message.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let exit = problems
        .iter()
        .fold(Exit::Successful, |exit, p| exit.merge(p.exit));
    match file_trouble {
        true => Check::fail(
            "config",
            exit,
            found,
            "correct the config file (payverify config show lists what is in use), or point \
             --config / PAYVERIFY_CONFIG at another",
        ),
        false => Check::fail(
            "settings",
            exit,
            found,
            "correct those keys (payverify config show lists every setting and its source)",
        ),
    }
}

/// Every check, in order, up to the first failure that ends the run.
fn diagnose(
    global: &GlobalArgs,
    args: &DoctorArgs,
    reference: Option<&Reference>,
    log: &Log,
    ctx: &Context,
) -> Report {
    let mut report = Report::default();
    // --timeout is validated by clap; a bad config timeout is reported by the config check.
    let settings = match Settings::resolve_all(&global.flags(&args.profile_args), ctx) {
        Ok(settings) => settings,
        Err(problems) => {
            report.add(settings_failure(&problems));
            return report;
        }
    };
    report.add(config_check(&settings));
    let timeout = settings.timeout.value;

    let (check, secret) = settings_check(&settings, timeout);
    if report.add(check) && settings.base_url.is_none() {
        return report;
    }
    let Some(base_url) = &settings.base_url else {
        return report;
    };
    let (check, base) = base_url_check(&base_url.value, &base_url.source);
    report.add(check);
    let Some(base) = base else {
        return report;
    };
    let Some(target) = Target::of(&base) else {
        report.add(Check::fail(
            "base_url",
            Exit::Config,
            format!("cannot tell the host and port of {base}"),
            "give a base URL such as https://paywithbank3d.com",
        ));
        return report;
    };
    let proxy = match proxy_for(&settings, &base) {
        Ok(proxy) => proxy,
        Err(failure) => {
            report.add(Check::fail(
                "connect",
                Exit::Config,
                failure.message,
                "correct the proxy where it came from (--proxy, the profile's proxy key, or the \
                 environment variable named), or unset it",
            ));
            return report;
        }
    };
    let Some(stream) = network_checks(&mut report, &settings, &target, proxy.as_ref(), timeout)
    else {
        return report;
    };
    drop(stream);

    // Credentials need every setting; the network checks above did not.
    let (Some(secret), Some(client_id)) = (secret, &settings.client_id) else {
        return report;
    };
    if report.checks.iter().any(Check::failed) {
        return report;
    }
    let endpoint = Endpoint {
        base_url: base,
        client_id: client_id.value.clone(),
        client_secret: secret,
        auth_style: settings.auth_style.value,
        proxy: settings.proxy_url(),
        no_proxy: settings.no_proxy.as_ref().map(|n| n.value.clone()),
        ca_cert: settings.ca_cert.as_ref().map(|c| c.value.clone()),
    };
    service::checks(&mut report, &settings, &endpoint, reference, log);
    report
}

/// Where the TCP connection goes: the base URL's host and port.
struct Target {
    host: String,
    port: u16,
    https: bool,
}

impl Target {
    fn of(base: &BaseUrl) -> Option<Target> {
        let uri: Uri = base.to_string().parse().ok()?;
        let https = uri.scheme_str() == Some("https");
        Some(Target {
            host: uri.host()?.to_owned(),
            port: uri.port_u16().unwrap_or(if https { 443 } else { 80 }),
            https,
        })
    }
}

/// The proxy requests will go through, decided as the client decides it.
fn proxy_for(settings: &Settings, base: &BaseUrl) -> Result<Option<ureq::Proxy>, Failure> {
    crate::transport::proxy::choose(
        base,
        settings.proxy_url().as_ref(),
        settings.no_proxy.as_ref().map(|n| n.value.as_str()),
    )
}

/// 1. Which file, which profile and why, and what about them deserves attention.
fn config_check(settings: &Settings) -> Check {
    let file = match (&settings.config, settings.config_loaded) {
        (Some(c), true) => format!("{}", c.path.display()),
        (Some(c), false) => format!(
            "none ({} does not exist; payverify config init writes one)",
            c.path.display()
        ),
        (None, _) => "none (no config directory: no HOME?)".to_owned(),
    };
    let (names, _) = &settings.profiles;
    let profile = match &settings.profile {
        Some(p) => {
            let why = match &p.source {
                Source::Flag(flag) => format!("from {flag}"),
                Source::Env(name) => format!("from {name}"),
                Source::File { .. } => "the file's default_profile".to_owned(),
                Source::DefaultProfile { .. } => {
                    "named default, and no default_profile names another".to_owned()
                }
                other => format!("from {other}"),
            };
            format!("profile '{}' ({why})", p.value)
        }
        None => "no profile".to_owned(),
    };
    let mut found = format!("file {file}; {profile}");
    let mut fixes = Vec::new();
    if settings.profile.is_none() && !names.is_empty() {
        found.push_str(&format!(
            "; the file's profiles ({}) are not used: no --profile, PAYVERIFY_PROFILE or \
             default_profile picks one",
            names.join(", "),
        ));
        fixes.push(format!(
            "add default_profile = \"{}\" at the top of the file, or pass --profile NAME",
            names.first().map(String::as_str).unwrap_or("NAME")
        ));
    }
    for warning in &settings.warnings {
        found.push_str(&format!("; {}", warning.what));
        // Several profiles with problems share one fix: said once.
        let fix = warning.fix.text().to_owned();
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    let check = if fixes.is_empty() {
        Check::ok("config", found)
    } else {
        Check::warn("config", found, fixes.join("; "))
    };
    let path = settings
        .config
        .as_ref()
        .map(|c| c.path.display().to_string());
    check
        .with("file", path)
        .with("loaded", settings.config_loaded)
        .with(
            "profile",
            settings.profile.as_ref().map(|p| p.value.clone()),
        )
        .with(
            "profile_source",
            settings.profile.as_ref().map(|p| p.source.to_string()),
        )
        .with("profiles", names.clone())
        .with(
            "warnings",
            settings
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        )
}

/// Where a setting came from, as the settings line says it: the file and profile are on
/// the config line already, so a profile's value is `profile 'live'`, not its path again.
fn short_source(source: &Source) -> String {
    match source {
        Source::Profile { profile, .. } => format!("profile '{profile}'"),
        Source::Flag(flag) => format!("flag {flag}"),
        other => other.to_string(),
    }
}

/// `from A: x, y; from B: z`: each value once, after the source it shares with the values
/// next to it.
fn grouped(items: &[(String, &Source)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (text, source) in items {
        let label = short_source(source);
        match groups.last_mut() {
            Some((last, texts)) if *last == label => texts.push(text),
            _ => groups.push((label, vec![text])),
        }
    }
    groups
        .iter()
        .map(|(label, texts)| format!("from {label}: {}", texts.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// 2. Base URL, client id and secret with their sources; the secret is read, never shown.
fn settings_check(settings: &Settings, timeout: Duration) -> (Check, Option<Secret>) {
    let mut found: Vec<(String, &Source)> = Vec::new();
    let mut missing = Vec::new();
    let mut warnings = Vec::new();
    let mut fixes = Vec::new();
    let mut failure: Option<String> = None;
    match &settings.base_url {
        Some(url) => found.push((
            format!("base URL {}", without_userinfo(&url.value)),
            &url.source,
        )),
        None => missing.push(("base URL", "--base-url URL, PAYVERIFY_BASE_URL or base_url")),
    }
    match &settings.client_id {
        Some(id) => match crate::settings::client_id_problem(&id.value) {
            Some(why) => {
                failure.get_or_insert(format!("the client id from {} {why}", id.source));
            }
            None => {
                let trimmed = match settings.client_id_trimmed {
                    true => " (the whitespace around it was taken off, as around a secret)",
                    false => "",
                };
                found.push((format!("client id {}{trimmed}", id.value), &id.source));
            }
        },
        None => missing.push((
            "client id",
            "--client-id ID, PAYVERIFY_CLIENT_ID or client_id",
        )),
    }
    let secret = match &settings.client_secret {
        None => {
            missing.push((
                "client secret",
                "--client-secret-file PATH, PAYVERIFY_CLIENT_SECRET, or client_secret_file / \
                 client_secret_command in the profile",
            ));
            None
        }
        Some(source) => {
            let kind = match &source.value {
                SecretSource::Value(_) => "set".to_owned(),
                SecretSource::File(path) => format!("read from {}", path.display()),
                // Never its arguments: one can hold the secret or a session token.
                SecretSource::Command(argv) => format!(
                    "printed by {}",
                    crate::settings::secret_source::shown_command(argv)
                ),
            };
            // Its warnings (a readable secret file) go into this check, not onto stderr.
            let quiet = Log::new(Level::Quiet);
            match source.value.read_within(&quiet, timeout) {
                Ok(secret) if secret.expose().trim().is_empty() => {
                    failure.get_or_insert(format!(
                        "the client secret from {} is empty or only whitespace",
                        source.source
                    ));
                    None
                }
                Ok(secret) => {
                    // A command's description already says what is not shown.
                    let hidden = match &source.value {
                        SecretSource::Command(_) => "",
                        _ => " (not shown)",
                    };
                    found.push((format!("client secret {kind}{hidden}"), &source.source));
                    if let SecretSource::File(path) = &source.value
                        && let Some(w) = crate::settings::secret_source::exposed_file_warning(path)
                    {
                        warnings.push(w.what);
                        fixes.push(w.fix.text().to_owned());
                    }
                    Some(secret)
                }
                Err(e) => {
                    failure.get_or_insert(format!("{} (from {})", e.message, source.source));
                    None
                }
            }
        }
    };
    for (env_name, key) in &settings.shadowed {
        warnings.push(format!("{env_name} overrides the profile's {key}"));
        fixes.push(format!("unset {env_name} to use the profile's {key}"));
    }
    let mut check = if let Some(why) = failure {
        Check::fail(
            "settings",
            Exit::Config,
            why,
            "correct that source (payverify config show lists every setting and its source)",
        )
    } else if !missing.is_empty() {
        let what: Vec<&str> = missing.iter().map(|(w, _)| *w).collect();
        let how: Vec<String> = missing
            .iter()
            .map(|(w, how)| format!("{w}: {how}"))
            .collect();
        // With no config file at all, the quickest way is to write one.
        let init = match settings.config_loaded {
            false => "run payverify config init --client-id ID --client-secret-file PATH (it \
                      writes a profile for the live service), or "
                .to_owned(),
            true => String::new(),
        };
        Check::fail(
            "settings",
            Exit::Config,
            format!("no {} configured", what.join(", no ")),
            format!("{init}set {}", how.join("; ")),
        )
    } else {
        let mut text = grouped(&found);
        for w in &warnings {
            text.push_str(&format!("; {w}"));
        }
        match fixes.is_empty() {
            true => Check::ok("settings", text),
            false => Check::warn("settings", text, fixes.join("; ")),
        }
    };
    let sourced = |v: &Option<crate::settings::Sourced<String>>, shown: fn(&str) -> String| {
        v.as_ref()
            .map(|v| serde_json::json!({"value": shown(&v.value), "source": v.source.to_string()}))
    };
    check = check
        .with("base_url", sourced(&settings.base_url, without_userinfo))
        .with("client_id", sourced(&settings.client_id, str::to_owned))
        .with("client_id_trimmed", settings.client_id_trimmed)
        .with(
            "proxy",
            sourced(&settings.proxy, crate::transport::proxy::shown),
        )
        .with("no_proxy", sourced(&settings.no_proxy, str::to_owned))
        .with(
            "client_secret_source",
            settings
                .client_secret
                .as_ref()
                .map(|s| s.source.to_string()),
        )
        .with("client_secret_read", secret.is_some())
        .with(
            "auth_style",
            format!("{:?}", settings.auth_style.value).to_lowercase(),
        )
        .with(
            "overridden_by_env",
            settings
                .shadowed
                .iter()
                .map(|(env, key)| serde_json::json!({"env": env, "key": key}))
                .collect::<Vec<_>>(),
        );
    (check, secret)
}

/// 3. https (or loopback http), no userinfo, no operation path already in it.
fn base_url_check(raw: &str, source: &Source) -> (Check, Option<BaseUrl>) {
    let fix = "set the gateway's root, e.g. https://paywithbank3d.com or \
               https://staging.paywithbank3d.com";
    let base = match BaseUrl::parse_shape(raw) {
        Ok(base) => base,
        Err(why) => {
            let found = format!("{why}; it came from {source}");
            return (Check::fail("base_url", Exit::Config, found, fix), None);
        }
    };
    let uri: Option<Uri> = base.to_string().parse().ok();
    let path = uri
        .as_ref()
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    // The rule every command applies (BaseUrl::parse), with doctor's own wording.
    if let Some((root, found)) = base.operation_path() {
        let check = Check::fail(
            "base_url",
            Exit::Config,
            format!(
                "{base} (from {source}) already holds the operation path: it ends in {found}; \
                 payverify appends /api/payment/verify/REFERENCE itself"
            ),
            format!("set the base URL to {root}"),
        );
        return (check, None);
    }
    let how = if base.to_string().starts_with("https://") {
        "https"
    } else {
        "plain http to a loopback address (allowed only there)"
    };
    let prefix = match path.as_str() {
        "" | "/" => String::new(),
        p => format!("; path prefix {p} kept before /api/payment/verify/"),
    };
    let check =
        Check::ok("base_url", format!("{base}: {how}{prefix}")).with("url", base.to_string());
    (check, Some(base))
}

/// 4-6. Name resolution, TCP connection and TLS; the open connection when all passed.
fn network_checks(
    report: &mut Report,
    settings: &Settings,
    target: &Target,
    proxy: Option<&ureq::Proxy>,
    timeout: Duration,
) -> Option<std::net::TcpStream> {
    let (host, port, via) = match proxy {
        Some(p) => (
            p.host().to_owned(),
            p.port(),
            format!(" (the proxy {}:{})", p.host(), p.port()),
        ),
        None => (target.host.clone(), target.port, String::new()),
    };
    let started = Instant::now();
    let addrs = match net::resolve(&host, port, timeout) {
        Ok(addrs) => {
            let list: Vec<String> = addrs.iter().map(|a| a.ip().to_string()).collect();
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            let found = match bare.parse::<std::net::IpAddr>() {
                Ok(_) => format!("{host}{via} is an address: nothing to resolve"),
                Err(_) => format!("{host}{via} resolves to {}", list.join(", ")),
            };
            report.add(
                Check::ok("resolve", found)
                    .with("host", host.clone())
                    .with("addresses", list)
                    .with("ms", ms(started)),
            );
            addrs
        }
        Err(why) => {
            report.add(Check::fail(
                "resolve",
                Exit::Unavailable,
                format!("cannot resolve {host}{via}: {why}"),
                "check the host name in the base URL (or proxy) and this machine's DNS",
            ));
            return None;
        }
    };
    let started = Instant::now();
    let (stream, addr) = match net::connect(&addrs, timeout) {
        Ok(connected) => connected,
        Err(why) => {
            report.add(Check::fail(
                "connect",
                Exit::Unavailable,
                format!("cannot connect to {host}:{port}{via}: {why}"),
                "check the port in the base URL, that the service is up, and that no firewall \
                 is in the way",
            ));
            return None;
        }
    };
    let connect_ms = ms(started);
    report.add(
        Check::ok(
            "connect",
            format!("connected to {addr}{via} in {connect_ms} ms"),
        )
        .with("address", addr.to_string())
        .with("ms", connect_ms),
    );
    if let Some(p) = proxy {
        report.add(Check::ok(
            "tls",
            format!(
                "not checked here: requests go through the proxy {}:{}; the credentials \
                 check below goes through it",
                p.host(),
                p.port()
            ),
        ));
        return Some(stream);
    }
    if !target.https {
        report.add(Check::ok(
            "tls",
            "not used: plain http to a loopback address",
        ));
        return Some(stream);
    }
    tls_check(report, settings, &stream, &target.host, timeout).then_some(stream)
}

/// 6. The handshake; true when it passed.
fn tls_check(
    report: &mut Report,
    settings: &Settings,
    stream: &std::net::TcpStream,
    host: &str,
    timeout: Duration,
) -> bool {
    let ca = settings.ca_cert.as_ref();
    let roots = match net::Roots::new(ca.map(|c| c.value.as_path())) {
        Ok(roots) => roots,
        Err(failure) => {
            let from = ca
                .map(|c| format!(" (from {})", c.source))
                .unwrap_or_default();
            return !report.add(Check::fail(
                "tls",
                Exit::Config,
                format!("{}{from}", failure.message),
                "point --ca-cert or the profile's ca_cert at a PEM file of root certificates",
            ));
        }
    };
    let started = Instant::now();
    match net::handshake(stream, host, &roots, timeout) {
        Ok(facts) => {
            let mut text = facts.version.clone();
            let mut check_days = None;
            if let Some(leaf) = &facts.leaf {
                text.push_str(&format!(
                    "; certificate for {}, issued by {}, expires {} (in {} days)",
                    leaf.subject, leaf.issuer, leaf.not_after, leaf.days_left
                ));
                check_days = Some(leaf.days_left);
            }
            match (ca, facts.extra_root_needed) {
                (Some(ca), true) => text.push_str(&format!(
                    "; the extra root from --ca-cert {} ({}) was needed",
                    ca.value.display(),
                    ca.source
                )),
                (Some(ca), false) => text.push_str(&format!(
                    "; the extra root from {} ({}) was not needed: a Mozilla root signs it",
                    ca.value.display(),
                    ca.source
                )),
                (None, _) => text.push_str("; signed by a Mozilla root, no --ca-cert needed"),
            }
            let check = match check_days {
                Some(days) if days < EXPIRY_WARNING_DAYS => Check::warn(
                    "tls",
                    text,
                    format!(
                        "the certificate expires in under {EXPIRY_WARNING_DAYS} days: tell \
                         whoever runs {host} (or your TLS-inspecting proxy) to renew it"
                    ),
                ),
                _ => Check::ok("tls", text),
            };
            let leaf = facts.leaf.as_ref();
            !report.add(
                check
                    .with("version", facts.version.clone())
                    .with("subject", leaf.map(|l| l.subject.clone()))
                    .with("issuer", leaf.map(|l| l.issuer.clone()))
                    .with("not_after", leaf.map(|l| l.not_after.clone()))
                    .with("days_left", leaf.map(|l| l.days_left))
                    .with("ca_cert_needed", facts.extra_root_needed)
                    .with("ms", ms(started)),
            )
        }
        Err(failure) => {
            let mut text = format!("TLS handshake with {host} failed: {}", failure.reason);
            if let Some(leaf) = &failure.leaf {
                text.push_str(&format!(
                    "; its certificate is for {}, issued by {}, expires {}",
                    leaf.subject, leaf.issuer, leaf.not_after
                ));
            }
            use rustls::CertificateError as C;
            let fix = match (&failure.certificate, ca) {
                (Some(C::UnknownIssuer), None) => "if a TLS-inspecting proxy or a private CA \
                    signs this certificate, add its root with --ca-cert PEM (or ca_cert in the \
                    profile)"
                    .to_owned(),
                (Some(C::UnknownIssuer | C::BadSignature), Some(ca)) => format!(
                    "neither a Mozilla root nor the roots in {} ({}) sign this certificate: \
                     point --ca-cert at the root that does",
                    ca.value.display(),
                    ca.source
                ),
                (Some(C::NotValidForName | C::NotValidForNameContext { .. }), _) => {
                    "the certificate is for another name: check the base URL's host".to_owned()
                }
                (Some(C::Expired | C::ExpiredContext { .. }), _) => {
                    "the server's certificate has expired: its operator must renew it".to_owned()
                }
                _ => "check that the base URL's scheme and port are the service's https ones"
                    .to_owned(),
            };
            !report.add(Check::fail("tls", Exit::Unavailable, text, fix))
        }
    }
}

/// Days before expiry under which the certificate is a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;

fn ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
