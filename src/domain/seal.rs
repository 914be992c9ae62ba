//! payverify's own signature on each jsonl record it writes, so that `--resume` can tell
//! its own output from an edited copy; and the fingerprint of what judged the record, so
//! that a later run carries it as it was decided only when it would judge it the same way.
//!
//! The gateway's `hmac` signs only merchantRef, currency and amount. A record's reference,
//! outcome, status and code are not covered by it. Without a seal, anyone who could write
//! an earlier output file could turn a FAILED record SUCCESSFUL, or relabel a paid order's
//! record for an unpaid one of the same amount, and a resumed run would carry it into exit 0.
//! The seal is an HMAC-SHA256 over the whole record, keyed from the client secret, so only
//! a run with that secret can make one, and any edit breaks it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::checks::{CheckReport, HmacMode};
use crate::domain::job::Job;
use crate::domain::judge::decided;
use crate::domain::model::Verification;
use crate::domain::outcome::{Outcome, Record, Verdict};
use crate::domain::signature::{digest, push_lower_hex, sign, verify};
use crate::secret::Secret;

/// The judging version: a digest of every source file under `src/domain/`, made by
/// build.rs. Any change there, in a later payverify, makes its fingerprints differ, so it
/// asks again rather than carry what an earlier judge decided.
const JUDGING: &str = env!("PAYVERIFY_JUDGING");

/// The fingerprint of everything that judges `job`'s answer, as lower-case hex: the
/// judging version, the reference, every expectation (the row's among them), `--hmac`,
/// `--expect-mode`, and for reconcile the row's line and cells. Two runs whose fingerprints
/// for a job are equal decide any one answer alike, so a record sealed by one is carried by
/// the other as it was decided; any difference asks again.
pub(crate) fn fingerprint(job: &Job, hmac: HmacMode, mode: Option<&str>) -> String {
    /// Feeds what is written to the hash: every record has a fingerprint, and a string
    /// made only to be hashed was an allocation a record.
    struct Feed(Sha256);
    impl std::io::Write for Feed {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut feed = Feed(Sha256::new());
    // The whole tuple as JSON: strings quoted and escaped, so no two different sets of
    // parts write the same text; the whole expectations struct, field names and all, so
    // an expectation added later is covered without a change here. (Debug wrote the same
    // parts at twice the cost of the rest of a record's sealing: its escaping goes a
    // character at a time.)
    let parts = (
        JUDGING,
        job.reference.as_str(),
        &*job.expect,
        hmac,
        mode,
        &job.row,
    );
    // Writing plain data to the hash cannot fail.
    let _ = serde_json::to_writer(&mut feed, &parts);
    let hash = feed.0;
    let mut hex = String::with_capacity(64);
    push_lower_hex(&hash.finalize(), &mut hex);
    hex
}

/// What a sealed record keeps of its judging, under its `judged` key: the fingerprint of
/// what judged it, and the verdict's parts its other keys show only as text (the typed
/// checks, a NOT_FOUND's message from the service), so a later run rebuilds the verdict as
/// it was decided and never judges the stored answer again, nor reads a sentence back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Judged<'a> {
    /// The [`fingerprint`] of the job as it was judged.
    pub(crate) by: Cow<'a, str>,
    /// The verdict's outcome name (reconcile's records show only their result).
    pub(crate) outcome: Cow<'a, str>,
    /// The checks, typed; absent when there was no answer to check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) checks: Option<Cow<'a, CheckReport>>,
    /// A NOT_FOUND's message from the service, if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<Cow<'a, str>>,
}

/// What a record writes under `judged` ([`Judged::written`]).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Written<'a> {
    /// Nothing in it came from outside: as it is.
    Plain(Judged<'a>),
    /// With every string redacted.
    Redacted(serde_json::Value),
}

impl<'a> Judged<'a> {
    /// What `record` keeps of its judging.
    pub(crate) fn of(record: &'a Record) -> Judged<'a> {
        let message = match &record.verdict.outcome {
            Outcome::NotFound { message } => message.as_deref().map(Cow::Borrowed),
            _ => None,
        };
        Judged {
            by: Cow::Borrowed(&record.judged_by),
            outcome: Cow::Borrowed(record.verdict.name()),
            checks: record.verdict.checks.as_ref().map(Cow::Borrowed),
            message,
        }
    }

    /// As a record writes it: the typed checks hold what was wanted and found (a reference
    /// a customer typed, a row's cell), which the `checks` text beside them shows redacted,
    /// so those are written with every string redacted. Checks with nothing to say beyond
    /// the hmac verdict (payverify's own words, nearly every answer) are written as they
    /// are, with no copy.
    pub(crate) fn written(self) -> Written<'a> {
        let plain = self
            .checks
            .as_ref()
            .is_none_or(|c| c.failures.is_empty() && c.warnings.is_empty());
        if plain && self.message.is_none() {
            return Written::Plain(self);
        }
        // Plain data with string keys: serialising it cannot fail.
        let mut value = serde_json::to_value(&self).unwrap_or_default();
        crate::secret::redact_json(&mut value);
        Written::Redacted(value)
    }

    /// [`Judged::written`] as a JSON value, for a record kept as one (reconcile's).
    pub(crate) fn json(self) -> serde_json::Value {
        serde_json::to_value(self.written()).unwrap_or_default()
    }

    /// The verdict a record with the answer `answer` was decided as: the answer read by
    /// the one reading of a status ([`Outcome::answered`]) with the checks the record keeps
    /// (never run again), under the one rule for "final and paid" ([`decided`]). `None`
    /// when that is not the outcome the record names (an answer that says FAILED under a
    /// SUCCESSFUL record, checks kept for no answer): no payverify wrote such a record,
    /// whoever sealed it, and it is asked again.
    pub(crate) fn verdict(self, answer: Option<Verification>) -> Option<Verdict> {
        let outcome = match answer {
            Some(answer) => Outcome::answered(answer),
            None => Outcome::NotFound {
                message: self.message.clone().map(Cow::into_owned),
            },
        };
        let checks = self.checks.map(Cow::into_owned);
        if checks.is_some() != outcome.verification().is_some() {
            return None;
        }
        let verdict = decided(outcome, checks);
        (verdict.name() == self.outcome).then_some(verdict)
    }
}

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

    /// [`Sealer::seal_owned`] of a copy of `record`.
    #[cfg(test)]
    pub(crate) fn seal(&self, record: &str) -> String {
        self.seal_owned(record.to_owned())
    }

    /// `record` (a JSON object's text) with its seal as a last key, pushed onto the record's
    /// own string: no allocation when it has room (a record written is made with room).
    pub(crate) fn seal_owned(&self, mut record: String) -> String {
        if !record.ends_with('}') {
            return record;
        }
        let seal = digest(&self.key, &record);
        record.pop();
        let separator = if record.ends_with('{') {
            &OPEN[1..]
        } else {
            OPEN
        };
        record.reserve(separator.len() + 2 * seal.len() + 2);
        record.push_str(separator);
        push_lower_hex(&seal, &mut record);
        record.push_str("\"}");
        record
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
