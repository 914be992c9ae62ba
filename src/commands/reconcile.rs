//! `payverify reconcile FILE`: every row of an orders file verified on the batch engine
//! (the same workers, pacing, ordered writer, Ctrl-C handling and progress bar as verify),
//! each judged against its own expected amount, currency and merchant ref.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::batch::Batch;
use crate::batch::csv_input::{CsvOptions, Orders, Rows};
use crate::batch::resume::{ResumeIndex, Resuming, RowShape, Shape, Trust};
use crate::cli::{GlobalArgs, OutputFormat, ReconcileArgs};
use crate::commands::verify::{Service, refuse_own_output, resume_command, same_file, stdout_meta};
use crate::domain::reconcile::{RESULT_EXITS, RowResult, classify};
use crate::domain::seal::Sealer;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::render::reconcile::{RESULT_COLUMNS, ReconcileWriter, TABLE_ROWS, row_keys};
use crate::render::{Printer, Style, terminal_width};
use crate::settings::{Context, Settings};

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
    let delimiter = match &args.delimiter {
        Some(text) => Some(crate::cli::parse_delimiter(text).map_err(Failure::usage)?),
        None => None,
    };
    let options = CsvOptions {
        delimiter,
        reference_column: args.reference_column.clone(),
        amount_column: args.amount_column.clone(),
        currency_column: args.currency_column.clone(),
        merchant_ref_column: args.merchant_ref_column.clone(),
        unit: args.amount_unit,
        currency: args.currency.trim().to_ascii_uppercase(),
    };
    let resumable = matches!(args.format(), OutputFormat::Jsonl | OutputFormat::Csv);
    if args.resume.is_some() && !resumable {
        return Err(Failure::usage(
            "--resume needs -o jsonl or -o csv, the format of the earlier run's output".to_owned(),
        ));
    }
    // The summary file and the orders file are checked before any request; the summary
    // file is never truncated here (it may be the orders file itself: that is refused).
    let mut summary_file = match &args.summary_json {
        Some(path) => Some(SummaryFile::prepare(path, &args.file)?),
        None => None,
    };
    let orders = Orders::open(&args.file, &options)?;
    for warning in orders.warnings() {
        log.warn(warning);
    }
    let known_len = rows_in(&args.file);
    let Service {
        verifier,
        interrupt,
        halt,
        sandbox: _sandbox,
        wait,
    } = Service::connect(global, &args.batch, &args.profile_args, log, ctx)?;

    let (header, reference_column) = (orders.header(), orders.reference_column());
    let index = match &args.resume {
        Some(path) => {
            refuse_own_output(path)?;
            let trust = Trust {
                // Each row's own expectations are checked when its turn comes.
                expect: Default::default(),
                secret: Some(verifier.secret.clone()),
            };
            let shape = record_shape(&header, reference_column);
            Some(ResumeIndex::open(path, args.format(), &shape, &trust, log)?)
        }
        None => None,
    };
    let lines_of = orders.reference_lines();
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
            .sealed(Sealer::new(&verifier.secret))
        }
    }
    .with_reference_lines(lines_of);
    let batch = Batch {
        jobs: usize::from(args.batch.jobs),
        known_len,
        stop: interrupt.flag(),
        halt,
        wait,
        resume_hint: resumable.then(|| resume_command(args.format())),
    };
    let verifier = Arc::new(verifier);
    let mut exit = match index {
        Some(index) => batch.run(
            verifier,
            Resuming::new(Rows(orders), index),
            &mut writer,
            log,
        )?,
        None => batch.run(verifier, Rows(orders), &mut writer, log)?,
    };

    if writer.not_shown() > 0 {
        log.warn(&format!(
            "{} more rows not shown: the table lists the first {TABLE_ROWS} rows that need a \
             look; -o csv (or jsonl) lists every row",
            writer.not_shown()
        ));
    }
    let summary = writer.summary();
    if summary.incomplete() && exit != Exit::Interrupted {
        log.error(&format!(
            "output closed: the rows after the first {} were not reconciled, so this run \
             proves nothing about them (exit 10); rerun with the output going to a file",
            summary.rows()
        ));
    }
    if summary.rows() > 0 && log.level() != Level::Quiet {
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
        let text = format!("payverify: {title}\n{}\n", summary.table(style));
        // A closed stderr is not worth failing a reconciliation for.
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }
    if let Some(file) = summary_file.take() {
        let mut text = serde_json::to_string_pretty(&summary.json(exit)).unwrap_or_default();
        text.push('\n');
        if let Err(e) = file.commit(&text) {
            log.error(&e);
            exit = exit.merge(Exit::Internal);
        }
    }
    Ok(exit)
}

