//! Recipe → [`CompiledPlan`]: check the structure, resolve operators, bind inputs to typed ports,
//! check and type the parameters against each operator's schema, then order and seal the stages.
//!
//! Every problem becomes a [`Diagnostic`] naming the stage id and the field, placed on the recipe's
//! source line when its syntax tree is given. Checks, in order: the structural rules
//! ([`super::structure`]); per stage the operator and version, each input (a kind a free port
//! accepts, [`super::bind`]), required ports, and the parameters (unknown, wrong type, out of
//! range, missing, cross-field rules); then, in execution order, each operator's rules across its
//! inputs (a family's variants, an upstream product's outline) and the capacity ceilings
//! ([`super::seal`]). A plan is returned only when there is no error.
//!
//! Execution order is ascending (depth, stage id), where depth is the longest chain of stage inputs
//! below a stage; it is total and independent of how the stages are listed in the file.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::bind::bind_ports;
use super::libraries::resolve_libraries;
use super::plan::{BoundInput, CompiledPlan, InputSource};
use super::report::{stage_path, RecipeSource, Reporter};
use super::seal::{order_and_seal, Resolved};
use super::structure::check_structure;
use super::subrecipe::{input_kind, Nesting, SubrecipeCx, SUBRECIPE_OPERATOR};
use super::subrecipe_output::{self, SUBRECIPE_OUTPUT_OPERATOR};
use crate::content::{FamilyData, FamilyVariant};
use crate::ops::registry::{OperatorDescriptor, PortKind, Registry};
use crate::project::chunk_library::ChunkLibrary;
use crate::project::node::Node;
use crate::project::{AssetFamily, Diagnostic, FieldPath, Recipe, RecipeInput, Stage, StageInput};

/// The result of compiling: a plan when there is no error, and every diagnostic.
#[derive(Debug, Clone, Default)]
pub struct CompileOutcome {
    /// The plan, present exactly when no diagnostic is an error.
    pub plan: Option<CompiledPlan>,
    /// Errors and warnings, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

/// Compiles `recipe` against `registry`, resolving family inputs in `families` (a project without
/// chunk libraries: see [`compile_with`]).
pub fn compile(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    registry: &Registry,
    source: RecipeSource<'_>,
) -> CompileOutcome {
    compile_with(recipe, families, &BTreeMap::new(), registry, source)
}

/// Compiles `recipe` against `registry`, resolving family inputs in `families` and chunk-library
/// parameters in `libraries` (the project's `chunks/` files by id). A `subrecipe` stage needs the
/// project's recipes: see [`compile_in`].
pub fn compile_with(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    libraries: &BTreeMap<String, ChunkLibrary>,
    registry: &Registry,
    source: RecipeSource<'_>,
) -> CompileOutcome {
    let docs = ProjectDocs {
        families,
        libraries,
        recipes: None,
        trees: None,
    };
    compile_in(recipe, docs, registry, source)
}

/// Compiles `recipe` of a project whose documents are `docs`: families, chunk libraries and the
/// recipes its `subrecipe` stages run (each compiled in turn, at most
/// [`MAX_SUBRECIPE_DEPTH`](super::limits::MAX_SUBRECIPE_DEPTH) levels deep, cycles refused).
pub fn compile_in(
    recipe: &Recipe,
    docs: ProjectDocs<'_>,
    registry: &Registry,
    source: RecipeSource<'_>,
) -> CompileOutcome {
    let nesting = Nesting::root(&recipe.id);
    compile_nested(recipe, docs, registry, source, &nesting)
}

/// [`compile_in`] for a recipe reached through the subrecipe stages of `nesting`.
pub(super) fn compile_nested(
    recipe: &Recipe,
    docs: ProjectDocs<'_>,
    registry: &Registry,
    source: RecipeSource<'_>,
    nesting: &Nesting<'_>,
) -> CompileOutcome {
    let mut r = Reporter::new(source);
    if !check_structure(recipe, docs.families, &mut r) {
        return finish(r, None);
    }
    let mut resolved: BTreeMap<u32, Resolved> = BTreeMap::new();
    for (index, stage) in recipe.stages.iter().enumerate() {
        // After every other stage: it reads the child run of a subrecipe stage resolved here.
        if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
            continue;
        }
        let found = if stage.operator == SUBRECIPE_OPERATOR {
            let cx = SubrecipeCx {
                recipe,
                docs,
                registry,
                nesting,
            };
            cx.resolve(index, &mut r)
        } else {
            resolve_stage(recipe, index, docs, registry, &mut r)
        };
        if let Some(resolved_stage) = found {
            resolved.insert(stage.id, resolved_stage);
        }
    }
    for (index, stage) in recipe.stages.iter().enumerate() {
        if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
            if let Some(found) = subrecipe_output::resolve(recipe, index, &resolved, &mut r) {
                resolved.insert(stage.id, found);
            }
        }
    }
    if r.has_errors() {
        return finish(r, None);
    }
    let plan = order_and_seal(recipe, resolved, registry.memory_budget_bytes(), &mut r);
    finish(r, plan)
}

