//! Who else can change a file payverify obeys. The config file says where the client secret
//! is sent and which command prints it; a secret file and a CA file decide what is sent and
//! which server is believed. One that another user can write (or replace, through the
//! directory holding it) hands that user the gate: a hostile `base_url` and a
//! `client_secret_command` run as the invoking user turn any reference into exit 0. Such a
//! file is refused, as ssh refuses its own config files, before anything in it is used.

use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Why the file `meta` describes, opened by the name `path`, must not be obeyed: another
/// user owns it, or anyone but its owner can write it or a directory on the way to it
/// (which lets them put another file, or another link, in its place). `None` when only the
/// invoking user (and root) can change it. The reason ends with the fix, naming the file or
/// directory.
pub(super) fn untrusted(path: &Path, meta: &Metadata) -> Option<String> {
    if let Some(change) = others_can_change(path, meta) {
        return Some(format!(
            "{}, and payverify obeys what it says; {}",
            change.said_of("it"),
            change.fix(&path.display().to_string())
        ));
    }
    let real = std::fs::canonicalize(path).ok();
    let holding = real.as_deref().and_then(Path::parent);
    for dir in directories_leading_to(path, holding) {
        let Some(change) = std::fs::metadata(&dir)
            .ok()
            .and_then(|meta| others_can_change(&dir, &meta))
        else {
            continue;
        };
        let shown = dir.display().to_string();
        let which = match holding == Some(dir.as_path()) {
            true => format!("the directory holding it, {shown},"),
            false => format!("the directory {shown}, on the way to it,"),
        };
        return Some(format!(
            "{}, so another file can be put in its place; {}",
            change.said_of(&which),
            change.fix(&shown)
        ));
    }
    None
}

/// The directories whose entries lead to `path` (really held by `holding`), that one first: on Unix,
/// the real directory holding it and every directory above it, and every directory on the
/// way as `path` is written (so the directory holding a link to it, or a linked directory,
/// counts too), up to `/`. Whoever can write any of them can rename another file or link in
/// place of one on the way. On Windows only the directory holding the file: a volume's root
/// lets every user create folders, which replaces nothing.
fn directories_leading_to(path: &Path, holding: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if cfg!(windows) {
        return holding.map(Path::to_path_buf).into_iter().collect();
    }
    let written = std::path::absolute(path).ok();
    let on_the_way = written
        .iter()
        .flat_map(|w| w.ancestors().skip(1))
        .filter_map(|dir| std::fs::canonicalize(dir).ok());
    for dir in holding.map(Path::to_path_buf).into_iter().chain(on_the_way) {
        for above in dir.ancestors() {
            if !dirs.iter().any(|d| d == above) {
                dirs.push(above.to_path_buf());
            }
        }
    }
    dirs
}

