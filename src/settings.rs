//! Flags, environment and config profile resolved once into the settings the rest uses.
//!
//! Precedence for every value: command-line flag > environment variable > config profile >
//! built-in default. Each value remembers where it came from, for messages and `config show`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::base_url::BaseUrl;
use crate::checks::HmacMode;
use crate::cli::{AuthStyle, GlobalArgs, ProfileArgs, timeout_from_secs};
use crate::config::{self, ConfigFile, ConfigLocation, Profile};
use crate::exit::Failure;
use crate::secret::Secret;

/// Environment variable names: part of the contract.
pub mod env {
    /// Base URL of the service.
    pub const BASE_URL: &str = "PAYVERIFY_BASE_URL";
    /// Client id.
    pub const CLIENT_ID: &str = "PAYVERIFY_CLIENT_ID";
    /// Client secret (there is no flag for it).
    pub const CLIENT_SECRET: &str = "PAYVERIFY_CLIENT_SECRET";
    /// Profile name.
    pub const PROFILE: &str = "PAYVERIFY_PROFILE";
    /// Config file path.
    pub const CONFIG: &str = "PAYVERIFY_CONFIG";
}

/// Default seconds an attempt may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default retries after the first attempt.
pub const DEFAULT_RETRIES: u32 = 2;

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag, e.g. `--base-url`.
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// A key of a config profile.
    Profile {
        /// The config file.
        path: PathBuf,
        /// The profile name.
        profile: String,
        /// The key.
        key: &'static str,
    },
    /// A top-level key of the config file.
    File {
        /// The config file.
        path: PathBuf,
        /// The key.
        key: &'static str,
    },
    /// The built-in default.
    Default,
    /// Forced by `--sandbox`.
    Sandbox,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag(flag) => write!(f, "flag {flag}"),
            Source::Env(name) => write!(f, "env {name}"),
            Source::Profile { path, profile, key } => {
                write!(f, "{} [profiles.{profile}] {key}", path.display())
            }
            Source::File { path, key } => write!(f, "{} {key}", path.display()),
            Source::Default => f.write_str("default"),
            Source::Sandbox => f.write_str("--sandbox"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Its source.
    pub source: Source,
}

/// Everything resolved from flags, environment and config; any of it may still be missing.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file looked at, if any path could be determined.
    pub config: Option<ConfigLocation>,
    /// The selected profile.
    pub profile: Option<Sourced<String>>,
    /// Base URL, unvalidated.
    pub base_url: Option<Sourced<String>>,
    /// Client id.
    pub client_id: Option<Sourced<String>>,
    /// Client secret.
    pub client_secret: Option<Sourced<Secret>>,
    /// How the Authorization header is written.
    pub auth_style: Sourced<AuthStyle>,
    /// Per-attempt timeout.
    pub timeout: Sourced<Duration>,
    /// Retries after the first attempt.
    pub retries: Sourced<u32>,
    /// How the response's hmac is checked.
    pub hmac: Sourced<HmacMode>,
}

/// What a request needs: a validated base URL and a full set of credentials.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// Where to send requests.
    pub base_url: BaseUrl,
    /// Client id.
    pub client_id: String,
    /// Client secret.
    pub client_secret: Secret,
    /// Header style.
    pub auth_style: AuthStyle,
}

/// Looks up an environment variable; empty counts as unset.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What resolution reads from outside the arguments; injected so tests need no
/// process-global state and never see the developer's own config file.
pub struct Context<'a> {
    /// Environment lookup.
    pub env: EnvLookup<'a>,
    /// The config file used when none is named.
    pub default_config: Option<PathBuf>,
}

/// The real process environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl Context<'static> {
    /// The real environment and platform config directory.
    pub fn process() -> Self {
        Context {
            env: &process_env,
            default_config: config::default_path(),
        }
    }
}

