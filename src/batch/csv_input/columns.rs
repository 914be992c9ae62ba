//! Which of the file's columns holds what: the delimiter from the header line, and each
//! column by its header name (or the flag that names it).

use super::*;
use crate::exit::Failure;
use crate::terminal;

/// Header names tried for each column, in order, when no flag names it.
pub(super) const REFERENCE_NAMES: [&str; 6] = [
    "reference",
    "ref",
    "transaction ref",
    "transactionRef",
    "payment reference",
    "reference number",
];
pub(super) const AMOUNT_NAMES: [&str; 5] = [
    "amount",
    "expected amount",
    "amount paid",
    "total",
    "order total",
];
pub(super) const CURRENCY_NAMES: [&str; 2] = ["currency", "currency code"];
// Never an order id column: a shop's order id is usually only part of the gateway's
// merchantRef (`<order id>_<suffix>`), and a wrong guess would fail every row.
pub(super) const MERCHANT_REF_NAMES: [&str; 1] = ["merchant ref"];

/// The delimiter the header line uses most, outside quotes: `,`, `;` or tab (`,` on a tie
/// or when there is none).
pub(super) fn detect_delimiter(line: &[u8]) -> u8 {
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(slot) = counts.iter_mut().find(|(d, _)| *d == b) {
            slot.1 += 1;
        }
    }
    let mut best = counts[0];
    for candidate in &counts[1..] {
        if candidate.1 > best.1 {
            best = *candidate;
        }
    }
    best.0
}

/// A header name as matched: lower case, without spaces, `_` and `-`.
pub(super) fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-' && *c != '\u{feff}')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The columns the rows are read by, or a usage error that lists the header and the flag.
pub(super) fn find_columns(
    header: &[String],
    options: &CsvOptions,
    name: &str,
) -> Result<(Columns, Vec<String>), Failure> {
    let warnings = std::cell::RefCell::new(Vec::new());
    let listed = || {
        header
            .iter()
            .map(|h| terminal::quoted(h))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let find = |what: &str, flag: &str, given: &Option<String>, names: &[&str], required: bool| {
        let matching = |wanted: &str| -> Vec<usize> {
            let wanted = normalized(wanted);
            (0..header.len())
                .filter(|&i| normalized(&header[i]) == wanted)
                .collect()
        };
        let found = match given {
            // Exact spelling first, so two headers that differ only in case or spacing can
            // still be told apart.
            Some(g) => match header.iter().filter(|h| *h == g).count() {
                1 => header.iter().position(|h| h == g).into_iter().collect(),
                _ => matching(g),
            },
            None => names
                .iter()
                .map(|n| matching(n))
                .find(|m| !m.is_empty())
                .unwrap_or_default(),
        };
        match found.as_slice() {
            [one] => {
                // Another candidate name matching another column: the choice follows the
                // documented order, but one of the two may contradict the result.
                let others: Vec<usize> = match given {
                    Some(_) => Vec::new(),
                    None => (0..header.len())
                        .filter(|&i| {
                            i != *one
                                && names
                                    .iter()
                                    .any(|n| normalized(&header[i]) == normalized(n))
                        })
                        .collect(),
                };
                if !others.is_empty() {
                    warnings.borrow_mut().push(format!(
                        "{name}: columns {} and {} could both be the {what} column; column {} ({}) is used (choose with {flag} NAME)",
                        one + 1,
                        others
                            .iter()
                            .map(|i| format!("{} ({})", i + 1, terminal::quoted(&header[*i])))
                            .collect::<Vec<_>>()
                            .join(", "),
                        one + 1,
                        terminal::quoted(&header[*one]),
                    ));
                }
                Ok(Some(*one))
            }
            [] if !required && given.is_none() => Ok(None),
            [] => {
                let tried = match given {
                    Some(g) => format!("no column is named {}", terminal::quoted(g)),
                    None => format!(
                        "no {what} column (looked for {})",
                        names
                            .iter()
                            .map(|n| format!("'{n}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                Err(Failure::usage(format!(
                    "{name}: {tried}; its header row has {}; name the {what} column with {flag} NAME",
                    listed()
                )))
            }
            many => Err(Failure::usage(format!(
                "{name}: the {what} column is ambiguous: columns {} match; its header row has {}; \
                 name the one to use with {flag} NAME",
                many.iter()
                    .map(|i| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                listed()
            ))),
        }
    };
    let reference = find(
        "reference",
        "--reference-column",
        &options.reference_column,
        &REFERENCE_NAMES,
        true,
    )?;
    let amount = find(
        "amount",
        "--amount-column",
        &options.amount_column,
        &AMOUNT_NAMES,
        true,
    )?;
    let currency = find(
        "currency",
        "--currency-column",
        &options.currency_column,
        &CURRENCY_NAMES,
        false,
    )?;
    let merchant_ref = find(
        "merchant ref",
        "--merchant-ref-column",
        &options.merchant_ref_column,
        &MERCHANT_REF_NAMES,
        false,
    )?;
    match (reference, amount) {
        (Some(reference), Some(amount)) => Ok((
            Columns {
                reference,
                amount,
                currency,
                merchant_ref,
            },
            warnings.into_inner(),
        )),
        // Both are required, so `find` returned an error rather than `None`.
        _ => Err(Failure::usage(format!(
            "{name}: no reference or amount column"
        ))),
    }
}
