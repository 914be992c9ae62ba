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

// ---- b, c. A stream that is also an input ------------------------------------------------

/// Where a redirection of the test's points.
enum To {
    /// `<FILE`
    Read,
    /// `>>FILE`
    Append,
    /// The test's own pipe.
    Pipe,
}

fn stdio(to: &To, path: &Path) -> Stdio {
    match to {
        To::Read => File::open(path).unwrap().into(),
        To::Append => std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .unwrap()
            .into(),
        To::Pipe => Stdio::piped(),
    }
}

/// payverify `args` (FILE replaced by the path of `name` in `dir`) against a gateway
/// that counts requests, with stdin, stdout and stderr as given: the output, and how many
/// requests it made.
fn run_on_file(dir: &TempDir, name: &str, args: &str, streams: [To; 3]) -> (Output, usize) {
    let gateway = gateway::Gateway::start(&[gateway::Txn::paid("REF-1", 4_000_000)]);
    let path = dir.path().join(name);
    let path_text = path.to_str().unwrap();
    let args: Vec<&str> = args
        .split_whitespace()
        .map(|a| if a == "FILE" { path_text } else { a })
        .collect();
    let [stdin, stdout, stderr] = streams.map(|to| stdio(&to, &path));
    let out = spawnable_at(&gateway.url)
        .args(&args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .unwrap();
    (out, gateway.requests())
}

const REFS: &str = "REF-1\nREF-2\n";
const ORDERS: &str = "order_id,reference,total,currency\n1,REF-1,40000,NGN\n";

/// `verify - <refs.txt >>refs.txt` read its own output back as references; `--from` and
/// `reconcile FILE` were already refused. Each is exit 2 before any request, naming the
/// clash on stderr, and the file is left byte for byte.
#[test]
fn b_stdin_or_an_input_that_is_where_stdout_goes_is_refused_before_any_request() {
    use To::*;
    let cases = [
        (
            "refs.txt",
            REFS,
            "verify -o jsonl -",
            [Read, Append, Pipe],
            "references from stdin",
        ),
        (
            "refs.txt",
            REFS,
            "verify -o jsonl --from FILE",
            [Pipe, Append, Pipe],
            "references from",
        ),
        (
            "orders.csv",
            ORDERS,
            "reconcile -o jsonl -",
            [Read, Append, Pipe],
            "stdin",
        ),
        (
            "orders.csv",
            ORDERS,
            "reconcile -o jsonl FILE",
            [Pipe, Append, Pipe],
            "orders.csv",
        ),
        (
            "p.json",
            "{}",
            "webhook check -",
            [Read, Append, Pipe],
            "stdin",
        ),
    ];
    for (name, text, args, streams, what) in cases {
        let dir = TempDir::new("streams-stdout-input");
        dir.write(name, text);
        let (out, requests) = run_on_file(&dir, name, args, streams);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        assert_eq!(requests, 0, "{args}");
        assert_eq!(own_lines(&stderr).len(), 1, "{args}: {stderr}");
        assert!(
            stderr.starts_with("payverify: cannot read ")
                && stderr.contains(what)
                && stderr.ends_with(
                    "it is also where this run's output goes (stdout), which would write over \
                     it while it is read; write the output to a new file\n"
                ),
            "{args}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            text
        );
    }
}

/// `--from refs.txt 2>>refs.txt`: stderr is an input. The refusal itself would be written
/// into that input, so nothing is: exit 2 alone says it, before any request, and the file
/// is left byte for byte (even with -v, whose lines would go there too).
#[test]
fn c_an_input_that_is_where_stderr_goes_is_refused_and_nothing_written_into_it() {
    use To::*;
    let cases = [
        (
            "refs.txt",
            REFS,
            "verify -v -o jsonl --from FILE",
            [Pipe, Pipe, Append],
        ),
        (
            "refs.txt",
            REFS,
            "verify -v -o jsonl -",
            [Read, Pipe, Append],
        ),
        (
            "orders.csv",
            ORDERS,
            "reconcile -v -o jsonl FILE",
            [Pipe, Pipe, Append],
        ),
        (
            "orders.csv",
            ORDERS,
            "reconcile -o jsonl -",
            [Read, Pipe, Append],
        ),
    ];
    for (name, text, args, streams) in cases {
        let dir = TempDir::new("streams-stderr-input");
        dir.write(name, text);
        let (out, requests) = run_on_file(&dir, name, args, streams);
        assert_eq!(out.status.code(), Some(2), "{args}");
        assert_eq!(requests, 0, "{args}");
        assert_eq!(stdout_of(&out), "", "{args}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            text,
            "{args}"
        );
    }
}

// ---- e. A reader that stops reading ------------------------------------------------------

/// `payverify verify --sandbox -o jsonl REFS... | sleep 1000`: the pipe fills and payverify
/// blocks in write. One SIGTERM ends it within a second, exit 130. The pipe is shrunk to
/// one page (F_SETPIPE_SZ) so a few records fill it.
#[test]
fn e_one_sigterm_ends_a_run_blocked_on_a_full_pipe_within_a_second() {
    if !cfg!(target_os = "linux") {
        eprintln!("SKIPPED (needs Linux's F_SETPIPE_SZ): a pipe that fills after a page");
        return;
    }
    #[cfg(target_os = "linux")]
    for format in ["jsonl", "json"] {
        let refs: Vec<String> = (0..200).map(|i| format!("SANDBOX-OK-{i}")).collect();
        let mut args = vec!["verify", "--sandbox", "-o", format];
        args.extend(refs.iter().map(String::as_str));
        let (mut child, stderr, read_end) = crate::common::blocked_on_a_full_pipe(&args);
        send_signal(&child, "-TERM");
        let signalled = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if signalled.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{format}: still running 20 s after the signal");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let took = signalled.elapsed();
        drop(read_end);
        let stderr = String::from_utf8(stderr.finish()).unwrap();
        assert_eq!(status.code(), Some(130), "{format}: {stderr}");
        assert!(
            took < std::time::Duration::from_secs(1),
            "{format}: took {took:?}"
        );
        assert_eq!(
            stderr, "payverify: interrupted while the output was not being read: stopped at once\n",
            "{format}"
        );
    }
}

// ---- f. One reference whose reader left --------------------------------------------------

/// `payverify verify REF | true`: the reader of stdout left before the answer was written.
/// One reference exits with its own answer's status, its lines on stderr as ever (a closed
/// pipe is the reader's choice, and one reference's exit status is the answer a script
/// reads); a batch, even of one, is exit 10 (its records are what was asked for). One
/// reference is a batch of one inside, so this is where the two could have come apart.
#[cfg(unix)]
#[test]
fn f_one_reference_whose_reader_left_exits_with_its_own_status() {
    let cases: [(&[&str], i32, &str); 3] = [
        (&["SANDBOX-OK-1"], 0, ""),
        (
            &["-o", "json", "SANDBOX-FAILED-x"],
            1,
            "payverify: transaction 'SANDBOX-FAILED-x' FAILED (51 Insufficient Funds)\n",
        ),
        (
            &["-o", "jsonl", "SANDBOX-OK-1"],
            10,
            "payverify: output closed before every reference was written out (0 of 1 were; all \
             1 were verified), so its reader did not get every record (exit 10)\n",
        ),
    ];
    for (args, code, says) in cases {
        // The read end is closed before payverify starts: its first write fails with EPIPE.
        let (read_end, write_end) = nix::unistd::pipe().unwrap();
        drop(read_end);
        let out = spawnable()
            .args(["verify", "--sandbox"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(write_end))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.starts_with(says), "{args:?}: {stderr}");
        if code != 10 {
            assert_eq!(stderr, says, "{args:?}");
        }
    }
}
