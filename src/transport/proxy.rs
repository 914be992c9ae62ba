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
use crate::settings::{EnvLookup, Source, Sourced};
use crate::transport::base_url::{BaseUrl, is_loopback};

/// The environment variables that can name the proxy, in the order they are read; the first
/// one set (and not blank) is the one used, usable or not. Every proxied request is https
/// (plain http goes to loopback only), so the `https_proxy` pair comes first, then
/// `all_proxy`, then `http_proxy` as a fallback. Lower case before upper case, as curl
/// reads them.
pub(crate) const ENV_PROXY: [&str; 6] = [
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "http_proxy",
    "HTTP_PROXY",
];

/// The environment variables that list hosts reached without the environment's proxy.
pub(crate) const ENV_NO_PROXY: [&str; 2] = ["no_proxy", "NO_PROXY"];

/// Upper-case `HTTP_PROXY` is skipped when this is set ("httpoxy"): under CGI, a request's
/// `Proxy:` header reaches the program as `HTTP_PROXY`, so a web client could choose where
/// payverify sends its credentials. curl and Go make the same exception.
const CGI_MARK: &str = "REQUEST_METHOD";

/// The proxy the environment names, with the variable it came from: the first of
/// [`ENV_PROXY`] that is set and not blank.
pub(crate) fn from_env(env: EnvLookup) -> Option<Sourced<String>> {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let cgi = set(CGI_MARK).is_some();
    ENV_PROXY
        .iter()
        .filter(|&&name| !(cgi && name == "HTTP_PROXY"))
        .find_map(|&name| set(name).map(|value| Sourced::new(value, Source::Env(name))))
}

/// The NO_PROXY list from the environment, with the variable it came from.
pub(crate) fn no_proxy_from_env(env: EnvLookup) -> Option<Sourced<String>> {
    ENV_NO_PROXY.iter().find_map(|&name| {
        env(name)
            .filter(|v| !v.trim().is_empty())
            .map(|value| Sourced::new(value, Source::Env(name)))
    })
}

/// The proxy requests to `base` go through: none for a loopback host, none when the proxy
/// came from the environment and `no_proxy` lists the host; exit 6 when the URL is unusable,
/// wherever it came from.
pub(crate) fn choose(
    base: &BaseUrl,
    proxy: Option<&Sourced<String>>,
    no_proxy: Option<&str>,
) -> Result<Option<Proxy>, Failure> {
    let Some(proxy) = proxy else {
        return Ok(None);
    };
    if is_loopback(base.host()) {
        return Ok(None);
    }
    let parsed = parse(proxy)?;
    let from_env = matches!(proxy.source, Source::Env(_));
    if from_env && no_proxy.is_some_and(|list| bypassed(base.host(), list)) {
        return Ok(None);
    }
    Ok(Some(parsed))
}

/// `proxy` as a usable proxy, or exit 6 naming where it came from (its userinfo never
/// shown).
pub(crate) fn parse(proxy: &Sourced<String>) -> Result<Proxy, Failure> {
    if proxy.value.trim().is_empty() {
        return Err(Failure::config(
            Cause::Proxy,
            format!(
                "the proxy from {} is empty; remove it (HTTPS_PROXY/HTTP_PROXY then apply) or \
                 give a proxy URL",
                proxy.source
            ),
        ));
    }
    let unusable = |why: &str| {
        Failure::config(
            Cause::Proxy,
            format!(
                "proxy '{}' from {} is not a usable proxy URL{why}",
                shown(&proxy.value),
                proxy.source
            ),
        )
    };
    let parsed = Proxy::new(&proxy.value).map_err(|_| {
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

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn picked(pairs: &'static [(&'static str, &'static str)]) -> Option<(String, String)> {
        let env = env_of(pairs);
        from_env(&env).map(|p| (p.value, p.source.to_string()))
    }

    #[test]
    fn the_environment_is_read_https_first_lower_case_first() {
        assert_eq!(picked(&[]), None);
        assert_eq!(
            picked(&[
                ("HTTP_PROXY", "h:1"),
                ("ALL_PROXY", "a:1"),
                ("HTTPS_PROXY", "s:1")
            ]),
            Some(("s:1".into(), "env HTTPS_PROXY".into()))
        );
        assert_eq!(
            picked(&[("HTTPS_PROXY", "S:1"), ("https_proxy", "s:1")]),
            Some(("s:1".into(), "env https_proxy".into()))
        );
        assert_eq!(
            picked(&[("HTTP_PROXY", "h:1"), ("all_proxy", "a:1")]),
            Some(("a:1".into(), "env all_proxy".into()))
        );
        // Blank is unset, as for every tool that reads these.
        assert_eq!(
            picked(&[("HTTPS_PROXY", " "), ("http_proxy", "h:1")]),
            Some(("h:1".into(), "env http_proxy".into()))
        );
    }

    #[test]
    fn upper_case_http_proxy_is_skipped_under_cgi() {
        assert_eq!(
            picked(&[("HTTP_PROXY", "h:1")]),
            Some(("h:1".into(), "env HTTP_PROXY".into()))
        );
        assert_eq!(
            picked(&[("HTTP_PROXY", "evil:1"), ("REQUEST_METHOD", "GET")]),
            None
        );
        // A request header cannot set the lower-case name, so it still counts.
        assert_eq!(
            picked(&[
                ("HTTP_PROXY", "evil:1"),
                ("http_proxy", "h:1"),
                ("REQUEST_METHOD", "GET")
            ]),
            Some(("h:1".into(), "env http_proxy".into()))
        );
    }

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
        let from_flag = |url: &str| parse(&Sourced::new(url.to_owned(), Source::Flag("--proxy")));
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
