//! Tests of `streaming.plan`'s named profiles, field overrides, sanitizing warnings and the
//! over-budget report, through the recipe compiler and the kernel.

use std::collections::BTreeMap;

use super::*;
use crate::content::{Constraint, ConstraintCheck, StreamingCell};
use crate::generate::CancelToken;
use crate::project::{read_document, DocKind, Recipe, Severity};
use crate::recipe::{compile, CompileOutcome, RecipeSource};

const FILE: &str = "recipes/s.recipe.ron";

/// Compiles a one-stage `streaming.plan` recipe with `params` (RON map entries).
fn compile_stage(params: &str) -> CompileOutcome {
    let text = format!(
        "Recipe(schema: 1, id: \"s\", address_schema: 1, inputs: {{}},\n\
         stages: [\n\
         Stage(id: 1, operator: \"streaming.plan\", algorithm: 1, parameters: {{\n\
         {params}\n\
         }}),\n\
         ], outputs: [1])\n"
    );
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: FILE,
        tree: tree.as_ref(),
    };
    compile(&recipe, &BTreeMap::new(), &Registry::standard(), source)
}

/// The typed parameters of the compiled stage.
fn stage_params(outcome: &CompileOutcome) -> StreamingStageParams {
    let plan = outcome
        .plan
        .as_ref()
        .unwrap_or_else(|| panic!("{outcome:?}"));
    match plan.stages()[0].params() {
        StageParams::Streaming(p) => p.clone(),
        other => panic!("{other:?}"),
    }
}

/// `"severity line:column path: message"` of every diagnostic.
fn rendered(outcome: &CompileOutcome) -> Vec<String> {
    outcome
        .diagnostics
        .iter()
        .map(|d| {
            let severity = if d.severity == Severity::Warning {
                "warning"
            } else {
                "error"
            };
            format!(
                "{severity} {}:{} {}: {}",
                d.line, d.column, d.path, d.message
            )
        })
        .collect()
}

