//! reconcile's totals as people and scripts read them: the summary table on stderr and
//! the `--summary-json` file, both views of [`Summary`].

use comfy_table::{Cell, CellAlignment};
use serde_json::{Map, Value};

use crate::domain::money::{naira_decimal_total, naira_total};
use crate::domain::reconcile::RESULT_NAMES;
use crate::domain::row_record::{NAIRA, is_naira, money};
use crate::domain::totals::{Block, Summary};
use crate::exit::Exit;
use crate::render::{Style, new_table, table_text};
use crate::terminal;

/// The summary for people: a table per result, then the overall figures, in naira;
/// rows in another currency each get their own block after it, never added in.
pub(crate) fn summary_table(summary: &Summary, style: Style) -> String {
    let mut text = Vec::new();
    for (currency, block) in summary.ordered() {
        if !is_naira(currency) {
            text.push(format!(
                "Rows in {} (not included in the naira totals):",
                terminal::scrub(currency)
            ));
        }
        text.push(block_table(&block, currency, style));
    }
    text.join("\n")
}

/// The summary for scripts (`--summary-json`): the naira rows' totals at the top level
/// (kobo as integers and naira as exact decimal strings, as before), and each other
/// currency's under `other_currencies`; `rows` counts every row decided, and
/// `rows_not_reached` those the run never decided (0 when `complete`; null when it
/// ended before reading the whole file, so their number is not known).
pub(crate) fn summary_json(summary: &Summary, exit: Exit) -> Value {
    let naira = summary.blocks.get(NAIRA).cloned().unwrap_or_default();
    let mut top = block_json(&naira, "kobo", "naira");
    let mut others = Map::new();
    for (currency, block) in &summary.blocks {
        if currency != NAIRA {
            let mut value = block_json(block, "minor", "");
            value.insert("rows".into(), block.all.rows.into());
            others.insert(currency.clone(), Value::Object(value));
        }
    }
    let mut out = Map::new();
    out.insert("rows".into(), summary.rows.into());
    out.insert("exit_code".into(), exit.code().into());
    out.insert("interrupted".into(), (exit == Exit::Interrupted).into());
    out.insert("complete".into(), summary.incomplete.is_none().into());
    let not_reached = match summary.incomplete {
        None => Value::from(0u64),
        Some(known) => known.map_or(Value::Null, Value::from),
    };
    out.insert("rows_not_reached".into(), not_reached);
    let input_error = summary
        .input_error
        .as_deref()
        .map(|why| Value::from(crate::secret::redact(why).into_owned()));
    out.insert("input_error".into(), input_error.unwrap_or(Value::Null));
    out.append(&mut top);
    out.insert("other_currencies".into(), Value::Object(others));
    Value::Object(out)
}

fn block_table(block: &Block, currency: &str, style: Style) -> String {
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
    for (slot, totals) in &block.by_result {
        table.add_row(vec![
            Cell::new(RESULT_NAMES[*slot]),
            right(totals.rows.to_string()),
            right(naira_total(totals.expected)),
            right(naira_total(totals.gateway)),
        ]);
    }
    table.add_row(vec![
        Cell::new("Total"),
        right(block.all.rows.to_string()),
        right(naira_total(block.all.expected)),
        right(naira_total(block.all.gateway)),
    ]);
    let mut overall = new_table(style);
    for (what, _, minor) in overall_figures(block) {
        overall.add_row(vec![Cell::new(what), right(money(currency, minor))]);
    }
    format!(
        "{}\n{}",
        table_text(&table, style),
        table_text(&overall, style)
    )
}

/// The block's overall figures, in the order both views list them: the table's label,
/// the JSON name, the amount in minor units.
pub(crate) fn overall_figures(block: &Block) -> [(&'static str, &'static str, i128); 7] {
    [
        ("Expected total", "expected_total", block.all.expected),
        (
            "Collected (SUCCESSFUL at the gateway)",
            "collected_total",
            block.collected,
        ),
        ("Confirmed (MATCHED)", "matched_total", block.matched),
        ("At risk (rows that need a look)", "at_risk", block.at_risk),
        (
            "Skipped (not gateway payments, --only)",
            "skipped_total",
            block.skipped,
        ),
        (
            "Paid by other methods (SPLIT_PAID)",
            "other_methods_total",
            block.other_methods,
        ),
        (
            "Underpaid/overpaid net (gateway - expected)",
            "net_difference",
            block.net_difference,
        ),
    ]
}

/// The block's figures as JSON fields: `..._{minor}` integers and exact `..._{major}`
/// decimal strings (no suffix when `major` is empty).
fn block_json(block: &Block, minor: &str, major: &str) -> Map<String, Value> {
    let key = |name: &str, unit: &str| match unit {
        "" => name.to_owned(),
        unit => format!("{name}_{unit}"),
    };
    let mut results = Map::new();
    for (slot, totals) in &block.by_result {
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
    for (_, name, value) in overall_figures(block) {
        out.insert(key(name, minor), serde_json::json!(value));
        out.insert(key(name, major), naira_decimal_total(value).into());
    }
    out
}