/// Where `program` (a secret command's first word) is, when it can be found, and why it must
/// not be run when anyone but the invoking user and root can change it or a directory on
/// the way to it (as a config file: the program decides what is sent as the secret, and
/// runs as the invoking user). A name without a `/` is looked for in `PATH` as the system
/// would, and the file found is what runs, so nothing put in an earlier `PATH` directory
/// after the check is run instead. `Ok(None)`: not found (its start then fails, saying so).
/// Its arguments are not looked at (`sh -c '...'` runs what it says).
#[cfg(unix)]
pub(crate) fn obeyed_program(program: &str) -> Result<Option<PathBuf>, String> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .filter(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    let candidates: Vec<PathBuf> = match program.contains('/') {
        true => vec![PathBuf::from(program)],
        false => std::env::var_os("PATH")
            .map(|paths| {
                std::env::split_paths(&paths)
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .map(|dir| dir.join(program))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let Some((path, meta)) = candidates
        .into_iter()
        .find_map(|path| runnable(&path).map(|meta| (path, meta)))
    else {
        return Ok(None);
    };
    match untrusted(&path, &meta) {
        Some(why) => Err(format!(
            "runs {}, and {}",
            path.display(),
            why.replacen(
                "and payverify obeys what it says",
                "and payverify would run it",
                1
            )
        )),
        None => Ok(Some(path)),
    }
}

/// On Windows the program is left to the system to find: only the config file that names
/// it is checked.
#[cfg(not(unix))]
pub(crate) fn obeyed_program(_program: &str) -> Result<Option<PathBuf>, String> {
    Ok(None)
}

/// Who besides the invoking user and root can change a file or directory.
enum Change {
    /// Another user owns it (by uid). (Windows: not looked at; the access list decides.)
    #[cfg(unix)]
    Owner(u32),
    /// Others can write it: who, and what says so (`mode 664`, `its access list`).
    Writable(String, String),
}

impl Change {
    /// The clause for `subject` (`it`, `the directory holding it, /etc/x,`).
    fn said_of(&self, subject: &str) -> String {
        match self {
            #[cfg(unix)]
            Change::Owner(uid) => {
                format!("{subject} is owned by another user (uid {uid}), who can change it")
            }
            Change::Writable(who, by) => format!("{subject} can be written by {who} ({by})"),
        }
    }

    /// The command that takes the access away from `shown`.
    fn fix(&self, shown: &str) -> String {
        match self {
            #[cfg(unix)]
            Change::Owner(_) => format!(
                "use a copy of your own (cp {shown} NEW && chmod go-w NEW), or have root own \
                 it and alone write it"
            ),
            Change::Writable(..) if cfg!(windows) => format!(
                "remove the broad group's write access: icacls \"{shown}\" /inheritance:r \
                 /grant:r \"%USERNAME%:F\""
            ),
            Change::Writable(..) => format!("run: chmod go-w {shown}"),
        }
    }
}

/// Who besides the invoking user and root can change `path` (a file, or a directory, whose
/// metadata is `meta`): another user who owns it, or its group or everyone by its mode. A
/// directory with the sticky bit (`/tmp`) lets others add files but not rename or remove
/// another user's, so it is not counted.
#[cfg(unix)]
fn others_can_change(_path: &Path, meta: &Metadata) -> Option<Change> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let owner = meta.uid();
    if owner != nix::unistd::geteuid().as_raw() && owner != 0 {
        return Some(Change::Owner(owner));
    }
    let mode = meta.permissions().mode();
    if meta.is_dir() && mode & 0o1000 != 0 {
        return None;
    }
    writable_by_others(meta, owner)
}

/// Whether the mode of `meta` lets anyone but its owner (`owner`) write it, sticky bit or
/// not: a sticky directory keeps others from replacing a file, not from adding one.
#[cfg(unix)]
fn writable_by_others(meta: &Metadata, owner: u32) -> Option<Change> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mode = meta.permissions().mode();
    let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (false, false) => return None,
        (true, false) if private_group(meta.gid(), owner) => return None,
        (true, false) => "its group",
        (_, true) => "everyone",
    };
    Some(Change::Writable(
        who.into(),
        format!("mode {:03o}", mode & 0o777),
    ))
}

/// Why files others put in directory `dir` could be taken for payverify's own, when they
/// could: `dir` is another user's, or others can add files to it, even a sticky one such as
/// `/tmp`. SQLite keeps files beside a journal (`-wal`, `-shm`) that it opens by name and
/// obeys, so whoever can make them first decides what the journal holds.
pub(crate) fn others_can_add_to(dir: &Path) -> Option<String> {
    let meta = std::fs::metadata(dir).ok()?;
    let shown = dir.display().to_string();
    #[cfg(unix)]
    let change = {
        use std::os::unix::fs::MetadataExt;
        let owner = meta.uid();
        match owner != nix::unistd::geteuid().as_raw() && owner != 0 {
            true => Some(Change::Owner(owner)),
            false => writable_by_others(&meta, owner),
        }
    };
    #[cfg(windows)]
    let change = others_can_change(dir, &meta);
    change.map(|change| {
        format!(
            "{}, who could put files beside it that SQLite would open as its own; keep it in \
             a directory only you can write",
            change.said_of(&format!("the directory holding it, {shown},"))
        )
    })
}

/// Whether the group `gid` is the owner's own, whose one member is the owner: then a file
/// its group can write is still only the owner's to change. Debian's and Ubuntu's users
/// have such a group and a umask of 002, so every file they make is group-writable; ssh
/// accepts that there (Debian's "user-group-modes") and so does payverify. The group must
/// bear the owner's name, be the owner's primary group and no other account's (in
/// `/etc/passwd`), and list no other member. Anything unsure (no such user or group, a
/// passwd file that cannot be read) is not the owner's own.
#[cfg(unix)]
fn private_group(gid: u32, owner: u32) -> bool {
    use nix::unistd::{Gid, Group, Uid, User};
    let (Ok(Some(user)), Ok(Some(group))) = (
        User::from_uid(Uid::from_raw(owner)),
        Group::from_gid(Gid::from_raw(gid)),
    ) else {
        return false;
    };
    let Ok(passwd) = std::fs::read_to_string("/etc/passwd") else {
        return false;
    };
    user.gid.as_raw() == gid
        && group.name == user.name
        && group.mem.iter().all(|member| *member == user.name)
        && !others_in_primary_group(&passwd, gid, owner)
}

