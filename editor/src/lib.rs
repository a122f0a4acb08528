//! The Stagecraft editor library.

pub mod app;
pub mod authoring;
pub mod bounded_read;
pub mod cli;
pub mod cook;
pub mod document;
pub mod edits;
pub mod leftovers;
pub mod output_file;
pub mod panels;
pub mod project_io;
pub mod rename;
pub mod service;
pub mod session;
pub mod snapshot_file;
pub mod viewport;
