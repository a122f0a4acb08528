//! Tests of `layout.grid-mission` over a project chunk library: the compiler resolves the library
//! by id, the stage takes its graph's rows, and each cell draws among the rows its role, tags,
//! sockets and archetype admit.

use std::collections::BTreeMap;

use super::*;
use crate::content::{ChunkRole, GridCell};
use crate::ops::grid_mission::{cell_candidates, path_sides, solve_mission, SOCKET_S, SOCKET_W};
use crate::project::chunk_library::{graph_chunks, read_chunk_library, ChunkLibrary};
use crate::project::{read_document, DocKind, Recipe};
use crate::recipe::{compile_with, CompileOutcome, RecipeSource};

const LAUNCH: &str = include_str!("../../../../projects/tactical-mission/chunks/launch.chunks.ron");
const FILE: &str = "recipes/m.recipe.ron";

fn libraries() -> BTreeMap<String, ChunkLibrary> {
    let (library, diagnostics) = read_chunk_library("chunks/launch.chunks.ron", LAUNCH);
    assert_eq!(diagnostics, Vec::new());
    BTreeMap::from([("launch".to_owned(), library.unwrap_or_default())])
}

/// Compiles a one-stage grid-mission recipe with `params` against the launch library.
fn compile_stage(params: &str) -> CompileOutcome {
    let text = format!(
        "Recipe(schema: 1, id: \"m\", address_schema: 1, inputs: {{}},\n\
         stages: [\n\
         Stage(id: 1, operator: \"layout.grid-mission\", algorithm: 1, parameters: {{\n\
         {params}\n\
         }}),\n\
         ], outputs: [1])\n"
    );
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: FILE,
        tree: tree.as_ref(),
    };
    let families = BTreeMap::new();
    compile_with(
        &recipe,
        &families,
        &libraries(),
        &Registry::standard(),
        source,
    )
}

fn errors(outcome: &CompileOutcome) -> Vec<String> {
    outcome
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}: {}", d.line, d.column, d.path, d.message))
        .collect()
}

fn mission_params(outcome: &CompileOutcome) -> GridMissionStageParams {
    let plan = outcome
        .plan
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", errors(outcome)));
    match plan.stages()[0].params() {
        StageParams::GridMission(p) => p.clone(),
        other => panic!("{other:?}"),
    }
}

fn ids(chunks: &[&crate::ops::grid_mission::ChunkDefinition]) -> Vec<String> {
    chunks.iter().map(|c| c.id.clone()).collect()
}

#[test]
fn a_named_library_gives_the_stage_its_graphs_rows() {
    let outcome = compile_stage("\"graph\": \"PCG_Tactical\", \"library\": \"launch\"");
    let params = mission_params(&outcome);
    assert_eq!(params.chunks.len(), 12);
    assert_eq!(
        params.chunks,
        graph_chunks(&libraries()["launch"], "PCG_Tactical")
    );
    let hallway = &params.chunks[5];
    assert_eq!(hallway.id, "tactical/hallway");
    assert_eq!(hallway.archetype, "Hallway");
    assert_eq!(
        hallway.sockets,
        SOCKET_W | crate::ops::grid_mission::SOCKET_E
    );
    // The graph preset's grid and the library's rows: the stealth graph takes its own.
    let stealth = mission_params(&compile_stage(
        "\"graph\": \"PCG_Stealth\", \"library\": \"launch\"",
    ));
    assert_eq!((stealth.width, stealth.height), (7, 6));
    assert_eq!(stealth.chunks.len(), 12);
    assert!(stealth.chunks.iter().all(|c| c.id.starts_with("stealth/")));
}

