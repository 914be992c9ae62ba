//! The service's base URL: validated once, then joined with the operation path.

use std::fmt;
use std::net::IpAddr;

use crate::reference::Reference;

/// An http(s) base URL that is safe to send credentials to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// Scheme, authority and path prefix, without a trailing slash.
    prefix: String,
    host: String,
}

impl BaseUrl {
    /// Validates `input` as [`BaseUrl::parse_shape`] does, and refuses a base URL that
    /// already holds the operation path or its start ([`BaseUrl::operation_path`]):
    /// payverify adds it itself, and given twice every reference would be "not found",
    /// which reads like a fact about the payments. The one rule verify, reconcile, `config
    /// show`, `config init` and doctor apply.
    pub fn parse(input: &str) -> Result<Self, String> {
        let base = Self::parse_shape(input)?;
        if let Some((root, found)) = base.operation_path() {
            return Err(format!(
                "base URL '{}' already ends in {found}, which payverify adds itself; use \
                 '{root}'",
                input.trim()
            ));
        }
        Ok(base)
    }

    /// When this base URL already ends in the operation path (`/api/payment/verify`, with
    /// or without a reference after it) or its start (`/api`, `/api/payment`), read as a
    /// server reads a path ([`server_segments`]: `/api//payment/./verify`,
    /// `/%61pi/payment/verify` and `/api;v=1/payment/verify` are all the operation path),
    /// compared ignoring case: the base URL to use instead, and what it holds, for messages.
    pub(crate) fn operation_path(&self) -> Option<(String, &'static str)> {
        let prefix = self.prefix.as_str();
        let path_start = prefix
            .find("://")
            .map(|i| i + 3)
            .and_then(|start| prefix[start..].find('/').map(|at| start + at))
            .unwrap_or(prefix.len());
        let segments = server_segments(&prefix[path_start..]);
        // The base URL to use instead: the first `kept` segments, as they were written.
        let root = |kept: usize| {
            let path: String = segments[..kept]
                .iter()
                .map(|(raw, _)| format!("/{raw}"))
                .collect();
            format!("{}{path}", &prefix[..path_start])
        };
        let ends_with = |names: &[&str], after: usize| {
            let n = segments.len().checked_sub(names.len() + after)?;
            let tail = &segments[n..n + names.len()];
            tail.iter()
                .zip(names)
                .all(|((_, read), name)| read.eq_ignore_ascii_case(name))
                .then_some(n)
        };
        if let Some(kept) = ends_with(&OPERATION_SEGMENTS, 1) {
            return Some((
                root(kept),
                "the operation path /api/payment/verify and a reference",
            ));
        }
        [
            (
                &OPERATION_SEGMENTS[..],
                "the operation path /api/payment/verify",
            ),
            (
                &OPERATION_SEGMENTS[..2],
                "/api/payment, the start of the operation path /api/payment/verify",
            ),
            (
                &OPERATION_SEGMENTS[..1],
                "/api, the start of the operation path /api/payment/verify",
            ),
        ]
        .into_iter()
        .find_map(|(names, found)| ends_with(names, 0).map(|kept| (root(kept), found)))
    }

    /// Validates `input`: http or https, a host, a valid port, no userinfo, query or
    /// fragment; plain http only to a loopback host, so credentials never cross a network
    /// in clear text. (`doctor` checks the path itself, with its own advice.)
    pub fn parse_shape(input: &str) -> Result<Self, String> {
        let raw = input.trim();
        // Checked on the text before anything else, so no message ever quotes the userinfo
        // (even of a URL too broken to parse).
        if super::userinfo::span(raw).is_some() {
            return Err(format!(
                "base URL '{}' must not carry credentials (user:password@); set them with \
                 --client-id and a client secret source instead",
                without_userinfo(raw)
            ));
        }
        let s = raw;
        let uri: ureq::http::Uri = s
            .parse()
            .map_err(|_| format!("base URL '{s}' is not a valid URL"))?;
        let scheme = uri.scheme_str().map(str::to_ascii_lowercase);
        let Some(scheme) = scheme.filter(|sc| sc == "http" || sc == "https") else {
            return Err(format!(
                "base URL '{s}' must start with https:// (e.g. https://paywithbank3d.com)"
            ));
        };
        let authority = uri.authority().map(|a| a.as_str()).unwrap_or("");
        let Some(host) = uri.host().filter(|h| !h.is_empty()) else {
            return Err(format!("base URL '{s}' has no host"));
        };
        if s.contains('?') || s.contains('#') {
            return Err(format!("base URL '{s}' must not have a query or fragment"));
        }
        if scheme == "http" && !is_loopback(host) {
            return Err(format!(
                "base URL '{s}' uses plain http; use https (credentials never travel in clear \
                 text; http is allowed only to 127.0.0.1, ::1 or localhost)"
            ));
        }
        // An unparseable port is dropped by the URI type, and the request would then go to
        // the scheme's default port: a typo must not send credentials somewhere else.
        if let Some(port) = port_text(authority)
            && !(!port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && port.parse::<u16>().is_ok_and(|n| n > 0))
        {
            return Err(format!(
                "base URL '{s}' has an invalid port '{port}' (a port is a number from 1 to 65535)"
            ));
        }
        let path = uri.path().trim_end_matches('/');
        Ok(BaseUrl {
            prefix: format!("{scheme}://{authority}{path}"),
            host: host.to_ascii_lowercase(),
        })
    }

