//! `payverify verify`: one reference, end to end.

use std::io;
use std::time::Duration;

use crate::checks;
use crate::cli::{GlobalArgs, OutputFormat, VerifyArgs};
use crate::client::Client;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::outcome::{Outcome, Verdict, classify};
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
        Some(sandbox) => Settings::sandbox(&args.profile_args, sandbox.url())?,
        None => Settings::resolve(global, &args.profile_args, ctx)?,
    };
    let endpoint = settings.endpoint()?;
    let client = Client::new(
        &endpoint,
        settings.timeout.value,
        settings.retries.value,
        log.clone(),
    );
    let outcome = classify(&client.verify(&reference));
    let checks = outcome.verification().map(|v| {
        checks::evaluate(
            v,
            settings.hmac.value,
            &endpoint.client_secret,
            &args.expect.expectations(),
        )
    });
    let verdict = Verdict { outcome, checks };
    let mut printer = Printer::stdout(global.color, ctx.env);
    report(&verdict, &reference, args.output, log, &mut printer)
}

/// Prints the verdict: the result on stdout when there is one; on stderr, why it is not a
/// plain success (check failures and warnings only matter for a SUCCESSFUL transaction).
pub fn report(
    verdict: &Verdict,
    reference: &Reference,
    format: OutputFormat,
    log: &Log,
    printer: &mut Printer,
) -> Result<Exit, Failure> {
    let integrity = verdict.checks.as_ref().map(|c| &c.integrity);
    if let Some(v) = verdict.outcome.verification()
        && log.level() != Level::Quiet
    {
        write_output(printer.verification(v, integrity, format))?;
    }
    match (&verdict.outcome, &verdict.checks) {
        (Outcome::Successful(_), Some(checks)) => {
            for warning in &checks.warnings {
                log.warn(warning);
            }
            for failure in &checks.failures {
                log.error(&format!("check failed for '{reference}': {failure}"));
            }
        }
        (outcome, _) => log.error(&outcome.message(reference)),
    }
    Ok(verdict.exit())
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
