//! The checks made before the network: the config file and profile, the settings with
//! their sources (the secret read, never shown) or why they could not be resolved, and the
//! base URL's form.

use std::time::Duration;

use ureq::http::Uri;

use super::Check;
use crate::exit::{Cause, Exit, Failure};
use crate::journal::{self, Journal, Refusal};
use crate::log::{Level, Log};
use crate::secret::Secret;
use crate::settings::journal::JournalPlace;
use crate::settings::{SecretSource, Settings, Source};
use crate::transport::base_url::{BaseUrl, without_userinfo};

/// The check that settings could not be resolved: `config` when the file or its profile
/// is the trouble, `settings` when only values are (each one named).
pub(super) fn settings_failure(problems: &[Failure]) -> Check {
    let file_trouble = problems
        .iter()
        .any(|p| matches!(p.cause, Cause::ConfigFile | Cause::Profile));
    let found = problems
        .iter()
        .map(|p| p.message.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let exit = problems
        .iter()
        .fold(Exit::Successful, |exit, p| exit.merge(p.exit));
    let (name, fix) = match file_trouble {
        true => (
            "config",
            "correct the config file (payverify config show lists what is in use), or point \
             --config / PAYVERIFY_CONFIG at another",
        ),
        false => (
            "settings",
            "correct those keys (payverify config show lists every setting and its source)",
        ),
    };
    Check::fail(name, exit, found, fix)
}

/// 1. Which file, which profile and why, and what about them deserves attention.
pub(super) fn config_check(settings: &Settings) -> Check {
    let file = match (&settings.config, settings.config_loaded) {
        (Some(c), true) => format!("{}", c.path.display()),
        (Some(c), false) => format!(
            "none ({} does not exist; payverify config init writes one)",
            c.path.display()
        ),
        (None, _) => "none (no config directory: no HOME?)".to_owned(),
    };
    let (names, _) = &settings.profiles;
    let profile = match &settings.profile {
        Some(p) => {
            let why = match &p.source {
                Source::Flag(flag) => format!("from {flag}"),
                Source::Env(name) => format!("from {name}"),
                Source::File { .. } => "the file's default_profile".to_owned(),
                Source::DefaultProfile { .. } => {
                    "named default, and no default_profile names another".to_owned()
                }
                other => format!("from {other}"),
            };
            format!("profile '{}' ({why})", p.value)
        }
        None => "no profile".to_owned(),
    };
    let mut found = format!("file {file}; {profile}");
    let mut fixes = Vec::new();
    if settings.profile.is_none() && !names.is_empty() {
        found.push_str(&format!(
            "; the file's profiles ({}) are not used: no --profile, PAYVERIFY_PROFILE or \
             default_profile picks one",
            names.join(", "),
        ));
        fixes.push(format!(
            "add default_profile = \"{}\" at the top of the file, or pass --profile NAME",
            names.first().map(String::as_str).unwrap_or("NAME")
        ));
    }
    for warning in &settings.warnings {
        found.push_str(&format!("; {}", warning.what));
        // Several profiles with problems share one fix: said once.
        let fix = warning.fix.text().to_owned();
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    let check = if fixes.is_empty() {
        Check::ok("config", found)
    } else {
        Check::warn("config", found, fixes.join("; "))
    };
    let path = settings
        .config
        .as_ref()
        .map(|c| c.path.display().to_string());
    check
        .with("file", path)
        .with("loaded", settings.config_loaded)
        .with(
            "profile",
            settings.profile.as_ref().map(|p| p.value.clone()),
        )
        .with(
            "profile_source",
            settings.profile.as_ref().map(|p| p.source.to_string()),
        )
        .with("profiles", names.clone())
        .with(
            "warnings",
            settings
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        )
}

/// Where a setting came from, as the settings line says it: the file and profile are on
/// the config line already, so a profile's value is `profile 'live'`, not its path again.
fn short_source(source: &Source) -> String {
    match source {
        Source::Profile { profile, .. } => format!("profile '{profile}'"),
        Source::Flag(flag) => format!("flag {flag}"),
        other => other.to_string(),
    }
}

/// `from A: x, y; from B: z`: each value once, after the source it shares with the values
/// next to it.
fn grouped(items: &[(String, &Source)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (text, source) in items {
        let label = short_source(source);
        match groups.last_mut() {
            Some((last, texts)) if *last == label => texts.push(text),
            _ => groups.push((label, vec![text])),
        }
    }
    groups
        .iter()
        .map(|(label, texts)| format!("from {label}: {}", texts.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// 2. Base URL, client id and secret with their sources; the secret is read, never shown.
pub(super) fn settings_check(settings: &Settings, timeout: Duration) -> (Check, Option<Secret>) {
    let mut seen = Seen::default();
    match &settings.base_url {
        Some(url) => seen.found.push((
            format!("base URL {}", without_userinfo(&url.value)),
            &url.source,
        )),
        None => seen
            .missing
            .push(("base URL", "--base-url URL, PAYVERIFY_BASE_URL or base_url")),
    }
    match &settings.client_id {
        Some(id) => match crate::settings::client_id_problem(&id.value) {
            Some(why) => {
                seen.failure
                    .get_or_insert(format!("the client id from {} {why}", id.source));
            }
            None => {
                let trimmed = match settings.client_id_trimmed {
                    true => " (the whitespace around it was taken off, as around a secret)",
                    false => "",
                };
                seen.found
                    .push((format!("client id {}{trimmed}", id.value), &id.source));
            }
        },
        None => seen.missing.push((
            "client id",
            "--client-id ID, PAYVERIFY_CLIENT_ID or client_id",
        )),
    }
    let secret = seen.secret(settings, timeout);
    for (env_name, key) in &settings.shadowed {
        seen.warnings
            .push(format!("{env_name} overrides the profile's {key}"));
        seen.fixes
            .push(format!("unset {env_name} to use the profile's {key}"));
    }
    let check = seen.check(settings.config_loaded);
    (with_settings(check, settings, secret.is_some()), secret)
}

/// What the settings check found so far.
#[derive(Default)]
struct Seen<'a> {
    /// Each setting found, with its source.
    found: Vec<(String, &'a Source)>,
    /// Each setting nothing gave, and how to give it.
    missing: Vec<(&'static str, &'static str)>,
    warnings: Vec<String>,
    fixes: Vec<String>,
    /// The first setting that cannot work.
    failure: Option<String>,
}

impl<'a> Seen<'a> {
    /// The client secret, read (within `timeout`) but never shown.
    fn secret(&mut self, settings: &'a Settings, timeout: Duration) -> Option<Secret> {
        let Some(source) = &settings.client_secret else {
            self.missing.push((
                "client secret",
                "--client-secret-file PATH, PAYVERIFY_CLIENT_SECRET, or client_secret_file / \
                 client_secret_command in the profile",
            ));
            return None;
        };
        let kind = match &source.value {
            SecretSource::Value(_) => "set".to_owned(),
            SecretSource::File(path) => format!("read from {}", path.display()),
            // Never its arguments: one can hold the secret or a session token.
            SecretSource::Command(argv) => format!(
                "printed by {}",
                crate::settings::secret_source::shown_command(argv)
            ),
        };
        // Its warnings (a readable secret file) go into this check, not onto stderr.
        let quiet = Log::new(Level::Quiet);
        let secret = match source.value.read_within(&quiet, timeout) {
            Ok(secret) => secret,
            Err(e) => {
                self.failure
                    .get_or_insert(format!("{} (from {})", e.message, source.source));
                return None;
            }
        };
        // The one rule verify refuses a secret by (empty, too short).
        if let Some(problem) = crate::settings::secret_source::value_problem(secret.expose()) {
            (self.failure).get_or_insert(format!(
                "the client secret from {} {problem}",
                source.source
            ));
            return None;
        }
        // A command's description already says what is not shown.
        let hidden = match &source.value {
            SecretSource::Command(_) => "",
            _ => " (not shown)",
        };
        self.found
            .push((format!("client secret {kind}{hidden}"), &source.source));
        if let SecretSource::File(path) = &source.value
            && let Some(w) = crate::settings::secret_source::exposed_file_warning(path)
        {
            self.warnings.push(w.what);
            self.fixes.push(w.fix.text().to_owned());
        }
        Some(secret)
    }

    /// The check: failed on a setting that cannot work or is missing, else ok (or warn).
    fn check(self, config_loaded: bool) -> Check {
        if let Some(why) = self.failure {
            return Check::fail(
                "settings",
                Exit::Config,
                why,
                "correct that source (payverify config show lists every setting and its source)",
            );
        }
        if !self.missing.is_empty() {
            let what: Vec<&str> = self.missing.iter().map(|(w, _)| *w).collect();
            let how: Vec<String> = (self.missing.iter())
                .map(|(w, how)| format!("{w}: {how}"))
                .collect();
            // With no config file at all, the quickest way is to write one.
            let init = match config_loaded {
                false => {
                    "run payverify config init --client-id ID --client-secret-file PATH (it \
                          writes a profile for the live service), or "
                }
                true => "",
            };
            return Check::fail(
                "settings",
                Exit::Config,
                format!("no {} configured", what.join(", no ")),
                format!("{init}set {}", how.join("; ")),
            );
        }
        let mut text = grouped(&self.found);
        for w in &self.warnings {
            text.push_str(&format!("; {w}"));
        }
        match self.fixes.is_empty() {
            true => Check::ok("settings", text),
            false => Check::warn("settings", text, self.fixes.join("; ")),
        }
    }
}

/// The settings check with each setting's value and source, for scripts.
fn with_settings(check: Check, settings: &Settings, secret_read: bool) -> Check {
    let sourced = |v: &Option<crate::settings::Sourced<String>>, shown: fn(&str) -> String| {
        v.as_ref()
            .map(|v| serde_json::json!({"value": shown(&v.value), "source": v.source.to_string()}))
    };
    check
        .with("base_url", sourced(&settings.base_url, without_userinfo))
        .with("client_id", sourced(&settings.client_id, str::to_owned))
        .with("client_id_trimmed", settings.client_id_trimmed)
        .with(
            "proxy",
            sourced(&settings.proxy, crate::transport::proxy::shown),
        )
        .with("no_proxy", sourced(&settings.no_proxy, str::to_owned))
        .with(
            "client_secret_source",
            settings
                .client_secret
                .as_ref()
                .map(|s| s.source.to_string()),
        )
        .with("client_secret_read", secret_read)
        .with(
            "auth_style",
            format!("{:?}", settings.auth_style.value).to_lowercase(),
        )
        .with(
            "overridden_by_env",
            settings
                .shadowed
                .iter()
                .map(|(env, key)| serde_json::json!({"env": env, "key": key}))
                .collect::<Vec<_>>(),
        )
}

/// 3. https (or loopback http), no userinfo, no operation path already in it.
pub(super) fn base_url_check(raw: &str, source: &Source) -> (Check, Option<BaseUrl>) {
    let fix = "set the gateway's root, e.g. https://paywithbank3d.com or \
               https://staging.paywithbank3d.com";
    let base = match BaseUrl::parse_shape(raw) {
        Ok(base) => base,
        Err(why) => {
            let found = format!("{why}; it came from {source}");
            return (Check::fail("base_url", Exit::Config, found, fix), None);
        }
    };
    let uri: Option<Uri> = base.to_string().parse().ok();
    let path = uri
        .as_ref()
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    // The rule every command applies (BaseUrl::parse), with doctor's own wording.
    if let Some((root, found)) = base.operation_path() {
        let check = Check::fail(
            "base_url",
            Exit::Config,
            format!(
                "{base} (from {source}) already holds the operation path: it ends in {found}; \
                 payverify appends /api/payment/verify/REFERENCE itself"
            ),
            format!("set the base URL to {root}"),
        );
        return (check, None);
    }
    let how = if base.to_string().starts_with("https://") {
        "https"
    } else {
        "plain http to a loopback address (allowed only there)"
    };
    let prefix = match path.as_str() {
        "" | "/" => String::new(),
        p => format!("; path prefix {p} kept before /api/payment/verify/"),
    };
    let check =
        Check::ok("base_url", format!("{base}: {how}{prefix}")).with("url", base.to_string());
    (check, Some(base))
}

/// The journal: where it is and how many checks it keeps, opened (and, where there was
/// none, made) as the next verify would; a warning when the default place cannot be made
/// at all (runs go on without one), a failure (exit 6) when it cannot be used.
pub(super) fn journal_check(settings: &Settings) -> Check {
    let place = &settings.journal;
    let (path, explicit) = match &place.value {
        JournalPlace::Off => return Check::ok("journal", format!("off (from {})", place.source)),
        JournalPlace::Nowhere => {
            return Check::warn(
                "journal",
                "no data directory on this system: verify, gate and reconcile run without a \
                 journal",
                "name one with --journal PATH, PAYVERIFY_JOURNAL or the profile's journal key",
            );
        }
        JournalPlace::At { path, explicit } => (path, *explicit),
    };
    let run = journal::Run {
        command: "doctor",
        profile: None,
        host: String::new(),
        account: String::new(),
    };
    match Journal::open(path, !explicit, run) {
        Ok(journal) => {
            let kept = journal.checks_kept();
            Check::ok(
                "journal",
                format!(
                    "{} ({kept} checks kept; from {})",
                    path.display(),
                    place.source
                ),
            )
            .with("path", path.display().to_string())
        }
        Err(Refusal::Unmade(why)) if !explicit => Check::warn(
            "journal",
            format!(
                "{} {why}: verify, gate and reconcile run without a journal",
                path.display()
            ),
            "name a place that can be written with --journal PATH, PAYVERIFY_JOURNAL or the \
             profile's journal key, or turn it off with journal = \"off\"",
        ),
        Err(Refusal::Unmade(why) | Refusal::Unusable(why)) => {
            let failure = journal::refused(path, &why);
            Check::fail(
                "journal",
                failure.exit,
                failure.message,
                "move the file away, name another with --journal PATH, or run with --no-journal",
            )
        }
    }
}
