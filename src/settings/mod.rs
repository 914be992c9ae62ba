//! Flags, environment and config profile resolved once into the settings the rest uses.
//!
//! Precedence for every value: command-line flag > environment variable > config profile >
//! built-in default. Each value remembers where it came from, for messages and `config show`.

pub(crate) mod duration;
pub(crate) mod file;
mod proxy_env;
pub(crate) mod secret_source;
pub(crate) mod source;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::domain::checks::HmacMode;
use crate::exit::{Cause, Failure};
use crate::log::Log;
use crate::secret::Secret;
use crate::transport::Endpoint;
use crate::transport::base_url::BaseUrl;
use crate::transport::client::AuthStyle;
use file::{ConfigFile, ConfigLocation, Profile};
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
/// Fewest characters a client secret may have.
pub(crate) const MIN_SECRET_CHARS: usize = 8;

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
}

/// Default for how long a throttled reference is asked again: long enough for any rate
/// limit payverify can pace itself under, short enough that a service throttling everything
/// ends a run within the hour.
pub(crate) const DEFAULT_GIVE_UP_AFTER: Duration = Duration::from_secs(600);

impl Settings {
    /// Resolves settings from the arguments, the environment and the config file; the
    /// first problem found is the error.
    pub(crate) fn resolve(flags: &Flags, ctx: &Context) -> Result<Settings, Failure> {
        Settings::resolve_all(flags, ctx).map_err(|problems| {
            problems.into_iter().next().unwrap_or_else(|| {
                Failure::new(
                    crate::exit::Exit::Internal,
                    "settings failed without a reason",
                )
            })
        })
    }

    /// Registers for redaction every client secret known without resolving anything (the
    /// environment, `--client-secret-file`, the config file's profiles): for a command
    /// that may quote its input in an error before its settings are resolved.
    pub(crate) fn register_secrets(flags: &Flags, ctx: &Context) {
        let config = ctx.config_location(flags.config.as_ref());
        let text = config.and_then(|location| file::read(&location).ok().flatten());
        Settings::register_known(flags, ctx, text.as_deref());
    }

