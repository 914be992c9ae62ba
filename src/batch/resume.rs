//! `--resume FILE`: an earlier run's output (jsonl or csv, complete or cut short) read into
//! an index keyed by reference, so that a batch's [`Source`] can hand the references whose
//! earlier record is a final answer to the writer as they were, and ask only the rest.
//!
//! The index knows nothing of verify beyond a [`Shape`] (columns, outcome names, which are
//! final), so `reconcile` can resume from its own output the same way.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::Path;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Item, Source};
use crate::domain::checks::{Expectations, HmacMode, Integrity};
use crate::domain::outcome::classify_response;
use crate::domain::reference::Reference;
use crate::domain::verifier::judge;
use crate::exit::{Exit, Failure};
use crate::log::Log;
use crate::render::{OutputFormat, csv};
use crate::secret::Secret;
use crate::transport::client::Response;

/// Longest line read from a resume file. A record is a few kilobytes, but it holds the
/// response, which may be up to the client's 1 MiB body limit, and escaping can make its
/// text several times longer: a genuine output must never be refused for a long line.
pub(crate) const MAX_RECORD: usize = 8 << 20;

/// A record carried over from an earlier run: its text exactly as that run wrote it (one
/// jsonl line or one csv row, without the line end), its exit status and outcome name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The earlier record, written again unchanged.
    pub text: String,
    /// Its exit status, merged into this run's.
    pub exit: Exit,
    /// Its outcome name, counted in the summary.
    pub name: &'static str,
    /// Whether its checks gave warnings, counted in the summary.
    pub warned: bool,
}

/// What a command's records look like, for reading them back.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// The command, for messages (`payverify verify`).
    pub(crate) command: &'static str,
    /// The CSV header, and the keys a jsonl record may have.
    pub(crate) columns: &'static [&'static str],
    /// Extra jsonl keys that are not CSV columns.
    pub(crate) json_only: &'static [&'static str],
    /// Every outcome name with its exit status.
    pub(crate) outcomes: &'static [(&'static str, Exit)],
    /// Whether an outcome is a final answer, carried over rather than asked again.
    pub(crate) is_final: fn(&str) -> bool,
}

/// What a SUCCESSFUL record must prove to be carried over, so that a resumed run never
/// earns exit 0 more cheaply than a fresh one. The file is not the service: anyone who can
/// write it could write "SUCCESSFUL". So the response the record holds goes through this
/// run's checks as if the service had just sent it (for this reference, with this run's
/// expectations), and its hmac must be valid under this run's secret whatever `--hmac`
/// says: only that signature shows the answer came from the service, and from this
/// service (not the sandbox, another profile or an edited copy). A csv record holds no
/// response to check, so its SUCCESSFUL records are always asked again. Records of other
/// outcomes cannot earn exit 0, and are carried as they are.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trust {
    /// This run's expectations.
    pub(crate) expect: Expectations,
    /// This run's client secret; without one nothing SUCCESSFUL is carried.
    pub(crate) secret: Option<Secret>,
}

impl Trust {
    /// Whether `response` (a stored response object's JSON text) is a SUCCESSFUL answer
    /// about `reference`, signed under this run's secret, that passes every check.
    fn carries(&self, reference: &str, response: &str) -> bool {
        let Some(secret) = &self.secret else {
            return false;
        };
        let outcome = classify_response(&Response {
            status: 200,
            body: response.as_bytes().to_vec(),
        });
        let verdict = judge(outcome, reference, HmacMode::Require, secret, &self.expect);
        verdict.exit() == Exit::Successful
            && verdict
                .checks
                .is_some_and(|c| c.integrity == Integrity::Valid)
    }
}

/// The earlier run's final records by reference, and what reading it found. Only where
/// each record is in the file is kept, not its text: the text is read again when its turn
/// comes, so resuming a run of a million records does not hold the file in memory.
#[derive(Debug)]
pub(crate) struct ResumeIndex {
    format: OutputFormat,
    file: File,
    records: HashMap<String, Slot>,
    /// Tells a record read again from one that changed in between.
    hasher: RandomState,
    /// SUCCESSFUL records this run's checks no longer let through.
    distrusted: usize,
    /// Records that were no longer as first read when their turn came (the file changed).
    changed: usize,
}

