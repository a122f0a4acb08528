//! Tests of several outputs of one child run (`subrecipe.output`) on the sidewalk-outputs
//! example: the child runs once and both outputs carry its instance, serial = parallel, a warm
//! rerun is all cache hits, keys follow the run, and every problem is a located error.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::subrecipe_tests::errors;
use super::{compile_project_recipe, load_and_check, CompiledPlan};
use crate::content::{Product, ProductKind};
use crate::generate::{
    CancelToken, ExecutionMode, GenerateRequest, Generated, Generator, NoObserver,
};
use crate::identity::{ChildKey, RecipeInstanceId, StageId};
use crate::ops::registry::Registry;
use crate::project::{LoadedProject, ProjectSources};

const MANIFEST: &str = include_str!("../../../projects/sidewalk-outputs/stagecraft.ron");
const PARENT: &str =
    include_str!("../../../projects/sidewalk-outputs/recipes/sidewalk-outputs.recipe.ron");
const CHILD: &str =
    include_str!("../../../projects/sidewalk-outputs/recipes/sidewalk-layout.recipe.ron");
const PROPS: &str = include_str!("../../../assets/street-props.family.ron");
const PARENT_FILE: &str = "recipes/sidewalk-outputs.recipe.ron";
const INSTANCE: &str = "sidewalk-outputs/10:sidewalk-layout";

fn load(parent: &str) -> LoadedProject {
    load_with(parent, CHILD)
}

fn load_with(parent: &str, child: &str) -> LoadedProject {
    let texts: BTreeMap<String, String> = [
        ("stagecraft.ron", MANIFEST.replace("../../assets", "assets")),
        (PARENT_FILE, parent.to_owned()),
        ("recipes/sidewalk-layout.recipe.ron", child.to_owned()),
        ("assets/street-props.family.ron", PROPS.to_owned()),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text))
    .collect();
    let sources = ProjectSources {
        files: texts,
        ..ProjectSources::default()
    };
    load_and_check(&sources, &Registry::standard())
}

fn plan() -> CompiledPlan {
    let loaded = load(PARENT);
    assert_eq!(loaded.diagnostics, Vec::new());
    let outcome = compile_project_recipe(&loaded, "sidewalk-outputs", &Registry::standard());
    outcome.and_then(|o| o.plan).expect("compiles")
}

fn generate(generator: &mut Generator, plan: &CompiledPlan, mode: ExecutionMode) -> Generated {
    let request = GenerateRequest {
        root_seed: 7,
        mode,
        generation: 0,
    };
    generator
        .generate(plan, &request, &CancelToken::new(), &NoObserver)
        .expect("generates")
}

#[test]
fn both_outputs_come_from_one_run_under_one_instance() {
    let plan = plan();
    let stage = plan.stage(11).expect("stage 11");
    assert_eq!(stage.output(), ProductKind::Placements);
    assert_eq!(stage.dependencies(), [10]);
    let sub = stage.subrecipe().expect("what it republishes");
    assert_eq!((sub.run_by, sub.output), (Some(10), 1));
    let bundle = generate(&mut Generator::new(), &plan, ExecutionMode::Serial).bundle;
    let (ten, eleven) = (bundle.stage(10).expect("10"), bundle.stage(11).expect("11"));
    // The same child run: stage 11's product is the very product stage 10's run made (the
    // child did not run again), and both hold that run under one instance.
    let run = ten.provenance.nested.as_deref().expect("stage 10's run");
    let again = eleven.provenance.nested.as_deref().expect("the same run");
    assert!(Arc::ptr_eq(
        &eleven.product,
        &run.stage(1).expect("child stage 1").product
    ));
    assert_eq!(
        (run.instance.as_str(), again.instance.as_str()),
        (INSTANCE, INSTANCE)
    );
    assert_eq!((run.output, again.output), (2, 1));
    assert_eq!(ten.summary.objects, eleven.summary.objects);
    // Objects of both outputs carry the run's identity: the placement and the prop it became.
    let Product::Placements(scatter) = eleven.product.as_ref() else {
        panic!("stage 11 publishes placements");
    };
    let key = ChildKey::Scatter(scatter.placements().next().expect("a placement").id);
    let placement = bundle.identity(11, &key).expect("identity");
    let prop = bundle.identity(10, &key).expect("identity");
    let instance = RecipeInstanceId(INSTANCE.to_owned());
    assert_eq!(
        (&placement.recipe_instance, placement.stage),
        (&instance, StageId(1))
    );
    assert_eq!((&prop.recipe_instance, prop.stage), (&instance, StageId(2)));
    assert_eq!(prop.parent.as_deref(), Some(&placement));
    // A stage of the parent reading the republished output places objects whose parent is the
    // child run's placement.
    let replaced = bundle.identity(12, &key).expect("identity");
    assert_eq!(replaced.recipe_instance.0, "sidewalk-outputs");
    assert_eq!(replaced.parent.as_deref(), Some(&placement));
}

