//! The authoring tools driven through kittest (no GPU: the scene's paint callback is not run) on
//! the pine-clearing example: the Provenance tab's buttons, the Viewport's Move drag, Add click,
//! Exclude rectangle, keys and right-click menu. Each makes one undoable edit of the override set
//! with the values computed from the pointer, and undo restores the set as it was.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::authoring::{snap_m, target_of, Target};
use stagecraft_editor::document::Document;
use stagecraft_editor::panels::provenance::ProvenancePanel;
use stagecraft_editor::panels::viewport::ViewportPanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::tools::{ground_at, rotation_towards, Tool};
use stagecraft_editor::viewport::{LayerKind, PickId, Preview, Projection, SharedPreview};
use stagecraft_runtime::project::{OverrideAction, OverrideSet, Vec2};
use support::example;

const SET: &str = "pine-clearing-edits";

struct State {
    document: Document,
    viewport: ViewportPanel,
    provenance: ProvenancePanel,
    preview: SharedPreview,
    service: GenerationService,
    show_provenance: bool,
}

/// The Viewport (top-down) or the Provenance tab over pine-clearing, commands applied as the
/// app applies them.
fn harness(dir: &std::path::Path, show_provenance: bool) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let mut viewport = ViewportPanel::new(preview.clone());
    viewport.camera.projection = Projection::TopDown;
    let state = State {
        document,
        viewport,
        provenance: ProvenancePanel::new(preview.clone()),
        preview,
        service: GenerationService::inline(),
        show_provenance,
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
                if state.show_provenance {
                    state.provenance.ui(ui, &state.document, &mut out);
                } else {
                    state.viewport.ui(ui, &state.document, &mut out);
                }
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(4);
    harness
}

fn edits(harness: &Harness<'_, State>) -> OverrideSet {
    harness.state().document.project().overrides[SET].clone()
}

/// A shown object no override names, with its pick.
fn unnamed_object(harness: &Harness<'_, State>) -> (PickId, Target) {
    let set = edits(harness);
    let preview = harness.state().preview.borrow();
    let content = preview.session.content().expect("generated").clone();
    preview
        .scene
        .layer(LayerKind::Placements)
        .picks
        .iter()
        .filter_map(|(pick, _)| Some((pick.clone(), target_of(&content, pick)?)))
        .find(|(_, t)| {
            let bits = t.id.bits();
            // Away from the region's edges, so a short drag stays inside it.
            let inside = (1000..5000).contains(&t.x) && (500..2000).contains(&t.y);
            inside
                && set.overrides.iter().all(|o| o.target != bits)
                && set.mutations.iter().all(|m| m.target != bits)
        })
        .expect("an unnamed object")
}

/// Where ground point (`x`, `y`) m is on screen.
fn screen_of(harness: &Harness<'_, State>, [x, y]: [f64; 2]) -> egui::Pos2 {
    let panel = &harness.state().viewport;
    let rect = panel.rect.expect("drawn");
    let p = panel
        .camera
        .project(
            three_d::vec3(x as f32, y as f32, 0.0),
            [rect.width(), rect.height()],
        )
        .expect("in view");
    rect.min + egui::vec2(p[0], p[1])
}

fn ground_of(harness: &Harness<'_, State>, at: egui::Pos2) -> [f64; 2] {
    let panel = &harness.state().viewport;
    ground_at(&panel.camera, panel.rect.expect("drawn"), at).expect("on the ground")
}

fn undo_restores(harness: &mut Harness<'_, State>, before: &OverrideSet) {
    assert!(harness.state_mut().document.undo(), "one undo step");
    harness.run_steps(2);
    assert_eq!(&edits(harness), before, "undo restores the set");
}

