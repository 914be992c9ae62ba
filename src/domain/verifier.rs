//! One reference from request to verdict: the step the single path and every batch worker
//! share.

use crate::domain::checks::{self, HmacMode};
use crate::domain::job::Job;
use crate::domain::outcome::{Verdict, classify};
use crate::secret::Secret;
use crate::transport::client::Client;

/// Verifies references and checks the results; shared by reference across workers.
pub struct Verifier {
    /// The HTTP client.
    pub client: Client,
    /// How the hmac is checked.
    pub hmac: HmacMode,
    /// The secret that signs responses.
    pub secret: Secret,
}

impl Verifier {
    /// Requests, classifies and checks one job's reference against the job's expectations.
    pub fn verify(&self, job: &Job) -> Verdict {
        let reference = &job.reference;
        let outcome = classify(&self.client.exchange(reference));
        let checks = outcome.verification().map(|v| {
            let mut report = checks::evaluate(v, self.hmac, &self.secret, &job.expect);
            // Another transaction's answer (a cache, a proxy, a bug) proves nothing about
            // this one; it goes first because every other check is then beside the point.
            if let Some(failure) = checks::answers_for(v, reference.as_str()) {
                report.failures.insert(0, failure);
            }
            report
        });
        Verdict { outcome, checks }
    }
}
