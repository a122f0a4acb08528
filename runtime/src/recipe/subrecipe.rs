//! Subrecipes: a stage of operator `subrecipe` runs another recipe file of the project as one
//! stage, with explicit inputs and explicit outputs: it publishes one of the child's outputs, and
//! a `subrecipe.output` stage reading it republishes another from the same run
//! ([`super::subrecipe_output`]).
//!
//! ```ron
//! Stage(id: 10, operator: "subrecipe", algorithm: 1, inputs: [1], parameters: {
//!     "recipe": "recipes/sidewalk-props.recipe.ron", // the child, relative to the project
//!     "binds": ["block"],  // the child's `Product(…)` input each stage input feeds, in order
//!     "output": 3,         // which of the child's outputs the stage publishes (optional
//!                          // when it publishes one)
//! })
//! ```
//!
//! The child declares what it is given as `Product("StreetBlock")` inputs and reads nothing else
//! of its user: its families are its own inputs. Every such input is bound exactly once, by a
//! stage product of the same kind. The child is compiled here, recursively, at most
//! [`MAX_SUBRECIPE_DEPTH`] levels below the recipe being compiled; a recipe reaching itself through
//! subrecipes (across files) is refused, naming the cycle. Each problem is a located error at the
//! parent stage's field; a child that does not compile is reported with its first error (its own
//! file reports them all when it is checked on its own). Compiled children are remembered per
//! (recipe, level), so a recipe used many times is compiled once per level.
//!
//! The child's instance identity is nested in its user's: `<parent instance>/<stage id>:<child
//! id>` (`nested_instance`), and it draws under a seed derived from the root seed and that
//! instance (`generate::nested`), so two uses of one subrecipe emit distinct, stable objects. The
//! stage's cache key holds the child's content digest ([`Subrecipe::content_digest`]).
//!
//! Several outputs of one run: the stage's `output` is its primary product, unchanged by any
//! other use (bytes, key and digest stay those of a one-output recipe); each further output is a
//! `subrecipe.output` stage with its own stage id, whose [`Subrecipe::run_by`] names this stage,
//! keyed by this stage's whole key and the output id, and filled from the run this stage holds
//! (`generate::nested::republish`), so the child runs once and every output's objects carry its
//! one instance. What a stage publishes is learned from its compiled child by
//! [`published_output`] (the editor's Recipe graph types a subrecipe node's pin with it).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use super::bind::{product_kind, source_kind};
use super::compile::{compile_nested, CompileOutcome, ProjectDocs};
use super::limits::MAX_SUBRECIPE_DEPTH;
use super::plan::{BoundInput, CompiledPlan, CompiledStage, InputSource, Subrecipe};
use super::report::{stage_path, RecipeSource, Reporter};
use super::seal::Resolved;
use crate::content::encode::ByteWriter;
use crate::content::{FamilyReads, ProductKind};
use crate::ops::registry::{
    no_check, no_lint, no_outline, no_scopes, Capacity, DataScope, KernelContext, Locality,
    OperatorDescriptor, ParamDefault, ParamRange, ParamSet, ParamSpec, ParamType, PortKind,
    Presets, Registry, ScopeContract, StageError, StageInputs, StageOutput, StageParams,
};
use crate::project::{classify, recipe_file, DocKind, FieldPath, ParamValue, Recipe, StageInput};

pub use super::subrecipe_output::SUBRECIPE_OUTPUT_OPERATOR;
pub use crate::project::schema::recipe::SUBRECIPE_OPERATOR;

const NO_CAPACITY: Capacity = Capacity {
    objects: 0,
    candidates: 0,
    bounds_m: None,
};

/// The parameters of a subrecipe stage: the schema `stagecraft ops`, the palette and the
/// Inspector show. The stage reads them itself ([`SubrecipeCx::resolve`]): they name another
/// recipe of the project, which no generic schema check can resolve.
const PARAMETERS: &[ParamSpec] = &[
    ParamSpec {
        name: "binds",
        ty: ParamType::StrList,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::EmptyList,
        doc: "For each of the stage's inputs in order, the child's `Product(…)` input it feeds (each bound once, by a product of its kind).",
    },
    ParamSpec {
        name: "output",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        default: ParamDefault::Optional,
        doc: "Which of the child's `outputs` (a stage id) the stage publishes; may be left out when the child has one.",
    },
    ParamSpec {
        name: "recipe",
        ty: ParamType::Str,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Required,
        doc: "The child recipe, by its path relative to the project: `recipes/<id>.recipe.ron`.",
    },
];

