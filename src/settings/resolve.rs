//! How flags, environment and the config file are resolved into [`Settings`]: the file read
//! once, the profile selected, then each value from the first source that gives it.

use std::path::{Path, PathBuf};

use super::file::{self, ConfigFile, ConfigLocation, Profile};
use super::problems::{
    AUTH_STYLE, EXPECT_MODE, GIVE_UP_AFTER, HMAC, RETRIES, TIMEOUT, Tunable, WAIT, secret_ways,
};
use super::{
    BASE_URL, CLIENT_ID, Context, DEFAULT_PROFILE, Flags, Needed, SecretSource, Settings, Source,
    Sourced, Warning, env, proxy_env, secret_source, unused_profile_warnings,
};
use crate::exit::{Cause, Failure};
use crate::secret::Secret;

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

    /// [`Settings::resolve`], reporting every problem rather than the first: each
    /// setting with a bad value, so `config show` and `doctor` can list them all at once.
    /// A config file that cannot be read, or a profile that does not exist, ends the
    /// resolution there (nothing after it can be known).
    pub(crate) fn resolve_all(flags: &Flags, ctx: &Context) -> Result<Settings, Vec<Failure>> {
        let config = ctx.config_location(flags.config.as_ref());
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
        let profile_name = profile_name(flags, ctx, file.as_ref(), &path);
        let profile = match &profile_name {
            Some(name) => {
                select_profile(file.as_ref(), config.as_ref(), &name.value).map_err(|f| vec![f])?
            }
            None => Profile::default(),
        };
        let layer = Layer {
            ctx,
            profile: &profile,
            name: profile_name.as_ref().map(|n| n.value.clone()),
            path,
        };
        let mut problems = Vec::new();
        let mut shadowed = Vec::new();
        let base_url = layer.string(&mut shadowed, &BASE_URL, &flags.base_url, &profile.base_url);
        // Trimmed as the secret is, from every source: a client id pasted with a trailing
        // space would otherwise be sent as is and earn a bare 401.
        let client_id = layer.string(
            &mut shadowed,
            &CLIENT_ID,
            &flags.client_id,
            &profile.client_id,
        );
        let client_id_trimmed = client_id
            .as_ref()
            .is_some_and(|id| id.value.trim().len() != id.value.len());
        let client_id = client_id.map(|id| Sourced::new(id.value.trim().to_owned(), id.source));
        let client_secret = layer.client_secret(flags, &mut shadowed, &mut problems);
        let warnings = file_warnings(file.as_ref(), config.as_ref(), profile_name.as_ref());
        // In the order the problems are listed: each refused key adds one.
        let settings = Settings {
            config_loaded: file.is_some(),
            profiles: file.as_ref().map(listing).unwrap_or_default(),
            config,
            profile: profile_name,
            base_url,
            client_id,
            client_id_trimmed,
            client_secret,
            auth_style: layer.choose(&mut problems, flags.auth_style, &AUTH_STYLE),
            timeout: layer.choose(&mut problems, flags.timeout, &TIMEOUT),
            retries: layer.choose(&mut problems, flags.retries, &RETRIES),
            wait: layer.choose(&mut problems, flags.wait, &WAIT),
            give_up_after: layer.choose(&mut problems, flags.give_up_after, &GIVE_UP_AFTER),
            hmac: layer.choose(&mut problems, flags.hmac, &HMAC),
            expect_mode: (layer.choose(
                &mut problems,
                flags.expect_mode.clone().map(Some),
                &EXPECT_MODE,
            ))
            .transpose(),
            proxy: layer
                .given(&flags.proxy, "--proxy", &profile.proxy, "proxy")
                .or_else(|| proxy_env::from_env(ctx)),
            no_proxy: proxy_env::no_proxy_from_env(ctx),
            ca_cert: layer.given(&flags.ca_cert, "--ca-cert", &profile.ca_cert, "ca_cert"),
            reconcile: layer.sourced(profile.reconcile.clone(), "reconcile"),
            journal: super::journal::place(
                flags.no_journal,
                flags.journal.as_ref(),
                ctx,
                layer.sourced(profile.journal.clone(), "journal"),
            ),
            shadowed,
            warnings,
        };
        match problems.is_empty() {
            true => Ok(settings),
            false => Err(problems),
        }
    }

    /// Settings for `verify --sandbox`: the sandbox's URL and credentials, flags and
    /// defaults for the rest; no environment and no config file are read, but for the
    /// journal's place (`--journal`, `PAYVERIFY_JOURNAL`, the profile's `journal`, else
    /// `real`'s default): a sandbox run is remembered where the others are, so `history`
    /// can be tried with it.
    pub(crate) fn sandbox(
        flags: &Flags,
        base_url: &str,
        real: &Context,
    ) -> Result<Settings, Failure> {
        let ctx = Context {
            env: &|_| None,
            default_config: None,
            default_journal: None,
        };
        let original = flags;
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
        // The journal where every other run of this user keeps it, the profile's key
        // included, so `history` finds the sandbox's checks; a config file that cannot be
        // used leaves the flag, the environment and the default.
        settings.journal = match Settings::resolve_all(original, real) {
            Ok(real_settings) => real_settings.journal,
            Err(_) => super::journal::place(flags.no_journal, flags.journal.as_ref(), real, None),
        };
        settings.client_secret = Some(Sourced::new(
            SecretSource::Value(Secret::new(crate::sandbox::CLIENT_SECRET)),
            Source::Sandbox,
        ));
        Ok(settings)
    }
}