/// Where a final record is in the file, and what it comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    offset: u64,
    len: usize,
    hash: u64,
    exit: Exit,
    name: &'static str,
    warned: bool,
}

impl ResumeIndex {
    /// Reads `path`, which must be an output of `shape.command` in `format` (jsonl or csv,
    /// told apart by content). A last line without its line end (the run was killed while
    /// writing it) is ignored with a warning; anything else that is not such a record is a
    /// usage error (exit 2) naming the line, before any request.
    pub(crate) fn open(
        path: &Path,
        format: OutputFormat,
        shape: &Shape,
        trust: &Trust,
        log: &Log,
    ) -> Result<ResumeIndex, Failure> {
        let name = path.display().to_string();
        let refuse = |why: String| Failure::usage(format!("--resume {name}: {why}"));
        if !matches!(format, OutputFormat::Jsonl | OutputFormat::Csv) {
            return Err(Failure::usage(
                "--resume needs -o jsonl or -o csv, the format of the earlier run's output"
                    .to_owned(),
            ));
        }
        if path.as_os_str() == "-" {
            return Err(refuse(
                "the earlier output must be a file: stdin cannot be read back as records are \
                 carried"
                    .into(),
            ));
        }
        let file = File::open(path).map_err(|e| refuse(crate::io_util::io_reason(&e)))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(refuse("it is a directory".into()));
        }
        let mut reader = BufReader::new(&file);
        let mut records = HashMap::new();
        let hasher = RandomState::new();
        let mut distrusted = 0;
        let mut lines_of: HashMap<String, usize> = HashMap::new();
        let foreign = |n: usize, why: &str| {
            refuse(format!(
                "line {n} {why}; this is not an output of {} (resume from the earlier run's \
                 stdout, with the same -o)",
                shape.command
            ))
        };
        let mut detected = None;
        let mut buf = Vec::new();
        let mut next_line = 0u64;
        for n in 1.. {
            let line_start = next_line;
            buf.clear();
            let got = (&mut reader)
                .take(MAX_RECORD as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| refuse(crate::io_util::io_reason(&e)))?;
            if got == 0 {
                break;
            }
            next_line += got as u64;
            if buf.len() > MAX_RECORD {
                return Err(foreign(n, &format!("is longer than {MAX_RECORD} bytes")));
            }
            if buf.last() != Some(&b'\n') {
                log.warn(&format!(
                    "--resume {name}: the last line is incomplete (the run was stopped while \
                     writing it); it is ignored and its reference asked again"
                ));
                break;
            }
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            let Ok(mut line) = std::str::from_utf8(&buf) else {
                return Err(foreign(n, "is not UTF-8"));
            };
            if n == 1 {
                line = line.strip_prefix('\u{feff}').unwrap_or(line);
                let header = csv::row(shape.columns);
                let found = if line.starts_with('{') {
                    OutputFormat::Jsonl
                } else if line == header.trim_end() {
                    OutputFormat::Csv
                } else {
                    return Err(foreign(1, "is neither a jsonl record nor the csv header"));
                };
                if found != format {
                    return Err(refuse(format!(
                        "it is {} output and this run's -o is {}; resume with the format of \
                         the earlier run",
                        format_name(found),
                        format_name(format)
                    )));
                }
                detected = Some(found);
                if found == OutputFormat::Csv {
                    continue;
                }
            }
            let (key, carried) = match detected {
                Some(OutputFormat::Csv) => csv_record(line, shape, trust),
                _ => json_record(line, shape, trust),
            }
            .map_err(|why| foreign(n, &why))?;
            // One record per reference is what payverify writes; a second one (appended,
            // or a SUCCESSFUL line added after an UNAVAILABLE one) is not its output.
            if let Some(first) = lines_of.insert(key.clone(), n) {
                return Err(foreign(
                    n,
                    &format!(
                        "is a second record for reference {} (the first is on line {first})",
                        crate::terminal::quoted(&key)
                    ),
                ));
            }
            let Some(carried) = carried else {
                continue;
            };
            let Some(carried) = carried else {
                distrusted += 1;
                continue;
            };
            let skipped = line.as_ptr() as usize - buf.as_ptr() as usize;
            let slot = Slot {
                offset: line_start + skipped as u64,
                len: line.len(),
                hash: hasher.hash_one(line.as_bytes()),
                exit: carried.exit,
                name: carried.name,
                warned: carried.warned,
            };
            records.insert(key, slot);
        }
        drop(reader);
        Ok(ResumeIndex {
            format,
            file,
            records,
            hasher,
            distrusted,
            changed: 0,
        })
    }

    /// The earlier final record of `reference`, once; `None` when it is to be asked.
    pub(crate) fn take(&mut self, reference: &Reference) -> Option<Carried> {
        let key = match self.format {
            OutputFormat::Csv => csv_key(reference.as_str())?,
            _ => reference.as_str().to_owned(),
        };
        let slot = self.records.remove(&key)?;
        let mut text = vec![0u8; slot.len];
        let read = self
            .file
            .seek(SeekFrom::Start(slot.offset))
            .and_then(|_| self.file.read_exact(&mut text));
        // Changed since it was checked: asked again rather than written unchecked.
        if read.is_err() || self.hasher.hash_one(&text[..]) != slot.hash {
            self.changed += 1;
            return None;
        }
        let text = String::from_utf8(text).ok()?;
        Some(Carried {
            text,
            exit: slot.exit,
            name: slot.name,
            warned: slot.warned,
        })
    }

    /// Final records left untaken: references the file has and the input does not.
    pub(crate) fn unused(&self) -> usize {
        self.records.len()
    }
}

