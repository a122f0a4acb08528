//! Recipe → [`CompiledPlan`]: resolve operators, bind inputs to typed ports, check and type the
//! parameters against each operator's schema, order the stages, bound their capacity.
//!
//! Every problem becomes a [`Diagnostic`] naming the stage id and the field, placed on the recipe's
//! source line when its syntax tree is given. Checks, in order: address schema; stage and edge
//! limits; duplicate ids; per stage the operator and version, each input (exists, has a kind a
//! free port accepts), required ports, and the parameters (unknown, wrong type, out of range,
//! missing, cross-field rules); outputs; cycles; capacity ceilings; then warnings for products
//! and recipe inputs nothing uses. A plan is returned only when there is no error.
//!
//! Ports are bound in input order: each input takes the first still-free port (in the operator's
//! port order) that accepts its kind. Execution order is ascending (depth, stage id), where depth
//! is the longest chain of stage inputs below a stage; it is total and independent of how the
//! stages are listed in the file.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::plan::{BoundInput, CompiledPlan, InputSource};
use super::seal::order_and_seal;
use crate::content::{FamilyData, FamilyVariant};
use crate::ops::registry::{
    OperatorDescriptor, ParamProblem, ParamSet, PortKind, Registry, StageParams,
};
use crate::project::node::{Locator, Node};
use crate::project::validate::{find_cycle, MAX_EDGES, MAX_STAGES};
use crate::project::{
    AssetFamily, Diagnostic, FieldPath, Recipe, RecipeInput, Severity, StageInput,
};

/// The address schema versions the engine implements.
pub const SUPPORTED_ADDRESS_SCHEMAS: [u32; 1] = [1];
/// Most candidates one stage may evaluate, by its capacity estimate.
pub const MAX_STAGE_CANDIDATES: u64 = 1 << 24;
/// Most objects one plan may produce, by its capacity estimates.
pub const MAX_PLAN_OBJECTS: u64 = 1 << 26;

/// Where a recipe came from, for placing diagnostics.
#[derive(Debug, Clone, Copy)]
pub struct RecipeSource<'a> {
    /// The recipe's file, relative to the project folder.
    pub file: &'a str,
    /// Its syntax tree, if it parsed.
    pub tree: Option<&'a Node>,
}

/// The result of compiling: a plan when there is no error, and every diagnostic.
#[derive(Debug, Clone, Default)]
pub struct CompileOutcome {
    /// The plan, present exactly when no diagnostic is an error.
    pub plan: Option<CompiledPlan>,
    /// Errors and warnings, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

pub(super) struct Reporter<'a> {
    source: RecipeSource<'a>,
    diagnostics: Vec<Diagnostic>,
    /// The tree's path index, built at the first diagnostic.
    locator: Option<Locator>,
}

impl Reporter<'_> {
    pub(super) fn push(
        &mut self,
        severity: Severity,
        path: FieldPath,
        message: String,
        expected: String,
    ) {
        let (line, column) = match self.source.tree {
            Some(tree) => {
                let locator = self.locator.get_or_insert_with(|| Locator::new(tree));
                let span = locator.deepest_at(tree, &path).span;
                (span.line, span.column)
            }
            None => (1, 1),
        };
        self.diagnostics.push(Diagnostic {
            severity,
            file: self.source.file.to_owned(),
            line,
            column,
            path,
            message,
            expected,
        });
    }

    pub(super) fn error(&mut self, path: FieldPath, message: String, expected: impl Into<String>) {
        self.push(Severity::Error, path, message, expected.into());
    }

    fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

pub(super) fn stage_path(index: usize) -> FieldPath {
    FieldPath::root().field("stages").index(index)
}

/// A stage after operator resolution and port binding, before ordering.
pub(super) struct Resolved {
    pub(super) index: usize,
    pub(super) operator: OperatorDescriptor,
    pub(super) params: StageParams,
    pub(super) param_set: ParamSet,
    pub(super) inputs: Vec<BoundInput>,
}

