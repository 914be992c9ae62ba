//! Any string: a reference is one path segment that decodes back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use payverify::{Reference, decode_segment, encode_segment};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let encoded = encode_segment(text);
    assert!(!encoded.contains('/') && !encoded.contains('?') && !encoded.contains('#'));
    assert!(encoded != "." && encoded != "..");
    assert_eq!(decode_segment(&encoded).as_deref(), Some(text));
    if let Ok(reference) = Reference::parse(text) {
        assert!(!reference.as_str().is_empty());
        assert!(!reference.as_str().chars().any(char::is_control));
        assert_eq!(reference.as_str(), reference.as_str().trim());
        let _ = decode_segment(text);
    }
});
