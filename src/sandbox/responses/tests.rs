use super::*;

fn get(state: &State, reference: &str) -> Reply {
    let path = format!(
        "{VERIFY_PREFIX}{}",
        crate::reference::encode_segment(reference)
    );
    reply(state, "GET", &path, Some(&expected_authorization()))
}

fn status_of(r: &Reply) -> &str {
    r.body["status"].as_str().unwrap_or("-")
}

#[test]
fn sample_reference_is_the_documented_fixture_signed_with_the_sandbox_secret() {
    let r = get(&State::default(), SAMPLE_REFERENCE);
    assert_eq!(r.status, 200);
    let mut want: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/verify-success.json"
    )))
    .unwrap();
    // Known answer computed with python3 hmac/hashlib over "WQ-506391000507913NGN4000000".
    want["hmac"] = "77853356f563e755193ac00e060341745b9a098bec1728fb43a215eba4566581".into();
    assert_eq!(r.body, want);
    let keys: Vec<&String> = r.body.as_object().unwrap().keys().collect();
    let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
    assert_eq!(keys, want_keys, "same field order as the fixture");
}

#[test]
fn authorization_is_checked_exactly() {
    let state = State::default();
    let path = format!("{VERIFY_PREFIX}SANDBOX-OK-1");
    assert_eq!(
        expected_authorization(),
        "Basic c2FuZGJveDpzYW5kYm94LXNlY3JldA=="
    );
    for auth in [
        None,
        Some("Basic sandbox:sandbox-secret"),
        Some("Basic c2FuZGJveDp3cm9uZw=="),
        Some("Bearer c2FuZGJveDpzYW5kYm94LXNlY3JldA=="),
    ] {
        let r = reply(&state, "GET", &path, auth);
        assert_eq!(r.status, 401, "{auth:?}");
        assert!(r.body["message"].is_string());
    }
}

#[test]
fn magic_references() {
    let state = State::default();
    assert_eq!(status_of(&get(&state, "SANDBOX-OK-x")), "SUCCESSFUL");
    assert_eq!(status_of(&get(&state, "SANDBOX-OK-")), "SUCCESSFUL");
    let amount = get(&state, "SANDBOX-AMOUNT-150-x");
    assert_eq!(amount.body["amount"], 150);
    let failed = get(&state, "SANDBOX-FAILED-x");
    assert_eq!(status_of(&failed), "FAILED");
    assert_eq!(failed.body["code"], "51");
    assert_eq!(failed.body["description"], "Insufficient Funds");
    assert_eq!(status_of(&get(&state, "SANDBOX-PENDING-x")), "PENDING");
    assert_eq!(get(&state, "SANDBOX-ERROR-x").status, 500);
    assert_eq!(get(&state, "SANDBOX-ERROR-x").status, 500);
    let slow = get(&state, "SANDBOX-SLOW-250-x");
    assert_eq!((slow.status, slow.delay), (200, Duration::from_millis(250)));
    for unknown in [
        "nope",
        "SANDBOX-AMOUNT-abc-x",
        "SANDBOX-SLOW-999999999-x",
        "SANDBOX-SETTLES-86400001-x",
        "SANDBOX-SETTLES-FAILED--x",
        "SANDBOX-SETTLES-x",
        "SANDBOX-OK",
    ] {
        let r = get(&state, unknown);
        assert_eq!(r.status, 404, "{unknown}");
        assert!(r.body["message"].as_str().unwrap().contains(unknown));
    }
}

#[test]
fn flaky_and_ratelimit_fail_only_the_first_time_per_reference() {
    let state = State::default();
    assert_eq!(get(&state, "SANDBOX-FLAKY-a").status, 503);
    assert_eq!(get(&state, "SANDBOX-FLAKY-a").status, 200);
    assert_eq!(get(&state, "SANDBOX-FLAKY-b").status, 503);
    let limited = get(&state, "SANDBOX-RATELIMIT-a");
    assert_eq!((limited.status, limited.retry_after), (429, Some(1)));
    assert_eq!(get(&state, "SANDBOX-RATELIMIT-a").status, 200);
}

