//! Stage inspection in the editor, driven through kittest on the street-block example: serial
//! stepping from `--step`, the toolbar and F10 / Shift+F10 draws the products of the stages up
//! to the cursor (the Recipe graph marks the stage), a locked stage is drawn alone, and the
//! heatmap draws the runtime's bins of the scatter with a legend.

mod support;

use std::time::Duration;

use egui_kittest::kittest::Queryable as _;
use egui_kittest::Harness;
use stagecraft_editor::app::{RunArgs, StagecraftApp};
use stagecraft_editor::command::StageCommand;
use stagecraft_editor::panels::{viewport_legend, Tab};
use stagecraft_editor::viewport::LayerKind;
use stagecraft_runtime::content::heatmap::{scatter_heatmap, HeatmapMode};
use stagecraft_runtime::content::Product;
use support::example;

/// The editor on a copy of street-block at 1280×800 with the Viewport in front, stepped to
/// `step` and drawing `heatmap`, once the content is generated (with the copy, kept alive).
fn open(
    step: Option<usize>,
    heatmap: Option<HeatmapMode>,
) -> (Harness<'static, StagecraftApp>, support::Example) {
    let example = example("street-block");
    let args = RunArgs {
        project: Some(example.dir.clone()),
        tab: Some(Tab::Viewport),
        step,
        heatmap,
        ..Default::default()
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |cc| StagecraftApp::new(cc, args));
    harness.run_steps(3);
    let ready = support::wait_until(&mut harness, Duration::from_secs(120), |app| {
        let preview = app.preview().borrow();
        preview.session.content().is_some() && !preview.session.is_generating()
    });
    assert!(ready.is_some(), "street-block was generated");
    harness.run_steps(3);
    (harness, example)
}

/// Objects drawn, stages shown and heatmap squares drawn now.
fn drawn(harness: &Harness<'static, StagecraftApp>) -> (usize, Option<usize>, usize) {
    let preview = harness.state().preview().borrow();
    let objects = preview.scene.layer(LayerKind::Placements).picks.len();
    let squares = preview.scene.layer(LayerKind::Heatmap).triangles.len() / 6;
    (objects, preview.inspect.step(), squares)
}

/// (accepted placements of stage 2, placed objects of stage 3) of the whole generation.
fn counts(harness: &Harness<'static, StagecraftApp>) -> (usize, usize) {
    let preview = harness.state().preview().borrow();
    let content = preview.session.content().expect("content");
    let Product::Placements(scatter) = content.stage(2).expect("2").product.as_ref() else {
        panic!("scatter");
    };
    let Product::PlacedObjects(placed) = content.stage(3).expect("3").product.as_ref() else {
        panic!("placed");
    };
    (scatter.placement_count(), placed.objects.len())
}

#[test]
fn stepping_draws_the_products_up_to_the_cursor_and_the_graph_marks_it() {
    let (mut harness, _example) = open(Some(2), None);
    let (scattered, placed) = counts(&harness);
    assert!(scattered > 0 && placed == scattered, "{scattered} {placed}");
    // Step 2: the block and the scatter's placements (no select-and-place consumes them yet).
    assert_eq!(drawn(&harness), (scattered, Some(2), 0));
    assert!(harness
        .query_by_label_contains("step 2/3 · 2 Scatter props on sidewalks")
        .is_some());
    // F10: step 3, the placed objects.
    harness.key_press(egui::Key::F10);
    harness.run_steps(2);
    assert_eq!(drawn(&harness), (placed, Some(3), 0));
    // Shift+F10 twice: step 1, the block alone.
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    harness.run_steps(2);
    assert_eq!(drawn(&harness), (0, Some(1), 0));
    {
        let preview = harness.state().preview().borrow();
        let content = preview.session.content().expect("content");
        let (shown, _) = preview.inspect.clone().shown(content, 1);
        assert_eq!(shown.stages().len(), 1);
    }
    // The toolbar's Next and All.
    harness.get_by_label("Next ▶").click();
    harness.run_steps(2);
    assert_eq!(drawn(&harness), (scattered, Some(2), 0));
    // The Recipe graph marks the stage the cursor is on, greys the one after it.
    harness.state_mut().show_tab(Tab::RecipeGraph);
    harness.run_steps(3);
    assert!(harness
        .query_by_label_contains("⏵ step 2/3 (F10 next, Shift+F10 back)")
        .is_some());
    let marks = harness.state().panels().recipe_graph.stage_marks.clone();
    assert_eq!(marks.stepped, Some((2, 2, 3)));
    assert_eq!(marks.beyond, vec![3]);
    harness.state_mut().show_tab(Tab::Viewport);
    harness.run_steps(2);
    harness.get_by_label("All").click();
    harness.run_steps(2);
    assert_eq!(drawn(&harness), (placed, None, 0));
}

