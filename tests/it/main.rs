//! The end-to-end tests, one binary (one link) with a module per area; each runs the real
//! binary as a user or script would and asserts exit status, stdout and stderr.
//!
//! Unix only: they drive payverify through sh, file modes, /dev and XDG paths. On Windows
//! the release binary is run end to end under wine by `scripts/check-release.sh --all`.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]
// The tests parse the JSON payverify wrote (payverify itself reads JSON through domain::json).
#![allow(clippy::disallowed_methods)]
// A test binary has no public surface: its helpers are `pub` for the sibling modules only.
#![allow(unreachable_pub)]

mod common;

mod around;
mod attack_review;
mod base_url;
mod batch;
mod changed_inputs;
mod checks;
mod closing_lines;
mod config_first_hour;
mod config_trust;
mod docs;
mod doctor;
mod examples;
mod exit_zero_paths;
mod exports;
mod fail_on;
mod faults;
mod files;
mod final_and_paid;
mod first_hour;
mod gate;
mod hidden;
mod hostile;
mod incomplete;
mod journal;
mod json_markers;
mod layers;
mod leaks;
mod one_judge;
mod one_payment;
mod order_ref;
mod outputs;
mod pacing;
mod precedence;
mod properties;
mod reconcile;
mod reconcile_carried;
mod reconcile_resume;
mod resume;
mod resume_carried;
mod resume_differential;
mod resume_forged;
mod resume_like_fresh;
mod resume_trust;
mod safe_gate;
mod sandbox;
mod settlements;
mod setup;
mod shopify;
mod state;
mod stop;
mod stop_early;
mod streams;
mod tls;
mod unchecked_failed;
mod usage;
mod verify;
mod wait;
mod xlsx;
