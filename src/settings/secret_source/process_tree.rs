//! The secret command and everything it starts, as one thing a deadline can end: a process
//! group on Unix (`killpg`), a job object on Windows (`TerminateJobObject`).
//!
//! Killing only the command would leave a background child it started holding the pipe to
//! payverify open, and running on after payverify has given up on it.

use std::io;
use std::process::{ChildStdout, Command, ExitStatus};

/// A running command and its descendants.
pub(super) struct ProcessTree(Inner);

#[cfg(unix)]
type Inner = std::process::Child;

#[cfg(windows)]
type Inner = Box<dyn process_wrap::std::StdChildWrapper>;

// Elsewhere nothing could stop what a secret command leaves behind.
#[cfg(not(any(unix, windows)))]
compile_error!(
    "payverify runs secret commands in a process group or job object: Unix or Windows only"
);

impl ProcessTree {
    /// Starts `command` as the root of its own process group: it leads the group, so the
    /// group is never payverify's own.
    #[cfg(unix)]
    pub(super) fn spawn(mut command: Command) -> io::Result<Self> {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        // The group's id is the leader's pid: what a hurried exit kills.
        crate::signal::spawn_group(|| command.spawn()).map(ProcessTree)
    }

    /// Starts `command` suspended, puts it in a new job object, and only then lets it run,
    /// so nothing it starts can escape the job (a child created between spawn and assignment
    /// would).
    #[cfg(windows)]
    pub(super) fn spawn(command: Command) -> io::Result<Self> {
        let mut wrapped = process_wrap::std::StdCommandWrap::from(command);
        wrapped.wrap(process_wrap::std::JobObject);
        wrapped.spawn().map(ProcessTree)
    }

    /// The command's stdout, once.
    pub(super) fn take_stdout(&mut self) -> Option<ChildStdout> {
        #[cfg(unix)]
        return self.0.stdout.take();
        #[cfg(windows)]
        return self.0.stdout().take();
    }

    /// The command's exit status, if it has exited (its descendants may still run).
    pub(super) fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.0.try_wait()
    }

    /// Kills every process of the tree that still runs, then reaps the command.
    pub(super) fn kill_all(&mut self) {
        #[cfg(unix)]
        {
            if let Ok(pid) = i32::try_from(self.0.id()) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = self.0.kill();
            let _ = self.0.wait();
            if let Ok(pgid) = i32::try_from(self.0.id()) {
                crate::signal::forget_child_group(pgid);
            }
        }
        #[cfg(windows)]
        {
            let _ = self.0.start_kill();
            // The command itself only: the wrapper's own wait() would also wait for every
            // process of the job, which the kill has just ended anyway.
            let _ = self.0.inner_mut().wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::path::Path;
    use std::process::Stdio;
    use std::time::Duration;

    /// Set in the helper processes: where the leaf appends its heartbeat.
    const BEATS: &str = "PAYVERIFY_TEST_TREE_BEATS";
    /// Set in the helper processes: which of the two this one is.
    const ROLE: &str = "PAYVERIFY_TEST_TREE_ROLE";
    const HELPER: &str = "settings::secret_source::process_tree::tests::tree_helper";

    /// This test binary, running [`tree_helper`] as `role`.
    fn helper(role: &str, beats: &Path) -> Command {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "--exact",
                HELPER,
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, role)
            .env(BEATS, beats);
        command
    }

    /// Not a test: the processes the kill test starts. The root prints, starts the leaf (which
    /// inherits its stdout, as a password manager's agent would) and waits; the leaf appends
    /// a byte to the heartbeat file every 50 ms. Both would run for a minute unless killed.
    #[test]
    #[ignore = "a helper process that kill_all_ends_the_command_and_what_it_started starts"]
    fn tree_helper() {
        let Some(beats) = std::env::var_os(BEATS) else {
            return;
        };
        match std::env::var(ROLE).as_deref() {
            Ok("root") => {
                let mut leaf = helper("leaf", Path::new(&beats)).spawn().unwrap();
                print!("s3cret-root");
                std::io::stdout().flush().unwrap();
                std::thread::sleep(Duration::from_secs(60));
                let _ = leaf.kill();
                let _ = leaf.wait();
            }
            Ok("leaf") => {
                for _ in 0..1200 {
                    let mut file = std::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&beats)
                        .unwrap();
                    file.write_all(b".").unwrap();
                    drop(file);
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            _ => {}
        }
    }

    fn beats(path: &Path) -> u64 {
        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
    }

    #[test]
    fn kill_all_ends_the_command_and_what_it_started() {
        let dir = crate::testutil::TempDir::new("tree");
        let file = dir.path().join("beats");
        let mut command = helper("root", &file);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut tree = ProcessTree::spawn(command).unwrap();
        let mut stdout = tree.take_stdout().unwrap();
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            let _ = done_tx.send(out);
        });
        // The leaf is running once it has beaten a few times (generous: a loaded machine, or
        // wine starting two processes).
        let running = (0..600).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            beats(&file) >= 3
        });
        assert!(running, "the leaf never started");
        assert_eq!(tree.try_wait().unwrap(), None, "the root exited early");
        tree.kill_all();
        // The pipe the leaf held closes: the output ends instead of waiting a minute.
        let out = done
            .recv_timeout(Duration::from_secs(20))
            .expect("stdout stayed open after kill_all: a process of the tree survived");
        assert!(String::from_utf8_lossy(&out).contains("s3cret-root"));
        // And the leaf has stopped beating (its last write may land just after the kill).
        std::thread::sleep(Duration::from_millis(500));
        let after_kill = beats(&file);
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(
            beats(&file),
            after_kill,
            "the leaf still runs after kill_all"
        );
    }
}
