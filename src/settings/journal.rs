//! Where the journal is kept (issue 40): `--no-journal`, `--journal PATH`,
//! `PAYVERIFY_JOURNAL`, the profile's `journal` key, else the platform's data directory.
//! `off` from the environment or the profile turns it off as `--no-journal` does.

use std::path::PathBuf;

use super::{Context, Source, Sourced, env};

/// Debug builds only: set (by .cargo/config.toml, for `cargo test`), the default place is
/// off, so the many tests that run payverify at once never share one journal in the
/// tester's home; a place named by a flag, the environment or a profile still counts.
/// Release builds ignore it.
const DEBUG_NO_DEFAULT: &str = "PAYVERIFY_DEBUG_NO_DEFAULT_JOURNAL";

/// The word that turns the journal off where a path is expected.
pub(crate) const OFF: &str = "off";

/// Where a run keeps its journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JournalPlace {
    /// Turned off: nothing is opened or made.
    Off,
    /// This file. `explicit`: named by a flag, the environment or the profile, so a journal
    /// that cannot be used there stops the run; the default place only warns when it
    /// cannot be made at all.
    At { path: PathBuf, explicit: bool },
    /// No default place can be found (no home or data directory).
    Nowhere,
}

/// The journal's place: the first of `--no-journal` / `--journal`, `PAYVERIFY_JOURNAL`,
/// the profile's key (`profile`, with its source), and the default.
pub(crate) fn place(
    no_journal: bool,
    flag: Option<&PathBuf>,
    ctx: &Context,
    profile: Option<Sourced<String>>,
) -> Sourced<JournalPlace> {
    if no_journal {
        return Sourced::new(JournalPlace::Off, Source::Flag("--no-journal"));
    }
    if let Some(path) = flag {
        return Sourced::new(named(path.clone()), Source::Flag("--journal"));
    }
    let given = (ctx.var(env::JOURNAL)).map(|v| Sourced::new(v, Source::Env(env::JOURNAL)));
    if let Some(text) = given.or(profile) {
        // `OFF` and `Off` too: a file of that name in the working directory is never
        // what was meant.
        let value = match text.value.trim().eq_ignore_ascii_case(OFF) {
            true => JournalPlace::Off,
            false => named(PathBuf::from(text.value)),
        };
        return Sourced::new(value, text.source);
    }
    if cfg!(debug_assertions) && ctx.var(DEBUG_NO_DEFAULT).is_some() {
        return Sourced::new(JournalPlace::Off, Source::Default);
    }
    let value = match &ctx.default_journal {
        Some(path) => JournalPlace::At {
            path: path.clone(),
            explicit: false,
        },
        None => JournalPlace::Nowhere,
    };
    Sourced::new(value, Source::Default)
}

fn named(path: PathBuf) -> JournalPlace {
    JournalPlace::At {
        path,
        explicit: true,
    }
}

/// The platform's place for the journal: `$XDG_DATA_HOME/payverify/journal.sqlite3` on
/// Linux, `~/Library/Application Support/payverify/` on macOS, `%APPDATA%\payverify\data\`
/// on Windows.
pub(crate) fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "payverify").map(|d| d.data_dir().join(FILE_NAME))
}

/// The journal's file name in its directory.
pub(crate) const FILE_NAME: &str = "journal.sqlite3";

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'a>(env: &'a dyn Fn(&str) -> Option<String>) -> Context<'a> {
        Context {
            env,
            default_config: None,
            default_journal: Some(PathBuf::from("/data/payverify/journal.sqlite3")),
        }
    }

    #[test]
    fn the_flag_beats_the_environment_and_the_profile() {
        let env = |n: &str| (n == env::JOURNAL).then(|| "/env/j.sqlite3".to_owned());
        let profile = Some(Sourced::new("/p/j".to_owned(), Source::Default));
        let got = place(false, Some(&PathBuf::from("/flag/j")), &ctx(&env), profile);
        assert_eq!(got.source, Source::Flag("--journal"));
        assert_eq!(got.value, named(PathBuf::from("/flag/j")));
        let got = place(true, Some(&PathBuf::from("/flag/j")), &ctx(&env), None);
        assert_eq!(got.value, JournalPlace::Off);
    }

    #[test]
    fn off_from_the_environment_or_the_profile_turns_it_off() {
        let env = |n: &str| (n == env::JOURNAL).then(|| "off".to_owned());
        assert_eq!(
            place(false, None, &ctx(&env), None).value,
            JournalPlace::Off
        );
        let none = |_: &str| None;
        let profile = Some(Sourced::new(" off ".to_owned(), Source::Default));
        assert_eq!(
            place(false, None, &ctx(&none), profile).value,
            JournalPlace::Off
        );
        // Only the word: a file named `offline` is a file.
        let profile = Some(Sourced::new("offline".to_owned(), Source::Default));
        assert_eq!(
            place(false, None, &ctx(&none), profile).value,
            named(PathBuf::from("offline"))
        );
    }

    #[test]
    fn the_default_place_is_not_explicit() {
        let none = |_: &str| None;
        let got = place(false, None, &ctx(&none), None);
        assert_eq!(got.source, Source::Default);
        assert!(matches!(
            got.value,
            JournalPlace::At {
                explicit: false,
                ..
            }
        ));
        let nowhere = Context {
            env: &none,
            default_config: None,
            default_journal: None,
        };
        assert_eq!(
            place(false, None, &nowhere, None).value,
            JournalPlace::Nowhere
        );
    }
}
