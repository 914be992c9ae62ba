//! `payverify reconcile FILE`: every row of an orders file verified on the batch engine
//! (the same workers, pacing, ordered writer, Ctrl-C handling and progress bar as verify),
//! each judged against its own expected amount, currency and merchant ref.

use std::io::{self, BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::batch::csv_input::{Orders, ReconcileSink};
use crate::batch::resume::{
    ResumeIndex, Resuming, RowShape, Shape, Trust, open_memory, resume_needs_jsonl,
};
use crate::cli::{GlobalArgs, ReconcileArgs};
use crate::commands::service::{Service, resume_command};
use crate::domain::reconcile::RowResult;
use crate::domain::seal::Sealer;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::render::reconcile::{ReconcileWriter, RowView, TABLE_ROWS, row_keys};
use crate::render::state::StateLog;
use crate::render::totals::{summary_json, summary_table};
use crate::render::{OutputFormat, Printer, Style, terminal_width};
use crate::secret::Secret;
use crate::settings::{Context, Settings};

mod mapping;

/// Runs `payverify reconcile`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &ReconcileArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    // Every known secret is registered first, so an error that quotes the file (a header
    // that is the secret file's content) or a typed flag value is scrubbed on stderr.
    Settings::register_secrets(&global.flags(&args.profile_args), ctx);
    // The selected profile's saved layout; --sandbox reads no config file.
    let table = match args.batch.sandbox {
        true => None,
        false => Settings::resolve(&global.flags(&args.profile_args), ctx)?.reconcile,
    };
    let options = mapping::csv_options(args, table.as_ref())?;
    if args.resume.is_some() {
        resume_needs_jsonl(args.format())?;
    }
    // As for verify: with rows left out of the exit status, each row must say what it came
    // to, in records a script or a person reads.
    if args.fail_on.is_some()
        && !matches!(
            args.format(),
            OutputFormat::Csv | OutputFormat::Jsonl | OutputFormat::Json
        )
    {
        return Err(Failure::usage(
            "--fail-on needs -o csv, jsonl or json: the exit status then leaves rows out, so \
             each row must say what it came to, in a file a script or a person reads",
        ));
    }
    if args.format() == OutputFormat::Xlsx {
        crate::render::xlsx::check_stdout()?;
    }
    let orders = Orders::open(&args.file, &options)?;
    let input_error = orders.input_error();
    let selected = orders.selected();
    let known_len = rows_in(&args.file);
    let service = Service::connect(
        "reconcile",
        global,
        &args.batch,
        &args.profile_args,
        log,
        ctx,
    )?;
    // Each row's own expectations are checked when its turn comes.
    let trust = service.trust();
    let (index, state) = memory(args, &orders, trust, log, &service.stop())?;
    // Checked once every input is open (the orders, config, secret and CA files, the
    // --resume or --state file), before any request; the file itself is replaced only at
    // the end.
    let summary_file = match &args.summary_json {
        Some(path) => Some(SummaryFile::prepare(path)?),
        None => None,
    };
    // Said once nothing can refuse the run any more, so a refusal stays one line.
    if let Some(note) = orders.skipped_note() {
        log.info(&note);
    }
    log.trace(|| orders.columns_note());
    let secret = &service.verifier.secret;
    let writer = rows_writer(global, args, &orders, secret, log, ctx).with_state(state);
    let columns = (orders.reference_column(), orders.order_column());
    let mut sink = ReconcileSink::new(writer, orders.reference_lines(), columns)
        .claiming(service.journal.clone());
    let resume_hint = resume_command(args.format(), args.state.is_some());
    let batch = service.batch(
        args.batch.jobs,
        known_len,
        resume_hint,
        args.fail_on.clone(),
    );
    let verifier = service.verifier.clone();
    let mut exit = match index {
        Some(index) => batch.run(verifier, Resuming::new(orders, index), &mut sink, log)?,
        None => batch.run(verifier, orders, &mut sink, log)?,
    };

    if let Some(why) = input_error.lock().ok().and_then(|e| e.clone()) {
        sink.summary.input_error = Some(why);
    }
    // A pattern that matches nothing (a typo) verified nothing: never a clean exit.
    if let Some(selected) = selected
        && selected() == 0
        && !sink.summary.incomplete()
    {
        log.error(&format!(
            "--only matched no row of {}: nothing was reconciled",
            args.file.display()
        ));
        exit = exit.merge(Exit::Usage);
    }
    // Before the --summary-json file, so that its exit status counts a workbook that
    // could not be written.
    let totals = crate::render::xlsx::summary::totals(&sink.summary);
    let exit = sink.writer.end_workbook(&totals, exit, log);
    Ok(report(&sink, exit, summary_file, log, ctx))
}

/// The index of the earlier run's rows (`--resume`, `--state`), when there is one, and the
/// `--state` file this run keeps its rows in; `stop` ends the reading at the first signal.
fn memory(
    args: &ReconcileArgs,
    orders: &Orders,
    trust: Trust,
    log: &Log,
    stop: &AtomicBool,
) -> Result<(Option<ResumeIndex>, Option<StateLog>), Failure> {
    if let (Some(state), Some(summary)) = (&args.state, &args.summary_json)
        && crate::files::same_target(state, summary)
    {
        return Err(Failure::usage(format!(
            "cannot write --summary-json {}: it is the --state file this run writes",
            summary.display()
        )));
    }
    let shape = record_shape(&orders.header(), orders.reference_column());
    let (resume, state) = (args.resume.as_deref(), args.state.as_deref());
    let (index, state) = open_memory(resume, state, &shape, &trust, log, stop)?;
    Ok((index, state))
}

