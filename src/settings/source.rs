//! The vocabulary of settings: where a value came from, and what resolution may read.

use std::fmt;
use std::path::PathBuf;

use crate::settings::file::{self, ConfigLocation};

/// Environment variable names: part of the contract.
pub(crate) mod env {
    /// Base URL of the service.
    pub(crate) const BASE_URL: &str = "PAYVERIFY_BASE_URL";
    pub(crate) const CLIENT_ID: &str = "PAYVERIFY_CLIENT_ID";
    /// Client secret (there is no flag for it).
    pub(crate) const CLIENT_SECRET: &str = "PAYVERIFY_CLIENT_SECRET";
    pub(crate) const PROFILE: &str = "PAYVERIFY_PROFILE";
    /// Config file path.
    pub(crate) const CONFIG: &str = "PAYVERIFY_CONFIG";
    /// The journal's path, or `off`.
    pub(crate) const JOURNAL: &str = "PAYVERIFY_JOURNAL";
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A command-line flag, e.g. `--base-url`.
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// A key of a config profile.
    Profile {
        path: PathBuf,
        profile: String,
        key: &'static str,
    },
    /// A top-level key of the config file.
    File { path: PathBuf, key: &'static str },
    /// The config file has a profile named `default` and nothing else selects one (the
    /// convention of the AWS and Stripe CLIs).
    DefaultProfile { path: PathBuf },
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
            Source::DefaultProfile { path } => write!(
                f,
                "{} [profiles.default] (no --profile, PAYVERIFY_PROFILE or default_profile)",
                path.display()
            ),
            Source::Default => f.write_str("default"),
            Source::Sandbox => f.write_str("--sandbox"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sourced<T> {
    pub(crate) value: T,
    pub(crate) source: Source,
}

impl<T> Sourced<T> {
    /// A value with its source.
    pub(crate) fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }
}

impl<T> Sourced<Option<T>> {
    /// The value with its source, when there is one.
    pub(crate) fn transpose(self) -> Option<Sourced<T>> {
        (self.value).map(|value| Sourced::new(value, self.source))
    }
}

/// Looks up an environment variable as set ([`Context::var`] treats blank as unset).
pub(crate) type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What resolution reads from outside the arguments; injected so tests need no
/// process-global state and never see the developer's own config file.
pub(crate) struct Context<'a> {
    /// Environment lookup.
    pub(crate) env: EnvLookup<'a>,
    /// The config file used when none is named.
    pub(crate) default_config: Option<PathBuf>,
    /// The journal used when none is named (`None`: the platform has no data directory).
    pub(crate) default_journal: Option<PathBuf>,
}

/// The real process environment.
pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl Context<'static> {
    /// The real environment and platform config directory.
    pub(crate) fn process() -> Self {
        Context {
            env: &process_env,
            default_config: file::default_path(),
            default_journal: super::journal::default_path(),
        }
    }
}

impl Context<'_> {
    /// The config file to use: `--config`, then `PAYVERIFY_CONFIG`, then the default.
    pub(crate) fn config_location(&self, flag: Option<&PathBuf>) -> Option<ConfigLocation> {
        let named = flag
            .cloned()
            .or_else(|| self.var(env::CONFIG).map(PathBuf::from));
        let explicit = named.is_some();
        (named.or_else(|| self.default_config.clone()))
            .map(|path| ConfigLocation { path, explicit })
    }

    /// A non-blank environment variable.
    pub(crate) fn var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|v| !v.trim().is_empty())
    }
}

/// Something in the settings that works but deserves attention: what, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    /// What was found, one clause.
    pub(crate) what: String,
    /// What to do about it.
    pub(crate) fix: Fix,
}

/// How a [`Warning`] is fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fix {
    /// A command to run, e.g. `chmod 600 FILE`.
    Run(String),
    /// Something to do, in words.
    Do(String),
}

impl Fix {
    /// The fix alone, as doctor's `fix:` shows it.
    pub(crate) fn text(&self) -> &str {
        match self {
            Fix::Run(text) | Fix::Do(text) => text,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fix {
            Fix::Run(command) => write!(f, "{}; run: {command}", self.what),
            Fix::Do(what) => write!(f, "{}; {what}", self.what),
        }
    }
}
