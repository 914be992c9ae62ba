//! `payverify config init`: a new commented file, or one more profile in an existing one.

use std::fs;
use std::path::{Path, PathBuf};

use super::no_config_dir;
use crate::cli::GlobalArgs;
use crate::exit::{Cause, Failure};
use crate::io_util::io_reason;
use crate::log::Log;
use crate::render::{Printer, write_output};
use crate::settings::Context;
use crate::settings::file::edit::add_profile;
use crate::settings::file::{profile_section, template};
use crate::transport::base_url::BaseUrl;

/// `config init`: a new commented file, or one more profile in an existing file (the rest of
/// it kept as it was); then what the profile still lacks.
pub(super) fn init(
    global: &GlobalArgs,
    force: bool,
    log: &Log,
    ctx: &Context,
    printer: &mut Printer,
) -> Result<(), Failure> {
    let location = ctx
        .config_location(global.config.as_ref())
        .ok_or_else(no_config_dir)?;
    let (profile, secret_file) = checked(global)?;
    let (base_url, client_id) = (global.base_url.as_deref(), global.client_id.as_deref());
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
    if let Some(why) = &unusable_secret {
        log.warn(&format!(
            "the client secret file cannot be used yet: {why}; the profile is written, and \
             verifies nothing until the file holds the secret"
        ));
    }
    let unusable = secret_file.filter(|_| unusable_secret.is_some());
    let next = next_steps(
        path,
        profile,
        client_id.is_none(),
        secret_file.is_none(),
        unusable,
    );
    log.info(&format!("wrote profile '{profile}'; {next}"));
    Ok(())
}

/// The profile's name and the secret file's absolute path, or a usage error for a flag
/// that cannot go into a profile.
fn checked(global: &GlobalArgs) -> Result<(&str, Option<PathBuf>), Failure> {
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
    if (global.client_id.as_deref()).is_some_and(|id| id.trim().is_empty()) {
        return Err(Failure::usage(
            "--client-id is empty or only whitespace; give the dashboard's public key",
        ));
    }
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
    Ok((profile, secret_file))
}

/// What to do after init: set what the profile lacks, fill the secret file, or check it.
fn next_steps(
    path: &Path,
    profile: &str,
    no_client_id: bool,
    no_secret: bool,
    unusable_secret_file: Option<&Path>,
) -> String {
    let mut missing = Vec::new();
    if no_client_id {
        missing.push("its client_id");
    }
    if no_secret {
        missing.push("a secret source (client_secret_file or client_secret_command)");
    }
    let mut steps = Vec::new();
    if !missing.is_empty() {
        steps.push(format!(
            "set {} in {}",
            missing.join(" and "),
            path.display()
        ));
    }
    if let Some(file) = unusable_secret_file {
        steps.push(format!("put the client secret in {}", file.display()));
    }
    match steps.is_empty() {
        true => format!("next, check it: payverify --profile {profile} doctor"),
        false => format!("next, {}", steps.join(", and ")),
    }
}

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
