//! `docs/format.md` agrees with the code: its operator sections are exactly what
//! `stagecraft ops --markdown` prints, its scenario sections are what the field schemas generate
//! (`stagecraft schema --markdown`), and each document table lists exactly the fields the
//! decoder reads, in canonical order.

use std::path::PathBuf;

use stagecraft_editor::cli::ops::markdown;
use stagecraft_runtime::project::{
    AssetFamily, AssetVariant, Box3, Directive, Manifest, Mutation, Observer, Override,
    OverrideSet, PopulationSource, Recipe, Scenario, Stage, SCENARIO_SECTIONS,
};

fn format_reference() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/format.md");
    std::fs::read_to_string(&path).expect("docs/format.md")
}

#[test]
fn operator_sections_are_generated_from_the_parameter_schemas() {
    let text = format_reference();
    let begin = "<!-- ops:begin -->\n";
    let start = text.find(begin).expect("ops:begin marker") + begin.len();
    let end = text.find("<!-- ops:end -->").expect("ops:end marker");
    assert_eq!(
        &text[start..end],
        markdown(),
        "regenerate with `stagecraft ops --markdown` between the markers"
    );
    assert!(markdown().contains("| `cell_size` | int | lattice units |"));
}

/// The field names of the table under the heading "### `Name(…)`", in order.
fn documented_fields(text: &str, ron_name: &str) -> Vec<String> {
    let heading = format!("### `{ron_name}(…)`");
    let start = text
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/format.md has no section {heading}"));
    text[start..]
        .lines()
        .skip(1)
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .filter_map(|line| line.split('`').nth(1).map(str::to_owned))
        .collect()
}

#[test]
fn every_document_field_is_documented_in_canonical_order() {
    let text = format_reference();
    let structs: [(&str, &[&str]); 13] = [
        (Manifest::RON_NAME, Manifest::FIELD_NAMES),
        (Recipe::RON_NAME, Recipe::FIELD_NAMES),
        (Stage::RON_NAME, Stage::FIELD_NAMES),
        (Scenario::RON_NAME, Scenario::FIELD_NAMES),
        (Observer::RON_NAME, Observer::FIELD_NAMES),
        (PopulationSource::RON_NAME, PopulationSource::FIELD_NAMES),
        (Box3::RON_NAME, Box3::FIELD_NAMES),
        (Directive::RON_NAME, Directive::FIELD_NAMES),
        (OverrideSet::RON_NAME, OverrideSet::FIELD_NAMES),
        (Override::RON_NAME, Override::FIELD_NAMES),
        (Mutation::RON_NAME, Mutation::FIELD_NAMES),
        (AssetFamily::RON_NAME, AssetFamily::FIELD_NAMES),
        (AssetVariant::RON_NAME, AssetVariant::FIELD_NAMES),
    ];
    for (name, fields) in structs {
        assert_eq!(
            documented_fields(&text, name),
            fields.to_vec(),
            "docs/format.md's table for `{name}(…)`"
        );
    }
}

#[test]
fn scenario_sections_are_generated_from_the_field_schemas() {
    use stagecraft_editor::cli::schema::scenario_markdown;
    let text = format_reference();
    let begin = "<!-- scenario:begin -->\n";
    let start = text.find(begin).expect("scenario:begin marker") + begin.len();
    let end = text
        .find("<!-- scenario:end -->")
        .expect("scenario:end marker");
    assert_eq!(
        &text[start..end],
        scenario_markdown(),
        "regenerate with `stagecraft schema --markdown` (its `## scenario` part) between the markers"
    );
    // Every range the compiler checks is in its field's row.
    for section in SCENARIO_SECTIONS {
        for field in section.fields {
            if let Some(range) = field.range {
                let heading = format!("### `{}(…)`", section.name);
                let table = &text[text.find(&heading).expect("the section")..];
                let row = table
                    .lines()
                    .find(|line| line.starts_with(&format!("| `{}` |", field.name)))
                    .expect("the field's row");
                assert!(
                    row.contains(range.text),
                    "{}.{}: {row}",
                    section.name,
                    field.name
                );
            }
        }
    }
}

#[test]
fn lattice_units_and_street_routes_are_findable() {
    let text = format_reference();
    assert!(text.contains("## Lattice units"));
    assert!(text.contains("`exclusion_radius` | integer (i64) | lattice units"));
    for route in ["sidewalk.north", "sidewalk.south", "crosswalk.0"] {
        assert!(text.contains(route), "{route} is documented");
    }
    use stagecraft_runtime::ops::street_block::{crosswalk_id, SIDEWALKS};
    for route in SIDEWALKS
        .iter()
        .map(|s| s.to_string())
        .chain([crosswalk_id(0)])
    {
        assert!(text.contains(route.as_str()), "{route} is documented");
    }
}

#[test]
fn motion_profile_tables_are_generated_from_their_schema() {
    use stagecraft_editor::cli::schema::motion_markdown;
    use stagecraft_runtime::project::{Clip, MotionProfileDoc, MOTION_DOCUMENT};
    let text = format_reference();
    let begin = "<!-- motion:begin -->\n";
    let start = text.find(begin).expect("motion:begin marker") + begin.len();
    let end = text.find("<!-- motion:end -->").expect("motion:end marker");
    assert_eq!(
        &text[start..end],
        motion_markdown(),
        "regenerate with `stagecraft schema --markdown` (its `## motion` part) between the markers"
    );
    // The schema names exactly the fields the decoder reads, in canonical order.
    let names = |i: usize| -> Vec<&str> {
        MOTION_DOCUMENT.sections[i]
            .fields
            .iter()
            .map(|f| f.name)
            .collect()
    };
    assert_eq!(names(0), MotionProfileDoc::FIELD_NAMES[1..].to_vec());
    assert_eq!(names(1), Clip::FIELD_NAMES.to_vec());
    assert!(text.contains("| `speed_m_s` | float | m/s | > 0 | required |"));
}
