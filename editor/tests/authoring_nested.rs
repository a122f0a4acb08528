//! Authoring an object of a subrecipe stage's child run from the Viewport (kittest, no GPU) on
//! the street-planting example: the Delete key writes one override with the object's nested
//! path (`stage: 10, nested: [1]`), the regenerated content loses exactly that object, the edit
//! is reported as applied, and undo brings it back. The H key harvests such an object the same
//! way: one world mutation with the nested path, applied to that object only, undone in one step.

mod support;

use egui_kittest::Harness;
use stagecraft_editor::authoring::{harvested, regrow, target_of, variants_of};
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::viewport::ViewportPanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::session::PreviewContent;
use stagecraft_editor::viewport::{PickId, Preview, Projection, SharedPreview};
use stagecraft_runtime::content::Product;
use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::project::{Mutation, OverrideAction};
use support::example;

struct State {
    document: Document,
    viewport: ViewportPanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn harness(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let mut viewport = ViewportPanel::new(preview.clone());
    viewport.camera.projection = Projection::TopDown;
    let state = State {
        document,
        viewport,
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(800.0, 700.0))
        .build_ui_state(
            |ui, state: &mut State| {
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                state.viewport.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(4);
    harness
}

fn content(harness: &Harness<'_, State>) -> std::sync::Arc<PreviewContent> {
    let preview = harness.state().preview.borrow();
    let problem = preview.session.problem().map(str::to_owned);
    preview
        .session
        .content()
        .unwrap_or_else(|| panic!("generated: {problem:?}"))
        .clone()
}

/// The packed ids of the objects stage `stage` shows, in product order.
fn ids(content: &PreviewContent, stage: u32) -> Vec<u64> {
    match content.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => placed
            .objects
            .iter()
            .map(|o| o.placement.id.bits())
            .collect(),
        other => panic!("stage {stage}: {other:?}"),
    }
}

#[test]
fn deleting_a_child_run_object_from_the_viewport_writes_its_nested_path() {
    let example = example("street-planting");
    let mut harness = harness(&example.dir);
    let plain = content(&harness);
    let (main, side) = (ids(&plain, 10), ids(&plain, 20));
    assert_eq!(main.len(), 21);
    // An object of the main street's child run whose twin (same packed id) the side street's
    // run also has, so a delete that leaked across instances would show.
    let bits = *main
        .iter()
        .find(|id| side.contains(id))
        .expect("an id both runs emit");
    let id = ScatterId::from_bits(bits).expect("packed");
    let pick = PickId::Object { stage: 10, id };
    let target = target_of(&plain, &pick).expect("a target");
    assert_eq!((target.stage, target.nested.clone()), (10, vec![1]));
    assert!(harness.state().document.project().overrides.is_empty());
    // Its family's variants are read in the child run.
    assert_eq!(
        variants_of(&plain, &target),
        ["bench", "bin", "lamp", "planter"]
    );
    let manifest_before = harness.state().document.project().manifest.clone();

    let rect = harness.state().viewport.rect.expect("drawn");
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.event(egui::Event::PointerMoved(rect.center()));
    harness.run_steps(1);
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);

    // One override, with the nested path, in a set the edit created and listed.
    let project = harness.state().document.project().clone();
    let set = &project.overrides["street-planting"];
    assert_eq!(project.manifest.overrides, ["street-planting"]);
    assert_eq!(set.overrides.len(), 1);
    let o = &set.overrides[0];
    assert_eq!(
        (o.stage, o.nested.clone(), o.target, &o.action),
        (10, vec![1], bits, &OverrideAction::Delete)
    );
    assert_eq!(o.base.len(), 16, "a base revision: {:?}", o.base);

    // The regenerated content lost exactly that object of the main street's run.
    let edited = content(&harness);
    let expected: Vec<u64> = main.iter().copied().filter(|b| *b != bits).collect();
    assert_eq!(ids(&edited, 10), expected);
    assert_eq!(ids(&edited, 10).len(), main.len() - 1);
    assert_eq!(ids(&edited, 20), side);

    // Applied, as stage 10's edit: nothing is reported as unapplied or unsupported.
    let outcomes: Vec<_> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.stage, o.target, o.action, o.result.clone()))
        .collect();
    assert_eq!(outcomes, [(10, bits, "Delete", Ok(()))]);
    // (The Diagnostics tab's unapplied-edit warnings are made from these outcomes.) Validation
    // finds nothing either.
    let messages: Vec<&str> = harness
        .state()
        .document
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages, Vec::<&str>::new());

    // One undo step restores the project and the object.
    assert!(harness.state_mut().document.undo(), "one undo step");
    harness.run_steps(3);
    let project = harness.state().document.project();
    assert!(project.overrides.is_empty());
    assert_eq!(project.manifest, manifest_before);
    let restored = content(&harness);
    assert_eq!(ids(&restored, 10), main);
    assert_eq!(restored.bundle.edit_outcomes().count(), 0);
}

