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

/// Issue 39 item 4: the first command a reader meets is the one an installed binary takes;
/// the source checkout's form comes beside it.
#[test]
fn readme_first_command_is_for_an_installed_binary() {
    let first_block = README
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .unwrap_or_default();
    assert_eq!(
        first_block,
        "payverify verify --sandbox 0000000000000044177\n"
    );
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

/// Issue 27 item 6: under `LANG=C`, `man` renders for the ASCII device, which has no glyph
/// for the naira sign: groff warned `can't find special character 'u20A6'` and dropped it.
/// The page writes `NGN` instead, and `man` prints nothing on stderr.
#[test]
fn man_page_renders_under_lang_c_without_a_warning() {
    let which = std::process::Command::new("sh")
        .args(["-c", "command -v man"])
        .output()
        .unwrap();
    if !which.status.success() {
        // CI installs man-db (scripts/check-release.sh, before the tests in .ci/run): missing
        // there means this test checked nothing, which must not pass silently.
        assert!(
            std::env::var_os("CI").is_none(),
            "man is not installed under CI"
        );
        eprintln!("man_page_renders_under_lang_c_without_a_warning: no man here, not checked");
        return;
    }
    let page = crate::common::payverify().arg("man").output().unwrap();
    assert_eq!(page.status.code(), Some(0));
    let text = String::from_utf8(page.stdout.clone()).unwrap();
    assert!(!text.contains('₦'), "the roff still holds a naira sign");
    assert!(
        text.contains("NGN\\ 40,000.00"),
        "the roff lacks NGN\\ 40,000.00"
    );
    let dir = crate::common::TempDir::new("man-lang-c");
    let file = dir.write("payverify.1", &page.stdout);
    for lang in ["C", "C.UTF-8"] {
        let out = std::process::Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("LANG", lang)
            .env("LC_ALL", lang)
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "LANG={lang}: man exit {:?}: {stderr}",
            out.status
        );
        assert_eq!(stderr, "", "LANG={lang}: man warned");
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            shown.contains("NGN 40,000.00"),
            "LANG={lang}: the rendered page lacks NGN 40,000.00"
        );
    }
}

/// Issue 27 item 6: `reconcile --help` describes its own `-o` (per row of the orders file,
/// with reconcile's columns), not verify's (per reference, the service's JSON object).
#[test]
fn reconcile_help_describes_its_own_output_formats() {
    let help = |args: &[&str]| {
        let out = crate::common::payverify().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let reconcile = help(&["help", "reconcile"]);
    let output = &reconcile[reconcile.find("--output <FORMAT>").unwrap()..];
    let output = &output[..output.find("\n      --").unwrap()];
    for verify_only in [
        "The service's JSON object",
        "per reference",
        "A field/value table",
    ] {
        assert!(
            !output.contains(verify_only),
            "reconcile -o says {verify_only:?}:\n{output}"
        );
    }
    for own in [
        "- table:",
        "- json:",
        "- jsonl:",
        "- csv:",
        "per row",
        "difference_kobo",
    ] {
        assert!(
            output.contains(own),
            "reconcile -o lacks {own:?}:\n{output}"
        );
    }
    // verify keeps its own.
    let verify = help(&["help", "verify"]);
    assert!(verify.contains("The service's JSON object exactly as received"));
}

/// Issue 27 item 4: the webhook body docs/webhooks.md shows passes `webhook check` under the
/// sandbox's secret, as the page says (it was the published sample, whose hmac is the
/// gateway's own: verdict MISMATCH, exit 4).
#[test]
fn the_webhook_sample_is_genuine_under_the_sandbox_secret() {
    let page = pages::page("docs/webhooks.md");
    let start = page.text.find("```json\n").unwrap() + "```json\n".len();
    let end = start + page.text[start..].find("```").unwrap();
    let dir = crate::common::TempDir::new("webhook-sample");
    let payload = dir.write("payload.json", &page.text[start..end]);
    let out = crate::common::payverify()
        .args(["webhook", "check"])
        .arg(&payload)
        .env("PAYVERIFY_CLIENT_SECRET", payverify::sandbox::CLIENT_SECRET)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("genuine, paid"), "{stdout}");
}

