//! The scenario half of the one rulebook: whatever the simulation refuses to compile
//! (`CompiledScenario::compile`, which `stagecraft simulate` and the editor's Timeline run) is
//! already an error of `stagecraft check` (the project's validation) at the same field path.
//!
//! Every numeric field of one scenario of each example is set, one at a time, to values a designer
//! could type (zero, negative, huge); the mutated document goes through the real loader and
//! rulebook, and each problem the simulation's compiler reports must be one of its located errors.

use std::path::PathBuf;

use stagecraft_editor::project_io::read_sources;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::decode::Encode;
use stagecraft_runtime::project::write::{to_canonical_string, Doc};
use stagecraft_runtime::project::{load_project, scenario_file, ProjectSources};
use stagecraft_runtime::recipe::load_and_check;
use stagecraft_runtime::sim::CompiledScenario;

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
