//! Tests of the assembly kernel.
