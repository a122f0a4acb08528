//! A cooked bundle as one JSON document, for engines and tools without a RON or product-file
//! reader: the manifest (every field of `manifest.ron` and its digest) and every product in
//! manifest order, placements with their identity, variant, transform and provenance.
//!
//! The document types below are the specification: their JSON Schema
//! (`docs/schemas/bundle.schema.json`, [`bundle_schema_text`]) is generated from them and the
//! checked-in file is compared with it by a test; `docs/bundle-json.md` explains the fields.
//! Positions are meters in Stagecraft's frame: x east, y north, z up (a right-handed, Z-up
//! frame; the ground is z = 0). Identities are rendered as `ScatterId`'s `Display` does
//! (`0x` + 16 hex digits), digests as 64 lowercase hex digits.

mod products;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use thiserror::Error;

use crate::content::Product;
use crate::cook::{CookedManifest, CookedRecipe, CookedStage, MANIFEST_SCHEMA};

pub use products::{
    ChunkJson, CrosswalkJson, CrosswalkSideJson, DailyKeyJson, LaneJson, LatticeRectJson,
    LayerJson, MissionJson, NamedRectJson, PlacedJson, PlacementJson, PortalJson, ProductJson,
    ProvenanceJson, RectJson, RejectReasonJson, RejectedJson, RouteJson, ScatterJson,
    StreamingJson, StreetBlockJson, SurfaceJson, TransformJson,
};

/// A cooked bundle as JSON (`stagecraft export BUNDLE --format json`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Stagecraft cooked bundle (JSON export)")]
pub struct BundleJson {
    /// The document and the version of its layout.
    #[schemars(extend("const" = "stagecraft.bundle/1"))]
    pub schema: String,
    /// The frame of every position: `"z_up"` (x east, y north, z up, meters).
    #[schemars(extend("const" = "z_up"))]
    pub axes: String,
    /// The bundle's `manifest.ron`.
    pub manifest: ManifestJson,
    /// Every stage's product, in manifest order (recipe by recipe, stage by stage).
    pub products: Vec<StageProductJson>,
}

/// `manifest.ron`: what a reproduction needs, and the digests the bundle is checked by.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestJson {
    /// The manifest schema (`manifest.ron`'s own `schema`).
    pub schema: u32,
    /// The bundle digest: BLAKE3 of the canonical manifest text without its digest line.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub digest: String,
    /// The project's display name.
    pub project: String,
    /// The seed every recipe was generated with.
    pub root_seed: u64,
    /// Asset family id → BLAKE3 of its generation data.
    pub families: BTreeMap<String, String>,
    /// Override set id → BLAKE3 of its source file.
    pub overrides: BTreeMap<String, String>,
    /// The cooked recipes, in the project manifest's order.
    pub recipes: Vec<RecipeJson>,
}

/// One cooked recipe of the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecipeJson {
    /// Recipe id.
    pub id: String,
    /// The recipe instance generated.
    pub scope: String,
    /// BLAKE3 of the recipe's canonical text.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub source_digest: String,
    /// The address profile.
    pub address_schema: u32,
    /// The generated bundle's digest (as `stagecraft generate` prints it).
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub bundle_digest: String,
    /// Published stage ids.
    pub outputs: Vec<u32>,
    /// Its stages, in plan order.
    pub stages: Vec<StageJson>,
}

/// One stage entry of the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StageJson {
    /// Persistent stage id.
    pub id: u32,
    /// Display label.
    pub label: String,
    /// Operator id.
    pub operator: String,
    /// Algorithm version.
    pub algorithm: u32,
    /// Product kind.
    #[schemars(extend("enum" = ["StreetBlock", "Placements", "PlacedObjects", "MissionLayout", "StreamingPlan", "AssemblyPlan"]))]
    pub kind: String,
    /// Stage cache key.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub key: String,
    /// BLAKE3 of the product's canonical bytes.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub digest: String,
    /// The product file inside the bundle folder.
    pub file: String,
    /// Size of the product file.
    pub bytes: u64,
    /// BLAKE3 of the whole product file.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub file_digest: String,
    /// Generated objects.
    pub elements: u64,
    /// Rejected candidates or pruned cells.
    pub rejected: u64,
}

/// One stage's product with the stage it came from.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StageProductJson {
    /// The recipe (instance) that generated it.
    pub recipe: String,
    /// The stage id.
    pub stage: u32,
    /// The stage's label.
    pub label: String,
    /// The operator that made it.
    pub operator: String,
    /// The operator's algorithm version.
    pub algorithm: u32,
    /// BLAKE3 of the product's canonical bytes (the manifest's stage digest).
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub digest: String,
    /// Generated objects.
    pub elements: u64,
    /// Rejected candidates or pruned cells.
    pub rejected: u64,
    /// The product, by kind.
    pub product: ProductJson,
}

