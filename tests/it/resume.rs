//! `--resume FILE`: an earlier run's output carries its final records over unchanged and
//! only the rest is asked again; counted through the in-process sandbox's `-v` request log.

use crate::common::{
    TempDir, interrupted_into, payverify, sandbox_in, sandbox_requests as requests, spawnable,
    stderr_of, stdout_of,
};

/// A mix of every kind: final (SUCCESSFUL, FAILED, NOT_FOUND, CHECK_FAILED with the amount
/// expectation) and not final (UNAVAILABLE, NOT_FINAL).
const MIX: &str = "SANDBOX-OK-1\nSANDBOX-FAILED-2\nSANDBOX-ERROR-3\nNOPE-4\nSANDBOX-PENDING-5\n\
                   SANDBOX-AMOUNT-7-6\nSANDBOX-OK-7\n";
/// How many of MIX are asked again on resume: the 500 and the PENDING.
const MIX_NOT_FINAL: usize = 2;

/// `payverify verify --sandbox -v --from refs.txt --retries 0 --expect-amount-kobo 4000000
/// ARGS` in `dir`.
fn run(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let command = ["verify", "--from", "refs.txt", "--retries", "0"];
    let expectation = ["--expect-amount-kobo", "4000000"];
    sandbox_in(dir, &[&command[..], &expectation].concat(), args)
}

/// `payverify verify --sandbox -v --from FILE -o FORMAT ARGS` in `dir`, with no
/// expectation of its own (unlike [`run`]).
fn verify_from(dir: &TempDir, file: &str, format: &str, args: &[&str]) -> std::process::Output {
    sandbox_in(dir, &["verify", "--from", file, "-o", format], args)
}

fn summary(out: &std::process::Output) -> String {
    let stderr = stderr_of(out);
    stderr.lines().last().unwrap_or("").to_owned()
}

#[test]
fn resuming_a_complete_file_asks_only_what_was_not_final() {
    {
        let format = "jsonl";
        let dir = TempDir::new("resume-complete");
        dir.write("refs.txt", MIX);
        let first = run(&dir, &["-o", format]);
        assert_eq!(first.status.code(), Some(4), "{}", stderr_of(&first));
        assert_eq!(requests(&first), 7);
        let earlier = dir.write(&format!("run1.{format}"), &first.stdout);

        let again = run(&dir, &["-o", format, "--resume", earlier.to_str().unwrap()]);
        assert_eq!(again.status.code(), Some(4), "{}", stderr_of(&again));
        let (asked, carried) = (MIX_NOT_FINAL, 5);
        assert_eq!(requests(&again), asked, "{format}: {}", stderr_of(&again));
        // Same records in the same order: the carried ones byte for byte, and the asked
        // ones as deterministic as the sandbox.
        assert_eq!(stdout_of(&again), stdout_of(&first), "{format}");
        let line = summary(&again);
        assert!(
            line.contains(&format!(
                "7 references ({carried} carried over, {asked} asked) in "
            )) && line.ends_with(
                "2 SUCCESSFUL, 1 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED, 1 UNAVAILABLE, \
                     1 NOT_FINAL"
            ),
            "{line}"
        );
    }
}

/// Kill a run part way, resume from what it wrote, and the result is the uninterrupted
/// run's: same records, same order.
#[test]
fn resuming_an_interrupted_run_gives_the_uninterrupted_result() {
    let dir = TempDir::new("resume-interrupted");
    let refs: String = (0..40)
        .map(|i| match i % 5 {
            0 => format!("SANDBOX-FAILED-{i}\n"),
            _ => format!("SANDBOX-SLOW-150-{i}\n"),
        })
        .collect();
    dir.write("refs.txt", &refs);
    let full = payverify()
        .current_dir(dir.path())
        .args([
            "verify",
            "--sandbox",
            "--from",
            "refs.txt",
            "-o",
            "jsonl",
            "-j",
            "4",
        ])
        .output()
        .unwrap();
    assert_eq!(full.status.code(), Some(1));

    let part = dir.path().join("part.jsonl");
    let (stderr, written) = interrupted_into(
        dir.path(),
        &[
            "verify",
            "--sandbox",
            "--from",
            "refs.txt",
            "-o",
            "jsonl",
            "-j",
            "2",
        ],
        &part,
        40,
    );
    // The interrupted summary names the command that finishes the run.
    assert!(
        stderr.contains(
            "payverify: to finish this run, resume it: payverify verify --sandbox --from \
             refs.txt -o jsonl -j 2 --resume part.jsonl > part-resumed.jsonl\n"
        ),
        "{stderr}"
    );

    let resumed = verify_from(&dir, "refs.txt", "jsonl", &["--resume", "part.jsonl"]);
    assert_eq!(resumed.status.code(), Some(1), "{}", stderr_of(&resumed));
    assert_eq!(requests(&resumed), 40 - written);
    assert_eq!(stdout_of(&resumed), stdout_of(&full));
}

