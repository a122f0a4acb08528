//! `stagecraft cook`: cooks a project into a verified bundle through the on-disk stage cache,
//! prints every stage's hit or miss (with its reason) and the bundle digest; `--plan` lists the
//! work items, `--shard K/N` cooks one shard's items into the cache. A progress bar on stderr
//! when stderr is a terminal (and not `--quiet`), plain lines otherwise.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget};
use stagecraft_runtime::cook::ShardSpec;
use stagecraft_runtime::recipe::CompiledPlan;

use super::error::CliError;
use super::progress::{progress_bar, show_progress};
use crate::cook::{
    compile_all, cook_project, default_cache, work_items, CookOptions, CookReport, DiskCache,
    StageOutcome, DEFAULT_BUDGET_BYTES,
};
use crate::service::StageObserver;

/// Options of `stagecraft cook`.
#[derive(Debug, Clone, Default)]
pub struct CookArgs {
    /// The bundle folder to write.
    pub out: Option<PathBuf>,
    /// Replace `out` even when it is a folder that is not a complete bundle.
    pub force: bool,
    /// The cache folder.
    pub cache: Option<PathBuf>,
    /// Root seed instead of the manifest's.
    pub seed: Option<u64>,
    /// List the work items instead of cooking.
    pub plan: bool,
    /// `K/N`: cook only this shard's work items into the cache.
    pub shard: Option<String>,
    /// JSON on stdout.
    pub json: bool,
    /// The cache's byte budget in MiB.
    pub cache_budget_mib: Option<u64>,
    /// Tiles of this many cells a side for every tileable scatter stage.
    pub tile_cells: Option<u32>,
    /// Cook only these work items (ids as `--plan` lists them, comma-separated) into the cache.
    pub items: Option<String>,
}

impl CookArgs {
    /// The `--items` ids.
    fn item_ids(&self) -> Option<Vec<String>> {
        self.items.as_deref().map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
                .collect()
        })
    }
}

/// `stagecraft cook`: exit 0 when everything cooked, 1 on a project or generation error.
pub fn cook(project: &Path, args: &CookArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    if args.plan {
        return plan(project, args, out);
    }
    let shard = args.shard.as_deref().map(ShardSpec::parse).transpose()?;
    if shard.is_none() && args.items.is_none() && args.out.is_none() {
        anyhow::bail!(
            "cook needs --out DIR (or --plan, or --shard K/N or --items ID,… to fill the cache)"
        );
    }
    let options = CookOptions {
        out: args.out.clone(),
        cache: args.cache.clone(),
        seed: args.seed,
        shard,
        budget_bytes: args
            .cache_budget_mib
            .map_or(DEFAULT_BUDGET_BYTES, |mib| mib.saturating_mul(1 << 20)),
        force: args.force,
        tile_cells: args.tile_cells,
        items: args.item_ids(),
        ..CookOptions::default()
    };
    let terminal = !args.json && super::entry::progress_wanted();
    let bars: Mutex<Vec<ProgressBar>> = Mutex::new(Vec::new());
    let observer = |recipe: &str, plan: &CompiledPlan| {
        let timer = StageObserver::new(plan);
        if !terminal {
            return timer;
        }
        let bar = progress_bar(recipe, timer.progress(), ProgressDrawTarget::stderr());
        bar.enable_steady_tick(Duration::from_millis(120));
        let shown = bar.clone();
        if let Ok(mut bars) = bars.lock() {
            bars.push(bar);
        }
        timer.with_hook(Box::new(move |progress| show_progress(&shown, progress)))
    };
    let start = Instant::now();
    let result = cook_project(project, &options, &observer);
    for bar in bars.lock().map(|b| b.clone()).unwrap_or_default() {
        bar.finish_and_clear();
    }
    let report = result.map_err(|error| CliError::new(1, "cook_failed", format!("{error:#}")))?;
    let elapsed = start.elapsed();
    if args.json {
        super::json_out::write_document(out, "cook", &report_json(&report, &options))?;
    } else {
        out.write_all(report_text(project, &report, &options, elapsed).as_bytes())?;
    }
    Ok(0)
}

fn outcome_text(outcome: &StageOutcome) -> String {
    match outcome {
        StageOutcome::Hit => "hit".to_owned(),
        StageOutcome::Miss(reason) => format!("miss ({reason})"),
        StageOutcome::Dependency => "ran as a dependency of this shard (not stored)".to_owned(),
    }
}

/// Misses by reason name.
fn reasons(report: &CookReport) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for stage in &report.stages {
        if let StageOutcome::Miss(reason) = &stage.outcome {
            *counts.entry(reason.name()).or_insert(0) += 1;
        }
    }
    counts
}