#[test]
fn provenance_buttons_lock_and_replace_with_one_undoable_edit_each() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, true);
    let (pick, target) = unnamed_object(&harness);
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.run_steps(2);
    let before = edits(&harness);
    harness.get_by_label("Lock").click();
    harness.run_steps(2);
    let after = edits(&harness);
    assert_eq!(after.overrides.len(), before.overrides.len() + 1);
    let lock = after.overrides.last().expect("appended");
    let variants = ["pine-tall", "pine-young", "boulder"];
    let current = variants[target.variant as usize];
    assert_eq!((lock.stage, lock.target), (1001, target.id.bits()));
    assert_eq!(lock.precedence, 1, "one above the file's precedence 0");
    assert_eq!(
        lock.action,
        OverrideAction::LockSelection {
            variant: current.to_owned()
        }
    );
    assert_eq!(lock.base.len(), 16);
    undo_restores(&mut harness, &before);

    let other = variants.iter().find(|v| **v != current).expect("another");
    harness.get_by_label("Replace variant").click();
    harness.run_steps(2);
    harness.get_by_label(other).click();
    harness.run_steps(3);
    let replaced = edits(&harness);
    let o = replaced.overrides.last().expect("appended");
    assert_eq!(
        o.action,
        OverrideAction::Replace {
            variant: (*other).to_owned()
        }
    );
    // The regenerated preview shows the new variant.
    let shown = {
        let preview = harness.state().preview.borrow();
        let content = preview.session.content().expect("generated").clone();
        preview
            .scene
            .layer(LayerKind::Placements)
            .picks
            .iter()
            .filter_map(|(pick, _)| target_of(&content, pick))
            .find(|t| t.id == target.id)
            .map(|t| t.variant)
    };
    let index = variants.iter().position(|v| v == other).map(|i| i as u32);
    assert_eq!(shown, index, "regenerated with the replacement");
    undo_restores(&mut harness, &before);
}

#[test]
fn a_move_drag_is_one_move_override_that_a_second_drag_updates() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, false);
    harness.state_mut().viewport.tools.tool = Tool::Move;
    let (_, target) = unnamed_object(&harness);
    let before = edits(&harness);
    let from = screen_of(&harness, [target.x as f64 * 0.01, target.y as f64 * 0.01]);
    let to = from + egui::vec2(40.0, 0.0);
    support::drag(&mut harness, from, to, 5);
    let after = edits(&harness);
    assert_eq!(after.overrides.len(), before.overrides.len() + 1);
    let o = after.overrides.last().expect("appended");
    let ground = ground_of(&harness, to);
    let expected = Vec2 {
        x: snap_m(ground[0], 0.01),
        y: snap_m(ground[1], 0.01),
    };
    assert_eq!((o.stage, o.target), (1001, target.id.bits()));
    assert_eq!(o.action, OverrideAction::Move { position: expected });
    assert!(expected.x > target.x as f64 * 0.01 + 1.0, "{expected:?}");
    assert_eq!(o.precedence, 1);
    // The object is shown where it was moved, so a second drag starts on it there.
    let second_from = screen_of(&harness, [expected.x, expected.y]);
    let second_to = second_from + egui::vec2(0.0, 30.0);
    // While the pointer moves, the Move is already updated (the preview follows the pointer).
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.event(egui::Event::PointerMoved(second_from));
    harness.run_steps(1);
    harness.event(button(second_from, true));
    harness.run_steps(1);
    let halfway = second_from + egui::vec2(0.0, 15.0);
    for step in 1..=3 {
        harness.event(egui::Event::PointerMoved(
            second_from + (halfway - second_from) * (step as f32 / 3.0),
        ));
        harness.run_steps(1);
    }
    let ground = ground_of(&harness, halfway);
    assert_eq!(
        edits(&harness).overrides.last().map(|o| o.action.clone()),
        Some(OverrideAction::Move {
            position: Vec2 {
                x: snap_m(ground[0], 0.01),
                y: snap_m(ground[1], 0.01)
            }
        }),
        "live during the drag"
    );
    for step in 1..=3 {
        harness.event(egui::Event::PointerMoved(
            halfway + (second_to - halfway) * (step as f32 / 3.0),
        ));
        harness.run_steps(1);
    }
    harness.event(button(second_to, false));
    harness.run_steps(2);
    let again = edits(&harness);
    assert_eq!(
        again.overrides.len(),
        after.overrides.len(),
        "updated in place"
    );
    let ground = ground_of(&harness, second_to);
    assert_eq!(
        again.overrides.last().map(|o| o.action.clone()),
        Some(OverrideAction::Move {
            position: Vec2 {
                x: snap_m(ground[0], 0.01),
                y: snap_m(ground[1], 0.01)
            }
        })
    );
    undo_restores(&mut harness, &after);
    undo_restores(&mut harness, &before);
}

