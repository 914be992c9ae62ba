//! Adding a profile to an existing config file without disturbing the rest of it: the other
//! profiles, their order, comments and spacing are kept (toml_edit is format-preserving).

use toml_edit::{DocumentMut, Item};

/// `existing` with the profile `name` added as `section` (one `[profiles.NAME]` table, as
/// [`super::profile_section`] writes it). A profile of that name is an error unless
/// `replace`, which replaces that profile's table alone.
pub(crate) fn add_profile(
    existing: &str,
    name: &str,
    section: &str,
    replace: bool,
) -> Result<String, String> {
    let mut doc: DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("it is not valid TOML: {}", one_line(&e)))?;
    let exists = doc
        .get("profiles")
        .and_then(|p| p.as_table_like())
        .is_some_and(|p| p.contains_key(name));
    let text = match (exists, replace) {
        (true, false) => {
            return Err(format!(
                "it already has a profile '{name}' (--force replaces that profile and keeps \
                 the others)"
            ));
        }
        // Appended as text: every byte already in the file stays as it was.
        (false, _) => {
            let mut text = existing.to_owned();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(section);
            text
        }
        (true, true) => match replace_text(existing, name, section) {
            Some(text) => text,
            None => replace_table(&mut doc, name, section)?,
        },
    };
    // Whatever the file held (say `profiles = { ... }` inline), the result must be a file
    // in which the new profile is a table.
    let check: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("adding the profile: {}", one_line(&e)))?;
    let added = check
        .get("profiles")
        .and_then(|p| p.get(name))
        .is_some_and(Item::is_table_like);
    if !added {
        return Err(format!(
            "cannot add a [profiles.{name}] table to it (are its profiles written inline?)"
        ));
    }
    Ok(text)
}

/// The profile `name`'s table replaced by `section` through toml_edit, for a profile that
/// is not written as a table with a header of its own (dotted keys, say).
fn replace_table(doc: &mut DocumentMut, name: &str, section: &str) -> Result<String, String> {
    let new: DocumentMut = section
        .parse()
        .map_err(|e: toml_edit::TomlError| one_line(&e))?;
    let table = new
        .get("profiles")
        .and_then(|p| p.get(name))
        .and_then(Item::as_table)
        .cloned()
        .ok_or("the new profile did not parse")?;
    let profiles = doc
        .get_mut("profiles")
        .and_then(Item::as_table_like_mut)
        .ok_or("its profiles are not a table")?;
    let position = profiles
        .get(name)
        .and_then(Item::as_table)
        .and_then(|t| t.position());
    let mut table = table;
    if let Some(position) = position {
        table.set_position(Some(position));
    }
    profiles.insert(name, Item::Table(table));
    Ok(doc.to_string())
}

/// `existing` with the text of the `[profiles.NAME]` table (from its header to the next
/// header, less the comment lines right above that header, which belong to it) replaced by
/// `section`: every byte outside it is kept, and nothing of the old table (its comments
/// included) is left behind. `None` when the profile is not a table with a header.
fn replace_text(existing: &str, name: &str, section: &str) -> Option<String> {
    let doc = toml_edit::Document::parse(existing.to_owned()).ok()?;
    let mut headers = Vec::new();
    collect_headers(doc.as_table(), &mut headers);
    let table = doc.get("profiles")?.get(name)?.as_table()?;
    if table.is_implicit() || table.is_dotted() {
        return None;
    }
    let start = line_start(existing, table.span()?.start);
    let next = headers
        .iter()
        .map(|&at| line_start(existing, at))
        .filter(|&at| at > start)
        .min();
    let mut text = existing[..start].to_owned();
    text.push_str(section);
    if let Some(next) = next {
        text.push('\n');
        text.push_str(&existing[comments_above(existing, next)..]);
    }
    Some(text)
}

/// Where every table header of the document starts.
fn collect_headers(table: &toml_edit::Table, headers: &mut Vec<usize>) {
    for (_, item) in table.iter() {
        let tables: Vec<&toml_edit::Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(array) => array.iter().collect(),
            _ => Vec::new(),
        };
        for t in tables {
            if !t.is_implicit()
                && !t.is_dotted()
                && let Some(span) = t.span()
            {
                headers.push(span.start);
            }
            collect_headers(t, headers);
        }
    }
}

