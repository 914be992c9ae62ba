//! The arguments of `sandbox`.

use std::path::PathBuf;

use clap::Args;

use super::global::whole_in_range;

/// Arguments of `payverify sandbox`.
#[derive(Debug, Args)]
pub(crate) struct SandboxArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8089, value_name = "N")]
    pub(crate) port: u16,

    /// Milliseconds added to every response, to model a real network.
    #[arg(long, default_value_t = 0, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub(crate) latency_ms: u64,

    /// Serve HTTPS, with a certificate for 127.0.0.1, ::1 and localhost signed by a CA made
    /// at start; its PEM path is printed on the second line of stdout, for --ca-cert.
    #[arg(long)]
    pub(crate) tls: bool,

    /// Write the CA's PEM here instead of a temporary file (which is removed on exit).
    #[arg(long, value_name = "PATH", requires = "tls")]
    pub(crate) tls_ca_out: Option<PathBuf>,

    /// Throttle like a rate-limited gateway: a token bucket of N requests per second (50/s,
    /// 0.5/s, 600/m); a request that finds it empty gets --rate-limit-status. Change it
    /// while running: POST /sandbox/rate-limit?rate=20/s (rate=off lifts it); counts per
    /// second: GET /sandbox/stats.
    #[arg(long, value_name = "N/s", value_parser = crate::sandbox::parse_rate)]
    pub(crate) rate_limit: Option<f64>,

    /// With --rate-limit: requests the bucket holds when full, the burst sent at once
    /// [default: one second's worth]
    #[arg(long, value_name = "B", requires = "rate_limit",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) burst: Option<u32>,

    /// With --rate-limit: the status of a throttled answer.
    #[arg(long, value_name = "429|503", requires = "rate_limit", default_value_t = 429,
          value_parser = parse_throttle_status)]
    pub(crate) rate_limit_status: u16,

    /// With --rate-limit: the Retry-After of a throttled answer, whole seconds, or `none`
    /// to send none.
    #[arg(long, value_name = "SECS|none", requires = "rate_limit", default_value = "1",
          value_parser = parse_retry_after_flag)]
    pub(crate) retry_after: RetryAfterFlag,
}

/// `--retry-after`: whole seconds, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryAfterFlag(pub(crate) Option<u32>);

fn parse_retry_after_flag(s: &str) -> Result<RetryAfterFlag, String> {
    match s.trim() {
        "none" => Ok(RetryAfterFlag(None)),
        t => whole_in_range(t, 0, 86_400)
            .map(|n| RetryAfterFlag(Some(n)))
            .map_err(|_| format!("'{s}' is not whole seconds from 0 to 86400, or none")),
    }
}

fn parse_throttle_status(s: &str) -> Result<u16, String> {
    match s.trim() {
        "429" => Ok(429),
        "503" => Ok(503),
        _ => Err(format!("'{s}' is not 429 or 503")),
    }
}