/// The descriptor of the `subrecipe` operator, registered in [`Registry::standard`] like every
/// operator (so `stagecraft ops`, the palette and the docs list it). It has no fixed input ports
/// or output kind: `binds` decides what its inputs are, `output` what it publishes
/// ([`OperatorDescriptor::output_kind`] is `None`). Its kernel is the executor's nested run
/// (`generate::nested`); the descriptor's own only refuses.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: SUBRECIPE_OPERATOR,
        algorithm: 1,
        summary: "Runs another recipe of the project as one stage: each stage input (any stage product) feeds the child input `binds` names there, and the stage publishes the child output `output` names (of that output's kind).",
        inputs: &[],
        // Not read for a subrecipe stage: its compiled stage holds the child output's kind, and
        // `output_kind` says there is no fixed one.
        output: ProductKind::StreetBlock,
        params: PARAMETERS,
        presets: Presets::NONE,
        locality: Locality::ParentPlanned,
        decode: |_, _| Ok(StageParams::Subrecipe),
        estimate: |_, _| NO_CAPACITY,
        outline: no_outline,
        check: no_check,
        scopes: no_scopes,
        domains: &[],
        // Its inputs may be of any level (a child refines what it is given) and what it publishes
        // is treated as the finest level: only object-level stages read a subrecipe's product
        // without a conversion. The child's own stages are checked when the child is compiled.
        data_scope: ScopeContract::at(DataScope::Object),
        family_reads: FamilyReads::ALL,
        lint: no_lint,
        kernel: refuse,
    }
}

/// The kernel of `subrecipe` and `subrecipe.output` stages, which the executor runs itself (a
/// child run), never through a kernel.
pub(super) fn refuse(
    _params: &StageParams,
    _inputs: &StageInputs<'_>,
    _context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    Err(StageError::new(
        crate::generate::FailureKind::InvalidInput,
        None,
        "a subrecipe stage runs through the executor, not a kernel",
    ))
}

/// How many stage ids, counting down from `u32::MAX`, stand for a subrecipe's bound inputs.
pub const INPUT_STAGE_IDS: u32 = 256;

/// The stage id a subrecipe's kernels see for the product bound to its `index`-th `Product(…)`
/// input (in name order): from the top of the id space, which a subrecipe's own stages leave
/// free, so a parent reference into the user's product (a scatter's area) is never one of the
/// child's stages.
pub const fn input_stage_id(index: u32) -> u32 {
    u32::MAX - index
}

/// The instance id of the child a subrecipe stage `stage` of instance `parent` runs.
pub fn nested_instance(parent: &str, stage: u32, child: &str) -> String {
    format!("{parent}/{stage}:{child}")
}

/// Compiled children, by (recipe id, level).
type Memo = BTreeMap<(String, usize), Rc<CompileOutcome>>;

/// The chain of recipes a compilation went through (the root first), and what it compiled.
pub(super) struct Nesting<'a> {
    path: Vec<&'a str>,
    memo: Rc<RefCell<Memo>>,
}

