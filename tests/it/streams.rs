//! stdout, stderr and stdin as the shell hands them over (issue 23): a stdout that cannot
//! take a byte, a stream that is also one of the run's inputs, a reader that stops reading.
//! Each test runs the real binary with the streams set up as a shell would.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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
    let out = spawnable()
        .args(&args)
        .env("PAYVERIFY_BASE_URL", &gateway.url)
        .env("PAYVERIFY_CLIENT_ID", CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", SECRET)
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

// ---- f. The resume hint ------------------------------------------------------------------

/// The command printed on Ctrl-C to finish the run, run as printed: with `--` before the
/// references, `--resume FILE` goes before the `--` (after it, `--resume` would be taken as
/// a reference), and the resumed run completes the output.
#[test]
fn f_the_resume_hint_after_a_double_dash_runs_and_finishes_the_run() {
    let dir = TempDir::new("streams-resume-hint");
    let args = [
        "verify",
        "--sandbox",
        "-o",
        "jsonl",
        "-j",
        "1",
        "--",
        "SANDBOX-OK-1",
        "SANDBOX-OK-2",
        "SANDBOX-SLOW-1000-3",
        "SANDBOX-OK-4",
        "SANDBOX-OK-5",
    ];
    let part = dir.path().join("part.jsonl");
    let (stderr, _) = interrupted_into(dir.path(), &args, &part, 5);
    let hint = stderr
        .lines()
        .find_map(|l| l.strip_prefix("payverify: to finish this run, resume it: "))
        .unwrap_or_else(|| panic!("no hint: {stderr}"));
    assert!(
        hint.starts_with("payverify verify --sandbox -o jsonl -j 1 --resume part.jsonl -- "),
        "{hint}"
    );
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let command = format!(
        "{}{}",
        bin.display(),
        hint.strip_prefix("payverify").unwrap()
    );
    let resumed = Command::new("sh")
        .args(["-c", &command])
        .current_dir(dir.path())
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    let records = std::fs::read(dir.path().join("part-resumed.jsonl")).unwrap();
    let references: Vec<String> = jsonl(&records)
        .iter()
        .map(|r| r["reference"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(references, &args[7..], "{}", stderr_of(&resumed));
}

// ---- g. Reads bounded by the bytes read --------------------------------------------------

/// `/proc/self/pagemap` is a regular file whose size says 0 and that reads on for
/// gigabytes. Every input refuses it at once, naming the file and its cap (a list of
/// references was counted for the progress bar without a cap, and never ended), in little
/// memory.
#[test]
fn g_a_file_that_reads_past_its_size_is_refused_at_once_naming_its_cap() {
    let pagemap = "/proc/self/pagemap";
    if !Path::new(pagemap).exists() {
        eprintln!("SKIPPED (needs Linux's {pagemap}): a file whose size says 0");
        return;
    }
    let cases: [(&[&str], i32, &str); 7] = [
        (
            &["verify", "--sandbox", "--from", pagemap],
            2,
            "1 GiB, the cap for the list of references",
        ),
        (
            &["reconcile", "--sandbox", pagemap],
            2,
            "1 GiB, the cap for the orders file",
        ),
        (
            &["webhook", "check", pagemap],
            2,
            "1 MiB, the cap for the webhook payload",
        ),
        (
            &["--config", pagemap, "verify", "X"],
            6,
            "1 MiB, the cap for the config file",
        ),
        (
            &["--client-secret-file", pagemap, "verify", "X"],
            6,
            "64 KiB, the cap for the client secret file",
        ),
        (
            &["verify", "X", "--ca-cert", pagemap],
            6,
            "4 MiB, the cap for the CA file",
        ),
        (
            &[
                "verify",
                "--sandbox",
                "-o",
                "jsonl",
                "X",
                "--resume",
                pagemap,
            ],
            2,
            pagemap,
        ),
    ];
    for (args, code, cap) in cases {
        let started = std::time::Instant::now();
        let out = payverify_at("https://gateway.example")
            .args(args)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let took = started.elapsed();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        let lines = own_lines(&stderr);
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(
            lines[0].contains(pagemap) && lines[0].contains(cap),
            "{args:?}: {stderr}"
        );
        assert!(
            took < std::time::Duration::from_secs(2),
            "{args:?} took {took:?}"
        );
    }
}

// ---- h. The sandbox's CA file ------------------------------------------------------------

/// `sandbox --tls --tls-ca-out` naming stdout, the file stderr goes to, or the config file
/// (by flag or PAYVERIFY_CONFIG; the sandbox does not read it, but it is the user's): exit
/// 2 before the server starts (no banner), nothing written over.
#[test]
fn h_the_sandbox_ca_is_never_written_over_a_stream_or_the_config_file() {
    let dir = TempDir::new("streams-sandbox-ca");
    let config_text = "[profiles.live]\nbase_url = \"https://pay.example\"\n";
    let config = dir.write("config.toml", config_text);
    let log = dir.write("log.txt", "old\n");
    let config = config.to_str().unwrap();
    let log_path = log.to_str().unwrap();
    // The extra arguments, an environment variable, whether stderr goes to the log file,
    // and what the refusal says.
    type Case<'a> = (&'a [&'a str], Option<(&'a str, &'a str)>, bool, &'a str);
    let cases: [Case; 4] = [
        (
            &["--tls-ca-out", "/dev/stdout"],
            None,
            false,
            "it is where stdout goes",
        ),
        (
            &["--tls-ca-out", log_path],
            None,
            true,
            "it is where stderr goes",
        ),
        (
            &["--config", config, "--tls-ca-out", config],
            None,
            false,
            "config file",
        ),
        (
            &["--tls-ca-out", config],
            Some(("PAYVERIFY_CONFIG", config)),
            false,
            "config file",
        ),
    ];
    for (extra, env, stderr_to_log, says) in cases {
        let mut cmd = spawnable();
        cmd.args(["sandbox", "--port", "0", "--tls"])
            .args(extra)
            .stdin(Stdio::null());
        if let Some((key, value)) = env {
            cmd.env(key, value);
        }
        if stderr_to_log {
            let append = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
            cmd.stderr(append);
        }
        let mut child = cmd.spawn().unwrap();
        let status = child.wait_timeout_or_kill();
        let mut stdout = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
        let stderr = match stderr_to_log {
            true => std::fs::read_to_string(&log)
                .unwrap()
                .replacen("old\n", "", 1),
            false => {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut text)
                    .unwrap();
                text
            }
        };
        assert_eq!(status, Some(2), "{extra:?}: {stderr}");
        assert_eq!(stdout, "", "{extra:?}: started");
        assert_eq!(own_lines(&stderr).len(), 1, "{extra:?}: {stderr}");
        assert!(
            stderr.starts_with("payverify: cannot write the sandbox CA to ")
                && stderr.contains(says),
            "{extra:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("config.toml")).unwrap(),
            config_text
        );
    }
}

/// Waits for a child that should end by itself; one still running after 20 s is killed
/// (`None`): the sandbox, had it started, runs until a signal.
trait WaitOrKill {
    fn wait_timeout_or_kill(&mut self) -> Option<i32>;
}

impl WaitOrKill for std::process::Child {
    fn wait_timeout_or_kill(&mut self) -> Option<i32> {
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_secs(20) {
            if let Some(status) = self.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.kill().unwrap();
        self.wait().unwrap();
        None
    }
}

// ---- i. A terminal of 0 columns ----------------------------------------------------------

/// `COLUMNS=0`, or a terminal that says it has 0 columns (`stty cols 0`: a serial console,
/// a pane squeezed to nothing): help and tables fall back to a sensible width instead of
/// wrapping every word, or every character, onto a line of its own.
#[test]
fn i_a_width_of_0_columns_falls_back_to_a_sensible_one() {
    for command in ["verify --help", "sandbox --help"] {
        let out = payverify()
            .args(command.split_whitespace())
            .env("COLUMNS", "0")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}");
        let help = stdout_of(&out);
        let longest = help.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(
            (80..=100).contains(&longest),
            "{command}: {longest}\n{help}"
        );
    }
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED (needs script(1) for a terminal): the table on a 0-column terminal");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let run = format!(
        "stty cols 0; exec {} verify --sandbox --color never SANDBOX-FAILED-1",
        bin.display()
    );
    let out = Command::new("script")
        .args(["-qec", &run, "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env_remove("COLUMNS")
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let screen = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("Transaction ref") && l.contains("SANDBOX-FAILED-1")),
        "{screen}"
    );
}
