//! What would stop a configuration from working, found without a request: the selected
//! settings' problems for `config show`, and those of the profiles not in use.

use std::path::Path;
use std::time::Duration;

use super::file::{ConfigFile, Profile};
use super::{
    CLIENT_SECRET, DEFAULT_GIVE_UP_AFTER, DEFAULT_RETRIES, DEFAULT_TIMEOUT, EnvLookup, Fix,
    MAX_RETRIES, Settings, SourceCheck, Warning, duration,
};
use crate::domain::checks::HmacMode;
use crate::transport::base_url::BaseUrl;
use crate::transport::client::AuthStyle;

/// A setting `config show` found broken or worth a warning, by its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The key of the line it belongs to (`base_url`, `client_secret`...).
    pub(crate) key: &'static str,
    /// Whether the configuration cannot work because of it (else it is a warning).
    pub(crate) broken: bool,
    /// What is wrong and how to fix it; never a secret.
    pub(crate) message: String,
}

impl Settings {
    /// What would stop a verify from working, found without a request and without running a
    /// secret command: missing base URL, client id or secret source, a base URL that does not
    /// parse, a secret source that cannot supply a secret, a CA file that cannot be read.
    /// Secret files readable by others come back as warnings.
    pub(crate) fn problems(&self, env: EnvLookup) -> Vec<Problem> {
        let mut warnings = Vec::new();
        let broken = [
            ("base_url", self.checked_base_url().err().map(|f| f.message)),
            (
                "client_id",
                self.checked_client_id().err().map(|f| f.message),
            ),
            ("client_secret", self.secret_problem(env, &mut warnings)),
            ("proxy", self.checked_proxy().err().map(|f| f.message)),
            // Read and checked as verify would at start: a file that is there but holds no
            // usable certificate is as broken as one that is missing.
            (
                "ca_cert",
                self.ca_cert.as_ref().and_then(|ca| {
                    let e = crate::transport::network::ca_certificates(&ca.value).err()?;
                    Some(format!("{} (from {})", e.message, ca.source))
                }),
            ),
        ];
        let broken = broken.into_iter().filter_map(|(key, message)| {
            Some(Problem {
                key,
                broken: true,
                message: message?,
            })
        });
        let warnings = warnings.into_iter().map(|message| Problem {
            key: "client_secret",
            broken: false,
            message,
        });
        broken.chain(warnings).collect()
    }

    /// Why the client secret's source cannot supply a secret, if it cannot; its warnings
    /// go to `warnings`.
    fn secret_problem(&self, env: EnvLookup, warnings: &mut Vec<String>) -> Option<String> {
        let Some(source) = &self.client_secret else {
            return Some(self.missing(&CLIENT_SECRET).message);
        };
        match source.value.check(env) {
            SourceCheck::Fine => None,
            SourceCheck::Warn(message) => {
                warnings.push(message);
                None
            }
            SourceCheck::Broken(why) => Some(format!(
                "the client secret from {} cannot work: {why}",
                source.source
            )),
        }
    }
}

/// Why a client id (its surrounding whitespace taken off) cannot be sent, if it cannot:
/// empty, or holding what HTTP Basic authentication cannot carry in a user name.
pub(crate) fn client_id_problem(id: &str) -> Option<String> {
    let id = id.trim();
    if id.is_empty() {
        Some("is empty".into())
    } else if id.contains(':') {
        Some(
            "contains ':', which HTTP Basic authentication cannot carry in a client id (the \
             first ':' ends it)"
                .into(),
        )
    } else if id.chars().any(char::is_control) {
        Some("contains a control character".into())
    } else {
        None
    }
}

/// Why `mode` cannot be a mode to expect, if it cannot: blank, with whitespace around it
/// (a near miss that would never match), or with a control character. Nothing else is
/// assumed about modes: the interface documents only `dev`.
pub(crate) fn mode_problem(mode: &str) -> Option<String> {
    if mode.trim().is_empty() {
        Some("is empty".into())
    } else if mode.trim() != mode {
        Some("has whitespace around it (modes are compared exactly)".into())
    } else if mode.chars().any(char::is_control) {
        Some("contains a control character".into())
    } else {
        None
    }
}

/// A setting a flag or the profile's key gives, with what stands in when neither does:
/// one table drives both its resolution and the warnings of profiles not in use.
pub(super) struct Tunable<T: 'static> {
    /// The flag, as messages name it (`--timeout`).
    pub(super) flag: &'static str,
    /// The profile's key.
    pub(super) key: &'static str,
    /// The profile's key, checked; `None` when the profile does not set it. The reason
    /// never quotes the value (config errors never do: see config::parse).
    pub(super) read: fn(&Profile) -> Option<Result<T, String>>,
    /// What stands in when nothing gives it, or the key is refused.
    pub(super) default: T,
}

impl<T> Tunable<T> {
    /// The key, and why the profile's value is refused if it is.
    fn problem(&self, p: &Profile) -> (&'static str, Option<String>) {
        (self.key, (self.read)(p).and_then(Result::err))
    }
}

/// `raw` (if set) checked by `check`, its reason as text.
fn checked<R, T, E: ToString>(
    raw: Option<R>,
    check: impl Fn(R) -> Result<T, E>,
) -> Option<Result<T, String>> {
    raw.map(|raw| check(raw).map_err(|e| e.to_string()))
}

