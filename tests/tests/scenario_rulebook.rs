//! The later commands' half of the one rulebook: whatever the simulation refuses to compile
//! (`CompiledScenario::compile`, which `stagecraft simulate` and the editor's Timeline run) or to
//! build a world from (`build_world`: a vehicle source's lane), and whatever a recipe's kernel
//! refuses as invalid input (the grid mission's chunk library, which `generate` and `cook` run),
//! is already an error of `stagecraft check` (the project's validation) at the same field path.
//!
//! Every numeric field of one scenario of each example is set, one at a time, to values a designer
//! could type (zero, negative, huge); the mutated document goes through the real loader and
//! rulebook, and each problem the simulation's compiler reports must be one of its located errors.
//! Vehicle sources are given lanes that exist and lanes that do not, and the tactical mission's
//! chunk library loses each role in turn.

use std::path::PathBuf;
use std::sync::Arc;

use stagecraft_editor::project_io::read_sources;
use stagecraft_runtime::generate::{
    run_plan, CancelToken, ExecutionMode, GenerateRequest, NoObserver, StageCache,
};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::decode::Encode;
use stagecraft_runtime::project::write::{to_canonical_string, Doc};
use stagecraft_runtime::project::{
    canonical_text, load_project, recipe_file, scenario_file, FieldPath, LoadedProject,
    ProjectSources, VehicleSource,
};
use stagecraft_runtime::recipe::{compile_project_recipe, load_and_check};
use stagecraft_runtime::sim::{build_world, CompiledScenario, SimSpace};

/// The examples whose scenarios are mutated.
const PROJECTS: [&str; 5] = [
    "street-lifecycle",
    "crosswalk-demo",
    "tactical-mission",
    "streaming-crowd",
    "street-block",
];

/// What a float field is set to.
const FLOATS: [f64; 3] = [0.0, -1.0, 1.0e9];
/// What an integer field is set to.
const INTEGERS: [i128; 3] = [0, 70_000, 5_000_000_000];

fn project_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(name)
}

/// How many numeric leaves `doc` has (depth first).
fn numeric_leaves(doc: &Doc) -> usize {
    match doc {
        Doc::Int(_) | Doc::Float(_) => 1,
        Doc::List(items) | Doc::Tuple(items) | Doc::Variant(_, items) => {
            items.iter().map(numeric_leaves).sum()
        }
        Doc::Map(entries) => entries.iter().map(|(_, v)| numeric_leaves(v)).sum(),
        Doc::Struct(_, fields) => fields.iter().map(|(_, v)| numeric_leaves(v)).sum(),
        Doc::Bool(_) | Doc::Str(_) | Doc::Unit(_) => 0,
    }
}

/// Replaces numeric leaf number `*target` (depth first) by `float` or `integer`, by its kind;
/// returns whether it was found.
fn mutate(doc: &mut Doc, target: &mut usize, float: f64, integer: i128) -> bool {
    match doc {
        Doc::Int(_) | Doc::Float(_) if *target > 0 => {
            *target -= 1;
            false
        }
        Doc::Int(value) => {
            *value = integer;
            true
        }
        Doc::Float(value) => {
            *value = float;
            true
        }
        Doc::List(items) | Doc::Tuple(items) | Doc::Variant(_, items) => items
            .iter_mut()
            .any(|item| mutate(item, target, float, integer)),
        Doc::Map(entries) => entries
            .iter_mut()
            .any(|(_, v)| mutate(v, target, float, integer)),
        Doc::Struct(_, fields) => fields
            .iter_mut()
            .any(|(_, v)| mutate(v, target, float, integer)),
        Doc::Bool(_) | Doc::Str(_) | Doc::Unit(_) => false,
    }
}

/// The compiler's problems the whole rulebook (`stagecraft check`: the loader's rules and
/// `check_project`'s) does not report as an error at the same path, for
/// scenario `id` whose file holds `text`.
fn unreported(sources: &ProjectSources, id: &str, text: String) -> Vec<String> {
    let file = scenario_file(id);
    let mut sources = sources.clone();
    sources.files.insert(file.clone(), text);
    let loaded = load_and_check(&sources, &Registry::standard());
    let Some(scenario) = loaded.project.as_ref().and_then(|p| p.scenarios.get(id)) else {
        // Not decoded: the loader has said why, at a location.
        assert!(
            loaded.diagnostics_of(&file).any(|d| d.is_error()),
            "{file}: dropped without an error"
        );
        return Vec::new();
    };
    let Err(refused) = CompiledScenario::compile(scenario) else {
        return Vec::new();
    };
    refused
        .diagnostics
        .iter()
        .filter(|problem| {
            !loaded
                .diagnostics_of(&file)
                .any(|d| d.is_error() && d.path == problem.path)
        })
        .map(|problem| format!("{} {}", problem.path, problem.problem))
        .collect()
}

