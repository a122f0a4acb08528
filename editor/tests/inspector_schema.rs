//! The Inspector walks the runtime's scenario schema (issue 27, "one schema per concept"):
//! every field of every section has its row, labelled as the schema says, and one field of
//! each section is edited in the Inspector (a reset to the schema's default) and undone.

mod support;

use egui_kittest::kittest::{NodeT as _, Queryable as _};
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_runtime::project::{
    scenario_field, AimKey, AttachFaultSpec, Barrier, ExitNode, FieldPath, HazardVehicle, PathSeg,
    Scenario, SceneObject, Vec3, VehicleSource, SCENARIO_SECTIONS,
};
use support::{example, harness};

type Editor = egui_kittest::Harness<'static, stagecraft_editor::app::StagecraftApp>;

const ID: &str = "crosswalk-rush";

fn doc() -> DocId {
    DocId::Scenario(ID.into())
}

fn scenario(harness: &Editor) -> Scenario {
    harness
        .state()
        .document()
        .expect("a document")
        .project()
        .scenarios[ID]
        .clone()
}

/// `a.b[0].c` as a field path.
fn path(text: &str) -> FieldPath {
    let mut path = FieldPath::root();
    for part in text.split('.') {
        match part.split_once('[') {
            Some((name, index)) => {
                path.0.push(PathSeg::Field(name.to_owned()));
                let index = index.trim_end_matches(']').parse().expect("an index");
                path.0.push(PathSeg::Index(index));
            }
            None => path.0.push(PathSeg::Field(part.to_owned())),
        }
    }
    path
}

fn select(harness: &mut Editor, at: &str) {
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(doc(), path(at)));
    harness.run_steps(4);
}

/// The example's scenario with one item in every list section and each edited field off its
/// default, applied as one edit.
fn prepare(harness: &mut Editor) {
    let mut s = scenario(harness);
    let v = |x, y, z| Vec3 { x, y, z };
    s.fixed_step_s = 0.1;
    s.observers[0].close_m = 5.0;
    s.observers[0].aim.push(AimKey {
        frame: 0,
        yaw_rad: 0.0,
        pitch_rad: -0.3,
    });
    s.sources[0].walk_speed_m_s = 2.0;
    s.vehicle_sources.push(VehicleSource {
        id: "cars".into(),
        lane: "lane.0".into(),
        target_count: 2,
        speed_m_s: 12.0,
    });
    s.crossings.lanes = 4;
    s.crossings.hazard = Some(HazardVehicle {
        y_m: 0.0,
        speed_m_s: 6.0,
    });
    s.population.ped_frame_rate = 30.0;
    s.population.fault = Some(AttachFaultSpec {
        batch: 0,
        item: 0,
        fail_restore: true,
    });
    s.motion.full_enter_m = Some(20.0);
    s.motion.exits.push(ExitNode {
        id: "gate".into(),
        position: v(10.0, 0.0, 0.0),
        capacity: 4,
    });
    s.objects.push(SceneObject {
        id: "kiosk".into(),
        position: v(3.0, 3.0, 0.0),
        yaw_rad: 0.5,
        scale: v(1.0, 1.0, 1.0),
        half_extents_m: Vec3::default(),
    });
    s.barriers.push(Barrier {
        id: "fence".into(),
        from: v(-2.0, 5.0, 0.0),
        to: v(2.0, 5.0, 0.0),
        thickness_m: 0.5,
        in_navigation: true,
    });
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Scenario(s)),
        Selection::field(doc(), FieldPath::root()),
        "Prepare every section",
    ));
    harness.run_steps(3);
}

/// (section, its item's path, the field edited, the field's value now).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Scenario) -> f64,
);

