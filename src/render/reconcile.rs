//! `reconcile`'s output: each row's record (CSV, JSON lines, a JSON array, or a table of
//! what needs a look). Formats only: every figure and text is the record's
//! ([`RowRecord`]), decided in the domain.

use std::borrow::Cow;
use std::io;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::money::naira_decimal_total;
use crate::domain::row_record::{RowRecord, is_naira, money};
use crate::domain::seal::Sealer;
use crate::log::truncate;
use crate::render::records::{CLOSE, CLOSE_EMPTY, write_element};
use crate::render::state::StateLog;
use crate::render::{OutputFormat, Sink, Style, csv, new_table, table_text};
use crate::secret::redact;
use crate::terminal;

/// The columns `-o csv` adds after the file's own: each kobo figure with its naira one
/// beside it (an exact decimal a spreadsheet reads as a number, for naira amounts only).
pub(crate) const RESULT_COLUMNS: [&str; 12] = [
    "result",
    "difference_kobo",
    "difference_naira",
    "gateway_status",
    "gateway_code",
    "gateway_amount_kobo",
    "gateway_amount_naira",
    "expected_amount_kobo",
    "expected_amount_naira",
    "gateway_currency",
    "checks",
    "error",
];

/// The keys of jsonl's `row` object for a file with `header`: its names, in order; two
/// columns of one name keep both values, the later one as `name (N)`.
pub(crate) fn row_keys(header: &[String]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let key = match keys.contains(name) {
            true => format!("{name} ({})", i + 1),
            false => name.clone(),
        };
        keys.push(key);
    }
    keys
}

/// The added CSV cells of `r`, in [`RESULT_COLUMNS`] order.
fn result_cells(r: &RowRecord) -> [String; 12] {
    let number = |n: Option<i128>| n.map(|n| n.to_string()).unwrap_or_default();
    let kobo = |k: Option<i64>| number(k.map(i128::from));
    let text = |t: &Option<String>| t.clone().unwrap_or_default();
    // Naira only for naira amounts: a USD row's minor units are cents, not kobo.
    let expected_naira = is_naira(&r.row_currency);
    let gateway_naira = r
        .gateway_currency
        .as_deref()
        .map_or(expected_naira, is_naira);
    let naira = |minor: Option<i128>, is: bool| match (minor, is) {
        (Some(m), true) => naira_decimal_total(m),
        _ => String::new(),
    };
    [
        r.result.name().to_owned(),
        number(r.difference_kobo),
        naira(r.difference_kobo, expected_naira && gateway_naira),
        text(&r.gateway_status),
        text(&r.gateway_code),
        kobo(r.gateway_amount_kobo),
        naira(r.gateway_amount_kobo.map(i128::from), gateway_naira),
        kobo(r.expected_amount_kobo),
        naira(r.expected_amount_kobo.map(i128::from), expected_naira),
        text(&r.gateway_currency),
        text(&r.checks),
        text(&r.error),
    ]
}

/// The JSON shape of one row: its line, its cells under the file's names, then the
/// record's own fields. Every string from the orders file or of payverify's own is
/// redacted before it is serialised; the gateway's were redacted where they entered.
#[derive(Serialize)]
struct RowJson<'a> {
    line: u64,
    row: Map<String, Value>,
    #[serde(flatten)]
    record: &'a RowRecord,
}

/// The most rows the table keeps (it is laid out at the end, so it holds its rows): a
/// day's rows that need a look fit; more are counted, and `-o csv` streams every one.
pub(crate) const TABLE_ROWS: usize = 1000;

/// Writes reconciled rows as they come, in the chosen format.
pub(crate) struct ReconcileWriter {
    out: Sink,
    format: OutputFormat,
    style: Style,
    header: Arc<[String]>,
    /// The keys of jsonl's `row` object.
    row_keys: Vec<String>,
    /// Which of the row's cells is the reference, for the table.
    reference_column: usize,
    /// `--all`: the table lists MATCHED rows too.
    all: bool,
    /// `-q` without `-o`: nothing on stdout, only the totals.
    discard: bool,
    written: usize,
    /// The table's rows, kept until the end to lay it out: at most [`TABLE_ROWS`].
    table_rows: Vec<Vec<String>>,
    /// The order id column, which the table leads with when the file has one.
    order_column: Option<usize>,
    /// `-o csv` starts with a UTF-8 byte-order mark (`--bom`, or the input had one), so
    /// Excel on Windows reads the naira sign as UTF-8.
    bom: bool,
    /// Rows the table would list beyond [`TABLE_ROWS`]: counted, not kept.
    not_shown: u64,
    /// Seals each jsonl/json row, so `--resume` can tell it from an edited copy.
    sealer: Option<Sealer>,
    /// `--state`: where every row is kept, sealed, whatever the format.
    state: Option<StateLog>,
}

