//! Running payverify as a child process that a test talks to while it runs: signalled part
//! way (Ctrl-C, a service manager's SIGTERM), or read a line at a time.

use std::io::{BufRead, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The payverify binary as a plain `std::process::Command`, for tests that must reach the
/// running child (its pid, its pipes): no user config is read, stdout and stderr are piped.
/// stdin is left to the caller (inherited unless set), as is anything else it overrides.
pub fn spawnable() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("payverify"));
    cmd.env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("PAYVERIFY_JOURNAL", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// [`spawnable`] with credentials for `base_url` in the environment, as
/// [`super::payverify_at`] has them.
pub fn spawnable_at(base_url: &str) -> Command {
    let mut cmd = spawnable();
    cmd.env("PAYVERIFY_BASE_URL", base_url)
        .env("PAYVERIFY_CLIENT_ID", super::CLIENT_ID)
        .env("PAYVERIFY_CLIENT_SECRET", super::SECRET);
    cmd
}

/// Sends `signal` (`"-INT"` as Ctrl-C does, `"-TERM"` as a service manager does) to a
/// running child, with kill(2) at once (no kill(1) to start first: a test whose second
/// signal must land inside a grace period cannot wait on a fork on a loaded machine).
pub fn send_signal(child: &Child, signal: &str) {
    use nix::sys::signal::{Signal, kill};
    let signal = match signal {
        "-INT" => Signal::SIGINT,
        "-TERM" => Signal::SIGTERM,
        "-KILL" => Signal::SIGKILL,
        other => panic!("no such signal in the tests: {other}"),
    };
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    kill(pid, signal).unwrap();
}

/// How long a test waits for an event from a child before it fails: far beyond anything a
/// working payverify needs, even on a loaded machine, so that it bounds only a hang.
pub const EVENT_LIMIT: Duration = Duration::from_secs(60);

/// Polls `ready` every few milliseconds until it holds; fails the test, saying `what` was
/// awaited, after [`EVENT_LIMIT`]. What the tests use instead of sleeping "long enough".
pub fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < EVENT_LIMIT,
            "waited {EVENT_LIMIT:?} for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until `child` has installed its SIGINT and SIGTERM handlers, so that a signal sent
/// next is one payverify handles (exit 130) rather than one that kills it before it could:
/// on a loaded machine a fixed sleep after spawning may not cover the start-up. Reads the
/// caught-signal mask in /proc; elsewhere it sleeps a generous start-up time instead.
pub fn wait_for_signal_handlers(child: &Child) {
    let status = format!("/proc/{}/status", child.id());
    if !Path::new(&status).exists() {
        std::thread::sleep(Duration::from_millis(700));
        return;
    }
    // Bits 1 (SIGINT, 2) and 14 (SIGTERM, 15) of SigCgt, a hexadecimal mask.
    let wanted = (1u64 << 1) | (1u64 << 14);
    wait_until("the child's signal handlers", || {
        std::fs::read_to_string(&status).is_ok_and(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("SigCgt:"))
                .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
                .is_some_and(|mask| mask & wanted == wanted)
        })
    });
}

/// Waits until a thread of `child` is blocked writing to a pipe nobody reads (its stdout,
/// left unread by the test): the kernel names where each thread sleeps in /proc's `wchan`.
/// Where that is not to be had (not Linux, or a kernel that hides it), it waits a generous
/// 3 s instead, by which time 64 KiB of output has long filled a pipe.
pub fn wait_until_blocked_on_a_pipe(child: &Child) {
    let tasks = format!("/proc/{}/task", child.id());
    let started = Instant::now();
    let mut named = false;
    wait_until("the child to block on a full pipe", || {
        let Ok(entries) = std::fs::read_dir(&tasks) else {
            return started.elapsed() > Duration::from_secs(3);
        };
        for entry in entries.flatten() {
            let wchan = std::fs::read_to_string(entry.path().join("wchan")).unwrap_or_default();
            named |= !wchan.is_empty() && wchan != "0";
            if wchan.contains("pipe") {
                return true;
            }
        }
        !named && started.elapsed() > Duration::from_secs(3)
    });
}

