//! What a carried reconcile row puts on stdout and stderr (issue 23, the review of
//! `--resume`): read into its values and written as a fresh row is, whatever bytes the file
//! held; a key given twice anywhere in a line is exit 2.

use crate::common::{
    SANDBOX_SECRET, TempDir, sandbox_in, sandbox_requests as requests, sealed, stderr_of, stdout_of,
};
use crate::resume_carried::{assert_terminal_safe, escaped, strings};
use crate::resume_like_fresh::Rng;

const ORDERS: &str = "Order ID,Reference,Customer,Amount,Currency\n\
                      1001,SANDBOX-FAILED-1001,Ada,40000,NGN\n";

/// `payverify reconcile --sandbox -v --retries 0 orders.csv ARGS` in `dir`.
fn reconcile(dir: &TempDir, args: &[&str]) -> std::process::Output {
    sandbox_in(dir, &["reconcile", "--retries", "0", "orders.csv"], args)
}

/// The FAILED row's output of a first run in `format`.
fn first_run(dir: &TempDir, format: &str) -> String {
    dir.write("orders.csv", ORDERS);
    let first = reconcile(dir, &["-o", format]);
    assert_eq!(first.status.code(), Some(1), "{}", stderr_of(&first));
    let text = stdout_of(&first);
    assert!(text.contains("Insufficient Funds"), "{text}");
    text
}

#[test]
fn a_carried_jsonl_row_shows_neither_the_secret_nor_a_raw_control() {
    let dir = TempDir::new("reconcile-carried-jsonl");
    let genuine = first_run(&dir, "jsonl");
    // The service's description and the error: the secret as \u00XX escapes, a bidi
    // override and a C1 control raw, ESC escaped; the currency with a bidi override.
    let edited = genuine
        .replacen(
            "Insufficient Funds",
            &format!("{} \u{202e}x\u{85}\\u001b[2J", escaped(SANDBOX_SECRET)),
            2,
        )
        .replacen(
            "\"gateway_currency\":\"NGN\"",
            "\"gateway_currency\":\"N\u{202e}GN\"",
            1,
        );
    assert_ne!(edited, genuine);
    dir.write("run1.jsonl", sealed(&edited, SANDBOX_SECRET));
    let again = reconcile(&dir, &["-o", "jsonl", "--resume", "run1.jsonl"]);
    assert_eq!(
        (again.status.code(), requests(&again)),
        (Some(1), 0),
        "{}",
        stderr_of(&again)
    );
    let stdout = stdout_of(&again);
    assert!(!stdout.contains(SANDBOX_SECRET), "{stdout}");
    let value: serde_json::Value = serde_json::from_str(stdout.trim_end()).unwrap();
    let mut texts = Vec::new();
    strings(&value, &mut texts);
    assert!(
        texts.iter().all(|t| !t.contains(SANDBOX_SECRET)),
        "{stdout}"
    );
    assert!(stdout.contains("<redacted>"), "{stdout}");
    assert_terminal_safe(&stdout, "stdout");
    assert_terminal_safe(&stderr_of(&again), "stderr");
}

#[test]
fn a_reconcile_resume_line_with_a_key_given_twice_is_refused() {
    let dir = TempDir::new("reconcile-carried-twice");
    let genuine = first_run(&dir, "jsonl");
    for (key, line) in [
        (
            "Customer",
            genuine.replacen(
                "\"Customer\":\"Ada\"",
                "\"Customer\":\"Ada\",\"Customer\":\"Ada\"",
                1,
            ),
        ),
        (
            "result",
            genuine.replacen(
                "\"result\":\"FAILED\"",
                "\"result\":\"MATCHED\",\"result\":\"FAILED\"",
                1,
            ),
        ),
        (
            "expiry",
            genuine.replacen(
                "\"expiry\":\"01/30\"",
                "\"expiry\":\"01/30\",\"expiry\":\"02/30\"",
                1,
            ),
        ),
    ] {
        assert_ne!(line, genuine, "{key}");
        dir.write("run1.jsonl", sealed(&line, SANDBOX_SECRET));
        let again = reconcile(&dir, &["-o", "jsonl", "--resume", "run1.jsonl"]);
        assert_eq!(
            (again.status.code(), requests(&again), stdout_of(&again)),
            (Some(2), 0, String::new()),
            "{key}: {}",
            stderr_of(&again)
        );
        assert_eq!(
            stderr_of(&again),
            format!(
                "payverify: --resume run1.jsonl: line 1 has the key \"{key}\" twice; this is \
                 not an output of payverify reconcile (resume from the earlier run's stdout, \
                 with the same -o)\n"
            )
        );
    }
}

