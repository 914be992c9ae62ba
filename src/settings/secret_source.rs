//! Where the client secret comes from, and reading it only when it is needed.
//!
//! Resolution records the source; the value is read on use, so `config show` can report a
//! secret command without running a password manager.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::exit::{Cause, Failure};
use crate::log::Log;
use crate::secret::Secret;
use crate::settings::EnvLookup;

mod command;
mod exposure;
mod process_tree;
#[cfg(test)]
use command::{COMMAND_TIMEOUT, shortened_timeout};
use command::{command_timeout, run_command_within};
pub(crate) use command::{shown_command, split_words};
#[cfg(test)]
use exposure::broad_readers;
pub(crate) use exposure::exposed_file_warning;

/// A configured source of the client secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SecretSource {
    /// The value itself (environment variable or inline config).
    Value(Secret),
    /// A file whose trimmed contents are the secret.
    File(PathBuf),
    /// A command whose trimmed stdout is the secret (no shell).
    Command(Vec<String>),
}

/// `client_secret_command` as written in the config: a string split like a shell would
/// (quotes, backslashes; no expansion) or an array of arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum CommandSpec {
    /// `"pass show payments/live"`.
    Line(String),
    /// `["op", "read", "op://vault/item/secret"]`.
    Args(Vec<String>),
}

impl CommandSpec {
    /// The argument vector, or why it cannot be one.
    pub fn argv(&self) -> Result<Vec<String>, String> {
        let argv = match self {
            CommandSpec::Line(line) => split_words(line)?,
            CommandSpec::Args(args) => args.clone(),
        };
        if argv.first().is_none_or(|a| a.is_empty()) {
            return Err("is empty".into());
        }
        Ok(argv)
    }
}

impl SecretSource {
    /// How the source is described to people (never the value, never a command's
    /// arguments).
    pub(crate) fn describe(&self) -> String {
        match self {
            SecretSource::Value(_) => "<redacted>".into(),
            SecretSource::File(path) => format!("<redacted> (read from {})", path.display()),
            SecretSource::Command(argv) => {
                format!("<redacted> (output of {})", shown_command(argv))
            }
        }
    }

    /// Reads the secret; file permissions that expose it are warned about on `log`.
    pub(crate) fn read(&self, log: &Log) -> Result<Secret, Failure> {
        self.read_within(log, command_timeout())
    }

    /// [`SecretSource::read`] with a secret command stopped at `deadline` rather than
    /// [`COMMAND_TIMEOUT`] (`doctor` bounds every step by `--timeout`).
    pub(crate) fn read_within(&self, log: &Log, deadline: Duration) -> Result<Secret, Failure> {
        let secret = match self {
            SecretSource::Value(secret) => secret.clone(),
            SecretSource::File(path) => read_file(path, log)?,
            SecretSource::Command(argv) => run_command_within(argv, deadline)?,
        };
        // Before any check of it: a message on the way to refusing it must not show it.
        crate::secret::register_client_secret(secret.expose());
        Ok(secret)
    }
}

/// What checking a secret source without using it found (`config show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SourceCheck {
    /// Nothing wrong that can be seen without using it.
    Fine,
    /// It works but should be fixed (a secret file readable by others); the fix is said.
    Warn(String),
    /// It cannot supply a secret; why.
    Broken(String),
}

impl SecretSource {
    /// Checks the source the way [`SecretSource::read`] would fail, without running a secret
    /// command (only looks for its program on `PATH`) and without showing the value.
    pub(crate) fn check(&self, env: EnvLookup) -> SourceCheck {
        match self {
            SecretSource::Value(secret) => match value_problem(secret.expose()) {
                Some(problem) => SourceCheck::Broken(format!("the secret {problem}")),
                None => SourceCheck::Fine,
            },
            SecretSource::File(path) => check_file(path),
            SecretSource::Command(argv) => match argv.first() {
                Some(program) if !program.is_empty() => match find_program(program, env) {
                    Some(_) => SourceCheck::Fine,
                    None if names_a_path(program) => SourceCheck::Broken(format!(
                        "program {program} does not exist or is not executable"
                    )),
                    None => SourceCheck::Broken(format!("program {program} is not on PATH")),
                },
                _ => SourceCheck::Broken("the command is empty".into()),
            },
        }
    }
}

