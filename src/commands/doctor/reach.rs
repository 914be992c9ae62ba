//! The checks on the way to the service: name resolution, the TCP connection and the TLS
//! handshake.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{Check, Report, Target, ms, net};
use crate::exit::Exit;
use crate::settings::{Settings, Sourced};

/// 4-6. Name resolution, TCP connection and TLS; `None` when one failed.
pub(super) fn network_checks(
    report: &mut Report,
    settings: &Settings,
    target: &Target,
    proxy: Option<&ureq::Proxy>,
    timeout: Duration,
) -> Option<()> {
    let (host, port, via) = match proxy {
        Some(p) => (
            p.host().to_owned(),
            p.port(),
            format!(" (the proxy {}:{})", p.host(), p.port()),
        ),
        None => (target.host.clone(), target.port, String::new()),
    };
    let started = Instant::now();
    let addrs = report.step(net::resolve(&host, port, timeout).map_err(|why| {
        Check::fail(
            "resolve",
            Exit::Unavailable,
            format!("cannot resolve {host}{via}: {why}"),
            "check the host name in the base URL (or proxy) and this machine's DNS",
        )
    }))?;
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
    let started = Instant::now();
    let (stream, addr) = report.step(net::connect(&addrs, timeout).map_err(|why| {
        Check::fail(
            "connect",
            Exit::Unavailable,
            format!("cannot connect to {host}:{port}{via}: {why}"),
            "check the port in the base URL, that the service is up, and that no firewall \
             is in the way",
        )
    }))?;
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
        return Some(());
    }
    if !target.https {
        report.add(Check::ok(
            "tls",
            "not used: plain http to a loopback address",
        ));
        return Some(());
    }
    tls_check(report, settings, &stream, &target.host, timeout)
}

/// 6. The handshake; `None` when it failed.
fn tls_check(
    report: &mut Report,
    settings: &Settings,
    stream: &std::net::TcpStream,
    host: &str,
    timeout: Duration,
) -> Option<()> {
    let ca = settings.ca_cert.as_ref();
    let roots = report.step(
        net::Roots::new(ca.map(|c| c.value.as_path())).map_err(|failure| {
            let from = ca
                .map(|c| format!(" (from {})", c.source))
                .unwrap_or_default();
            Check::fail(
                "tls",
                Exit::Config,
                format!("{}{from}", failure.message),
                "point --ca-cert or the profile's ca_cert at a PEM file of root certificates",
            )
        }),
    )?;
    let started = Instant::now();
    let check = match net::handshake(stream, host, &roots, timeout) {
        Ok(facts) => handshake_check(&facts, ca, host).with("ms", ms(started)),
        Err(failure) => {
            let mut text = format!("TLS handshake with {host} failed: {}", failure.reason);
            if let Some(leaf) = &failure.leaf {
                text.push_str(&format!(
                    "; its certificate is for {}, issued by {}, expires {}",
                    leaf.subject, leaf.issuer, leaf.not_after
                ));
            }
            Check::fail("tls", Exit::Unavailable, text, tls_fix(&failure, ca))
        }
    };
    report.pass(check)
}

/// The check of a handshake that passed: the protocol, the certificate and whether the
/// extra root was needed; a warning when the certificate expires soon.
fn handshake_check(facts: &net::TlsFacts, ca: Option<&Sourced<PathBuf>>, host: &str) -> Check {
    let mut text = facts.version.clone();
    if let Some(leaf) = &facts.leaf {
        text.push_str(&format!(
            "; certificate for {}, issued by {}, expires {} (in {} days)",
            leaf.subject, leaf.issuer, leaf.not_after, leaf.days_left
        ));
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
    let leaf = facts.leaf.as_ref();
    let check = match leaf.map(|l| l.days_left) {
        Some(days) if days < EXPIRY_WARNING_DAYS => Check::warn(
            "tls",
            text,
            format!(
                "the certificate expires in under {EXPIRY_WARNING_DAYS} days: tell whoever runs \
                 {host} (or your TLS-inspecting proxy) to renew it"
            ),
        ),
        _ => Check::ok("tls", text),
    };
    check
        .with("version", facts.version.clone())
        .with("subject", leaf.map(|l| l.subject.clone()))
        .with("issuer", leaf.map(|l| l.issuer.clone()))
        .with("not_after", leaf.map(|l| l.not_after.clone()))
        .with("days_left", leaf.map(|l| l.days_left))
        .with("ca_cert_needed", facts.extra_root_needed)
}

/// What to do about a handshake that failed, by what the certificate was refused for.
fn tls_fix(failure: &net::TlsFailure, ca: Option<&Sourced<PathBuf>>) -> String {
    use rustls::CertificateError as C;
    match (&failure.certificate, ca) {
        (Some(C::UnknownIssuer), None) => "if a TLS-inspecting proxy or a private CA signs this \
            certificate, add its root with --ca-cert PEM (or ca_cert in the profile)"
            .to_owned(),
        (Some(C::UnknownIssuer | C::BadSignature), Some(ca)) => format!(
            "neither a Mozilla root nor the roots in {} ({}) sign this certificate: point \
             --ca-cert at the root that does",
            ca.value.display(),
            ca.source
        ),
        (Some(C::NotValidForName | C::NotValidForNameContext { .. }), _) => {
            "the certificate is for another name: check the base URL's host".to_owned()
        }
        (Some(C::Expired | C::ExpiredContext { .. }), _) => {
            "the server's certificate has expired: its operator must renew it".to_owned()
        }
        _ => "check that the base URL's scheme and port are the service's https ones".to_owned(),
    }
}

/// Days before expiry under which the certificate is a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;
