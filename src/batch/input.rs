//! Where batch references come from: arguments, stdin and files, read lazily line by line.

use std::collections::{HashSet, VecDeque};
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use std::sync::Arc;

use super::seen::Seen;
use crate::domain::checks::Expectations;
use crate::domain::job::Job;
use crate::exit::Failure;
use crate::reference::{Reference, is_line_padding};

/// Longest line taken as a reference; longer lines are reported, not buffered whole.
pub(crate) const MAX_LINE: usize = crate::reference::MAX_LEN;

/// One source of references, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum InputSource {
    /// A reference given as an argument, validated when the arguments were read.
    Literal(Reference),
    /// `-`: lines of stdin.
    Stdin,
    /// `--from FILE`: lines of a file.
    File(PathBuf),
}

/// What verify's input yields: the engine's item, never decided ahead (until `--resume`).
pub(crate) type Item = super::Item<super::Carried>;

/// How the lines of stdin and `--from` files are read.
///
/// By default every line is a reference as the customer gave it, so a reference that starts
/// with `#` is verified like any other and a blank line is an empty reference (refused, exit
/// 2): skipping either would drop a customer's payment from the batch without a word, and
/// the batch could exit 0 without asking about it. A hand-written list opts in to comments
/// and blank lines with `--comments`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListRules {
    /// Blank lines and lines starting with `#` (after the padding) are skipped.
    pub(crate) comments: bool,
}

/// The references of all sources, deduplicated, as an iterator.
pub(crate) struct Input {
    pending: VecDeque<InputSource>,
    /// The opened, checked readers of the stdin and file sources, in order.
    readers: VecDeque<Reader>,
    current: Option<Reader>,
    seen: Seen,
    literal_position: usize,
    counts: Counts,
    expect: Arc<Expectations>,
    rules: ListRules,
    /// Without `--comments`: the first line verified that starts with `#`, for the hint at
    /// the end.
    first_hash: Option<String>,
}

/// What the input held, for the message when it held no reference at all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Lines read from stdin and files.
    pub(crate) lines: usize,
    /// Lines with nothing but whitespace.
    pub(crate) blank: usize,
    /// Lines starting with `#`: skipped as comments with `--comments`, else verified.
    pub(crate) comments: usize,
    /// Lines (or arguments) that are not a usable reference.
    pub(crate) invalid: usize,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{} read, {} blank, {}",
            plural(self.lines, "line", "lines"),
            self.blank,
            plural(self.comments, "comment", "comments")
        )?;
        if self.invalid > 0 {
            write!(f, ", {} not a reference", self.invalid)?;
        }
        Ok(())
    }
}

struct Reader {
    reader: Box<dyn BufRead + Send>,
    name: String,
    line: usize,
}

impl Input {
    /// Opens every file and stdin up front and reads their first bytes, so a missing,
    /// unreadable or UTF-16 input is a usage error (exit 2) before any request and before
    /// anything is written. A UTF-8 byte-order mark (what Notepad writes) is dropped.
    pub(crate) fn open(
        sources: Vec<InputSource>,
        expect: Arc<Expectations>,
        rules: ListRules,
    ) -> Result<Input, Failure> {
        let mut readers = VecDeque::new();
        let mut stdin_taken = false;
        for source in &sources {
            let (reader, name): (Box<dyn BufRead + Send>, String) = match source {
                InputSource::Literal(_) => continue,
                // Stdin is read once: a second `-` finds it at its end.
                InputSource::Stdin if stdin_taken => (Box::new(io::empty()), "stdin".into()),
                InputSource::Stdin => {
                    stdin_taken = true;
                    let stdin = crate::files::stdin(&crate::files::REFERENCES).map_err(|e| {
                        Failure::usage(format!("cannot read references from stdin: {e}"))
                    })?;
                    (Box::new(BufReader::new(stdin)), "stdin".into())
                }
                InputSource::File(path) => {
                    let name = path.display().to_string();
                    let file =
                        crate::files::open(path, &crate::files::REFERENCES).map_err(|e| {
                            Failure::usage(format!("cannot read references from {name}: {e}"))
                        })?;
                    (Box::new(BufReader::new(file)), name)
                }
            };
            readers.push_back(start(reader, name)?);
        }
        Ok(Input {
            pending: sources.into(),
            readers,
            current: None,
            seen: Seen::default(),
            literal_position: 0,
            counts: Counts::default(),
            expect,
            rules,
            first_hash: None,
        })
    }
}

