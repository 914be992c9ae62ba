//! `payverify config show [-o json]`: each effective setting, its value and where it came
//! from, as a table for people or one JSON object for scripts (the same rows either way);
//! never the secret.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::json_text;
use crate::cli::{GlobalArgs, ProfileArgs, ShowFormat};
use crate::exit::{Cause, Exit, Failure};
use crate::log::Log;
use crate::render::{Printer, Style, new_table, table_text, write_output};
use crate::settings::journal::JournalPlace;
use crate::settings::{Context, Problem, SecretSource, Settings, Source, Sourced};

/// Runs `config show`: the settings on stdout, each problem on stderr; exit 6 when the
/// configuration cannot work.
pub(super) fn run(
    global: &GlobalArgs,
    format: ShowFormat,
    log: &Log,
    ctx: &Context,
    printer: &mut Printer,
) -> Result<(), Failure> {
    // Every bad key at once: fixing one to be told of the next is a slow loop.
    let settings = match Settings::resolve_all(&global.flags(&ProfileArgs::default()), ctx) {
        Ok(settings) => settings,
        Err(mut problems) => {
            if format == ShowFormat::Json {
                // A script gets an answer on stdout too: what is wrong, and the exit.
                let exit = problems
                    .iter()
                    .fold(Exit::Successful, |exit, p| exit.merge(p.exit));
                let errors: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
                let object = json!({
                    "ok": false,
                    "exit": exit.code(),
                    "errors": errors,
                    "settings": null,
                });
                write_output(printer.text(&json_text(object)))?;
            }
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
    let rows = rows(&settings);
    let broken: Vec<&str> = problems
        .iter()
        .filter(|p| p.broken)
        .map(|p| p.key)
        .collect();
    let text = match format {
        ShowFormat::Text => table(&rows, &problems),
        ShowFormat::Json => json_text(object(&settings, &rows, &problems)),
    };
    write_output(printer.text(&text))?;
    for problem in &problems {
        match problem.broken {
            true => log.error(&format!("{}: {}", problem.key, problem.message)),
            false => log.warn(&format!("{}: {}", problem.key, problem.message)),
        }
    }
    if !broken.is_empty() {
        return Err(Failure::config(
            Cause::SettingInvalid,
            format!(
                "this configuration cannot work: fix {} (marked BROKEN)",
                broken.join(", ")
            ),
        ));
    }
    Ok(())
}

/// One setting as both views show it.
struct Row {
    key: &'static str,
    /// The table's value cell.
    shown: String,
    /// The table's source cell: where it came from, or why there is none.
    source: String,
    /// Whether anything set it (JSON's `source` is null when nothing did).
    set: bool,
    /// The value for scripts: a number where it is one, null when not set.
    value: Value,
    /// More for scripts (a secret's kind and path, whether a client id was trimmed).
    extra: Map<String, Value>,
}

impl Row {
    fn new(key: &'static str, shown: String, source: String, value: Value) -> Row {
        Row {
            key,
            shown,
            source,
            set: true,
            value,
            extra: Map::new(),
        }
    }

    fn unset(key: &'static str, why: &str) -> Row {
        Row {
            set: false,
            ..Row::new(key, "-".into(), why.into(), Value::Null)
        }
    }

    /// A row whose value is text, shown as it is.
    fn text(key: &'static str, shown: String, source: impl ToString) -> Row {
        let value = json!(shown);
        Row::new(key, shown, source.to_string(), value)
    }

    /// A setting named by a word (`standard`, `warn`): its name in lower case.
    fn lowercase(key: &'static str, v: &Sourced<impl std::fmt::Debug>) -> Row {
        Row::text(key, format!("{:?}", v.value).to_lowercase(), &v.source)
    }

    /// A duration as people write it (`30s`, `10m`), with its seconds for scripts; `zero`
    /// is what the table says of a zero one, if it says more.
    fn duration(key: &'static str, d: &Sourced<Duration>, zero: Option<&str>) -> Row {
        let text = humantime::format_duration(d.value).to_string();
        let shown = match zero {
            Some(zero) if d.value.is_zero() => zero.to_owned(),
            _ => text.clone(),
        };
        Row::new(key, shown, d.source.to_string(), json!(text))
            .with("seconds", d.value.as_secs_f64())
    }

    fn with(mut self, key: &str, value: impl Into<Value>) -> Row {
        self.extra.insert(key.to_owned(), value.into());
        self
    }
}

/// Every setting, in the order the table lists them.
fn rows(s: &Settings) -> Vec<Row> {
    let text = |key, v: &Option<Sourced<String>>| match v {
        Some(v) => Row::text(key, v.value.clone(), &v.source),
        None => Row::unset(key, "not set"),
    };
    let mut client_id = text("client_id", &s.client_id).with("trimmed", s.client_id_trimmed);
    if s.client_id_trimmed {
        client_id
            .source
            .push_str(" (the whitespace around it taken off)");
    }
    let retries = &s.retries;
    let mut rows = vec![
        config_row(s),
        text("profile", &s.profile),
        base_url_row(s),
        client_id,
        secret_row(s),
        Row::lowercase("auth_style", &s.auth_style),
        Row::duration("timeout", &s.timeout, None),
        Row::new(
            "retries",
            retries.value.to_string(),
            retries.source.to_string(),
            json!(retries.value),
        ),
        Row::duration("wait", &s.wait, Some("0 (not final is an answer)")),
        Row::duration("give_up_after", &s.give_up_after, None),
        Row::lowercase("hmac", &s.hmac),
        match &s.expect_mode {
            Some(_) => text("expect_mode", &s.expect_mode),
            None => Row::unset("expect_mode", "not set (any mode verifies)"),
        },
        proxy_row(s),
    ];
    if let Some(list) = &s.no_proxy {
        let mut source = list.source.to_string();
        if !matches!(s.proxy.as_ref().map(|p| &p.source), Some(Source::Env(_))) {
            source.push_str(" (applies to a proxy from the environment only)");
        }
        rows.push(Row::text("no_proxy", list.value.clone(), source));
    }
    rows.push(match &s.ca_cert {
        Some(c) => Row::text("ca_cert", c.value.display().to_string(), &c.source),
        None => Row::unset("ca_cert", "built-in Mozilla roots"),
    });
    let journal = &s.journal;
    rows.push(match &journal.value {
        JournalPlace::At { path, .. } => {
            Row::text("journal", path.display().to_string(), &journal.source)
        }
        JournalPlace::Off => Row::text("journal", "off".to_owned(), &journal.source),
        JournalPlace::Nowhere => Row::unset("journal", "no data directory: none is kept"),
    });
    rows
}

/// The config file, and whether it was loaded.
fn config_row(s: &Settings) -> Row {
    let Some(c) = &s.config else {
        return Row::unset("config", "no config directory").with("loaded", false);
    };
    let path = c.path.display().to_string();
    let state = match s.config_loaded {
        true => "loaded",
        false => "does not exist",
    };
    Row::text("config", path, state).with("loaded", s.config_loaded)
}

/// The base URL without any credentials in it (which are refused, and never shown).
fn base_url_row(s: &Settings) -> Row {
    let Some(url) = &s.base_url else {
        return Row::unset("base_url", "not set");
    };
    let shown = crate::transport::base_url::without_userinfo(&url.value);
    let mut source = url.source.to_string();
    if shown != url.value {
        source.push_str(" (refused: credentials belong in client_id and a secret source)");
    }
    Row::text("base_url", shown, source)
}

/// Where the client secret comes from; never the secret.
fn secret_row(s: &Settings) -> Row {
    let Some(c) = &s.client_secret else {
        return Row::unset("client_secret", "not set");
    };
    let row = Row::new(
        "client_secret",
        c.value.describe(),
        c.source.to_string(),
        json!("<redacted>"),
    );
    match &c.value {
        SecretSource::Value(_) => row.with("from", "value"),
        SecretSource::File(path) => row
            .with("from", "file")
            .with("path", path.display().to_string()),
        // The program and a placeholder for each argument: an argument can hold the secret
        // itself (`printf %s SECRET`).
        SecretSource::Command(argv) => {
            let shown: Vec<&str> = (argv.iter().enumerate())
                .map(|(i, arg)| if i == 0 { arg.as_str() } else { "<redacted>" })
                .collect();
            row.with("from", "command").with("command", shown)
        }
    }
}

/// The proxy, its password never shown.
fn proxy_row(s: &Settings) -> Row {
    let Some(p) = &s.proxy else {
        return Row::unset("proxy", "not set");
    };
    let mut source = p.source.to_string();
    if matches!(p.source, Source::Env(_)) {
        source.push_str(" (not for loopback)");
    }
    let shown = crate::transport::proxy::shown(&p.value);
    Row::text("proxy", shown, source)
}

/// The table: key, value, source; a line with a problem says so after its source
/// (`<- BROKEN` when verify could not work, `<- WARNING` otherwise); stderr says why.
fn table(rows: &[Row], problems: &[Problem]) -> String {
    // Plain even on a terminal: three columns people copy values out of.
    let mut table = new_table(Style::PLAIN);
    for row in rows {
        // Values and paths can come from the environment or a file: shown escaped.
        let mut source = crate::terminal::scrub(&row.source);
        for problem in problems.iter().filter(|p| p.key == row.key) {
            source.push_str(match problem.broken {
                true => "  <- BROKEN",
                false => "  <- WARNING",
            });
        }
        table.add_row(vec![
            row.key.to_owned(),
            crate::terminal::scrub(&row.shown),
            source,
        ]);
    }
    let mut out = table_text(&table, Style::PLAIN);
    out.push('\n');
    out
}

/// The JSON view: `ok` and `exit` (what the command exits with), `config`, `profile`, then
/// `settings`, each key with `value` and `source` (null when nothing set it) and its
/// `problems`; then every problem and warning.
fn object(s: &Settings, rows: &[Row], problems: &[Problem]) -> Value {
    let (mut config, mut profile) = (Value::Null, Value::Null);
    let mut settings = Map::new();
    for row in rows {
        let mut entry = Map::new();
        entry.insert("value".into(), row.value.clone());
        entry.insert("source".into(), json!(row.set.then_some(&row.source)));
        entry.extend(row.extra.clone());
        let own: Vec<Value> = problems
            .iter()
            .filter(|p| p.key == row.key)
            .map(|p| json!({"broken": p.broken, "message": p.message}))
            .collect();
        entry.insert("problems".into(), Value::Array(own));
        match row.key {
            "config" => config = Value::Object(entry),
            "profile" => profile = Value::Object(entry),
            key => {
                settings.insert(key.to_owned(), Value::Object(entry));
            }
        }
    }
    let broken = problems.iter().any(|p| p.broken);
    let mut warnings: Vec<String> = s.warnings.iter().map(ToString::to_string).collect();
    warnings.extend(
        s.shadowed
            .iter()
            .map(|(env, key)| format!("{env} is set and overrides {key} from the config profile")),
    );
    json!({
        "ok": !broken,
        "exit": if broken { Exit::Config.code() } else { Exit::Successful.code() },
        "config": config,
        "profile": profile,
        "settings": settings,
        "problems": problems
            .iter()
            .map(|p| json!({"key": p.key, "broken": p.broken, "message": p.message}))
            .collect::<Vec<_>>(),
        "warnings": warnings,
    })
}