/// The start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// The start of the comment lines right above the line starting at `at` (`at` when there
/// are none).
fn comments_above(text: &str, at: usize) -> usize {
    let mut start = at;
    while start > 0 {
        let above = line_start(text, start - 1);
        if !text[above..start].trim_start().starts_with('#') {
            break;
        }
        start = above;
    }
    start
}

fn one_line(e: &toml_edit::TomlError) -> String {
    e.message().trim().replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::file::profile_section;
    use std::path::Path;

    const EXISTING: &str = "# my notes\ndefault_profile = \"live\"\n\n[profiles.live]\n\
        base_url = \"https://paywithbank3d.com\" # prod\nclient_id = \"pk_live\"\n";

    #[test]
    fn a_new_profile_keeps_every_byte_already_there() {
        let section = profile_section("staging", None, Some("pk_test"), None);
        let out = add_profile(EXISTING, "staging", &section, false).unwrap();
        assert!(out.starts_with(EXISTING), "{out}");
        assert!(out.ends_with(&section));
        let cfg = crate::settings::file::parse(&out, std::path::Path::new("c.toml")).unwrap();
        assert_eq!(cfg.profiles.len(), 2);
        assert_eq!(cfg.default_profile.as_deref(), Some("live"));
    }

    #[test]
    fn an_existing_profile_needs_replace_and_only_it_changes() {
        let section = profile_section("live", Some("https://new.example"), None, None);
        let err = add_profile(EXISTING, "live", &section, false).unwrap_err();
        assert!(err.contains("already has a profile 'live'"), "{err}");
        let two = add_profile(
            EXISTING,
            "staging",
            &profile_section("staging", None, None, None),
            false,
        )
        .unwrap();
        let out = add_profile(&two, "live", &section, true).unwrap();
        assert!(
            out.starts_with("# my notes\ndefault_profile = \"live\"\n"),
            "{out}"
        );
        assert!(out.contains("https://new.example"), "{out}");
        assert!(!out.contains("pk_live"), "{out}");
        assert!(out.contains("[profiles.staging]"), "{out}");
        let live = out.find("[profiles.live]").unwrap();
        assert!(
            live < out.find("[profiles.staging]").unwrap(),
            "order kept: {out}"
        );
    }

    #[test]
    fn a_replaced_profile_leaves_nothing_of_the_old_one() {
        let first = profile_section("live", None, Some("pk_old"), Some(Path::new("/s/old")));
        let text = format!(
            "# mine\ndefault_profile = \"live\"\n\n{first}\n# staging: ask ops\n{}",
            profile_section("staging", None, None, None)
        );
        let section = profile_section("live", None, Some("pk_new"), None);
        let out = add_profile(&text, "live", &section, true).unwrap();
        assert!(
            out.starts_with("# mine\ndefault_profile = \"live\"\n\n[profiles.live]\n"),
            "{out}"
        );
        assert!(out.contains(&format!(
            "{section}\n# staging: ask ops\n[profiles.staging]"
        )));
        for stale in ["pk_old", "/s/old"] {
            assert!(!out.contains(stale), "{out}");
        }
        // Each commented hint once per profile: none doubled, none lost.
        for hint in [
            "# One secret source",
            "# client_secret_file = ",
            "# ca_cert = ",
        ] {
            assert_eq!(out.matches(hint).count(), 2, "{hint}: {out}");
        }
        // The last profile replaced: up to the end of the file.
        let last = profile_section("staging", None, Some("x"), None);
        let out = add_profile(&text, "staging", &last, true).unwrap();
        assert_eq!(
            out,
            format!("# mine\ndefault_profile = \"live\"\n\n{first}\n# staging: ask ops\n{last}")
        );
    }

    #[test]
    fn broken_or_inline_files_are_refused() {
        let section = profile_section("staging", None, None, None);
        assert!(add_profile("[profiles\n", "staging", &section, false).is_err());
        let inline = "profiles = { live = { base_url = \"https://x\" } }\n";
        let err = add_profile(inline, "staging", &section, false).unwrap_err();
        assert!(!err.is_empty());
    }
}
