//! The batch table for people: one row per reference, laid out to the terminal's width.
//!
//! The reference and the outcome are what a reader scans for, so they are never split;
//! the other cells wrap at spaces, and a word wider than its column is cut with `…`
//! rather than broken across lines (`SUCCESSF|UL`). When the terminal is too narrow for
//! every column, the others share one `Details` column, a line each.

use comfy_table::{Attribute, Cell, Color, ContentArrangement};

use crate::domain::outcome::OutcomeKind;
use crate::render::{Style, new_table, table_text};

/// The column headers, in order; the first two never split.
pub(crate) const HEADERS: [&str; 7] = [
    "Reference",
    "Outcome",
    "Code",
    "Amount",
    "Merchant ref",
    "Checks",
    "Error",
];

/// The narrowest a wrapping column may be before the layout falls back to `Details`.
const MIN_COLUMN: usize = 8;

/// One row's cells, in [`HEADERS`] order, already made safe for a terminal.
pub(crate) type Row = Vec<String>;

/// The outcome cell, coloured as the single table colours its Status.
fn outcome_cell(outcome: &str, color: bool) -> Cell {
    let cell = Cell::new(outcome);
    if !color {
        return cell;
    }
    match OutcomeKind::parse(outcome) {
        Some(OutcomeKind::Successful) => cell.fg(Color::Green).add_attribute(Attribute::Bold),
        Some(OutcomeKind::Failed | OutcomeKind::CheckFailed) => {
            cell.fg(Color::Red).add_attribute(Attribute::Bold)
        }
        _ => cell.fg(Color::Yellow),
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// `text` wrapped at spaces to `width` characters a line; a word wider than that is cut
/// to fit, ending in `…`.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let word = if chars(word) > width {
            let mut cut: String = word.chars().take(width - 1).collect();
            cut.push('…');
            cut
        } else {
            word.to_owned()
        };
        if line.is_empty() {
            line = word;
        } else if chars(&line) + 1 + chars(&word) <= width {
            line.push(' ');
            line.push_str(&word);
        } else {
            lines.push(std::mem::replace(&mut line, word));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// Shares `room` among columns that would like `natural` widths: none gets more than it
/// needs, and what a narrow column leaves goes to the wider ones.
fn share(natural: &[usize], room: usize) -> Vec<usize> {
    let mut widths = vec![0; natural.len()];
    let mut open: Vec<usize> = (0..natural.len()).collect();
    let mut left = room;
    while !open.is_empty() {
        let fair = left / open.len();
        let (fits, wide): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&i| natural[i] <= fair);
        if fits.is_empty() {
            for &i in &wide {
                widths[i] = fair;
            }
            break;
        }
        for &i in &fits {
            widths[i] = natural[i];
            left -= natural[i];
        }
        open = wide;
    }
    widths
}

/// The table as text, without a trailing newline. `width` is the terminal's, when known.
pub(crate) fn render(rows: &[Row], style: Style) -> String {
    let mut table = new_table(style);
    let natural = |col: usize| {
        rows.iter()
            .flat_map(|r| r[col].lines())
            .map(chars)
            .chain([chars(HEADERS[col])])
            .max()
            .unwrap_or(0)
    };
    let width = if style.tty { style.width } else { None };
    let Some(width) = width.map(usize::from) else {
        // Off a terminal (or of unknown width) nothing wraps: one line per reference.
        table.set_header(HEADERS);
        for row in rows {
            let mut cells: Vec<Cell> = row.iter().map(Cell::new).collect();
            cells[1] = outcome_cell(&row[1], style.color);
            table.add_row(cells);
        }
        return table_text(&table, style);
    };
    table.set_content_arrangement(ContentArrangement::Disabled);
    // Borders and padding: `│ ` before each column and ` │` after the last.
    let border = |columns: usize| 3 * columns + 1;
    let fixed = natural(0) + natural(1);
    let flex: Vec<usize> = (2..7).map(natural).collect();
    let room = width.saturating_sub(border(7) + fixed);
    let minimum: usize = flex.iter().map(|&n| n.min(MIN_COLUMN)).sum();
    if room >= minimum {
        let widths = share(&flex, room);
        table.set_header(HEADERS);
        for row in rows {
            let mut cells = vec![Cell::new(&row[0]), outcome_cell(&row[1], style.color)];
            cells.extend((2..7).map(|c| Cell::new(wrap(&row[c], widths[c - 2]))));
            table.add_row(cells);
        }
    } else {
        let room = width.saturating_sub(border(3) + fixed).max(MIN_COLUMN);
        table.set_header(["Reference", "Outcome", "Details"]);
        for row in rows {
            let details: Vec<String> = (2..7)
                .filter(|&c| !row[c].is_empty())
                .map(|c| match c {
                    2 => format!("code {}", row[c]),
                    _ => row[c].clone(),
                })
                .map(|text| wrap(&text, room))
                .collect();
            table.add_row(vec![
                Cell::new(&row[0]),
                outcome_cell(&row[1], style.color),
                Cell::new(details.join("\n")),
            ]);
        }
    }
    table_text(&table, style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("hmac valid", 20), "hmac valid");
        assert_eq!(
            wrap("amount: expected ₦400.00", 10),
            "amount:\nexpected\n₦400.00"
        );
        assert_eq!(wrap("SBX-873701852981995", 8), "SBX-873…");
        assert_eq!(wrap("", 8), "");
    }

    #[test]
    fn share_gives_narrow_columns_what_they_need() {
        assert_eq!(share(&[4, 30, 30], 40), vec![4, 18, 18]);
        assert_eq!(share(&[4, 10], 40), vec![4, 10]);
    }
}
