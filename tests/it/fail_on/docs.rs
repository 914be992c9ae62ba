//! What a person sees of --fail-on: the progress bar by class, the class table in help, the
//! man page and docs, and the cron recipe as the docs give it.

use std::process::Command as StdCommand;

use super::{CLASS_OF, CLASS_ORDER};
use crate::common::*;

/// The batch's stderr as a terminal shows it: payverify on a pseudo-terminal (util-linux
/// `script`), stdout to /dev/null; escapes and carriage returns left in.
fn stderr_on_terminal(args: &str) -> String {
    let out = on_terminal(&format!("verify --sandbox {args} >/dev/null"))
        .env("COLUMNS", "200")
        .env("NO_COLOR", "1")
        .output()
        .expect("util-linux script runs payverify on a pseudo-terminal");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_progress_bar_counts_each_class_by_name() {
    // One worker: the four that are not SUCCESSFUL are counted before the slow last one,
    // while which the bar is drawn with their counts.
    let screen = stderr_on_terminal(
        "-j 1 -o jsonl SANDBOX-FAILED-1 SANDBOX-NOTFOUND-2 SANDBOX-PENDING-3 SANDBOX-CODE-51-4 \
         SANDBOX-OK-5 SANDBOX-SLOW-1000-6",
    );
    assert!(
        screen.contains("1 declined, 1 not_found, 1 mismatch, 1 pending"),
        "{screen:?}"
    );
    assert!(!screen.contains("failed"), "{screen:?}");
    // The summary line still counts outcomes.
    assert!(
        screen.contains("2 SUCCESSFUL, 1 FAILED, 1 NOT_FOUND, 1 CHECK_FAILED, 1 NOT_FINAL"),
        "{screen:?}"
    );
}

#[test]
fn the_class_table_is_the_codes_in_help_man_page_and_docs() {
    let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = payverify().args(["help", "verify"]).output().unwrap();
    let help = collapse(&stdout_of(&help));
    let man = payverify().arg("man").output().unwrap();
    let man = collapse(&stdout_of(&man).replace("\\-", "-").replace("\\*(Aq", "'"));
    let docs = crate::common::pages::page("docs/exit-codes.md");
    let mut oracle = Vec::new();
    for class in payverify::Class::ALL {
        let members = payverify::class_members(class);
        let row = format!(
            "| `{}` | {} | {} |",
            class.name(),
            members.join(", "),
            class.meaning()
        );
        assert!(docs.text.contains(&row), "docs/exit-codes.md lacks {row:?}");
        let line = format!(
            "{} {}: {}",
            class.name(),
            members.join(", "),
            class.meaning()
        );
        assert!(
            help.contains(&collapse(&line)),
            "verify --help lacks {line:?}"
        );
        let entry = format!("{}: {}", members.join(", "), class.meaning());
        assert!(
            man.contains(&collapse(&entry)),
            "the man page lacks {entry:?}"
        );
        oracle.extend(members.iter().map(|m| (*m, class.name())));
    }
    // The code's table agrees with the oracle the differential test reads outcomes by.
    oracle.sort();
    let mut mine = CLASS_OF.to_vec();
    mine.sort();
    assert_eq!(oracle, mine);
    assert_eq!(
        payverify::Class::ALL.map(|c| c.name()).to_vec(),
        CLASS_ORDER.to_vec()
    );
}

/// Every cron recipe with --fail-on in the README and docs/, run as written through sh:
/// the schedule taken off, /srv/ moved into a temporary directory, `mail` a stand-in that
/// keeps what it was sent, the `live` profile on a sandbox.
#[test]
fn every_cron_recipe_runs() {
    let mut recipes: Vec<(String, String)> = Vec::new();
    for page in crate::common::pages::pages() {
        for line in page.text.lines() {
            if line.contains("--fail-on") && line.starts_with("15 2 * * * payverify") {
                recipes.push((page.path.clone(), line.to_owned()));
            }
        }
    }
    let pages: Vec<&str> = recipes.iter().map(|(p, _)| p.as_str()).collect();
    for want in ["README.md", "docs/batch.md", "docs/gate.md"] {
        assert!(
            pages.iter().any(|p| p.ends_with(want)),
            "no recipe in {want}: {pages:?}"
        );
    }
    let sandbox = Standalone::start(&["-q"]);
    for (page, recipe) in recipes {
        let command: String = recipe.splitn(6, ' ').nth(5).unwrap().to_owned();
        for (refs, mailed) in [
            // Declined cards and unknown references: no mail.
            (
                "SANDBOX-OK-1\nSANDBOX-FAILED-2\nSANDBOX-NOTFOUND-3\n",
                false,
            ),
            // A payment that fails its checks: the mail, with the summary line.
            ("SANDBOX-OK-1\nSANDBOX-FAILED-2\nSANDBOX-CODE-51-3\n", true),
        ] {
            let dir = TempDir::new("cron-fail-on");
            let root = dir.path().display().to_string();
            std::fs::create_dir_all(dir.path().join("srv/refs")).unwrap();
            std::fs::create_dir_all(dir.path().join("srv/out")).unwrap();
            std::fs::create_dir_all(dir.path().join("bin")).unwrap();
            std::fs::write(dir.path().join("srv/refs/today.txt"), refs).unwrap();
            let mail = dir.path().join("bin/mail");
            std::fs::write(
                &mail,
                format!(
                    "#!/bin/sh\nprintf '%s\\n' \"$*\" > {root}/mail.args\ncat > {root}/mail.body\n"
                ),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&mail, std::fs::Permissions::from_mode(0o755)).unwrap();
            let config = dir.write(
                "config.toml",
                format!(
                    "[profiles.live]\nbase_url = \"{}\"\nclient_id = \"sandbox\"\n\
                     client_secret = \"sandbox-secret\"\n",
                    sandbox.url
                ),
            );
            std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
            let bin = assert_cmd::cargo::cargo_bin!("payverify");
            let path = format!(
                "{root}/bin:{}:{}",
                bin.parent().unwrap().display(),
                std::env::var("PATH").unwrap_or_default()
            );
            let run = StdCommand::new("sh")
                .arg("-c")
                .arg(command.replace("/srv/", &format!("{root}/srv/")))
                .current_dir(dir.path())
                .env("PAYVERIFY_CONFIG", &config)
                .env("PATH", path)
                .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
                .env_remove("PAYVERIFY_PROFILE")
                .env_remove("PAYVERIFY_BASE_URL")
                .env_remove("PAYVERIFY_CLIENT_ID")
                .env_remove("PAYVERIFY_CLIENT_SECRET")
                .output()
                .unwrap();
            assert_eq!(run.status.code(), Some(0), "{page}: {}", stderr_of(&run));
            let csv = std::fs::read_to_string(dir.path().join("srv/out/today.csv")).unwrap();
            assert_eq!(csv.lines().count(), 4, "{page}: {csv}");
            assert!(
                csv.contains("\nSANDBOX-FAILED-2,FAILED,1,"),
                "{page}: {csv}"
            );
            let body = std::fs::read_to_string(dir.path().join("mail.body"));
            match mailed {
                false => assert!(body.is_err(), "{page}: mailed {body:?}"),
                true => {
                    let body = body.unwrap();
                    assert!(
                        body.contains(
                            "1 SUCCESSFUL, 1 FAILED, 1 CHECK_FAILED; exit 4: 1 FAILED not in \
                             --fail-on mismatch,unverified"
                        ),
                        "{page}: {body}"
                    );
                    let args = std::fs::read_to_string(dir.path().join("mail.args")).unwrap();
                    assert_eq!(args, "-s payments need a look ops@example.com\n", "{page}");
                }
            }
        }
    }
    sandbox.terminate();
}

/// `verify --help`'s and the man page's nightly example, run as written through sh in a
/// directory holding refs.txt, with `mail` a stand-in that keeps what it was sent.
#[test]
fn the_nightly_example_in_help_and_man_page_runs() {
    let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = payverify().args(["help", "verify"]).output().unwrap();
    assert!(collapse(&stdout_of(&help)).contains(payverify::NIGHTLY));
    let man = payverify().arg("man").output().unwrap();
    assert!(
        stdout_of(&man)
            .replace("\\-", "-")
            .contains(payverify::NIGHTLY)
    );
    let sandbox = Standalone::start(&["-q"]);
    for (refs, mailed) in [
        ("SANDBOX-OK-1\nSANDBOX-FAILED-2\n", None),
        (
            "SANDBOX-FAILED-2\nSANDBOX-CODE-51-3\n",
            Some("1 FAILED, 1 CHECK_FAILED; exit 4: 1 FAILED not in --fail-on mismatch,unverified"),
        ),
    ] {
        let dir = TempDir::new("nightly");
        dir.write("refs.txt", refs);
        let root = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        let mail = dir.write("bin/mail", format!("#!/bin/sh\ncat > {root}/mail.body\n"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&mail, std::fs::Permissions::from_mode(0o755)).unwrap();
        let bin = assert_cmd::cargo::cargo_bin!("payverify");
        let path = format!(
            "{root}/bin:{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let run = StdCommand::new("sh")
            .args(["-c", payverify::NIGHTLY])
            .current_dir(dir.path())
            .env("PATH", path)
            .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
            .env_remove("PAYVERIFY_PROFILE")
            .env_remove("PAYVERIFY_CONFIG")
            .env("PAYVERIFY_BASE_URL", &sandbox.url)
            .env("PAYVERIFY_CLIENT_ID", "sandbox")
            .env("PAYVERIFY_CLIENT_SECRET", "sandbox-secret")
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{}", stderr_of(&run));
        let csv = std::fs::read_to_string(dir.path().join("out")).unwrap();
        assert!(csv.contains("\nSANDBOX-FAILED-2,FAILED,1,"), "{csv}");
        let body = std::fs::read_to_string(dir.path().join("mail.body"));
        match mailed {
            None => assert!(body.is_err(), "mailed {body:?}"),
            Some(line) => assert!(body.unwrap().contains(line)),
        }
    }
    sandbox.terminate();
}
