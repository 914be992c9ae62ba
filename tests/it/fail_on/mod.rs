//! `verify --fail-on CLASS,...` (issue 27 item 3): a scheduled batch exits with the worst
//! exit among the records of the classes named, else 0; one payment's exit status is never
//! its business; the progress bar counts by class; the cron recipe in the docs runs.

mod docs;
mod exit;
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

pub(super) fn class_of(outcome: &str) -> &'static str {
    CLASS_OF
        .iter()
        .find(|(o, _)| *o == outcome)
        .unwrap_or_else(|| panic!("no class for {outcome}"))
        .1
}