const CASES: [Case; 13] = [
    ("Scenario", "", "fixed_step_s", |s| s.fixed_step_s),
    ("Observer", "observers[0]", "close_m", |s| {
        s.observers[0].close_m
    }),
    ("Aim", "observers[0].aim[0]", "pitch_rad", |s| {
        s.observers[0].aim[0].pitch_rad
    }),
    ("Source", "sources[0]", "walk_speed_m_s", |s| {
        s.sources[0].walk_speed_m_s
    }),
    ("VehicleSource", "vehicle_sources[0]", "speed_m_s", |s| {
        s.vehicle_sources[0].speed_m_s
    }),
    ("Crossings", "crossings", "lanes", |s| {
        f64::from(s.crossings.lanes)
    }),
    ("Hazard", "crossings.hazard", "speed_m_s", |s| {
        s.crossings
            .hazard
            .as_ref()
            .map_or(f64::NAN, |h| h.speed_m_s)
    }),
    ("Population", "population", "ped_frame_rate", |s| {
        s.population.ped_frame_rate
    }),
    ("AttachFault", "population.fault", "fail_restore", |s| {
        f64::from(u8::from(
            s.population.fault.as_ref().is_some_and(|f| f.fail_restore),
        ))
    }),
    ("Motion", "motion", "full_enter_m", |s| {
        s.motion.tier_values().full_enter_m
    }),
    ("Exit", "motion.exits[0]", "capacity", |s| {
        f64::from(s.motion.exits[0].capacity)
    }),
    ("Object", "objects[0]", "yaw_rad", |s| s.objects[0].yaw_rad),
    ("Barrier", "barriers[0]", "thickness_m", |s| {
        s.barriers[0].thickness_m
    }),
];

#[test]
fn every_section_has_a_row_per_field_and_one_field_of_each_is_edited_and_undone() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    prepare(&mut harness);
    let mut edited = Vec::new();
    for (section, item, name, value_of) in CASES {
        let field = scenario_field(section, name);
        assert_eq!(field.name, name, "the schema has {section}.{name}");
        let at = if item.is_empty() {
            name.to_owned()
        } else {
            format!("{item}.{name}")
        };
        select(&mut harness, &at);
        // Every field of the section has its row, labelled as the schema says.
        let schema = SCENARIO_SECTIONS
            .iter()
            .find(|s| s.name == section)
            .expect("a section");
        for f in schema.fields.iter().filter(|f| f.name != "schema") {
            assert!(
                harness
                    .query_all_by_label_contains(f.label)
                    .next()
                    .is_some(),
                "{section}: no row labelled {:?} for `{}`",
                f.label,
                f.name
            );
        }
        // One edit in the Inspector: the reset to the schema's default, then its undo.
        let before = value_of(&scenario(&harness));
        let default = match field.default {
            stagecraft_runtime::project::FieldDefault::Number(n) => n,
            stagecraft_runtime::project::FieldDefault::Bool(b) => f64::from(u8::from(b)),
            other => panic!("{section}.{name} has no default to reset to: {other:?}"),
        };
        assert_ne!(before, default, "{at} starts off its default");
        harness.get_by_label(&format!("Reset {at}")).click();
        harness.run_steps(3);
        assert_eq!(value_of(&scenario(&harness)), default, "{at} reset");
        let undo = harness
            .state()
            .document()
            .expect("a document")
            .record()
            .undo_string()
            .unwrap_or_default();
        assert!(
            undo.contains(name),
            "the reset of {at} is the last edit: {undo}"
        );
        assert!(harness
            .state_mut()
            .document_mut()
            .expect("a document")
            .undo());
        harness.run_steps(3);
        assert_eq!(value_of(&scenario(&harness)), before, "{at} undone");
        edited.push(section);
    }
    assert_eq!(edited.len(), CASES.len());
}

#[test]
fn directives_are_listed_by_frame() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let mut s = scenario(&harness);
    assert!(s.directives.len() >= 2, "the example scripts directives");
    // The last directive moved to frame 1: it is listed first, keeping its index.
    let last = s.directives.len() - 1;
    s.directives[last].frame = 1;
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Scenario(s.clone())),
        Selection::field(doc(), path("directives")),
        "Move a directive",
    ));
    select(&mut harness, "directives");
    let titles: Vec<String> = harness
        .query_all_by_label_contains(": frame ")
        .filter_map(|node| {
            let node = node.accesskit_node();
            node.label().or_else(|| node.value())
        })
        .collect();
    let first = titles.first().cloned().unwrap_or_default();
    assert!(
        first.starts_with(&format!("{last}: frame 1 ·")),
        "the earliest directive first: {titles:?}"
    );
    let frames: Vec<u64> = titles
        .iter()
        .filter_map(|t| t.split("frame ").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    assert!(
        frames.windows(2).all(|w| w[0] <= w[1]),
        "sorted: {frames:?}"
    );
}

