//! Subrecipe stages at run time: the child recipe's plan runs as one stage of its user, under a
//! nested instance and seed, and the stage publishes one of its outputs (`recipe::subrecipe`).
//!
//! The child's instance is `<parent instance>/<stage id>:<child id>`; it draws under a seed
//! derived from the root seed and that instance ([`nested_seed`]), so two uses of one subrecipe
//! emit distinct objects, each stable whatever else changes. The child runs with the same
//! executor (serial or parallel alike, so both give the same bytes), its stages keyed by its
//! instance, without a cache of its own: the subrecipe stage is cached as a whole, by a key
//! holding the child's content digest and the digests of the products bound to its inputs. The
//! child's stages ride along in the stage's provenance ([`NestedRun`]), so an object's parent
//! chain and path of recipes resolve inside it ([`identity_in`]). Author overrides name a
//! recipe's own stages: a child run applies none.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::cache::{CachedStage, StageCache};
use super::executor::{Done, Run};
use super::{GenerateRequest, NoObserver};
use crate::content::encode::ByteWriter;
use crate::content::{NestedRun, NestedStage, Product, StageProvenance};
use crate::generate::FailureKind;
use crate::identity::{ChildKey, ObjectIdentity, RecipeInstanceId, StageId};
use crate::ops::registry::{derive_object, StageError};
use crate::overrides::Overrides;
use crate::recipe::subrecipe::nested_instance;
use crate::recipe::{CompiledPlan, CompiledStage, InputSource, Subrecipe};

/// Where a run sits: its instance, the recipes from the root down to it, and the products its
/// user bound to its `Product(…)` inputs (none for the root).
#[derive(Debug, Clone)]
pub struct Outer {
    /// The run's recipe instance (the root recipe's id at the root).
    pub instance: String,
    /// Recipe ids from the root down to this run's recipe.
    pub recipes: Vec<String>,
    /// Bound inputs by name: the user's stage id and its finished product.
    pub inputs: BTreeMap<String, (u32, Arc<CachedStage>)>,
}

impl Outer {
    /// The root run of `plan`.
    pub fn root(plan: &CompiledPlan) -> Outer {
        Outer {
            instance: plan.recipe_id().to_owned(),
            recipes: vec![plan.recipe_id().to_owned()],
            inputs: BTreeMap::new(),
        }
    }

    /// The product bound to input `name`, with the user's stage that made it.
    pub fn input(&self, name: &str) -> Option<(u32, &Arc<CachedStage>)> {
        self.inputs.get(name).map(|(stage, cached)| (*stage, cached))
    }
}

/// The root seed of a child run of instance `instance` under `root_seed`.
pub fn nested_seed(root_seed: u64, instance: &str) -> u64 {
    let mut w = ByteWriter::tagged(b"SUBSEED1");
    w.u64(root_seed).str(instance);
    let digest = w.digest();
    let mut word = [0u8; 8];
    word.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(word)
}

/// Runs subrecipe `stage` of `run`: the child's plan with its inputs bound, returning the
/// published output's product with the child run in its provenance.
pub(super) fn run_subrecipe(
    run: &Run<'_>,
    stage: &CompiledStage,
    subrecipe: &Subrecipe,
    done: &Done,
) -> Result<CachedStage, StageError> {
    let instance = nested_instance(&run.outer.instance, stage.id(), &subrecipe.recipe_id);
    let mut inputs = BTreeMap::new();
    for (name, bound) in subrecipe.binds.iter().zip(stage.inputs()) {
        let InputSource::Stage(id) = bound.source else {
            continue;
        };
        let Some((_, cached)) = done.get(&id) else {
            return Err(StageError::new(
                FailureKind::DependencyFailure,
                None,
                format!("stage {id} has no product"),
            ));
        };
        inputs.insert(name.clone(), (id, Arc::clone(cached)));
    }
    let mut recipes = run.outer.recipes.clone();
    recipes.push(subrecipe.recipe_id.clone());
    let outer = Outer {
        instance,
        recipes,
        inputs,
    };
    let request = GenerateRequest {
        root_seed: nested_seed(run.request.root_seed, &outer.instance),
        ..*run.request
    };
    let child = Run {
        plan: &subrecipe.plan,
        request: &request,
        overrides: &Overrides::none(),
        cancel: run.cancel,
        observer: &NoObserver,
        outer: &outer,
    };
    let generated = child
        .execute(&mut StageCache::new(0))
        .map_err(|error| child_failure(subrecipe, &error))?;
    let bundle = &generated.bundle;
    let Some(published) = bundle.stage(subrecipe.output) else {
        return Err(StageError::new(
            FailureKind::InvalidInput,
            None,
            format!(
                "subrecipe `{}` did not publish stage {}",
                subrecipe.recipe_id, subrecipe.output
            ),
        ));
    };
    let nested = NestedRun {
        instance: outer.instance,
        recipes: outer.recipes,
        output: subrecipe.output,
        stages: bundle
            .stages
            .iter()
            .map(|record| NestedStage {
                stage: record.stage,
                product: Arc::clone(&record.product),
                provenance: Arc::clone(&record.provenance),
            })
            .collect(),
    };
    let provenance = StageProvenance {
        nested: Some(Arc::new(nested)),
        ..(*published.provenance).clone()
    };
    Ok(CachedStage {
        product: Arc::clone(&published.product),
        provenance: Arc::new(provenance),
        digest: published.digest,
        summary: published.summary,
    })
}

/// The failure of a child run as the subrecipe stage's: the first failure's kind, every
/// failure's words prefixed with the child's id.
fn child_failure(subrecipe: &Subrecipe, error: &super::GenerateError) -> StageError {
    let kind = error
        .failures
        .first()
        .map_or(FailureKind::InvalidInput, |f| f.kind);
    StageError::new(
        kind,
        None,
        format!("subrecipe `{}`: {error}", subrecipe.recipe_id),
    )
}

/// One stage as identity resolution sees it: its product and provenance.
pub(super) type StageLookup<'a> = dyn Fn(u32) -> Option<(&'a Product, &'a StageProvenance)> + 'a;

/// The identity of object `key` of stage `stage` in instance `instance`, whose stages `lookup`
/// gives: inside the child run when the stage is a subrecipe stage, with the parent chain
/// resolved in the same instance.
pub(super) fn identity_in<'a>(
    instance: &str,
    lookup: &StageLookup<'a>,
    stage: u32,
    key: &ChildKey,
) -> Option<ObjectIdentity> {
    let (product, provenance) = lookup(stage)?;
    if let Some(nested) = &provenance.nested {
        let inner = |id: u32| {
            nested
                .stage(id)
                .map(|s| (s.product.as_ref(), s.provenance.as_ref()))
        };
        return identity_in(&nested.instance, &inner, nested.output, key);
    }
    let record = match provenance.object(key) {
        Some(record) => record.clone(),
        None => derive_object(product, provenance.derived.as_ref()?, key)?,
    };
    let parent = match &record.parent {
        Some(parent) => Some(Box::new(identity_in(
            instance,
            lookup,
            parent.stage,
            &parent.key,
        )?)),
        None => None,
    };
    Some(ObjectIdentity {
        recipe_instance: RecipeInstanceId(instance.to_owned()),
        parent,
        stage: StageId(stage),
        child_key: key.clone(),
    })
}