/// Whether an account other than `owner` has `gid` as its primary group in `passwd` (the
/// text of `/etc/passwd`: `name:password:uid:gid:...`). A line that cannot be read counts
/// as another account, so a doubt never makes a group private.
#[cfg(unix)]
fn others_in_primary_group(passwd: &str, gid: u32, owner: u32) -> bool {
    passwd
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .any(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u32>().ok());
            match (number(2), number(3)) {
                (Some(uid), Some(primary)) => primary == gid && uid != owner,
                _ => true,
            }
        })
}

/// On Windows, the access list: an allow entry that lets a broad group (Everyone, Users,
/// Authenticated Users, ...) write, append, change the access list or the owner, or delete.
/// An access list that cannot be read is not counted (as the mode of a secret file is not).
#[cfg(windows)]
fn others_can_change(path: &Path, _meta: &Metadata) -> Option<Change> {
    // FILE_WRITE_DATA (FILE_ADD_FILE), FILE_APPEND_DATA (FILE_ADD_SUBDIRECTORY), DELETE,
    // WRITE_DAC, WRITE_OWNER, GENERIC_ALL, GENERIC_WRITE.
    const WRITE: u32 = 0x2 | 0x4 | 0x1_0000 | 0x4_0000 | 0x8_0000 | 0x1000_0000 | 0x4000_0000;
    let writers = broad_groups(&access_list(path)?, WRITE);
    (!writers.is_empty()).then(|| Change::Writable(writers.join(", "), "its access list".into()))
}

/// A file's access list as (allow?, SID, access mask) entries in order; `None` when it
/// cannot be read.
#[cfg(windows)]
pub(crate) fn access_list(path: &Path) -> Option<Vec<(bool, String, u32)>> {
    use windows_acl::acl::{ACL, AceType};
    let entries = ACL::from_file_path(path.to_str()?, false)
        .ok()?
        .all()
        .ok()?;
    Some(
        entries
            .into_iter()
            .filter_map(|e| match e.entry_type {
                AceType::AccessAllow => Some((true, e.string_sid, e.mask)),
                AceType::AccessDeny => Some((false, e.string_sid, e.mask)),
                _ => None,
            })
            .collect(),
    )
}

/// The broad groups, by well-known SID, that an allow entry must not grant a file payverify
/// trusts.
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

/// Which broad groups an access list, as (allow?, SID, access mask) entries in order,
/// grants any right of `mask`: an allow entry granting one, unless an earlier deny entry
/// for that group already refused it (Windows stops at the first entry that decides).
#[cfg(any(windows, test))]
pub(crate) fn broad_groups<S: AsRef<str>>(aces: &[(bool, S, u32)], mask: u32) -> Vec<&'static str> {
    let mut denied: Vec<&str> = Vec::new();
    let mut granted = Vec::new();
    for (allow, sid, rights) in aces {
        let sid = sid.as_ref();
        if rights & mask == 0 {
            continue;
        }
        let Some(&(known, name)) = BROAD_GROUPS.iter().find(|(known, _)| *known == sid) else {
            continue;
        };
        if !allow {
            denied.push(known);
        } else if !denied.contains(&known) && !granted.contains(&name) {
            granted.push(name);
        }
    }
    granted
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_private_only_when_no_other_account_has_it_as_primary() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n\
                      ada:x:1000:1000:Ada:/home/ada:/bin/bash\n\
                      bob:x:1001:1001::/home/bob:/bin/sh\n\
                      # a comment\n\n\
                      web:x:33:1001::/var/www:/usr/sbin/nologin\n";
        assert!(!others_in_primary_group(passwd, 1000, 1000), "ada's own");
        assert!(
            others_in_primary_group(passwd, 1001, 1001),
            "web shares bob's"
        );
        assert!(
            others_in_primary_group(passwd, 1000, 1001),
            "not bob's group"
        );
        assert!(!others_in_primary_group(passwd, 0, 0));
        // A line that cannot be read is a doubt, and a doubt is another account.
        assert!(others_in_primary_group("broken line\n", 5, 5));
        assert!(others_in_primary_group("x:x:2:nan:::\n", 5, 5));
    }

    #[test]
    fn a_broad_group_granted_a_right_is_named_unless_denied_first() {
        const WRITE: u32 = 0x2;
        assert_eq!(
            broad_groups(&[(true, "S-1-1-0", WRITE)], WRITE),
            ["Everyone"]
        );
        assert!(broad_groups(&[(true, "S-1-1-0", 0x1)], WRITE).is_empty());
        assert!(
            broad_groups(
                &[(false, "S-1-1-0", WRITE), (true, "S-1-1-0", WRITE)],
                WRITE
            )
            .is_empty()
        );
        assert!(broad_groups(&[(true, "S-1-5-21-1-2-3-1001", WRITE)], WRITE).is_empty());
    }
}