#[test]
fn a_rotate_drag_is_one_rotate_override_facing_the_pointer_and_the_object_turns() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, false);
    harness.state_mut().viewport.tools.tool = Tool::Rotate;
    let (_, target) = unnamed_object(&harness);
    assert!(target.transform.is_some(), "a placed object");
    let before = edits(&harness);
    let centre = [target.x as f64 * 0.01, target.y as f64 * 0.01];
    let from = screen_of(&harness, centre);
    // Straight up the screen in the top-down view, then the pointer's ground point decides.
    let to = from + egui::vec2(0.0, -60.0);
    support::drag(&mut harness, from, to, 5);
    let after = edits(&harness);
    assert_eq!(
        after.overrides.len(),
        before.overrides.len() + 1,
        "one override"
    );
    let o = after.overrides.last().expect("appended");
    let expected = rotation_towards(centre, ground_of(&harness, to)).expect("a direction");
    assert_eq!((o.stage, o.target), (1001, target.id.bits()));
    assert_eq!(o.action, OverrideAction::Rotate { rotation: expected });
    assert_eq!(o.base.len(), 16);
    // The regenerated preview shows the object turned.
    let turned = {
        let preview = harness.state().preview.borrow();
        let content = preview.session.content().expect("generated").clone();
        preview
            .scene
            .layer(LayerKind::Placements)
            .picks
            .iter()
            .filter_map(|(pick, _)| target_of(&content, pick))
            .find(|t| t.id == target.id)
            .and_then(|t| t.transform)
    };
    assert_eq!(turned.map(|(r, _)| r), Some(expected), "regenerated turned");
    assert_eq!(
        turned.map(|(_, s)| s),
        target.transform.map(|(_, s)| s),
        "scale kept"
    );
    undo_restores(&mut harness, &before);
}

#[test]
fn rotation_towards_measures_turns_counter_clockwise_from_x() {
    assert_eq!(rotation_towards([1.0, 1.0], [2.0, 1.0]), Some(0));
    assert_eq!(rotation_towards([1.0, 1.0], [1.0, 3.0]), Some(16_384));
    assert_eq!(rotation_towards([1.0, 1.0], [0.0, 1.0]), Some(32_768));
    assert_eq!(rotation_towards([1.0, 1.0], [1.0, -1.0]), Some(49_152));
    assert_eq!(
        rotation_towards([0.0, 0.0], [1.0, -1e-9]),
        Some(0),
        "wraps to 0"
    );
    assert_eq!(rotation_towards([1.0, 1.0], [1.0, 1.0]), None);
}

#[test]
fn an_add_click_and_an_exclusion_rectangle_are_overrides_at_the_pointer() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, false);
    harness.state_mut().viewport.tools.tool = Tool::Add;
    harness.state_mut().viewport.tools.variant = Some("boulder".into());
    let before = edits(&harness);
    let at = screen_of(&harness, [10.0, 10.0]);
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    harness.run_steps(1);
    let added = edits(&harness);
    let o = added.overrides.last().expect("appended");
    let ground = ground_of(&harness, at);
    let position = Vec2 {
        x: snap_m(ground[0], 0.01),
        y: snap_m(ground[1], 0.01),
    };
    assert_eq!(
        o.action,
        OverrideAction::Add {
            variant: "boulder".into(),
            position
        }
    );
    // Cell (floor(x / 4 m), floor(y / 4 m)), the first index of the authored space (128).
    let cell = |v: f64| (v / 4.0).floor() as i64;
    let id = stagecraft_runtime::identity::pack_scatter_id(
        1,
        0,
        128,
        cell(position.x),
        cell(position.y),
    )
    .expect("packs");
    assert_eq!(o.target, id.bits());
    undo_restores(&mut harness, &before);

    harness.state_mut().viewport.tools.tool = Tool::Exclude;
    let a = screen_of(&harness, [5.0, 45.0]);
    let b = screen_of(&harness, [15.0, 55.0]);
    support::drag(&mut harness, a, b, 5);
    let excluded = edits(&harness);
    let o = excluded.overrides.last().expect("appended");
    let (ga, gb) = (ground_of(&harness, a), ground_of(&harness, b));
    let snap = |v: f64| snap_m(v, 0.01);
    assert_eq!((o.target, o.precedence), (0, 1));
    assert_eq!(
        o.action,
        OverrideAction::Exclude {
            min: Vec2 {
                x: snap(ga[0].min(gb[0])),
                y: snap(ga[1].min(gb[1]))
            },
            max: Vec2 {
                x: snap(ga[0].max(gb[0])),
                y: snap(ga[1].max(gb[1]))
            }
        }
    );
    undo_restores(&mut harness, &before);
}

