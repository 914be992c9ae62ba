//! The files and the terminal around the verdict (issue 23): a full disk, reads bounded by
//! the bytes read, the sandbox's CA file, a terminal of 0 columns, the resume hint. Each
//! test runs the real binary and checks the exit status, stdout, stderr and the files left.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::*;

// ---- d. A full disk ----------------------------------------------------------------------

/// reconcile `-o json --summary-json s.json` in `dir`, stdout to `stdout`, with files
/// limited to `kib` KiB (`ulimit -f`: a write past it fails with EFBIG as one on a full disk
/// fails with ENOSPC, and needs no root to set up). SIGXFSZ, which a write past the limit
/// raises, is left as a user's shell leaves it (fatal by default: payverify handles it), or
/// ignored with `ignore_xfsz`. stderr is a pipe, which no file size limit reaches.
fn reconcile_with_files_limited_to(
    dir: &TempDir,
    kib: u32,
    stdout: &str,
    ignore_xfsz: bool,
) -> Output {
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let trap = match ignore_xfsz {
        true => "trap '' XFSZ; ",
        false => "",
    };
    let script = format!("{trap}ulimit -f {kib}; exec \"$0\" \"$@\" > {stdout}");
    Command::new("bash")
        .args(["-c", &script])
        .arg(bin)
        .args([
            "reconcile",
            "--sandbox",
            "-o",
            "json",
            "--summary-json",
            "s.json",
        ])
        .arg("orders.csv")
        .current_dir(dir.path())
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The names in `dir`, sorted: a temporary file left behind shows up here.
fn names_in(dir: &TempDir) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// stdout's file fills up part way through an `-o json` array: exit 10, the reason on
/// stderr, and a summary that says the run is incomplete. The summary's own write failing
/// (its disk full) is exit 10 too, with the old summary left byte for byte and no
/// temporary file beside it.
#[test]
fn d_a_full_disk_is_exit_10_and_leaves_no_misleading_file() {
    // As a user's shell runs it (SIGXFSZ fatal unless handled: it was exit 153 with the
    // temporary summary left), and with the signal ignored.
    for ignore_xfsz in [false, true] {
        full_disk_run(ignore_xfsz);
    }
}

fn full_disk_run(ignore_xfsz: bool) {
    let dir = TempDir::new("streams-full-disk");
    let orders: String = (1..=100)
        .map(|i| format!("{i},SANDBOX-OK-{i},40000,NGN\n"))
        .collect();
    dir.write(
        "orders.csv",
        format!("order_id,reference,total,currency\n{orders}"),
    );
    let old = "{\"old\": true}\n";

    // stdout's disk: the records fill 8 KiB long before the end.
    dir.write("s.json", old);
    let out = reconcile_with_files_limited_to(&dir, 8, "out.json", ignore_xfsz);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.starts_with("payverify: cannot write the output: File too large\n"),
        "{stderr}"
    );
    let written = std::fs::read(dir.path().join("out.json")).unwrap();
    assert_eq!(written.len(), 8 << 10, "cut where the disk filled");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["complete"], false, "{summary}");
    assert_eq!(summary["exit_code"], 10, "{summary}");
    assert_eq!(names_in(&dir), ["orders.csv", "out.json", "s.json"]);

    // The summary's disk: not a byte fits.
    dir.write("s.json", old);
    let out = reconcile_with_files_limited_to(&dir, 0, "/dev/null", ignore_xfsz);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(10), "{stderr}");
    assert!(
        stderr.ends_with("payverify: cannot write --summary-json s.json: File too large\n"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.json")).unwrap(),
        old
    );
    assert_eq!(names_in(&dir), ["orders.csv", "out.json", "s.json"]);
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
    for command in ["help verify", "sandbox --help"] {
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
