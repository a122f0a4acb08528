//! Cooking a project: every recipe generated through the runtime's executor with its stage
//! cache seeded from the on-disk cache (so only stages whose key has no verified entry run),
//! misses stored back, the byte budget enforced, and the bundle written atomically — or, for a
//! shard, only that shard's work items stored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use stagecraft_runtime::content::encode::hex;
use stagecraft_runtime::content::StageProvenance;
use stagecraft_runtime::cook::{
    cook_recipe, CookedManifest, KeyRecord, ShardSpec, StoreMiss, WorkItem,
};
use stagecraft_runtime::generate::{
    run_plan_with, stage_key_parts, CachedStage, CancelToken, ExecutionMode, ExecutionObserver,
    GenerateRequest, GeneratedBundle, KeyParts, StageCache,
};
use stagecraft_runtime::overrides::stage::provenance_edits_digest;
use stagecraft_runtime::overrides::Overrides;
use stagecraft_runtime::project::{has_errors, Diagnostic, LoadedProject, ProjectSources};
use stagecraft_runtime::recipe::{compile_project_recipe, CompiledPlan, CompiledStage};

use super::store::DiskCache;
use super::stores::{record_pending, store_pending, PendingStore};
use super::swap::{prepare_out, write_bundle_alongside, ReplacePolicy};
use super::tiles::{TileCook, TiledStage};

/// Options of one cook.
#[derive(Debug, Clone, Default)]
pub struct CookOptions {
    /// Where to write the bundle (none for a shard or a plan).
    pub out: Option<PathBuf>,
    /// The cache folder (default `<project>/.stagecraft/cache`).
    pub cache: Option<PathBuf>,
    /// Root seed instead of the manifest's.
    pub seed: Option<u64>,
    /// Cook only this shard's work items into the cache.
    pub shard: Option<ShardSpec>,
    /// The cache's byte budget.
    pub budget_bytes: u64,
    /// Replace `out` even when it is a folder that is not a complete bundle (`cook --force`).
    pub force: bool,
    /// Split every tileable scatter stage into tiles of this many cells a side (`cook
    /// --tile-cells`): tiles are work items of their own, and a stage is assembled from them.
    pub tile_cells: Option<u32>,
    /// Cook only the work items with these ids into the cache (`cook --items`; with `shard`,
    /// those of the shard's that are listed).
    pub items: Option<Vec<String>>,
    /// Publish cache entries without fsync ([`DiskCache::unsynced`]: still atomic and verified;
    /// the farm's tasks). The bundle folder is synced whatever this says.
    pub unsynced_cache: bool,
    /// Tests: called with each cache entry's staging folder just before it is published
    /// ([`DiskCache::with_publish_hook`]).
    pub before_publish: Option<fn(&Path)>,
}

impl CookOptions {
    /// Whether only some work items are cooked (a shard or a list): the cache is filled, no
    /// bundle is written.
    pub fn partial(&self) -> bool {
        self.shard.is_some() || self.items.is_some()
    }

    /// Whether this cook takes `item`.
    fn selects(&self, item: &WorkItem) -> bool {
        self.shard.is_none_or(|s| s.owns(item.index))
            && self.items.as_ref().is_none_or(|ids| ids.contains(&item.id))
    }
}

/// How one stage was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageOutcome {
    /// From a verified cache entry.
    Hit,
    /// Run, for this reason.
    Miss(StoreMiss),
    /// Not this shard's: run in memory only because one of its items reads it, not stored.
    Dependency,
}

/// One stage of a cook.
#[derive(Debug, Clone)]
pub struct StageCook {
    /// Recipe id.
    pub recipe: String,
    /// Stage id.
    pub stage: u32,
    /// Operator id.
    pub operator: String,
    /// Hit or miss.
    pub outcome: StageOutcome,
    /// Whether the product was stored into the cache.
    pub stored: bool,
    /// Generated objects.
    pub elements: u64,
    /// Product file bytes.
    pub bytes: u64,
}

