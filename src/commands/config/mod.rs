//! `payverify config path|show|init|profiles`.

use crate::cli::{ConfigCommand, GlobalArgs, ProfileArgs};
use crate::exit::{Cause, Exit, Failure};
use crate::log::Log;
use crate::render::Printer;
use crate::render::write_output;
use crate::settings::{Context, Settings};

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
            write_output(printer.text(&profile_lines(&names, &None)))?;
        }
        ConfigCommand::Profiles { names: false } => {
            let settings = Settings::resolve(&global.flags(&ProfileArgs::default()), ctx)?;
            if !settings.config_loaded {
                log.info("no config file (payverify config path says where it would be)");
            }
            let (names, default) = &settings.profiles;
            write_output(printer.text(&profile_lines(names, default)))?;
        }
        ConfigCommand::Show { output } => show::run(global, *output, log, ctx, &mut printer)?,
        ConfigCommand::Init { force } => init::init(global, *force, log, ctx, &mut printer)?,
    }
    Ok(Exit::Successful)
}

/// A line per profile name, escaped, the default one marked.
fn profile_lines(names: &[String], default: &Option<String>) -> String {
    let line = |name: &String| match default {
        Some(d) if d == name => format!("{} (default)\n", crate::terminal::scrub(name)),
        _ => format!("{}\n", crate::terminal::scrub(name)),
    };
    names.iter().map(line).collect()
}

/// Pretty JSON with a line end, redacted and safe for a terminal.
pub(crate) fn json_text(mut value: serde_json::Value) -> String {
    crate::secret::redact_json(&mut value);
    format!("{}\n", crate::terminal::json_text(format!("{value:#}")))
}

/// Exit 6: no config path can be found.
fn no_config_dir() -> Failure {
    Failure::config(
        Cause::ConfigFile,
        "cannot tell where the config directory is (no HOME?); use --config PATH",
    )
}

mod init;
mod show;
