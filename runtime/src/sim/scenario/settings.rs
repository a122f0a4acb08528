//! The scenario's settings sections compiled: motion, crossings and population, every rule
//! checked at its field path.

use std::collections::BTreeSet;

use super::collect::Problems;
use crate::project::{
    CrossingsSettings, FieldPath, MotionSettings, PopulationSettings, TIER_POLICIES,
};
use crate::sim::config::{
    AttachFault, ClockConfig, ClocksConfig, CrossingSettings, HazardSpec, MotionConfig, MotionExit,
    PopulationParams, RemovalScales, SignalTiming,
};
use crate::sim::problems::SimProblem;

/// Checks the motion settings: a shipped tier policy, positive distances with each exit band at
/// least its enter band, relevance thresholds within 0..1 (Medium's at most Hero's), a positive
/// crowd budget, relevance within 0..1, finite exits; compiled to the [`MotionConfig`] the phases
/// read. The tier values are checked as the scenario runs them (its policy's, overridden field by
/// field), each problem at the field the scenario gives.
pub(super) fn motion(m: &MotionSettings, path: FieldPath, problems: &mut Problems) -> MotionConfig {
    if m.policy().is_none() {
        problems.push(
            path.field("tier_policy"),
            SimProblem::UnknownTierPolicy {
                name: m.tier_policy.clone(),
                known: TIER_POLICIES.iter().map(|p| p.name.to_owned()).collect(),
            },
        );
    }
    let v = m.tier_values();
    problems.section(
        &path,
        "Motion",
        &[
            ("full_enter_m", v.full_enter_m),
            ("full_exit_m", v.full_exit_m),
            ("simulated_enter_m", v.simulated_enter_m),
            ("simulated_exit_m", v.simulated_exit_m),
            ("hero_relevance", v.hero_relevance),
            ("medium_relevance", v.medium_relevance),
            ("crowd_budget_ms", m.crowd_budget_ms),
        ],
    );
    for (low, high, value_low, value_high) in [
        ("full_enter_m", "full_exit_m", v.full_enter_m, v.full_exit_m),
        (
            "full_exit_m",
            "simulated_enter_m",
            v.full_exit_m,
            v.simulated_enter_m,
        ),
        (
            "simulated_enter_m",
            "simulated_exit_m",
            v.simulated_enter_m,
            v.simulated_exit_m,
        ),
        (
            "medium_relevance",
            "hero_relevance",
            v.medium_relevance,
            v.hero_relevance,
        ),
    ] {
        if value_low.is_finite() && value_high.is_finite() && value_high < value_low {
            ordering_problem(m, &path, (low, value_low), (high, value_high), problems);
        }
    }
    problems.section(
        &path,
        "Motion",
        &[("default_relevance", m.default_relevance)],
    );
    exits(m, &path, problems);
    compile_motion(m)
}