impl<'a> Nesting<'a> {
    /// The nesting of a recipe compiled on its own.
    pub(super) fn root(id: &'a str) -> Nesting<'a> {
        Nesting {
            path: vec![id],
            memo: Rc::default(),
        }
    }

    fn child(&self, id: &'a str) -> Nesting<'a> {
        let mut path = self.path.clone();
        path.push(id);
        Nesting {
            path,
            memo: Rc::clone(&self.memo),
        }
    }

    /// `a → b → c`, then `last` if given.
    fn chain(&self, last: Option<&str>) -> String {
        let mut ids: Vec<&str> = self.path.clone();
        ids.extend(last);
        ids.join(" → ")
    }
}

/// What a stage input carries, like [`source_kind`], knowing what a subrecipe stage publishes.
pub(super) fn input_kind(
    recipe: &Recipe,
    docs: ProjectDocs<'_>,
    registry: &Registry,
    input: &StageInput,
) -> Option<PortKind> {
    if let StageInput::Stage(id) = input {
        let stage = recipe.stages.iter().find(|s| s.id == *id)?;
        if stage.operator == SUBRECIPE_OPERATOR {
            return published_kind(docs, registry, stage, None, 0).map(PortKind::Product);
        }
        if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
            let run = match stage.inputs.as_slice() {
                [StageInput::Stage(run)] => recipe.stages.iter().find(|s| s.id == *run)?,
                _ => return None,
            };
            let output = u32::try_from(stage.parameters.get("output")?.as_int()?).ok()?;
            return (run.operator == SUBRECIPE_OPERATOR)
                .then(|| published_kind(docs, registry, run, Some(output), 0))
                .flatten()
                .map(PortKind::Product);
        }
    }
    source_kind(recipe, registry, input)
}

/// What subrecipe stage `stage_id` of `recipe` publishes, learned as the compiler learns it:
/// its child compiled (cycles and depth checked) and the product kind of the child output the
/// stage picks. `Err` says why there is none (the first error of resolving the stage: `recipe`
/// unset or naming no recipe, a child that does not compile, an output it does not publish; or
/// a stage that is no subrecipe stage). The editor's Recipe graph types a subrecipe node's
/// output pin with it.
pub fn published_output(
    recipe: &Recipe,
    docs: ProjectDocs<'_>,
    registry: &Registry,
    stage_id: u32,
) -> Result<ProductKind, String> {
    let Some(index) = recipe.stages.iter().position(|s| s.id == stage_id) else {
        return Err(format!("stage {stage_id} is not in the recipe"));
    };
    let operator = recipe.stages[index].operator.as_str();
    if operator != SUBRECIPE_OPERATOR && operator != SUBRECIPE_OUTPUT_OPERATOR {
        return Err(format!("stage {stage_id} is not a subrecipe stage"));
    }
    let file = recipe_file(&recipe.id);
    let mut r = Reporter::new(RecipeSource {
        file: &file,
        tree: None,
    });
    let nesting = Nesting::root(&recipe.id);
    let cx = SubrecipeCx {
        recipe,
        docs,
        registry,
        nesting: &nesting,
    };
    let kind = if operator == SUBRECIPE_OUTPUT_OPERATOR {
        // The run it reads, resolved first (its errors are the reason too).
        let run = match recipe.stages[index].inputs.as_slice() {
            [StageInput::Stage(run)] => recipe.stages.iter().position(|s| s.id == *run),
            _ => None,
        };
        let mut resolved = BTreeMap::new();
        if let Some(run) = run.filter(|i| recipe.stages[*i].operator == SUBRECIPE_OPERATOR) {
            if let Some(found) = cx.resolve(run, &mut r) {
                resolved.insert(recipe.stages[run].id, found);
            }
        }
        super::subrecipe_output::resolve(recipe, index, &resolved, &mut r).map(|s| s.output)
    } else {
        cx.read_params(index, &mut r).and_then(|given| {
            let child = cx.child_plan(index, &given.child, &mut r)?;
            let output = cx.pick_output(index, &given, &child, &mut r)?;
            child.stage(output).map(CompiledStage::output)
        })
    };
    let why = r.finish().into_iter().find(|d| d.is_error());
    match (kind, why) {
        (Some(kind), _) => Ok(kind),
        (None, Some(error)) => Err(error.message),
        (None, None) => Err(format!("stage {stage_id}: its output is not known")),
    }
}

/// The `Product(…)` inputs the child of subrecipe stage `stage` declares (name and kind, in name
/// order; `None` for a kind name that is no product kind), read from the child's document without
/// compiling it. `Err` says why the child cannot be read (`recipe` unset, not a recipe path, no
/// such recipe in the project). The editor's Recipe graph draws a subrecipe node's input pins
/// with it.
pub fn child_product_inputs(
    docs: ProjectDocs<'_>,
    stage: &crate::project::Stage,
) -> Result<Vec<(String, Option<ProductKind>)>, String> {
    let id = stage.id;
    let value = stage
        .parameters
        .get("recipe")
        .ok_or_else(|| format!("stage {id}: a subrecipe stage needs its `recipe`"))?;
    let child = recipe_id(value)
        .ok_or_else(|| format!("stage {id}: `recipe` is not a recipe file of the project"))?;
    let document = docs
        .recipes
        .and_then(|recipes| recipes.get(&child))
        .ok_or_else(|| {
            format!(
                "stage {id} names the missing recipe file `{}`",
                recipe_file(&child)
            )
        })?;
    Ok(document
        .inputs
        .iter()
        .filter_map(|(name, input)| match input {
            crate::project::RecipeInput::Product(kind) => Some((name.clone(), product_kind(kind))),
            _ => None,
        })
        .collect())
}

/// The product kind subrecipe stage `stage` publishes (or its child's output `output`, for a
/// `subrecipe.output` stage reading its run), following nested subrecipes at most one level past
/// the limit; `None` when anything on the way is missing.
fn published_kind(
    docs: ProjectDocs<'_>,
    registry: &Registry,
    stage: &crate::project::Stage,
    output: Option<u32>,
    hops: usize,
) -> Option<ProductKind> {
    let child = docs
        .recipes?
        .get(&recipe_id(stage.parameters.get("recipe")?)?)?;
    let output = match (output, stage.parameters.get("output")) {
        (Some(output), _) => output,
        (None, Some(value)) => u32::try_from(value.as_int()?).ok()?,
        (None, None) => *child.outputs.first()?,
    };
    let published = child.stages.iter().find(|s| s.id == output)?;
    if published.operator == SUBRECIPE_OPERATOR {
        return (hops <= MAX_SUBRECIPE_DEPTH)
            .then(|| published_kind(docs, registry, published, None, hops + 1))
            .flatten();
    }
    registry
        .get(&published.operator, published.algorithm)
        .map(|op| op.output)
}

/// The recipe id a `recipe` parameter names (`recipes/<id>.recipe.ron`), if it is such a path.
fn recipe_id(value: &ParamValue) -> Option<String> {
    let ParamValue::Str(path) = value else {
        return None;
    };
    match classify(path) {
        Some((DocKind::Recipe, id)) if recipe_file(&id) == *path => Some(id),
        _ => None,
    }
}

/// What a subrecipe that does not compile is expected to be.
const NO_ERRORS: &str = "a subrecipe without errors";
/// Between a failed subrecipe's id and the first error of its file, in that error's message.
const CAUSE: &str = " does not compile: ";

/// `file:line:column: message` of a child's first error — or, when that error is itself a
/// grandchild's failure, the innermost error it names, so a deep chain reads as its cause.
fn root_cause(first: &crate::project::Diagnostic) -> String {
    if first.expected == NO_ERRORS {
        if let Some((_, cause)) = first.message.split_once(CAUSE) {
            return cause.to_owned();
        }
    }
    format!(
        "{}:{}:{}: {}",
        first.file, first.line, first.column, first.message
    )
}

/// One subrecipe stage being resolved.
pub(super) struct SubrecipeCx<'r, 'a> {
    pub(super) recipe: &'r Recipe,
    pub(super) docs: ProjectDocs<'r>,
    pub(super) registry: &'r Registry,
    pub(super) nesting: &'r Nesting<'a>,
}

/// One input slot of a subrecipe stage being bound.
struct Slot<'g> {
    index: usize,
    slot: usize,
    given: &'g Given,
    declared: &'g BTreeMap<String, ProductKind>,
    expected: &'g str,
}

