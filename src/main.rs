//! The payverify binary: parse, run, exit with the documented status.

use std::io::Write;
use std::process::ExitCode;

use payverify::exit::Exit;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let line = payverify::log::scrub(&format!(
            "payverify: internal error (a bug, please report it): {what}"
        ));
        let _ = writeln!(std::io::stderr(), "{line}");
    }));
    match std::panic::catch_unwind(|| payverify::run(std::env::args_os())) {
        Ok(exit) => exit.into(),
        Err(_) => Exit::Internal.into(),
    }
}