fn format_name(format: OutputFormat) -> &'static str {
    match format {
        OutputFormat::Csv => "csv",
        OutputFormat::Jsonl => "jsonl",
        OutputFormat::Json => "json",
        OutputFormat::Table => "table",
    }
}

/// A record's key and what it comes to: `None` when not final (asked again),
/// `Some(None)` when final but no longer trusted by this run's checks.
type Parsed = (String, Option<Option<Carried>>);

fn name_and_exit(
    shape: &Shape,
    outcome: &str,
    exit_code: &str,
) -> Result<(&'static str, Exit), String> {
    let Some((name, exit)) = shape.outcomes.iter().find(|(n, _)| *n == outcome) else {
        return Err("has an unknown outcome".into());
    };
    if exit_code != exit.code().to_string() {
        return Err(format!(
            "has an exit_code that disagrees with its outcome {name}"
        ));
    }
    Ok((name, *exit))
}

fn json_record(line: &str, shape: &Shape, trust: &Trust) -> Result<Parsed, String> {
    let map: Map<String, Value> =
        serde_json::from_str(line).map_err(|e| format!("is not a JSON object ({e})"))?;
    if let Some(key) = map
        .keys()
        .find(|k| !shape.columns.contains(&k.as_str()) && !shape.json_only.contains(&k.as_str()))
    {
        return Err(format!(
            "has a field payverify does not write ({})",
            crate::terminal::quoted(key)
        ));
    }
    let text = |key: &str| match map.get(key) {
        Some(Value::String(s)) => Ok(s.as_str()),
        _ => Err(format!("has no string \"{key}\"")),
    };
    let reference = text("reference")?;
    if Reference::parse(reference).map(|r| r.as_str() == reference) != Ok(true) {
        return Err("has an invalid reference".into());
    }
    let exit_code = match map.get("exit_code") {
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("has no numeric \"exit_code\"".into()),
    };
    let (name, exit) = name_and_exit(shape, text("outcome")?, &exit_code)?;
    if !(shape.is_final)(name) {
        return Ok((reference.to_owned(), None));
    }
    let response = match map.get("response") {
        Some(Value::Object(r)) => Some(r),
        Some(Value::Null) | None => None,
        Some(_) => return Err("has a \"response\" that is not an object".into()),
    };
    let status = response
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str);
    consistent(name, status)?;
    let warnings = map.get("checks").and_then(|c| c.get("warnings"));
    let carried = Carried {
        text: line.to_owned(),
        exit,
        name,
        warned: warnings
            .and_then(Value::as_array)
            .is_some_and(|w| !w.is_empty()),
    };
    if exit != Exit::Successful {
        return Ok((reference.to_owned(), Some(Some(carried))));
    }
    let checks_passed = map
        .get("checks")
        .and_then(|c| c.get("passed"))
        .and_then(Value::as_bool);
    let error_null = matches!(map.get("error"), Some(Value::Null) | None);
    if checks_passed == Some(false) || !error_null {
        return Err("is SUCCESSFUL with a failed check or an error".into());
    }
    let trusted = stored_response(line)?.is_some_and(|r| trust.carries(reference, r.get()));
    Ok((reference.to_owned(), Some(trusted.then_some(carried))))
}