/// Compiles `recipe` against `registry`, resolving family inputs in `families`.
pub fn compile(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
    source: RecipeSource<'_>,
) -> CompileOutcome {
    let mut r = Reporter {
        source,
        diagnostics: Vec::new(),
        locator: None,
    };
    if !SUPPORTED_ADDRESS_SCHEMAS.contains(&recipe.address_schema) {
        r.error(
            FieldPath::root().field("address_schema"),
            format!("address schema {} is not supported", recipe.address_schema),
            "address schema 1",
        );
    }
    if recipe.stages.len() > MAX_STAGES {
        r.error(
            FieldPath::root().field("stages"),
            format!(
                "recipe has {} stages, over the limit of {MAX_STAGES}",
                recipe.stages.len()
            ),
            format!("at most {MAX_STAGES} stages"),
        );
    }
    let edges: usize = recipe.stages.iter().map(|s| s.inputs.len()).sum();
    if edges > MAX_EDGES {
        r.error(
            FieldPath::root().field("stages"),
            format!("recipe has {edges} edges, over the limit of {MAX_EDGES}"),
            format!("at most {MAX_EDGES} stage inputs in all"),
        );
    }
    let mut indices: BTreeMap<u32, usize> = BTreeMap::new();
    for (index, stage) in recipe.stages.iter().enumerate() {
        if indices.insert(stage.id, index).is_some() {
            r.error(
                stage_path(index).field("id"),
                format!("duplicate stage id {}", stage.id),
                "each stage id at most once",
            );
        }
    }
    if r.has_errors() {
        return finish(r, None);
    }
    // Output kinds of the stages whose operator resolves, for typing stage inputs.
    let outputs: BTreeMap<u32, PortKind> = recipe
        .stages
        .iter()
        .filter_map(|s| {
            registry
                .get(&s.operator, s.algorithm)
                .map(|d| (s.id, PortKind::Product(d.output)))
        })
        .collect();
    let mut resolved: BTreeMap<u32, Resolved> = BTreeMap::new();
    for (index, stage) in recipe.stages.iter().enumerate() {
        if let Some(resolved_stage) =
            resolve_stage(recipe, index, families, registry, &outputs, &mut r)
        {
            resolved.insert(stage.id, resolved_stage);
        }
    }
    let mut seen_outputs = BTreeSet::new();
    for (index, output) in recipe.outputs.iter().enumerate() {
        let path = FieldPath::root().field("outputs").index(index);
        if !indices.contains_key(output) {
            r.error(
                path,
                format!("output names the missing stage {output}"),
                "the id of a stage of the recipe",
            );
        } else if !seen_outputs.insert(*output) {
            r.error(
                path,
                format!("duplicate output {output}"),
                "each output at most once",
            );
        }
    }
    if recipe.outputs.is_empty() {
        r.error(
            FieldPath::root().field("outputs"),
            "recipe publishes no output".to_owned(),
            "at least one stage id in `outputs`",
        );
    }
    if let Some(cycle) = find_cycle(recipe) {
        let index = cycle
            .first()
            .and_then(|id| indices.get(id))
            .copied()
            .unwrap_or(0);
        let chain: Vec<String> = cycle
            .iter()
            .chain(cycle.first())
            .map(u32::to_string)
            .collect();
        r.error(
            stage_path(index).field("inputs"),
            format!("stage graph has a cycle: {}", chain.join(" → ")),
            "stages that read only stages before them in the graph (no cycles)",
        );
    }
    warn_unused(recipe, &mut r);
    if r.has_errors() {
        return finish(r, None);
    }
    let plan = order_and_seal(recipe, resolved, &mut r);
    finish(r, plan)
}

fn finish(mut r: Reporter<'_>, plan: Option<CompiledPlan>) -> CompileOutcome {
    r.diagnostics.sort();
    r.diagnostics.dedup();
    let plan = plan.filter(|_| !r.has_errors());
    CompileOutcome {
        plan,
        diagnostics: r.diagnostics,
    }
}

