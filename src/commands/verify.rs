//! `payverify verify`: one reference (a table or the service's JSON) or a batch (records),
//! each as jobs through the shared verifier.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use crate::batch::input::ListRules;
use crate::batch::resume::{Resuming, Shape, Trust, open_memory, resume_needs_jsonl};
use crate::batch::{Batch, Input, InputSource};
use crate::cli::{BatchArgs, GlobalArgs, OutputFormat, ProfileArgs, VerifyArgs};
use crate::domain::job::Job;
use crate::domain::outcome::{OUTCOME_EXITS, is_final_name};
use crate::domain::outcome::{Outcome, Verdict};
use crate::domain::seal::Sealer;
use crate::domain::verifier::Verifier;
use crate::domain::wait::{Check, Polls, exact, human, settle};
use crate::exit::{Exit, Failure};
use crate::log::{Level, Log};
use crate::reference::Reference;
use crate::render::records::CSV_COLUMNS;
use crate::render::records::RecordWriter;
use crate::render::{Printer, write_output};
use crate::sandbox::{self, Sandbox};
use crate::settings::{Context, Settings};
use crate::signal::Interrupt;
use crate::transport::client::{self, Client, Ended};
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
    let mut printer = Printer::stdout(global.color, ctx.env);
    match work {
        Work::Single(job) => {
            let format = match log.level() == Level::Quiet && !args.writes_when_quiet() {
                true => None,
                false => Some(args.format()),
            };
            single(service, job, format, log, &mut printer)
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

/// Verifies one job, waiting while it is not final if `--wait` says so, and reports it:
/// the answer on stdout in `format` (`None`: nothing), why it is not a plain success on
/// stderr. The exit status is the verdict's (130 when interrupted).
pub(crate) fn single(
    service: Service,
    job: Job,
    format: Option<OutputFormat>,
    log: &Log,
    printer: &mut Printer,
) -> Result<Exit, Failure> {
    // The sandbox, when there is one, serves until this returns.
    let Service {
        verifier,
        interrupt,
        halt,
        sandbox: _sandbox,
        wait,
    } = service;
    let reference = job.reference.clone();
    let (verdict, ending) = verify_waiting(Arc::new(verifier), job, wait, &interrupt, &halt, log);
    let Some(verdict) = verdict else {
        log.error(&format!(
            "interrupted before '{reference}' was verified; nothing is known about it"
        ));
        return Ok(Exit::Interrupted);
    };
    match ending {
        Ending::Answered => report(&verdict, &reference, format, log, printer),
        Ending::Deadline { unanswered } => {
            report_not_final(&verdict, format, printer)?;
            let unanswered = unanswered
                .map(|why| format!(" (the last check got no answer in time: {why})"))
                .unwrap_or_default();
            log.error(&format!(
                "transaction '{reference}' is still not final after {}: status {}{unanswered}",
                exact(wait),
                not_final_status(&verdict)
            ));
            Ok(verdict.exit())
        }
        Ending::Interrupted => {
            report_not_final(&verdict, format, printer)?;
            log.error(&format!(
                "interrupted while waiting for '{reference}': not final, status {}",
                not_final_status(&verdict)
            ));
            Ok(Exit::Interrupted)
        }
    }
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

/// How a single verification ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ending {
    /// The answer at hand is the answer (final, or not waited for).
    Answered,
    /// `--wait` ran out with the transaction still not final.
    Deadline {
        /// Why the last check got no answer (the deadline cut its retries short), if so.
        unanswered: Option<String>,
    },
    /// A signal came while waiting or asking.
    Interrupted,
}

/// Verifies one reference, asking again while it is not final and `wait` has not run out
/// since the first request. The pauses are slept here, on the main thread, so a signal ends
/// them at once and the terminal status line counts down. The verdict is the last answer
/// (`None` when interrupted before the first).
fn verify_waiting(
    verifier: Arc<Verifier>,
    job: Job,
    wait: Duration,
    interrupt: &Interrupt,
    halt: &Arc<AtomicBool>,
    log: &Log,
) -> (Option<Verdict>, Ending) {
    let started = Instant::now();
    let mut polls = Polls::new(started, wait);
    let mut status = StatusLine::new(log);
    let mut last: Option<Verdict> = None;
    // Why the check before this one got no answer, for the message at the deadline.
    let mut unanswered: Option<String> = None;
    loop {
        // The first request keeps the ordinary retry rules; a later check has an answer in
        // hand, so its retries end at the deadline.
        let deadline = last.is_some().then(|| polls.deadline());
        if let Some(verdict) = last.take_if(|_| !polls.may_ask(Instant::now())) {
            // The service's Retry-After holds the reference past the deadline: the answer in
            // hand is the last.
            return (Some(verdict), Ending::Deadline { unanswered });
        }
        let Some((checked, ended)) =
            verify_interruptibly(verifier.clone(), job.clone(), deadline, interrupt, halt)
        else {
            return (last, Ending::Interrupted);
        };
        let verdict;
        (verdict, unanswered) = match settle(checked, &ended, last.take(), &job.reference) {
            Check::Answer(verdict) => (verdict, None),
            Check::Kept {
                last,
                why,
                not_before,
            } => {
                log.trace(|| {
                    format!(
                        "'{}': this check got no answer ({why}); the last answer stands",
                        job.reference
                    )
                });
                if let Some(at) = not_before {
                    polls.hold_until(at);
                }
                (last, Some(why))
            }
            Check::Stopped(last) => return (last, Ending::Interrupted),
        };
        if wait.is_zero() || !matches!(verdict.outcome, Outcome::NotFinal(_)) {
            return (Some(verdict), Ending::Answered);
        }
        let state = not_final_status(&verdict);
        let asked = polls.requests();
        let Some(pause) = polls.next_pause(Instant::now()) else {
            log.trace(|| {
                format!(
                    "'{}': status {state} at the deadline, after {asked} requests",
                    job.reference,
                )
            });
            return (Some(verdict), Ending::Deadline { unanswered });
        };
        log.trace(|| {
            format!(
                "'{}': status {state} (request {asked}); next check in {}, {} left",
                job.reference,
                human(pause),
                human(polls.deadline().saturating_duration_since(Instant::now()))
            )
        });
        last = Some(verdict);
        let wake = Instant::now() + pause;
        let flag = interrupt.flag();
        while Instant::now() < wake {
            if flag.load(Ordering::SeqCst) {
                status.clear();
                halt.store(true, Ordering::SeqCst);
                return (last, Ending::Interrupted);
            }
            let now = Instant::now();
            status.show(&format!(
                "waiting for {}: {}, next check in {}, {} left",
                job.reference,
                crate::terminal::scrub(&state),
                human(wake.saturating_duration_since(now)),
                human(polls.deadline().saturating_duration_since(now))
            ));
            thread::sleep(
                wake.saturating_duration_since(now)
                    .min(Duration::from_millis(100)),
            );
        }
        status.clear();
    }
}

/// The transaction status of a not-final verdict, quoted, for messages.
fn not_final_status(verdict: &Verdict) -> String {
    verdict
        .outcome
        .verification()
        .and_then(|v| v.status.as_deref())
        .map_or_else(|| "-".to_owned(), crate::terminal::quoted)
}

/// A not-final answer printed as any answer is (the table or the service's JSON).
fn report_not_final(
    verdict: &Verdict,
    format: Option<OutputFormat>,
    printer: &mut Printer,
) -> Result<(), Failure> {
    let integrity = verdict.checks.as_ref().map(|c| &c.integrity);
    if let (Some(v), Some(format)) = (verdict.outcome.verification(), format) {
        write_output(printer.verification(v, integrity, format))?;
    }
    Ok(())
}

/// The one-line `waiting for ...` status, redrawn in place on a terminal's stderr; nothing
/// elsewhere (a log file gets the `-v` lines instead) and nothing with -q.
struct StatusLine {
    /// The text on screen now, if any: redrawn only when it changes.
    shown: Option<String>,
    enabled: bool,
}

impl StatusLine {
    fn new(log: &Log) -> Self {
        StatusLine {
            shown: None,
            enabled: log.level() != Level::Quiet && io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, text: &str) {
        if self.enabled && self.shown.as_deref() != Some(text) {
            let line = format!("\r\x1b[2K{}", crate::terminal::scrub(text));
            crate::signal::write_stderr(line.as_bytes());
            self.shown = Some(text.to_owned());
        }
    }

    fn clear(&mut self) {
        if self.shown.take().is_some() {
            crate::signal::write_stderr(b"\r\x1b[2K");
        }
    }
}

/// Verifies one reference on its own thread, so a signal ends the run at once with 130;
/// `None` when interrupted. A panic while verifying is a record of exit 10, as in a batch.
fn verify_interruptibly(
    verifier: Arc<Verifier>,
    job: Job,
    deadline: Option<Instant>,
    interrupt: &Interrupt,
    halt: &Arc<AtomicBool>,
) -> Option<(Verdict, Ended)> {
    let (tx, rx) = mpsc::channel();
    let spawned = thread::Builder::new().name("verify".into()).spawn(move || {
        let _ = tx.send(crate::batch::check_or_record_failure(
            &verifier, &job, deadline,
        ));
    });
    if let Err(e) = spawned {
        let verdict = Verdict {
            outcome: Outcome::Internal {
                reason: format!("cannot start a thread: {e}"),
            },
            checks: None,
        };
        return Some((verdict, Ended::Finished));
    }
    let flag = interrupt.flag();
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(verdict) => return Some(verdict),
            Err(mpsc::RecvTimeoutError::Timeout) if flag.load(Ordering::SeqCst) => {
                halt.store(true, Ordering::SeqCst);
                return None;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let verdict = Verdict {
                    outcome: Outcome::Internal {
                        reason: "the verification thread ended without a result".into(),
                    },
                    checks: None,
                };
                return Some((verdict, Ended::Finished));
            }
        }
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

/// Prints the verdict: the result on stdout in `format` when there is one (`None`: not
/// asked for, as with -q and no -o); on stderr, why it is not a plain success (check
/// failures and warnings only matter for a SUCCESSFUL transaction).
pub(crate) fn report(
    verdict: &Verdict,
    reference: &Reference,
    format: Option<OutputFormat>,
    log: &Log,
    printer: &mut Printer,
) -> Result<Exit, Failure> {
    let integrity = verdict.checks.as_ref().map(|c| &c.integrity);
    if let Some(v) = verdict.outcome.verification()
        && let Some(format) = format
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
