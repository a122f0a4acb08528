//! The Timeline tab driven through AccessKit (no GPU): play and pause, step, step N, back, jump,
//! and re-simulation to the same frame after an edit made while paused; directives of any kind
//! added at the frame, and their targets picked by a click in the Viewport below it. (The Space / period /
//! comma shortcuts are the app's: `tests/service.rs`.)

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::timeline::TimelinePanel;
use stagecraft_editor::panels::viewport::ViewportPanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{Preview, SharedPreview};
use stagecraft_runtime::project::{Directive, DirectiveCommand, Target, Vec3};
use support::example;

struct State {
    document: Document,
    panel: TimelinePanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn frame(harness: &Harness<'_, State>) -> u64 {
    harness.state().preview.borrow().session.frame()
}

fn digest(harness: &Harness<'_, State>) -> [u8; 32] {
    let preview = harness.state().preview.borrow();
    preview.session.world().expect("world").state_digest()
}

fn timeline(dir: &std::path::Path) -> Harness<'static, State> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let state = State {
        document,
        panel: TimelinePanel::new(preview.clone()),
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(900.0, 500.0))
        .with_step_dt(0.05)
        .build_ui_state(
            |ui, state: &mut State| {
                // What the app does once a frame before drawing the tabs.
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                state.panel.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(2);
    harness
}

#[test]
fn buttons_step_back_play_pause_and_jump() {
    let example = example("street-block");
    let mut harness = timeline(&example.dir);
    assert_eq!(frame(&harness), 0);
    assert!(harness.query_by_label_contains("Frame 0 / 1200").is_some());

    harness.get_by_label("Step ⏵").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 1);
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 11, "step N advances the 10 frames shown");
    harness.get_by_label("⏴ Back").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 10);
    assert!(harness.query_by_label_contains("Frame 10 / 1200").is_some());

    // Play: at 1× and 0.05 s per UI frame, one simulated frame per UI frame.
    harness.get_by_label("▶ Play").click();
    harness.run_steps(5);
    let playing = frame(&harness);
    assert!(playing > 10, "playback advanced to {playing}");
    harness.get_by_label("⏸ Pause").click();
    harness.run_steps(1);
    let paused = frame(&harness);
    harness.run_steps(5);
    assert_eq!(frame(&harness), paused, "paused stays put");

    harness.state_mut().panel.jump_frame = 3;
    harness.get_by_label("Jump").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 3);

    // Typing a frame and pressing Enter jumps too, without the button.
    harness.get_by_label("Go to frame").click();
    harness.run_steps(2);
    harness.get_by_label("Go to frame").type_text("42");
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);
    assert_eq!(harness.state().panel.jump_frame, 42);
    assert_eq!(frame(&harness), 42, "Enter in the frame field jumps");
}

#[test]
fn an_edit_while_paused_resimulates_to_the_same_frame() {
    let example = example("street-block");
    let mut harness = timeline(&example.dir);
    harness.state_mut().panel.step_frames = 200;
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 200);
    let before = digest(&harness);

    // Halve a source's population through the edit type, as the Inspector would.
    let scenario_id = "crosswalk-rush".to_owned();
    let document = &mut harness.state_mut().document;
    let Some(DocValue::Scenario(mut scenario)) =
        document.get(&DocId::Scenario(scenario_id.clone()))
    else {
        panic!("the example has the scenario");
    };
    scenario.sources[0].target_count /= 2;
    document.apply(ProjectEdit::replace(
        DocId::Scenario(scenario_id.clone()),
        Some(DocValue::Scenario(scenario)),
        Selection::doc(DocId::Scenario(scenario_id)),
        "Set target_count",
    ));
    harness.run_steps(2);
    assert_eq!(frame(&harness), 200, "still at the frame it was paused at");
    let after = digest(&harness);
    assert_ne!(after, before, "the new scenario shows at frame 200");

    // Undo brings back exactly the state before the edit.
    harness.state_mut().document.undo();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 200);
    assert_eq!(digest(&harness), before);
}

