//! A bundle folder's files against its manifest: a folder is a complete Stagecraft bundle when
//! its `manifest.ron` parses and lists exactly what the folder holds — `manifest.ron`, the folder
//! `products/` and the product files the manifest names, each a plain file or folder (no link,
//! nothing else). `cook --out` replaces only such a folder.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use stagecraft_runtime::cook::parse_manifest;
use stagecraft_runtime::project::parse::MAX_SOURCE_BYTES;

use super::bundle_io::MANIFEST_NAME;
use crate::bounded_read::{read_regular, Links};

/// The folder of product files inside a bundle.
const PRODUCTS: &str = "products";

/// Whether `dir` is a complete bundle: `Ok` when its manifest parses and lists exactly its files,
/// else what is off, in words (the first thing found: an unreadable manifest, a file it does not
/// list, a listed file that is missing).
pub fn check_listing(dir: &Path) -> Result<(), String> {
    let bytes = read_regular(
        &dir.join(MANIFEST_NAME),
        MAX_SOURCE_BYTES as u64,
        Links::Refuse,
    )
    .map_err(|e| format!("its {MANIFEST_NAME}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("its {MANIFEST_NAME} is not UTF-8"))?;
    let manifest = parse_manifest(&text).map_err(|e| format!("its {MANIFEST_NAME}: {e}"))?;
    let mut missing: BTreeSet<String> = manifest.stages().map(|(_, s)| s.file.clone()).collect();
    let entries = fs::read_dir(dir).map_err(|e| format!("it cannot be listed: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("it cannot be listed: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(|e| format!("{name}: {e}"))?;
        match name.as_str() {
            MANIFEST_NAME if kind.is_file() => {}
            PRODUCTS if kind.is_dir() => check_products(&entry.path(), &mut missing)?,
            _ => return Err(unlisted(&name)),
        }
    }
    match missing.first() {
        Some(file) => Err(format!(
            "its {MANIFEST_NAME} lists {file}, which is missing"
        )),
        None => Ok(()),
    }
}

/// Every entry of `products/` must be a plain file the manifest lists; each one found is taken
/// out of `missing`.
fn check_products(folder: &Path, missing: &mut BTreeSet<String>) -> Result<(), String> {
    let entries = fs::read_dir(folder).map_err(|e| format!("{PRODUCTS}/ cannot be listed: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{PRODUCTS}/ cannot be listed: {e}"))?;
        let file = format!("{PRODUCTS}/{}", entry.file_name().to_string_lossy());
        let kind = entry.file_type().map_err(|e| format!("{file}: {e}"))?;
        if !(kind.is_file() && missing.remove(&file)) {
            return Err(unlisted(&file));
        }
    }
    Ok(())
}

fn unlisted(name: &str) -> String {
    format!("it holds {name}, which its {MANIFEST_NAME} does not list")
}
