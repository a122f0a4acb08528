//! Motion profiles as assets: the `street-lifecycle` example ships the standard walking and
//! running profiles as `assets/*.motion.ron` (so its worlds equal the standard table), and a
//! profile that breaks a rule gets a located `check` error. `STAGECRAFT_BLESS=1 cargo test
//! --workspace --test motion_profiles` rewrites the example files after a deliberate change of
//! the standard profiles.

use std::collections::BTreeMap;

use stagecraft_io::scenario::compile_profiles;
use stagecraft_io::sources::open_project;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::{canonical_text, load_project, ProjectSources, Severity};
use stagecraft_runtime::sim::config::profiles::{standard_profile, ProfileTable, RUNNING, WALKING};
use stagecraft_runtime::sim::scenario::profiles::profile_document;
use stagecraft_tests::example_project;

#[test]
fn the_example_ships_the_standard_profiles_as_assets() {
    let dir = example_project("street-lifecycle");
    for name in [WALKING, RUNNING] {
        let path = dir.join("assets").join(format!("{name}.motion.ron"));
        let profile = standard_profile(name).expect("standard");
        let generated = canonical_text(&profile_document(&profile));
        if std::env::var_os("STAGECRAFT_BLESS").is_some() {
            std::fs::write(&path, &generated).expect("written");
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            shipped == generated,
            "{} is not the standard profile",
            path.display()
        );
    }
    let registry = Registry::standard();
    let (_, loaded) = open_project(&dir, &registry).expect("readable");
    let project = loaded.project.expect("loads");
    assert_eq!(
        project.motions.keys().collect::<Vec<_>>(),
        vec!["running", "walking"]
    );
    assert_eq!(project.motion_files["running"], "assets/running.motion.ron");
    let table = compile_profiles(&project.motions);
    assert!(
        table.is_standard(),
        "the worlds keep their configuration digest"
    );
    assert_eq!(table.get(1).reference_speed_m_s, 5.94324);
    assert_eq!(table.get(1).speed_m_s, 3.3);
}

fn project_with(profile_text: &str) -> ProjectSources {
    let mut files = BTreeMap::new();
    files.insert(
        "stagecraft.ron".to_owned(),
        "Manifest(schema: 2, name: \"m\", root_seed: 1, asset_paths: [\"assets\"], recipes: [], scenarios: [], overrides: [])".to_owned(),
    );
    files.insert(
        "assets/brisk.motion.ron".to_owned(),
        profile_text.to_owned(),
    );
    ProjectSources {
        files,
        ..ProjectSources::default()
    }
}

#[test]
fn a_profile_breaking_a_rule_gets_a_located_error() {
    let mut doc = profile_document(&standard_profile(WALKING).expect("walking"));
    doc.id = "brisk".into();
    doc.start.samples.truncate(120);
    doc.speed_m_s = 0.0;
    let text = canonical_text(&doc);
    let loaded = load_project(&project_with(&text));
    let errors: Vec<(String, String, u32)> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.path.to_string(), d.message.clone(), d.line))
        .collect();
    let speed_line = text
        .lines()
        .position(|l| l.trim_start().starts_with("speed_m_s"))
        .expect("speed line") as u32
        + 1;
    let samples_line = text
        .lines()
        .position(|l| l.trim_start().starts_with("samples"))
        .expect("samples line") as u32
        + 1;
    assert_eq!(
        errors,
        vec![
            (
                "speed_m_s".to_owned(),
                "speed_m_s is 0".to_owned(),
                speed_line
            ),
            (
                "start.samples".to_owned(),
                "120 samples".to_owned(),
                samples_line
            ),
        ]
    );
    // The valid one loads and replaces nothing standard: a new profile after the standard two.
    let mut brisk = profile_document(&standard_profile(WALKING).expect("walking"));
    brisk.id = "brisk".into();
    brisk.speed_m_s = 1.8;
    let loaded = load_project(&project_with(&canonical_text(&brisk)));
    assert!(loaded
        .diagnostics
        .iter()
        .all(|d| d.severity != Severity::Error));
    let table = compile_profiles(&loaded.project.expect("loads").motions);
    assert_eq!(table.index_of("brisk"), Some(2));
    assert_eq!(table.get(2).speed_m_s, 1.8);
    assert_ne!(table, ProfileTable::standard());
}

#[test]
fn an_unknown_motion_profile_named_by_a_source_or_directive_is_a_located_error() {
    let dir = example_project("street-lifecycle");
    let registry = Registry::standard();
    let (mut sources, _) = open_project(&dir, &registry).expect("readable");
    let file = "scenarios/start-stop-return.scenario.ron";
    let text = sources.files[file].clone();
    let text = text
        .replacen(
            "at_route_end: Stop,",
            "at_route_end: Stop,\n            motion_profile: Some(\"sprinting\"),",
            1,
        )
        .replacen(
            "goal: (-15.0, 5.5, 0.0),\n            ),",
            "goal: (-15.0, 5.5, 0.0),\n            ),\n            motion_profile: Some(\"running\"),",
            1,
        );
    let line = text
        .lines()
        .position(|l| l.contains("\"sprinting\""))
        .expect("inserted") as u32
        + 1;
    sources.files.insert(file.to_owned(), text);
    let loaded = load_project(&sources);
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = errors[0];
    assert_eq!(e.file, file);
    assert_eq!(e.path.to_string(), "sources[0].motion_profile");
    // At the value, after `            motion_profile: `.
    assert_eq!((e.line, e.column), (line, 29), "{e:?}");
    assert_eq!(e.message, "unknown motion profile `sprinting`");
    assert_eq!(
        e.expected,
        "one of the project's motion profiles: running, walking"
    );
}

#[test]
fn a_motion_profile_on_a_command_that_walks_no_route_is_refused_at_its_field() {
    use stagecraft_runtime::project::{Directive, DirectiveCommand, Target};
    use stagecraft_runtime::sim::config::CompiledScenario;
    use stagecraft_runtime::sim::problems::SimProblem;
    let registry = Registry::standard();
    let (_, loaded) =
        open_project(&example_project("street-lifecycle"), &registry).expect("readable");
    let mut scenario = loaded.project.expect("loads").scenarios["start-stop-return"].clone();
    let target = Target::Born {
        source: "courier".into(),
        ordinal: 0,
    };
    let mut hold = Directive::new(160, target, DirectiveCommand::Hold);
    hold.motion_profile = Some("running".into());
    scenario.directives.push(hold);
    let error = CompiledScenario::compile(&scenario).expect_err("refused");
    assert_eq!(error.diagnostics.len(), 1, "{error}");
    let d = &error.diagnostics[0];
    assert_eq!(d.path.to_string(), "directives[2].motion_profile");
    assert_eq!(d.problem, SimProblem::ProfileOnNonRoute);
    assert_eq!(
        d.problem.to_string(),
        "directive names a motion profile, but its command walks no route"
    );
}
