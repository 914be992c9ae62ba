//! Which proxy requests go through, and how a proxy URL may be shown.
//!
//! The proxy comes from `--proxy`, else the profile's `proxy` key, else the environment
//! ([`from_env`]), and whatever its source an unusable URL is exit 6: a proxy that is
//! silently skipped sends the request, and its Authorization header, along a path the
//! operator did not choose. NO_PROXY applies to the environment's proxy only, and a loopback
//! base URL never uses a proxy at all (a plain-http loopback request must never hand the
//! Authorization header to one).
//!
//! A proxy URL can carry a password. Its userinfo is registered as a secret as soon as the
//! URL is known ([`super::userinfo::register`]), so the one redaction removes it from every
//! output, and it is shown with the userinfo replaced ([`shown`]).

use std::net::IpAddr;

use ureq::Proxy;

use crate::exit::{Cause, Failure};
use crate::transport::base_url::{BaseUrl, is_loopback};

/// A proxy URL as the settings resolved it, with what transport needs of its origin.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ProxyUrl {
    /// The URL as given; its userinfo is registered for redaction and never shown.
    pub(crate) url: String,
    /// The environment named it: only then does NO_PROXY apply.
    pub(crate) from_env: bool,
    /// Where it came from, for messages (`--proxy`, `env HTTPS_PROXY`, a profile key).
    pub(crate) origin: String,
}

impl std::fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyUrl")
            .field("url", &shown(&self.url))
            .field("from_env", &self.from_env)
            .field("origin", &self.origin)
            .finish()
    }
}

/// The proxy requests to `base` go through: none for a loopback host, none when the proxy
/// came from the environment and `no_proxy` lists the host; exit 6 when the URL is unusable,
/// wherever it came from.
pub(crate) fn choose(
    base: &BaseUrl,
    proxy: Option<&ProxyUrl>,
    no_proxy: Option<&str>,
) -> Result<Option<Proxy>, Failure> {
    let Some(proxy) = proxy else {
        return Ok(None);
    };
    if is_loopback(base.host()) {
        return Ok(None);
    }
    let parsed = parse(proxy)?;
    if proxy.from_env && no_proxy.is_some_and(|list| bypassed(base.host(), list)) {
        return Ok(None);
    }
    Ok(Some(parsed))
}

/// `proxy` as a usable proxy, or exit 6 naming where it came from (its userinfo never
/// shown).
pub(crate) fn parse(proxy: &ProxyUrl) -> Result<Proxy, Failure> {
    if proxy.url.trim().is_empty() {
        return Err(Failure::config(
            Cause::Proxy,
            format!(
                "the proxy from {} is empty; remove it (HTTPS_PROXY/HTTP_PROXY then apply) or \
                 give a proxy URL",
                proxy.origin
            ),
        ));
    }
    let unusable = |why: &str| {
        Failure::config(
            Cause::Proxy,
            format!(
                "proxy '{}' from {} is not a usable proxy URL{why}",
                shown(&proxy.url),
                proxy.origin
            ),
        )
    };
    let parsed = Proxy::new(&proxy.url).map_err(|_| {
        unusable(
            " (supported schemes: http, https, socks4, socks4a, socks5, socks5h; e.g. \
             http://proxy.example:3128)",
        )
    })?;
    let Some(authority) = parsed.uri().authority() else {
        return Err(unusable(": it names no host"));
    };
    if authority.host().is_empty() {
        return Err(unusable(": it names no host"));
    }
    // A port that is not a number from 1 to 65535 is dropped by the URI type, and the
    // connection would go to the scheme's default port instead: a typo must not send the
    // proxy's credentials somewhere else.
    let host_port = authority
        .as_str()
        .rsplit_once('@')
        .map_or(authority.as_str(), |(_, tail)| tail);
    let port = match host_port.strip_prefix('[') {
        Some(rest) => rest
            .split_once(']')
            .and_then(|(_, tail)| tail.strip_prefix(':')),
        None => host_port.split_once(':').map(|(_, port)| port),
    };
    if port.is_some_and(|p| {
        !p.bytes().all(|b| b.is_ascii_digit())
            || !(1..=65535).contains(&p.parse::<u32>().unwrap_or(0))
    }) {
        return Err(unusable(": its port is not a number from 1 to 65535"));
    }
    Ok(parsed)
}

// How a proxy URL is shown: the rule every URL shares.
#[cfg(test)]
use super::userinfo::percent_decoded;
pub(crate) use super::userinfo::shown;

/// Whether `host` is one NO_PROXY's `list` exempts, as curl reads the list: entries
/// separated by commas (and spaces), compared without case; `*` exempts every host;
/// `example.com`, `.example.com` and `*.example.com` each exempt example.com and every
/// name under it; an IP address entry exempts that address, and `10.0.0.0/8` (or an IPv6
/// prefix) every address in it. A port after an entry is ignored.
pub(crate) fn bypassed(host: &str, list: &str) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let ip = host.parse::<IpAddr>().ok();
    list.split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let entry = without_port(entry);
            if let Some(ip) = ip {
                return ip_matches(ip, entry);
            }
            let name = entry
                .trim_start_matches('*')
                .trim_start_matches('.')
                .trim_end_matches('.')
                .to_ascii_lowercase();
            !name.is_empty()
                && (host == name
                    || host
                        .strip_suffix(name.as_str())
                        .is_some_and(|head| head.ends_with('.')))
        })
}