fn run(params: &StageParams) -> StageOutput {
    let cancel = CancelToken::new();
    let context = KernelContext {
        recipe: "s",
        stage: 1,
        seed: 1,
        parallel: false,
        cancel: &cancel,
        progress: &|_| {},
    };
    let op = Registry::standard();
    let op = op.get("streaming.plan", 1).unwrap_or_else(|| panic!("op"));
    (op.kernel)(params, &StageInputs::default(), &context).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_four_launch_profiles_carry_the_specification_numbers() {
    let expect = [
        ("DefaultSandbox", 100.0, 128, 8, SANDBOX_HLOD, false),
        ("Paris", 50.0, 96, 6, HITMAN_HLOD, true),
        ("Sapienza", 50.0, 96, 6, HITMAN_HLOD, true),
        ("Miami", 50.0, 96, 6, HITMAN_HLOD, true),
    ];
    for (name, cell_m, budget, per_cell, layer, high) in expect {
        let outcome = compile_stage(&format!(
            "\"profile\": \"{name}\", \"observer_m\": (0.0, 0.0)"
        ));
        assert_eq!(rendered(&outcome), Vec::<String>::new(), "{name}");
        let p = stage_params(&outcome);
        assert_eq!(
            p.profile,
            crate::ops::streaming::StreamingProfile {
                cell_size_m: cell_m,
                loaded_radius_cells: 1,
                hlod_radius_cells: 2,
                hlod_budget_mb: budget,
                hlod_mb_per_cell: per_cell,
            },
            "{name}"
        );
        assert_eq!(p.hlod_layer.as_deref(), Some(layer), "{name}");
        assert_eq!(p.high_detail, high, "{name}");
    }
    let names: Vec<&str> = STREAMING_PROFILES.iter().map(|p| p.name).collect();
    assert_eq!(names, ["DefaultSandbox", "Paris", "Sapienza", "Miami"]);
}

const SANDBOX_HLOD: &str = "/Game/V4LevelOps/HLOD/DA_HLOD_DefaultSandbox";
const HITMAN_HLOD: &str = "/Game/V4LevelOps/HLOD/DA_HLOD_HitmanHighDetail";

#[test]
fn the_paris_profile_plans_the_specification_fixture() {
    // Player at (5250, −1250) cm = (52.5, −12.5) m on Paris: cell (1, −1), 9 loaded cells,
    // a 16-cell donut, 16 × 6 = 96 MB within the 96 MB budget.
    let outcome = compile_stage("\"profile\": \"Paris\", \"observer_m\": (52.5, -12.5)");
    let output = run(&StageParams::Streaming(stage_params(&outcome)));
    let Product::StreamingPlan(product) = &output.product else {
        panic!("{:?}", output.product)
    };
    assert_eq!(product.plan.observer_cell, StreamingCell::new(1, -1));
    assert_eq!(product.plan.loaded_cells.len(), 9);
    assert_eq!(product.plan.hlod_cells.len(), 16);
    assert_eq!(product.plan.hlod_estimated_mb, 96);
    assert_eq!(
        output.provenance.constraints[1],
        ConstraintCheck {
            constraint: Constraint::HlodDemandWithinBudget {
                requested_mb: 96,
                budget_mb: 96
            },
            passed: true,
        }
    );
    // The default sandbox: 100 m cells put the same player in cell (0, −1).
    let outcome = compile_stage("\"profile\": \"DefaultSandbox\", \"observer_m\": (52.5, -12.5)");
    let output = run(&StageParams::Streaming(stage_params(&outcome)));
    let Product::StreamingPlan(product) = &output.product else {
        panic!("{:?}", output.product)
    };
    assert_eq!(product.plan.observer_cell, StreamingCell::new(0, -1));
    assert_eq!(product.plan.hlod_estimated_mb, 128);
}

#[test]
fn fields_override_the_profile_and_an_over_budget_plan_says_so() {
    // Paris with its budget tightened to 24 MB: pruned to 4 cells, and the demand of 96 MB is
    // reported over budget (the kept set itself fits).
    let outcome = compile_stage(
        "\"profile\": \"Paris\", \"hlod_budget_mb\": 24, \"observer_m\": (52.5, -12.5)",
    );
    assert_eq!(rendered(&outcome), Vec::<String>::new());
    let p = stage_params(&outcome);
    assert_eq!(p.profile.hlod_budget_mb, 24);
    assert_eq!(p.profile.hlod_mb_per_cell, 6);
    assert_eq!(p.profile.cell_size_m, 50.0);
    let output = run(&StageParams::Streaming(p));
    let Product::StreamingPlan(product) = &output.product else {
        panic!("{:?}", output.product)
    };
    assert_eq!(product.plan.hlod_cells.len(), 4);
    assert_eq!(product.plan.hlod_estimated_mb, 24);
    assert_eq!(
        output.provenance.constraints,
        [
            ConstraintCheck {
                constraint: Constraint::WithinBudget { budget_mb: 24 },
                passed: true,
            },
            ConstraintCheck {
                constraint: Constraint::HlodDemandWithinBudget {
                    requested_mb: 96,
                    budget_mb: 24
                },
                passed: false,
            },
        ]
    );
}

#[test]
fn sanitizing_repairs_with_located_warnings() {
    // Line 4 holds the parameters; columns point at each value.
    let outcome = compile_stage(
        "\"profile\": \"Sapienza\", \"cell_size_m\": 80.0, \"loaded_radius_cells\": 3, \"hlod_radius_cells\": 2, \"observer_m\": (0.0, 0.0)",
    );
    assert_eq!(
        rendered(&outcome),
        [
            "warning 4:39 stages[0].parameters[\"cell_size_m\"]: stage 1: a high-detail profile streams 50 m cells; 80.0 m is pinned to 50 m",
            "warning 4:92 stages[0].parameters[\"hlod_radius_cells\"]: stage 1: HLOD radius 2 does not reach past the loaded radius 3; it is forced to 4",
        ]
    );
    let p = stage_params(&outcome);
    assert_eq!(p.profile.cell_size_m, 50.0);
    assert_eq!(p.profile.loaded_radius_cells, 3);
    assert_eq!(p.profile.hlod_radius_cells, 4);

    let outcome = compile_stage(
        "\"cell_size_m\": 0.25, \"loaded_radius_cells\": 70, \"hlod_radius_cells\": 900, \"observer_m\": (0.0, 0.0)",
    );
    assert_eq!(
        rendered(&outcome),
        [
            "warning 4:16 stages[0].parameters[\"cell_size_m\"]: stage 1: cell size 0.25 m is clamped to 1.0 m",
            "warning 4:45 stages[0].parameters[\"loaded_radius_cells\"]: stage 1: ring radius 70 is clamped to 63 cells",
            "warning 4:70 stages[0].parameters[\"hlod_radius_cells\"]: stage 1: ring radius 900 is clamped to 64 cells",
        ]
    );
    let p = stage_params(&outcome);
    assert_eq!(
        (
            p.profile.cell_size_m,
            p.profile.loaded_radius_cells,
            p.profile.hlod_radius_cells
        ),
        (1.0, 63, 64)
    );
}

#[test]
fn an_unknown_profile_is_a_located_error() {
    let outcome = compile_stage("\"profile\": \"Berlin\", \"observer_m\": (0.0, 0.0)");
    assert!(outcome.plan.is_none());
    assert_eq!(
        rendered(&outcome),
        ["error 4:12 stages[0].parameters[\"profile\"]: stage 1: parameter `profile` is \"Berlin\", out of range"]
    );
    assert_eq!(
        outcome.diagnostics[0].expected,
        "a string in one of: DefaultSandbox, Paris, Sapienza, Miami"
    );
}

#[test]
fn a_stage_without_a_profile_keeps_its_parameter_set() {
    // Presets are opt-in: the checked set (and so the cache key) of a stage without `profile` is
    // the plain schema check of what it gives.
    let registry = Registry::standard();
    let op = registry
        .get("streaming.plan", 1)
        .unwrap_or_else(|| panic!("op"));
    let given: BTreeMap<String, crate::project::ParamValue> = [(
        "observer_m".to_owned(),
        crate::project::ParamValue::Tuple(vec![
            crate::project::ParamValue::Float(1.0),
            crate::project::ParamValue::Float(2.0),
        ]),
    )]
    .into_iter()
    .collect();
    assert_eq!(op.check_params(&given), ParamSet::check(op.params, &given));
    for descriptor in registry.operators() {
        assert!(
            descriptor.presets.matches_schema(descriptor.params),
            "{}",
            descriptor.id
        );
    }
}

/// The chunks of the tactical example, as a recipe parameter.
const TACTICAL_CHUNKS: &str =
    "\"chunks\": [(\"s\", \"spawn\", false), (\"o\", \"objective\", false), \
     (\"x\", \"extraction\", false), (\"c\", \"connector\", true), (\"e\", \"encounter\", true), \
     (\"b\", \"blocker\", false)], \"min_npc_cells\": 0";

fn compile_mission(params: &str) -> CompileOutcome {
    let text = format!(
        "Recipe(schema: 1, id: \"s\", address_schema: 1, inputs: {{}},\n\
         stages: [\n\
         Stage(id: 1, operator: \"layout.grid-mission\", algorithm: 1, parameters: {{\n\
         {params}\n\
         }}),\n\
         ], outputs: [1])\n"
    );
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: FILE,
        tree: tree.as_ref(),
    };
    compile(&recipe, &BTreeMap::new(), &Registry::standard(), source)
}