#[test]
fn the_counter_plot_spans_the_scenario_from_frame_0_and_series_can_be_hidden() {
    let example = example("street-block");
    let mut harness = timeline(&example.dir);
    harness.run_steps(2);
    let plot = &harness.state().panel.plot;
    let (min_x, max_x) = plot.shown_x.expect("the plot was drawn");
    assert!(
        (-100.0..=0.0).contains(&min_x) && max_x >= 1_200.0,
        "x axis {min_x}..{max_x} at frame 0"
    );
    assert_eq!(plot.drawn_series, 10);
    harness.get_by_label("● births").click();
    harness.run_steps(2);
    let plot = &harness.state().panel.plot;
    assert!(plot.hidden.contains("births"));
    assert_eq!(plot.drawn_series, 9);
    harness.get_by_label("● births").click();
    harness.run_steps(2);
    assert_eq!(harness.state().panel.plot.drawn_series, 10);
}

fn directive_frames(harness: &Harness<'_, State>) -> Vec<u64> {
    harness.state().document.project().scenarios["crosswalk-rush"]
        .directives
        .iter()
        .map(|d| d.frame)
        .collect()
}

#[test]
fn directives_are_added_at_the_current_frame_and_dragged_on_the_ruler_each_one_undoable_edit() {
    let example = example("street-block");
    let mut harness = timeline(&example.dir);
    let initial = directive_frames(&harness);
    assert_eq!(initial, vec![60, 40, 60, 300, 360]);
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    harness
        .get_by_label_contains("Directives (5) · Bookmarks (0)")
        .click();
    harness.run_steps(2);
    harness.get_by_label("+ Directive at frame 10").click();
    harness.run_steps(2);
    assert_eq!(directive_frames(&harness), vec![60, 40, 60, 300, 360, 10]);
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(directive_frames(&harness), initial);

    // Drag the frame-300 marker to about frame 600: one edit, whose undo puts it back.
    let (from, to) = {
        let marks = &harness.state().panel.marks;
        (
            marks.ruler_point(300).expect("ruler drawn"),
            marks.ruler_point(600).expect("ruler drawn"),
        )
    };
    support::drag(&mut harness, from, to, 6);
    let moved = directive_frames(&harness)[3];
    assert!((590..=610).contains(&moved), "moved to {moved}");
    assert_eq!(directive_frames(&harness)[..3], [60, 40, 60]);
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(directive_frames(&harness), initial);
}

#[test]
fn a_bookmark_is_named_saved_with_the_project_and_jumps_back() {
    let example = example("street-block");
    let mut harness = timeline(&example.dir);
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    harness
        .get_by_label_contains("Directives (5) · Bookmarks (0)")
        .click();
    harness.run_steps(2);
    harness.get_by_label("Bookmark name").click();
    harness.run_steps(1);
    harness
        .get_by_label("Bookmark name")
        .type_text("crossers wait");
    harness.run_steps(1);
    harness.get_by_label("Bookmark frame 10").click();
    harness.run_steps(2);
    let saved = std::fs::read_to_string(
        example
            .dir
            .join(stagecraft_editor::panels::timeline_marks::BOOKMARKS_FILE),
    )
    .expect("bookmarks saved");
    assert!(saved.contains("crossers wait"), "{saved}");
    assert!(harness
        .query_by_label_contains("crossers wait · frame 10")
        .is_some());
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 20);
    harness
        .get_all_by_label("Jump")
        .last()
        .expect("a jump button")
        .click();
    harness.run_steps(2);
    assert_eq!(frame(&harness), 10);
}

/// The Timeline above the Viewport over one document (the app's docked layout in miniature),
/// so a directive pick armed in the Timeline is filled by a click in the Viewport.
struct Both {
    document: Document,
    timeline: TimelinePanel,
    viewport: ViewportPanel,
    preview: SharedPreview,
    service: GenerationService,
}

