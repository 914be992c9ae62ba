//! Bounded reads: one way to open every file payverify reads, with its kind checked before
//! it is opened and its size capped while it is read.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::run;
use crate::exit::{Exit, Failure};

/// What a file is to payverify and how much of it may be read.
#[derive(Debug)]
pub(crate) struct Limit {
    /// What it is, in messages: `config file`, `list of references`.
    pub(crate) what: &'static str,
    /// The most bytes read; more is refused, naming this cap.
    pub(crate) cap: u64,
    /// Whether it is read once, in order, as a stream: then a named pipe (`<(command)`)
    /// is read too. Otherwise only a regular file is.
    pub(crate) stream: bool,
    /// Whether what it says is obeyed (where the secret goes, which command prints it,
    /// which server is believed): then one that anyone but the invoking user and root can
    /// change is refused (see [`super::trust`]).
    pub(crate) obeyed: bool,
}

impl Limit {
    /// A regular file only, of at most `cap` bytes.
    const fn file(what: &'static str, cap: u64) -> Limit {
        Limit {
            what,
            cap,
            stream: false,
            obeyed: false,
        }
    }

    /// A regular file of at most `cap` bytes whose content payverify obeys: only the
    /// invoking user and root may be able to change it.
    const fn obeyed(what: &'static str, cap: u64) -> Limit {
        Limit {
            obeyed: true,
            ..Limit::file(what, cap)
        }
    }

    /// A file or a named pipe, read once in order, of at most `cap` bytes.
    const fn stream(what: &'static str, cap: u64) -> Limit {
        Limit {
            stream: true,
            ..Limit::file(what, cap)
        }
    }
}

/// The config file: a few profiles.
pub(crate) static CONFIG: Limit = Limit::obeyed("config file", 1 << 20);
/// A client secret file: one line.
pub(crate) static SECRET_FILE: Limit = Limit::obeyed("client secret file", 64 << 10);
/// `--ca-cert`: a PEM bundle (Mozilla's whole set is about 220 KB).
pub(crate) static CA_FILE: Limit = Limit::obeyed("CA file", 4 << 20);
/// `--resume`: an earlier run's output, read back record by record as each turn comes, so
/// it must be a file that can be read again.
pub(crate) static RESUME: Limit = Limit::file("--resume file", 4 << 30);
/// `--state`: the records a run keeps beside its output, read back as `--resume`'s file.
pub(crate) static STATE: Limit = Limit::file("--state file", 4 << 30);
/// `webhook check FILE`: one payload, as large as a verify response may be.
pub(crate) static PAYLOAD: Limit = Limit::stream("webhook payload", 1 << 20);
/// `verify --from FILE` and `verify -`: references, one a line.
pub(crate) static REFERENCES: Limit = Limit::stream("list of references", 1 << 30);
/// `reconcile FILE`: a shop's orders export.
pub(crate) static ORDERS: Limit = Limit::stream("orders file", 1 << 30);

/// Why a file cannot be read.
#[derive(Debug)]
pub(crate) struct Unreadable {
    /// What kind of problem, for callers that treat one differently.
    pub(crate) problem: Problem,
    /// Why, as the end of a sentence that names the file: `it is a directory`.
    pub(crate) why: String,
}

/// The kinds of [`Unreadable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Nothing is at the path.
    Missing,
    /// Larger than its cap.
    TooLarge,
    /// A directory, device, socket, or a named pipe where a file is needed.
    NotAFile,
    /// It is where stdout or stderr goes: reading it while writing it destroys it.
    Output,
    /// Its content is obeyed, and someone other than the invoking user and root can change
    /// it (see [`super::trust`]).
    Untrusted,
    /// Any other error of the system.
    Io,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl Unreadable {
    /// The failure for `message` (a whole line naming the file): exit 2 when the file is
    /// also an output of the run, else what `otherwise` makes of it.
    pub(crate) fn failure(
        &self,
        message: String,
        otherwise: impl FnOnce(String) -> Failure,
    ) -> Failure {
        match self.problem {
            Problem::Output => Failure::usage(message),
            _ => otherwise(message),
        }
    }

    fn new(problem: Problem, why: impl Into<String>) -> Unreadable {
        let why = why.into();
        Unreadable { problem, why }
    }

    fn io(e: &io::Error) -> Unreadable {
        let problem = match e.kind() {
            io::ErrorKind::NotFound => Problem::Missing,
            _ => Problem::Io,
        };
        Unreadable::new(problem, crate::io_util::io_reason(e))
    }

    /// A regular file that is where `stream` (stdout or stderr) goes: reading it while
    /// writing it destroys it. When it is stderr, nothing more is written there (see
    /// [`run::stderr_is_input`]): the message itself would land in the input.
    fn output(stream: &str) -> Unreadable {
        let why = match stream {
            "stdout" => {
                "it is also where this run's output goes (stdout), which would write over it \
                 while it is read; write the output to a new file"
            }
            _ => {
                run::stderr_read_as_input();
                "it is also where this run's messages go (stderr), which would write over it \
                 while it is read; send them to another file"
            }
        };
        Unreadable::new(Problem::Output, why)
    }

    fn too_large(limit: &Limit) -> Unreadable {
        Unreadable::new(Problem::TooLarge, too_large_why(limit))
    }
}

