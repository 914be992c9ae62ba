//! The files payverify reads and writes, and the three rules every one of them follows:
//!
//! - **Every read is bounded** ([`open`], [`read`], [`stdin`]): each kind of file has a size
//!   cap ([`Limit`]); directories, devices and sockets are refused before opening, a named
//!   pipe is read only where a stream is expected, and never opened in a way that blocks.
//! - **Every write is atomic or refused** ([`prepare`], then [`Pending::commit`]): a temporary file beside
//!   the target, fsynced and renamed over it; a symlink, a device, a directory or another
//!   user's file at the target is refused before anything is touched, and a failure leaves
//!   the old file byte for byte.
//! - **An input is read whole or refused**: a regular file (or stdin redirected from one)
//!   is checked at its end against its size, modification time and identity when opened,
//!   so one cut short, rewritten or replaced while it is read is an error ([`changed`]),
//!   never an end.
//! - **Outputs never replace inputs**: every file read is remembered for the run ([`run`]),
//!   so a file payverify writes that is one of them, or where stdout or stderr goes, is
//!   refused (exit 2) before any request, and so is an input that is where stdout goes.

mod read;
mod run;
mod trust;
mod write;

pub(crate) use read::{
    CA_FILE, CONFIG, ORDERS, PAYLOAD, Problem, REFERENCES, RESUME, SECRET_FILE, STATE, Unreadable,
    changed, keep_safe, open, read, read_text, stdin,
};
pub(crate) use run::stderr_is_input;
#[cfg(windows)]
pub(crate) use trust::access_list;
#[cfg(any(windows, test))]
pub(crate) use trust::broad_groups;
pub(crate) use trust::obeyed_program;
pub(crate) use trust::others_can_add_to;
#[cfg(test)]
use write::write;
pub(crate) use write::{
    Pending, Replace, Unwritable, prepare, remove_temporaries, same_target, track_temporary,
    untrack_temporary,
};

/// Why a file payverify keeps and decides by (the journal) must not be used: another user
/// owns it, or others can change it or a directory on the way to it (see [`trust`]).
/// `None` when only the invoking user and root can, or it cannot be looked at (then its
/// opening says why).
pub(crate) fn untrusted_file(path: &std::path::Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    trust::untrusted(path, &meta)
}

/// `bytes` as people say a cap: `64 KiB`, `1 MiB`, `4 GiB`.
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests;