    /// The Verify Transaction URL for one reference.
    pub fn verify_url(&self, reference: &Reference) -> String {
        format!(
            "{}{OPERATION_PATH}/{}",
            self.prefix,
            reference.path_segment()
        )
    }

    /// The host name, lower-case (IPv6 in brackets).
    pub fn host(&self) -> &str {
        &self.host
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.prefix)
    }
}

/// The Verify Transaction operation's path under the base URL.
const OPERATION_PATH: &str = "/api/payment/verify";

/// The operation path's segments.
const OPERATION_SEGMENTS: [&str; 3] = ["api", "payment", "verify"];

/// The segments of a URL path as a server resolves them, each as written and as read:
/// percent escapes decoded, path parameters (`;v=1`) and surrounding whitespace dropped,
/// empty and `.` segments skipped, `..` taking back the one before it. Servers differ in
/// which of these they do; a base URL that any of them would read as the operation path is
/// refused, so every rule is applied.
fn server_segments(path: &str) -> Vec<(&str, String)> {
    let mut segments: Vec<(&str, String)> = Vec::new();
    for raw in path.split('/') {
        let decoded = super::userinfo::percent_decoded(raw).unwrap_or_else(|| raw.to_owned());
        let read = decoded.split(';').next().unwrap_or("").trim();
        match read {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            _ => segments.push((raw, read.to_owned())),
        }
    }
    segments
}

/// The port text of an authority (after the host's `:`), if it has one, even empty.
fn port_text(authority: &str) -> Option<&str> {
    let after_host = match authority.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(_, tail)| tail),
        None => authority.find(':').map_or("", |i| &authority[i..]),
    };
    after_host.strip_prefix(':')
}

/// `url` with any userinfo replaced by `<redacted>`, for showing a URL that may carry one
/// (the rule the proxy URL shares: [`super::userinfo`]).
pub(crate) use super::userinfo::shown as without_userinfo;