/// A random orders file: references drawn from a small pool of magic ones (so a reference
/// repeats, one payment on two orders: DUPLICATE), totals that match or miss.
fn orders(rng: &mut Rng) -> String {
    let mut text = String::from("Order ID,Reference,Customer,Amount,Currency\n");
    for i in 0..3 + rng.below(6) {
        let k = rng.below(3);
        let reference = match rng.below(8) {
            0 => format!("SANDBOX-OK-{k}"),
            1 => format!("SANDBOX-BADHMAC-{k}"),
            2 => format!("SANDBOX-NOHMAC-{k}"),
            3 => format!("SANDBOX-MODE-live-{k}"),
            4 => format!("SANDBOX-CURRENCY-USD-{k}"),
            5 => format!("SANDBOX-FAILED-{k}"),
            6 => format!("NOPE-{k}"),
            _ => format!("SANDBOX-PENDING-{k}"),
        };
        let amount = ["40000", "40000", "39000", "41000"][rng.below(4)];
        text.push_str(&format!("{},{reference},C{i},{amount},NGN\n", 1000 + i));
    }
    text
}

/// A random set of the run-wide checks (`--hmac`, `--expect-mode`).
fn run_checks(rng: &mut Rng) -> Vec<&'static str> {
    let mut args = Vec::new();
    if let Some(mode) = ["require", "warn", "off"].get(rng.below(4)) {
        args.extend(["--hmac", mode]);
    }
    if let Some(mode) = ["dev", "live"].get(rng.below(3)) {
        args.extend(["--expect-mode", mode]);
    }
    args
}

/// Fresh against resumed reconciliation when run 1 and run 2 ask for the same or other
/// run-wide checks: the same rows, byte for byte, and the same exit, at `-j 1` and `-j 8`.
fn resumed_equals_fresh(seeds: std::ops::Range<u64>) {
    let dir = TempDir::new("reconcile-carried-differential");
    let mut carried = 0;
    for seed in seeds {
        let mut rng = Rng(seed ^ 0xca11);
        let orders = orders(&mut rng);
        dir.write("orders.csv", &orders);
        let format = ["jsonl", "jsonl", "csv"][rng.below(3)];
        // Half the seeds resume under run 1's checks (rows carried as decided), the rest
        // under others (every row asked again).
        let first = run_checks(&mut rng);
        let second = match rng.below(2) {
            0 => first.clone(),
            _ => run_checks(&mut rng),
        };
        let with = |checks: &[&'static str], extra: &[&'static str]| {
            let mut args = vec!["-o", format];
            args.extend(checks);
            args.extend(extra);
            args
        };
        // A csv run keeps its rows with --state; jsonl is resumed from its output.
        let state = format == "csv";
        let run1 = reconcile(
            &dir,
            &with(&first, &["--state", "run1.state"][..2 * usize::from(state)]),
        );
        let earlier = format!("run1.{format}");
        dir.write(&earlier, &run1.stdout);
        let fresh = reconcile(&dir, &with(&second, &[]));
        let case = format!(
            "seed {seed} (-o {format}), run 1 {first:?}, run 2 {second:?}\n{orders}run 1:\n{}",
            stdout_of(&run1)
        );
        for jobs in ["1", "8"] {
            let mut args = with(&second, &["-j", jobs]);
            match state {
                true => {
                    let again = dir.path().join("again.state");
                    std::fs::copy(dir.path().join("run1.state"), &again).unwrap();
                    args.extend(["--state", "again.state"]);
                }
                false => args.extend(["--resume", &earlier]),
            }
            let resumed = reconcile(&dir, &args);
            assert_eq!(
                resumed.status.code(),
                fresh.status.code(),
                "-j {jobs}: {case}\n{}",
                stderr_of(&resumed)
            );
            assert_eq!(stdout_of(&resumed), stdout_of(&fresh), "-j {jobs}: {case}");
            carried += usize::from(stderr_of(&resumed).contains(" carried over, "));
        }
    }
    assert!(carried > 4, "{carried} resumed runs carried a row");
}

#[test]
fn a_resumed_reconciliation_under_other_checks_is_a_fresh_one_seeds_0_to_7() {
    resumed_equals_fresh(0..8);
}

#[test]
fn a_resumed_reconciliation_under_other_checks_is_a_fresh_one_seeds_8_to_15() {
    resumed_equals_fresh(8..16);
}
