//! `-o xlsx`: a batch's records as an Excel workbook on stdout. A Summary sheet first, then
//! the rows that need a look, then every row; money as numbers in naira, the service's
//! dates as dates, text always as text (a cell starting with `=` is never a formula).
//!
//! An xlsx file is a zip whose directory comes last, so nothing can be read until the
//! whole file is there: the two row sheets are written as the rows come, to temporary
//! files (rust_xlsxwriter's constant-memory mode: one row in memory per sheet), and the
//! workbook goes to stdout once, when the run has ended and its Summary (totals, whether
//! the run was complete) is known ([`Book::save`]).

mod cells;
pub(crate) mod summary;

use std::io::{self, BufWriter, IsTerminal, Write};

use rust_xlsxwriter::{Format, FormatAlign, Workbook, Worksheet, XlsxError};

pub(crate) use cells::XlsxCell;
use cells::{DATE_FORMAT, cell_text, major_units, service_date};

use crate::domain::money::naira_decimal_total;
use crate::exit::{Exit, Failure};
use crate::render::Sink;

/// The names of the sheets, in their order in the workbook.
pub(crate) const SUMMARY: &str = "Summary";
/// The Summary sheet's name when the run did not decide every row: seen on its tab from
/// any sheet, so a workbook cut short never reads as the whole run.
pub(crate) const SUMMARY_INCOMPLETE: &str = "Summary (INCOMPLETE)";
/// The sheet of the rows that need a look.
pub(crate) const LOOKS: &str = "Needs a look";
/// The sheet of every row.
pub(crate) const ALL: &str = "All rows";

/// The number format of naira amounts: the ₦ quoted, as a literal in Excel's format
/// grammar, so that every reader shows `₦40,000.50`.
pub(crate) const NAIRA_FORMAT: &str = "\"₦\"#,##0.00";
/// The number format of amounts in another currency (its code is in a column of its own).
pub(crate) const OTHER_FORMAT: &str = "#,##0.00";

/// The widest a column is fitted to, in characters: a note of a few hundred characters
/// should not push every other column off the screen.
const MAX_WIDTH: usize = 60;

/// Excel's rows per sheet, the header's included.
const MAX_ROWS: u32 = 1_048_576;

/// Refuses `-o xlsx` before anything is asked when the workbook could not go anywhere
/// useful: stdout a terminal (exit 2, saying where to send it).
pub(crate) fn check_stdout() -> Result<(), Failure> {
    if io::stdout().is_terminal() {
        return Err(Failure::usage(
            "-o xlsx writes a workbook, which a terminal cannot show: send it to a file \
             (> file.xlsx)",
        ));
    }
    Ok(())
}

/// The formats of a book's cells.
struct Formats {
    header: Format,
    naira: Format,
    other: Format,
    date: Format,
    text: Format,
}

impl Formats {
    fn new() -> Self {
        Formats {
            header: Format::new().set_bold(),
            naira: Format::new().set_num_format(NAIRA_FORMAT),
            other: Format::new().set_num_format(OTHER_FORMAT),
            date: Format::new()
                .set_num_format(DATE_FORMAT)
                .set_align(FormatAlign::Left),
            // A string cell under the "@" (text) format: typed over in Excel, it stays
            // text too.
            text: Format::new().set_num_format("@"),
        }
    }
}

/// One sheet of rows: where the next row goes and how wide each column is so far.
struct RowSheet {
    index: usize,
    next_row: u32,
    widths: Vec<usize>,
}

/// A workbook being written: the Summary sheet (filled at the end) and the two row sheets
/// (filled as rows come, in order).
pub(crate) struct Book {
    workbook: Workbook,
    formats: Formats,
    looks: RowSheet,
    all: RowSheet,
    columns: usize,
    /// A row could not be written (a full temporary directory): the workbook is not the
    /// run's, and is never put on stdout.
    failed: bool,
}

/// How the run that wrote a book ended, as its Summary sheet says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ending {
    /// Every row of the input was decided, and no signal stopped the run.
    pub(crate) complete: bool,
    /// How many rows were never decided, when known.
    pub(crate) not_reached: Option<u64>,
    /// The run's exit status.
    pub(crate) exit: Exit,
}

