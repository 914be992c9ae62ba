//! What goes into a workbook's cell: typed values (text, whole numbers, money, the service's
//! dates) and the exact text a spreadsheet shows for each.

use rust_xlsxwriter::ExcelDateTime;

use crate::domain::money::naira_decimal_total;

/// One cell of a sheet, by what it holds; how each is written is the book's
/// ([`super::Book`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum XlsxCell {
    /// Nothing.
    Empty,
    /// Text, always written as a string cell: never a formula, whatever it starts with.
    Text(String),
    /// A whole number (an exit code, a count, kobo).
    Integer(i64),
    /// An amount in minor units, shown in major units: `₦#,##0.00` when `naira`, else
    /// `#,##0.00` (the currency is in a column of its own).
    Money {
        /// The amount in minor units (kobo for naira).
        minor: i128,
        /// Whether it is in naira.
        naira: bool,
    },
    /// The service's date text: a date cell when it is one ([`service_date`]), its text
    /// otherwise.
    Date(String),
}

impl XlsxCell {
    /// Text, or nothing when `text` is empty (an empty string cell is still a cell).
    pub(crate) fn text(text: impl Into<String>) -> XlsxCell {
        let text = text.into();
        match text.is_empty() {
            true => XlsxCell::Empty,
            false => XlsxCell::Text(text),
        }
    }

    /// Text when there is some.
    pub(crate) fn opt_text(text: Option<&str>) -> XlsxCell {
        text.map_or(XlsxCell::Empty, XlsxCell::text)
    }

    /// About how many characters wide the cell shows, for fitting its column.
    pub(crate) fn shown_width(&self) -> usize {
        match self {
            XlsxCell::Empty => 0,
            XlsxCell::Text(text) => text.lines().map(|l| l.chars().count()).max().unwrap_or(0),
            XlsxCell::Integer(n) => n.to_string().len(),
            // The grouping commas and the sign.
            XlsxCell::Money { minor, .. } => naira_decimal_total(*minor).len() * 4 / 3 + 2,
            XlsxCell::Date(text) => match service_date(text) {
                Some(_) => DATE_FORMAT.len(),
                None => text.chars().count(),
            },
        }
    }
}

/// How the service's dates are shown: the date and time to the millisecond, as it sends
/// them (in the zone it gave; `Z` is UTC).
pub(crate) const DATE_FORMAT: &str = "yyyy-mm-dd hh:mm:ss.000";

/// Below this many minor units (10^15: ₦10 trillion), minor / 100 as a double is written,
/// and read back, as the decimal to the kobo, and a spreadsheet shows every digit of it (15
/// significant digits). From 2^52 minor units on, two kobo apart can be one double, so a
/// bound of 2^53 wrote some amounts a kobo off.
const EXACT_MINOR: u128 = 1_000_000_000_000_000;

/// An amount in minor units as the number a spreadsheet holds, in major units; `None`
/// when a double could not hold it exactly to the minor unit, or a spreadsheet could not
/// show it so (|minor| ≥ 10^15: the cell is then the exact decimal as text, never a
/// rounded number).
pub(crate) fn major_units(minor: i128) -> Option<f64> {
    // The cast is exact below 2^53; the one division rounds to the nearest double, which
    // reads back as the same two-decimal value.
    #[allow(clippy::cast_precision_loss)]
    (minor.unsigned_abs() < EXACT_MINOR).then(|| minor as f64 / 100.0)
}

/// The service's date (`2022-11-14T22:34:24.913Z`) as a spreadsheet date, read strictly:
/// `YYYY-MM-DDTHH:MM:SS`, then at most three digits of fraction (Excel keeps
/// milliseconds; more would be rounded), then `Z` or nothing. Anything else (an offset, a
/// space for the `T`, a 30 February, a year Excel has no date for) is `None`: the cell keeps
/// the text as the service wrote it.
pub(crate) fn service_date(text: &str) -> Option<ExcelDateTime> {
    let text = text.strip_suffix('Z').unwrap_or(text);
    let (date, time) = text.split_once('T')?;
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (time, None),
    };
    let [year, month, day] = fields(date, '-', [4, 2, 2])?;
    let [hour, minute, second] = fields(clock, ':', [2, 2, 2])?;
    let milli = match fraction {
        None => 0,
        Some(f) if (1..=3).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            let digits: u32 = f.parse().ok()?;
            digits * 10u32.pow(3 - f.len() as u32)
        }
        Some(_) => return None,
    };
    // Before 1901 a spreadsheet's serial dates are not a payment's (1899-12-31 is serial 0,
    // shown as 1900-01-00, and Excel counts 1900 as a leap year): such a date stays text.
    if year < 1901 || hour > 23 || minute > 59 || second > 59 || day > days_in(year, month)? {
        return None;
    }
    ExcelDateTime::from_ymd(
        u16::try_from(year).ok()?,
        u8::try_from(month).ok()?,
        u8::try_from(day).ok()?,
    )
    .ok()?
    .and_hms_milli(
        u16::try_from(hour).ok()?,
        u8::try_from(minute).ok()?,
        u8::try_from(second).ok()?,
        u16::try_from(milli).ok()?,
    )
    .ok()
}

