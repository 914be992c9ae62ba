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

type Order = Item<Reconciled>;

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
        Item::Decided(Reconciled::Row(d)) => {
            format!("{} line {}: {}", d.result.name(), d.row.line, d.why)
        }
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
    assert_eq!((got.len(), orders.blank), (8, 1));
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
                Item::Decided(Reconciled::Row(d)) => d.row.line,
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

/// The columns found for each role in `header` (a comma-separated line), as `role: index`.
fn roles(header: &str) -> Vec<String> {
    let orders = Orders::from_reader(
        Box::new(Cursor::new(format!("{header}\n").into_bytes())),
        "f.csv".into(),
        &options(),
    )
    .unwrap_or_else(|e| panic!("{header}: {}", e.message));
    ROLES
        .iter()
        .filter_map(|r| Some(format!("{}: {}", r.what(), orders.columns.of(*r)?)))
        .collect()
}

#[test]
fn known_export_layouts_are_found_without_flags() {
    // Advanced Order Export For WooCommerce, with Transaction ID and Order Currency added.
    assert_eq!(
        roles(
            "Order Number,Order Status,Order Date,Customer Note,First Name (Billing),\
             Address 1&2 (Billing),Payment Method,Payment Method Title,Transaction ID,\
             Order Currency,Order Subtotal Amount,Order Shipping Amount,Order Total Amount,\
             Item #,Item Name,Quantity,Item Cost"
        ),
        [
            "reference: 8",
            "amount: 12",
            "currency: 9",
            "order id: 0",
            "payment method: 6",
            "order status: 1"
        ]
    );
    // WebToffee's Order Export & Import (meta keys as headers).
    assert_eq!(
        roles(
            "order_id,order_number,order_date,status,order_subtotal,order_total,\
             order_currency,payment_method,payment_method_title,transaction_id,customer_note"
        ),
        [
            "reference: 9",
            "amount: 5",
            "currency: 6",
            "order id: 0",
            "payment method: 7",
            "order status: 3"
        ]
    );
    // Shopify's orders export: its order column is Name.
    assert_eq!(
        roles(
            "Name,Email,Financial Status,Paid at,Fulfillment Status,Currency,Subtotal,\
             Shipping,Taxes,Total,Discount Code,Lineitem quantity,Lineitem name,\
             Lineitem price,Payment Method,Payment Reference,Id"
        ),
        [
            "reference: 15",
            "amount: 9",
            "currency: 5",
            "order id: 0",
            "payment method: 14",
            "order status: 2"
        ]
    );
    // A bank's card settlement file: Transaction Ref, never RRN; the gross Transaction
    // Amount, never the net Settlement Amount.
    assert_eq!(
        roles(
            "S/N,Transaction Date,Terminal ID,RRN,STAN,Transaction Ref,Currency,\
             Settlement Amount,MSC,Transaction Amount,Response Code,Status"
        ),
        [
            "reference: 5",
            "amount: 9",
            "currency: 6",
            "order status: 11"
        ]
    );
    // Outside a Shopify export, Name is a customer's.
    assert_eq!(
        roles("Name,Reference,Amount"),
        ["reference: 1", "amount: 2"]
    );
}

#[test]
fn header_names_are_normalised_for_case_spacing_punctuation_and_suffixes() {
    for (name, want) in [
        ("Transaction ID", "transactionid"),
        ("TRANSACTION-ID", "transactionid"),
        (" transaction_id ", "transactionid"),
        ("Order Total (Billing)", "ordertotal"),
        ("Amount (₦)", "amount"),
        ("Total (NGN) (incl. VAT)", "total"),
        ("Order #", "order"),
        ("S/N", "sn"),
        ("(Reference)", "reference"),
        ("\u{feff}Reference", "reference"),
        ("Référence", "référence"),
    ] {
        assert_eq!(normalized(name), want, "{name}");
    }
}

#[test]
fn every_missing_column_is_named_in_one_error_with_what_was_not_taken() {
    let e = read(
        b"S/N,RRN,Terminal ID,Settlement Amount,Currency\n1,633200244531,T1,100,566\n",
        &options(),
    )
    .err()
    .unwrap();
    assert_eq!(e.exit, crate::exit::Exit::Usage);
    let m = &e.message;
    assert!(
        m.starts_with("f.csv: no reference column and no amount column (looked for reference names such as 'reference', 'ref'"),
        "{m}"
    );
    assert!(
        m.contains("\"RRN\" is the card network's retrieval reference number, not the gateway's reference")
            && m.contains("\"Settlement Amount\" is net of the card fee; the gateway's amount is the gross (Transaction Amount)")
            && m.contains("its header row (line 1) has \"S/N\", \"RRN\", \"Terminal ID\", \"Settlement Amount\", \"Currency\"")
            && m.ends_with("name the columns with --reference-column NAME and --amount-column NAME"),
        "{m}"
    );
    assert!(!m.contains('\n'));
    // A named column that is not there joins the same error.
    let named = CsvOptions {
        currency_column: Some("Curr".into()),
        ..options()
    };
    let e = read(b"Reference,Paid\nR,1\n", &named).err().unwrap();
    assert!(
        e.message.contains("no amount column")
            && e.message.contains("no column is named \"Curr\" (--flag)")
            && e.message
                .contains("--amount-column NAME and --currency-column NAME"),
        "{}",
        e.message
    );
}