#[test]
fn the_inspector_shows_an_overrides_nested_path() {
    use egui_kittest::kittest::Queryable as _;
    use stagecraft_editor::edits::{DocId, Selection};
    use stagecraft_runtime::project::FieldPath;
    let example = example("street-planting");
    let set = "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: 281474976710658, action: Delete, nested: [1])])\n";
    std::fs::create_dir_all(example.dir.join("overrides")).expect("folder");
    std::fs::write(example.dir.join("overrides/edits.overrides.ron"), set).expect("set");
    let manifest = std::fs::read_to_string(example.dir.join("stagecraft.ron")).expect("manifest");
    let manifest = manifest.replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    std::fs::write(example.dir.join("stagecraft.ron"), manifest).expect("manifest");
    let mut harness = support::harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(
            DocId::Overrides("edits".into()),
            FieldPath::root().field("overrides").index(0),
        ));
    harness.run_steps(3);
    // The item's title names the path below the stage; the form lists it, one row per id.
    assert!(harness
        .query_by_label("0: stage 10 › 1 · target 0x0001000000000002")
        .is_some());
    // The list's heading and its one row.
    assert_eq!(harness.query_all_by_label("Nested").count(), 2);
    let ids: Vec<String> = harness
        .get_all_by_role(egui::accesskit::Role::SpinButton)
        .filter_map(|node| node.value())
        .collect();
    assert!(ids.iter().any(|v| v == "1"), "{ids:?}");
}

/// An object of the main street's child run (stage 10) whose packed id the side street's run
/// (stage 20) also emits, with both runs' ids.
fn twin(content: &PreviewContent) -> (u64, Vec<u64>, Vec<u64>) {
    let (main, side) = (ids(content, 10), ids(content, 20));
    let bits = *main
        .iter()
        .find(|id| side.contains(id))
        .expect("an id both runs emit");
    (bits, main, side)
}

