//! The files around the verdict (issue 23): every write atomic or refused, no output
//! replacing an input, every read bounded, `--ca-cert` checked at start. Each test runs the
//! real binary and checks the exit status, stdout, stderr and the files left, byte for byte.
//!
//! A few cases need root (another user's file, `mknod`, running as another user): CI runs
//! as root and must run them; elsewhere they say on stderr that they were skipped.

use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Whether the test may do what only root can; in CI (which runs as root) it must.
fn root_or_skip(what: &str) -> bool {
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} needs root, and CI runs as root: this test must run there"
    );
    eprintln!("SKIPPED (needs root): {what}");
    false
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// The names in `dir`, sorted: a temporary file left behind shows up here.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A config file with two profiles, the last line the one a cut would lose.
const CONFIG: &str = "default_profile = \"live\"\n\n[profiles.live]\nbase_url = \
\"https://paywithbank3d.com\"\nclient_id = \"pk_live\"\nclient_secret_file = \
\"/etc/payverify/live.secret\"\n\n[profiles.shop]\nbase_url = \"https://paywithbank3d.com\"\n\
client_id = \"pk_shop\"\nhmac = \"require\"\n";

/// Asserts the usual shape of a refusal: `code`, nothing on stdout, one `payverify:` line
/// on stderr holding every one of `says`.
fn assert_refused(out: &Output, code: i32, says: &[&str]) {
    let stderr = stderr_of(out);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert_eq!(stdout_of(out), "", "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("payverify: "), "{stderr}");
    for want in says {
        assert!(stderr.contains(want), "missing {want:?}: {stderr}");
    }
}

// ---- 1. config init and a shared file it cannot own --------------------------------------

#[test]
fn item1_config_init_never_empties_or_takes_over_a_shared_file() {
    if !root_or_skip("a group-writable config owned by another user") {
        return;
    }
    let dir = TempDir::new("shared-config");
    let config = dir.write("config.toml", CONFIG);
    // Owned by uid 1000, group-writable for nogroup (65534): what a team's shared file is.
    std::os::unix::fs::chown(&config, Some(1000), Some(65534)).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o664)).unwrap();
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let init = [
        "config",
        "init",
        "--profile",
        "new",
        "--client-id",
        "pk_new",
        "--config",
    ];
    // A member of the group: it can write the file but not chmod it (the reported case:
    // exit 6 with every profile gone).
    let member = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(bin)
        .args(init)
        .arg(&config)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    // Root could replace it, and the file would be root's from then on.
    let root = payverify().args(init).arg(&config).output().unwrap();
    for out in [member, root] {
        assert_refused(&out, 6, &["config.toml", "another user (uid 1000)"]);
        assert_eq!(std::fs::read_to_string(&config).unwrap(), CONFIG);
        let meta = std::fs::metadata(&config).unwrap();
        assert_eq!(
            (meta.uid(), meta.gid(), mode(&config)),
            (1000, 65534, 0o664)
        );
        assert_eq!(names(dir.path()), ["config.toml"]);
    }
}

// ---- 2. config init on a full disk ---------------------------------------------------------

