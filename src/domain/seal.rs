//! payverify's own signature on each jsonl record it writes, so that `--resume` can tell
//! its own output from an edited copy.
//!
//! The gateway's `hmac` signs only merchantRef, currency and amount. A record's reference,
//! outcome, status and code are not covered by it. Without a seal, anyone who could write
//! an earlier output file could turn a FAILED record SUCCESSFUL, or relabel a paid order's
//! record for an unpaid one of the same amount, and a resumed run would carry it into exit 0.
//! The seal is an HMAC-SHA256 over the whole record, keyed from the client secret, so only
//! a run with that secret can make one, and any edit breaks it.

use crate::domain::signature::{sign, verify};
use crate::secret::Secret;

/// The key's derivation label: the seal key is the client secret's HMAC of it, never the
/// secret itself (a seal must not be a second use of the gateway's signing key).
const LABEL: &str = "payverify record seal v1";

/// What ends a sealed record: `,"seal":"` + 64 hex digits + `"}`.
const OPEN: &str = ",\"seal\":\"";

/// Seals records and checks seals with a key derived from one client secret.
pub(crate) struct Sealer {
    key: Secret,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(..)")
    }
}

impl Sealer {
    /// A sealer for records of runs made with `secret`.
    pub(crate) fn new(secret: &Secret) -> Sealer {
        Sealer {
            key: Secret::new(sign(secret, LABEL)),
        }
    }

    /// `record` (a JSON object's text) with its seal as a last key.
    pub(crate) fn seal(&self, record: &str) -> String {
        let Some(body) = record.strip_suffix('}') else {
            return record.to_owned();
        };
        let seal = sign(&self.key, record);
        let separator = if body.ends_with('{') {
            &OPEN[1..]
        } else {
            OPEN
        };
        format!("{body}{separator}{seal}\"}}")
    }

    /// Whether `line` is a record this key sealed, unchanged since.
    pub(crate) fn holds(&self, line: &str) -> bool {
        let Some(rest) = line.strip_suffix("\"}") else {
            return false;
        };
        let Some(at) = rest.len().checked_sub(64) else {
            return false;
        };
        let (body, seal) = rest.split_at_checked(at).unwrap_or(("", ""));
        let unsealed = match body.strip_suffix(OPEN) {
            Some(head) => format!("{head}}}"),
            None => match body.strip_suffix(&OPEN[1..]) {
                Some(head) if head.ends_with('{') => format!("{head}}}"),
                _ => return false,
            },
        };
        verify(&self.key, &unsealed, seal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_record_holds_and_any_edit_or_other_key_breaks_it() {
        let sealer = Sealer::new(&Secret::new("secret-one-Zq81"));
        let record = r#"{"reference":"R-1","outcome":"FAILED","exit_code":1}"#;
        let sealed = sealer.seal(record);
        assert!(sealed.starts_with(&record[..record.len() - 1]));
        assert!(sealed.ends_with("\"}"));
        assert!(sealer.holds(&sealed));
        let edited = sealed.replace("FAILED", "SUCCESSFUL");
        assert!(!sealer.holds(&edited));
        let other = Sealer::new(&Secret::new("secret-two-Zq81"));
        assert!(!other.holds(&sealed));
        assert!(!sealer.holds(record), "an unsealed record holds no seal");
        assert!(!sealer.holds(""));
        assert!(!sealer.holds("\"}"));
        // The seal is not the gateway's signing key used again: a key derived from it.
        assert_ne!(
            sign(&Secret::new("secret-one-Zq81"), record),
            sign(&sealer.key, record)
        );
        let empty = sealer.seal("{}");
        assert!(
            empty.starts_with("{\"seal\":\"") && sealer.holds(&empty),
            "{empty}"
        );
    }

    #[test]
    fn a_seal_holds_only_as_written_at_the_record_end() {
        let sealer = Sealer::new(&Secret::new("secret-one-Zq81"));
        let record = r#"{"reference":"R-1","outcome":"SUCCESSFUL","exit_code":0}"#;
        let sealed = sealer.seal(record);
        let seal = &sealed[sealed.len() - 66..sealed.len() - 2];
        // The key in another case, or the record padded, is not what payverify writes.
        assert!(!sealer.holds(&sealed.replace("\"seal\"", "\"Seal\"")));
        assert!(!sealer.holds(&format!("{sealed} ")));
        assert!(!sealer.holds(&format!("{sealed}\t")));
        assert!(!sealer.holds(&format!(" {sealed}")));
        // The same digits in upper case are the same MAC over the same record.
        assert!(sealer.holds(&sealed.replace(seal, &seal.to_uppercase())));
        // A seal key given twice: the first seal is now part of what the second must
        // sign, and nobody without the key can make that.
        let twice = format!("{},\"seal\":\"{seal}\"}}", &sealed[..sealed.len() - 1]);
        assert!(!sealer.holds(&twice));
        // A seal lifted from one record onto another (its -o json copy pretty-printed,
        // or another reference's line) does not hold.
        let pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(&sealed).unwrap(),
        )
        .unwrap();
        assert!(!sealer.holds(&pretty));
        let other = format!(
            "{},\"seal\":\"{seal}\"}}",
            &record.replace("R-1", "R-2")[..record.len() - 1]
        );
        assert!(!sealer.holds(&other));
        // A multi-byte character where the seal's digits should start: refused, no panic.
        assert!(!sealer.holds(&format!("{{\"seal\":\"{}\"}}", "\u{e9}".repeat(33))));
    }
}
