//! The sources' layers point one way (issue 24 item 5): each top-level module of `src/` uses
//! only the modules below it in [`LAYERS`], and no files use each other in a loop. Read
//! from the `crate::` and `super::` paths of the code (comments and unit tests left out).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules, from the top (what runs the commands) down to the ground (what
/// everything may use): args -> settings -> job -> request -> response -> outcome -> record ->
/// render, drawn as imports. ARCHITECTURE.md says what lives in each.
const LAYERS: &[&str] = &[
    "main",
    "lib",
    "commands",
    "cli",
    "batch",
    "journal",
    "render",
    "settings",
    "sandbox",
    "domain",
    "transport",
    "log",
    "signal",
    "files",
    "terminal",
    "reference",
    "secret",
    "unseen",
    "exit",
    "io_util",
    "testutil",
];

/// Upward imports known and not yet removed, each with why it is still there. Shrink it;
/// never grow it.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// Every `.rs` file under `src/`, as its module path (`["domain", "job"]`; `mod.rs` is its
/// folder's module) with its code.
fn sources() -> BTreeMap<Vec<String>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let rel = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            // Unit-test files (`tests.rs`) may reach anywhere, as `mod tests` blocks may.
            if module.last().is_some_and(|m| m == "tests") {
                return None;
            }
            Some((module, code_of(&std::fs::read_to_string(&path).unwrap())))
        })
        .collect()
}

/// `text` without comments and without its trailing `#[cfg(test)] mod tests`.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The module paths `code` (of the file whose module is `module`) names with `crate::` or
/// `super::`, each as far as its segments are modules of `known`.
fn uses(
    module: &[String],
    code: &str,
    known: &BTreeSet<Vec<String>>,
    is_mod_rs: bool,
) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        let mut at = 0;
        while let Some(i) = code[at..].find(start) {
            let i = at + i;
            at = i + start.len();
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                continue;
            }
            let mut path: Vec<String> = if start == "crate::" {
                Vec::new()
            } else {
                // `super` of a file's module; a `mod.rs` file is its folder's module.
                let mut base = module.to_vec();
                if !is_mod_rs || !base.is_empty() {
                    base.pop();
                }
                base
            };
            let mut rest = &code[at..];
            while let Some(stripped) = rest.strip_prefix("super::") {
                path.pop();
                rest = stripped;
            }
            for segment in rest.split("::") {
                let name: String = segment
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let mut longer = path.clone();
                longer.push(name.clone());
                if name.is_empty() || !known.contains(&longer) {
                    break;
                }
                path = longer;
                if segment.len() != name.len() {
                    break;
                }
            }
            if !path.is_empty() && path != module {
                found.insert(path);
            }
        }
    }
    found
}

/// Every file's module and the modules it uses.
fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = sources();
    let known: BTreeSet<Vec<String>> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(module, code)| {
            let is_mod_rs = src.join(module.join("/")).join("mod.rs").exists();
            (module.clone(), uses(module, code, &known, is_mod_rs))
        })
        .collect()
}

fn rank(module: &[String]) -> usize {
    let top = module.first().map(String::as_str).unwrap_or("lib");
    LAYERS
        .iter()
        .position(|&l| l == top)
        .unwrap_or_else(|| panic!("src/{top}: a new top-level module: give it its layer in LAYERS"))
}

#[test]
fn each_module_uses_only_the_layers_below_it() {
    let mut upward = Vec::new();
    for (module, used) in graph() {
        for target in used {
            let known = KNOWN_UPWARD
                .iter()
                .any(|(from, to, _)| *from == module.join("::") && *to == target.join("::"));
            if target.first() != module.first() && rank(&target) < rank(&module) && !known {
                upward.push(format!("{} uses {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run up a layer:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_files_use_each_other_in_a_loop() {
    let graph = graph();
    // Depth-first search from every file; a module met again on the current path closes a
    // loop. A module uses its parent's facade freely (`super::X` re-exports), so an edge to
    // an ancestor of the file is left out.
    fn visit(
        at: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        path: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
        loops: &mut Vec<String>,
    ) {
        if done.contains(at) {
            return;
        }
        if let Some(i) = path.iter().position(|m| m == at) {
            let names: Vec<String> = path[i..].iter().map(|m| m.join("::")).collect();
            loops.push(format!("{} -> {}", names.join(" -> "), at.join("::")));
            return;
        }
        path.push(at.clone());
        for next in graph.get(at).into_iter().flatten() {
            if !at.starts_with(next) && graph.contains_key(next) {
                visit(next, graph, path, done, loops);
            }
        }
        path.pop();
        done.insert(at.clone());
    }
    let mut loops = Vec::new();
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        visit(module, &graph, &mut Vec::new(), &mut done, &mut loops);
    }
    assert!(
        loops.is_empty(),
        "files that use each other:\n{}",
        loops.join("\n")
    );
}

/// ARCHITECTURE.md's table of layers names the modules in [`LAYERS`]'s order, every one.
#[test]
fn architecture_md_lists_the_layers_as_the_code_has_them() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let table = page
        .split("| layer | what lives there |")
        .nth(1)
        .expect("ARCHITECTURE.md has its table of layers");
    let listed: Vec<String> = table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .flat_map(|line| {
            let first = line.split('|').nth(1).unwrap_or_default().to_owned();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|name| {
                    name.trim_end_matches('/')
                        .trim_end_matches(".rs")
                        .to_owned()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(listed, LAYERS, "ARCHITECTURE.md's layers against LAYERS");
}