impl super::Source<super::Carried> for Input {
    fn empty_message(&self) -> String {
        format!("no references to verify: {}", self.counts)
    }

    fn end_notes(&self) -> Vec<String> {
        let Some(first) = &self.first_hash else {
            return Vec::new();
        };
        let n = self.counts.comments;
        let lines = match n {
            1 => format!("{first} starts with # and was verified as a reference"),
            _ => format!(
                "{n} lines starting with # were verified as references (the first: {first})"
            ),
        };
        vec![format!(
            "{lines}: a customer's reference can start with #; if the list has comments, \
             pass --comments"
        )]
    }
}

impl Input {
    /// How many references the sources hold, for the progress bar: distinct arguments plus
    /// the non-blank, non-comment lines of each regular file, counted by one cheap pass
    /// before the run (with `--comments`; without it, every line that is not blank). `None`
    /// with stdin, or a file that is a pipe or cannot be counted (reading those would
    /// consume them). Duplicate or invalid lines in a file make it an upper bound.
    pub(crate) fn known_len(sources: &[InputSource], rules: ListRules) -> Option<usize> {
        let mut literals = HashSet::new();
        let mut count = 0usize;
        for source in sources {
            match source {
                InputSource::Literal(r) => {
                    literals.insert(r.as_str());
                }
                InputSource::Stdin => return None,
                InputSource::File(path) => {
                    count = count.checked_add(count_lines(path, rules.comments)?)?;
                }
            }
        }
        literals.len().checked_add(count)
    }

    /// A line of input: a reference to dedup, or why it is not one.
    fn accept(&mut self, text: &str, origin: String) -> Item {
        match Reference::from_line(text) {
            Ok(reference) => self.dedup(reference, origin),
            Err(e) => {
                self.counts.invalid += 1;
                let hint = match text.is_empty() {
                    true => " (a blank line is skipped only with --comments)",
                    false => "",
                };
                Item::Invalid {
                    origin,
                    why: format!("{e}{hint}"),
                }
            }
        }
    }

    fn dedup(&mut self, reference: Reference, origin: String) -> Item {
        if self.seen.insert(reference.as_str()) {
            Item::Job(Job {
                row: None,
                reference,
                expect: self.expect.clone(),
                origin,
            })
        } else {
            Item::Duplicate {
                reference: reference.to_string(),
                origin,
            }
        }
    }
}

impl Iterator for Input {
    type Item = Result<Item, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(lines) = &mut self.current {
                match read_line(&mut lines.reader) {
                    Ok(None) => {
                        self.current = None;
                        continue;
                    }
                    Err(e) => {
                        let failure = unread(&lines.name, lines.line, &e);
                        self.current = None;
                        return Some(Err(failure));
                    }
                    Ok(Some(line)) => {
                        lines.line += 1;
                        self.counts.lines += 1;
                        let origin = format!("{} line {}", lines.name, lines.line);
                        let line = match line {
                            Line::TooLong => {
                                self.counts.invalid += 1;
                                return Some(Ok(Item::Invalid {
                                    origin,
                                    why: format!("longer than {MAX_LINE} bytes"),
                                }));
                            }
                            Line::NotUtf8 => {
                                self.counts.invalid += 1;
                                return Some(Ok(Item::Invalid {
                                    origin,
                                    why: "not UTF-8".into(),
                                }));
                            }
                            Line::Text(t) => t,
                        };
                        // The line's padding was left out as it was read.
                        if line.is_empty() {
                            self.counts.blank += 1;
                            if self.rules.comments {
                                continue;
                            }
                        } else if line.starts_with('#') {
                            self.counts.comments += 1;
                            if self.rules.comments {
                                continue;
                            }
                            self.first_hash.get_or_insert_with(|| origin.clone());
                        }
                        return Some(Ok(self.accept(&line, origin)));
                    }
                }
            }
            match self.pending.pop_front()? {
                InputSource::Literal(reference) => {
                    self.literal_position += 1;
                    let origin = format!("argument {}", self.literal_position);
                    return Some(Ok(self.dedup(reference, origin)));
                }
                InputSource::Stdin | InputSource::File(_) => {
                    self.current = self.readers.pop_front();
                }
            }
        }
    }
}

