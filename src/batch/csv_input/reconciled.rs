//! What reconcile's engine takes besides jobs: each row decided from the file, with room for
//! the rows carried over from an earlier run.

use super::*;

/// A row decided without asking: from the file alone, or carried over from an earlier
/// run's output (`--resume`).
#[derive(Debug)]
pub(crate) enum Reconciled {
    /// INVALID_ROW or DUPLICATE.
    Row(Decided),
    /// An earlier run's final row, written again by value.
    Carried(Carried),
}

impl From<Carried> for Reconciled {
    fn from(carried: Carried) -> Self {
        Reconciled::Carried(carried)
    }
}