#[test]
fn library_problems_are_located_at_their_parameter() {
    let found: Vec<Vec<String>> = [
        "\"graph\": \"PCG_Tactical\", \"library\": \"nope\"",
        "\"library\": \"launch\"",
        "\"graph\": \"PCG_Tactical\", \"library\": \"launch\", \"chunks\": [(\"a\", \"spawn\", false)]",
        "\"graph\": \"PCG_Tactical\"",
    ]
    .iter()
    .map(|params| errors(&compile_stage(params)))
    .collect();
    assert_eq!(
        found,
        [
            vec!["4:37 stages[0].parameters[\"library\"]: stage 1: no chunk library `nope` in the project (`chunks/nope.chunks.ron`, read without errors)"],
            vec!["3:73 stages[0].parameters: stage 1: chunk library `launch` is given without a graph to take its rows of"],
            vec!["4:37 stages[0].parameters[\"library\"]: stage 1: both `chunks` and `library` are given"],
            vec!["3:73 stages[0].parameters: stage 1: missing parameter `chunks` (or `library`)"],
        ]
    );
}

#[test]
fn cells_draw_among_the_rows_their_role_tags_sockets_and_archetype_admit() {
    let tactical = graph_chunks(&libraries()["launch"], "PCG_Tactical");
    // A path running west to east through (1, 1), a fill cell on it.
    let path = [
        GridCell::new(0, 1),
        GridCell::new(1, 1),
        GridCell::new(2, 1),
    ];
    assert_eq!(
        ids(&cell_candidates(
            &tactical,
            None,
            GridCell::new(1, 1),
            &path
        )),
        [
            "tactical/hallway",
            "tactical/courtyard",
            "tactical/checkpoint"
        ]
    );
    // Turning south at (1, 1): only the courtyard opens both west and south; a cell off the path
    // avoids hallways.
    let turn = [
        GridCell::new(0, 1),
        GridCell::new(1, 1),
        GridCell::new(1, 2),
    ];
    assert_eq!(path_sides(GridCell::new(1, 1), &turn), SOCKET_W | SOCKET_S);
    assert_eq!(
        ids(&cell_candidates(
            &tactical,
            None,
            GridCell::new(1, 1),
            &turn
        )),
        ["tactical/courtyard"]
    );
    assert_eq!(
        ids(&cell_candidates(
            &tactical,
            None,
            GridCell::new(4, 4),
            &turn
        )),
        [
            "tactical/courtyard",
            "tactical/checkpoint",
            "tactical/tower"
        ]
    );
    // The spawn chunk has the west-edge tag; objectives keep their three rows.
    assert_eq!(
        ids(&cell_candidates(
            &tactical,
            Some(ChunkRole::Spawn),
            GridCell::new(0, 1),
            &path
        )),
        ["tactical/spawn-yard"]
    );
    assert_eq!(
        cell_candidates(
            &tactical,
            Some(ChunkRole::Objective),
            GridCell::new(5, 0),
            &path
        )
        .len(),
        3
    );
}

#[test]
fn a_library_mission_places_admitted_rows_and_reproduces() {
    let params = mission_params(&compile_stage(
        "\"graph\": \"PCG_Tactical\", \"library\": \"launch\", \"min_extraction_distance\": 5",
    ));
    let layout = solve_mission(&params.request(7)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((layout.width, layout.height), (6, 5));
    assert!(layout.bot_path.len() > 8, "critical path ≥ 8 steps");
    for chunk in &layout.chunks {
        let role = (!ChunkRole::FILL.contains(&chunk.role)).then_some(chunk.role);
        let admitted = cell_candidates(&params.chunks, role, chunk.cell, &layout.bot_path);
        assert!(
            admitted.iter().any(|c| c.id == chunk.chunk_id),
            "{chunk:?} not among {:?}",
            ids(&admitted)
        );
    }
    // Off-path fill cells never hold a hallway; path fill cells are walkable rows.
    for chunk in &layout.chunks {
        if ChunkRole::FILL.contains(&chunk.role) && !layout.bot_path.contains(&chunk.cell) {
            assert_ne!(chunk.chunk_id, "tactical/hallway");
            assert_ne!(chunk.chunk_id, "tactical/alley");
        }
        if ChunkRole::FILL.contains(&chunk.role) && layout.bot_path.contains(&chunk.cell) {
            assert_ne!(chunk.chunk_id, "tactical/tower");
        }
    }
    assert_eq!(solve_mission(&params.request(7)), Ok(layout));
}
