//! Cooked bundles on disk: reading one back with every check of `stagecraft verify` — product
//! paths that stay inside the bundle folder (links included), sizes within limits before
//! reading, then the runtime's checks over the bytes. Writing one is `super::swap`'s.

use std::fs;
use std::path::Path;

use rayon::prelude::*;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::codec::MAX_PRODUCT_BYTES;
use stagecraft_runtime::cook::{check_product, parse_manifest, CookError, CookedManifest};
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;

/// The manifest's file name inside a bundle folder.
pub const MANIFEST_NAME: &str = "manifest.ron";

/// One product checked by [`read_bundle`].
#[derive(Debug, Clone)]
pub struct CheckedProduct {
    /// Recipe id.
    pub recipe: String,
    /// Stage id.
    pub stage: u32,
    /// The file, relative to the bundle.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Generated objects.
    pub elements: u64,
    /// The decoded product.
    pub product: Product,
}

/// A bundle read back and verified.
#[derive(Debug, Clone)]
pub struct ReadBundle {
    /// The manifest.
    pub manifest: CookedManifest,
    /// BLAKE3 of `manifest.ron`, hex (the bundle digest).
    pub digest: String,
    /// Every product, in manifest order.
    pub products: Vec<CheckedProduct>,
    /// Bytes read in all (manifest and products).
    pub bytes_read: u64,
}

pub(crate) fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, CookError> {
    let meta = fs::symlink_metadata(path)
        .map_err(|e| CookError::invalid(what, format!("file cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(CookError::invalid(
            what,
            "path: not a regular file".to_owned(),
        ));
    }
    if meta.len() > limit {
        return Err(CookError::TooLarge {
            what: what.to_owned(),
            size: meta.len(),
            limit,
        });
    }
    fs::read(path).map_err(|e| CookError::invalid(what, format!("file cannot be read: {e}")))
}

/// Reads and verifies the bundle in `dir`: the manifest (at most 1 MiB, strict), then each
/// product file (a regular file inside `dir/products`, at most the size limit, then every check
/// of [`check_product`]). The first problem is the error; nothing panics.
pub fn read_bundle(dir: &Path) -> Result<ReadBundle, CookError> {
    let manifest_bytes = read_limited(
        &dir.join(MANIFEST_NAME),
        MAX_SOURCE_BYTES as u64,
        MANIFEST_NAME,
    )?;
    let text = String::from_utf8(manifest_bytes)
        .map_err(|_| CookError::invalid(MANIFEST_NAME, "text: not UTF-8".to_owned()))?;
    let manifest = parse_manifest(&text)?;
    let root =
        fs::canonicalize(dir).map_err(|e| CookError::invalid("bundle folder", e.to_string()))?;
    let mut files = Vec::new();
    for (recipe, stage) in manifest.stages() {
        let path = dir.join(&stage.file);
        let real = fs::canonicalize(&path).map_err(|e| {
            CookError::invalid(&stage.file, format!("file cannot be opened: {e}"))
                .in_file(&stage.file)
        })?;
        if !real.starts_with(root.join("products")) {
            return Err(CookError::PathEscapes {
                path: stage.file.clone(),
                why: format!("it leads to {}", real.display()),
            });
        }
        let bytes = read_limited(&real, MAX_PRODUCT_BYTES, "product file")
            .map_err(|e| e.in_file(&stage.file))?;
        files.push((recipe, stage, bytes));
    }
    let bytes_read = text.len() as u64 + files.iter().map(|(_, _, b)| b.len() as u64).sum::<u64>();
    // The checks of different files are independent; the first error in manifest order wins.
    let checked: Vec<Result<CheckedProduct, CookError>> = files
        .par_iter()
        .map(|(recipe, stage, bytes)| {
            check_product(stage, bytes).map(|product| CheckedProduct {
                recipe: recipe.id.clone(),
                stage: stage.id,
                file: stage.file.clone(),
                bytes: stage.bytes,
                elements: stage.elements,
                product,
            })
        })
        .collect();
    let products = checked.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(ReadBundle {
        digest: blake3::hash(text.as_bytes()).to_hex().to_string(),
        manifest,
        products,
        bytes_read,
    })
}
