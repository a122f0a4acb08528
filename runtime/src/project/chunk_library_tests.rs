//! Tests of chunk library documents: the shipped launch library and the linter's located errors.

use super::chunk_library::*;
use crate::content::ChunkRole;

/// The launch library the tactical example ships.
const LAUNCH: &str = include_str!("../../../projects/tactical-mission/chunks/launch.chunks.ron");
const FILE: &str = "chunks/launch.chunks.ron";

fn launch() -> ChunkLibrary {
    let (library, diagnostics) = read_chunk_library(FILE, LAUNCH);
    assert_eq!(diagnostics, Vec::new());
    library.unwrap_or_else(|| panic!("launch library"))
}

/// `"line:column path: message"` of every diagnostic of `text`.
fn problems(text: &str) -> Vec<String> {
    let (library, diagnostics) = read_chunk_library(FILE, text);
    assert!(library.is_none() || diagnostics.is_empty());
    diagnostics
        .iter()
        .map(|d| format!("{}:{} {}: {}", d.line, d.column, d.path, d.message))
        .collect()
}

#[test]
fn the_launch_library_has_55_rows_over_the_five_graphs_and_six_archetypes() {
    let library = launch();
    assert_eq!(library.chunks.len(), 55);
    let per_graph: Vec<usize> = crate::ops::registry::GRAPH_NAMES
        .iter()
        .map(|g| library.chunks.iter().filter(|c| c.graph == *g).count())
        .collect();
    assert_eq!(per_graph, [12, 12, 11, 10, 10]);
    let per_archetype: Vec<usize> = ARCHETYPES
        .iter()
        .map(|a| library.chunks.iter().filter(|c| c.archetype == *a).count())
        .collect();
    assert_eq!(per_archetype, [8, 8, 9, 15, 6, 9]);
    assert!(library
        .chunks
        .iter()
        .all(|c| c.tags.iter().any(|t| t.starts_with("Procgen.Constraint."))));
    // Every graph's rows give the solver a chunk for each role it places.
    for graph in crate::ops::registry::GRAPH_NAMES {
        let chunks = graph_chunks(&library, graph);
        assert_eq!(
            crate::ops::grid_mission::check_library(&chunks),
            Ok(()),
            "{graph}"
        );
    }
    let tactical = graph_chunks(&library, "PCG_Tactical");
    assert_eq!(tactical[0].id, "tactical/spawn-yard");
    assert_eq!(tactical[0].role, ChunkRole::Spawn);
    let npc: Vec<&str> = tactical
        .iter()
        .filter(|c| c.npc_spawn_tag)
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(npc, ["tactical/courtyard", "tactical/checkpoint"]);
}

#[test]
fn a_library_that_breaks_a_rule_is_a_located_error() {
    // The last row loses its constraint tag: an error at its `tags` field.
    let untagged = LAUNCH.replacen(
        "\"Procgen.Constraint.Blocks\",\n            ],\n        ),\n    ],",
        "\"Decor\",\n            ],\n        ),\n    ],",
        1,
    );
    let last_tags = untagged
        .find("\"Decor\"")
        .unwrap_or_else(|| panic!("edited"));
    let line = untagged[..last_tags].lines().count() - 1;
    assert_eq!(
        problems(&untagged),
        [format!(
            "{line}:19 chunks[54].tags: chunk \"2d/brick-wall\" has no constraint tag"
        )]
    );
    // A repeated id, at the second row with it.
    let repeated = LAUNCH.replacen("\"tactical/rubble\"", "\"tactical/wall\"", 1);
    let found = problems(&repeated);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].ends_with("chunks[11].id: chunk id \"tactical/wall\" repeats row 10"),
        "{found:?}"
    );
    // No arena anywhere, and an unknown archetype.
    let no_arena = LAUNCH.replace("\"Arena\"", "\"Room\"");
    assert_eq!(
        problems(&no_arena),
        ["4:13 chunks: no chunk has archetype `Arena`"]
    );
    let cave = LAUNCH.replacen("archetype: \"Hallway\"", "archetype: \"Cave\"", 1);
    let found = problems(&cave);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].contains("chunks[5].archetype: unknown archetype \"Cave\""),
        "{found:?}"
    );
    // Too few rows, and a graph without chunks: drop every 2D row.
    let start = LAUNCH
        .find("        Chunk(\n            id: \"2d/")
        .unwrap_or_else(|| panic!("2d"));
    let end = LAUNCH.rfind("    ],").unwrap_or_else(|| panic!("end"));
    let without_2d = format!("{}{}", &LAUNCH[..start], &LAUNCH[end..]);
    assert_eq!(
        problems(&without_2d),
        [
            "4:13 chunks: no chunk belongs to graph `PCG_2D`",
            "4:13 chunks: the library has 45 chunks, fewer than 50",
        ]
    );
    // A schema error is located by the decoder.
    let wrong = LAUNCH.replacen("footprint_x: 2", "footprint_x: \"wide\"", 1);
    let found = problems(&wrong);
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("footprint_x"), "{found:?}");
}

#[test]
fn daily_seed_files_round_trip_and_locate_bad_keys() {
    use crate::project::daily_seeds::*;
    let mut seeds = DailySeeds::default();
    let seed = |cell: &str, date: &str, value: u64| DailySeed {
        cell_id: cell.to_owned(),
        date_id: date.to_owned(),
        seed: value,
        server_signature: "sig".to_owned(),
        dispatch_utc: "2026-05-23T00:00:00Z".to_owned(),
    };
    assert_eq!(
        seeds.dispatch(seed("PCG_Tactical", "2026-05-23", 424242)),
        Ok(None)
    );
    assert_eq!(seeds.dispatch(seed("PCG_2D", "2026-05-23", 1)), Ok(None));
    let replaced = seeds.dispatch(seed("PCG_2D", "2026-05-23", 2));
    assert_eq!(replaced.map(|r| r.map(|r| r.seed)), Ok(Some(1)));
    let keys: Vec<String> = seeds.seeds.iter().map(DailySeed::key).collect();
    assert_eq!(keys, ["PCG_2D:2026-05-23", "PCG_Tactical:2026-05-23"]);
    assert!(seeds.dispatch(seed("a:b", "2026-05-23", 1)).is_err());
    let text = seeds.to_text();
    let (read, diagnostics) = read_daily_seeds(DAILY_SEEDS_FILE, &text);
    assert_eq!(diagnostics, Vec::new());
    assert_eq!(read.as_ref(), Some(&seeds));
    let book = seeds.book();
    assert_eq!(
        book.get("PCG_Tactical", "2026-05-23").map(|r| r.seed),
        Some(424242)
    );
    // A bad day is an error at its field.
    let bad = text.replace("date_id: \"2026-05-23\"", "date_id: \"2026-13-01\"");
    let (read, diagnostics) = read_daily_seeds(DAILY_SEEDS_FILE, &bad);
    assert!(read.is_none());
    let found: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{}:{} {}: {}", d.line, d.column, d.path, d.message))
        .collect();
    assert_eq!(
        found,
        [
            "6:22 seeds[0].date_id: \"2026-13-01\" is not a calendar day YYYY-MM-DD",
            "13:22 seeds[1].date_id: \"2026-13-01\" is not a calendar day YYYY-MM-DD",
        ]
    );
}
