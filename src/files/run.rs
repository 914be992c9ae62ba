//! What this run reads, and where its stdout and stderr go: the files no output may replace.
//!
//! Files are told apart by device and inode, so a second name (a hard link, a symlink,
//! `/dev/stdout`, `/proc/self/fd/1`, `./x`) is the same file.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One file read by this run.
struct Input {
    id: Id,
    /// What it is to this run, as [`super::Limit::what`] says it.
    what: &'static str,
    /// Its name; `None` for stdin.
    path: Option<PathBuf>,
}

impl Input {
    /// Whether its name still leads to the file that was read (one deleted since may have
    /// left its inode number to a new file).
    fn current(&self) -> bool {
        let now = match &self.path {
            Some(path) => std::fs::metadata(path).ok(),
            None => stdin_meta(),
        };
        now.as_ref().and_then(id) == Some(self.id)
    }

    fn name(&self) -> String {
        match &self.path {
            Some(path) => crate::terminal::scrub(&path.display().to_string()),
            None => "stdin".into(),
        }
    }
}

/// Every file read so far; outputs are checked against it.
static INPUTS: Mutex<Vec<Input>> = Mutex::new(Vec::new());

/// A file's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Id {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn id(meta: &Metadata) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    Some(Id {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

/// Off Unix there is no cheap identity; nothing is found to be the same file.
#[cfg(not(unix))]
fn id(_: &Metadata) -> Option<Id> {
    None
}

/// Whether two files are one (same device and inode).
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    matches!((id(a), id(b)), (Some(a), Some(b)) if a == b)
}

/// Remembers that this run reads the file `meta` describes, as `what`, by the name `path`
/// (`None`: stdin).
pub(super) fn register(meta: &Metadata, what: &'static str, path: Option<&Path>) {
    let Some(id) = id(meta) else {
        return;
    };
    if let Ok(mut inputs) = INPUTS.lock() {
        inputs.push(Input {
            id,
            what,
            path: path.map(Path::to_owned),
        });
    }
}

/// What fd 1 is (the file, pipe or device it writes to), when it is open.
#[cfg(unix)]
fn stdout_meta() -> Option<Metadata> {
    use std::os::fd::AsFd;
    stream_meta(std::io::stdout().as_fd())
}

/// Off Unix, stdout is never found to be a file.
#[cfg(not(unix))]
fn stdout_meta() -> Option<Metadata> {
    None
}

#[cfg(unix)]
fn stderr_meta() -> Option<Metadata> {
    use std::os::fd::AsFd;
    stream_meta(std::io::stderr().as_fd())
}

#[cfg(not(unix))]
fn stderr_meta() -> Option<Metadata> {
    None
}

#[cfg(unix)]
pub(super) fn stdin_meta() -> Option<Metadata> {
    use std::os::fd::AsFd;
    stream_meta(std::io::stdin().as_fd())
}

#[cfg(not(unix))]
pub(super) fn stdin_meta() -> Option<Metadata> {
    None
}

#[cfg(unix)]
fn stream_meta(fd: std::os::fd::BorrowedFd<'_>) -> Option<Metadata> {
    let fd = fd.try_clone_to_owned().ok()?;
    std::fs::File::from(fd).metadata().ok()
}

/// `"stdout"` or `"stderr"` when the file `meta` describes is where that stream goes.
pub(super) fn std_stream(meta: &Metadata) -> Option<&'static str> {
    [("stdout", stdout_meta()), ("stderr", stderr_meta())]
        .into_iter()
        .find_map(|(name, stream)| stream.filter(|s| same_file(s, meta)).map(|_| name))
}

/// Why writing the file `meta` describes would destroy something this run uses: it is
/// where stdout or stderr goes, or a file the run reads (other than one of kind `updating`,
/// the file a command means to rewrite).
pub(super) fn collision(meta: &Metadata, updating: Option<&'static str>) -> Option<String> {
    if let Some(stream) = std_stream(meta) {
        let carries = match stream {
            "stdout" => "which carries this run's output",
            _ => "which carries this run's messages",
        };
        return Some(format!("it is where {stream} goes, {carries}"));
    }
    let inputs = INPUTS.lock().ok()?;
    let found = inputs
        .iter()
        .filter(|input| Some(input.what) != updating)
        .find(|input| id(meta) == Some(input.id) && input.current())?;
    Some(format!(
        "it is the {} this run reads ({})",
        found.what,
        found.name()
    ))
}