pub(super) const AUTH_STYLE: Tunable<AuthStyle> = Tunable {
    flag: "--auth-style",
    key: "auth_style",
    read: |p| checked(p.auth_style.as_deref(), auth_style_key),
    default: AuthStyle::Standard,
};
pub(super) const TIMEOUT: Tunable<Duration> = Tunable {
    flag: "--timeout",
    key: "timeout",
    read: |p| checked(p.timeout.as_ref(), |v| duration::TIMEOUT.read_config(v)),
    default: DEFAULT_TIMEOUT,
};
pub(super) const RETRIES: Tunable<u32> = Tunable {
    flag: "--retries",
    key: "retries",
    read: |p| checked(p.retries, retries_key),
    default: DEFAULT_RETRIES,
};
pub(super) const WAIT: Tunable<Duration> = Tunable {
    flag: "--wait",
    key: "wait",
    read: |p| checked(p.wait.as_ref(), |v| duration::WAIT.read_config(v)),
    default: Duration::ZERO,
};
pub(super) const GIVE_UP_AFTER: Tunable<Duration> = Tunable {
    flag: "--give-up-after",
    key: "give_up_after",
    read: |p| {
        checked(p.give_up_after.as_ref(), |v| {
            duration::GIVE_UP_AFTER.read_config(v)
        })
    },
    default: DEFAULT_GIVE_UP_AFTER,
};
pub(super) const HMAC: Tunable<HmacMode> = Tunable {
    flag: "--hmac",
    key: "hmac",
    read: |p| checked(p.hmac.as_deref(), hmac_key),
    default: HmacMode::Warn,
};
/// The one without a default: none stands in.
pub(super) const EXPECT_MODE: Tunable<Option<String>> = Tunable {
    flag: "--expect-mode",
    key: "expect_mode",
    read: |p| checked(p.expect_mode.as_deref(), mode_key),
    default: None,
};

fn mode_key(text: &str) -> Result<Option<String>, String> {
    mode_problem(text).map_or_else(|| Ok(Some(text.to_owned())), Err)
}

fn auth_style_key(text: &str) -> Result<AuthStyle, &'static str> {
    AuthStyle::from_config(text).ok_or("is not one of: standard, literal")
}

fn retries_key(n: u32) -> Result<u32, &'static str> {
    (n <= MAX_RETRIES).then_some(n).ok_or("must be at most 10")
}

fn hmac_key(text: &str) -> Result<HmacMode, &'static str> {
    HmacMode::from_config(text).ok_or("is not one of: off, warn, require")
}

/// How many ways a profile sets the client secret (`client_secret`, `client_secret_file`,
/// `client_secret_command`): more than one is refused.
pub(super) fn secret_ways(profile: &Profile) -> usize {
    [
        profile.client_secret.is_some(),
        profile.client_secret_file.is_some(),
        profile.client_secret_command.is_some(),
    ]
    .into_iter()
    .filter(|set| *set)
    .count()
}

/// What in a profile would be refused if it were selected, found without reading any
/// secret or file: each key's value as [`Settings::resolve_all`] checks it (the same
/// functions), the base URL's form, and the secret sources. `(key, why)`.
fn profile_problems(p: &Profile) -> Vec<(&'static str, String)> {
    let found = [
        (
            "base_url",
            (p.base_url.as_ref()).and_then(|url| {
                BaseUrl::parse(url)
                    .err()
                    .map(|e| format!("is refused: {e}"))
            }),
        ),
        (
            "client_id",
            p.client_id.as_deref().and_then(client_id_problem),
        ),
        AUTH_STYLE.problem(p),
        TIMEOUT.problem(p),
        RETRIES.problem(p),
        GIVE_UP_AFTER.problem(p),
        WAIT.problem(p),
        HMAC.problem(p),
        EXPECT_MODE.problem(p),
        (
            "client_secret",
            (secret_ways(p) > 1).then(|| {
                "is set more than one way (client_secret, client_secret_file, \
                 client_secret_command); keep one"
                    .to_owned()
            }),
        ),
        (
            "client_secret_command",
            checked(p.client_secret_command.as_ref(), |spec| spec.argv()).and_then(Result::err),
        ),
    ];
    found
        .into_iter()
        .filter_map(|(key, why)| Some((key, why?)))
        .collect()
}

/// One warning for each profile not in use that would be refused if it were selected: a
/// profile that could not be read, and each bad value of one that could.
pub(super) fn unused_profile_warnings(
    file: &ConfigFile,
    path: &Path,
    selected: Option<&str>,
) -> Vec<Warning> {
    let fix = || Fix::Do("correct it before that profile is selected".into());
    let unused = || (file.profiles.iter()).filter(|(name, _)| Some(name.as_str()) != selected);
    let unreadable = unused().filter_map(|(name, read)| {
        let detail = read.as_ref().err()?;
        Some(Warning {
            what: format!(
                "profile '{name}' in {} is not in use, and could not be read:{detail}",
                path.display()
            ),
            fix: fix(),
        })
    });
    let invalid = unused().flat_map(|(name, read)| {
        let problems = read.as_ref().map(profile_problems).unwrap_or_default();
        problems.into_iter().map(move |(key, why)| Warning {
            what: format!(
                "profile '{name}' in {} is not in use, and its {key} {why}",
                path.display()
            ),
            fix: fix(),
        })
    });
    unreadable.chain(invalid).collect()
}
