//! The one writer frame of a batch's records, for every command: the CSV header, the JSON
//! array's brackets and separators, the seal of each jsonl/json record, the table kept to
//! the end, the workbook written at the end, the `--state` file, and `-q`'s writer of
//! nothing. What a record looks like in each format is its
//! command's [`View`] (verify's in `records.rs`, reconcile's in `reconcile.rs`).

use std::collections::BTreeMap;
use std::io;

use crate::domain::seal::Sealer;
use crate::exit::Exit;
use crate::log::Log;
use crate::render::state::StateLog;
use crate::render::xlsx::{Book, Ending, XlsxCell};
use crate::render::{OutputFormat, Sink, Style, csv};

/// One command's record in each output format.
pub(crate) trait View {
    /// The record.
    type Record;
    /// The most rows the table keeps (it is laid out at the end, so it holds its rows).
    const TABLE_ROWS: usize = usize::MAX;
    /// The CSV header's names.
    fn csv_header(&self) -> Vec<String>;
    /// The record's CSV cells, in header order, before formula defusing.
    fn csv_cells(&self, record: &Self::Record) -> Vec<String>;
    /// How many of the first CSV cells are the input file's own, written as their text
    /// (line breaks kept) where the output is not a terminal.
    fn csv_input_cells(&self) -> usize {
        0
    }
    /// The record as one JSON object (values redacted, text escaped), without its seal.
    fn json(&self, record: &Self::Record) -> String;
    /// The record's table row, made safe for a terminal; `None` when the table leaves it
    /// out.
    fn table_row(&self, record: &Self::Record) -> Option<Vec<String>>;
    /// The table of `rows`, without a trailing newline.
    fn table(&self, rows: &[Vec<String>], style: Style) -> String;
    /// The reference the record is about, which the `--state` file keys it by.
    fn key<'a>(&self, record: &'a Self::Record) -> &'a str;
    /// The names of the workbook's row sheets' columns.
    fn xlsx_header(&self) -> Vec<String>;
    /// The record's cells in the workbook, in header order, typed (text stays text).
    fn xlsx_cells(&self, record: &Self::Record) -> Vec<XlsxCell>;
    /// Whether the record goes on the workbook's sheet of rows that need a look.
    fn needs_look(&self, record: &Self::Record) -> bool;
    /// The outcome or result the record came to, which the workbook counts.
    fn name(&self, record: &Self::Record) -> &'static str;
}

/// What ends a JSON array that has no element yet, and one that has.
pub(crate) const CLOSE_EMPTY: &str = "]\n";
/// An `-o json` output stopped before it began: still one (empty) array.
pub(crate) const EMPTY_ARRAY: &str = "[]\n";
pub(crate) const CLOSE: &str = "\n]\n";

/// Writes records as they come, in the chosen format; line formats are flushed at once
/// so a reader sees each.
pub(crate) struct Writer<V> {
    out: Sink,
    format: OutputFormat,
    style: Style,
    view: V,
    written: usize,
    /// Formats nothing and keeps nothing: for `-q`, where formatting every record only to
    /// throw it away was a tenth of a batch's CPU (and a table kept every row).
    discard: bool,
    /// Seals each jsonl/json record, so `--resume` can tell it from an edited copy.
    sealer: Option<Sealer>,
    /// `--state`: where every record is kept, sealed, whatever the format.
    state: Option<StateLog>,
    /// `-o csv` starts with a UTF-8 byte-order mark, so Excel on Windows reads the naira
    /// sign as UTF-8.
    bom: bool,
    /// The table's rows, kept until the end to lay it out: at most [`View::TABLE_ROWS`].
    table_rows: Vec<Vec<String>>,
    /// Rows the table would list beyond [`View::TABLE_ROWS`]: counted, not kept.
    not_shown: u64,
    /// What comes before the first record (a CSV header, a JSON `[`) is written with it,
    /// or with the end, so a run that has nothing to verify (a usage error) leaves stdout
    /// empty.
    begun: bool,
    /// `-o xlsx`: the workbook, its rows written as they come, put on stdout only when
    /// the run has ended ([`Writer::save_workbook`]).
    book: Option<Book>,
    /// How many records came to each outcome or result, for the workbook's Summary.
    counts: BTreeMap<&'static str, u64>,
    /// `Some` when the run ended before every position of its input was decided, with how
    /// many never were when known ([`Writer::stopped_short`]).
    short: Option<Option<usize>>,
}

