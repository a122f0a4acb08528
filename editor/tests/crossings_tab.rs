//! The Crossings tab driven through kittest over the `crosswalk-demo` example: every line it
//! shows (each crosswalk's signal, gate, phases and queues; completions, groups, queries, the
//! liveness counters, deferred tier transitions) is the runtime's at the shown frame, and its
//! plots have toggle legends.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::panels::crossings::{world_text, CrossingsPanel};
use support::example;

type State = support::PanelState<CrossingsPanel>;

fn harness(dir: &std::path::Path) -> Harness<'static, State> {
    support::read_only_panel(
        dir,
        egui::vec2(1400.0, 1000.0),
        3,
        "the Crossings tab never edits the project",
        CrossingsPanel::new,
    )
}

#[test]
fn the_crossings_tab_shows_the_runtimes_crossings_at_the_shown_frame() {
    let example = example("crosswalk-demo");
    let mut harness = harness(&example.dir);
    for frame in [300u64, 420] {
        let (lines, stats, reports) = {
            let mut preview = harness.state().preview.borrow_mut();
            preview.session.seek(frame);
            let world = preview.session.world().expect("a world");
            (
                world_text(world),
                world.crossings().stats,
                world.crosswalk_reports(),
            )
        };
        harness.run_steps(2);
        assert_eq!(reports.len(), 1, "the demo has one crosswalk");
        // The phase line carries the runtime's own phase counters (Approach: every crosser
        // not bound, now).
        assert_eq!(reports[0].phases[1..], stats.phases[1..]);
        let p = reports[0].phases;
        assert!(lines[1].starts_with(&format!(
            "approach {} · requested {} · waiting {} · crossing {} · clearing {} · completed {}",
            p[0], p[1], p[2], p[3], p[4], p[5]
        )));
        assert!(lines[2].starts_with(&format!("completions {} ·", stats.completed)));
        assert_eq!(
            lines[3],
            format!(
                "groups {} · members {} · regrouping {}",
                stats.groups, stats.group_members, stats.regrouping_groups
            )
        );
        for line in &lines {
            assert!(
                harness.query_by_label(line).is_some(),
                "frame {frame}: `{line}` is shown"
            );
        }
    }
}

#[test]
fn the_crossing_plots_have_toggle_legends() {
    let example = example("crosswalk-demo");
    let mut harness = harness(&example.dir);
    harness.state().preview.borrow_mut().session.seek(120);
    harness.run_steps(2);
    for label in ["● requested", "● crossing", "╌ max no-progress s"] {
        assert!(harness.query_by_label(label).is_some(), "`{label}` toggle");
    }
}
