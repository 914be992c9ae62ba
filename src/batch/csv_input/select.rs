//! Which rows a run is about: `--only COLUMN=PATTERN` (the rest SKIPPED), and whether a
//! row with no reference is a gateway payment at all (its payment method column).

use super::columns::normalized;
use crate::exit::Failure;
use crate::terminal;

/// One `--only COLUMN=PATTERN`: the rows whose COLUMN cell matches PATTERN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Only {
    /// The header name, as given.
    pub(crate) column: String,
    /// The pattern: the whole cell, case ignored, `*` standing for any text.
    pub(crate) pattern: String,
}

impl Only {
    /// `COLUMN=PATTERN`, split at its first `=`.
    pub(crate) fn parse(text: &str) -> Result<Only, String> {
        match text.split_once('=') {
            Some((column, pattern)) if !column.trim().is_empty() => Ok(Only {
                column: column.to_owned(),
                pattern: pattern.to_owned(),
            }),
            _ => Err("expected COLUMN=PATTERN, such as \"Payment Method=paywithbank3d\"".into()),
        }
    }
}

/// `--only` filters with their columns found in the header: a row is in the run when every
/// one matches.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection(Vec<(usize, Only)>);

impl Selection {
    /// Finds each filter's column: the header name as written (spaces around it aside), or
    /// else the one header that matches it as column names are matched (case, spacing,
    /// punctuation). A name no column has, or several have, is a usage error listing the
    /// header.
    pub(crate) fn find(only: &[Only], header: &[String], name: &str) -> Result<Self, Failure> {
        let mut found = Vec::with_capacity(only.len());
        for filter in only {
            let wanted = filter.column.trim();
            let exact: Vec<usize> = (0..header.len())
                .filter(|&i| header[i].trim() == wanted)
                .collect();
            let columns = match exact.is_empty() {
                false => exact,
                true => (0..header.len())
                    .filter(|&i| normalized(&header[i]) == normalized(wanted))
                    .collect(),
            };
            match columns.as_slice() {
                [one] => found.push((*one, filter.clone())),
                none_or_many => {
                    let why = match none_or_many.is_empty() {
                        true => "no column is named that",
                        false => "several columns are named that",
                    };
                    let listed: Vec<String> = header.iter().map(|h| terminal::quoted(h)).collect();
                    return Err(Failure::usage(format!(
                        "--only {}: {why} in {name}; its header row has {}",
                        terminal::quoted(&filter.column),
                        listed.join(", ")
                    )));
                }
            }
        }
        Ok(Selection(found))
    }

    /// Whether there is no `--only`.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first filter `cells` do not match, as the row's note, or `None` when the row is
    /// in the run.
    pub(crate) fn left_out(&self, cells: &[String]) -> Option<String> {
        self.0.iter().find_map(|(i, only)| {
            let cell = cells.get(*i).map_or("", String::as_str);
            (!matches(&only.pattern, cell)).then(|| {
                format!(
                    "left out by --only {}={}",
                    terminal::quoted(&only.column),
                    terminal::quoted(&only.pattern)
                )
            })
        })
    }
}

/// Whether `cell` (spaces around it aside) is `pattern`, case ignored, each `*` of the
/// pattern standing for any text (none too).
pub(crate) fn matches(pattern: &str, cell: &str) -> bool {
    let pattern: Vec<char> = pattern
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .collect();
    let text: Vec<char> = cell.trim().chars().flat_map(char::to_lowercase).collect();
    // The usual single-star backtracking: linear passes, never exponential.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// Whether a payment method cell names the gateway: `paywithbank3d` (WooCommerce's
/// method id) or a title holding `PayWithBank3D` or `Bank3D`, case, spaces and
/// punctuation aside.
pub(crate) fn is_gateway_method(cell: &str) -> bool {
    // Every letter and digit of the cell: a header's `(Billing)` is dropped when columns
    // are named, but a method's `Card (PayWithBank3D)` names the gateway in its brackets.
    crate::domain::shop::plain(cell).contains("bank3d")
}

/// The methods besides the gateway a payment method cell names, when it names the gateway
/// and another, as Shopify joins them with ` + `: `Gift Card` of `Gift Card +
/// PayWithBank3D`; `None` for the gateway alone, another method alone, or none.
pub(crate) fn other_methods(cell: &str) -> Option<String> {
    // Split only outside brackets: `PayWithBank3D (Card + Bank Account + USSD)` is the
    // gateway's own title for its channels, one method, never a split payment.
    let mut depth = 0usize;
    let parts = cell
        .split(|c: char| {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            c == '+' && depth == 0
        })
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let (gateway, others): (Vec<&str>, Vec<&str>) = parts.partition(|p| is_gateway_method(p));
    (!gateway.is_empty() && !others.is_empty()).then(|| others.join(" + "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_cells_case_ignored() {
        assert!(matches("paywithbank3d", " PayWithBank3D "));
        assert!(matches("2026-11-21*", "2026-11-21 08:02:11"));
        assert!(matches("*bank3d*", "PayWithBank3D (Card)"));
        assert!(matches("", ""));
        assert!(matches("*", "anything"));
        assert!(!matches("paywithbank3d", "paywithbank3d2"));
        assert!(!matches("cod", "cash on delivery"));
        assert!(!matches("", "x"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
    }

    #[test]
    fn the_gateway_is_told_from_other_methods() {
        for yes in [
            "paywithbank3d",
            "PayWithBank3D (Card, Bank Account, USSD)",
            "Pay With Bank3D",
            "Card (PayWithBank3D)",
            "Card (via PayWithBank3D)",
        ] {
            assert!(is_gateway_method(yes), "{yes}");
        }
        for no in [
            "cod",
            "Cash on delivery",
            "bacs",
            "Direct bank transfer",
            "",
            "3d",
        ] {
            assert!(!is_gateway_method(no), "{no}");
        }
    }

    #[test]
    fn a_split_payment_names_the_gateway_and_another_method() {
        for (cell, others) in [
            ("Gift Card + PayWithBank3D", Some("Gift Card")),
            (
                "PayWithBank3D+Store credit + Gift Card",
                Some("Store credit + Gift Card"),
            ),
            ("PayWithBank3D", None),
            ("Gift Card", None),
            ("Gift Card + Bank Deposit", None),
            ("PayWithBank3D + ", None),
            ("PayWithBank3D (Card + Bank Account + USSD)", None),
            ("PayWithBank3D [Gift Card + Card]", None),
            ("Gift Card + PayWithBank3D (Card + USSD)", Some("Gift Card")),
            ("", None),
        ] {
            assert_eq!(other_methods(cell).as_deref(), others, "{cell}");
        }
    }

    #[test]
    fn only_is_column_equals_pattern() {
        assert_eq!(
            Only::parse("Payment Method=cod=x").unwrap(),
            Only {
                column: "Payment Method".into(),
                pattern: "cod=x".into()
            }
        );
        assert!(Only::parse("=cod").is_err());
        assert!(Only::parse("cod").is_err());
        let header = ["Order #".to_owned(), "Payment Method".to_owned()];
        let only = [Only::parse("payment_method=cod").unwrap()];
        let found = Selection::find(&only, &header, "f").unwrap();
        assert_eq!(found.left_out(&["1".into(), "COD".into()]), None);
        assert!(found.left_out(&["1".into(), "bacs".into()]).is_some());
        let missing = Selection::find(&[Only::parse("Status=x").unwrap()], &header, "f");
        assert!(
            missing
                .unwrap_err()
                .message
                .contains("no column is named that")
        );
    }
}
