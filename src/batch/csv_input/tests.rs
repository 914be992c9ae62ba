use super::*;
use std::io::Cursor;

impl From<&str> for Given {
    fn from(name: &str) -> Given {
        Given {
            name: name.to_owned(),
            origin: "--flag".to_owned(),
        }
    }
}

fn options() -> CsvOptions {
    CsvOptions {
        currency: "NGN".into(),
        ..CsvOptions::default()
    }
}

type Order = Item<Decided>;

fn read(text: &[u8], options: &CsvOptions) -> Result<(Orders, Vec<Order>), Failure> {
    let mut orders = Orders::from_reader(
        Box::new(Cursor::new(text.to_vec())),
        "f.csv".into(),
        options,
    )?;
    let all: Vec<Order> = orders.by_ref().map(|o| o.unwrap()).collect();
    Ok((orders, all))
}

fn summary(order: &Order) -> String {
    match order {
        Item::Job(job) => format!(
            "{} {} {:?} {:?} line {}",
            job.reference,
            job.expect.amount.unwrap().0,
            job.expect.currency.as_deref().unwrap_or(""),
            job.expect.merchant_ref.as_deref().unwrap_or(""),
            job.row.as_ref().unwrap().line
        ),
        Item::Decided(d) => format!("{} line {}: {}", d.result.name(), d.row.line, d.why),
        other => format!("{other:?}"),
    }
}

#[test]
fn delimiters_are_detected_outside_quotes() {
    assert_eq!(detect_delimiter(b"reference,amount\n"), b',');
    assert_eq!(detect_delimiter(b"reference;amount;currency\r\n"), b';');
    assert_eq!(detect_delimiter(b"reference\tamount\n"), b'\t');
    assert_eq!(detect_delimiter(b"\"a,b,c\";amount\n"), b';');
    assert_eq!(detect_delimiter(b"reference\n"), b',');
}

#[test]
fn header_names_match_ignoring_case_spaces_underscores_and_dashes() {
    for header in [
        "Transaction Ref,Order Total",
        "transaction_ref,ORDER-TOTAL",
        "TransactionRef, order total ",
        "\u{feff}Reference Number,Amount Paid",
    ] {
        let (_, rows) = read(format!("{header}\nR-1,5\n").as_bytes(), &options()).unwrap();
        assert_eq!(summary(&rows[0]), "R-1 500 \"NGN\" \"\" line 2", "{header}");
    }
}

#[test]
fn the_first_candidate_wins_and_flags_override() {
    // `reference` comes before `ref` in the list of names.
    let (_, rows) = read(b"ref,reference,amount\nA,B,1\n", &options()).unwrap();
    assert!(summary(&rows[0]).starts_with("B 100"));
    let chosen = CsvOptions {
        reference_column: Some("REF".into()),
        amount_column: Some("Paid".into()),
        ..options()
    };
    let (_, rows) = read(b"ref,reference,amount,paid\nA,B,1,2\n", &chosen).unwrap();
    assert!(summary(&rows[0]).starts_with("A 200"));
}

#[test]
fn missing_or_ambiguous_columns_list_the_header_and_the_flag() {
    let e = read(b"order,total\n1,2\n", &options()).err().unwrap();
    assert_eq!(e.exit, crate::exit::Exit::Usage);
    assert!(e.message.contains("no reference column"), "{}", e.message);
    assert!(e.message.contains("\"order\", \"total\""), "{}", e.message);
    assert!(
        e.message.contains("--reference-column NAME"),
        "{}",
        e.message
    );
    let e = read(b"Reference,reference,amount\n", &options())
        .err()
        .unwrap();
    assert!(
        e.message.contains("ambiguous: columns 1 and 2"),
        "{}",
        e.message
    );
    let exact = CsvOptions {
        reference_column: Some("reference".into()),
        ..options()
    };
    assert!(read(b"Reference,reference,amount\n", &exact).is_ok());
    let e = read(
        b"reference,amount\n",
        &CsvOptions {
            amount_column: Some("paid".into()),
            ..options()
        },
    )
    .err()
    .unwrap();
    assert!(
        e.message.contains("no column is named \"paid\""),
        "{}",
        e.message
    );
    // An order id is never taken for the merchant ref.
    let (_, rows) = read(b"reference,amount,order id\nR,1,77\n", &options()).unwrap();
    assert_eq!(summary(&rows[0]), "R 100 \"NGN\" \"\" line 2");
}

#[test]
fn empty_and_utf16_files_are_refused() {
    for empty in [&b""[..], b"\n", b"\xEF\xBB\xBF", b"  \r\n"] {
        let e = read(empty, &options()).err().unwrap();
        assert!(e.message.contains("f.csv is empty"), "{}", e.message);
    }
    let e = read(b"\xFF\xFEr\0e\0", &options()).err().unwrap();
    assert!(e.message.contains("UTF-16"), "{}", e.message);
}

