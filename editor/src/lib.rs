//! The Stagecraft editor library.

pub mod cli;
pub mod project_io;
