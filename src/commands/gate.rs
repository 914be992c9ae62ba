//! `payverify gate`: the safe payment gate as one short command. It is `verify` with every
//! check on and nothing left to remember: the order's amount and merchant reference are
//! required, the currency defaults to NGN, the hmac is required whatever the profile says,
//! the answer must be in the mode the profile expects, and the reference comes after `--`.
//! Nothing is written on stdout (a CGI script's stdout is its page): the exit status is the
//! answer, and stderr says why it is not 0.

use std::sync::Arc;

use crate::cli::{GateArgs, GlobalArgs, ModeArg, ProfileArgs};
use crate::commands::service::Service;
use crate::domain::checks::HmacMode;
use crate::domain::job::Job;
use crate::exit::{Cause, Exit, Failure};
use crate::log::Log;
use crate::reference::Reference;
use crate::render::Printer;
use crate::settings::Context;

/// The mode the sandbox's answers carry, which `gate --sandbox` expects unless told.
const SANDBOX_MODE: &str = "dev";

/// Runs `payverify gate`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &GateArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    // A gate's exit status is its one payment's: nothing may leave a FAILED one out.
    if args.fail_on.is_some() {
        return Err(Failure::usage(
            "gate decides one payment and exits with its own status: --fail-on is for \
             scheduled batches of payverify verify"
                .to_owned(),
        ));
    }
    let reference = Reference::parse(&args.reference)
        .map_err(|e| Failure::usage(format!("{e} (give the reference to gate on after --)")))?;
    // Every check is on: a weaker --hmac is a mistake in the calling script, not a choice.
    if let Some(hmac) = args.profile_args.hmac.filter(|h| *h != HmacMode::Require) {
        return Err(Failure::usage(format!(
            "gate always requires a genuine hmac; --hmac {} is for payverify verify",
            format!("{hmac:?}").to_lowercase()
        )));
    }
    let mut profile_args = ProfileArgs {
        hmac: Some(HmacMode::Require),
        ..args.profile_args.clone()
    };
    if args.batch.sandbox && profile_args.mode.expect_mode.is_none() {
        profile_args.mode = ModeArg {
            expect_mode: Some(SANDBOX_MODE.to_owned()),
        };
    }
    let service = Service::connect("gate", global, &args.batch, &profile_args, log, ctx)?;
    if service.verifier.expect_mode.is_none() {
        return Err(Failure::config(
            Cause::SettingMissing,
            "gate needs the mode your payments carry, and nothing sets one: set expect_mode \
             in the profile (payverify doctor -- \"$known_ref\" shows the mode of a real \
             payment, and the line to add), or pass --expect-mode MODE",
        ));
    }
    let job = Job {
        reference,
        expect: Arc::new(args.expectations()),
        origin: "argument 1".into(),
        row: None,
    };
    // Nothing on stdout, ever: the printer is there for the verdict's lines on stderr only.
    service.one(job, None, log, Printer::plain_stdout())
}
