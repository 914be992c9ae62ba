//! `payverify webhook check`: the hmac of a signed payload, offline.

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::checks;
use crate::cli::{GlobalArgs, ProfileArgs, WebhookCheckArgs};
use crate::client::MAX_BODY_BYTES;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::model::{Verification, parse_object};
use crate::render::Printer;
use crate::render::write_output;
use crate::settings::{Context, Settings};
use crate::signature;

/// Runs `payverify webhook check`.
pub fn check(
    global: &GlobalArgs,
    args: &WebhookCheckArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let (name, bytes) = read_input(args.input.as_deref())?;
    let bad = |why: String| Failure::new(Exit::BadResponse, format!("{name}: {why}"));
    let payload = parse_object(&bytes)
        .and_then(Verification::from_object)
        .map_err(|e| bad(e.to_string()))?;
    let message = checks::signed_message(&payload)
        .map_err(|missing| bad(format!("the payload lacks {missing}, the signed fields")))?;
    let Some(hmac) = payload.hmac.as_deref() else {
        return Err(bad("the payload has no hmac to check".into()));
    };
    let settings = Settings::resolve(global, &ProfileArgs::default(), ctx)?;
    settings.warn(log);
    let secret = settings.secret(log)?;
    let genuine = signature::verify(&secret, &message, hmac);
    // Genuineness and the caller's expectations only: the exit contract of webhook check
    // is 0 genuine, 4 mismatch (or an --expect-* miss), not verify's approval-code rule.
    let failures = checks::expectation_failures(&payload, &args.expect.expectations());

    if log.level() != Level::Quiet {
        let amount = payload
            .amount
            .map(|a| a.display_with_currency(payload.currency.as_deref()))
            .unwrap_or_default();
        let verdict = if genuine { "genuine" } else { "MISMATCH" };
        let text = format!(
            "merchantRef   {}\ncurrencyCode  {}\namount        {amount}\nstatus        {}\n\
             message       {message}\nhmac          {hmac}\nverdict       {verdict}\n",
            payload.merchant_ref.as_deref().unwrap_or_default(),
            payload.currency.as_deref().unwrap_or_default(),
            payload.status.as_deref().unwrap_or("-"),
        );
        let mut printer = Printer::stdout(global.color, ctx.env);
        write_output(printer.text(&text))?;
    }
    if !genuine {
        log.error(&format!(
            "{name}: hmac MISMATCH: not signed with this client secret, or altered after signing"
        ));
    }
    for failure in &failures {
        log.error(&format!("{name}: check failed: {failure}"));
    }
    Ok(if genuine && failures.is_empty() {
        Exit::Successful
    } else {
        Exit::CheckFailed
    })
}

/// Reads the payload from a file or stdin, refusing to wait on an interactive terminal.
fn read_input(input: Option<&Path>) -> Result<(String, Vec<u8>), Failure> {
    let limit = MAX_BODY_BYTES + 1;
    let (name, bytes) = match input {
        Some(path) if path != Path::new("-") => {
            let file = std::fs::File::open(path).map_err(|e| {
                Failure::usage(format!(
                    "cannot read {}: {}",
                    path.display(),
                    crate::config::io_reason(&e)
                ))
            })?;
            let mut bytes = Vec::new();
            file.take(limit)
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::usage(format!("cannot read {}: {e}", path.display())))?;
            (path.display().to_string(), bytes)
        }
        _ => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(Failure::usage(
                    "no payload: give a FILE, or pipe the JSON into payverify webhook check -",
                ));
            }
            let mut bytes = Vec::new();
            stdin
                .lock()
                .take(limit)
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::usage(format!("cannot read stdin: {e}")))?;
            ("stdin".to_owned(), bytes)
        }
    };
    if bytes.len() as u64 > MAX_BODY_BYTES {
        return Err(Failure::new(
            Exit::BadResponse,
            format!("{name}: larger than {} KiB", MAX_BODY_BYTES / 1024),
        ));
    }
    Ok((name, bytes))
}
