//! Output on stdout: one printer owns the sink and the terminal and colour decisions.

pub(crate) mod batch_table;
pub(crate) mod csv;
pub(crate) mod reconcile;
pub(crate) mod records;
pub(crate) mod sink;
pub(crate) mod state;
pub(crate) mod table;
pub(crate) mod totals;
pub(crate) mod writer;
pub(crate) mod xlsx;

use std::io::{self, IsTerminal, Write};

use clap::ValueEnum;
use comfy_table::{ContentArrangement, Table, presets};

use crate::domain::checks::Integrity;
use crate::domain::model::Verification;
use crate::exit::{Cause, Exit, Failure};
use crate::settings::EnvLookup;
pub(crate) use sink::Sink;

/// Whether output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// How a result is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// A field/value table for people.
    Table,
    /// The service's JSON object exactly as received, pretty-printed (several references:
    /// one array of records).
    Json,
    /// One JSON record per reference per line.
    Jsonl,
    /// A header row, then one row per reference (RFC 4180 quoting).
    Csv,
    /// An Excel workbook, to a file or pipe (not a terminal): a Summary sheet (the count
    /// per outcome), the records that need a look, every record; amounts as numbers in
    /// naira, dates as dates.
    Xlsx,
}

/// How output should look on the sink it goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Use ANSI colour.
    pub(crate) color: bool,
    /// The sink is a terminal: borders and wrapping to its width.
    pub(crate) tty: bool,
    /// The terminal's width in columns, when known (`COLUMNS` first, as shells set it).
    pub(crate) width: Option<u16>,
}

/// A closed pipe (`| head`) is the reader's choice, not an error; anything else is.
pub(crate) fn write_output(result: io::Result<()>) -> Result<(), Failure> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::new(
            Exit::Internal,
            format!("cannot write the output: {}", crate::io_util::io_reason(&e)),
        )
        .because(Cause::Output)),
        _ => Ok(()),
    }
}

/// A table styled for its sink: borders and wrapping to the width on a terminal; aligned
/// columns without borders elsewhere, easy for grep and awk.
pub(crate) fn new_table(style: Style) -> Table {
    let mut table = Table::new();
    if style.tty {
        table.load_style(presets::UTF8_FULL_CONDENSED);
        // Wrapped to the width found, never to one the table would ask the terminal for
        // itself (0 columns wrapped every value one character a line); of unknown width,
        // not wrapped at all, as off a terminal.
        match style.width {
            Some(width) => table
                .set_width(width)
                .set_content_arrangement(ContentArrangement::Dynamic),
            None => table.set_content_arrangement(ContentArrangement::Disabled),
        };
    } else {
        table.load_style(presets::NOTHING).force_no_tty();
    }
    if style.color {
        table.enforce_styling();
    }
    table
}

/// A table from [`new_table`] as text, without a trailing newline; off a terminal the cell
/// padding around each line is removed.
pub(crate) fn table_text(table: &Table, style: Style) -> String {
    if style.tty {
        return table.to_string();
    }
    table
        .lines()
        .map(|l| l.strip_prefix(' ').unwrap_or(&l).trim_end().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

impl Style {
    /// No colour, not a terminal.
    pub(crate) const PLAIN: Style = Style {
        color: false,
        tty: false,
        width: None,
    };
}

/// The width of the terminal on stdout: `COLUMNS` when it is a positive number (so a user
/// or a test can set it), else what the terminal reports when that is positive (a
/// terminal can say 0 columns: `stty cols 0`, a serial console); `None`: unknown.
pub(crate) fn terminal_width(env: EnvLookup) -> Option<u16> {
    env("COLUMNS")
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c > 0)
        .or_else(|| Table::new().width().filter(|&c| c > 0))
}

/// Decides colour: `--color` first, then NO_COLOR / CLICOLOR_FORCE, then whether stdout is
/// a terminal (and not TERM=dumb).
pub(crate) fn decide_color(choice: ColorChoice, tty: bool, env: EnvLookup) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty() && v != "0");
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR") => false,
        ColorChoice::Auto if set("CLICOLOR_FORCE") => true,
        ColorChoice::Auto => tty && env("TERM").as_deref() != Some("dumb"),
    }
}

/// Whether stdout was closed when the process started.
///
/// Rust's runtime reopens a closed fd 1 on `/dev/null` (read-write) before `main`, and
/// writes to it then succeed: output lost without a trace. A shell's `>/dev/null` opens it
/// write-only, so a read-write `/dev/null` on fd 1 is the runtime's stand-in. (Asked of the
/// descriptor itself, so it holds on macOS as on Linux.)
#[cfg(unix)]
pub(crate) fn stdout_was_closed() -> bool {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stdout = io::stdout();
    let Ok(flags) = fcntl(stdout.as_fd(), FcntlArg::F_GETFL) else {
        return false;
    };
    if OFlag::from_bits_truncate(flags) & OFlag::O_ACCMODE != OFlag::O_RDWR {
        return false;
    }
    let Ok(fd) = stdout.as_fd().try_clone_to_owned() else {
        return false;
    };
    match (
        std::fs::File::from(fd).metadata(),
        std::fs::metadata("/dev/null"),
    ) {
        (Ok(out), Ok(null)) => out.dev() == null.dev() && out.ino() == null.ino(),
        _ => false,
    }
}

