//! `reconcile`'s output: each row of the orders file with its result (CSV, JSON lines, a
//! JSON array, or a table of what needs a look), and the totals per result.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

use comfy_table::{Cell, CellAlignment};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::batch::resume::Carried;
use crate::domain::money::{Kobo, naira_decimal_total, naira_total};
use crate::domain::outcome::Record;
use crate::domain::reconcile::{self, Decided, RESULT_NAMES, Row, RowResult};
use crate::domain::seal::Sealer;
use crate::exit::Exit;
use crate::log::truncate;
use crate::render::records::{CLOSE, CLOSE_EMPTY, write_element};
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

pub(crate) use crate::domain::reconcile::ReferenceLines;

/// One row with everything the outputs and the totals say about it.
pub(crate) struct Judged<'a> {
    row: Option<&'a Row>,
    /// The result.
    pub(crate) result: RowResult,
    expected: Option<Kobo>,
    /// The currency the row expects: whose totals it counts in.
    row_currency: &'a str,
    difference: Option<i128>,
    status: Option<&'a str>,
    code: Option<&'a str>,
    gateway_amount: Option<Kobo>,
    currency: Option<&'a str>,
    checks: String,
    error: String,
    response: Option<&'a Map<String, Value>>,
    /// A check gave a warning (the hmac under `--hmac warn`): a MATCHED row that still
    /// needs a look.
    warned: bool,
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
                let currency = expect.currency.as_deref().unwrap_or("NGN");
                let gateway_currency = v.and_then(|v| v.currency.as_deref()).unwrap_or(currency);
                let shown = |k: Option<Kobo>, c: &str| {
                    k.map_or_else(String::new, |k| money(c, i128::from(k.0)))
                };
                let unit = if is_naira(currency) {
                    "kobo"
                } else {
                    "minor units"
                };
                format!(
                    "{} by {} ({} {unit}): the gateway has {}, the row expects {}",
                    if d < 0 { "underpaid" } else { "overpaid" },
                    money(currency, d.abs()),
                    d.abs(),
                    shown(v.and_then(|v| v.amount), gateway_currency),
                    shown(expect.amount, currency)
                )
            }
            (RowResult::PaidShopUnpaid, _) => {
                let paid = v
                    .and_then(|v| v.amount)
                    .map(|k| {
                        let c = v.and_then(|v| v.currency.as_deref()).unwrap_or("NGN");
                        format!(" {}", money(c, i128::from(k.0)))
                    })
                    .unwrap_or_default();
                format!(
                    "paid at the gateway (SUCCESSFUL{paid}), but the shop's order status says \
                     not paid: money taken for an order that will not ship (refund it, or \
                     re-open the order)"
                )
            }
            (RowResult::BothUnpaid, _) => "FAILED at the gateway, and the shop's order status \
                                           says not paid: both agree, nothing is at risk"
                .to_owned(),
            // A FAILED answer that failed its checks proves nothing about this payment.
            (RowResult::IntegrityFailed, _)
                if matches!(verdict.outcome, crate::domain::outcome::Outcome::Failed(_)) =>
            {
                let failures = verdict
                    .checks
                    .as_ref()
                    .map(|c| c.failures.join("; "))
                    .unwrap_or_default();
                format!(
                    "FAILED at the gateway, but the answer failed its checks ({failures}): it \
                     proves nothing about this payment; look at it before counting the order \
                     unpaid"
                )
            }
            _ => record.error().unwrap_or_default(),
        };
        Judged {
            row: record.job.row.as_deref(),
            result,
            expected: expect.amount,
            row_currency: expect.currency.as_deref().unwrap_or("NGN"),
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
            warned: verdict
                .checks
                .as_ref()
                .is_some_and(|c| !c.warnings.is_empty()),
        }
    }

    /// A row carried over from an earlier run (`--resume`): only what the totals count.
    pub(crate) fn carried(carried: &'a Carried) -> Self {
        // Only final results are carried, each with its figures read back.
        let result = RowResult::named(carried.name).unwrap_or(RowResult::Unverified(carried.exit));
        let amounts = carried.amounts.as_ref();
        Judged {
            row: None,
            result,
            expected: amounts.and_then(|a| a.expected).map(Kobo),
            row_currency: amounts
                .and_then(|a| a.row_currency.as_deref())
                .unwrap_or(NAIRA),
            difference: amounts.and_then(|a| a.difference),
            // What a carried result says of the gateway's status (its record was checked to
            // agree): what "collected" counts.
            status: result.gateway_status(),
            code: None,
            gateway_amount: amounts.and_then(|a| a.gateway).map(Kobo),
            currency: amounts.and_then(|a| a.currency.as_deref()),
            checks: String::new(),
            error: String::new(),
            response: None,
            warned: carried.warned,
        }
    }

    /// A row decided from the file alone.
    pub(crate) fn decided(decided: &'a Decided) -> Self {
        Judged {
            row: Some(&decided.row),
            result: decided.result,
            expected: decided.expected,
            row_currency: &decided.currency,
            difference: None,
            status: None,
            code: None,
            gateway_amount: None,
            currency: None,
            checks: String::new(),
            error: decided.why.clone(),
            response: None,
            warned: false,
        }
    }

    /// This row's answer is the transaction row `first` already matched: one payment
    /// counts for one order.
    fn duplicate_of(&mut self, first: u64) {
        self.result = RowResult::Duplicate;
        self.error = format!(
            "the gateway's answer is the transaction line {first} already matched: one \
             payment counts for one order"
        );
    }

    fn line(&self) -> u64 {
        self.row.map_or(0, |r| r.line)
    }

    fn cells(&self) -> &[String] {
        self.row.map_or(&[], |r| r.cells.as_slice())
    }

    /// The added CSV cells, in [`RESULT_COLUMNS`] order.
    fn result_cells(&self) -> [String; 12] {
        let number = |n: Option<i128>| n.map(|n| n.to_string()).unwrap_or_default();
        let kobo = |k: Option<Kobo>| number(k.map(|k| i128::from(k.0)));
        let text = |t: Option<&str>| t.unwrap_or_default().to_owned();
        // Naira only for naira amounts: a USD row's minor units are cents, not kobo.
        let expected_naira = is_naira(self.row_currency);
        let gateway_naira = self.currency.map_or(expected_naira, is_naira);
        let naira = |minor: Option<i128>, is: bool| match (minor, is) {
            (Some(m), true) => naira_decimal_total(m),
            _ => String::new(),
        };
        let minor = |k: Option<Kobo>| k.map(|k| i128::from(k.0));
        [
            self.result.name().to_owned(),
            number(self.difference),
            naira(self.difference, expected_naira && gateway_naira),
            text(self.status),
            text(self.code),
            kobo(self.gateway_amount),
            naira(minor(self.gateway_amount), gateway_naira),
            kobo(self.expected),
            naira(minor(self.expected), expected_naira),
            text(self.currency),
            self.checks.clone(),
            self.error.clone(),
        ]
    }

    /// Whether the row needs no look: MATCHED with no warning, a line item of an order, or
    /// the file's own totals row adding up.
    fn clean(&self) -> bool {
        match self.result {
            RowResult::Matched => !self.warned,
            RowResult::LineItem | RowResult::Totals => true,
            _ => false,
        }
    }
}

