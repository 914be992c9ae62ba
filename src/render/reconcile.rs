//! `reconcile`'s output: each row of the orders file with its result (CSV, JSON lines, a
//! JSON array, or a table of what needs a look), and the totals per result.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

use comfy_table::{Cell, CellAlignment};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::money::{Kobo, naira_total};
use crate::domain::outcome::Record;
use crate::domain::reconcile::{self, Decided, RESULT_NAMES, Row, RowResult};
use crate::exit::Exit;
use crate::log::truncate;
use crate::render::{OutputFormat, Style, csv, new_table, table_text};
use crate::terminal;

/// The columns `-o csv` adds after the file's own.
pub(crate) const RESULT_COLUMNS: [&str; 9] = [
    "result",
    "difference_kobo",
    "gateway_status",
    "gateway_code",
    "gateway_amount_kobo",
    "expected_amount_kobo",
    "gateway_currency",
    "checks",
    "error",
];

/// One row with everything the outputs and the totals say about it.
pub(crate) struct Judged<'a> {
    row: Option<&'a Row>,
    /// The result.
    pub(crate) result: RowResult,
    expected: Option<Kobo>,
    difference: Option<i128>,
    status: Option<&'a str>,
    code: Option<&'a str>,
    gateway_amount: Option<Kobo>,
    currency: Option<&'a str>,
    checks: String,
    error: String,
    response: Option<&'a Map<String, Value>>,
}

impl<'a> Judged<'a> {
    /// A row the gateway was asked about.
    pub(crate) fn verified(record: &'a Record) -> Self {
        let verdict = &record.verdict;
        let expect = &record.job.expect;
        let result = reconcile::classify(verdict, expect);
        let v = verdict.outcome.verification();
        let difference = reconcile::difference(verdict, expect.amount);
        let error = match (result, difference) {
            (RowResult::Matched, _) => String::new(),
            (RowResult::Underpaid | RowResult::Overpaid, Some(d)) => {
                let naira = |k: Option<Kobo>| k.map_or_else(String::new, |k| k.naira_figure());
                format!(
                    "{} by ₦{} ({} kobo): the gateway has ₦{}, the row expects ₦{}",
                    if d < 0 { "underpaid" } else { "overpaid" },
                    naira_total(d.abs()),
                    d.abs(),
                    naira(v.and_then(|v| v.amount)),
                    naira(expect.amount)
                )
            }
            _ => record.error().unwrap_or_default(),
        };
        Judged {
            row: record.job.row.as_deref(),
            result,
            expected: expect.amount,
            difference,
            status: v.and_then(|v| v.status.as_deref()),
            code: v.and_then(|v| v.code.as_deref()),
            gateway_amount: v.and_then(|v| v.amount),
            currency: v.and_then(|v| v.currency.as_deref()),
            checks: verdict
                .checks
                .as_ref()
                .map(|c| c.summary())
                .unwrap_or_default(),
            error,
            response: v.map(|v| &v.raw),
        }
    }

    /// A row decided from the file alone.
    pub(crate) fn decided(decided: &'a Decided) -> Self {
        Judged {
            row: Some(&decided.row),
            result: decided.result,
            expected: decided.expected,
            difference: None,
            status: None,
            code: None,
            gateway_amount: None,
            currency: None,
            checks: String::new(),
            error: decided.why.clone(),
            response: None,
        }
    }

    fn line(&self) -> u64 {
        self.row.map_or(0, |r| r.line)
    }

    fn cells(&self) -> &[String] {
        self.row.map_or(&[], |r| r.cells.as_slice())
    }

