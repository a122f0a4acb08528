//! The sealed compiled plan: typed stages in execution order with bound inputs and checked,
//! typed parameters. Only [`super::compile`] builds one, so a plan in hand is always valid.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::content::{FamilyData, ProductKind};
use crate::ops::registry::{Capacity, OperatorDescriptor, Outline, ParamSet, StageParams};

/// Where a bound input comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum InputSource {
    /// An asset family named by a recipe input (resolved at compile time).
    Family {
        /// The recipe input's name.
        input: String,
        /// The family's generation data.
        family: Arc<FamilyData>,
    },
    /// The product of another stage.
    Stage(u32),
    /// A product the using recipe binds to this recipe's `Product(…)` input (a subrecipe's
    /// input; unbound when the recipe runs on its own).
    Outer {
        /// The recipe input's name.
        input: String,
    },
}

/// One input of a compiled stage, bound to a port.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundInput {
    /// The port it is bound to.
    pub port: &'static str,
    /// Its source.
    pub source: InputSource,
}

/// One stage of a compiled plan.
#[derive(Debug, Clone)]
pub struct CompiledStage {
    pub(super) id: u32,
    pub(super) label: String,
    pub(super) operator: OperatorDescriptor,
    pub(super) params: StageParams,
    pub(super) param_set: ParamSet,
    pub(super) param_bytes: Vec<u8>,
    pub(super) inputs: Vec<BoundInput>,
    pub(super) depth: u32,
    pub(super) capacity: Capacity,
    pub(super) outline: Outline,
    /// The packed `(room, layer)` scopes its objects' identities use.
    pub(super) scopes: Vec<(u32, u32)>,
    /// The product kind it publishes (its operator's, or its subrecipe's chosen output's).
    pub(super) output: ProductKind,
    /// The recipe it runs, for a `subrecipe` stage.
    pub(super) subrecipe: Option<Arc<Subrecipe>>,
}

/// What a `subrecipe` stage runs: another recipe's compiled plan, which of the stage's inputs
/// feeds which of its `Product(…)` inputs, and which of its outputs the stage publishes.
#[derive(Debug, Clone)]
pub struct Subrecipe {
    /// The child recipe's id.
    pub recipe_id: String,
    /// The child's compiled plan.
    pub plan: CompiledPlan,
    /// The child's `Product(…)` inputs, in the stage's input order.
    pub binds: Vec<String>,
    /// The child's output stage the stage publishes.
    pub output: u32,
    /// For a `subrecipe.output` stage: the subrecipe stage whose child run it republishes
    /// another output of (the child is not run again); `None` for the stage that runs it.
    pub run_by: Option<u32>,
    /// BLAKE3 over the child's canonical text and, recursively, its own subrecipes' digests: it
    /// enters the stage's cache key, so editing the child (or a grandchild) re-runs the stage.
    pub content_digest: [u8; 32],
}

impl CompiledStage {
    /// The persistent stage id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The packed `(room, layer)` scopes its objects' identities use (see
    /// `ops::registry::ScopesFn`).
    pub fn scopes(&self) -> &[(u32, u32)] {
        &self.scopes
    }

    /// The display label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The operator descriptor the stage resolved to.
    pub fn operator(&self) -> &OperatorDescriptor {
        &self.operator
    }

    /// The typed parameters.
    pub fn params(&self) -> &StageParams {
        &self.params
    }

    /// The checked parameters with defaults filled in, by name.
    pub fn param_set(&self) -> &ParamSet {
        &self.param_set
    }

    /// The canonical encoding of the checked parameters (part of the stage's cache key).
    pub fn param_bytes(&self) -> &[u8] {
        &self.param_bytes
    }

    /// The bound inputs, in port order.
    pub fn inputs(&self) -> &[BoundInput] {
        &self.inputs
    }

    /// What the operator says the product will hold (routes, scatter areas, keep-outs).
    pub fn outline(&self) -> &Outline {
        &self.outline
    }

