//! `payverify verify`: one reference (a table or the service's JSON) or a batch (records),
//! each as jobs through the batch engine (one reference is a batch of one).

use std::sync::Arc;

use super::service::{Service, resume_command};
use crate::batch::input::ListRules;
use crate::batch::resume::{Resuming, Shape, open_memory, resume_needs_jsonl};
use crate::batch::{Input, InputSource};
use crate::cli::{GlobalArgs, OutputFormat, VerifyArgs};
use crate::domain::job::Job;
use crate::domain::outcome::{OUTCOME_NAMES, is_final_name};
use crate::domain::seal::Sealer;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::reference::Reference;
use crate::render::Printer;
use crate::render::records::RecordWriter;
use crate::render::xlsx;
use crate::settings::Context;

/// Runs `payverify verify`: one reference, or a batch.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &VerifyArgs,
    log: &Log,
    ctx: &Context,
) -> Result<Exit, Failure> {
    let expect = Arc::new(args.expect.expectations());
    if args.resume.is_some() {
        resume_needs_jsonl(args.format())?;
    }
    if args.fail_on.is_some() {
        fail_on_applies(args)?;
    }
    if args.output == Some(OutputFormat::Xlsx) {
        crate::render::xlsx::check_stdout()?;
    }
    // -q silences the default table; an explicit -o is data a script asked for.
    let quiet = log.level() == Level::Quiet && !args.writes_when_quiet();
    // Bad input is refused before anything else happens, and before any request.
    if !args.is_batch() {
        let reference = args.arguments().next().map_or("", |(r, _)| r);
        let reference = Reference::parse(reference).map_err(|e| {
            Failure::usage(format!("{e} (give the transaction reference to verify)"))
        })?;
        let job = Job {
            row: None,
            reference,
            expect,
            origin: "argument 1".into(),
        };
        let service =
            Service::connect("verify", global, &args.batch, &args.profile_args, log, ctx)?;
        let printer = Printer::stdout(global.color, ctx.env);
        return service.one(job, (!quiet).then(|| args.format()), log, printer);
    }
    let sources = sources(args)?;
    let rules = ListRules {
        comments: args.comments,
    };
    let known_len = Input::known_len(&sources, rules);
    let input = Input::open(sources, expect, rules)?;
    let service = Service::connect("verify", global, &args.batch, &args.profile_args, log, ctx)?;
    let printer = Printer::stdout(global.color, ctx.env);
    let trust = service.trust();
    let (index, state) = open_memory(
        args.resume.as_deref(),
        args.state.as_deref(),
        &record_shape(),
        &trust,
        log,
        &service.stop(),
    )?;
    let resume_hint = resume_command(args.format(), args.state.is_some());
    let batch = service.batch(
        args.batch.jobs,
        known_len,
        resume_hint,
        args.fail_on.clone(),
    );
    let mut writer = match quiet {
        true => RecordWriter::discard(),
        false => printer.into_records(args.format()),
    }
    .sealed(Sealer::new(&service.verifier.secret))
    .with_state(state);
    let verifier = service.verifier.clone();
    let exit = match index {
        Some(index) => batch.run(verifier, Resuming::new(input, index), &mut writer, log),
        None => batch.run(verifier, input, &mut writer, log),
    }?;
    let summary = xlsx::summary::outcomes(&OUTCOME_NAMES, writer.counts());
    Ok(writer.end_workbook(&summary, exit, log))
}

/// `--fail-on` leaves records out of the exit status, so it is refused (exit 2) where that
/// could turn a FAILED payment into exit 0 that someone reads as paid: one reference
/// argument (its exit status is its own; `gate` refuses the flag too), and output that is
/// not records a script reads back (the table, or nothing under -q): with the exit status
/// no longer saying what each reference came to, the records must.
fn fail_on_applies(args: &VerifyArgs) -> Result<(), Failure> {
    if !args.is_list() {
        return Err(Failure::usage(
            "--fail-on is for a batch (--from FILE, -, or several references): one \
             reference exits with its own status, so a FAILED payment is never 0; use \
             payverify gate to decide one payment",
        ));
    }
    if !matches!(
        args.output,
        Some(OutputFormat::Csv | OutputFormat::Jsonl | OutputFormat::Json)
    ) {
        return Err(Failure::usage(
            "--fail-on needs -o csv, jsonl or json: the exit status then leaves records out, \
             so each record must say what its reference came to, in a file a script or a \
             person reads",
        ));
    }
    Ok(())
}

/// What verify's records look like, for `--resume`.
pub(crate) fn record_shape() -> Shape {
    Shape {
        command: "payverify verify",
        is_final: is_final_name,
        row: None,
    }
}

/// The batch sources in the order given; argument references are validated here, so a bad
/// one is a usage error before any request.
fn sources(args: &VerifyArgs) -> Result<Vec<InputSource>, Failure> {
    let mut sources = Vec::new();
    for (n, (text, stream)) in args.arguments().enumerate() {
        if stream && text == "-" {
            sources.push(InputSource::Stdin);
            continue;
        }
        let reference = Reference::parse(text)
            .map_err(|e| Failure::usage(format!("reference argument {}: {e}", n + 1)))?;
        sources.push(InputSource::Literal(reference));
    }
    if let Some(path) = &args.from {
        // `--from -` is stdin, as for every tool that reads a file of lines.
        sources.push(match path.as_os_str() == "-" {
            true => InputSource::Stdin,
            false => InputSource::File(path.clone()),
        });
    }
    Ok(sources)
}
