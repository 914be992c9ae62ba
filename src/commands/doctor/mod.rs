//! `payverify doctor [REFERENCE]`: is this set-up going to work, and can the hmac be trusted?
//!
//! The checks run in the order a request meets them (config, settings, base URL, name
//! resolution, connection, TLS, credentials, then the REFERENCE and its hmac) and doctor
//! stops at the first failure that makes the later ones meaningless. Each step gets one
//! attempt, bounded by `--timeout`; nothing reads stdin.

mod net;
mod report;
mod service;
mod setup;

use std::time::Instant;

use crate::cli::{DoctorArgs, DoctorFormat, GlobalArgs};
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::reference::Reference;
use crate::render::{Printer, write_output};
use crate::settings::{Context, Settings};
use crate::transport::Endpoint;
use net::{Target, network_checks};
use setup::{base_url_check, config_check, journal_check, settings_check, settings_failure};

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
    let mut report = Report::default();
    // `None` only says where the run ended: the report holds why.
    let _ = checks(&mut report, global, args, reference.as_ref(), log, ctx);
    if log.level() != Level::Quiet {
        let mut printer = Printer::plain_stdout();
        let text = match args.output {
            DoctorFormat::Text => report.text(),
            DoctorFormat::Json => crate::commands::config::json_text(report.json()),
        };
        write_output(printer.text(&text))?;
        match report.exit() {
            Exit::Successful => log.info(&report.summary()),
            _ => log.error(&report.summary()),
        }
    }
    Ok(report.exit())
}

/// The checks into `report`; `None` once one has ended the run.
fn checks(
    report: &mut Report,
    global: &GlobalArgs,
    args: &DoctorArgs,
    reference: Option<&Reference>,
    log: &Log,
    ctx: &Context,
) -> Option<()> {
    // --timeout is validated by clap; a bad config timeout is reported by the config check.
    let resolved = Settings::resolve_all(&global.flags(&args.profile_args), ctx);
    let settings = report.step(resolved.map_err(|problems| settings_failure(&problems)))?;
    report.add(config_check(&settings));
    let timeout = settings.timeout.value;

    let (check, secret) = settings_check(&settings, timeout);
    report.add(check);
    report.add(journal_check(&settings));
    let base_url = settings.base_url.as_ref()?;
    let (check, base) = base_url_check(&base_url.value, &base_url.source);
    report.add(check);
    let base = base?;
    let target = report.step(Target::of(&base).ok_or_else(|| {
        Check::fail(
            "base_url",
            Exit::Config,
            format!("cannot tell the host and port of {base}"),
            "give a base URL such as https://paywithbank3d.com",
        )
    }))?;
    let no_proxy = settings.no_proxy.as_ref().map(|n| n.value.as_str());
    let proxy = crate::transport::proxy::choose(&base, settings.proxy_url().as_ref(), no_proxy);
    let proxy = report.step(proxy.map_err(|failure| {
        Check::fail(
            "connect",
            Exit::Config,
            failure.message,
            "correct the proxy where it came from (--proxy, the profile's proxy key, or the \
             environment variable named), or unset it",
        )
    }))?;
    network_checks(report, &settings, &target, proxy.as_ref(), timeout)?;

    // Credentials need every setting; the network checks above did not.
    let (Some(secret), Some(client_id)) = (secret, &settings.client_id) else {
        return None;
    };
    if report.checks.iter().any(Check::failed) {
        return None;
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
    service::checks(report, &settings, &endpoint, reference, log)
}

/// Milliseconds since `since`.
fn ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