/// Two tier values out of order (`high` below `low`): reported at `high` when the scenario gives
/// it (or gives neither), else at `low` (the policy gave `high`).
fn ordering_problem(
    m: &MotionSettings,
    path: &FieldPath,
    (low, value_low): (&'static str, f64),
    (high, value_high): (&'static str, f64),
    problems: &mut Problems,
) {
    let (field, value, range) = if m.is_given(high) || !m.is_given(low) {
        (high, value_high, ordering_range(high))
    } else {
        (low, value_low, ordering_range(low))
    };
    problems.push(path.field(field), SimProblem::OutOfRange { value, range });
}

/// What an out-of-order tier field should hold.
fn ordering_range(field: &str) -> &'static str {
    match field {
        "full_exit_m" => "a distance of at least full_enter_m",
        "simulated_enter_m" => "a distance of at least full_exit_m",
        "simulated_exit_m" => "a distance of at least simulated_enter_m",
        "full_enter_m" => "a distance of at most full_exit_m (the tier policy's)",
        "hero_relevance" => "a relevance of at least medium_relevance",
        "medium_relevance" => "a relevance of at most hero_relevance (the tier policy's)",
        _ => "a distance of at most the next band's (the tier policy's)",
    }
}

/// The exits: finite positions, unique ids, fewer than 65535.
fn exits(m: &MotionSettings, path: &FieldPath, problems: &mut Problems) {
    let mut ids = BTreeSet::new();
    for (index, exit) in m.exits.iter().enumerate() {
        let at = path.field("exits").index(index);
        problems.finite(
            at.field("position"),
            &[exit.position.x, exit.position.y, exit.position.z],
        );
        if !ids.insert(exit.id.as_str()) {
            problems.push(
                at.field("id"),
                SimProblem::DuplicateExit {
                    id: exit.id.clone(),
                },
            );
        }
    }
    if m.exits.len() >= usize::from(u16::MAX) {
        problems.push(path.field("exits"), SimProblem::TooMany { what: "exits" });
    }
}

/// The motion settings as the phases read them (unchecked: [`motion`] checks them): the tier
/// values of the scenario's policy, overridden by the fields it gives.
pub fn compile_motion(m: &MotionSettings) -> MotionConfig {
    let v = m.tier_values();
    MotionConfig {
        tier_policy: m.policy_or_default().name,
        full_enter_m: v.full_enter_m,
        full_exit_m: v.full_exit_m,
        simulated_enter_m: v.simulated_enter_m,
        simulated_exit_m: v.simulated_exit_m,
        full_capacity: v.full_capacity,
        simulated_capacity: v.simulated_capacity,
        promotions_per_step: v.promotions_per_step,
        demotions_per_step: v.demotions_per_step,
        hero_relevance: v.hero_relevance,
        medium_relevance: v.medium_relevance,
        avoidance_budget: m.avoidance_budget,
        crowd_governor: m.crowd_governor,
        crowd_budget_ms: m.crowd_budget_ms,
        default_relevance: m.default_relevance,
        exits: m
            .exits
            .iter()
            .map(|e| MotionExit {
                id: e.id.clone(),
                position: e.position,
                capacity: e.capacity,
            })
            .collect(),
        profiles: crate::sim::config::profiles::ProfileTable::standard(),
    }
}

/// The crossings' settings, every rule checked with its field path.
pub(super) fn crossings(
    c: &CrossingsSettings,
    path: FieldPath,
    problems: &mut Problems,
) -> CrossingSettings {
    problems.section(
        &path,
        "Crossings",
        &[
            ("lanes", f64::from(c.lanes)),
            ("queue_rows", f64::from(c.queue_rows)),
            ("entry_range_m", c.entry_range_m),
            ("queries_per_step", f64::from(c.queries_per_step)),
            ("vehicle_green_s", c.vehicle_green_s),
            ("all_stop_s", c.all_stop_s),
            ("pedestrian_s", c.pedestrian_s),
            ("stuck_after_s", c.stuck_after_s),
            ("forced_clear_after_s", c.forced_clear_after_s),
            ("group_share", c.group_share),
            ("max_group_size", f64::from(c.max_group_size)),
        ],
    );
    let hazard = c.hazard.as_ref().map(|h| {
        let hazard_path = path.field("hazard");
        problems.section(
            &hazard_path,
            "Hazard",
            &[("y_m", h.y_m), ("speed_m_s", h.speed_m_s)],
        );
        HazardSpec {
            y_m: h.y_m,
            speed_m_s: h.speed_m_s,
        }
    });
    CrossingSettings {
        lanes: c.lanes,
        queue_rows: c.queue_rows,
        entry_range_m: c.entry_range_m,
        queries_per_step: c.queries_per_step,
        timing: SignalTiming {
            vehicle_green_s: c.vehicle_green_s,
            all_stop_s: c.all_stop_s,
            pedestrian_s: c.pedestrian_s,
        },
        stuck_after_s: c.stuck_after_s,
        forced_clear_after_s: c.forced_clear_after_s,
        group_share: c.group_share,
        max_group_size: c.max_group_size,
        hazard,
    }
}

pub(super) fn population(
    p: &PopulationSettings,
    path: FieldPath,
    problems: &mut Problems,
) -> PopulationParams {
    problems.section(
        &path,
        "Population",
        &[
            ("ped_frame_rate", p.ped_frame_rate),
            ("ped_cycles_per_frame", p.ped_cycles_per_frame),
            ("vehicle_frame_rate", p.vehicle_frame_rate),
            ("vehicle_cycles_per_frame", p.vehicle_cycles_per_frame),
            ("max_frame_time_s", p.max_frame_time_s),
            ("special_removal_scale", p.special_removal_scale),
            ("cops_removal_scale", p.cops_removal_scale),
        ],
    );
    PopulationParams {
        clocks: ClocksConfig {
            ped: ClockConfig {
                frame_rate: p.ped_frame_rate,
                cycles_per_frame: p.ped_cycles_per_frame,
            },
            vehicle: ClockConfig {
                frame_rate: p.vehicle_frame_rate,
                cycles_per_frame: p.vehicle_cycles_per_frame,
            },
            max_frame_time_s: p.max_frame_time_s,
        },
        pool_capacity: p.pool_capacity,
        aggressive_cleanup: p.aggressive_cleanup,
        fault: p.fault.as_ref().map(|f| AttachFault {
            batch: f.batch,
            item: f.item,
            fail_restore: f.fail_restore,
        }),
        removal_scales: RemovalScales {
            special: p.special_removal_scale,
            cops: p.cops_removal_scale,
        },
        startup_at_world_start: p.startup_at_world_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_motion_defaults_compile_to_the_config_defaults() {
        assert_eq!(
            compile_motion(&MotionSettings::default()),
            MotionConfig::default()
        );
    }
}
