//! One module per subcommand: each turns parsed arguments into an exit status.

pub mod config;
pub mod docs;
pub mod doctor;
pub mod sandbox;
pub mod verify;
pub mod webhook;
