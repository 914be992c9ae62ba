//! Any text as --expect-amount: either refused, or exactly the kobo it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payverify::Kobo;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(kobo) = Kobo::parse_naira(text) {
        assert!(kobo.0 >= 0);
        assert_eq!(Kobo::parse_naira(&kobo.naira_decimal()), Ok(kobo));
        // The accepted text, without its decimal point and with the fraction padded to two
        // digits, is the kobo figure (up to leading zeros).
        let t = text.trim();
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        let digits = format!("{whole}{frac:0<2}");
        let digits = digits.trim_start_matches('0');
        assert_eq!(
            if digits.is_empty() { "0" } else { digits },
            kobo.0.to_string()
        );
    }
    if let Ok(kobo) = Kobo::parse_kobo(text) {
        let digits = text.trim().trim_start_matches('0');
        assert_eq!(
            kobo.0.to_string(),
            if digits.is_empty() { "0" } else { digits }
        );
    }
});
