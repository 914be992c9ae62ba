use std::io::Read;

use super::read::{Capped, Limit};
use super::*;
use crate::testutil::TempDir;

static TINY: Limit = Limit {
    what: "test file",
    cap: 8,
    stream: true,
    obeyed: false,
};

#[test]
fn caps_are_said_as_people_say_them() {
    assert_eq!(size(64 << 10), "64 KiB");
    assert_eq!(size(1 << 20), "1 MiB");
    assert_eq!(size(4 << 30), "4 GiB");
    assert_eq!(size(1000), "1000 bytes");
    assert_eq!(size(1536), "1536 bytes");
}

#[test]
fn the_webhook_cap_is_the_verify_body_cap() {
    assert_eq!(PAYLOAD.cap, crate::transport::client::MAX_BODY_BYTES);
}

#[test]
fn a_file_at_its_cap_is_read_and_one_byte_more_is_refused() {
    let dir = TempDir::new("files-cap");
    let at = dir.write("at", "12345678");
    assert_eq!(read(&at, &TINY).unwrap(), b"12345678");
    let over = dir.write("over", "123456789");
    let e = read(&over, &TINY).unwrap_err();
    assert_eq!(e.problem, Problem::TooLarge);
    assert_eq!(
        e.why,
        "it is larger than 8 bytes, the cap for the test file"
    );
}

#[test]
fn a_stream_past_its_cap_is_an_error_never_a_cut() {
    let dir = TempDir::new("files-stream");
    let path = dir.write("f", "0123456789");
    // Past the size check (as a pipe would be): the reader itself refuses the ninth byte.
    let mut capped = Capped::new(std::fs::File::open(&path).unwrap(), &TINY);
    let mut out = Vec::new();
    let e = capped.read_to_end(&mut out).unwrap_err();
    assert!(e.to_string().contains("larger than 8 bytes"), "{e}");
    assert_eq!(out, b"01234567");
}

#[test]
fn a_read_interrupted_by_a_signal_or_finding_no_data_yet_is_tried_again() {
    /// Fails each read first with EINTR, then with EAGAIN, then gives one byte.
    struct Flaky {
        bytes: std::collections::VecDeque<u8>,
        next_error: usize,
    }
    impl Read for Flaky {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.next_error += 1;
            match self.next_error % 3 {
                1 => Err(std::io::ErrorKind::Interrupted.into()),
                2 => Err(std::io::ErrorKind::WouldBlock.into()),
                _ => match (self.bytes.pop_front(), buf.first_mut()) {
                    (Some(b), Some(slot)) => {
                        *slot = b;
                        Ok(1)
                    }
                    _ => Ok(0),
                },
            }
        }
    }
    let flaky = Flaky {
        bytes: b"A-1\nB-2".iter().copied().collect(),
        next_error: 0,
    };
    // Read by hand: std's read_to_string would itself try an EINTR again.
    let mut capped = Capped::new(flaky, &TINY);
    let (mut got, mut buf) = (Vec::new(), [0u8; 4]);
    loop {
        match capped.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got, b"A-1\nB-2");
    // Any other error is an error.
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }
    assert!(Capped::new(Broken, &TINY).read(&mut [0u8; 4]).is_err());
}

#[test]
fn directories_and_missing_files_are_told_apart() {
    let dir = TempDir::new("files-kind");
    let e = read(dir.path(), &CONFIG).unwrap_err();
    assert_eq!(
        (e.problem, e.why.as_str()),
        (Problem::NotAFile, "it is a directory")
    );
    let e = read(&dir.path().join("none"), &CONFIG).unwrap_err();
    assert_eq!(e.problem, Problem::Missing);
}

#[cfg(unix)]
#[test]
fn devices_are_refused_before_opening() {
    let e = read(std::path::Path::new("/dev/zero"), &SECRET_FILE).unwrap_err();
    assert_eq!(e.problem, Problem::NotAFile);
    assert!(e.why.contains("device"), "{}", e.why);
}

