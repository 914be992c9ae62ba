//! Reconciled rows on the batch engine: each judged once into its record, claimed,
//! counted and written in the one call the engine makes for it.

use super::*;
use crate::batch::Look;
use crate::batch::seen::{Seen, kept_line};
use crate::domain::checks::CheckFailure;
use crate::domain::outcome::Record;
use crate::domain::reconcile::claimed_by;
use crate::domain::row_record::RowRecord;
use crate::domain::totals::Summary;
use crate::exit::Exit;
use crate::journal::{Journal, Order, Payment};

/// Where reconcile's rows go: each entry becomes its [`RowRecord`] once, when the engine
/// takes it (so the totals are exactly the rows the exit status merges, written or not):
/// a MATCHED row whose payment an earlier row claimed becomes a DUPLICATE, the record is
/// counted, kept in the `--state` file and written. A carried row, its verdict as it
/// was decided, goes the way of a row asked now.
pub(crate) struct ReconcileSink {
    /// The output.
    pub(crate) writer: ReconcileWriter,
    /// The line each reference of the input was first verified on: one payment may answer
    /// to two references (its transaction and its payment reference), and must count for
    /// one order only.
    lines_of: ReferenceLines,
    /// The line each payment was first answered for, by each name it has ([`Payment::names`],
    /// whatever field an answer gives it in):
    /// two references may be answered as one payment without either answer naming the
    /// other's reference, and it still counts for one order only.
    payments: Seen<u32>,
    /// The totals so far.
    pub(crate) summary: Summary,
    /// Where the reference and the order id are among a row's cells, for the closing
    /// lines.
    columns: (usize, Option<usize>),
    /// The journal, whose claims hold across runs: a payment an order of an earlier run
    /// claimed is a DUPLICATE for any other order.
    claims: Option<Journal>,
}

impl ReconcileSink {
    /// A sink writing to `writer`, claiming payments by the reader's `lines_of`; `columns`
    /// are where a row's reference and order id are (the file may have no order id).
    pub(crate) fn new(
        writer: ReconcileWriter,
        lines_of: ReferenceLines,
        columns: (usize, Option<usize>),
    ) -> Self {
        ReconcileSink {
            writer,
            lines_of,
            payments: Seen::default(),
            summary: Summary::default(),
            columns,
            claims: None,
        }
    }

    /// The sink with `journal`'s claims: each MATCHED or SPLIT_PAID row of an order claims
    /// its payment.
    pub(crate) fn claiming(self, journal: Option<Journal>) -> Self {
        ReconcileSink {
            claims: journal,
            ..self
        }
    }

    /// Claims a paid row's payment for its order; a DUPLICATE when another order claimed it
    /// first, in this run or an earlier one. A journal that cannot answer makes the row
    /// UNVERIFIED, never MATCHED unclaimed: the run then ends with exit 6, the journal
    /// saying why.
    fn claim(&self, record: &mut RowRecord, answered: &Record, payment: Payment<'_>) {
        let Some(journal) = &self.claims else {
            return;
        };
        let expect = &answered.job.expect;
        let Some(shown) = payment.shown() else {
            return;
        };
        let reference = answered.job.reference.as_str();
        // A row whose order id cell is empty, in a file with an order id column, still
        // claims its payment, as that row's: else a later run could give that payment to
        // an order quietly. A file with no order id column (a settlement file) is of
        // payments, not orders, and claims nothing.
        let merchant_ref = expect.merchant_ref.as_deref();
        let order = match (&expect.order_id, self.columns.1) {
            (Some(id), _) => Order::of_id(id, merchant_ref),
            (None, Some(_)) => Order::without_id(reference, merchant_ref),
            (None, None) => return,
        };
        match journal.claim_in_batch(payment, &order, reference) {
            Ok(Some(claim)) => record.claimed(&CheckFailure::Claimed {
                payment: shown.to_owned(),
                by: claim.said(),
            }),
            Ok(None) => {}
            Err(why) => record.unclaimed(&why),
        }
    }

    /// What the closing lines say of `record`, when it needs a look: its line, its order
    /// id and reference where the row has them, its result and why.
    fn look(&self, record: &RowRecord) -> Option<Box<Look>> {
        let why = match (record.result.exit(), &record.error) {
            (Exit::Successful, _) if !record.warned => return None,
            (_, Some(error)) => error.clone(),
            (_, None) => record.checks.clone().unwrap_or_default(),
        };
        let cell = |at: usize| {
            record
                .cells
                .get(at)
                .map(|c| c.trim())
                .filter(|c| !c.is_empty())
        };
        let (reference, order) = self.columns;
        let mut what = format!("line {}", record.line);
        if let Some(order) = order.and_then(cell) {
            what.push_str(&format!(", order {order}"));
        }
        if let Some(reference) = cell(reference) {
            what.push_str(&format!(", reference {reference}"));
        }
        Some(Box::new(Look {
            what,
            name: record.result.name(),
            why,
        }))
    }

