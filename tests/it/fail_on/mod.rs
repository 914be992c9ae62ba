//! `verify --fail-on CLASS,...` (issue 27 item 3): a scheduled batch exits with the worst
//! exit among the records of the classes named, else 0; one payment's exit status is never
//! its business; the progress bar counts by class; the cron recipe in the docs runs.

mod docs;
mod exit;
mod reconcile;
mod refusals;

/// Each outcome's class, as docs/exit-codes.md states it: the test's own oracle, written
/// apart from the code's table.
pub(super) const CLASS_OF: [(&str, &str); 9] = [
    ("SUCCESSFUL", "paid"),
    ("FAILED", "declined"),
    ("NOT_FOUND", "not_found"),
    ("CHECK_FAILED", "mismatch"),
    ("AUTH_REJECTED", "fault"),
    ("UNAVAILABLE", "unverified"),
    ("BAD_RESPONSE", "unverified"),
    ("NOT_FINAL", "pending"),
    ("INTERNAL_ERROR", "fault"),
];

/// The classes in the order help lists them.
pub(super) const CLASS_ORDER: [&str; 7] = [
    "paid",
    "declined",
    "not_found",
    "mismatch",
    "pending",
    "unverified",
    "fault",
];

/// The class every record counts under, named or not.
pub(super) const ALWAYS: &str = "fault";

/// The exit statuses from the most severe to the least, as docs/exit-codes.md states the
/// merge rule: the test's own oracle.
pub(super) const SEVERITY: [i64; 12] = [130, 10, 6, 5, 4, 8, 2, 7, 9, 3, 1, 0];

/// The most severe of `exits` (0 for none), by [`SEVERITY`].
pub(super) fn most_severe(exits: impl IntoIterator<Item = i64>) -> i64 {
    let rank = |e: &i64| SEVERITY.iter().position(|s| s == e).unwrap();
    exits.into_iter().min_by_key(rank).unwrap_or(0)
}

pub(super) fn class_of(outcome: &str) -> &'static str {
    CLASS_OF
        .iter()
        .find(|(o, _)| *o == outcome)
        .unwrap_or_else(|| panic!("no class for {outcome}"))
        .1
}
