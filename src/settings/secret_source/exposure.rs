//! Whether a file that holds a secret is readable by others: its mode on Unix, its access
//! list on Windows.

use std::path::Path;

use crate::settings::{Fix, Warning};

/// A warning when `path` (which holds a secret) is readable by group or others.
#[cfg(unix)]
pub(crate) fn exposed_file_warning(path: &Path) -> Option<Warning> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o077 != 0).then(|| Warning {
        what: format!(
            "{} holds a client secret and is readable by others (mode {:o})",
            path.display(),
            mode & 0o777,
        ),
        fix: Fix::Run(format!("chmod 600 {}", path.display())),
    })
}

/// A warning when `path` (which holds a secret) is readable by everyone on the machine: its
/// access list lets a broad group (Everyone, Users, Authenticated Users, Guests, anonymous
/// or network logons) read it, as files under `C:\` outside a user profile are by default.
/// Files under the user's profile inherit an access list of the user, SYSTEM and the
/// Administrators only, which is not warned about.
#[cfg(windows)]
pub(crate) fn exposed_file_warning(path: &Path) -> Option<Warning> {
    let readers = broad_readers(&crate::files::access_list(path)?);
    // The user's name itself: `%USERNAME%` means nothing to PowerShell.
    let user = std::env::var("USERNAME").unwrap_or_else(|_| "%USERNAME%".into());
    (!readers.is_empty()).then(|| Warning {
        what: format!(
            "{} holds a client secret and is readable by {} (its access list)",
            path.display(),
            readers.join(", "),
        ),
        fix: Fix::Run(format!(
            "icacls \"{}\" /inheritance:r /grant:r \"{user}:F\"",
            path.display()
        )),
    })
}

/// Which broad groups (Everyone, Users, ...) an access list, as (allow?, SID, access mask)
/// entries in order, lets read the file: an allow entry granting read data, generic read or
/// generic all, unless an earlier deny entry for that group already refused it.
#[cfg(any(windows, test))]
pub(super) fn broad_readers<S: AsRef<str>>(aces: &[(bool, S, u32)]) -> Vec<&'static str> {
    // FILE_READ_DATA, GENERIC_ALL, GENERIC_READ.
    const READ: u32 = 0x1 | 0x1000_0000 | 0x8000_0000;
    crate::files::broad_groups(aces, READ)
}
