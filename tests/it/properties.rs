//! Properties that must hold for every input, checked with proptest.

use payverify::Kobo;
use payverify::Response;
use payverify::Secret;
use payverify::{Expectations, HmacMode};
use payverify::{OUTCOME_NAMES, Verdict, classify_response};
use payverify::{Reference, decode_segment, encode_segment};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("SUCCESSFUL"),
            Just("FAILED"),
            Just("PENDING"),
            Just("00")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((field_name(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Mostly the interface's own field names, so generated objects exercise the typed view.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "status",
            "code",
            "amount",
            "currencyCode",
            "merchantRef",
            "hmac",
            "data",
            "pan",
            "description",
            "paymentRef",
            "transactionRef",
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn encoding_stays_in_one_segment_and_decodes_back(s in any::<String>()) {
        let encoded = encode_segment(&s);
        prop_assert!(!encoded.contains('/'));
        prop_assert!(!encoded.contains('?') && !encoded.contains('#'));
        prop_assert!(encoded != "." && encoded != "..");
        prop_assert!(encoded.is_ascii());
        prop_assert_eq!(decode_segment(&encoded), Some(s));
    }

    #[test]
    fn references_encode_safely(s in "\\PC{1,40}") {
        if let Ok(reference) = Reference::parse(&s) {
            let segment = reference.path_segment();
            prop_assert!(!segment.contains('/'));
            let decoded = decode_segment(&segment);
            prop_assert_eq!(decoded.as_deref(), Some(reference.as_str()));
        }
    }

    #[test]
    fn naira_formatting_and_parsing_round_trip(kobo in 0..=i64::MAX) {
        let k = Kobo(kobo);
        prop_assert_eq!(Kobo::parse_naira(&k.naira_decimal()), Ok(k));
        prop_assert_eq!(Kobo::parse_kobo(&kobo.to_string()), Ok(k));
        // The grouped form carries the same digits.
        prop_assert_eq!(k.naira_figure().replace(',', ""), k.naira_decimal());
        // What payverify prints, --expect-amount reads back exactly.
        prop_assert_eq!(Kobo::parse_naira(&format!("₦{}", k.naira_figure())), Ok(k));
        prop_assert_eq!(Kobo::parse_naira(&format!("NGN {}", k.naira_figure())), Ok(k));
    }

    #[test]
    fn naira_parsing_is_exact_integer_arithmetic(whole in 0u64..10_000_000_000, frac in 0u32..100, two in any::<bool>()) {
        let text = if two || frac % 10 != 0 {
            format!("{whole}.{frac:02}")
        } else {
            format!("{whole}.{}", frac / 10)
        };
        let want = whole as i64 * 100 + frac as i64;
        prop_assert_eq!(Kobo::parse_naira(&text), Ok(Kobo(want)));
    }

    #[test]
    fn naira_parsing_never_panics(s in any::<String>()) {
        let _ = Kobo::parse_naira(&s);
        let _ = Kobo::parse_kobo(&s);
    }

    #[test]
    fn classification_is_total_over_bytes(status in any::<u16>(), body in prop::collection::vec(any::<u8>(), 0..256)) {
        let outcome = classify_response(&Response { status, body });
        prop_assert!(OUTCOME_NAMES.contains(&outcome.name()));
    }

    #[test]
    fn classification_is_total_over_json(status in prop::sample::select(vec![200u16, 404, 401, 429, 500, 302]), value in json_value()) {
        let body = serde_json::to_vec(&value).unwrap();
        let outcome = classify_response(&Response { status, body });
        prop_assert!(OUTCOME_NAMES.contains(&outcome.name()));
        // Checks run on whatever was classified never panic either.
        let checks = outcome.verification().map(|v| {
            payverify::evaluate(v, HmacMode::Require, &Secret::new("k"), &Expectations {
                amount: Some(Kobo(1)),
                currency: Some("NGN".into()),
                merchant_ref: Some("m".into()),
                shop: None,
                order_id: Some("1".into()),
                other_methods: None,
            })
        });
        let verdict = Verdict { outcome, checks };
        prop_assert!(OUTCOME_NAMES.contains(&verdict.name()));
        let exit = verdict.exit().code();
        prop_assert!(exit <= 9);
        if status != 200 {
            prop_assert!(verdict.outcome.verification().is_none());
        }
    }
}