/// Issue 27 item 5: nothing public says the service answers a merchant reference with 404, so
/// no page may say so; the README says which reference the shop holds and what is known.
#[test]
fn no_page_claims_a_merchant_reference_is_answered_with_404() {
    for page in pages::pages() {
        // Sentences of paragraphs; a table row is one sentence of its own.
        let mut sentences = Vec::new();
        let mut fenced = false;
        let prose: String = page
            .text
            .lines()
            .filter(|line| {
                if line.trim_start().starts_with("```") {
                    fenced = !fenced;
                    return false;
                }
                !fenced
            })
            .map(|line| format!("{line}\n"))
            .collect();
        for paragraph in prose.split("\n\n") {
            if paragraph.trim_start().starts_with('|') {
                sentences.extend(paragraph.lines().map(str::to_owned));
            } else {
                let flat = paragraph.replace('\n', " ");
                sentences.extend(flat.split(". ").map(str::to_owned));
            }
        }
        for sentence in sentences {
            let merchant = sentence.contains("merchantRef") || sentence.contains("merchant ref");
            assert!(
                !(merchant && sentence.contains("404")),
                "{}: {sentence:?}",
                page.path
            );
        }
    }
    assert!(README.contains("Nothing public says which forms the service answers"));
    assert!(README.contains("`<order id>_<unix time>`"));
}

/// Issue 27 item 6: `sandbox --help`'s magic-reference table reads at the width help is
/// wrapped to: no line wider than the terminal, every pattern at the start of its row and
/// every answer line under its answer column (or under its pattern, on a narrow terminal);
/// clap re-wrapping a long line would put a piece of an answer at the left margin.
#[test]
fn sandbox_help_table_fits_the_terminal_it_is_shown_on() {
    // On a pseudo-terminal of 80 and 64 columns (util-linux `script`), help piped to `cat`
    // as `| less` would, so only stderr is the terminal; COLUMNS unset, then saying
    // otherwise (it loses to the terminal, as in clap). Then off any terminal, where COLUMNS
    // is the width.
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    for (columns, env) in [(80usize, "unset COLUMNS"), (64, "export COLUMNS=200")] {
        let command = format!(
            "stty cols {columns} rows 60; {env}; {} sandbox --help | cat",
            bin.display()
        );
        let out = std::process::Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("util-linux script runs payverify on a pseudo-terminal");
        let help = String::from_utf8_lossy(&out.stdout).replace('\r', "");
        check_magic_table(&help, columns, &format!("a {columns}-column terminal"));
    }
    for columns in [100usize, 80, 50] {
        let out = crate::common::payverify()
            .args(["sandbox", "--help"])
            .env("COLUMNS", columns.to_string())
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        check_magic_table(&help, columns, &format!("COLUMNS={columns}"));
    }
}

