//! Credentials written into a URL (`https://user:password@host`): where they are, how such a
//! URL is shown, and registering them for redaction. One rule for the base URL and the
//! proxy URL, whatever the URL came from (a flag, the environment, the config file).
//!
//! The userinfo is found on the text, from after `scheme://` (or the start) to the **last**
//! `@`, never by parsing: a password with an unencoded `/`, `?` or `#` in it ends a parser's
//! authority early, and the rest of the password would then be shown as a path, a query or
//! a port. An `@` in a path is taken for the end of a userinfo too: shown a little less, a
//! URL never shows a password.

use base64::Engine as _;

/// Where the userinfo of `url` is, as byte offsets: from after `scheme://` (or the start)
/// to the last `@`.
pub(crate) fn span(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let at = url[start..].rfind('@')?;
    Some((start, start + at))
}

/// `url` as it may be shown anywhere: any userinfo (user and password) replaced by
/// `<redacted>`.
pub(crate) fn shown(url: &str) -> String {
    match span(url) {
        Some((start, at)) => format!("{}{}{}", &url[..start], crate::secret::REDACTED, &url[at..]),
        None => url.to_owned(),
    }
}

/// Registers for redaction every form of the credentials in `url`: the userinfo as written,
/// the password (or a lone user, which may be a token) as written and decoded, each with its
/// URL encodings, and the base64 of `user:password` that an Authorization header carries.
pub(crate) fn register(url: &str) {
    let Some((start, at)) = span(url) else {
        return;
    };
    let userinfo = &url[start..at];
    crate::secret::register(userinfo);
    let (user, password) = match userinfo.split_once(':') {
        Some((user, password)) => (user, password),
        None => ("", userinfo),
    };
    let decoded = |text: &str| percent_decoded(text).unwrap_or_else(|| text.to_owned());
    crate::secret::register_with_encodings(password);
    crate::secret::register_with_encodings(&decoded(password));
    let pair = format!("{}:{}", decoded(user), decoded(password));
    crate::secret::register(&base64::engine::general_purpose::STANDARD.encode(&pair));
    crate::secret::register(&base64::engine::general_purpose::STANDARD_NO_PAD.encode(&pair));
}

/// `text` with its `%XX` escapes decoded, when that is valid UTF-8.
pub(crate) fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_at_ends_the_userinfo_whatever_the_password_holds() {
        for (url, want) in [
            (
                "https://id:Zq7-secret_VALUE+/=42@127.0.0.1:18089",
                "https://<redacted>@127.0.0.1:18089",
            ),
            (
                "https://id:Zq7#secret@example.com/p",
                "https://<redacted>@example.com/p",
            ),
            ("https://id:a?b@h", "https://<redacted>@h"),
            ("https://a:b@h:1/p@q", "https://<redacted>@q"),
            ("id:pw/x@host", "<redacted>@host"),
            ("https://h/p", "https://h/p"),
        ] {
            assert_eq!(shown(url), want, "{url}");
        }
    }

    #[test]
    fn decodes_percent_escapes_only_when_valid() {
        assert_eq!(percent_decoded("%61b%2Fc").as_deref(), Some("ab/c"));
        assert_eq!(percent_decoded("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decoded("%ff"), None);
    }
}
