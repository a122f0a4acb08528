//! The Timeline tab driven through AccessKit (no GPU): play and pause, step, step N, back, jump,
//! and re-simulation to the same frame after an edit made while paused. (The Space / period /
//! comma shortcuts are the app's: `tests/service.rs`.)

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::document::Document;
use stagecraft_editor::edits::{DocId, DocValue, ProjectEdit, Selection};
use stagecraft_editor::panels::timeline::TimelinePanel;
use stagecraft_editor::panels::Panel as _;
use stagecraft_editor::service::GenerationService;
use stagecraft_editor::viewport::{Preview, SharedPreview};
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
