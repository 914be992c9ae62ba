//! `payverify config path|show|init|profiles`.

use std::fs;
use std::path::Path;

use comfy_table::Table;

use crate::cli::{ConfigCommand, GlobalArgs, ProfileArgs};
use crate::exit::{Cause, Exit, Failure};
use crate::io_util::io_reason;
use crate::log::Log;
use crate::render::write_output;
use crate::render::{Printer, Style, new_table, table_text};
use crate::settings::file::edit::add_profile;
use crate::settings::file::{profile_section, template};
use crate::settings::{Context, Problem, Settings, Source, Sourced};
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
                    file.profiles
                        .into_keys()
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
        ConfigCommand::Show => {
            // Every bad key at once: fixing one to be told of the next is a slow loop.
            let settings = match Settings::resolve_all(&global.flags(&ProfileArgs::default()), ctx)
            {
                Ok(settings) => settings,
                Err(mut problems) => {
                    let last = problems.pop();
                    for problem in &problems {
                        log.error(&problem.message);
                    }
                    return Err(last.unwrap_or_else(|| {
                        Failure::new(Exit::Internal, "settings failed without a reason")
                    }));
                }
            };
            settings.warn(log);
            settings.warn_shadowed(log);
            let problems = settings.problems(ctx.env);
            write_output(printer.text(&show(&settings, &problems)))?;
            for problem in &problems {
                match problem.broken {
                    true => log.error(&format!("{}: {}", problem.key, problem.message)),
                    false => log.warn(&format!("{}: {}", problem.key, problem.message)),
                }
            }
            let broken: Vec<&str> = problems
                .iter()
                .filter(|p| p.broken)
                .map(|p| p.key)
                .collect();
            if !broken.is_empty() {
                return Err(Failure::config(
                    Cause::SettingInvalid,
                    format!(
                        "this configuration cannot work: fix {} (marked BROKEN)",
                        broken.join(", ")
                    ),
                ));
            }
        }
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
    let secret_file = global.client_secret_file.as_deref();
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
        None => {
            let mut text = template(profile, base_url, client_id);
            if let Some(file) = secret_file {
                let section = profile_section(profile, base_url, client_id, Some(file));
                text = add_profile(&text, profile, &section, true)
                    .map_err(|e| Failure::config(Cause::ConfigFile, e))?;
            }
            text
        }
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
    let next = match missing.is_empty() {
        true => format!("next, check it: payverify --profile {profile} doctor"),
        false => format!("next, set {} in {}", missing.join(" and "), path.display()),
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

/// The `config show` table: key, value, source; a line with a problem says so after its
/// source (`<- BROKEN` when verify could not work, `<- WARNING` otherwise); stderr says why.
fn show(s: &Settings, problems: &[Problem]) -> String {
    // Plain even on a terminal: three columns people copy values out of.
    let mut table = new_table(Style::PLAIN);
    let none = || "-".to_owned();
    let row = |table: &mut Table, key: &str, value: String, source: String| {
        // Values and paths can come from the environment or a file: shown escaped.
        let mut source = crate::terminal::scrub(&source);
        for problem in problems.iter().filter(|p| p.key == key) {
            source.push_str(match problem.broken {
                true => "  <- BROKEN",
                false => "  <- WARNING",
            });
        }
        table.add_row(vec![key.to_owned(), crate::terminal::scrub(&value), source]);
    };
    let src = |source: &Source| source.to_string();
    let text = |v: &Option<Sourced<String>>| {
        v.as_ref()
            .map(|v| (v.value.clone(), src(&v.source)))
            .unwrap_or_else(|| (none(), "not set".into()))
    };
    let config = match &s.config {
        Some(c) if s.config_loaded => (c.path.display().to_string(), "loaded".into()),
        Some(c) => (c.path.display().to_string(), "does not exist".into()),
        None => (none(), "no config directory".into()),
    };
    row(&mut table, "config", config.0, config.1);
    let (v, w) = text(&s.profile);
    row(&mut table, "profile", v, w);
    let (v, w) = text(&s.base_url);
    let shown = crate::transport::base_url::without_userinfo(&v);
    let w = if shown == v {
        w
    } else {
        format!("{w} (refused: credentials belong in client_id and a secret source)")
    };
    row(&mut table, "base_url", shown, w);
    let (v, w) = text(&s.client_id);
    row(&mut table, "client_id", v, w);
    let secret = s
        .client_secret
        .as_ref()
        .map(|c| (c.value.describe(), src(&c.source)))
        .unwrap_or_else(|| (none(), "not set".into()));
    row(&mut table, "client_secret", secret.0, secret.1);
    row(
        &mut table,
        "auth_style",
        format!("{:?}", s.auth_style.value).to_lowercase(),
        src(&s.auth_style.source),
    );
    row(
        &mut table,
        "timeout",
        format!("{}s", s.timeout.value.as_secs_f64()),
        src(&s.timeout.source),
    );
    row(
        &mut table,
        "retries",
        s.retries.value.to_string(),
        src(&s.retries.source),
    );
    row(
        &mut table,
        "wait",
        match s.wait.value.is_zero() {
            true => "0 (not final is an answer)".to_owned(),
            false => humantime::format_duration(s.wait.value).to_string(),
        },
        src(&s.wait.source),
    );
    row(
        &mut table,
        "give_up_after",
        humantime::format_duration(s.give_up_after.value).to_string(),
        src(&s.give_up_after.source),
    );
    row(
        &mut table,
        "hmac",
        format!("{:?}", s.hmac.value).to_lowercase(),
        src(&s.hmac.source),
    );
    let proxy = match &s.proxy {
        Some(p) => {
            let source = match p.source {
                Source::Env(_) => format!("{} (not for loopback)", src(&p.source)),
                _ => src(&p.source),
            };
            (crate::transport::proxy::shown(&p.value), source)
        }
        None => (none(), "not set".into()),
    };
    row(&mut table, "proxy", proxy.0, proxy.1);
    if let Some(list) = &s.no_proxy {
        let applies = match s.proxy.as_ref().map(|p| &p.source) {
            Some(Source::Env(_)) => src(&list.source),
            _ => format!(
                "{} (applies to a proxy from the environment only)",
                src(&list.source)
            ),
        };
        row(&mut table, "no_proxy", list.value.clone(), applies);
    }
    let ca = s
        .ca_cert
        .as_ref()
        .map(|c| (c.value.display().to_string(), src(&c.source)))
        .unwrap_or_else(|| (none(), "built-in Mozilla roots".into()));
    row(&mut table, "ca_cert", ca.0, ca.1);
    let mut out = table_text(&table, Style::PLAIN);
    out.push('\n');
    out
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
