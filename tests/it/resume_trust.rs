//! What `--resume` trusts: a record is carried only under this run's seal, judged by this
//! run's checks (its fingerprint), and a SUCCESSFUL one only with the hmac it was found to
//! have valid.
//! Every forged or foreign record here is asked again, and the service's real answer
//! (FAILED) decides the exit status, never the file.

use crate::common::{
    RawServer, SAMPLE, SECRET, TempDir, payverify_at, read_head, respond, stderr_of, stdout_of,
};

/// The reference of the signed sample response.
const REF: &str = "0000000000000044177";

/// The sample answered as FAILED: what the service says when it is asked again.
fn failed_body() -> String {
    SAMPLE
        .replace("\"SUCCESSFUL\"", "\"FAILED\"")
        .replace("\"00\"", "\"51\"")
}

fn serve(body: String) -> RawServer {
    RawServer::start(move |mut stream| {
        read_head(&mut stream);
        respond(&mut stream, "200 OK", body.as_bytes());
    })
}

/// The checks both runs make: a record is carried only under the checks that judged it.
const CHECKS: [&str; 4] = ["--hmac", "require", "--expect-amount", "40000"];

/// The genuine jsonl record of the signed sample, as `verify -o jsonl` wrote it.
fn genuine_record(dir: &TempDir) -> String {
    let paid = serve(SAMPLE.clone());
    let out = payverify_at(&paid.url)
        .current_dir(dir.path())
        .args(["verify", REF, "-", "-o", "jsonl"])
        .args(CHECKS)
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let record = stdout_of(&out);
    assert_eq!(record.lines().count(), 1, "{record}");
    assert!(record.contains("\"integrity\":\"hmac valid\""), "{record}");
    record
}

/// Resumes from `file` against a service that says FAILED: (exit, requests made, stderr).
fn resume_against_failed(dir: &TempDir, file: &str, secret: &str) -> (Option<i32>, usize, String) {
    let failed = serve(failed_body());
    dir.write("refs.txt", format!("{REF}\n"));
    let out = payverify_at(&failed.url)
        .env("PAYVERIFY_CLIENT_SECRET", secret)
        .current_dir(dir.path())
        .args([
            "verify", "--from", "refs.txt", "-o", "jsonl", "--resume", file,
        ])
        .args(CHECKS)
        .output()
        .unwrap();
    let requests = failed.connections.load(std::sync::atomic::Ordering::SeqCst);
    (out.status.code(), requests, stderr_of(&out))
}

