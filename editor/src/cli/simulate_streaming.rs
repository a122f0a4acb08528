//! The streaming and governor summary of `stagecraft simulate`: the HLOD donut the world planned
//! around the views at the last step (cells, pruned cells, megabytes against the budget, and
//! whether the budget was exceeded), and the crowd governor's estimate, budget and demotions.

use stagecraft_runtime::sim::World;

/// The summary lines (empty for a world without a streaming plan and with the governor off).
pub fn summary_text(world: &World) -> String {
    let mut text = String::new();
    if world.config().space.streaming.is_some() {
        let hlod = world.hlod_step();
        text.push_str(&format!(
            "hlod {} cells, {} pruned, {} / {} MB{}\n",
            hlod.cells.len(),
            hlod.pruned.len(),
            hlod.estimated_mb,
            hlod.budget_mb,
            if hlod.over_budget() {
                format!(" (over budget: {} MB asked)", hlod.requested_mb)
            } else {
                String::new()
            }
        ));
    }
    if world.config().scenario.motion.crowd_governor {
        let c = world.motion_counters();
        text.push_str(&format!(
            "governor estimate {:.3} / {:.3} ms, {} demotions, tiers full {} simulated {} stub {}\n",
            c.governor_estimate_ms,
            c.governor_budget_ms,
            c.governor_demotions,
            c.tiers[0],
            c.tiers[1],
            c.tiers[2]
        ));
    }
    text
}

/// The same as JSON: `hlod` (null without a streaming plan) and `governor` (null when off).
pub fn summary_json(world: &World) -> [serde_json::Value; 2] {
    let hlod = world.config().space.streaming.as_ref().map(|_| {
        let h = world.hlod_step();
        serde_json::json!({
            "cells": h.cells.len(),
            "pruned": h.pruned.len(),
            "requested_mb": h.requested_mb,
            "estimated_mb": h.estimated_mb,
            "budget_mb": h.budget_mb,
            "over_budget": h.over_budget(),
        })
    });
    let governor = world.config().scenario.motion.crowd_governor.then(|| {
        let c = world.motion_counters();
        serde_json::json!({
            "estimate_ms": c.governor_estimate_ms,
            "budget_ms": c.governor_budget_ms,
            "demotions": c.governor_demotions,
        })
    });
    [
        hlod.unwrap_or(serde_json::Value::Null),
        governor.unwrap_or(serde_json::Value::Null),
    ]
}