/// What a cook did.
#[derive(Debug, Clone, Default)]
pub struct CookReport {
    /// Every stage, recipes in manifest order, stages in plan order.
    pub stages: Vec<StageCook>,
    /// The manifest written (not for a shard).
    pub manifest: Option<CookedManifest>,
    /// Files written into the bundle and their bytes.
    pub files: usize,
    /// Bytes of the bundle's product files and manifest.
    pub bytes: u64,
    /// Keys evicted from the cache afterwards.
    pub evicted: Vec<String>,
    /// The cache folder used.
    pub cache: PathBuf,
    /// Every tile read or cooked, in the order they were.
    pub tiles: Vec<TileCook>,
}

impl CookReport {
    /// Stages served from the cache.
    pub fn hits(&self) -> usize {
        self.stages
            .iter()
            .filter(|s| s.outcome == StageOutcome::Hit)
            .count()
    }

    /// Stages that ran (dependencies of a shard not counted).
    pub fn misses(&self) -> usize {
        self.stages
            .iter()
            .filter(|s| matches!(s.outcome, StageOutcome::Miss(_)))
            .count()
    }

    /// The bundle digest (BLAKE3 of `manifest.ron`), hex.
    pub fn digest(&self) -> Option<String> {
        self.manifest.as_ref().map(CookedManifest::digest_hex)
    }
}

/// Makes the observer of one recipe's generation (the command line hangs a progress bar on it;
/// `|_, _| NoObserver` when nobody watches).
pub type ObserverFactory<'a, O> = &'a dyn Fn(&str, &CompiledPlan) -> O;

/// Renders a project's diagnostics into an error message (the command line shows each with its
/// source line; [`plain_diagnostics`] is one line each).
pub type RenderDiagnostics = fn(&[Diagnostic], &ProjectSources) -> String;

