//! The Viewport's legend strip and exclusion regions, driven through kittest in the default
//! 1280×800 layout: the legends sit beside the scene (never over its content or a drag
//! handle) and collapse; each exclusion region (an `Exclude` override) is drawn and a click
//! inside it selects its override, which the Inspector shows and edits with undo.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::panels::viewport_legend::{COLLAPSED_W, OPEN_W};
use stagecraft_editor::panels::Tab;
use stagecraft_editor::viewport::exclusions;
use stagecraft_editor::viewport::handles::handles;
use stagecraft_runtime::project::OverrideAction;
use support::example;

/// The editor on example `project` at 1280×800 with the Viewport in front, once its content is
/// generated and framed (and its world built, when it has a scenario).
fn open(project: &str) -> (Harness<'static, StagecraftApp>, support::Example) {
    let example = example(project);
    let args = RunArgs {
        project: Some(example.dir.clone()),
        tab: Some(Tab::Viewport),
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    let ready = support::wait_until(&mut harness, Duration::from_secs(120), |app| {
        let preview = app.preview().borrow();
        let scenarios = !app
            .document()
            .is_some_and(|d| d.project().scenarios.is_empty());
        preview.session.content().is_some()
            && !preview.session.is_generating()
            && (preview.session.world().is_some() || !scenarios)
    });
    assert!(ready.is_some(), "{project} was generated");
    harness.run_steps(4);
    (harness, example)
}

/// The screen rect the content's bounds project to in the scene, clipped to the scene (where
/// the scene is drawn).
fn framed_content(harness: &Harness<'static, StagecraftApp>) -> egui::Rect {
    let app = harness.state();
    let viewport = &app.panels().viewport;
    let scene = viewport.rect.expect("the scene was drawn");
    let bounds = app
        .preview()
        .borrow()
        .scene
        .content_bounds()
        .expect("content is drawn");
    let size = [scene.width(), scene.height()];
    let points: Vec<egui::Pos2> = bounds
        .corners()
        .iter()
        .filter_map(|corner| viewport.camera.project(*corner, size))
        .map(|p| scene.min + egui::vec2(p[0], p[1]))
        .collect();
    assert!(!points.is_empty(), "the content is in front of the camera");
    egui::Rect::from_points(&points).intersect(scene)
}

#[test]
fn legends_sit_beside_the_framed_content_and_the_handles_and_collapse() {
    for project in [
        "street-block",
        "crosswalk-demo",
        "pine-clearing",
        "tactical-mission",
        "street-lifecycle",
    ] {
        let (mut harness, _example) = open(project);
        let content = framed_content(&harness);
        let viewport = &harness.state().panels().viewport;
        let scene = viewport.rect.expect("the scene was drawn");
        let legend = viewport
            .legend_rect
            .unwrap_or_else(|| panic!("{project}: a legend is shown"));
        assert!(content.width() > 100.0, "{project}: content {content:?}");
        assert!(
            !legend.intersects(content.shrink(0.5)),
            "{project}: the legend {legend:?} covers the content {content:?}"
        );
        assert_eq!(legend.left(), scene.right(), "{project}: beside the scene");
        assert_eq!(legend.width(), OPEN_W, "{project}");
        assert!(
            legend.right() <= 1280.0 && legend.bottom() <= 800.0,
            "{project}"
        );
        // No drag handle of the scenario shown lies under the legend.
        let app = harness.state();
        let scenario = app
            .preview()
            .borrow()
            .session
            .scenario_id()
            .and_then(|id| app.document()?.project().scenarios.get(id).cloned());
        if let Some(scenario) = scenario {
            let size = [scene.width(), scene.height()];
            for handle in handles(&scenario) {
                let at = three_d::vec3(handle.at.x as f32, handle.at.y as f32, handle.at.z as f32);
                if let Some(p) = viewport.camera.project(at, size) {
                    let p = scene.min + egui::vec2(p[0], p[1]);
                    assert!(
                        !legend.contains(p),
                        "{project}: a handle at {p:?} is under it"
                    );
                }
            }
        }
        // Its header collapses it to a narrow tab and gives the scene the width back.
        harness.get_by_label("Legend ⏵").click();
        harness.run_steps(3);
        let viewport = &harness.state().panels().viewport;
        let collapsed = viewport.legend_rect.expect("the collapsed tab");
        assert_eq!(collapsed.width(), COLLAPSED_W, "{project}");
        let wider = viewport.rect.expect("the scene");
        assert_eq!(
            wider.width(),
            scene.width() + OPEN_W - COLLAPSED_W,
            "{project}"
        );
    }
}

#[test]
fn a_click_inside_an_exclusion_region_selects_its_override_for_the_inspector() {
    let (mut harness, _example) = open("pine-clearing");
    let regions = harness.state().panels().viewport.exclusions.clone();
    assert_eq!(regions.len(), 1, "the example's one exclusion is drawn");
    let region = regions[0].clone();
    assert!(harness
        .query_by_label("exclusion (Exclude override)")
        .is_some());
    // Look at the region from above, so it is large on screen, and click its centre.
    let (x, y) = (
        (region.min_m[0] + region.max_m[0]) / 2.0,
        (region.min_m[1] + region.max_m[1]) / 2.0,
    );
    {
        let app = harness.state_mut();
        let camera = &mut app.panels_mut().viewport.camera;
        camera.target = three_d::vec3(x as f32, y as f32, 0.0);
        camera.distance_m = 20.0;
    }
    harness.run_steps(2);
    let viewport = &harness.state().panels().viewport;
    let scene = viewport.rect.expect("the scene");
    let outline =
        exclusions::outline(scene, &viewport.camera, &region).expect("the region projects");
    let centre = egui::Rect::from_points(&outline).center();
    assert!(scene.contains(centre));
    assert_eq!(
        viewport.exclusion_at(scene, centre).map(|r| r.index),
        Some(region.index)
    );
    click_at(&mut harness, centre);
    let document = harness.state().document().expect("a document");
    assert_eq!(document.selection(), &region.selection());
    // The Inspector shows the override's rows; its corner is edited there and undone.
    assert!(harness
        .query_by_label_contains("Override set pine-clearing-edits")
        .is_some());
    let min = harness.get_by_label("Min");
    min.click();
    harness.run_steps(2);
    harness.get_by_label("Min").type_text("26.5");
    harness.key_press(egui::Key::Enter);
    harness.run_steps(4);
    let exclude = |harness: &Harness<'static, StagecraftApp>| {
        let document = harness.state().document().expect("a document");
        match &document.project().overrides[&region.set].overrides[region.index].action {
            OverrideAction::Exclude { min, .. } => (min.x, min.y),
            other => panic!("not an exclusion: {other:?}"),
        }
    };
    assert_eq!(exclude(&harness), (26.5, region.min_m[1]));
    let drawn = harness.state().panels().viewport.exclusions[0].min_m;
    assert_eq!(
        drawn,
        [26.5, region.min_m[1]],
        "the drawn region follows the edit"
    );
    assert!(harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .undo());
    harness.run_steps(3);
    assert_eq!(exclude(&harness), (region.min_m[0], region.min_m[1]));
}