#[test]
fn every_scenario_the_simulation_refuses_is_an_error_of_check_at_the_same_field() {
    let mut tried = 0;
    let mut gaps = Vec::new();
    for name in PROJECTS {
        let sources = read_sources(&project_dir(name)).expect("example project");
        let loaded = load_project(&sources);
        let project = loaded.project.expect("example loads");
        // One scenario per project: they share the settings' structure, and the test must run in
        // seconds.
        for (id, scenario) in project.scenarios.iter().take(1) {
            let doc = scenario.encode();
            assert!(
                CompiledScenario::compile(scenario).is_ok(),
                "{name}/{id} compiles as shipped"
            );
            for leaf in 0..numeric_leaves(&doc) {
                for (float, integer) in FLOATS.iter().zip(INTEGERS.iter().cycle()) {
                    let mut mutated = doc.clone();
                    assert!(mutate(&mut mutated, &mut leaf.clone(), *float, *integer));
                    let text = to_canonical_string(&mutated);
                    tried += 1;
                    let missing = unreported(&sources, id, text);
                    gaps.extend(missing.into_iter().map(|m| format!("{name}/{id}: {m}")));
                }
            }
        }
    }
    gaps.sort();
    gaps.dedup();
    assert_eq!(gaps, Vec::<String>::new(), "{tried} mutations tried");
    assert!(tried > 500, "{tried} mutations");
}

/// The recipe `id` of `loaded` generated serially at the manifest's seed, or why it cannot be.
fn generated(loaded: &LoadedProject, id: &str) -> Result<SimSpace, String> {
    let project = loaded.project.as_ref().ok_or("no project")?;
    let registry = Registry::standard();
    let outcome = compile_project_recipe(loaded, id, &registry).ok_or("no recipe")?;
    let plan = outcome.plan.ok_or("does not compile")?;
    let request = GenerateRequest {
        root_seed: project.manifest.root_seed,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let mut cache = StageCache::default();
    let generated = run_plan(
        &plan,
        &request,
        &mut cache,
        &CancelToken::new(),
        &NoObserver,
    )
    .map_err(|error| error.to_string())?;
    SimSpace::from_products(generated.bundle.products(), &project.families)
        .map_err(|error| error.to_string())
}

#[test]
fn every_vehicle_lane_the_world_refuses_is_an_error_of_check_at_the_same_field() {
    let lanes = ["lane.0", "lane.1", "lane.9", "", "sidewalk.north"];
    let (mut refused, mut with_scenarios) = (0, 0);
    let mut gaps = Vec::new();
    for name in PROJECTS {
        let sources = read_sources(&project_dir(name)).expect("example project");
        let loaded = load_project(&sources);
        let project = loaded.project.as_ref().expect("example loads");
        let Some((id, scenario)) = project.scenarios.iter().next() else {
            continue;
        };
        with_scenarios += 1;
        let space = Arc::new(generated(&loaded, &scenario.recipe).expect("generates"));
        for lane in lanes {
            let mut mutated = scenario.clone();
            mutated.vehicle_sources = vec![VehicleSource {
                id: "cars".to_owned(),
                lane: lane.to_owned(),
                target_count: 2,
                speed_m_s: 8.0,
            }];
            let mut sources = sources.clone();
            let file = scenario_file(id);
            sources.files.insert(file.clone(), canonical_text(&mutated));
            let checked = load_and_check(&sources, &Registry::standard());
            let compiled = Arc::new(CompiledScenario::compile(&mutated).expect("compiles"));
            let Err(error) = build_world(&space, &compiled, project.manifest.root_seed) else {
                continue;
            };
            refused += 1;
            for problem in error.diagnostics {
                let message = problem.problem.to_string();
                let reported = checked
                    .diagnostics_of(&file)
                    .any(|d| d.is_error() && d.path == problem.path && d.message == message);
                if !reported {
                    gaps.push(format!(
                        "{name}/{id} lane {lane:?}: {} {message}",
                        problem.path
                    ));
                }
            }
        }
    }
    assert_eq!(gaps, Vec::<String>::new());
    // Each project's block has lanes 0 and 1: the other three are refused in every project.
    assert_eq!(
        with_scenarios, 4,
        "every example but tactical-mission has a scenario"
    );
    assert_eq!(refused, 3 * with_scenarios);
}

#[test]
fn every_chunk_library_the_mission_solver_refuses_is_an_error_of_check_at_the_chunks() {
    let name = "tactical-mission";
    let id = "tactical-mission";
    let sources = read_sources(&project_dir(name)).expect("example project");
    let file = recipe_file(id);
    // The example names the shipped library; its inline equivalent is checked here.
    let text =
        sources.files[&file].replace("                \"library\": \"launch\",\n", INLINE_CHUNKS);
    assert!(text.contains("tactical/rubble"), "the inline chunks");
    let without = |roles: &[&str]| -> String {
        text.lines()
            .filter(|line| {
                !roles
                    .iter()
                    .any(|role| line.contains(&format!("\"{role}\", ")))
            })
            .map(|line| format!("{line}\n"))
            .collect()
    };
    let libraries = [
        ("no spawn", without(&["spawn"])),
        ("no objective", without(&["objective"])),
        ("no extraction", without(&["extraction"])),
        ("no blocker", without(&["blocker"])),
        ("no fill", without(&["connector", "encounter", "landmark"])),
        (
            "repeated id",
            text.replace("tactical/rubble", "tactical/wall"),
        ),
        ("empty id", text.replace("tactical/rubble", "")),
    ];
    let chunks = FieldPath::root()
        .field("stages")
        .index(0)
        .field("parameters")
        .key("chunks");
    let mut gaps = Vec::new();
    for (what, library) in libraries {
        assert_ne!(library, text, "{what} changes the library");
        let mut sources = sources.clone();
        sources.files.insert(file.clone(), library);
        let checked = load_and_check(&sources, &Registry::standard());
        let errors: Vec<String> = checked
            .diagnostics_of(&file)
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}", d.path, d.message))
            .collect();
        if !checked
            .diagnostics_of(&file)
            .any(|d| d.is_error() && d.path == chunks)
        {
            let outcome = generated(&checked, id).err();
            gaps.push(format!(
                "{what}: check said {errors:?}; generate said {outcome:?}"
            ));
        }
    }
    assert_eq!(gaps, Vec::<String>::new());
    let loaded = load_and_check(&sources, &Registry::standard());
    assert!(
        generated(&loaded, id).is_ok(),
        "the shipped library generates"
    );
    // A library the linter accepts but whose graph rows lack a spawn chunk: an error of `check`
    // at the stage's `library` parameter.
    let library_file = "chunks/launch.chunks.ron";
    let mut sources = sources.clone();
    let shipped = sources.files[library_file].clone();
    let spawnless = shipped.replacen("role: \"spawn\"", "role: \"connector\"", 1);
    assert_ne!(spawnless, shipped);
    sources.files.insert(library_file.to_owned(), spawnless);
    let checked = load_and_check(&sources, &Registry::standard());
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {} {}", d.file, d.path, d.message))
        .collect();
    assert_eq!(
        errors,
        [format!(
            "{file} stages[0].parameters[\"library\"] stage 1: the chunk library has no spawn chunk"
        )]
    );
}

