//! The Daily tab on a project whose grid-mission recipe also runs a subrecipe: the recipe
//! compiles with the project's recipes (as the generation service compiles it), so the day's
//! mission is solved exactly as in the plain tactical example.

mod support;

use egui_kittest::Harness;
use stagecraft_editor::panels::daily::DailyPanel;
use support::example;

type State = support::PanelState<DailyPanel>;

const SEEDS: &str = "DailySeeds(\n    schema: 1,\n    seeds: [\n        DailySeed(\n            cell_id: \"PCG_Tactical\",\n            date_id: \"2026-05-23\",\n            seed: 424242,\n            server_signature: \"sig-424242\",\n            dispatch_utc: \"2026-05-23T00:00:00Z\",\n        ),\n    ],\n)\n";

const CHILD: &str = "Recipe(\n    schema: 1,\n    id: \"extra-block\",\n    label: \"One street block, run as a subrecipe\",\n    address_schema: 1,\n    inputs: {},\n    stages: [\n        Stage(\n            id: 1,\n            label: \"Block\",\n            operator: \"street.block\",\n            algorithm: 1,\n            inputs: [],\n            parameters: {\n                \"crosswalk_width_m\": 3.0,\n                \"crosswalks\": 1,\n                \"lanes\": 1,\n                \"length_m\": 50.0,\n                \"road_width_m\": 4.0,\n                \"sidewalk_width_m\": 3.0,\n            },\n        ),\n    ],\n    outputs: [\n        1,\n    ],\n)\n";

const SUBRECIPE_STAGE: &str = "        Stage(\n            id: 3,\n            label: \"A block beside the mission\",\n            operator: \"subrecipe\",\n            algorithm: 1,\n            inputs: [],\n            parameters: {\n                \"binds\": [],\n                \"recipe\": \"recipes/extra-block.recipe.ron\",\n            },\n        ),\n    ],\n    outputs: [\n        1,\n        2,\n        3,\n    ],";

/// The tactical example with a subrecipe stage added to its (only) grid-mission recipe.
fn tactical_with_subrecipe() -> support::Example {
    let example = example("tactical-mission");
    let recipes = example.dir.join("recipes");
    std::fs::write(recipes.join("extra-block.recipe.ron"), CHILD).expect("child recipe");
    let root = recipes.join("tactical-mission.recipe.ron");
    let text = std::fs::read_to_string(&root).expect("root recipe");
    let tail = "    ],\n    outputs: [\n        1,\n        2,\n    ],";
    assert!(text.contains(tail), "the example's outputs changed");
    std::fs::write(&root, text.replace(tail, SUBRECIPE_STAGE)).expect("root recipe");
    std::fs::write(example.dir.join("daily-seeds.ron"), SEEDS).expect("seed file");
    example
}

#[test]
fn a_grid_mission_recipe_with_a_subrecipe_stage_previews_the_days_mission() {
    let example = tactical_with_subrecipe();
    let harness: Harness<'static, State> = support::read_only_panel(
        &example.dir,
        egui::vec2(900.0, 600.0),
        2,
        "the Daily tab never edits the project",
        |_| DailyPanel::default(),
    );
    let layout = harness
        .state()
        .panel
        .result
        .clone()
        .expect("previewed")
        .expect("solved");
    assert_eq!(layout.seed, 424_242);
    assert_eq!(
        layout.ascii_map(),
        ".O****\n.*O***\n...#*X\n.##.O.\nS****#\n"
    );
    assert_eq!(layout.objectives.len(), 3);
    assert_eq!(layout.bot_path.len(), 18);
}