    /// The added CSV cells, in [`RESULT_COLUMNS`] order.
    fn result_cells(&self) -> [String; 9] {
        let number = |n: Option<i128>| n.map(|n| n.to_string()).unwrap_or_default();
        let kobo = |k: Option<Kobo>| number(k.map(|k| i128::from(k.0)));
        let text = |t: Option<&str>| t.unwrap_or_default().to_owned();
        [
            self.result.name().to_owned(),
            number(self.difference),
            text(self.status),
            text(self.code),
            kobo(self.gateway_amount),
            kobo(self.expected),
            text(self.currency),
            self.checks.clone(),
            self.error.clone(),
        ]
    }
}

/// The JSON shape of one row.
#[derive(Serialize)]
struct RowJson<'a> {
    line: u64,
    row: Map<String, Value>,
    result: &'static str,
    difference_kobo: Option<i128>,
    gateway_status: Option<&'a str>,
    gateway_code: Option<&'a str>,
    gateway_amount_kobo: Option<i64>,
    expected_amount_kobo: Option<i64>,
    gateway_currency: Option<&'a str>,
    checks: Option<&'a str>,
    error: Option<&'a str>,
    response: Option<&'a Map<String, Value>>,
}

/// The totals of one result, or of the whole file.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Rows.
    pub(crate) rows: u64,
    /// What those rows expect, in kobo (rows whose amount could be read).
    pub(crate) expected: i128,
    /// What the gateway reported for them, in kobo (rows it stated an amount for).
    pub(crate) gateway: i128,
}

/// What the summary says: per result, and overall.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    by_result: BTreeMap<usize, Totals>,
    all: Totals,
    matched: i128,
    net_difference: i128,
    /// The run stopped before every row was decided: these are the totals of the rows
    /// decided, not of the file.
    incomplete: bool,
}

impl Summary {
    fn add(&mut self, judged: &Judged<'_>) {
        let name = judged.result.name();
        let slot = RESULT_NAMES.iter().position(|n| *n == name).unwrap_or(0);
        let expected = judged.expected.map_or(0, |k| i128::from(k.0));
        let gateway = judged.gateway_amount.map_or(0, |k| i128::from(k.0));
        for totals in [self.by_result.entry(slot).or_default(), &mut self.all] {
            totals.rows += 1;
            totals.expected += expected;
            totals.gateway += gateway;
        }
        if judged.result == RowResult::Matched {
            self.matched += expected;
        }
        self.net_difference += judged.difference.unwrap_or(0);
    }

    /// Rows seen.
    pub(crate) fn rows(&self) -> u64 {
        self.all.rows
    }

    /// Whether the run stopped before every row was decided.
    pub(crate) fn incomplete(&self) -> bool {
        self.incomplete
    }

    /// The summary for people: a table per result, then the overall figures, in naira.
    pub(crate) fn table(&self, style: Style) -> String {
        let mut table = new_table(style);
        table.set_header(["Result", "Rows", "Expected (₦)", "Gateway (₦)"]);
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        for (slot, totals) in &self.by_result {
            table.add_row(vec![
                Cell::new(RESULT_NAMES[*slot]),
                right(totals.rows.to_string()),
                right(naira_total(totals.expected)),
                right(naira_total(totals.gateway)),
            ]);
        }
        table.add_row(vec![
            Cell::new("Total"),
            right(self.all.rows.to_string()),
            right(naira_total(self.all.expected)),
            right(naira_total(self.all.gateway)),
        ]);
        let mut overall = new_table(style);
        let at_risk = self.all.expected - self.matched;
        for (what, kobo) in [
            ("Expected total", self.all.expected),
            ("Confirmed (MATCHED)", self.matched),
            ("At risk (not MATCHED)", at_risk),
            ("Net difference (gateway - expected)", self.net_difference),
        ] {
            let sign = if kobo < 0 { "-" } else { "" };
            overall.add_row(vec![
                Cell::new(what),
                right(format!("{sign}₦{}", naira_total(kobo.abs()))),
            ]);
        }
        format!(
            "{}\n{}",
            table_text(&table, style),
            table_text(&overall, style)
        )
    }