/// The profile to use: `--profile`, PAYVERIFY_PROFILE, the file's `default_profile`, else a
/// profile named `default` if the file has one.
fn profile_name(
    flags: &Flags,
    ctx: &Context,
    file: Option<&ConfigFile>,
    path: &Path,
) -> Option<Sourced<String>> {
    pick(&flags.profile, "--profile", ctx, env::PROFILE).or_else(|| {
        let file = file?;
        let source = match file.default_profile {
            Some(_) => Source::File {
                path: path.to_owned(),
                key: "default_profile",
            },
            None => Source::DefaultProfile {
                path: path.to_owned(),
            },
        };
        Some(Sourced::new(listing(file).1?, source))
    })
}

/// The file's profile names, and the one used when none is named.
fn listing(file: &ConfigFile) -> (Vec<String>, Option<String>) {
    let default = (file.default_profile.clone()).or_else(|| {
        (file.profiles.contains_key(DEFAULT_PROFILE)).then(|| DEFAULT_PROFILE.to_owned())
    });
    (file.names(), default)
}

/// The file's warnings: it holds a secret and others can read it; a profile not in use
/// would be refused.
fn file_warnings(
    file: Option<&ConfigFile>,
    config: Option<&ConfigLocation>,
    profile: Option<&Sourced<String>>,
) -> Vec<Warning> {
    let (Some(location), Some(file)) = (config, file) else {
        return Vec::new();
    };
    let exposed = (file.holds_secret)
        .then(|| secret_source::exposed_file_warning(&location.path))
        .flatten();
    let selected = profile.map(|n| n.value.as_str());
    let unused = unused_profile_warnings(file, &location.path, selected);
    exposed.into_iter().chain(unused).collect()
}

/// The selected profile and where its keys live, for sourcing values.
struct Layer<'a> {
    ctx: &'a Context<'a>,
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

    /// `flag`, else the profile's `key`.
    fn given<T: Clone>(
        &self,
        flag: &Option<T>,
        name: &'static str,
        value: &Option<T>,
        key: &'static str,
    ) -> Option<Sourced<T>> {
        let from_flag = flag.clone().map(|v| Sourced::new(v, Source::Flag(name)));
        from_flag.or_else(|| self.sourced(value.clone(), key))
    }

    /// `flag`, else the profile's key, else the setting's default. A key that is refused
    /// is added to `problems`, and the default stands in so resolution can go on and find
    /// the rest.
    fn choose<T: Clone>(
        &self,
        problems: &mut Vec<Failure>,
        flag: Option<T>,
        setting: &Tunable<T>,
    ) -> Sourced<T> {
        if let Some(value) = flag {
            return Sourced::new(value, Source::Flag(setting.flag));
        }
        match (setting.read)(self.profile) {
            Some(Ok(value)) => Sourced::new(value, self.source(setting.key)),
            None => Sourced::new(setting.default.clone(), Source::Default),
            Some(Err(why)) => {
                // The value is not quoted: config errors never quote values (see config::parse).
                let message = format!("{} in {} {why}", setting.key, self.source(setting.key));
                problems.push(Failure::config(Cause::SettingInvalid, message));
                Sourced::new(setting.default.clone(), Source::Default)
            }
        }
    }

    /// A string setting: flag, else environment, else the profile's key; an environment
    /// variable that beats the profile's key is noted in `shadowed`.
    fn string(
        &self,
        shadowed: &mut Vec<(&'static str, &'static str)>,
        needed: &Needed,
        flag: &Option<String>,
        value: &Option<String>,
    ) -> Option<Sourced<String>> {
        let picked = pick(flag, needed.flag, self.ctx, needed.env);
        if matches!(&picked, Some(p) if matches!(p.source, Source::Env(_))) && value.is_some() {
            shadowed.push((needed.env, needed.key));
        }
        picked.or_else(|| self.sourced(value.clone(), needed.key))
    }

    /// The client secret's source: `--client-secret-file`, else PAYVERIFY_CLIENT_SECRET,
    /// else the profile's; a profile that sets it more than one way is a problem.
    fn client_secret(
        &self,
        flags: &Flags,
        shadowed: &mut Vec<(&'static str, &'static str)>,
        problems: &mut Vec<Failure>,
    ) -> Option<Sourced<SecretSource>> {
        let profile_secret = profile_secret(self).unwrap_or_else(|failure| {
            problems.push(failure);
            None
        });
        if let Some(path) = &flags.client_secret_file {
            return Some(Sourced::new(
                SecretSource::File(path.clone()),
                Source::Flag("--client-secret-file"),
            ));
        }
        let Some(value) = (self.ctx.env)(env::CLIENT_SECRET) else {
            return profile_secret;
        };
        // Set but empty is taken as given, and refused when read: an empty variable is a
        // mistake worth naming, not a reason to fall back to another source.
        if profile_secret.is_some() {
            shadowed.push((env::CLIENT_SECRET, "client_secret"));
        }
        Some(Sourced::new(
            SecretSource::Value(Secret::new(value.trim())),
            Source::Env(env::CLIENT_SECRET),
        ))
    }
}

fn pick(
    flag: &Option<String>,
    flag_name: &'static str,
    ctx: &Context,
    env_name: &'static str,
) -> Option<Sourced<String>> {
    let from_flag = flag
        .clone()
        .map(|value| Sourced::new(value, Source::Flag(flag_name)));
    from_flag.or_else(|| Some(Sourced::new(ctx.var(env_name)?, Source::Env(env_name))))
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
    let read = file.profiles.get(name).ok_or_else(|| {
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
    })?;
    (read.clone()).map_err(|detail| file::invalid(Path::new(&path), &detail))
}

fn profile_secret(layer: &Layer) -> Result<Option<Sourced<SecretSource>>, Failure> {
    let p = layer.profile;
    if secret_ways(p) > 1 {
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
