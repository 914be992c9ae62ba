//! `payverify webhook check`: the hmac of a signed payload, offline.

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::cli::{GlobalArgs, ProfileArgs, WebhookCheckArgs};
use crate::domain::checks;
use crate::domain::judge::judge;
use crate::domain::model::{Verification, parse_object};
use crate::domain::outcome::{Outcome, OutcomeKind};
use crate::domain::signature;
use crate::exit::{Exit, Failure};
use crate::files::{PAYLOAD, Problem};
use crate::log::{Level, Log};
use crate::render::Printer;
use crate::render::write_output;
use crate::settings::{Context, Settings};

/// Runs `payverify webhook check`.
///
/// The hmac covers only merchantRef, currencyCode and amount, so "genuine" is not "paid".
/// The exit follows verify's table: 0 only for a genuine payload that is SUCCESSFUL with
/// code 00 and a paymentDate (what the gateway's own plugin acts on) and meets every
/// `--expect-*`; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing, malformed or
/// mismatched, or a failed check; 8 malformed; 6 no secret.
pub(crate) fn check(
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
    let Some(status) = payload.status.as_deref() else {
        return Err(bad("the payload has no \"status\"".into()));
    };
    let run = ProfileArgs {
        mode: args.mode.clone(),
        ..ProfileArgs::default()
    };
    let settings = Settings::resolve(&global.flags(&run), ctx)?;
    let mode = settings.expect_mode.as_ref().map(|m| m.value.as_str());
    settings.warn(log);
    let secret = settings.secret(log)?;
    let hmac = payload.hmac.as_deref();
    // An hmac that does not show the gateway sent the payload: exit 4, whatever it says.
    let refused = match hmac {
        None => Some((
            "MISSING hmac",
            "the payload has no hmac, so nothing shows the gateway sent it",
        )),
        Some(hmac) if !signature::is_well_formed(hmac) => {
            Some(("MISMATCH", "hmac MISMATCH: hmac is not 64 hex digits"))
        }
        Some(hmac) if !signature::verify(&secret, &message, hmac) => Some((
            "MISMATCH",
            "hmac MISMATCH: not signed with this client secret, or altered after signing",
        )),
        Some(_) => None,
    };
    let (exit, verdict, problems) = match refused {
        Some((verdict, why)) => (Exit::CheckFailed, verdict, vec![why.to_owned()]),
        None => genuine_verdict(&payload, &secret, &args.expect.expectations(), mode),
    };

    if log.level() != Level::Quiet {
        let amount = payload
            .amount
            .map(|a| a.display_with_currency(payload.currency.as_deref()))
            .unwrap_or_default();
        let text = report(&[
            (
                "merchantRef",
                payload.merchant_ref.as_deref().unwrap_or_default(),
            ),
            (
                "currencyCode",
                payload.currency.as_deref().unwrap_or_default(),
            ),
            ("amount", &amount),
            ("status", status),
            ("code", payload.code.as_deref().unwrap_or("-")),
            (
                "paymentDate",
                payload.payment_date.as_deref().unwrap_or("-"),
            ),
            ("message", &message),
            ("hmac", hmac.unwrap_or("-")),
            ("verdict", verdict),
        ]);
        let mut printer = Printer::stdout(global.color, ctx.env);
        write_output(printer.text(&text))?;
    }
    for problem in &problems {
        log.error(&format!("{name}: {problem}"));
    }
    Ok(exit)
}

/// The report on stdout: a line per field, label then value. Every value goes through the
/// one sanitiser ([`crate::terminal::scrub`]): the payload is the sender's text, and a raw
/// newline or escape sequence in it could print a forged `verdict` line, hide the real one
/// or set the terminal's title.
fn report(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(label, value)| format!("{label:<13} {}\n", crate::terminal::scrub(value)))
        .collect()
}

/// The verdict on a payload whose hmac is genuine: what it says about the payment, judged
/// by verify's one judge (its status, code 00, each `--expect-*`, the expected mode, and
/// the one rule for "final and paid"), with no reference to compare (a payload answers no
/// request) and the hmac already found genuine.
fn genuine_verdict(
    payload: &Verification,
    secret: &crate::secret::Secret,
    expect: &checks::Expectations,
    mode: Option<&str>,
) -> (Exit, &'static str, Vec<String>) {
    let outcome = Outcome::answered(payload.clone());
    let verdict = judge(outcome, None, checks::HmacMode::Off, secret, expect, mode);
    let failures = || {
        let checks = verdict.checks.iter().flat_map(|c| &c.failures);
        checks.map(|f| format!("check failed: {f}")).collect()
    };
    let (shown, problems) = match (&verdict.outcome, verdict.kind()) {
        (_, OutcomeKind::Successful) => ("genuine, paid", Vec::new()),
        (_, OutcomeKind::CheckFailed) => ("genuine, CHECK FAILED", failures()),
        (Outcome::Failed(v), _) => (
            "genuine, FAILED",
            vec![format!(
                "genuine, but the payment FAILED (status {})",
                v.status.as_deref().unwrap_or_default()
            )],
        ),
        // The one rule for "final and paid": no paymentDate (or a blank one), no payment
        // yet.
        (Outcome::NotFinal(v), _) if v.status.as_deref() == Some("SUCCESSFUL") => (
            "genuine, NOT FINAL",
            vec!["genuine, but not final: SUCCESSFUL with code 00 and no paymentDate".into()],
        ),
        (Outcome::NotFinal(v), _) => (
            "genuine, NOT FINAL",
            vec![format!(
                "genuine, but not final: status {:?}",
                v.status.as_deref().unwrap_or_default()
            )],
        ),
        // A payload with a status is always one of the above; say so rather than pass.
        (other, _) => ("NOT CHECKED", vec![other.row_message()]),
    };
    (verdict.exit(), shown, problems)
}

/// Reads the payload from a file or stdin, refusing to wait on an interactive terminal.
fn read_input(input: Option<&Path>) -> Result<(String, Vec<u8>), Failure> {
    let (name, bytes) = match input {
        Some(path) if path != Path::new("-") => {
            let name = path.display().to_string();
            let bytes = crate::files::read(path, &PAYLOAD).map_err(|e| {
                let message = format!("cannot read {name}: {e}");
                match e.problem {
                    // As an answer of the service over the cap would be: exit 8.
                    Problem::TooLarge => Failure::new(Exit::BadResponse, message),
                    _ => Failure::usage(message),
                }
            })?;
            (name, bytes)
        }
        _ => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(Failure::usage(
                    "no payload: give a FILE, or pipe the JSON into payverify webhook check -",
                ));
            }
            let mut bytes = Vec::new();
            crate::files::stdin(&PAYLOAD)
                .map_err(|e| Failure::usage(format!("cannot read stdin: {e}")))?
                .read_to_end(&mut bytes)
                .map_err(|e| {
                    let message = format!("cannot read stdin: {e}");
                    match bytes.len() as u64 >= PAYLOAD.cap {
                        true => Failure::new(Exit::BadResponse, message),
                        false => Failure::usage(message),
                    }
                })?;
            ("stdin".to_owned(), bytes)
        }
    };
    Ok((name, bytes))
}
