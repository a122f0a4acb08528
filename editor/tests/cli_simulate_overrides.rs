//! A scenario simulates over the overridden world wherever it runs: `stagecraft simulate` and the
//! editor's session (and Python's `Simulation`, python/tests/test_simulation.py) build the world
//! through `stagecraft_io::scenario`, over the scenario's recipe generated with the project's
//! override sets — as `generate`, `cook` and `export` generate it.
//!
//! The fixture: the street-block example with an override set that replaces the sidewalk prop
//! walkers pass closest to (a lamp, 0.15 m collision radius) by a bench (0.9 m), so it stands in
//! their way (a walker's body clears a blocker by its radius plus the body radius). (Deleting a prop would not change the run: no walker of the example comes within
//! 0.6 m of a prop's edge.) The test checks that the override applies (the content holds a bench
//! there, the simulation's blocker there is 0.9 m wide, the bundle digest is `generate`'s) and
//! changes the run, and that the command line and the editor's session agree on every digest.

mod support;

use std::path::Path;

use stagecraft_editor::project_io::load_dir;
use stagecraft_editor::service::{focus_recipe_in, GenerationService};
use stagecraft_editor::session::Session;
use stagecraft_io::scenario::ScenarioContent;
use stagecraft_io::sources::open_project;
use stagecraft_runtime::content::Product;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::sim::state::body::BODY_RADIUS_M;
use support::{example, stagecraft, stdout};

const SCENARIO: &str = "crosswalk-rush";
const FRAMES: u64 = 300;

/// The scatter stage of the street-block recipe (stage 3 places what it scattered).
const SCATTER_STAGE: u32 = 2;

/// The prop whose centre walkers pass closest to in the first [`FRAMES`] frames of the base world,
/// as (identity bits, position, its collision radius, that closest distance in metres).
fn prop_nearest_a_walker(dir: &Path) -> (u64, (f64, f64), f64, f64) {
    let registry = Registry::standard();
    let (_, loaded) = open_project(dir, &registry).expect("readable");
    let scenario = &loaded.project.as_ref().expect("loads").scenarios[SCENARIO];
    let content = ScenarioContent::generate(&loaded, scenario, &registry).expect("content");
    let mut world = content.world().expect("world");
    let blockers = &content.space.blockers;
    assert!(!blockers.is_empty(), "the example has props");
    let mut nearest = vec![f64::INFINITY; blockers.len()];
    for _ in 0..FRAMES / 10 {
        for _ in 0..10 {
            world.step();
        }
        for frame in world.motion_frames().iter() {
            let (x, y) = (frame.location.x, frame.location.y);
            for (best, blocker) in nearest.iter_mut().zip(blockers) {
                let d =
                    (f64::from(x) - blocker.position.x).hypot(f64::from(y) - blocker.position.y);
                *best = best.min(d);
            }
        }
    }
    let (index, distance) = nearest
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("props");
    let blocker = &blockers[index];
    let placed = content
        .bundle
        .products()
        .find_map(|(stage, product)| match product {
            Product::PlacedObjects(placed) if stage == blocker.stage => Some(placed),
            _ => None,
        })
        .expect("the blocker's product");
    assert_eq!(placed.placements_stage, SCATTER_STAGE);
    let object = &placed.objects[blocker.index as usize];
    let position = (blocker.position.x, blocker.position.y);
    (
        object.placement.id.bits(),
        position,
        blocker.radius_m,
        distance,
    )
}

/// The bench's collision radius (assets/street-props.family.ron).
const BENCH_RADIUS_M: f64 = 0.9;

/// Replaces the example's (empty) override set with one that turns `target` into a bench.
fn write_replace(dir: &Path, target: u64) {
    let text = format!(
        "OverrideSet(\n    schema: 3,\n    id: \"street-block-edits\",\n    recipe: \"street-block\",\n    \
         base_seed: Some(7),\n    base_revision: \"\",\n    overrides: [\n        Override(\n            \
         stage: {SCATTER_STAGE},\n            target: {target},\n            precedence: 0,\n            \
         base: \"\",\n            action: Replace(variant: \"bench\"),\n        ),\n    ],\n    mutations: [],\n)\n"
    );
    let path = dir.join("overrides/street-block-edits.overrides.ron");
    std::fs::write(path, text).expect("write the override set");
}

