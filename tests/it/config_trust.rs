//! Issue 36, item 2: a file payverify obeys (the config file, a client secret file, a CA
//! file) is refused, exit 6 naming the file and the fix, when anyone but the invoking user
//! and root can change it: another user owns it, its group or everyone can write it, or
//! they can write the directory holding it (and so put another file in its place). As ssh
//! refuses its own config files. A hostile config's `client_secret_command` never runs.
//!
//! "Another user" needs root to make (chown); CI runs as root. Every other case runs as
//! whoever runs the tests.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::gateway::{Gateway, Txn};
use crate::common::{SECRET, TempDir, payverify, stderr_of};

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether these tests run as root, who can give a file to another user.
fn root() -> bool {
    nix_uid() == 0
}

fn nix_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    // The owner of a file this process just made is its effective uid.
    let dir = TempDir::new("whoami");
    let path = dir.write("f", "");
    std::fs::metadata(path).unwrap().uid()
}

/// `nobody`, an unprivileged user other than the one running the tests.
const OTHER_UID: u32 = 65534;

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), None).unwrap();
}

/// Gives `path` to the group `gid` (`nogroup` as [`OTHER_UID`]'s number), root only.
fn chgrp(path: &Path, gid: u32) {
    std::os::unix::fs::chown(path, None, Some(gid)).unwrap();
}

/// The hostile config of the issue: the test gateway as base URL, and a secret command
/// that leaves a mark when it runs and prints the secret the gateway signs with.
fn hostile_config(dir: &Path, base_url: &str) -> std::path::PathBuf {
    let mark = dir.join("command-ran");
    let _ = std::fs::remove_file(&mark);
    let config = format!(
        "[profiles.default]\nbase_url = \"{base_url}\"\nclient_id = \"test-client\"\n\
         expect_mode = \"live\"\nclient_secret_command = [\"sh\", \"-c\", \"touch '{}'; echo {SECRET}\"]\n",
        mark.display()
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, config).unwrap();
    chmod(&path, 0o600);
    path
}

/// `payverify --config CONFIG gate` for the order the test gateway holds, with `--` before
/// the reference.
fn gate_command(config: &Path) -> assert_cmd::Command {
    let mut command = payverify();
    command
        .args(["--config", config.to_str().unwrap()])
        .args([
            "gate",
            "--amount",
            "40000",
            "--merchant-ref",
            "M-ANY-REFERENCE",
        ])
        .args(["--", "ANY-REFERENCE"]);
    command
}

fn gate(config: &Path) -> std::process::Output {
    gate_command(config).output().unwrap()
}

/// A way to spoil a config: its name, what does it, and what the refusal must say (why,
/// and the fix).
type Case<'a> = (&'a str, Box<dyn Fn() + 'a>, String, String);

