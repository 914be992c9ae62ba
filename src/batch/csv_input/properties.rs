//! The orders reader against the `csv` crate on generated files: the same records on the
//! same lines, a refusal exactly when a line inside a quoted cell reads as an order row, and
//! no order line ever absorbed into a cell without the run stopping; and on any mix of
//! quotes, separators, line ends and blank lines, the same records as a plain `csv::Reader`
//! up to the point where the reader refuses the file.

use std::io::{self, Cursor};

use proptest::prelude::*;

use super::*;

const HEADER: [&str; 4] = ["Order", "Reference", "Amount", "Note"];

fn options() -> CsvOptions {
    CsvOptions {
        currency: "NGN".into(),
        ..CsvOptions::default()
    }
}

/// What the reader gave: each row's line and cells, then the error it stopped at, if any.
fn read_all(bytes: &[u8]) -> (Vec<(u64, Vec<String>)>, Option<String>) {
    let mut orders = Orders::from_reader(
        Box::new(Cursor::new(bytes.to_vec())),
        "f.csv".into(),
        &options(),
    )
    .unwrap_or_else(|e| panic!("header refused: {}", e.message));
    let mut rows = Vec::new();
    for item in orders.by_ref() {
        match item {
            Ok(Item::Job(job)) => {
                let row = job.row.unwrap_or_else(|| panic!("a job without its row"));
                rows.push((row.line, row.cells));
            }
            Ok(Item::Decided(Reconciled::Row(d))) => rows.push((d.row.line, d.row.cells)),
            Ok(other) => panic!("{other:?}"),
            Err(e) => return (rows, Some(e.message)),
        }
    }
    (rows, None)
}

/// The test the reader applies to a line inside a quoted cell, as an oracle over whole lines
/// cut out of the generated file (not over the reader's byte-by-byte quote tracking).
fn reads_as_order(line: &str) -> bool {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    let mut record = csv::StringRecord::new();
    matches!(reader.read_record(&mut record), Ok(true))
        && record
            .get(1)
            .is_some_and(|r| Reference::from_line(r).is_ok())
        && record
            .get(2)
            .is_some_and(|a| parse_amount(a, AmountUnit::Naira).is_ok())
}

/// Physical lines: LF, CRLF and a bare CR each end one.
fn physical_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['\r', '\n']) {
        lines.push(&rest[..i]);
        let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[i + skip..];
    }
    if !rest.is_empty() {
        lines.push(rest);
    }
    lines
}

/// Records, each with the line it starts on.
type Lined = Vec<(u64, Vec<Vec<u8>>)>;

/// Each record the rows' reader gives for `rows` (the file after its header line, read in
/// buffers of `capacity` bytes), with its line, then the refusal it stopped at, if any.
fn records_of(rows: &[u8], capacity: usize) -> (Lined, Option<String>) {
    let test = RowTest {
        delimiter: b',',
        reference: 1,
        amount: 2,
        unit: AmountUnit::Naira,
        names: ("Reference".into(), "Amount".into()),
    };
    let mut records = Records::new("f.csv", 2, test);
    let mut input = io::BufReader::with_capacity(capacity, rows);
    let mut got = Vec::new();
    loop {
        match records.next(&mut input) {
            Ok(Some((record, line))) => {
                got.push((line, record.iter().map(<[u8]>::to_vec).collect()))
            }
            Ok(None) => return (got, None),
            Err(e) => return (got, Some(e.message)),
        }
    }
}

/// The records of `file` as a plain `csv::Reader` reads them, past its header line, each
/// with the line it starts on counted independently: the line ends (LF, CRLF, a bare CR)
/// before its first byte, blank lines skipped as the crate skips them.
fn crate_records(file: &[u8]) -> Lined {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(file);
    let mut got = Vec::new();
    let mut record = csv::ByteRecord::new();
    while let Ok(true) = reader.read_byte_record(&mut record) {
        let from = record.position().map_or(0, |p| p.byte() as usize);
        let start = from
            + file[from..]
                .iter()
                .take_while(|&&b| b == b'\r' || b == b'\n')
                .count();
        let before = &file[..start];
        let crlf = before.windows(2).filter(|w| w == b"\r\n").count();
        let ends = before.iter().filter(|&&b| b == b'\r' || b == b'\n').count() - crlf;
        got.push((ends as u64 + 1, record.iter().map(<[u8]>::to_vec).collect()));
    }
    got.remove(0);
    got
}

/// Bytes a hostile or careless export holds: quotes alone and doubled, separators, every
/// line end, NUL, a byte-order mark inside the file, bytes that are not UTF-8, order rows.
fn hostile_rows() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"\""[..]),
        Just(&b"\"\""[..]),
        Just(&b","[..]),
        Just(&b";"[..]),
        Just(&b"\r"[..]),
        Just(&b"\n"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"a"[..]),
        Just(&b" "[..]),
        Just(&b"R-1"[..]),
        Just(&b"40000"[..]),
        Just(&b"\0"[..]),
        Just(&b"\xEF\xBB\xBF"[..]),
        Just(&b"\xFF"[..]),
        Just(&b"7,R-7,5"[..]),
        Just(&b"\n9,R-9,500\n"[..]),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

fn text_cell() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_owned()),
        Just("Ikeja".to_owned()),
        Just(" ".to_owned()),
        Just(",".to_owned()),
        Just(";".to_owned()),
        Just("\"".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("7".to_owned()),
        Just("40,000.00".to_owned()),
        Just("R-9".to_owned()),
        // A whole order row typed into a note.
        Just("\n9,R-9,500\n".to_owned()),
        Just("₦".to_owned()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
}

fn amount_cell() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("40000".to_owned()),
        Just("40,000.50".to_owned()),
        Just("x".to_owned()),
        Just("".to_owned()),
        (1u32..100_000).prop_map(|n| n.to_string()),
    ]
}

