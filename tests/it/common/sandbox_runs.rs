//! Runs against the in-process sandbox in a test's directory, counted by its `-v` request
//! log, and the records they write sealed again: the set-up of the `--resume` and
//! reconcile tests, written once.

use std::process::Output;

use payverify::{Secret, sign};

use super::{TempDir, payverify, stderr_of};

/// The sandbox's client secret, which seals the sandbox's records.
pub const SANDBOX_SECRET: &str = "sandbox-secret";

/// `payverify COMMAND --sandbox -v ARGS...` in `dir`, where `command` is the subcommand
/// with the arguments a test's every run shares and `args` this run's own: every request
/// the sandbox gets is on stderr, for [`sandbox_requests`].
pub fn sandbox_in(dir: &TempDir, command: &[&str], args: &[&str]) -> Output {
    let (name, shared) = command.split_first().expect("a subcommand");
    payverify()
        .current_dir(dir.path())
        .args([name, "--sandbox", "-v"])
        .args(shared)
        .args(args)
        .output()
        .unwrap()
}

/// How many requests the sandbox logged in a `-v` run's stderr.
pub fn sandbox_requests(out: &Output) -> usize {
    stderr_of(out).matches("payverify: sandbox: GET").count()
}

/// `record` with its seal made again under `secret`, as a run with that secret seals it
/// (HMAC-SHA256 keyed by the secret's HMAC of the label; see src/domain/seal.rs): what
/// someone who holds the secret, or a payverify bug, could write.
pub fn sealed(record: &str, secret: &str) -> String {
    let record = record.trim_end();
    let unsealed = match record.rfind(",\"seal\":\"") {
        Some(at) => format!("{}}}", &record[..at]),
        None => record.to_owned(),
    };
    let key = sign(&Secret::new(secret), "payverify record seal v1");
    let seal = sign(&Secret::new(key), &unsealed);
    format!(
        "{},\"seal\":\"{seal}\"}}\n",
        &unsealed[..unsealed.len() - 1]
    )
}