#[test]
fn item2_config_init_on_a_full_disk_leaves_the_old_file_byte_for_byte() {
    let dir = TempDir::new("full-disk");
    let config = dir.write("config.toml", CONFIG);
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let long_id = "k".repeat(6000);
    let path = config.to_str().unwrap();
    let init = [
        "config",
        "init",
        "--profile",
        "staging",
        "--client-id",
        &long_id,
        "--config",
        path,
    ];
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    // Files may grow to 4 KiB, and a write past that fails (EFBIG, as ENOSPC would) instead
    // of killing the process: the disk is full.
    let out = Command::new("bash")
        .args(["-c", "trap '' XFSZ; ulimit -f 4; exec \"$0\" \"$@\""])
        .arg(bin)
        .args(init)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    assert_refused(&out, 6, &["cannot write", "config.toml", "File too large"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CONFIG);
    assert_eq!(names(dir.path()), ["config.toml"], "no temporary file left");

    // With room on the disk the same command works, and the file it leaves parses whole.
    let out = payverify().args(init).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with(CONFIG),
        "the old profiles are kept as they were"
    );
    let profiles = payverify()
        .args(["config", "profiles", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(stdout_of(&profiles), "live (default)\nshop\nstaging\n");
    assert_eq!(mode(&config), 0o600);
    assert_eq!(names(dir.path()), ["config.toml"]);
}

#[test]
fn item2_config_init_in_a_read_only_directory_leaves_the_file_byte_for_byte() {
    let dir = TempDir::new("ro-dir");
    let sub = dir.path().join("conf");
    std::fs::create_dir(&sub).unwrap();
    let config = sub.join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let mut cmd = match nix::unistd::geteuid().is_root() {
        // Root writes anywhere: the run is another user's, whose file it is, in a
        // directory that user cannot write.
        true => {
            std::os::unix::fs::chown(&config, Some(65534), Some(65534)).unwrap();
            std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
            let mut cmd = Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(bin);
            cmd
        }
        false => {
            std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
            Command::new(bin)
        }
    };
    let out = cmd
        .args(["config", "init", "--profile", "new", "--config"])
        .arg(&config)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_refused(&out, 6, &["config.toml", "directory", "permission denied"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CONFIG);
    assert_eq!(names(&sub), ["config.toml"]);
}

// ---- 3. config init and what is not a regular file ---------------------------------------

#[test]
fn item3_config_init_refuses_a_pipe_and_a_symlink_before_touching_them() {
    let dir = TempDir::new("init-kinds");
    // A named pipe: reading or writing it would block; it is refused at once.
    let fifo = dir.path().join("pipe.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let out = payverify()
        .args(["config", "init", "--force", "--config"])
        .arg(&fifo)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_refused(&out, 6, &["pipe.toml", "named pipe"]);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(mode(&fifo), 0o644);

    // A symlink: neither written nor chmodded through.
    let real = dir.write("real.toml", CONFIG);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("link.toml");
    std::os::unix::fs::symlink("real.toml", &link).unwrap();
    let out = payverify()
        .args(["config", "init", "--profile", "new", "--config"])
        .arg(&link)
        .output()
        .unwrap();
    assert_refused(&out, 6, &["link.toml", "symbolic link"]);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), CONFIG);
    assert_eq!(mode(&real), 0o644);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(names(dir.path()), ["link.toml", "pipe.toml", "real.toml"]);
}

#[test]
fn item3_config_init_never_chmods_a_device() {
    if !root_or_skip("mknod of a /dev/null copy") {
        return;
    }
    let dir = TempDir::new("init-device");
    let null = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::set_permissions(&null, std::fs::Permissions::from_mode(0o666)).unwrap();
    let link = dir.path().join("to-null");
    std::os::unix::fs::symlink(&null, &link).unwrap();
    for (path, why) in [(&null, "device"), (&link, "symbolic link")] {
        let out = payverify()
            .args(["config", "init", "--force", "--config"])
            .arg(path)
            .output()
            .unwrap();
        assert_refused(&out, 6, &[&path.display().to_string(), why]);
        let meta = std::fs::metadata(&null).unwrap();
        assert!(meta.file_type().is_char_device());
        assert_eq!(mode(&null), 0o666, "{path:?}");
    }
}

// ---- 4. --summary-json never replaces an input -------------------------------------------

#[test]
fn item4_summary_json_refuses_every_input_and_stderr_before_any_request() {
    let server = KeepAliveServer::start(|_, _| ("200 OK".into(), vec![], SAMPLE.clone()));
    let dir = TempDir::new("summary-inputs");
    dir.write(
        "orders.csv",
        "reference,amount\n0000000000000044177,40000\n",
    );
    let secret = dir.write("secret.txt", format!("{SECRET}\n"));
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    dir.write(
        "config.toml",
        format!(
            "[profiles.p]\nbase_url = \"{}\"\nclient_id = \"{CLIENT_ID}\"\n",
            server.url
        ),
    );
    let reconcile = |extra: &[&str], stderr: Stdio| {
        Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
            .current_dir(dir.path())
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .args(["--config", "config.toml", "--profile", "p"])
            .args(["--client-secret-file", "secret.txt"])
            .args(["reconcile", "-o", "jsonl", "orders.csv"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .output()
            .unwrap()
    };
    let first = reconcile(&[], Stdio::piped());
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let run1 = dir.write("run1.jsonl", &first.stdout);
    let asked = server.requests.lock().unwrap().len();
    assert_eq!(asked, 1);

    std::os::unix::fs::symlink("fresh.json", dir.path().join("dangling.json")).unwrap();
    std::os::unix::fs::symlink("orders.csv", dir.path().join("orders-link.json")).unwrap();
    let before: Vec<(String, Vec<u8>, u32)> = names(dir.path())
        .into_iter()
        .map(|name| {
            let path = dir.path().join(&name);
            (name, std::fs::read(&path).unwrap_or_default(), mode(&path))
        })
        .collect();
    let cases: [(&str, &[&str], &str); 6] = [
        (
            "run1.jsonl",
            &["--resume", "run1.jsonl"],
            "the --resume file this run reads",
        ),
        ("secret.txt", &[], "the client secret file this run reads"),
        ("config.toml", &[], "the config file this run reads"),
        ("orders-link.json", &[], "the orders file this run reads"),
        ("./orders.csv", &[], "the orders file this run reads"),
        ("dangling.json", &[], "symbolic link"),
    ];
    for (target, extra, why) in cases {
        let mut args = extra.to_vec();
        args.extend(["--summary-json", target]);
        let out = reconcile(&args, Stdio::piped());
        assert_refused(&out, 2, &[&format!("--summary-json {target}"), why]);
    }
    // stderr going to a file: the summary would land among (or replace) the messages.
    let err = dir.path().join("err.txt");
    let out = reconcile(
        &["--summary-json", "err.txt"],
        Stdio::from(std::fs::File::create(&err).unwrap()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout_of(&out), "");
    let logged = std::fs::read_to_string(&err).unwrap();
    assert!(
        logged
            .starts_with("payverify: cannot write --summary-json err.txt: it is where stderr goes")
            && logged.lines().count() == 1,
        "{logged}"
    );
    std::fs::remove_file(&err).unwrap();

    assert_eq!(server.requests.lock().unwrap().len(), asked, "no request");
    let after: Vec<(String, Vec<u8>, u32)> = names(dir.path())
        .into_iter()
        .map(|name| {
            let path = dir.path().join(&name);
            (name, std::fs::read(&path).unwrap_or_default(), mode(&path))
        })
        .collect();
    assert_eq!(after, before, "every file as it was, and nothing new");
    assert_eq!(std::fs::read(&run1).unwrap(), first.stdout);
    assert!(
        std::fs::symlink_metadata(dir.path().join("dangling.json"))
            .unwrap()
            .is_symlink()
    );

    // The control: a new name works, and is a regular file with the summary.
    let out = reconcile(&["--summary-json", "sum.json"], Stdio::piped());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let summary = std::fs::read_to_string(dir.path().join("sum.json")).unwrap();
    assert!(summary.contains("\"rows\": 1"), "{summary}");
}

// ---- 6. Every read is bounded -------------------------------------------------------------

/// Waits up to `limit` for `child` to end; kills it and fails the test when it does not.
fn ends_within(mut child: Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            let (_, stderr) = status_and_stderr(child);
            return (status, stderr);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("still running after {limit:?}");
}

fn fifo_in(dir: &TempDir, name: &str) -> std::path::PathBuf {
    let path = dir.path().join(name);
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    path
}

#[test]
fn item6_devices_and_named_pipes_are_refused_before_they_are_opened() {
    let dir = TempDir::new("read-kinds");
    let fifo = fifo_in(&dir, "pipe");
    let fifo = fifo.to_str().unwrap();
    let resume_args = ["verify", "--sandbox", "-o", "jsonl", "X", "Y", "--resume"];
    for path in ["/dev/zero", fifo] {
        let why = match path {
            "/dev/zero" => "it is a device, not a regular file",
            _ => "it is a named pipe (FIFO), not a regular file",
        };
        let cases: [(Vec<&str>, i32, String); 4] = [
            (
                vec!["--client-secret-file", path, "verify", "X"],
                6,
                format!("cannot read client secret file {path}: {why}"),
            ),
            (
                vec!["--config", path, "verify", "X"],
                6,
                format!("cannot read config file {path}: {why}"),
            ),
            (
                vec!["verify", "X", "--ca-cert", path],
                6,
                format!("CA file {path}: {why}"),
            ),
            (
                [&resume_args[..], &[path]].concat(),
                2,
                format!("--resume {path}: {why}"),
            ),
        ];
        for (args, code, says) in cases {
            let out = payverify_at("https://gateway.example")
                .args(&args)
                .timeout(Duration::from_secs(20))
                .output()
                .unwrap();
            assert_refused(&out, code, &[&says]);
        }
    }
    // Where a stream is read, a device is still refused.
    for args in [
        ["verify", "--sandbox", "--from", "/dev/zero"],
        ["reconcile", "--sandbox", "--all", "/dev/zero"],
    ] {
        let out = payverify()
            .args(args)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert_refused(&out, 2, &["/dev/zero: it is a device, not a regular file"]);
    }
    assert!(std::fs::metadata(fifo).unwrap().file_type().is_fifo());
}

#[test]
fn item6_one_sigterm_ends_a_run_given_a_named_pipe() {
    let dir = TempDir::new("fifo-term");
    // --ca-cert names a pipe nobody writes: refused at once, never a hang in open().
    let ca = fifo_in(&dir, "ca.pem");
    let child = spawnable()
        .args(["verify", "--sandbox", "X", "--ca-cert"])
        .arg(&ca)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // It ends by itself (a hang in open() would be "still running"); no signal is needed, and
    // one sent at a fixed time could land during start-up on a loaded machine.
    let (status, stderr) = ends_within(child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("named pipe"), "{stderr}");

    // A list of references from a pipe is read like stdin (`--from <(command)`), and a
    // writer that holds it open and writes no more does not keep one SIGTERM from ending
    // the run, with 130, the first reference's record written.
    let refs = fifo_in(&dir, "refs");
    let mut writer = Command::new("bash")
        .arg("-c")
        .arg("exec 3>\"$0\"; printf 'SANDBOX-OK-1\\n' >&3; exec sleep 30")
        .arg(&refs)
        .spawn()
        .unwrap();
    let mut child = spawnable()
        .args(["verify", "--sandbox", "-o", "jsonl", "--from"])
        .arg(&refs)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let first = read_lines(&mut stdout, 1);
    assert!(first[0].contains("\"SANDBOX-OK-1\""), "{first:?}");
    send_signal(&child, "-TERM");
    let (status, stderr) = ends_within(child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(130), "{stderr}");
    writer.kill().unwrap();
    writer.wait().unwrap();

    // A named pipe whose writer comes after payverify opened it: read once it writes.
    let late = fifo_in(&dir, "late");
    let child = spawnable()
        .args(["verify", "--sandbox", "-o", "csv", "--from"])
        .arg(&late)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Without blocking (an open for writing fails while no reader has the pipe open): a run
    // that never holds the pipe open fails here once the wait runs out, not hangs.
    // The first open that succeeds is kept: closing it would be the writer's end of input.
    let mut opened = None;
    wait_until(
        "payverify to hold the pipe open, waiting for its writer",
        || {
            opened = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
                .open(&late)
                .ok();
            opened.is_some()
        },
    );
    let mut pipe = opened.unwrap();
    std::io::Write::write_all(&mut pipe, b"SANDBOX-OK-9\n").unwrap();
    drop(pipe);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("\nSANDBOX-OK-9,SUCCESSFUL,"),
        "{}",
        stdout_of(&out)
    );

    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let out = Command::new("bash")
        .arg("-c")
        .arg("\"$0\" verify --sandbox -o csv --from <(printf 'SANDBOX-OK-1\\nSANDBOX-OK-2\\n')")
        .arg(bin)
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out).lines().count(), 3);
}

#[test]
fn item6_every_input_has_a_cap_named_when_it_is_passed() {
    let dir = TempDir::new("caps");
    // Sparse files: as large as the cap and one byte, on no disk space.
    let sparse = |name: &str, len: u64| {
        let path = dir.path().join(name);
        std::fs::File::create(&path).unwrap().set_len(len).unwrap();
        path.display().to_string()
    };
    let config = sparse("config.toml", (1 << 20) + 1);
    let secret = sparse("secret", (64 << 10) + 1);
    let ca = sparse("ca.pem", (4 << 20) + 1);
    let refs = sparse("refs.txt", (1 << 30) + 1);
    let orders = sparse("orders.csv", (1 << 30) + 1);
    let resume = sparse("run.jsonl", (4 << 30) + 1);
    let payload = sparse("payload.json", (1 << 20) + 1);
    let cases: [(Vec<&str>, i32, String); 7] = [
        (
            vec!["--config", &config, "verify", "X"],
            6,
            format!("config file {config}: it is larger than 1 MiB, the cap for the config file"),
        ),
        (
            vec!["--client-secret-file", &secret, "verify", "X"],
            6,
            format!("{secret}: it is larger than 64 KiB, the cap for the client secret file"),
        ),
        (
            vec!["verify", "X", "--ca-cert", &ca],
            6,
            format!("{ca}: it is larger than 4 MiB, the cap for the CA file"),
        ),
        (
            vec!["verify", "--sandbox", "--from", &refs],
            2,
            format!("{refs}: it is larger than 1 GiB, the cap for the list of references"),
        ),
        (
            vec!["reconcile", "--sandbox", &orders],
            2,
            format!("{orders}: it is larger than 1 GiB, the cap for the orders file"),
        ),
        (
            vec![
                "verify",
                "--sandbox",
                "-o",
                "jsonl",
                "X",
                "--resume",
                &resume,
            ],
            2,
            format!("{resume}: it is larger than 4 GiB, the cap for the --resume file"),
        ),
        (
            vec!["webhook", "check", &payload],
            8,
            format!("{payload}: it is larger than 1 MiB, the cap for the webhook payload"),
        ),
    ];
    for (args, code, says) in cases {
        let out = payverify_at("https://gateway.example")
            .args(&args)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert_refused(&out, code, &[&says]);
    }
}

// ---- 7. --ca-cert is checked at start -----------------------------------------------------

#[test]
fn item7_a_ca_file_that_is_not_x509_or_not_pem_is_one_readable_line_before_any_request() {
    let server = RawServer::start(|_| {});
    let url = server.url.replace("http://", "https://");
    let dir = TempDir::new("ca-bad");
    let garbage = dir.write(
        "garbage.pem",
        "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGUgYXQgYWxs\n-----END CERTIFICATE-----\n",
    );
    let real = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/test-root-ca.pem"),
    )
    .unwrap();
    // A good certificate, then one cut short of its END line.
    let unended = dir.write(
        "unended.pem",
        format!("{real}-----BEGIN CERTIFICATE-----\nMIIB\n"),
    );
    let bad_begin = dir.write(
        "begin.pem",
        format!("{real}-----BEGIN CERTIFICATE----\nMIIB\n"),
    );
    let cases = [
        (&garbage, "certificate 1 is not a valid X.509 certificate"),
        (
            &unended,
            "not valid PEM: a \"CERTIFICATE\" block has no END line",
        ),
        (
            &bad_begin,
            &*format!("line {}: a BEGIN line", real.lines().count() + 1),
        ),
    ];
    for (file, says) in cases {
        let out = payverify_at(&url)
            .args(["verify", "0000000000000044177", "--ca-cert"])
            .arg(file)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        assert_refused(&out, 6, &[&format!("CA file {}", file.display()), says]);
        // Bytes are never shown as arrays of numbers.
        assert!(!stderr_of(&out).contains("[45, 45"), "{}", stderr_of(&out));
    }
    assert_eq!(
        server.connections.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
}

#[test]
fn item4_an_input_that_is_where_stdout_goes_is_refused_before_it_is_read() {
    let dir = TempDir::new("input-is-stdout");
    let refs = dir.write("refs.txt", "SANDBOX-OK-1\n");
    let orders = dir.write("orders.csv", "reference,amount\nSANDBOX-OK-1,40000\n");
    let config = dir.write("config.toml", CONFIG);
    let cases: [(&Path, Vec<&std::ffi::OsStr>); 3] = [
        (
            &refs,
            ["verify", "--sandbox", "-o", "jsonl", "--from"]
                .map(std::ffi::OsStr::new)
                .into_iter()
                .chain([refs.as_os_str()])
                .collect(),
        ),
        (
            &orders,
            ["reconcile", "--sandbox", "-o", "csv"]
                .map(std::ffi::OsStr::new)
                .into_iter()
                .chain([orders.as_os_str()])
                .collect(),
        ),
        (
            &config,
            [std::ffi::OsStr::new("--config"), config.as_os_str()]
                .into_iter()
                .chain(["config", "show"].map(std::ffi::OsStr::new))
                .collect(),
        ),
    ];
    for (input, args) in cases {
        let before = std::fs::read(input).unwrap();
        // `payverify ... >> INPUT`: what it writes would be read back as more input.
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .args(&args)
            .stdin(Stdio::null())
            .stdout(
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(input)
                    .unwrap(),
            )
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, stderr) = ends_within(out, Duration::from_secs(20));
        assert_eq!(status.code(), Some(2), "{input:?}: {stderr}");
        assert!(
            stderr.contains("is also where this run's output goes (stdout)")
                && stderr.contains(&input.display().to_string())
                && stderr.lines().count() == 1,
            "{stderr}"
        );
        assert_eq!(std::fs::read(input).unwrap(), before, "{input:?}");
    }
}
