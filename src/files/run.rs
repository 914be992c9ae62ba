//! What this run reads, and where its stdout and stderr go: the files no output may replace.
//!
//! Files are told apart by device and inode (on Windows by volume serial number and file
//! index), so a second name (a hard link, a symlink, `/dev/stdout`, `/proc/self/fd/1`, `./x`)
//! is the same file.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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
            Some(path) => std::fs::metadata(path).ok().and_then(|m| path_id(path, &m)),
            None => stdin_id(),
        };
        now == Some(self.id)
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

/// Set once an input was refused for being where stderr goes.
static STDERR_IS_INPUT: AtomicBool = AtomicBool::new(false);

/// Notes that stderr is a file the run was asked to read (`--from refs.txt 2>>refs.txt`).
pub(super) fn stderr_read_as_input() {
    STDERR_IS_INPUT.store(true, Ordering::SeqCst);
}

/// Whether stderr is a file the run was asked to read: then nothing is written to it, not
/// even the refusal, which would land in that input (the exit status, 2, is all that
/// says why; docs/verify.md tells).
pub(crate) fn stderr_is_input() -> bool {
    STDERR_IS_INPUT.load(Ordering::SeqCst)
}

/// A file's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Id {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn id(meta: &Metadata) -> Id {
    use std::os::unix::fs::MetadataExt;
    Id {
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

/// On Windows, from an open handle: std's Windows metadata carries no identity on stable.
#[cfg(windows)]
fn handle_id(handle: impl winapi_util::AsHandleRef) -> Option<Id> {
    let info = winapi_util::file::information(handle).ok()?;
    Some(Id {
        dev: info.volume_serial_number(),
        ino: info.file_index(),
    })
}

/// The identity of `file`, just opened, whose metadata is `meta`.
#[cfg(unix)]
pub(super) fn file_id(_file: &File, meta: &Metadata) -> Option<Id> {
    Some(id(meta))
}

#[cfg(windows)]
pub(super) fn file_id(file: &File, _meta: &Metadata) -> Option<Id> {
    handle_id(file)
}

/// The identity of what `path` reaches (through links), whose metadata is `meta`. On
/// Windows the path is opened for its attributes only (no read or write access, sharing
/// everything), which neither blocks nor disturbs another process's use of it.
#[cfg(unix)]
pub(super) fn path_id(_path: &Path, meta: &Metadata) -> Option<Id> {
    Some(id(meta))
}

#[cfg(windows)]
pub(super) fn path_id(path: &Path, _meta: &Metadata) -> Option<Id> {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE; FILE_FLAG_BACKUP_SEMANTICS, so
    // a directory opens too.
    let file = std::fs::OpenOptions::new()
        .access_mode(0)
        .share_mode(0x7)
        .custom_flags(0x0200_0000)
        .open(path)
        .ok()?;
    handle_id(&file)
}

/// Remembers that this run reads the file `meta` describes, as `what`, by the name `path`
/// (`None`: stdin).
pub(super) fn register(id: Option<Id>, what: &'static str, path: Option<&Path>) {
    let Some(id) = id else {
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

/// What a standard stream is (the file, pipe or device it reads or writes), when it is
/// open.
#[cfg(unix)]
fn stream_id(stream: impl std::os::fd::AsFd) -> Option<Id> {
    let fd = stream.as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok().map(|meta| id(&meta))
}

/// What a standard handle is (`> out.jsonl` in cmd or PowerShell), when there is one.
#[cfg(windows)]
fn stream_id(stream: impl winapi_util::AsHandleRef) -> Option<Id> {
    handle_id(stream)
}

/// What stdin is, when it is open.
pub(super) fn stdin_id() -> Option<Id> {
    stream_id(io::stdin())
}

/// What stdin is when it is a regular file (`< refs.txt`): a terminal or a pipe is never
/// one that stdout or stderr could write over (an interactive shell gives all three the
/// same terminal).
#[cfg(unix)]
pub(super) fn stdin_file_id() -> Option<Id> {
    let meta = stdin_file()?.metadata().ok()?;
    meta.is_file().then(|| id(&meta))
}

/// A console has no file identity on Windows, so stdin's identity is that of a file.
#[cfg(windows)]
pub(super) fn stdin_file_id() -> Option<Id> {
    stdin_id()
}

/// A second handle on what stdin reads, sharing its position, to look at it as a file.
#[cfg(unix)]
pub(super) fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    Some(File::from(io::stdin().as_fd().try_clone_to_owned().ok()?))
}

#[cfg(windows)]
pub(super) fn stdin_file() -> Option<File> {
    use std::os::windows::io::AsHandle;
    Some(File::from(
        io::stdin().as_handle().try_clone_to_owned().ok()?,
    ))
}

/// `"stdout"` or `"stderr"` when the file `id` names is where that stream goes.
pub(super) fn std_stream(id: Option<Id>) -> Option<&'static str> {
    let id = id?;
    [
        ("stdout", stream_id(io::stdout())),
        ("stderr", stream_id(io::stderr())),
    ]
    .into_iter()
    .find_map(|(name, stream)| (stream == Some(id)).then_some(name))
}

/// Why writing the file `id` names would destroy something this run uses: it is
/// where stdout or stderr goes, or a file the run reads (other than one of kind `updating`,
/// the file a command means to rewrite).
pub(super) fn collision(id: Option<Id>, updating: Option<&'static str>) -> Option<String> {
    if let Some(stream) = std_stream(id) {
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
        .find(|input| id == Some(input.id) && input.current())?;
    Some(format!(
        "it is the {} this run reads ({})",
        found.what,
        found.name()
    ))
}