#[test]
fn a_config_others_can_change_is_refused_before_its_command_runs() {
    let gateway = Gateway::start(&[Txn::paid("ANY-REFERENCE", 4_000_000)]);
    let dir = TempDir::new("config-trust");
    let sub = dir.path().join("conf");
    std::fs::create_dir(&sub).unwrap();
    chmod(&sub, 0o755);
    // The differential twin: the same config, only the invoking user able to change it,
    // is obeyed (exit 0, the command ran).
    let config = hostile_config(&sub, &gateway.url);
    let out = gate(&config);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(sub.join("command-ran").exists());

    let shown = config.display().to_string();
    let dir_shown = sub.display().to_string();
    let mut cases: Vec<Case> = vec![
        (
            "world-writable",
            Box::new(|| chmod(&config, 0o606)),
            "it can be written by everyone (mode 606)".into(),
            format!("run: chmod go-w {shown}"),
        ),
        (
            "its directory world-writable",
            Box::new(|| chmod(&sub, 0o777)),
            format!(
                "the directory holding it, {dir_shown}, can be written by everyone (mode 777), \
                 so another file can be put in its place"
            ),
            format!("run: chmod go-w {dir_shown}"),
        ),
    ];
    // A group other than the user's own (whose one member is the user, as Debian gives
    // every user, and which is let be) needs root to give a file to.
    if root() {
        cases.push((
            "group-writable",
            Box::new(|| {
                chgrp(&config, OTHER_UID);
                chmod(&config, 0o620);
            }),
            "it can be written by its group (mode 620)".into(),
            format!("run: chmod go-w {shown}"),
        ));
        cases.push((
            "its directory group-writable",
            Box::new(|| {
                chgrp(&sub, OTHER_UID);
                chmod(&sub, 0o775);
            }),
            format!("the directory holding it, {dir_shown}, can be written by its group"),
            format!("run: chmod go-w {dir_shown}"),
        ));
        cases.push((
            "owned by another user",
            Box::new(|| chown(&config, OTHER_UID)),
            format!("it is owned by another user (uid {OTHER_UID}), who can change it"),
            "use a copy of your own".into(),
        ));
        cases.push((
            "its directory owned by another user",
            Box::new(|| chown(&sub, OTHER_UID)),
            format!("the directory holding it, {dir_shown}, is owned by another user"),
            "use a copy of your own".into(),
        ));
    } else {
        eprintln!("SKIPPED (needs root to chown): a config of another user or group");
    }
    for (case, spoil, why, fix) in cases {
        let config = hostile_config(&sub, &gateway.url);
        chmod(&sub, 0o755);
        chown(&sub, nix_uid());
        spoil();
        let out = gate(&config);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{case}: {stderr}");
        assert!(
            stderr.starts_with(&format!("payverify: cannot read config file {shown}: ")),
            "{case}: {stderr}"
        );
        assert!(
            stderr.contains(&why) && stderr.contains(&fix),
            "{case}: {stderr}"
        );
        assert!(
            !sub.join("command-ran").exists(),
            "{case}: the hostile command ran"
        );
        // doctor says so, as a failed check, with the same exit.
        let out = payverify()
            .args(["--config", config.to_str().unwrap(), "doctor"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(6), "{case}: doctor: {stdout}");
        assert!(stdout.contains("FAIL"), "{case}: doctor: {stdout}");
        assert!(
            !sub.join("command-ran").exists(),
            "{case}: the hostile command ran under doctor"
        );
        chown(&config, nix_uid());
    }
    chmod(&sub, 0o755);
}

/// A secret file and a CA file named by the config are refused the same way; a sticky
/// directory such as /tmp, where others may add files but not replace this user's, and a
/// file the user alone can write are not.
#[test]
fn a_secret_or_ca_file_others_can_write_is_refused() {
    let dir = TempDir::new("secret-trust");
    chmod(dir.path(), 0o755);
    let secret = dir.write("live.secret", format!("{SECRET}\n"));
    chmod(&secret, 0o600);
    let ca = dir.write("ca.pem", "not a certificate\n");
    chmod(&ca, 0o644);
    // The config names the secret file, and the CA file too when `with_ca`.
    let run = |with_ca: bool| {
        let ca_line = match with_ca {
            true => format!("ca_cert = \"{}\"\n", ca.display()),
            false => String::new(),
        };
        let config = dir.write(
            "config.toml",
            format!(
                "[profiles.default]\nbase_url = \"https://127.0.0.1:9\"\n\
                 client_id = \"test-client\"\nclient_secret_file = \"{}\"\n{ca_line}",
                secret.display(),
            ),
        );
        chmod(&config, 0o600);
        payverify()
            .args(["--config", config.to_str().unwrap(), "verify", "--", "R-1"])
            .output()
            .unwrap()
    };
    // As it is: the CA file is read and found not to be PEM (exit 6 for that reason).
    let out = run(true);
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert!(!stderr.contains("can be written"), "{stderr}");
    for (file, what, with_ca) in [
        (&secret, "client secret file", false),
        (&ca, "CA file", true),
    ] {
        let before = std::fs::metadata(file).unwrap().permissions().mode();
        chmod(file, 0o666);
        let out = run(with_ca);
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(6), "{what}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: it can be written by everyone (mode 666), and payverify obeys what it \
                 says; run: chmod go-w {}",
                file.display(),
                file.display()
            )),
            "{what}: {stderr}"
        );
        chmod(file, before & 0o777);
    }
    // In a sticky world-writable directory, a file only this user can write is obeyed.
    chmod(dir.path(), 0o1777);
    let out = run(true);
    assert!(
        !stderr_of(&out).contains("can be written"),
        "{}",
        stderr_of(&out)
    );
    chmod(dir.path(), 0o755);
}

