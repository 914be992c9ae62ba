//! `payverify sandbox`: the standalone sandbox server for scripts and newcomers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{GlobalArgs, SandboxArgs};
use crate::exit::{Cause, Exit, Failure};
use crate::log::{Level, Log};
use crate::sandbox::{self, Sandbox};
use crate::settings::source::Context;
use crate::signal::Interrupt;

/// Runs the sandbox until Ctrl-C or SIGTERM.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &SandboxArgs,
    log: &Log,
    ctx: &Context<'_>,
) -> Result<Exit, Failure> {
    let interrupt = Interrupt::listen()?;
    // Checked before the server starts: a --tls-ca-out that is stdout, stderr or the
    // config file (which the sandbox does not read, but is the user's) is exit 2 with
    // nothing started and nothing written.
    if let Some(location) = ctx.config_location(global.config.as_ref()) {
        crate::files::keep_safe(&location.path, &crate::files::CONFIG);
    }
    let chosen = match args.tls_ca_out.as_deref() {
        Some(path) => Some((
            path,
            crate::files::prepare(path, crate::files::Replace::default())
                .map_err(|e| unwritable(path, e))?,
        )),
        None => None,
    };
    let rate_limit = args.rate_limit.map(|per_second| sandbox::RateLimit {
        per_second,
        burst: args
            .burst
            .unwrap_or_else(|| sandbox::default_burst(per_second)),
        status: args.rate_limit_status,
        retry_after: args.retry_after.0,
    });
    let server = Sandbox::start(
        sandbox::Options {
            port: args.port,
            latency: Duration::from_millis(args.latency_ms),
            log_requests: log.level() != Level::Quiet,
            tls: args.tls,
            rate_limit,
            memory: None,
        },
        log.clone(),
    )?;
    let ca = match server.ca_pem() {
        Some(pem) => Some(CaFile::write(pem, chosen)?),
        None => None,
    };
    let ca_path = ca.as_ref().map(|c| c.path.as_path());
    let quiet = log.level() == Level::Quiet;
    // Marked as a write under way: a stdout nobody reads must not outlast a SIGTERM.
    crate::render::write_output(crate::signal::writing(|| {
        banner(
            server.url(),
            ca_path,
            args.latency_ms,
            rate_limit.as_ref(),
            quiet,
        )
    }))?;
    interrupt.wait();
    let (connections, handshakes) = server.counts();
    drop(server);
    drop(ca);
    let tls = match args.tls {
        true => format!(", {handshakes} TLS handshakes"),
        false => String::new(),
    };
    log.info(&format!(
        "sandbox stopped after {connections} connections{tls}"
    ));
    Ok(Exit::Successful)
}

/// The CA certificate written for clients; a temporary one is removed when dropped.
struct CaFile {
    path: PathBuf,
    temporary: bool,
}

impl CaFile {
    /// Writes `pem` to `chosen` (prepared before the server started), or to a new file in
    /// the temporary directory (created exclusively, so a planted file or symlink there is
    /// never written through).
    fn write(pem: &str, chosen: Option<(&Path, crate::files::Pending)>) -> Result<CaFile, Failure> {
        let fail = |path: &Path, e: std::io::Error| {
            Failure::config(
                Cause::Other,
                format!(
                    "cannot write the sandbox CA to {}: {}",
                    path.display(),
                    crate::io_util::io_reason(&e)
                ),
            )
        };
        if let Some((path, pending)) = chosen {
            pending
                .commit(pem.as_bytes())
                .map_err(|e| unwritable(path, e))?;
            return Ok(CaFile {
                path: path.to_owned(),
                temporary: false,
            });
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("payverify-sandbox-ca-{}-{nanos}.pem", std::process::id());
        let path = std::env::temp_dir().join(name);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| fail(&path, e))?;
        // From here the file is ours to remove, even on a hurried exit (which runs no Drop).
        crate::files::track_temporary(&path);
        let ca = CaFile {
            path,
            temporary: true,
        };
        file.write_all(pem.as_bytes())
            .map_err(|e| fail(&ca.path, e))?;
        Ok(ca)
    }
}

impl Drop for CaFile {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
            crate::files::untrack_temporary(&self.path);
        }
    }
}

/// Exit 2 when `path` is something the run must not write over (stdout, stderr, the config
/// file), else 6.
fn unwritable(path: &Path, e: crate::files::Unwritable) -> Failure {
    let message = format!("cannot write the sandbox CA to {}: {e}", path.display());
    match e.collision {
        true => Failure::usage(message),
        false => Failure::config(Cause::Other, message),
    }
}

/// Prints the base URL first (scripts read that line), the CA file's path second when it
/// serves HTTPS, then, unless quiet, how to use it.
fn banner(
    url: &str,
    ca: Option<&Path>,
    latency_ms: u64,
    rate_limit: Option<&sandbox::RateLimit>,
    quiet: bool,
) -> std::io::Result<()> {
    // Every error reported: the base URL line is what scripts read.
    let mut out = crate::render::stdout_writer();
    writeln!(out, "{url}")?;
    if let Some(ca) = ca {
        writeln!(out, "{}", ca.display())?;
    }
    out.flush()?;
    if quiet {
        return Ok(());
    }
    let trust = match ca {
        Some(ca) => format!(
            "It serves HTTPS with a throwaway CA: pass --ca-cert {} to verify.\n",
            ca.display()
        ),
        None => String::new(),
    };
    let latency = match latency_ms {
        0 => String::new(),
        ms => format!(" Every response is delayed {ms} ms."),
    };
    let throttle = match rate_limit {
        Some(limit) => format!(
            "Rate limit: {}. Change it while running:\n  curl -X POST \
         '{url}/sandbox/rate-limit?rate=20/s'   (rate=off lifts it; burst=, status=, \
         retry-after= too)\nCounts per second: curl {url}/sandbox/stats\n",
            limit.describe()
        ),
        None => String::new(),
    };
    write!(
        out,
        "\npayverify sandbox: a local stand-in for the Verify Transaction service.{latency}\n\
     {trust}{throttle}Credentials: client id '{id}', client secret '{secret}'.\n\n\
     export PAYVERIFY_BASE_URL={url}\n\
     export PAYVERIFY_CLIENT_ID={id}\n\
     export PAYVERIFY_CLIENT_SECRET={secret}\n\n\
     {table}\n\
     Stop with Ctrl-C.\n",
        id = sandbox::CLIENT_ID,
        secret = sandbox::CLIENT_SECRET,
        table = sandbox::magic_section(),
    )?;
    out.flush()
}