impl Settings {
    /// Resolves settings from the arguments, the environment and the config file.
    pub fn resolve(
        global: &GlobalArgs,
        conn: &ProfileArgs,
        ctx: &Context,
    ) -> Result<Settings, Failure> {
        let env = ctx.env;
        let env_var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let config = match (&global.config, env_var(env::CONFIG)) {
            (Some(path), _) => Some(ConfigLocation {
                path: path.clone(),
                explicit: true,
            }),
            (None, Some(path)) => Some(ConfigLocation {
                path: PathBuf::from(path),
                explicit: true,
            }),
            (None, None) => ctx.default_config.clone().map(|path| ConfigLocation {
                path,
                explicit: false,
            }),
        };
        let file = match &config {
            Some(location) => config::load(location)?,
            None => None,
        };
        let profile_name = pick(
            global.profile.clone(),
            "--profile",
            env_var(env::PROFILE),
            env::PROFILE,
        )
        .or_else(|| {
            let file = file.as_ref()?;
            let name = file.default_profile.clone()?;
            Some(Sourced {
                value: name,
                source: Source::File {
                    path: config.as_ref()?.path.clone(),
                    key: "default_profile",
                },
            })
        });
        let profile = match &profile_name {
            Some(name) => Some(select_profile(file.as_ref(), config.as_ref(), &name.value)?),
            None => None,
        };
        let from_profile = |key: &'static str| {
            let (location, name) = (config.as_ref()?, profile_name.as_ref()?);
            Some(Source::Profile {
                path: location.path.clone(),
                profile: name.value.clone(),
                key,
            })
        };
        let in_profile = |get: fn(&Profile) -> Option<String>, key: &'static str| {
            let value = profile.as_ref().and_then(get)?;
            Some(Sourced {
                value,
                source: from_profile(key)?,
            })
        };

        let base_url = pick(
            global.base_url.clone(),
            "--base-url",
            env_var(env::BASE_URL),
            env::BASE_URL,
        )
        .or_else(|| in_profile(|p| p.base_url.clone(), "base_url"));
        let client_id = pick(
            global.client_id.clone(),
            "--client-id",
            env_var(env::CLIENT_ID),
            env::CLIENT_ID,
        )
        .or_else(|| in_profile(|p| p.client_id.clone(), "client_id"));

        let client_secret = if let Some(path) = &global.client_secret_file {
            Some(Sourced {
                value: read_secret_file(path)?,
                source: Source::Flag("--client-secret-file"),
            })
        } else if let Some(secret) = env(env::CLIENT_SECRET).filter(|v| !v.is_empty()) {
            Some(Sourced {
                value: Secret::new(secret.trim()),
                source: Source::Env(env::CLIENT_SECRET),
            })
        } else {
            match &profile {
                Some(p) => profile_secret(p, from_profile)?,
                None => None,
            }
        };

        let auth_style = match (
            conn.auth_style,
            profile.as_ref().and_then(|p| p.auth_style.as_deref()),
        ) {
            (Some(style), _) => Sourced {
                value: style,
                source: Source::Flag("--auth-style"),
            },
            (None, Some(text)) => Sourced {
                value: AuthStyle::from_config(text).ok_or_else(|| {
                    Failure::config(format!(
                        "auth_style = \"{text}\" in {} is not one of: standard, literal",
                        describe(&from_profile("auth_style"))
                    ))
                })?,
                source: from_profile("auth_style").unwrap_or(Source::Default),
            },
            (None, None) => Sourced {
                value: AuthStyle::Standard,
                source: Source::Default,
            },
        };

        let timeout = match (conn.timeout, profile.as_ref().and_then(|p| p.timeout)) {
            (Some(t), _) => Sourced {
                value: t,
                source: Source::Flag("--timeout"),
            },
            (None, Some(secs)) => Sourced {
                value: timeout_from_secs(secs).ok_or_else(|| {
                    Failure::config(format!(
                        "timeout = {secs} in {} must be more than 0 and at most 3600 seconds",
                        describe(&from_profile("timeout"))
                    ))
                })?,
                source: from_profile("timeout").unwrap_or(Source::Default),
            },
            (None, None) => Sourced {
                value: DEFAULT_TIMEOUT,
                source: Source::Default,
            },
        };

        let retries = match (conn.retries, profile.as_ref().and_then(|p| p.retries)) {
            (Some(n), _) => Sourced {
                value: n,
                source: Source::Flag("--retries"),
            },
            (None, Some(n)) if n <= 10 => Sourced {
                value: n,
                source: from_profile("retries").unwrap_or(Source::Default),
            },
            (None, Some(n)) => {
                return Err(Failure::config(format!(
                    "retries = {n} in {} must be at most 10",
                    describe(&from_profile("retries"))
                )));
            }
            (None, None) => Sourced {
                value: DEFAULT_RETRIES,
                source: Source::Default,
            },
        };

        let hmac = match (conn.hmac, profile.as_ref().and_then(|p| p.hmac.as_deref())) {
            (Some(mode), _) => Sourced {
                value: mode,
                source: Source::Flag("--hmac"),
            },
            (None, Some(text)) => Sourced {
                value: HmacMode::from_config(text).ok_or_else(|| {
                    Failure::config(format!(
                        "hmac = \"{text}\" in {} is not one of: off, warn, require",
                        describe(&from_profile("hmac"))
                    ))
                })?,
                source: from_profile("hmac").unwrap_or(Source::Default),
            },
            (None, None) => Sourced {
                value: HmacMode::Warn,
                source: Source::Default,
            },
        };

        Ok(Settings {
            config,
            profile: profile_name,
            base_url,
            client_id,
            client_secret,
            auth_style,
            timeout,
            retries,
            hmac,
        })
    }

    /// Settings for `verify --sandbox`: the sandbox's URL and credentials, flags and
    /// defaults for the rest; no environment and no config file are read.
    pub fn sandbox(conn: &ProfileArgs, base_url: &str) -> Result<Settings, Failure> {
        let ctx = Context {
            env: &|_| None,
            default_config: None,
        };
        let mut settings = Settings::resolve(&GlobalArgs::default(), conn, &ctx)?;
        let sandbox = |value: &str| Sourced {
            value: value.to_owned(),
            source: Source::Sandbox,
        };
        settings.base_url = Some(sandbox(base_url));
        settings.client_id = Some(sandbox(crate::sandbox::CLIENT_ID));
        settings.client_secret = Some(Sourced {
            value: Secret::new(crate::sandbox::CLIENT_SECRET),
            source: Source::Sandbox,
        });
        Ok(settings)
    }

    /// The validated endpoint, or exit 6 naming what is missing and how to set it.
    pub fn endpoint(&self) -> Result<Endpoint, Failure> {
        let base_url = self
            .base_url
            .as_ref()
            .ok_or_else(|| missing("base URL", "--base-url URL", env::BASE_URL, "base_url"))?;
        let base = BaseUrl::parse(&base_url.value)
            .map_err(|e| Failure::config(format!("{e}; it came from {}", base_url.source)))?;
        let client_id = self
            .client_id
            .as_ref()
            .ok_or_else(|| missing("client id", "--client-id ID", env::CLIENT_ID, "client_id"))?;
        Ok(Endpoint {
            base_url: base,
            client_id: client_id.value.clone(),
            client_secret: self.secret()?.clone(),
            auth_style: self.auth_style.value,
        })
    }
}

