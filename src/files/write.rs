//! Atomic writes: a file payverify writes is whole or untouched.
//!
//! The text goes to a new temporary file beside the target (created exclusively, so a
//! planted file or link there is never written through), is fsynced, and is renamed over
//! the target; the directory is fsynced after. Anything at the target that is not a regular
//! file of this user (a symlink, a device, a directory, a pipe, another user's file) is
//! refused before anything is touched, and so is a target that is one of the run's inputs
//! or where stdout or stderr goes. Permissions are set on the temporary file's own
//! descriptor, never through a path. A temporary file that a killed run left beside the same
//! target (a SIGKILL before its rename) is removed first, once its process is gone (unix).

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::run;

/// How a target may be replaced.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Replace {
    /// The permission bits the file gets (`0o600` for a file that may hold secrets). `None`:
    /// those of the file it replaces, or the usual ones (umask) for a new file.
    pub(crate) mode: Option<u32>,
    /// The kind of input (a [`super::Limit::what`]) the target is expected to be: the
    /// file a command reads in order to rewrite it (`config init` and the config file).
    pub(crate) updating: Option<&'static str>,
}

/// Why a file cannot be written.
#[derive(Debug)]
pub(crate) struct Unwritable {
    /// Whether the target is something the run reads, or stdout or stderr (exit 2 for
    /// every command), rather than a file that cannot be written (each command's own).
    pub(crate) collision: bool,
    /// Why, as the end of a sentence that names the file.
    pub(crate) why: String,
}

impl std::fmt::Display for Unwritable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl Unwritable {
    fn refused(why: impl Into<String>) -> Unwritable {
        Unwritable {
            collision: false,
            why: why.into(),
        }
    }

    fn io(e: &io::Error) -> Unwritable {
        Unwritable::refused(crate::io_util::io_reason(e))
    }
}

/// Temporary files not yet renamed into place, for a hurried exit to remove.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every temporary file a write has not yet put in place; for an exit that skips
/// destructors (a second Ctrl-C).
pub(crate) fn remove_temporaries() {
    if let Ok(mut temps) = TEMPORARIES.lock() {
        for temp in temps.drain(..) {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Removes `path` on a hurried exit too, until [`untrack_temporary`]: for a temporary file
/// made outside [`prepare`] (the sandbox's CA certificate).
pub(crate) fn track_temporary(path: &Path) {
    if let Ok(mut temps) = TEMPORARIES.lock() {
        temps.push(path.to_path_buf());
    }
}

/// `path` is removed (or kept on purpose): a hurried exit leaves it alone.
pub(crate) fn untrack_temporary(path: &Path) {
    if let Ok(mut temps) = TEMPORARIES.lock() {
        temps.retain(|t| t != path);
    }
}

/// A write under way: the temporary file exists; [`Pending::commit`] puts it in place,
/// dropping it removes it.
#[derive(Debug)]
pub(crate) struct Pending {
    target: PathBuf,
    temp: PathBuf,
    file: Option<File>,
    mode: Option<u32>,
    replace: Replace,
}

/// Checks that `path` may be written as `replace` says and creates the temporary file
/// beside it (which proves the directory writable); nothing at `path` is touched.
pub(crate) fn prepare(path: &Path, replace: Replace) -> Result<Pending, Unwritable> {
    let existing = check_target(path, replace)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Unwritable::refused("it names no file"))?;
    remove_leftovers(&dir, name);
    let mut temp_name = OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".payverify-{}.tmp", std::process::id()));
    let temp = dir.join(temp_name);
    let mode = replace.mode.or(existing.as_ref().map(permission_bits));
    let file = create_new(&temp, mode).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => Unwritable::refused("its directory does not exist"),
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            Unwritable::refused(format!(
                "cannot create a file in its directory ({}); payverify writes a new file \
                 beside it and renames it into place, so the directory must be writable",
                crate::io_util::io_reason(&e)
            ))
        }
        _ => Unwritable::io(&e),
    })?;
    if let Ok(mut temps) = TEMPORARIES.lock() {
        temps.push(temp.clone());
    }
    Ok(Pending {
        target: path.to_path_buf(),
        temp,
        file: Some(file),
        mode,
        replace,
    })
}

