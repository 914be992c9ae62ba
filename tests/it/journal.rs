//! The journal (issue 40) through the real binary: what verify, gate and reconcile keep,
//! `history` and `history --changed`, claims across runs, many processes on one journal,
//! and every way a journal can be unusable (exit 6, the file left as it was).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::common::{SECRET, TempDir, payverify, payverify_at, stderr_of, stdout_of};

/// payverify keeping its journal at `journal`.
fn journaled(journal: &Path) -> assert_cmd::Command {
    let mut cmd = payverify();
    cmd.env("PAYVERIFY_JOURNAL", journal);
    cmd
}

fn run(journal: &Path, args: &[&str]) -> Output {
    journaled(journal).args(args).output().unwrap()
}

fn history_json(journal: &Path, reference: &str) -> (Option<i32>, Vec<serde_json::Value>) {
    let out = run(journal, &["history", "-o", "json", "--", reference]);
    let entries = serde_json::from_str::<Vec<serde_json::Value>>(&stdout_of(&out)).unwrap();
    (out.status.code(), entries)
}

fn journal_in(dir: &TempDir) -> PathBuf {
    dir.path().join("journal.sqlite3")
}

#[test]
fn history_shows_every_check_of_a_reference_oldest_first_with_the_contract_keys() {
    let dir = TempDir::new("journal-history");
    let journal = journal_in(&dir);
    let out = run(&journal, &["verify", "--sandbox", "SANDBOX-OK-h1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = run(
        &journal,
        &["verify", "--sandbox", "SANDBOX-FAILED-h1", "SANDBOX-OK-h1"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));

    let (code, entries) = history_json(&journal, "SANDBOX-OK-h1");
    assert_eq!(code, Some(0));
    assert_eq!(entries.len(), 2, "{entries:?}");
    for key in [
        "reference",
        "checked_at",
        "command",
        "outcome",
        "exit_code",
        "status",
        "code",
        "amount_kobo",
        "currency",
        "merchant_ref",
        "transaction_ref",
        "payment_ref",
        "order",
    ] {
        assert!(entries[0].get(key).is_some(), "no {key} in {}", entries[0]);
    }
    let e = &entries[0];
    assert_eq!(e["reference"], "SANDBOX-OK-h1");
    assert_eq!(e["command"], "verify");
    assert_eq!(e["outcome"], "SUCCESSFUL");
    assert_eq!(e["exit_code"], 0);
    assert_eq!(e["status"], "SUCCESSFUL");
    assert_eq!(e["code"], "00");
    assert_eq!(e["amount_kobo"], 4_000_000);
    assert_eq!(e["currency"], "NGN");
    assert_eq!(e["host"], "sandbox");
    assert_eq!(e["hmac"], "valid");
    // The answer as payverify shows it, with the digest of its text.
    assert_eq!(e["answer"]["status"], "SUCCESSFUL");
    assert_eq!(e["answer_sha256"].as_str().unwrap().len(), 64);
    let (first, second) = (
        e["checked_at"].as_str().unwrap(),
        entries[1]["checked_at"].as_str().unwrap(),
    );
    assert!(first.ends_with('Z') && first.contains('T'), "{first}");
    assert!(first <= second, "{first} then {second}");

    let (_, failed) = history_json(&journal, "SANDBOX-FAILED-h1");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["outcome"], "FAILED");
    assert_eq!(failed[0]["exit_code"], 1);

    // The table for people: one row a check.
    let out = run(&journal, &["history", "SANDBOX-OK-h1"]);
    assert_eq!(out.status.code(), Some(0));
    let table = stdout_of(&out);
    assert_eq!(
        table.lines().filter(|l| l.contains("SUCCESSFUL")).count(),
        2,
        "{table}"
    );
}

#[test]
fn history_of_a_reference_never_checked_is_exit_3_with_an_empty_array() {
    let dir = TempDir::new("journal-none");
    let journal = journal_in(&dir);
    // No journal at all yet, then one without that reference.
    let (code, entries) = history_json(&journal, "SANDBOX-OK-never");
    assert_eq!((code, entries.len()), (Some(3), 0));
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-other"]);
    let out = run(&journal, &["history", "SANDBOX-OK-never"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout_of(&out), "");
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("holds no check of 'SANDBOX-OK-never'"),
        "{stderr}"
    );
    // A near miss is not the reference.
    let (code, _) = history_json(&journal, "SANDBOX-OK-othe");
    assert_eq!(code, Some(3));
}

fn changed_json(journal: &Path, extra: &[&str]) -> (Option<i32>, Vec<serde_json::Value>) {
    let mut args = vec!["history", "--changed", "-o", "json"];
    args.extend_from_slice(extra);
    let out = run(journal, &args);
    let changes = serde_json::from_str::<Vec<serde_json::Value>>(&stdout_of(&out)).unwrap();
    (out.status.code(), changes)
}