/// A subrecipe stage's parameters, read.
struct Given {
    child: String,
    binds: Vec<String>,
    output: Option<u32>,
}

impl<'r> SubrecipeCx<'r, '_> {
    /// Resolves stage `index`: reads its parameters, compiles the child (cycle and depth
    /// checked), binds its inputs and picks its output; every problem a located error.
    pub(super) fn resolve(&self, index: usize, r: &mut Reporter<'_>) -> Option<Resolved> {
        let given = self.read_params(index, r)?;
        let child = self.child_plan(index, &given.child, r)?;
        let inputs = self.bind_inputs(index, &given, &child, r);
        let output = self.pick_output(index, &given, &child, r);
        let (inputs, output) = (inputs?, output?);
        let kind = child.stage(output)?.output();
        let subrecipe = Subrecipe {
            content_digest: content_digest(&child),
            recipe_id: given.child,
            plan: child,
            binds: given.binds,
            output,
            run_by: None,
        };
        Some(Resolved {
            index,
            operator: descriptor(),
            output: kind,
            params: StageParams::Subrecipe,
            param_set: ParamSet::default(),
            inputs,
            ports: Vec::new(),
            subrecipe: Some(Arc::new(subrecipe)),
        })
    }

    fn stage(&self, index: usize) -> &'r crate::project::Stage {
        &self.recipe.stages[index]
    }

    fn param_path(index: usize, name: &str) -> FieldPath {
        stage_path(index).field("parameters").key(name)
    }

    /// Reads `recipe`, `binds` and `output`; refuses unknown parameters and wrong types.
    fn read_params(&self, index: usize, r: &mut Reporter<'_>) -> Option<Given> {
        let stage = self.stage(index);
        let mut ok = true;
        for name in stage.parameters.keys() {
            if !PARAMETERS.iter().any(|spec| spec.name == name) {
                ok = false;
                r.error(
                    Self::param_path(index, name),
                    format!(
                        "stage {}: a subrecipe stage has no parameter `{name}`",
                        stage.id
                    ),
                    "one of `recipe`, `binds`, `output`",
                );
            }
        }
        let child = match stage.parameters.get("recipe") {
            None => {
                r.error(
                    stage_path(index).field("parameters"),
                    format!("stage {}: a subrecipe stage needs its `recipe`", stage.id),
                    "`\"recipe\": \"recipes/<id>.recipe.ron\"`",
                );
                None
            }
            Some(value) => {
                let id = recipe_id(value);
                if id.is_none() {
                    r.error(
                        Self::param_path(index, "recipe"),
                        format!(
                            "stage {}: `recipe` is not a recipe file of the project",
                            stage.id
                        ),
                        "a path relative to the project, `recipes/<id>.recipe.ron`",
                    );
                }
                id
            }
        };
        let binds = self.read_binds(index, r);
        let output = self.read_output(index, r);
        let (child, binds, output) = (child?, binds?, output?);
        ok.then_some(Given {
            child,
            binds,
            output,
        })
    }

    fn read_binds(&self, index: usize, r: &mut Reporter<'_>) -> Option<Vec<String>> {
        let stage = self.stage(index);
        let Some(value) = stage.parameters.get("binds") else {
            return Some(Vec::new());
        };
        let names: Option<Vec<String>> = match value {
            ParamValue::List(items) => items
                .iter()
                .map(|item| match item {
                    ParamValue::Str(name) => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        if names.is_none() {
            r.error(
                Self::param_path(index, "binds"),
                format!("stage {}: `binds` is not a list of input names", stage.id),
                "a list of the subrecipe's `Product(…)` input names, one per stage input",
            );
        }
        names
    }

    /// `Some(None)` when not given, `None` after an error.
    fn read_output(&self, index: usize, r: &mut Reporter<'_>) -> Option<Option<u32>> {
        let stage = self.stage(index);
        let Some(value) = stage.parameters.get("output") else {
            return Some(None);
        };
        let id = value.as_int().and_then(|v| u32::try_from(v).ok());
        if id.is_none() {
            r.error(
                Self::param_path(index, "output"),
                format!("stage {}: `output` is not a stage id", stage.id),
                "the id of one of the subrecipe's outputs",
            );
        }
        id.map(Some)
    }

    /// The child's compiled plan, or the located error why there is none.
    fn child_plan(&self, index: usize, child: &str, r: &mut Reporter<'_>) -> Option<CompiledPlan> {
        let stage = self.stage(index);
        let at = Self::param_path(index, "recipe");
        let Some(recipes) = self.docs.recipes else {
            r.error(
                at,
                format!(
                    "stage {}: subrecipes are resolved only within a project",
                    stage.id
                ),
                "the recipe compiled with its project's recipes",
            );
            return None;
        };
        let Some((id, document)) = recipes.get_key_value(child) else {
            let known: Vec<String> = recipes.keys().map(|id| recipe_file(id)).collect();
            r.error(
                at,
                format!(
                    "stage {} names the missing recipe file `{}`",
                    stage.id,
                    recipe_file(child)
                ),
                format!("a recipe file of the project: {}", known.join(", ")),
            );
            return None;
        };
        if self.nesting.path.contains(&id.as_str()) {
            r.error(
                at,
                format!(
                    "stage {}: subrecipes form a cycle: {}",
                    stage.id,
                    self.nesting.chain(Some(id))
                ),
                "subrecipes that never reach a recipe using them (no cycles across files)",
            );
            return None;
        }
        let level = self.nesting.path.len();
        if level > MAX_SUBRECIPE_DEPTH {
            r.error(
                at,
                format!(
                    "stage {}: subrecipe `{id}` would be nesting level {level}: {}, over the limit of {MAX_SUBRECIPE_DEPTH}",
                    stage.id,
                    self.nesting.chain(Some(id))
                ),
                format!("at most {MAX_SUBRECIPE_DEPTH} levels of subrecipes"),
            );
            return None;
        }
        let outcome = self.compile_child(id, document, level);
        if let Some(plan) = &outcome.plan {
            return Some(plan.clone());
        }
        let why = outcome
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map_or_else(String::new, |d| format!(": {}", root_cause(d)));
        r.error(
            at,
            format!(
                "stage {}: subrecipe `{id}`{}{}",
                stage.id,
                CAUSE.trim_end_matches(": "),
                why
            ),
            NO_ERRORS,
        );
        None
    }

    /// Compiles child `id` at `level` once per compilation of the root.
    fn compile_child(&self, id: &str, document: &Recipe, level: usize) -> Rc<CompileOutcome> {
        let key = (id.to_owned(), level);
        if let Some(done) = self.nesting.memo.borrow().get(&key) {
            return Rc::clone(done);
        }
        let file = recipe_file(id);
        let source = RecipeSource {
            file: &file,
            tree: self.docs.trees.and_then(|trees| trees.get(&file)),
        };
        let nesting = self.nesting.child(id);
        let outcome = Rc::new(compile_nested(
            document,
            self.docs,
            self.registry,
            source,
            &nesting,
        ));
        self.nesting
            .memo
            .borrow_mut()
            .insert(key, Rc::clone(&outcome));
        outcome
    }

    /// Binds each stage input to the child input `binds` names at its slot: products only, of
    /// the declared kind, every `Product(…)` input of the child exactly once.
    fn bind_inputs(
        &self,
        index: usize,
        given: &Given,
        child: &CompiledPlan,
        r: &mut Reporter<'_>,
    ) -> Option<Vec<BoundInput>> {
        let stage = self.stage(index);
        let declared = declared_inputs(child, self.docs);
        let names: Vec<String> = declared.keys().map(|n| format!("`{n}`")).collect();
        let expected = format!(
            "one name per stage input among the inputs of `{}`: {}",
            given.child,
            if names.is_empty() {
                "(it declares none)".to_owned()
            } else {
                names.join(", ")
            }
        );
        if given.binds.len() != stage.inputs.len() {
            r.error(
                Self::param_path(index, "binds"),
                format!(
                    "stage {}: `binds` names {} inputs for {} stage inputs",
                    stage.id,
                    given.binds.len(),
                    stage.inputs.len()
                ),
                expected.clone(),
            );
            return None;
        }
        let mut bound = Vec::new();
        let mut ok = true;
        for slot in 0..stage.inputs.len() {
            let slot = Slot {
                index,
                slot,
                given,
                declared: &declared,
                expected: &expected,
            };
            match self.bind_slot(&slot, r) {
                Some(input) => bound.push(input),
                None => ok = false,
            }
        }
        for (name, kind) in &declared {
            if !given.binds.contains(name) {
                ok = false;
                r.error(
                    stage_path(index).field("inputs"),
                    format!(
                        "stage {} does not bind input `{name}` ({}) of subrecipe `{}`",
                        stage.id,
                        kind.name(),
                        given.child
                    ),
                    format!(
                        "a stage input producing a {} and `{name}` at its place in `binds`",
                        kind.name()
                    ),
                );
            }
        }
        ok.then_some(bound)
    }

    /// Binds input `slot.slot` of the stage to the child input `binds` names there, or reports
    /// why not (a missing stage or input has its own structural diagnostic).
    fn bind_slot(&self, at: &Slot<'_>, r: &mut Reporter<'_>) -> Option<BoundInput> {
        let stage = self.stage(at.index);
        let (input, name) = (&stage.inputs[at.slot], &at.given.binds[at.slot]);
        let binds_path = Self::param_path(at.index, "binds").index(at.slot);
        let Some(kind) = at.declared.get(name) else {
            r.error(
                binds_path,
                format!(
                    "stage {}: subrecipe `{}` declares no input `{name}`",
                    stage.id, at.given.child
                ),
                at.expected,
            );
            return None;
        };
        if at.given.binds[..at.slot].contains(name) {
            r.error(
                binds_path,
                format!("stage {}: input `{name}` is bound twice", stage.id),
                "each input of the subrecipe bound once",
            );
            return None;
        }
        let found = input_kind(self.recipe, self.docs, self.registry, input);
        match (input, found) {
            (StageInput::Stage(id), Some(PortKind::Product(k))) if k == *kind => {
                return Some(BoundInput {
                    port: "binds",
                    source: InputSource::Stage(*id),
                });
            }
            (StageInput::Stage(_), None) => return None,
            _ => {}
        }
        let shown = match found {
            Some(PortKind::Product(k)) => format!("a {}", k.name()),
            Some(PortKind::Family) => "a Family".to_owned(),
            None => "no product".to_owned(),
        };
        r.error(
            stage_path(at.index).field("inputs").index(at.slot),
            format!(
                "stage {}: input `{name}` of subrecipe `{}` is a {}, but this input is {shown}",
                stage.id,
                at.given.child,
                kind.name(),
            ),
            format!("the id of a stage producing a {}", kind.name()),
        );
        None
    }

    /// The child's output the stage publishes: `output`, which must be one of its outputs, or
    /// its only output.
    fn pick_output(
        &self,
        index: usize,
        given: &Given,
        child: &CompiledPlan,
        r: &mut Reporter<'_>,
    ) -> Option<u32> {
        let stage = self.stage(index);
        let listed: Vec<String> = child.outputs().iter().map(u32::to_string).collect();
        match given.output {
            Some(id) if child.outputs().contains(&id) => Some(id),
            Some(id) => {
                r.error(
                    Self::param_path(index, "output"),
                    format!(
                        "stage {}: subrecipe `{}` publishes no output {id}",
                        stage.id, given.child
                    ),
                    format!("one of its outputs: {}", listed.join(", ")),
                );
                None
            }
            None if child.outputs().len() == 1 => child.outputs().first().copied(),
            None => {
                r.error(
                    stage_path(index).field("parameters"),
                    format!(
                        "stage {}: subrecipe `{}` publishes several outputs ({}); the stage publishes one",
                        stage.id,
                        given.child,
                        listed.join(", ")
                    ),
                    format!("`\"output\"`: one of {}", listed.join(", ")),
                );
                None
            }
        }
    }
}

/// The child's `Product(…)` inputs and their kinds, by name (unknown kinds left out: the child's
/// own check reports them).
fn declared_inputs(child: &CompiledPlan, docs: ProjectDocs<'_>) -> BTreeMap<String, ProductKind> {
    let Some(recipe) = docs.recipes.and_then(|r| r.get(child.recipe_id())) else {
        return BTreeMap::new();
    };
    recipe
        .inputs
        .iter()
        .filter_map(|(name, input)| match input {
            crate::project::RecipeInput::Product(kind) => {
                product_kind(kind).map(|k| (name.clone(), k))
            }
            _ => None,
        })
        .collect()
}

/// Everything that decides a child's products besides its bound inputs and seed: its source
/// digest, address schema and outputs, and per stage (in plan order) its id, operator, algorithm,
/// parameter bytes, the digests of the families it reads (the fields its operator reads) and its
/// own subrecipe's content digest.
fn content_digest(child: &CompiledPlan) -> [u8; 32] {
    let mut w = ByteWriter::tagged(b"SUBRECIP");
    w.str(child.recipe_id())
        .bytes(&child.source_digest())
        .u32(child.address_schema())
        .count(child.outputs().len());
    for output in child.outputs() {
        w.u32(*output);
    }
    w.count(child.stages().len());
    for stage in child.stages() {
        w.u32(stage.id())
            .str(stage.operator().id)
            .u32(stage.operator().algorithm)
            .bytes(stage.param_bytes())
            .count(stage.inputs().len());
        for bound in stage.inputs() {
            w.str(bound.port);
            match &bound.source {
                InputSource::Family { family, .. } => {
                    w.bytes(&family.digest_for(stage.operator().family_reads));
                }
                InputSource::Stage(id) => {
                    w.u32(*id);
                }
                InputSource::Outer { input } => {
                    w.str(input);
                }
            }
        }
        if let Some(nested) = stage.subrecipe() {
            w.bytes(&nested.content_digest);
        }
    }
    w.digest()
}

impl Subrecipe {
    /// The canonical bytes that stand for the stage's parameters in its cache key: the child's
    /// id, the binds, the published output and the child's content digest.
    pub fn param_bytes(&self) -> Vec<u8> {
        if let Some(run_by) = self.run_by {
            // A `subrecipe.output` stage: the run it reads and the output it republishes, then
            // what the running stage's bytes hold.
            let mut w = ByteWriter::tagged(b"SUBOUTPT");
            let run = Subrecipe {
                run_by: None,
                ..self.clone()
            };
            w.u32(run_by).u32(self.output).bytes(&run.param_bytes());
            return w.digest().to_vec();
        }
        let mut w = ByteWriter::tagged(b"SUBPARAM");
        w.str(&self.recipe_id).count(self.binds.len());
        for name in &self.binds {
            w.str(name);
        }
        w.u32(self.output).bytes(&self.content_digest);
        w.digest().to_vec()
    }
}

/// Problems of a child's `Product(…)` inputs: a kind that names no product, and a stage id among
/// the ones that stand for the inputs ([`input_stage_id`]).
pub(super) fn check_product_inputs(recipe: &Recipe, r: &mut Reporter<'_>) {
    let is_product = |input: &crate::project::RecipeInput| {
        matches!(input, crate::project::RecipeInput::Product(_))
    };
    if recipe.inputs.values().any(is_product) {
        let lowest = input_stage_id(INPUT_STAGE_IDS - 1);
        for (index, stage) in recipe.stages.iter().enumerate() {
            if stage.id >= lowest {
                r.error(
                    stage_path(index).field("id"),
                    format!(
                        "stage id {} is reserved: a subrecipe's ids from {lowest} up stand for its inputs",
                        stage.id
                    ),
                    format!("a stage id below {lowest}"),
                );
            }
        }
    }
    for (name, input) in &recipe.inputs {
        if let crate::project::RecipeInput::Product(kind) = input {
            if product_kind(kind).is_none() {
                let kinds: Vec<&str> = super::bind::PRODUCT_KINDS
                    .iter()
                    .map(|k| k.name())
                    .collect();
                r.error(
                    FieldPath::root().field("inputs").key(name),
                    format!("input `{name}` names the unknown product kind `{kind}`"),
                    format!("a product kind: {}", kinds.join(", ")),
                );
            }
        }
    }
}

impl Subrecipe {
    /// What sealing records of the stage: no scopes of its own (the child's draw under the
    /// child's instance), the published output's outline, and the capacity of the child's
    /// stages together.
    pub(super) fn sealed(&self) -> (Vec<(u32, u32)>, crate::ops::registry::Outline, Capacity) {
        let outline = self
            .plan
            .stage(self.output)
            .map(|s| s.outline().clone())
            .unwrap_or_default();
        // A `subrecipe.output` stage holds only the output it republishes.
        let counted: Vec<&CompiledStage> = match self.run_by {
            Some(_) => self.plan.stage(self.output).into_iter().collect(),
            None => self.plan.stages().iter().collect(),
        };
        let capacity = counted.iter().fold(NO_CAPACITY, |sum, stage| Capacity {
            objects: sum.objects.saturating_add(stage.capacity().objects),
            candidates: sum.candidates.saturating_add(stage.capacity().candidates),
            bounds_m: sum.bounds_m.or(stage.capacity().bounds_m),
        });
        (Vec::new(), outline, capacity)
    }
}