/// Whether a URL host is this machine: `localhost`, 127.0.0.0/8 or ::1.
pub(crate) fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(base: &str, reference: &str) -> String {
        BaseUrl::parse(base)
            .unwrap()
            .verify_url(&Reference::parse(reference).unwrap())
    }

    #[test]
    fn joins_with_prefixes_and_trailing_slashes() {
        assert_eq!(
            url("https://paywithbank3d.com", "0000000000000044177"),
            "https://paywithbank3d.com/api/payment/verify/0000000000000044177"
        );
        assert_eq!(
            url("https://gw.example/prefix/", "R"),
            "https://gw.example/prefix/api/payment/verify/R"
        );
        assert_eq!(
            url("HTTPS://gw.example:8443//", "a/b"),
            "https://gw.example:8443/api/payment/verify/a%2Fb"
        );
    }

    #[test]
    fn plain_http_only_to_loopback() {
        for ok in [
            "http://127.0.0.1:8089",
            "http://127.1.2.3",
            "http://localhost:1",
            "http://LOCALHOST",
            "http://[::1]:8089/",
        ] {
            assert!(BaseUrl::parse(ok).is_ok(), "{ok}");
        }
        let err = BaseUrl::parse("http://paywithbank3d.com").unwrap_err();
        assert!(err.contains("https"), "{err}");
        assert!(BaseUrl::parse("http://10.0.0.1").is_err());
        assert!(BaseUrl::parse("http://localhost.evil.com").is_err());
    }

    #[test]
    fn userinfo_is_refused_without_being_quoted() {
        for bad in [
            "https://cid:S3CRET-x@127.0.0.1:9",
            "https://S3CRET-x@gw.example/p",
            "https://cid:S3CR@ET-x@gw.example",
            "https://cid:S3CRET-x @gw.example",
            "http://:S3CRET-x@localhost",
            // A `/`, `?` or `#` in the password ends a parser's authority early: the last
            // `@` is where the userinfo ends, whatever it holds.
            "https://cid:S3CR/ET-x@127.0.0.1:18089",
            "https://cid:S3CR?ET-x@gw.example",
            "https://cid:S3CR#ET-x@gw.example",
            "https://cid:S3CR/ET-x:99@gw.example/p",
            "cid:S3CR/ET-x@gw.example",
        ] {
            let err = BaseUrl::parse(bad).unwrap_err();
            assert!(err.contains("must not carry credentials"), "{err}");
            assert!(!err.contains("S3CR"), "{err}");
            assert!(!err.contains("ET-x"), "{err}");
        }
        // An `@` in a path reads as the end of a userinfo: less is shown, never a password.
        assert_eq!(
            without_userinfo("https://a:b@h:1/p@q"),
            "https://<redacted>@q"
        );
        assert_eq!(without_userinfo("https://h/p"), "https://h/p");
    }

    #[test]
    fn an_invalid_port_is_refused_never_defaulted() {
        for bad in [
            "http://127.0.0.1:99999",
            "http://127.0.0.1:65536",
            "http://127.0.0.1:-1",
            "http://127.0.0.1:18801x",
            "http://127.0.0.1:1880100000",
            "http://127.0.0.1:0",
            "http://127.0.0.1:/",
            "https://[::1]:70000/",
            "https://gw.example:+443",
        ] {
            let err = BaseUrl::parse(bad).unwrap_err();
            assert!(err.contains("invalid port"), "{bad}: {err}");
        }
        for ok in [
            "http://127.0.0.1:65535",
            "https://[::1]:1/",
            "https://gw.example",
        ] {
            assert!(BaseUrl::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn the_operation_path_in_the_base_url_is_refused_naming_the_fix() {
        for (bad, fix) in [
            ("https://gw.example/api", "'https://gw.example'"),
            ("https://gw.example/API/", "'https://gw.example'"),
            ("https://gw.example/api/payment", "'https://gw.example'"),
            (
                "https://gw.example/p/api/Payment/",
                "'https://gw.example/p'",
            ),
            (
                "https://gw.example/api/payment/verify/0000000000000044177",
                "'https://gw.example'",
            ),
            (
                "http://127.0.0.1:8089/x/api/payment/verify/R-1/",
                "'http://127.0.0.1:8089/x'",
            ),
            (
                "https://gw.example/api/payment/verify",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/api/payment/verify/",
                "'https://gw.example'",
            ),
            (
                "https://gw.example:8443/p/API/Payment/Verify//",
                "'https://gw.example:8443/p'",
            ),
            // As a server reads the path: empty and dot segments, escapes, parameters,
            // whitespace.
            (
                "https://gw.example/api//payment/verify",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/api/./payment/verify",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/%61pi/payment/verify",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/api;v=1/payment/verify",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/api/payment/verify%20",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/API/Payment/Verify/.",
                "'https://gw.example'",
            ),
            (
                "https://gw.example/p/x/../api/payment",
                "'https://gw.example/p'",
            ),
            (
                "https://gw.example/p//api/payment/verify/R/x/..",
                "'https://gw.example/p'",
            ),
        ] {
            let err = BaseUrl::parse(bad).unwrap_err();
            assert!(err.contains("already ends in "), "{err}");
            assert!(err.contains("/api"), "{err}");
            assert!(err.ends_with(&format!("use {fix}")), "{err}");
        }
        for fine in [
            "https://gw.example/api/payment/verify-v2",
            "https://gw.example/apis",
            "https://gw.example/api/payments",
            "https://gw.example/myapi",
            "https://gw.example/api/payment/verify/R/x",
            "https://gw.example/api/payment/verify/R/x/.",
            "https://gw.example/api;v=1/payment/verify/R/x",
            "https://gw.example/api/payment/verify%2dv2",
        ] {
            assert!(BaseUrl::parse(fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn refuses_non_urls_and_dangerous_shapes() {
        for bad in [
            "paywithbank3d.com",
            "ftp://x.com",
            "https://",
            "https://user:pw@x.com",
            "https://x.com/?a=1",
            "https://x.com/#f",
            "",
            "not a url",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