    /// The summary for scripts (`--summary-json`): kobo as integers and naira as exact
    /// decimal strings.
    pub(crate) fn json(&self, exit: Exit) -> Value {
        let naira = |kobo: i128| {
            let sign = if kobo < 0 { "-" } else { "" };
            let abs = kobo.unsigned_abs();
            format!("{sign}{}.{:02}", abs / 100, abs % 100)
        };
        let mut results = Map::new();
        for (slot, totals) in &self.by_result {
            results.insert(
                RESULT_NAMES[*slot].to_owned(),
                serde_json::json!({
                    "rows": totals.rows,
                    "expected_kobo": totals.expected,
                    "expected_naira": naira(totals.expected),
                    "gateway_kobo": totals.gateway,
                    "gateway_naira": naira(totals.gateway),
                }),
            );
        }
        let at_risk = self.all.expected - self.matched;
        serde_json::json!({
            "rows": self.all.rows,
            "exit_code": exit.code(),
            "interrupted": exit == Exit::Interrupted,
            "complete": !self.incomplete,
            "results": results,
            "expected_total_kobo": self.all.expected,
            "expected_total_naira": naira(self.all.expected),
            "matched_total_kobo": self.matched,
            "matched_total_naira": naira(self.matched),
            "at_risk_kobo": at_risk,
            "at_risk_naira": naira(at_risk),
            "net_difference_kobo": self.net_difference,
            "net_difference_naira": naira(self.net_difference),
        })
    }
}

/// Writes reconciled rows as they come, in the chosen format, and keeps the totals.
pub(crate) struct ReconcileWriter {
    out: Box<dyn Write + Send>,
    format: OutputFormat,
    style: Style,
    header: Arc<[String]>,
    /// Which of the row's cells is the reference, for the table.
    reference_column: usize,
    /// `--all`: the table lists MATCHED rows too.
    all: bool,
    /// `-q` without `-o`: nothing on stdout, only the totals.
    discard: bool,
    written: usize,
    table_rows: Vec<[String; 7]>,
    summary: Summary,
}

impl ReconcileWriter {
    /// A writer on `out` for a file with `header`.
    pub(crate) fn new(
        out: Box<dyn Write + Send>,
        format: OutputFormat,
        style: Style,
        header: Arc<[String]>,
        reference_column: usize,
        all: bool,
    ) -> Self {
        ReconcileWriter {
            out,
            format,
            style,
            header,
            reference_column,
            all,
            discard: false,
            written: 0,
            table_rows: Vec::new(),
            summary: Summary::default(),
        }
    }

    /// A writer that writes nothing and only keeps the totals (`-q` without `-o`).
    pub(crate) fn discard(header: Arc<[String]>, reference_column: usize) -> Self {
        ReconcileWriter {
            discard: true,
            ..ReconcileWriter::new(
                Box::new(io::sink()),
                OutputFormat::Jsonl,
                Style::PLAIN,
                header,
                reference_column,
                false,
            )
        }
    }