/// Why a bundle cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExportError {
    /// The products given are not one per manifest stage.
    #[error("the manifest lists {listed} stages, {given} products were given")]
    ProductCount {
        /// Stages the manifest lists.
        listed: usize,
        /// Products given.
        given: usize,
    },
    /// A product's kind is not the one its manifest entry names.
    #[error("recipe `{recipe}` stage {stage}: the manifest says {listed}, the product is {given}")]
    KindMismatch {
        /// Recipe id.
        recipe: String,
        /// Stage id.
        stage: u32,
        /// The manifest's kind.
        listed: String,
        /// The product's kind.
        given: &'static str,
    },
}

/// The JSON document of a cooked bundle: `manifest` with its recorded digest, and `products`,
/// one per stage of `manifest.stages()` in that order (as a verified read of the bundle gives
/// them).
pub fn bundle_json(
    manifest: &CookedManifest,
    products: &[Product],
) -> Result<BundleJson, ExportError> {
    let listed = manifest.stages().count();
    if listed != products.len() {
        return Err(ExportError::ProductCount {
            listed,
            given: products.len(),
        });
    }
    let products = manifest
        .stages()
        .zip(products)
        .map(|((recipe, stage), product)| stage_product(recipe, stage, product))
        .collect::<Result<_, _>>()?;
    Ok(BundleJson {
        schema: super::schema_id("bundle"),
        axes: "z_up".to_owned(),
        manifest: manifest_json(manifest),
        products,
    })
}

/// [`bundle_json`] as compact JSON text (one line: a 100,000-placement bundle is tens of
/// megabytes, and pretty-printing would more than double it) with a final newline.
pub fn bundle_json_text(
    manifest: &CookedManifest,
    products: &[Product],
) -> Result<String, ExportError> {
    let document = bundle_json(manifest, products)?;
    // The document holds strings, integers and finite floats (decoded products are checked):
    // printing it cannot fail.
    Ok(serde_json::to_string(&document).unwrap_or_default() + "\n")
}

/// The JSON Schema of [`BundleJson`]: `docs/schemas/bundle.schema.json`.
pub fn bundle_schema_text() -> String {
    super::schema_text::<BundleJson>()
}

fn stage_product(
    recipe: &CookedRecipe,
    stage: &CookedStage,
    product: &Product,
) -> Result<StageProductJson, ExportError> {
    let given = product.kind().name();
    if given != stage.kind {
        return Err(ExportError::KindMismatch {
            recipe: recipe.id.clone(),
            stage: stage.id,
            listed: stage.kind.clone(),
            given,
        });
    }
    let origin = products::Origin {
        recipe: &recipe.id,
        stage: stage.id,
        operator: &stage.operator,
    };
    Ok(StageProductJson {
        recipe: recipe.id.clone(),
        stage: stage.id,
        label: stage.label.clone(),
        operator: stage.operator.clone(),
        algorithm: stage.algorithm,
        digest: stage.digest.clone(),
        elements: stage.elements,
        rejected: stage.rejected,
        product: products::product_json(&origin, product),
    })
}

fn manifest_json(manifest: &CookedManifest) -> ManifestJson {
    ManifestJson {
        schema: MANIFEST_SCHEMA,
        digest: manifest.digest_hex(),
        project: manifest.project.clone(),
        root_seed: manifest.root_seed,
        families: manifest.families.clone(),
        overrides: manifest.overrides.clone(),
        recipes: manifest.recipes.iter().map(recipe_json).collect(),
    }
}

fn recipe_json(recipe: &CookedRecipe) -> RecipeJson {
    RecipeJson {
        id: recipe.id.clone(),
        scope: recipe.scope.clone(),
        source_digest: recipe.source_digest.clone(),
        address_schema: recipe.address_schema,
        bundle_digest: recipe.bundle_digest.clone(),
        outputs: recipe.outputs.clone(),
        stages: recipe.stages.iter().map(stage_json).collect(),
    }
}

fn stage_json(stage: &CookedStage) -> StageJson {
    StageJson {
        id: stage.id,
        label: stage.label.clone(),
        operator: stage.operator.clone(),
        algorithm: stage.algorithm,
        kind: stage.kind.clone(),
        key: stage.key.clone(),
        digest: stage.digest.clone(),
        file: stage.file.clone(),
        bytes: stage.bytes,
        file_digest: stage.file_digest.clone(),
        elements: stage.elements,
        rejected: stage.rejected,
    }
}

#[cfg(test)]
mod tests;
