//! The README and docs/ state contracts the code defines; these tests keep the two in step,
//! and keep the README short enough to finish with every page it moved out still reachable.

use payverify::Exit;
use payverify::sandbox::MAGIC_REFERENCES;

use crate::common::pages;

const README: &str = include_str!("../../README.md");

#[test]
fn exit_table_in_readme_and_docs_matches_the_code() {
    for page in [pages::page("README.md"), pages::page("docs/exit-codes.md")] {
        for exit in Exit::ALL {
            let row = format!("| {} | {} |", exit.code(), exit.meaning());
            assert!(
                page.text.contains(&row),
                "{} lacks the row {row:?}",
                page.path
            );
        }
    }
}

#[test]
fn sandbox_page_lists_every_magic_reference() {
    // One table, the code's: the same rows in the same order, and no others.
    let page = pages::page("docs/sandbox.md");
    let start = page
        .text
        .find("| reference | response |\n|---|---|\n")
        .unwrap_or_else(|| panic!("{} has no magic-reference table", page.path));
    let rows: Vec<&str> = page.text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let want: Vec<String> = MAGIC_REFERENCES
        .iter()
        .map(|row| {
            let shown = match row.pattern {
                "anything else" => row.pattern.to_owned(),
                pattern => format!("`{pattern}`"),
            };
            format!("| {shown} | {} |", row.answer)
        })
        .collect();
    assert_eq!(rows, want, "{}", page.path);
}

#[test]
fn readme_gives_the_two_setup_commands() {
    assert!(README.contains("cargo run --release -- verify --sandbox 0000000000000044177"));
    assert!(README.contains("cargo test --locked"));
}

/// Issue 24 item 8: a README a newcomer finishes.
#[test]
fn readme_is_at_most_300_lines() {
    let lines = README.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; move detail into docs/"
    );
}

#[test]
fn readme_links_every_docs_page() {
    for page in pages::pages()
        .iter()
        .filter(|p| p.path.starts_with("docs/"))
    {
        let link = format!("]({})", page.path);
        assert!(
            README.contains(&link),
            "README.md does not link {}",
            page.path
        );
    }
}

/// Every relative link in README.md and docs/ names a file that exists and, with `#anchor`,
/// a heading of that file (GitHub's anchors: lower case, punctuation dropped, spaces as `-`).
#[test]
fn every_relative_link_resolves() {
    let all = pages::pages();
    let mut checked = 0;
    for page in &all {
        for target in links(&page.text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let dir = std::path::Path::new(&page.path)
                .parent()
                .unwrap_or(std::path::Path::new(""));
            let resolved = if file.is_empty() {
                std::path::PathBuf::from(&page.path)
            } else {
                normalise(&dir.join(file))
            };
            let on_disk = pages::root().join(&resolved);
            assert!(
                on_disk.exists(),
                "{}: link ({target}) names {}, which does not exist",
                page.path,
                resolved.display()
            );
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&on_disk).unwrap();
                assert!(
                    anchors(&text).iter().any(|a| a == anchor),
                    "{}: link ({target}): {} has no heading #{anchor}",
                    page.path,
                    resolved.display()
                );
            }
        }
    }
    assert!(checked >= 40, "only {checked} relative links found");
}

/// The `(target)` of every `[text](target)` outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans, so `[a](b)` written as code is not taken for a link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            match after.find(')') {
                Some(end) => {
                    out.push(after[..end].to_owned());
                    rest = &after[end..];
                }
                None => break,
            }
        }
    }
    out
}

/// GitHub's anchor for each heading of a Markdown text.
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let anchor: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push(anchor);
    }
    out
}

fn normalise(path: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn committed_fixture_matches_the_shared_one() {
    // The crate carries its own copy so it builds and tests without ../shared; when the
    // shared spec is beside it (as in CI), the two must agree.
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/verify-success.json");
    let text = match std::fs::read_to_string(&shared) {
        Ok(text) => text,
        // CI always has ../shared beside the clone: missing there means this test checked
        // nothing, which must not pass silently. A developer without it is spared.
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("{} is missing under CI: {e}", shared.display())
        }
        Err(_) => return,
    };
    assert_eq!(
        text.trim(),
        include_str!("../data/verify-success.json").trim(),
        "tests/data/verify-success.json differs from {}",
        shared.display()
    );
}