#[test]
fn title_lines_above_the_header_are_skipped_and_lines_keep_their_numbers() {
    let text = "LAGOON BANK PLC\r\n\
                \"Merchant: Adire Home, Lagos\"\r\n\
                Merchant ID:,2033LA0001234\r\n\
                Period: 21/11/2026,,,,,\r\n\
                \r\n\
                S/N,Transaction Ref,Transaction Amount,Currency\r\n\
                1,R-1,\"14,500.00\",566\r\n\
                TOTAL,,\"14,500.00\",566\r\n";
    let (orders, rows) = read(text.as_bytes(), &options()).unwrap();
    assert_eq!(orders.header_line, 6);
    assert_eq!(
        rows.iter().map(summary).collect::<Vec<_>>(),
        [
            "R-1 1450000 \"NGN\" \"\" line 7",
            "TOTALS line 8: the file's totals row: ₦14,500.00, the sum of the rows above in \
             NGN; never sent to the service, not counted again"
        ]
    );
    assert!(
        orders
            .skipped_note()
            .unwrap()
            .contains("the header row is line 6; the 5 lines above it are skipped")
    );
    // --header-row says where it is; lines above it are never rows, whatever they hold.
    let text = "R-0,1,2,3\nReference,Amount\nR-1,5\n";
    let at = CsvOptions {
        header_row: Some(2),
        ..options()
    };
    let (_, rows) = read(text.as_bytes(), &at).unwrap();
    assert_eq!(
        rows.iter().map(summary).collect::<Vec<_>>(),
        ["R-1 500 \"NGN\" \"\" line 3"]
    );
    let past = CsvOptions {
        header_row: Some(9),
        ..options()
    };
    let e = read(text.as_bytes(), &past).err().unwrap();
    assert!(
        e.message
            .contains("has 3 lines; --header-row 9 is past its end"),
        "{}",
        e.message
    );
}

#[test]
fn a_wide_line_without_the_columns_ends_the_search_for_the_header() {
    // A header with a column missing, then rows: the header is line 1, and a row that
    // happens to hold column names is never taken for it.
    let text = "Order,Customer,Note,Total\n1,Reference,Amount,5\n";
    let e = read(text.as_bytes(), &options()).err().unwrap();
    assert!(
        e.message.contains("no reference column") && e.message.contains("(line 1)"),
        "{}",
        e.message
    );
    // Nothing but title-like lines: the one closest to a header is named.
    let text = "Report\nTotal\n\n";
    let e = read(text.as_bytes(), &options()).err().unwrap();
    assert!(
        e.message.contains("no reference column") && e.message.contains("(line 2) has \"Total\""),
        "{}",
        e.message
    );
    // A header line that leaves a quote open is refused before any row.
    let e = read(b"Title\nreference,\"amount\nR,1\n", &options())
        .err()
        .unwrap();
    assert!(
        e.message
            .contains("f.csv line 2: a quoted field opens in the header row"),
        "{}",
        e.message
    );
}

#[test]
fn currency_cells_are_iso_codes_alphabetic_or_numeric() {
    let text = "reference,amount,currency\n\
                A,1,566\n\
                B,1,840\n\
                C,1,ngn\n\
                D,1,567\n\
                E,1,Naira\n\
                F,₦1,\n\
                G,1,\n\
                H,1,\n";
    let (orders, rows) = read(text.as_bytes(), &options()).unwrap();
    assert_eq!(
        rows.iter().map(summary).collect::<Vec<_>>(),
        [
            "A 100 \"NGN\" \"\" line 2",
            "B 100 \"USD\" \"\" line 3",
            "C 100 \"NGN\" \"\" line 4",
            "INVALID_ROW line 5: currency \"567\" is not an ISO 4217 currency code (such as NGN, or 566 as settlement files write it)",
            "INVALID_ROW line 6: currency \"Naira\" is not an ISO 4217 currency code (such as NGN, or 566 as settlement files write it)",
            "F 100 \"NGN\" \"\" line 7",
            "G 100 \"NGN\" \"\" line 8",
            "H 100 \"NGN\" \"\" line 9",
        ]
    );
    // An empty cell falls back to --currency, and says so (the ₦ row states its own).
    assert_eq!(
        orders.end_notes(),
        [
            "f.csv: 2 rows have an empty \"currency\" cell (lines 8 and 9); they expect NGN (--currency)"
        ]
    );
    // --no-currency-column: the column is not read at all.
    let off = CsvOptions {
        no_currency_column: true,
        currency: "USD".into(),
        ..options()
    };
    let (orders, rows) = read(text.as_bytes(), &off).unwrap();
    assert!(summary(&rows[0]).starts_with("A 100 \"USD\""));
    assert!(summary(&rows[3]).starts_with("D 100 \"USD\""));
    assert!(orders.end_notes().is_empty());
}