impl ReconcileWriter {
    /// A writer on `out` for a file with `header`.
    pub(crate) fn new(
        out: Sink,
        format: OutputFormat,
        style: Style,
        header: Arc<[String]>,
        reference_column: usize,
        all: bool,
    ) -> Self {
        if format == OutputFormat::Json {
            out.empty_document(crate::render::records::EMPTY_ARRAY);
        }
        ReconcileWriter {
            out,
            format,
            style,
            row_keys: row_keys(&header),
            header,
            reference_column,
            all,
            discard: false,
            written: 0,
            sealer: None,
            state: None,
            table_rows: Vec::new(),
            order_column: None,
            bom: false,
            not_shown: 0,
        }
    }

    /// A writer that writes nothing (`-q` without `-o`: only the totals are shown).
    pub(crate) fn discard(header: Arc<[String]>, reference_column: usize) -> Self {
        ReconcileWriter {
            discard: true,
            ..ReconcileWriter::new(
                Sink::new(Box::new(io::sink())),
                OutputFormat::Jsonl,
                Style::PLAIN,
                header,
                reference_column,
                false,
            )
        }
    }

    /// Rows the table did not list because it already had [`TABLE_ROWS`].
    pub(crate) fn not_shown(&self) -> u64 {
        self.not_shown
    }

