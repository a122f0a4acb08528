//! Cooked bundles: the manifest (`manifest.ron`, canonical RON) and the product files
//! (`products/*.bin`, fixed-width little-endian), their encoding, decoding and verification over
//! bytes; the on-disk stage cache's pure parts (key records, miss reasons, eviction plans); and
//! the work items a build farm shards.
//!
//! Everything here takes bytes and returns data or a [`CookError`]; the editor does the file
//! system (staging folders, renames, the cache directory). `docs/bundle-format.md` is the
//! specification of the bytes.

pub mod cache;
pub mod codec;
pub mod manifest;
pub mod reader;
pub mod shard;
pub mod tiles;

pub use cache::{
    explain_miss, plan_eviction, CacheEntry, CacheEntryInfo, KeyChange, KeyRecord, StoreMiss,
};
pub use codec::{decode_product_file, encode_product_file, read_header, ProductHeader};
pub use manifest::{
    check_product, check_product_in, check_product_path, cook_recipe, file_digest_hex,
    parse_manifest, CookedManifest, CookedRecipe, CookedStage, MANIFEST_SCHEMA,
};
pub use shard::{shard_of, ShardSpec, WorkItem};

use thiserror::Error;

/// Why a cooked bundle, product file or cache entry was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CookError {
    /// A tag or magic number is not the expected one.
    #[error(
        "{what}: expected `{expected}`, found `{found}` (not a Stagecraft bundle file, or damaged)"
    )]
    BadMagic {
        /// What was read.
        what: String,
        /// The expected tag.
        expected: String,
        /// The tag found.
        found: String,
    },
    /// A format or schema version this build does not read.
    #[error("{what} version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// What carries the version.
        what: String,
        /// The version found.
        found: u64,
        /// The version this build reads.
        supported: u64,
    },
    /// The bytes end before a field.
    #[error("truncated: reading {what} at byte {offset} needs {needed} bytes, {remaining} remain")]
    Truncated {
        /// The field being read.
        what: String,
        /// Its offset.
        offset: u64,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left.
        remaining: u64,
    },
    /// A count that needs more bytes than remain.
    #[error("{what}: count {count} needs at least {needed} bytes, only {remaining} remain")]
    CountExceedsSize {
        /// What is counted.
        what: String,
        /// The count.
        count: u64,
        /// Bytes it needs at least.
        needed: u64,
        /// Bytes left.
        remaining: u64,
    },
    /// A declared size or count disagrees with the real one.
    #[error("{what}: declared {declared}, found {actual}")]
    SizeMismatch {
        /// What is measured.
        what: String,
        /// What the file or manifest says.
        declared: u64,
        /// What it is.
        actual: u64,
    },
    /// Bytes after the last field.
    #[error("{what}: {extra} bytes after the end")]
    TrailingBytes {
        /// What was read.
        what: String,
        /// Bytes left over.
        extra: u64,
    },
    /// A size beyond the format's limits.
    #[error("{what} is {size}, over the limit of {limit}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A digest that does not match the recorded one.
    #[error("{what}: digest mismatch (recorded {expected}, computed {actual})")]
    DigestMismatch {
        /// What was hashed.
        what: String,
        /// The recorded digest.
        expected: String,
        /// The computed digest.
        actual: String,
    },
    /// A product path that is not `products/<name>.bin` inside the bundle folder.
    #[error("product path `{path}` escapes the bundle folder: {why}")]
    PathEscapes {
        /// The path as written in the manifest.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The manifest could not be read.
    #[error("manifest.ron:{line}:{column}: {message}")]
    Manifest {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// A value that is out of its domain.
    #[error("{what}: invalid {why}")]
    Invalid {
        /// The field.
        what: String,
        /// What is wrong.
        why: String,
    },
    /// A file that cannot be read as one: missing, a folder, a pipe or device, a refused link,
    /// over its size bound (the reason names no path; [`CookError::in_file`] adds it).
    #[error("{why}")]
    File {
        /// What is wrong with it.
        why: String,
    },
    /// A file or folder in a bundle folder that its manifest does not list.
    #[error(
        "not listed in manifest.ron: a bundle folder holds exactly manifest.ron and the product \
         files it lists"
    )]
    Unlisted,
    /// An error inside one file of the bundle or cache.
    #[error("{file}: {error}")]
    InFile {
        /// The file, relative to the bundle or cache folder.
        file: String,
        /// The error.
        error: Box<CookError>,
    },
}

impl CookError {
    /// An [`CookError::Invalid`].
    pub fn invalid(what: &str, why: String) -> CookError {
        CookError::Invalid {
            what: what.to_owned(),
            why,
        }
    }

    /// This error, located in `file`.
    pub fn in_file(self, file: &str) -> CookError {
        CookError::InFile {
            file: file.to_owned(),
            error: Box::new(self),
        }
    }
}

#[cfg(test)]
mod tests;