fn finish(r: Reporter<'_>, plan: Option<CompiledPlan>) -> CompileOutcome {
    let diagnostics = r.finish();
    let plan = plan.filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    CompileOutcome { plan, diagnostics }
}

/// What a recipe may read from its project besides itself.
#[derive(Clone, Copy)]
pub struct ProjectDocs<'a> {
    /// Asset families by id.
    pub families: &'a BTreeMap<String, AssetFamily>,
    /// Chunk libraries by id.
    pub libraries: &'a BTreeMap<String, ChunkLibrary>,
    /// The project's recipes by id, for `subrecipe` stages (`None`: such a stage is an error).
    pub recipes: Option<&'a BTreeMap<String, Recipe>>,
    /// The syntax trees of the project's files, to place a subrecipe's first error.
    pub trees: Option<&'a BTreeMap<String, Node>>,
}

/// Resolves one stage's operator, binds its inputs and checks its parameters. Inputs naming
/// something missing were reported by the structural rules and are skipped here.
fn resolve_stage(
    recipe: &Recipe,
    index: usize,
    project: ProjectDocs<'_>,
    registry: &Registry,
    r: &mut Reporter<'_>,
) -> Option<Resolved> {
    let stage = &recipe.stages[index];
    let path = stage_path(index);
    let operator = resolve_operator(recipe, index, registry, r)?;
    let kinds: Vec<_> = stage
        .inputs
        .iter()
        .map(|input| input_kind(recipe, project, registry, input))
        .collect();
    let binding = bind_ports(operator.inputs, &kinds);
    let stage_binding = StageBinding {
        recipe,
        stage,
        operator: &operator,
        families: project.families,
    };
    let mut bound: Vec<BoundInput> = Vec::new();
    let mut ports: Vec<(&'static str, usize)> = Vec::new();
    let mut ok = true;
    for (slot, input) in stage.inputs.iter().enumerate() {
        let input_path = path.field("inputs").index(slot);
        // A missing or unresolved source has its own diagnostic (structural, or its stage's).
        let Some(source) = stage_binding.input_source(input, kinds[slot], &input_path, r) else {
            ok = false;
            continue;
        };
        match binding[slot].and_then(|port| operator.inputs.get(port)) {
            Some(port) => {
                ports.push((port.name, slot));
                bound.push(BoundInput {
                    port: port.name,
                    source,
                });
            }
            None => {
                stage_binding.report_unbound_input(input, kinds[slot], input_path, r);
                ok = false;
            }
        }
    }
    if ok && stage_binding.report_missing_required_port(&bound, &path, r) {
        ok = false;
    }
    let param_set = match resolve_libraries(&operator, &stage.parameters, project.libraries)
        .and_then(|given| operator.check_params(&given))
    {
        Ok(set) => set,
        Err(problems) => {
            r.param_problems(index, stage, &ports, problems);
            return None;
        }
    };
    let port_names: Vec<&'static str> = bound.iter().map(|b| b.port).collect();
    let params = match (operator.decode)(&param_set, &port_names) {
        Ok(params) => {
            r.param_warnings(index, stage, &ports, (operator.lint)(&param_set));
            params
        }
        Err(problems) => {
            r.param_problems(index, stage, &ports, problems);
            return None;
        }
    };
    bound.sort_by_key(|b| operator.inputs.iter().position(|p| p.name == b.port));
    ok.then_some(Resolved {
        index,
        output: operator.output,
        operator,
        params,
        param_set,
        inputs: bound,
        ports,
        subrecipe: None,
    })
}

/// One stage whose inputs are being bound to its operator's ports.
struct StageBinding<'a> {
    recipe: &'a Recipe,
    stage: &'a Stage,
    operator: &'a OperatorDescriptor,
    families: &'a BTreeMap<String, AssetFamily>,
}