/// Removes the temporary files an earlier run left beside `name` in `dir` when it was killed
/// before it could (SIGKILL, a power cut): each regular file of this user named exactly as
/// [`prepare`] names one for this target, `.NAME.payverify-PID.tmp`, whose PID is no live
/// process. A link is neither followed nor removed; a live process's file (another run
/// writing the same target) and anything named otherwise are left alone.
#[cfg(unix)]
fn remove_leftovers(dir: &Path, name: &OsStr) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = leftover_pid(&entry.file_name(), name) else {
            continue;
        };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let path = entry.path();
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && meta.file_type().is_file()
            && other_owner(&meta).is_none()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// No process ids to ask about: a temporary file left by a killed run stays.
#[cfg(not(unix))]
fn remove_leftovers(_: &Path, _: &OsStr) {}

/// The process id in `file`, when it is a temporary file's name for the target `name`:
/// `.` `name` `.payverify-` the id as `{}` prints it (no sign, no leading zero) `.tmp`.
#[cfg(unix)]
pub(super) fn leftover_pid(file: &OsStr, name: &OsStr) -> Option<u32> {
    let rest = file.as_encoded_bytes().strip_prefix(b".")?;
    let rest = rest.strip_prefix(name.as_encoded_bytes())?;
    let digits = rest.strip_prefix(b".payverify-")?.strip_suffix(b".tmp")?;
    let digits = std::str::from_utf8(digits).ok()?;
    let pid: u32 = digits.parse().ok()?;
    (pid.to_string() == digits).then_some(pid)
}

/// Whether `pid` may be a live process: anything but "no such process" says it may (one
/// of another user's is live too), so a file is removed only when its writer is surely gone.
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    use nix::errno::Errno;
    let Some(pid) = i32::try_from(pid).ok().filter(|p| *p > 0) else {
        return true;
    };
    !matches!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Err(Errno::ESRCH)
    )
}

/// Writes `bytes` to `path` atomically (see the module's documentation).
#[cfg(test)]
pub(crate) fn write(path: &Path, bytes: &[u8], replace: Replace) -> Result<(), Unwritable> {
    prepare(path, replace)?.commit(bytes)
}

impl Pending {
    /// Writes `bytes` to the temporary file, fsyncs it and renames it over the target,
    /// which is checked again first (it may have changed while the run went on). On any
    /// error the target is as it was and the temporary file is gone.
    pub(crate) fn commit(self, bytes: &[u8]) -> Result<(), Unwritable> {
        self.put(bytes).map(drop)
    }

    /// Puts a file holding `first` in place of the target as [`Pending::commit`] does and
    /// gives it back open for writing, remembered as an input of the kind `updating` names,
    /// so no other output of the run replaces it: `--state`'s file, filled record by
    /// record. `first` is written before the rename, so a disk too full for it leaves the
    /// target as it was rather than empty.
    pub(crate) fn commit_open(self, first: &[u8]) -> Result<File, Unwritable> {
        let (path, what) = (self.target.clone(), self.replace.updating);
        let file = self.put(first)?;
        if let (Some(what), Ok(meta)) = (what, file.metadata()) {
            run::register(run::file_id(&file, &meta), what, Some(&path));
        }
        Ok(file)
    }

    /// The temporary file, to write into before [`Pending::commit`] puts it in place: a
    /// file filled record by record that must not replace the target until it is whole.
    pub(crate) fn open(&mut self) -> Result<&mut File, String> {
        self.file
            .as_mut()
            .ok_or_else(|| "it was already written".to_owned())
    }