/// The tactical example's chunks as an inline list (the example names the shipped library).
const INLINE_CHUNKS: &str = r#"                "chunks": [
                    ("tactical/spawn-yard", "spawn", false),
                    ("tactical/objective-vault", "objective", false),
                    ("tactical/objective-office", "objective", false),
                    ("tactical/extraction-dock", "extraction", false),
                    ("tactical/hallway", "connector", false),
                    ("tactical/courtyard", "encounter", true),
                    ("tactical/tower", "landmark", false),
                    ("tactical/wall", "blocker", false),
                    ("tactical/rubble", "blocker", false),
                ],
"#;

/// A directive's box inverted on x and z: `check` reports each inverted axis with the located
/// message it always had, and the runtime box refuses the same box for its first axis — one rule
/// (`stagecraft_runtime::boxes`) behind both.
#[test]
fn an_inverted_directive_box_is_reported_per_axis_by_check_and_refused_by_the_runtime() {
    use stagecraft_runtime::boxes::BoxFault;
    use stagecraft_runtime::sim::{Command, SimBox};

    let sources = read_sources(&project_dir("street-lifecycle")).expect("example project");
    let file = scenario_file("boxes");
    let shipped = "min: (-11.0, 5.0, -1.0),\n                    max: (-9.0, 7.5, 2.0),";
    let text = sources.files[&file].clone();
    assert!(text.contains(shipped), "the example's no-spawn box");
    let mut sources = sources.clone();
    let inverted = "min: (-8.0, 5.0, 3.0),\n                    max: (-9.0, 7.5, 2.0),";
    sources
        .files
        .insert(file.clone(), text.replacen(shipped, inverted, 1));
    let loaded = load_and_check(&sources, &Registry::standard());
    let messages: Vec<(String, String)> = loaded
        .diagnostics_of(&file)
        .filter(|d| d.message.starts_with("box minimum"))
        .map(|d| (d.path.to_string(), d.message.clone()))
        .collect();
    let min = |at: &[(String, String)]| at.iter().all(|(path, _)| path.ends_with("bounds.min"));
    assert!(min(&messages), "{messages:?}");
    let texts: Vec<&str> = messages.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(
        texts,
        [
            "box minimum x -8 is above its maximum -9",
            "box minimum z 3 is above its maximum 2",
        ]
    );
    let scenario = &loaded.project.as_ref().expect("decodes").scenarios["boxes"];
    let compiled = CompiledScenario::compile(scenario).expect("run-time boxes are not compiled");
    let set = compiled
        .directives
        .iter()
        .find_map(|d| match d.command {
            Command::SetBox { bounds, .. } => Some(bounds),
            _ => None,
        })
        .expect("the directive's box");
    assert_eq!(
        set,
        SimBox {
            min_m: [-8.0, 5.0, 3.0],
            max_m: [-9.0, 7.5, 2.0],
        }
    );
    assert_eq!(set.fault(), Some(BoxFault::Inverted(0)));
}
