//! `stagecraft.cook_plan` and `stagecraft.cook_cached`: `stagecraft cook --plan --json` and
//! `stagecraft cook --cache … [--items …] [--out …]` in-process, through the same driver
//! (`stagecraft_io::cook`), so `stagecraft.farm` runs its work items inside a Ray worker with no
//! process per item. The bytes in the cache and the bundle are the command's; the reports are
//! its `--json` documents' `items`, `stages` and `tiles`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stagecraft_io::cook::driver::plain_diagnostics;
use stagecraft_io::cook::{
    compile_all, cook_project, default_cache, work_items, CookOptions, CookReport, DiskCache,
    StageOutcome, DEFAULT_BUDGET_BYTES,
};
use stagecraft_runtime::generate::NoObserver;

use crate::errors::error;

/// `stagecraft cook PROJECT --plan --json [--tile-cells N] [--cache DIR] [--seed S]`'s items: one
/// dict per work item (`index`, `id`, `recipe`, `stage`, `scope`, `operator`, `key`, `after`,
/// `tile`, `estimated_bytes`).
#[pyfunction]
#[pyo3(signature = (project, cache=None, tile_cells=None, seed=None))]
pub fn cook_plan<'py>(
    py: Python<'py>,
    project: PathBuf,
    cache: Option<PathBuf>,
    tile_cells: Option<u32>,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyList>> {
    let items = py
        .detach(|| {
            let compiled = compile_all(&project, &|_| Ok(()), plain_diagnostics)?;
            let cache = DiskCache::new(cache.unwrap_or_else(|| default_cache(&project)));
            let seed = seed.unwrap_or(compiled.root_seed);
            anyhow::Ok(work_items(&compiled, &cache, seed, tile_cells))
        })
        .map_err(|e| error(format!("{e:#}")))?;
    let list = PyList::empty(py);
    for item in &items {
        let dict = PyDict::new(py);
        dict.set_item("index", item.index)?;
        dict.set_item("id", &item.id)?;
        dict.set_item("recipe", &item.recipe)?;
        dict.set_item("stage", item.stage)?;
        dict.set_item("scope", &item.scope)?;
        dict.set_item("operator", &item.operator)?;
        dict.set_item("key", &item.key)?;
        dict.set_item("after", &item.after)?;
        let tile = match item.tile {
            Some(t) => {
                let tile = PyDict::new(py);
                tile.set_item("name", t.name())?;
                tile.set_item("column", t.column)?;
                tile.set_item("row", t.row)?;
                let cells = [t.cells.min_x, t.cells.min_y, t.cells.end_x, t.cells.end_y];
                tile.set_item("cells", cells)?;
                Some(tile)
            }
            None => None,
        };
        dict.set_item("tile", tile)?;
        dict.set_item("estimated_bytes", item.estimated_bytes)?;
        list.append(dict)?;
    }
    Ok(list)
}

/// `stagecraft cook PROJECT --cache CACHE [--items ID,…] [--out OUT] [--tile-cells N]` in this
/// process, on a pool of `threads` threads (default: every core): with `items`, those work
/// items are cooked into the cache (each entry staged, verified and published by one rename);
/// with `out`, the bundle is assembled and written there. `sync=False` publishes the cache's
/// entries without fsync (still atomic and verified; docs/farm.md); `evict=False` leaves the
/// cache's byte budget to a later cook (a farm's item tasks: the assembling cook evicts for the
/// whole cache, and a task skips listing every entry). Returns the command's
/// `--json` report's `digest`, `out`, `hits`, `misses`, `evicted`, `files`, `bytes`, `stages`
/// and `tiles`. `_abort_before_publish` (tests) aborts the process once the first entry is
/// staged, before it is published: a worker dying mid-item.
#[pyfunction]
#[pyo3(signature = (project, cache=None, out=None, items=None, tile_cells=None, seed=None,
    threads=None, sync=true, force=false, cache_budget_mib=None, evict=true,
    _abort_before_publish=false))]
