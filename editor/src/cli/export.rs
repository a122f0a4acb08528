//! `stagecraft export BUNDLE --format FMT --out FILE`: reads a cooked bundle with every check of
//! `stagecraft verify`, converts it in the runtime (`runtime::export`) and writes one file by
//! the rule every output follows (`crate::output_file`). Formats: `json` (the manifest and every
//! product, `docs/bundle-json.md`, schema `docs/schemas/bundle.schema.json`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::export::json::bundle_json_text;

use super::diagnostics::escape_controls;
use crate::cook::read_bundle;

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// The manifest and every product as JSON (with a published JSON Schema).
    Json,
}

/// The arguments of `stagecraft export`.
#[derive(Debug, Clone)]
pub struct ExportArgs {
    /// The bundle folder.
    pub bundle: PathBuf,
    /// What to write.
    pub format: ExportFormat,
    /// The file to write.
    pub out: PathBuf,
    /// Print the report as JSON.
    pub json: bool,
}

/// `stagecraft export`: exit 0 when the file was written, 1 when the bundle does not verify.
pub fn export(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    // Refused before any work, by the rule every output follows.
    crate::output_file::output_file_kind(&args.out).context("cannot write the export")?;
    let bundle = match read_bundle(&args.bundle) {
        Ok(bundle) => bundle,
        Err(error) => return refuse(out, args, &format!("invalid bundle: {error}")),
    };
    let products: Vec<Product> = bundle.products.into_iter().map(|p| p.product).collect();
    let text = match args.format {
        ExportFormat::Json => bundle_json_text(&bundle.manifest, &products),
    };
    let text = match text {
        Ok(text) => text,
        Err(error) => return refuse(out, args, &error.to_string()),
    };
    crate::output_file::write_output_file(&args.out, text.as_bytes())
        .context("cannot write the export")?;
    let placements: u64 = products.iter().map(placement_count).sum();
    report(out, args, products.len(), placements, text.len())?;
    Ok(0)
}

/// Instances a product holds: scatter placements and placed objects.
fn placement_count(product: &Product) -> u64 {
    match product {
        Product::Placements(scatter) => scatter.placement_count() as u64,
        Product::PlacedObjects(placed) => placed.objects.len() as u64,
        _ => 0,
    }
}

fn format_name(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Json => "json",
    }
}

fn report(
    out: &mut dyn Write,
    args: &ExportArgs,
    products: usize,
    placements: u64,
    bytes: usize,
) -> anyhow::Result<()> {
    if args.json {
        let report = serde_json::json!({
            "schema": 1,
            "bundle": args.bundle.display().to_string(),
            "format": format_name(args.format),
            "out": args.out.display().to_string(),
            "products": products,
            "placements": placements,
            "bytes": bytes,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        let line = format!(
            "{}: {products} products ({placements} placements) exported as {} to {} ({bytes} bytes)",
            args.bundle.display(),
            format_name(args.format),
            args.out.display(),
        );
        writeln!(out, "{}", escape_controls(&line))?;
    }
    Ok(())
}

/// Prints why nothing was exported; exit code 1.
fn refuse(out: &mut dyn Write, args: &ExportArgs, message: &str) -> anyhow::Result<i32> {
    let bundle: &Path = &args.bundle;
    if args.json {
        let report = serde_json::json!({
            "schema": 1,
            "bundle": bundle.display().to_string(),
            "ok": false,
            "error": message,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        let shown = format!("{}: {message}", bundle.display());
        writeln!(out, "{}", escape_controls(&shown))?;
    }
    Ok(1)
}
