//! `stagecraft schema --json` (issue 27, "one schema per concept"): every scenario field of
//! every section is listed with its unit and range, exactly as the runtime's field schemas
//! (which the compiler checks against) say, and every directive kind with its targets.

use stagecraft_editor::cli::{parse_cli, run_command};
use stagecraft_runtime::project::{
    CrossingsSettings, MotionSettings, PopulationSettings, PopulationSource, Scenario,
    VehicleSource, DIRECTIVE_SCHEMA, SCENARIO_SECTIONS,
};

fn schema_json() -> serde_json::Value {
    let cli = parse_cli(
        ["stagecraft", "schema", "--json"]
            .map(std::ffi::OsString::from)
            .to_vec(),
    )
    .expect("the arguments parse");
    let command = cli.command.expect("a subcommand");
    let mut out = Vec::new();
    let code = run_command(&command, &mut out).expect("the command runs");
    assert_eq!(code, 0);
    serde_json::from_slice(&out).expect("JSON")
}

#[test]
fn every_scenario_field_is_listed_with_its_unit_and_range() {
    let json = schema_json();
    assert_eq!(
        json["schema"], "stagecraft.schema/1",
        "the layout's version key"
    );
    let scenario = json["documents"]
        .as_array()
        .and_then(|docs| docs.iter().find(|d| d["kind"] == "scenario"))
        .expect("the scenario document");
    assert_eq!(scenario["file"], "scenarios/<id>.scenario.ron");
    let sections = scenario["sections"].as_array().expect("sections");
    let names: Vec<&str> = sections.iter().filter_map(|s| s["name"].as_str()).collect();
    for wanted in [
        "Scenario",
        "Observer",
        "Source",
        "VehicleSource",
        "Crossings",
        "Population",
        "Motion",
        "Exit",
        "Object",
        "Barrier",
        "Directive",
    ] {
        assert!(names.contains(&wanted), "section {wanted} in {names:?}");
    }
    let mut ranged = 0;
    for section in SCENARIO_SECTIONS {
        let listed = sections
            .iter()
            .find(|s| s["name"] == section.name)
            .expect("the section");
        let fields = listed["fields"].as_array().expect("fields");
        assert_eq!(fields.len(), section.fields.len(), "{}", section.name);
        for (json_field, field) in fields.iter().zip(section.fields) {
            assert_eq!(json_field["name"], field.name);
            assert_eq!(
                json_field["unit"], field.unit,
                "{}.{}",
                section.name, field.name
            );
            match field.range {
                Some(range) => {
                    ranged += 1;
                    assert_eq!(json_field["range"]["text"], range.text);
                    assert_eq!(json_field["range"]["min_open"], range.min_open);
                    if range.max.is_finite() {
                        assert_eq!(json_field["range"]["max"], range.max);
                    }
                }
                None => assert!(json_field["range"].is_null()),
            }
        }
    }
    assert!(ranged >= 40, "{ranged} ranged fields");
    // The sections name exactly the fields the decoder reads.
    let fields_of = |name: &str| -> Vec<String> {
        sections
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["fields"].as_array())
            .map(|f| {
                f.iter()
                    .filter_map(|f| f["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (name, decoded) in [
        (Scenario::RON_NAME, Scenario::FIELD_NAMES),
        (CrossingsSettings::RON_NAME, CrossingsSettings::FIELD_NAMES),
        (
            PopulationSettings::RON_NAME,
            PopulationSettings::FIELD_NAMES,
        ),
        (MotionSettings::RON_NAME, MotionSettings::FIELD_NAMES),
        (VehicleSource::RON_NAME, VehicleSource::FIELD_NAMES),
        (PopulationSource::RON_NAME, PopulationSource::FIELD_NAMES),
    ] {
        assert_eq!(fields_of(name), decoded.to_vec(), "{name}");
    }
    // A signal timing: seconds, positive, default 6.
    let crossings = sections
        .iter()
        .find(|s| s["name"] == "Crossings")
        .expect("crossings");
    let walk = crossings["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["name"] == "pedestrian_s"))
        .expect("the walk phase");
    assert_eq!(walk["unit"], "s");
    assert_eq!(walk["range"]["text"], "> 0");
    assert_eq!(walk["default"], 6.0);
}

#[test]
fn every_document_and_directive_kind_is_listed() {
    let json = schema_json();
    let kinds: Vec<&str> = json["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .filter_map(|d| d["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "manifest",
            "recipe",
            "scenario",
            "overrides",
            "family",
            "motion"
        ]
    );
    let directives = json["directives"].as_array().expect("directives");
    assert_eq!(directives.len(), DIRECTIVE_SCHEMA.len());
    let panic = directives
        .iter()
        .find(|d| d["name"] == "Panic")
        .expect("Panic");
    assert_eq!(panic["targets"], "world");
    assert_eq!(panic["target_kinds"], serde_json::json!(["World"]));
    let radius = &panic["fields"][1];
    assert_eq!(
        (radius["name"].as_str(), radius["unit"].as_str()),
        (Some("radius_m"), Some("m"))
    );
    let stand = directives
        .iter()
        .find(|d| d["name"] == "Stand")
        .expect("Stand");
    assert_eq!(stand["world"], false);
    assert_eq!(
        stand["fields"][0]["range"]["text"],
        "a duration in (0, 3600] seconds"
    );
    assert!(json["override_actions"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
}