fn check_magic_table(help: &str, columns: usize, context: &str) {
    let start = help
        .find("Magic references")
        .unwrap_or_else(|| panic!("{context}: no magic references in {help}"));
    let end = start + help[start..].find("\nCredentials:").unwrap();
    let section = &help[start..end];
    let patterns: Vec<&str> = MAGIC_REFERENCES.iter().map(|row| row.pattern).collect();
    let mut seen = 0;
    // (pattern, its answer as printed, lines joined)
    let mut rows: Vec<(String, String)> = Vec::new();
    for line in section.lines() {
        assert!(
            line.chars().count() <= columns,
            "{context}: a line of {} columns: {line:?}\n{section}",
            line.chars().count()
        );
        if !line.starts_with(' ') {
            continue; // the heading and the note below the table
        }
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let pattern = patterns
            .iter()
            .filter(|p| indent == 2 && body.starts_with(**p))
            .max_by_key(|p| p.len());
        match pattern {
            Some(pattern) => {
                seen += 1;
                let answer = body[pattern.len()..].trim().to_owned();
                rows.push(((*pattern).to_owned(), answer));
            }
            None => {
                assert!(
                    indent >= 6,
                    "{context}: an answer line at the left margin: {line:?}\n{section}"
                );
                let (_, answer) = rows.last_mut().expect("a row before it");
                if !answer.is_empty() {
                    answer.push(' ');
                }
                answer.push_str(body);
            }
        }
    }
    assert_eq!(seen, patterns.len(), "{context}: rows missing\n{section}");
    for (row, (pattern, answer)) in MAGIC_REFERENCES.iter().zip(&rows) {
        assert_eq!(row.pattern, pattern, "{context}: rows out of order");
        assert_eq!(row.answer, answer, "{context}: {pattern}'s answer");
    }
}

/// The fenced block of `lang` that follows `marker` on docs/sandbox.md.
fn sandbox_block(marker: &str, lang: &str) -> String {
    let page = pages::page("docs/sandbox.md");
    let from = page
        .text
        .find(marker)
        .unwrap_or_else(|| panic!("{} lacks {marker:?}", page.path));
    let open = format!("```{lang}\n");
    let start = from
        + page.text[from..]
            .find(&open)
            .unwrap_or_else(|| panic!("no {lang} block after {marker:?}"))
        + open.len();
    let len = page.text[start..].find("```").expect("an unclosed block");
    page.text[start..start + len].to_owned()
}

/// Issue 38 item 9: the gate lines docs/sandbox.md gives for a WooCommerce merchant
/// reference of a chosen amount exit as their comments say. The sandbox answers the
/// WooCommerce part as the merchantRef; answered with the whole reference (as it was), the
/// first line exits 4.
#[test]
fn sandbox_page_gate_lines_for_a_woocommerce_order_exit_as_written() {
    let block = sandbox_block("A checkout hook can so be tried", "sh");
    let mut tried = 0;
    for line in block.lines().filter(|l| l.starts_with("payverify gate")) {
        let (command, comment) = line.split_once('#').expect("an `# exit N` comment");
        let want: i32 = comment
            .trim()
            .strip_prefix("exit ")
            .and_then(|c| c.split(':').next())
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("{line:?}: no exit code"));
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = crate::common::payverify().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(want),
            "{line}: {}",
            crate::common::stderr_of(&out)
        );
        assert!(out.stdout.is_empty(), "{line}");
        tried += 1;
    }
    assert_eq!(tried, 2, "{block}");
}

/// Issue 38 item 9: the Shopify-shaped order docs/sandbox.md shows reconciles with the
/// sandbox as the page says, `#1001` as order 1001, its second row a line item, the gift
/// card's part not counted against the gateway, the dollars in dollars.
#[test]
fn sandbox_page_shopify_order_reconciles_as_written() {
    let block = sandbox_block("**A Shopify-shaped order.**", "csv");
    let dir = crate::common::TempDir::new("docs-shopify");
    dir.write("export.csv", block.as_bytes());
    let out = crate::common::payverify()
        .current_dir(dir.path())
        .args([
            "reconcile",
            "--sandbox",
            "--retries",
            "0",
            "export.csv",
            "-o",
            "jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::stderr_of(&out)
    );
    let rows = crate::common::jsonl(&out.stdout);
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["row"]["Name"].as_str().unwrap_or_default(),
                r["result"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("#1001", "MATCHED"),
            ("#1001", "LINE_ITEM"),
            ("#1002", "SPLIT_PAID"),
            ("#1003", "MATCHED"),
        ]
    );
    assert_eq!(rows[3]["gateway_currency"], "USD");
    assert_eq!(rows[2]["gateway_amount_kobo"], 3_000_000);
}
