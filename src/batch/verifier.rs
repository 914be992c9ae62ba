//! One reference from request to verdict: the step every batch worker takes, asking the
//! service and handing the answer to the one judge ([`crate::domain::judge`]).

use std::time::Instant;

use crate::domain::checks::HmacMode;
use crate::domain::job::Job;
use crate::domain::judge::judge;
use crate::domain::outcome::{Record, Verdict, classify};
use crate::domain::seal::fingerprint;
use crate::secret::Secret;
use crate::transport::client::{Client, Ended};

/// Verifies references and checks the results; shared by reference across workers.
pub(crate) struct Verifier {
    /// The HTTP client.
    pub(crate) client: Client,
    /// How the hmac is checked.
    pub(crate) hmac: HmacMode,
    /// The secret that signs responses.
    pub(crate) secret: Secret,
    /// The `mode` every answer must have (`--expect-mode`, `expect_mode`), if any.
    pub(crate) expect_mode: Option<String>,
}

impl Verifier {
    /// Requests, classifies and checks one job's reference against the job's expectations,
    /// the request's retries bounded by `deadline` when there is one (see
    /// `Client::exchange_by`); with the verdict, why the asking ended.
    pub(crate) fn verify_by(&self, job: &Job, deadline: Option<Instant>) -> (Verdict, Ended) {
        let exchange = self.client.exchange_by(&job.reference, deadline);
        let verdict = judge(
            classify(&exchange),
            Some(job.reference.as_str()),
            self.hmac,
            &self.secret,
            &job.expect,
            self.expect_mode.as_deref(),
        );
        (verdict, exchange.ended)
    }

    /// `job`'s record of `verdict`, with the fingerprint of what judged it (this
    /// verifier's `--hmac` and `--expect-mode`, the job's expectations and row).
    pub(crate) fn record(&self, job: Job, verdict: Verdict) -> Record {
        let judged_by = fingerprint(&job, self.hmac, self.expect_mode.as_deref());
        Record {
            job,
            verdict,
            judged_by,
        }
    }
}
