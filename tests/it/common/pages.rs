//! The documentation as a reader gets it: README.md and every page under docs/, read from the
//! source tree, so a page added later is covered without being listed here.

use std::path::{Path, PathBuf};

/// One Markdown file: its path relative to the crate root (`README.md`, `docs/gate.md`) and
/// its text.
pub struct Page {
    pub path: String,
    pub text: String,
}

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, then docs/*.md in name order.
pub fn pages() -> Vec<Page> {
    let root = root();
    let mut names: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| {
            entry
                .expect("docs/ entry")
                .file_name()
                .into_string()
                .expect("UTF-8 name")
        })
        .filter(|name| name.ends_with(".md"))
        .collect();
    names.sort();
    let mut pages = vec![read(&root, "README.md")];
    pages.extend(
        names
            .iter()
            .map(|name| read(&root, &format!("docs/{name}"))),
    );
    pages
}

/// The page at `path` (relative to the crate root).
pub fn page(path: &str) -> Page {
    read(&root(), path)
}

/// Every page's text, one after the other.
pub fn all_text() -> String {
    pages()
        .into_iter()
        .map(|page| page.text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(root: &Path, path: &str) -> Page {
    let text = std::fs::read_to_string(root.join(path))
        .unwrap_or_else(|e| panic!("{path} is readable: {e}"));
    Page {
        path: path.to_owned(),
        text,
    }
}
