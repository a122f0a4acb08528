//! The lower tabs in the default layout of a 1280×800 window: the Timeline's, Motion's,
//! Crossings' and Population's plots are drawn whole inside the tab without scrolling, with
//! room for labelled axes; the Population tab's events scroll to their last row.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::panels::timeline_plot::MIN_CURVES_HEIGHT;
use stagecraft_editor::panels::Tab;
use support::example;

/// The editor on `project` at 1280×800 with `tab` in front, at `frame` once simulated.
/// The copied example comes back with it: its folder lives as long as the test holds it.
fn open_at(
    project: &str,
    tab: Tab,
    frame: u64,
) -> (Harness<'static, StagecraftApp>, support::Example) {
    let example = example(project);
    let args = RunArgs {
        project: Some(example.dir.clone()),
        frame: Some(frame),
        tab: Some(tab),
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    let reached = support::wait_until(&mut harness, Duration::from_secs(120), |app| {
        app.preview().borrow().session.frame() == frame
    });
    assert!(reached.is_some(), "the timeline reached frame {frame}");
    harness.run_steps(3);
    (harness, example)
}

/// The top of the status line: what the tabs must end above.
fn status_top(harness: &Harness<'static, StagecraftApp>) -> f32 {
    harness.get_by_label("Saved").rect().top()
}

/// Asserts the curves' `rects` are whole below the Viewport (in the lower strip), above the
/// status line, inside the window's width and at least [`MIN_CURVES_HEIGHT`] tall.
fn assert_seen_whole(harness: &Harness<'static, StagecraftApp>, what: &str, rects: &[egui::Rect]) {
    assert!(!rects.is_empty(), "{what}: no plot drawn");
    let status = status_top(harness);
    for rect in rects {
        assert!(
            rect.top() >= 560.0,
            "{what}: {rect:?} is not in the lower strip"
        );
        assert!(rect.bottom() + 20.0 <= status, "{what}: {rect:?} runs under the status line at {status} (its x axis below it would be cut)");
        assert!(
            rect.right() <= 1280.0,
            "{what}: {rect:?} is past the window's edge"
        );
        assert!(
            rect.height() >= MIN_CURVES_HEIGHT,
            "{what}: {rect:?} is too short"
        );
        assert!(rect.width() >= 60.0, "{what}: {rect:?} is too narrow");
    }
}

#[test]
fn the_timeline_plot_is_seen_whole_beside_the_controls() {
    let (harness, _example) = open_at("crosswalk-demo", Tab::Timeline, 40);
    let plot = &harness.state().panels().timeline.plot;
    assert_eq!(plot.drawn_series, 10);
    let rect = plot.shown_rect.expect("the plot was drawn");
    assert_seen_whole(&harness, "Timeline", &[rect]);
    // Beside the transport controls, not under them.
    let play = harness.get_by_label("▶ Play").rect();
    assert!(play.right() < rect.left(), "{play:?} / {rect:?}");
    assert!(play.top() < rect.bottom() && play.bottom() > rect.top());
}

#[test]
fn the_motion_and_crossings_plots_are_seen_whole() {
    let (harness, _example) = open_at("crosswalk-demo", Tab::Crossings, 40);
    let crossings = harness.state().panels().crossings.shown_plots.clone();
    assert_eq!(crossings.len(), 2, "counts and seconds");
    assert_seen_whole(&harness, "Crossings", &crossings);
    let (harness, _example) = open_at("street-block", Tab::Motion, 40);
    let motion = harness.state().panels().motion.shown_plots.clone();
    assert_eq!(motion.len(), 2, "agents and milliseconds");
    assert_seen_whole(&harness, "Motion", &motion);
}

#[test]
fn the_population_plot_is_seen_whole_and_its_events_scroll_to_the_last() {
    let (mut harness, _example) = open_at("street-lifecycle", Tab::Population, 137);
    let plots = harness.state().panels().population.shown_plots.clone();
    assert_eq!(plots.len(), 1);
    assert_seen_whole(&harness, "Population", &plots);
    let events: Vec<String> = {
        let preview = harness.state().preview().borrow();
        let world = preview.session.world().expect("a world");
        world
            .events()
            .at_frame(world.frame())
            .iter()
            .map(|e| stagecraft_editor::panels::population::event_text(world, e))
            .collect()
    };
    assert!(events.len() >= 2, "{events:?}");
    // Every row is there (some repeat: one per rejected candidate), and the last one scrolls
    // fully into view above the status line.
    for text in &events {
        let rows = harness.query_all_by_label(text).count();
        let expected = events.iter().filter(|e| *e == text).count();
        assert_eq!(rows, expected, "rows `{text}`");
    }
    let last = events.last().expect("events");
    harness
        .query_all_by_label(last)
        .last()
        .expect("the last row")
        .scroll_to_me();
    harness.run_steps(3);
    let row = harness
        .query_all_by_label(last)
        .last()
        .expect("the last row")
        .rect();
    let status = status_top(&harness);
    assert!(
        row.bottom() <= status,
        "{row:?} is cut by the status line at {status}"
    );
    assert!(row.top() >= 560.0, "{row:?} is above the lower strip");
    assert!(
        row.right() <= plots[0].left(),
        "{row:?} runs under the plot"
    );
}