#[test]
fn the_five_cell_graphs_are_presets_of_the_grid_mission() {
    // (graph, width, height, objectives, critical path steps, blocker density ‰)
    let expect = [
        ("PCG_Tactical", 6, 5, 3, 8, 150),
        ("PCG_Stealth", 7, 6, 2, 10, 120),
        ("PCG_RTST", 8, 6, 4, 12, 100),
        ("PCG_ARPG", 7, 7, 3, 10, 120),
        ("PCG_2D", 8, 3, 2, 7, 60),
    ];
    for (name, width, height, objectives, steps, density) in expect {
        let outcome = compile_mission(&format!("\"graph\": \"{name}\", {TACTICAL_CHUNKS}"));
        assert_eq!(rendered(&outcome), Vec::<String>::new(), "{name}");
        let plan = outcome.plan.as_ref().unwrap_or_else(|| panic!("{name}"));
        let StageParams::GridMission(p) = plan.stages()[0].params() else {
            panic!("{name}")
        };
        assert_eq!(
            (
                p.width,
                p.height,
                p.objectives,
                p.min_critical_path_steps,
                p.blocker_density_permille
            ),
            (width, height, objectives, steps, density),
            "{name}"
        );
        // Every graph solves, with a bot path at least its minimum.
        let cancel = CancelToken::new();
        let context = KernelContext {
            recipe: "s",
            stage: 1,
            seed: 20260523,
            parallel: false,
            cancel: &cancel,
            progress: &|_| {},
        };
        let registry = Registry::standard();
        let op = registry
            .get("layout.grid-mission", 1)
            .unwrap_or_else(|| panic!("op"));
        let output = (op.kernel)(plan.stages()[0].params(), &StageInputs::default(), &context)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let Product::MissionLayout(mission) = &output.product else {
            panic!("{name}")
        };
        assert_eq!(
            (mission.layout.width, mission.layout.height),
            (width, height)
        );
        assert_eq!(mission.layout.objectives.len(), objectives as usize);
        assert!(
            mission.layout.bot_path.len() as u32 > steps,
            "{name}: ≥ steps + 1 cells"
        );
    }
    // A field the stage gives overrides the graph's.
    let outcome = compile_mission(&format!(
        "\"graph\": \"PCG_2D\", \"height\": 4, {TACTICAL_CHUNKS}"
    ));
    let plan = outcome.plan.as_ref().unwrap_or_else(|| panic!("override"));
    let StageParams::GridMission(p) = plan.stages()[0].params() else {
        panic!("override")
    };
    assert_eq!((p.width, p.height), (8, 4));
}
