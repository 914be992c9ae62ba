//! `payverify verify`: one reference (a table or the service's JSON) or a batch (records),
//! each as jobs through the batch engine (one reference is a batch of one).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::batch::input::ListRules;
use crate::batch::resume::{Resuming, Shape, Trust, open_memory, resume_needs_jsonl};
use crate::batch::{Answer, Batch, Input, InputSource};
use crate::cli::{BatchArgs, GlobalArgs, OutputFormat, ProfileArgs, VerifyArgs};
use crate::domain::job::Job;
use crate::domain::outcome::{OUTCOME_EXITS, is_final_name};
use crate::domain::seal::Sealer;
use crate::domain::verifier::Verifier;
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::reference::Reference;
use crate::render::Printer;
use crate::render::records::CSV_COLUMNS;
use crate::render::records::RecordWriter;
use crate::sandbox::{self, Sandbox};
use crate::settings::{Context, Settings};
use crate::signal::Interrupt;
use crate::transport::client::{self, Client};
use crate::transport::gate::Gate;

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
    // Bad input is refused before anything else happens, and before any request.
    let work = if args.is_batch() {
        let sources = sources(args)?;
        let rules = ListRules {
            comments: args.comments,
        };
        let known_len = Input::known_len(&sources, rules);
        Work::Batch(Box::new(Input::open(sources, expect, rules)?), known_len)
    } else {
        let reference = args.arguments().next().map_or("", |(r, _)| r);
        let reference = Reference::parse(reference).map_err(|e| {
            Failure::usage(format!("{e} (give the transaction reference to verify)"))
        })?;
        Work::Single(Job {
            row: None,
            reference,
            expect,
            origin: "argument 1".into(),
        })
    };

    let service = Service::connect(global, &args.batch, &args.profile_args, log, ctx)?;
    let printer = Printer::stdout(global.color, ctx.env);
    match work {
        Work::Single(job) => {
            let format = match log.level() == Level::Quiet && !args.writes_when_quiet() {
                true => None,
                false => Some(args.format()),
            };
            single(service, job, format, log, printer)
        }
        Work::Batch(input, known_len) => {
            let Service {
                verifier,
                interrupt,
                halt,
                sandbox: _sandbox,
                wait,
            } = service;
            let trust = Trust {
                expect: args.expect.expectations(),
                secret: Some(verifier.secret.clone()),
                expect_mode: verifier.expect_mode.clone(),
                hmac: verifier.hmac,
            };
            let (index, state) = open_memory(
                args.resume.as_deref(),
                args.state.as_deref(),
                &record_shape(),
                &trust,
                log,
            )?;
            let resume_hint = resume_command(args.format(), args.state.is_some());
            let batch = Batch {
                jobs: usize::from(args.batch.jobs),
                known_len,
                stop: interrupt.flag(),
                halt,
                wait,
                resume_hint,
                fail_on: args.fail_on.clone(),
            };
            // -q silences the default table; an explicit -o is data a script asked for.
            let mut writer = match log.level() == Level::Quiet && !args.writes_when_quiet() {
                true => RecordWriter::discard(),
                false => printer.into_records(args.format()),
            }
            .sealed(Sealer::new(&verifier.secret))
            .with_state(state);
            let verifier = Arc::new(verifier);
            match index {
                Some(index) => batch.run(verifier, Resuming::new(*input, index), &mut writer, log),
                None => batch.run(verifier, *input, &mut writer, log),
            }
        }
    }
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

/// Verifies one job as a batch of one, waiting while it is not final if `--wait` says so,
/// and reports it: the answer on stdout in `format` (`None`: nothing), why it is not a
/// plain success on stderr. The exit status is the verdict's (130 when interrupted).
pub(crate) fn single(
    service: Service,
    job: Job,
    format: Option<OutputFormat>,
    log: &Log,
    printer: Printer,
) -> Result<Exit, Failure> {
    // The sandbox, when there is one, serves until this returns.
    let Service {
        verifier,
        interrupt,
        halt,
        sandbox: _sandbox,
        wait,
    } = service;
    let batch = Batch {
        jobs: 1,
        known_len: Some(1),
        stop: interrupt.flag(),
        halt,
        wait,
        resume_hint: None,
        fail_on: None,
    };
    let mut answer = Answer::new(printer, format);
    batch.run_one(Arc::new(verifier), job, &mut answer, log)
}

/// What a command that asks the service needs, set up once: the verifier, Ctrl-C
/// handling, and the sandbox when `--sandbox` asked for one.
pub(crate) struct Service {
    /// Verifies jobs; shared by the workers of a batch.
    pub(crate) verifier: Verifier,
    /// Ctrl-C and SIGTERM.
    pub(crate) interrupt: Interrupt,
    /// Set when a batch stops starting references; the client stops retrying.
    pub(crate) halt: Arc<AtomicBool>,
    /// Kept alive until the work is done; dropping it stops the server.
    pub(crate) sandbox: Option<Sandbox>,
    /// `--wait`: how long a not-final transaction is asked again (zero: not at all).
    pub(crate) wait: Duration,
}

