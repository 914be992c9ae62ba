//! Unit tests of the resume index.

use crate::reference::Reference;

use super::*;

#[test]
fn a_record_changed_after_it_was_checked_is_asked_again_not_written() {
    let shape = crate::commands::verify::record_shape();
    let dir = crate::testutil::TempDir::new("resume-changed");
    let secret = Secret::new("secret-one-Zq81");
    let sealer = Sealer::new(&secret);
    let line = |r: &str| {
        sealer.seal(&format!(
            r#"{{"reference":"{r}","outcome":"FAILED","exit_code":1,"response":{{"status":"FAILED"}}}}"#
        ))
    };
    let path = dir.write("run.jsonl", format!("{}\n{}\n", line("A"), line("B")));
    let log = Log::new(crate::log::Level::Quiet);
    let trust = Trust {
        secret: Some(secret.clone()),
        ..Trust::default()
    };
    let stop = AtomicBool::new(false);
    let mut index = ResumeIndex::open(&path, Memory::Resume, &shape, &trust, &log, &stop).unwrap();
    let job = |r: &str| Job {
        reference: Reference::parse(r).unwrap(),
        expect: Default::default(),
        origin: String::new(),
        row: None,
    };
    let a = job("A");
    let carried = index.take(&a).unwrap();
    assert_eq!((carried.exit, carried.name), (Exit::Failed, "FAILED"));
    assert_eq!(carried.record.job, a);
    assert!(index.take(&a).is_none(), "taken once");
    // B's bytes change in place (same length): not written, asked again.
    std::fs::write(&path, format!("{}\n{}\n", line("A"), line("C"))).unwrap();
    assert!(index.take(&job("B")).is_none());
    assert_eq!((index.changed, index.unused()), (1, 0));
}