fn timeline_over_viewport(dir: &std::path::Path, scenario: &str) -> Harness<'static, Both> {
    let document = Document::open(dir).expect("example opens");
    let preview = Preview::shared();
    let mut viewport = ViewportPanel::new(preview.clone());
    viewport.camera.projection = stagecraft_editor::viewport::Projection::TopDown;
    let state = Both {
        document,
        timeline: TimelinePanel::new(preview.clone()),
        viewport,
        preview,
        service: GenerationService::inline(),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 1100.0))
        .with_step_dt(0.05)
        .build_ui_state(
            |ui, state: &mut Both| {
                state.preview.borrow_mut().frame_update(
                    ui.ctx(),
                    &state.document,
                    &mut state.service,
                );
                let mut out = Vec::new();
                let width = ui.available_width();
                ui.allocate_ui(egui::vec2(width, 560.0), |ui| {
                    ui.set_max_height(560.0);
                    state.timeline.ui(ui, &state.document, &mut out);
                });
                ui.separator();
                state.viewport.ui(ui, &state.document, &mut out);
                support::apply_commands(&mut state.document, out);
            },
            state,
        );
    harness.run_steps(2);
    harness
        .state()
        .preview
        .borrow_mut()
        .session
        .choose_scenario(scenario);
    harness.run_steps(4);
    harness
}

fn directives_of(harness: &Harness<'_, Both>, scenario: &str) -> Vec<Directive> {
    harness.state().document.project().scenarios[scenario]
        .directives
        .clone()
}

/// Where the viewport draws the ground point `(x, y)`, screen points.
fn on_screen(harness: &Harness<'_, Both>, x: f64, y: f64, z: f64) -> egui::Pos2 {
    let viewport = &harness.state().viewport;
    let rect = viewport.rect.expect("viewport drawn");
    let at = viewport
        .camera
        .project(
            three_d::vec3(x as f32, y as f32, z as f32),
            [rect.width(), rect.height()],
        )
        .expect("in view");
    rect.min + egui::vec2(at[0], at[1])
}

fn click(harness: &mut Harness<'_, Both>, at: egui::Pos2) {
    support::drag(harness, at, at, 0);
}

#[test]
fn any_directive_kind_is_added_at_the_frame_and_a_ped_picked_in_the_viewport_is_its_target() {
    let example = example("street-block");
    let mut harness = timeline_over_viewport(&example.dir, "crosswalk-rush");
    harness.state_mut().timeline.step_frames = 200;
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    harness
        .get_by_label_contains("Directives (5) · Bookmarks (0)")
        .click();
    harness.run_steps(2);
    // A world command gets the world as its target.
    harness.state_mut().timeline.marks.new_kind = Some("Panic");
    harness.run_steps(1);
    harness.get_by_label("+ Directive at frame 200").click();
    harness.run_steps(2);
    let added = directives_of(&harness, "crosswalk-rush")[5].clone();
    assert_eq!(added.frame, 200);
    assert_eq!(added.target, Target::World);
    assert!(matches!(added.command, DirectiveCommand::Panic { .. }));
    // A timed stand for a pedestrian.
    harness.state_mut().timeline.marks.new_kind = Some("Stand");
    harness.run_steps(1);
    harness.get_by_label("+ Directive at frame 200").click();
    harness.run_steps(2);
    let stand = directives_of(&harness, "crosswalk-rush")[6].clone();
    assert_eq!(stand.command, DirectiveCommand::Stand { duration_s: 3.0 });
    assert!(matches!(&stand.target, Target::Born { ordinal: 0, .. }));

    // Arm the stand's pick, then click a pedestrian that is not its target.
    harness
        .get_all_by_label("Pick")
        .nth(6)
        .expect("a pick button")
        .click();
    harness.run_steps(2);
    assert!(harness.state().preview.borrow().directive_pick.is_some());
    let (source, ordinal, x, y) = {
        let preview = harness.state().preview.borrow();
        let world = preview.session.world().expect("world");
        let frame = world
            .motion_frames()
            .iter()
            .find(|f| !f.tags.pooled && f.id.ordinal() > 0)
            .expect("a second pedestrian");
        let source = world.config().sources[frame.id.source()].id.clone();
        let p = frame.location;
        (source, frame.id.ordinal(), f64::from(p.x), f64::from(p.y))
    };
    let at = on_screen(&harness, x, y, 0.9);
    click(&mut harness, at);
    let picked = directives_of(&harness, "crosswalk-rush")[6].clone();
    let Target::Born {
        source: got_source,
        ordinal: got_ordinal,
    } = &picked.target
    else {
        panic!("a pedestrian target, got {:?}", picked.target);
    };
    // The click picks the pedestrian under it (normally this one; a neighbour in front would
    // be just as right, so check it is near).
    let near = {
        let preview = harness.state().preview.borrow();
        let world = preview.session.world().expect("world");
        world.motion_frames().iter().any(|f| {
            let p = f.location;
            world.config().sources[f.id.source()].id == *got_source
                && f.id.ordinal() == *got_ordinal
                && (f64::from(p.x) - x).hypot(f64::from(p.y) - y) < 1.0
        })
    };
    assert!(near, "{got_source} #{got_ordinal} vs {source} #{ordinal}");
    assert_ne!(picked.target, stand.target);
    assert_eq!(picked.command, stand.command);
    assert!(harness.state().preview.borrow().directive_pick.is_none());
    // One undo puts the target back; another removes the stand.
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(directives_of(&harness, "crosswalk-rush")[6], stand);
    assert!(harness.state_mut().document.undo());
    harness.run_steps(2);
    assert_eq!(directives_of(&harness, "crosswalk-rush").len(), 6);
}

