//! The README states contracts the code defines; these tests keep the two in step.

use payverify::Exit;
use payverify::sandbox::MAGIC_REFERENCES;

const README: &str = include_str!("../../README.md");

#[test]
fn readme_exit_table_matches_the_code() {
    for exit in Exit::ALL {
        let row = format!("| {} | {} |", exit.code(), exit.meaning());
        assert!(README.contains(&row), "README lacks the row {row:?}");
    }
}

#[test]
fn readme_lists_every_magic_reference() {
    for (reference, what) in MAGIC_REFERENCES {
        let shown = if reference == "anything else" {
            reference.to_owned()
        } else {
            format!("`{reference}`")
        };
        let row = format!("| {shown} | {what} |");
        assert!(README.contains(&row), "README lacks the row {row:?}");
    }
}

#[test]
fn readme_gives_the_two_setup_commands() {
    assert!(README.contains("cargo run --release -- verify --sandbox 0000000000000044177"));
    assert!(README.contains("cargo test --locked"));
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