fn simulate_json(dir: &Path) -> serde_json::Value {
    let path = dir.display().to_string();
    let frames = FRAMES.to_string();
    let output = stagecraft(&[
        "simulate",
        &path,
        "--scenario",
        SCENARIO,
        "--frames",
        &frames,
        "--every",
        "0",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    serde_json::from_str(&stdout(&output)).expect("a JSON report")
}

fn generate_digest(dir: &Path) -> String {
    let output = stagecraft(&["generate", &dir.display().to_string(), "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    report["recipes"][0]["digest"]
        .as_str()
        .expect("a bundle digest")
        .to_owned()
}

/// What the editor's session shows of the project in `dir` at [`FRAMES`].
struct SessionView {
    /// The world's state digest.
    state: String,
    /// The content's bundle digest.
    bundle: String,
    /// The simulation's blockers: (x, y, radius), metres.
    blockers: Vec<(f64, f64, f64)>,
    /// The variant `target` has in the placed product.
    target_variant: Option<String>,
}

fn session_view(dir: &Path, target: u64) -> SessionView {
    let (_, loaded) = load_dir(dir).expect("readable");
    let project = loaded.project.expect("loads");
    let mut session = Session::default();
    let mut service = GenerationService::inline();
    session.choose_scenario_for(&project, None);
    let recipe = focus_recipe_in(&project, None, session.scenario_id(), service.recipe());
    service.sync_parts(0, 1, &project, recipe.as_deref());
    session.sync_project(&project, None, &service);
    assert_eq!(session.problem(), None);
    assert_eq!(session.scenario_id(), Some(SCENARIO));
    session.step(FRAMES);
    let content = session.content().expect("content");
    let space = content.sim_space().expect("a space");
    let target_variant = content
        .bundle
        .products()
        .find_map(|(_, product)| match product {
            Product::PlacedObjects(placed) => placed
                .objects
                .iter()
                .find(|o| o.placement.id.bits() == target)
                .and_then(|o| placed.variant_ids.get(o.placement.variant as usize))
                .cloned(),
            _ => None,
        });
    SessionView {
        state: session.world().expect("a world").state_digest_hex(),
        bundle: content.bundle.digest_hex(),
        blockers: space
            .blockers
            .iter()
            .map(|b| (b.position.x, b.position.y, b.radius_m))
            .collect(),
        target_variant,
    }
}

#[test]
fn simulate_and_the_editor_session_run_over_the_overridden_world() {
    let base = example("street-block");
    let edited = example("street-block");
    let (target, (x, y), radius_m, distance_m) = prop_nearest_a_walker(&base.dir);
    // The lamp at (6.67, −4.87) by the south walkway: a walker passes about 1 m from its centre
    // (0.78 m before walkers kept lanes past oncoming bodies), its body (a blocker is cleared by
    // its radius plus the body radius) clear of the lamp's 0.15 m circle but not of a bench's
    // 0.9 m one.
    assert_eq!(((x, y), radius_m), ((6.67, -4.87), 0.15));
    assert!(
        radius_m + BODY_RADIUS_M < distance_m && distance_m < BENCH_RADIUS_M + BODY_RADIUS_M,
        "a walker passes {distance_m} m from the prop"
    );
    write_replace(&edited.dir, target);

    let base_view = session_view(&base.dir, target);
    let view = session_view(&edited.dir, target);
    // The replacement applies: a bench stands there, in the content and in the space.
    assert_eq!(base_view.target_variant.as_deref(), Some("lamp"));
    assert_eq!(view.target_variant.as_deref(), Some("bench"));
    assert!(base_view.blockers.contains(&(x, y, radius_m)));
    assert!(view.blockers.contains(&(x, y, BENCH_RADIUS_M)));
    assert_eq!(view.blockers.len(), base_view.blockers.len());
    // `generate` applies it too, so the content is the one `generate`, `cook` and `export` see.
    assert_eq!(view.bundle, generate_digest(&edited.dir));
    assert_ne!(view.bundle, base_view.bundle);

    let report = simulate_json(&edited.dir);
    let base_report = simulate_json(&base.dir);
    assert_eq!(report["frame"], FRAMES);
    assert_eq!(report["bundle_digest"], view.bundle.as_str());
    assert_eq!(report["state_digest"], view.state.as_str());
    assert_eq!(base_report["bundle_digest"], base_view.bundle.as_str());
    assert_eq!(base_report["state_digest"], base_view.state.as_str());
    // And the run differs from the base world's.
    assert_ne!(report["state_digest"], base_report["state_digest"]);
}