#[test]
fn harvesting_a_child_run_object_from_the_viewport_writes_its_nested_mutation() {
    let example = example("street-planting");
    let mut harness = harness(&example.dir);
    let plain = content(&harness);
    let (bits, main, side) = twin(&plain);
    let pick = PickId::Object {
        stage: 10,
        id: ScatterId::from_bits(bits).expect("packed"),
    };
    let manifest_before = harness.state().document.project().manifest.clone();

    let rect = harness.state().viewport.rect.expect("drawn");
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.event(egui::Event::PointerMoved(rect.center()));
    harness.run_steps(1);
    harness.key_press(egui::Key::H);
    harness.run_steps(3);

    // One mutation with the nested path (no override), in a set the edit created and listed.
    let project = harness.state().document.project().clone();
    let set = &project.overrides["street-planting"];
    assert_eq!(project.manifest.overrides, ["street-planting"]);
    assert!(set.overrides.is_empty());
    assert_eq!(set.mutations.len(), 1);
    let m: &Mutation = &set.mutations[0];
    assert_eq!(
        (m.stage, m.nested.clone(), m.target, m.harvested, m.ordinal),
        (10, vec![1], bits, true, 0)
    );
    assert_eq!(m.base.len(), 16, "a base revision: {:?}", m.base);

    // The regenerated content lost exactly that object of the main street's run, not its twin.
    let edited = content(&harness);
    let expected: Vec<u64> = main.iter().copied().filter(|b| *b != bits).collect();
    assert_eq!(ids(&edited, 10), expected);
    assert_eq!(ids(&edited, 20), side);
    let outcomes: Vec<_> = edited
        .bundle
        .edit_outcomes()
        .map(|o| (o.stage, o.target, o.action, o.result.clone()))
        .collect();
    assert_eq!(outcomes, [(10, bits, "Harvest", Ok(()))]);
    let messages: Vec<&str> = harness
        .state()
        .document
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages, Vec::<&str>::new());

    // The harvested list names it by its path, and its regrow names the same mutation.
    let listed = harvested(&project, "street-planting");
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (
            listed[0].site.stage,
            listed[0].site.nested.clone(),
            listed[0].site.target
        ),
        (10, vec![1], bits)
    );
    let regrown = regrow(&project, &listed[0].set, &listed[0].site).expect("regrows");
    assert_eq!(
        regrown.label(),
        format!("Regrow {} (ordinal 1)", pick_id(bits))
    );
    harness.state_mut().document.apply(regrown);
    harness.run_steps(3);
    let m = &harness.state().document.project().overrides["street-planting"].mutations;
    assert_eq!(
        m.iter()
            .map(|m| (m.nested.clone(), m.harvested, m.ordinal))
            .collect::<Vec<_>>(),
        [(vec![1], false, 1)]
    );
    let back = content(&harness);
    assert_eq!(ids(&back, 10), main, "regrown in place");
    assert_eq!(ids(&back, 20), side);
    let outcomes: Vec<_> = back
        .bundle
        .edit_outcomes()
        .map(|o| (o.stage, o.target, o.action, o.result.clone()))
        .collect();
    assert_eq!(outcomes, [(10, bits, "Regrow", Ok(()))]);
    assert!(harness.state_mut().document.undo(), "the regrow undone");
    harness.run_steps(3);
    assert_eq!(ids(&content(&harness), 10), expected);

    // One undo step restores the project and the object.
    assert!(harness.state_mut().document.undo(), "one undo step");
    harness.run_steps(3);
    let project = harness.state().document.project();
    assert!(project.overrides.is_empty());
    assert_eq!(project.manifest, manifest_before);
    let restored = content(&harness);
    assert_eq!(ids(&restored, 10), main);
    assert_eq!(restored.bundle.edit_outcomes().count(), 0);
}

fn pick_id(bits: u64) -> ScatterId {
    ScatterId::from_bits(bits).expect("packed")
}

#[test]
fn the_inspector_shows_and_edits_a_mutations_nested_path() {
    use egui_kittest::kittest::Queryable as _;
    use stagecraft_editor::edits::{DocId, Selection};
    use stagecraft_runtime::project::FieldPath;
    let example = example("street-planting");
    let set = "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    mutations: [Mutation(stage: 10, target: 281474976710658, harvested: true, nested: [1])])\n";
    std::fs::create_dir_all(example.dir.join("overrides")).expect("folder");
    std::fs::write(example.dir.join("overrides/edits.overrides.ron"), set).expect("set");
    let manifest = std::fs::read_to_string(example.dir.join("stagecraft.ron")).expect("manifest");
    let manifest = manifest.replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    std::fs::write(example.dir.join("stagecraft.ron"), manifest).expect("manifest");
    let mut harness = support::harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(
            DocId::Overrides("edits".into()),
            FieldPath::root().field("mutations").index(0),
        ));
    harness.run_steps(3);
    // The item's title names the path below the stage; the form lists it, one row per id.
    assert!(harness
        .query_by_label("0: stage 10 › 1 · target 0x0001000000000002 · harvested")
        .is_some());
    assert_eq!(harness.query_all_by_label("Nested").count(), 2);
    let nested = |harness: &Harness<'_, stagecraft_editor::app::StagecraftApp>| {
        harness
            .state()
            .document()
            .expect("a document")
            .project()
            .overrides["edits"]
            .mutations[0]
            .nested
            .clone()
    };
    assert_eq!(nested(&harness), [1]);

    // Adding a path entry is one edit; one undo restores the path.
    harness.get_by_label("+ Add nested").click();
    harness.run_steps(3);
    assert_eq!(nested(&harness), [1, 1]);
    assert!(harness.state_mut().document_mut().expect("doc").undo());
    harness.run_steps(2);
    assert_eq!(nested(&harness), [1]);
}
