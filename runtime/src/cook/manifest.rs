//! The cooked bundle's manifest: everything a reproduction needs (schema, recipe source digests,
//! operator and algorithm versions, asset family digests, root seed, address profile, scopes,
//! override sources, products with digests, sizes and counts), written as canonical RON and read
//! back strictly; and the check of one product file against its manifest entry.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::codec::{decode_checked, encode_product_file, MAX_PRODUCT_BYTES};
use super::CookError;
use crate::content::encode::hex;
use crate::content::{Product, ProductKind};
use crate::generate::GeneratedBundle;
use crate::project::node::{Node, NodeKind};
use crate::project::parse::parse;
use crate::project::write::{to_canonical_string, Doc};
use crate::project::{overrides_file, LoadedProject, ProjectSources};
use crate::recipe::CompiledPlan;

/// The manifest schema this build writes and reads (2: the manifest carries its own digest).
pub const MANIFEST_SCHEMA: u32 = 2;
/// Stages a manifest may list in all.
pub const MAX_MANIFEST_STAGES: usize = 4096;

/// A cooked bundle's manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookedManifest {
    /// The project's display name.
    pub project: String,
    /// The root seed every recipe was generated with.
    pub root_seed: u64,
    /// Asset family id → BLAKE3 of its generation data (`FamilyData::digest`), hex.
    pub families: BTreeMap<String, String>,
    /// Override set id → BLAKE3 of its source file, hex (the sets the project holds).
    pub overrides: BTreeMap<String, String>,
    /// The cooked recipes, in the project manifest's order.
    pub recipes: Vec<CookedRecipe>,
}

/// One cooked recipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookedRecipe {
    /// Recipe id.
    pub id: String,
    /// The scope it was generated for (the recipe instance).
    pub scope: String,
    /// BLAKE3 of the recipe's canonical text, hex.
    pub source_digest: String,
    /// Address schema (the address profile).
    pub address_schema: u32,
    /// The generated bundle's digest, hex.
    pub bundle_digest: String,
    /// Published stage ids.
    pub outputs: Vec<u32>,
    /// Stages in plan order.
    pub stages: Vec<CookedStage>,
}

/// One stage's product in a cooked bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookedStage {
    /// Persistent stage id.
    pub id: u32,
    /// Display label.
    pub label: String,
    /// Operator id.
    pub operator: String,
    /// Algorithm version.
    pub algorithm: u32,
    /// Product kind name.
    pub kind: String,
    /// The stage cache key, hex.
    pub key: String,
    /// BLAKE3 of the product's canonical bytes (the stage digest), hex.
    pub digest: String,
    /// The product file, relative to the bundle folder (`products/<name>.bin`).
    pub file: String,
    /// Bytes of the product file.
    pub bytes: u64,
    /// BLAKE3 of the whole product file, hex.
    pub file_digest: String,
    /// Generated objects.
    pub elements: u64,
    /// Rejected candidates or pruned cells.
    pub rejected: u64,
}

/// The manifest entry and product file of every stage of a generated bundle: (recipe entry,
/// [(file path, file bytes)]). The stages are encoded and hashed on the current rayon pool
/// (the same bytes on any number of threads: each stage's file is its own).
pub fn cook_recipe(bundle: &GeneratedBundle) -> (CookedRecipe, Vec<(String, Vec<u8>)>) {
    let cooked: Vec<(CookedStage, (String, Vec<u8>))> = bundle
        .stages
        .par_iter()
        .map(|stage| {
            let bytes = encode_product_file(stage.stage, &stage.product);
            let file = format!("products/{}.{}.bin", bundle.recipe_id, stage.stage);
            let entry = CookedStage {
                id: stage.stage,
                label: stage.label.clone(),
                operator: stage.operator.to_owned(),
                algorithm: stage.algorithm,
                kind: stage.kind().name().to_owned(),
                key: hex(&stage.key),
                digest: hex(&stage.digest),
                file: file.clone(),
                bytes: bytes.len() as u64,
                file_digest: file_digest_hex(&bytes),
                elements: stage.summary.objects,
                rejected: stage.summary.rejected,
            };
            (entry, (file, bytes))
        })
        .collect();
    let (stages, files): (Vec<CookedStage>, Vec<(String, Vec<u8>)>) = cooked.into_iter().unzip();
    let recipe = CookedRecipe {
        id: bundle.recipe_id.clone(),
        scope: bundle.recipe_id.clone(),
        source_digest: hex(&bundle.source_digest),
        address_schema: bundle.address_schema,
        bundle_digest: bundle.digest_hex(),
        outputs: bundle.outputs.clone(),
        stages,
    };
    (recipe, files)
}