impl Service {
    /// Starts the sandbox if asked, resolves the settings and the endpoint, installs the
    /// signal handling and builds the client: everything before the first request.
    pub(crate) fn connect(
        global: &GlobalArgs,
        batch: &BatchArgs,
        profile_args: &ProfileArgs,
        log: &Log,
        ctx: &Context,
    ) -> Result<Service, Failure> {
        let sandbox = match batch.sandbox {
            true => Some(Sandbox::start(
                sandbox::Options {
                    port: 0,
                    latency: Duration::ZERO,
                    log_requests: false,
                    tls: batch.tls,
                    rate_limit: None,
                },
                log.clone(),
            )?),
            false => None,
        };
        let settings = match &sandbox {
            Some(sandbox) => Settings::sandbox(&global.flags(profile_args), sandbox.url())?,
            None => Settings::resolve(&global.flags(profile_args), ctx)?,
        };
        settings.warn(log);
        settings.warn_shadowed(log);
        let endpoint = settings.endpoint(log)?;
        // Every path: a signal must end in the documented 130, never the shell's 143.
        let interrupt = Interrupt::listen()?;
        let halt = Arc::new(AtomicBool::new(false));
        // A throttled reference is given up at --give-up-after, or at --wait when that
        // comes first: the wait is all the time its user gave it.
        let wait = settings.wait.value;
        let give_up = settings.give_up_after.value;
        let give_up_after = match !wait.is_zero() && wait < give_up {
            true => (wait, "--wait"),
            false => (give_up, "--give-up-after"),
        };
        let options = client::Options {
            timeout: settings.timeout.value,
            retries: settings.retries.value,
            give_up_after,
            pool: usize::from(batch.jobs),
            gate: Arc::new(Gate::new(batch.rate, log.clone())),
            stop: Some(halt.clone()),
            extra_roots: sandbox.as_ref().and_then(|s| s.ca_pem()).map(str::to_owned),
        };
        let verifier = Verifier {
            client: Client::new(&endpoint, options, log.clone())?,
            hmac: settings.hmac.value,
            secret: endpoint.client_secret.clone(),
            expect_mode: settings.expect_mode.as_ref().map(|m| m.value.clone()),
        };
        Ok(Service {
            verifier,
            interrupt,
            halt,
            sandbox,
            wait: settings.wait.value,
        })
    }
}

/// What verify's records look like, for `--resume`.
pub(crate) fn record_shape() -> Shape {
    Shape {
        command: "payverify verify",
        columns: CSV_COLUMNS.map(str::to_owned).to_vec(),
        json_only: &["http_status", "response", "seal"],
        outcome: "outcome",
        exit_code: true,
        outcomes: &OUTCOME_EXITS,
        is_final: is_final_name,
        row: None,
    }
}

/// The command that finishes this run if it is stopped, if there is one: with `--state`
/// (`state`), the same command again; with `-o jsonl`, the same arguments with `--resume`
/// naming this run's output (the file stdout goes to, when it is one) and a new file for
/// the resumed run's output. Other output cannot be read back.
pub(crate) fn resume_command(format: OutputFormat, state: bool) -> Option<String> {
    let output = std::fs::read_link("/proc/self/fd/1")
        .ok()
        .filter(|p| p.is_absolute() && p.is_file())
        .map(|p| {
            let cwd = std::env::current_dir().unwrap_or_default();
            p.strip_prefix(&cwd).map(|r| r.to_path_buf()).unwrap_or(p)
        });
    // Lossy: an argument that is not UTF-8 is shown, never a reason to panic here.
    let args = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    let quoted = |words: &[String]| {
        words
            .iter()
            .map(|w| super::shell_word(w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if state {
        let words: Vec<String> = std::iter::once("payverify".to_owned())
            .chain(args)
            .collect();
        let output =
            output.map(|path| format!(" > {}", super::shell_word(&path.display().to_string())));
        return Some(format!("{}{}", quoted(&words), output.unwrap_or_default()));
    }
    if format != OutputFormat::Jsonl {
        return None;
    }
    let (resume_from, next) = match &output {
        Some(path) => {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            let next = path.with_file_name(format!("{}-resumed.jsonl", stem.unwrap_or_default()));
            (path.display().to_string(), next.display().to_string())
        }
        None => ("THIS-RUN.jsonl".to_owned(), "NEXT-RUN.jsonl".to_owned()),
    };
    let words = with_resume(args, resume_from);
    Some(format!("{} > {}", quoted(&words), super::shell_word(&next)))
}

/// `payverify ARGS` with any `--resume` of theirs replaced by `--resume FILE`, placed
/// before a `--` (after it, `--resume` would be a reference, or a file name to reconcile);
/// every argument after the `--` is kept as it is, `--resume` included.
fn with_resume(args: impl Iterator<Item = String>, file: String) -> Vec<String> {
    let mut words = vec!["payverify".to_owned()];
    let mut args = args.peekable();
    while let Some(arg) = args.next_if(|arg| arg != "--") {
        if arg == "--resume" {
            args.next();
        } else if !arg.starts_with("--resume=") {
            words.push(arg);
        }
    }
    words.push("--resume".into());
    words.push(file);
    words.extend(args);
    words
}

/// What one run verifies: one reference printed in full, or a batch of records.
enum Work {
    Single(Job),
    /// The input, and its length when every reference was an argument.
    Batch(Box<Input>, Option<usize>),
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
