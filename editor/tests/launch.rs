//! Opening the editor on a given scenario (`stagecraft PROJECT --scenario NAME`) and the
//! Viewport's crowd layers (Tiers, Panic) driven through kittest.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::panels::Tab;
use stagecraft_editor::viewport::LayerKind;
use stagecraft_runtime::sim::AgentState;
use support::example;

fn launch(args: RunArgs) -> Harness<'static, StagecraftApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    harness
}

fn at_frame(harness: &mut Harness<'static, StagecraftApp>, frame: u64) {
    let reached = support::wait_until(harness, Duration::from_secs(120), |app| {
        app.preview().borrow().session.frame() == frame
    });
    assert!(reached.is_some(), "the timeline reached frame {frame}");
    harness.run_steps(2);
}

/// The id of the scenario the app's Timeline runs.
fn scenario_of(harness: &Harness<'static, StagecraftApp>) -> Option<String> {
    let preview = harness.state().preview().borrow();
    preview.session.scenario_id().map(str::to_owned)
}

#[test]
fn the_editor_opens_the_named_scenario_at_the_frame_and_draws_its_fleeing_agents() {
    let example = example("street-block");
    let mut harness = launch(RunArgs {
        project: Some(example.dir.clone()),
        frame: Some(210),
        tab: Some(Tab::Viewport),
        scenario: Some("panic-flee".to_owned()),
        ..Default::default()
    });
    at_frame(&mut harness, 210);
    let preview = harness.state().preview().borrow();
    assert_eq!(preview.session.scenario_id(), Some("panic-flee"));
    let world = preview.session.world().expect("a world");
    let fleeing = world
        .motion_frames()
        .iter()
        .filter(|f| f.behaviour == AgentState::Fleeing && f.tags.flee_exit.is_some())
        .count();
    assert!(fleeing >= 3, "{fleeing} fleeing at frame 210");
    // The Panic layer is on by default: one flee line per fleeing agent.
    assert_eq!(preview.scene.layer(LayerKind::Panic).lines.len(), fleeing);
    // Without `--scenario` the first scenario opens.
    drop(preview);
    let mut first = launch(RunArgs {
        project: Some(example.dir.clone()),
        ..Default::default()
    });
    first.run_steps(3);
    assert_eq!(scenario_of(&first).as_deref(), Some("crosswalk-rush"));
}

#[test]
fn an_unknown_scenario_is_reported_and_the_first_one_opens() {
    let example = example("street-block");
    let mut harness = launch(RunArgs {
        project: Some(example.dir.clone()),
        scenario: Some("nope".to_owned()),
        ..Default::default()
    });
    harness.run_steps(3);
    let (status, error) = harness.state().status().expect("a status");
    assert!(error);
    assert_eq!(
        status,
        "No scenario `nope` (scenarios: crosswalk-rush, panic-flee)"
    );
    assert_eq!(scenario_of(&harness).as_deref(), Some("crosswalk-rush"));
}

