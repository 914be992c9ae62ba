//! The TOML config file: profiles of base URL, credentials and defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::exit::{Cause, Failure};
use crate::secret::Secret;

/// The whole config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The profile used when neither `--profile` nor `PAYVERIFY_PROFILE` names one.
    pub default_profile: Option<String>,
    /// Named profiles, e.g. `live` and `staging`.
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
}

/// One `[profiles.NAME]` table. Unknown keys are refused so a typo is not silently ignored.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Base URL of the service, e.g. `https://paywithbank3d.com`.
    pub base_url: Option<String>,
    /// Client id (the dashboard's public key).
    pub client_id: Option<String>,
    /// Client secret inline; prefer `client_secret_file`.
    pub client_secret: Option<Secret>,
    /// A file holding the client secret.
    pub client_secret_file: Option<PathBuf>,
    /// `standard` (base64, RFC 7617) or `literal`.
    pub auth_style: Option<String>,
    /// Per-attempt timeout in seconds.
    pub timeout: Option<f64>,
    /// Retries after the first attempt.
    pub retries: Option<u32>,
    /// How long a not-final transaction is asked again, e.g. `"5m"` or `90` (seconds).
    pub wait: Option<WaitValue>,
    /// How long a reference the service throttles is asked again, as `wait` is written.
    pub give_up_after: Option<WaitValue>,
    /// hmac check mode: off, warn or require.
    pub hmac: Option<String>,
    /// A command whose output is the client secret (a password manager).
    pub client_secret_command: Option<crate::settings::secret_source::CommandSpec>,
    /// Proxy URL.
    pub proxy: Option<String>,
    /// Extra PEM root certificate file.
    pub ca_cert: Option<PathBuf>,
    /// How `reconcile` reads this shop's export: `[profiles.NAME.reconcile]`.
    pub reconcile: Option<ReconcileTable>,
}

/// `[profiles.NAME.reconcile]`: a shop's export layout, saved once, with the same keys as
/// `reconcile`'s flags (a flag given on the command line wins). Unknown keys are refused.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReconcileTable {
    /// `--reference-column`.
    pub reference_column: Option<String>,
    /// `--amount-column`.
    pub amount_column: Option<String>,
    /// `--currency-column`.
    pub currency_column: Option<String>,
    /// `--no-currency-column`.
    pub no_currency_column: Option<bool>,
    /// `--merchant-ref-column`.
    pub merchant_ref_column: Option<String>,
    /// `--header-row`.
    pub header_row: Option<u64>,
    /// `--delimiter`: `,`, `;` or `tab`.
    pub delimiter: Option<String>,
    /// `--amount-unit`: `naira` or `kobo`.
    pub amount_unit: Option<String>,
    /// `--currency`.
    pub currency: Option<String>,
}

/// The `wait` key as written: the same words `--wait` takes (`"5m"`, `"90"`), or a TOML
/// integer of seconds (`wait = 90`, `wait = 0`). A TOML float is kept so that it can be
/// refused with a clear line (see `settings::wait_from_config`): `--wait 1.5` is refused too,
/// and `"1500ms"` says it exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitValue {
    /// A string: a duration or a bare number of seconds.
    Text(String),
    /// A TOML integer: seconds; negative ones are refused when resolved.
    Seconds(i64),
    /// A TOML float.
    Fraction(f64),
}