/// Files at least this large are hashed with BLAKE3's multi-threaded `update_rayon`.
const PARALLEL_HASH_BYTES: usize = 1 << 20;

/// BLAKE3 of a product file, hex: the same value however it is hashed (a large file's on the
/// current rayon pool).
pub fn file_digest_hex(bytes: &[u8]) -> String {
    let mut hasher = blake3::Hasher::new();
    if bytes.len() >= PARALLEL_HASH_BYTES {
        hasher.update_rayon(bytes);
    } else {
        hasher.update(bytes);
    }
    hasher.finalize().to_hex().to_string()
}

impl CookedManifest {
    /// The manifest of a project's cooked `recipes` at `seed`: the families `plans` read
    /// (through subrecipe stages too) and the digests of the override sets' source files, as
    /// every cook writes it (the command's and Python's: one owner, so their digests agree).
    pub fn of_project<'a>(
        (sources, loaded): (&ProjectSources, &LoadedProject),
        plans: impl IntoIterator<Item = &'a CompiledPlan>,
        seed: u64,
        recipes: Vec<CookedRecipe>,
    ) -> CookedManifest {
        let mut families = BTreeMap::new();
        for plan in plans {
            for (id, family) in plan.families() {
                families.insert(id, hex(&family.digest()));
            }
        }
        let project = loaded.project.as_ref();
        let overrides = project
            .map(|p| {
                p.overrides
                    .keys()
                    .map(|id| {
                        let text = sources.files.get(&overrides_file(id));
                        let digest = blake3::hash(text.map_or(&[][..], |t| t.as_bytes()));
                        (id.clone(), digest.to_hex().to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        CookedManifest {
            project: project.map(|p| p.manifest.name.clone()).unwrap_or_default(),
            root_seed: seed,
            families,
            overrides,
            recipes,
        }
    }

    /// The canonical text of `manifest.ron`: the body with its digest
    /// ([`CookedManifest::digest_hex`]) as the second field.
    pub fn to_text(&self) -> String {
        to_canonical_string(&self.doc(Some(self.digest_hex())))
    }

    /// The cooked bundle's digest, hex: BLAKE3 of the canonical manifest text without its
    /// `digest` field. It covers every field of the manifest, and through each product's
    /// `file_digest` every byte of every product file — so every byte of the bundle.
    pub fn digest_hex(&self) -> String {
        blake3::hash(to_canonical_string(&self.doc(None)).as_bytes())
            .to_hex()
            .to_string()
    }

    fn doc(&self, digest: Option<String>) -> Doc {
        let map = |m: &BTreeMap<String, String>| {
            Doc::Map(
                m.iter()
                    .map(|(k, v)| (Doc::Str(k.clone()), Doc::Str(v.clone())))
                    .collect(),
            )
        };
        let mut fields = vec![("schema", Doc::Int(MANIFEST_SCHEMA.into()))];
        fields.extend(digest.map(|d| ("digest", Doc::Str(d))));
        fields.extend([
            ("project", Doc::Str(self.project.clone())),
            ("root_seed", Doc::Int(self.root_seed.into())),
            ("families", map(&self.families)),
            ("overrides", map(&self.overrides)),
            (
                "recipes",
                Doc::List(self.recipes.iter().map(recipe_doc).collect()),
            ),
        ]);
        Doc::Struct("CookedBundle", fields)
    }

    /// Every stage entry with its recipe, in manifest order.
    pub fn stages(&self) -> impl Iterator<Item = (&CookedRecipe, &CookedStage)> {
        self.recipes
            .iter()
            .flat_map(|r| r.stages.iter().map(move |s| (r, s)))
    }
}

pub(super) fn stage_doc(s: &CookedStage) -> Doc {
    Doc::Struct(
        "Stage",
        vec![
            ("id", Doc::Int(s.id.into())),
            ("label", Doc::Str(s.label.clone())),
            ("operator", Doc::Str(s.operator.clone())),
            ("algorithm", Doc::Int(s.algorithm.into())),
            ("kind", Doc::Str(s.kind.clone())),
            ("key", Doc::Str(s.key.clone())),
            ("digest", Doc::Str(s.digest.clone())),
            ("file", Doc::Str(s.file.clone())),
            ("bytes", Doc::Int(s.bytes.into())),
            ("file_digest", Doc::Str(s.file_digest.clone())),
            ("elements", Doc::Int(s.elements.into())),
            ("rejected", Doc::Int(s.rejected.into())),
        ],
    )
}

fn recipe_doc(recipe: &CookedRecipe) -> Doc {
    Doc::Struct(
        "Recipe",
        vec![
            ("id", Doc::Str(recipe.id.clone())),
            ("scope", Doc::Str(recipe.scope.clone())),
            ("source_digest", Doc::Str(recipe.source_digest.clone())),
            ("address_schema", Doc::Int(recipe.address_schema.into())),
            ("bundle_digest", Doc::Str(recipe.bundle_digest.clone())),
            (
                "outputs",
                Doc::List(
                    recipe
                        .outputs
                        .iter()
                        .map(|o| Doc::Int((*o).into()))
                        .collect(),
                ),
            ),
            (
                "stages",
                Doc::List(recipe.stages.iter().map(stage_doc).collect()),
            ),
        ],
    )
}

/// Reads `manifest.ron` strictly: the exact fields in any order, known schema, product paths
/// inside `products/`, no file named twice, sizes within limits.
pub fn parse_manifest(text: &str) -> Result<CookedManifest, CookError> {
    let parsed = parse(text);
    if let Some(error) = parsed.errors.first() {
        return Err(CookError::Manifest {
            line: error.span.line,
            column: error.span.column,
            message: error.message.clone(),
        });
    }
    let Some(root) = parsed.root else {
        return Err(manifest_error(None, "the manifest is empty".to_owned()));
    };
    let fields = Fields::of(&root, "CookedBundle")?;
    let schema = fields.uint("schema", u64::from(u32::MAX))?;
    if schema != u64::from(MANIFEST_SCHEMA) {
        return Err(CookError::UnsupportedVersion {
            what: "manifest schema".to_owned(),
            found: schema,
            supported: MANIFEST_SCHEMA.into(),
        });
    }
    let recorded = fields.digest("digest")?;
    let manifest = CookedManifest {
        project: fields.string("project")?,
        root_seed: fields.uint("root_seed", u64::MAX)?,
        families: fields.string_map("families")?,
        overrides: fields.string_map("overrides")?,
        recipes: fields
            .list("recipes")?
            .iter()
            .map(parse_recipe)
            .collect::<Result<_, _>>()?,
    };
    fields.no_others(&[
        "schema",
        "digest",
        "project",
        "root_seed",
        "families",
        "overrides",
        "recipes",
    ])?;
    check_manifest(&manifest)?;
    check_sealed(&manifest, &recorded, fields.get("digest")?)?;
    check_canonical(&manifest, text)?;
    Ok(manifest)
}

/// The recorded `digest` must be the digest of everything else the manifest says: an edit to any
/// field after cooking is refused.
fn check_sealed(manifest: &CookedManifest, recorded: &str, node: &Node) -> Result<(), CookError> {
    let computed = manifest.digest_hex();
    if computed == recorded {
        return Ok(());
    }
    Err(manifest_error(
        Some(node),
        format!(
            "`digest`: the manifest records {recorded}, its content hashes to {computed}: \
             the manifest was changed after cooking (or damaged)"
        ),
    ))
}

/// The text must be exactly what the canonical writer gives for what it says, so one bundle has
/// one text (and one digest).
fn check_canonical(manifest: &CookedManifest, text: &str) -> Result<(), CookError> {
    let canonical = manifest.to_text();
    if canonical == text {
        return Ok(());
    }
    let shorten = |line: Option<&str>| match line {
        None => "the end of the file".to_owned(),
        Some(line) if line.chars().count() > 80 => {
            format!("`{}…`", line.chars().take(80).collect::<String>())
        }
        Some(line) => format!("`{line}`"),
    };
    let (mut found, mut expected) = (text.split_inclusive('\n'), canonical.split_inclusive('\n'));
    let mut line = 1u32;
    loop {
        let (f, e) = (found.next(), expected.next());
        if f != e {
            return Err(CookError::Manifest {
                line,
                column: 1,
                message: format!(
                    "not canonical: found {}, the canonical writer gives {} \
                     (a manifest is written only by `stagecraft cook`)",
                    shorten(f.map(|l| l.trim_end_matches('\n'))),
                    shorten(e.map(|l| l.trim_end_matches('\n')))
                ),
            });
        }
        line = line.saturating_add(1);
    }
}

fn parse_recipe(node: &Node) -> Result<CookedRecipe, CookError> {
    let f = Fields::of(node, "Recipe")?;
    let recipe = CookedRecipe {
        id: f.string("id")?,
        scope: f.string("scope")?,
        source_digest: f.digest("source_digest")?,
        address_schema: f.u32("address_schema")?,
        bundle_digest: f.digest("bundle_digest")?,
        outputs: f
            .list("outputs")?
            .iter()
            .map(|n| int_of(n, u64::from(u32::MAX)).map(|v| v as u32))
            .collect::<Result<_, _>>()?,
        stages: f
            .list("stages")?
            .iter()
            .map(parse_stage)
            .collect::<Result<_, _>>()?,
    };
    f.no_others(&[
        "id",
        "scope",
        "source_digest",
        "address_schema",
        "bundle_digest",
        "outputs",
        "stages",
    ])?;
    check_recipe_stages(&recipe, &f)?;
    Ok(recipe)
}

/// Stage ids are unique within a recipe, and every output names one of its stages.
fn check_recipe_stages(recipe: &CookedRecipe, f: &Fields<'_>) -> Result<(), CookError> {
    let mut ids = BTreeSet::new();
    for (stage, node) in recipe.stages.iter().zip(f.list("stages")?) {
        if !ids.insert(stage.id) {
            return Err(manifest_error(
                Some(node),
                format!("recipe `{}`: stage {} is listed twice", recipe.id, stage.id),
            ));
        }
    }
    for (output, node) in recipe.outputs.iter().zip(f.list("outputs")?) {
        if !ids.contains(output) {
            return Err(manifest_error(
                Some(node),
                format!(
                    "recipe `{}`: output {output} names no stage of the recipe (its stages are {})",
                    recipe.id,
                    ids.iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn parse_stage(node: &Node) -> Result<CookedStage, CookError> {
    let f = Fields::of(node, "Stage")?;
    let stage = CookedStage {
        id: f.u32("id")?,
        label: f.string("label")?,
        operator: f.string("operator")?,
        algorithm: f.u32("algorithm")?,
        kind: f.string("kind")?,
        key: f.digest("key")?,
        digest: f.digest("digest")?,
        file: f.string("file")?,
        bytes: f.uint("bytes", u64::MAX)?,
        file_digest: f.digest("file_digest")?,
        elements: f.uint("elements", u64::MAX)?,
        rejected: f.uint("rejected", u64::MAX)?,
    };
    f.no_others(&[
        "id",
        "label",
        "operator",
        "algorithm",
        "kind",
        "key",
        "digest",
        "file",
        "bytes",
        "file_digest",
        "elements",
        "rejected",
    ])?;
    Ok(stage)
}

pub(super) fn manifest_error(node: Option<&Node>, message: String) -> CookError {
    let span = node.map(|n| n.span).unwrap_or_default();
    CookError::Manifest {
        line: span.line.max(1),
        column: span.column.max(1),
        message,
    }
}

fn int_of(node: &Node, max: u64) -> Result<u64, CookError> {
    match node.kind {
        NodeKind::Int(value) if value >= 0 && value <= i128::from(max) => Ok(value as u64),
        _ => Err(manifest_error(
            Some(node),
            format!(
                "expected an integer in 0..={max}, found {}",
                node.kind.describe()
            ),
        )),
    }
}

pub(super) struct Fields<'a> {
    node: &'a Node,
    fields: &'a [(crate::project::node::Ident, Node)],
}

impl<'a> Fields<'a> {
    pub(super) fn of(node: &'a Node, name: &str) -> Result<Fields<'a>, CookError> {
        match &node.kind {
            NodeKind::Struct {
                name: found,
                fields,
            } if found.as_ref().is_none_or(|n| n.name == name) => Ok(Fields { node, fields }),
            other => Err(manifest_error(
                Some(node),
                format!("expected `{name}(…)`, found {}", other.describe()),
            )),
        }
    }

    pub(super) fn get(&self, name: &str) -> Result<&'a Node, CookError> {
        self.fields
            .iter()
            .find(|(ident, _)| ident.name == name)
            .map(|(_, node)| node)
            .ok_or_else(|| manifest_error(Some(self.node), format!("missing field `{name}`")))
    }

    pub(super) fn no_others(&self, known: &[&str]) -> Result<(), CookError> {
        match self
            .fields
            .iter()
            .find(|(i, _)| !known.contains(&i.name.as_str()))
        {
            Some((ident, node)) => Err(manifest_error(
                Some(node),
                format!("unknown field `{}`", ident.name),
            )),
            None => Ok(()),
        }
    }

    pub(super) fn uint(&self, name: &str, max: u64) -> Result<u64, CookError> {
        int_of(self.get(name)?, max)
    }

    pub(super) fn u32(&self, name: &str) -> Result<u32, CookError> {
        Ok(self.uint(name, u64::from(u32::MAX))? as u32)
    }

    pub(super) fn string(&self, name: &str) -> Result<String, CookError> {
        let node = self.get(name)?;
        match &node.kind {
            NodeKind::Str(text) => Ok(text.clone()),
            other => Err(manifest_error(
                Some(node),
                format!("`{name}`: expected a string, found {}", other.describe()),
            )),
        }
    }

    pub(super) fn digest(&self, name: &str) -> Result<String, CookError> {
        let text = self.string(name)?;
        if text.len() != 64
            || !text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(manifest_error(
                self.get(name).ok(),
                format!("`{name}`: expected 64 lowercase hex digits, found `{text}`"),
            ));
        }
        Ok(text)
    }

    pub(super) fn list(&self, name: &str) -> Result<&'a [Node], CookError> {
        let node = self.get(name)?;
        match &node.kind {
            NodeKind::List(items) => Ok(items),
            other => Err(manifest_error(
                Some(node),
                format!("`{name}`: expected a list, found {}", other.describe()),
            )),
        }
    }

    fn string_map(&self, name: &str) -> Result<BTreeMap<String, String>, CookError> {
        let node = self.get(name)?;
        let NodeKind::Map(entries) = &node.kind else {
            return Err(manifest_error(
                Some(node),
                format!("`{name}`: expected a map, found {}", node.kind.describe()),
            ));
        };
        let mut map = BTreeMap::new();
        for (key, value) in entries {
            match (&key.kind, &value.kind) {
                (NodeKind::Str(k), NodeKind::Str(v)) => {
                    map.insert(k.clone(), v.clone());
                }
                _ => {
                    return Err(manifest_error(
                        Some(key),
                        format!("`{name}`: expected string keys and values"),
                    ))
                }
            }
        }
        Ok(map)
    }
}

/// Checks a product path: exactly `products/<name>.bin`, the name of ASCII letters, digits, `-`,
/// `_` and `.`, not starting with a dot — so it can name nothing outside the bundle folder.
pub fn check_product_path(path: &str) -> Result<(), CookError> {
    let escape = |why: &str| CookError::PathEscapes {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    let Some(name) = path.strip_prefix("products/") else {
        return Err(escape("it is not inside `products/`"));
    };
    if name.contains("..") || name.starts_with('.') {
        return Err(escape("it contains `..` or a leading dot"));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
    {
        return Err(escape(
            "its name has a separator or a character outside [A-Za-z0-9._-]",
        ));
    }
    if !name.ends_with(".bin") || name.len() <= 4 {
        return Err(escape("it does not name a `.bin` file"));
    }
    Ok(())
}

fn check_manifest(manifest: &CookedManifest) -> Result<(), CookError> {
    let count: usize = manifest.recipes.iter().map(|r| r.stages.len()).sum();
    if count > MAX_MANIFEST_STAGES {
        return Err(CookError::TooLarge {
            what: "stage count".to_owned(),
            size: count as u64,
            limit: MAX_MANIFEST_STAGES as u64,
        });
    }
    let mut files = BTreeSet::new();
    for (_, stage) in manifest.stages() {
        check_product_path(&stage.file)?;
        if !files.insert(stage.file.as_str()) {
            return Err(CookError::invalid(
                "manifest",
                format!("product file `{}` is listed twice", stage.file),
            ));
        }
        if stage.bytes > MAX_PRODUCT_BYTES {
            return Err(CookError::TooLarge {
                what: format!("product file `{}`", stage.file),
                size: stage.bytes,
                limit: MAX_PRODUCT_BYTES,
            });
        }
        kind_named(&stage.kind)?;
    }
    Ok(())
}

fn kind_named(name: &str) -> Result<ProductKind, CookError> {
    super::codec::KINDS
        .into_iter()
        .find(|kind| kind.name() == name)
        .ok_or_else(|| CookError::invalid("stage kind", format!("unknown product kind `{name}`")))
}

/// Checks one product file against its manifest entry — size, file digest, header (magic,
/// version, kind, stage, element count), payload decoding, product digest — and returns the
/// product. Every error names the file.
pub fn check_product(stage: &CookedStage, bytes: &[u8]) -> Result<Product, CookError> {
    check_product_in(stage, bytes, &stage.file)
}

/// [`check_product`] of a file that lives at `file` (a cache entry's `product.bin`, say)
/// rather than at the manifest's `file`: every error names `file`.
pub fn check_product_in(
    stage: &CookedStage,
    bytes: &[u8],
    file: &str,
) -> Result<Product, CookError> {
    check_product_inner(stage, bytes).map_err(|e| e.in_file(file))
}

fn check_product_inner(stage: &CookedStage, bytes: &[u8]) -> Result<Product, CookError> {
    if bytes.len() as u64 != stage.bytes {
        return Err(CookError::SizeMismatch {
            what: "file size in bytes (the manifest's `bytes`)".to_owned(),
            declared: stage.bytes,
            actual: bytes.len() as u64,
        });
    }
    let file_digest = file_digest_hex(bytes);
    if file_digest != stage.file_digest {
        return Err(CookError::DigestMismatch {
            what: "file".to_owned(),
            expected: stage.file_digest.clone(),
            actual: file_digest,
        });
    }
    let decoded = decode_checked(bytes)?;
    let (header, product) = (decoded.header, decoded.product);
    let kind = kind_named(&stage.kind)?;
    if header.kind != kind || header.stage != stage.id {
        return Err(CookError::invalid(
            "header",
            format!(
                "stage {} {} in the file, stage {} {} in the manifest",
                header.stage,
                header.kind.name(),
                stage.id,
                stage.kind
            ),
        ));
    }
    if header.elements != stage.elements {
        return Err(CookError::SizeMismatch {
            what: "element count (header vs manifest)".to_owned(),
            declared: stage.elements,
            actual: header.elements,
        });
    }
    let rejected = decoded.rejected;
    if rejected != stage.rejected {
        return Err(CookError::SizeMismatch {
            what: "rejected count".to_owned(),
            declared: stage.rejected,
            actual: rejected,
        });
    }
    let digest = hex(&decoded.digest);
    if digest != stage.digest {
        return Err(CookError::DigestMismatch {
            what: "product".to_owned(),
            expected: stage.digest.clone(),
            actual: digest,
        });
    }
    Ok(product)
}
