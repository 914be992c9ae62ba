//! Currency codes as orders and settlement files write them: ISO 4217 alphabetic (`NGN`)
//! or numeric (`566`, what card settlement files use), read into the one alphabetic form
//! the gateway answers with, so a row's currency is compared like for like.

/// Every active ISO 4217 currency with its numeric code (from the ISO 4217 list as
/// published in pycountry 26.2.16), sorted by the alphabetic code. `XTS` (testing) and
/// `XXX` (no currency) are left out: no order is paid in them.
// Six to a line, as a table, rather than one a line.
#[rustfmt::skip]
const ISO_4217: [(&str, u16); 176] = [
    ("AED", 784), ("AFN", 971), ("ALL", 8), ("AMD", 51), ("AOA", 973), ("ARS", 32),
    ("AUD", 36), ("AWG", 533), ("AZN", 944), ("BAM", 977), ("BBD", 52), ("BDT", 50),
    ("BHD", 48), ("BIF", 108), ("BMD", 60), ("BND", 96), ("BOB", 68), ("BOV", 984),
    ("BRL", 986), ("BSD", 44), ("BTN", 64), ("BWP", 72), ("BYN", 933), ("BZD", 84),
    ("CAD", 124), ("CDF", 976), ("CHE", 947), ("CHF", 756), ("CHW", 948), ("CLF", 990),
    ("CLP", 152), ("CNY", 156), ("COP", 170), ("COU", 970), ("CRC", 188), ("CUP", 192),
    ("CVE", 132), ("CZK", 203), ("DJF", 262), ("DKK", 208), ("DOP", 214), ("DZD", 12),
    ("EGP", 818), ("ERN", 232), ("ETB", 230), ("EUR", 978), ("FJD", 242), ("FKP", 238),
    ("GBP", 826), ("GEL", 981), ("GHS", 936), ("GIP", 292), ("GMD", 270), ("GNF", 324),
    ("GTQ", 320), ("GYD", 328), ("HKD", 344), ("HNL", 340), ("HTG", 332), ("HUF", 348),
    ("IDR", 360), ("ILS", 376), ("INR", 356), ("IQD", 368), ("IRR", 364), ("ISK", 352),
    ("JMD", 388), ("JOD", 400), ("JPY", 392), ("KES", 404), ("KGS", 417), ("KHR", 116),
    ("KMF", 174), ("KPW", 408), ("KRW", 410), ("KWD", 414), ("KYD", 136), ("KZT", 398),
    ("LAK", 418), ("LBP", 422), ("LKR", 144), ("LRD", 430), ("LSL", 426), ("LYD", 434),
    ("MAD", 504), ("MDL", 498), ("MGA", 969), ("MKD", 807), ("MMK", 104), ("MNT", 496),
    ("MOP", 446), ("MRU", 929), ("MUR", 480), ("MVR", 462), ("MWK", 454), ("MXN", 484),
    ("MXV", 979), ("MYR", 458), ("MZN", 943), ("NAD", 516), ("NGN", 566), ("NIO", 558),
    ("NOK", 578), ("NPR", 524), ("NZD", 554), ("OMR", 512), ("PAB", 590), ("PEN", 604),
    ("PGK", 598), ("PHP", 608), ("PKR", 586), ("PLN", 985), ("PYG", 600), ("QAR", 634),
    ("RON", 946), ("RSD", 941), ("RUB", 643), ("RWF", 646), ("SAR", 682), ("SBD", 90),
    ("SCR", 690), ("SDG", 938), ("SEK", 752), ("SGD", 702), ("SHP", 654), ("SLE", 925),
    ("SOS", 706), ("SRD", 968), ("SSP", 728), ("STN", 930), ("SVC", 222), ("SYP", 760),
    ("SZL", 748), ("THB", 764), ("TJS", 972), ("TMT", 934), ("TND", 788), ("TOP", 776),
    ("TRY", 949), ("TTD", 780), ("TWD", 901), ("TZS", 834), ("UAH", 980), ("UGX", 800),
    ("USD", 840), ("USN", 997), ("UYI", 940), ("UYU", 858), ("UYW", 927), ("UZS", 860),
    ("VED", 926), ("VES", 928), ("VND", 704), ("VUV", 548), ("WST", 882), ("XAD", 396),
    ("XAF", 950), ("XAG", 961), ("XAU", 959), ("XBA", 955), ("XBB", 956), ("XBC", 957),
    ("XBD", 958), ("XCD", 951), ("XCG", 532), ("XDR", 960), ("XOF", 952), ("XPD", 964),
    ("XPF", 953), ("XPT", 962), ("XSU", 994), ("XUA", 965), ("YER", 886), ("ZAR", 710),
    ("ZMW", 967), ("ZWG", 924),
];

/// A currency cell read into its ISO 4217 alphabetic code: an alphabetic code in any case
/// (`ngn`), or a numeric one with or without its leading zeros (`566`, `036`, `36`, as a
/// spreadsheet may have dropped them); surrounding spaces ignored. `None` for anything
/// else, which the caller names.
pub(crate) fn iso_code(cell: &str) -> Option<&'static str> {
    let cell = cell.trim();
    if (1..=3).contains(&cell.len()) && cell.bytes().all(|b| b.is_ascii_digit()) {
        let number: u16 = cell.parse().ok()?;
        return ISO_4217
            .iter()
            .find(|(_, n)| *n == number)
            .map(|(alpha, _)| *alpha);
    }
    if cell.len() != 3 || !cell.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let upper = cell.to_ascii_uppercase();
    ISO_4217
        .binary_search_by(|(alpha, _)| (*alpha).cmp(upper.as_str()))
        .ok()
        .map(|i| ISO_4217[i].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabetic_and_numeric_codes_read_as_the_alphabetic_one() {
        for (cell, want) in [
            ("NGN", "NGN"),
            (" ngn ", "NGN"),
            ("566", "NGN"),
            ("840", "USD"),
            ("usd", "USD"),
            ("036", "AUD"),
            ("36", "AUD"),
            ("8", "ALL"),
            ("936", "GHS"),
            ("978", "EUR"),
        ] {
            assert_eq!(iso_code(cell), Some(want), "{cell:?}");
        }
    }

    #[test]
    fn anything_else_is_unknown() {
        for cell in [
            "",
            " ",
            "NG",
            "NGNN",
            "N G",
            "₦",
            "naira",
            "567",
            "0566",
            "5660",
            "-566",
            "+566",
            "56.6",
            "XXX",
            "XTS",
            "ZZZ",
            "N1N",
            "\u{0}NGN",
            "ＮＧＮ",
            "١٢٣",
        ] {
            assert_eq!(iso_code(cell), None, "{cell:?}");
        }
    }

    #[test]
    fn the_table_is_sorted_and_each_code_is_once() {
        assert!(ISO_4217.windows(2).all(|w| w[0].0 < w[1].0));
        let mut numbers: Vec<u16> = ISO_4217.iter().map(|(_, n)| *n).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), ISO_4217.len());
        assert!(ISO_4217.iter().all(|(a, n)| a.len() == 3 && *n < 1000));
    }
}