/// The program a `client_secret_command` runs is checked like the config (it runs as the
/// user and decides the secret): a script others can write, one in a directory others can
/// write, or one found first in such a `PATH` directory never runs (exit 6); a refused CA
/// file stops the run before the command runs; a link to a good config, kept in a
/// directory others can write, and a config below a directory others can write are
/// refused. Found by the attack on this change (findings 3, 4 and 5).
#[test]
fn a_secret_command_or_path_others_can_change_never_runs() {
    let gateway = Gateway::start(&[Txn::paid("ANY-REFERENCE", 4_000_000)]);
    let dir = TempDir::new("command-trust");
    chmod(dir.path(), 0o755);
    let mark = dir.path().join("ran");
    let script_text = format!("#!/bin/sh\ntouch '{}'\necho {SECRET}\n", mark.display());
    let bin = dir.path().join("bin");
    let public = dir.path().join("public");
    for d in [&bin, &public] {
        std::fs::create_dir(d).unwrap();
        chmod(d, 0o755);
    }
    for d in [&bin, &public] {
        std::fs::write(d.join("pv-secret"), &script_text).unwrap();
        chmod(&d.join("pv-secret"), 0o755);
    }
    let config_for = |program: &str, extra: &str| {
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            format!(
                "[profiles.default]\nbase_url = \"{}\"\nclient_id = \"test-client\"\n\
                 expect_mode = \"live\"\nclient_secret_command = [\"{program}\"]\n{extra}",
                gateway.url
            ),
        )
        .unwrap();
        chmod(&path, 0o600);
        path
    };
    let path_with = |first: &Path| {
        format!(
            "{}:{}",
            first.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    };
    let run = |config: &Path, path: &str| {
        let _ = std::fs::remove_file(&mark);
        let out = gate_command(config).env("PATH", path).output().unwrap();
        (out.status.code(), stderr_of(&out), mark.exists())
    };
    let by_path = bin.join("pv-secret");
    let by_path = by_path.to_str().unwrap();
    // The twins: a program only the user can change runs, by its path or found in PATH.
    let (code, stderr, ran) = run(&config_for(by_path, ""), &path_with(&bin));
    assert_eq!((code, ran), (Some(0), true), "{stderr}");
    let (code, stderr, ran) = run(&config_for("pv-secret", ""), &path_with(&bin));
    assert_eq!((code, ran), (Some(0), true), "{stderr}");

    // A script everyone can write.
    chmod(&bin.join("pv-secret"), 0o757);
    let (code, stderr, ran) = run(&config_for(by_path, ""), &path_with(&bin));
    assert_eq!((code, ran), (Some(6), false), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "runs {by_path}, and it can be written by everyone"
        )),
        "{stderr}"
    );
    chmod(&bin.join("pv-secret"), 0o755);
    // Found first in a PATH directory everyone can write (not sticky).
    chmod(&public, 0o777);
    let (code, stderr, ran) = run(&config_for("pv-secret", ""), &path_with(&public));
    assert_eq!((code, ran), (Some(6), false), "{stderr}");
    assert!(
        stderr.contains("can be written by everyone (mode 777), so another file"),
        "{stderr}"
    );
    // A CA file others can write stops the run before the command runs.
    let ca = dir.write("ca.pem", "not a certificate\n");
    chmod(&ca, 0o666);
    let extra = format!("ca_cert = \"{}\"\n", ca.display());
    let (code, stderr, ran) = run(&config_for(by_path, &extra), &path_with(&bin));
    assert_eq!((code, ran), (Some(6), false), "{stderr}");
    assert!(stderr.contains("can be written by everyone"), "{stderr}");

    // A link to the good config, kept in a directory everyone can write: they can point
    // it elsewhere.
    let good = config_for(by_path, "");
    let link = public.join("config.toml");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    let (code, stderr, ran) = run(&link, &path_with(&bin));
    assert_eq!((code, ran), (Some(6), false), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the directory {}, on the way to it,",
            public.display()
        )),
        "{stderr}"
    );
    // A config two levels below a directory everyone can write.
    let deep = public.join("team");
    std::fs::create_dir(&deep).unwrap();
    chmod(&deep, 0o755);
    std::fs::copy(&good, deep.join("config.toml")).unwrap();
    chmod(&deep.join("config.toml"), 0o600);
    let (code, stderr, ran) = run(&deep.join("config.toml"), &path_with(&bin));
    assert_eq!((code, ran), (Some(6), false), "{stderr}");
    chmod(&public, 0o755);
}