#[test]
fn a_locked_stage_is_drawn_alone_until_released() {
    let (mut harness, _example) = open(None, None);
    let (scattered, placed) = counts(&harness);
    // The Recipe graph's node menu sends this command; the app applies it.
    harness
        .state_mut()
        .perform(stagecraft_editor::app::actions::Action::Stage(
            StageCommand::TogglePin(2),
        ));
    harness.run_steps(2);
    assert_eq!(drawn(&harness).0, scattered);
    {
        let preview = harness.state().preview().borrow();
        assert_eq!(preview.inspect.pinned().map(|p| p.stage), Some(2));
        // Only the scatter: no street surfaces either.
        assert!(preview.scene.layer(LayerKind::Content).triangles.is_empty());
    }
    assert!(harness.query_by_label_contains("locked: stage 2").is_some());
    // The Recipe graph marks it and greys the stages not drawn.
    harness.run_steps(1);
    let marks = harness.state().panels().recipe_graph.stage_marks.clone();
    assert_eq!((marks.pinned, marks.beyond), (Some((2, false)), vec![1, 3]));
    harness.get_by_label("Release").click();
    harness.run_steps(2);
    assert_eq!(drawn(&harness).0, placed);
    let preview = harness.state().preview().borrow();
    assert!(preview.inspect.pinned().is_none());
    assert!(!preview.scene.layer(LayerKind::Content).triangles.is_empty());
}

#[test]
fn the_heatmap_draws_the_runtimes_bins_with_a_legend() {
    let (mut harness, _example) = open(None, Some(HeatmapMode::Rejections(None)));
    let expected = {
        let preview = harness.state().preview().borrow();
        let content = preview.session.content().expect("content");
        let Product::Placements(scatter) = content.stage(2).expect("2").product.as_ref() else {
            panic!("scatter");
        };
        let heat = scatter_heatmap(scatter, HeatmapMode::Rejections(None), 96).expect("bins");
        assert_eq!(heat.total(), scatter.rejected_count() as u64);
        heat
    };
    let filled = expected.counts.iter().filter(|c| **c > 0).count();
    assert!(filled > 0);
    assert_eq!(drawn(&harness).2, filled);
    {
        let preview = harness.state().preview().borrow();
        let (stage, heat) = preview.scene.heatmap().expect("drawn");
        assert_eq!((stage, heat), (2, &expected));
        let sections = viewport_legend::sections(&preview, &[]);
        let legend = sections
            .iter()
            .find(|(title, _)| *title == "Heatmap")
            .expect("a heatmap legend");
        assert!(legend.1[0]
            .0
            .starts_with("rejections per 3.0 m bin, stage 2"));
    }
    // The combo switches to accepted placements.
    harness
        .get_by_role_and_label(egui::accesskit::Role::ComboBox, "Heatmap")
        .click();
    harness.run_steps(2);
    harness.get_by_label("placements").click();
    harness.run_steps(2);
    let preview = harness.state().preview().borrow();
    assert_eq!(preview.options.heatmap, Some(HeatmapMode::Density));
    let (_, heat) = preview.scene.heatmap().expect("drawn");
    assert_eq!(heat.mode, HeatmapMode::Density);
    // Stepping back to the block alone leaves no scatter to bin.
    drop(preview);
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F10);
    harness.run_steps(2);
    assert_eq!(drawn(&harness), (0, Some(1), 0));
    assert!(harness.state().preview().borrow().scene.heatmap().is_none());
}

/// The captures of `scripts/screenshots.sh` that step or draw a heatmap parse as the binary
/// parses them, and bad values are refused with the accepted ones named.
#[test]
fn the_capture_options_parse_and_bad_values_are_refused() {
    use stagecraft_editor::cli::parse_cli;
    use stagecraft_editor::viewport::heatmap_marks::mode_of_name;
    let script = std::fs::read_to_string(support::repo_root().join("scripts/screenshots.sh"))
        .expect("the script");
    // Each `capture PROJECT OUTPUT FLAGS…` command, continuation lines joined.
    let joined = script.replace("\\\n", " ");
    let captures: Vec<Vec<String>> = joined
        .lines()
        .filter(|line| {
            line.starts_with("capture ") && (line.contains("--step") || line.contains("--heatmap"))
        })
        .map(|line| line.split_whitespace().skip(1).map(str::to_owned).collect())
        .collect();
    assert_eq!(captures.len(), 2, "{captures:?}");
    let parse = |words: &[String]| {
        let mut args: Vec<std::ffi::OsString> = vec!["stagecraft".into(), words[0].clone().into()];
        args.push("--screenshot".into());
        args.extend(words[1..].iter().map(Into::into));
        parse_cli(args)
    };
    let stepping = parse(&captures[0]).expect("parses");
    assert_eq!(stepping.step, Some(2));
    let heatmap = parse(&captures[1]).expect("parses");
    assert_eq!(
        heatmap.heatmap.as_deref().and_then(mode_of_name),
        Some(HeatmapMode::Rejections(None))
    );
    let args = |extra: &[&str]| -> Vec<std::ffi::OsString> {
        ["stagecraft", "projects/street-block"]
            .iter()
            .chain(extra)
            .map(Into::into)
            .collect()
    };
    let by_reason = parse_cli(args(&["--heatmap", "rejections:conflict"])).expect("parses");
    assert_eq!(
        by_reason.heatmap.as_deref().and_then(mode_of_name),
        Some(HeatmapMode::Rejections(Some(
            stagecraft_runtime::content::heatmap::RejectionKind::Conflict
        )))
    );
    let zero = parse_cli(args(&["--step", "0"])).expect_err("refused");
    assert!(zero.to_string().contains("--step"), "{zero}");
    let unknown = parse_cli(args(&["--heatmap", "heat"])).expect_err("refused");
    assert!(
        unknown.to_string().contains("rejections:conflict"),
        "{unknown}"
    );
}
