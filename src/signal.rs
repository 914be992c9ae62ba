//! Ctrl-C and SIGTERM: a flag to poll and a way to wait for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use crate::exit::{Exit, Failure};

/// Set once the process is asked to stop (SIGINT, SIGTERM, SIGHUP).
pub(crate) struct Interrupt {
    flag: Arc<AtomicBool>,
    signalled: Mutex<Receiver<()>>,
}

impl Interrupt {
    /// Installs the handler; the process can have only one.
    pub(crate) fn install() -> Result<Self, Failure> {
        let flag = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let set = flag.clone();
        ctrlc::set_handler(move || {
            // A second signal means "now": the user no longer waits for in-flight work.
            if set.swap(true, Ordering::SeqCst) {
                // exit() runs no destructors: temporary files go now or never.
                crate::files::remove_temporaries();
                std::process::exit(i32::from(Exit::Interrupted.code()));
            }
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
