//! Unit tests of the resume index.

use crate::domain::outcome::{Outcome, Verdict};
use crate::domain::seal::fingerprint;
use crate::reference::Reference;

use super::*;

fn job(reference: &str) -> Job {
    Job {
        reference: Reference::parse(reference).unwrap(),
        expect: Default::default(),
        origin: String::new(),
        row: None,
    }
}

/// A NOT_FOUND record of `reference` as a run under `hmac` writes it, sealed by `sealer`.
fn not_found(sealer: &Sealer, reference: &str, hmac: HmacMode) -> String {
    let job = job(reference);
    let judged_by = fingerprint(&job, hmac, None);
    let record = Record {
        job,
        verdict: Verdict {
            outcome: Outcome::NotFound {
                message: Some("no such payment".into()),
            },
            checks: None,
        },
        judged_by,
    };
    sealer.seal(&crate::render::records::json(&record))
}

#[test]
fn a_record_is_carried_as_decided_once_and_not_when_changed_or_judged_otherwise() {
    let shape = crate::commands::verify::record_shape();
    let dir = crate::testutil::TempDir::new("resume-changed");
    let secret = Secret::new("secret-one-Zq81");
    let sealer = Sealer::new(&secret);
    let warn = HmacMode::Warn;
    let lines = |b: &str| {
        let (a, b, c) = (
            not_found(&sealer, "A", warn),
            not_found(&sealer, b, warn),
            not_found(&sealer, "C", HmacMode::Require),
        );
        format!("{a}\n{b}\n{c}\n")
    };
    let path = dir.write("run.jsonl", lines("B"));
    let log = Log::new(crate::log::Level::Quiet);
    let trust = Trust {
        secret: Some(secret.clone()),
        ..Trust::default()
    };
    let stop = AtomicBool::new(false);
    let mut index = ResumeIndex::open(&path, Memory::Resume, &shape, &trust, &log, &stop).unwrap();
    let a = job("A");
    let Carried(record) = index.take(&a).unwrap();
    assert_eq!(record.job, a);
    // The service's message comes back as the value it was, not read out of a sentence.
    let message = Some("no such payment".to_owned());
    assert_eq!(record.verdict.outcome, Outcome::NotFound { message });
    assert!(index.take(&a).is_none(), "taken once");
    // C was judged under --hmac require, this run judges under warn: asked again.
    assert!(index.take(&job("C")).is_none());
    assert_eq!(index.distrusted, 1);
    // B's bytes change in place (same length): not written, asked again.
    std::fs::write(&path, lines("D")).unwrap();
    assert!(index.take(&job("B")).is_none());
    assert_eq!((index.changed, index.unused()), (1, 0));
}
