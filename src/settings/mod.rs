//! Flags, environment and config profile resolved once into the settings the rest uses.
//!
//! Precedence for every value: command-line flag > environment variable > config profile >
//! built-in default. Each value remembers where it came from, for messages and `config show`.

pub(crate) mod duration;
pub(crate) mod file;
pub(crate) mod journal;
mod problems;
mod proxy_env;
mod register;
mod resolve;
pub(crate) mod secret_source;
pub(crate) mod source;

use std::path::PathBuf;
use std::time::Duration;

use crate::domain::checks::HmacMode;
use crate::exit::{Cause, Failure};
use crate::log::Log;
use crate::secret::Secret;
use crate::transport::Endpoint;
use crate::transport::base_url::BaseUrl;
use crate::transport::client::AuthStyle;
use file::ConfigLocation;
use problems::unused_profile_warnings;
pub(crate) use problems::{Problem, client_id_problem, mode_problem};
pub(crate) use secret_source::{SecretSource, SourceCheck};
pub(crate) use source::{Context, EnvLookup, Fix, Source, Sourced, Warning, env};

/// Default seconds an attempt may take.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default retries after the first attempt.
pub(crate) const DEFAULT_RETRIES: u32 = 2;
/// The profile used when nothing selects one, if the file has it.
pub(crate) const DEFAULT_PROFILE: &str = "default";
/// Most retries accepted.
pub(crate) const MAX_RETRIES: u32 = 10;
pub(crate) use crate::secret::MIN_SECRET_CHARS;

/// Everything resolved from flags, environment and config; any of it may still be missing.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The config file looked at, if any path could be determined.
    pub(crate) config: Option<ConfigLocation>,
    /// Whether that file exists and was read.
    pub(crate) config_loaded: bool,
    /// Profile names in the file, and the one used when none is named: its default_profile,
    /// else a profile named `default`.
    pub(crate) profiles: (Vec<String>, Option<String>),
    /// The selected profile.
    pub(crate) profile: Option<Sourced<String>>,
    /// Base URL, unvalidated.
    pub(crate) base_url: Option<Sourced<String>>,
    /// The client id, without the whitespace around it.
    pub(crate) client_id: Option<Sourced<String>>,
    /// Whether the client id had whitespace around it, which was taken off (as it is around
    /// a secret).
    pub(crate) client_id_trimmed: bool,
    /// Where the client secret comes from.
    pub(crate) client_secret: Option<Sourced<SecretSource>>,
    /// How the Authorization header is written.
    pub(crate) auth_style: Sourced<AuthStyle>,
    /// Per-attempt timeout.
    pub(crate) timeout: Sourced<Duration>,
    /// Retries after the first attempt.
    pub(crate) retries: Sourced<u32>,
    /// How long a not-final transaction is asked again; zero: not at all.
    pub(crate) wait: Sourced<Duration>,
    /// How long a reference the service throttles is asked again before it is given up.
    pub(crate) give_up_after: Sourced<Duration>,
    /// How the response's hmac is checked.
    pub(crate) hmac: Sourced<HmacMode>,
    /// The `mode` every answer must have, if any.
    pub(crate) expect_mode: Option<Sourced<String>>,
    /// The proxy URL: `--proxy`, else the profile's `proxy`, else the environment's
    /// (`https_proxy`, `all_proxy`, `http_proxy`: see [`crate::transport::proxy`]).
    pub(crate) proxy: Option<Sourced<String>>,
    /// The environment's NO_PROXY list (it exempts hosts from the environment's proxy only).
    pub(crate) no_proxy: Option<Sourced<String>>,
    /// Extra PEM root certificates.
    pub(crate) ca_cert: Option<Sourced<PathBuf>>,
    /// The selected profile's `[profiles.NAME.reconcile]` table, if it has one.
    pub(crate) reconcile: Option<Sourced<file::ReconcileTable>>,
    /// Where the journal is kept, or that it is off.
    pub(crate) journal: Sourced<journal::JournalPlace>,
    /// Keys set in the profile but overridden by an environment variable.
    pub(crate) shadowed: Vec<(&'static str, &'static str)>,
    /// Problems worth a warning: a secret-holding config file readable by others, a
    /// profile not in use that would be refused.
    pub(crate) warnings: Vec<Warning>,
}

