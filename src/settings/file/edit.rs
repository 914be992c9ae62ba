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
        (true, true) => {
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
            doc.to_string()
        }
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

fn one_line(e: &toml_edit::TomlError) -> String {
    e.message().trim().replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::file::profile_section;

    const EXISTING: &str = "# my notes\ndefault_profile = \"live\"\n\n[profiles.live]\n\
        base_url = \"https://paywithbank3d.com\" # prod\nclient_id = \"pk_live\"\n";

    #[test]
    fn a_new_profile_keeps_every_byte_already_there() {
        let section = profile_section("staging", None, Some("pk_test"), None);
        let out = add_profile(EXISTING, "staging", &section, false).unwrap();
        assert!(out.starts_with(EXISTING), "{out}");
        assert!(out.ends_with(&section));
        let cfg: crate::settings::file::ConfigFile = toml::from_str(&out).unwrap();
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
    fn broken_or_inline_files_are_refused() {
        let section = profile_section("staging", None, None, None);
        assert!(add_profile("[profiles\n", "staging", &section, false).is_err());
        let inline = "profiles = { live = { base_url = \"https://x\" } }\n";
        let err = add_profile(inline, "staging", &section, false).unwrap_err();
        assert!(!err.is_empty());
    }
}
