//! From a reference to the service's answer: base URL, network set-up, pacing and the HTTP
//! exchange with its retries.

pub mod base_url;
pub mod client;
pub mod gate;
pub mod network;
