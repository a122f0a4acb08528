//! `stagecraft export BUNDLE --format gltf|usd|json --out FILE`: reads a cooked bundle with every
//! check of `verify`, turns its products into the runtime's export scene (what the viewport
//! draws: placed objects, unconsumed scatters, street surfaces) and writes it as glTF 2.0 binary
//! or a USD ASCII layer, or writes the manifest and every product as JSON
//! (`docs/bundle-json.md`, schema `docs/schemas/bundle.schema.json`), through the crate's
//! output-file rule. `--project` gives the variants'
//! preview shapes, sizes and colours from the asset families the bundle was cooked with (their
//! digests must match the manifest's). `docs/export.md` describes the files.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use stagecraft_runtime::content::encode::hex;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::cook::CookedManifest;
use stagecraft_runtime::export::json::bundle_json_text;
use stagecraft_runtime::export::{gltf, usd, ExportScene, Looks, StageProduct};
use stagecraft_runtime::project::load_project;
use stagecraft_runtime::recipe::family_data;

use super::diagnostics::escape_controls;
use super::error::CliError;
use super::json_out::write_document;
use crate::cook::read_bundle;
use crate::output_file::write_output_file;
use crate::project_io::read_sources;

/// Arguments of `stagecraft export`.
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    /// The cooked bundle folder (as `stagecraft cook --out` writes it).
    pub bundle: PathBuf,
    /// The file format: `gltf` (glTF 2.0 binary, .glb), `usd` (USD ASCII layer, .usda) or
    /// `json` (the manifest and every product, with a published JSON Schema).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The file to write (a new path, a regular file, a pipe or a character device).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The project the bundle was cooked from: its asset families give every variant its preview
    /// shape, size and colour (without it, every variant is a grey 1 m box).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The formats `stagecraft export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// glTF 2.0 binary (`.glb`) with `EXT_mesh_gpu_instancing`.
    Gltf,
    /// USD ASCII layer (`.usda`) with a `PointInstancer` per family.
    Usd,
    /// The manifest and every product as JSON (with a published JSON Schema).
    Json,
}

/// `stagecraft export`: exit 0 when the file was written, 1 when the bundle or the project's
/// families were refused (the reason printed).
pub fn export(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    // Refused before any work, by the rule every output follows.
    crate::output_file::output_file_kind(&args.out).context("cannot write the export")?;
    let bundle = match read_bundle(&args.bundle) {
        Ok(bundle) => bundle,
        Err(error) => {
            let shown = format!("{}: invalid bundle: {error}", args.bundle.display());
            return Err(CliError::new(1, "invalid_bundle", shown).into());
        }
    };
    refuse_inside(&args.out, &args.bundle)?;
    if args.format == ExportFormat::Json {
        let products: Vec<Product> = bundle.products.into_iter().map(|p| p.product).collect();
        return export_json(args, &bundle.manifest, &bundle.digest, &products, out);
    }
    let looks = match &args.project {
        Some(project) => match looks_of(project, &bundle.manifest)? {
            Ok(looks) => looks,
            Err(why) => return Err(CliError::new(1, "families_differ", why).into()),
        },
        None => Looks::default(),
    };
    let products: Vec<StageProduct<'_>> = bundle
        .products
        .iter()
        .map(|p| StageProduct {
            recipe: &p.recipe,
            stage: p.stage,
            product: &p.product,
        })
        .collect();
    let scene =
        ExportScene::from_products(&bundle.manifest.project, &bundle.digest, &products, &looks);
    // `json` returned above: the scene is written as glTF or USD.
    let bytes = if args.format == ExportFormat::Usd {
        usd::to_usda(&scene).into_bytes()
    } else {
        gltf::to_glb(&scene)?
    };
    write_output_file(&args.out, &bytes)?;
    report(args, &scene, products.len(), bytes.len(), out)?;
    Ok(0)
}

