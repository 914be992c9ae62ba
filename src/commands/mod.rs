//! One module per subcommand: each turns parsed arguments into an exit status.

pub(crate) mod config;
pub(crate) mod docs;
pub(crate) mod doctor;
pub(crate) mod gate;
pub(crate) mod reconcile;
pub(crate) mod sandbox;
pub(crate) mod verify;
pub(crate) mod webhook;
