//! Running `client_secret_command`: its deadline, the run itself (its whole process group
//! ended with it), how it may be shown, and how its line is split into words.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::process_tree::ProcessTree;
use crate::exit::{Cause, Exit, Failure};
use crate::io_util::io_reason;
use crate::secret::Secret;

/// How long a secret command may take (a password manager waiting on an unlock prompt).
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Test-only, read by debug builds alone: a secret-command deadline in milliseconds shorter
/// than [`COMMAND_TIMEOUT`], so that an end-to-end test sees the deadline stop a hung command
/// without waiting a minute.
#[cfg(debug_assertions)]
const DEBUG_TIMEOUT_VAR: &str = "PAYVERIFY_DEBUG_SECRET_COMMAND_TIMEOUT_MS";

/// The deadline [`SecretSource::read`] gives a secret command: [`COMMAND_TIMEOUT`].
///
/// Debug builds (the binary `cargo test` runs end to end) honour
/// `PAYVERIFY_DEBUG_SECRET_COMMAND_TIMEOUT_MS`, and only to shorten the deadline. Release
/// builds compile the variable out, so it cannot change what a shipped binary does;
/// `scripts/check-release.sh` checks that no release binary holds its name and that setting
/// it there changes nothing.
pub(super) fn command_timeout() -> Duration {
    #[cfg(debug_assertions)]
    let asked = std::env::var(DEBUG_TIMEOUT_VAR).ok();
    #[cfg(not(debug_assertions))]
    let asked: Option<String> = None;
    shortened_timeout(asked.as_deref())
}

/// [`COMMAND_TIMEOUT`], or `asked` milliseconds when that is a number and shorter.
pub(super) fn shortened_timeout(asked: Option<&str>) -> Duration {
    asked
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(COMMAND_TIMEOUT, |ms| {
            Duration::from_millis(ms).min(COMMAND_TIMEOUT)
        })
}

/// How long a secret command's stdout may stay open after the command exited 0 (a
/// background child it started still holding it) before its output is taken as complete.
const AFTER_EXIT_GRACE: Duration = Duration::from_secs(1);

/// Runs the secret command; `deadline` bounds everything: the command's run and the read
/// of its output.
///
/// The command gets its own process group (a job object on Windows). If it has not exited by
/// the deadline, the whole group is killed (background children too) and this fails (exit 6). If it exits 0 but a
/// background child keeps its stdout open, what the command printed before exiting is its
/// whole output (a process writes to a pipe before it exits); it is used after at most
/// [`AFTER_EXIT_GRACE`]. Either way nothing of the group outlives the read: a leftover
/// child would hold payverify's stdout or stderr open. (A daemonising agent starts its own
/// session, so it is not in the group.)
///
/// The command's stderr is discarded: a failing password manager can print the secret, or
/// anything else, there. A failure names the command and its exit status only. (Prompts
/// such as pinentry talk to the terminal directly, not through stderr.)
pub(super) fn run_command_within(argv: &[String], deadline: Duration) -> Result<Secret, Failure> {
    let shown = shown_command(argv);
    let fail = |why: String| {
        Failure::config(
            Cause::Secret,
            format!("client_secret_command {shown} {why}"),
        )
    };
    let (program, args) = argv.split_first().ok_or_else(|| fail("is empty".into()))?;
    // The program runs as the invoking user and decides the secret: one others can change
    // is refused like a config file they can change, and the file checked is what runs.
    let checked = crate::files::obeyed_program(program).map_err(fail)?;
    let mut command = match checked {
        Some(path) => Command::new(path),
        None => Command::new(program),
    };
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = ProcessTree::spawn(command)
        .map_err(|e| fail(format!("could not start: {}", io_reason(&e))))?;
    let interrupted = || {
        Failure::new(
            Exit::Interrupted,
            format!("interrupted while client_secret_command {shown} ran; it was stopped"),
        )
    };
    let mut stdout = child
        .take_stdout()
        .ok_or_else(|| fail("has no stdout".into()))?;
    // Read on a thread so a command that fills the pipe cannot deadlock the wait below;
    // what has been read is shared, so it is available even while the pipe stays open.
    let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (done_tx, done) = std::sync::mpsc::channel::<()>();
    let sink = output.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        let mut total = 0usize;
        while let Ok(n) = stdout.read(&mut chunk) {
            if n == 0 || total >= 64 * 1024 {
                break;
            }
            total += n;
            if let Ok(mut out) = sink.lock() {
                out.extend_from_slice(&chunk[..n]);
            }
        }
        let _ = done_tx.send(());
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            // Killed by a signal's hurried exit: that, not the kill, is what to report.
            Ok(Some(status)) if !status.success() && crate::signal::stopping() => {
                crate::signal::yield_to_hurried_exit();
                return Err(interrupted());
            }
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= deadline => {
                child.kill_all();
                return Err(fail(format!(
                    "did not finish within {} s; it and its child processes were stopped",
                    deadline.as_secs_f64()
                )));
            }
            // A password manager waiting for a touch would hold a stopped run for a minute.
            Ok(None) if crate::signal::stopping() => {
                child.kill_all();
                crate::signal::yield_to_hurried_exit();
                return Err(interrupted());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                child.kill_all();
                return Err(fail(format!("could not be waited for: {e}")));
            }
        }
    };
    if !status.success() {
        // What it left running in its group goes too.
        child.kill_all();
        let how = status
            .code()
            .map(|c| format!("exited with status {c}"))
            .unwrap_or_else(|| "was killed by a signal".into());
        return Err(fail(how));
    }
    let left = deadline.saturating_sub(started.elapsed());
    // End of output, or the grace for a background child holding the pipe, whichever first.
    let _ = done.recv_timeout(left.min(AFTER_EXIT_GRACE));
    // Whatever the command left behind in its group would hold payverify's stdout or
    // stderr open (a caller reading them would hang); daemons leave the group themselves.
    child.kill_all();
    let out = output.lock().map(|o| o.clone()).unwrap_or_default();
    let text =
        String::from_utf8(out).map_err(|_| fail("printed something that is not UTF-8".into()))?;
    let secret = Secret::new(text.trim());
    if secret.is_empty() {
        return Err(fail("printed nothing".into()));
    }
    Ok(secret)
}

/// A secret command as it may be shown: its program, and how many arguments follow, never
/// what they are (`printf %s SECRET` holds the secret in one; `op read op://vault/item` names
/// where it is kept). The program itself is shown only when it is found (see
/// [`register_unproven_paths`]).
pub(crate) fn shown_command(argv: &[String]) -> String {
    let program = argv.first().map(String::as_str).unwrap_or("");
    match argv.len().saturating_sub(1) {
        0 => format!("`{program}`"),
        1 => format!("`{program}` (1 argument, not shown)"),
        n => format!("`{program}` ({n} arguments, not shown)"),
    }
}

/// Splits a command line into words: whitespace separates, '…' and "…" quote, \ escapes.
/// No variables, globs or other shell expansion happen.
pub(crate) fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err("has an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch) => word.push(ch),
                            None => return Err("ends with a backslash".into()),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err("has an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or("ends with a backslash")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}