/// Orders rows: line breaks only in the note (the last column), so each line after a
/// record's first is a line of its note, and its last line ends with the note's closing
/// quote.
fn records() -> impl Strategy<Value = Vec<[String; 4]>> {
    let record = ("[0-9]{1,4}", "[A-Z0-9-]{1,8}", amount_cell(), text_cell())
        .prop_map(|(o, r, a, n)| [o, r, a, n]);
    prop::collection::vec(record, 1..12)
}

/// Each record written alone (its exact text in the file) and the whole file.
fn write(records: &[[String; 4]], crlf: bool) -> (Vec<String>, String) {
    let one = |cells: &[&str]| {
        let mut w = csv::WriterBuilder::new()
            .terminator(match crlf {
                true => csv::Terminator::CRLF,
                false => csv::Terminator::Any(b'\n'),
            })
            .from_writer(Vec::new());
        w.write_record(cells).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(w.into_inner().unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let texts: Vec<String> = records
        .iter()
        .map(|r| one(&r.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();
    (texts.clone(), format!("{}{}", one(&HEADER), texts.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// A file the csv crate writes is read as the csv crate reads it, record by record and
    /// line by line, up to the first record with a line inside its note that reads as an
    /// order row; that one is refused naming the line, and nothing from it on is a row.
    #[test]
    fn well_formed_files_read_as_the_csv_crate_reads_them(
        records in records(),
        crlf in any::<bool>(),
    ) {
        let (texts, file) = write(&records, crlf);
        let mut crate_rows = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(file.as_bytes());
        let by_crate: Vec<Vec<String>> = crate_rows
            .records()
            .map(|r| r.map(|r| r.iter().map(str::to_owned).collect()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(by_crate.len(), records.len());
        let (rows, error) = read_all(file.as_bytes());
        let mut line = 2u64;
        let mut want = Vec::new();
        let mut hidden = None;
        for (text, cells) in texts.iter().zip(&by_crate) {
            let lines = physical_lines(text);
            let inside = lines.iter().enumerate().skip(1).find(|(i, l)| {
                // The note's last line ends with its closing quote.
                let l = match *i == lines.len() - 1 {
                    true => l.strip_suffix('"').unwrap_or(l),
                    false => l,
                };
                reads_as_order(l)
            });
            if let Some((i, _)) = inside {
                hidden = Some(line + i as u64);
                break;
            }
            want.push((line, cells.clone()));
            line += lines.len() as u64;
        }
        prop_assert_eq!(&rows, &want);
        match (hidden, error) {
            (None, None) => {}
            (Some(at), Some(message)) => {
                let named = format!("line {at} inside it reads as an order row");
                let first_of_many = format!("lines {at}");
                prop_assert!(
                    message.contains(&named) || message.contains(&first_of_many),
                    "{} / {}", message, at
                );
            }
            (hidden, error) => prop_assert!(false, "hidden {:?}, error {:?}", hidden, error),
        }
    }

    /// Any mix of quotes, separators, line ends and blank lines is read as the csv crate
    /// reads it, record by record, on the lines the file has, up to a refusal (a quote left
    /// open, text after a closing quote, a hidden order row), whatever the buffer sizes.
    #[test]
    fn any_file_reads_as_the_csv_crate_reads_it_up_to_a_refusal(
        rows in hostile_rows(),
        capacity in 1usize..16,
    ) {
        let file = [&b"Order,Reference,Amount,Note\n"[..], &rows].concat();
        let want = crate_records(&file);
        let (got, refused) = records_of(&rows, capacity);
        match refused {
            None => prop_assert_eq!(&got, &want),
            Some(_) => prop_assert_eq!(&got[..], &want[..got.len().min(want.len())]),
        }
    }

    /// One stray quote put at the start of any field of a file: every line that reads as an
    /// order row is either read as the start of a row, or comes after the point where the
    /// reader stopped with an error (so the run is incomplete and never exit 0). No order
    /// line ends up inside a cell while the reading goes on.
    #[test]
    fn a_stray_quote_never_hides_an_order_line(
        records in records(),
        crlf in any::<bool>(),
        at in any::<prop::sample::Index>(),
        field in 0usize..4,
    ) {
        let (texts, _) = write(&records, crlf);
        let victim = at.index(texts.len());
        // The stray quote opens field `field` of record `victim`, unquoted as written.
        let text = &texts[victim];
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices(',').map(|(i, _)| i + 1))
            .collect();
        let Some(&start) = starts.get(field) else { return Ok(()); };
        if text[start..].starts_with('"') {
            return Ok(());
        }
        let mut attacked: Vec<String> = texts.clone();
        attacked[victim] = format!("{}\"{}", &text[..start], &text[start..]);
        let file = format!("Order,Reference,Amount,Note\n{}", attacked.concat());
        let (rows, error) = read_all(file.as_bytes());
        let starts: Vec<u64> = rows.iter().map(|(line, _)| *line).collect();
        let last = starts.last().copied().unwrap_or(1);
        for (i, line) in physical_lines(&file).iter().enumerate().skip(1) {
            let number = i as u64 + 1;
            if reads_as_order(line) {
                prop_assert!(
                    starts.contains(&number) || (error.is_some() && number > last),
                    "line {} ({:?}) was absorbed: rows at {:?}, error {:?}\n{}",
                    number, line, starts, error, file
                );
            }
        }
    }
}