    /// The totals so far.
    pub(crate) fn summary(&self) -> &Summary {
        &self.summary
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
                self.out.write_all(csv::row(&names).as_bytes())?;
            }
            OutputFormat::Json => self.out.write_all(b"[")?,
            OutputFormat::Jsonl | OutputFormat::Table => {}
        }
        self.out.flush()
    }

    /// Counts one row in the totals (every row the exit status merges, written or not).
    pub(crate) fn count(&mut self, judged: &Judged<'_>) {
        self.summary.add(judged);
    }

    /// Marks the totals as those of a run that stopped before every row was decided.
    pub(crate) fn mark_incomplete(&mut self) {
        self.summary.incomplete = true;
    }

    /// Writes one row; line formats are flushed at once.
    pub(crate) fn write(&mut self, judged: &Judged<'_>) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Csv => {
                let mut cells: Vec<String> = self.padded(judged);
                cells.extend(judged.result_cells());
                self.out.write_all(csv::row(&cells).as_bytes())?;
            }
            OutputFormat::Jsonl => {
                let mut line = self.json(judged);
                line.push('\n');
                self.out.write_all(line.as_bytes())?;
            }
            OutputFormat::Json => {
                let sep = if self.written == 0 { "\n  " } else { ",\n  " };
                let item = self.json(judged);
                self.out.write_all(format!("{sep}{item}").as_bytes())?;
            }
            OutputFormat::Table => {
                if self.all || judged.result != RowResult::Matched {
                    self.table_rows.push(self.table_row(judged));
                }
            }
        }
        self.written += 1;
        self.out.flush()
    }

    /// Writes what comes after the last row (JSON `]`, the table).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        match self.format {
            OutputFormat::Json => {
                let close = if self.written == 0 { "]\n" } else { "\n]\n" };
                self.out.write_all(close.as_bytes())?;
            }
            OutputFormat::Table if self.table_rows.is_empty() => {}
            OutputFormat::Table => {
                let mut table = new_table(self.style);
                table.set_header([
                    "Line",
                    "Reference",
                    "Result",
                    "Expected",
                    "Gateway",
                    "Difference",
                    "Error",
                ]);
                if let Some(width) = self.style.width.filter(|_| self.style.tty) {
                    table.set_width(width);
                }
                for row in self.table_rows.drain(..) {
                    table.add_row(row);
                }
                let mut text = table_text(&table, self.style);
                text.push('\n');
                self.out.write_all(text.as_bytes())?;
            }
            OutputFormat::Jsonl | OutputFormat::Csv => {}
        }
        self.out.flush()
    }

    /// The row's own cells, as many as the header has.
    fn padded(&self, judged: &Judged<'_>) -> Vec<String> {
        let mut cells = judged.cells().to_vec();
        cells.resize(self.header.len(), String::new());
        cells
    }

    fn json(&self, judged: &Judged<'_>) -> String {
        let mut row = Map::new();
        for (i, (name, value)) in self.header.iter().zip(self.padded(judged)).enumerate() {
            // Two columns of one name keep both values: the later one is `name (N)`.
            let key = match row.contains_key(name) {
                true => format!("{name} ({})", i + 1),
                false => name.clone(),
            };
            row.insert(key, Value::String(value));
        }
        fn some(s: &str) -> Option<&str> {
            (!s.is_empty()).then_some(s)
        }
        let shape = RowJson {
            line: judged.line(),
            row,
            result: judged.result.name(),
            difference_kobo: judged.difference,
            gateway_status: judged.status,
            gateway_code: judged.code,
            gateway_amount_kobo: judged.gateway_amount.map(|k| k.0),
            expected_amount_kobo: judged.expected.map(|k| k.0),
            gateway_currency: judged.currency,
            checks: some(&judged.checks),
            error: some(&judged.error),
            response: judged.response,
        };
        // Serialising plain data to a String cannot fail; keep a valid line if it ever does.
        serde_json::to_string(&shape).unwrap_or_else(|e| {
            serde_json::json!({ "line": judged.line(), "error": e.to_string() }).to_string()
        })
    }

    fn table_row(&self, judged: &Judged<'_>) -> [String; 7] {
        let naira = |k: Option<Kobo>| k.map(|k| format!("₦{}", k.naira_figure()));
        let reference = judged.cells().get(self.reference_column).cloned();
        let difference = judged.difference.filter(|d| *d != 0).map(|d| {
            let sign = if d > 0 { "+" } else { "-" };
            format!("{sign}₦{}", naira_total(d.abs()))
        });
        [
            judged.line().to_string(),
            reference.unwrap_or_default(),
            judged.result.name().to_owned(),
            naira(judged.expected).unwrap_or_default(),
            naira(judged.gateway_amount).unwrap_or_default(),
            difference.unwrap_or_default(),
            truncate(&judged.error, 120),
        ]
        .map(|cell| terminal::safe(&cell).into_owned())
    }
}
