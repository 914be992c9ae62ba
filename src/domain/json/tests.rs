//! The untrusted-JSON reader's unit tests.
use super::*;

#[test]
fn refuses_non_objects_bad_json_and_duplicates() {
    assert_eq!(
        parse_object(b"[1]"),
        Err(BodyError::NotAnObject("an array"))
    );
    assert_eq!(parse_object(b"null"), Err(BodyError::NotAnObject("null")));
    assert_eq!(
        parse_object(b"\"x\""),
        Err(BodyError::NotAnObject("a string"))
    );
    assert!(matches!(parse_object(b"{"), Err(BodyError::NotJson(_))));
    assert!(matches!(parse_object(b"{} x"), Err(BodyError::NotJson(_))));
    assert!(matches!(
        parse_object(b"\xff\xfe"),
        Err(BodyError::NotJson(_))
    ));
    assert_eq!(
        parse_object(br#"{"status":"FAILED","status":"SUCCESSFUL"}"#),
        Err(BodyError::DuplicateKey("status".into()))
    );
    assert_eq!(
        parse_object(br#"{"data":{"pan":"1","pan":"2"}}"#),
        Err(BodyError::DuplicateKey("pan".into()))
    );
    // An escaped spelling is the same key.
    assert_eq!(
        parse_object(br#"{"status":"FAILED","st\u0061tus":"SUCCESSFUL"}"#),
        Err(BodyError::DuplicateKey("status".into()))
    );
}

#[test]
fn duplicates_are_found_in_objects_of_any_size() {
    for n in [31, 32, 33, 200] {
        let keys: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{i}")).collect();
        let unique = format!("{{{}}}", keys.join(","));
        assert_eq!(parse_object(unique.as_bytes()).map(|m| m.len()), Ok(n));
        for repeat in [0, n / 2, n - 1] {
            let body = format!("{{{},\"k{repeat}\":0}}", keys.join(","));
            assert_eq!(
                parse_object(body.as_bytes()),
                Err(BodyError::DuplicateKey(format!("k{repeat}"))),
                "{n} keys, k{repeat} repeated"
            );
        }
    }
}

#[test]
fn bodies_past_the_value_or_depth_limit_are_refused_unbuilt() {
    let at_limit = format!("{{\"pad\":[{}]}}", vec!["0"; MAX_VALUES - 2].join(","));
    assert!(parse_object(at_limit.as_bytes()).is_ok());
    let over = format!("{{\"pad\":[{}]}}", vec!["0"; MAX_VALUES - 1].join(","));
    assert!(
        matches!(parse_object(over.as_bytes()), Err(BodyError::TooComplex(ref why)) if why.contains("more than 10000")),
        "{:?}",
        parse_object(over.as_bytes())
    );
    // Numbers, strings and nulls each count one; so does every container.
    let strings = format!("{{\"pad\":[{}]}}", vec!["\"\""; MAX_VALUES].join(","));
    assert!(matches!(
        parse_object(strings.as_bytes()),
        Err(BodyError::TooComplex(_))
    ));
    let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
    assert!(parse_object(deep(MAX_DEPTH - 1).as_bytes()).is_ok());
    assert!(matches!(
        parse_object(deep(MAX_DEPTH).as_bytes()),
        Err(BodyError::TooComplex(ref why)) if why.contains("deeper than 64")
    ));
}

#[test]
fn raw_keeps_order_unknown_fields_and_number_text() {
    let map =
        parse_object(br#"{"z":1,"fee":1.10,"a":{"big":123456789012345678901234567890}}"#).unwrap();
    let keys: Vec<&String> = map.keys().collect();
    assert_eq!(keys, ["z", "fee", "a"]);
    assert_eq!(
        serde_json::to_string(&map).unwrap(),
        r#"{"z":1,"fee":1.10,"a":{"big":123456789012345678901234567890}}"#
    );
}

/// An object is read as an object, whatever its keys: serde_json's `Value` would read an
/// object whose one key is its private number or raw-JSON token as that number or JSON
/// (with `arbitrary_precision` and `raw_value`, which payverify has), so a service could
/// pass `{"<token>": "4000000"}` for the amount 4000000. serde_json only ever sees scalars.
#[test]
fn an_object_is_never_read_as_a_number_or_raw_json_whatever_its_keys() {
    let number = r#""$serde_json::private::Number""#;
    let raw = r#""$serde_json::private::RawValue""#;
    for (body, field) in [
        (format!(r#"{{"amount":{{{number}:"4000000"}}}}"#), "amount"),
        (
            format!(r#"{{"status":{{{raw}:"\"SUCCESSFUL\""}}}}"#),
            "status",
        ),
        (format!(r#"{{"amount":{{{number} :"4000000"}}}}"#), "amount"),
        (
            r#"{"amount":{"\u0024serde_json::private::Number":"4000000"}}"#.to_owned(),
            "amount",
        ),
        (format!(r#"{{"amount":[{{{number}:"1"}}]}}"#), "amount"),
    ] {
        let map = parse_object(body.as_bytes()).unwrap();
        assert!(
            !matches!(map[field], Value::Number(_) | Value::String(_)),
            "{body}: {map:?}"
        );
        let record = parse_record(&body).unwrap();
        assert_eq!(record[field], map[field], "{body}");
        // Written out again, it is the same object.
        let again = parse_object(serde_json::to_string(&map).unwrap().as_bytes()).unwrap();
        assert_eq!(again, map, "{body}");
    }
    let whole = format!(r#"{{{number}:"1"}}"#);
    assert_eq!(parse_object(whole.as_bytes()).unwrap().len(), 1);
    // A real number is still a number, its text kept.
    let map = parse_object(br#"{"amount":4000000.50}"#).unwrap();
    assert_eq!(map["amount"].to_string(), "4000000.50");
}

/// serde_json's words and places for malformed text, as when serde_json read it whole.
#[test]
fn malformed_text_is_described_as_serde_json_describes_it() {
    for text in [
        &b""[..],
        b"{",
        b"{\"a\":1,}",
        b"[1,]",
        b"{\"a\" 1}",
        b"{\"a\":01}",
        b"{\"a\":1.2.3}",
        b"{\"a\":tru}",
        b"{\"a\":\"x\ny\"}",
        b"{\"a\":\"\\q\"}",
        b"{\n\"a\":\n\"\xff\"}",
        b"{\"a\":\"\\ud800\"}",
        b"{\"a\":1} x",
        b"{1:2}",
        b"\"abc",
    ] {
        let ours = parse_object(text).unwrap_err();
        let theirs = serde_json::from_slice::<Value>(text)
            .unwrap_err()
            .to_string();
        assert_eq!(
            ours,
            BodyError::NotJson(theirs),
            "{}",
            String::from_utf8_lossy(text)
        );
    }
}

mod properties {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::super::{BodyError, parse_object, parse_record};

    /// A JSON text with a few objects, arrays, escapes, numbers in several spellings and
    /// white space; keys drawn from a small set, so some objects repeat one.
    fn text() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec!["a", "b", "\\u0061", "st\\\"x", "é", "\\ud83d\\ude00"]);
        let scalar = prop_oneof![
            prop::sample::select(vec![
                "0",
                "-0",
                "1.10",
                "1e3",
                "-2.5E-3",
                "123456789012345678901234567890",
                "true",
                "false",
                "null",
                "\"\"",
                "\"x\\ny\"",
                "\"\\u00e9\"",
                "\"€\"",
                "01",
                "1.",
                "\"\\ud800\"",
                "tru",
                "\"\\q\"",
            ])
            .prop_map(str::to_owned),
        ];
        let blank = prop::sample::select(vec!["", " ", "\n", "\t", "\r\n"]);
        scalar.prop_recursive(4, 32, 5, move |inner| {
            prop_oneof![
                prop::collection::vec((inner.clone(), blank.clone()), 0..5).prop_map(|items| {
                    let items: Vec<String> = items
                        .into_iter()
                        .map(|(v, b)| format!("{b}{v}{b}"))
                        .collect();
                    format!("[{}]", items.join(","))
                }),
                prop::collection::vec((key.clone(), inner, blank.clone()), 0..5).prop_map(
                    |members| {
                        let members: Vec<String> = members
                            .into_iter()
                            .map(|(k, v, b)| format!("{b}\"{k}\":{b}{v}"))
                            .collect();
                        format!("{{{}}}", members.join(","))
                    }
                ),
            ]
        })
    }

    /// Whether some object in `value` (serde_json's reading, which keeps the last of a key
    /// given twice) lost a member to a repeated key: counted in the text by the walk, so
    /// compared here only by its outcome.
    fn members(value: &Value) -> usize {
        match value {
            Value::Object(map) => map.len() + map.values().map(members).sum::<usize>(),
            Value::Array(items) => items.iter().map(members).sum(),
            _ => 0,
        }
    }

    proptest! {
        /// Against serde_json reading the whole text (public API; no generated key is one
        /// of its tokens): the same value when the text is well-formed with no key twice,
        /// serde_json's own message when it is malformed, and a key twice refused.
        #[test]
        fn the_walk_reads_what_serde_json_reads(body in text(), cut in 0usize..200) {
            let whole = format!("{{\"v\":{body}}}");
            for text in [whole.as_str(), &whole[..whole.floor_char_boundary(cut.min(whole.len()))]] {
                #[allow(clippy::disallowed_methods)]
                let theirs = serde_json::from_str::<Value>(text);
                let ours = parse_object(text.as_bytes());
                match (&ours, &theirs) {
                    (Ok(ours), Ok(Value::Object(theirs))) => {
                        prop_assert_eq!(ours, theirs);
                        let record = parse_record(text);
                        prop_assert_eq!(record.as_ref(), Ok(ours));
                    }
                    (Err(BodyError::DuplicateKey(_)), Ok(theirs)) => {
                        let members_in_text = text.matches("\":").count();
                        prop_assert!(members(theirs) < members_in_text, "{text}");
                    }
                    (Err(BodyError::NotJson(ours)), Err(theirs)) => {
                        prop_assert_eq!(ours, &theirs.to_string(), "{}", text);
                    }
                    // A key twice before the fault: the walk stops at the first.
                    (Err(BodyError::DuplicateKey(_)), Err(_)) => {}
                    _ => prop_assert!(false, "{text}: ours {ours:?}, serde_json {theirs:?}"),
                }
            }
        }
    }
}
