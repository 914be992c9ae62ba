//! JSON output: the service's object as received.

use std::io;

use serde_json::{Map, Value};

/// The object pretty-printed, key order and number text as received.
pub(crate) fn object(raw: &Map<String, Value>) -> io::Result<String> {
    serde_json::to_string_pretty(raw).map_err(io::Error::other)
}
