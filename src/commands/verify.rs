//! `payverify verify`: one reference, end to end.

use std::io;
use std::time::Duration;

use crate::cli::{GlobalArgs, VerifyArgs};
use crate::client::Client;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::outcome::{Outcome, classify};
use crate::reference::Reference;
use crate::render::Printer;
use crate::sandbox::{self, Sandbox};
use crate::settings::{Context, Settings};

/// Runs `payverify verify`.
pub fn run(
    global: &GlobalArgs,
    args: &VerifyArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let reference = Reference::parse(&args.reference)
        .map_err(|e| Failure::usage(format!("{e} (give the transaction reference to verify)")))?;
    // Kept alive until the verification is done; dropping it stops the server.
    let sandbox = match args.sandbox {
        true => Some(Sandbox::start(
            sandbox::Options {
                port: 0,
                latency: Duration::ZERO,
                log_requests: false,
            },
            log.clone(),
        )?),
        false => None,
    };
    let settings = match &sandbox {
        Some(sandbox) => Settings::sandbox(&args.connection, sandbox.url())?,
        None => Settings::resolve(global, &args.connection, ctx)?,
    };
    let endpoint = settings.endpoint()?;
    let client = Client::new(
        &endpoint,
        settings.timeout.value,
        settings.retries.value,
        log.clone(),
    );
    let outcome = classify(&client.verify(&reference));
    let mut printer = Printer::stdout(global.color, ctx.env);
    report(&outcome, &reference, args, log, &mut printer)
}

/// Prints the outcome: the result on stdout when there is one, a line on stderr otherwise.
pub fn report(
    outcome: &Outcome,
    reference: &Reference,
    args: &VerifyArgs,
    log: &Log,
    printer: &mut Printer,
) -> Result<Exit, Failure> {
    if let Some(v) = outcome.verification()
        && log.level() != Level::Quiet
    {
        write_output(printer.verification(v, args.output))?;
    }
    if !matches!(outcome, Outcome::Successful(_)) {
        log.error(&outcome.message(reference));
    }
    Ok(outcome.exit())
}

/// A closed pipe (`| head`) is the reader's choice, not an error; anything else is.
pub fn write_output(result: io::Result<()>) -> Result<(), Failure> {
    match result {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::new(
            Exit::Internal,
            format!("cannot write the output: {}", crate::config::io_reason(&e)),
        )),
        _ => Ok(()),
    }
}
