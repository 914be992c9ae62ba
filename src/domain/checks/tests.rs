use serde_json::Value;

use super::*;
use crate::domain::model::parse_object;

const SANDBOX_SECRET: &str = "sandbox-secret";
// HMAC-SHA256("sandbox-secret", "WQ-506391000507913NGN4000000"), computed with python3.
const SAMPLE_SIG: &str = "77853356f563e755193ac00e060341745b9a098bec1728fb43a215eba4566581";

fn sample(edit: impl FnOnce(&mut Value)) -> Verification {
    let mut v: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/verify-success.json"
    )))
    .unwrap();
    v["hmac"] = SAMPLE_SIG.into();
    edit(&mut v);
    Verification::from_object(parse_object(v.to_string().as_bytes()).unwrap()).unwrap()
}

/// The failures' lines, as records and messages word them.
fn lines(failures: &[CheckFailure]) -> Vec<String> {
    failures.iter().map(ToString::to_string).collect()
}

fn check(v: &Verification, mode: HmacMode, expect: &Expectations) -> CheckReport {
    evaluate(v, mode, &Secret::new(SANDBOX_SECRET), expect)
}

#[test]
fn genuine_sample_passes() {
    let r = check(&sample(|_| {}), HmacMode::Require, &Expectations::default());
    assert_eq!(r.integrity, Integrity::Valid);
    assert!(r.passed() && r.warnings.is_empty(), "{r:?}");
}

#[test]
fn upper_case_hex_is_accepted() {
    let v = sample(|v| v["hmac"] = SAMPLE_SIG.to_uppercase().into());
    assert_eq!(
        check(&v, HmacMode::Require, &Expectations::default()).integrity,
        Integrity::Valid
    );
}

#[test]
fn tampering_with_each_signed_field_flips_the_verdict() {
    let edits: [fn(&mut Value); 3] = [
        |v| v["merchantRef"] = "WQ-506391000507914".into(),
        |v| v["currencyCode"] = "USD".into(),
        |v| v["amount"] = 4_000_001.into(),
    ];
    for edit in edits {
        let v = sample(edit);
        let r = check(&v, HmacMode::Require, &Expectations::default());
        assert_eq!(r.integrity, Integrity::Mismatch);
        assert!(!r.passed());
        let warned = check(&v, HmacMode::Warn, &Expectations::default());
        assert!(warned.passed() && warned.warnings.len() == 1, "{warned:?}");
    }
}

#[test]
fn missing_hmac_or_signed_fields() {
    let no_hmac = sample(|v| v["hmac"] = Value::Null);
    let r = check(&no_hmac, HmacMode::Require, &Expectations::default());
    assert!(!r.passed());
    assert!(r.failures[0].to_string().contains("no hmac"), "{r:?}");
    assert!(check(&no_hmac, HmacMode::Warn, &Expectations::default()).passed());

    let no_amount = sample(|v| {
        v.as_object_mut().unwrap().remove("amount");
        v.as_object_mut().unwrap().remove("currencyCode");
    });
    let r = check(&no_amount, HmacMode::Require, &Expectations::default());
    assert!(
        r.failures[0].to_string().contains("currencyCode, amount"),
        "{r:?}"
    );
    assert_eq!(
        r.integrity,
        Integrity::NotChecked("no currencyCode, amount".into())
    );
}

#[test]
fn off_checks_nothing_about_the_hmac() {
    let v = sample(|v| v["hmac"] = "00".into());
    let r = check(&v, HmacMode::Off, &Expectations::default());
    assert!(r.passed() && r.warnings.is_empty());
    assert_eq!(r.integrity.to_string(), "not checked (--hmac off)");
}

