//! Several outputs of one child run: a stage of operator `subrecipe.output` republishes another
//! of the outputs of the child run a `subrecipe` stage holds, without running the child again.
//!
//! ```ron
//! Stage(id: 10, operator: "subrecipe", algorithm: 1, inputs: [1], parameters: {
//!     "recipe": "recipes/sidewalk-layout.recipe.ron", "binds": ["block"], "output": 2,
//! }),
//! Stage(id: 11, operator: "subrecipe.output", algorithm: 1, inputs: [10], parameters: {
//!     "output": 1, // another of the child's `outputs`
//! }),
//! ```
//!
//! Its one input is the `subrecipe` stage whose run it reads; `output` is one of that child's
//! `outputs`, and the stage publishes that output's kind, so downstream stages wire to it through
//! typed ports like to any stage (the secondary product has its own stage id in the parent, so
//! overlays, stepping, diff, provenance and the bundle list it like any stage). Its objects are
//! the child run's: the same nested instance `<parent>/<run stage>:<child>` as the running
//! stage's. Its cache key holds the running stage's whole key (so it is exact whatever output
//! the running stage publishes) and the output it picks; the running stage's bytes, key and
//! digest are those of a recipe that uses one output. Each problem is a located error: an input
//! that is not one subrecipe stage, an `output` the child does not publish.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::plan::{BoundInput, InputSource, Subrecipe};
use super::report::{stage_path, Reporter};
use super::seal::Resolved;
use super::subrecipe::{refuse, SUBRECIPE_OPERATOR};
use crate::content::FamilyReads;
use crate::content::ProductKind;
use crate::ops::registry::{
    no_check, no_lint, no_outline, no_scopes, Capacity, DataScope, Locality, OperatorDescriptor,
    ParamDefault, ParamRange, ParamSet, ParamSpec, ParamType, Presets, ScopeContract, StageParams,
};
use crate::project::{Recipe, StageInput};

/// The operator id of a stage republishing another output of a subrecipe stage's child run.
pub const SUBRECIPE_OUTPUT_OPERATOR: &str = "subrecipe.output";

/// The port its one input binds to (in the cache key and provenance).
pub const RUN_PORT: &str = "run";

const PARAMETERS: &[ParamSpec] = &[ParamSpec {
    name: "output",
    ty: ParamType::Int,
    unit: "",
    range: ParamRange::Int {
        min: 0,
        max: u32::MAX as i64,
    },
    default: ParamDefault::Required,
    doc: "Which of the child's `outputs` (a stage id of the child) the stage republishes from the run of the subrecipe stage it reads.",
}];

/// The descriptor of the `subrecipe.output` operator, registered in `Registry::standard`. Like
/// `subrecipe`'s, it has no fixed input ports or output kind (its input is a subrecipe stage,
/// its kind the child output's); its kernel is the executor's (`generate::nested`), the
/// descriptor's own only refuses.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: SUBRECIPE_OUTPUT_OPERATOR,
        algorithm: 1,
        summary: "Republishes another output of the child run of the subrecipe stage it reads (its one input): the child output `output` names, of that output's kind, from the same run (the child is not run again).",
        inputs: &[],
        // Not read: the compiled stage holds the child output's kind.
        output: ProductKind::StreetBlock,
        params: PARAMETERS,
        presets: Presets::NONE,
        locality: Locality::ParentPlanned,
        decode: |_, _| Ok(StageParams::Subrecipe),
        estimate: |_, _| Capacity {
            objects: 0,
            candidates: 0,
            bounds_m: None,
        },
        outline: no_outline,
        check: no_check,
        scopes: no_scopes,
        domains: &[],
        data_scope: ScopeContract::at(DataScope::Object),
        family_reads: FamilyReads::ALL,
        lint: no_lint,
        kernel: refuse,
    }
}