/// `--format json`: the manifest and every product as one JSON document.
fn export_json(
    args: &ExportArgs,
    manifest: &CookedManifest,
    bundle_digest: &str,
    products: &[Product],
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let text = match bundle_json_text(manifest, products) {
        Ok(text) => text,
        Err(error) => {
            let shown = format!("{}: {error}", args.bundle.display());
            return Err(CliError::new(1, "invalid_bundle", shown).into());
        }
    };
    write_output_file(&args.out, text.as_bytes()).context("cannot write the export")?;
    let placements: u64 = products.iter().map(placement_count).sum();
    if args.json {
        // The same keys as the glTF and USD report; a JSON export has no variant groups.
        let report = serde_json::json!({
            "bundle": args.bundle.display().to_string(),
            "format": "json",
            "out": args.out.display().to_string(),
            "bytes": text.len(),
            "bundle_digest": bundle_digest,
            "products": products.len(),
            "instances": placements,
            "groups": [],
            "surfaces": [],
        });
        write_document(out, "export", &report)?;
    } else {
        let line = format!(
            "{}: {} products ({placements} placements) exported as json to {} ({} bytes)",
            args.bundle.display(),
            products.len(),
            args.out.display(),
            text.len(),
        );
        writeln!(out, "{}", escape_controls(&line))?;
    }
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
        ExportFormat::Gltf => "gltf",
        ExportFormat::Usd => "usd",
        ExportFormat::Json => "json",
    }
}

/// Refuses an output inside the bundle folder: the bundle would no longer verify.
fn refuse_inside(file: &Path, bundle: &Path) -> anyhow::Result<()> {
    let bundle = bundle
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", bundle.display()))?;
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new("."));
    if let Ok(folder) = folder.canonicalize() {
        if folder.starts_with(&bundle) {
            anyhow::bail!(
                "{} is inside the bundle folder {}: a bundle holds only what its manifest lists",
                file.display(),
                bundle.display()
            );
        }
    }
    Ok(())
}

/// The looks of the project's families, or why they are not the ones the bundle was cooked
/// with (a family the manifest records that the project lacks or whose generation data differ).
fn looks_of(project: &Path, manifest: &CookedManifest) -> anyhow::Result<Result<Looks, String>> {
    let sources = read_sources(project)?;
    let loaded = load_project(&sources);
    let Some(project_doc) = loaded.project else {
        return Ok(Err(format!(
            "{}: the project's manifest cannot be read (run `stagecraft check`)",
            project.display()
        )));
    };
    for (id, recorded) in &manifest.families {
        let Some(family) = project_doc.families.get(id) else {
            return Ok(Err(format!(
                "{}: the bundle was cooked with asset family `{id}`, which the project lacks",
                project.display()
            )));
        };
        let digest = hex(&family_data(family).digest());
        if &digest != recorded {
            return Ok(Err(format!(
                "{}: asset family `{id}` differs from the one the bundle was cooked with \
                 (generation data {digest}, the bundle records {recorded}): cook again, or \
                 pass the project the bundle came from",
                project.display()
            )));
        }
    }
    Ok(Ok(Looks::of_families(project_doc.families.values())))
}

fn report(
    args: &ExportArgs,
    scene: &ExportScene,
    products: usize,
    bytes: usize,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let format = format_name(args.format);
    if args.json {
        let groups: Vec<serde_json::Value> = scene
            .groups
            .iter()
            .map(|g| {
                serde_json::json!({"recipe": g.recipe, "stage": g.stage, "family": g.family,
                    "variant": g.variant, "instances": g.instances.len(), "look_known": g.look_known})
            })
            .collect();
        let surfaces: Vec<serde_json::Value> = scene
            .surfaces
            .iter()
            .map(|s| serde_json::json!({"recipe": s.recipe, "stage": s.stage, "kind": s.kind.name(), "polygons": s.polygons.len()}))
            .collect();
        let report = serde_json::json!({
            "bundle": args.bundle.display().to_string(),
            "format": format,
            "out": args.out.display().to_string(),
            "bytes": bytes,
            "bundle_digest": scene.bundle_digest,
            "products": products,
            "instances": scene.instance_count(),
            "groups": groups,
            "surfaces": surfaces,
        });
        write_document(out, "export", &report)?;
        return Ok(());
    }
    let unknown = scene.groups.iter().filter(|g| !g.look_known).count();
    writeln!(
        out,
        "exported {} instances of {} variant groups and {} street surface groups from bundle {} \
         to {} ({format}, {bytes} bytes)",
        scene.instance_count(),
        scene.groups.len(),
        scene.surfaces.len(),
        scene.bundle_digest,
        escape_controls(&args.out.display().to_string()),
    )?;
    if unknown > 0 {
        writeln!(
            out,
            "note: {unknown} variant groups have no preview shape (no --project, or a variant \
             the families lack): drawn as grey 1 m boxes"
        )?;
    }
    Ok(())
}