    /// Registers the secrets of the environment, `--client-secret-file` and the given
    /// config text, and the credentials of every base URL and proxy URL they or the flags
    /// name.
    fn register_known(flags: &Flags, ctx: &Context, config_text: Option<&str>) {
        secret_source::register_known(
            flags.client_secret_file.as_deref(),
            (ctx.env)(env::CLIENT_SECRET).as_deref(),
            config_text,
        );
        let from_env = proxy_env::ENV_PROXY
            .iter()
            .filter_map(|name| (ctx.env)(name));
        let profiles: Vec<toml::Value> = config_text
            .and_then(|text| toml::from_str::<toml::Table>(text).ok())
            .and_then(|table| table.get("profiles").cloned())
            .and_then(|profiles| profiles.as_table().cloned())
            .into_iter()
            .flat_map(|profiles| profiles.into_iter().map(|(_, profile)| profile))
            .collect();
        let from_file = |key: &'static str| {
            profiles
                .iter()
                .filter_map(move |profile| profile.get(key)?.as_str().map(str::to_owned))
        };
        // A base URL with credentials in it is refused, but its password must not reach a
        // message on the way there (whatever the message quotes of the URL).
        let base_urls = (flags.base_url.iter().cloned())
            .chain((ctx.env)(env::BASE_URL))
            .chain(from_file("base_url"));
        let proxies = (flags.proxy.iter().cloned())
            .chain(from_env)
            .chain(from_file("proxy"));
        for url in base_urls.chain(proxies) {
            crate::transport::userinfo::register(&url);
        }
        // A key that names a file or a program, holding what could be a secret instead.
        let paths = (flags.client_secret_file.iter())
            .chain(flags.ca_cert.iter())
            .map(|path| path.to_string_lossy().into_owned())
            .chain(from_file("client_secret_file"))
            .chain(from_file("ca_cert"));
        for path in paths {
            secret_source::register_unproven_paths(&path, secret_source::Names::File, ctx.env);
        }
        for command in profiles
            .iter()
            .filter_map(|p| p.get("client_secret_command"))
        {
            secret_source::register_unproven_command(command, ctx.env);
        }
    }

    /// [`Settings::resolve`], reporting every problem rather than the first: each
    /// setting with a bad value, so `config show` and `doctor` can list them all at once.
    /// A config file that cannot be read, or a profile that does not exist, ends the
    /// resolution there (nothing after it can be known).
    pub(crate) fn resolve_all(flags: &Flags, ctx: &Context) -> Result<Settings, Vec<Failure>> {
        let (global, args) = (flags, flags);
        let mut problems = Vec::new();
        let config = ctx.config_location(global.config.as_ref());
        // The file is read once: its text both registers its secrets (before anything is
        // validated) and is parsed.
        let text = match &config {
            Some(location) => file::read(location),
            None => Ok(None),
        };
        Settings::register_known(flags, ctx, text.as_ref().ok().and_then(Option::as_deref));
        let path = config.as_ref().map(|c| c.path.clone()).unwrap_or_default();
        let file = text
            .and_then(|text| text.map(|text| file::parse(&text, &path)).transpose())
            .map_err(|f| vec![f])?;
        let profile_name = pick(&global.profile, "--profile", ctx, env::PROFILE)
            .or_else(|| {
                let name = file.as_ref()?.default_profile.clone()?;
                let source = Source::File {
                    path: path.clone(),
                    key: "default_profile",
                };
                Some(Sourced::new(name, source))
            })
            .or_else(|| {
                file.as_ref()?.has(DEFAULT_PROFILE).then(|| {
                    let source = Source::DefaultProfile { path: path.clone() };
                    Sourced::new(DEFAULT_PROFILE.to_owned(), source)
                })
            });
        let profile = match &profile_name {
            Some(name) => {
                select_profile(file.as_ref(), config.as_ref(), &name.value).map_err(|f| vec![f])?
            }
            None => Profile::default(),
        };
        let layer = Layer {
            profile: &profile,
            name: profile_name.as_ref().map(|n| n.value.clone()),
            path,
        };

        let mut shadowed = Vec::new();
        let mut string =
            |flag: &Option<String>, flag_name, env_name, key, value: &Option<String>| {
                let picked = pick(flag, flag_name, ctx, env_name);
                if matches!(
                    picked,
                    Some(Sourced {
                        source: Source::Env(_),
                        ..
                    })
                ) && value.is_some()
                {
                    shadowed.push((env_name, key));
                }
                picked.or_else(|| layer.sourced(value.clone(), key))
            };
        let base_url = string(
            &global.base_url,
            "--base-url",
            env::BASE_URL,
            "base_url",
            &profile.base_url,
        );
        // Trimmed as the secret is, from every source: a client id pasted with a trailing
        // space would otherwise be sent as is and earn a bare 401.
        let client_id = string(
            &global.client_id,
            "--client-id",
            env::CLIENT_ID,
            "client_id",
            &profile.client_id,
        );
        let client_id_trimmed = client_id
            .as_ref()
            .is_some_and(|id| id.value.trim().len() != id.value.len());
        let client_id = client_id.map(|id| Sourced::new(id.value.trim().to_owned(), id.source));

        let profile_secret = profile_secret(&layer).unwrap_or_else(|failure| {
            problems.push(failure);
            None
        });
        let client_secret = if let Some(path) = &global.client_secret_file {
            Some(Sourced::new(
                SecretSource::File(path.clone()),
                Source::Flag("--client-secret-file"),
            ))
        } else if let Some(value) = (ctx.env)(env::CLIENT_SECRET) {
            // Set but empty is taken as given, and refused when read: an empty variable is
            // a mistake worth naming, not a reason to fall back to another source.
            if profile_secret.is_some() {
                shadowed.push((env::CLIENT_SECRET, "client_secret"));
            }
            Some(Sourced::new(
                SecretSource::Value(Secret::new(value.trim())),
                Source::Env(env::CLIENT_SECRET),
            ))
        } else {
            profile_secret
        };

        let auth_style = layer.choose(
            &mut problems,
            args.auth_style.map(|v| (v, "--auth-style")),
            profile.auth_style.as_deref(),
            "auth_style",
            auth_style_key,
            AuthStyle::Standard,
        );
        let timeout = layer.choose(
            &mut problems,
            args.timeout.map(|v| (v, "--timeout")),
            profile.timeout.as_ref(),
            "timeout",
            |value| duration::TIMEOUT.read_config(value),
            DEFAULT_TIMEOUT,
        );
        let retries = layer.choose(
            &mut problems,
            args.retries.map(|v| (v, "--retries")),
            profile.retries,
            "retries",
            retries_key,
            DEFAULT_RETRIES,
        );
        let wait = layer.choose(
            &mut problems,
            args.wait.map(|v| (v, "--wait")),
            profile.wait.as_ref(),
            "wait",
            |value| duration::WAIT.read_config(value),
            Duration::ZERO,
        );
        let give_up_after = layer.choose(
            &mut problems,
            args.give_up_after.map(|v| (v, "--give-up-after")),
            profile.give_up_after.as_ref(),
            "give_up_after",
            |value| duration::GIVE_UP_AFTER.read_config(value),
            DEFAULT_GIVE_UP_AFTER,
        );
        let hmac = layer.choose(
            &mut problems,
            args.hmac.map(|v| (v, "--hmac")),
            profile.hmac.as_deref(),
            "hmac",
            hmac_key,
            HmacMode::Warn,
        );
        let expect_mode = match &args.expect_mode {
            Some(mode) => Some(Sourced::new(mode.clone(), Source::Flag("--expect-mode"))),
            None => match profile.expect_mode.as_deref().map(mode_key) {
                Some(Ok(mode)) => Some(Sourced::new(mode, layer.source("expect_mode"))),
                Some(Err(why)) => {
                    let message = format!("expect_mode in {} {why}", layer.source("expect_mode"));
                    problems.push(Failure::config(Cause::SettingInvalid, message));
                    None
                }
                None => None,
            },
        };
        let proxy = match &args.proxy {
            Some(url) => Some(Sourced::new(url.clone(), Source::Flag("--proxy"))),
            None => layer
                .sourced(profile.proxy.clone(), "proxy")
                .or_else(|| proxy_env::from_env(ctx.env)),
        };
        let no_proxy = proxy_env::no_proxy_from_env(ctx.env);
        let ca_cert = match &args.ca_cert {
            Some(path) => Some(Sourced::new(path.clone(), Source::Flag("--ca-cert"))),
            None => layer.sourced(profile.ca_cert.clone(), "ca_cert"),
        };

        let reconcile = layer.sourced(profile.reconcile.clone(), "reconcile");
        let holds_secret = file.as_ref().is_some_and(|f| f.holds_secret);
        let mut warnings: Vec<Warning> = match (&config, holds_secret) {
            (Some(location), true) => secret_source::exposed_file_warning(&location.path)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        if let (Some(f), Some(location)) = (&file, &config) {
            let selected = profile_name.as_ref().map(|n| n.value.as_str());
            warnings.extend(unused_profile_warnings(f, &location.path, selected));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Settings {
            config_loaded: file.is_some(),
            profiles: file
                .as_ref()
                .map(|f| {
                    (
                        f.names(),
                        f.default_profile
                            .clone()
                            .or_else(|| f.has(DEFAULT_PROFILE).then(|| DEFAULT_PROFILE.to_owned())),
                    )
                })
                .unwrap_or_default(),
            config,
            profile: profile_name,
            base_url,
            client_id,
            client_id_trimmed,
            client_secret,
            auth_style,
            timeout,
            retries,
            wait,
            give_up_after,
            hmac,
            expect_mode,
            proxy,
            no_proxy,
            ca_cert,
            reconcile,
            shadowed,
            warnings,
        })
    }

    /// Settings for `verify --sandbox`: the sandbox's URL and credentials, flags and
    /// defaults for the rest; no environment and no config file are read.
    pub(crate) fn sandbox(flags: &Flags, base_url: &str) -> Result<Settings, Failure> {
        let ctx = Context {
            env: &|_| None,
            default_config: None,
        };
        // Only the per-run flags: no config file, profile or service flag takes part.
        let flags = Flags {
            config: None,
            profile: None,
            base_url: None,
            client_id: None,
            client_secret_file: None,
            ..flags.clone()
        };
        let mut settings = Settings::resolve(&flags, &ctx)?;
        let sandbox = |value: &str| Sourced::new(value.to_owned(), Source::Sandbox);
        settings.base_url = Some(sandbox(base_url));
        settings.client_id = Some(sandbox(crate::sandbox::CLIENT_ID));
        settings.client_secret = Some(Sourced::new(
            SecretSource::Value(Secret::new(crate::sandbox::CLIENT_SECRET)),
            Source::Sandbox,
        ));
        Ok(settings)
    }

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
        let base_url = self
            .base_url
            .as_ref()
            .ok_or_else(|| self.missing("base URL", "--base-url URL", env::BASE_URL, "base_url"))?;
        let base = BaseUrl::parse(&base_url.value).map_err(|e| {
            Failure::config(
                Cause::BaseUrl,
                format!("{e}; it came from {}", base_url.source),
            )
        })?;
        let client_id = self.client_id.as_ref().ok_or_else(|| {
            self.missing("client id", "--client-id ID", env::CLIENT_ID, "client_id")
        })?;
        if let Some(why) = client_id_problem(&client_id.value) {
            return Err(Failure::config(
                Cause::SettingInvalid,
                format!("the client id from {} {why}", client_id.source),
            ));
        }
        if let Some(proxy) = &self.proxy {
            crate::transport::proxy::parse(&proxy_env::proxy_url(proxy))?;
        }
        let client_secret = self.secret(log)?;
        // Checked here, where its source is known, so the message names it: the path may be
        // shown as `<redacted>` (secret_source::register_unproven_paths).
        if let Some(ca) = &self.ca_cert {
            crate::transport::network::ca_certificates(&ca.value)
                .map_err(|f| came_from(f, &ca.source))?;
        }
        Ok(Endpoint {
            base_url: base,
            client_id: client_id.value.clone(),
            client_secret,
            auth_style: self.auth_style.value,
            proxy: self.proxy.as_ref().map(proxy_env::proxy_url),
            no_proxy: self.no_proxy.as_ref().map(|n| n.value.clone()),
            ca_cert: self.ca_cert.as_ref().map(|c| c.value.clone()),
        })
    }

    /// The client secret, read from its source; exit 6 naming the ways to set it if none.
    pub(crate) fn secret(&self, log: &Log) -> Result<Secret, Failure> {
        let source = self.client_secret.as_ref().ok_or_else(|| {
            self.missing(
                "client secret",
                "--client-secret-file PATH",
                env::CLIENT_SECRET,
                "client_secret, client_secret_file or client_secret_command",
            )
        })?;
        let secret = source
            .value
            .read(log)
            .map_err(|f| came_from(f, &source.source))?;
        // An empty HMAC key is a key anyone can sign with: refuse it from every source.
        if secret.expose().trim().is_empty() && source.source == Source::Env(env::CLIENT_SECRET) {
            return Err(Failure::config(
                Cause::Secret,
                format!(
                    "{} is set but empty (or only whitespace); unset it, or set it to the client \
                 secret",
                    env::CLIENT_SECRET
                ),
            ));
        }
        if secret.expose().trim().is_empty() {
            return Err(Failure::config(
                Cause::Secret,
                format!(
                    "the client secret from {} is empty or only whitespace",
                    source.source
                ),
            ));
        }
        // A gateway secret key is long. A short one is a mistake (a placeholder, a cut
        // paste), and one too short to redact safely from output would have to be redacted
        // from ordinary text everywhere.
        if secret.expose().chars().count() < MIN_SECRET_CHARS {
            return Err(Failure::config(
                Cause::Secret,
                format!(
                    "the client secret from {} is shorter than {MIN_SECRET_CHARS} characters; a \
                 gateway secret key is longer (check the value)",
                    source.source
                ),
            ));
        }
        Ok(secret)
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
        let mut found = Vec::new();
        let mut broken = |key, message: String| {
            found.push(Problem {
                key,
                broken: true,
                message,
            })
        };
        match &self.base_url {
            None => broken(
                "base_url",
                self.missing("base URL", "--base-url URL", env::BASE_URL, "base_url")
                    .message,
            ),
            Some(url) => {
                if let Err(e) = BaseUrl::parse(&url.value) {
                    broken("base_url", format!("{e}; it came from {}", url.source));
                }
            }
        }
        match &self.client_id {
            None => broken(
                "client_id",
                self.missing("client id", "--client-id ID", env::CLIENT_ID, "client_id")
                    .message,
            ),
            Some(id) => {
                if let Some(why) = client_id_problem(&id.value) {
                    broken(
                        "client_id",
                        format!("the client id from {} {why}", id.source),
                    );
                }
            }
        }
        let mut warnings = Vec::new();
        match &self.client_secret {
            None => broken(
                "client_secret",
                self.missing(
                    "client secret",
                    "--client-secret-file PATH",
                    env::CLIENT_SECRET,
                    "client_secret, client_secret_file or client_secret_command",
                )
                .message,
            ),
            Some(source) => match source.value.check(env) {
                SourceCheck::Fine => {}
                SourceCheck::Warn(message) => warnings.push(message),
                SourceCheck::Broken(why) => broken(
                    "client_secret",
                    format!(
                        "the client secret from {} cannot work: {why}",
                        source.source
                    ),
                ),
            },
        }
        if let Some(Err(failure)) = self
            .proxy
            .as_ref()
            .map(|p| crate::transport::proxy::parse(&proxy_env::proxy_url(p)))
        {
            broken("proxy", failure.message);
        }
        // Read and checked as verify would at start: a file that is there but holds no
        // usable certificate is as broken as one that is missing.
        if let Some(ca) = &self.ca_cert
            && let Err(e) = crate::transport::network::ca_certificates(&ca.value)
        {
            broken("ca_cert", format!("{} (from {})", e.message, ca.source));
        }
        found.extend(warnings.into_iter().map(|message| Problem {
            key: "client_secret",
            broken: false,
            message,
        }));
        found
    }
}