/// What the command line gave, before the environment, the config file and the defaults
/// are consulted: everything [`Settings::resolve`] takes from the arguments, each field the
/// flag of that name. `cli` fills it in, so settings never depends on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Flags {
    pub(crate) config: Option<PathBuf>,
    pub(crate) profile: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret_file: Option<PathBuf>,
    pub(crate) auth_style: Option<AuthStyle>,
    /// Already checked against its range, as are `retries` and `wait`.
    pub(crate) timeout: Option<Duration>,
    pub(crate) retries: Option<u32>,
    pub(crate) wait: Option<Duration>,
    pub(crate) give_up_after: Option<Duration>,
    pub(crate) hmac: Option<HmacMode>,
    pub(crate) proxy: Option<String>,
    pub(crate) ca_cert: Option<PathBuf>,
    /// Already checked with [`mode_problem`].
    pub(crate) expect_mode: Option<String>,
    pub(crate) journal: Option<PathBuf>,
    pub(crate) no_journal: bool,
}

/// Default for how long a throttled reference is asked again: long enough for any rate
/// limit payverify can pace itself under, short enough that a service throttling everything
/// ends a run within the hour.
pub(crate) const DEFAULT_GIVE_UP_AFTER: Duration = Duration::from_secs(600);

impl Settings {
    /// Prints the resolution's warnings (secret files readable by others, profiles not in
    /// use that would be refused).
    pub(crate) fn warn(&self, log: &Log) {
        for warning in &self.warnings {
            log.warn(&warning.to_string());
        }
    }

    /// Warns once per environment variable that beats a key the selected profile also sets:
    /// a stray `PAYVERIFY_BASE_URL` silently overriding the config is a classic trap.
    pub(crate) fn warn_shadowed(&self, log: &Log) {
        for (env_name, key) in &self.shadowed {
            log.warn(&format!(
                "{env_name} is set and overrides {key} from the config profile; unset it \
                 to use the profile's value"
            ));
        }
    }

    /// The proxy as transport takes it, if one is set.
    pub(crate) fn proxy_url(&self) -> Option<crate::transport::proxy::ProxyUrl> {
        self.proxy.as_ref().map(proxy_env::proxy_url)
    }

    /// The validated endpoint, or exit 6 naming what is missing and how to set it.
    pub(crate) fn endpoint(&self, log: &Log) -> Result<Endpoint, Failure> {
        let base_url = self.checked_base_url()?;
        let client_id = self.checked_client_id()?.to_owned();
        self.checked_proxy()?;
        // Checked here, where its source is known, so the message names it: the path may be
        // shown as `<redacted>` (secret_source::register_unproven_paths). Before the secret
        // is read: a CA file refused (one others can change among them) must stop the run
        // before a secret command runs.
        if let Some(ca) = &self.ca_cert {
            crate::transport::network::ca_certificates(&ca.value)
                .map_err(|f| came_from(f, &ca.source))?;
        }
        let client_secret = self.secret(log)?;
        Ok(Endpoint {
            base_url,
            client_id,
            client_secret,
            auth_style: self.auth_style.value,
            proxy: self.proxy_url(),
            no_proxy: self.no_proxy.as_ref().map(|n| n.value.clone()),
            ca_cert: self.ca_cert.as_ref().map(|c| c.value.clone()),
        })
    }

    /// The base URL, parsed; exit 6 when none is set or it is refused.
    fn checked_base_url(&self) -> Result<BaseUrl, Failure> {
        let url = self
            .base_url
            .as_ref()
            .ok_or_else(|| self.missing(&BASE_URL))?;
        BaseUrl::parse(&url.value).map_err(|e| {
            Failure::config(Cause::BaseUrl, format!("{e}; it came from {}", url.source))
        })
    }

