//! Tiled cooking (`cook --tile-cells N`, `--items`, `--shard` over tiles): the plan lists each
//! tile of a scatter stage as a work item with its key and estimated bytes; any split of the
//! items over any number of cooks into one cache, then an assembling cook, gives the bundle a
//! single whole cook gives, byte for byte — on `pine-clearing` (whose scatter stage carries author
//! edits) and on the 16 km² `forest-16km2`; a damaged tile entry is discarded and cooked again.

use std::fs;
use std::path::{Path, PathBuf};

use stagecraft_editor::cook::{
    compile_all, cook_project, work_items, CookOptions, CookReport, DiskCache, DEFAULT_BUDGET_BYTES,
};
use stagecraft_editor::service::StageObserver;
use stagecraft_runtime::cook::tiles::{tile_key, BYTES_PER_CANDIDATE};
use stagecraft_runtime::cook::ShardSpec;
use stagecraft_tests::example_project;

/// The pinned bundle digest of `pine-clearing` (`tests/tests/cook.rs`'s golden).
const PINE_DIGEST: &str = "1acf07928358bb6586a43d256ce5353b2f03c75523812ba10156504b9941387a";

fn options(cache: &Path) -> CookOptions {
    CookOptions {
        cache: Some(cache.to_owned()),
        budget_bytes: DEFAULT_BUDGET_BYTES,
        ..CookOptions::default()
    }
}

fn run(project: &Path, options: &CookOptions) -> CookReport {
    cook_project(project, options, &|_, plan| StageObserver::new(plan))
        .unwrap_or_else(|e| panic!("{}: {e:#}", project.display()))
}

/// Cooks `project` whole into `out` (its own cache).
fn whole(project: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("whole");
    run(
        project,
        &CookOptions {
            out: Some(out.clone()),
            ..options(&dir.join("whole-cache"))
        },
    );
    out
}

/// Every file of a bundle folder with its bytes, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for folder in [dir.to_owned(), dir.join("products")] {
        for entry in fs::read_dir(&folder).expect("list").flatten() {
            if entry.path().is_file() {
                let name = entry
                    .path()
                    .strip_prefix(dir)
                    .expect("in")
                    .display()
                    .to_string();
                files.push((name, fs::read(entry.path()).expect("read")));
            }
        }
    }
    files.sort();
    files
}

fn tile_ids(project: &Path, tile_cells: u32) -> Vec<String> {
    let compiled = compile_all(project, &|_| Ok(())).expect("compiles");
    let cache = DiskCache::new(project.join("unused-cache"));
    work_items(&compiled, &cache, compiled.root_seed, Some(tile_cells))
        .into_iter()
        .filter(|i| i.tile.is_some())
        .map(|i| i.id)
        .collect()
}

#[test]
fn the_plan_lists_every_tile_with_its_key_and_estimated_bytes() {
    let project = example_project("pine-clearing");
    let compiled = compile_all(&project, &|_| Ok(())).expect("compiles");
    let cache = DiskCache::new(tempfile::tempdir().expect("temp").path().join("cache"));
    let seed = compiled.root_seed;
    let items = work_items(&compiled, &cache, seed, Some(4));
    // 15 × 15 cells of 4 m in tiles of 4 × 4 cells: 4 × 4 tiles, then the select-and-place stage.
    assert_eq!(items.len(), 17);
    assert_eq!(items[0].id, "pine-clearing/1001/t0_0");
    assert_eq!(items[1].id, "pine-clearing/1001/t1_0");
    assert_eq!(items[15].id, "pine-clearing/1001/t3_3");
    assert_eq!(items[16].id, "pine-clearing/1002");
    assert!(items.iter().enumerate().all(|(n, i)| i.index == n));
    let first = items[0].tile.expect("a tile");
    assert_eq!(
        (
            first.cells.min_x,
            first.cells.min_y,
            first.cells.end_x,
            first.cells.end_y
        ),
        (0, 0, 4, 4)
    );
    let last = items[15].tile.expect("a tile");
    assert_eq!((last.cells.end_x, last.cells.end_y), (15, 15));
    // 4 × 4 cells of 2 candidates; the last tile 3 × 3.
    assert_eq!(
        items[0].estimated_bytes,
        Some(32 * BYTES_PER_CANDIDATE + 2048)
    );
    assert_eq!(
        items[15].estimated_bytes,
        Some(18 * BYTES_PER_CANDIDATE + 2048)
    );
    let stage_key = items[0].key.clone().expect("key");
    let whole = work_items(&compiled, &cache, seed, None);
    let stage = whole[0].key.clone().expect("the stage key");
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&stage[2 * i..2 * i + 2], 16).expect("hex");
    }
    let expected: String = tile_key(&bytes, &first)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(stage_key, expected);
    let mut keys: Vec<&String> = items.iter().filter_map(|i| i.key.as_ref()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(
        keys.len(),
        16,
        "every tile has its own key; 1002's is unknown yet"
    );
}