    /// Writes what comes before the first row (the CSV header, JSON `[`).
    pub(crate) fn begin(&mut self) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => {
                let names: Vec<&str> = self
                    .header
                    .iter()
                    .map(String::as_str)
                    .chain(RESULT_COLUMNS)
                    .collect();
                let mut text = match self.bom {
                    true => String::from('\u{feff}'),
                    false => String::new(),
                };
                text.push_str(&csv::row(&names));
                self.out.write(text.as_bytes(), None)
            }
            OutputFormat::Json => self.out.write(b"[", Some(CLOSE_EMPTY)),
            OutputFormat::Jsonl | OutputFormat::Table => Ok(()),
        }
    }

    /// Keeps `row` in the `--state` file, if there is one: called for every row the exit
    /// status merges, written to stdout or not.
    pub(crate) fn keep(&mut self, row: &RowRecord) {
        if self.state.is_some() {
            let text = self.sealed_json(row);
            let key = row
                .cells
                .get(self.reference_column)
                .map_or("", String::as_str);
            self.state
                .iter_mut()
                .for_each(|state| state.append(key, &text));
        }
    }

    /// The run stopped part way: the `--state` file gets the earlier rows it did not write
    /// ([`StateLog::stopped`]).
    pub(crate) fn stopped(&mut self) {
        self.state.iter_mut().for_each(StateLog::stopped);
    }

    /// Writes one row; line formats are flushed at once.
    pub(crate) fn write(&mut self, row: &RowRecord) -> io::Result<()> {
        self.state.iter_mut().try_for_each(StateLog::check)?;
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => {
                let mut cells: Vec<String> = self.padded(row);
                cells.extend(result_cells(row));
                self.element(&csv::row(&cells))
            }
            OutputFormat::Jsonl => {
                let mut line = self.sealed_json(row);
                line.push('\n');
                self.element(&line)
            }
            OutputFormat::Json => {
                let item = self.sealed_json(row);
                self.element(&item)
            }
            OutputFormat::Table => {
                if self.all || !row.clean() {
                    match self.table_rows.len() < TABLE_ROWS {
                        true => self.table_rows.push(self.table_row(row)),
                        false => self.not_shown += 1,
                    }
                }
                self.written += 1;
                Ok(())
            }
        }
    }

    /// Writes one whole element of the output ([`write_element`]).
    fn element(&mut self, text: &str) -> io::Result<()> {
        write_element(&self.out, self.format, self.written, text)?;
        self.written += 1;
        Ok(())
    }

    /// Writes what comes after the last row (JSON `]`, the table).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.state.iter_mut().try_for_each(StateLog::check)?;
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Json => {
                let close = if self.written == 0 {
                    CLOSE_EMPTY
                } else {
                    CLOSE
                };
                self.out.write(close.as_bytes(), None)
            }
            OutputFormat::Table if self.table_rows.is_empty() => Ok(()),
            OutputFormat::Table => {
                let mut table = new_table(self.style);
                let mut header = vec![
                    "Line",
                    "Reference",
                    "Result",
                    "Expected",
                    "Gateway",
                    "Difference",
                    "Checks",
                    "Error",
                ];
                if let Some(i) = self.order_column {
                    header.insert(0, self.header[i].as_str());
                }
                table.set_header(header);
                if let Some(width) = self.style.width.filter(|_| self.style.tty) {
                    table.set_width(width);
                }
                for row in self.table_rows.drain(..) {
                    table.add_row(row);
                }
                let mut text = table_text(&table, self.style);
                text.push('\n');
                self.out.write(text.as_bytes(), None)
            }
            OutputFormat::Jsonl | OutputFormat::Csv => Ok(()),
        }
    }

    /// The row's own cells, as many as the header has.
    fn padded(&self, row: &RowRecord) -> Vec<String> {
        let mut cells = row.cells.clone();
        cells.resize(self.header.len(), String::new());
        cells
    }

    /// The same writer, keeping every row in `state` (`--state`).
    pub(crate) fn with_state(self, state: Option<StateLog>) -> Self {
        ReconcileWriter { state, ..self }
    }

    /// The same writer, sealing each jsonl/json row with `sealer`.
    pub(crate) fn sealed(self, sealer: Sealer) -> Self {
        ReconcileWriter {
            sealer: Some(sealer),
            ..self
        }
    }

    /// A row as one JSON object, sealed when this writer seals.
    fn sealed_json(&self, row: &RowRecord) -> String {
        let text = self.json(row);
        match &self.sealer {
            Some(sealer) => sealer.seal(&text),
            None => text,
        }
    }

    fn json(&self, record: &RowRecord) -> String {
        let row: Map<String, Value> = self
            .row_keys
            .iter()
            .map(|key| redact(key).into_owned())
            .zip(
                self.padded(record)
                    .into_iter()
                    .map(|cell| Value::String(redact(&cell).into_owned())),
            )
            .collect();
        let record = match (
            record.checks.as_deref().map(redact),
            record.error.as_deref().map(redact),
        ) {
            (None | Some(Cow::Borrowed(_)), None | Some(Cow::Borrowed(_))) => Cow::Borrowed(record),
            (checks, error) => Cow::Owned(RowRecord {
                checks: checks.map(Cow::into_owned),
                error: error.map(Cow::into_owned),
                ..record.clone()
            }),
        };
        let shape = RowJson {
            line: record.line,
            row,
            record: &record,
        };
        // Serialising plain data to a String cannot fail; keep a valid line if it ever does.
        let text = serde_json::to_string(&shape).unwrap_or_else(|e| {
            serde_json::json!({ "line": record.line, "error": e.to_string() }).to_string()
        });
        terminal::json_text(text)
    }

    fn table_row(&self, row: &RowRecord) -> Vec<String> {
        let row_currency = row.row_currency.as_str();
        let gateway_currency = row.gateway_currency.as_deref().unwrap_or(row_currency);
        let shown = |k: Option<i64>, c: &str| k.map(|k| money(c, i128::from(k)));
        let reference = row.cells.get(self.reference_column).cloned();
        let difference = row.difference_kobo.filter(|d| *d != 0).map(|d| {
            let sign = if d > 0 { "+" } else { "" };
            format!("{sign}{}", money(row_currency, d))
        });
        let cells = [
            row.line.to_string(),
            // A reference is at most 4 KiB, an invalid one up to a row's 1 MiB: cut like the
            // error, so one cell cannot make the table huge (or slow to lay out).
            truncate(&reference.unwrap_or_default(), 64),
            row.result.name().to_owned(),
            shown(row.expected_amount_kobo, row_currency).unwrap_or_default(),
            shown(row.gateway_amount_kobo, gateway_currency).unwrap_or_default(),
            difference.unwrap_or_default(),
            truncate(row.checks.as_deref().unwrap_or_default(), 64),
            truncate(row.error.as_deref().unwrap_or_default(), 120),
        ];
        let order = self.order_column.map(|i| {
            let id = row.cells.get(i).map_or("", String::as_str);
            truncate(id, 32)
        });
        order
            .into_iter()
            .chain(cells)
            .map(|cell| terminal::scrub(&cell))
            .collect()
    }

    /// The same writer, its table led by the order id in column `column`.
    pub(crate) fn with_order_column(self, column: Option<usize>) -> Self {
        ReconcileWriter {
            order_column: column,
            ..self
        }
    }

    /// The same writer, its CSV output starting with a UTF-8 byte-order mark when `bom`.
    pub(crate) fn with_bom(self, bom: bool) -> Self {
        ReconcileWriter { bom, ..self }
    }
}