    /// The earlier line that was answered for the payment `v` (asked as `own`, on `line`)
    /// is for, if one was, and this row's names kept for the rows after it. Either the
    /// answer names a reference an earlier row asked ([`claimed_by`]), or it shares a name
    /// with an earlier answer though neither names the other's reference. A name that is
    /// the row's own reference is looked up but not kept: `lines_of` knows every reference
    /// asked, and a later row asking the same one is the reader's DUPLICATE.
    fn first_answered_for(
        &mut self,
        v: &crate::domain::model::Verification,
        payment: Payment<'_>,
        own: &str,
        line: u64,
    ) -> Option<u64> {
        let mut first = claimed_by(v, own, line, self.lines_of.as_ref());
        let kept = kept_line(line);
        // Every name is looked up and kept, whichever one gives the earliest line.
        for (_, name) in payment.names() {
            let earlier = match name == own {
                true => self.payments.find(name),
                false => self.payments.first(name, kept),
            }
            .map(u64::from);
            if let Some(earlier) = earlier.filter(|&l| l < line) {
                first = Some(first.map_or(earlier, |f| f.min(earlier)));
            }
        }
        // A merchantRef is no name of a named payment (one order's retried payments share
        // it), but a payment named by a merchantRef alone is held against every answer
        // that gave that merchantRef, earlier or later, as the journal's claims are. Kept
        // apart from the names by a NUL prefix: a name an answer starts with one can only
        // add a DUPLICATE (the first line a key was seen on holds), never hide one.
        if let Some(merchant_ref) = payment.merchant_ref {
            let (mine, theirs) = match payment.by_merchant_ref_alone() {
                true => ("\0alone\0", "\0of\0"),
                false => ("\0of\0", "\0alone\0"),
            };
            let earlier = (self.payments.find(&format!("{theirs}{merchant_ref}"))).map(u64::from);
            if let Some(earlier) = earlier.filter(|&l| l < line) {
                first = Some(first.map_or(earlier, |f| f.min(earlier)));
            }
            self.payments.first(&format!("{mine}{merchant_ref}"), kept);
        }
        first
    }

    /// The one judgement of an entry: its record, a DUPLICATE when an earlier row claimed
    /// its payment ([`claimed_by`]).
    fn record(&mut self, entry: &Entry<Reconciled>) -> RowRecord {
        let answered = match entry {
            Entry::Verified(record) => record,
            Entry::Decided(Reconciled::Carried(Carried(record))) => record,
            Entry::Decided(Reconciled::Row(decided)) => return RowRecord::decided(decided),
        };
        // A file with no order id column lists payments (a settlement report, a statement).
        let mut record = RowRecord::verified(answered, self.columns.1.is_none());
        let Some(v) = answered.verdict.outcome.verification() else {
            return record;
        };
        let own = answered.job.reference.as_str();
        let payment = Payment::of(v, own);
        // One payment never confirms two orders, in full or in part: the first row it was
        // answered for, whatever that row's result, has it.
        if let Some(first) = self.first_answered_for(v, payment, own, record.line)
            && matches!(record.result, RowResult::Matched | RowResult::SplitPaid)
        {
            record.duplicate_of(first);
        }
        if matches!(record.result, RowResult::Matched | RowResult::SplitPaid) {
            self.claim(&mut record, answered, payment);
        }
        record
    }
}

impl Sink<Reconciled> for ReconcileSink {
    fn take(&mut self, entry: &Entry<Reconciled>, write: bool) -> (Tally, io::Result<()>) {
        let record = self.record(entry);
        self.summary.add(&record);
        let class = record.result.class();
        let tally = Tally {
            exit: record.result.exit(),
            name: record.result.name(),
            warned: record.warned,
            carried: matches!(entry, Entry::Decided(Reconciled::Carried(_))),
            class: Some(class),
            // A row decided from the file alone was never asked about.
            answered: !record.result.decided_from_input() && class.is_answer(),
            look: self.look(&record),
        };
        (tally, self.writer.take(&record, write))
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.finish()
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
    fn incomplete(&mut self, not_reached: Option<usize>) -> io::Result<()> {
        self.summary.incomplete = Some(not_reached.map(|n| n as u64));
        self.writer.stopped_short(not_reached)
    }
}
