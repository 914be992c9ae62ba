//! Amounts in kobo (100 kobo = 1 naira): formatting and exact parsing, never via floats.

use std::fmt;

/// An amount in kobo, the minor unit the service reports.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Kobo(pub i64);

impl Kobo {
    /// The amount as naira with thousands separators and two decimals: `40,000.00`.
    pub fn naira_figure(self) -> String {
        naira_total(i128::from(self.0))
    }

    /// The amount in naira as a plain decimal, `40000.00`, for spreadsheets.
    pub fn naira_decimal(self) -> String {
        naira_decimal_total(i128::from(self.0))
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
    /// `40000.50`) exactly into kobo, written as people write it too: with the naira sign or
    /// code (`₦40,000.00`, `NGN 40000`, `40000 NGN`) and thousands separators in groups of
    /// three (`40,000`). Anything else with a comma (`400,50`, a decimal comma) is refused,
    /// never guessed at; so are signs and exponents.
    pub fn parse_naira(input: &str) -> Result<Kobo, AmountError> {
        let refuse = || AmountError::NotANumber(input.to_owned());
        let s = without_naira_mark(input.trim());
        let grouped = ungrouped(s).ok_or_else(refuse)?;
        let s = grouped.as_str();
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

    /// Reads a JSON number's text exactly as a whole, non-negative number of kobo.
    ///
    /// `4000000`, `4000000.0` and `4000000.00` are 4000000. An exponent is applied in exact
    /// integer arithmetic (`4e6` and `4.0E+6` are 4000000; `4000000e-1` is not whole). Any
    /// non-zero fraction, any minus sign (even `-0`), or a value beyond `i64` is refused
    /// with the reason, so a near-miss such as `3999999.9999999999999` can never round to a
    /// figure the caller expects.
    pub fn from_json_number(text: &str) -> Result<Kobo, &'static str> {
        if text.starts_with('-') {
            return Err("is negative");
        }
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], Some(&text[at + 1..])),
            None => (text, None),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) {
            return Err("is not a plain number");
        }
        // The value is DIGITS * 10^shift, where DIGITS is the mantissa without its point.
        let exponent: i64 = match exponent {
            None => 0,
            Some(e) => {
                let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
                if unsigned.is_empty() || !digits(unsigned) {
                    return Err("is not a plain number");
                }
                // An exponent too long for i64 saturates: the outcome is the same (zero
                // stays zero; anything else is not whole, or too large).
                match e.parse() {
                    Ok(n) => n,
                    Err(_) if e.starts_with('-') => i64::MIN,
                    Err(_) => i64::MAX,
                }
            }
        };
        let all = format!("{whole}{fraction}");
        let significant = all.trim_start_matches('0');
        if significant.is_empty() {
            return Ok(Kobo(0));
        }
        let shift = i128::from(exponent) - fraction.len() as i128;
        let kept = if shift < 0 {
            let dropped = usize::try_from(-shift).unwrap_or(usize::MAX);
            if dropped > significant.len() {
                return Err("is not a whole number of kobo");
            }
            let (kept, dropped) = significant.split_at(significant.len() - dropped);
            if dropped.bytes().any(|b| b != b'0') {
                return Err("is not a whole number of kobo");
            }
            kept
        } else {
            significant
        };
        let base: i64 = if kept.is_empty() {
            0
        } else {
            kept.parse().map_err(|_| "is too large")?
        };
        let scale = if shift > 0 {
            u32::try_from(shift)
                .ok()
                .and_then(|s| 10_i64.checked_pow(s))
                .ok_or("is too large")?
        } else {
            1
        };
        base.checked_mul(scale).map(Kobo).ok_or("is too large")
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
        }?;
        // Every refusal names what is accepted.
        write!(
            f,
            " (accepted: 0 to {} naira with at most two decimals, optionally written \
             ₦40,000.00 or NGN 40000, or 0 to {} kobo)",
            Kobo(i64::MAX).naira_decimal(),
            i64::MAX
        )
    }
}

impl std::error::Error for AmountError {}

/// Whether an amount is written with the naira sign or the `NGN` code (`₦40,000`,
/// `NGN 40000`, `40000 ngn`): such an amount says its own currency.
pub(crate) fn has_naira_mark(input: &str) -> bool {
    let s = input.trim();
    without_naira_mark(s).len() != s.len()
}

/// `s` without one leading `₦` or `NGN` (any case) or one trailing `NGN`, and the spaces
/// beside it.
fn without_naira_mark(s: &str) -> &str {
    let code =
        |t: &str| t.len() >= 3 && t.is_char_boundary(3) && t[..3].eq_ignore_ascii_case("NGN");
    if let Some(rest) = s.strip_prefix('₦') {
        return rest.trim_start();
    }
    if code(s) {
        return s[3..].trim_start();
    }
    let tail = s.len().saturating_sub(3);
    if s.is_char_boundary(tail) && code(&s[tail..]) {
        return s[..tail].trim_end();
    }
    s
}

