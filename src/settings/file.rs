//! The TOML config file: profiles of base URL, credentials and defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::exit::{Cause, Failure};
use crate::secret::Secret;
use crate::settings::duration::DurationValue;

/// The whole config file.
#[derive(Debug, Default)]
pub struct ConfigFile {
    /// The profile used when neither `--profile` nor `PAYVERIFY_PROFILE` names one.
    pub default_profile: Option<String>,
    /// Named profiles, e.g. `live` and `staging`, each read or why it could not be (an
    /// unknown key, a value of the wrong type), with where (` line 7, key hmca: unknown
    /// field ...`): an error when it is the one selected, a warning otherwise (a typo under
    /// `staging` must not stop `--profile live`).
    pub profiles: BTreeMap<String, Result<Profile, String>>,
    /// Whether any profile, read or not, holds a `client_secret` inline.
    pub holds_secret: bool,
}

impl ConfigFile {
    /// Every profile name in the file, read or broken, in order.
    pub fn names(&self) -> Vec<String> {
        self.profiles.keys().cloned().collect()
    }
}

/// The top level of the file besides `profiles`: refused whole when wrong, since it
/// concerns every profile.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopLevel {
    default_profile: Option<String>,
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
    /// Per-attempt timeout: `"30s"`, `"500ms"` or seconds (`30`, `2.5`).
    pub timeout: Option<DurationValue>,
    /// Retries after the first attempt.
    pub retries: Option<u32>,
    /// How long a not-final transaction is asked again, e.g. `"5m"` or `90` (seconds).
    pub wait: Option<DurationValue>,
    /// How long a reference the service throttles is asked again, in the same forms.
    pub give_up_after: Option<DurationValue>,
    /// hmac check mode: off, warn or require.
    pub hmac: Option<String>,
    /// The `mode` every answer must have, e.g. `live`.
    pub expect_mode: Option<String>,
    /// A command whose output is the client secret (a password manager).
    pub client_secret_command: Option<crate::settings::secret_source::CommandSpec>,
    /// Proxy URL.
    pub proxy: Option<String>,
    /// Extra PEM root certificate file.
    pub ca_cert: Option<PathBuf>,
    /// How `reconcile` reads this shop's export: `[profiles.NAME.reconcile]`.
    pub reconcile: Option<ReconcileTable>,
    /// The journal's path, or `"off"`.
    pub journal: Option<String>,
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
        Err(e) => {
            // A file others can change names its own fix; it is the right file.
            let hint = match e.problem {
                crate::files::Problem::Untrusted => "",
                _ => " (check --config / PAYVERIFY_CONFIG)",
            };
            Err(e.failure(
                format!(
                    "cannot read config file {}: {e}{hint}",
                    location.path.display(),
                ),
                |message| Failure::config(Cause::ConfigFile, message),
            ))
        }
    }
}

/// Parses config text, turning TOML errors into one line naming the file, line and key.
///
/// A syntax error anywhere, or a problem at the top level, makes the whole file invalid.
/// A profile whose keys are wrong (unknown, or of the wrong type) is kept in
/// [`ConfigFile::profiles`] as its error, and the others are read.
///
/// The message never quotes a value from the file, whatever its key: a secret can sit
/// under any key (a misspelled `client_secret`, a pasted line), so only key names, types
/// and what was expected are shown.
pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, Failure> {
    use toml::de::{DeTable, DeValue, ValueDeserializer};
    // Where each line starts, found once: every broken profile's line is looked up in it, so
    // a large file with many broken profiles costs no more than one pass over it.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let detail = |e: &toml::de::Error| detail(text, &starts, e);
    let invalid = |e: &toml::de::Error| invalid(path, &detail(e));
    let root = DeTable::parse(text).map_err(|e| invalid(&e))?;
    let span = root.span();
    let mut top = root.into_inner();
    let profiles = top.remove("profiles");
    let top_level =
        TopLevel::deserialize(toml::de::Deserializer::from(toml::Spanned::new(span, top)))
            .map_err(|e| invalid(&e))?;
    let mut file = ConfigFile {
        default_profile: top_level.default_profile,
        ..ConfigFile::default()
    };
    let Some(profiles) = profiles else {
        return Ok(file);
    };
    let (profiles_span, profiles) = (profiles.span(), profiles.into_inner());
    let DeValue::Table(table) = profiles else {
        // Deserialized only to have the toml error, with its place, for the wrong type.
        let wrong = BTreeMap::<String, serde::de::IgnoredAny>::deserialize(
            ValueDeserializer::from(toml::Spanned::new(profiles_span, profiles)),
        );
        return Err(match wrong {
            Err(e) => invalid(&e),
            Ok(_) => Failure::config(
                Cause::ConfigFile,
                format!(
                    "config file {} is invalid: profiles is not a table",
                    path.display()
                ),
            ),
        });
    };
    for (name, value) in table {
        let name = name.into_inner().to_string();
        file.holds_secret |=
            (value.get_ref().as_table()).is_some_and(|t| t.contains_key("client_secret"));
        let profile = Profile::deserialize(ValueDeserializer::from(value));
        file.profiles.insert(name, profile.map_err(|e| detail(&e)));
    }
    Ok(file)
}

/// The config file is invalid, and why (a [`detail`]).
pub(crate) fn invalid(path: &Path, detail: &str) -> Failure {
    Failure::config(
        Cause::ConfigFile,
        format!("config file {} is invalid:{detail}", path.display()),
    )
}