/// What reconcile's records look like for a file with `header`, for `--resume`.
fn record_shape(header: &[String], reference_column: usize) -> Shape {
    Shape {
        command: "payverify reconcile",
        columns: header
            .iter()
            .cloned()
            .chain(RESULT_COLUMNS.map(str::to_owned))
            .collect(),
        json_only: &["line", "row", "response", "seal"],
        outcome: "result",
        exit_code: false,
        outcomes: &RESULT_EXITS,
        is_final: RowResult::is_carried,
        row: Some(RowShape {
            keys: row_keys(header),
            reference: reference_column,
            matched: RowResult::Matched.name(),
            unkeyed: &["DUPLICATE", "INVALID_ROW"],
            classify: |verdict, expect| classify(verdict, expect).name(),
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

/// The `--summary-json` file: checked at the start without touching it, written whole at
/// the end (a temporary file beside it, renamed over it), so a run that stops early, or a
/// path that is the orders file, never destroys anything.
struct SummaryFile {
    /// What the user named, for messages.
    shown: PathBuf,
    /// Where the summary goes (symlinks followed).
    target: PathBuf,
    /// The temporary file beside the target, or, for something other than a regular file
    /// (`/dev/stdout`, a FIFO), the target itself, opened without truncating.
    temp: Option<PathBuf>,
    file: Option<File>,
}

impl SummaryFile {
    /// Refuses `-` (stdout carries the rows), a directory and the orders file itself
    /// (same device and inode, also through stdin); creates the temporary file, which
    /// proves the target's directory is writable.
    fn prepare(path: &Path, input: &Path) -> Result<SummaryFile, Failure> {
        let shown = path.to_path_buf();
        let refuse = |why: String| {
            Failure::usage(format!(
                "cannot write --summary-json {}: {why}",
                path.display()
            ))
        };
        if path.as_os_str() == "-" {
            return Err(refuse(
                "stdout carries the rows; give a file name (or /dev/stderr)".into(),
            ));
        }
        if let Some(why) = stdout_named(path) {
            return Err(refuse(why.into()));
        }
        let existing = std::fs::metadata(path).ok();
        if let (Some(a), Some(b)) = (&existing, &stdout_meta())
            && same_file(a, b)
            && !io::stdout().is_terminal()
        {
            return Err(refuse(
                "it is where stdout goes, which carries the rows; give another file name \
                 (or /dev/stderr)"
                    .into(),
            ));
        }
        if existing.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(refuse("it is a directory".into()));
        }
        let input_meta = match input.as_os_str() == "-" {
            true => std::fs::metadata("/dev/stdin").ok(),
            false => std::fs::metadata(input).ok(),
        };
        if let (Some(a), Some(b)) = (&existing, &input_meta)
            && same_file(a, b)
        {
            return Err(refuse(
                "it is the orders file being reconciled; give another file name".into(),
            ));
        }
        let io_refuse = |e: io::Error| refuse(crate::io_util::io_reason(&e));
        match existing {
            Some(meta) if !meta.is_file() => {
                // A device or a pipe: written in place, never truncated or replaced.
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(io_refuse)?;
                Ok(SummaryFile {
                    shown,
                    target: path.to_path_buf(),
                    temp: None,
                    file: Some(file),
                })
            }
            _ => {
                // Through a symlink (even one to a file not made yet), so the link stays.
                let target =
                    std::fs::canonicalize(path).unwrap_or_else(|_| {
                        match std::fs::read_link(path) {
                            Ok(to) => path.parent().map_or(to.clone(), |dir| dir.join(&to)),
                            Err(_) => path.to_path_buf(),
                        }
                    });
                let name = target
                    .file_name()
                    .ok_or_else(|| refuse("it names no file".into()))?;
                let mut temp_name = std::ffi::OsString::from(".");
                temp_name.push(name);
                temp_name.push(format!(".payverify-{}.tmp", std::process::id()));
                let temp = target.with_file_name(temp_name);
                let file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&temp)
                    .map_err(io_refuse)?;
                Ok(SummaryFile {
                    shown,
                    target,
                    temp: Some(temp),
                    file: Some(file),
                })
            }
        }
    }

    /// Writes `text` and puts it in place; the error line when that fails.
    fn commit(mut self, text: &str) -> Result<(), String> {
        let written = match self.file.take() {
            Some(mut file) => file
                .write_all(text.as_bytes())
                .and_then(|()| file.flush())
                .and_then(|()| match &self.temp {
                    Some(temp) => std::fs::rename(temp, &self.target),
                    None => Ok(()),
                }),
            None => Ok(()),
        };
        match written {
            Ok(()) => {
                self.temp = None;
                Ok(())
            }
            Err(e) => Err(format!(
                "cannot write --summary-json {}: {}",
                self.shown.display(),
                crate::io_util::io_reason(&e)
            )),
        }
    }
}

impl Drop for SummaryFile {
    /// A run that ends before the summary is written leaves no temporary file behind.
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Why `path` is refused when it, or a link on the way to its target, names this
/// process's stdout itself (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`): whatever fd 1
/// is, even a terminal, the summary would land in the rows (or replace them).
fn stdout_named(path: &Path) -> Option<&'static str> {
    let own = PathBuf::from(format!("/proc/{}/fd/1", std::process::id()));
    let mut hop = path.to_path_buf();
    // Bounded as the kernel bounds a chain of links.
    for _ in 0..40 {
        // The directory resolved (`/dev/fd` and `/proc/self` are links), the name kept:
        // resolving `/proc/self/fd/1` itself would give the terminal or pipe behind it.
        let dir = match hop.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let resolved = match (std::fs::canonicalize(&dir), hop.file_name()) {
            (Ok(dir), Some(name)) => dir.join(name),
            _ => hop.clone(),
        };
        if resolved == own || resolved == Path::new("/dev/stdout") {
            return Some("it is stdout, which carries the rows; give a file name (or /dev/stderr)");
        }
        match std::fs::read_link(&resolved) {
            Ok(to) => hop = dir.join(to),
            Err(_) => return None,
        }
    }
    None
}