fn too_large_why(limit: &Limit) -> String {
    format!(
        "it is larger than {}, the cap for the {}",
        super::size(limit.cap),
        limit.what
    )
}

/// Why a regular file that reads more than its size said is refused: a kernel file (one of
/// /proc, whose size is 0 however much it holds: `/proc/self/pagemap` reads on for
/// gigabytes) or a file being written while it is read; neither is an input to trust, and
/// reading on to the cap would take as long as the cap is large.
fn grew_why(size: u64, limit: &Limit) -> String {
    format!(
        "it reads more than the {size} bytes its size says (a kernel file, as under /proc, \
         or a file being written now); a file is read no further than its size, and at most \
         {}, the cap for the {}",
        super::size(limit.cap),
        limit.what
    )
}

/// A reader that refuses to go past a cap: reading more than `cap` bytes is an error that
/// names the cap, never a silent cut.
#[derive(Debug)]
pub(crate) struct Capped<R> {
    inner: R,
    left: u64,
    limit: &'static Limit,
    /// For a regular file (or a stdin redirected from one), what it was when opened: reading
    /// past its size is refused at once (see [`grew_why`]) rather than read on to the cap,
    /// and its end is checked against it (see [`Opened::why_changed`]).
    opened: Option<Opened>,
}

/// What a regular file was when it was opened, looked at again when its end is read: an
/// input cut short, rewritten or replaced while a run reads it is not the input that was
/// asked about, and a run that took its end as the end would call itself complete (exit 0
/// for a list of which most was never asked).
#[derive(Debug)]
struct Opened {
    /// A second handle on the same open file, to look at it again at its end.
    file: File,
    /// The name it was opened by, to tell a file renamed or copied over it; `None` for
    /// stdin.
    path: Option<PathBuf>,
    /// Its identity when opened.
    id: Option<run::Id>,
    /// The bytes to read: its size, less where stdin stood when the run started.
    expected: u64,
    /// Its size, modification time and status-change time when opened.
    len: u64,
    modified: Option<SystemTime>,
    ctime: Option<(i64, i64)>,
}

/// When the file's inode last changed (Unix's ctime, seconds and nanoseconds): unlike the
/// modification time, no program can set it back, so a rewrite in place whose writer put
/// the old modification time back (`cp -p`, `touch -r`) still shows. `None` elsewhere.
#[cfg(unix)]
fn status_changed(meta: &Metadata) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn status_changed(_meta: &Metadata) -> Option<(i64, i64)> {
    None
}

impl Opened {
    fn new(file: &File, meta: &Metadata, path: Option<&Path>, start: u64) -> Option<Opened> {
        Some(Opened {
            file: file.try_clone().ok()?,
            path: path.map(Path::to_owned),
            id: run::file_id(file, meta),
            expected: meta.len().saturating_sub(start),
            len: meta.len(),
            modified: meta.modified().ok(),
            ctime: status_changed(meta),
        })
    }

    /// Why the file is no longer what was opened, once its end was reached after `read`
    /// bytes: cut short, another file (or none) now at its name, or rewritten in place (its
    /// size, modification time or ctime is not what it was). `None` when nothing shows a
    /// change (a rewrite to the same size within one tick of the file system's clock cannot
    /// be seen).
    fn why_changed(&self, read: u64) -> Option<String> {
        if read < self.expected {
            return Some(format!(
                "it ended after {read} bytes where it had {} when it was opened (cut short)",
                self.expected
            ));
        }
        // Its name first: a file renamed over it, or it removed, also changes its status
        // time (its link count), which would read as a rewrite.
        if let Some(path) = self.path.as_deref() {
            match std::fs::metadata(path) {
                Ok(meta) if run::path_id(path, &meta) != self.id => {
                    return Some(
                        "another file now has its name (renamed or copied over it)".into(),
                    );
                }
                Ok(_) => {}
                Err(_) => {
                    return Some("its name no longer leads to it (removed or renamed)".into());
                }
            }
        }
        let now = self.file.metadata().ok()?;
        if now.len() != self.len
            || now.modified().ok() != self.modified
            || status_changed(&now) != self.ctime
        {
            return Some(
                "it was rewritten in place (its size, modification time or status-change \
                 time is not what it was when it was opened)"
                    .into(),
            );
        }
        None
    }
}