#[test]
fn a_write_replaces_the_whole_file_and_leaves_no_temporary() {
    let dir = TempDir::new("files-write");
    let path = dir.write("out.json", "old and longer than the new text");
    write(&path, b"new", Replace::default()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

/// A file the run reads is never an output, by any name that reaches it: told apart by device
/// and inode on Unix, by volume serial number and file index on Windows (this test runs under
/// wine in `scripts/check-release.sh --all`).
#[test]
fn an_input_is_never_an_output_under_another_name() {
    let dir = TempDir::new("files-same");
    let orders = dir.write("orders.csv", "reference\nR-1\n");
    read(&orders, &ORDERS).unwrap();
    let linked = dir.path().join("linked.csv");
    std::fs::hard_link(&orders, &linked).unwrap();
    for name in [dir.path().join(".").join("orders.csv"), linked] {
        let refused = prepare(&name, Replace::default()).err();
        assert!(
            refused.as_ref().is_some_and(|e| e.collision),
            "{}: {:?}",
            name.display(),
            refused.map(|e| e.why)
        );
    }
    assert_eq!(std::fs::read(&orders).unwrap(), b"reference\nR-1\n");
    // A file the run never read is no collision.
    let other = dir.write("other.csv", "x");
    assert!(prepare(&other, Replace::default()).is_ok());
}

#[test]
fn a_dropped_write_leaves_the_old_file_and_no_temporary() {
    let dir = TempDir::new("files-drop");
    let path = dir.write("out.json", "old");
    let pending = prepare(&path, Replace::default()).unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    drop(pending);
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn a_symlink_is_never_written_through() {
    let dir = TempDir::new("files-link");
    let real = dir.write("real", "keep");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let e = write(&link, b"new", Replace::default()).unwrap_err();
    assert!(e.why.contains("symbolic link"), "{}", e.why);
    assert_eq!(std::fs::read(&real).unwrap(), b"keep");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn a_replacement_keeps_the_old_mode_unless_one_is_asked_for() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("files-mode");
    let path = dir.write("f", "old");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    write(&path, b"new", Replace::default()).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o640);
    let replace = Replace {
        mode: Some(0o600),
        updating: None,
    };
    write(&path, b"newer", replace).unwrap();
    assert_eq!(mode(&path), 0o600);
}

#[cfg(unix)]
#[test]
fn a_leftover_is_named_exactly_as_a_temporary_file_for_that_target() {
    use std::ffi::OsStr;
    let pid = |file: &str| super::write::leftover_pid(OsStr::new(file), OsStr::new("s.jsonl"));
    assert_eq!(pid(".s.jsonl.payverify-4242.tmp"), Some(4242));
    for near in [
        "s.jsonl.payverify-4242.tmp",
        ".s.jsonl.payverify-04242.tmp",
        ".s.jsonl.payverify-+4242.tmp",
        ".s.jsonl.payverify-4242.tmp~",
        ".s.jsonl.payverify-.tmp",
        ".s.jsonl.payverify-42a.tmp",
        ".t.jsonl.payverify-4242.tmp",
        ".s.jsonl.x.payverify-4242.tmp",
        ".s.jsonl.payverify-99999999999.tmp",
    ] {
        assert_eq!(pid(near), None, "{near}");
    }
}

/// Reads `path` through [`open`] to its end: the bytes, or the error that ended the read.
fn read_to_end_of(path: &std::path::Path) -> Result<Vec<u8>, std::io::Error> {
    let mut file = open(path, &REFERENCES).unwrap();
    let mut out = Vec::new();
    file.read_to_end(&mut out).map(|_| out)
}

#[test]
fn a_file_cut_short_while_it_is_read_is_an_error_never_an_end() {
    let dir = TempDir::new("files-cut");
    let path = dir.write("refs.txt", "A-1\nB-2\nC-3\n");
    let mut file = open(&path, &REFERENCES).unwrap();
    let mut first = [0u8; 4];
    file.read_exact(&mut first).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(6)
        .unwrap();
    let mut rest = Vec::new();
    let e = file.read_to_end(&mut rest).unwrap_err();
    let failure = changed("refs.txt", &e, "nothing after line 1 was verified").unwrap();
    assert_eq!(failure.exit, crate::exit::Exit::Internal);
    assert!(
        failure.message.starts_with(
            "refs.txt changed while it was read: it ended after 6 bytes where it had 12 \
             when it was opened (cut short); nothing after line 1"
        ),
        "{}",
        failure.message
    );
    // Any other read error is not a change.
    let other = std::io::Error::other("boom");
    assert!(changed("refs.txt", &other, "").is_none());
}

#[test]
fn a_file_replaced_or_rewritten_while_it_is_read_is_an_error() {
    let dir = TempDir::new("files-replaced");
    let path = dir.write("refs.txt", "A-1\nB-2\n");
    // Replaced: another file renamed over it, the open one read to its end as it was.
    let mut file = open(&path, &REFERENCES).unwrap();
    let new = dir.write("new.txt", "X-1\n");
    std::fs::rename(&new, &path).unwrap();
    let e = file.read_to_end(&mut Vec::new()).unwrap_err();
    assert!(
        e.to_string().contains("another file now has its name"),
        "{e}"
    );
    // Rewritten in place to the same size: its modification time says so.
    let path = dir.write("same.txt", "A-1\nB-2\n");
    let mut file = open(&path, &REFERENCES).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, "X-1\nY-2\n").unwrap();
    let e = file.read_to_end(&mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("it was rewritten in place"), "{e}");
    // Removed: its name leads nowhere.
    let path = dir.write("gone.txt", "A-1\n");
    let mut file = open(&path, &REFERENCES).unwrap();
    std::fs::remove_file(&path).unwrap();
    let e = file.read_to_end(&mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("no longer leads to it"), "{e}");
    // Untouched: read whole.
    let path = dir.write("kept.txt", "A-1\nB-2\n");
    assert_eq!(read_to_end_of(&path).unwrap(), b"A-1\nB-2\n");
}

#[cfg(unix)]
#[test]
fn a_file_payverify_obeys_is_refused_when_others_can_write_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("files-trust");
    let chmod = |p: &std::path::Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    chmod(dir.path(), 0o755);
    let path = dir.write("config.toml", "");
    for mode in [0o600, 0o644, 0o640, 0o444] {
        chmod(&path, mode);
        assert!(read(&path, &CONFIG).is_ok(), "mode {mode:o}");
    }
    // A group other than the user's own needs root to give the file to (the user's own
    // group, whose one member the user is, may write: see trust::private_group).
    let root = nix::unistd::geteuid().is_root();
    if root {
        std::os::unix::fs::chown(&path, None, Some(65534)).unwrap();
    }
    for (mode, who) in [
        (0o620, "its group"),
        (0o602, "everyone"),
        (0o666, "everyone"),
    ] {
        if mode == 0o620 && !root {
            continue;
        }
        chmod(&path, mode);
        let e = read(&path, &CONFIG).unwrap_err();
        assert_eq!(e.problem, Problem::Untrusted, "mode {mode:o}");
        assert!(
            e.why.starts_with(&format!(
                "it can be written by {who} (mode {mode:03o}), and payverify obeys what it says; \
                 run: chmod go-w "
            )),
            "{}",
            e.why
        );
        // A file payverify only reads is not judged so.
        assert!(read(&path, &REFERENCES).is_ok());
    }
    chmod(&path, 0o600);
    chmod(dir.path(), 0o777);
    let e = read(&path, &CONFIG).unwrap_err();
    assert!(e.why.contains("the directory holding it"), "{}", e.why);
    // Sticky, as /tmp: others cannot replace this user's file.
    chmod(dir.path(), 0o1777);
    assert!(read(&path, &CONFIG).is_ok());
    chmod(dir.path(), 0o755);
}