impl<V: View> Writer<V> {
    /// A writer on `out`.
    pub(crate) fn new(out: Sink, format: OutputFormat, style: Style, view: V) -> Self {
        if format == OutputFormat::Json {
            out.empty_document(EMPTY_ARRAY);
        }
        Writer {
            out,
            format,
            style,
            view,
            written: 0,
            discard: false,
            sealer: None,
            state: None,
            bom: false,
            table_rows: Vec::new(),
            not_shown: 0,
            begun: false,
            book: None,
            counts: BTreeMap::new(),
            short: None,
        }
    }

    /// A writer that writes nothing.
    pub(crate) fn discarding(view: V) -> Self {
        Writer {
            discard: true,
            ..Writer::new(
                Sink::new(Box::new(io::sink())),
                OutputFormat::Jsonl,
                Style::PLAIN,
                view,
            )
        }
    }

    /// The same writer, sealing each jsonl/json record with `sealer`.
    pub(crate) fn sealed(self, sealer: Sealer) -> Self {
        Writer {
            sealer: Some(sealer),
            ..self
        }
    }

    /// The same writer, keeping every record in `state` (`--state`).
    pub(crate) fn with_state(self, state: Option<StateLog>) -> Self {
        Writer { state, ..self }
    }

    /// Keeps `record` in the `--state` file, if there is one, and writes it when `write`:
    /// every record the exit status merges is kept, written to stdout or not.
    pub(crate) fn take(&mut self, record: &V::Record, write: bool) -> io::Result<()> {
        if self.state.is_some() {
            let text = self.sealed_json(record);
            let key = self.view.key(record);
            self.state
                .iter_mut()
                .for_each(|state| state.append(key, &text));
        }
        match write {
            true => self.write(record),
            false => Ok(()),
        }
    }

    /// The run ended, stopped part way or not: the `--state` file gets the earlier records
    /// it did not write and is put in place ([`StateLog::end`]).
    pub(crate) fn end_state(&mut self) -> io::Result<()> {
        self.state.iter_mut().try_for_each(StateLog::end)
    }

    /// Told that the run ended before every position of its input was decided (with how
    /// many never were, when known): the `--state` file gets the earlier records it did
    /// not write, and the workbook will say it is incomplete.
    pub(crate) fn stopped_short(&mut self, not_reached: Option<usize>) -> io::Result<()> {
        self.short = Some(not_reached);
        self.end_state()
    }

    /// The same writer, its CSV output starting with a UTF-8 byte-order mark when `bom`.
    pub(crate) fn with_bom(self, bom: bool) -> Self {
        Writer { bom, ..self }
    }

    /// Rows the table did not list because it already had [`View::TABLE_ROWS`].
    pub(crate) fn not_shown(&self) -> u64 {
        self.not_shown
    }

    /// Makes the output ready for a record or its end: what comes before the first record
    /// (the CSV header, JSON `[`) written once, the `--state` file checked. Whether stdout
    /// takes anything (not under `-q`).
    fn ready(&mut self) -> io::Result<bool> {
        if !self.discard && !std::mem::replace(&mut self.begun, true) {
            self.begin()?;
        }
        self.state.iter_mut().try_for_each(StateLog::check)?;
        Ok(!self.discard)
    }

    /// Writes what comes before the first record.
    fn begin(&mut self) -> io::Result<()> {
        match self.format {
            OutputFormat::Csv => {
                let mut text = match self.bom {
                    true => String::from('\u{feff}'),
                    false => String::new(),
                };
                text.push_str(&csv::row(&self.view.csv_header()));
                self.out.write(text.as_bytes(), None)
            }
            OutputFormat::Json => self.out.write(b"[", Some(CLOSE_EMPTY)),
            OutputFormat::Xlsx => {
                self.book = Some(Book::new(&self.view.xlsx_header())?);
                Ok(())
            }
            OutputFormat::Jsonl | OutputFormat::Table => Ok(()),
        }
    }