/// One line per diagnostic: `file:line:column: message`.
pub fn plain_diagnostics(diagnostics: &[Diagnostic], _: &ProjectSources) -> String {
    diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

/// The default cache folder of `project`.
pub fn default_cache(project: &Path) -> PathBuf {
    project.join(".stagecraft").join("cache")
}

/// A loaded, error-free project with its compiled plans, in manifest order.
pub struct Compiled {
    /// The sources read.
    pub sources: ProjectSources,
    /// The loaded project.
    pub loaded: LoadedProject,
    /// (recipe id, plan).
    pub plans: Vec<(String, CompiledPlan)>,
    /// The manifest's root seed.
    pub root_seed: u64,
}

impl Compiled {
    /// The author overrides and world mutations of `recipe` (what its generation applies).
    pub fn overrides_of(&self, recipe: &str) -> Overrides {
        self.loaded
            .project
            .as_ref()
            .map_or_else(Overrides::none, |p| Overrides::of_recipe(p, recipe))
    }
}

/// Loads `project` and compiles every recipe; `edit` may change the loaded documents first
/// (`diff --set`). Any error diagnostic fails with the diagnostics as `render` renders them.
pub fn compile_all(
    project: &Path,
    edit: &dyn Fn(&mut LoadedProject) -> anyhow::Result<()>,
    render: RenderDiagnostics,
) -> anyhow::Result<Compiled> {
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    let (sources, mut loaded) = crate::open_project(project, &registry)?;
    if has_errors(&loaded.diagnostics) {
        anyhow::bail!(
            "{}{}: the project has errors",
            render(&loaded.diagnostics, &sources),
            project.display()
        );
    }
    edit(&mut loaded)?;
    let Some(doc) = loaded.project.as_ref() else {
        anyhow::bail!("{}: no project", project.display());
    };
    let root_seed = doc.manifest.root_seed;
    let mut plans = Vec::new();
    for id in doc.manifest.recipes.clone() {
        let outcome = compile_project_recipe(&loaded, &id, &registry)
            .with_context(|| format!("recipe `{id}` could not be read"))?;
        let Some(plan) = outcome.plan else {
            anyhow::bail!(
                "{}recipe `{id}` does not compile",
                render(&outcome.diagnostics, &sources)
            );
        };
        plans.push((id, plan));
    }
    Ok(Compiled {
        sources,
        loaded,
        plans,
        root_seed,
    })
}

/// Generates `plan` with the recipe's `overrides` and no cache (what `diff` compares).
pub fn generate_plan(
    plan: &CompiledPlan,
    seed: u64,
    overrides: &Overrides,
) -> anyhow::Result<GeneratedBundle> {
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let generated = run_plan_with(
        plan,
        &request,
        overrides,
        &mut StageCache::new(0),
        &CancelToken::new(),
        &stagecraft_runtime::generate::NoObserver,
    )
    .map_err(|e| anyhow::anyhow!("recipe `{}`: {e}", plan.recipe_id()))?;
    Ok((*generated.bundle).clone())
}

/// The work items of a compiled project, with keys where the cache already knows every input;
/// with `tile_cells`, every tileable scatter stage is its tiles.
pub fn work_items(
    compiled: &Compiled,
    cache: &DiskCache,
    seed: u64,
    tile_cells: Option<u32>,
) -> Vec<WorkItem> {
    let mut items = Vec::new();
    for (recipe, plan) in &compiled.plans {
        let overrides = compiled.overrides_of(recipe);
        let mut known: BTreeMap<u32, [u8; 32]> = BTreeMap::new();
        for stage in plan.stages() {
            let parts =
                stage_key_parts(plan, stage, seed, &overrides, &|id| known.get(&id).copied()).ok();
            let key = parts.as_ref().map(|parts| hex(&parts.key().0));
            let peeked = key.as_deref().and_then(|k| cache.peek_entry(k));
            if let Some(bytes) = peeked.as_ref().and_then(|e| unhex(&e.product.digest)) {
                known.insert(stage.id(), bytes);
            }
            let item = WorkItem {
                index: items.len(),
                id: format!("{recipe}/{}", stage.id()),
                tile: None,
                recipe: recipe.clone(),
                stage: stage.id(),
                scope: plan.recipe_id().to_owned(),
                operator: stage.operator().id.to_owned(),
                key,
                after: stage.dependencies(),
                estimated_bytes: peeked.map(|e| e.product.bytes),
            };
            let tiled = parts.as_ref().zip(tile_cells).and_then(|(parts, cells)| {
                let tiled = TiledStage {
                    plan,
                    stage,
                    seed,
                    overrides: &overrides,
                    parts,
                };
                tiled.items(&item, cells)
            });
            for mut item in tiled.unwrap_or_else(|| vec![item]) {
                item.index = items.len();
                items.push(item);
            }
        }
    }
    items
}

/// The 32 bytes of a recorded BLAKE3 digest in hex (none when it is not one).
fn unhex(text: &str) -> Option<[u8; 32]> {
    blake3::Hash::from_hex(text)
        .ok()
        .map(|hash| *hash.as_bytes())
}

/// Cooks `project`: see the module documentation.
pub fn cook_project<O: ExecutionObserver>(
    project: &Path,
    options: &CookOptions,
    observer: ObserverFactory<'_, O>,
    render: RenderDiagnostics,
) -> anyhow::Result<CookReport> {
    let mut cache = DiskCache::new(
        options
            .cache
            .clone()
            .unwrap_or_else(|| default_cache(project)),
    )
    .with_publish_hook(options.before_publish);
    if options.unsynced_cache {
        cache = cache.unsynced();
    }
    let policy = ReplacePolicy {
        force: options.force,
        keep: vec![project.to_owned(), cache.root().to_owned()],
        force_spelled: None,
    };
    if let Some(out) = options.out.as_ref().filter(|_| !options.partial()) {
        // Refuse a folder that may not be replaced before any work.
        prepare_out(out, &policy)?;
    }
    cache.remove_abandoned_staging();
    let compiled = compile_all(project, &|_| Ok(()), render)?;
    let seed = options.seed.unwrap_or(compiled.root_seed);
    let mut report = CookReport {
        cache: cache.root().to_owned(),
        ..CookReport::default()
    };
    let mut recipes = Vec::new();
    let mut files = Vec::new();
    let mut in_use = BTreeSet::new();
    // A whole cook into a bundle folder stores its cache entries while the bundle is written.
    let bundled = options.out.is_some() && !options.partial();
    let mut pending = Vec::new();
    let items = work_items(&compiled, &cache, seed, options.tile_cells);
    check_item_ids(&items, options.items.as_deref())?;
    let selected: Vec<&WorkItem> = items.iter().filter(|i| options.selects(i)).collect();
    for (recipe, plan) in &compiled.plans {
        let overrides = compiled.overrides_of(recipe);
        let mine = selected.iter().filter(|i| i.recipe == *recipe);
        let (tiles, stages): (Vec<&&WorkItem>, Vec<&&WorkItem>) =
            mine.partition(|i| i.tile.is_some());
        let owned: BTreeSet<u32> = if options.partial() {
            let sinks = (&mut report, &mut in_use);
            cook_tile_items(plan, &tiles, seed, &overrides, &cache, sinks)?;
            stages.iter().map(|i| i.stage).collect()
        } else {
            // A whole cook owns every stage; a tiled one is assembled from its tiles.
            plan.stages().iter().map(|s| s.id()).collect()
        };
        if owned.is_empty() {
            continue;
        }
        let tiling = Tiling {
            cells: options.tile_cells,
            owned: &owned,
        };
        let ((entry, recipe_files), mut stores) = cook_one(
            plan,
            recipe,
            seed,
            &overrides,
            &cache,
            &tiling,
            &mut report,
            &mut in_use,
            observer,
        )?;
        if bundled {
            // Stored while the bundle is written.
            stores.iter_mut().for_each(|s| s.file += files.len());
            pending.extend(stores);
        } else {
            let stored = store_pending(&cache, &stores, &recipe_files)?;
            record_pending(stores, &stored, &mut report, &mut in_use);
        }
        if !options.partial() {
            recipes.push(entry);
            files.extend(recipe_files);
        }
    }
    if !options.partial() {
        let manifest = CookedManifest::of_project(
            (&compiled.sources, &compiled.loaded),
            compiled.plans.iter().map(|(_, plan)| plan),
            seed,
            recipes,
        );
        if let Some(out) = &options.out {
            let store = |files: &[(String, Vec<u8>)]| store_pending(&cache, &pending, files);
            let stored = write_whole_bundle(out, &manifest, files, &policy, &mut report, store)?;
            record_pending(pending, &stored, &mut report, &mut in_use);
        }
        report.manifest = Some(manifest);
    }
    report.evicted = cache.evict(options.budget_bytes, &in_use);
    Ok(report)
}

/// Cooks the tile items `tiles` of one recipe into the cache (a partial cook's share).
fn cook_tile_items(
    plan: &CompiledPlan,
    tiles: &[&&WorkItem],
    seed: u64,
    overrides: &Overrides,
    cache: &DiskCache,
    (report, in_use): (&mut CookReport, &mut BTreeSet<String>),
) -> anyhow::Result<()> {
    for item in tiles {
        cook_tile_item(plan, item, seed, overrides, cache, report, in_use)?;
    }
    Ok(())
}

/// Writes a whole cook's bundle folder (manifest and product files), running `store` (the cache
/// entries) while its files are written, and counts it in `report`; what `store` returned.
fn write_whole_bundle<T>(
    out: &Path,
    manifest: &CookedManifest,
    files: Vec<(String, Vec<u8>)>,
    policy: &ReplacePolicy,
    report: &mut CookReport,
    store: impl FnOnce(&[(String, Vec<u8>)]) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let text = manifest.to_text();
    report.files = files.len() + 1;
    report.bytes = text.len() as u64 + files.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
    write_bundle_alongside(out, &text, files, policy, store)
}

/// Cooks one recipe: seeds an in-memory stage cache with every stage whose key has a verified
/// disk entry, runs the executor (which runs only the rest); the recipe's manifest entry and
/// product files (encoded once, for the cache and the bundle), and what to store of what ran and
/// `owned` holds (its `file`s index the recipe's product files).
#[allow(clippy::too_many_arguments)]
fn cook_one<O: ExecutionObserver>(
    plan: &CompiledPlan,
    recipe: &str,
    seed: u64,
    overrides: &Overrides,
    cache: &DiskCache,
    tiling: &Tiling<'_>,
    report: &mut CookReport,
    in_use: &mut BTreeSet<String>,
    observer: ObserverFactory<'_, O>,
) -> anyhow::Result<(CookedFiles, Vec<PendingStore>)> {
    let cook = RecipeCook {
        plan,
        recipe,
        seed,
        overrides,
        cache,
    };
    let (mut memory, outcomes) = cook.stages_from_disk(tiling, report, in_use)?;
    let request = GenerateRequest {
        root_seed: seed,
        mode: ExecutionMode::Parallel,
        generation: 0,
    };
    let timer = observer(recipe, plan);
    let generated = run_plan_with(
        plan,
        &request,
        overrides,
        &mut memory,
        &CancelToken::new(),
        &timer as &dyn ExecutionObserver,
    )
    .map_err(|e| anyhow::anyhow!("recipe `{recipe}`: {e}"))?;
    let bundle = &generated.bundle;
    let cooked = cook_recipe(bundle);
    let pending = cook.pending_stores(bundle, &cooked.0, outcomes, tiling.owned)?;
    Ok((cooked, pending))
}

/// A recipe's manifest entry and its product files: (path, bytes).
type CookedFiles = (
    stagecraft_runtime::cook::CookedRecipe,
    Vec<(String, Vec<u8>)>,
);

/// One recipe being cooked: what finding and storing its stages' cache entries reads.
struct RecipeCook<'a> {
    plan: &'a CompiledPlan,
    recipe: &'a str,
    seed: u64,
    overrides: &'a Overrides,
    cache: &'a DiskCache,
}

