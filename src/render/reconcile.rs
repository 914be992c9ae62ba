//! `reconcile`'s output: each row's record (CSV, JSON lines, a JSON array, or a table of
//! what needs a look). Formats only: every figure and text is the record's
//! ([`RowRecord`]), decided in the domain.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

use crate::domain::money::naira_decimal_total;
use crate::domain::row_record::{RowRecord, is_naira, money};
use crate::render::writer::{View, Writer};
use crate::render::xlsx::XlsxCell;
use crate::render::{Style, csv, new_table, table_text};
use crate::secret::redact;
use crate::terminal;

/// The keys of jsonl's `row` object for a file with `header`: its names, in order, each
/// redacted once here; two columns of one name keep both values, the later one as
/// `name (N)` for its position N. Keys stay distinct even where a name redacts to another's
/// text or is itself written `name (N)`: a later clash gains another ` (N)`, since a JSON
/// object with a key twice loses a value (and payverify's own reader refuses it).
pub(crate) fn row_keys(header: &[String]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let mut key = redact(name).into_owned();
        while keys.contains(&key) {
            key = format!("{key} ({})", i + 1);
        }
        keys.push(key);
    }
    keys
}

/// The CSV columns a row's record adds after the file's own, named as the columns (the
/// header and the cells are both derived from it): each kobo figure with its naira one
/// beside it (an exact decimal a spreadsheet reads as a number, for naira amounts only).
#[derive(Default, Serialize)]
struct ResultCells {
    result: &'static str,
    difference_kobo: Option<i128>,
    difference_naira: String,
    gateway_status: Option<String>,
    gateway_code: Option<String>,
    gateway_amount_kobo: Option<i64>,
    gateway_amount_naira: String,
    expected_amount_kobo: Option<i64>,
    expected_amount_naira: String,
    gateway_currency: Option<String>,
    checks: Option<String>,
    error: Option<String>,
}

impl ResultCells {
    fn of(r: &RowRecord) -> Self {
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
        ResultCells {
            result: r.result.name(),
            difference_kobo: r.difference_kobo,
            difference_naira: naira(r.difference_kobo, expected_naira && gateway_naira),
            gateway_status: r.gateway_status.clone(),
            gateway_code: r.gateway_code.clone(),
            gateway_amount_kobo: r.gateway_amount_kobo,
            gateway_amount_naira: naira(r.gateway_amount_kobo.map(i128::from), gateway_naira),
            expected_amount_kobo: r.expected_amount_kobo,
            expected_amount_naira: naira(r.expected_amount_kobo.map(i128::from), expected_naira),
            gateway_currency: r.gateway_currency.clone(),
            checks: r.checks.clone(),
            error: r.error.clone(),
        }
    }
}

/// The JSON shape of one row: its line, its cells under the file's names, then the
/// record's own fields. Every string from the orders file or of payverify's own is
/// redacted before it is serialised; the gateway's were redacted where they entered.
#[derive(Serialize)]
struct RowJson<'a> {
    line: u64,
    row: RowCells<'a>,
    #[serde(flatten)]
    record: &'a RowRecord,
}

/// The row's cells under the header's keys (already redacted), each cell redacted as it is
/// written: a cell with nothing to hide is written from where it is, with no copy.
struct RowCells<'a> {
    keys: &'a [String],
    cells: &'a [String],
}

impl Serialize for RowCells<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.keys.len()))?;
        // As many cells as the header has: a short row's missing ones are empty.
        let cells = self
            .cells
            .iter()
            .map(String::as_str)
            .chain(std::iter::repeat(""));
        for (key, cell) in self.keys.iter().zip(cells) {
            map.serialize_entry(key, &redact(cell))?;
        }
        map.end()
    }
}

/// The most rows the table keeps (it is laid out at the end, so it holds its rows): a
/// day's rows that need a look fit; more are counted, and `-o csv` streams every one.
pub(crate) const TABLE_ROWS: usize = 1000;

/// Writes reconciled rows.
pub(crate) type ReconcileWriter = Writer<RowView>;

/// A row's record in each format, for a file with `header`.
pub(crate) struct RowView {
    header: Arc<[String]>,
    /// The keys of jsonl's `row` object.
    row_keys: Vec<String>,
    /// Which of the row's cells is the reference, for the table.
    reference_column: usize,
    /// `--all`: the table lists MATCHED rows too.
    all: bool,
    /// The order id column, which the table leads with when the file has one.
    order_column: Option<usize>,
}

impl RowView {
    /// The view of a file with `header`; the table lists every row with `all`, and leads
    /// with the order id in `order_column`.
    pub(crate) fn new(
        header: Arc<[String]>,
        reference_column: usize,
        all: bool,
        order_column: Option<usize>,
    ) -> Self {
        RowView {
            row_keys: row_keys(&header),
            header,
            reference_column,
            all,
            order_column,
        }
    }

    /// The row's own cells, as many as the header has.
    fn padded(&self, row: &RowRecord) -> Vec<String> {
        let mut cells = row.cells.clone();
        cells.resize(self.header.len(), String::new());
        cells
    }
}