/// The JSON shape of one row. Every string from the orders file or of payverify's own is
/// redacted before it is serialised; the gateway's were redacted where they entered.
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
    checks: Option<Cow<'a, str>>,
    error: Option<Cow<'a, str>>,
    response: Option<&'a Map<String, Value>>,
}

/// The totals of one result, or of the whole file.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Rows.
    pub(crate) rows: u64,
    /// What those rows expect, in minor units (kobo for naira) (rows whose amount could be
    /// read).
    pub(crate) expected: i128,
    /// What the gateway reported for them, in minor units (rows it stated an amount for,
    /// in the row's currency).
    pub(crate) gateway: i128,
}

/// The totals of the rows that expect one currency: amounts in two currencies are never
/// added together.
#[derive(Debug, Default, Clone)]
struct Block {
    by_result: BTreeMap<usize, Totals>,
    all: Totals,
    matched: i128,
    /// What the gateway has as SUCCESSFUL for the rows, in their currency: the money it
    /// collected (a payment two rows name counts once: the DUPLICATE row's is left out).
    collected: i128,
    /// What the rows not MATCHED expect, less those that are no money at risk (SKIPPED).
    at_risk: i128,
    /// What SKIPPED rows expect: not gateway payments, or left out by `--only`.
    skipped: i128,
    /// The sum of gateway - expected over the rows the gateway answered SUCCESSFUL for:
    /// non-zero only for UNDERPAID and OVERPAID rows.
    net_difference: i128,
}