/// Resolves one stage's operator, binds its inputs and checks its parameters.
fn resolve_stage(
    recipe: &Recipe,
    index: usize,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
    outputs: &BTreeMap<u32, PortKind>,
    r: &mut Reporter<'_>,
) -> Option<Resolved> {
    let stage = &recipe.stages[index];
    let path = stage_path(index);
    let Some(operator) = registry.get(&stage.operator, stage.algorithm).copied() else {
        let versions = registry.versions(&stage.operator);
        if versions.is_empty() {
            let known: Vec<&str> = registry
                .operators()
                .map(|d| d.id)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            r.error(
                path.field("operator"),
                format!(
                    "stage {} uses the unknown operator `{}`",
                    stage.id, stage.operator
                ),
                format!("a registered operator: {}", known.join(", ")),
            );
        } else {
            let list: Vec<String> = versions.iter().map(u32::to_string).collect();
            r.error(
                path.field("algorithm"),
                format!(
                    "stage {}: operator `{}` has no algorithm version {}",
                    stage.id, stage.operator, stage.algorithm
                ),
                format!("one of the registered versions: {}", list.join(", ")),
            );
        }
        return None;
    };
    let mut bound: Vec<BoundInput> = Vec::new();
    let mut ok = true;
    for (slot, input) in stage.inputs.iter().enumerate() {
        let input_path = path.field("inputs").index(slot);
        let (kind, source, shown) = match input {
            StageInput::Named(name) => match recipe.inputs.get(name) {
                None => {
                    r.error(
                        input_path,
                        format!("stage {} reads the missing input `{name}`", stage.id),
                        "the name of one of the recipe's `inputs`",
                    );
                    ok = false;
                    continue;
                }
                Some(RecipeInput::Value(_)) => {
                    r.error(
                        input_path,
                        format!(
                            "stage {} reads input `{name}`, a literal value, which no port of `{}` accepts",
                            stage.id, operator.id
                        ),
                        ports_text(&operator),
                    );
                    ok = false;
                    continue;
                }
                Some(RecipeInput::Family(id)) => match families.get(id) {
                    Some(family) => (
                        PortKind::Family,
                        InputSource::Family {
                            input: name.clone(),
                            family: Arc::new(family_data(family)),
                        },
                        format!("input `{name}`"),
                    ),
                    None => {
                        r.error(
                            FieldPath::root().field("inputs").key(name),
                            format!("input `{name}` names the missing asset family `{id}`"),
                            "the id of an asset family in the manifest's asset paths",
                        );
                        ok = false;
                        continue;
                    }
                },
            },
            StageInput::Stage(id) => match outputs.get(id) {
                Some(kind) => (*kind, InputSource::Stage(*id), format!("stage {id}")),
                None => {
                    // A missing stage is an error here; a stage whose operator did not resolve
                    // has its own diagnostic already.
                    if !recipe.stages.iter().any(|s| s.id == *id) {
                        r.error(
                            input_path,
                            format!("stage {} reads the missing stage {id}", stage.id),
                            "the id of another stage of the recipe",
                        );
                    }
                    ok = false;
                    continue;
                }
            },
        };
        let free = operator
            .inputs
            .iter()
            .find(|port| port.kind == kind && !bound.iter().any(|b| b.port == port.name));
        match free {
            Some(port) => bound.push(BoundInput {
                port: port.name,
                source,
            }),
            None => {
                r.error(
                    input_path,
                    format!(
                        "stage {}: {shown} is a {}, but `{}` has no free input port of that type",
                        stage.id,
                        kind.name(),
                        operator.id
                    ),
                    ports_text(&operator),
                );
                ok = false;
            }
        }
    }
    for port in operator.inputs.iter().filter(|p| p.required) {
        if ok && !bound.iter().any(|b| b.port == port.name) {
            r.error(
                path.field("inputs"),
                format!(
                    "stage {} is missing its `{}` input ({})",
                    stage.id,
                    port.name,
                    port.kind.name()
                ),
                format!(
                    "an input of type {} for port `{}`",
                    port.kind.name(),
                    port.name
                ),
            );
            ok = false;
        }
    }
    let report = |r: &mut Reporter<'_>, problems: Vec<ParamProblem>| {
        for problem in problems {
            let params_path = path.field("parameters");
            let target = if stage.parameters.contains_key(&problem.field) {
                params_path.key(&problem.field)
            } else {
                params_path
            };
            r.error(
                target,
                format!("stage {}: {}", stage.id, problem.message),
                problem.expected,
            );
        }
    };
    let param_set = match ParamSet::check(operator.params, &stage.parameters) {
        Ok(set) => set,
        Err(problems) => {
            report(r, problems);
            return None;
        }
    };
    let port_names: Vec<&'static str> = bound.iter().map(|b| b.port).collect();
    let params = match (operator.decode)(&param_set, &port_names) {
        Ok(params) => params,
        Err(problems) => {
            report(r, problems);
            return None;
        }
    };
    bound.sort_by_key(|b| operator.inputs.iter().position(|p| p.name == b.port));
    ok.then_some(Resolved {
        index,
        operator,
        params,
        param_set,
        inputs: bound,
    })
}

fn ports_text(operator: &OperatorDescriptor) -> String {
    if operator.inputs.is_empty() {
        return format!("no inputs: `{}` has no input ports", operator.id);
    }
    let ports: Vec<String> = operator
        .inputs
        .iter()
        .map(|p| format!("{}: {}", p.name, p.kind.name()))
        .collect();
    format!(
        "inputs matching the ports of `{}` ({})",
        operator.id,
        ports.join(", ")
    )
}

/// The generation data of an asset family.
pub fn family_data(family: &AssetFamily) -> FamilyData {
    FamilyData {
        id: family.id.clone(),
        variants: family
            .variants
            .iter()
            .map(|v| FamilyVariant {
                id: v.id.clone(),
                weight: v.weight,
                exclusion_radius: v.exclusion_radius,
                collision_radius_m: v.collision_radius_m,
                height_m: v.height_m,
            })
            .collect(),
    }
}

fn warn_unused(recipe: &Recipe, r: &mut Reporter<'_>) {
    let read: BTreeSet<u32> = recipe
        .stages
        .iter()
        .flat_map(|s| &s.inputs)
        .filter_map(|input| match input {
            StageInput::Stage(id) => Some(*id),
            StageInput::Named(_) => None,
        })
        .collect();
    for (index, stage) in recipe.stages.iter().enumerate() {
        if !read.contains(&stage.id) && !recipe.outputs.contains(&stage.id) {
            r.push(
                Severity::Warning,
                stage_path(index).field("id"),
                format!("the product of stage {} is not used", stage.id),
                "a stage that is an output or read by another stage".to_owned(),
            );
        }
    }
    let named: BTreeSet<&str> = recipe
        .stages
        .iter()
        .flat_map(|s| &s.inputs)
        .filter_map(|input| match input {
            StageInput::Named(name) => Some(name.as_str()),
            StageInput::Stage(_) => None,
        })
        .collect();
    for name in recipe.inputs.keys() {
        if !named.contains(name.as_str()) {
            // Same text as project validation, so `stagecraft check` shows it once.
            r.push(
                Severity::Warning,
                FieldPath::root().field("inputs").key(name),
                format!("input `{name}` is not read by any stage"),
                "every input to be read by a stage".to_owned(),
            );
        }
    }
}
