//! Any HTTP status and any body: classification and checks never panic, and agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payverify::{
    Expectations, HmacMode, Kobo, OUTCOME_NAMES, Outcome, Response, Secret, Verdict,
    classify_response,
};

fuzz_target!(|data: &[u8]| {
    let (status, body) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]) % 700, rest.to_vec()),
        _ => (200, data.to_vec()),
    };
    let outcome = classify_response(&Response { status, body });
    if status != 200 {
        assert!(outcome.verification().is_none());
    }
    if let Outcome::Successful(v) = &outcome {
        assert_eq!(v.status.as_deref(), Some("SUCCESSFUL"));
    }
    let checks = outcome.verification().map(|v| {
        payverify::evaluate(
            v,
            HmacMode::Require,
            &Secret::new("sandbox-secret"),
            &Expectations {
                amount: Some(Kobo(4_000_000)),
                currency: Some("ngn".into()),
                merchant_ref: Some("WQ-506391000507913".into()),
                // A WooCommerce merchantRef (`<order id>_<unix time>`) is held against it.
                order_id: Some("4101".into()),
                other_methods: None,
                // Fields added later start unset, so this harness keeps building.
                ..Expectations::default()
            },
        )
    });
    let verdict = Verdict { outcome, checks };
    assert!(OUTCOME_NAMES.contains(&verdict.name()));
    assert!(verdict.exit().code() <= 9);
});
