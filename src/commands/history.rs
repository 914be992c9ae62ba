//! `payverify history`: what the journal remembers. Every check of one reference, oldest
//! first; or, with `--changed`, the references whose status, amount or currency changed
//! between two checks. Exit 0 when there is something to show, 3 when there is nothing.

use std::time::{Duration, SystemTime};

use comfy_table::Cell;

use crate::cli::{GlobalArgs, HistoryArgs, HistoryFormat, ProfileArgs};
use crate::domain::money::Kobo;
use crate::exit::{Cause, Exit, Failure};
use crate::journal::{self, Change, Entry};
use crate::log::Log;
use crate::reference::Reference;
use crate::render::{Printer, new_table, table_text, write_output};
use crate::settings::journal::JournalPlace;
use crate::settings::{Context, Settings};

/// Runs `payverify history`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &HistoryArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let reference = match &args.reference {
        Some(text) => Some(Reference::parse(text).map_err(|e| {
            Failure::usage(format!("{e} (give the reference whose checks to show)"))
        })?),
        None => None,
    };
    let settings = Settings::resolve(&global.flags(&ProfileArgs::default()), ctx)?;
    let path = match settings.journal.value {
        JournalPlace::At { path, .. } => path,
        JournalPlace::Off => {
            return Err(Failure::usage(format!(
                "the journal is off ({}): there is nothing to read; name one with --journal \
                 PATH",
                settings.journal.source
            )));
        }
        JournalPlace::Nowhere => {
            return Err(Failure::config(
                Cause::Journal,
                "this system has no data directory, so there is no journal to read; name one \
                 with --journal PATH",
            ));
        }
    };
    let mut printer = Printer::stdout(global.color, ctx.env);
    let style = printer.style();
    let (text, found, none) = match reference {
        Some(reference) => {
            let entries = journal::entries(&path, reference.as_str())?.unwrap_or_default();
            let text = match args.output {
                HistoryFormat::Json => json(&entries),
                HistoryFormat::Table => table_text(&checks_table(&entries, style), style) + "\n",
            };
            let none = format!(
                "the journal {} holds no check of '{}'",
                path.display(),
                crate::terminal::scrub(reference.as_str())
            );
            (text, !entries.is_empty(), none)
        }
        None => {
            let since = args.since.map(cutoff);
            let changes = journal::changes(&path, since.as_deref())?.unwrap_or_default();
            let text = match args.output {
                HistoryFormat::Json => json(&changes),
                HistoryFormat::Table => table_text(&changes_table(&changes, style), style) + "\n",
            };
            let within = args
                .since
                .map(|d| format!(" in the last {}", humantime::format_duration(d)))
                .unwrap_or_default();
            let none = format!(
                "the journal {} holds no answer that changed between two checks{within}",
                path.display()
            );
            (text, !changes.is_empty(), none)
        }
    };
    // JSON is always written (an empty array is an answer); a table only when it has rows.
    if found || args.output == HistoryFormat::Json {
        write_output(printer.text(&text))?;
    }
    if !found {
        log.error(&none);
        return Ok(Exit::NotFound);
    }
    Ok(Exit::Successful)
}

/// The time `since` ago, as the journal writes times.
fn cutoff(since: Duration) -> String {
    let at = SystemTime::now()
        .checked_sub(since)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    humantime::format_rfc3339_millis(at).to_string()
}

/// `value` as pretty JSON, its text made safe for a terminal.
fn json(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "[]".to_owned());
    crate::terminal::json_text(text) + "\n"
}

/// An entry's amount as people read it, with its currency.
fn amount(entry: &Entry) -> String {
    entry.amount_kobo.map_or_else(
        || "-".to_owned(),
        // The currency is the service's text: escaped as every other cell is.
        |k| crate::terminal::scrub(&Kobo(k).display_with_currency(entry.currency.as_deref())),
    )
}

/// A value for a cell: scrubbed, `-` when there is none.
fn cell(value: Option<&str>) -> Cell {
    Cell::new(value.map_or_else(|| "-".to_owned(), crate::terminal::scrub))
}

fn checks_table(entries: &[Entry], style: crate::render::Style) -> comfy_table::Table {
    let mut table = new_table(style);
    table.set_header([
        "checked_at",
        "command",
        "outcome",
        "exit",
        "status",
        "code",
        "amount",
        "order",
        "transaction_ref",
        "hmac",
    ]);
    for e in entries {
        let outcome = match &e.result {
            Some(result) => format!("{} ({result})", e.outcome),
            None => e.outcome.clone(),
        };
        table.add_row([
            cell(Some(&e.checked_at)),
            cell(Some(&e.command)),
            cell(Some(&outcome)),
            Cell::new(e.exit_code),
            cell(e.status.as_deref()),
            cell(e.code.as_deref()),
            Cell::new(amount(e)),
            cell(e.order.as_deref()),
            cell(e.transaction_ref.as_deref()),
            cell(e.hmac.as_deref()),
        ]);
    }
    table
}

fn changes_table(changes: &[Change], style: crate::render::Style) -> comfy_table::Table {
    let mut table = new_table(style);
    table.set_header(["reference", "before_at", "before", "after_at", "after"]);
    let answer = |e: &Entry| format!("{} {}", e.status.as_deref().unwrap_or("-"), amount(e));
    for c in changes {
        table.add_row([
            cell(Some(&c.reference)),
            cell(Some(&c.before.checked_at)),
            cell(Some(&answer(&c.before))),
            cell(Some(&c.after.checked_at)),
            cell(Some(&answer(&c.after))),
        ]);
    }
    table
}
