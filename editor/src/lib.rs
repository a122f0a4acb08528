//! The Stagecraft editor library.