/// Resolves `subrecipe.output` stage `index` of `recipe` against the stages resolved so far
/// (the subrecipe stage it reads among them, or reported already); every problem a located
/// error.
pub(super) fn resolve(
    recipe: &Recipe,
    index: usize,
    resolved: &BTreeMap<u32, Resolved>,
    r: &mut Reporter<'_>,
) -> Option<Resolved> {
    let stage = &recipe.stages[index];
    let params = stage_path(index).field("parameters");
    let mut ok = true;
    for name in stage.parameters.keys().filter(|n| *n != "output") {
        ok = false;
        r.error(
            params.key(name),
            format!(
                "stage {}: a subrecipe.output stage has no parameter `{name}`",
                stage.id
            ),
            "`output`",
        );
    }
    let run = run_stage(recipe, index, r);
    let output = read_output(recipe, index, r);
    let (run, output) = (run?, output?);
    // A running stage that did not resolve has its own errors.
    let running = resolved.get(&run)?.subrecipe.as_ref()?;
    if !running.plan.outputs().contains(&output) {
        let listed: Vec<String> = running.plan.outputs().iter().map(u32::to_string).collect();
        r.error(
            params.key("output"),
            format!(
                "stage {}: subrecipe `{}` (run by stage {run}) publishes no output {output}",
                stage.id, running.recipe_id
            ),
            format!("one of its outputs: {}", listed.join(", ")),
        );
        return None;
    }
    let kind = running.plan.stage(output)?.output();
    let subrecipe = Subrecipe {
        output,
        run_by: Some(run),
        ..(**running).clone()
    };
    ok.then_some(Resolved {
        index,
        operator: descriptor(),
        output: kind,
        params: StageParams::Subrecipe,
        param_set: ParamSet::default(),
        inputs: vec![BoundInput {
            port: RUN_PORT,
            source: InputSource::Stage(run),
        }],
        ports: vec![(RUN_PORT, 0)],
        subrecipe: Some(Arc::new(subrecipe)),
    })
}

/// The id of the one `subrecipe` stage stage `index` reads, or the located error why not.
fn run_stage(recipe: &Recipe, index: usize, r: &mut Reporter<'_>) -> Option<u32> {
    let stage = &recipe.stages[index];
    let expected = "one input: the id of the `subrecipe` stage whose child run it republishes";
    let id = match stage.inputs.as_slice() {
        [StageInput::Stage(id)] => *id,
        [other] => {
            let shown = match other {
                StageInput::Named(name) => format!("the recipe input `{name}`"),
                StageInput::Stage(id) => format!("stage {id}"),
            };
            r.error(
                stage_path(index).field("inputs").index(0),
                format!(
                    "stage {}: a subrecipe.output stage reads a subrecipe stage, not {shown}",
                    stage.id
                ),
                expected,
            );
            return None;
        }
        inputs => {
            r.error(
                stage_path(index).field("inputs"),
                format!(
                    "stage {}: a subrecipe.output stage reads one subrecipe stage, not {} inputs",
                    stage.id,
                    inputs.len()
                ),
                expected,
            );
            return None;
        }
    };
    // A missing stage has its structural diagnostic.
    let run = recipe.stages.iter().find(|s| s.id == id)?;
    if run.operator != SUBRECIPE_OPERATOR {
        r.error(
            stage_path(index).field("inputs").index(0),
            format!(
                "stage {}: stage {id} is a `{}` stage, not a `subrecipe` stage whose run it republishes",
                stage.id, run.operator
            ),
            expected,
        );
        return None;
    }
    Some(id)
}

/// The `output` parameter, or the located error why there is none.
fn read_output(recipe: &Recipe, index: usize, r: &mut Reporter<'_>) -> Option<u32> {
    let stage = &recipe.stages[index];
    let Some(value) = stage.parameters.get("output") else {
        r.error(
            stage_path(index).field("parameters"),
            format!(
                "stage {}: a subrecipe.output stage needs its `output`",
                stage.id
            ),
            "`\"output\"`: one of the child's outputs (a stage id of the child)",
        );
        return None;
    };
    let id = value.as_int().and_then(|v| u32::try_from(v).ok());
    if id.is_none() {
        r.error(
            stage_path(index).field("parameters").key("output"),
            format!("stage {}: `output` is not a stage id", stage.id),
            "the id of one of the child's outputs",
        );
    }
    id
}
