//! `payverify reconcile FILE`: every row of an orders file verified on the batch engine
//! (the same workers, pacing, ordered writer, Ctrl-C handling and progress bar as verify),
//! each judged against its own expected amount, currency and merchant ref.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;

use crate::batch::Batch;
use crate::batch::csv_input::{CsvOptions, Orders};
use crate::cli::{GlobalArgs, ReconcileArgs};
use crate::commands::verify::Service;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::render::reconcile::ReconcileWriter;
use crate::render::{Printer, Style, terminal_width};
use crate::settings::Context;

/// Runs `payverify reconcile`.
pub fn run(
    global: &GlobalArgs,
    args: &ReconcileArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let options = CsvOptions {
        delimiter: args.delimiter,
        reference_column: args.reference_column.clone(),
        amount_column: args.amount_column.clone(),
        currency_column: args.currency_column.clone(),
        merchant_ref_column: args.merchant_ref_column.clone(),
        unit: args.amount_unit,
        currency: args.currency.trim().to_ascii_uppercase(),
    };
    // The file and its header are checked before anything else, and before any request;
    // so is the summary file, which must not turn out unwritable after a long run.
    let orders = Orders::open(&args.file, &options)?;
    let mut summary_file = match &args.summary_json {
        Some(path) => Some((
            File::create(path).map_err(|e| {
                Failure::usage(format!(
                    "cannot write --summary-json {}: {}",
                    path.display(),
                    crate::io_util::io_reason(&e)
                ))
            })?,
            path,
        )),
        None => None,
    };
    let known_len = rows_in(&args.file);
    let Service {
        verifier,
        interrupt,
        halt,
        sandbox: _sandbox,
        wait,
    } = Service::connect(global, &args.batch, &args.profile_args, log, ctx)?;

    let (header, reference_column) = (orders.header(), orders.reference_column());
    // -q silences the default table; an explicit -o is data a script asked for.
    let mut writer = match log.level() == Level::Quiet && args.output.is_none() {
        true => ReconcileWriter::discard(header, reference_column),
        false => {
            let (out, style) = Printer::stdout(global.color, ctx.env).into_parts();
            ReconcileWriter::new(
                out,
                args.format(),
                style,
                header,
                reference_column,
                args.all,
            )
        }
    };
    let batch = Batch {
        jobs: usize::from(args.batch.jobs),
        known_len,
        stop: interrupt.flag(),
        halt,
        wait,
        // reconcile has no --resume yet: nothing to name.
        resume_hint: None,
    };
    let mut exit = batch.run(Arc::new(verifier), orders, &mut writer, log)?;

    let summary = writer.summary();
    if summary.rows() > 0 && log.level() != Level::Quiet {
        let tty = io::stderr().is_terminal();
        let style = Style {
            color: false,
            tty,
            width: tty.then(|| terminal_width(ctx.env)).flatten(),
        };
        let text = format!("payverify: summary\n{}\n", summary.table(style));
        // A closed stderr is not worth failing a reconciliation for.
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }
    if let Some((file, path)) = summary_file.as_mut() {
        let mut text = serde_json::to_string_pretty(&summary.json(exit)).unwrap_or_default();
        text.push('\n');
        if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
            log.error(&format!(
                "cannot write --summary-json {}: {}",
                path.display(),
                crate::io_util::io_reason(&e)
            ));
            exit = exit.merge(Exit::Internal);
        }
    }
    Ok(exit)
}

/// How many rows a regular file has after its header, for the progress bar: its lines,
/// counted by one cheap pass (an upper bound: blank lines and quoted newlines count too).
/// `None` for stdin or anything that is not a regular file.
fn rows_in(path: &Path) -> Option<usize> {
    if path.as_os_str() == "-" {
        return None;
    }
    let file = File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut reader = BufReader::new(file);
    let mut lines = 0usize;
    let mut last = b'\n';
    loop {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            break;
        }
        // A line ends at LF, or at a CR not followed by LF (old Mac line ends).
        for &b in buf {
            lines += usize::from(b == b'\n' || last == b'\r');
            last = b;
        }
        let n = buf.len();
        reader.consume(n);
    }
    if last != b'\n' {
        lines += 1;
    }
    Some(lines.saturating_sub(1))
}
