//! Reading a resume or state file line by line: each line at most [`MAX_RECORD`] bytes,
//! an over-long record of payverify's own skipped (asked again), anything else that is not
//! a jsonl record a reason to refuse the file.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};

use super::records::{Unread, indexed};
use super::{MAX_RECORD, Memory, Shape};
use crate::exit::Failure;
use crate::log::Log;

/// What a resume or state file is being read as: for its messages and its records' shape.
pub(super) struct Reading<'a> {
    pub(super) flag: &'static str,
    pub(super) name: &'a str,
    pub(super) memory: Memory,
    pub(super) shape: &'a Shape,
    pub(super) log: &'a Log,
}

impl Reading<'_> {
    /// The file is refused, for `why`.
    fn refuse(&self, why: String) -> Failure {
        Failure::usage(format!("{} {}: {why}", self.flag, self.name))
    }

    /// Line `n` shows the file is not what it was given as.
    pub(super) fn foreign(&self, n: usize, why: &str) -> Failure {
        let expected = self.memory.expected(self.shape.command);
        self.refuse(format!("line {n} {why}; {expected}"))
    }

    /// Line `n` is a reconcile record of an input whose row has other columns than this
    /// input's header: a --state file of another export would refuse every rerun, so the
    /// message says how to start afresh.
    fn other_layout(&self, n: usize) -> Failure {
        let what = match self.memory {
            Memory::Resume => "resume from the output of a run on this file's layout".to_owned(),
            Memory::State => format!(
                "it holds the rows of another orders file: remove {} (or name another --state \
                 file) to start afresh",
                self.name
            ),
        };
        self.refuse(format!(
            "line {n} is a row of an orders file with other columns than this one's header; \
             {what}"
        ))
    }

    /// Line `n`'s record: its key and whether it is final, or `None` for a row decided
    /// from the input alone.
    pub(super) fn index(&self, line: &str, n: usize) -> Result<Option<(String, bool)>, Failure> {
        indexed(line, self.shape).map_err(|unread| match unread {
            Unread::Layout => self.other_layout(n),
            Unread::Foreign(why) => self.foreign(n, &why),
        })
    }
}

/// The lines of a resume or state file, each at most [`MAX_RECORD`] bytes, with the offset
/// the next one starts at.
pub(super) struct Lines<'f> {
    reader: BufReader<&'f File>,
    buf: Vec<u8>,
    pub(super) next_line: u64,
    /// The lines skipped as too long to read back.
    pub(super) skipped: Vec<usize>,
}

/// What reading one line gave.
pub(super) enum Step<'a> {
    /// A whole line, without its line ending, that opens as a JSON object.
    Line(&'a str),
    /// A record too long to read back: its reference is asked again.
    Skipped,
    /// The end of the file, or a last line cut short by a stop (asked again).
    End,
}

impl<'f> Lines<'f> {
    /// The lines of `file`, from its start.
    pub(super) fn new(file: &'f File) -> Self {
        Lines {
            reader: BufReader::new(file),
            buf: Vec::new(),
            next_line: 0,
            skipped: Vec::new(),
        }
    }

    /// Line `n`, or why the file is not a run's records.
    pub(super) fn next(&mut self, reading: &Reading<'_>, n: usize) -> Result<Step<'_>, Failure> {
        let io = |e: std::io::Error| reading.refuse(crate::io_util::io_reason(&e));
        self.buf.clear();
        let got = (&mut self.reader)
            .take(MAX_RECORD as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(io)?;
        if got == 0 {
            return Ok(Step::End);
        }
        self.next_line += got as u64;
        let (flag, name) = (reading.flag, reading.name);
        if self.buf.len() > MAX_RECORD {
            // payverify's own record can be longer: an answer near the body limit whose
            // every byte is escaped, in the response and again in the error and checks
            // quoting it. Refusing the file would stop every rerun of a --state run over
            // one hostile answer; that record is not carried, its reference asked again.
            if !own_opening(&self.buf) {
                return Err(reading.foreign(n, &format!("is longer than {MAX_RECORD} bytes")));
            }
            let (rest, ended) = skip_line(&mut self.reader).map_err(io)?;
            self.next_line += rest;
            self.skipped.push(n);
            return Ok(if ended { Step::Skipped } else { Step::End });
        }
        if self.buf.last() != Some(&b'\n') {
            // Only a line that begins as our record can be one a stop cut short: a file of
            // one unterminated line that is not (a token, compact JSON) is somebody's, and
            // a --state run would replace it.
            if !own_opening(&self.buf) {
                return Err(reading.foreign(
                    n,
                    "has no line end and does not begin as a record payverify writes",
                ));
            }
            reading.log.warn(&format!(
                "{flag} {name}: the last line is incomplete (the run was stopped while writing \
                 it); it is ignored and its reference asked again"
            ));
            return Ok(Step::End);
        }
        self.buf.pop();
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let Ok(line) = std::str::from_utf8(&self.buf) else {
            return Err(reading.foreign(n, "is not UTF-8"));
        };
        if !line.starts_with('{') {
            return Err(reading.foreign(
                n,
                "is not a jsonl record (a csv output cannot be read back: keep a run's records \
                 with --state FILE)",
            ));
        }
        Ok(Step::Line(line))
    }
}

/// How payverify's own records begin (verify's, then reconcile's): an over-long line that
/// begins so is a record not read back, any other is a file that is not payverify's.
const OWN_OPENINGS: [&str; 2] = ["{\"reference\":", "{\"line\":"];

/// Whether `line` begins as one of payverify's records, or is the start of such an
/// opening (a record cut short within its first bytes).
fn own_opening(line: &[u8]) -> bool {
    OWN_OPENINGS.iter().any(|o| {
        let o = o.as_bytes();
        line.starts_with(o) || o.starts_with(line)
    })
}

/// Reads past the rest of the current line: the bytes read, and whether a newline ended it
/// (rather than the end of the file).
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<(u64, bool)> {
    let mut skipped = 0u64;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok((skipped, false));
        }
        let (used, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        reader.consume(used);
        skipped += used as u64;
        if ended {
            return Ok((skipped, true));
        }
    }
}

impl Reading<'_> {
    /// The lines `skipped` as too long, once the whole file is read: each warned of (its
    /// reference is asked again) when some line of the file is a record of ours under this
    /// run's seal (`sealed`); else the file is refused. A file whose only records are too
    /// long to read back may be anybody's, and a --state run would replace it.
    pub(super) fn skipped(&self, skipped: &[usize], sealed: bool) -> Result<(), Failure> {
        let (flag, name) = (self.flag, self.name);
        match (skipped.first(), sealed) {
            (Some(&n), false) => Err(self.foreign(
                n,
                &format!(
                    "is longer than {MAX_RECORD} bytes, and no line of the file is a record \
                     payverify sealed under this run's secret"
                ),
            )),
            _ => {
                for n in skipped {
                    self.log.warn(&format!(
                        "{flag} {name}: line {n} is longer than {MAX_RECORD} bytes, more than is \
                         read back; its reference is asked again"
                    ));
                }
                Ok(())
            }
        }
    }
}
