//! stdout, stderr and stdin as the shell hands them over (issue 23): a stdout that cannot
//! take a byte, a stream that is also one of the run's inputs, a reader that stops reading.
//! Each test runs the real binary with the streams set up as a shell would.

use std::fs::File;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::common::*;

/// payverify `args` with stdin, stdout and stderr as given, to its end.
fn run_with(args: &[&str], stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Output {
    spawnable()
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .unwrap()
}

/// The lines of `stderr` that are payverify's own (`payverify: ...`).
fn own_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("payverify: "))
        .collect()
}

// ---- a. A stdout opened for reading only -------------------------------------------------

/// `1<FILE` and `1</dev/null`: every write to fd 1 fails with EBADF, which std's stdout
/// reports as written. Each command that writes output is exit 10 with the reason on
/// stderr, never 0 and never a panic, and the file is untouched.
#[test]
fn a_stdout_open_for_reading_only_is_exit_10() {
    let dir = TempDir::new("streams-readonly");
    let somefile = dir.write("somefile", "x\n");
    let orders = dir.write(
        "orders.csv",
        "order_id,reference,total,currency\n1,SANDBOX-OK-1,40000,NGN\n",
    );
    let reconcile = format!("reconcile --sandbox -o jsonl {}", orders.display());
    let commands = [
        "verify --sandbox SANDBOX-OK-1",
        "verify --sandbox -o json SANDBOX-OK-1",
        "verify --sandbox -o json SANDBOX-OK-1 SANDBOX-OK-2",
        "verify --sandbox -o jsonl SANDBOX-OK-1 SANDBOX-OK-2",
        "verify --sandbox -o csv SANDBOX-OK-1 SANDBOX-OK-2",
        &reconcile,
        "--help",
    ];
    let says = "payverify: cannot write the output: stdout is open for reading only (1<FILE): \
                send the output to a file with >";
    for target in [somefile.as_path(), Path::new("/dev/null")] {
        for command in commands {
            let args: Vec<&str> = command.split_whitespace().collect();
            let read_only = File::open(target).unwrap();
            let out = run_with(&args, Stdio::null(), read_only.into(), Stdio::piped());
            let stderr = stderr_of(&out);
            let context = format!("{command} 1<{}: {stderr}", target.display());
            assert_eq!(out.status.code(), Some(10), "{context}");
            assert!(!stderr.contains("panicked"), "{context}");
            let errors: Vec<_> = own_lines(&stderr)
                .into_iter()
                .filter(|l| l.contains("cannot write"))
                .collect();
            assert_eq!(errors, [says], "{context}");
        }
    }
    assert_eq!(std::fs::read_to_string(&somefile).unwrap(), "x\n");
}