impl Settings {
    /// The client secret, or exit 6 naming the three ways to set it.
    pub fn secret(&self) -> Result<&Secret, Failure> {
        self.client_secret
            .as_ref()
            .map(|s| &s.value)
            .ok_or_else(|| {
                missing(
                    "client secret",
                    "--client-secret-file PATH",
                    env::CLIENT_SECRET,
                    "client_secret or client_secret_file",
                )
            })
    }
}

fn pick(
    flag: Option<String>,
    flag_name: &'static str,
    env_value: Option<String>,
    env_name: &'static str,
) -> Option<Sourced<String>> {
    match (flag, env_value) {
        (Some(value), _) => Some(Sourced {
            value,
            source: Source::Flag(flag_name),
        }),
        (None, Some(value)) => Some(Sourced {
            value,
            source: Source::Env(env_name),
        }),
        (None, None) => None,
    }
}

fn missing(what: &str, flag: &str, env_name: &str, key: &str) -> Failure {
    Failure::config(format!(
        "no {what} configured (pass {flag}, set {env_name}, or set {key} in a config profile)"
    ))
}

fn describe(source: &Option<Source>) -> String {
    source
        .as_ref()
        .map(|s| s.to_string())
        .unwrap_or_else(|| "the config file".into())
}

fn select_profile(
    file: Option<&ConfigFile>,
    location: Option<&ConfigLocation>,
    name: &str,
) -> Result<Profile, Failure> {
    let path = location
        .map(|l| l.path.display().to_string())
        .unwrap_or_else(|| "(no config path)".into());
    let Some(file) = file else {
        return Err(Failure::config(format!(
            "profile '{name}' was requested but there is no config file at {path} \
             (create one, or point --config / PAYVERIFY_CONFIG at it)"
        )));
    };
    file.profiles.get(name).cloned().ok_or_else(|| {
        let names: Vec<&str> = file.profiles.keys().map(String::as_str).collect();
        let known = if names.is_empty() {
            "it defines no profiles".to_owned()
        } else {
            format!("profiles: {}", names.join(", "))
        };
        Failure::config(format!("no profile '{name}' in {path} ({known})"))
    })
}

fn profile_secret(
    profile: &Profile,
    source: impl Fn(&'static str) -> Option<Source>,
) -> Result<Option<Sourced<Secret>>, Failure> {
    match (&profile.client_secret, &profile.client_secret_file) {
        (Some(_), Some(_)) => Err(Failure::config(format!(
            "both client_secret and client_secret_file are set in {}; keep one",
            describe(&source("client_secret"))
        ))),
        (Some(secret), None) => Ok(Some(Sourced {
            value: Secret::new(secret.expose().trim()),
            source: source("client_secret").unwrap_or(Source::Default),
        })),
        (None, Some(path)) => Ok(Some(Sourced {
            value: read_secret_file(path)?,
            source: source("client_secret_file").unwrap_or(Source::Default),
        })),
        (None, None) => Ok(None),
    }
}

/// Reads a secret file: surrounding whitespace (the trailing newline) is not part of it.
pub fn read_secret_file(path: &Path) -> Result<Secret, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::config(format!(
            "cannot read client secret file {}: {}",
            path.display(),
            config::io_reason(&e)
        ))
    })?;
    let secret = Secret::new(text.trim());
    if secret.is_empty() {
        return Err(Failure::config(format!(
            "client secret file {} is empty",
            path.display()
        )));
    }
    Ok(secret)
}

#[cfg(test)]
mod tests;
