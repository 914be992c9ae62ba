//! Reconciled rows on the batch engine: how each is tallied and written.

use super::*;
use crate::domain::outcome::Record;
use crate::render::records::CarriedRecord;

/// Reconciled rows go to the engine's ordered writer like verify's records: each entry is
/// judged and counted in the totals when the engine tallies it (so the totals are exactly
/// the rows the exit status merges, written or not), and judged again to be written. A
/// carried row whose stored answer was judged again goes the way of a row asked now (the
/// one-payment-one-order claim, the totals, the writer); one without an answer (NOT_FOUND,
/// or any csv row) counts from the figures read back from it, and is written by value.
impl Sink<Reconciled> for ReconcileWriter {
    fn begin(&mut self) -> io::Result<()> {
        ReconcileWriter::begin(self)
    }

    fn tally(&mut self, entry: &Entry<Reconciled>) -> Tally {
        let mut judged = judge(entry);
        if let Some(record) = answered(entry) {
            self.claim(&mut judged, record);
        }
        self.count(&judged);
        let (warned, carried) = match entry {
            Entry::Verified(record) => (
                record
                    .verdict
                    .checks
                    .as_ref()
                    .is_some_and(|c| !c.warnings.is_empty()),
                false,
            ),
            Entry::Decided(Reconciled::Row(_)) => (false, false),
            Entry::Decided(Reconciled::Carried(c)) => (c.warned, true),
        };
        Tally {
            exit: judged.result.exit(),
            name: judged.result.name(),
            warned,
            carried,
            class: None,
        }
    }

    fn write(&mut self, entry: &Entry<Reconciled>) -> io::Result<()> {
        match entry {
            Entry::Decided(Reconciled::Carried(carried)) if answered(entry).is_none() => {
                ReconcileWriter::write_carried(self, &carried.record)
            }
            _ => {
                let mut judged = judge(entry);
                self.settle(&mut judged);
                ReconcileWriter::write(self, &judged)
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        ReconcileWriter::finish(self)
    }

    fn noun(&self) -> (&'static str, &'static str) {
        ("row", "rows")
    }

    fn names(&self) -> &'static [&'static str] {
        &RESULT_NAMES
    }

    fn verb(&self) -> &'static str {
        "reconciled"
    }

    /// The totals are those of the rows decided, not of the file: the summary says so.
    fn incomplete(&mut self, not_reached: Option<usize>) {
        self.mark_incomplete(not_reached.map(|n| n as u64));
    }
}

/// The answer an entry's row is judged from: asked now, or carried and judged again.
fn answered(entry: &Entry<Reconciled>) -> Option<&Record> {
    match entry {
        Entry::Verified(record) => Some(record),
        Entry::Decided(Reconciled::Carried(Carried {
            record: CarriedRecord::Record(record),
            ..
        })) => Some(record),
        Entry::Decided(_) => None,
    }
}

fn judge(entry: &Entry<Reconciled>) -> Judged<'_> {
    if let Some(record) = answered(entry) {
        return Judged::verified(record);
    }
    match entry {
        Entry::Verified(record) => Judged::verified(record),
        Entry::Decided(Reconciled::Row(decided)) => Judged::decided(decided),
        Entry::Decided(Reconciled::Carried(carried)) => Judged::carried(carried),
    }
}
