//! `verify --fail-on CLASS,...` (issue 27 item 3): a scheduled batch exits with the worst
//! exit among the records of the classes named, else 0; one payment's exit status is never
//! its business; the progress bar counts by class; the cron recipe in the docs runs.

use std::io::{BufReader, Write};
use std::process::{Command as StdCommand, Stdio};

use crate::common::gateway::Txn;
use crate::common::*;

/// Each outcome's class, as docs/exit-codes.md states it: the test's own oracle, written
/// apart from the code's table.
const CLASS_OF: [(&str, &str); 9] = [
    ("SUCCESSFUL", "paid"),
    ("FAILED", "declined"),
    ("NOT_FOUND", "not_found"),
    ("CHECK_FAILED", "mismatch"),
    ("AUTH_REJECTED", "fault"),
    ("UNAVAILABLE", "unverified"),
    ("BAD_RESPONSE", "unverified"),
    ("NOT_FINAL", "pending"),
    ("INTERNAL_ERROR", "fault"),
];

/// The classes in the order help lists them.
const CLASS_ORDER: [&str; 7] = [
    "paid",
    "declined",
    "not_found",
    "mismatch",
    "pending",
    "unverified",
    "fault",
];

/// The class every record counts under, named or not.
const ALWAYS: &str = "fault";

fn class_of(outcome: &str) -> &'static str {
    CLASS_OF
        .iter()
        .find(|(o, _)| *o == outcome)
        .unwrap_or_else(|| panic!("no class for {outcome}"))
        .1
}

/// Reference prefixes the fake gateway answers, with the outcome each gives: every outcome
/// a record can carry (the sandbox has no 401 and no unreadable answer).
const KINDS: [(&str, &str); 9] = [
    ("OK", "SUCCESSFUL"),
    ("FAIL", "FAILED"),
    ("GONE", "NOT_FOUND"),
    ("MIS", "CHECK_FAILED"),
    ("AUTH", "AUTH_REJECTED"),
    ("DOWN", "UNAVAILABLE"),
    ("BAD", "BAD_RESPONSE"),
    ("PEND", "NOT_FINAL"),
    ("PANIC", "INTERNAL_ERROR"),
];