#[test]
fn a_reversal_in_the_sandbox_flips_across_runs_and_history_changed_shows_both_answers() {
    let dir = TempDir::new("journal-flip");
    let journal = journal_in(&dir);
    // Nothing has changed before the first check.
    let (code, changes) = changed_json(&journal, &[]);
    assert_eq!((code, changes.len()), (Some(3), 0));

    let refs = ["SANDBOX-REVERSED-f1", "SANDBOX-OK-f1"];
    let first = run(&journal, &[&["verify", "--sandbox"][..], &refs].concat());
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let second = run(&journal, &[&["verify", "--sandbox"][..], &refs].concat());
    assert_eq!(second.status.code(), Some(1), "{}", stderr_of(&second));
    assert!(
        stderr_of(&second).contains("SANDBOX-REVERSED-f1"),
        "{}",
        stderr_of(&second)
    );

    let (code, changes) = changed_json(&journal, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(
        changes.len(),
        1,
        "only the reversed one changed: {changes:?}"
    );
    let change = &changes[0];
    assert_eq!(change["reference"], "SANDBOX-REVERSED-f1");
    let (before, after) = (&change["before"], &change["after"]);
    assert_eq!(
        (&before["status"], &before["exit_code"], &before["code"]),
        (&"SUCCESSFUL".into(), &0.into(), &"00".into())
    );
    assert_eq!(
        (&after["status"], &after["exit_code"], &after["code"]),
        (&"FAILED".into(), &1.into(), &"51".into())
    );
    assert_eq!(after["answer"]["description"], "Transaction reversed");
    assert!(before["checked_at"].as_str() <= after["checked_at"].as_str());
    // A third check that reads FAILED again is no new change.
    let third = run(&journal, &["verify", "--sandbox", refs[0]]);
    assert_eq!(third.status.code(), Some(1));
    assert_eq!(changed_json(&journal, &[]).1.len(), 1);

    // --since keeps the changes whose later check is that recent.
    let (code, recent) = changed_json(&journal, &["--since", "1h"]);
    assert_eq!((code, recent.len()), (Some(0), 1));
    let conn = rusqlite::Connection::open(&journal).unwrap();
    conn.execute(
        "UPDATE checks SET checked_at = '2026-01-0' || (id % 9 + 1) || 'T10:00:00.000Z'",
        [],
    )
    .unwrap();
    drop(conn);
    let (code, recent) = changed_json(&journal, &["--since", "1day"]);
    assert_eq!((code, recent.len()), (Some(3), 0));
    assert_eq!(changed_json(&journal, &[]).1.len(), 1);

    // The table for people names the reference and both answers.
    let out = run(&journal, &["history", "--changed"]);
    assert_eq!(out.status.code(), Some(0));
    let table = stdout_of(&out);
    for want in ["SANDBOX-REVERSED-f1", "SUCCESSFUL", "FAILED"] {
        assert!(table.contains(want), "{want}: {table}");
    }
    assert!(!table.contains("SANDBOX-OK-f1"), "{table}");
}

#[test]
fn without_a_journal_every_sandbox_run_sees_the_first_ask_of_a_reversal() {
    for _ in 0..2 {
        let out = payverify()
            .args(["verify", "--sandbox", "SANDBOX-REVERSED-nj"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    }
}

#[test]
fn an_amount_corrected_by_the_service_is_a_change() {
    let dir = TempDir::new("journal-amount");
    let journal = journal_in(&dir);
    let mut server = mockito::Server::new();
    let body = |amount: u64, currency: &str| {
        format!(
            r#"{{"status":"SUCCESSFUL","code":"00","amount":{amount},"currencyCode":"{currency}","merchantRef":"M-9","transactionRef":"T-9","paymentDate":"2026-11-30T10:00:00.000Z","hmac":"00"}}"#
        )
    };
    let mut ask = |amount: u64, currency: &str| {
        let mock = server
            .mock("GET", "/api/payment/verify/T-9")
            .with_body(body(amount, currency))
            .create();
        let out = payverify_at(&server.url())
            .env("PAYVERIFY_JOURNAL", &journal)
            .args(["verify", "T-9"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        mock.remove();
    };
    ask(100, "NGN");
    ask(100, "NGN");
    assert_eq!(changed_json(&journal, &[]).0, Some(3));
    ask(250, "NGN");
    ask(250, "USD");
    let (code, changes) = changed_json(&journal, &[]);
    assert_eq!(code, Some(0));
    let seen: Vec<_> = changes
        .iter()
        .map(|c| {
            (
                c["before"]["amount_kobo"].as_u64().unwrap(),
                c["after"]["amount_kobo"].as_u64().unwrap(),
                c["after"]["currency"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(seen, [(100, 250, "NGN".into()), (250, 250, "USD".into())]);
}

#[test]
fn gate_and_reconcile_checks_are_kept_with_the_order_they_were_for() {
    let dir = TempDir::new("journal-order");
    let journal = journal_in(&dir);
    let out = run(
        &journal,
        &[
            "gate",
            "--sandbox",
            "--merchant-ref",
            "M-9",
            "--amount",
            "40000",
            "--",
            "SANDBOX-MERCHANT-M-9",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let (_, entries) = history_json(&journal, "SANDBOX-MERCHANT-M-9");
    assert_eq!(entries[0]["command"], "gate");
    assert_eq!(entries[0]["order"], "M-9");

    let orders = dir.write(
        "orders.csv",
        "order_id,reference,amount\n#5001,SANDBOX-OK-r5001,40000\n",
    );
    let out = run(
        &journal,
        &["reconcile", "--sandbox", "-q", orders.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let (_, entries) = history_json(&journal, "SANDBOX-OK-r5001");
    assert_eq!(entries[0]["command"], "reconcile");
    assert_eq!(entries[0]["order"], "#5001");
    assert_eq!(entries[0]["result"], "MATCHED");
}

/// A reconcile run of `rows` (`order_id,reference` pairs, each ₦40,000) in `dir`.
fn reconcile(journal: &Path, dir: &TempDir, name: &str, rows: &[(&str, &str)]) -> Output {
    let mut text = String::from("order_id,reference,amount\n");
    for (order, reference) in rows {
        text.push_str(&format!("{order},{reference},40000\n"));
    }
    let file = dir.write(name, text);
    run(
        journal,
        &[
            "reconcile",
            "--sandbox",
            "-o",
            "csv",
            file.to_str().unwrap(),
        ],
    )
}

#[test]
fn a_payment_claimed_by_one_order_is_a_duplicate_for_another_order_on_a_later_run() {
    let dir = TempDir::new("journal-claims");
    let journal = journal_in(&dir);
    let first = reconcile(&journal, &dir, "day1.csv", &[("1001", "SANDBOX-OK-c1")]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    // The next day's export gives the same payment to order 2002.
    let later = reconcile(
        &journal,
        &dir,
        "day2.csv",
        &[("2002", "SANDBOX-OK-c1"), ("2003", "SANDBOX-OK-c2")],
    );
    assert_eq!(later.status.code(), Some(4), "{}", stderr_of(&later));
    let csv = stdout_of(&later);
    let row = csv.lines().find(|l| l.starts_with("2002,")).unwrap();
    assert!(row.contains(",DUPLICATE,"), "{row}");
    assert!(
        row.contains("order 1001 (reconcile, 20"),
        "names the first order and when: {row}"
    );
    let other = csv.lines().find(|l| l.starts_with("2003,")).unwrap();
    assert!(other.contains(",MATCHED,"), "{other}");
    // The same order again (a re-run, an overlapping export; `#1001` is order 1001) is no
    // duplicate.
    let again = reconcile(&journal, &dir, "rerun.csv", &[("#1001", "SANDBOX-OK-c1")]);
    assert_eq!(again.status.code(), Some(0), "{}", stdout_of(&again));
    // Without the journal, nothing is remembered.
    let file = dir.path().join("day2.csv");
    let out = payverify()
        .args([
            "reconcile",
            "--sandbox",
            "-q",
            "--no-journal",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn gate_refuses_a_payment_another_order_claimed_and_passes_the_same_order() {
    let dir = TempDir::new("journal-gate-claims");
    let journal = journal_in(&dir);
    // Reconcile matched the payment (merchantRef M-77) for order 2002, from a file with no
    // merchant ref column: gate for "M-77" cannot be told to be order 2002.
    let out = reconcile(
        &journal,
        &dir,
        "orders.csv",
        &[("2002", "SANDBOX-MERCHANT-M-77")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let gate = |merchant: &str, reference: &str| {
        run(
            &journal,
            &[
                "gate",
                "--sandbox",
                "--merchant-ref",
                merchant,
                "--amount",
                "40000",
                "--",
                reference,
            ],
        )
    };
    let out = gate("M-77", "SANDBOX-MERCHANT-M-77");
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("already paid for order 2002 (reconcile, 20"),
        "{stderr}"
    );
    assert_eq!(stdout_of(&out), "");

    // With the merchant ref column the row says which order it is: the same one.
    let file = dir.write(
        "with-ref.csv",
        "order_id,reference,merchant_ref,amount\n3003,SANDBOX-MERCHANT-M-88,M-88,40000\n",
    );
    let out = run(
        &journal,
        &["reconcile", "--sandbox", "-q", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = gate("M-88", "SANDBOX-MERCHANT-M-88");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // A gate's pass claims the payment too: gate again for the same order passes, and a
    // reconcile row giving it to another order is a DUPLICATE.
    let out = gate("M-99", "SANDBOX-MERCHANT-M-99");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = gate("M-99", "SANDBOX-MERCHANT-M-99");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = reconcile(
        &journal,
        &dir,
        "late.csv",
        &[("4004", "SANDBOX-MERCHANT-M-99")],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stdout_of(&out));
    assert!(
        stdout_of(&out).contains("already paid for order M-99 (gate, 20"),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn twenty_gates_at_once_on_one_journal_lose_no_entry() {
    let dir = TempDir::new("journal-twenty");
    let journal = journal_in(&dir);
    let children: Vec<_> = (0..20)
        .map(|n| {
            let reference = format!("SANDBOX-MERCHANT-G{n}");
            let merchant = format!("G{n}");
            super::common::spawnable()
                .env("PAYVERIFY_JOURNAL", &journal)
                .args([
                    "gate",
                    "--sandbox",
                    "--merchant-ref",
                    &merchant,
                    "--amount",
                    "40000",
                    "--",
                    &reference,
                ])
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(!stderr.contains("locked"), "{stderr}");
    }
    for n in 0..20 {
        let (code, entries) = history_json(&journal, &format!("SANDBOX-MERCHANT-G{n}"));
        assert_eq!((code, entries.len()), (Some(0), 1), "gate {n}");
    }
}

/// Gates that start together on a journal that is not there yet: one makes it while the
/// others open it, and none fails with "database is locked" (found by an attack on the
/// release build: about one pair in four did, exit 6). Twenty new journals, each in a new
/// directory (as a first run makes it), two gates each.
#[test]
fn gates_making_one_new_journal_at_once_all_pass() {
    for round in 0..20 {
        let dir = TempDir::new("journal-new-race");
        let journal = journal_in(&dir);
        let children: Vec<_> = (0..2)
            .map(|n| {
                // WooCommerce references: the sandbox reads the journal for these too.
                let merchant = format!("{}_{}", 1000 + n, 1_763_730_000 + round);
                let reference = format!("{merchant}_1850000");
                super::common::spawnable()
                    .env("PAYVERIFY_JOURNAL", &journal)
                    .args(["gate", "--sandbox", "--merchant-ref", &merchant])
                    .args(["--amount-kobo", "1850000", "--", &reference])
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "round {round}: {stderr}");
        }
    }
}

/// The bytes of `path`, and of its `-wal` beside it if there is one.
fn bytes_of(path: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap_or_default();
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    bytes.extend(std::fs::read(PathBuf::from(wal)).unwrap_or_default());
    bytes
}

/// A verify with a journal that cannot be used: exit 6, one line naming the file and the
/// fixes, no request, and the file as it was.
fn refused(journal: &Path, why: &str) {
    let before = std::fs::read(journal).unwrap();
    for args in [
        &["verify", "--sandbox", "SANDBOX-OK-x"][..],
        &[
            "gate",
            "--sandbox",
            "--merchant-ref",
            "M",
            "--amount",
            "1",
            "--",
            "SANDBOX-MERCHANT-M",
        ][..],
    ] {
        let out = run(journal, args);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{args:?}: {stderr}");
        assert_eq!(stdout_of(&out), "");
        assert!(
            stderr.contains(&format!("the journal {} cannot be used", journal.display())),
            "{stderr}"
        );
        assert!(stderr.contains(why), "{stderr}");
        assert!(stderr.contains("--no-journal"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    assert!(
        std::fs::read(journal).unwrap() == before,
        "the file was changed"
    );
    // history refuses it too, and --no-journal runs.
    assert_eq!(
        run(journal, &["history", "SANDBOX-OK-x"]).status.code(),
        Some(6)
    );
    let out = run(
        journal,
        &["verify", "--sandbox", "--no-journal", "SANDBOX-OK-x"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_left_alone() {
    let dir = TempDir::new("journal-garbage");
    let journal = dir.write("journal.sqlite3", "order_id,reference\n1,2\n".repeat(300));
    refused(&journal, "not a database");
}

#[test]
fn another_programs_sqlite_file_is_refused() {
    let dir = TempDir::new("journal-foreign");
    let journal = journal_in(&dir);
    let conn = rusqlite::Connection::open(&journal).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    drop(conn);
    refused(&journal, "not a payverify journal");
}

#[test]
fn a_journal_from_a_newer_payverify_is_refused() {
    let dir = TempDir::new("journal-newer");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-n"]);
    let conn = rusqlite::Connection::open(&journal).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    refused(&journal, "a newer payverify wrote it (schema 99");
}

#[test]
fn a_journal_others_can_write_is_refused_like_a_config_file() {
    let dir = TempDir::new("journal-open");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-w"]);
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused(&journal, "");
    let out = run(&journal, &["verify", "--sandbox", "SANDBOX-OK-w"]);
    assert!(stderr_of(&out).contains("chmod"), "{}", stderr_of(&out));
}

#[test]
fn a_journal_that_cannot_be_written_is_exit_6() {
    let dir = TempDir::new("journal-readonly");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-ro"]);
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o400)).unwrap();
    // Root writes a 0400 file all the same: the run is made as nobody, who owns it then.
    let root = nix::unistd::geteuid().is_root();
    let as_user = |args: &[&str]| -> Output {
        let mut cmd = journaled(&journal);
        if root {
            let bin = assert_cmd::cargo::cargo_bin!("payverify");
            cmd = assert_cmd::Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(bin)
                .env("HOME", "/nonexistent")
                .env("XDG_CONFIG_HOME", dir.path())
                .env("PAYVERIFY_JOURNAL", &journal);
        }
        cmd.args(args).output().unwrap()
    };
    if root {
        let nobody =
            |p: &Path| nix::unistd::chown(p, Some(65534.into()), Some(65534.into())).unwrap();
        nobody(dir.path());
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            nobody(&entry.unwrap().path());
        }
    }
    let out = as_user(&["verify", "--sandbox", "SANDBOX-OK-ro"]);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("cannot write to it"), "{stderr}");
    // Reading it is still possible.
    let out = as_user(&["history", "SANDBOX-OK-ro"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn the_default_journal_is_owner_only_and_no_journal_makes_nothing() {
    let dir = TempDir::new("journal-default");
    let data = dir.path().join("data");
    let default = || {
        let mut cmd = payverify();
        cmd.env_remove("PAYVERIFY_JOURNAL")
            .env("XDG_DATA_HOME", &data);
        cmd
    };
    let out = default()
        .args(["verify", "--sandbox", "--no-journal", "SANDBOX-OK-d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!data.exists(), "--no-journal made {}", data.display());
    let out = default()
        .env("PAYVERIFY_JOURNAL", "off")
        .args(["verify", "--sandbox", "SANDBOX-OK-d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!data.exists());

    let out = default()
        .args(["verify", "--sandbox", "SANDBOX-OK-d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "",
        "nothing said about a journal that works"
    );
    let file = data.join("payverify/journal.sqlite3");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&data.join("payverify")), 0o700);
    let out = default()
        .args(["history", "SANDBOX-OK-d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_default_place_that_cannot_be_made_warns_once_and_the_gate_still_decides() {
    // A data directory under a regular file cannot be made, whoever runs payverify.
    let dir = TempDir::new("journal-unmade");
    let blocker = dir.write("not-a-dir", "");
    let out = payverify()
        .env_remove("PAYVERIFY_JOURNAL")
        .env("XDG_DATA_HOME", blocker.join("data"))
        .args([
            "gate",
            "--sandbox",
            "--merchant-ref",
            "U-1",
            "--amount",
            "40000",
            "--",
            "SANDBOX-MERCHANT-U-1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("payverify: warning: keeping no journal: "),
        "{stderr}"
    );
    // Named explicitly, the same place stops the run.
    let out = payverify()
        .env("PAYVERIFY_JOURNAL", blocker.join("data/j.sqlite3"))
        .args(["verify", "--sandbox", "SANDBOX-OK-u"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    // doctor says so.
    let out = payverify()
        .env_remove("PAYVERIFY_JOURNAL")
        .env("XDG_DATA_HOME", blocker.join("data"))
        .args(["doctor", "--base-url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    let line = text
        .lines()
        .find(|l| l.contains("journal"))
        .unwrap_or_default();
    assert!(
        line.contains("warn") && line.contains("without a journal"),
        "{text}"
    );
}

#[test]
fn a_secret_the_service_echoes_leaves_no_trace_in_the_journal() {
    let dir = TempDir::new("journal-secret");
    let journal = journal_in(&dir);
    let mut server = mockito::Server::new();
    let body = format!(
        r#"{{"status":"SUCCESSFUL","code":"00","description":"key {SECRET} ok","amount":100,"currencyCode":"NGN","merchantRef":"M-1","transactionRef":"T-1","note":"p {SECRET}","hmac":"00"}}"#
    );
    let _m = server
        .mock("GET", "/api/payment/verify/T-1")
        .with_body(body)
        .create();
    let out = payverify_at(&server.url())
        .env("PAYVERIFY_JOURNAL", &journal)
        .args(["verify", "T-1"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), None);
    let kept = bytes_of(&journal);
    assert!(!kept.is_empty());
    let needle = SECRET.as_bytes();
    assert!(
        !kept.windows(needle.len()).any(|w| w == needle),
        "the secret is in the journal"
    );
    let (code, entries) = history_json(&journal, "T-1");
    assert_eq!(code, Some(0));
    let answer = &entries[0]["answer"];
    assert!(
        answer["description"]
            .as_str()
            .unwrap()
            .contains("<redacted>"),
        "{}",
        entries[0]
    );
    assert_eq!(entries[0]["status"], "SUCCESSFUL", "{}", entries[0]);
}

#[test]
fn every_answer_asked_under_wait_is_kept() {
    let dir = TempDir::new("journal-wait");
    let journal = journal_in(&dir);
    let out = journaled(&journal)
        .env(super::common::WAIT_FIRST_PAUSE_MS, "50")
        .args([
            "verify",
            "--sandbox",
            "--wait",
            "20s",
            "SANDBOX-SETTLES-300-w",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let (_, entries) = history_json(&journal, "SANDBOX-SETTLES-300-w");
    assert!(entries.len() >= 2, "{entries:?}");
    assert_eq!(entries[0]["status"], "PENDING");
    assert_eq!(entries[0]["exit_code"], 9);
    assert_eq!(entries.last().unwrap()["status"], "SUCCESSFUL");
    assert!(
        entries
            .iter()
            .skip(1)
            .rev()
            .skip(1)
            .all(|e| e["status"] == "PENDING")
    );
}

#[test]
fn a_run_killed_mid_write_leaves_a_journal_sqlite_opens() {
    let dir = TempDir::new("journal-killed");
    let journal = journal_in(&dir);
    // Long enough (some seconds) to be killed part way.
    let refs: String = (0..60_000).map(|n| format!("SANDBOX-OK-k{n}\n")).collect();
    let list = dir.write("refs.txt", refs);
    let mut child = super::common::spawnable()
        .env("PAYVERIFY_JOURNAL", &journal)
        .args([
            "verify",
            "--sandbox",
            "-q",
            "-o",
            "jsonl",
            "--from",
            list.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    super::common::wait_until("the journal has checks", || {
        // Read only, never made: the run makes it.
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let conn = rusqlite::Connection::open_with_flags(&journal, flags).ok();
        conn.and_then(|c| {
            c.query_row("SELECT count(*) FROM checks", [], |r| r.get::<_, i64>(0))
                .ok()
        })
        .is_some_and(|n| n > 0)
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before it was killed"
    );
    super::common::send_signal(&child, "-KILL");
    let _ = child.wait();
    let conn = rusqlite::Connection::open(&journal).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let out = run(&journal, &["verify", "--sandbox", "SANDBOX-OK-after"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn a_batch_whose_reader_stopped_reading_never_holds_the_journal_from_a_gate() {
    let dir = TempDir::new("journal-blocked");
    let journal = journal_in(&dir);
    let refs: Vec<String> = (0..400).map(|n| format!("SANDBOX-OK-b{n}")).collect();
    let mut args = vec![
        "verify",
        "--sandbox",
        "-o",
        "jsonl",
        "--journal",
        journal.to_str().unwrap(),
    ];
    args.extend(refs.iter().map(String::as_str));
    let (mut child, _stderr, read_end) = super::common::blocked_on_a_full_pipe(&args);
    // The batch has answers in hand it cannot write; a checkout's gate must not wait on it.
    let started = std::time::Instant::now();
    let out = run(
        &journal,
        &[
            "gate",
            "--sandbox",
            "--merchant-ref",
            "B-1",
            "--amount",
            "40000",
            "--",
            "SANDBOX-MERCHANT-B-1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    drop(read_end);
    let _ = child.kill();
    let _ = child.wait();
}

/// `reconcile --sandbox -o jsonl FILE` with `args`, started in the background on `journal`,
/// its stdout to `stdout`.
fn reconcile_started(
    journal: &Path,
    file: &Path,
    args: &[&str],
    stdout: std::process::Stdio,
) -> std::process::Child {
    super::common::spawnable()
        .env("PAYVERIFY_JOURNAL", journal)
        .args(["reconcile", "--sandbox", "-o", "jsonl"])
        .args(args)
        .arg(file)
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .spawn()
        .unwrap()
}

/// A reconcile blocked on a stdout nobody reads has claimed payments: each claim was
/// committed before its row was written, and a gate for another order's payment is
/// answered at once, refused.
#[test]
fn a_reconcile_whose_reader_stopped_reading_never_holds_the_journal_from_a_gate() {
    let dir = TempDir::new("journal-blocked-claims");
    let journal = journal_in(&dir);
    let mut text = String::from("order_id,reference,amount\n");
    for n in 0..400 {
        text.push_str(&format!("{n},SANDBOX-MERCHANT-M{n},40000\n"));
    }
    let file = dir.write("orders.csv", text);
    let args = [
        "reconcile",
        "--sandbox",
        "-o",
        "jsonl",
        "--journal",
        journal.to_str().unwrap(),
        file.to_str().unwrap(),
    ];
    let (mut child, _stderr, read_end) = super::common::blocked_on_a_full_pipe(&args);
    let started = std::time::Instant::now();
    // Order 0's payment, for the order of merchant reference M0: refused, as reconcile's
    // claim was committed.
    let out = run(
        &journal,
        &[
            "gate",
            "--sandbox",
            "--merchant-ref",
            "M0",
            "--amount",
            "40000",
            "--",
            "SANDBOX-MERCHANT-M0",
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("order 0 (reconcile"),
        "{}",
        stderr_of(&out)
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    drop(read_end);
    let _ = child.kill();
    let _ = child.wait();
}

/// Two reconciles of overlapping exports at once, one journal, the same payments for
/// different order ids: each payment is MATCHED in one run's output only, and the other
/// run's row is DUPLICATE naming it. (Before, either run could write MATCHED and find the
/// other's claim only when it committed: hundreds of payments MATCHED in both.)
#[test]
fn two_reconciles_at_once_never_both_write_one_payment_matched() {
    let dir = TempDir::new("journal-two-reconciles");
    let journal = journal_in(&dir);
    let rows = 1500;
    let file_of = |shop: &str| {
        let mut text = String::from("order_id,reference,amount\n");
        for n in 0..rows {
            text.push_str(&format!("{shop}{n},SANDBOX-OK-t{n},40000\n"));
        }
        dir.write(&format!("{shop}.csv"), text)
    };
    let (a, b) = (file_of("A"), file_of("B"));
    let start =
        |file: &Path| reconcile_started(&journal, file, &["-j", "8"], std::process::Stdio::piped());
    let (first, second) = (start(&a), start(&b));
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let mut matched = std::collections::HashMap::<String, usize>::new();
    for out in &outputs {
        let code = out.status.code();
        assert!(matches!(code, Some(0 | 4)), "{code:?}: {}", stderr_of(out));
        let mut seen = 0;
        for line in stdout_of(out).lines() {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let reference = row["row"]["reference"].as_str().unwrap().to_owned();
            match row["result"].as_str() {
                Some("MATCHED") => *matched.entry(reference).or_default() += 1,
                Some("DUPLICATE") => assert!(
                    row["error"].as_str().unwrap().contains("(reconcile, 20"),
                    "{line}"
                ),
                other => panic!("{other:?}: {line}"),
            }
            seen += 1;
        }
        assert_eq!(seen, rows);
        // A run that wrote a DUPLICATE row is not exit 0; one that did not is.
        let duplicates = stdout_of(out).matches("\"result\":\"DUPLICATE\"").count();
        assert_eq!(code == Some(0), duplicates == 0, "{}", stderr_of(out));
    }
    let twice: Vec<_> = matched.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "{} payments MATCHED twice", twice.len());
    assert_eq!(matched.len(), rows, "every payment MATCHED once");
}

/// A reconcile claiming payments commits a short transaction a row: verifies started
/// meanwhile each finish in well under a second or two, not when the reconcile ends (as
/// they did when its claims were held in one transaction for many rows).
#[test]
fn verifies_during_a_reconcile_holding_claims_are_not_kept_waiting_for_its_end() {
    let dir = TempDir::new("journal-fair");
    let journal = journal_in(&dir);
    let mut text = String::from("order_id,reference,amount\n");
    for n in 0..600 {
        text.push_str(&format!("{n},SANDBOX-SLOW-40-f{n},40000\n"));
    }
    let file = dir.write("orders.csv", text);
    let mut reconcile = reconcile_started(
        &journal,
        &file,
        &["-j", "4", "-q"],
        std::process::Stdio::null(),
    );
    // About 6 s of rows: the verifies below all start while it claims.
    std::thread::sleep(std::time::Duration::from_millis(800));
    let verifies: Vec<_> = (0..8)
        .map(|n| {
            let journal = journal.clone();
            std::thread::spawn(move || {
                let started = std::time::Instant::now();
                let out = run(
                    &journal,
                    &["verify", "--sandbox", "-q", &format!("SANDBOX-OK-v{n}")],
                );
                (out.status.code(), started.elapsed())
            })
        })
        .collect();
    let waits: Vec<_> = verifies.into_iter().map(|v| v.join().unwrap()).collect();
    let still_claiming = reconcile.try_wait().unwrap().is_none();
    let done = reconcile.wait().unwrap();
    for (code, waited) in waits {
        assert_eq!(code, Some(0));
        assert!(waited < std::time::Duration::from_secs(3), "{waited:?}");
    }
    assert_eq!(done.code(), Some(0));
    assert!(
        still_claiming,
        "the reconcile ended before the verifies: nothing was tested"
    );
}

/// A journal that stops answering mid-run (another program holds its lock past the 30 s
/// busy timeout): reconcile's paid rows from then on are UNVERIFIED and the run is exit 6;
/// none is MATCHED without its claim, least of all for a payment a gate gave another
/// order. (They were MATCHED, the payments other orders held among them.)
#[test]
fn rows_after_the_journal_stops_answering_are_unverified_never_matched_unclaimed() {
    let dir = TempDir::new("journal-stops");
    let journal = journal_in(&dir);
    let claimed = ["SANDBOX-MERCHANT-Q1", "SANDBOX-MERCHANT-Q2"];
    for (n, reference) in claimed.iter().enumerate() {
        let merchant_ref = format!("Q{}", n + 1);
        let out = run(
            &journal,
            &[
                "gate",
                "--sandbox",
                "--merchant-ref",
                &merchant_ref,
                "--amount",
                "40000",
                "--",
                reference,
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    }
    let mut text = String::from("order_id,reference,amount\n");
    for n in 0..300 {
        let reference = match n {
            250 | 251 => claimed[n - 250].to_owned(),
            _ => format!("SANDBOX-SLOW-20-q{n}"),
        };
        text.push_str(&format!("{n},{reference},40000\n"));
    }
    let file = dir.write("orders.csv", text);
    let reconcile = reconcile_started(&journal, &file, &["-j", "2"], std::process::Stdio::piped());
    std::thread::sleep(std::time::Duration::from_millis(500));
    let holder = rusqlite::Connection::open(&journal).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = reconcile.wait_with_output().unwrap();
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    let mut unverified = 0;
    for line in stdout_of(&out).lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let reference = row["row"]["reference"].as_str().unwrap();
        match row["result"].as_str() {
            Some("MATCHED") => assert!(!claimed.contains(&reference), "{line}"),
            Some("UNVERIFIED") => {
                assert!(
                    row["error"]
                        .as_str()
                        .unwrap()
                        .contains("the journal cannot say"),
                    "{line}"
                );
                unverified += 1;
            }
            other => panic!("{other:?}: {line}"),
        }
    }
    assert!(
        unverified >= 50,
        "{unverified}: the journal stopped too late to test"
    );
}

#[test]
fn a_journal_with_a_trigger_payverify_did_not_make_is_refused() {
    let dir = TempDir::new("journal-trigger");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-t"]);
    let conn = rusqlite::Connection::open(&journal).unwrap();
    // Would forget every claim as it is made: one payment could then pay for two orders.
    conn.execute_batch(
        "CREATE TRIGGER forget AFTER INSERT ON claims BEGIN DELETE FROM claims; END;",
    )
    .unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    refused(&journal, "a trigger forget payverify did not make");
}

#[test]
fn a_claims_table_rebuilt_without_its_key_is_refused() {
    let dir = TempDir::new("journal-rebuilt");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-k"]);
    let conn = rusqlite::Connection::open(&journal).unwrap();
    conn.execute_batch(
        "DROP TABLE claims; CREATE TABLE claims (account TEXT NOT NULL, payment TEXT NOT NULL, \
         \"order\" TEXT NOT NULL, merchant_ref TEXT, reference TEXT NOT NULL, command TEXT NOT \
         NULL, claimed_at TEXT NOT NULL);",
    )
    .unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    refused(&journal, "a table claims payverify did not make");
}

#[cfg(unix)]
#[test]
fn a_journal_in_a_directory_others_can_add_files_to_is_refused_sticky_or_not() {
    for mode in [0o1777, 0o777, 0o1733] {
        let dir = TempDir::new("journal-shared-dir");
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(mode)).unwrap();
        let journal = shared.join("journal.sqlite3");
        let out = run(&journal, &["verify", "--sandbox", "SANDBOX-OK-s"]);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{mode:o}: {stderr}");
        assert!(stderr.contains("who could put files beside it"), "{stderr}");
        assert_eq!(stdout_of(&out), "");
        // Refused before anything was made there.
        assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0, "{mode:o}");
    }
}

#[cfg(unix)]
#[test]
fn a_wal_file_beside_the_journal_that_others_can_write_is_refused() {
    let dir = TempDir::new("journal-wal");
    let journal = journal_in(&dir);
    run(&journal, &["verify", "--sandbox", "SANDBOX-OK-w"]);
    let conn = rusqlite::Connection::open(&journal).unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    let wal = dir.path().join("journal.sqlite3-wal");
    std::fs::write(&wal, b"").unwrap();
    std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused(&journal, "journal.sqlite3-wal beside it");
}

#[test]
fn history_escapes_what_the_service_put_in_every_cell() {
    let dir = TempDir::new("journal-escapes");
    let journal = journal_in(&dir);
    let mut server = mockito::Server::new();
    let body = r#"{"status":"SUCCESSFUL","code":"00","amount":100,"currencyCode":"N\u001b]0;x\u0007G","merchantRef":"M\u001b[2J","transactionRef":"T-E","paymentRef":"P\r1","paymentDate":"2026-11-30T10:00:00.000Z","hmac":"00"}"#;
    let _m = server
        .mock("GET", "/api/payment/verify/T-E")
        .with_body(body)
        .create();
    let out = payverify_at(&server.url())
        .env("PAYVERIFY_JOURNAL", &journal)
        .args(["verify", "T-E"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), None);
    for args in [
        &["history", "T-E"][..],
        &["history", "-o", "json", "T-E"][..],
    ] {
        let out = run(&journal, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        let stdout = stdout_of(&out);
        assert!(
            !stdout.contains(['\u{1b}', '\u{7}', '\r']),
            "{args:?}: {stdout:?}"
        );
    }
}

#[test]
fn a_sandbox_run_keeps_its_checks_where_the_profile_says_and_off_in_any_case_is_off() {
    let dir = TempDir::new("journal-profile");
    let kept = dir.path().join("from-profile.sqlite3");
    let config = dir.write(
        "config.toml",
        format!(
            "[profiles.default]\njournal = {:?}\n",
            kept.display().to_string()
        ),
    );
    let out = payverify()
        .env_remove("PAYVERIFY_JOURNAL")
        .env("PAYVERIFY_CONFIG", &config)
        .args(["verify", "--sandbox", "SANDBOX-OK-p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let (code, entries) = history_json(&kept, "SANDBOX-OK-p");
    assert_eq!((code, entries.len()), (Some(0), 1));
    // `OFF` is off, not a file named OFF in the working directory.
    for off in ["OFF", "Off", " off "] {
        let out = payverify()
            .current_dir(dir.path())
            .env("PAYVERIFY_JOURNAL", off)
            .args(["verify", "--sandbox", "SANDBOX-OK-p"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    }
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with("from-profile"))
        .collect();
    names.sort();
    assert_eq!(names, ["config.toml"]);
    // `--journal -` names no file.
    let out = payverify()
        .current_dir(dir.path())
        .args(["--journal", "-", "verify", "--sandbox", "SANDBOX-OK-p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    // Nor does it from the environment.
    let out = payverify()
        .current_dir(dir.path())
        .env("PAYVERIFY_JOURNAL", "-")
        .args(["verify", "--sandbox", "SANDBOX-OK-p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("not stdin or stdout"));
    assert!(!dir.path().join("-").exists());
}

/// Every column of a check, exactly: a column written under another's name, or left out,
/// fails here (the contract keys are checked above; this is all of them, for a check that
/// failed, so the failed checks, the message and the digest are filled).
#[test]
fn a_check_keeps_each_column_as_the_run_judged_it() {
    use sha2::Digest as _;
    let dir = TempDir::new("journal-columns");
    let journal = journal_in(&dir);
    let out = run(
        &journal,
        &["verify", "--sandbox", "--amount", "1", "SANDBOX-OK-c1"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr_of(&out));
    let (_, entries) = history_json(&journal, "SANDBOX-OK-c1");
    let mut entry = entries[0].clone();
    let checked_at = entry["checked_at"].take();
    assert!(
        checked_at.as_str().is_some_and(|t| t.ends_with('Z')),
        "{checked_at}"
    );
    let answer = entry["answer"].clone();
    let sha = sha2::Sha256::digest(serde_json::to_string(&answer).unwrap());
    let sha: String = sha.iter().map(|b| format!("{b:02x}")).collect();
    let failed = "expected amount ₦1.00 (100 kobo), service says ₦40,000.00 (4000000 kobo)";
    assert_eq!(
        entry,
        serde_json::json!({
            "reference": "SANDBOX-OK-c1",
            "checked_at": null,
            "command": "verify",
            "profile": null,
            "host": "sandbox",
            "outcome": "CHECK_FAILED",
            "result": null,
            "exit_code": 4,
            "status": "SUCCESSFUL",
            "code": "00",
            "amount_kobo": 4_000_000,
            "currency": "NGN",
            "merchant_ref": answer["merchantRef"],
            "transaction_ref": "SANDBOX-OK-c1",
            "payment_ref": answer["paymentRef"],
            "mode": "dev",
            "hmac": "valid",
            "failed_checks": [failed],
            "order": null,
            "message": failed,
            "answer": answer,
            "answer_sha256": sha,
        })
    );
    assert_eq!(entry["answer"]["transactionRef"], "SANDBOX-OK-c1");
}
