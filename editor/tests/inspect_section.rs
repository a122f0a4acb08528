//! `stagecraft PROJECT --inspect crossings` (the screenshot of the Inspector's crossing
//! settings): the Inspector scrolls the selected section to its top, so the section's later
//! rows are seen in the default 1280×800 layout, not only its header.

mod support;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::panels::Tab;
use support::example;

#[test]
fn inspecting_a_section_scrolls_it_to_the_top_with_its_rows_in_view() {
    let example = example("crosswalk-demo");
    let args = RunArgs {
        project: Some(example.dir.clone()),
        scenario: Some("ping-pong".to_owned()),
        tab: Some(Tab::Inspector),
        inspect: Some("crossings".to_owned()),
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    // As many frames as a screenshot waits before it captures.
    harness.run_steps(20);
    let heading = harness.get_by_label("Scenario ping-pong").rect();
    // The Diagnostics tab's counters, under its tab bar below the Inspector.
    let diagnostics = harness.get_by_label("⛔ 0 errors").rect();
    let inspector_bottom = diagnostics.top() - 20.0;
    let header = harness.get_by_label("Crossings").rect();
    // The section's header is the first thing under the Inspector's heading…
    assert!(
        header.top() > heading.bottom() && header.top() < heading.bottom() + 40.0,
        "the Crossings header at {header:?}, the heading at {heading:?}"
    );
    // …and its rows down to the signal timings and the liveness settings are in view above the
    // Diagnostics tab.
    for row in [
        "Lanes",
        "Queue rows",
        "Vehicle green",
        "Pedestrian",
        "Stuck after",
    ] {
        let rect = harness.get_by_label(row).rect();
        assert!(
            rect.top() > header.bottom() && rect.bottom() < inspector_bottom,
            "`{row}` at {rect:?} is out of view (the Inspector ends at {inspector_bottom})"
        );
    }
}