impl<'de> Deserialize<'de> for WaitValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = WaitValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a duration such as \"5m\" or a whole number of seconds")
            }
            fn visit_str<E>(self, v: &str) -> Result<WaitValue, E> {
                Ok(WaitValue::Text(v.to_owned()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<WaitValue, E> {
                Ok(WaitValue::Seconds(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<WaitValue, E> {
                // Beyond i64 is far beyond the longest wait: refused when resolved.
                Ok(WaitValue::Seconds(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<WaitValue, E> {
                Ok(WaitValue::Fraction(v))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Where the config file is looked for, and whether it must exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigLocation {
    pub(crate) path: PathBuf,
    /// True when the user named it (`--config`/`PAYVERIFY_CONFIG`): then it must exist.
    pub(crate) explicit: bool,
}

/// The platform default: `$XDG_CONFIG_HOME/payverify/config.toml` on Linux.
pub(crate) fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "payverify").map(|d| d.config_dir().join("config.toml"))
}

/// Reads and parses the config file; a missing default file is an empty config.
pub(crate) fn load(location: &ConfigLocation) -> Result<Option<ConfigFile>, Failure> {
    read(location)?
        .map(|text| parse(&text, &location.path))
        .transpose()
}

/// Reads the config file's text (once, for both secret registration and parsing); a
/// missing default file is `None`.
pub(crate) fn read(location: &ConfigLocation) -> Result<Option<String>, Failure> {
    match crate::files::read_text(&location.path, &crate::files::CONFIG) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.problem == crate::files::Problem::Missing && !location.explicit => Ok(None),
        Err(e) => Err(e.failure(
            format!(
                "cannot read config file {}: {e} (check --config / PAYVERIFY_CONFIG)",
                location.path.display(),
            ),
            |message| Failure::config(Cause::ConfigFile, message),
        )),
    }
}

/// Parses config text, turning TOML errors into one line naming the file, line and key.
///
/// The message never quotes a value from the file, whatever its key: a secret can sit
/// under any key (a misspelled `client_secret`, a pasted line), so only key names, types
/// and what was expected are shown.
pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, Failure> {
    toml::from_str(text).map_err(|e| {
        let start = e.span().map(|span| span.start.min(text.len()));
        let at = match start {
            Some(start) => {
                let line = text[..start].matches('\n').count() + 1;
                match key_on_line(text, start) {
                    Some(key) => format!(" line {line}, key {key}:"),
                    None => format!(" line {line}:"),
                }
            }
            None => String::new(),
        };
        Failure::config(
            Cause::ConfigFile,
            format!(
                "config file {} is invalid:{at} {}",
                path.display(),
                without_values(e.message()).trim()
            ),
        )
    })
}

/// The key being set on the line holding byte `at`: the text before its `=`, when that
/// is a plain TOML key. A line without `=` is not shown (it may be a pasted secret).
fn key_on_line(text: &str, at: usize) -> Option<String> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plain.then(|| key.to_owned())
}

/// A TOML/serde message with the offending value taken out: `invalid type: integer
/// \`987654321987\`, expected a string` becomes `invalid type: integer, expected a string`.
/// Backquoted key names and syntax (`unknown field \`x\``, `expected \`=\``) stay.
fn without_values(message: &str) -> String {
    const KINDS: [&str; 7] = [
        "integer ",
        "floating point ",
        "boolean ",
        "string ",
        "character ",
        "char ",
        "bytes ",
    ];
    let mut out = String::new();
    let mut rest = message.replace('\n', " ");
    while !rest.is_empty() {
        let next = KINDS
            .iter()
            .filter_map(|kind| rest.find(kind).map(|i| (i, kind.len())))
            .min();
        let Some((i, len)) = next else {
            out.push_str(&rest);
            break;
        };
        out.push_str(&rest[..i + len - 1]);
        let after = &rest[i + len..];
        // The value follows the kind in `...` or "..." quotes; drop it, quotes and all.
        let skipped = match after.chars().next() {
            Some(q @ ('`' | '"')) => after[1..].find(q).map(|end| &after[end + 2..]),
            _ => None,
        };
        rest = match skipped {
            Some(tail) => tail.to_owned(),
            None => format!(" {after}"),
        };
    }
    out
}

/// A commented config file with one profile, for `payverify config init`.
pub(crate) fn template(profile: &str, base_url: Option<&str>, client_id: Option<&str>) -> String {
    format!(
        "# payverify configuration (see config.example.toml in the payverify sources for every key).\n\
         # Precedence: command-line flag > environment variable > this file > default.\n\
         # Keep this file private (chmod 600) if it ever holds a secret.\n\
         \n\
         default_profile = {name}\n\
         \n\
         {section}",
        name = toml_string(profile),
        section = profile_section(profile, base_url, client_id, None),
    )
}

/// One commented `[profiles.NAME]` table, for a new file or one added to an existing file.
pub(crate) fn profile_section(
    profile: &str,
    base_url: Option<&str>,
    client_id: Option<&str>,
    secret_file: Option<&Path>,
) -> String {
    let base_url = base_url.unwrap_or(if profile == "staging" {
        "https://staging.paywithbank3d.com"
    } else {
        "https://paywithbank3d.com"
    });
    let client_id = match client_id {
        Some(id) => format!("client_id = {}", toml_string(id)),
        None => "# client_id = \"your-public-key\"".to_owned(),
    };
    let secret_file = match secret_file {
        Some(path) => format!(
            "client_secret_file = {}",
            toml_string(&path.to_string_lossy())
        ),
        None => "# client_secret_file = \"/path/to/secret\"".to_owned(),
    };
    format!(
        "[profiles.{table}]\n\
         base_url = {base}\n\
         {client_id}\n\
         # One secret source: a file, a password-manager command (no shell), or inline.\n\
         {secret_file}\n\
         # client_secret_command = \"pass show payments/{profile}\"\n\
         # client_secret = \"...\"\n\
         # hmac = \"warn\"          # off | warn | require\n\
         # timeout = 30\n\
         # retries = 2\n\
         # wait = \"5m\"            # ask a PENDING transaction again for up to this long\n\
         # give_up_after = \"10m\"  # ask a throttled (429, 503) reference again this long\n\
         # auth_style = \"standard\" # or \"literal\"\n\
         # proxy = \"http://proxy.example:3128\"\n\
         # ca_cert = \"/path/to/corporate-root.pem\"\n",
        table = toml_key(profile),
        base = toml_string(base_url),
    )
}

/// `s` as a one-line TOML basic string: quotes, backslashes and every control character
/// escaped, so no value can end the string or start a new key.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `name` can be a profile name: letters, digits, `_` and `-` (a bare TOML key,
/// and a word a shell and a completion script pass through unquoted).
pub(crate) fn is_profile_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn toml_key(s: &str) -> String {
    if is_profile_name(s) {
        s.to_owned()
    } else {
        toml_string(s)
    }
}

pub(crate) mod edit;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_escapes_every_value_and_parses_back() {
        let id = "x\"\nclient_secret = \"injected\\\u{1b}\t";
        let url = "https://gw.example/p\"q";
        let text = template("live-2_b", Some(url), Some(id));
        let cfg = parse(&text, Path::new("t.toml")).unwrap();
        let profile = &cfg.profiles["live-2_b"];
        assert_eq!(profile.client_id.as_deref(), Some(id));
        assert_eq!(profile.base_url.as_deref(), Some(url));
        assert!(profile.client_secret.is_none());
        assert_eq!(cfg.default_profile.as_deref(), Some("live-2_b"));
        assert!(is_profile_name("a-B_9") && !is_profile_name("") && !is_profile_name("a.b"));
    }

    #[test]
    fn parses_the_example_config() {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/config.example.toml"));
        let cfg = parse(text, Path::new("config.example.toml")).unwrap();
        assert_eq!(cfg.default_profile.as_deref(), Some("live"));
        assert!(cfg.profiles.contains_key("live"));
        assert!(cfg.profiles.contains_key("staging"));
    }

    #[test]
    fn unknown_keys_are_errors_with_a_line_number() {
        let text = "[profiles.live]\nbase_url = \"https://x\"\nclient_sekret = \"s\"\n";
        let err = parse(text, Path::new("c.toml")).unwrap_err();
        assert_eq!(err.exit, crate::exit::Exit::Config);
        assert!(err.message.contains("line 3"), "{}", err.message);
        assert!(err.message.contains("client_sekret"), "{}", err.message);
        assert!(!err.message.contains('\n'));
    }

    #[test]
    fn errors_name_line_and_key_but_never_a_value() {
        for (line, want) in [
            (
                "client_secret = 987654321987",
                "line 2, key client_secret: invalid type: integer, expected a string",
            ),
            (
                "client_secret = 9876543.21987",
                "line 2, key client_secret: invalid type: floating point, expected a string",
            ),
            (
                "timeout = \"987654321987\"",
                "line 2, key timeout: invalid type: string, expected f64",
            ),
            (
                "client_secret = 987654321987abc",
                "line 2, key client_secret:",
            ),
            (
                "client_secret = \"987654321987",
                "line 2, key client_secret:",
            ),
            ("987654321987", "line 2:"),
            (
                "retries = -987654321987",
                "line 2, key retries: invalid value",
            ),
            (
                "client_secrte = \"987654321987\"",
                "unknown field `client_secrte`",
            ),
        ] {
            let text = format!("[profiles.p]\n{line}\n");
            let err = parse(&text, Path::new("c.toml")).unwrap_err();
            assert!(err.message.contains(want), "{line}: {}", err.message);
            assert!(
                !err.message.contains("987654321"),
                "{line}: {}",
                err.message
            );
        }
    }

    #[test]
    fn missing_default_file_is_fine_but_named_one_is_not() {
        let missing = PathBuf::from("/nonexistent/payverify/config.toml");
        let implicit = ConfigLocation {
            path: missing.clone(),
            explicit: false,
        };
        assert!(load(&implicit).unwrap().is_none());
        let explicit = ConfigLocation {
            path: missing,
            explicit: true,
        };
        let err = load(&explicit).unwrap_err();
        assert!(err.message.contains("no such file"), "{}", err.message);
    }

    #[test]
    fn template_parses_and_selects_its_profile() {
        for (name, url, id) in [
            ("live", None, None),
            ("staging", None, Some("pk_1")),
            (
                "weird name \"x\"",
                Some("https://gw.example/p"),
                Some("a\"b"),
            ),
        ] {
            let text = template(name, url, id);
            let cfg = parse(&text, Path::new("t.toml")).unwrap();
            assert_eq!(cfg.default_profile.as_deref(), Some(name));
            let p = &cfg.profiles[name];
            assert!(p.base_url.is_some());
            assert_eq!(p.client_id.as_deref(), id);
        }
        assert!(template("staging", None, None).contains("https://staging.paywithbank3d.com"));
    }

    #[test]
    fn a_profile_saves_a_reconcile_layout_and_refuses_unknown_keys() {
        let text = "[profiles.shop.reconcile]\nreference_column = \"Gateway Ref\"\n\
                    header_row = 3\nno_currency_column = true\n";
        let cfg = parse(text, Path::new("c.toml")).unwrap();
        let table = cfg.profiles["shop"].reconcile.clone().unwrap();
        assert_eq!(table.reference_column.as_deref(), Some("Gateway Ref"));
        assert_eq!(
            (table.header_row, table.no_currency_column),
            (Some(3), Some(true))
        );
        let err = parse(
            "[profiles.shop.reconcile]\nreference_colum = \"x\"\n",
            Path::new("c.toml"),
        )
        .unwrap_err();
        assert!(
            err.message.contains("line 2") && err.message.contains("reference_colum"),
            "{}",
            err.message
        );
    }

    #[test]
    fn secret_in_config_is_redacted_in_debug() {
        let cfg = parse(
            "[profiles.p]\nclient_secret = \"topsecret\"\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert!(!format!("{cfg:?}").contains("topsecret"));
    }
}