/// What the summary says: per currency, per result, and overall.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    /// By currency code (upper case); naira is `NGN`.
    blocks: BTreeMap<String, Block>,
    rows: u64,
    /// `Some` when the run ended before every row was decided (these are then the totals
    /// of the rows decided, not of the file), with how many rows were never decided when
    /// the whole file was read (`None`: the rest of it never was).
    incomplete: Option<Option<u64>>,
    /// Why the input could not be read past some line (naming the lines), when it could
    /// not: in the summary file too, so a run under `-q` still says it.
    input_error: Option<String>,
}

/// The naira, the gateway's own currency, whose totals the summary leads with.
const NAIRA: &str = "NGN";

fn is_naira(currency: &str) -> bool {
    currency.trim().eq_ignore_ascii_case(NAIRA)
}

/// An amount in minor units with its currency: `₦40,000.00`, `USD 40,000.00`.
fn money(currency: &str, minor: i128) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    match is_naira(currency) {
        true => format!("{sign}₦{}", naira_total(minor.abs())),
        false => format!(
            "{sign}{} {}",
            terminal::scrub(&currency.trim().to_ascii_uppercase()),
            naira_total(minor.abs())
        ),
    }
}

impl Summary {
    fn add(&mut self, judged: &Judged<'_>) {
        self.rows += 1;
        let currency = judged.row_currency.trim().to_ascii_uppercase();
        // A gateway amount in another currency than the row's is not added to its totals.
        let same_currency = judged
            .currency
            .is_none_or(|c| c.trim().eq_ignore_ascii_case(&currency));
        let block = self.blocks.entry(currency).or_default();
        let slot = judged.result.index();
        let expected = match judged.result.counts_amount() {
            true => judged.expected.map_or(0, |k| i128::from(k.0)),
            false => 0,
        };
        let gateway = match same_currency {
            true => judged.gateway_amount.map_or(0, |k| i128::from(k.0)),
            false => 0,
        };
        for totals in [block.by_result.entry(slot).or_default(), &mut block.all] {
            totals.rows += 1;
            totals.expected += expected;
            totals.gateway += gateway;
        }
        if judged.result == RowResult::Matched {
            block.matched += expected;
        }
        if judged.result.at_risk() {
            block.at_risk += expected;
        }
        if same_currency
            && judged.status == Some("SUCCESSFUL")
            && judged.result != RowResult::Duplicate
        {
            block.collected += judged.gateway_amount.map_or(0, |k| i128::from(k.0));
        }
        if judged.result == RowResult::Skipped {
            block.skipped += expected;
        }
        if same_currency {
            block.net_difference += judged.difference.unwrap_or(0);
        }
    }

    /// Rows seen.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// Whether the run stopped before every row was decided.
    pub(crate) fn incomplete(&self) -> bool {
        self.incomplete.is_some()
    }

