//! The proxy settings the environment gives: which variables name the proxy and the
//! NO_PROXY list, read as curl reads them. What a proxy URL means to a request is
//! [`crate::transport::proxy`]'s.

use crate::settings::{Context, Source, Sourced};
use crate::transport::proxy::ProxyUrl;

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
pub(crate) fn from_env(ctx: &Context) -> Option<Sourced<String>> {
    let cgi = ctx.var(CGI_MARK).is_some();
    let names = ENV_PROXY.into_iter();
    first_set(ctx, names.filter(|&name| !(cgi && name == "HTTP_PROXY")))
}

/// The NO_PROXY list from the environment, with the variable it came from.
pub(crate) fn no_proxy_from_env(ctx: &Context) -> Option<Sourced<String>> {
    first_set(ctx, ENV_NO_PROXY)
}

/// The first of `names` that is set and not blank, with its name.
fn first_set<N: IntoIterator<Item = &'static str>>(
    ctx: &Context,
    names: N,
) -> Option<Sourced<String>> {
    (names.into_iter()).find_map(|name| Some(Sourced::new(ctx.var(name)?, Source::Env(name))))
}

/// `proxy` as transport takes it: its URL, whether the environment named it, and its
/// source as messages name it.
pub(crate) fn proxy_url(proxy: &Sourced<String>) -> ProxyUrl {
    ProxyUrl {
        url: proxy.value.clone(),
        from_env: matches!(proxy.source, Source::Env(_)),
        origin: proxy.source.to_string(),
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
        let ctx = Context {
            env: &env,
            default_config: None,
            default_journal: None,
        };
        from_env(&ctx).map(|p| (p.value, p.source.to_string()))
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
}
