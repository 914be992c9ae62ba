//! `payverify config path|show|init|profiles`.

use std::fs;
use std::path::Path;

use crate::cli::{ConfigCommand, GlobalArgs, ProfileArgs};
use crate::exit::{Cause, Exit, Failure};
use crate::io_util::io_reason;
use crate::log::Log;
use crate::render::Printer;
use crate::render::write_output;
use crate::settings::file::edit::add_profile;
use crate::settings::file::{profile_section, template};
use crate::settings::{Context, Settings};
use crate::transport::base_url::BaseUrl;

/// Runs a `config` subcommand.
pub(crate) fn run(
    global: &GlobalArgs,
    command: &ConfigCommand,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let mut printer = Printer::stdout(global.color, ctx.env);
    match command {
        ConfigCommand::Path => {
            let location = ctx
                .config_location(global.config.as_ref())
                .ok_or_else(no_config_dir)?;
            if !location.path.exists() {
                log.info(&format!(
                    "{} does not exist yet (payverify config init creates it)",
                    location.path.display()
                ));
            }
            let shown = crate::terminal::scrub(&location.path.display().to_string());
            write_output(printer.text(&format!("{shown}\n")))?;
        }
        ConfigCommand::Profiles { names: true } => {
            // Completion runs this on every <Tab>: the file alone, no profile selection (a
            // stray PAYVERIFY_PROFILE must not hide the list) and no messages.
            let names = ctx
                .config_location(global.config.as_ref())
                .and_then(|location| crate::settings::file::load(&location).ok().flatten())
                .map(|file| {
                    // Every profile, also one that could not be read: it can be selected
                    // (and then says what is wrong with it).
                    file.names()
                        .into_iter()
                        .filter(|name| crate::settings::file::is_profile_name(name))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let text: String = names
                .iter()
                .map(|name| format!("{}\n", crate::terminal::scrub(name)))
                .collect();
            write_output(printer.text(&text))?;
        }
        ConfigCommand::Profiles { names: false } => {
            let settings = Settings::resolve(&global.flags(&ProfileArgs::default()), ctx)?;
            if !settings.config_loaded {
                log.info("no config file (payverify config path says where it would be)");
            }
            let (names, default) = &settings.profiles;
            let text: String = names
                .iter()
                .map(|name| {
                    let shown = crate::terminal::scrub(name);
                    match default {
                        Some(d) if d == name => format!("{shown} (default)\n"),
                        _ => format!("{shown}\n"),
                    }
                })
                .collect();
            write_output(printer.text(&text))?;
        }
        ConfigCommand::Show { output } => show::run(global, *output, log, ctx, &mut printer)?,
        ConfigCommand::Init { force } => init(global, *force, log, ctx, &mut printer)?,
    }
    Ok(Exit::Successful)
}

/// `config init`: a new commented file, or one more profile in an existing file (the rest of
/// it kept as it was); then what the profile still lacks.
fn init(
    global: &GlobalArgs,
    force: bool,
    log: &Log,
    ctx: &Context,
    printer: &mut Printer,
) -> Result<(), Failure> {
    let location = ctx
        .config_location(global.config.as_ref())
        .ok_or_else(no_config_dir)?;
    if let Some(url) = &global.base_url {
        BaseUrl::parse(url).map_err(|e| Failure::config(Cause::BaseUrl, e))?;
    }
    let profile = global.profile.as_deref().unwrap_or("live");
    if !crate::settings::file::is_profile_name(profile) {
        return Err(Failure::usage(format!(
            "profile name {} is not allowed: use letters, digits, '_' and '-' only",
            crate::terminal::quoted(profile)
        )));
    }
    if global
        .client_id
        .as_deref()
        .is_some_and(|id| id.trim().is_empty())
    {
        return Err(Failure::usage(
            "--client-id is empty or only whitespace; give the dashboard's public key",
        ));
    }
    let (base_url, client_id) = (global.base_url.as_deref(), global.client_id.as_deref());
    // Written absolute: a relative path in the file would be read relative to wherever
    // payverify runs later (a cron job's home), not where init ran.
    let secret_file = match &global.client_secret_file {
        Some(path) => Some(std::path::absolute(path).map_err(|e| {
            Failure::usage(format!(
                "--client-secret-file {}: {}",
                path.display(),
                io_reason(&e)
            ))
        })?),
        None => None,
    };
    let secret_file = secret_file.as_deref();
    // A file that is not there yet (or cannot work) is written anyway, with a warning: the
    // secret may be put there after the config, and nothing verifies until it can be read.
    let unusable_secret = secret_file.and_then(|path| {
        match crate::settings::SecretSource::File(path.to_owned()).check(ctx.env) {
            crate::settings::SourceCheck::Fine => None,
            crate::settings::SourceCheck::Warn(warning) => {
                log.warn(&warning);
                None
            }
            crate::settings::SourceCheck::Broken(why) => Some(why),
        }
    });
    let path = &location.path;
    // The target is checked (and its temporary file made) before anything is read from it.
    let pending = prepare_private(path)?;
    let cannot = |e: &crate::files::Unreadable| {
        e.failure(format!("cannot read {}: {e}", path.display()), |message| {
            Failure::config(Cause::ConfigFile, message)
        })
    };
    let existing = match crate::files::read_text(path, &crate::files::CONFIG) {
        Ok(text) => Some(text),
        Err(e) if e.problem == crate::files::Problem::Missing => None,
        Err(e) => return Err(cannot(&e)),
    };
    let text = match existing {
        Some(existing) => {
            let section = profile_section(profile, base_url, client_id, secret_file);
            add_profile(&existing, profile, &section, force).map_err(|e| {
                Failure::config(
                    Cause::ConfigFile,
                    format!("cannot add profile '{profile}' to {}: {e}", path.display()),
                )
            })?
        }
        None => template(profile, base_url, client_id, secret_file),
    };
    // What is written must be what payverify reads back: a file that does not parse is
    // never put in place of one that did.
    crate::settings::file::parse(&text, path).map_err(|e| {
        Failure::config(
            Cause::ConfigFile,
            format!(
                "cannot update {}: the result would not be valid ({e})",
                path.display()
            ),
        )
    })?;
    pending
        .commit(text.as_bytes())
        .map_err(|e| unwritable(path, e))?;
    let shown = crate::terminal::scrub(&path.display().to_string());
    write_output(printer.text(&format!("{shown}\n")))?;
    let mut missing = Vec::new();
    if client_id.is_none() {
        missing.push("its client_id".to_owned());
    }
    if secret_file.is_none() {
        missing.push("a secret source (client_secret_file or client_secret_command)".to_owned());
    }
    let mut steps = Vec::new();
    if !missing.is_empty() {
        steps.push(format!(
            "set {} in {}",
            missing.join(" and "),
            path.display()
        ));
    }
    if let (Some(why), Some(file)) = (&unusable_secret, secret_file) {
        log.warn(&format!(
            "the client secret file cannot be used yet: {why}; the profile is written, and \
             verifies nothing until the file holds the secret"
        ));
        steps.push(format!("put the client secret in {}", file.display()));
    }
    let next = match steps.is_empty() {
        true => format!("next, check it: payverify --profile {profile} doctor"),
        false => format!("next, {}", steps.join(", and ")),
    };
    log.info(&format!("wrote profile '{profile}'; {next}"));
    Ok(())
}

fn no_config_dir() -> Failure {
    Failure::config(
        Cause::ConfigFile,
        "cannot tell where the config directory is (no HOME?); use --config PATH",
    )
}

mod show;

/// Starts an atomic write of `path`, which will be readable only by its owner (it may hold
/// a secret), creating parent directories private to the user.
fn prepare_private(path: &Path) -> Result<crate::files::Pending, Failure> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(parent).map_err(|e| {
            Failure::config(
                Cause::ConfigFile,
                format!(
                    "cannot create the directory for {}: {}",
                    path.display(),
                    io_reason(&e)
                ),
            )
        })?;
    }
    let replace = crate::files::Replace {
        mode: Some(0o600),
        updating: Some(crate::files::CONFIG.what),
    };
    crate::files::prepare(path, replace).map_err(|e| unwritable(path, e))
}

/// Exit 2 when `path` is something the run reads or prints to, else 6.
fn unwritable(path: &Path, e: crate::files::Unwritable) -> Failure {
    let message = format!("cannot write {}: {e}", path.display());
    match e.collision {
        true => Failure::usage(message),
        false => Failure::config(Cause::ConfigFile, message),
    }
}