#[test]
fn rows_become_jobs_or_decisions() {
    let text = "\u{feff}Reference;Amount;Currency;Merchant Ref\r\n\
                R-1;\"40.000,00\";NGN;M-1\r\n\
                R-2;₦40,000.50;;M-2\r\n\
                ;5;NGN;\r\n\
                R-2;1;usd;\r\n\
                R-3;12.345;;\r\n\
                R-3;7;;\r\n\
                ;;;\r\n\
                R-4;1\r\n\
                R-5;2;;;;\r\n";
    let (orders, rows) = read(text.as_bytes(), &options()).unwrap();
    let got: Vec<String> = rows.iter().map(summary).collect();
    assert_eq!(
        got,
        [
            "INVALID_ROW line 2: amount \"40.000,00\" is not a naira amount (e.g. 40000, 40000.5, 40,000.00, ₦40,000.00)",
            "R-2 4000050 \"NGN\" \"M-2\" line 3",
            "INVALID_ROW line 4: the reference is empty",
            "DUPLICATE line 5: reference R-2 is already on line 3, verified there",
            "INVALID_ROW line 6: amount \"12.345\" has more than two decimals (kobo is the smallest unit; nothing is rounded)",
            "R-3 700 \"NGN\" \"\" line 7",
            "INVALID_ROW line 9: the row has 2 fields; the header has 4",
            "R-5 200 \"NGN\" \"\" line 10",
        ]
    );
    assert_eq!((orders.rows, orders.blank), (8, 1));
    assert_eq!(
        &*orders.header(),
        ["Reference", "Amount", "Currency", "Merchant Ref"]
    );
}

#[test]
fn quoted_fields_keep_commas_and_newlines() {
    let text = "reference,amount,note\n\"R-1\",\"40,000.00\",\"a, b\"\n\"R,2\",1,\"two\nlines\"\nR-3,2,x\n";
    let (_, rows) = read(text.as_bytes(), &options()).unwrap();
    assert_eq!(summary(&rows[0]), "R-1 4000000 \"NGN\" \"\" line 2");
    assert_eq!(summary(&rows[1]), "R,2 100 \"NGN\" \"\" line 3");
    // The line a row starts on, after a quoted newline.
    assert_eq!(summary(&rows[2]), "R-3 200 \"NGN\" \"\" line 5");
    match &rows[1] {
        Item::Job(job) => assert_eq!(job.row.as_ref().unwrap().cells[2], "two\nlines"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn line_numbers_hold_with_crlf_blank_lines_and_quoted_newlines() {
    for eol in ["\n", "\r\n"] {
        let text = [
            "reference,amount",
            "A,1",
            "",
            "\"B\",\"2",
            "\"",
            "",
            "",
            "C,3",
        ]
        .join(eol);
        let (_, rows) = read(text.as_bytes(), &options()).unwrap();
        let lines: Vec<u64> = rows
            .iter()
            .map(|o| match o {
                Item::Job(job) => job.row.as_ref().unwrap().line,
                Item::Decided(d) => d.row.line,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(lines, [2, 4, 8], "{eol:?}");
    }
}

#[test]
fn kobo_amounts_are_integers_only() {
    let kobo = CsvOptions {
        unit: AmountUnit::Kobo,
        ..options()
    };
    let (_, rows) = read(b"reference,amount\nA,4000000\nB,40000.5\nC,-1\n", &kobo).unwrap();
    let got: Vec<String> = rows.iter().map(summary).collect();
    assert_eq!(got[0], "A 4000000 \"NGN\" \"\" line 2");
    assert!(got[1].contains("not a whole number of kobo"), "{}", got[1]);
    assert!(got[2].contains("not a whole number of kobo"), "{}", got[2]);
}

#[test]
fn a_bad_amount_does_not_claim_the_reference() {
    // The first usable row of a reference is the one verified.
    let (_, rows) = read(b"reference,amount\nA,x\nA,1\nA,2\n", &options()).unwrap();
    let got: Vec<String> = rows.iter().map(summary).collect();
    assert!(got[0].starts_with("INVALID_ROW line 2"), "{}", got[0]);
    assert_eq!(got[1], "A 100 \"NGN\" \"\" line 3");
    assert!(got[2].starts_with("DUPLICATE line 4: reference A is already on line 3"));
}

#[test]
fn an_unquoted_thousands_comma_is_explained() {
    let (_, rows) = read(b"reference,amount\nA,40,000.00\n", &options()).unwrap();
    assert_eq!(
        summary(&rows[0]),
        "INVALID_ROW line 2: the row has 3 fields; the header has 2 (a value with a \
         comma, such as 40,000.00, must be in double quotes)"
    );
    let (_, rows) = read(b"reference;amount\nA;40;1\n", &options()).unwrap();
    assert_eq!(
        summary(&rows[0]),
        "INVALID_ROW line 2: the row has 3 fields; the header has 2"
    );
}

#[test]
fn invalid_utf8_cells_are_invalid_rows() {
    let (_, rows) = read(b"reference,amount\nA\xff,1\n", &options()).unwrap();
    assert_eq!(
        summary(&rows[0]),
        "INVALID_ROW line 2: column 1 is not UTF-8 text"
    );
}