#[test]
fn expectations_compare_exactly() {
    let v = sample(|_| {});
    let ok = Expectations {
        amount: Some(Kobo(4_000_000)),
        currency: Some("ngn".into()),
        merchant_ref: Some("WQ-506391000507913".into()),
        shop: None,
        order_id: None,
        other_methods: None,
    };
    assert!(check(&v, HmacMode::Off, &ok).passed());
    let wrong = Expectations {
        amount: Some(Kobo(4_000_001)),
        currency: Some("USD".into()),
        merchant_ref: Some("WQ-1".into()),
        shop: None,
        order_id: None,
        other_methods: None,
    };
    let r = check(&v, HmacMode::Off, &wrong);
    assert_eq!(
        lines(&r.failures),
        vec![
            "expected amount ₦40,000.01 (4000001 kobo), service says ₦40,000.00 (4000000 kobo)",
            "expected currency USD, service says NGN",
            "expected merchant ref \"WQ-1\", service says \"WQ-506391000507913\"",
        ]
    );
    // Each failure keeps what was wanted and what the answer has, for reconcile to name.
    assert_eq!(
        r.failures,
        [
            CheckFailure::Amount {
                wanted: Kobo(4_000_001),
                found: Some(Kobo(4_000_000)),
                currency: Some("NGN".into())
            },
            CheckFailure::Currency {
                wanted: "USD".into(),
                found: Some("NGN".into())
            },
            CheckFailure::MerchantRef {
                wanted: "WQ-1".into(),
                found: Some("WQ-506391000507913".into())
            },
        ]
    );
    // The service's currency is taken as it is: padded, it is not the currency asked.
    let padded = sample(|v| v["currencyCode"] = " NGN".into());
    let r = check(&padded, HmacMode::Off, &ok);
    assert_eq!(
        r.failures,
        [CheckFailure::Currency {
            wanted: "ngn".into(),
            found: Some(" NGN".into())
        }]
    );
    let absent = sample(|v| v["amount"] = Value::Null);
    let r = check(&absent, HmacMode::Off, &ok);
    assert!(
        r.failures[0].to_string().ends_with("service says nothing"),
        "{r:?}"
    );
}

#[test]
fn successful_needs_code_00() {
    let v = sample(|v| v["code"] = "51".into());
    let r = check(&v, HmacMode::Off, &Expectations::default());
    assert!(r.failures[0].to_string().contains("code is '51'"), "{r:?}");
    let failed = sample(|v| {
        v["status"] = "FAILED".into();
        v["code"] = "51".into();
    });
    assert!(check(&failed, HmacMode::Off, &Expectations::default()).passed());
}

#[test]
fn summary_names_the_hmac_verdict_once_then_the_other_checks() {
    let good = check(&sample(|_| {}), HmacMode::Warn, &Expectations::default());
    assert_eq!(good.summary(), "hmac valid");
    let tampered = sample(|v| v["hmac"] = "0".repeat(64).into());
    let expect = Expectations {
        amount: Some(crate::domain::money::Kobo(40_000)),
        ..Expectations::default()
    };
    for mode in [HmacMode::Warn, HmacMode::Require] {
        let r = check(&tampered, mode, &expect);
        assert_eq!(
            r.summary(),
            "hmac MISMATCH; expected amount ₦400.00 (40000 kobo), service says ₦40,000.00 \
             (4000000 kobo)",
            "{mode:?}"
        );
    }
    let unsigned = sample(|v| {
        v.as_object_mut().unwrap().remove("hmac");
    });
    assert_eq!(
        check(&unsigned, HmacMode::Warn, &Expectations::default()).summary(),
        "hmac not checked (the response has no hmac)"
    );
    assert_eq!(
        check(&sample(|_| {}), HmacMode::Off, &Expectations::default()).summary(),
        "hmac not checked (--hmac off)"
    );
}

#[test]
fn a_woocommerce_merchant_ref_names_its_order() {
    use super::woocommerce_order;
    assert_eq!(woocommerce_order("4101_1795244531"), Some("4101"));
    assert_eq!(woocommerce_order("4101_1795244531_1450000"), Some("4101"));
    assert_eq!(
        woocommerce_order("4101_1795244531_1450000_FAILED"),
        Some("4101")
    );
    for other in [
        "WQ-506391000507913",
        "4101",
        "4101_179524453",
        "4101_17952445310",
        "x4101_1795244531",
        "_1795244531",
        "4101_1795244531x",
        "4101-1795244531",
    ] {
        assert_eq!(woocommerce_order(other), None, "{other}");
    }
    let answer = sample(|v| v["merchantRef"] = "4101_1795244531".into());
    let order = |id: &str| Expectations {
        order_id: Some(id.into()),
        other_methods: None,
        ..Expectations::default()
    };
    assert!(check(&answer, HmacMode::Off, &order(" 4101 ")).passed());
    assert_eq!(
        lines(&check(&answer, HmacMode::Off, &order("4200")).failures),
        [
            "the payment is for order 4101 (merchantRef \"4101_1795244531\"), not this row's order \"4200\""
        ]
    );
    // Another form of merchantRef is not held against the order id.
    assert!(check(&sample(|_| {}), HmacMode::Off, &order("4200")).passed());
}