impl Settings {
    /// Exit 6 for a setting nothing gave. When the config file has profiles but none is
    /// selected, that is the cause, and the error says so rather than "set it in a profile".
    fn missing(&self, what: &str, flag: &str, env_name: &str, key: &str) -> Failure {
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
            _ => missing(what, flag, env_name, key),
        }
    }
}

/// The selected profile and where its keys live, for sourcing values.
struct Layer<'a> {
    profile: &'a Profile,
    name: Option<String>,
    path: PathBuf,
}

impl Layer<'_> {
    fn source(&self, key: &'static str) -> Source {
        match &self.name {
            Some(profile) => Source::Profile {
                path: self.path.clone(),
                profile: profile.clone(),
                key,
            },
            None => Source::Default,
        }
    }

    fn sourced<T>(&self, value: Option<T>, key: &'static str) -> Option<Sourced<T>> {
        value.map(|v| Sourced::new(v, self.source(key)))
    }

    /// Flag, else the profile's key (validated by `parse`), else the default. A key that
    /// does not parse is added to `problems`, and the default stands in so resolution can
    /// go on and find the rest.
    fn choose<T, R: Copy, E: std::fmt::Display>(
        &self,
        problems: &mut Vec<Failure>,
        flag: Option<(T, &'static str)>,
        raw: Option<R>,
        key: &'static str,
        parse: impl Fn(R) -> Result<T, E>,
        default: T,
    ) -> Sourced<T> {
        if let Some((value, flag)) = flag {
            return Sourced::new(value, Source::Flag(flag));
        }
        let Some(raw) = raw else {
            return Sourced::new(default, Source::Default);
        };
        match parse(raw) {
            Ok(value) => Sourced::new(value, self.source(key)),
            Err(why) => {
                // The value is not quoted: config errors never quote values (see config::parse).
                let message = format!("{key} in {} {why}", self.source(key));
                problems.push(Failure::config(Cause::SettingInvalid, message));
                Sourced::new(default, Source::Default)
            }
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

/// The config key `expect_mode`.
fn mode_key(text: &str) -> Result<String, String> {
    match mode_problem(text) {
        Some(why) => Err(why),
        None => Ok(text.to_owned()),
    }
}

/// The config key `auth_style`.
fn auth_style_key(text: &str) -> Result<AuthStyle, &'static str> {
    AuthStyle::from_config(text).ok_or("is not one of: standard, literal")
}

/// The config key `retries`.
fn retries_key(n: u32) -> Result<u32, &'static str> {
    (n <= MAX_RETRIES).then_some(n).ok_or("must be at most 10")
}

/// The config key `hmac`.
fn hmac_key(text: &str) -> Result<HmacMode, &'static str> {
    HmacMode::from_config(text).ok_or("is not one of: off, warn, require")
}