impl View for RowView {
    type Record = RowRecord;
    const TABLE_ROWS: usize = TABLE_ROWS;

    fn csv_header(&self) -> Vec<String> {
        let own = csv::named_cells(&ResultCells::default());
        let own = own.into_iter().map(|(name, _)| name);
        self.header.iter().cloned().chain(own).collect()
    }

    fn csv_cells(&self, row: &RowRecord) -> Vec<String> {
        let own = csv::named_cells(&ResultCells::of(row));
        let mut cells = self.padded(row);
        cells.extend(own.into_iter().map(|(_, cell)| cell));
        cells
    }

    fn csv_input_cells(&self) -> usize {
        self.header.len()
    }

    fn json(&self, record: &RowRecord) -> String {
        let row = RowCells {
            keys: &self.row_keys,
            cells: &record.cells,
        };
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

    fn table_row(&self, row: &RowRecord) -> Option<Vec<String>> {
        if !self.all && row.clean() {
            return None;
        }
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
            terminal::cell(&reference.unwrap_or_default(), 64),
            row.result.name().to_owned(),
            // The currencies are the file's and the service's text.
            terminal::scrub(&shown(row.expected_amount_kobo, row_currency).unwrap_or_default()),
            terminal::scrub(&shown(row.gateway_amount_kobo, gateway_currency).unwrap_or_default()),
            terminal::scrub(&difference.unwrap_or_default()),
            terminal::cell(row.checks.as_deref().unwrap_or_default(), 64),
            terminal::cell(row.error.as_deref().unwrap_or_default(), 120),
        ];
        let order = self.order_column.map(|i| {
            let id = row.cells.get(i).map_or("", String::as_str);
            terminal::cell(id, 32)
        });
        Some(order.into_iter().chain(cells).collect())
    }

    fn table(&self, rows: &[Vec<String>], style: Style) -> String {
        let mut table = new_table(style);
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
        if let Some(width) = style.width.filter(|_| style.tty) {
            table.set_width(width);
        }
        for row in rows {
            table.add_row(row);
        }
        table_text(&table, style)
    }

    fn key<'a>(&self, row: &'a RowRecord) -> &'a str {
        row.cells
            .get(self.reference_column)
            .map_or("", String::as_str)
    }

    /// The file's own columns, then the result's, with each amount once, as a number in
    /// its currency (the CSV's kobo and naira columns in one).
    fn xlsx_header(&self) -> Vec<String> {
        let own = XLSX_RESULT_COLUMNS.iter().map(|&name| name.to_owned());
        self.header.iter().cloned().chain(own).collect()
    }

    fn xlsx_cells(&self, row: &RowRecord) -> Vec<XlsxCell> {
        let expected = row.row_currency.trim().to_ascii_uppercase();
        let gateway = row.gateway_currency.as_deref().unwrap_or(&expected);
        let money = |minor: Option<i128>, currency: &str| {
            minor.map_or(XlsxCell::Empty, |minor| XlsxCell::Money {
                minor,
                naira: is_naira(currency),
            })
        };
        // A difference between two currencies is no amount in either.
        let difference = match row.same_currency() {
            true => money(row.difference_kobo, &expected),
            false => XlsxCell::Empty,
        };
        // The file's cells as they were: text, never read as numbers or dates here.
        let own = self.padded(row).into_iter().map(XlsxCell::text);
        own.chain([
            XlsxCell::text(row.result.name()),
            difference,
            XlsxCell::opt_text(row.gateway_status.as_deref()),
            XlsxCell::opt_text(row.gateway_code.as_deref()),
            money(row.gateway_amount_kobo.map(i128::from), gateway),
            money(row.expected_amount_kobo.map(i128::from), &expected),
            XlsxCell::text(expected.clone()),
            XlsxCell::opt_text(row.gateway_currency.as_deref()),
            XlsxCell::opt_text(row.checks.as_deref()),
            XlsxCell::opt_text(row.error.as_deref()),
        ])
        .collect()
    }

    /// Every row but a clean one ([`RowRecord::clean`]): what the table lists.
    fn needs_look(&self, row: &RowRecord) -> bool {
        !row.clean()
    }

    fn name(&self, row: &RowRecord) -> &'static str {
        row.result.name()
    }
}

/// The columns the workbook's row sheets add after the file's own.
const XLSX_RESULT_COLUMNS: [&str; 10] = [
    "result",
    "difference",
    "gateway_status",
    "gateway_code",
    "gateway_amount",
    "expected_amount",
    "expected_currency",
    "gateway_currency",
    "checks",
    "error",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV header is the file's own, then the field names of [`ResultCells`]: a field
    /// added without its column (or a column without its field) fails here.
    #[test]
    fn the_csv_header_is_the_files_then_the_fields_of_the_record() {
        let view = RowView::new(Arc::from(["Order".to_owned()]), 0, false, None);
        assert_eq!(view.csv_header()[0], "Order");
        assert_eq!(
            view.csv_header()[1..],
            [
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
            ]
        );
    }
}
