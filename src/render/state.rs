//! `--state FILE`: every record of a run, sealed as an `-o jsonl` line is, written to a file
//! of its own as the record is decided, whatever the output's format: what a later run with
//! the same `--state` reads back to carry what is final (see `batch::resume`).

use std::fs::File;
use std::io::{self, Write};

use crate::files::Pending;

/// The `--state` file. It replaces the earlier one (atomically) when the first record is
/// kept, so a run refused or stopped before deciding anything leaves the earlier file as it
/// was. Each record is then one whole `write` of its line, so a run killed at any point
/// (SIGKILL included) leaves every record before it whole, and at most a last line cut
/// short, which the reader ignores.
pub(crate) struct StateLog {
    /// The new file, prepared beside the target and not yet in place.
    pending: Option<Pending>,
    file: Option<File>,
    /// The first write that failed: later records are not written (the file would have a
    /// hole), and the writer reports it at its next write.
    failed: Option<io::Error>,
    done: bool,
}

impl StateLog {
    /// A log that puts `pending` in place when it keeps its first record.
    pub(crate) fn new(pending: Pending) -> StateLog {
        StateLog {
            pending: Some(pending),
            file: None,
            failed: None,
            done: false,
        }
    }

    /// Appends `record` (one sealed JSON object) as a line.
    pub(crate) fn append(&mut self, record: &str) {
        if self.done {
            return;
        }
        let mut line = String::with_capacity(record.len() + 1);
        line.push_str(record);
        line.push('\n');
        let written = match (&mut self.file, self.pending.take()) {
            (Some(file), _) => file
                .write_all(line.as_bytes())
                .map_err(|e| crate::io_util::io_reason(&e)),
            (None, Some(pending)) => {
                pending
                    .commit_open()
                    .map_err(|e| e.why)
                    .and_then(|mut file| {
                        let written = file
                            .write_all(line.as_bytes())
                            .map_err(|e| crate::io_util::io_reason(&e));
                        self.file = Some(file);
                        written
                    })
            }
            (None, None) => Ok(()),
        };
        if let Err(why) = written {
            self.done = true;
            self.failed = Some(io::Error::other(format!("--state file: {why}")));
        }
    }

    /// The failed write, once: the writer's next write fails with it, which stops the run
    /// like output that cannot be written.
    pub(crate) fn check(&mut self) -> io::Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
}