#[test]
fn a_genuine_record_is_carried_and_every_forgery_of_it_is_asked_again() {
    let dir = TempDir::new("resume-forged");
    let genuine = genuine_record(&dir);
    dir.write("genuine.jsonl", &genuine);
    // The control: the untouched record is carried, nothing asked, exit 0. Without it the
    // cases below could pass by asking everything.
    let (exit, requests, stderr) = resume_against_failed(&dir, "genuine.jsonl", SECRET);
    assert_eq!((exit, requests), (Some(0), 0), "{stderr}");

    let hmac = genuine
        .split("\"hmac\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let forgeries = [
        ("zero hmac", genuine.replace(&hmac, &"0".repeat(64))),
        (
            "no hmac",
            genuine.replace(&format!("\"hmac\":\"{hmac}\","), ""),
        ),
        (
            "approval code 05",
            genuine.replace("\"code\":\"00\"", "\"code\":\"05\""),
        ),
        (
            "amount raised (the hmac covers it)",
            genuine.replace("\"amount\":4000000", "\"amount\":4000001"),
        ),
        (
            "a bare success naming no reference",
            format!(
                "{}\"response\":{{\"status\":\"SUCCESSFUL\",\"code\":\"00\"}}}}\n",
                genuine.split("\"response\":").next().unwrap()
            ),
        ),
    ];
    for (what, forged) in forgeries {
        assert_ne!(forged, genuine, "{what}: the forgery changed nothing");
        dir.write("forged.jsonl", &forged);
        let (exit, requests, stderr) = resume_against_failed(&dir, "forged.jsonl", SECRET);
        assert_eq!(
            (exit, requests),
            (Some(1), 1),
            "{what}: must be asked again and end FAILED: {stderr}"
        );
        assert!(
            stderr.contains("1 final records of the --resume file were asked again"),
            "{what}: {stderr}"
        );
    }

    // A key given twice (here the response's status) is not asked again but refused: no
    // payverify output has one, and readers differ on which of the two counts.
    dir.write(
        "twice.jsonl",
        genuine.replace(
            "\"status\":\"SUCCESSFUL\"",
            "\"status\":\"FAILED\",\"status\":\"SUCCESSFUL\"",
        ),
    );
    let (exit, requests, stderr) = resume_against_failed(&dir, "twice.jsonl", SECRET);
    assert_eq!((exit, requests), (Some(2), 0), "{stderr}");
    assert!(
        stderr.starts_with("payverify: --resume twice.jsonl: line 1 has the key \"status\" twice"),
        "{stderr}"
    );

    // The record relabelled for another reference: its response still answers for the
    // first, so it is not this reference's answer.
    dir.write(
        "relabelled.jsonl",
        genuine.replace(
            &format!("\"reference\":\"{REF}\""),
            "\"reference\":\"0000000000000099999\"",
        ),
    );
    let failed = serve(failed_body());
    dir.write("other.txt", "0000000000000099999\n");
    let out = payverify_at(&failed.url)
        .current_dir(dir.path())
        .args(["verify", "--from", "other.txt", "-o", "jsonl", "--resume"])
        .arg("relabelled.jsonl")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(
        failed.connections.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[test]
fn a_record_signed_under_another_secret_is_asked_again() {
    // The sandbox's output, or another profile's, resumed against this service: the hmac
    // does not hold under this run's secret, so the record proves nothing here.
    let dir = TempDir::new("resume-other-secret");
    dir.write("genuine.jsonl", genuine_record(&dir));
    let (exit, requests, stderr) =
        resume_against_failed(&dir, "genuine.jsonl", "another-secret-Qw7x9");
    assert_eq!((exit, requests), (Some(1), 1), "{stderr}");
}

#[test]
fn a_second_record_for_a_reference_makes_the_file_foreign() {
    let dir = TempDir::new("resume-twice");
    let genuine = genuine_record(&dir);
    let unavailable = format!(
        "{{\"reference\":\"{REF}\",\"outcome\":\"UNAVAILABLE\",\"exit_code\":7,\"http_status\":null,\"error\":\"x\",\"checks\":null,\"response\":null}}\n"
    );
    for (name, text) in [
        ("after.jsonl", format!("{unavailable}{genuine}")),
        ("before.jsonl", format!("{genuine}{unavailable}")),
        (
            "key-twice.jsonl",
            genuine.replacen("{", &format!("{{\"reference\":\"{REF}\","), 1),
        ),
    ] {
        dir.write(name, &text);
        let (exit, requests, stderr) = resume_against_failed(&dir, name, SECRET);
        assert_eq!((exit, requests), (Some(2), 0), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.starts_with(&format!("payverify: --resume {name}: line ")),
            "{stderr}"
        );
    }
}

#[test]
fn a_record_with_a_long_genuine_response_is_resumable() {
    // A FAILED answer whose description is 170,000 control characters: a 1 MB body, under
    // the body limit, but its record (the response, and the error quoting it escaped) is
    // about 2 MB. A genuine file is never refused for its length.
    let dir = TempDir::new("resume-long");
    let long = failed_body().replace(
        "Approved by Financial Institution",
        &"\\u0001".repeat(170_000),
    );
    let service = serve(long);
    let first = payverify_at(&service.url)
        .current_dir(dir.path())
        .args(["verify", REF, "-", "-o", "jsonl"])
        .args(CHECKS)
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(1), "{}", stderr_of(&first));
    assert!(first.stdout.len() > 1 << 20, "{}", first.stdout.len());
    dir.write("long.jsonl", &first.stdout);
    let (exit, requests, stderr) = resume_against_failed(&dir, "long.jsonl", SECRET);
    assert_eq!((exit, requests), (Some(1), 0), "{stderr}");
}

#[test]
fn an_edited_failed_record_or_a_relabelled_paid_one_is_asked_again() {
    // The gateway's hmac signs merchantRef, currency and amount only: a FAILED record's
    // status and code flipped, or a paid record moved to another reference with its
    // transactionRef, still carries a valid hmac. payverify's seal over the whole record
    // is what these edits break.
    let dir = TempDir::new("resume-status-flip");
    let refused = serve(failed_body());
    let out = payverify_at(&refused.url)
        .current_dir(dir.path())
        .args(["verify", REF, "-", "-o", "jsonl"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let failed = stdout_of(&out);
    let flipped = failed
        .replace(
            "\"outcome\":\"FAILED\",\"exit_code\":1",
            "\"outcome\":\"SUCCESSFUL\",\"exit_code\":0",
        )
        .replace("\"status\":\"FAILED\"", "\"status\":\"SUCCESSFUL\"")
        .replace("\"code\":\"51\"", "\"code\":\"00\"");
    let flipped = {
        // The error a FAILED record carries, gone as from a SUCCESSFUL one.
        let start = flipped.find("\"error\":\"").unwrap();
        let end = start + flipped[start + 9..].find('"').unwrap() + 10;
        format!("{}\"error\":null{}", &flipped[..start], &flipped[end..])
    };
    assert!(
        flipped.contains("\"outcome\":\"SUCCESSFUL\"") && flipped.contains("\"error\":null"),
        "{flipped}"
    );
    dir.write("flipped.jsonl", &flipped);
    let (exit, requests, stderr) = resume_against_failed(&dir, "flipped.jsonl", SECRET);
    assert_eq!((exit, requests), (Some(1), 1), "{stderr}");

    let other = "0000000000000099999";
    let relabelled = genuine_record(&dir).replace(REF, other);
    dir.write("moved.jsonl", &relabelled);
    dir.write("other.txt", format!("{other}\n"));
    let service = serve(failed_body().replace(REF, other));
    let out = payverify_at(&service.url)
        .current_dir(dir.path())
        .args([
            "verify",
            "--from",
            "other.txt",
            "-o",
            "jsonl",
            "--resume",
            "moved.jsonl",
        ])
        .args(["--hmac", "require", "--expect-amount", "40000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(
        service
            .connections
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}
