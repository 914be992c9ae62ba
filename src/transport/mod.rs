//! From a reference to the service's answer: base URL, network set-up, pacing and the HTTP
//! exchange with its retries.

pub(crate) mod base_url;
pub(crate) mod client;
mod endpoint;
mod exchange;
pub(crate) mod gate;
pub(crate) mod network;
pub(crate) mod proxy;
pub(crate) mod userinfo;

pub(crate) use endpoint::Endpoint;
