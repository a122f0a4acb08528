//! Cooked bundles on disk: reading one back with every check of `stagecraft verify` — the
//! manifest (the runtime's strict, digest-checked, canonical reading), a folder that holds
//! exactly the files it lists, product paths that stay inside the bundle folder (links
//! included), each product a regular file read within the bound its manifest entry gives, then
//! the runtime's checks over the bytes. Writing one is `super::swap`'s.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::bounded_read::{read_regular, Links, ReadProblem};
use rayon::prelude::*;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::codec::MAX_PRODUCT_BYTES;
use stagecraft_runtime::cook::{
    check_product, parse_manifest, CookError, CookedManifest, CookedStage,
};
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;

/// The manifest's file name inside a bundle folder.
pub const MANIFEST_NAME: &str = "manifest.ron";

/// The folder of a bundle's product files.
const PRODUCTS: &str = "products";

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
    /// The bundle digest, hex: the one `manifest.ron` records, checked against its content.
    pub digest: String,
    /// Every product, in manifest order.
    pub products: Vec<CheckedProduct>,
    /// Bytes read in all (manifest and products).
    pub bytes_read: u64,
}

/// A [`ReadProblem`] as the bundle's error (the caller names the file).
pub(crate) fn file_error(problem: ReadProblem) -> CookError {
    CookError::File {
        why: problem.to_string(),
    }
}

/// Every entry of the bundle folder and of its `products/` must be one the manifest lists: a
/// stray file, a product whose stage entry was deleted, a link in place of `products/` are
/// refused, each naming the entry.
fn check_folder_lists_exactly(dir: &Path, manifest: &CookedManifest) -> Result<(), CookError> {
    let listed: BTreeSet<&str> = manifest.stages().map(|(_, s)| s.file.as_str()).collect();
    let list = |folder: &Path, shown: &str| {
        fs::read_dir(folder).map_err(|e| file_error(ReadProblem::Io(e)).in_file(shown))
    };
    for entry in list(dir, "bundle folder")? {
        let entry = entry.map_err(|e| file_error(ReadProblem::Io(e)).in_file("bundle folder"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        match name.as_str() {
            MANIFEST_NAME => {}
            PRODUCTS => {
                let real_folder = entry.file_type().is_ok_and(|t| t.is_dir());
                if !real_folder {
                    return Err(CookError::File {
                        why: "is not a folder (a bundle's products are in the folder \
                              `products/`, never behind a link)"
                            .to_owned(),
                    }
                    .in_file(PRODUCTS));
                }
            }
            _ => return Err(CookError::Unlisted.in_file(&name)),
        }
    }
    let products = dir.join(PRODUCTS);
    if fs::symlink_metadata(&products).is_err() {
        return Ok(()); // Nothing listed can be read; the product checks say which is missing.
    }
    for entry in list(&products, PRODUCTS)? {
        let entry = entry.map_err(|e| file_error(ReadProblem::Io(e)).in_file(PRODUCTS))?;
        let name = format!("{PRODUCTS}/{}", entry.file_name().to_string_lossy());
        if !listed.contains(name.as_str()) {
            return Err(CookError::Unlisted.in_file(&name));
        }
    }
    Ok(())
}

/// Reads a product file with the bound its manifest entry gives: exactly `stage.bytes`, which
/// the manifest check keeps within the format's limit.
fn read_product(real: &Path, stage: &CookedStage) -> Result<Vec<u8>, CookError> {
    read_regular(real, stage.bytes.min(MAX_PRODUCT_BYTES), Links::Follow).map_err(|problem| {
        match problem {
            ReadProblem::TooLarge { size, .. } => CookError::SizeMismatch {
                what: "file size in bytes (the manifest's `bytes`)".to_owned(),
                declared: stage.bytes,
                actual: size,
            },
            other => file_error(other),
        }
        .in_file(&stage.file)
    })
}

/// Reads and verifies the bundle in `dir`: the manifest (at most 1 MiB, strict), then each
/// product file (a regular file inside `dir/products`, at most the size limit, then every check
/// of [`check_product`]). The first problem is the error; nothing panics.
pub fn read_bundle(dir: &Path) -> Result<ReadBundle, CookError> {
    // The manifest is never followed through a link: a bundle is one self-contained folder.
    let manifest_bytes = read_regular(
        &dir.join(MANIFEST_NAME),
        MAX_SOURCE_BYTES as u64,
        Links::Refuse,
    )
    .map_err(|problem| file_error(problem).in_file(MANIFEST_NAME))?;
    let text = String::from_utf8(manifest_bytes)
        .map_err(|_| CookError::invalid(MANIFEST_NAME, "text: not UTF-8".to_owned()))?;
    let manifest = parse_manifest(&text).map_err(|error| match error {
        CookError::Manifest { .. } => error, // Already `manifest.ron:LINE:COLUMN: …`.
        other => other.in_file(MANIFEST_NAME),
    })?;
    check_folder_lists_exactly(dir, &manifest)?;
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
        let bytes = read_product(&real, stage)?;
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
        digest: manifest.digest_hex(),
        manifest,
        products,
        bytes_read,
    })
}