/// A gateway that answers each reference by its prefix (`OK-3`, `FAIL-7`, ...).
fn gateway() -> KeepAliveServer {
    KeepAliveServer::start(|path, _| {
        let reference = path.rsplit('/').next().unwrap_or("").to_owned();
        let kind = reference.split('-').next().unwrap_or("");
        let paid = Txn::paid(&reference, 4_000_000).body();
        let (status, body) = match kind {
            "OK" | "PANIC" => ("200 OK", paid),
            "FAIL" => ("200 OK", Txn::failed(&reference, 4_000_000).body()),
            // SUCCESSFUL with a code the gateway does not approve with: a failed check.
            "MIS" => ("200 OK", paid.replace(r#""code":"00""#, r#""code":"51""#)),
            "PEND" => (
                "200 OK",
                paid.replace(r#""status":"SUCCESSFUL""#, r#""status":"PENDING""#),
            ),
            "AUTH" => ("401 Unauthorized", r#"{"message":"no"}"#.to_owned()),
            "DOWN" => ("500 Internal Server Error", "{}".to_owned()),
            "BAD" => ("200 OK", "<html>".to_owned()),
            _ => ("404 Not Found", r#"{"message":"not found"}"#.to_owned()),
        };
        (status.to_owned(), vec![], body)
    })
}

/// A small deterministic generator, so a failing case can be run again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A mixed batch for `seed`: some kinds, each a few times, in a shuffled order; at most one
/// reference that makes payverify fail (the debug knob names one).
fn batch(seed: u64) -> (Vec<String>, Option<String>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut refs = Vec::new();
    let mut panic_on = None;
    for (prefix, _) in KINDS {
        if rng.below(2) == 0 {
            continue;
        }
        let count = match prefix {
            "PANIC" => 1,
            _ => 1 + rng.below(3),
        };
        for i in 0..count {
            let reference = format!("{prefix}-{seed}-{i}");
            if prefix == "PANIC" {
                panic_on = Some(reference.clone());
            }
            refs.push(reference);
        }
    }
    refs.push(format!("OK-{seed}-x"));
    refs.push(format!("FAIL-{seed}-x"));
    for i in (1..refs.len()).rev() {
        refs.swap(i, rng.below(i + 1));
    }
    (refs, panic_on)
}

/// Runs the batch against `url` with `fail_on` (none: the default) at `-j jobs`: exit
/// status, the records' `(reference, outcome, exit_code)` and stderr.
fn run(
    url: &str,
    refs: &[String],
    panic_on: &Option<String>,
    fail_on: Option<&str>,
    jobs: &str,
) -> (i32, Vec<(String, String, i64)>, String) {
    let mut cmd = payverify_at(url);
    cmd.args(["verify", "--retries", "0", "-o", "jsonl", "-j", jobs]);
    if let Some(classes) = fail_on {
        cmd.args(["--fail-on", classes]);
    }
    if let Some(reference) = panic_on {
        cmd.env("PAYVERIFY_DEBUG_PANIC_ON", reference);
    }
    let out = cmd.arg("--").args(refs).output().unwrap();
    let records = jsonl(&out.stdout)
        .iter()
        .map(|r| {
            (
                r["reference"].as_str().unwrap().to_owned(),
                r["outcome"].as_str().unwrap().to_owned(),
                r["exit_code"].as_i64().unwrap(),
            )
        })
        .collect();
    (out.status.code().unwrap(), records, stderr_of(&out))
}

#[test]
fn exit_is_the_worst_record_of_the_classes_named_at_any_jobs() {
    let server = gateway();
    let subsets = [
        "paid",
        "declined",
        "not_found",
        "mismatch",
        "pending",
        "unverified",
        "fault",
        "unverified,mismatch",
        "declined,pending,not_found",
        "paid,declined,not_found,mismatch,pending,unverified,fault",
    ];
    let mut exits_seen = std::collections::BTreeSet::new();
    for (seed, subset) in subsets.iter().enumerate() {
        let (refs, panic_on) = batch(seed as u64 + 1);
        let named: Vec<&str> = subset.split(',').collect();
        let (code, records, stderr) = run(&server.url, &refs, &panic_on, Some(subset), "1");
        // Every reference has its record, with the outcome its prefix asks for.
        assert_eq!(records.len(), refs.len(), "{stderr}");
        for ((reference, outcome, _), asked) in records.iter().zip(&refs) {
            assert_eq!(reference, asked);
            let prefix = reference.split('-').next().unwrap();
            let want = KINDS.iter().find(|(p, _)| *p == prefix).unwrap().1;
            assert_eq!(outcome, want, "{reference}: {stderr}");
        }
        // The differential: the worst exit among the records whose class is named (or
        // always counted), read back from the records' own outcome field; else 0.
        let counted = |outcome: &str| {
            let class = class_of(outcome);
            class == ALWAYS || named.contains(&class)
        };
        let want = records
            .iter()
            .filter(|(_, outcome, _)| counted(outcome))
            .map(|(_, _, exit)| *exit)
            .max()
            .unwrap_or(0);
        assert_eq!(
            i64::from(code),
            want,
            "--fail-on {subset} on {refs:?}:\n{stderr}"
        );
        exits_seen.insert(code);
        // The summary names every record left out that is not exit 0, by outcome.
        let mut left_out: Vec<(&str, usize)> = Vec::new();
        for (outcome, _) in CLASS_OF {
            let n = records
                .iter()
                .filter(|(_, o, e)| o == outcome && *e != 0 && !counted(o))
                .count();
            if n > 0 {
                left_out.push((outcome, n));
            }
        }
        let summary = stderr.lines().last().unwrap_or_default();
        if left_out.is_empty() {
            assert!(!summary.contains("not in --fail-on"), "{summary}");
        } else {
            let listed = left_out
                .iter()
                .map(|(o, n)| format!("{n} {o}"))
                .collect::<Vec<_>>()
                .join(", ");
            // Named back once each, in the classes' order.
            let named_back = CLASS_ORDER
                .iter()
                .filter(|c| named.contains(c))
                .copied()
                .collect::<Vec<_>>()
                .join(",");
            assert!(
                summary.ends_with(&format!(
                    "; exit {code}: {listed} not in --fail-on {named_back}"
                )),
                "{summary}"
            );
        }
        // -j 8: the same records, the same exit status.
        let (code8, records8, stderr8) = run(&server.url, &refs, &panic_on, Some(subset), "8");
        assert_eq!((code8, &records8), (code, &records), "-j 8:\n{stderr8}");
    }
    // The mixes reach both sides: runs that are 0 only because of --fail-on, and runs that
    // are not.
    assert!(exits_seen.contains(&0), "{exits_seen:?}");
    assert!(exits_seen.iter().any(|e| *e != 0), "{exits_seen:?}");
    // Without --fail-on nothing changed: the worst record.
    let (refs, panic_on) = batch(3);
    let (code, records, stderr) = run(&server.url, &refs, &panic_on, None, "4");
    let worst = records.iter().map(|(_, _, e)| *e).max().unwrap();
    assert_eq!(i64::from(code), worst, "{stderr}");
    assert!(!stderr.contains("--fail-on"), "{stderr}");
}

#[test]
fn one_payment_is_never_left_out() {
    // One reference argument, whatever -o says and wherever it stands: exit 2, before any
    // request, nothing on stdout.
    for args in [
        &["--fail-on", "mismatch", "SANDBOX-FAILED-1"][..],
        &["--fail-on", "mismatch", "-o", "jsonl", "SANDBOX-FAILED-1"],
        &[
            "--fail-on",
            "mismatch",
            "-o",
            "csv",
            "--",
            "SANDBOX-FAILED-1",
        ],
    ] {
        payverify()
            .args(["verify", "--sandbox"])
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                "payverify: --fail-on is for a batch (--from FILE, -, or several references): \
                 one reference exits with its own status, so a FAILED payment is never 0; use \
                 payverify gate to decide one payment\n",
            );
    }
    // The gate decides one payment: refused, with its own message.
    payverify()
        .args([
            "gate",
            "--sandbox",
            "--fail-on",
            "mismatch",
            "--amount",
            "40000",
        ])
        .args(["--merchant-ref", "M-1", "--", "SANDBOX-FAILED-1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "payverify: gate decides one payment and exits with its own status: --fail-on is \
             for scheduled batches of payverify verify\n",
        );
    // A batch that turns out to hold one reference (a one-line file, a reference given
    // twice) keeps that reference's own status, and says so.
    let dir = TempDir::new("fail-on-one");
    let list = dir.write("one.txt", "SANDBOX-FAILED-1\n");
    for args in [
        vec!["--from".to_owned(), list.display().to_string()],
        vec!["SANDBOX-FAILED-1".to_owned(), "SANDBOX-FAILED-1".to_owned()],
    ] {
        let out = payverify()
            .args([
                "verify",
                "--sandbox",
                "--fail-on",
                "mismatch",
                "-o",
                "jsonl",
            ])
            .args(&args)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            reference_outcomes(&jsonl(&out.stdout)),
            [("SANDBOX-FAILED-1", "FAILED")]
        );
        assert!(
            stderr.contains(
                "payverify: warning: --fail-on leaves nothing out of a run of one reference: \
                 its exit status is its own\n"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("not in --fail-on"), "{stderr}");
    }
}

#[test]
fn fail_on_needs_records_a_script_reads() {
    let refused = "payverify: --fail-on needs -o csv, jsonl or json: the exit status then leaves \
                   records out, so each record must say what its reference came to, in a file a \
                   script or a person reads\n";
    for (output, stderr) in [
        (&[][..], refused),
        (&["-o", "table"], refused),
        (&["-q"], ""),
    ] {
        payverify()
            .args(["verify", "--sandbox", "--fail-on", "mismatch"])
            .args(output)
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(stderr);
    }
    for output in ["csv", "jsonl", "json"] {
        payverify()
            .args(["verify", "--sandbox", "--fail-on", "mismatch", "-o", output])
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(0);
    }
}

#[test]
fn class_names_unknown_empty_repeated_and_in_any_case() {
    let valid = "paid, declined, not_found, mismatch, pending, unverified, fault";
    for (value, why) in [
        (
            "bogus",
            format!("\"bogus\" is not an outcome class; the classes are: {valid}"),
        ),
        (
            "mismatch,FAILED",
            format!("\"FAILED\" is not an outcome class; the classes are: {valid}"),
        ),
        (
            "",
            format!("names no class; give CLASS[,CLASS...] from: {valid}"),
        ),
        (
            "mismatch,",
            format!("\"mismatch,\" names an empty class; give CLASS[,CLASS...] from: {valid}"),
        ),
    ] {
        payverify()
            .args(["verify", "--sandbox", "-o", "jsonl", "--fail-on", value])
            .args(["SANDBOX-FAILED-1", "SANDBOX-OK-2"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "payverify: invalid value '{value}' for '--fail-on <CLASS[,CLASS...]>': {why} \
                 (see 'payverify verify --help')\n"
            ));
    }
    // Any case, spaces around names, a name twice: the same as written once.
    let out = payverify()
        .args(["verify", "--sandbox", "-o", "jsonl"])
        .args(["--fail-on", " MisMatch , mismatch"])
        .args(["SANDBOX-OK-1", "SANDBOX-FAILED-2", "SANDBOX-FAILED-3"])
        .args(["SANDBOX-NOTFOUND-4", "SANDBOX-CODE-51-5"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.ends_with(
            ": 1 SUCCESSFUL, 2 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED; exit 4: 2 FAILED, 1 \
             NOT_FOUND not in --fail-on mismatch\n"
        ),
        "{stderr}"
    );
}

#[test]
fn an_interrupted_run_is_still_130() {
    // Only FAILED and SUCCESSFUL records, none of them counted: the signal still decides.
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "-j", "2"])
        .args(["--fail-on", "mismatch", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..40 {
        match i % 2 {
            0 => writeln!(stdin, "SANDBOX-FAILED-{i}").unwrap(),
            _ => writeln!(stdin, "SANDBOX-SLOW-200-{i}").unwrap(),
        }
    }
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let _ = read_lines(&mut stdout, 2);
    send_signal(&child, "-INT");
    let (_, status, stderr) = finish(child, &mut stdout);
    drop(stdin);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted after "), "{stderr}");
}

/// The batch's stderr as a terminal shows it: payverify on a pseudo-terminal (util-linux
/// `script`), stdout to /dev/null; escapes and carriage returns left in.
fn stderr_on_terminal(args: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("payverify");
    let command = format!("{} verify --sandbox {args} >/dev/null", bin.display());
    let out = StdCommand::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("COLUMNS", "200")
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("HOME", "/nonexistent/payverify-test-home")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script runs payverify on a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_progress_bar_counts_each_class_by_name() {
    // One worker: the four that are not SUCCESSFUL are counted before the slow last one,
    // while which the bar is drawn with their counts.
    let screen = stderr_on_terminal(
        "-j 1 -o jsonl SANDBOX-FAILED-1 SANDBOX-NOTFOUND-2 SANDBOX-PENDING-3 SANDBOX-CODE-51-4 \
         SANDBOX-OK-5 SANDBOX-SLOW-1000-6",
    );
    assert!(
        screen.contains("1 declined, 1 not_found, 1 mismatch, 1 pending"),
        "{screen:?}"
    );
    assert!(!screen.contains("failed"), "{screen:?}");
    // The summary line still counts outcomes.
    assert!(
        screen.contains("2 SUCCESSFUL, 1 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED, 1 NOT_FINAL"),
        "{screen:?}"
    );
}

#[test]
fn the_class_table_is_the_codes_in_help_man_page_and_docs() {
    let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = payverify().args(["verify", "--help"]).output().unwrap();
    let help = collapse(&stdout_of(&help));
    let man = payverify().arg("man").output().unwrap();
    let man = collapse(&stdout_of(&man).replace("\\-", "-").replace("\\*(Aq", "'"));
    let docs = crate::common::pages::page("docs/exit-codes.md");
    let mut oracle = Vec::new();
    for class in payverify::Class::ALL {
        let members = payverify::class_members(class);
        let row = format!(
            "| `{}` | {} | {} |",
            class.name(),
            members.join(", "),
            class.meaning()
        );
        assert!(docs.text.contains(&row), "docs/exit-codes.md lacks {row:?}");
        let line = format!(
            "{} {}: {}",
            class.name(),
            members.join(", "),
            class.meaning()
        );
        assert!(
            help.contains(&collapse(&line)),
            "verify --help lacks {line:?}"
        );
        let entry = format!("{}: {}", members.join(", "), class.meaning());
        assert!(
            man.contains(&collapse(&entry)),
            "the man page lacks {entry:?}"
        );
        oracle.extend(members.iter().map(|m| (*m, class.name())));
    }
    // The code's table agrees with the oracle the differential test reads outcomes by.
    oracle.sort();
    let mut mine = CLASS_OF.to_vec();
    mine.sort();
    assert_eq!(oracle, mine);
    assert_eq!(
        payverify::Class::ALL.map(|c| c.name()).to_vec(),
        CLASS_ORDER.to_vec()
    );
}

/// Every cron recipe with --fail-on in the README and docs/, run as written through sh:
/// the schedule taken off, /srv/ moved into a temporary directory, `mail` a stand-in that
/// keeps what it was sent, the `live` profile on a sandbox.
#[test]
fn every_cron_recipe_runs() {
    let mut recipes: Vec<(String, String)> = Vec::new();
    for page in crate::common::pages::pages() {
        for line in page.text.lines() {
            if line.contains("--fail-on") && line.starts_with("15 2 * * * payverify") {
                recipes.push((page.path.clone(), line.to_owned()));
            }
        }
    }
    let pages: Vec<&str> = recipes.iter().map(|(p, _)| p.as_str()).collect();
    for want in ["README.md", "docs/batch.md", "docs/gate.md"] {
        assert!(
            pages.iter().any(|p| p.ends_with(want)),
            "no recipe in {want}: {pages:?}"
        );
    }
    let sandbox = Standalone::start(&["-q"]);
    for (page, recipe) in recipes {
        let command: String = recipe.splitn(6, ' ').nth(5).unwrap().to_owned();
        for (refs, mailed) in [
            // Declined cards and unknown references: no mail.
            (
                "SANDBOX-OK-1\nSANDBOX-FAILED-2\nSANDBOX-NOTFOUND-3\n",
                false,
            ),
            // A payment that fails its checks: the mail, with the summary line.
            ("SANDBOX-OK-1\nSANDBOX-FAILED-2\nSANDBOX-CODE-51-3\n", true),
        ] {
            let dir = TempDir::new("cron-fail-on");
            let root = dir.path().display().to_string();
            std::fs::create_dir_all(dir.path().join("srv/refs")).unwrap();
            std::fs::create_dir_all(dir.path().join("srv/out")).unwrap();
            std::fs::create_dir_all(dir.path().join("bin")).unwrap();
            std::fs::write(dir.path().join("srv/refs/today.txt"), refs).unwrap();
            let mail = dir.path().join("bin/mail");
            std::fs::write(
                &mail,
                format!(
                    "#!/bin/sh\nprintf '%s\\n' \"$*\" > {root}/mail.args\ncat > {root}/mail.body\n"
                ),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&mail, std::fs::Permissions::from_mode(0o755)).unwrap();
            let config = dir.write(
                "config.toml",
                format!(
                    "[profiles.live]\nbase_url = \"{}\"\nclient_id = \"sandbox\"\n\
                     client_secret = \"sandbox-secret\"\n",
                    sandbox.url
                ),
            );
            std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
            let bin = assert_cmd::cargo::cargo_bin!("payverify");
            let path = format!(
                "{root}/bin:{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            );
            let run = StdCommand::new("sh")
                .arg("-c")
                .arg(command.replace("/srv/", &format!("{root}/srv/")))
                .current_dir(dir.path())
                .env("PAYVERIFY_CONFIG", &config)
                .env("PATH", path)
                .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
                .env_remove("PAYVERIFY_PROFILE")
                .env_remove("PAYVERIFY_BASE_URL")
                .env_remove("PAYVERIFY_CLIENT_ID")
                .env_remove("PAYVERIFY_CLIENT_SECRET")
                .output()
                .unwrap();
            assert_eq!(run.status.code(), Some(0), "{page}: {}", stderr_of(&run));
            let csv = std::fs::read_to_string(dir.path().join("srv/out/today.csv")).unwrap();
            assert_eq!(csv.lines().count(), 4, "{page}: {csv}");
            assert!(
                csv.contains("\nSANDBOX-FAILED-2,FAILED,1,"),
                "{page}: {csv}"
            );
            let body = std::fs::read_to_string(dir.path().join("mail.body"));
            match mailed {
                false => assert!(body.is_err(), "{page}: mailed {body:?}"),
                true => {
                    let body = body.unwrap();
                    assert!(
                        body.contains(
                            "1 SUCCESSFUL, 1 FAILED, 1 CHECK_FAILED; exit 4: 1 FAILED not in \
                             --fail-on mismatch,unverified"
                        ),
                        "{page}: {body}"
                    );
                    let args = std::fs::read_to_string(dir.path().join("mail.args")).unwrap();
                    assert_eq!(args, "-s payments need a look ops@example.com\n", "{page}");
                }
            }
        }
    }
    sandbox.terminate();
}