/// What in a profile would be refused if it were selected, found without reading any
/// secret or file: each key's value as [`Settings::resolve_all`] checks it (the same
/// functions), the base URL's form, and the secret sources. `(key, why)`.
fn profile_problems(profile: &Profile) -> Vec<(&'static str, String)> {
    let mut found: Vec<(&'static str, String)> = Vec::new();
    let mut check = |key, why: Option<String>| {
        if let Some(why) = why {
            found.push((key, why));
        }
    };
    let text = |r: Result<(), String>| r.err();
    if let Some(url) = &profile.base_url {
        check(
            "base_url",
            text(
                BaseUrl::parse(url)
                    .map(drop)
                    .map_err(|e| format!("is refused: {e}")),
            ),
        );
    }
    if let Some(id) = &profile.client_id {
        check("client_id", client_id_problem(id));
    }
    if let Some(v) = profile.auth_style.as_deref() {
        check(
            "auth_style",
            text(auth_style_key(v).map(drop).map_err(String::from)),
        );
    }
    if let Some(v) = &profile.timeout {
        check(
            "timeout",
            text(
                duration::TIMEOUT
                    .read_config(v)
                    .map(drop)
                    .map_err(|e| e.to_string()),
            ),
        );
    }
    if let Some(v) = profile.retries {
        check(
            "retries",
            text(retries_key(v).map(drop).map_err(String::from)),
        );
    }
    if let Some(v) = &profile.give_up_after {
        check(
            "give_up_after",
            text(
                duration::GIVE_UP_AFTER
                    .read_config(v)
                    .map(drop)
                    .map_err(|e| e.to_string()),
            ),
        );
    }
    if let Some(v) = &profile.wait {
        check(
            "wait",
            text(
                duration::WAIT
                    .read_config(v)
                    .map(drop)
                    .map_err(|e| e.to_string()),
            ),
        );
    }
    if let Some(v) = profile.hmac.as_deref() {
        check("hmac", text(hmac_key(v).map(drop).map_err(String::from)));
    }
    if let Some(v) = profile.expect_mode.as_deref() {
        check("expect_mode", mode_problem(v));
    }
    let secrets = [
        profile.client_secret.is_some(),
        profile.client_secret_file.is_some(),
        profile.client_secret_command.is_some(),
    ];
    if secrets.iter().filter(|s| **s).count() > 1 {
        check(
            "client_secret",
            Some("is set more than one way (client_secret, client_secret_file, client_secret_command); keep one".into()),
        );
    }
    if let Some(spec) = &profile.client_secret_command {
        check(
            "client_secret_command",
            spec.argv().err().map(|why| why.to_string()),
        );
    }
    found
}

/// One warning for each profile not in use that would be refused if it were selected: a
/// profile that could not be read, and each bad value of one that could.
fn unused_profile_warnings(file: &ConfigFile, path: &Path, selected: Option<&str>) -> Vec<Warning> {
    let fix = || Fix::Do("correct it before that profile is selected".into());
    let unused = |name: &&String| Some(name.as_str()) != selected;
    let unreadable = file
        .broken
        .iter()
        .filter(|(name, _)| unused(name))
        .map(|(name, detail)| Warning {
            what: format!(
                "profile '{name}' in {} is not in use, and could not be read:{detail}",
                path.display()
            ),
            fix: fix(),
        });
    let invalid = file
        .profiles
        .iter()
        .filter(|(name, _)| unused(name))
        .flat_map(|(name, profile)| {
            profile_problems(profile)
                .into_iter()
                .map(move |(key, why)| Warning {
                    what: format!(
                        "profile '{name}' in {} is not in use, and its {key} {why}",
                        path.display()
                    ),
                    fix: fix(),
                })
        });
    unreadable.chain(invalid).collect()
}

fn pick(
    flag: &Option<String>,
    flag_name: &'static str,
    ctx: &Context,
    env_name: &'static str,
) -> Option<Sourced<String>> {
    match (flag, ctx.var(env_name)) {
        (Some(value), _) => Some(Sourced::new(value.clone(), Source::Flag(flag_name))),
        (None, Some(value)) => Some(Sourced::new(value, Source::Env(env_name))),
        (None, None) => None,
    }
}

fn missing(what: &str, flag: &str, env_name: &str, key: &str) -> Failure {
    Failure::config(
        Cause::SettingMissing,
        format!(
            "no {what} configured (pass {flag}, set {env_name}, or set {key} in a config profile)"
        ),
    )
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
        return Err(Failure::config(
            Cause::Profile,
            format!(
                "profile '{name}' was requested but there is no config file at {path} \
             (create one with `payverify config init`, or point --config / PAYVERIFY_CONFIG at it)"
            ),
        ));
    };
    if let Some(detail) = file.broken.get(name) {
        return Err(file::invalid(Path::new(&path), detail));
    }
    file.profiles.get(name).cloned().ok_or_else(|| {
        let names = file.names();
        let known = if names.is_empty() {
            "it defines no profiles".to_owned()
        } else {
            format!("profiles: {}", names.join(", "))
        };
        Failure::config(
            Cause::Profile,
            format!("no profile '{name}' in {path} ({known})"),
        )
    })
}