/// Why a secret value could never be accepted, if it could not: the one rule for a secret
/// from every source, read ([`crate::settings::Settings::secret`]) or only checked.
pub(crate) fn value_problem(secret: &str) -> Option<String> {
    if secret.trim().is_empty() {
        Some("is empty or only whitespace".into())
    } else if secret.chars().count() < crate::settings::MIN_SECRET_CHARS {
        Some(format!(
            "is shorter than {} characters",
            crate::settings::MIN_SECRET_CHARS
        ))
    } else {
        // A byte-order mark, a zero-width space or a control character pasted with the key:
        // it would count toward the length (7 visible characters passed as 8) and be sent,
        // and an echo of the visible part would not be recognised as the secret.
        secret
            .chars()
            .find(|c| crate::unseen::is_unsafe(*c))
            .map(|unseen| {
                format!(
                    "holds U+{:04X}, a character a reader does not see; a gateway secret key \
                     has none",
                    u32::from(unseen)
                )
            })
    }
}

/// A secret file must be a readable regular file holding a plausible secret; one that others
/// can read works but is warned about.
fn check_file(path: &Path) -> SourceCheck {
    let shown = path.display();
    let text = match crate::files::read_text(path, &crate::files::SECRET_FILE) {
        Ok(text) => text,
        Err(e) => return SourceCheck::Broken(format!("cannot read {shown}: {e}")),
    };
    if let Some(problem) = value_problem(file_secret(&text)) {
        return SourceCheck::Broken(format!("{shown}: the secret {problem}"));
    }
    match exposed_file_warning(path) {
        Some(warning) => SourceCheck::Warn(warning.to_string()),
        None => SourceCheck::Fine,
    }
}

/// Whether a command's program is a path (run as given) rather than a name to look up on
/// `PATH`: it holds a directory separator (`\` too on Windows).
fn names_a_path(program: &str) -> bool {
    program.contains('/') || (cfg!(windows) && program.contains('\\'))
}

/// The file that running `program` would start, as the platform's process spawning names it:
/// as written on Unix; on Windows with `.exe` added when it has no extension, as Rust's
/// `Command` does (it does not try `PATHEXT`'s `.cmd` or `.bat`).
fn program_file(program: &Path) -> PathBuf {
    if cfg!(windows) && program.extension().is_none() {
        program.with_extension("exe")
    } else {
        program.to_path_buf()
    }
}

/// Where `program` would be found: a path as given, a bare name in each `PATH` directory.
/// Only executable regular files count (on Windows, where no mode bit says so, any file by
/// the name [`program_file`] gives).
fn find_program(program: &str, env: EnvLookup) -> Option<PathBuf> {
    let runnable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        })
    };
    if names_a_path(program) {
        let path = program_file(Path::new(program));
        return runnable(&path).then_some(path);
    }
    let paths = env("PATH")?;
    std::env::split_paths(&paths)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| program_file(&dir.join(program)))
        .find(|candidate| runnable(candidate))
}

/// The secret a secret file's text holds: a UTF-8 byte-order mark (an editor's) and
/// surrounding whitespace (the trailing newline) are not part of it.
pub(crate) fn file_secret(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text).trim()
}

/// Reads a secret file (see [`file_secret`] for what is taken off).
pub(crate) fn read_file(path: &Path, log: &Log) -> Result<Secret, Failure> {
    let text = crate::files::read_text(path, &crate::files::SECRET_FILE).map_err(|e| {
        e.failure(
            format!("cannot read client secret file {}: {e}", path.display()),
            |message| Failure::config(Cause::Secret, message),
        )
    })?;
    let secret = Secret::new(file_secret(&text));
    if secret.is_empty() {
        return Err(Failure::config(
            Cause::Secret,
            format!("client secret file {} is empty", path.display()),
        ));
    }
    if let Some(warning) = exposed_file_warning(path) {
        log.warn(&warning.to_string());
    }
    Ok(secret)
}

/// Which settings name a file or a program rather than hold a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Names {
    /// A file: `client_secret_file`, `ca_cert`.
    File,
    /// A program to run, found on `PATH` or at a path: the first word of
    /// `client_secret_command`.
    Program,
}