impl Book {
    /// A book whose row sheets have `header`; its temporary files are made here.
    pub(crate) fn new(header: &[String]) -> io::Result<Book> {
        temporary_files_can_be_made()?;
        let mut workbook = Workbook::new();
        workbook.add_worksheet().set_name(SUMMARY).map_err(error)?;
        let mut book = Book {
            formats: Formats::new(),
            looks: RowSheet {
                index: add_streamed(&mut workbook, LOOKS)?,
                next_row: 0,
                widths: vec![0; header.len()],
            },
            all: RowSheet {
                index: add_streamed(&mut workbook, ALL)?,
                next_row: 0,
                widths: vec![0; header.len()],
            },
            workbook,
            columns: header.len(),
            failed: false,
        };
        let header: Vec<XlsxCell> = header.iter().map(XlsxCell::text).collect();
        book.row(&header, true)
            .inspect_err(|_| book.failed = true)?;
        Ok(book)
    }

    /// Adds one record's row: to every row's sheet, and to the sheet of rows that need a
    /// look when `looks`.
    pub(crate) fn push(&mut self, cells: &[XlsxCell], looks: bool) -> io::Result<()> {
        self.row(cells, looks).inspect_err(|_| self.failed = true)
    }

    /// Writes `cells` as the next row of the every-row sheet, and of the looks sheet when
    /// `looks`.
    fn row(&mut self, cells: &[XlsxCell], looks: bool) -> io::Result<()> {
        let header = self.all.next_row == 0;
        for sheet in [Some(&mut self.all), looks.then_some(&mut self.looks)]
            .into_iter()
            .flatten()
        {
            if sheet.next_row >= MAX_ROWS {
                return Err(io::Error::other(format!(
                    "an xlsx sheet holds at most {} rows: use -o csv for more",
                    MAX_ROWS - 1
                )));
            }
            let worksheet = self
                .workbook
                .worksheet_from_index(sheet.index)
                .map_err(error)?;
            let format = header.then_some(&self.formats.header);
            write_row(worksheet, sheet.next_row, cells, &self.formats, format)?;
            for (width, cell) in sheet.widths.iter_mut().zip(cells) {
                *width = (*width).max(cell.shown_width());
            }
            sheet.next_row += 1;
        }
        Ok(())
    }

    /// Finishes the book (the Summary sheet's `summary` rows, which ends with a line
    /// saying how the run ended, the row sheets' frozen header, filter and widths) and
    /// writes it to `out` whole. A book whose rows could not all be written writes
    /// nothing: the run said why already.
    pub(crate) fn save(
        mut self,
        summary: &[Vec<XlsxCell>],
        ending: Ending,
        out: &Sink,
    ) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        let mut rows = status_rows(ending);
        rows.push(vec![]);
        rows.extend_from_slice(summary);
        let formats = &self.formats;
        let sheet = self.workbook.worksheet_from_index(0).map_err(error)?;
        if !ending.complete {
            sheet.set_name(SUMMARY_INCOMPLETE).map_err(error)?;
        }
        let mut widths = Vec::new();
        for (at, row) in rows.iter().enumerate() {
            let bold = (at == 0 || row.first().is_some_and(is_heading)).then_some(&formats.header);
            write_row(
                sheet,
                u32::try_from(at).unwrap_or(u32::MAX),
                row,
                formats,
                bold,
            )?;
            // The status is one long sentence, shown across the empty cells beside it:
            // fitted, it would make the column of figures under it far too wide.
            if at == 0 {
                continue;
            }
            widths.resize(widths.len().max(row.len()), 0);
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.shown_width());
            }
        }
        fit(sheet, &widths)?;
        sheet.set_active(true);
        for rows in [&self.looks, &self.all] {
            let sheet = self
                .workbook
                .worksheet_from_index(rows.index)
                .map_err(error)?;
            let last_col = u16::try_from(self.columns.saturating_sub(1)).unwrap_or(u16::MAX);
            sheet.set_freeze_panes(1, 0).map_err(error)?;
            sheet
                .autofilter(0, 0, rows.next_row.saturating_sub(1), last_col)
                .map_err(error)?;
            fit(sheet, &rows.widths)?;
        }
        // The zip is made whole in memory (its compressed size, a few MB for 100,000 rows)
        // and then written: written straight to stdout, a reader that leaves made the zip
        // crate print its own line on stderr as it was dropped.
        let bytes = self.workbook.save_to_buffer().map_err(error)?;
        let mut out = BufWriter::with_capacity(64 * 1024, SinkWriter(out.clone()));
        out.write_all(&bytes)?;
        out.flush()
    }
}

/// Whether a Summary row is a table's header (its first cell names the first column).
fn is_heading(cell: &XlsxCell) -> bool {
    matches!(cell, XlsxCell::Text(t) if t == summary::RESULT_HEADING || t == summary::OUTCOME_HEADING)
}

