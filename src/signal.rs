//! Ctrl-C and SIGTERM: a flag to poll, a way to wait for it, and the hurried exit.
//!
//! The first signal sets the flag: commands stop starting work and end as soon as they can,
//! closing their output normally. A second signal, or a first one while payverify is stuck
//! writing its output (a reader that stopped reading: nothing else could end it), is a
//! hurried exit: temporary files are removed, machine-read output that can still be closed
//! is closed (the `]` of an `-o json` array, through the hooks output writers register), and
//! the process exits 130 within [`HOOK_BUDGET`], without waiting for anything else.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use crate::exit::{Exit, Failure};

/// What a hurried exit runs before the process ends (closing an open `-o json` array).
type Hook = Box<dyn Fn() + Send>;

/// The hooks of the output writers alive now.
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// How long a hurried exit gives its hooks: a hook that cannot finish by then (it waits on
/// output that is stuck) is abandoned.
const HOOK_BUDGET: Duration = Duration::from_millis(250);

/// How long a write to stdout or stderr may make no progress after the first signal before
/// that signal becomes a hurried exit.
const STUCK: Duration = Duration::from_millis(250);

/// Writes to stdout or stderr under way now, and when a write last began or ended (in
/// milliseconds since [`epoch`]): what tells the watchdog that output is stuck.
static WRITES: AtomicUsize = AtomicUsize::new(0);
static LAST_PROGRESS: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    u64::try_from(epoch().elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Registers `hook` to run on a hurried exit. Hooks must not block for long: each gets what
/// is left of [`HOOK_BUDGET`].
pub(crate) fn on_hurried_exit(hook: impl Fn() + Send + 'static) {
    if let Ok(mut hooks) = HOOKS.lock() {
        hooks.push(Box::new(hook));
    }
}

/// Runs `write`, a write to stdout or stderr, marked as under way for the watchdog.
pub(crate) fn writing<T>(write: impl FnOnce() -> T) -> T {
    LAST_PROGRESS.store(now_ms(), Ordering::SeqCst);
    WRITES.fetch_add(1, Ordering::SeqCst);
    let result = write();
    WRITES.fetch_sub(1, Ordering::SeqCst);
    LAST_PROGRESS.store(now_ms(), Ordering::SeqCst);
    result
}

/// Writes `bytes` to stderr, marked as a write under way for the watchdog (so a stderr
/// nobody reads cannot keep a signalled process alive); a closed stderr is not an error
/// worth reporting anywhere.
pub(crate) fn write_stderr(bytes: &[u8]) {
    let _ = writing(|| std::io::Write::write_all(&mut std::io::stderr().lock(), bytes));
}

/// Why a hurried exit happens, for its one stderr line.
#[derive(Clone, Copy)]
enum Hurry {
    /// A second signal.
    Again,
    /// The first signal, while a write to stdout or stderr made no progress.
    Stuck,
    /// The first signal, before any command listens for it.
    Unheard,
}

/// Removes temporary files, runs the hooks and says why on stderr within [`HOOK_BUDGET`],
/// and exits 130.
fn hurried_exit(why: Hurry) -> ! {
    // exit() runs no destructors: temporary files and child processes go now or never.
    kill_child_groups();
    crate::files::remove_temporaries();
    let (done, finished) = channel();
    // On their own thread: a hook stuck on a full pipe must not keep the process alive.
    let spawned = thread::Builder::new()
        .name("hurried-exit".into())
        .spawn(move || {
            if let Ok(hooks) = HOOKS.lock() {
                for hook in hooks.iter() {
                    hook();
                }
            }
            let line = match why {
                Hurry::Again => "payverify: interrupted again: stopped at once\n",
                Hurry::Unheard => "payverify: interrupted: stopped\n",
                Hurry::Stuck => {
                    "payverify: interrupted while the output was not being read: stopped at \
                     once\n"
                }
            };
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            let _ = done.send(());
        });
    if spawned.is_ok() {
        let _ = finished.recv_timeout(HOOK_BUDGET);
    }
    std::process::exit(i32::from(Exit::Interrupted.code()));
}

/// After the first signal: a hurried exit as soon as a write to stdout or stderr has made
/// no progress for [`STUCK`] (the reader stopped reading), since nothing else could end
/// the process then.
fn watch_for_stuck_output() {
    let signalled = now_ms();
    let _ = thread::Builder::new()
        .name("stuck-output".into())
        .spawn(move || {
            loop {
                thread::sleep(Duration::from_millis(20));
                let since = LAST_PROGRESS.load(Ordering::SeqCst).max(signalled);
                let stuck = u128::from(now_ms().saturating_sub(since)) >= STUCK.as_millis();
                if WRITES.load(Ordering::SeqCst) > 0 && stuck {
                    hurried_exit(Hurry::Stuck);
                }
            }
        });
}

/// The process-wide state the one handler shares with the command that listens.
struct Shared {
    /// Turns true on the first signal.
    flag: Arc<AtomicBool>,
    /// Whether a command is listening ([`Interrupt::listen`]): it ends on its own after the
    /// first signal. Until one does, the first signal is a hurried exit.
    listening: AtomicBool,
    /// Told of the first signal, for [`Interrupt::wait`].
    signalled: Mutex<Option<Sender<()>>>,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

/// Process groups of commands payverify runs (the secret command), for a hurried exit to
/// kill: exit runs no destructors, and a password manager left waiting would outlive us.
#[cfg(unix)]
static CHILD_GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Runs `spawn`, which starts a child leading its own process group, and kills that group
/// on a hurried exit until [`forget_child_group`]. The list is held while the child starts,
/// so a signal in between waits for it to be listed rather than miss it.
#[cfg(unix)]
pub(crate) fn spawn_group(
    spawn: impl FnOnce() -> std::io::Result<std::process::Child>,
) -> std::io::Result<std::process::Child> {
    let mut groups = CHILD_GROUPS.lock().ok();
    let child = spawn()?;
    if let (Some(groups), Ok(pgid)) = (groups.as_mut(), i32::try_from(child.id())) {
        groups.push(pgid);
    }
    Ok(child)
}

/// The group has been reaped: a hurried exit must not signal a reused id.
#[cfg(unix)]
pub(crate) fn forget_child_group(pgid: i32) {
    if let Ok(mut groups) = CHILD_GROUPS.lock() {
        groups.retain(|g| *g != pgid);
    }
}

fn kill_child_groups() {
    #[cfg(unix)]
    if let Ok(groups) = CHILD_GROUPS.lock() {
        for &pgid in groups.iter() {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Installs the one handler for SIGINT, SIGTERM and SIGHUP, as the first thing a run does:
/// a signal at any point ends payverify with the documented 130 (never the shell's 143),
/// killing what it started and removing its temporary files. Idempotent.
pub(crate) fn install() -> Result<(), Failure> {
    if SHARED.get().is_some() {
        return Ok(());
    }
    epoch();
    // A write past `ulimit -f` fails (EFBIG) like a full disk instead of killing the process
    // (exit 153, temporary files left, an -o json array cut).
    #[cfg(unix)]
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    );
    let shared = SHARED.get_or_init(|| Shared {
        flag: Arc::new(AtomicBool::new(false)),
        listening: AtomicBool::new(false),
        signalled: Mutex::new(None),
    });
    ctrlc::set_handler(move || {
        // A second signal means "now": the user no longer waits for in-flight work.
        if shared.flag.swap(true, Ordering::SeqCst) {
            hurried_exit(Hurry::Again);
        }
        // Nothing listens (settings being read, a secret command running, doctor, config):
        // nothing would end the run, so end it here.
        if !shared.listening.load(Ordering::SeqCst) {
            hurried_exit(Hurry::Unheard);
        }
        watch_for_stuck_output();
        if let Ok(tx) = shared.signalled.lock()
            && let Some(tx) = tx.as_ref()
        {
            let _ = tx.send(());
        }
    })
    .or_else(|e| match e {
        // Installed by an earlier run in this process (tests call run() repeatedly).
        ctrlc::Error::MultipleHandlers => Ok(()),
        e => Err(Failure::new(
            Exit::Internal,
            format!("cannot handle signals: {e}"),
        )),
    })
}

/// Whether the process has been asked to stop: for work below a command (a secret
/// command) to give up at once. Call [`yield_to_hurried_exit`] before reporting it.
pub(crate) fn stopping() -> bool {
    SHARED
        .get()
        .is_some_and(|shared| shared.flag.load(Ordering::SeqCst))
}

/// When no command listens, the first signal's hurried exit is already ending the process
/// (killing the secret command, saying why): the thread that noticed the stop waits for it
/// here rather than print its own error or return a status that could win the race.
pub(crate) fn yield_to_hurried_exit() {
    let unheard = SHARED.get().is_some_and(|shared| {
        shared.flag.load(Ordering::SeqCst) && !shared.listening.load(Ordering::SeqCst)
    });
    if unheard {
        // The hurried exit ends the process; park until it does (spurious wake-ups too).
        loop {
            thread::park();
        }
    }
}

/// A command that ends on its own after the first signal (finishing what is in flight,
/// closing its output): set once the process is asked to stop (SIGINT, SIGTERM, SIGHUP).
pub(crate) struct Interrupt {
    flag: Arc<AtomicBool>,
    signalled: Mutex<Receiver<()>>,
}

impl Interrupt {
    /// Starts listening: from now on the first signal sets the flag instead of ending the
    /// process. Installs the handler if [`install`] has not.
    pub(crate) fn listen() -> Result<Self, Failure> {
        install()?;
        let shared = SHARED
            .get()
            .ok_or_else(|| Failure::new(Exit::Internal, "cannot handle signals"))?;
        let (tx, rx) = channel();
        if let Ok(mut signalled) = shared.signalled.lock() {
            *signalled = Some(tx);
        }
        shared.listening.store(true, Ordering::SeqCst);
        Ok(Interrupt {
            flag: shared.flag.clone(),
            signalled: Mutex::new(rx),
        })
    }

    /// A flag that turns true on the signal, for worker threads.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Blocks until the signal arrives.
    pub(crate) fn wait(&self) {
        if self.flag.load(Ordering::SeqCst) {
            return;
        }
        if let Ok(rx) = self.signalled.lock() {
            let _ = rx.recv();
        }
    }
}