/// `text` as three fields of exactly `widths` ASCII digits between `sep`s.
fn fields(text: &str, sep: char, widths: [usize; 3]) -> Option<[u32; 3]> {
    let mut parts = text.split(sep);
    let mut out = [0; 3];
    for (slot, width) in out.iter_mut().zip(widths) {
        let part = parts.next()?;
        if part.len() != width || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = part.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// The days of `month` in `year` (Gregorian), `None` for no such month.
fn days_in(year: u32, month: u32) -> Option<u32> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if leap => Some(29),
        2 => Some(28),
        _ => None,
    }
}

/// The most UTF-16 units a cell holds (Excel's limit; rust_xlsxwriter refuses more).
const MAX_CELL: usize = 32_767;
/// What ends a cell cut to [`MAX_CELL`].
const CUT: &str = "… [cut: longer than a cell holds]";

/// `text` as a string cell holds it and Excel shows it back exactly: secrets redacted,
/// every other character kept (the control characters are the customers'; the writer
/// stores them as Excel's `_xHHHH_` escapes, and a literal `_xHHHH_` as `_x005F_xHHHH_`,
/// so that it is not read as one). A text longer than a cell holds is cut, saying so.
pub(crate) fn cell_text(text: &str) -> String {
    let text = crate::secret::redact(text);
    let room = MAX_CELL - CUT.encode_utf16().count();
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > room && text.encode_utf16().count() > MAX_CELL {
            return format!("{}{CUT}", &text[..at]);
        }
    }
    text.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_services_dates_are_read_strictly() {
        let serial = |text: &str| service_date(text).map(|d| d.to_excel());
        // 2022-11-14 is day 44879 of Excel's 1900 system.
        let day = 44879.0;
        let at = serial("2022-11-14T22:34:24.913Z").unwrap();
        let want = day + (22.0 * 3600.0 + 34.0 * 60.0 + 24.913) / 86400.0;
        assert!((at - want).abs() < 1e-9, "{at} {want}");
        assert_eq!(serial("2022-11-14T00:00:00"), Some(day));
        assert_eq!(serial("2022-11-14T00:00:00.5Z"), Some(day + 0.5 / 86400.0));
        for not in [
            "",
            "2022-11-14",
            "2022-11-14 22:34:24",
            "2022-11-14T22:34:24+01:00",
            "2022-11-14T22:34:24.9134Z",
            "2022-11-14T22:34:24.Z",
            "2022-02-30T00:00:00Z",
            "2022-13-01T00:00:00Z",
            "2022-11-14T24:00:00Z",
            "22-11-14T22:34:24Z",
            "2022-11-14T22:34:24ZZ",
            "+2022-11-14T22:34:24Z",
            "1800-01-01T00:00:00Z",
        ] {
            assert_eq!(serial(not), None, "{not:?}");
        }
        assert!(serial("2024-02-29T12:00:00Z").is_some());
        assert!(serial("1899-12-31T00:00:00.000Z").is_none());
        assert!(serial("1900-03-01T00:00:00Z").is_none());
        assert!(serial("2023-02-29T12:00:00Z").is_none());
    }

    #[test]
    fn money_is_exact_to_the_kobo_or_not_a_number() {
        assert_eq!(major_units(4_000_050), Some(40_000.5));
        assert_eq!(major_units(-50), Some(-0.5));
        assert_eq!(major_units(1), Some(0.01));
        let big = 999_999_999_999_999;
        assert_eq!(major_units(big).unwrap().to_string(), "9999999999999.99");
        // In the band from 2^52 on, 7756689994076132 kobo was written as ...761.31.
        assert_eq!(major_units(7_756_689_994_076_132), None);
        assert_eq!(major_units(1_000_000_000_000_000), None);
        assert_eq!(major_units(1i128 << 53), None);
        assert_eq!(major_units(-(1i128 << 60)), None);
    }

    #[test]
    fn text_is_kept_exact_unless_longer_than_a_cell() {
        assert_eq!(cell_text("=1+1"), "=1+1");
        let typed = "a\u{1b}[2Kb\tc _x0041_";
        assert_eq!(cell_text(typed), typed);
        let most = "a".repeat(MAX_CELL);
        assert_eq!(cell_text(&most), most);
        let long = "é".repeat(40_000);
        let cut = cell_text(&long);
        assert!(cut.ends_with(CUT));
        assert!(cut.encode_utf16().count() <= MAX_CELL);
    }
}