/// Why an input is not what was opened (see [`Opened`]), carried by the read error.
#[derive(Debug)]
struct Changed(String);

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Changed {}

/// The failure for a read error on an input named `name` that changed while it was read:
/// exit 10, naming the file, `stopped` saying what of it was not reached (`nothing after
/// line 34 was verified`); `None` for any other error. What was read of such a file is no
/// answer for the file that was asked about.
pub(crate) fn changed(name: &str, e: &io::Error, stopped: &str) -> Option<Failure> {
    let why = e.get_ref()?.downcast_ref::<Changed>()?;
    Some(Failure::new(
        Exit::Internal,
        format!(
            "{name} changed while it was read: {why}; {stopped} (write a new file under \
             another name and rename it into place, or let its export finish, before \
             payverify reads it)"
        ),
    ))
}

impl<R> Capped<R> {
    /// `inner`, read up to `limit`'s cap.
    pub(super) fn new(inner: R, limit: &'static Limit) -> Self {
        Capped {
            inner,
            left: limit.cap,
            limit,
            opened: None,
        }
    }

    /// `inner`, a regular file that was `opened` as it says, read up to its size and to
    /// `limit`'s cap.
    fn file(inner: R, limit: &'static Limit, opened: Option<Opened>) -> Self {
        Capped {
            opened,
            ..Capped::new(inner, limit)
        }
    }

    /// The reader itself, still capped.
    pub(crate) fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader itself, for a caller that checked the size up front and reads again
    /// (`--resume` seeks back to each record).
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// The end of the input was read: `Ok(0)`, unless the file is not what was opened.
    fn at_end(&self) -> io::Result<usize> {
        let read = self.limit.cap - self.left;
        match self
            .opened
            .as_ref()
            .and_then(|opened| opened.why_changed(read))
        {
            Some(why) => Err(io::Error::other(Changed(why))),
            None => Ok(0),
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the cap: one more byte means the input is larger than allowed.
            let mut probe = [0u8; 1];
            return match patient_read(&mut self.inner, &mut probe)? {
                0 => self.at_end(),
                _ => Err(io::Error::other(too_large_why(self.limit))),
            };
        }
        let room = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = patient_read(&mut self.inner, &mut buf[..room])?;
        if n == 0 {
            return self.at_end();
        }
        self.left -= n as u64;
        if let Some(opened) = &self.opened
            && self.limit.cap - self.left > opened.expected
        {
            // Refused as a kernel file is (exit 2 or 6 before any request), not taken for a
            // file changed while it was read: reading on to the cap would take as long as
            // the cap is large.
            return Err(io::Error::other(grew_why(opened.expected, self.limit)));
        }
        Ok(n)
    }
}

/// How long a read that found no data on a non-blocking input waits before it tries again.
const NO_DATA_YET: std::time::Duration = std::time::Duration::from_millis(10);

/// One read of `inner` that a signal or a non-blocking input does not fail: `Interrupted`
/// (EINTR) is tried again at once, as std's own read loops do, and `WouldBlock` (EAGAIN, a
/// stdin inherited in non-blocking mode, whose mode is shared with the shell and so is not
/// changed) is tried again after [`NO_DATA_YET`], as a blocking read would have waited.
/// Every input payverify reads goes through [`Capped`], so this is the one place.
fn patient_read(inner: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match inner.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(NO_DATA_YET),
            other => return other,
        }
    }
}

/// Opens `path` to read it as `limit` says: a directory, a device or a socket (and a named
/// pipe, unless `limit` is a stream) is refused before it is opened; nothing is opened in a
/// way that blocks; a regular file larger than the cap is refused at once, a pipe when it
/// passes the cap; a file that is where stdout or stderr goes is refused. The file is
/// remembered as one this run reads.
pub(crate) fn open(path: &Path, limit: &'static Limit) -> Result<Capped<File>, Unreadable> {
    let before = std::fs::metadata(path).map_err(|e| Unreadable::io(&e))?;
    refuse_kind(&before, limit)?;
    if before.is_file() && before.len() > limit.cap {
        return Err(Unreadable::too_large(limit));
    }
    let file = open_nonblocking(path).map_err(|e| Unreadable::io(&e))?;
    // What was opened, which may not be what was looked at a moment before.
    let meta = file.metadata().map_err(|e| Unreadable::io(&e))?;
    refuse_kind(&meta, limit)?;
    if meta.is_file() {
        if meta.len() > limit.cap {
            return Err(Unreadable::too_large(limit));
        }
        if let Some(stream) = run::std_stream(run::file_id(&file, &meta)) {
            return Err(Unreadable::output(stream));
        }
        if limit.obeyed
            && let Some(why) = super::trust::untrusted(path, &meta)
        {
            return Err(Unreadable::new(Problem::Untrusted, why));
        }
    } else {
        blocking(&file).map_err(|e| Unreadable::io(&e))?;
    }
    run::register(run::file_id(&file, &meta), limit.what, Some(path));
    Ok(match meta.is_file() {
        true => {
            let opened = Opened::new(&file, &meta, Some(path), 0);
            Capped::file(file, limit, opened)
        }
        false => Capped::new(file, limit),
    })
}

