//! The batch source that hands the index's carried records to the writer in their jobs'
//! places, and the notes it ends a run with.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard};

use super::*;

/// A batch source with an earlier run's final records in place of their jobs.
pub(crate) struct Resuming<S, D> {
    inner: S,
    index: Arc<Mutex<ResumeIndex>>,
    _decided: PhantomData<fn() -> D>,
}

impl<S, D> Resuming<S, D> {
    /// `inner`'s items, each job whose reference has a final record in `index` replaced by
    /// that record. With `--state`, the state file asks the index at a stop for what the
    /// run did not write ([`state::Shared`]).
    pub(crate) fn new(inner: S, index: ResumeIndex) -> Self {
        let state = index.state.clone();
        let index = Arc::new(Mutex::new(index));
        if let Some(state) = state {
            state.set_earlier(Arc::new(state::Shared(index.clone())));
        }
        Resuming {
            inner,
            index,
            _decided: PhantomData,
        }
    }

    fn index(&self) -> MutexGuard<'_, ResumeIndex> {
        state::Shared::lock_of(&self.index)
    }
}

impl<S: Source<D>, D: From<Carried>> Iterator for Resuming<S, D> {
    type Item = Result<Item<D>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        let Some(item) = self.inner.next() else {
            self.index().input_read = true;
            return None;
        };
        match item {
            Ok(Item::Job(job)) => match self.index().take(&job) {
                Some(carried) => Some(Ok(Item::Decided(D::from(carried)))),
                None => Some(Ok(Item::Job(job))),
            },
            other => Some(other),
        }
    }
}

impl<S: Source<D>, D: From<Carried>> Source<D> for Resuming<S, D> {
    fn empty_message(&self) -> String {
        self.inner.empty_message()
    }

    fn end_notes(&self) -> Vec<String> {
        let mut notes = self.inner.end_notes();
        let index = self.index();
        let flag = index.memory.flag();
        let records = match index.shape.row {
            Some(_) => "rows",
            None => "records",
        };
        if index.distrusted > 0 {
            let why = match index.shape.row {
                Some(_) => {
                    "rows of the {flag} file were asked again: a row is carried only if it is \
                     this input's row as it was (its line and every cell), bears payverify's \
                     seal under this run's secret and was judged by this run's checks (the \
                     same payverify, expectations, --hmac and --expect-mode); a paid one also \
                     needs the hmac it was found to have valid"
                }
                None => {
                    "final records of the {flag} file were asked again: a jsonl record is \
                     carried only if it bears payverify's seal under this run's secret and was \
                     judged by this run's checks (the same payverify, expectations, --hmac and \
                     --expect-mode); a SUCCESSFUL one also needs the hmac it was found to have \
                     valid"
                }
            };
            notes.push(format!(
                "{} {}",
                index.distrusted,
                why.replace("{flag}", flag)
            ));
        }
        if index.changed > 0 {
            notes.push(format!(
                "{} {records} of the {flag} file changed while this run read it; they were \
                 asked again",
                index.changed
            ));
        }
        if index.unused() > 0 {
            let fate = match index.memory {
                Memory::State => "it no longer holds them",
                Memory::Resume => "they were not written",
            };
            notes.push(format!(
                "the {flag} file has {} final {records} for references not in this input; \
                 {fate}",
                index.unused()
            ));
        }
        notes
    }
}
