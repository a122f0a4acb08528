//! One side of an identity diff read from disk: a project folder (loaded, checked and generated
//! with its overrides, optionally with another seed and `STAGE.PARAM=VALUE` edits) or a cooked
//! bundle folder (verified and decoded). `stagecraft diff` and the Diff tab read sides here.

use std::collections::BTreeMap;
use std::path::Path;

use stagecraft_runtime::content::Product;
use stagecraft_runtime::diff::{bundle_objects, objects_into, DiffObject};
use stagecraft_runtime::generate::GeneratedBundle;
use stagecraft_runtime::identity::ChildKey;
use stagecraft_runtime::project::node::NodeKind;
use stagecraft_runtime::project::{LoadedProject, ParamValue};

use super::{compile_all, generate_plan, read_bundle, MANIFEST_NAME};

/// One side of a diff.
#[derive(Debug, Clone, Default)]
pub struct DiffSide<'a> {
    /// Root seed instead of the manifest's (projects only).
    pub seed: Option<u64>,
    /// `STAGE.PARAM=VALUE` edits (projects only).
    pub sets: &'a [String],
}

/// The asset of each placing stage of one side, by recipe and stage: its family and the
/// family's variant ids in the product's order, so a diff row can name the variant index an
/// object holds ([`AssetNames::asset`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssetNames {
    stages: BTreeMap<(String, u32), (String, Vec<String>)>,
}

impl AssetNames {
    /// Records the family and variants of `product`, when it places assets.
    pub fn add(&mut self, recipe: &str, stage: u32, product: &Product) {
        let (family, variants) = match product {
            Product::Placements(scatter) => (&scatter.family, &scatter.variant_ids),
            Product::PlacedObjects(placed) => (&placed.family, &placed.variant_ids),
            _ => return,
        };
        self.insert(recipe, stage, family, variants.clone());
    }

    /// Records that `stage` of `recipe` places the variants `variants` of `family`.
    pub fn insert(&mut self, recipe: &str, stage: u32, family: &str, variants: Vec<String>) {
        self.stages
            .insert((recipe.to_owned(), stage), (family.to_owned(), variants));
    }

    /// The assets of every placing stage of `bundle`.
    pub fn of_bundle(bundle: &GeneratedBundle) -> AssetNames {
        let mut names = AssetNames::default();
        for (stage, product) in bundle.products() {
            names.add(&bundle.recipe_id, stage, product);
        }
        names
    }

    /// `family/variant` of `object`, when it has a variant and its stage places assets
    /// (`variant N` when the family has no such variant).
    pub fn asset(&self, object: &DiffObject) -> Option<String> {
        let variant = object.variant?;
        let (family, variants) = self
            .stages
            .get(&(object.recipe.to_string(), object.stage))?;
        Some(match variants.get(variant as usize) {
            Some(id) => format!("{family}/{id}"),
            None => format!("{family}/variant {variant}"),
        })
    }
}

/// The objects of one side.
pub fn side_objects(path: &Path, side: &DiffSide<'_>) -> anyhow::Result<Vec<DiffObject>> {
    side_objects_and_assets(path, side).map(|(objects, _)| objects)
}

/// The objects of one side with the assets of its placing stages.
pub fn side_objects_and_assets(
    path: &Path,
    side: &DiffSide<'_>,
) -> anyhow::Result<(Vec<DiffObject>, AssetNames)> {
    let mut names = AssetNames::default();
    if path.join(MANIFEST_NAME).is_file() && !path.join("stagecraft.ron").is_file() {
        if side.seed.is_some() || !side.sets.is_empty() {
            anyhow::bail!(
                "{}: --seed and --set apply to projects, not cooked bundles",
                path.display()
            );
        }
        let bundle = read_bundle(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut objects = Vec::new();
        for p in &bundle.products {
            let recipe: std::sync::Arc<str> = std::sync::Arc::from(p.recipe.as_str());
            objects_into(&recipe, p.stage, &p.product, &mut objects);
            names.add(&p.recipe, p.stage, &p.product);
        }
        return Ok((objects, names));
    }
    let compiled = compile_all(path, &|loaded| apply_sets(loaded, side.sets))?;
    let seed = side.seed.unwrap_or(compiled.root_seed);
    let mut objects = Vec::new();
    for (recipe, plan) in &compiled.plans {
        let overrides = compiled.overrides_of(recipe);
        let bundle = generate_plan(plan, seed, &overrides)?;
        objects.extend(bundle_objects(&bundle));
        for (stage, product) in bundle.products() {
            names.add(&bundle.recipe_id, stage, product);
        }
    }
    Ok((objects, names))
}

/// Applies `STAGE.PARAM=VALUE` edits: STAGE is a stage id, VALUE a RON value (`3`, `0.5`,
/// `"id"`, `(0, 0, 10, 10)`, `[1, 2]`); every recipe with that stage id is edited.
pub fn apply_sets(loaded: &mut LoadedProject, sets: &[String]) -> anyhow::Result<()> {
    let Some(project) = loaded.project.as_mut() else {
        return Ok(());
    };
    for set in sets {
        let bad = || {
            anyhow::anyhow!("--set `{set}`: expected STAGE.PARAM=VALUE, e.g. 1001.cell_size=300")
        };
        let (target, value) = set.split_once('=').ok_or_else(bad)?;
        let (stage, param) = target.split_once('.').ok_or_else(bad)?;
        let stage: u32 = stage.trim().parse().map_err(|_| bad())?;
        let value = param_value(value.trim())
            .ok_or_else(|| anyhow::anyhow!("--set `{set}`: `{value}` is not a RON value"))?;
        let mut found = false;
        for recipe in project.recipes.values_mut() {
            for s in recipe.stages.iter_mut().filter(|s| s.id == stage) {
                s.parameters.insert(param.trim().to_owned(), value.clone());
                found = true;
            }
        }
        if !found {
            anyhow::bail!("--set `{set}`: no recipe has stage {stage}");
        }
    }
    Ok(())
}

fn param_value(text: &str) -> Option<ParamValue> {
    let parsed = stagecraft_runtime::project::parse::parse(text);
    if !parsed.errors.is_empty() {
        return None;
    }
    node_value(&parsed.root?)
}

fn node_value(node: &stagecraft_runtime::project::node::Node) -> Option<ParamValue> {
    Some(match &node.kind {
        NodeKind::Bool(b) => ParamValue::Bool(*b),
        NodeKind::Int(i) => ParamValue::Int(i64::try_from(*i).ok()?),
        NodeKind::Float(f) => ParamValue::Float(*f),
        NodeKind::Str(s) => ParamValue::Str(s.clone()),
        NodeKind::List(items) => {
            ParamValue::List(items.iter().map(node_value).collect::<Option<_>>()?)
        }
        NodeKind::Tuple(items) => {
            ParamValue::Tuple(items.iter().map(node_value).collect::<Option<_>>()?)
        }
        _ => return None,
    })
}

/// The key as text: a scatter id in hex, a grid cell `(x, y)`, a slot by name.
pub fn key_text(key: &ChildKey) -> String {
    match key {
        ChildKey::Scatter(id) => id.to_string(),
        ChildKey::GridCell { x, y } => format!("({x}, {y})"),
        ChildKey::Slot(name) => name.clone(),
    }
}
