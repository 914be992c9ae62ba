//! What a verification means, free of I/O: money, the service's response, its
//! signature, the checks, the outcome, the job, and the one judge that ties them together.

pub(crate) mod checks;
pub(crate) mod class;
pub(crate) mod currency;
pub(crate) mod job;
pub(crate) mod json;
pub(crate) mod judge;
pub(crate) mod model;
pub(crate) mod money;
pub(crate) mod outcome;
pub(crate) mod outcome_table;
pub(crate) mod reconcile;
pub(crate) mod row_record;
pub(crate) mod seal;
pub(crate) mod shop;
pub(crate) mod signature;
pub(crate) mod totals;
pub(crate) mod wait;