    /// The client id; exit 6 when none is set or it cannot be sent.
    fn checked_client_id(&self) -> Result<&str, Failure> {
        let id = self
            .client_id
            .as_ref()
            .ok_or_else(|| self.missing(&CLIENT_ID))?;
        match client_id_problem(&id.value) {
            Some(why) => Err(Failure::config(
                Cause::SettingInvalid,
                format!("the client id from {} {why}", id.source),
            )),
            None => Ok(&id.value),
        }
    }

    /// Exit 6 when the proxy set is refused.
    fn checked_proxy(&self) -> Result<(), Failure> {
        (self.proxy_url()).map_or(Ok(()), |url| crate::transport::proxy::parse(&url).map(drop))
    }

    /// The client secret, read from its source; exit 6 naming the ways to set it if none.
    pub(crate) fn secret(&self, log: &Log) -> Result<Secret, Failure> {
        let source = (self.client_secret.as_ref()).ok_or_else(|| self.missing(&CLIENT_SECRET))?;
        let secret = source
            .value
            .read(log)
            .map_err(|f| came_from(f, &source.source))?;
        let Some(problem) = secret_source::value_problem(secret.expose()) else {
            return Ok(secret);
        };
        let from_env = source.source == Source::Env(env::CLIENT_SECRET);
        let message = match secret.expose().trim().is_empty() {
            // An empty HMAC key is a key anyone can sign with: refused from every source.
            true if from_env => format!(
                "{} is set but empty (or only whitespace); unset it, or set it to the client \
                 secret",
                env::CLIENT_SECRET
            ),
            true => format!("the client secret from {} {problem}", source.source),
            // A gateway secret key is long. A short one is a mistake (a placeholder, a cut
            // paste), and one too short to redact safely from output would have to be
            // redacted from ordinary text everywhere.
            false if secret.expose().chars().count() < MIN_SECRET_CHARS => format!(
                "the client secret from {} {problem}; a gateway secret key is longer (check \
                 the value)",
                source.source
            ),
            false => format!(
                "the client secret from {} {problem} (check the value)",
                source.source
            ),
        };
        Err(Failure::config(Cause::Secret, message))
    }

    /// Exit 6 for a setting nothing gave. When the config file has profiles but none is
    /// selected, that is the cause, and the error says so rather than "set it in a profile".
    fn missing(&self, needed: &Needed) -> Failure {
        match (&self.profile, &self.config, self.profiles.0.is_empty()) {
            (None, Some(config), false) => Failure::config(
                Cause::Profile,
                format!(
                    "config file {} has profiles {} but none is selected: pass --profile NAME or \
                 set default_profile",
                    config.path.display(),
                    self.profiles.0.join(", ")
                ),
            ),
            _ => needed.missing(),
        }
    }
}

/// `failure` with where the setting it is about came from: its message may show the
/// setting's value only as `<redacted>`, and then the key and source are what says which.
fn came_from(failure: Failure, source: &Source) -> Failure {
    Failure {
        message: format!("{}; it came from {source}", failure.message),
        ..failure
    }
}

/// A setting without a default: what it is, and each way to give it.
struct Needed {
    what: &'static str,
    flag: &'static str,
    /// The flag's value, as the message shows it (`--base-url URL`).
    value: &'static str,
    env: &'static str,
    /// The config key, or keys.
    key: &'static str,
}

/// The base URL.
const BASE_URL: Needed = Needed {
    what: "base URL",
    flag: "--base-url",
    value: "URL",
    env: env::BASE_URL,
    key: "base_url",
};
/// The client id.
const CLIENT_ID: Needed = Needed {
    what: "client id",
    flag: "--client-id",
    value: "ID",
    env: env::CLIENT_ID,
    key: "client_id",
};
/// The client secret's source.
const CLIENT_SECRET: Needed = Needed {
    what: "client secret",
    flag: "--client-secret-file",
    value: "PATH",
    env: env::CLIENT_SECRET,
    key: "client_secret, client_secret_file or client_secret_command",
};

impl Needed {
    /// Exit 6: nothing gave it.
    fn missing(&self) -> Failure {
        let message = format!(
            "no {} configured (pass {} {}, set {}, or set {} in a config profile)",
            self.what, self.flag, self.value, self.env, self.key
        );
        Failure::config(Cause::SettingMissing, message)
    }
}

#[cfg(test)]
mod tests;
