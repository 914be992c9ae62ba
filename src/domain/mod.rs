//! What a verification means, free of I/O: references, money, the service's response, its
//! signature, the checks, the outcome, and the job and verifier that tie them together.

pub mod checks;
pub mod job;
pub mod model;
pub mod money;
pub mod outcome;
pub(crate) mod reconcile;
pub mod reference;
pub mod signature;
pub mod verifier;
pub mod wait;