#[test]
fn reversed_is_paid_on_the_first_ask_only_and_remembers_earlier_runs() {
    let state = State::default();
    assert_eq!(status_of(&get(&state, "SANDBOX-REVERSED-a")), "SUCCESSFUL");
    let again = get(&state, "SANDBOX-REVERSED-a");
    assert_eq!((again.status, status_of(&again)), (200, "FAILED"));
    assert_eq!(again.body["code"], "51");
    assert_eq!(again.body["description"], "Transaction reversed");
    assert_eq!(status_of(&get(&state, "SANDBOX-REVERSED-a")), "FAILED");
    // Each reference flips on its own.
    assert_eq!(status_of(&get(&state, "SANDBOX-REVERSED-b")), "SUCCESSFUL");
    // A sandbox whose memory knows of an earlier run's ask answers FAILED at once, and only
    // for the references it knows.
    let remembering = State::remembering(Some(Memory::new(|r| r == "SANDBOX-REVERSED-old")));
    assert_eq!(
        status_of(&get(&remembering, "SANDBOX-REVERSED-old")),
        "FAILED"
    );
    assert_eq!(
        status_of(&get(&remembering, "SANDBOX-REVERSED-new")),
        "SUCCESSFUL"
    );
    // Memory changes only the references that flip.
    let knows_all = State::remembering(Some(Memory::new(|_| true)));
    assert_eq!(status_of(&get(&knows_all, "SANDBOX-OK-x")), "SUCCESSFUL");
    assert_eq!(get(&knows_all, "SANDBOX-FLAKY-x").status, 503);
}

#[test]
fn settling_references_are_pending_until_their_time_from_the_first_request() {
    let state = State::default();
    assert_eq!(status_of(&get(&state, "SANDBOX-SETTLES-150-a")), "PENDING");
    assert_eq!(
        status_of(&get(&state, "SANDBOX-SETTLES-FAILED-150-a")),
        "PENDING"
    );
    assert_eq!(status_of(&get(&state, "SANDBOX-SETTLES-150-a")), "PENDING");
    std::thread::sleep(Duration::from_millis(200));
    // Each reference's clock starts at its own first request.
    assert_eq!(status_of(&get(&state, "SANDBOX-SETTLES-150-b")), "PENDING");
    assert_eq!(
        status_of(&get(&state, "SANDBOX-SETTLES-150-a")),
        "SUCCESSFUL"
    );
    assert_eq!(
        status_of(&get(&state, "SANDBOX-SETTLES-FAILED-150-a")),
        "FAILED"
    );
    assert_eq!(status_of(&get(&state, "SANDBOX-SETTLES-0-c")), "SUCCESSFUL");
}

#[test]
fn hmac_is_valid_except_for_badhmac() {
    let state = State::default();
    let secret = Secret::new(CLIENT_SECRET);
    let check = |r: &Reply| {
        let b = &r.body;
        let msg = signature::message(
            b["merchantRef"].as_str().unwrap(),
            b["currencyCode"].as_str().unwrap(),
            Kobo(b["amount"].as_i64().unwrap()),
        );
        signature::verify(&secret, &msg, b["hmac"].as_str().unwrap())
    };
    for good in [
        "SANDBOX-OK-1",
        "SANDBOX-AMOUNT-99-1",
        "SANDBOX-FAILED-1",
        SAMPLE_REFERENCE,
    ] {
        assert!(check(&get(&state, good)), "{good}");
    }
    assert!(!check(&get(&state, "SANDBOX-BADHMAC-1")));
}

#[test]
fn derived_values_are_deterministic_and_differ_by_reference() {
    let a1 = get(&State::default(), "SANDBOX-OK-a");
    let a2 = get(&State::default(), "SANDBOX-OK-a");
    let b = get(&State::default(), "SANDBOX-OK-b");
    assert_eq!(a1, a2);
    assert_ne!(a1.body["merchantRef"], b.body["merchantRef"]);
    assert_eq!(a1.body["transactionRef"], "SANDBOX-OK-a");
    let date = a1.body["transactionDate"].as_str().unwrap();
    assert_eq!(date.len(), "2022-11-14T22:33:37.833Z".len());
    assert!(date.starts_with("2022-"), "{date}");
}

