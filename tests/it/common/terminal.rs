//! payverify on a pseudo-terminal, as a person at a terminal runs it.

use std::process::{Command, Stdio};

/// `script -qec 'PAYVERIFY ARGS' /dev/null`: payverify on a pseudo-terminal (util-linux
/// `script`), `args` the rest of a shell line after the binary's path (redirections
/// included), with no user config and stdin empty. What the terminal showed is the
/// command's stdout, escapes and carriage returns left in; the test adds any environment
/// of its own (NO_COLOR, COLUMNS, credentials).
pub fn on_terminal(args: &str) -> Command {
    let bin = assert_cmd::cargo::cargo_bin!("payverify");
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"])
        .env("XDG_CONFIG_HOME", "/nonexistent/payverify-test-config")
        .env("HOME", "/nonexistent/payverify-test-home")
        .stdin(Stdio::null());
    cmd
}