    fn put(mut self, bytes: &[u8]) -> Result<File, Unwritable> {
        let Some(mut file) = self.file.take() else {
            return Err(Unwritable::refused("it was already written"));
        };
        file.write_all(bytes)
            .and_then(|()| set_mode(&file, self.mode))
            .and_then(|()| file.sync_all())
            .map_err(|e| Unwritable::io(&e))?;
        check_target(&self.target, self.replace)?;
        std::fs::rename(&self.temp, &self.target).map_err(|e| Unwritable::io(&e))?;
        self.forget_temp();
        // The rename is durable once the directory is; the new file is in place either
        // way, so a directory that cannot be synced is not a failed write.
        if let Some(dir) = self.target.parent().filter(|d| !d.as_os_str().is_empty())
            && let Ok(dir) = File::open(dir)
        {
            let _ = dir.sync_all();
        }
        Ok(file)
    }

    fn forget_temp(&self) {
        if let Ok(mut temps) = TEMPORARIES.lock() {
            temps.retain(|t| t != &self.temp);
        }
    }
}

impl Drop for Pending {
    /// A write that was not committed leaves nothing behind.
    fn drop(&mut self) {
        if self.file.is_some() || self.temp.exists() {
            let _ = std::fs::remove_file(&self.temp);
        }
        self.forget_temp();
    }
}

/// Whether `a` and `b` name one file, whether it exists yet or not: the same name in the
/// same directory (`x` and `./x` are one), for two outputs of a run.
pub(crate) fn same_target(a: &Path, b: &Path) -> bool {
    let dir = |p: &Path| match p.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.canonicalize().ok(),
        _ => Path::new(".").canonicalize().ok(),
    };
    a.file_name() == b.file_name() && dir(a).is_some_and(|d| Some(d) == dir(b))
}

/// What is at `path` now, when it may be replaced: nothing, or a regular file of this user
/// that is none of the run's inputs (but `replace.updating`), stdout or stderr.
fn check_target(path: &Path, replace: Replace) -> Result<Option<Metadata>, Unwritable> {
    let link = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Unwritable::io(&e)),
    };
    // Through a link, what it reaches, so the message says what would have been lost.
    let reached = match link.file_type().is_symlink() {
        true => std::fs::metadata(path).ok(),
        false => Some(link.clone()),
    };
    if let Some(why) = reached
        .as_ref()
        .and_then(|m| run::collision(run::path_id(path, m), replace.updating))
    {
        return Err(Unwritable {
            collision: true,
            why,
        });
    }
    if link.file_type().is_symlink() {
        return Err(Unwritable::refused(
            "it is a symbolic link; payverify never writes through one: give the path of \
             the file itself",
        ));
    }
    if let Some(why) = super::read::kind_refused(&link, false) {
        return Err(Unwritable::refused(format!(
            "{why}; payverify writes only to a regular file"
        )));
    }
    if let Some(owner) = other_owner(&link) {
        return Err(Unwritable::refused(format!(
            "it belongs to another user (uid {owner}); payverify will not replace it with a \
             file of its own: ask its owner, or write to a file of your own"
        )));
    }
    Ok(Some(link))
}

/// The owner of the file `meta` describes when it is not the user payverify runs as.
#[cfg(unix)]
fn other_owner(meta: &Metadata) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    (meta.uid() != me).then_some(meta.uid())
}

#[cfg(not(unix))]
fn other_owner(_: &Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn permission_bits(meta: &Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn permission_bits(_: &Metadata) -> u32 {
    0
}

/// A new file with `mode` (under the umask): private from the start when the final mode is,
/// else the usual mode of a new file.
#[cfg(unix)]
fn create_new(path: &Path, mode: Option<u32>) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode.unwrap_or(0o666) & 0o777)
        .open(path)
}

#[cfg(not(unix))]
fn create_new(path: &Path, _: Option<u32>) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Sets the file's mode through its descriptor (never through a path, which a link could
/// redirect), exactly, whatever the umask. `None`: as it was created.
#[cfg(unix)]
fn set_mode(file: &File, mode: Option<u32>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match mode {
        Some(mode) => file.set_permissions(std::fs::Permissions::from_mode(mode)),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
fn set_mode(_: &File, _: Option<u32>) -> io::Result<()> {
    Ok(())
}