#[test]
fn awkward_paths() {
    let state = State::default();
    let auth = expected_authorization();
    assert_eq!(reply(&state, "GET", "/other", Some(&auth)).status, 404);
    assert_eq!(
        reply(&state, "GET", "/api/payment/verify/a/b", Some(&auth)).status,
        404
    );
    assert_eq!(
        reply(&state, "GET", "/api/payment/verify/", Some(&auth)).status,
        404
    );
    assert_eq!(
        reply(&state, "GET", "/api/payment/verify/%ff", Some(&auth)).status,
        404
    );
    assert_eq!(
        reply(&state, "POST", "/api/payment/verify/x", Some(&auth)).status,
        405
    );
    let r = reply(
        &state,
        "GET",
        "/api/payment/verify/SANDBOX-OK-a%2Fb?x=1",
        Some(&auth),
    );
    assert_eq!(r.body["transactionRef"], "SANDBOX-OK-a/b");
}

#[test]
fn iso_dates() {
    assert_eq!(iso8601_ms(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso8601_ms(1_668_465_217_833), "2022-11-14T22:33:37.833Z");
    assert_eq!(iso8601_ms(1_668_465_264_913), "2022-11-14T22:34:24.913Z");
    assert_eq!(iso8601_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
}

#[test]
fn woocommerce_merchant_references_answer_with_the_amount_and_status_they_state() {
    let state = State::default();
    let plain = get(&state, "4101_1763730000");
    assert_eq!(plain.status, 200);
    assert_eq!(status_of(&plain), "SUCCESSFUL");
    assert_eq!(plain.body["amount"], 4_000_000);
    // The reference is the merchantRef, signed as such; the transactionRef is the
    // gateway's own digits; the payment happened at the reference's unix time.
    assert_eq!(plain.body["merchantRef"], "4101_1763730000");
    let transaction_ref = plain.body["transactionRef"].as_str().unwrap();
    assert!(transaction_ref.len() == 19 && transaction_ref.bytes().all(|b| b.is_ascii_digit()));
    assert_eq!(
        plain.body["hmac"],
        sign("4101_1763730000", "NGN", Kobo(4_000_000)).as_str()
    );
    assert!(
        plain.body["transactionDate"]
            .as_str()
            .unwrap()
            .starts_with("2025-11-21T13:00:00."),
        "{}",
        plain.body
    );
    let priced = get(&state, "4101_1763730000_1250000");
    assert_eq!(
        (status_of(&priced), &priced.body["amount"]),
        ("SUCCESSFUL", &1_250_000.into())
    );
    // The `_<kobo>` only chooses the answer: the merchantRef is the WooCommerce part the shop
    // stored, signed as such, and the reference asked comes back as the paymentRef.
    assert_eq!(priced.body["merchantRef"], "4101_1763730000");
    assert_eq!(priced.body["paymentRef"], "4101_1763730000_1250000");
    assert_eq!(
        priced.body["hmac"],
        sign("4101_1763730000", "NGN", Kobo(1_250_000)).as_str()
    );
    assert_ne!(plain.body["paymentRef"], "4101_1763730000");
    for (reference, status, amount) in [
        ("4102_1763730100_1250000_FAILED", "FAILED", 1_250_000),
        ("4102_1763730100_1250000_PENDING", "PENDING", 1_250_000),
        ("4102_1763730100_FAILED", "FAILED", 4_000_000),
        ("4102_1763730100_7_SUCCESSFUL", "SUCCESSFUL", 7),
    ] {
        let r = get(&state, reference);
        assert_eq!(r.status, 200, "{reference}");
        assert_eq!(status_of(&r), status, "{reference}");
        assert_eq!(r.body["amount"], amount, "{reference}");
        assert_eq!(r.body["merchantRef"], "4102_1763730100", "{reference}");
        assert_eq!(r.body["paymentRef"], reference, "{reference}");
    }
    // Near misses are unknown references: 404.
    for near in [
        "4101_176373000",
        "4101_17637300000",
        "4101-1763730000",
        "_1763730000",
        "4101_1763730000_",
        "4101_1763730000_12.50",
        "4101_1763730000_1250000_failed",
        "4101_1763730000_1250000_FAILED_x",
        "4101_1763730000_99999999999999999999",
        "4101_1763730000_FAILED_1250000",
        "x4101_1763730000",
        "4101_1763730000 ",
    ] {
        assert_eq!(get(&state, near).status, 404, "{near}");
    }
}

#[test]
fn references_that_change_one_field_of_a_successful_answer() {
    let state = State::default();
    let secret = Secret::new(CLIENT_SECRET);
    let signed = |b: &Value| {
        let msg = signature::message(
            b["merchantRef"].as_str().unwrap(),
            b["currencyCode"].as_str().unwrap(),
            Kobo(b["amount"].as_i64().unwrap()),
        );
        signature::verify(&secret, &msg, b["hmac"].as_str().unwrap())
    };
    let ok = get(&state, "SANDBOX-OK-7").body;
    let cases: [(&str, &str, Value); 6] = [
        ("SANDBOX-CURRENCY-USD-7", "currencyCode", "USD".into()),
        ("SANDBOX-CURRENCY-usd-7", "currencyCode", "usd".into()),
        (
            "SANDBOX-MERCHANT-4101_1763730000",
            "merchantRef",
            "4101_1763730000".into(),
        ),
        (
            "SANDBOX-MERCHANT-ORDER-17-b",
            "merchantRef",
            "ORDER-17-b".into(),
        ),
        ("SANDBOX-CODE-10-7", "code", "10".into()),
        ("SANDBOX-MODE-live-7", "mode", "live".into()),
    ];
    for (reference, key, want) in cases {
        let r = get(&state, reference);
        assert_eq!(r.status, 200, "{reference}");
        assert_eq!(status_of(&r), "SUCCESSFUL", "{reference}");
        assert_eq!(r.body[key], want, "{reference}");
        assert_eq!(r.body["transactionRef"], reference);
        assert!(signed(&r.body), "{reference}: signed over what it says");
        // Everything else is as for any SUCCESSFUL answer.
        for other in ["status", "amount", "description", "nextAction", "option"] {
            assert_eq!(r.body[other], ok[other], "{reference} {other}");
        }
    }
    let none = get(&state, "SANDBOX-NOHMAC-7");
    assert_eq!(status_of(&none), "SUCCESSFUL");
    assert!(none.body.get("hmac").is_none(), "{}", none.body);
    assert_eq!(ok["mode"], "dev");
    for unknown in [
        "SANDBOX-CURRENCY-US-x",
        "SANDBOX-CURRENCY-USDX-x",
        "SANDBOX-CURRENCY-U$D-x",
        "SANDBOX-CURRENCY-USD",
        "SANDBOX-MERCHANT-",
        "SANDBOX-CODE--x",
        "SANDBOX-CODE-12345-x",
        "SANDBOX-MODE-li ve-x",
        "SANDBOX-MODE-x",
        "SANDBOX-NOHMAC",
        // A currency only after an amount, in an ISO 4217 code's form.
        "4101_1763730000_USD",
        "4101_1763730000_8500_usd",
        "4101_1763730000_8500_USDX",
        "4101_1763730000_8500_USD_FAILED",
    ] {
        assert_eq!(get(&state, unknown).status, 404, "{unknown}");
    }
}

#[test]
fn the_table_is_the_list_the_sandbox_answers_by() {
    // Each row's pattern, filled in, is recognised as that row (not an earlier one).
    let fill = |pattern: &str| {
        pattern
            .replace("<order id>", "4101")
            .replace("<unix time>", "1763730000")
            .replace("<anything>", "x")
            .replace("<kobo>", "150")
            .replace("<minor>", "8500")
            .replace("<ms>", "0")
            .replace("<code>", "USD")
            .replace("<mode>", "live")
            .replace("<merchantRef>", "M-1")
    };
    for (i, row) in MAGIC_REFERENCES.iter().enumerate() {
        let reference = match row.pattern {
            "anything else" => "nope".to_owned(),
            "SANDBOX-CODE-<code>-<anything>" => "SANDBOX-CODE-10-x".to_owned(),
            pattern => fill(pattern),
        };
        let first = MAGIC_REFERENCES
            .iter()
            .position(|r| r.recognises(&reference));
        assert_eq!(first, Some(i), "{reference} is answered by another row");
    }
    // Every line of the table fits an 80-column terminal, answers wrapped under themselves.
    let table = magic_section();
    for line in table.lines() {
        assert!(line.chars().count() <= 78, "{line:?}");
    }
    assert!(
        table.contains("\n  SANDBOX-NOHMAC-<anything>   "),
        "{table}"
    );
}
