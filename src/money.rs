//! Amounts in kobo (100 kobo = 1 naira): formatting and exact parsing, never via floats.

use std::fmt;

/// An amount in kobo, the minor unit the service reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kobo(pub i64);

impl Kobo {
    /// The amount as naira with thousands separators and two decimals: `40,000.00`.
    pub fn naira_figure(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let whole = abs / 100;
        let fraction = abs % 100;
        format!("{sign}{}.{fraction:02}", group_thousands(whole))
    }

    /// The amount in naira as a plain decimal, `40000.00`, for spreadsheets.
    pub fn naira_decimal(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    }

    /// The amount for people: `₦40,000.00 (4000000 kobo)`; other currencies by code.
    pub fn display_with_currency(self, currency: Option<&str>) -> String {
        let figure = self.naira_figure();
        match currency {
            None | Some("NGN") => format!("₦{figure} ({} kobo)", self.0),
            Some(code) => format!("{code} {figure} ({} minor units)", self.0),
        }
    }

    /// Parses a naira amount with at most two fraction digits (`40000`, `40000.5`,
    /// `40000.50`) exactly into kobo. Thousands separators, signs and exponents are refused.
    pub fn parse_naira(input: &str) -> Result<Kobo, AmountError> {
        let s = input.trim();
        let (whole, fraction) = match s.split_once('.') {
            Some((w, f)) => (w, f),
            None => (s, ""),
        };
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || (s.contains('.') && !digits(fraction)) {
            return Err(AmountError::NotANumber(input.to_owned()));
        }
        if fraction.len() > 2 {
            return Err(AmountError::TooPrecise(input.to_owned()));
        }
        let whole: i64 = whole
            .parse()
            .map_err(|_| AmountError::TooLarge(input.to_owned()))?;
        let mut frac: i64 = if fraction.is_empty() {
            0
        } else {
            fraction
                .parse()
                .map_err(|_| AmountError::NotANumber(input.to_owned()))?
        };
        if fraction.len() == 1 {
            frac *= 10;
        }
        whole
            .checked_mul(100)
            .and_then(|k| k.checked_add(frac))
            .map(Kobo)
            .ok_or_else(|| AmountError::TooLarge(input.to_owned()))
    }

    /// Parses a whole number of kobo (non-negative).
    pub fn parse_kobo(input: &str) -> Result<Kobo, AmountError> {
        let s = input.trim();
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(AmountError::NotANumber(input.to_owned()));
        }
        s.parse()
            .map(Kobo)
            .map_err(|_| AmountError::TooLarge(input.to_owned()))
    }
}

impl fmt::Display for Kobo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Why an amount given on the command line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmountError {
    /// Not a plain non-negative decimal number.
    NotANumber(String),
    /// More than two fraction digits: kobo cannot hold it.
    TooPrecise(String),
    /// Does not fit in 64 bits of kobo.
    TooLarge(String),
}

impl fmt::Display for AmountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AmountError::NotANumber(s) => write!(f, "'{s}' is not a non-negative decimal amount"),
            AmountError::TooPrecise(s) => {
                write!(
                    f,
                    "'{s}' has more than two fraction digits (kobo is the smallest unit)"
                )
            }
            AmountError::TooLarge(s) => write!(f, "'{s}' is too large"),
        }
    }
}

impl std::error::Error for AmountError {}

fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_naira_with_separators() {
        let cases = [
            (0, "₦0.00 (0 kobo)"),
            (1, "₦0.01 (1 kobo)"),
            (99, "₦0.99 (99 kobo)"),
            (100, "₦1.00 (100 kobo)"),
            (150, "₦1.50 (150 kobo)"),
            (4_000_000, "₦40,000.00 (4000000 kobo)"),
            (123_456_789_012, "₦1,234,567,890.12 (123456789012 kobo)"),
            (
                i64::MAX,
                "₦92,233,720,368,547,758.07 (9223372036854775807 kobo)",
            ),
        ];
        for (kobo, want) in cases {
            assert_eq!(Kobo(kobo).display_with_currency(Some("NGN")), want);
        }
        assert_eq!(Kobo(-150).naira_figure(), "-1.50");
        assert_eq!(Kobo(4_000_000).naira_decimal(), "40000.00");
        assert_eq!(Kobo(5).naira_decimal(), "0.05");
        assert_eq!(Kobo(-150).naira_decimal(), "-1.50");
        assert_eq!(Kobo(i64::MIN).naira_figure(), "-92,233,720,368,547,758.08");
        assert_eq!(
            Kobo(250).display_with_currency(Some("USD")),
            "USD 2.50 (250 minor units)"
        );
    }

    #[test]
    fn parses_naira_exactly() {
        assert_eq!(Kobo::parse_naira("40000"), Ok(Kobo(4_000_000)));
        assert_eq!(Kobo::parse_naira("40000.5"), Ok(Kobo(4_000_050)));
        assert_eq!(Kobo::parse_naira("40000.50"), Ok(Kobo(4_000_050)));
        assert_eq!(Kobo::parse_naira("0.07"), Ok(Kobo(7)));
        assert_eq!(Kobo::parse_naira("0.1"), Ok(Kobo(10)));
        for bad in [
            "12.345", "abc", "-5", "", ".5", "5.", "1e3", "1,000", "+5", " . ",
        ] {
            assert!(Kobo::parse_naira(bad).is_err(), "{bad:?} should be refused");
        }
        assert!(matches!(
            Kobo::parse_naira("99999999999999999999"),
            Err(AmountError::TooLarge(_))
        ));
        assert!(matches!(
            Kobo::parse_naira("92233720368547758.08"),
            Err(AmountError::TooLarge(_))
        ));
    }

    #[test]
    fn parses_kobo() {
        assert_eq!(Kobo::parse_kobo("4000000"), Ok(Kobo(4_000_000)));
        assert!(Kobo::parse_kobo("-1").is_err());
        assert!(Kobo::parse_kobo("1.5").is_err());
    }
}