    /// The naira block first (also when empty, if nothing else is there), then one per
    /// other currency.
    fn ordered(&self) -> Vec<(&str, Block)> {
        let mut out = Vec::new();
        if self.blocks.contains_key(NAIRA) || self.blocks.is_empty() {
            out.push((NAIRA, self.blocks.get(NAIRA).cloned().unwrap_or_default()));
        }
        for (currency, block) in &self.blocks {
            if currency != NAIRA {
                out.push((currency.as_str(), block.clone()));
            }
        }
        out
    }

    /// The summary for people: a table per result, then the overall figures, in naira;
    /// rows in another currency each get their own block after it, never added in.
    pub(crate) fn table(&self, style: Style) -> String {
        let mut text = Vec::new();
        for (currency, block) in self.ordered() {
            if !is_naira(currency) {
                text.push(format!(
                    "Rows in {} (not included in the naira totals):",
                    terminal::scrub(currency)
                ));
            }
            text.push(block.table(currency, style));
        }
        text.join("\n")
    }

    /// The summary for scripts (`--summary-json`): the naira rows' totals at the top level
    /// (kobo as integers and naira as exact decimal strings, as before), and each other
    /// currency's under `other_currencies`; `rows` counts every row decided, and
    /// `rows_not_reached` those the run never decided (0 when `complete`; null when it
    /// ended before reading the whole file, so their number is not known).
    pub(crate) fn json(&self, exit: Exit) -> Value {
        let naira = self.blocks.get(NAIRA).cloned().unwrap_or_default();
        let mut top = naira.json("kobo", "naira");
        let mut others = Map::new();
        for (currency, block) in &self.blocks {
            if currency != NAIRA {
                let mut value = block.json("minor", "");
                value.insert("rows".into(), block.all.rows.into());
                others.insert(currency.clone(), Value::Object(value));
            }
        }
        let mut out = Map::new();
        out.insert("rows".into(), self.rows.into());
        out.insert("exit_code".into(), exit.code().into());
        out.insert("interrupted".into(), (exit == Exit::Interrupted).into());
        out.insert("complete".into(), self.incomplete.is_none().into());
        let not_reached = match self.incomplete {
            None => Value::from(0u64),
            Some(known) => known.map_or(Value::Null, Value::from),
        };
        out.insert("rows_not_reached".into(), not_reached);
        let input_error = self
            .input_error
            .as_deref()
            .map(|why| Value::from(crate::secret::redact(why).into_owned()));
        out.insert("input_error".into(), input_error.unwrap_or(Value::Null));
        out.append(&mut top);
        out.insert("other_currencies".into(), Value::Object(others));
        Value::Object(out)
    }
}

impl Block {
    fn table(&self, currency: &str, style: Style) -> String {
        let unit = match is_naira(currency) {
            true => "₦".to_owned(),
            false => terminal::scrub(currency),
        };
        let mut table = new_table(style);
        table.set_header([
            "Result".to_owned(),
            "Rows".to_owned(),
            format!("Expected ({unit})"),
            format!("Gateway ({unit})"),
        ]);
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
        for (what, minor) in [
            ("Expected total", self.all.expected),
            ("Collected (SUCCESSFUL at the gateway)", self.collected),
            ("Confirmed (MATCHED)", self.matched),
            ("At risk (rows that need a look)", self.at_risk),
            ("Skipped (not gateway payments, --only)", self.skipped),
            (
                "Underpaid/overpaid net (gateway - expected)",
                self.net_difference,
            ),
        ] {
            overall.add_row(vec![Cell::new(what), right(money(currency, minor))]);
        }
        format!(
            "{}\n{}",
            table_text(&table, style),
            table_text(&overall, style)
        )
    }

