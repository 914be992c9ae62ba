//! `verify --resume` against a fresh run, on generated inputs (issue 23, the review of
//! `--resume`): for a random mix of the sandbox's magic references, run 1 with one random
//! set of checks and run 2 with another, `run2 --resume run1.jsonl` writes the same records
//! and exits as a fresh run 2 does, at `-j 1` and at `-j 8`. Half the seeds give run 2 run
//! 1's checks, so records are carried as they were decided; the rest give it others, under
//! which no record of run 1 may stand: every one is asked again (issue 37 item 4).

use crate::common::{TempDir, payverify, stderr_of, stdout_of};
use crate::resume_like_fresh::Rng;

/// One magic reference of each kind a check can tell apart (`i` keeps them distinct).
fn reference(rng: &mut Rng, i: usize) -> String {
    match rng.below(13) {
        0 | 1 => format!("SANDBOX-OK-{i}"),
        2 => format!("SANDBOX-AMOUNT-1250000-{i}"),
        3 => format!("SANDBOX-CURRENCY-USD-{i}"),
        4 => "SANDBOX-MERCHANT-M7".to_owned(),
        5 => format!("SANDBOX-MODE-live-{i}"),
        6 => format!("SANDBOX-NOHMAC-{i}"),
        7 => format!("SANDBOX-BADHMAC-{i}"),
        8 => format!("SANDBOX-FAILED-{i}"),
        9 => format!("SANDBOX-CODE-05-{i}"),
        10 => format!("NOPE-{i}"),
        11 => format!("SANDBOX-PENDING-{i}"),
        _ => format!("SANDBOX-ERROR-{i}"),
    }
}

/// A random set of the checks a run can ask for.
fn checks(rng: &mut Rng) -> Vec<String> {
    let mut args = Vec::new();
    let mut pick = |flag: &str, values: &[&str], rng: &mut Rng| {
        let i = rng.below(values.len() + 1);
        if let Some(value) = values.get(i) {
            args.push(flag.to_owned());
            args.push((*value).to_owned());
        }
    };
    pick("--expect-amount-kobo", &["4000000", "1250000"], rng);
    pick("--expect-currency", &["NGN", "USD"], rng);
    pick("--expect-merchant-ref", &["M7"], rng);
    pick("--expect-mode", &["dev", "live"], rng);
    pick("--hmac", &["require", "warn", "off"], rng);
    args
}

fn verify(dir: &TempDir, checks: &[String], extra: &[&str]) -> std::process::Output {
    payverify()
        .current_dir(dir.path())
        .args(["verify", "--sandbox", "--from", "refs.txt", "-o", "jsonl"])
        .args(["--retries", "0"])
        .args(checks)
        .args(extra)
        .output()
        .unwrap()
}

fn resumed_equals_fresh(seeds: std::ops::Range<u64>) {
    let dir = TempDir::new("resume-differential");
    let mut carried = 0;
    for seed in seeds {
        let mut rng = Rng(seed);
        let n = 4 + rng.below(6);
        let refs: Vec<String> = (0..n).map(|i| reference(&mut rng, i)).collect();
        let mut refs_text = refs.join("\n");
        refs_text.push('\n');
        dir.write("refs.txt", &refs_text);
        let first = checks(&mut rng);
        let second = match rng.below(2) {
            0 => first.clone(),
            _ => checks(&mut rng),
        };
        let run1 = verify(&dir, &first, &[]);
        dir.write("run1.jsonl", &run1.stdout);
        let fresh = verify(&dir, &second, &[]);
        let case = format!(
            "seed {seed}\nrefs: {refs:?}\nrun 1: {first:?}\nrun 2: {second:?}\nrun 1 \
             stdout:\n{}",
            stdout_of(&run1)
        );
        for jobs in ["1", "8"] {
            let resumed = verify(&dir, &second, &["--resume", "run1.jsonl", "-j", jobs]);
            assert_eq!(
                resumed.status.code(),
                fresh.status.code(),
                "-j {jobs}: {case}\nresumed stderr: {}",
                stderr_of(&resumed)
            );
            assert_eq!(stdout_of(&resumed), stdout_of(&fresh), "-j {jobs}: {case}");
            carried += usize::from(stderr_of(&resumed).contains(" carried over, "));
        }
    }
    // Not a comparison of two fresh runs: records were carried.
    assert!(carried > 4, "{carried} resumed runs carried a record");
}

// Three tests of 8 seeds each, so the harness runs them side by side.
#[test]
fn a_resumed_verify_run_is_a_fresh_one_seeds_0_to_7() {
    resumed_equals_fresh(0..8);
}

#[test]
fn a_resumed_verify_run_is_a_fresh_one_seeds_8_to_15() {
    resumed_equals_fresh(8..16);
}

#[test]
fn a_resumed_verify_run_is_a_fresh_one_seeds_16_to_23() {
    resumed_equals_fresh(16..24);
}