/// Whether stdout was closed when the process started.
///
/// A Windows process started without a stdout handle (`>&-` in cmd, or by a scheduler
/// with no console) has none, and Rust's stdout then drops every write as if it had
/// succeeded: output lost without a trace.
#[cfg(windows)]
pub(crate) fn stdout_was_closed() -> bool {
    use std::os::windows::io::AsRawHandle;
    let handle = io::stdout().as_raw_handle();
    // INVALID_HANDLE_VALUE is -1.
    handle.is_null() || handle.addr() == usize::MAX
}

/// Stands in for a stdout that cannot take any output: every write fails, saying why.
struct ClosedStdout(&'static str);

impl Write for ClosedStdout {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other(self.0))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether fd 1 was opened for reading only (`1<FILE`, `1</dev/null`): every write fails
/// with EBADF, which std's stdout reports as written.
#[cfg(unix)]
fn stdout_read_only() -> bool {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsFd;
    fcntl(io::stdout().as_fd(), FcntlArg::F_GETFL)
        .is_ok_and(|flags| OFlag::from_bits_truncate(flags) & OFlag::O_ACCMODE == OFlag::O_RDONLY)
}

/// The process's stdout as a writer that reports every error. std's stdout reports a
/// write that fails with EBADF (a descriptor closed, or open for reading only) as done,
/// so the output would be lost without a trace and the run end 0: writes go through a
/// duplicate of fd 1 instead, which says so. Each write the sink makes is whole, so no
/// buffer is needed.
#[cfg(unix)]
pub(crate) fn stdout_writer() -> Box<dyn Write + Send> {
    use std::os::fd::AsFd;
    if stdout_was_closed() {
        return Box::new(ClosedStdout("stdout is closed"));
    }
    if stdout_read_only() {
        return Box::new(ClosedStdout(
            "stdout is open for reading only (1<FILE): send the output to a file with >",
        ));
    }
    match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(ClosedStdout("stdout is closed")),
    }
}

/// The process's stdout, or a stand-in that fails every write when it was closed at start.
#[cfg(windows)]
pub(crate) fn stdout_writer() -> Box<dyn Write + Send> {
    match stdout_was_closed() {
        true => Box::new(ClosedStdout("stdout is closed")),
        false => Box::new(io::stdout()),
    }
}

/// The one writer of stdout.
pub(crate) struct Printer {
    out: Sink,
    style: Style,
}

impl Printer {
    /// A printer on the process's stdout. A stdout that was closed when payverify started
    /// (`>&-`) fails every write, so the output is never silently lost (exit 10).
    pub(crate) fn stdout(choice: ColorChoice, env: EnvLookup) -> Self {
        let tty = io::stdout().is_terminal();
        let style = Style {
            color: decide_color(choice, tty, env),
            tty,
            width: tty.then(|| terminal_width(env)).flatten(),
        };
        Printer {
            out: Sink::closed_on_hurried_exit(stdout_writer()),
            style,
        }
    }

    /// A printer on any writer. What it is given to write is already clean: text outputs
    /// pass each value through [`crate::terminal::scrub`], JSON outputs redact values before
    /// serialising and escape with [`crate::terminal::json_text`]. Nothing here rewrites the
    /// bytes, so every format stays valid.
    pub(crate) fn new(out: Box<dyn Write + Send>, style: Style) -> Self {
        Printer {
            out: Sink::new(out),
            style,
        }
    }

    /// A printer on stdout for output that is never coloured (scripts, roff, help). A
    /// stdout closed at start fails every write, as for [`Printer::stdout`].
    pub(crate) fn plain_stdout() -> Self {
        Printer::new(stdout_writer(), Style::PLAIN)
    }

    /// How its output looks.
    pub(crate) fn style(&self) -> Style {
        self.style
    }

    /// Turns the printer into a writer of batch records.
    pub(crate) fn into_records(self, format: OutputFormat) -> records::RecordWriter {
        records::RecordWriter::new(self.out, format, self.style, records::VerifyView)
    }

    /// The sink and its style, for a writer of its own (reconcile's rows).
    pub(crate) fn into_parts(self) -> (Sink, Style) {
        (self.out, self.style)
    }

    /// Writes text as it is, for commands with their own small outputs.
    pub(crate) fn text(&mut self, text: &str) -> io::Result<()> {
        self.bytes(text.as_bytes())
    }

    /// Writes bytes as they are.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write(bytes, None)
    }

    /// Prints the service's answer for one reference: a field/value table, or its JSON
    /// object as received, pretty-printed (a record format makes one reference a batch).
    pub(crate) fn answer(
        &mut self,
        v: &Verification,
        integrity: Option<&Integrity>,
        table: bool,
    ) -> io::Result<()> {
        let mut text = match table {
            true => table::verification(v, integrity, self.style),
            false => crate::terminal::json_text(
                serde_json::to_string_pretty(&v.raw).map_err(io::Error::other)?,
            ),
        };
        text.push('\n');
        self.out.write(text.as_bytes(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_decision() {
        let none = |_: &str| None;
        let no_color = |k: &str| (k == "NO_COLOR").then(|| "1".to_string());
        let force = |k: &str| (k == "CLICOLOR_FORCE").then(|| "1".to_string());
        let dumb = |k: &str| (k == "TERM").then(|| "dumb".to_string());
        assert!(decide_color(ColorChoice::Auto, true, &none));
        assert!(!decide_color(ColorChoice::Auto, false, &none));
        assert!(!decide_color(ColorChoice::Auto, true, &no_color));
        assert!(!decide_color(ColorChoice::Auto, true, &dumb));
        assert!(decide_color(ColorChoice::Auto, false, &force));
        assert!(decide_color(ColorChoice::Always, false, &no_color));
        assert!(!decide_color(ColorChoice::Never, true, &force));
    }
}