#[test]
fn tiles_cooked_in_any_split_assemble_to_the_single_machine_bundle() {
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let reference = files(&whole(&project, temp.path()));
    for (tile_cells, shards) in [(1u32, 4usize), (4, 3), (7, 2), (100, 1)] {
        let cache = temp.path().join(format!("cache-{tile_cells}"));
        for k in 1..=shards {
            let shard = CookOptions {
                shard: Some(ShardSpec {
                    index: k,
                    count: shards,
                }),
                tile_cells: Some(tile_cells),
                ..options(&cache)
            };
            run(&project, &shard);
        }
        let out = temp.path().join(format!("tiled-{tile_cells}"));
        let report = run(
            &project,
            &CookOptions {
                out: Some(out.clone()),
                tile_cells: Some(tile_cells),
                ..options(&cache)
            },
        );
        assert_eq!(report.digest().as_deref(), Some(PINE_DIGEST));
        assert!(report.tiles.iter().all(|t| t.hit), "{:?}", report.tiles);
        let expected_tiles = 15usize.div_ceil(tile_cells as usize).pow(2);
        assert_eq!(report.tiles.len(), expected_tiles);
        assert!(files(&out) == reference, "tiles of {tile_cells} cells");
    }
}

#[test]
fn items_cook_only_the_tiles_listed() {
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let cache = temp.path().join("cache");
    let ids = tile_ids(&project, 4);
    let listed = vec![ids[0].clone(), ids[5].clone()];
    let report = run(
        &project,
        &CookOptions {
            items: Some(listed),
            tile_cells: Some(4),
            ..options(&cache)
        },
    );
    assert!(report.stages.is_empty());
    let names: Vec<(&str, bool)> = report
        .tiles
        .iter()
        .map(|t| (t.tile.as_str(), t.hit))
        .collect();
    assert_eq!(names, [("t0_0", false), ("t1_1", false)]);
    assert_eq!(
        fs::read_dir(cache.join("entries"))
            .expect("entries")
            .count(),
        2
    );
    // Again: both are hits now.
    let again = run(
        &project,
        &CookOptions {
            items: Some(vec![ids[5].clone()]),
            tile_cells: Some(4),
            ..options(&cache)
        },
    );
    assert_eq!(again.tiles.len(), 1);
    assert!(again.tiles[0].hit);
    let unknown = cook_project(
        &project,
        &CookOptions {
            items: Some(vec!["pine-clearing/1001/t9_9".to_owned()]),
            tile_cells: Some(4),
            ..options(&cache)
        },
        &|_, plan| StageObserver::new(plan),
    );
    let message = format!("{:#}", unknown.expect_err("refused"));
    assert!(
        message.starts_with("--items: no work item `pine-clearing/1001/t9_9` (the plan's items: pine-clearing/1001/t0_0,"),
        "{message}"
    );
}

#[test]
fn a_damaged_tile_entry_is_discarded_and_cooked_again_to_the_same_bytes() {
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let reference = files(&whole(&project, temp.path()));
    let cache = temp.path().join("cache");
    let ids = tile_ids(&project, 4);
    let report = run(
        &project,
        &CookOptions {
            items: Some(ids.clone()),
            tile_cells: Some(4),
            ..options(&cache)
        },
    );
    let damaged = &report.tiles[2];
    let product = cache.join("entries").join(&damaged.key).join("product.bin");
    let mut bytes = fs::read(&product).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    fs::write(&product, &bytes).expect("write");
    let out = temp.path().join("tiled");
    let report = run(
        &project,
        &CookOptions {
            out: Some(out.clone()),
            tile_cells: Some(4),
            ..options(&cache)
        },
    );
    let cooked: Vec<&str> = report
        .tiles
        .iter()
        .filter(|t| !t.hit)
        .map(|t| t.tile.as_str())
        .collect();
    assert_eq!(cooked, ["t2_0"]);
    let reason = report.tiles[2].reason.clone().unwrap_or_default();
    assert!(reason.contains("digest mismatch"), "{reason}");
    assert!(files(&out) == reference);
    // The rebuilt entry is whole again.
    let rebuilt = fs::read(&product).expect("rebuilt");
    assert_eq!(rebuilt.len(), bytes.len());
    assert_ne!(rebuilt, bytes);
}