impl RecipeCook<'_> {
    /// An in-memory stage cache holding every stage whose key has a verified disk entry (or,
    /// when tiled, whose tiles assemble it), and each stage's outcome known before the run.
    ///
    /// A stage that author overrides name is served like any other (its key holds the digest of
    /// their part for it; the edits digest the bundle digest reads is restored from that key),
    /// except when a stage reading it must run: the reader needs the edits' outcomes, which live
    /// in provenance the cache does not hold, so then the edited stage runs too
    /// ([`StoreMiss::Edited`]).
    fn stages_from_disk(
        &self,
        tiling: &Tiling<'_>,
        report: &mut CookReport,
        in_use: &mut BTreeSet<String>,
    ) -> anyhow::Result<(StageCache, Outcomes)> {
        let (plan, seed, overrides, cache) = (self.plan, self.seed, self.overrides, self.cache);
        let mut known: BTreeMap<u32, [u8; 32]> = BTreeMap::new();
        let mut outcomes = Outcomes::new();
        let mut memory = StageCache::new(plan.stages().len().max(1));
        // Edited stages found on disk, decided once every reader's outcome is known.
        let mut edited_hits = Vec::new();
        for stage in plan.stages() {
            let Ok(parts) =
                stage_key_parts(plan, stage, seed, overrides, &|id| known.get(&id).copied())
            else {
                continue; // An input runs first; its key is known after the run.
            };
            let record = KeyRecord::of(&parts);
            // What a damaged entry says its product's digest was (read before the lookup
            // discards it): a guess the keys of the stages after it are checked with.
            let recorded = cache
                .peek_entry(&record.key)
                .and_then(|e| unhex(&e.product.digest));
            match cache.lookup(&record) {
                Ok(hit) => {
                    let provenance = StageProvenance {
                        edits_digest: provenance_edits_digest(overrides, stage, seed),
                        ..StageProvenance::default()
                    };
                    let cached = CachedStage::new(hit.product, provenance);
                    known.insert(stage.id(), cached.digest);
                    in_use.insert(record.key.clone());
                    outcomes.insert(stage.id(), (StageOutcome::Hit, record.key.clone()));
                    if parts.edits.is_some() {
                        edited_hits.push((stage, parts, cached));
                    } else {
                        memory.insert(parts.key(), Arc::new(cached));
                    }
                    continue;
                }
                Err(miss) => {
                    if let (StoreMiss::Corrupt(_), Some(digest)) = (&miss, recorded) {
                        // Rebuilt to the same bytes, the product has this digest again: the
                        // stages after it are looked up with it, and a hit among them is served
                        // only if the rebuilt digest gives the same key (the executor's key
                        // holds the real digest; `pending_stores` checks the key again).
                        known.insert(stage.id(), digest);
                    }
                    outcomes.insert(stage.id(), (StageOutcome::Miss(miss), record.key.clone()));
                }
            }
            self.assemble_tiles(
                stage,
                &parts,
                tiling,
                &mut memory,
                &mut known,
                report,
                in_use,
            )?;
        }
        let mut found = (memory, known, outcomes);
        self.settle_edited_hits(edited_hits, tiling, &mut found, report, in_use)?;
        let (memory, _, outcomes) = found;
        Ok((memory, outcomes))
    }

    /// An edited stage found on disk is served only when every stage reading it hits (a
    /// reader that runs needs the edits' outcomes); otherwise it runs (from its tiles when
    /// tiled) as `edited`.
    fn settle_edited_hits(
        &self,
        edited_hits: Vec<(&CompiledStage, KeyParts, CachedStage)>,
        tiling: &Tiling<'_>,
        (memory, known, outcomes): &mut (StageCache, BTreeMap<u32, [u8; 32]>, Outcomes),
        report: &mut CookReport,
        in_use: &mut BTreeSet<String>,
    ) -> anyhow::Result<()> {
        for (stage, parts, cached) in edited_hits {
            let readers_hit = self.plan.dependents(stage.id()).iter().all(|id| {
                outcomes
                    .get(id)
                    .is_some_and(|(o, _)| *o == StageOutcome::Hit)
            });
            if readers_hit {
                memory.insert(parts.key(), Arc::new(cached));
            } else {
                let key = KeyRecord::of(&parts).key;
                outcomes.insert(stage.id(), (StageOutcome::Miss(StoreMiss::Edited), key));
                self.assemble_tiles(stage, &parts, tiling, memory, known, report, in_use)?;
            }
        }
        Ok(())
    }

    /// When tiled, puts `stage` assembled from its cached tiles (cooking the missing ones) into
    /// `memory`.
    #[allow(clippy::too_many_arguments)]
    fn assemble_tiles(
        &self,
        stage: &CompiledStage,
        parts: &KeyParts,
        tiling: &Tiling<'_>,
        memory: &mut StageCache,
        known: &mut BTreeMap<u32, [u8; 32]>,
        report: &mut CookReport,
        in_use: &mut BTreeSet<String>,
    ) -> anyhow::Result<()> {
        let Some(cells) = tiling.cells else {
            return Ok(());
        };
        let tiled = TiledStage {
            plan: self.plan,
            stage,
            seed: self.seed,
            overrides: self.overrides,
            parts,
        };
        if let Some((cached, tiles)) = tiled.assemble(self.cache, cells)? {
            in_use.extend(tiles.iter().map(|t| t.key.clone()));
            report.tiles.extend(tiles);
            known.insert(stage.id(), cached.digest);
            memory.insert(parts.key(), cached);
        }
        Ok(())
    }

    /// What the cache gets of each stage of `bundle` (`entry` is its manifest entry): the misses'
    /// entries to store, and the key records of the stages `owned` holds (see `super::stores`).
    fn pending_stores(
        &self,
        bundle: &GeneratedBundle,
        entry: &stagecraft_runtime::cook::CookedRecipe,
        mut outcomes: Outcomes,
        owned: &BTreeSet<u32>,
    ) -> anyhow::Result<Vec<PendingStore>> {
        let (plan, seed, overrides, cache) = (self.plan, self.seed, self.overrides, self.cache);
        let stages = plan.stages().iter().zip(&bundle.stages).zip(&entry.stages);
        let mut pending = Vec::with_capacity(bundle.stages.len());
        for (file, ((compiled, stage), product)) in stages.enumerate() {
            let parts = stage_key_parts(plan, compiled, seed, overrides, &|id| {
                bundle.stage(id).map(|s| s.digest)
            })
            .map_err(|id| anyhow::anyhow!("stage {id} has no digest"))?;
            let record = KeyRecord::of(&parts);
            // A hit counts only under the key the stage has after the run (a guessed input
            // digest that the rebuilt product did not confirm makes it a miss).
            let outcome = match outcomes.remove(&stage.stage) {
                Some((outcome, key)) if key == record.key => outcome,
                _ => StageOutcome::Miss(explain_after_run(cache, &record)),
            };
            let mine = owned.contains(&stage.stage);
            let outcome = match outcome {
                StageOutcome::Miss(_) if !mine => StageOutcome::Dependency,
                other => other,
            };
            pending.push(PendingStore {
                recipe: self.recipe.to_owned(),
                stage: stage.stage,
                operator: stage.operator.to_owned(),
                outcome,
                record,
                mine,
                entry: product.clone(),
                file,
                elements: stage.summary.objects,
            });
        }
        Ok(pending)
    }
}

