//! The Motion tab driven through kittest: the shown frame's motion counters (updated / skipped,
//! avoidance processed / deferred, tiers, governor estimate) and the selected agent's Motion
//! Frame, both as the runtime computed them.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::panels::motion::{counters_text, frame_text, MotionPanel};
use stagecraft_editor::viewport::PickId;
use support::example;

type State = support::PanelState<MotionPanel>;

fn harness(dir: &std::path::Path) -> Harness<'static, State> {
    support::read_only_panel(
        dir,
        egui::vec2(1400.0, 900.0),
        3,
        "the Motion tab never edits the project",
        MotionPanel::new,
    )
}

#[test]
fn the_motion_tab_shows_the_frames_counters_and_the_selected_motion_frame() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    let (counters, id, lines) = {
        let mut preview = harness.state().preview.borrow_mut();
        preview.session.seek(300);
        let world = preview.session.world().expect("a world");
        let counters = world.motion_counters();
        let frame = world.motion_frames().first().expect("a frame");
        (counters, frame.id.bits(), frame_text(&frame))
    };
    // Every agent has a frame, and the tiers partition them.
    assert_eq!(counters.frames, counters.updated + counters.skipped);
    assert_eq!(counters.tiers.iter().sum::<u64>(), counters.frames);
    assert!(
        counters.tiers[2] > 0,
        "agents beyond the Full capacity are Stub"
    );
    harness.state().preview.borrow_mut().selected = Some(PickId::Agent { id });
    harness.run_steps(2);
    assert!(
        harness.query_by_label(&counters_text(&counters)).is_some(),
        "the counters line is shown"
    );
    for line in lines {
        assert!(harness.query_by_label(&line).is_some(), "`{line}` is shown");
    }
}

#[test]
fn the_motion_plots_have_toggle_legends_and_the_governor_has_its_own_axis() {
    let example = example("street-block");
    let mut harness = harness(&example.dir);
    harness.state().preview.borrow_mut().session.seek(120);
    harness.run_steps(2);
    // Ten hues for twelve count series: the two that repeat a hue are dashed, and say so.
    for label in [
        "● updated",
        "● demotions",
        "╌ outside ring",
        "╌ ring demotions",
    ] {
        assert!(harness.query_by_label(label).is_some(), "`{label}` toggle");
    }
    // The milliseconds are plotted apart from the counts (their own y axis).
    assert!(harness.query_by_label("● governor budget ms").is_some());
    harness.get_by_label("● governor budget ms").click();
    harness.run_steps(2);
    let hidden: Vec<&str> = harness
        .state()
        .panel
        .hidden_series()
        .iter()
        .copied()
        .collect();
    assert_eq!(hidden, ["governor budget ms"]);
    harness.get_by_label("● governor budget ms").click();
    harness.run_steps(2);
    assert!(harness.state().panel.hidden_series().is_empty());
}
