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

/// The refusal above and [`Scan`]'s number rule name serde_json's private token; this
/// fails if a serde_json release hands a number (one too long for u64 here) over under another
/// name (then both must
/// follow it), or stops reading the token's map as a number (then the refusal is moot).
#[test]
fn serde_json_still_passes_numbers_under_the_token_this_module_names() {
    struct FirstKey;
    impl<'de> Visitor<'de> for FirstKey {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a number")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let key = map.next_key::<String>()?;
            map.next_value::<de::IgnoredAny>()?;
            Ok(key)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    let mut d = serde_json::Deserializer::from_str("123456789012345678901234567890");
    let key = de::Deserializer::deserialize_any(&mut d, FirstKey).unwrap();
    assert_eq!(key.as_deref(), Some(NUMBER_TOKEN));
    assert!(NUMBER_TOKEN.starts_with(PRIVATE_PREFIX));
    let read: Value = serde_json::from_str(r#"{"$serde_json::private::Number":"5"}"#).unwrap();
    assert_eq!(read, serde_json::json!(5));
}

#[test]
fn a_serde_json_private_key_is_refused_however_written_wherever_it_is() {
    let number = r#""$serde_json::private::Number""#;
    let raw = r#""$serde_json::private::RawValue""#;
    for body in [
        format!(r#"{{"amount":{{{number}:"4000000"}}}}"#),
        format!(r#"{{"status":{{{raw}:"\"SUCCESSFUL\""}}}}"#),
        format!(r#"{{"data":{{"x":[1,{{{number}:"1"}}]}}}}"#),
        format!(r#"{{"amount":{{"a":1,{number}:"4000000"}}}}"#),
        format!(r#"{{"amount":{{{number} :"4000000"}}}}"#),
        format!("{{\"amount\":{{{number}\n\t:\"4000000\"}}}}"),
        r#"{"amount":{"\u0024serde_json::private::Number":"4000000"}}"#.to_owned(),
        r#"{"amount":{"$serde_json\u003a:private::Number":"4000000"}}"#.to_owned(),
        // A future token: the whole prefix is refused.
        r#"{"amount":{"$serde_json::private::Other":"4000000"}}"#.to_owned(),
        format!(r#"{{{number}:"1"}}"#),
    ] {
        assert!(
            matches!(
                parse_object(body.as_bytes()),
                Err(BodyError::ReservedKey(ref k)) if k.starts_with(PRIVATE_PREFIX)
            ),
            "{body}: {:?}",
            parse_object(body.as_bytes())
        );
        assert!(parse_record(&body).is_err(), "{body}");
    }
}

#[test]
fn the_private_prefix_as_a_value_or_a_near_miss_key_is_plain_text() {
    for body in [
        r#"{"note":"$serde_json::private::Number"}"#,
        r#"{"note":["$serde_json::private::Number", ":"]}"#,
        r#"{"$serde_json::private":"x"}"#,
        r#"{"serde_json::private::Number":"x"}"#,
        r#"{" $serde_json::private::Number":"x"}"#,
        r#"{"a\"$serde_json::private::Number":"x"}"#,
        r#"{"amount":4000000,"k":"\"$serde_json::private::Number\":"}"#,
    ] {
        assert!(parse_object(body.as_bytes()).is_ok(), "{body}");
    }
    // A real number is still a number, its text kept.
    let map = parse_object(br#"{"amount":4000000.50}"#).unwrap();
    assert_eq!(map["amount"].to_string(), "4000000.50");
}
