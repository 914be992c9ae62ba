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
    use windows_acl::acl::{ACL, AceType};
    let entries = ACL::from_file_path(path.to_str()?, false)
        .ok()?
        .all()
        .ok()?;
    let aces: Vec<(bool, &str, u32)> = entries
        .iter()
        .filter_map(|e| match e.entry_type {
            AceType::AccessAllow => Some((true, e.string_sid.as_str(), e.mask)),
            AceType::AccessDeny => Some((false, e.string_sid.as_str(), e.mask)),
            _ => None,
        })
        .collect();
    let readers = broad_readers(&aces);
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

/// The broad groups, by well-known SID, that an allow entry must not let read a secret file.
#[cfg(any(windows, test))]
const BROAD_GROUPS: [(&str, &str); 7] = [
    ("S-1-1-0", "Everyone"),
    ("S-1-5-11", "Authenticated Users"),
    ("S-1-5-32-545", "Users"),
    ("S-1-5-32-546", "Guests"),
    ("S-1-5-7", "Anonymous Logon"),
    ("S-1-5-2", "Network"),
    ("S-1-5-4", "Interactive"),
];

/// Which broad groups an access list, as (allow?, SID, access mask) entries in order, lets
/// read the file: an allow entry granting read data, generic read or generic all, unless an
/// earlier deny entry for that group already refused it (Windows stops at the first entry
/// that decides).
#[cfg(any(windows, test))]
pub(super) fn broad_readers(aces: &[(bool, &str, u32)]) -> Vec<&'static str> {
    // FILE_READ_DATA, GENERIC_ALL, GENERIC_READ.
    const READ: u32 = 0x1 | 0x1000_0000 | 0x8000_0000;
    let mut denied: Vec<&str> = Vec::new();
    let mut readers = Vec::new();
    for &(allow, sid, mask) in aces {
        if mask & READ == 0 {
            continue;
        }
        let Some(&(_, name)) = BROAD_GROUPS.iter().find(|(known, _)| *known == sid) else {
            continue;
        };
        if !allow {
            denied.push(sid);
        } else if !denied.contains(&sid) && !readers.contains(&name) {
            readers.push(name);
        }
    }
    readers
}