fn profile_secret(layer: &Layer) -> Result<Option<Sourced<SecretSource>>, Failure> {
    let p = layer.profile;
    let set = [
        p.client_secret.is_some(),
        p.client_secret_file.is_some(),
        p.client_secret_command.is_some(),
    ];
    if set.iter().filter(|s| **s).count() > 1 {
        return Err(Failure::config(
            Cause::Secret,
            format!(
                "more than one of client_secret, client_secret_file and client_secret_command is \
             set in {}; keep one",
                layer.source("client_secret")
            ),
        ));
    }
    if let Some(secret) = &p.client_secret {
        let value = SecretSource::Value(Secret::new(secret.expose().trim()));
        return Ok(layer.sourced(Some(value), "client_secret"));
    }
    if let Some(path) = &p.client_secret_file {
        return Ok(layer.sourced(Some(SecretSource::File(path.clone())), "client_secret_file"));
    }
    if let Some(spec) = &p.client_secret_command {
        let argv = spec.argv().map_err(|why| {
            Failure::config(
                Cause::Secret,
                format!(
                    "client_secret_command in {} {why}",
                    layer.source("client_secret_command")
                ),
            )
        })?;
        return Ok(layer.sourced(Some(SecretSource::Command(argv)), "client_secret_command"));
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
