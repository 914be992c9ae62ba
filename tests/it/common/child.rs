//! Running payverify as a child process that a test talks to while it runs: signalled part
//! way (Ctrl-C, a service manager's SIGTERM), or read a line at a time.

use std::io::{BufRead, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// The payverify binary as a plain `std::process::Command`, for tests that must reach the
/// running child (its pid, its pipes): no user config is read, stdout and stderr are piped.
/// stdin is left to the caller (inherited unless set), as is anything else it overrides.
pub fn spawnable() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("payverify"));
    cmd.env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Sends `signal` (`"-INT"` as Ctrl-C does, `"-TERM"` as a service manager does) to a
/// running child with kill(1).
pub fn send_signal(child: &Child, signal: &str) {
    Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
}

/// Waits `after`, then sends SIGINT: a user pressing Ctrl-C part way through a run.
pub fn interrupt_after(child: &Child, after: Duration) {
    std::thread::sleep(after);
    send_signal(child, "-INT");
}

/// Reads `n` lines (each with its newline) from a child's stdout, so that a test signals
/// only once output has begun.
pub fn read_lines(stdout: &mut impl BufRead, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            line
        })
        .collect()
}

/// After a signal: the rest of the child's stdout (already taken into `stdout`), its exit
/// status, then all of its stderr, read in that order so that no pipe holds the child up.
pub fn finish(child: Child, stdout: &mut impl Read) -> (String, ExitStatus, String) {
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let (status, stderr) = status_and_stderr(child);
    (rest, status, stderr)
}

/// The child's exit status, then all of its piped stderr: for a test that has already
/// taken (or dropped) its stdout.
pub fn status_and_stderr(mut child: Child) -> (ExitStatus, String) {
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

/// Runs payverify with `args` in `dir`, its stdout written to the file `part`, and sends
/// SIGINT after 1.2 s: the partial output a `--resume` test starts from. Returns the
/// interrupted run's stderr and the number of lines it wrote, having asserted that it exited
/// 130 and wrote some but not all of its `total` lines.
pub fn interrupted_into(dir: &Path, args: &[&str], part: &Path, total: usize) -> (String, usize) {
    let child = spawnable()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(part).unwrap())
        .spawn()
        .unwrap();
    interrupt_after(&child, Duration::from_millis(1200));
    let killed = child.wait_with_output().unwrap();
    let stderr = super::stderr_of(&killed);
    assert_eq!(killed.status.code(), Some(130), "{stderr}");
    let written = std::fs::read_to_string(part).unwrap().lines().count();
    assert!(written > 0 && written < total, "{written} lines: {stderr}");
    (stderr, written)
}
