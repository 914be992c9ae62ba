//! One module per subcommand: each turns parsed arguments into an exit status.

pub mod config;
pub mod docs;
pub mod doctor;
pub mod reconcile;
pub mod sandbox;
pub mod verify;
pub mod webhook;