/// Why a stage whose key was only known after its inputs ran missed: its entry is looked up
/// now (and discarded if corrupt).
fn explain_after_run(cache: &DiskCache, record: &KeyRecord) -> StoreMiss {
    match cache.lookup(record) {
        Ok(_) => StoreMiss::InputRecooked,
        Err(miss) => miss,
    }
}

/// Each stage's outcome known before the run, with the key (hex) it was decided under.
type Outcomes = BTreeMap<u32, (StageOutcome, String)>;

/// How a recipe's cook treats tiled stages: their tile size, and the stages it owns.
struct Tiling<'a> {
    /// Tiles of this many cells a side (`None`: stages cook whole).
    cells: Option<u32>,
    /// The stages this cook stores.
    owned: &'a BTreeSet<u32>,
}

/// Refuses an `--items` id that names no work item, listing a few that exist.
fn check_item_ids(items: &[WorkItem], ids: Option<&[String]>) -> anyhow::Result<()> {
    for id in ids.unwrap_or_default() {
        if !items.iter().any(|i| i.id == *id) {
            let known: Vec<&str> = items.iter().take(8).map(|i| i.id.as_str()).collect();
            anyhow::bail!(
                "--items: no work item `{id}` (the plan's items: {}{}; `cook --plan` lists them)",
                known.join(", "),
                if items.len() > known.len() {
                    ", …"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}

/// Cooks one tile item into the cache (a hit when its verified entry is there).
fn cook_tile_item(
    plan: &CompiledPlan,
    item: &WorkItem,
    seed: u64,
    overrides: &Overrides,
    cache: &DiskCache,
    report: &mut CookReport,
    in_use: &mut BTreeSet<String>,
) -> anyhow::Result<()> {
    let (Some(stage), Some(tile)) = (plan.stage(item.stage), item.tile) else {
        anyhow::bail!("work item `{}` is not a tile of this plan", item.id);
    };
    let parts = stage_key_parts(plan, stage, seed, overrides, &|_| None)
        .map_err(|id| anyhow::anyhow!("a tiled stage reads stage {id}"))?;
    let tiled = TiledStage {
        plan,
        stage,
        seed,
        overrides,
        parts: &parts,
    };
    let (_, cook) = tiled.tile(cache, &tile)?;
    in_use.insert(cook.key.clone());
    report.tiles.push(cook);
    Ok(())
}