#[test]
fn keys_and_the_context_menu_author_the_selected_object() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, false);
    let (pick, target) = unnamed_object(&harness);
    let before = edits(&harness);
    let at = screen_of(&harness, [target.x as f64 * 0.01, target.y as f64 * 0.01]);
    harness.state().preview.borrow_mut().selected = Some(pick);
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    harness.key_press(egui::Key::L);
    harness.run_steps(2);
    let locked = edits(&harness);
    assert!(matches!(
        locked.overrides.last().map(|o| (&o.action, o.target)),
        Some((OverrideAction::LockSelection { .. }, t)) if t == target.id.bits()
    ));
    undo_restores(&mut harness, &before);

    harness.key_press(egui::Key::H);
    harness.run_steps(2);
    let harvested = edits(&harness);
    let m = harvested.mutations.last().expect("a mutation");
    assert_eq!(
        (m.target, m.harvested, m.ordinal),
        (target.id.bits(), true, 0)
    );
    undo_restores(&mut harness, &before);

    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    harness.run_steps(1);
    assert!(
        harness.query_by_label_contains("(stage 1001)").is_some(),
        "menu open"
    );
    harness.get_by_label_contains("Delete").click();
    harness.run_steps(2);
    let deleted = edits(&harness);
    assert_eq!(
        deleted.overrides.last().map(|o| (&o.action, o.target)),
        Some((&OverrideAction::Delete, target.id.bits()))
    );
    undo_restores(&mut harness, &before);
}

#[test]
fn after_a_delete_the_selection_names_the_deleted_object_and_a_second_delete_removes_nothing() {
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, false);
    let (pick, target) = unnamed_object(&harness);
    let before = edits(&harness);
    let at = screen_of(&harness, [target.x as f64 * 0.01, target.y as f64 * 0.01]);
    harness.state().preview.borrow_mut().selected = Some(pick.clone());
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);
    let deleted = edits(&harness);
    assert_eq!(deleted.overrides.len(), before.overrides.len() + 1);
    assert_eq!(
        deleted.overrides.last().map(|o| (&o.action, o.target)),
        Some((&OverrideAction::Delete, target.id.bits()))
    );
    // The regenerated content no longer shows the object; the selection still names it (its
    // ghost) and resolves to nothing, never to the object that took its place in the list.
    let resolved = |harness: &Harness<'_, State>| {
        let preview = harness.state().preview.borrow();
        let content = preview.session.content().expect("generated").clone();
        let selected = preview.selected.clone();
        (
            selected.clone(),
            selected.and_then(|p| target_of(&content, &p)).map(|t| t.id),
        )
    };
    assert_eq!(resolved(&harness), (Some(pick.clone()), None));

    // A second Delete has nothing to delete.
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);
    assert_eq!(edits(&harness), deleted, "a second Delete removes nothing");

    // Undo brings the object back, and the selection names it again.
    assert!(harness.state_mut().document.undo());
    harness.run_steps(3);
    assert_eq!(edits(&harness), before);
    assert_eq!(resolved(&harness), (Some(pick), Some(target.id)));
}

#[test]
fn regrow_in_provenance_advances_the_ordinal_once_and_the_tree_comes_back() {
    use stagecraft_runtime::identity::ScatterId;
    use stagecraft_runtime::overrides::{regrow_variant, StageBase};
    use stagecraft_runtime::recipe::family_data;
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir, true);
    let harvested = 281474977234957u64;
    let shown = |harness: &Harness<'_, State>| {
        let preview = harness.state().preview.borrow();
        let content = preview.session.content().expect("generated").clone();
        preview
            .scene
            .layer(LayerKind::Placements)
            .picks
            .iter()
            .filter_map(|(pick, _)| target_of(&content, pick))
            .find(|t| t.id.bits() == harvested)
            .map(|t| t.variant)
    };
    assert_eq!(shown(&harness), None, "harvested: not shown");
    let before = edits(&harness);
    assert!(harness.query_by_label_contains("Harvested (1)").is_some());
    harness.get_by_label("Regrow").click();
    harness.run_steps(3);
    let after = edits(&harness);
    let m = &after.mutations[0];
    assert_eq!((m.target, m.harvested, m.ordinal), (harvested, false, 1));
    // Regrowth 1 draws its variant at (regrow domain 6, scope = packed id, event = 1, dim 0).
    let project = harness.state().document.project().clone();
    let family = family_data(&project.families["alpine-trees"]);
    let base = StageBase::new(1001, 20261129, &family, 400, 2, 0.01);
    let id = ScatterId::from_bits(harvested).expect("valid");
    assert_eq!(
        shown(&harness),
        regrow_variant(&base, id, 1),
        "it grew back"
    );
    undo_restores(&mut harness, &before);
}