    /// The block's figures as JSON fields: `..._{minor}` integers and exact `..._{major}`
    /// decimal strings (no suffix when `major` is empty).
    fn json(&self, minor: &str, major: &str) -> Map<String, Value> {
        let key = |name: &str, unit: &str| match unit {
            "" => name.to_owned(),
            unit => format!("{name}_{unit}"),
        };
        let mut results = Map::new();
        for (slot, totals) in &self.by_result {
            let mut one = Map::new();
            one.insert("rows".into(), totals.rows.into());
            for (name, value) in [("expected", totals.expected), ("gateway", totals.gateway)] {
                one.insert(key(name, minor), serde_json::json!(value));
                one.insert(key(name, major), naira_decimal_total(value).into());
            }
            results.insert(RESULT_NAMES[*slot].to_owned(), Value::Object(one));
        }
        let mut out = Map::new();
        out.insert("results".into(), Value::Object(results));
        for (name, value) in [
            ("expected_total", self.all.expected),
            ("collected_total", self.collected),
            ("matched_total", self.matched),
            ("at_risk", self.at_risk),
            ("skipped_total", self.skipped),
            ("net_difference", self.net_difference),
        ] {
            out.insert(key(name, minor), serde_json::json!(value));
            out.insert(key(name, major), naira_decimal_total(value).into());
        }
        out
    }
}

/// The most rows the table keeps (it is laid out at the end, so it holds its rows): a
/// day's rows that need a look fit; more are counted, and `-o csv` streams every one.
pub(crate) const TABLE_ROWS: usize = 1000;