#[test]
fn a_scene_object_picked_in_the_viewport_fills_a_rendezvous_object_and_an_escape_threat() {
    let example = example("street-lifecycle");
    let mut harness = timeline_over_viewport(&example.dir, "rendezvous-barrier");
    harness.state_mut().timeline.step_frames = 10;
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    harness
        .get_by_label_contains("Directives (1) · Bookmarks (0)")
        .click();
    harness.run_steps(2);
    let before = directives_of(&harness, "rendezvous-barrier");
    // The rendezvous with van-1 becomes one with van-2 (its footprint centre at (−25, 2.2)).
    harness
        .get_all_by_label("Pick")
        .next()
        .expect("a pick button")
        .click();
    harness.run_steps(2);
    let van = on_screen(&harness, -25.0, 2.2, 0.0);
    click(&mut harness, van);
    let after = directives_of(&harness, "rendezvous-barrier");
    assert_eq!(
        after[0].command,
        DirectiveCommand::RendezvousWith {
            object: "van-2".into(),
            offset: Vec3 {
                x: 0.0,
                y: -4.0,
                z: 0.0
            },
        }
    );
    assert_eq!(after[0].target, before[0].target);
    // An escape from the van: the object's position becomes the threat.
    harness.state_mut().timeline.marks.new_kind = Some("Escape");
    harness.run_steps(1);
    harness.get_by_label("+ Directive at frame 10").click();
    harness.run_steps(2);
    harness
        .get_all_by_label("Pick")
        .nth(1)
        .expect("a pick button")
        .click();
    harness.run_steps(2);
    let van = on_screen(&harness, -25.0, 2.2, 0.0);
    click(&mut harness, van);
    let escape = directives_of(&harness, "rendezvous-barrier")[1].clone();
    let DirectiveCommand::Escape { threat, .. } = escape.command else {
        panic!("{:?}", escape.command);
    };
    assert_eq!((threat.x, threat.y), (-25.0, 2.2));
    // Undo: the threat, the added escape, then the object, each one step.
    for expected in [2, 1, 1] {
        assert!(harness.state_mut().document.undo());
        harness.run_steps(2);
        assert_eq!(
            directives_of(&harness, "rendezvous-barrier").len(),
            expected
        );
    }
    assert_eq!(directives_of(&harness, "rendezvous-barrier"), before);
}

#[test]
fn the_frame_field_resets_to_0_when_another_project_opens() {
    let street = example("street-block");
    let other = example("crosswalk-demo");
    let mut harness = support::harness(&street.dir);
    harness
        .state_mut()
        .show_tab(stagecraft_editor::panels::Tab::Timeline);
    harness.run_steps(2);
    // Typed into the app's Timeline: the field holds 42 for this project.
    harness.get_by_label("Go to frame").click();
    harness.run_steps(2);
    harness.get_by_label("Go to frame").type_text("42");
    harness.key_press(egui::Key::Enter);
    harness.run_steps(3);
    assert_eq!(harness.state().panels().timeline.jump_frame, 42);

    harness.state_mut().open_project(&other.dir);
    harness.run_steps(2);
    assert_eq!(
        harness.state().panels().timeline.jump_frame,
        0,
        "another project's frame means nothing here"
    );
    let field = harness.get_by_label("Go to frame");
    assert_eq!(field.value().as_deref(), Some("0"), "the field shows 0");
}
