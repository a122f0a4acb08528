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
//! chain and path of recipes resolve inside it ([`identity_in`]). An author override reaches an
//! object of a child run by its `nested` path (`Overrides::child`): the child run applies it like
//! the recipe's own stage would, and its outcome is reported as the subrecipe stage's
//! (`overrides::stage::subrecipe_edits`); an edit naming the subrecipe stage itself is
//! `unsupported-stage`. A `subrecipe.output` stage republishes another output of the run a
//! subrecipe stage holds ([`republish`]) without running the child again.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::cache::{CachedStage, StageCache};
use super::executor::{Done, Run};
use super::{ExecutionMode, GenerateRequest, NoObserver};
use crate::content::encode::ByteWriter;
use crate::content::{NestedInput, NestedRun, NestedStage, Product, StageProvenance};
use crate::generate::FailureKind;
use crate::identity::{ChildKey, ObjectIdentity, RecipeInstanceId, StageId};
use crate::ops::registry::{derive_object, StageError};
use crate::recipe::subrecipe::{input_stage_id, nested_instance};
use crate::recipe::{CompiledPlan, CompiledStage, InputSource, Subrecipe};

/// Where a run sits: its instance, the recipes from the root down to it, and the products its
/// user bound to its `Product(…)` inputs (none for the root).
#[derive(Debug, Clone)]
pub struct Outer {
    /// The run's recipe instance (the root recipe's id at the root).
    pub instance: String,
    /// Recipe ids from the root down to this run's recipe.
    pub recipes: Vec<String>,
    /// Bound inputs by name: the stage id the run's kernels see for it, the user's stage and
    /// its finished product.
    pub inputs: BTreeMap<String, (NestedInput, Arc<CachedStage>)>,
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

    /// The product bound to input `name`, with the stage id the run's kernels see for it.
    pub fn input(&self, name: &str) -> Option<(u32, &Arc<CachedStage>)> {
        self.inputs
            .get(name)
            .map(|(input, cached)| (input.stage, cached))
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
    // The child's inputs in name order: the `index`-th is seen as `input_stage_id(index)`.
    let mut names: Vec<&String> = subrecipe.binds.iter().collect();
    names.sort();
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
        let index = names.iter().position(|n| *n == name).unwrap_or(0);
        let input = NestedInput {
            stage: input_stage_id(u32::try_from(index).unwrap_or(u32::MAX)),
            outer_stage: id,
        };
        inputs.insert(name.clone(), (input, Arc::clone(cached)));
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
    // The edits of objects of this child run (their `nested` path passes through the stage).
    let overrides = run.overrides.child(stage.id(), run.request.root_seed);
    let child = Run {
        plan: &subrecipe.plan,
        request: &request,
        overrides: &overrides,
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
        inputs: outer.inputs.values().map(|(input, _)| *input).collect(),
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

/// Runs a `subrecipe.output` stage: republishes output `subrecipe.output` of the child run
/// that subrecipe stage `running` holds (in its provenance), with that run in its provenance so
/// its objects resolve to the same nested instance. The child is not run again — unless the
/// running stage's product came from a cache that keeps no provenance (cooking's on-disk
/// cache): then its run is repeated, under the same instance and seed, so to the same products.
pub(super) fn republish(
    run: &Run<'_>,
    subrecipe: &Subrecipe,
    running: u32,
    done: &Done,
) -> Result<CachedStage, StageError> {
    let Some((_, cached)) = done.get(&running) else {
        return Err(StageError::new(
            FailureKind::DependencyFailure,
            None,
            format!("stage {running} has no product"),
        ));
    };
    let nested = match &cached.provenance.nested {
        Some(nested) => Arc::clone(nested),
        None => {
            let again = run
                .plan
                .stage(running)
                .and_then(|s| Some((s, s.subrecipe()?)))
                .map(|(s, sub)| run_subrecipe(run, s, sub, done))
                .transpose()?;
            again
                .and_then(|c| c.provenance.nested.clone())
                .ok_or_else(|| {
                    StageError::new(
                        FailureKind::DependencyFailure,
                        None,
                        format!("stage {running} holds no child run"),
                    )
                })?
        }
    };
    let Some(published) = nested.stage(subrecipe.output) else {
        return Err(StageError::new(
            FailureKind::InvalidInput,
            None,
            format!(
                "subrecipe `{}` run by stage {running} did not publish stage {}",
                subrecipe.recipe_id, subrecipe.output
            ),
        ));
    };
    let record = NestedRun {
        output: subrecipe.output,
        ..(*nested).clone()
    };
    // Edits of the child's objects were applied in the run and are reported by `running`.
    let provenance = StageProvenance {
        nested: Some(Arc::new(record)),
        edits: Vec::new(),
        edits_digest: None,
        ..(*published.provenance).clone()
    };
    let product = Arc::clone(&published.product);
    let (digest, summary) = match run.request.mode {
        ExecutionMode::Serial => (product.digest(), product.summary()),
        ExecutionMode::Parallel => rayon::join(|| product.digest_par(), || product.summary()),
    };
    Ok(CachedStage {
        product,
        provenance: Arc::new(provenance),
        digest,
        summary,
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
pub(super) type StageLookup<'f> = dyn Fn(u32) -> Option<(Arc<Product>, Arc<StageProvenance>)> + 'f;

/// The stages of one run, as identity resolution walks them: its instance, its stages and, for a
/// child run, its user's scope with the stage ids that stand for the user's stages.
pub(super) struct Scope<'s> {
    pub(super) instance: &'s str,
    pub(super) lookup: &'s StageLookup<'s>,
    pub(super) outer: Option<(&'s Scope<'s>, &'s [NestedInput])>,
}

/// The identity of object `key` of stage `stage` in `scope`: inside the child run when the stage
/// is a subrecipe stage; in the user's scope when `stage` stands for a product the user bound
/// (a placement's area in the user's street block); with its parent chain resolved alike.
pub(super) fn identity_in(scope: &Scope<'_>, stage: u32, key: &ChildKey) -> Option<ObjectIdentity> {
    if let Some((outer, inputs)) = scope.outer {
        if let Some(input) = inputs.iter().find(|i| i.stage == stage) {
            return identity_in(outer, input.outer_stage, key);
        }
    }
    let (product, provenance) = (scope.lookup)(stage)?;
    if let Some(nested) = &provenance.nested {
        let lookup = |id: u32| {
            nested
                .stage(id)
                .map(|s| (Arc::clone(&s.product), Arc::clone(&s.provenance)))
        };
        let inner = Scope {
            instance: &nested.instance,
            lookup: &lookup,
            outer: Some((scope, &nested.inputs)),
        };
        return identity_in(&inner, nested.output, key);
    }
    let record = match provenance.object(key) {
        Some(record) => record.clone(),
        None => derive_object(&product, provenance.derived.as_ref()?, key)?,
    };
    let parent = match &record.parent {
        Some(parent) => Some(Box::new(identity_in(scope, parent.stage, &parent.key)?)),
        None => None,
    };
    Some(ObjectIdentity {
        recipe_instance: RecipeInstanceId(scope.instance.to_owned()),
        parent,
        stage: StageId(stage),
        child_key: key.clone(),
    })
}