#[test]
fn serial_equals_parallel_and_a_warm_rerun_is_all_hits() {
    let plan = plan();
    let mut generator = Generator::new();
    let serial = generate(&mut generator, &plan, ExecutionMode::Serial);
    assert_eq!(serial.report.misses(), 4);
    let warm = generate(&mut generator, &plan, ExecutionMode::Serial);
    assert_eq!((warm.report.hits(), warm.report.misses()), (4, 0));
    assert_eq!(warm.bundle, serial.bundle);
    let parallel = generate(&mut Generator::new(), &plan, ExecutionMode::Parallel);
    assert_eq!(parallel.bundle, serial.bundle);
}

#[test]
fn editing_the_child_reruns_the_run_and_both_outputs() {
    let plan = plan();
    let mut generator = Generator::new();
    let before = generate(&mut generator, &plan, ExecutionMode::Serial);
    let keys = |g: &Generated| -> Vec<[u8; 32]> { g.bundle.stages.iter().map(|s| s.key).collect() };
    // The scatter's cell size feeds output 1 only through the run: stages 10, 11 and 12 re-run.
    let child = CHILD.replace("\"cell_size\": 300", "\"cell_size\": 250");
    let loaded = load_with(PARENT, &child);
    let edited = compile_project_recipe(&loaded, "sidewalk-outputs", &Registry::standard())
        .and_then(|o| o.plan)
        .expect("compiles");
    let after = generate(&mut generator, &edited, ExecutionMode::Serial);
    assert_eq!(after.report.ran(), [10, 11, 12]);
    let (a, b) = (keys(&before), keys(&after));
    assert_eq!(a[0], b[0], "the street block keeps its key");
    assert!(a[1..].iter().zip(&b[1..]).all(|(x, y)| x != y));
}

/// The example's stage 11 replaced by `stage` (its text from `Stage(` to `),`).
fn with_stage_11(inputs: &str, parameters: &str) -> String {
    let start = PARENT
        .find("        Stage(\n            id: 11,")
        .expect("11");
    let end = PARENT
        .find("        Stage(\n            id: 12,")
        .expect("12");
    format!(
        "{}        Stage(id: 11, operator: \"subrecipe.output\", algorithm: 1, inputs: [{inputs}],\n            parameters: {{{parameters}}}),\n{}",
        &PARENT[..start],
        &PARENT[end..]
    )
}

fn errors_of(parent: &str) -> Vec<String> {
    errors(&load(parent))
        .into_iter()
        .filter(|e| e.starts_with(PARENT_FILE))
        .collect()
}

#[test]
fn every_problem_is_a_located_error() {
    let at = PARENT_FILE;
    assert_eq!(
        errors_of(&with_stage_11("10", "\"output\": 7")),
        [format!("{at}:40:36 stages[2].parameters[\"output\"]: stage 11: subrecipe `sidewalk-layout` (run by stage 10) publishes no output 7")]
    );
    assert_eq!(
        errors_of(&with_stage_11("1", "\"output\": 1")),
        [format!("{at}:39:76 stages[2].inputs[0]: stage 11: stage 1 is a `street.block` stage, not a `subrecipe` stage whose run it republishes")]
    );
    assert_eq!(
        errors_of(&with_stage_11("10, 1", "\"output\": 1")),
        [format!("{at}:39:75 stages[2].inputs: stage 11: a subrecipe.output stage reads one subrecipe stage, not 2 inputs")]
    );
    assert_eq!(
        errors_of(&with_stage_11("10", "\"colour\": 1")),
        [
            format!("{at}:40:25 stages[2].parameters: stage 11: a subrecipe.output stage needs its `output`"),
            format!("{at}:40:36 stages[2].parameters[\"colour\"]: stage 11: a subrecipe.output stage has no parameter `colour`"),
        ]
    );
    // Republishing the PlacedObjects output: select-and-place (stage 12) cannot read it.
    let found = errors_of(&with_stage_11("10", "\"output\": 2"));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("stages[3].inputs[0]: stage 12:") && found[0].contains("PlacedObjects"),
        "{found:#?}"
    );
}
