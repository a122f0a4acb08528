//! `stagecraft simulate --seed N --set STAGE.PARAM=VALUE`: a sweep row reproduced from the
//! command line. The seed replaces the world's seed (and the report says which), the same seed
//! gives the same final state digest, another seed another one, the manifest's own seed the
//! digest of a run without `--seed`; `--set` edits the recipe as `diff --set` does.

use std::path::{Path, PathBuf};

use stagecraft_editor::cli::simulate_variant::Variant;
use stagecraft_editor::cli::{simulate, SimulateOptions};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../projects")
        .join(name)
}

fn run(project: &str, scenario: &str, seed: Option<u64>, sets: &[String]) -> serde_json::Value {
    let options = SimulateOptions {
        scenario,
        frames: None,
        json: true,
        variant: Variant { seed, sets },
        ..SimulateOptions::default()
    };
    let mut out = Vec::new();
    let code = simulate(&example(project), &options, &mut out).expect("simulate runs");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(code, 0, "{text}");
    serde_json::from_str(&text).expect("a JSON report")
}

fn digest(report: &serde_json::Value) -> String {
    report["state_digest"]
        .as_str()
        .expect("a digest")
        .to_owned()
}

#[test]
fn a_seed_reseeds_the_world_and_the_same_seed_repeats_its_digest() {
    let base = run("street-lifecycle", "retire-reuse", None, &[]);
    let manifest_seed = base["seed"].as_u64().expect("seed");
    let seven = run("street-lifecycle", "retire-reuse", Some(11), &[]);
    let seven_again = run("street-lifecycle", "retire-reuse", Some(11), &[]);
    let eight = run("street-lifecycle", "retire-reuse", Some(12), &[]);
    let own = run("street-lifecycle", "retire-reuse", Some(manifest_seed), &[]);
    assert_eq!(seven["seed"], 11);
    assert_eq!(eight["seed"], 12);
    assert_eq!(digest(&seven), digest(&seven_again));
    assert_ne!(digest(&seven), digest(&eight));
    assert_ne!(digest(&seven), digest(&base));
    assert_eq!(digest(&own), digest(&base));
    // The content is the manifest seed's: the bundle the world runs over does not change.
    assert_eq!(seven["bundle_digest"], base["bundle_digest"]);
    assert_eq!(digest(&seven).len(), 64);
}

#[test]
fn a_set_edits_the_scenario_recipe_like_diff_set() {
    let base = run("street-block", "crosswalk-rush", None, &[]);
    let sets = vec!["2.cell_size=400".to_owned()];
    let edited = run("street-block", "crosswalk-rush", None, &sets);
    assert_ne!(edited["bundle_digest"], base["bundle_digest"]);
    assert_ne!(digest(&edited), digest(&base));
    let again = run("street-block", "crosswalk-rush", None, &sets);
    assert_eq!(digest(&again), digest(&edited));
}

#[test]
fn a_set_naming_no_stage_is_refused_with_the_argument() {
    let sets = vec!["9999.cell_size=300".to_owned()];
    let options = SimulateOptions {
        scenario: "crosswalk-rush",
        frames: Some(1),
        variant: Variant {
            seed: None,
            sets: &sets,
        },
        ..SimulateOptions::default()
    };
    let error = simulate(&example("street-block"), &options, &mut Vec::new())
        .expect_err("an unknown stage is refused");
    assert_eq!(
        format!("{error:#}"),
        "--set `9999.cell_size=300`: no recipe has stage 9999"
    );
}
