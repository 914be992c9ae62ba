//! stdout as the output writers share it with a hurried exit (see [`crate::signal`]): every
//! write goes out whole and is followed by a note of what would end the document written so
//! far (the `]` of an `-o json` array), so a second Ctrl-C can still close it.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

/// Where output goes; cheap to clone, every clone the same sink.
#[derive(Clone)]
pub(crate) struct Sink(Arc<Mutex<State>>);

struct State {
    out: Box<dyn Write + Send>,
    /// What ends the document written so far, if it needs an end.
    closing: Option<&'static str>,
    /// A hurried exit has closed the output: nothing more is written.
    ended: bool,
    /// The whole document when nothing has been written yet (`[]` for `-o json`), for a
    /// hurried exit before the first write.
    empty: Option<&'static str>,
    /// Whether anything has been written.
    touched: bool,
}

/// How long a hurried exit waits for a write under way to finish before it leaves the
/// output as it is (a write stuck on a reader that stopped reading never finishes).
const WAIT_FOR_WRITE: Duration = Duration::from_millis(100);

impl Sink {
    /// A sink on `out`, for output nothing needs to close early.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Sink {
        Sink(Arc::new(Mutex::new(State {
            out,
            closing: None,
            ended: false,
            empty: None,
            touched: false,
        })))
    }

    /// What a hurried exit writes if nothing has been written yet: an `-o json` run
    /// stopped before its first record is still one valid (empty) array.
    pub(crate) fn empty_document(&self, text: &'static str) {
        self.lock().empty = Some(text);
    }

    /// A sink on `out` (the process's stdout) that a hurried exit closes.
    pub(crate) fn closed_on_hurried_exit(out: Box<dyn Write + Send>) -> Sink {
        let sink = Sink::new(out);
        let hurried = sink.clone();
        crate::signal::on_hurried_exit(move || hurried.end_now());
        sink
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A writer that panicked mid-write left whole writes behind it (each is one
        // write_all under the lock): the state is still good to use.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes `bytes` whole and flushes; `closing` is then what ends the document (`None`:
    /// it needs no end, or this write ended it).
    pub(crate) fn write(&self, bytes: &[u8], closing: Option<&'static str>) -> io::Result<()> {
        let mut state = self.lock();
        if state.ended {
            return Ok(());
        }
        state.touched = true;
        crate::signal::writing(|| {
            state.out.write_all(bytes)?;
            state.out.flush()
        })?;
        state.closing = closing;
        Ok(())
    }

    /// For a hurried exit: writes what ends the document, unless a write is under way (and
    /// does not finish within [`WAIT_FOR_WRITE`]), and ends the output.
    fn end_now(&self) {
        let deadline = std::time::Instant::now() + WAIT_FOR_WRITE;
        let mut state = loop {
            match self.0.try_lock() {
                Ok(state) => break state,
                Err(TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                // A write is stuck: the document cannot be closed without cutting it.
                Err(TryLockError::WouldBlock) => return,
            }
        };
        if state.ended {
            return;
        }
        state.ended = true;
        let closing = match state.touched {
            true => state.closing.take(),
            false => state.empty.take(),
        };
        if let Some(closing) = closing {
            let _ = state.out.write_all(closing.as_bytes());
            let _ = state.out.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What a sink writes when `steps` are done with it.
    fn written(steps: impl FnOnce(&Sink)) -> String {
        let bytes = Shared::default();
        steps(&Sink::new(Box::new(bytes.clone())));
        String::from_utf8(bytes.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn ending_now_closes_the_document_once_and_nothing_follows() {
        let text = written(|sink| {
            sink.write(b"[", Some("]\n")).unwrap();
            sink.write(b"\n  {}", Some("\n]\n")).unwrap();
            sink.end_now();
            sink.end_now();
            // The writer's own end, after a hurried one, is not written again.
            sink.write(b"\n]\n", None).unwrap();
        });
        assert_eq!(text, "[\n  {}\n]\n");
    }

    #[test]
    fn ending_now_after_the_writer_ended_the_document_adds_nothing() {
        let text = written(|sink| {
            sink.write(b"[", Some("]\n")).unwrap();
            sink.write(b"]\n", None).unwrap();
            sink.end_now();
        });
        assert_eq!(text, "[]\n");
    }

    #[test]
    fn ending_now_before_any_write_writes_the_empty_document() {
        let text = written(|sink| {
            sink.empty_document("[]\n");
            sink.end_now();
        });
        assert_eq!(text, "[]\n");
    }

    #[test]
    fn ending_now_gives_up_on_a_stuck_write() {
        let sink = Sink::new(Box::new(io::sink()));
        let held = sink.0.lock().unwrap();
        let started = std::time::Instant::now();
        sink.end_now();
        assert!(started.elapsed() >= WAIT_FOR_WRITE);
        assert!(!held.ended);
    }
}