/// The lines of a regular file that could hold a reference (not blank; with `comments`, not
/// starting with `#` either), read in bytes without keeping any; `None` for anything but a
/// readable regular file.
fn count_lines(path: &std::path::Path, comments: bool) -> Option<usize> {
    // Looked at before it is opened: opening a pipe to count it would connect its writer
    // and leave it writing to no reader (SIGPIPE) before the real read opens it.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    // Read through its cap, as the run reads it: a file whose size says nothing about what
    // it holds (`/proc/self/pagemap`: size 0, endless) stops being counted at the cap, and
    // the run's own read then refuses it, naming the cap.
    let file = crate::files::open(path, &crate::files::REFERENCES).ok()?;
    if !file.get_ref().metadata().ok()?.is_file() {
        return None;
    }
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    if reader.fill_buf().ok()?.starts_with(b"\xef\xbb\xbf") {
        reader.consume(3);
    }
    // Byte by byte, so one endless line costs no memory: a line counts at its first byte
    // that is not padding, unless that byte is a comment's `#`.
    let (mut count, mut decided) = (0usize, false);
    loop {
        let chunk = reader.fill_buf().ok()?;
        if chunk.is_empty() {
            return Some(count);
        }
        for &byte in chunk {
            if byte == b'\n' {
                decided = false;
            } else if !decided && !is_line_padding(byte) {
                decided = true;
                count += usize::from(!(comments && byte == b'#'));
            }
        }
        let n = chunk.len();
        reader.consume(n);
    }
}

/// The failure for a list that could not be read on after `line` lines: exit 10 for one
/// that changed while it was read, a usage error for any other error.
fn unread(name: &str, line: usize, e: &io::Error) -> Failure {
    let stopped = format!("nothing after its line {line} was verified");
    crate::files::changed(name, e, &stopped).unwrap_or_else(|| {
        Failure::usage(format!(
            "cannot read references from {name}: {}",
            crate::io_util::io_reason(e)
        ))
    })
}

/// Checks the first bytes of an input, drops a UTF-8 byte-order mark, and refuses UTF-16
/// (every line would be "not UTF-8"). Nothing else is consumed, so a pipe loses nothing.
fn start(mut reader: Box<dyn BufRead + Send>, name: String) -> Result<Reader, Failure> {
    let head = reader.fill_buf().map_err(|e| unread(&name, 0, &e))?;
    if head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]) {
        return Err(Failure::usage(format!(
            "{name} is UTF-16 (it starts with a UTF-16 byte-order mark); references must be \
             UTF-8: save it as UTF-8"
        )));
    }
    if head.starts_with(b"\xef\xbb\xbf") {
        reader.consume(3);
    }
    Ok(Reader {
        reader,
        name,
        line: 0,
    })
}

enum Line {
    Text(String),
    TooLong,
    NotUtf8,
}

/// The most bytes of one line's text kept: the longest reference, and room for what is
/// around it (Unicode whitespace, which [`Reference::from_line`] refuses by name).
const MAX_KEPT: usize = 2 * MAX_LINE;