/// A TOML error in one line: ` line 3, key timeout: what`, the line and key where known;
/// `starts` are the byte offsets at which the lines of `text` start.
fn detail(text: &str, starts: &[usize], e: &toml::de::Error) -> String {
    let at = match e.span() {
        Some(span) => {
            // The 1-based line holding the error's first byte.
            let line =
                (starts.partition_point(|&start| start <= span.start.min(text.len()))).max(1);
            match key_on_line(&text[starts[line - 1]..]) {
                Some(key) => format!(" line {line}, key {key}:"),
                None => format!(" line {line}:"),
            }
        }
        None => String::new(),
    };
    format!("{at} {}", without_values(e.message()).trim())
}

/// The key being set on the line `line` starts with: the text before its `=`, when that
/// is a plain TOML key. A line without `=` is not shown (it may be a pasted secret).
fn key_on_line(line: &str) -> Option<String> {
    let (key, _) = line.lines().next()?.split_once('=')?;
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
pub(crate) fn template(
    profile: &str,
    base_url: Option<&str>,
    client_id: Option<&str>,
    secret_file: Option<&Path>,
) -> String {
    format!(
        "{HEADER}\n\
         default_profile = {name}\n\
         \n\
         {section}",
        name = toml_string(profile),
        section = profile_section(profile, base_url, client_id, secret_file),
    )
}

/// The top of a new config file: where every key is explained, and the rules.
pub(crate) const HEADER: &str = "\
# payverify configuration. Every key is explained in config.example.toml: the .deb installs it
# as /usr/share/doc/payverify/config.example.toml (Homebrew under $(brew --prefix)/share/doc/
# payverify/), and it is in the top directory of every release archive and of the sources.
# Precedence: command-line flag > environment variable > this file > default.
# Keep this file private (chmod 600) if it ever holds a secret.
";

/// One commented `[profiles.NAME]` table, for a new file or one added to an existing file.
/// Each key given is written as a value; the others as a commented example, once.
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
         # timeout = \"30s\"        # each attempt; seconds (30, 2.5) or 500ms, 1m\n\
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
        let text = template("live-2_b", Some(url), Some(id), None);
        let cfg = parse(&text, Path::new("t.toml")).unwrap();
        let profile = cfg.profiles["live-2_b"].as_ref().unwrap();
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

    /// The error a file gives: its own, or its one broken profile's (what selecting that
    /// profile is refused with).
    fn error_of(text: &str) -> Failure {
        let path = Path::new("c.toml");
        match parse(text, path) {
            Err(e) => e,
            Ok(file) => {
                let detail = (file.profiles.values().find_map(|p| p.as_ref().err()))
                    .expect("a broken profile");
                invalid(path, detail)
            }
        }
    }

    #[test]
    fn a_broken_profile_is_kept_aside_and_the_others_are_read() {
        let text = "default_profile = \"live\"\n[profiles.live]\nbase_url = \"https://x\"\n\
                    [profiles.staging]\nhmca = \"require\"\nclient_secret = \"abcdefgh1\"\n\
                    [profiles.qa]\ntimeout = \"30s\"\n";
        let file = parse(text, Path::new("c.toml")).unwrap();
        let read = file.profiles.iter().filter(|(_, p)| p.is_ok());
        assert_eq!(
            read.map(|(name, _)| name).collect::<Vec<_>>(),
            ["live", "qa"]
        );
        assert_eq!(file.names(), ["live", "qa", "staging"]);
        assert!(
            file.holds_secret,
            "a broken profile's inline secret still counts"
        );
        assert!(
            file.profiles["staging"]
                .as_ref()
                .unwrap_err()
                .starts_with(" line 5, key hmca: unknown field `hmca`")
        );
        // The top level and the syntax are the whole file's: those are refused at once.
        for bad in [
            "default_profle = \"live\"\n[profiles.live]\n",
            "[profiles.live]\nbase_url = \n",
            "profiles = 3\n",
            "default_profile = 3\n",
        ] {
            assert!(parse(bad, Path::new("c.toml")).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_keys_are_errors_with_a_line_number() {
        let text = "[profiles.live]\nbase_url = \"https://x\"\nclient_sekret = \"s\"\n";
        let err = error_of(text);
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
                "retries = \"987654321987\"",
                "line 2, key retries: invalid type: string, expected u32",
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
            let err = error_of(&text);
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
            let text = template(name, url, id, None);
            let cfg = parse(&text, Path::new("t.toml")).unwrap();
            assert_eq!(cfg.default_profile.as_deref(), Some(name));
            let p = cfg.profiles[name].as_ref().unwrap();
            assert!(p.base_url.is_some());
            assert_eq!(p.client_id.as_deref(), id);
        }
        assert!(
            template("staging", None, None, None).contains("https://staging.paywithbank3d.com")
        );
    }

    #[test]
    fn a_profile_saves_a_reconcile_layout_and_refuses_unknown_keys() {
        let text = "[profiles.shop.reconcile]\nreference_column = \"Gateway Ref\"\n\
                    header_row = 3\nno_currency_column = true\n";
        let cfg = parse(text, Path::new("c.toml")).unwrap();
        let table = cfg.profiles["shop"].as_ref().unwrap().reconcile.clone();
        let table = table.unwrap();
        assert_eq!(table.reference_column.as_deref(), Some("Gateway Ref"));
        assert_eq!(
            (table.header_row, table.no_currency_column),
            (Some(3), Some(true))
        );
        // Refused when the profile is selected (a warning when it is not).
        let err = error_of("[profiles.shop.reconcile]\nreference_colum = \"x\"\n");
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
