//! The unit of work: a reference, what is expected of it, and where it was given. Batch
//! workers verify jobs (one reference is a batch of one); the reader of a batch makes them.

use std::sync::Arc;

use crate::domain::checks::Expectations;
use crate::reference::Reference;

/// One reference to verify, with the expectations it must meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    /// What the service is asked about.
    pub(crate) reference: Reference,
    /// Shared, not copied per job: every job of a run states the same expectations until
    /// an input row can carry its own.
    pub(crate) expect: Arc<Expectations>,
    /// Where the reference was given, e.g. `argument 2` or `refs.txt line 7`, for messages.
    pub(crate) origin: String,
    /// The orders-file row the reference was read from (reconcile), carried to the output
    /// beside the verdict; `None` for verify.
    pub(crate) row: Option<Box<Row>>,
}

/// One row of the orders file: the line it starts on and its cells as written, in the
/// header's order (padded with empty cells to the header's width).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Row {
    /// 1-based line of the file where the row starts.
    pub(crate) line: u64,
    /// The cells, exactly as read.
    pub(crate) cells: Vec<String>,
}
