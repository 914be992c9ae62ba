//! What verify, gate and reconcile set up before their first request, once: the settings,
//! the client, the signal handling and the sandbox; the engine and the trust of an earlier
//! run built from them; and the command that finishes a stopped run.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::batch::resume::Trust;
use crate::batch::verifier::Verifier;
use crate::batch::{Answer, Batch};
use crate::cli::{BatchArgs, GlobalArgs, OutputFormat, ProfileArgs};
use crate::domain::class::FailOn;
use crate::domain::job::Job;
use crate::exit::{Exit, Failure};
use crate::journal::{self, Journal, Refusal};
use crate::log::Log;
use crate::render::Printer;
use crate::sandbox::{self, Sandbox};
use crate::settings::journal::JournalPlace;
use crate::settings::{Context, Settings};
use crate::signal::Interrupt;
use crate::transport::client::{self, Client};
use crate::transport::gate::Gate;

/// What a command that asks the service needs, set up once: the verifier, Ctrl-C
/// handling, and the sandbox when `--sandbox` asked for one.
pub(crate) struct Service {
    /// Verifies jobs; shared by the workers of a batch.
    pub(crate) verifier: Arc<Verifier>,
    /// Ctrl-C and SIGTERM.
    interrupt: Interrupt,
    /// Set when a batch stops starting references; the client stops retrying.
    halt: Arc<AtomicBool>,
    /// Kept alive until the work is done (the service is); dropping it stops the server.
    _sandbox: Option<Sandbox>,
    /// `--wait`: how long a not-final transaction is asked again (zero: not at all).
    wait: Duration,
    /// Where every answer is kept, when the journal is on.
    pub(crate) journal: Option<Journal>,
    /// The command: gate claims the payments it passes.
    command: &'static str,
}

impl Service {
    /// Starts the sandbox if asked, resolves the settings and the endpoint, installs the
    /// signal handling and builds the client: everything before the first request.
    pub(crate) fn connect(
        command: &'static str,
        global: &GlobalArgs,
        batch: &BatchArgs,
        profile_args: &ProfileArgs,
        log: &Log,
        ctx: &Context,
    ) -> Result<Service, Failure> {
        // The journal opens after the settings the sandbox's URL feeds; the sandbox asks it
        // once it is there.
        let kept: Arc<OnceLock<Journal>> = Arc::new(OnceLock::new());
        let memory = {
            let kept = kept.clone();
            sandbox::Memory::new(move |reference| kept.get().is_some_and(|j| j.knows(reference)))
        };
        let sandbox = match batch.sandbox {
            true => Some(Sandbox::start(
                sandbox::Options {
                    port: 0,
                    latency: Duration::ZERO,
                    log_requests: false,
                    tls: batch.tls,
                    rate_limit: None,
                    memory: Some(memory),
                },
                log.clone(),
            )?),
            false => None,
        };
        let settings = match &sandbox {
            Some(sandbox) => Settings::sandbox(&global.flags(profile_args), sandbox.url(), ctx)?,
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
            gate: Arc::new(Gate::new(batch.rate, usize::from(batch.jobs), log.clone())),
            stop: Some(halt.clone()),
            extra_roots: sandbox.as_ref().and_then(|s| s.ca_pem()).map(str::to_owned),
        };
        let run = journal::Run {
            command,
            profile: settings.profile.as_ref().map(|p| p.value.clone()),
            host: match &sandbox {
                Some(_) => "sandbox".to_owned(),
                None => endpoint.base_url.host().to_owned(),
            },
            account: match &sandbox {
                Some(_) => "sandbox".to_owned(),
                None => endpoint.client_id.clone(),
            },
        };
        let journal = open_journal(&settings.journal.value, run, log)?;
        if let Some(journal) = &journal {
            // Set once, here, before the first request: it cannot be set already.
            let _ = kept.set(journal.clone());
        }
        let verifier = Verifier {
            client: Client::new(&endpoint, options, log.clone())?,
            hmac: settings.hmac.value,
            secret: endpoint.client_secret.clone(),
            expect_mode: settings.expect_mode.as_ref().map(|m| m.value.clone()),
        };
        Ok(Service {
            verifier: Arc::new(verifier),
            interrupt,
            halt,
            _sandbox: sandbox,
            wait: settings.wait.value,
            journal,
            command,
        })
    }

    /// Verifies one job as a batch of one, waiting while it is not final if `--wait` says
    /// so, and reports it: the answer on stdout in `format` (`None`: nothing), why it is not
    /// a plain success on stderr. The exit status is the verdict's (130 when interrupted).
    pub(crate) fn one(
        self,
        job: Job,
        format: Option<OutputFormat>,
        log: &Log,
        printer: Printer,
    ) -> Result<Exit, Failure> {
        let claims = self.journal.clone().filter(|_| self.command == "gate");
        let mut answer = Answer::new(printer, format).claiming(claims);
        // The sandbox, when there is one, serves until this returns.
        self.batch(1, Some(1), None, None)
            .run_one(self.verifier.clone(), job, &mut answer, log)
    }

    /// The engine for a run on this service: `jobs` workers, stopped by its signals.
    pub(crate) fn batch(
        &self,
        jobs: u16,
        known_len: Option<usize>,
        resume_hint: Option<String>,
        fail_on: Option<FailOn>,
    ) -> Batch {
        Batch {
            jobs: usize::from(jobs),
            known_len,
            stop: self.interrupt.flag(),
            halt: self.halt.clone(),
            wait: self.wait,
            resume_hint,
            fail_on,
            journal: self.journal.clone(),
        }
    }

    /// The run's stop flag, set by its first signal: for work before the batch starts (the
    /// reading of a `--state` or `--resume` file) to end at once.
    pub(crate) fn stop(&self) -> Arc<AtomicBool> {
        self.interrupt.flag()
    }

    /// What an earlier run's records must meet to be carried: this run's secret, mode and
    /// hmac check (each job's expectations are in its fingerprint).
    pub(crate) fn trust(&self) -> Trust {
        Trust {
            secret: Some(self.verifier.secret.clone()),
            expect_mode: self.verifier.expect_mode.clone(),
            hmac: self.verifier.hmac,
        }
    }
}

/// The journal at `place` for `run`, opened before the first request; `None` when it is
/// off, or when the default place cannot be made at all (no data directory, a read-only
/// one: a web server's user calling gate), which is one warning, never a stopped checkout.
/// A journal named by a flag, the environment or a profile, or one that is there, that
/// cannot be used is exit 6.
fn open_journal(
    place: &JournalPlace,
    run: journal::Run,
    log: &Log,
) -> Result<Option<Journal>, Failure> {
    let (path, explicit) = match place {
        JournalPlace::Off => return Ok(None),
        JournalPlace::Nowhere => {
            log.warn(
                "keeping no journal: this system has no data directory for one; name one \
                 with --journal PATH, or turn it off with --no-journal",
            );
            return Ok(None);
        }
        JournalPlace::At { path, explicit } => (path, *explicit),
    };
    match Journal::open(path, !explicit, run) {
        Ok(journal) => Ok(Some(journal)),
        Err(Refusal::Unmade(why)) if !explicit => {
            log.warn(&format!(
                "keeping no journal: {} {why}; name one with --journal PATH, or turn it off \
                 with --no-journal",
                path.display()
            ));
            Ok(None)
        }
        Err(Refusal::Unmade(why) | Refusal::Unusable(why)) => Err(journal::refused(path, &why)),
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
