//! The orders' rows as the engine takes them in reconcile: each row decided from the file,
//! or asked about, with room for the rows carried over from an earlier run.

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

/// The orders' rows as the engine's input, with room for carried rows (`--resume`).
pub(crate) struct Rows(pub(crate) Orders);

impl Iterator for Rows {
    type Item = Result<Item<Reconciled>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.0.next()?.map(|item| match item {
            Item::Job(job) => Item::Job(job),
            Item::Decided(decided) => Item::Decided(Reconciled::Row(decided)),
            Item::Duplicate { reference, origin } => Item::Duplicate { reference, origin },
            Item::Invalid { origin, why } => Item::Invalid { origin, why },
        }))
    }
}

impl Source<Reconciled> for Rows {
    fn empty_message(&self) -> String {
        self.0.empty_message()
    }

    fn end_notes(&self) -> Vec<String> {
        self.0.end_notes()
    }
}
