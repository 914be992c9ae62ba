//! Any payload: the webhook check parses, signs and compares without panicking, and a
//! payload it accepts is one the signature really matches.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payverify::{Secret, Verification, parse_object};

fuzz_target!(|data: &[u8]| {
    let Ok(payload) = parse_object(data).and_then(Verification::from_object) else {
        return;
    };
    let Ok(message) = payverify::signed_message(&payload) else {
        return;
    };
    let secret = Secret::new("sandbox-secret");
    let Some(hmac) = payload.hmac.as_deref() else {
        return;
    };
    if payverify::verify_signature(&secret, &message, hmac) {
        assert_eq!(
            hmac.trim().to_ascii_lowercase(),
            payverify::sign(&secret, &message)
        );
    }
});