#[test]
fn the_binary_refuses_an_unknown_scenario_before_opening_a_window() {
    let example = example("street-block");
    let dir = example.dir.to_str().expect("utf-8");
    let output = support::stagecraft(&[dir, "--scenario", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("has no scenario `nope` (scenarios: crosswalk-rush, panic-flee)"),
        "{stderr}"
    );
    // `--scenario` names a scenario of a project, so it needs one.
    let output = support::stagecraft(&["--scenario", "panic-flee"]);
    assert_eq!(output.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn the_binary_refuses_a_screenshot_path_that_is_no_file_before_opening_a_window() {
    let temp = tempfile::tempdir().expect("temp");
    let socket = temp.path().join("shot.png");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let example = example("street-block");
    let dir = example.dir.to_str().expect("utf-8");
    let output = support::stagecraft(&[dir, "--screenshot", socket.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.ends_with("shot.png is a socket; an output is written only to a new path, a regular file, a pipe or a character device\n"),
        "{stderr}"
    );
}

#[test]
fn the_tiers_and_panic_checkboxes_toggle_their_layers() {
    let example = example("street-block");
    let mut harness = launch(RunArgs {
        project: Some(example.dir.clone()),
        frame: Some(210),
        tab: Some(Tab::Viewport),
        scenario: Some("panic-flee".to_owned()),
        ..Default::default()
    });
    at_frame(&mut harness, 210);
    let layer_sizes = |harness: &Harness<'static, StagecraftApp>| {
        let preview = harness.state().preview().borrow();
        let shapes = |kind| -> usize {
            preview
                .scene
                .layer(kind)
                .shapes
                .iter()
                .map(|s| s.len())
                .sum()
        };
        (shapes(LayerKind::Tiers), shapes(LayerKind::Panic))
    };
    let (tiers, panic) = layer_sizes(&harness);
    assert_eq!(tiers, 0, "Tiers starts off");
    assert!(panic > 0, "Panic starts on");
    harness.get_by_label("Tiers").click();
    harness.run_steps(3);
    let agents = {
        let preview = harness.state().preview().borrow();
        let world = preview.session.world().expect("a world");
        world
            .motion_frames()
            .iter()
            .filter(|f| !f.tags.pooled)
            .count()
    };
    assert!(harness.state().preview().borrow().options.show_tiers);
    assert_eq!(layer_sizes(&harness).0, agents, "one tier disc per agent");
    // The legend (painted, not a widget) is drawn from this list: the tiers present.
    let legend: Vec<String> = {
        let preview = harness.state().preview().borrow();
        let world = preview.session.world().expect("a world");
        stagecraft_editor::viewport::crowd_marks::tier_legend(world)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    };
    assert!(
        legend.contains(&"tier Full (Hero) · body 100 %".to_owned()),
        "{legend:?}"
    );
    harness.get_by_label("Panic").click();
    harness.run_steps(3);
    assert!(!harness.state().preview().borrow().options.show_panic);
    assert_eq!(layer_sizes(&harness).1, 0);
}

#[test]
fn look_at_aims_the_camera_and_layers_shows_exactly_the_listed_layers() {
    let example = example("street-block");
    let mut harness = launch(RunArgs {
        project: Some(example.dir.clone()),
        tab: Some(Tab::Viewport),
        look_at: Some([2.0, 3.0, 15.0]),
        layers: Some(vec!["grid".to_owned(), "panic".to_owned()]),
        ..Default::default()
    });
    let framed = support::wait_until(&mut harness, Duration::from_secs(120), |app| {
        app.preview().borrow().session.content().is_some()
    });
    assert!(framed.is_some(), "the content was generated");
    harness.run_steps(3);
    let camera = &harness.state().panels().viewport.camera;
    assert_eq!((camera.target.x, camera.target.y), (2.0, 3.0));
    // The 30 m square's bounding sphere (15√2 m) fitted at the camera's field of view, brought
    // back to the 15 m circle asked for.
    let fit = 15.0 * std::f32::consts::SQRT_2 / (camera.fov_y_rad * 0.5).sin() * 1.05;
    let expected = fit / std::f32::consts::SQRT_2;
    assert!(
        (camera.distance_m - expected).abs() < 1e-3,
        "{}",
        camera.distance_m
    );
    let options = harness.state().preview().borrow().options.clone();
    assert!(options.show_grid && options.show_panic);
    assert!(!options.show_routes && !options.show_scenario && !options.show_candidates);
    assert!(!options.show_layouts && !options.show_tiers && !options.show_labels);
}

#[test]
fn the_binary_refuses_an_unknown_layer_and_a_malformed_look_at() {
    let example = example("street-block");
    let dir = example.dir.to_str().expect("utf-8");
    let output = support::stagecraft(&[dir, "--layers", "grid,crowd"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown layer `crowd`"), "{stderr}");
    let output = support::stagecraft(&[dir, "--look-at", "1,2"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("expected X,Y,RADIUS"), "{stderr}");
}

#[test]
fn in_a_1280_by_800_window_the_timeline_plot_keeps_its_minimum_height() {
    use stagecraft_editor::panels::timeline_plot::MIN_CURVES_HEIGHT;
    let example = example("street-block");
    let args = RunArgs {
        project: Some(example.dir.clone()),
        frame: Some(20),
        tab: Some(Tab::Timeline),
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    at_frame(&mut harness, 20);
    let plot = &harness.state().panels().timeline.plot;
    assert_eq!(plot.drawn_series, 10, "the plot was drawn");
    assert!(
        plot.shown_height >= MIN_CURVES_HEIGHT,
        "the plot is {} points tall",
        plot.shown_height
    );
}
