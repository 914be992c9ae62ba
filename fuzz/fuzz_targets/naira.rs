//! Any text as --expect-amount / --expect-amount-kobo: refused for the documented reason, or
//! exactly the kobo it names.
//!
//! The oracle is the documented grammar (docs/checks.md, `Kobo::parse_naira`'s doc), written
//! here afresh rather than by calling the parser again: spaces around; one leading `₦` or
//! `NGN` (any case) or one trailing `NGN`, with any spaces beside it; then a figure with at
//! most two decimals, its whole part plain digits or one to three digits then groups of
//! exactly three after commas (`40,000`). More than two decimals is too precise, whatever
//! the size; a figure beyond `i64` kobo is too large; anything else is not a number.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payverify::Kobo;

/// What the oracle says of one text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expected {
    Kobo(i64),
    NotANumber,
    TooPrecise,
    TooLarge,
}

/// `AmountError`'s variant for a refusal (the type is not exported, its Debug form is).
fn refusal(error: &impl std::fmt::Debug) -> Expected {
    let debug = format!("{error:?}");
    if debug.starts_with("NotANumber(") {
        Expected::NotANumber
    } else if debug.starts_with("TooPrecise(") {
        Expected::TooPrecise
    } else if debug.starts_with("TooLarge(") {
        Expected::TooLarge
    } else {
        panic!("unknown refusal {debug}")
    }
}

fn is_digits(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// The whole part's digits, if it is plain digits or correctly grouped by commas.
fn whole_digits(whole: &str) -> Option<String> {
    if is_digits(whole) {
        return Some(whole.to_owned());
    }
    let groups: Vec<&str> = whole.split(',').collect();
    let (first, rest) = groups.split_first()?;
    let grouped = !rest.is_empty()
        && (1..=3).contains(&first.len())
        && is_digits(first)
        && rest.iter().all(|g| g.len() == 3 && is_digits(g));
    grouped.then(|| groups.concat())
}

/// A digit string's value, `None` beyond `i64`.
fn value(digits: &str) -> Option<i64> {
    digits.bytes().try_fold(0_i64, |n, b| {
        n.checked_mul(10)?.checked_add(i64::from(b - b'0'))
    })
}

/// The figure alone (no mark, no spaces): `None` if it is not one.
fn figure(text: &str) -> Option<Expected> {
    let (whole, fraction) = match text.find('.') {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let whole = whole_digits(whole)?;
    let fraction = match fraction {
        None => "",
        Some(f) if is_digits(f) => f,
        Some(_) => return None,
    };
    if fraction.len() > 2 {
        return Some(Expected::TooPrecise);
    }
    let kobo = format!("{whole}{fraction:0<2}");
    Some(value(&kobo).map_or(Expected::TooLarge, Expected::Kobo))
}

/// What `parse_naira` must make of `input`.
fn naira_oracle(input: &str) -> Expected {
    let t = input.trim_matches(char::is_whitespace);
    let code = |b: &[u8]| b.eq_ignore_ascii_case(b"NGN");
    let bytes = t.as_bytes();
    // Every reading of the text as mark and figure. A figure has no letter and no `₦`, so at
    // most one of them can be a figure.
    let mut readings = vec![t];
    if let Some(rest) = t.strip_prefix('₦') {
        readings.push(rest.trim_start_matches(char::is_whitespace));
    }
    if bytes.len() >= 3 && code(&bytes[..3]) {
        readings.push(t[3..].trim_start_matches(char::is_whitespace));
    }
    if bytes.len() >= 3 && code(&bytes[bytes.len() - 3..]) {
        readings.push(t[..t.len() - 3].trim_end_matches(char::is_whitespace));
    }
    let mut figures = readings.into_iter().filter_map(figure);
    let expected = figures.next().unwrap_or(Expected::NotANumber);
    assert_eq!(figures.next(), None, "two readings of {input:?}");
    expected
}

/// What `parse_kobo` must make of `input`: plain digits with spaces around.
fn kobo_oracle(input: &str) -> Expected {
    let t = input.trim_matches(char::is_whitespace);
    if !is_digits(t) {
        return Expected::NotANumber;
    }
    value(t).map_or(Expected::TooLarge, Expected::Kobo)
}

fn outcome<E: std::fmt::Debug>(result: Result<Kobo, E>) -> Expected {
    match result {
        Ok(kobo) => Expected::Kobo(kobo.0),
        Err(e) => refusal(&e),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let naira = outcome(Kobo::parse_naira(text));
    assert_eq!(naira, naira_oracle(text), "parse_naira({text:?})");
    if let Expected::Kobo(kobo) = naira {
        assert!(kobo >= 0);
        // What payverify writes reads back as the same amount.
        let kobo = Kobo(kobo);
        for written in [
            kobo.naira_decimal(),
            kobo.naira_figure(),
            format!("₦{}", kobo.naira_figure()),
            format!("{} NGN", kobo.naira_figure()),
        ] {
            assert_eq!(Kobo::parse_naira(&written), Ok(kobo), "{written:?}");
        }
    }
    let kobo = outcome(Kobo::parse_kobo(text));
    assert_eq!(kobo, kobo_oracle(text), "parse_kobo({text:?})");
});