/// An escape directive's rows come from the schemas too: the directive's source and session
/// (the Directive section) and the escape's endpoint and restore option (the directive
/// table); the session's reset is one edit, undone.
#[test]
fn an_escape_directive_shows_its_identity_and_event_fields_and_a_reset_is_undone() {
    use stagecraft_runtime::project::{Directive, DirectiveCommand, Target};
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let mut s = scenario(&harness);
    let target = Target::Born {
        source: s.sources[0].id.clone(),
        ordinal: 0,
    };
    let escape = DirectiveCommand::Escape {
        threat: Vec3::default(),
        safe_distance_m: 6.0,
        endpoint: Some(Vec3 {
            x: 8.0,
            y: 0.0,
            z: 0.0,
        }),
        restore_interrupted: true,
    };
    let mut directive = Directive::new(5, target, escape);
    directive.source = "alarm".into();
    directive.session = 3;
    s.directives.insert(0, directive);
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Scenario(s)),
        Selection::field(doc(), path("directives[0]")),
        "Add an escape",
    ));
    select(&mut harness, "directives[0].session");
    for label in ["Source", "Session", "Endpoint", "Restore interrupted"] {
        assert!(
            harness.query_all_by_label_contains(label).next().is_some(),
            "no row labelled {label:?}"
        );
    }
    harness.get_by_label("Reset directives[0].session").click();
    harness.run_steps(3);
    assert_eq!(scenario(&harness).directives[0].session, 0, "reset");
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(3);
    let undone = &scenario(&harness).directives[0];
    assert_eq!((undone.session, undone.source.as_str()), (3, "alarm"));
}

/// The Motion section's tier policy is a combo of the shipped policies: picking `crowd-radii`
/// is one edit that also clears the tier fields the scenario gave (so it runs exactly the
/// policy), the rows then show the policy's values, a field's reset leaves it to the policy,
/// and undo restores the scenario.
#[test]
fn the_tier_policy_is_picked_in_a_combo_and_undone() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 4000.0));
    let before = scenario(&harness);
    assert_eq!(before.motion.tier_policy, "motion-bands");
    assert_eq!(
        before.motion.full_enter_m,
        Some(25.0),
        "the example spells it out"
    );
    select(&mut harness, "motion.tier_policy");
    harness
        .get_by_role_and_label(egui::accesskit::Role::ComboBox, "Tier policy")
        .click();
    harness.run_steps(2);
    harness.get_by_label("Crowd radii (6 m, 18 m)").click();
    harness.run_steps(3);
    let after = scenario(&harness);
    assert_eq!(after.motion.tier_policy, "crowd-radii");
    assert_eq!(after.motion.full_enter_m, None, "the override is cleared");
    let values = after.motion.tier_values();
    assert_eq!((values.full_enter_m, values.simulated_exit_m), (6.0, 18.0));
    assert_eq!(
        harness.query_all_by_label("(policy)").count(),
        10,
        "every tier field shows the policy's value"
    );
    let undo = harness
        .state()
        .document()
        .expect("a document")
        .record()
        .undo_string()
        .unwrap_or_default();
    assert!(undo.contains("tier_policy"), "one edit: {undo}");
    // A field the scenario gives resets to the policy's value.
    let mut given = after.clone();
    given.motion.medium_relevance = Some(0.5);
    let document = harness.state_mut().document_mut().expect("a document");
    document.apply(ProjectEdit::replace(
        doc(),
        Some(DocValue::Scenario(given)),
        Selection::field(doc(), path("motion.medium_relevance")),
        "Give a relevance",
    ));
    harness.run_steps(3);
    harness
        .get_by_label("Reset motion.medium_relevance")
        .click();
    harness.run_steps(3);
    assert_eq!(scenario(&harness).motion.medium_relevance, None);
    let document = harness.state_mut().document_mut().expect("a document");
    assert!(document.undo() && document.undo() && document.undo());
    harness.run_steps(3);
    assert_eq!(scenario(&harness), before, "undone");
}