/// Reads one line. The padding around its text ([`is_line_padding`]: spaces, tabs, the CR
/// of a CRLF line end) is left out as it is read, so the reference cap applies to the
/// reference alone; a line whose text passes [`MAX_KEPT`] bytes is consumed and reported,
/// never held whole.
fn read_line(reader: &mut Box<dyn BufRead + Send>) -> io::Result<Option<Line>> {
    // From the first byte that is not whitespace to the last one seen.
    let mut text = Vec::new();
    // Whitespace after `text`: inside the line if more text follows, else trimmed.
    let mut gap = Vec::new();
    let (mut too_long, mut gap_full, mut read_any) = (false, false, false);
    loop {
        let (used, at_end) = {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            read_any = true;
            let (part, used, at_end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            if !too_long {
                keep(part, &mut text, &mut gap, &mut gap_full);
                too_long = text.len() > MAX_KEPT;
            }
            (used, at_end)
        };
        reader.consume(used);
        if at_end {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    Ok(Some(match String::from_utf8(text) {
        Ok(s) => Line::Text(s),
        Err(_) => Line::NotUtf8,
    }))
}

/// Adds `part` of a line to its `text` (from the first byte that is not whitespace to the
/// last) and `gap` (whitespace after it, kept only while more text could still fit, which
/// `gap_full` says it cannot: then more text makes the line too long).
fn keep(part: &[u8], text: &mut Vec<u8>, gap: &mut Vec<u8>, gap_full: &mut bool) {
    let solid = |b: &u8| !is_line_padding(*b);
    let start = match text.is_empty() {
        true => part.iter().position(solid),
        false => Some(0),
    };
    let (Some(start), Some(end)) = (start, part.iter().rposition(solid)) else {
        // Whitespace only: after the text it may be inside the line, before it, nothing.
        if !text.is_empty() && !*gap_full {
            gap.extend_from_slice(part);
            *gap_full = text.len() + gap.len() > MAX_KEPT;
            gap.truncate(MAX_KEPT + 1);
        }
        return;
    };
    if *gap_full {
        // More text after more whitespace than fits: too long, whatever it holds.
        text.resize(MAX_KEPT + 1, b' ');
        return;
    }
    text.append(gap);
    let room = (MAX_KEPT + 1).saturating_sub(text.len());
    text.extend_from_slice(&part[start..=end][..room.min(end + 1 - start)]);
    gap.clear();
    gap.extend_from_slice(&part[end + 1..]);
    *gap_full = text.len() + gap.len() > MAX_KEPT;
    gap.truncate(MAX_KEPT + 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    const COMMENTS: ListRules = ListRules { comments: true };
    const EXACT: ListRules = ListRules { comments: false };

    fn items_as(contents: impl AsRef<[u8]>, rules: ListRules) -> Vec<Item> {
        let dir = TempDir::new("input");
        let path = dir.write("refs.txt", contents);
        Input::open(vec![InputSource::File(path)], Arc::default(), rules)
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    fn items(contents: impl AsRef<[u8]>) -> Vec<Item> {
        items_as(contents, EXACT)
    }

    /// The reference of a job item, `None` for a note.
    fn job_ref(item: &Item) -> Option<&str> {
        match item {
            Item::Job(job) => Some(job.reference.as_str()),
            _ => None,
        }
    }

    #[test]
    fn with_comments_trims_skips_blanks_and_comments_and_collapses_duplicates() {
        let got = items_as(
            "  A  \n\n# comment\n   # indented comment\nB\r\nA\n\tC\n",
            COMMENTS,
        );
        assert_eq!(got.len(), 4);
        assert_eq!(job_ref(&got[0]), Some("A"));
        assert_eq!(job_ref(&got[1]), Some("B"));
        assert!(matches!(&got[2], Item::Duplicate { reference, origin }
            if reference == "A" && origin.ends_with("line 6")));
        assert_eq!(job_ref(&got[3]), Some("C"));
    }

    #[test]
    fn without_comments_every_line_is_a_reference_as_the_customer_gave_it() {
        let got = items("A\n#B\n\n  \r\n  # C \r\n\u{3000}D\nE\u{a0}\n\x0cF\n");
        assert_eq!(job_ref(&got[0]), Some("A"));
        assert_eq!(job_ref(&got[1]), Some("#B"));
        for (item, line) in [(&got[2], 3), (&got[3], 4)] {
            assert!(
                matches!(item, Item::Invalid { why, origin }
                    if why == "the reference is empty (a blank line is skipped only with --comments)"
                        && origin.ends_with(&format!("line {line}"))),
                "{item:?}"
            );
        }
        assert_eq!(job_ref(&got[4]), Some("# C"));
        for item in &got[5..8] {
            assert!(
                matches!(item, Item::Invalid { why, .. } if why.contains("whitespace (U+")),
                "{item:?}"
            );
        }
        assert_eq!(got.len(), 8);
    }

    #[test]
    fn a_hash_line_verified_is_pointed_out_once_at_the_end() {
        let dir = TempDir::new("input-hash");
        let path = dir.write("refs.txt", "A\n#B\n#C\n");
        let mut input = Input::open(vec![InputSource::File(path)], Arc::default(), EXACT).unwrap();
        assert_eq!(input.by_ref().count(), 3);
        let notes = super::super::Source::end_notes(&input);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0]
                .starts_with("2 lines starting with # were verified as references (the first: ")
                && notes[0].contains("refs.txt line 2)")
                && notes[0].ends_with("pass --comments"),
            "{notes:?}"
        );
        let path = dir.write("plain.txt", "A\nB\n");
        let mut input = Input::open(vec![InputSource::File(path)], Arc::default(), EXACT).unwrap();
        assert_eq!(input.by_ref().count(), 2);
        assert!(super::super::Source::end_notes(&input).is_empty());
    }

    #[test]
    fn counts_what_was_read() {
        let dir = TempDir::new("input-counts");
        let path = dir.write("refs.txt", b"\n  \n#ORDER-17\n\xff\n");
        let mut input =
            Input::open(vec![InputSource::File(path)], Arc::default(), COMMENTS).unwrap();
        assert_eq!(input.by_ref().count(), 1);
        let counts = input.counts;
        assert_eq!(
            counts,
            Counts {
                lines: 4,
                blank: 2,
                comments: 1,
                invalid: 1
            }
        );
        assert_eq!(
            counts.to_string(),
            "4 lines read, 2 blank, 1 comment, 1 not a reference"
        );
    }

    #[test]
    fn last_line_without_newline_counts() {
        let got = items("A\nB");
        assert_eq!(
            got.iter().map(job_ref).collect::<Vec<_>>(),
            [Some("A"), Some("B")]
        );
        assert!(matches!(&got[1], Item::Job(job) if job.origin.ends_with("line 2")));
    }

    #[test]
    fn overlong_and_non_utf8_lines_are_reported_not_kept() {
        let long = "x".repeat(MAX_LINE * 3);
        let got = items(format!("A\n{long}\nB\n"));
        assert_eq!(job_ref(&got[0]), Some("A"));
        assert!(matches!(&got[1], Item::Invalid { why, origin }
            if why.contains("longer") && origin.ends_with("line 2")));
        assert_eq!(job_ref(&got[2]), Some("B"));
        let got = items(b"A\n\xff\xfe\nB\n");
        assert!(matches!(&got[1], Item::Invalid { why, .. } if why == "not UTF-8"));
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn a_line_is_trimmed_as_it_is_read_whatever_the_chunks() {
        let long = "r".repeat(MAX_KEPT);
        let lines = [
            "A".to_owned(),
            "  A B\t C  \r".to_owned(),
            " \t ".to_owned(),
            format!("   {long}   \r"),
            format!("{long}x"),
            format!("{long} x"),
            format!("x{}", " ".repeat(MAX_KEPT + 5)),
            format!("x{}y", " ".repeat(MAX_KEPT + 5)),
            format!("{}x", " ".repeat(3 * MAX_KEPT)),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        // Every chunk size splits the lines somewhere else.
        for capacity in [1, 2, 3, 7, 64, 4096, 1 << 16] {
            let mut reader: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(
                capacity,
                std::io::Cursor::new(text.clone().into_bytes()),
            ));
            for line in &lines {
                let want = line.trim_matches([' ', '\t', '\r']);
                match read_line(&mut reader).unwrap() {
                    Some(Line::Text(got)) => {
                        assert!(want.len() <= MAX_KEPT, "{capacity}: kept {}", got.len());
                        assert_eq!(got, want, "{capacity}");
                    }
                    Some(Line::TooLong) => assert!(want.len() > MAX_KEPT, "{capacity}"),
                    _ => panic!("{capacity}: no line"),
                }
            }
            assert!(read_line(&mut reader).unwrap().is_none());
        }
    }

    #[test]
    fn literals_in_order_and_known_length() {
        let sources = vec![
            InputSource::Literal(Reference::parse("X").unwrap()),
            InputSource::Literal(Reference::parse("Y").unwrap()),
            InputSource::Literal(Reference::parse("X").unwrap()),
        ];
        assert_eq!(Input::known_len(&sources, EXACT), Some(2));
        let got: Vec<Item> = Input::open(sources, Arc::default(), EXACT)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(job_ref(&got[0]), Some("X"));
        assert_eq!(job_ref(&got[1]), Some("Y"));
        assert!(matches!(&got[2], Item::Duplicate { origin, .. } if origin == "argument 3"));
        assert_eq!(Input::known_len(&[InputSource::Stdin], EXACT), None);
    }

    #[test]
    fn known_len_counts_file_lines_that_could_be_references() {
        let dir = std::env::temp_dir().join(format!("payverify-count-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("refs.txt");
        std::fs::write(&file, "\u{feff}A\n\n  \t\n # note\nB\r\n  C  \nD").unwrap();
        let a = Reference::parse("A").unwrap();
        let sources = [InputSource::File(file.clone()), InputSource::Literal(a)];
        assert_eq!(Input::known_len(&sources, COMMENTS), Some(5));
        // Without --comments the comment is a reference too.
        assert_eq!(Input::known_len(&sources, EXACT), Some(6));
        // A directory or a missing file is not counted; the run itself reports it.
        assert_eq!(
            Input::known_len(&[InputSource::File(dir.clone())], EXACT),
            None
        );
        assert_eq!(
            Input::known_len(&[InputSource::File(dir.join("none"))], EXACT),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_fails_up_front() {
        let err = Input::open(
            vec![InputSource::File("/nonexistent/refs.txt".into())],
            Arc::default(),
            EXACT,
        )
        .err();
        assert!(err.is_some_and(|e| e.message.contains("no such file")));
    }
}