/// A primary click at `at`, as a user's mouse makes it.
fn click_at(harness: &mut Harness<'static, StagecraftApp>, at: egui::Pos2) {
    let button = |pressed| egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.event(egui::Event::PointerMoved(at));
    harness.run_steps(1);
    harness.event(button(true));
    harness.run_steps(1);
    harness.event(button(false));
    harness.run_steps(4);
}

#[test]
fn a_click_inside_a_scenario_box_selects_it_and_the_legend_names_it() {
    use stagecraft_editor::edits::{DocId, Selection};
    use stagecraft_runtime::project::FieldPath;
    let (mut harness, _example) = open("street-block");
    assert!(harness.query_by_label("no-spawn box").is_some());
    assert!(harness.query_by_label("no-removal box").is_some());
    // Top-down over the no-spawn box (-6..6 × -3.5..3.5 m) at frame 0 (nobody walks yet);
    // click off its centre, where its drag handle is.
    {
        let camera = &mut harness.state_mut().panels_mut().viewport.camera;
        camera.target = three_d::vec3(0.0, 0.0, 0.0);
        camera.distance_m = 30.0;
    }
    harness.run_steps(2);
    let viewport = &harness.state().panels().viewport;
    let scene = viewport.rect.expect("the scene");
    let size = [scene.width(), scene.height()];
    let at = viewport
        .camera
        .project(three_d::vec3(-4.0, -2.0, 0.0), size)
        .map(|p| scene.min + egui::vec2(p[0], p[1]))
        .expect("the point projects");
    click_at(&mut harness, at);
    let document = harness.state().document().expect("a document");
    let expected = Selection::field(
        DocId::Scenario("crosswalk-rush".into()),
        FieldPath::root().field("no_spawn_box"),
    );
    assert_eq!(document.selection(), &expected);
}
