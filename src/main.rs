//! The payverify binary: parse, run, exit with the documented status.

use std::io::Write;
use std::process::ExitCode;

use payverify::Exit;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let line = payverify::panic_line(info.payload());
        let _ = writeln!(std::io::stderr(), "{line}");
    }));
    match std::panic::catch_unwind(|| payverify::run(std::env::args_os())) {
        Ok(exit) => exit.into(),
        Err(_) => Exit::Internal.into(),
    }
}
