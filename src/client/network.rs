//! Reaching the service: proxies and extra root certificates.

use std::path::Path;

use ureq::Proxy;
use ureq::tls::{Certificate, PemItem, RootCerts, parse_pem};

use crate::base_url::is_loopback;
use crate::exit::Failure;
use crate::settings::Endpoint;

/// The proxy to use: none for loopback (a plain-http loopback request must never hand the
/// Authorization header to a proxy), else `--proxy`/config, else HTTPS_PROXY, HTTP_PROXY and
/// NO_PROXY from the environment.
pub fn proxy(endpoint: &Endpoint) -> Result<Option<Proxy>, Failure> {
    if is_loopback(endpoint.base_url.host()) {
        return Ok(None);
    }
    match &endpoint.proxy {
        Some(url) => Proxy::new(url).map(Some).map_err(|_| {
            Failure::config(format!(
                "proxy '{url}' is not a usable proxy URL (supported schemes: http, https, \
                 socks4, socks4a, socks5, socks5h; e.g. http://proxy.example:3128)"
            ))
        }),
        None => Ok(Proxy::try_from_env()),
    }
}

/// Mozilla's roots (as ureq uses by default) plus every certificate in the PEM file.
pub fn roots_with(path: &Path) -> Result<RootCerts, Failure> {
    let fail = |why: String| Failure::config(format!("CA file {}: {why}", path.display()));
    let pem = std::fs::read(path).map_err(|e| fail(crate::config::io_reason(&e)))?;
    let mut extra = Vec::new();
    for item in parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => extra.push(cert),
            Ok(_) => {}
            Err(e) => return Err(fail(format!("not valid PEM: {e}"))),
        }
    }
    if extra.is_empty() {
        return Err(fail("holds no PEM certificate".into()));
    }
    let mozilla = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()));
    Ok(RootCerts::from(mozilla.chain(extra)))
}