/// The writer of the rows on stdout, sealed with the client secret; under `-q` without
/// `-o` one that writes nothing (-q silences the default table; an explicit -o is data a
/// script asked for).
fn rows_writer(
    global: &GlobalArgs,
    args: &ReconcileArgs,
    orders: &Orders,
    secret: &Secret,
    log: &Log,
    ctx: &Context,
) -> ReconcileWriter {
    let view = RowView::new(
        orders.header(),
        orders.reference_column(),
        args.all,
        orders.order_column(),
    );
    match log.level() == Level::Quiet && args.output.is_none() {
        true => ReconcileWriter::discarding(view),
        false => {
            let (out, style) = Printer::stdout(global.color, ctx.env).into_parts();
            ReconcileWriter::new(out, args.format(), style, view)
        }
    }
    .sealed(Sealer::new(secret))
    .with_bom(args.bom || (!args.no_bom && orders.had_bom()))
}

/// What the run says at its end: rows the table left out, the summary on stderr (not
/// under `-q`), the `--summary-json` file; the exit status with a failure to write that.
fn report(
    sink: &ReconcileSink,
    mut exit: Exit,
    summary_file: Option<SummaryFile>,
    log: &Log,
    ctx: &Context,
) -> Exit {
    if sink.writer.not_shown() > 0 {
        log.warn(&format!(
            "{} more rows not shown: the table lists the first {TABLE_ROWS} rows that need a \
             look; -o csv (or jsonl) lists every row",
            sink.writer.not_shown()
        ));
    }
    let summary = &sink.summary;
    if summary.rows > 0 && log.level() != Level::Quiet {
        let tty = io::stderr().is_terminal();
        let style = Style {
            color: false,
            tty,
            width: tty.then(|| terminal_width(ctx.env)).flatten(),
        };
        let title = match summary.incomplete() {
            true => "summary (incomplete: of the rows decided before the run stopped)",
            false => "summary",
        };
        let text = format!("payverify: {title}\n{}\n", summary_table(summary, style));
        // A closed stderr is not worth failing a reconciliation for.
        crate::signal::write_stderr(text.as_bytes());
    }
    if let Some(file) = summary_file {
        let mut text =
            serde_json::to_string_pretty(&summary_json(summary, exit)).unwrap_or_default();
        text.push('\n');
        if let Err(e) = file.commit(&text) {
            log.error(&e);
            exit = exit.merge(Exit::Internal);
        }
    }
    exit
}

/// What reconcile's records look like for a file with `header`, for `--resume`.
fn record_shape(header: &[String], reference_column: usize) -> Shape {
    Shape {
        command: "payverify reconcile",
        is_final: RowResult::is_carried,
        row: Some(RowShape {
            keys: row_keys(header),
            reference: reference_column,
            unkeyed: |name| RowResult::named(name).is_some_and(RowResult::decided_from_input),
        }),
    }
}

/// How many rows a regular file has after its header, for the progress bar: its lines,
/// counted by one cheap pass (an upper bound: blank lines and quoted newlines count too).
/// `None` for stdin or anything that is not a regular file.
fn rows_in(path: &Path) -> Option<usize> {
    if path.as_os_str() == "-" {
        return None;
    }
    // Looked at before it is opened: opening a pipe to count it would connect its writer
    // and leave it writing to no reader (SIGPIPE) before the real read opens it.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = crate::files::open(path, &crate::files::ORDERS)
        .ok()?
        .into_inner();
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

/// The `--summary-json` file: checked before any request without touching it (a temporary
/// file beside it proves its directory writable), replaced whole at the end.
struct SummaryFile {
    /// What the user named, for messages.
    shown: PathBuf,
    pending: crate::files::Pending,
}

impl SummaryFile {
    /// Refuses `-` (stdout carries the rows) and whatever [`crate::files::prepare`] refuses:
    /// a symlink, anything but a regular file, a file the run reads (the orders file, also
    /// as stdin), where stdout or stderr goes.
    fn prepare(path: &Path) -> Result<SummaryFile, Failure> {
        let refuse = |why: String| {
            Failure::usage(format!(
                "cannot write --summary-json {}: {why}",
                path.display()
            ))
        };
        if path.as_os_str() == "-" {
            return Err(refuse("stdout carries the rows; give a file name".into()));
        }
        let pending = crate::files::prepare(path, crate::files::Replace::default())
            .map_err(|e| refuse(e.why))?;
        Ok(SummaryFile {
            shown: path.to_path_buf(),
            pending,
        })
    }

    /// Writes `text` and puts it in place; the error line when that fails.
    fn commit(self, text: &str) -> Result<(), String> {
        self.pending
            .commit(text.as_bytes())
            .map_err(|e| format!("cannot write --summary-json {}: {e}", self.shown.display()))
    }
}
