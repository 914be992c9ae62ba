//! Output on stdout: one printer owns the sink and the terminal and colour decisions.

pub mod csv;
pub mod json;
pub mod records;
pub mod table;

use std::io::{self, IsTerminal, Write};

use crate::checks::Integrity;
use crate::cli::{ColorChoice, OutputFormat};
use crate::exit::{Exit, Failure};
use crate::model::Verification;
use crate::settings::EnvLookup;

/// How output should look on the sink it goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Use ANSI colour.
    pub color: bool,
    /// The sink is a terminal: borders and wrapping to its width.
    pub tty: bool,
}

/// A closed pipe (`| head`) is the reader's choice, not an error; anything else is.
pub fn write_output(result: io::Result<()>) -> Result<(), Failure> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::new(
            Exit::Internal,
            format!("cannot write the output: {}", crate::config::io_reason(&e)),
        )),
        _ => Ok(()),
    }
}

impl Style {
    /// No colour, not a terminal.
    pub const PLAIN: Style = Style {
        color: false,
        tty: false,
    };
}

/// Decides colour: `--color` first, then NO_COLOR / CLICOLOR_FORCE, then whether stdout is
/// a terminal (and not TERM=dumb).
pub fn decide_color(choice: ColorChoice, tty: bool, env: EnvLookup) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty() && v != "0");
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR") => false,
        ColorChoice::Auto if set("CLICOLOR_FORCE") => true,
        ColorChoice::Auto => tty && env("TERM").as_deref() != Some("dumb"),
    }
}

/// The one writer of stdout.
pub struct Printer {
    out: Box<dyn Write + Send>,
    style: Style,
}

impl Printer {
    /// A printer on the process's stdout.
    pub fn stdout(choice: ColorChoice, env: EnvLookup) -> Self {
        let tty = io::stdout().is_terminal();
        let style = Style {
            color: decide_color(choice, tty, env),
            tty,
        };
        Printer {
            out: Box::new(io::stdout()),
            style,
        }
    }

    /// A printer on any writer, for tests.
    pub fn new(out: Box<dyn Write + Send>, style: Style) -> Self {
        Printer { out, style }
    }

    /// The style in use.
    pub fn style(&self) -> Style {
        self.style
    }

    /// Turns the printer into a writer of batch records.
    pub fn into_records(self, format: OutputFormat) -> records::RecordWriter {
        records::RecordWriter::new(self.out, format, self.style)
    }

    /// Writes text as it is, for commands with their own small outputs.
    pub fn text(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    /// Prints one verification result in `format`.
    pub fn verification(
        &mut self,
        v: &Verification,
        integrity: Option<&Integrity>,
        format: OutputFormat,
    ) -> io::Result<()> {
        let text = match format {
            OutputFormat::Table => table::verification(v, integrity, self.style),
            OutputFormat::Json | OutputFormat::Jsonl | OutputFormat::Csv => json::object(&v.raw)?,
        };
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
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