/// The whole of `path`, read as [`open`] says.
pub(crate) fn read(path: &Path, limit: &'static Limit) -> Result<Vec<u8>, Unreadable> {
    let mut file = open(path, limit)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| match file.left == 0 {
            true => Unreadable::too_large(limit),
            false => Unreadable::io(&e),
        })?;
    Ok(bytes)
}

/// The whole of `path` as UTF-8 text, read as [`open`] says.
pub(crate) fn read_text(path: &Path, limit: &'static Limit) -> Result<String, Unreadable> {
    String::from_utf8(read(path, limit)?)
        .map_err(|_| Unreadable::new(Problem::Io, "it is not UTF-8 text"))
}

/// Remembers `path`, when something is there, as a file of the kind `limit` names that
/// this run must not write over although it does not read it (the sandbox leaves the config
/// file alone, but `--tls-ca-out` must not replace it).
pub(crate) fn keep_safe(path: &Path, limit: &'static Limit) {
    if let Ok(meta) = std::fs::metadata(path) {
        run::register(run::path_id(path, &meta), limit.what, Some(path));
    }
}

/// Stdin, capped as `limit` says and remembered as an input of the run; refused when it
/// is a regular file that is where stdout or stderr goes (`- < refs.txt >> refs.txt`
/// would read its own output back as input).
pub(crate) fn stdin(limit: &'static Limit) -> Result<Capped<io::Stdin>, Unreadable> {
    if let Some(stream) = run::std_stream(run::stdin_file_id()) {
        return Err(Unreadable::output(stream));
    }
    run::register(run::stdin_id(), limit.what, None);
    let opened = run::stdin_file().and_then(|mut file| {
        let meta = file.metadata().ok()?;
        let start = io::Seek::stream_position(&mut file).ok()?;
        meta.is_file()
            .then(|| Opened::new(&file, &meta, None, start))
            .flatten()
    });
    Ok(Capped::file(io::stdin(), limit, opened))
}

/// Refuses what is not a regular file (or, for a stream, a named pipe).
fn refuse_kind(meta: &Metadata, limit: &Limit) -> Result<(), Unreadable> {
    match kind_refused(meta, limit.stream) {
        None => Ok(()),
        Some(why) => Err(Unreadable::new(Problem::NotAFile, why)),
    }
}

#[cfg(unix)]
pub(super) fn kind_refused(meta: &Metadata, stream: bool) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("it is a directory")
    } else if kind.is_fifo() && stream {
        None
    } else if kind.is_fifo() {
        Some("it is a named pipe (FIFO), not a regular file")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("it is a device, not a regular file")
    } else if kind.is_socket() {
        Some("it is a socket, not a regular file")
    } else {
        Some("it is not a regular file")
    }
}

#[cfg(not(unix))]
pub(super) fn kind_refused(meta: &Metadata, _stream: bool) -> Option<&'static str> {
    match (meta.is_file(), meta.is_dir()) {
        (true, _) => None,
        (_, true) => Some("it is a directory"),
        _ => Some("it is not a regular file"),
    }
}

/// Opens for reading with `O_NONBLOCK`, so that a named pipe with no writer (or one put in
/// place of a file a moment ago) never holds the process in `open()`.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

/// Waits for a named pipe's writer (as a blocking open would, but in `poll()`, which a
/// signal ends like any wait: `mkfifo p; payverify --from p & producer > p` works whoever
/// opens first), then makes reads wait for data again: the stream is read like stdin.
#[cfg(unix)]
fn blocking(file: &File) -> io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    // Linux reports no hang-up on a pipe opened without blocking until a writer has come,
    // so this returns once one has written, or has come and gone.
    loop {
        let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::NONE) {
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(io::Error::from(e)),
            Ok(_) => break,
        }
    }
    let flags = fcntl(file, FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) - OFlag::O_NONBLOCK;
    fcntl(file, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(())
}

#[cfg(not(unix))]
fn blocking(_: &File) -> io::Result<()> {
    Ok(())
}