#[test]
fn a_torn_last_line_is_ignored_with_a_warning_and_asked_again() {
    let dir = TempDir::new("resume-torn");
    dir.write("refs.txt", "SANDBOX-OK-1\nSANDBOX-OK-2\nSANDBOX-FAILED-3\n");
    let first = run(&dir, &["-o", "jsonl"]);
    let text = stdout_of(&first);
    // Cut inside the last record, as a kill while writing it would.
    let torn = &text[..text.len() - 40];
    dir.write("torn.jsonl", torn);
    let again = run(&dir, &["-o", "jsonl", "--resume", "torn.jsonl"]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(stdout_of(&again), text);
    assert_eq!(requests(&again), 1);
    assert!(
        stderr_of(&again).contains(
            "payverify: warning: --resume torn.jsonl: the last line is incomplete (the run \
             was stopped while writing it); it is ignored and its reference asked again\n"
        ),
        "{}",
        stderr_of(&again)
    );
    // CRLF line ends (the file went through an editor) read the same; output keeps LF.
    dir.write("crlf.jsonl", text.replace('\n', "\r\n"));
    let crlf = run(&dir, &["-o", "jsonl", "--resume", "crlf.jsonl"]);
    assert_eq!(crlf.status.code(), Some(1), "{}", stderr_of(&crlf));
    assert_eq!(requests(&crlf), 0);
    assert_eq!(stdout_of(&crlf), text);
    // An empty file (a run killed before its first record) carries nothing over.
    dir.write("empty.jsonl", "");
    let empty = run(&dir, &["-o", "jsonl", "--resume", "empty.jsonl"]);
    assert_eq!(empty.status.code(), Some(1));
    assert_eq!(requests(&empty), 3);
}

/// Files that are not an output of this command in this format: exit 2, one line, nothing
/// on stdout and no request.
#[test]
fn foreign_and_hostile_resume_files_are_refused_before_any_request() {
    let dir = TempDir::new("resume-foreign");
    dir.write("refs.txt", "SANDBOX-OK-1\nSANDBOX-FAILED-2\n");
    let ok = r#"{"reference":"SANDBOX-OK-1","outcome":"SUCCESSFUL","exit_code":0,"http_status":200,"error":null,"checks":null,"response":{"status":"SUCCESSFUL"}}"#;
    let failed = ok
        .replace("SANDBOX-OK-1", "SANDBOX-FAILED-2")
        .replace(
            "\"outcome\":\"SUCCESSFUL\",\"exit_code\":0",
            "\"outcome\":\"FAILED\",\"exit_code\":1",
        )
        .replace("{\"status\":\"SUCCESSFUL\"}", "{\"status\":\"FAILED\"}");
    let header = "reference,outcome,exit_code,status,code,amount_kobo,amount,currency,\
                  merchant_ref,transaction_ref,payment_ref,transaction_date,payment_date,error,\
                  checks\n";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "refs.jsonl",
            "SANDBOX-OK-1\n".into(),
            "line 1 is not a jsonl record (a csv output cannot be read back: keep a run's \
             records with --state FILE)",
        ),
        (
            "other.jsonl",
            "{\"id\":1}\n".into(),
            "line 1 has a field payverify does not write (\"id\")",
        ),
        (
            "forged-exit.jsonl",
            ok.replace(r#""exit_code":0"#, r#""exit_code":1"#) + "\n",
            "line 1 has an exit_code that disagrees with its outcome SUCCESSFUL",
        ),
        (
            "unknown-outcome.jsonl",
            ok.replace("\"outcome\":\"SUCCESSFUL\"", "\"outcome\":\"PAID\"") + "\n",
            "line 1 has an unknown outcome",
        ),
        (
            "control.jsonl",
            ok.replace("SANDBOX-OK-1", "SANDBOX-OK-1\u{1b}[2J") + "\n",
            "line 1 is not a JSON object",
        ),
        (
            "run.csv",
            header.to_owned(),
            "line 1 is not a jsonl record (a csv output cannot be read back: keep a run's \
             records with --state FILE)",
        ),
        (
            "huge.jsonl",
            format!("{}\n", "{".repeat(9 << 20)),
            "line 1 is longer than 8388608 bytes",
        ),
        (
            "binary.jsonl",
            "{\u{0}\u{ff}\n".into(),
            "line 1 is not a JSON object",
        ),
        (
            "twice.jsonl",
            format!(
                "{failed}\n{}\n",
                failed.replace("\"http_status\":200", "\"http_status\":201")
            ),
            "line 2 is a second record for reference \"SANDBOX-FAILED-2\" (the first is on \
             line 1)",
        ),
    ];
    for (name, content, why) in cases {
        dir.write(name, &content);
        let out = run(&dir, &["-o", "jsonl", "--resume", name]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr_of(&out));
        let stderr = stderr_of(&out);
        assert!(
            stderr.starts_with(&format!("payverify: --resume {name}: {why}"))
                && stderr.lines().count() == 1,
            "{name}: {stderr}"
        );
        assert!(!stderr.contains('\u{1b}'), "raw escape on stderr");
        assert!(out.stdout.is_empty(), "{name}");
    }

    // Records shaped as payverify's but under no seal (a status that does not match the
    // outcome, no response at all) are never carried nor judged: asked again, as a fresh
    // run asks them.
    let fresh = run(&dir, &["-o", "jsonl"]);
    for (name, content) in [
        (
            "forged-status.jsonl",
            ok.replace(r#"{"status":"SUCCESSFUL"}"#, r#"{"status":"PENDING"}"#),
        ),
        (
            "no-response.jsonl",
            ok.replace(r#"{"status":"SUCCESSFUL"}"#, "null"),
        ),
    ] {
        dir.write(name, format!("{content}\n"));
        let out = run(&dir, &["-o", "jsonl", "--resume", name]);
        assert_eq!(out.status.code(), fresh.status.code(), "{name}");
        assert_eq!(requests(&out), 2, "{name}");
        assert_eq!(stdout_of(&out), stdout_of(&fresh), "{name}");
        assert!(
            stderr_of(&out)
                .contains("warning: 1 final records of the --resume file were asked again"),
            "{name}: {}",
            stderr_of(&out)
        );
    }

    // Not a file at all.
    let out = run(&dir, &["-o", "jsonl", "--resume", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_of(&out),
        "payverify: --resume .: it is a directory\n"
    );
    let out = run(&dir, &["-o", "jsonl", "--resume", "missing.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).starts_with("payverify: --resume missing.jsonl: "));
    // Formats --resume does not read back (--state keeps any run's records).
    for format in ["table", "json"] {
        let out = run(&dir, &["-o", format, "--resume", "run.csv"]);
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert_eq!(
            stderr_of(&out),
            "payverify: --resume needs -o jsonl, the format of the earlier run's output; with \
             another -o, keep the run's records with --state FILE\n"
        );
    }
}

/// A record for a reference the input does not have is not written (and said so); a
/// SUCCESSFUL record this run's checks would not pass is asked again, never carried into
/// exit 0; a resume file that is the run's own output is refused.
#[test]
fn resume_never_carries_what_this_run_would_not_accept() {
    let dir = TempDir::new("resume-trust");
    dir.write("refs.txt", "SANDBOX-OK-1\n");
    let forged = r#"{"reference":"SANDBOX-FAILED-99","outcome":"FAILED","exit_code":1,"http_status":200,"error":null,"checks":null,"response":{"status":"FAILED"}}"#;
    dir.write("forged.jsonl", format!("{forged}\n"));
    let out = run(&dir, &["-o", "jsonl", "--resume", "forged.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout_of(&out).contains("SANDBOX-FAILED-99"));
    assert_eq!(requests(&out), 1);
    assert!(
        stderr_of(&out).contains(
            "payverify: warning: the --resume file has 1 final records for references not \
             in this input; they were not written\n"
        ),
        "{}",
        stderr_of(&out)
    );

    // Run 1 had no expectation; run 2 expects another amount: the SUCCESSFUL record was
    // judged by other checks, so it is asked again, and fails the check (exit 4).
    {
        let format = "jsonl";
        let first = verify_from(&dir, "refs.txt", format, &[]);
        assert_eq!(first.status.code(), Some(0));
        let name = format!("ok.{format}");
        dir.write(&name, &first.stdout);
        let out = verify_from(
            &dir,
            "refs.txt",
            format,
            &["--resume", &name, "--expect-amount", "5"],
        );
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1, "{format}");
        assert!(stdout_of(&out).contains("CHECK_FAILED"));
        assert!(
            stderr_of(&out).contains(
                "payverify: warning: 1 final records of the --resume file were asked \
                 again: a jsonl record is carried only if it bears payverify's seal under \
                 this run's secret and was judged by this run's checks (the same payverify, \
                 expectations, --hmac and --expect-mode); a SUCCESSFUL one also needs the \
                 hmac it was found to have valid\n"
            ),
            "{}",
            stderr_of(&out)
        );
        // Expectations the answer meets, but not run 1's: still asked again, never
        // carried on a judgement made under other checks.
        let same = ["--expect-amount", "40000", "--expect-currency", "ngn"];
        let out = verify_from(
            &dir,
            "refs.txt",
            format,
            &[&["--resume", &name][..], &same].concat(),
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1, "{format}");
        // Run 1 again with those expectations, then resumed with the same: carried as it
        // was decided, nothing asked.
        let first = verify_from(&dir, "refs.txt", format, &same);
        dir.write(&name, &first.stdout);
        let out = verify_from(
            &dir,
            "refs.txt",
            format,
            &[&["--resume", &name][..], &same].concat(),
        );
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 0, "{format}");
        assert_eq!(out.stdout, first.stdout);
    }

    // Run 1 let an hmac mismatch through as a warning (exit 0): the file cannot show that
    // answer came from the service, so it is asked again, whatever --hmac says now; a run
    // that requires the hmac then refuses it (exit 4).
    dir.write("badhmac.txt", "SANDBOX-BADHMAC-1\n");
    {
        let format = "jsonl";
        let first = verify_from(&dir, "badhmac.txt", format, &[]);
        assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
        let name = format!("badhmac.{format}");
        dir.write(&name, &first.stdout);
        let carried = verify_from(&dir, "badhmac.txt", format, &["--resume", &name]);
        assert_eq!(carried.status.code(), Some(0));
        assert_eq!(requests(&carried), 1);
        assert_eq!(carried.stdout, first.stdout);
        assert!(
            summary(&carried).ends_with("1 SUCCESSFUL; 1 with warnings (see their checks)"),
            "{format}: {}",
            stderr_of(&carried)
        );
        let out = verify_from(
            &dir,
            "badhmac.txt",
            format,
            &["--resume", &name, "--hmac", "require"],
        );
        assert_eq!(out.status.code(), Some(4), "{format}: {}", stderr_of(&out));
        assert_eq!(requests(&out), 1, "{format}");
    }

    // `--resume run.jsonl > run.jsonl`: the shell emptied it; refused, not read as empty.
    let own = dir.write("own.jsonl", "");
    let out = spawnable()
        .current_dir(dir.path())
        .args(["verify", "--sandbox", "--from", "refs.txt", "-o", "jsonl"])
        .args(["--resume", "own.jsonl"])
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::OpenOptions::new().append(true).open(&own).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("is also where this run's output goes"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(std::fs::read_to_string(&own).unwrap(), "");
}