/// The `response` of a jsonl record as the text it was written as: checked again as the
/// service's body, byte for byte (a re-encoded object could differ from what was signed).
/// A key given twice is refused: payverify never writes one, and readers differ on which
/// of the two counts.
fn stored_response(line: &str) -> Result<Option<&RawValue>, String> {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    #[allow(dead_code)] // the other keys are named only so that a repeated one is an error
    struct Stored<'a> {
        #[serde(borrow, default)]
        response: Option<&'a RawValue>,
        reference: Option<IgnoredAny>,
        outcome: Option<IgnoredAny>,
        exit_code: Option<IgnoredAny>,
        http_status: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
        checks: Option<IgnoredAny>,
    }
    serde_json::from_str::<Stored>(line)
        .map(|stored| stored.response)
        .map_err(|e| format!("is not a well-formed record ({e})"))
}

fn csv_record(line: &str, shape: &Shape, trust: &Trust) -> Result<Parsed, String> {
    if line.chars().any(char::is_control) {
        return Err("holds a control character".into());
    }
    let fields = split_csv(line).ok_or("is not a well-formed csv row")?;
    if fields.len() != shape.columns.len() {
        return Err(format!(
            "has {} fields, not the {} of the header",
            fields.len(),
            shape.columns.len()
        ));
    }
    let get = |column: &str| {
        shape
            .columns
            .iter()
            .position(|c| *c == column)
            .map_or("", |i| fields[i].as_str())
    };
    let key = get("reference").to_owned();
    if key.is_empty() {
        return Err("has no reference".into());
    }
    let (name, exit) = name_and_exit(shape, get("outcome"), get("exit_code"))?;
    if !(shape.is_final)(name) {
        return Ok((key, None));
    }
    let status = Some(get("status")).filter(|s| !s.is_empty());
    consistent(name, status)?;
    // The cell names each warning, except those about the hmac, which its verdict (first)
    // stands for: a verdict other than valid or not checked by choice came with one.
    let checks = get("checks");
    let carried = Carried {
        text: line.to_owned(),
        exit,
        name,
        warned: checks.contains("warning: ")
            || !(checks.is_empty()
                || checks.starts_with("hmac valid")
                || checks.starts_with("hmac not checked (--hmac off)")),
    };
    if exit != Exit::Successful {
        return Ok((key, Some(Some(carried))));
    }
    if !get("error").is_empty() {
        return Err("is SUCCESSFUL with an error".into());
    }
    // No response, no hmac: nothing in a csv row proves it came from the service.
    let _ = trust;
    Ok((key, Some(None)))
}

/// A final outcome must agree with the transaction status its record shows.
fn consistent(name: &str, status: Option<&str>) -> Result<(), String> {
    let want = match name {
        "SUCCESSFUL" | "CHECK_FAILED" => Some("SUCCESSFUL"),
        "FAILED" => Some("FAILED"),
        _ => None,
    };
    match (want, status) {
        (Some(w), Some(s)) if w == s => Ok(()),
        (Some(_), _) => Err(format!("is {name} without a matching transaction status")),
        (None, _) => Ok(()),
    }
}

