//! The gateway's `hmac` field: hex HMAC-SHA256 keyed with the client secret over
//! `merchantRef + currencyCode + amount` (amount as a decimal integer in kobo).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::domain::money::Kobo;
use crate::secret::Secret;

/// The message the gateway signs: `WQ-506391000507913NGN4000000` for the documented sample.
pub(crate) fn message(merchant_ref: &str, currency: &str, amount: Kobo) -> String {
    format!("{merchant_ref}{currency}{}", amount.0)
}

fn mac(secret: &Secret, message: &str) -> Hmac<Sha256> {
    // HMAC takes keys of any length, so this cannot fail; the fallback keeps it total.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.expose().as_bytes())
        .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()));
    mac.update(message.as_bytes());
    mac
}

/// The lower-case hex signature of `message` under `secret`.
pub fn sign(secret: &Secret, message: &str) -> String {
    let mut out = String::with_capacity(64);
    push_lower_hex(&digest(secret, message), &mut out);
    out
}

/// The signature of `message` under `secret`, as bytes: a record's seal is pushed onto the
/// record's own text ([`push_lower_hex`]), with no string of its own.
pub(crate) fn digest(secret: &Secret, message: &str) -> [u8; 32] {
    mac(secret, message).finalize().into_bytes().into()
}

/// `bytes` as lower-case hex digits, pushed onto `out`: every record's seal is one, and a
/// `format!` per byte was 32 allocations a record.
pub(crate) fn push_lower_hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
}

/// Whether `hex` has the signature's form: exactly 64 hex digits (either case), nothing
/// around them. Nothing is trimmed or read numerically, so `+9` never stands for `09`.
pub(crate) fn is_well_formed(hex: &str) -> bool {
    hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `hex` is the signature of `message`: well formed, and equal in constant time.
pub fn verify(secret: &Secret, message: &str, hex: &str) -> bool {
    match decode_hex(hex) {
        Some(bytes) => mac(secret, message).verify_slice(&bytes).is_ok(),
        None => false,
    }
}

/// The 32 bytes of a well-formed signature (in place: every answer's hmac is decoded, and
/// a collected `Vec` grew three times to hold them).
fn decode_hex(hex: &str) -> Option<[u8; 32]> {
    if !is_well_formed(hex) {
        return None;
    }
    let nibble = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Computed outside this code: python3 hmac/hashlib and `openssl dgst -sha256 -hmac`.
    const SAMPLE_MESSAGE: &str = "WQ-506391000507913NGN4000000";
    const SANDBOX_SIG: &str = "77853356f563e755193ac00e060341745b9a098bec1728fb43a215eba4566581";

    #[test]
    fn known_answer() {
        let secret = Secret::new("sandbox-secret");
        assert_eq!(
            message("WQ-506391000507913", "NGN", Kobo(4_000_000)),
            SAMPLE_MESSAGE
        );
        assert_eq!(sign(&secret, SAMPLE_MESSAGE), SANDBOX_SIG);
        assert_eq!(
            sign(&Secret::new("test-secret-Zq81xv"), SAMPLE_MESSAGE),
            "af9bf5ee80ea7ebd15293c9b9ba319ddf70a86aa3464b243826bf6a320adc11d"
        );
    }

    #[test]
    fn verify_accepts_either_case_and_refuses_tampering() {
        let secret = Secret::new("sandbox-secret");
        assert!(verify(&secret, SAMPLE_MESSAGE, SANDBOX_SIG));
        assert!(verify(&secret, SAMPLE_MESSAGE, &SANDBOX_SIG.to_uppercase()));
        assert!(!verify(&Secret::new("other"), SAMPLE_MESSAGE, SANDBOX_SIG));
        assert!(!verify(
            &secret,
            "WQ-506391000507913NGN4000001",
            SANDBOX_SIG
        ));
        assert!(!verify(&secret, SAMPLE_MESSAGE, &SANDBOX_SIG[..62]));
        assert!(!verify(&secret, SAMPLE_MESSAGE, "zz"));
        assert!(!verify(&secret, SAMPLE_MESSAGE, ""));
        assert!(!verify(&secret, SAMPLE_MESSAGE, "é1"));
    }

    #[test]
    fn only_exactly_64_hex_digits_are_read() {
        let secret = Secret::new("sandbox-secret");
        for near_miss in [
            format!(" {SANDBOX_SIG}"),
            format!("{SANDBOX_SIG}\n"),
            format!("0x{}", &SANDBOX_SIG[2..]),
            format!("+{}", &SANDBOX_SIG[1..]),
            format!("{SANDBOX_SIG}00"),
        ] {
            assert!(!is_well_formed(&near_miss), "{near_miss:?}");
            assert!(
                !verify(&secret, SAMPLE_MESSAGE, &near_miss),
                "{near_miss:?}"
            );
        }
        assert!(is_well_formed(&SANDBOX_SIG.to_uppercase()));
    }
}
