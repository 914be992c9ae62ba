//! Ctrl-C and SIGTERM: a flag to poll, a way to wait for it, and the hurried exit.
//!
//! The first signal sets the flag: commands stop starting work and end as soon as they can,
//! closing their output normally. A second signal, or a first one while payverify is stuck
//! writing its output (a reader that stopped reading: nothing else could end it), is a
//! hurried exit: temporary files are removed, machine-read output that can still be closed
//! is closed (the `]` of an `-o json` array, through the hooks output writers register), and
//! the process exits 130 within [`HOOK_BUDGET`], without waiting for anything else.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
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

/// Why a hurried exit happens, for its one stderr line.
#[derive(Clone, Copy)]
enum Hurry {
    /// A second signal.
    Again,
    /// The first signal, while a write to stdout or stderr made no progress.
    Stuck,
}

/// Removes temporary files, runs the hooks and says why on stderr within [`HOOK_BUDGET`],
/// and exits 130.
fn hurried_exit(why: Hurry) -> ! {
    // exit() runs no destructors: temporary files go now or never.
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

/// Set once the process is asked to stop (SIGINT, SIGTERM, SIGHUP).
pub(crate) struct Interrupt {
    flag: Arc<AtomicBool>,
    signalled: Mutex<Receiver<()>>,
}

impl Interrupt {
    /// Installs the handler; the process can have only one.
    pub(crate) fn install() -> Result<Self, Failure> {
        epoch();
        let flag = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let set = flag.clone();
        ctrlc::set_handler(move || {
            // A second signal means "now": the user no longer waits for in-flight work.
            if set.swap(true, Ordering::SeqCst) {
                hurried_exit(Hurry::Again);
            }
            watch_for_stuck_output();
            let _ = tx.send(());
        })
        .map_err(|e| Failure::new(Exit::Internal, format!("cannot handle signals: {e}")))?;
        Ok(Interrupt {
            flag,
            signalled: Mutex::new(rx),
        })
    }

    /// A flag that turns true on the signal, for worker threads.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Blocks until the signal arrives.
    pub(crate) fn wait(&self) {
        if let Ok(rx) = self.signalled.lock() {
            let _ = rx.recv();
        }
    }
}