/// Writes reconciled rows as they come, in the chosen format, and keeps the totals.
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
    summary: Summary,
    /// Seals each jsonl/json row, so `--resume` can tell it from an edited copy.
    sealer: Option<Sealer>,
    /// The line each reference of the input was first verified on: one payment may answer
    /// to two references (its transaction and its payment reference), and must count for
    /// one order only. Looked up, not kept here: the reader already keeps it.
    lines_of: Option<ReferenceLines>,
    /// A row [`Self::claim`] turned into a DUPLICATE, for its write: (line, first line).
    duplicate: Option<(u64, u64)>,
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
            lines_of: None,
            duplicate: None,
            table_rows: Vec::new(),
            order_column: None,
            bom: false,
            not_shown: 0,
            summary: Summary::default(),
        }
    }

    /// A writer that writes nothing and only keeps the totals (`-q` without `-o`).
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

    /// Counts one row in the totals (every row the exit status merges, written or not).
    pub(crate) fn count(&mut self, judged: &Judged<'_>) {
        self.summary.add(judged);
    }

    /// Marks the totals as those of a run that stopped before every row was decided, with
    /// how many rows it never decided, when known.
    pub(crate) fn mark_incomplete(&mut self, not_reached: Option<u64>) {
        self.summary.incomplete = Some(not_reached);
    }

    /// Keeps why the input could not be read to its end, for the summary.
    pub(crate) fn note_input_error(&mut self, why: String) {
        self.summary.input_error = Some(why);
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
                self.element(&csv::row(&cells))
            }
            OutputFormat::Jsonl => {
                let mut line = self.sealed_json(judged);
                line.push('\n');
                self.element(&line)
            }
            OutputFormat::Json => {
                let item = self.sealed_json(judged);
                self.element(&item)
            }
            OutputFormat::Table => {
                if self.all || !judged.clean() {
                    match self.table_rows.len() < TABLE_ROWS {
                        true => self.table_rows.push(self.table_row(judged)),
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

    /// Writes a row carried over from an earlier run by value, as a fresh row's values are
    /// written ([`super::records::carried_text`]; `--resume` needs -o jsonl or csv).
    pub(crate) fn write_carried(
        &mut self,
        carried: &super::records::CarriedRecord,
    ) -> io::Result<()> {
        if self.discard {
            return Ok(());
        }
        let text = super::records::carried_text(carried, self.format, self.sealer.as_ref())
            .ok_or_else(|| {
                io::Error::other("an earlier row cannot be written in this run's format")
            })?;
        self.element(&format!("{text}\n"))
    }

    /// Writes what comes after the last row (JSON `]`, the table).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
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
    fn padded(&self, judged: &Judged<'_>) -> Vec<String> {
        let mut cells = judged.cells().to_vec();
        cells.resize(self.header.len(), String::new());
        cells
    }

    /// Claims the transaction a MATCHED row's answer is for; when an earlier row already
    /// matched it, `judged` becomes a DUPLICATE naming that row
    /// ([`reconcile::claimed_by`]). Called once per row, in input order, as it is tallied;
    /// [`Self::settle`] repeats the verdict for its write.
    pub(crate) fn claim(&mut self, judged: &mut Judged<'_>, record: &Record) {
        if judged.result != RowResult::Matched {
            return;
        }
        let (Some(v), Some(lines_of)) = (record.verdict.outcome.verification(), &self.lines_of)
        else {
            return;
        };
        let line = judged.line();
        if let Some(first) =
            reconcile::claimed_by(v, record.job.reference.as_str(), line, lines_of.as_ref())
        {
            judged.duplicate_of(first);
            self.duplicate = Some((line, first));
        }
    }

    /// Gives the writer the reader's record of which line each reference was on.
    pub(crate) fn with_reference_lines(self, lines_of: ReferenceLines) -> Self {
        ReconcileWriter {
            lines_of: Some(lines_of),
            ..self
        }
    }

    /// `judged` as [`Self::claim`] decided it when it was tallied.
    pub(crate) fn settle(&mut self, judged: &mut Judged<'_>) {
        if let Some((line, first)) = self.duplicate.take()
            && line == judged.line()
        {
            judged.duplicate_of(first);
        }
    }

    /// The same writer, sealing each jsonl/json row with `sealer`.
    pub(crate) fn sealed(self, sealer: Sealer) -> Self {
        ReconcileWriter {
            sealer: Some(sealer),
            ..self
        }
    }

    /// A row as one JSON object, sealed when this writer seals.
    fn sealed_json(&self, judged: &Judged<'_>) -> String {
        let text = self.json(judged);
        match &self.sealer {
            Some(sealer) => sealer.seal(&text),
            None => text,
        }
    }

    fn json(&self, judged: &Judged<'_>) -> String {
        let row: Map<String, Value> = self
            .row_keys
            .iter()
            .map(|key| redact(key).into_owned())
            .zip(
                self.padded(judged)
                    .into_iter()
                    .map(|cell| Value::String(redact(&cell).into_owned())),
            )
            .collect();
        fn some(s: &str) -> Option<Cow<'_, str>> {
            (!s.is_empty()).then(|| redact(s))
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
        let text = serde_json::to_string(&shape).unwrap_or_else(|e| {
            serde_json::json!({ "line": judged.line(), "error": e.to_string() }).to_string()
        });
        terminal::json_text(text)
    }

    fn table_row(&self, judged: &Judged<'_>) -> Vec<String> {
        let row_currency = judged.row_currency;
        let gateway_currency = judged.currency.unwrap_or(row_currency);
        let shown = |k: Option<Kobo>, c: &str| k.map(|k| money(c, i128::from(k.0)));
        let reference = judged.cells().get(self.reference_column).cloned();
        let difference = judged.difference.filter(|d| *d != 0).map(|d| {
            let sign = if d > 0 { "+" } else { "" };
            format!("{sign}{}", money(row_currency, d))
        });
        let cells = [
            judged.line().to_string(),
            // A reference is at most 4 KiB, an invalid one up to a row's 1 MiB: cut like the
            // error, so one cell cannot make the table huge (or slow to lay out).
            truncate(&reference.unwrap_or_default(), 64),
            judged.result.name().to_owned(),
            shown(judged.expected, row_currency).unwrap_or_default(),
            shown(judged.gateway_amount, gateway_currency).unwrap_or_default(),
            difference.unwrap_or_default(),
            truncate(&judged.checks, 64),
            truncate(&judged.error, 120),
        ];
        let order = self.order_column.map(|i| {
            let id = judged.cells().get(i).map_or("", String::as_str);
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