/// Registers for redaction a setting that should name a file or a program but names
/// nothing there, when it is as long as a secret may be: what a secret pasted into the
/// wrong key looks like. One rule for every message, `config show` and `doctor`, text and
/// JSON: such a value is shown as `<redacted>`, and the message names its key and source.
///
/// Why this rule: a value that names an existing file or a program that is found is a path
/// (showing it is what makes a message useful), and one shorter than the shortest secret
/// accepted cannot be a secret; anything else could be one, and the cost of hiding a
/// mistyped path is one look at the key the message names.
pub(crate) fn register_unproven_paths(value: &str, names: Names, env: EnvLookup) {
    if value.trim().chars().count() < crate::settings::MIN_SECRET_CHARS {
        return;
    }
    let exists = |path: &str| std::fs::symlink_metadata(path).is_ok();
    let proven = match names {
        Names::File => exists(value),
        Names::Program => exists(value) || find_program(value, env).is_some(),
    };
    if !proven {
        crate::secret::register(value);
        crate::secret::register(value.trim());
    }
}

/// [`register_unproven_paths`] for a `client_secret_command` as written in the config (a
/// line or an array): its program, and the whole line when the program is not found.
pub(crate) fn register_unproven_command(spec: &toml::Value, env: EnvLookup) {
    let program = match spec {
        toml::Value::String(line) => {
            let first = split_words(line).ok().and_then(|w| w.into_iter().next());
            let program = first.unwrap_or_else(|| line.clone());
            if find_program(&program, env).is_none() {
                register_unproven_paths(line, Names::File, env);
            }
            program
        }
        toml::Value::Array(args) => match args.first().and_then(toml::Value::as_str) {
            Some(program) => program.to_owned(),
            None => return,
        },
        _ => return,
    };
    register_unproven_paths(&program, Names::Program, env);
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use std::time::Instant;

    use super::*;

    #[test]
    fn the_debug_deadline_can_only_shorten_the_minute() {
        assert_eq!(COMMAND_TIMEOUT, Duration::from_secs(60));
        assert_eq!(shortened_timeout(None), COMMAND_TIMEOUT);
        assert_eq!(shortened_timeout(Some("1500")), Duration::from_millis(1500));
        assert_eq!(
            shortened_timeout(Some(" 1500\n")),
            Duration::from_millis(1500)
        );
        for longer_or_junk in ["60001", "3600000", "18446744073709551615", "", "2s", "-1"] {
            assert_eq!(
                shortened_timeout(Some(longer_or_junk)),
                COMMAND_TIMEOUT,
                "{longer_or_junk:?}"
            );
        }
    }

    #[test]
    fn splits_like_a_shell_without_expansion() {
        let w = |s: &str| split_words(s).unwrap();
        assert_eq!(
            w("pass show payments/live"),
            ["pass", "show", "payments/live"]
        );
        assert_eq!(
            w(r#"op read "op://vault/my item/secret""#),
            ["op", "read", "op://vault/my item/secret"]
        );
        assert_eq!(
            w("sh -c 'echo $HOME | tr a b'"),
            ["sh", "-c", "echo $HOME | tr a b"]
        );
        assert_eq!(w(r"a\ b c"), ["a b", "c"]);
        assert_eq!(w("  "), Vec::<String>::new());
        assert_eq!(w("''"), [""]);
        assert!(split_words("echo 'open").is_err());
        assert!(split_words("echo \"open").is_err());
        assert!(split_words("echo \\").is_err());
    }

    // This test and the next run sh and printf, which Windows lacks; process_tree's tests
    // run the same kill everywhere with this test binary as the command.
    #[cfg(unix)]
    #[test]
    fn command_output_is_trimmed_and_failures_name_the_command_only() {
        let log = Log::new(crate::log::Level::Quiet);
        let ok = SecretSource::Command(vec!["printf".into(), "  s3cret-out \n".into()]);
        assert_eq!(ok.read(&log).unwrap().expose(), "s3cret-out");
        let failing = SecretSource::Command(vec![
            "sh".into(),
            "-c".into(),
            // Prints "leaked-output" without those words standing in the command itself.
            "printf '%s-%s' leaked output; exit 3".into(),
        ]);
        let err = failing.read(&log).unwrap_err();
        assert_eq!(err.exit, crate::exit::Exit::Config);
        assert!(
            err.message.contains("exited with status 3"),
            "{}",
            err.message
        );
        assert!(!err.message.contains("leaked-output"), "{}", err.message);
        let empty = SecretSource::Command(vec!["true".into()]);
        assert!(
            empty
                .read(&log)
                .unwrap_err()
                .message
                .contains("printed nothing")
        );
        let missing = SecretSource::Command(vec!["/nonexistent/pw-tool".into()]);
        assert!(
            missing
                .read(&log)
                .unwrap_err()
                .message
                .contains("could not start")
        );
    }

    #[test]
    fn describe_never_shows_the_value() {
        let s = SecretSource::Value(Secret::new("v4lue-xyz"));
        assert!(!s.describe().contains("v4lue"));
        let c = SecretSource::Command(vec!["pass".into(), "show".into(), "x-secret".into()]);
        assert_eq!(
            c.describe(),
            "<redacted> (output of `pass` (2 arguments, not shown))"
        );
        let c = SecretSource::Command(vec!["pw-tool".into()]);
        assert_eq!(c.describe(), "<redacted> (output of `pw-tool`)");
    }

    /// Whether process `pid` still exists (a zombie counts as gone).
    #[cfg(target_os = "linux")]
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.contains(") Z "))
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_deadline_bounds_the_read_and_kills_the_whole_group() {
        let dir = crate::testutil::TempDir::new("cmd-deadline");
        let pids = dir.path().join("pids");
        // The command prints a secret, starts a background child holding stdout, and then
        // itself runs past the deadline.
        let script = format!(
            "printf '%s-%s' s3cret early; sleep 75 & echo $! > {}; exec sleep 75",
            pids.display()
        );
        let argv = vec!["sh".into(), "-c".into(), script];
        let started = Instant::now();
        let err = run_command_within(&argv, Duration::from_secs(2)).unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(err.exit, crate::exit::Exit::Config);
        assert!(
            err.message.contains("did not finish within 2 s"),
            "{}",
            err.message
        );
        assert!(!err.message.contains("s3cret-early"), "{}", err.message);
        let background = std::fs::read_to_string(&pids).unwrap();
        let background = background.trim();
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            !alive(background)
        });
        assert!(gone, "background child {background} survived the deadline");
    }

    #[cfg(unix)]
    #[test]
    fn a_background_child_holding_stdout_does_not_hold_the_secret_back() {
        let log = Log::new(crate::log::Level::Quiet);
        let argv = SecretSource::Command(vec![
            "sh".into(),
            "-c".into(),
            "echo s3cret-bg; sleep 20 &".into(),
        ]);
        let started = Instant::now();
        assert_eq!(argv.read(&log).unwrap().expose(), "s3cret-bg");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn broad_readers_in_a_windows_access_list() {
        // A file under C:\ (inherited: Administrators, SYSTEM, Users read, Authenticated
        // Users modify) and one in the user's profile (the user, SYSTEM, Administrators).
        let under_c = [
            (true, "S-1-5-32-544", 0x1f01ff),
            (true, "S-1-5-18", 0x1f01ff),
            (true, "S-1-5-32-545", 0x1200a9),
            (true, "S-1-5-11", 0x1301bf),
        ];
        assert_eq!(broad_readers(&under_c), ["Users", "Authenticated Users"]);
        let profile = [
            (true, "S-1-5-21-1-2-3-1001", 0x1f01ff),
            (true, "S-1-5-18", 0x1f01ff),
            (true, "S-1-5-32-544", 0x1f01ff),
        ];
        assert!(broad_readers(&profile).is_empty());
        // Generic rights count; a right that is not reading (list, attributes) does not.
        assert_eq!(
            broad_readers(&[(true, "S-1-1-0", 0x8000_0000)]),
            ["Everyone"]
        );
        assert_eq!(
            broad_readers(&[(true, "S-1-1-0", 0x1000_0000)]),
            ["Everyone"]
        );
        assert!(broad_readers(&[(true, "S-1-1-0", 0x80)]).is_empty());
        // A deny before the allow decides; a deny after it comes too late.
        assert!(broad_readers(&[(false, "S-1-1-0", 0x1), (true, "S-1-1-0", 0x1)]).is_empty());
        assert_eq!(
            broad_readers(&[(true, "S-1-1-0", 0x1), (false, "S-1-1-0", 0x1)]),
            ["Everyone"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn group_readable_secret_files_are_pointed_out() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::testutil::TempDir::new("perm");
        let path = dir.write("secret", "abc\n");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let warning = exposed_file_warning(&path).unwrap().to_string();
        assert!(warning.contains("(mode 644); run: chmod 600 "), "{warning}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(exposed_file_warning(&path), None);
    }
}