/// The CSV cell a reference is written as, when no other reference is written the same:
/// references with characters the CSV escapes, or starting with `'`, have none (they are
/// asked again rather than matched loosely).
fn csv_key(reference: &str) -> Option<String> {
    if reference.starts_with('\'')
        || reference.contains('\\')
        || reference.chars().any(crate::terminal::is_unsafe)
    {
        return None;
    }
    Some(match csv::is_formula_like(reference) {
        true => format!("'{reference}"),
        false => reference.to_owned(),
    })
}

/// One RFC 4180 row on one line: fields split at commas, quoted fields unquoted (`""` is a
/// quote). `None` when a quote is unbalanced or stray.
fn split_csv(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next()? {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => break,
                    c => field.push(c),
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Some(fields);
                }
                Some(',') => {}
                Some(_) => return None,
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Some(fields);
                    }
                    Some(',') => break,
                    Some('"') => return None,
                    Some(c) => field.push(c),
                }
            }
        }
        fields.push(field);
    }
}

/// A batch source with an earlier run's final records in place of their jobs.
pub(crate) struct Resuming<S, D> {
    inner: S,
    index: ResumeIndex,
    _decided: PhantomData<fn() -> D>,
}

impl<S, D> Resuming<S, D> {
    /// `inner`'s items, each job whose reference has a final record in `index` replaced by
    /// that record.
    pub(crate) fn new(inner: S, index: ResumeIndex) -> Self {
        Resuming {
            inner,
            index,
            _decided: PhantomData,
        }
    }
}

impl<S: Source<D>, D: From<Carried>> Iterator for Resuming<S, D> {
    type Item = Result<Item<D>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.inner.next()? {
            Ok(Item::Job(job)) => match self.index.take(&job.reference) {
                Some(carried) => Some(Ok(Item::Decided(D::from(carried)))),
                None => Some(Ok(Item::Job(job))),
            },
            other => Some(other),
        }
    }
}

impl<S: Source<D>, D: From<Carried>> Source<D> for Resuming<S, D> {
    fn empty_message(&self) -> String {
        self.inner.empty_message()
    }

    fn end_notes(&self) -> Vec<String> {
        let mut notes = self.inner.end_notes();
        if self.index.distrusted > 0 {
            notes.push(format!(
                "{} SUCCESSFUL records of the --resume file were asked again: a record is \
                 carried only if its stored response passes this run's checks with an hmac \
                 valid under this run's secret (a csv record holds no response)",
                self.index.distrusted
            ));
        }
        if self.index.changed > 0 {
            notes.push(format!(
                "{} records of the --resume file changed while this run read it; they were \
                 asked again",
                self.index.changed
            ));
        }
        if self.index.unused() > 0 {
            notes.push(format!(
                "the --resume file has {} final records for references not in this input; \
                 they were not written",
                self.index.unused()
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
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
        let shape = Shape {
            command: "payverify verify",
            columns: &crate::render::records::CSV_COLUMNS,
            json_only: &["http_status", "response"],
            outcomes: &crate::domain::outcome::OUTCOME_EXITS,
            is_final: crate::domain::outcome::is_final_name,
        };
        let dir = crate::testutil::TempDir::new("resume-changed");
        let line = |r: &str| {
            format!(
                r#"{{"reference":"{r}","outcome":"FAILED","exit_code":1,"response":{{"status":"FAILED"}}}}"#
            )
        };
        let path = dir.write("run.jsonl", format!("{}\n{}\n", line("A"), line("B")));
        let log = Log::new(crate::log::Level::Quiet);
        let mut index =
            ResumeIndex::open(&path, OutputFormat::Jsonl, &shape, &Trust::default(), &log).unwrap();
        let a = Reference::parse("A").unwrap();
        let carried = index.take(&a).unwrap();
        assert_eq!(
            (carried.text, carried.exit, carried.name),
            (line("A"), Exit::Failed, "FAILED")
        );
        assert!(index.take(&a).is_none(), "taken once");
        // B's bytes change in place (same length): not written, asked again.
        std::fs::write(&path, format!("{}\n{}\n", line("A"), line("C"))).unwrap();
        assert!(index.take(&Reference::parse("B").unwrap()).is_none());
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
}