#[allow(clippy::too_many_arguments)]
pub fn cook_cached<'py>(
    py: Python<'py>,
    project: PathBuf,
    cache: Option<PathBuf>,
    out: Option<PathBuf>,
    items: Option<Vec<String>>,
    tile_cells: Option<u32>,
    seed: Option<u64>,
    threads: Option<usize>,
    sync: bool,
    force: bool,
    cache_budget_mib: Option<u64>,
    evict: bool,
    _abort_before_publish: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if items.is_none() && out.is_none() {
        return Err(error(
            "cook_cached needs out= (a bundle) or items= (work items to cache)",
        ));
    }
    let options = CookOptions {
        out: out.clone(),
        cache,
        seed,
        budget_bytes: match (evict, cache_budget_mib) {
            (false, _) => u64::MAX,
            (true, mib) => mib.map_or(DEFAULT_BUDGET_BYTES, |m| m.saturating_mul(1 << 20)),
        },
        force,
        tile_cells,
        items,
        unsynced_cache: !sync,
        before_publish: _abort_before_publish.then_some(abort_here as fn(&Path)),
        ..CookOptions::default()
    };
    let run = || cook_project(&project, &options, &|_, _| NoObserver, plain_diagnostics);
    let report = py
        .detach(|| match threads {
            Some(n) => pool(n)?.install(run),
            None => run(),
        })
        .map_err(|e| error(format!("{e:#}")))?;
    report_dict(py, &report, out.as_deref())
}

/// Tests: the process dies here, as a killed worker does.
fn abort_here(_: &Path) {
    std::process::abort();
}

/// A rayon pool of `threads` threads, built once per count for the process (a worker runs
/// many items).
fn pool(threads: usize) -> anyhow::Result<Arc<rayon::ThreadPool>> {
    static POOLS: Mutex<BTreeMap<usize, Arc<rayon::ThreadPool>>> = Mutex::new(BTreeMap::new());
    let mut pools = POOLS
        .lock()
        .map_err(|_| anyhow::anyhow!("the pool table is poisoned"))?;
    if let Some(pool) = pools.get(&threads) {
        return Ok(pool.clone());
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?,
    );
    pools.insert(threads, pool.clone());
    Ok(pool)
}

/// The `--json` report of `stagecraft cook`, as a dict (the keys `stagecraft.farm` reads).
fn report_dict<'py>(
    py: Python<'py>,
    report: &CookReport,
    out: Option<&Path>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("cache", report.cache.clone())?;
    dict.set_item("digest", report.digest())?;
    dict.set_item("out", out.map(Path::to_path_buf))?;
    dict.set_item("hits", report.hits())?;
    dict.set_item("misses", report.misses())?;
    dict.set_item("evicted", report.evicted.clone())?;
    dict.set_item("files", report.files)?;
    dict.set_item("bytes", report.bytes)?;
    let stages = PyList::empty(py);
    for s in &report.stages {
        let (cache, reason) = match &s.outcome {
            StageOutcome::Hit => ("hit", None),
            StageOutcome::Miss(reason) => ("miss", Some(reason.to_string())),
            StageOutcome::Dependency => ("dependency", None),
        };
        let stage = PyDict::new(py);
        stage.set_item("recipe", &s.recipe)?;
        stage.set_item("stage", s.stage)?;
        stage.set_item("operator", &s.operator)?;
        stage.set_item("cache", cache)?;
        stage.set_item("reason", reason)?;
        stage.set_item("stored", s.stored)?;
        stage.set_item("elements", s.elements)?;
        stage.set_item("bytes", s.bytes)?;
        stages.append(stage)?;
    }
    dict.set_item("stages", stages)?;
    let tiles = PyList::empty(py);
    for t in &report.tiles {
        let tile = PyDict::new(py);
        tile.set_item("recipe", &t.recipe)?;
        tile.set_item("stage", t.stage)?;
        tile.set_item("tile", &t.tile)?;
        tile.set_item("key", &t.key)?;
        tile.set_item("cache", if t.hit { "hit" } else { "miss" })?;
        tile.set_item("reason", &t.reason)?;
        tile.set_item("bytes", t.bytes)?;
        tiles.append(tile)?;
    }
    dict.set_item("tiles", tiles)?;
    Ok(dict)
}