    /// The ids of the stages this one reads, ascending.
    pub fn dependencies(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .inputs
            .iter()
            .filter_map(|input| match input.source {
                InputSource::Stage(id) => Some(id),
                InputSource::Family { .. } | InputSource::Outer { .. } => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Longest path from a stage without stage inputs (those have depth 0).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The output's product kind.
    pub fn output(&self) -> ProductKind {
        self.output
    }

    /// The recipe a `subrecipe` stage runs (`None` for an operator's stage).
    pub fn subrecipe(&self) -> Option<&Arc<Subrecipe>> {
        self.subrecipe.as_ref()
    }

    /// The estimated upper bound of what the stage produces.
    pub fn capacity(&self) -> Capacity {
        self.capacity
    }
}

/// A compiled recipe: stages in execution order — ascending (depth, stage id) — so stages of one
/// depth never read each other and may run in parallel.
#[derive(Debug, Clone)]
pub struct CompiledPlan {
    pub(super) recipe_id: String,
    pub(super) address_schema: u32,
    pub(super) source_digest: [u8; 32],
    pub(super) stages: Vec<CompiledStage>,
    pub(super) outputs: Vec<u32>,
}

impl CompiledPlan {
    /// The recipe id (the recipe instance).
    pub fn recipe_id(&self) -> &str {
        &self.recipe_id
    }

    /// The address schema version the stages draw under.
    pub fn address_schema(&self) -> u32 {
        self.address_schema
    }

    /// BLAKE3 of the recipe's canonical text (provenance of the whole source).
    pub fn source_digest(&self) -> [u8; 32] {
        self.source_digest
    }

    /// The stages in execution order.
    pub fn stages(&self) -> &[CompiledStage] {
        &self.stages
    }

    /// The stage with id `id`.
    pub fn stage(&self, id: u32) -> Option<&CompiledStage> {
        self.stages.iter().find(|stage| stage.id == id)
    }

    /// The published stages, as authored.
    pub fn outputs(&self) -> &[u32] {
        &self.outputs
    }

    /// Every pedestrian route id the plan's stages publish, by their operators' outlines, sorted.
    pub fn routes(&self) -> BTreeSet<String> {
        self.stages
            .iter()
            .flat_map(|stage| stage.outline.routes.iter().cloned())
            .collect()
    }

    /// Every vehicle lane id the plan's stages publish, by their operators' outlines, sorted.
    pub fn lanes(&self) -> BTreeSet<String> {
        self.stages
            .iter()
            .flat_map(|stage| stage.outline.lanes.iter().cloned())
            .collect()
    }

    /// Every asset family its stages read, by id — a subrecipe stage's child's too, so a
    /// cooked manifest records the whole dependency closure.
    pub fn families(&self) -> std::collections::BTreeMap<String, Arc<FamilyData>> {
        let mut found = std::collections::BTreeMap::new();
        for stage in &self.stages {
            for input in &stage.inputs {
                if let InputSource::Family { family, .. } = &input.source {
                    found.insert(family.id.clone(), Arc::clone(family));
                }
            }
            if let Some(sub) = &stage.subrecipe {
                found.extend(sub.plan.families());
            }
        }
        found
    }

    /// The stages grouped by depth, each group in ascending id.
    pub fn levels(&self) -> Vec<&[CompiledStage]> {
        self.stages.chunk_by(|a, b| a.depth == b.depth).collect()
    }

    /// The stages that read `id`, directly or through others, ascending.
    pub fn dependents(&self, id: u32) -> Vec<u32> {
        let mut found: Vec<u32> = Vec::new();
        // Execution order lists every reader after what it reads, so one pass suffices.
        for stage in &self.stages {
            let reads = stage.dependencies();
            if reads.iter().any(|dep| *dep == id || found.contains(dep)) {
                found.push(stage.id);
            }
        }
        found.sort_unstable();
        found
    }
}

impl CompiledPlan {
    /// The plan of its first `len` stages in execution order (serial stepping's plan up to a
    /// stage), or `None` when `len` is 0 or past the plan. Execution order lists every stage after
    /// what it reads, so a prefix is a plan on its own; its outputs are the plan's outputs within
    /// it, then its last stage (the stepped-to one) when that is not among them.
    pub fn prefix(&self, len: usize) -> Option<CompiledPlan> {
        let stages = self.stages.get(..len).filter(|s| !s.is_empty())?.to_vec();
        let within = |id: &u32| stages.iter().any(|s| s.id == *id);
        let mut outputs: Vec<u32> = self.outputs.iter().copied().filter(within).collect();
        let last = stages.last().map(|s| s.id)?;
        if !outputs.contains(&last) {
            outputs.push(last);
        }
        Some(CompiledPlan {
            recipe_id: self.recipe_id.clone(),
            address_schema: self.address_schema,
            source_digest: self.source_digest,
            stages,
            outputs,
        })
    }
}