#[test]
fn the_sixteen_square_kilometre_forest_assembles_from_two_workers_tiles() {
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("forest-16km2");
    let reference = files(&whole(&project, temp.path()));
    let cache = temp.path().join("cache");
    let ids = tile_ids(&project, 100);
    // 400 × 400 cells of 10 m in tiles of 100 × 100 cells.
    assert_eq!(ids.len(), 16);
    // Two workers: the even tiles, then the odd ones.
    for parity in [0, 1] {
        let items = ids
            .iter()
            .enumerate()
            .filter(|(n, _)| n % 2 == parity)
            .map(|(_, id)| id.clone())
            .collect();
        run(
            &project,
            &CookOptions {
                items: Some(items),
                tile_cells: Some(100),
                ..options(&cache)
            },
        );
    }
    let out = temp.path().join("tiled");
    let report = run(
        &project,
        &CookOptions {
            out: Some(out.clone()),
            tile_cells: Some(100),
            ..options(&cache)
        },
    );
    assert_eq!(report.tiles.iter().filter(|t| t.hit).count(), 16);
    assert!(files(&out) == reference);
}

#[test]
fn a_scatter_over_an_upstream_stages_areas_is_not_tiled() {
    // The street block's props scatter reads its areas from stage 1, so its key (and its
    // regions) are only known once that stage ran: it stays one work item.
    let project = example_project("street-block");
    let compiled = compile_all(&project, &|_| Ok(())).expect("compiles");
    let cache = DiskCache::new(tempfile::tempdir().expect("temp").path().join("cache"));
    let ids = |tiles| -> Vec<String> {
        work_items(&compiled, &cache, compiled.root_seed, tiles)
            .into_iter()
            .map(|i| i.id)
            .collect()
    };
    assert_eq!(
        ids(Some(1)),
        ["street-block/1", "street-block/2", "street-block/3"]
    );
    assert_eq!(ids(Some(1)), ids(None));
}

/// Runs `body` on a rayon pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, body: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(body)
}

#[test]
fn the_assembling_cook_gives_the_same_bytes_and_report_on_any_number_of_threads() {
    // The assembling cook reads (or cooks) the tiles, encodes and stores the stages and writes
    // the bundle's files on the current pool: a cold cache, so every tile is cooked there too.
    let temp = tempfile::tempdir().expect("temp");
    let project = example_project("pine-clearing");
    let reference = files(&whole(&project, temp.path()));
    let mut first_report: Option<Vec<(String, String, bool)>> = None;
    for threads in [1usize, 2, 5] {
        let out = temp.path().join(format!("out-{threads}"));
        let options = CookOptions {
            out: Some(out.clone()),
            tile_cells: Some(4),
            ..options(&temp.path().join(format!("cache-{threads}")))
        };
        let report = on_threads(threads, || run(&project, &options));
        assert_eq!(
            report.digest().as_deref(),
            Some(PINE_DIGEST),
            "{threads} threads"
        );
        assert!(
            files(&out) == reference,
            "{threads} threads: the bundle's bytes"
        );
        let tiles: Vec<(String, String, bool)> = report
            .tiles
            .iter()
            .map(|t| (t.tile.clone(), t.key.clone(), t.hit))
            .collect();
        // 15 × 15 cells in tiles of 4: 16 tiles in canonical order, all cooked (cold cache).
        assert_eq!(tiles.len(), 16);
        assert_eq!(tiles[0].0, "t0_0");
        assert_eq!(tiles[1].0, "t1_0");
        assert_eq!(tiles[15].0, "t3_3");
        assert!(tiles.iter().all(|t| !t.2), "{tiles:?}");
        let stored: Vec<(u32, bool)> = report.stages.iter().map(|s| (s.stage, s.stored)).collect();
        assert!(stored.iter().all(|s| s.1), "{stored:?}");
        match &first_report {
            None => first_report = Some(tiles),
            Some(first) => assert_eq!(first, &tiles, "{threads} threads: the tiles' report"),
        }
    }
}