/// An entry without a `:port` after it (`[::1]:443` and `host:8443`; a bare IPv6 address
/// is left whole).
fn without_port(entry: &str) -> &str {
    if let Some(rest) = entry.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(address, _)| address);
    }
    match entry.split_once(':') {
        Some((head, tail)) if !tail.contains(':') => head,
        _ => entry,
    }
}

/// Whether `ip` is the address `entry` names, or inside the prefix it names (`a.b.c.d/n`).
fn ip_matches(ip: IpAddr, entry: &str) -> bool {
    let (address, bits) = match entry.split_once('/') {
        Some((address, bits)) => match bits.parse::<u32>() {
            Ok(bits) => (address, Some(bits)),
            Err(_) => return false,
        },
        None => (entry, None),
    };
    let Ok(network) = address.parse::<IpAddr>() else {
        return false;
    };
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => {
            let bits = bits.unwrap_or(32);
            bits <= 32
                && prefix(
                    u128::from(u32::from(ip)),
                    u128::from(u32::from(net)),
                    bits,
                    32,
                )
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) => {
            let bits = bits.unwrap_or(128);
            bits <= 128 && prefix(u128::from(ip), u128::from(net), bits, 128)
        }
        _ => false,
    }
}

/// Whether the first `bits` of two `width`-bit numbers agree.
fn prefix(a: u128, b: u128, bits: u32, width: u32) -> bool {
    let shift = width - bits;
    match shift >= 128 {
        true => true,
        false => (a >> shift) == (b >> shift),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_matches_names_domains_addresses_and_prefixes() {
        for (host, list) in [
            ("gw.example", "gw.example"),
            ("GW.Example", "other, gw.example"),
            ("api.gw.example", "gw.example"),
            ("api.gw.example", ".gw.example"),
            ("api.gw.example", "*.gw.example"),
            ("gw.example", ".gw.example"),
            ("gw.example", "x.example,*"),
            ("gw.example", "gw.example:443"),
            ("gw.example.", "gw.example"),
            ("10.1.2.3", "10.0.0.0/8"),
            ("10.1.2.3", "10.1.2.3"),
            ("[2001:db8::1]", "2001:db8::/32"),
            ("[2001:db8::1]", "[2001:db8::1]:443"),
            ("gw.example", "a.example gw.example"),
        ] {
            assert!(bypassed(host, list), "{host} in {list}");
        }
        for (host, list) in [
            ("gw.example", ""),
            ("gw.example", "w.example"),
            ("evilgw.example", "gw.example"),
            ("gw.example.evil", "gw.example"),
            ("gw.example", "."),
            ("10.1.2.3", "10.0.0.0/16"),
            ("10.1.2.3", "10.0.0.0/x"),
            ("10.1.2.3", "10.0.0.0/33"),
            ("[2001:db8::1]", "10.0.0.0/0"),
        ] {
            assert!(!bypassed(host, list), "{host} not in {list}");
        }
    }

    #[test]
    fn userinfo_is_never_shown_even_when_the_url_does_not_parse() {
        for (url, want) in [
            ("http://bob:PASS@proxy:3128", "http://<redacted>@proxy:3128"),
            ("bob:PASS@proxy:3128", "<redacted>@proxy:3128"),
            ("ftp://bob:PA/SS#x@proxy:1", "ftp://<redacted>@proxy:1"),
            ("socks5://p@ss@proxy", "socks5://<redacted>@proxy"),
            ("http://proxy:3128", "http://proxy:3128"),
        ] {
            assert_eq!(shown(url), want, "{url}");
        }
    }

    #[test]
    fn a_port_typo_or_a_missing_host_is_unusable_not_a_default() {
        let from_flag = |url: &str| {
            parse(&ProxyUrl {
                url: url.to_owned(),
                from_env: false,
                origin: "--proxy".to_owned(),
            })
        };
        for url in [
            "http://proxy.example:99999",
            "http://proxy.example:0",
            "http://proxy.example:",
            "http://proxy.example:31x8",
            "http://bob:pw@proxy.example:70000",
            "http://[::1]:0",
            "http://:3128",
            "gopher://proxy.example:70",
            " ",
        ] {
            assert!(from_flag(url).is_err(), "{url}");
        }
        for url in [
            "http://proxy.example:3128",
            "http://proxy.example",
            "http://bob:p@ss@proxy.example:65535",
            "http://[::1]:3128",
            "http://[::1]",
            "socks5h://proxy.example",
            "proxy.example:3128",
        ] {
            assert!(from_flag(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decoded("p%40ss%2f").as_deref(), Some("p@ss/"));
        assert_eq!(percent_decoded("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decoded("%ff"), None);
    }
}
