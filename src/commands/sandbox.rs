//! `payverify sandbox`: the standalone sandbox server for scripts and newcomers.

use std::io::Write;
use std::time::Duration;

use crate::cli::SandboxArgs;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::sandbox::{self, Sandbox};
use crate::signal::Interrupt;

/// Runs the sandbox until Ctrl-C or SIGTERM.
pub fn run(args: &SandboxArgs, log: &Log) -> Result<Exit, Failure> {
    let interrupt = Interrupt::install()?;
    let server = Sandbox::start(
        sandbox::Options {
            port: args.port,
            latency: Duration::from_millis(args.latency_ms),
            log_requests: log.level() != Level::Quiet,
        },
        log.clone(),
    )?;
    let quiet = log.level() == Level::Quiet;
    crate::render::write_output(print_banner(server.url(), args.latency_ms, quiet))?;
    interrupt.wait();
    drop(server);
    log.info("sandbox stopped");
    Ok(Exit::Successful)
}

/// The base URL first (scripts read that line), then, unless quiet, how to use it.
fn print_banner(url: &str, latency_ms: u64, quiet: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{url}")?;
    out.flush()?;
    if quiet {
        return Ok(());
    }
    let latency = match latency_ms {
        0 => String::new(),
        ms => format!(" Every response is delayed {ms} ms."),
    };
    write!(
        out,
        "\npayverify sandbox: a local stand-in for the Verify Transaction service.{latency}\n\
         Credentials: client id '{id}', client secret '{secret}'.\n\n\
         export PAYVERIFY_BASE_URL={url}\n\
         export PAYVERIFY_CLIENT_ID={id}\n\
         export PAYVERIFY_CLIENT_SECRET={secret}\n\n\
         Magic references:\n{table}\n\
         Stop with Ctrl-C.\n",
        id = sandbox::CLIENT_ID,
        secret = sandbox::CLIENT_SECRET,
        table = sandbox::magic_table(),
    )?;
    out.flush()
}
