//! The field/value table for people.

use comfy_table::{Attribute, Cell, Color};

use crate::domain::checks::Integrity;
use crate::domain::model::Verification;
use crate::render::{Style, new_table, table_text};

/// Shown where the service sent no value.
const MISSING: &str = "-";

/// The rows of the table: label and value, in reading order.
pub(crate) fn rows(v: &Verification, integrity: Option<&Integrity>) -> Vec<(&'static str, String)> {
    let text = |o: &Option<String>| o.clone().unwrap_or_else(|| MISSING.to_owned());
    let code = match (&v.code, &v.description) {
        (Some(c), Some(d)) => format!("{c} ({d})"),
        (Some(c), None) => c.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => MISSING.to_owned(),
    };
    let amount = v
        .amount
        .map(|k| k.display_with_currency(v.currency.as_deref()))
        .unwrap_or_else(|| MISSING.to_owned());
    vec![
        ("Status", text(&v.status)),
        ("Code", code),
        ("Amount", amount),
        ("Currency", text(&v.currency)),
        ("Merchant ref", text(&v.merchant_ref)),
        ("Transaction ref", text(&v.transaction_ref)),
        ("Payment ref", text(&v.payment_ref)),
        ("Option", text(&v.option)),
        ("Next action", text(&v.next_action)),
        ("Mode", text(&v.mode)),
        ("Transaction date", text(&v.transaction_date)),
        ("Payment date", text(&v.payment_date)),
        ("Card PAN", text(&v.card.pan)),
        ("Card expiry", text(&v.card.expiry)),
        ("Card expiry date", text(&v.card.expiry_date)),
        (
            "Integrity",
            integrity
                .map(Integrity::to_string)
                .unwrap_or_else(|| MISSING.to_owned()),
        ),
    ]
}

/// The table as text (no trailing newline).
pub(crate) fn verification(
    v: &Verification,
    integrity: Option<&Integrity>,
    style: Style,
) -> String {
    let mut table = new_table(style);
    for (label, value) in rows(v, integrity) {
        let mut value_cell = Cell::new(crate::terminal::scrub(&value));
        if style.color {
            let good = match label {
                "Status" => Some(value == "SUCCESSFUL"),
                "Integrity" => Some(value == Integrity::Valid.to_string()),
                _ => None,
            };
            value_cell = match (label, good) {
                (_, None) => value_cell,
                (_, Some(true)) => value_cell.fg(Color::Green).add_attribute(Attribute::Bold),
                ("Status", _) if value == "FAILED" => {
                    value_cell.fg(Color::Red).add_attribute(Attribute::Bold)
                }
                ("Integrity", _) if value == Integrity::Mismatch.to_string() => {
                    value_cell.fg(Color::Red).add_attribute(Attribute::Bold)
                }
                _ => value_cell.fg(Color::Yellow),
            };
        }
        table.add_row(vec![Cell::new(label), value_cell]);
    }
    table_text(&table, style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::parse_object;

    fn sample() -> Verification {
        let raw = parse_object(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/verify-success.json"
        )))
        .unwrap();
        Verification::from_object(raw).unwrap()
    }

    #[test]
    fn plain_table_has_every_field_and_no_escapes() {
        let out = verification(
            &sample(),
            Some(&Integrity::Valid),
            Style {
                color: false,
                tty: false,
                width: None,
            },
        );
        assert!(!out.contains('\u{1b}'));
        assert!(out.contains("Integrity         hmac valid"), "{out}");
        for want in [
            "SUCCESSFUL",
            "00 (Approved by Financial Institution)",
            "₦40,000.00 (4000000 kobo)",
            "WQ-506391000507913",
            "0000000000000044177",
            "330137174040",
            "501501******5015",
            "01/30",
            "2030-01-31T23:59:00.000",
            "2022-11-14T22:34:24.913Z",
        ] {
            assert!(out.contains(want), "missing {want} in\n{out}");
        }
        assert_eq!(out.lines().count(), rows(&sample(), None).len());
    }

    #[test]
    fn missing_values_show_a_dash() {
        let v =
            Verification::from_object(parse_object(br#"{"status":"FAILED"}"#).unwrap()).unwrap();
        let rows = rows(&v, None);
        assert!(
            rows.iter()
                .filter(|(l, _)| *l != "Status")
                .all(|(_, v)| v == MISSING)
        );
    }

    #[test]
    fn colour_marks_the_status() {
        let out = verification(
            &sample(),
            None,
            Style {
                color: true,
                tty: false,
                width: None,
            },
        );
        assert!(out.contains('\u{1b}'), "{out}");
    }
}