impl StageBinding<'_> {
    /// What `input` reads (`kind` is its port kind, `None` when unresolved); `None` when it
    /// names nothing or a literal value (reported here: no port accepts one).
    fn input_source(
        &self,
        input: &StageInput,
        kind: Option<PortKind>,
        input_path: &FieldPath,
        r: &mut Reporter<'_>,
    ) -> Option<InputSource> {
        let (stage, operator) = (self.stage, self.operator);
        match input {
            StageInput::Named(name) => match self.recipe.inputs.get(name) {
                Some(RecipeInput::Value(_)) => {
                    r.error(
                        input_path.clone(),
                        format!(
                            "stage {} reads input `{name}`, a literal value, which no port of `{}` accepts",
                            stage.id, operator.id
                        ),
                        ports_text(operator),
                    );
                    None
                }
                Some(RecipeInput::Family(id)) => {
                    self.families.get(id).map(|family| InputSource::Family {
                        input: name.clone(),
                        family: Arc::new(family_data(family)),
                    })
                }
                Some(RecipeInput::Product(_)) => kind.map(|_| InputSource::Outer {
                    input: name.clone(),
                }),
                None => None,
            },
            StageInput::Stage(id) => kind.map(|_| InputSource::Stage(*id)),
        }
    }

    /// Reports an input no free port of the operator accepts.
    fn report_unbound_input(
        &self,
        input: &StageInput,
        kind: Option<PortKind>,
        input_path: FieldPath,
        r: &mut Reporter<'_>,
    ) {
        let (kind, shown) = match input {
            StageInput::Named(name) => (
                kind.map_or("Family", |k| k.name()),
                format!("input `{name}`"),
            ),
            StageInput::Stage(id) => (kind.map_or("product", |k| k.name()), format!("stage {id}")),
        };
        r.error(
            input_path,
            format!(
                "stage {}: {shown} is a {kind}, but `{}` has no free input port of that type",
                self.stage.id, self.operator.id
            ),
            ports_text(self.operator),
        );
    }

    /// Reports the first required port nothing is bound to; whether there was one.
    fn report_missing_required_port(
        &self,
        bound: &[BoundInput],
        path: &FieldPath,
        r: &mut Reporter<'_>,
    ) -> bool {
        let Some(port) = self
            .operator
            .inputs
            .iter()
            .filter(|p| p.required)
            .find(|port| !bound.iter().any(|b| b.port == port.name))
        else {
            return false;
        };
        r.error(
            path.field("inputs"),
            format!(
                "stage {} is missing its `{}` input ({})",
                self.stage.id,
                port.name,
                port.kind.name()
            ),
            format!(
                "an input of type {} for port `{}`",
                port.kind.name(),
                port.name
            ),
        );
        true
    }
}

/// The operator of stage `index`, or a diagnostic naming the registered operators or versions.
fn resolve_operator(
    recipe: &Recipe,
    index: usize,
    registry: &Registry,
    r: &mut Reporter<'_>,
) -> Option<OperatorDescriptor> {
    let stage = &recipe.stages[index];
    if let Some(operator) = registry.get(&stage.operator, stage.algorithm) {
        return Some(*operator);
    }
    let path = stage_path(index);
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
    None
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
                sockets: v.sockets.clone(),
            })
            .collect(),
    }
}
