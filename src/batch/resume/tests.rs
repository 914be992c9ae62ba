//! Unit tests of the resume index.

use crate::reference::Reference;

use super::*;

#[test]
fn csv_rows_split_as_written() {
    assert_eq!(split_csv("a,b,,c").unwrap(), ["a", "b", "", "c"]);
    assert_eq!(
        split_csv(r#""x, y","say ""hi""",z"#).unwrap(),
        ["x, y", r#"say "hi""#, "z"]
    );
    assert_eq!(split_csv("").unwrap(), [""]);
    assert!(split_csv(r#""open"#).is_none());
    assert!(split_csv(r#"a"b"#).is_none());
    assert!(split_csv(r#""a"b"#).is_none());
    for fields in [
        vec!["R-1", "=1+1", "-150", " padded ", "a,b", "q\"q"],
        vec!["", "", ""],
    ] {
        let row = csv::row(&fields);
        let back = split_csv(row.trim_end()).unwrap();
        // The `'` that guards a formula-like value is the only change the writer made.
        let values: Vec<_> = back
            .iter()
            .map(|c| match c.strip_prefix('\'') {
                Some(rest) if csv::is_formula_like(rest) => rest,
                _ => c.as_str(),
            })
            .collect();
        assert_eq!(values, fields);
    }
}

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
    let mut index = ResumeIndex::open(&path, OutputFormat::Jsonl, &shape, &trust, &log).unwrap();
    let job = |r: &str| Job {
        reference: Reference::parse(r).unwrap(),
        expect: Default::default(),
        origin: String::new(),
        row: None,
    };
    let a = job("A");
    let carried = index.take(&a).unwrap();
    assert_eq!((carried.exit, carried.name), (Exit::Failed, "FAILED"));
    let CarriedRecord::Record(record) = carried.record else {
        panic!("a jsonl record is rebuilt, not copied");
    };
    assert_eq!(record.job, a);
    assert!(index.take(&a).is_none(), "taken once");
    // B's bytes change in place (same length): not written, asked again.
    std::fs::write(&path, format!("{}\n{}\n", line("A"), line("C"))).unwrap();
    assert!(index.take(&job("B")).is_none());
    assert_eq!((index.changed, index.unused()), (1, 0));
}

#[test]
fn csv_keys_are_the_cell_or_none_when_ambiguous() {
    assert_eq!(csv_key("REF-1").as_deref(), Some("REF-1"));
    assert_eq!(csv_key("=cmd").as_deref(), Some("'=cmd"));
    assert_eq!(csv_key("'=cmd"), None);
    assert_eq!(csv_key("A\u{200b}"), None);
    assert_eq!(csv_key("A\\u{200b}"), None);
}