    /// Writes one record.
    fn write(&mut self, record: &V::Record) -> io::Result<()> {
        if !self.ready()? {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => {
                // A terminal sees every cell escaped, the input's line breaks too.
                let input = match self.style.tty {
                    true => 0,
                    false => self.view.csv_input_cells(),
                };
                let row = csv::row_keeping(&self.view.csv_cells(record), input);
                self.element(&row)
            }
            OutputFormat::Jsonl => {
                let mut line = self.sealed_json(record);
                line.push('\n');
                self.element(&line)
            }
            OutputFormat::Json => {
                let text = self.sealed_json(record);
                self.element(&text)
            }
            OutputFormat::Table => {
                if let Some(row) = self.view.table_row(record) {
                    match self.table_rows.len() < V::TABLE_ROWS {
                        true => self.table_rows.push(row),
                        false => self.not_shown += 1,
                    }
                }
                self.written += 1;
                Ok(())
            }
            OutputFormat::Xlsx => {
                let cells = self.view.xlsx_cells(record);
                let looks = self.view.needs_look(record);
                if let Some(book) = &mut self.book {
                    book.push(&cells, looks)?;
                }
                *self.counts.entry(self.view.name(record)).or_default() += 1;
                self.written += 1;
                Ok(())
            }
        }
    }

    /// Writes what comes after the last record (JSON `]`, the table), and before it what
    /// comes before the first when there was none.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.end_state()?;
        if !self.ready()? {
            return Ok(());
        }
        match self.format {
            OutputFormat::Json => {
                let close = match self.written {
                    0 => CLOSE_EMPTY,
                    _ => CLOSE,
                };
                self.out.write(close.as_bytes(), None)
            }
            // No rows, no table: a header alone reads like a result.
            OutputFormat::Table if self.table_rows.is_empty() => Ok(()),
            OutputFormat::Table => {
                let mut text = self.view.table(&self.table_rows, self.style);
                self.table_rows.clear();
                text.push('\n');
                self.out.write(text.as_bytes(), None)
            }
            // The workbook is finished by the command, once the run's Summary is known.
            OutputFormat::Jsonl | OutputFormat::Csv | OutputFormat::Xlsx => Ok(()),
        }
    }

    /// How many records the workbook holds for each outcome or result name.
    pub(crate) fn counts(&self) -> &BTreeMap<&'static str, u64> {
        &self.counts
    }

    /// `-o xlsx`, once the run has ended with `exit`: the workbook with its Summary sheet
    /// (`summary`'s rows) on stdout, or a line on stderr saying why it could not be
    /// written there; the exit status then is at least 10, as for any output its reader
    /// did not get whole. A workbook written after a signal, or for a run that did not
    /// decide every position of its input, says in its Summary that it is incomplete.
    pub(crate) fn end_workbook(
        &mut self,
        summary: &[Vec<XlsxCell>],
        exit: Exit,
        log: &Log,
    ) -> Exit {
        let ending = Ending {
            complete: self.short.is_none() && exit != Exit::Interrupted,
            not_reached: self.short.flatten().map(|n| n as u64),
            exit,
        };
        match self.save_workbook(summary, ending) {
            Ok(()) => exit,
            Err(e) => {
                log.error(&match e.kind() {
                    io::ErrorKind::BrokenPipe => "output closed before the workbook was \
                                                  written whole, so its reader did not get \
                                                  it (exit 10)"
                        .to_owned(),
                    _ => format!(
                        "cannot write the output: {} (exit 10)",
                        crate::io_util::io_reason(&e)
                    ),
                });
                exit.merge(Exit::Internal)
            }
        }
    }

    /// `-o xlsx`: finishes the workbook with its Summary sheet (`summary`'s rows under a
    /// line saying how the run ended) and writes it to stdout whole. Nothing is written
    /// when no workbook was begun (a run that decided nothing, `-q` without `-o`, another
    /// format) or one of its rows could not be written.
    fn save_workbook(&mut self, summary: &[Vec<XlsxCell>], ending: Ending) -> io::Result<()> {
        match self.book.take() {
            Some(book) => book.save(summary, ending, &self.out),
            None => Ok(()),
        }
    }

    /// A record as one JSON object, sealed when this writer seals.
    fn sealed_json(&self, record: &V::Record) -> String {
        let text = self.view.json(record);
        match &self.sealer {
            Some(sealer) => sealer.seal_owned(text),
            None => text,
        }
    }

    /// Writes one whole element of the output, after `written` others: for `-o json` one
    /// array element with its separator, after which the array still needs its `]` (what
    /// a hurried exit writes); for the line formats, the line.
    fn element(&mut self, text: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Json => {
                let sep = if self.written == 0 { "\n  " } else { ",\n  " };
                self.out
                    .write(format!("{sep}{text}").as_bytes(), Some(CLOSE))?
            }
            _ => self.out.write(text.as_bytes(), None)?,
        }
        self.written += 1;
        Ok(())
    }
}