/// The figure without thousands separators: `40,000.50` is `40000.50`. With a comma, the
/// whole part must be one to three digits, then groups of exactly three; `None` otherwise.
fn ungrouped(s: &str) -> Option<String> {
    if !s.contains(',') {
        return Some(s.to_owned());
    }
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let mut groups = whole.split(',');
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let first = groups.next()?;
    let first_ok = (1..=3).contains(&first.len()) && digits(first);
    if !first_ok || !groups.all(|g| g.len() == 3 && digits(g)) {
        return None;
    }
    let mut plain = whole.replace(',', "");
    if let Some(f) = fraction {
        plain.push('.');
        plain.push_str(f);
    }
    Some(plain)
}

/// A sum of many amounts in naira, `40,000.00`: sums of `i64` kobo are kept in `i128` so
/// that no file of rows can overflow them.
pub(crate) fn naira_total(kobo: i128) -> String {
    let sign = if kobo < 0 { "-" } else { "" };
    let abs = kobo.unsigned_abs();
    format!("{sign}{}.{:02}", group_thousands(abs / 100), abs % 100)
}

/// A sum of many amounts in naira as a plain exact decimal, `40000.00`, for scripts and
/// spreadsheets (kept in `i128` like [`naira_total`]).
pub(crate) fn naira_decimal_total(kobo: i128) -> String {
    let sign = if kobo < 0 { "-" } else { "" };
    let abs = kobo.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

fn group_thousands(n: impl ToString) -> String {
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
        assert_eq!(naira_total(-150), "-1.50");
        assert_eq!(
            naira_total(i128::from(i64::MAX) * 3),
            "276,701,161,105,643,274.21"
        );
        assert_eq!(naira_total(0), "0.00");
        assert_eq!(Kobo(4_000_000).naira_decimal(), "40000.00");
        assert_eq!(Kobo(5).naira_decimal(), "0.05");
        assert_eq!(Kobo(-150).naira_decimal(), "-1.50");
        assert_eq!(Kobo(i64::MIN).naira_figure(), "-92,233,720,368,547,758.08");
        // Sums beyond one i64 keep every digit, in both spellings.
        let sum = i128::from(i64::MAX) * 3;
        assert_eq!(naira_decimal_total(sum), "276701161105643274.21");
        assert_eq!(naira_total(-sum), "-276,701,161,105,643,274.21");
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
            "12.345",
            "abc",
            "-5",
            "",
            ".5",
            "5.",
            "1e3",
            "+5",
            " . ",
            "400,50",
            "40,0000",
            ",400",
            "400,",
            "1,,000",
            "1,000,00",
            "40,000.5,0",
            "₦",
            "NGN",
            "USD 400",
            "₦ -5",
            "NGN40,000.001",
            "₦₦5",
            "NGN ₦5",
            "40.000,00",
            "4 000",
        ] {
            assert!(Kobo::parse_naira(bad).is_err(), "{bad:?} should be refused");
        }
        for (written, kobo) in [
            ("40,000", 4_000_000),
            ("₦40,000.00", 4_000_000),
            ("NGN 40000", 4_000_000),
            ("ngn40,000.5", 4_000_050),
            ("40000 NGN", 4_000_000),
            (" ₦ 1,234,567.89 ", 123_456_789),
            ("999", 99_900),
            ("1,000", 100_000),
        ] {
            assert_eq!(Kobo::parse_naira(written), Ok(Kobo(kobo)), "{written:?}");
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
    fn json_numbers_are_read_exactly() {
        let whole = [
            ("4000000", 4_000_000),
            ("4000000.0", 4_000_000),
            ("4000000.00", 4_000_000),
            ("4e6", 4_000_000),
            ("4E+6", 4_000_000),
            ("4.0e6", 4_000_000),
            ("40000000e-1", 4_000_000),
            ("0", 0),
            ("0.000", 0),
            ("0e999999999999999999999", 0),
            ("9223372036854775807", i64::MAX),
            ("9223372036854775807.000", i64::MAX),
        ];
        for (text, kobo) in whole {
            assert_eq!(Kobo::from_json_number(text), Ok(Kobo(kobo)), "{text}");
        }
        let refused = [
            ("3999999.9999999999999", "is not a whole number of kobo"),
            ("4000000.00000000000000001", "is not a whole number of kobo"),
            ("9007199254740993.5", "is not a whole number of kobo"),
            ("4000001e-1", "is not a whole number of kobo"),
            ("4e-1", "is not a whole number of kobo"),
            ("1e-99999999999999999999", "is not a whole number of kobo"),
            ("9223372036854775808", "is too large"),
            ("1e19", "is too large"),
            ("1e99999999999999999999", "is too large"),
            ("99999999999999999999.0", "is too large"),
            ("-1", "is negative"),
            ("-0", "is negative"),
            ("-0.0", "is negative"),
        ];
        for (text, why) in refused {
            assert_eq!(Kobo::from_json_number(text), Err(why), "{text}");
        }
        // Beyond f64's exact range, the text still decides.
        assert_eq!(
            Kobo::from_json_number("9007199254740993.0"),
            Ok(Kobo(9_007_199_254_740_993))
        );
    }

    #[test]
    fn parses_kobo() {
        assert_eq!(Kobo::parse_kobo("4000000"), Ok(Kobo(4_000_000)));
        assert!(Kobo::parse_kobo("-1").is_err());
        assert!(Kobo::parse_kobo("1.5").is_err());
    }
}