/// A child's pipe read to its end on a thread into a buffer the test can look at while the
/// child runs: a test acts once the child has printed something, not after a sleep.
pub struct Captured {
    bytes: Arc<Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Captured {
    pub fn start(mut pipe: impl Read + Send + 'static) -> Captured {
        let bytes: Arc<Mutex<Vec<u8>>> = Arc::default();
        let sink = bytes.clone();
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        Captured { bytes, reader }
    }

    /// What has been read so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }

    /// Waits until what has been read holds every one of `needles`.
    pub fn wait_for(&self, needles: &[&str]) {
        wait_until(&format!("{needles:?} in the child's output"), || {
            let text = self.text();
            needles.iter().all(|n| text.contains(n))
        });
    }

    /// Everything the pipe gave, once the child has closed it.
    pub fn finish(self) -> Vec<u8> {
        self.reader.join().unwrap();
        Arc::try_unwrap(self.bytes).unwrap().into_inner().unwrap()
    }
}

/// Reads `n` lines (each with its newline) from a child's stdout, so that a test signals
/// only once output has begun.
pub fn read_lines(stdout: &mut impl BufRead, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            line
        })
        .collect()
}

/// After a signal: the rest of the child's stdout (already taken into `stdout`), its exit
/// status, then all of its stderr, read in that order so that no pipe holds the child up.
pub fn finish(child: Child, stdout: &mut impl Read) -> (String, ExitStatus, String) {
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let (status, stderr) = status_and_stderr(child);
    (rest, status, stderr)
}

/// The child's exit status, then all of its piped stderr: for a test that has already
/// taken (or dropped) its stdout.
pub fn status_and_stderr(mut child: Child) -> (ExitStatus, String) {
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

/// Runs payverify with `args` in `dir`, its stdout written to the file `part`, and sends
/// SIGINT once two lines are in it: the partial output a `--resume` test starts from.
/// Returns the interrupted run's stderr and the number of lines it wrote, having asserted
/// that it exited 130 and wrote some but not all of its `total` lines.
pub fn interrupted_into(dir: &Path, args: &[&str], part: &Path, total: usize) -> (String, usize) {
    let child = spawnable()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(part).unwrap())
        .spawn()
        .unwrap();
    let lines = || std::fs::read(part).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    wait_until("two lines of output", || lines() >= 2);
    send_signal(&child, "-INT");
    let killed = child.wait_with_output().unwrap();
    let stderr = super::stderr_of(&killed);
    assert_eq!(killed.status.code(), Some(130), "{stderr}");
    let written = std::fs::read_to_string(part).unwrap().lines().count();
    assert!(written > 0 && written < total, "{written} lines: {stderr}");
    (stderr, written)
}

/// payverify spawned with `args` (stdin empty), its stdout a pipe of one page
/// (F_SETPIPE_SZ) that the test holds the read end of and never reads, returned once a
/// thread of it is blocked writing there: a reader that stops reading. Both ends are
/// close-on-exec, so that a child another test spawns meanwhile keeps neither open (the
/// write would then not fail once the test drops the read end). Returns the child, its
/// stderr as it comes, and the read end (dropped: the reader leaves).
#[cfg(target_os = "linux")]
pub fn blocked_on_a_full_pipe(args: &[&str]) -> (Child, Captured, std::os::fd::OwnedFd) {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap();
    fcntl(&write_end, FcntlArg::F_SETPIPE_SZ(4096)).unwrap();
    let mut child = spawnable()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .spawn()
        .unwrap();
    let stderr = Captured::start(child.stderr.take().unwrap());
    wait_until_blocked_on_a_pipe(&child);
    (child, stderr, read_end)
}
