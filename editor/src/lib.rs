//! The Stagecraft editor library.

// The bounded file reader and the leftovers of interrupted writes moved to the GUI-free
// `stagecraft-io` crate; their old paths stay valid.
pub use stagecraft_io::{bounded_read, leftovers};

pub mod app;
pub mod authoring;
pub mod cli;
pub mod command;
pub mod cook;
pub mod document;
pub mod edits;
pub mod output_file;
pub mod panels;
pub mod project_io;
pub mod rename;
pub mod service;
pub mod session;
pub mod snapshot_file;
pub mod text;
pub mod viewport;