/// The Summary's first rows: whether the run decided every row, and its exit status.
fn status_rows(ending: Ending) -> Vec<Vec<XlsxCell>> {
    let status = match (ending.complete, ending.not_reached) {
        // Lines the input could not give as a reference or a row are in no sheet: only
        // stderr names them, and the exit status (2) says so.
        (true, _) if ending.exit == Exit::Usage => "complete, but the input has lines or rows \
            that could not be read as one (exit 2; stderr names them, and a line that is no \
            reference is in no sheet)"
            .to_owned(),
        (true, _) => "complete: every row of the input was decided".to_owned(),
        (false, Some(n)) => format!(
            "INCOMPLETE: the run stopped before every row was decided ({n} never were); \
             these sheets hold only the rows decided before it stopped"
        ),
        (false, None) => "INCOMPLETE: the run stopped before every row was decided; these \
                          sheets hold only the rows decided before it stopped"
            .to_owned(),
    };
    vec![
        vec![XlsxCell::text("Run"), XlsxCell::Text(status)],
        vec![
            XlsxCell::text("Exit status"),
            XlsxCell::Integer(i64::from(ending.exit.code())),
        ],
    ]
}

/// Fails, saying where, when no temporary file can be made in the temporary directory
/// (`TMPDIR`): rust_xlsxwriter makes one for each sheet and panics when it cannot.
fn temporary_files_can_be_made() -> io::Result<()> {
    let dir = std::env::temp_dir();
    let probe = dir.join(format!(".payverify-xlsx-{}.tmp", std::process::id()));
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe);
    match made {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!(
                "cannot make the workbook's temporary files in {} (set TMPDIR): {}",
                dir.display(),
                crate::io_util::io_reason(&e)
            ),
        )),
    }
}

/// A sheet written row by row to a temporary file (constant memory), named `name`.
fn add_streamed(workbook: &mut Workbook, name: &str) -> io::Result<usize> {
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.set_name(name).map_err(error)?;
    Ok(workbook.worksheets().len() - 1)
}

/// Writes one row's cells; `format` (the header's) over every text cell when given.
fn write_row(
    sheet: &mut Worksheet,
    row: u32,
    cells: &[XlsxCell],
    formats: &Formats,
    format: Option<&Format>,
) -> io::Result<()> {
    for (col, cell) in cells.iter().enumerate() {
        let col = u16::try_from(col)
            .map_err(|_| io::Error::other("an xlsx sheet holds at most 16384 columns"))?;
        let text = |sheet: &mut Worksheet, text: &str| {
            let f = format.unwrap_or(&formats.text);
            sheet
                .write_string_with_format(row, col, cell_text(text), f)
                .map(|_| ())
        };
        match cell {
            XlsxCell::Empty => Ok(()),
            // Text is only ever a string cell: never write_formula, nor a write that
            // guesses the type from the text.
            XlsxCell::Text(t) => text(sheet, t),
            // Whole numbers from payverify itself (exit codes, counts, kobo): below 2^53
            // in every case that reaches here; a larger one would show rounded, so it is
            // text.
            #[allow(clippy::cast_precision_loss)]
            XlsxCell::Integer(n) if n.unsigned_abs() < 1 << 53 => {
                sheet.write_number(row, col, *n as f64).map(|_| ())
            }
            XlsxCell::Integer(n) => text(sheet, &n.to_string()),
            XlsxCell::Money { minor, naira } => match major_units(*minor) {
                Some(value) => {
                    let f = match naira {
                        true => &formats.naira,
                        false => &formats.other,
                    };
                    sheet
                        .write_number_with_format(row, col, value, f)
                        .map(|_| ())
                }
                None => text(sheet, &naira_decimal_total(*minor)),
            },
            XlsxCell::Date(t) => match service_date(t) {
                Some(date) => sheet
                    .write_datetime_with_format(row, col, date, &formats.date)
                    .map(|_| ()),
                None => text(sheet, t),
            },
        }
        .map_err(error)?;
    }
    Ok(())
}

/// Sets each column's width to its widest cell (in characters, with a margin), at most
/// [`MAX_WIDTH`].
fn fit(sheet: &mut Worksheet, widths: &[usize]) -> io::Result<()> {
    for (col, &width) in widths.iter().enumerate() {
        let col = u16::try_from(col).unwrap_or(u16::MAX);
        let chars = u32::try_from(width.clamp(4, MAX_WIDTH) + 2).unwrap_or(12);
        sheet.set_column_width(col, chars).map_err(error)?;
    }
    Ok(())
}

/// rust_xlsxwriter's error as an io error; an io error (stdout's, the temporary files')
/// as it was, so a reader that left is still a closed pipe.
fn error(e: XlsxError) -> io::Error {
    match e {
        XlsxError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// The sink as a writer for the zip: each buffered write whole, as every output's.
struct SinkWriter(Sink);

impl Write for SinkWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf, None)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