fn report_text(
    project: &Path,
    report: &CookReport,
    options: &CookOptions,
    elapsed: Duration,
) -> String {
    let mut text = format!(
        "cook {}: cache {}\n",
        project.display(),
        report.cache.display()
    );
    for stage in &report.stages {
        text.push_str(&format!(
            "  {} stage {} {}: {}, {} objects, {} bytes{}\n",
            stage.recipe,
            stage.stage,
            stage.operator,
            outcome_text(&stage.outcome),
            stage.elements,
            stage.bytes,
            if stage.stored { ", stored" } else { "" }
        ));
    }
    let reasons: Vec<String> = reasons(report)
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    text.push_str(&format!(
        "cache: {} hits, {} misses{}, {} stored, {} evicted\n",
        report.hits(),
        report.misses(),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        },
        report.stages.iter().filter(|s| s.stored).count(),
        report.evicted.len()
    ));
    if !report.tiles.is_empty() {
        let hits = report.tiles.iter().filter(|t| t.hit).count();
        text.push_str(&format!(
            "tiles: {} hits, {} cooked and stored\n",
            hits,
            report.tiles.len() - hits
        ));
    }
    if let Some(shard) = options.shard {
        text.push_str(&format!(
            "shard {}/{}: done in {:.1} ms\n",
            shard.index,
            shard.count,
            elapsed.as_secs_f64() * 1e3
        ));
    } else if options.items.is_some() {
        text.push_str(&format!(
            "items: done in {:.1} ms\n",
            elapsed.as_secs_f64() * 1e3
        ));
    }
    if let Some(digest) = report.digest() {
        text.push_str(&format!("bundle digest {digest}\n"));
    }
    if let Some(out) = &options.out {
        text.push_str(&format!(
            "wrote {} ({} files, {} bytes) in {:.1} ms\n",
            out.display(),
            report.files,
            report.bytes,
            elapsed.as_secs_f64() * 1e3
        ));
    }
    text
}

fn report_json(report: &CookReport, options: &CookOptions) -> serde_json::Value {
    let stages: Vec<serde_json::Value> = report
        .stages
        .iter()
        .map(|s| {
            let (cache, reason) = match &s.outcome {
                StageOutcome::Hit => ("hit", None),
                StageOutcome::Miss(reason) => ("miss", Some(reason.to_string())),
                StageOutcome::Dependency => ("dependency", None),
            };
            serde_json::json!({
                "recipe": s.recipe, "stage": s.stage, "operator": s.operator,
                "cache": cache, "reason": reason, "stored": s.stored,
                "elements": s.elements, "bytes": s.bytes,
            })
        })
        .collect();
    serde_json::json!({
        "cache": report.cache.display().to_string(),
        "hits": report.hits(),
        "misses": report.misses(),
        "miss_reasons": reasons(report),
        "evicted": report.evicted,
        "digest": report.digest(),
        "out": options.out.as_ref().map(|o| o.display().to_string()),
        "shard": options.shard.map(|s| format!("{}/{}", s.index, s.count)),
        "items": options.items,
        "stages": stages,
        "tiles": report.tiles.iter().map(|t| serde_json::json!({
            "recipe": t.recipe, "stage": t.stage, "tile": t.tile, "key": t.key,
            "cache": if t.hit { "hit" } else { "miss" }, "reason": t.reason, "bytes": t.bytes,
        })).collect::<Vec<_>>(),
    })
}

fn plan(project: &Path, args: &CookArgs, out: &mut dyn Write) -> anyhow::Result<i32> {
    let compiled = compile_all(project, &|_| Ok(()))
        .map_err(|error| CliError::new(1, "cook_failed", format!("{error:#}")))?;
    let cache = DiskCache::new(args.cache.clone().unwrap_or_else(|| default_cache(project)));
    let seed = args.seed.unwrap_or(compiled.root_seed);
    let shards = args.shard.as_deref().map(ShardSpec::parse).transpose()?;
    let items = work_items(&compiled, &cache, seed, args.tile_cells);
    if args.json {
        let list: Vec<serde_json::Value> = items
            .iter()
            .map(|i| {
                serde_json::json!({
                    "index": i.index, "id": i.id, "recipe": i.recipe, "stage": i.stage,
                    "scope": i.scope, "operator": i.operator, "key": i.key, "after": i.after,
                    "tile": i.tile.map(|t| serde_json::json!({
                        "name": t.name(), "column": t.column, "row": t.row,
                        "cells": [t.cells.min_x, t.cells.min_y, t.cells.end_x, t.cells.end_y],
                    })),
                    "estimated_bytes": i.estimated_bytes,
                    "shard_of_n": shards.map(|s| stagecraft_runtime::cook::shard_of(i.index, s.count)),
                })
            })
            .collect();
        let report = serde_json::json!({
            "project": project.display().to_string(),
            "seed": seed,
            "cache": cache.root().display().to_string(),
            "tile_cells": args.tile_cells,
            "items": list,
        });
        super::json_out::write_document(out, "cook_plan", &report)?;
    } else {
        for i in &items {
            writeln!(
                out,
                "{} {} {} stage {} ({}) scope {} key {}{}",
                i.index,
                i.id,
                i.recipe,
                i.stage,
                i.operator,
                i.scope,
                i.key.as_deref().unwrap_or("(after its inputs)"),
                if i.after.is_empty() {
                    String::new()
                } else {
                    format!(" after {:?}", i.after)
                }
            )?;
        }
    }
    Ok(0)
}
