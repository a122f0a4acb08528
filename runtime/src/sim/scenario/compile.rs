//! The scenario document compiled into a [`CompiledScenario`]: observers, sources, boxes,
//! scene geometry, vehicle sources and the settings sections, with every problem located by
//! its field path.

use std::collections::BTreeSet;

use super::collect::{ascending_frames, xyz, Problems};
use super::command::directives;
use super::settings::{crossings, motion, population};
use crate::boxes::{BoxFault, AXIS_NAMES};
use crate::project::{
    scenario_field, Box3, FieldPath, Observer, PopulationSource, RouteEnd, Scenario, SPAWN_RANGE_M,
};
use crate::sim::config::{
    BarrierSpec, CompiledScenario, ObserverKey, ObserverSpec, SceneObjectSpec, SimBox, SourceSpec,
    SpawnRanges, VehicleSourceSpec,
};
use crate::sim::problems::{SimBuildError, SimProblem};

impl CompiledScenario {
    /// Compiles `scenario`; the error lists every problem with its field path (in the order
    /// the fields are compiled below).
    pub fn compile(scenario: &Scenario) -> Result<CompiledScenario, SimBuildError> {
        let root = FieldPath::root();
        let mut problems = Problems {
            diagnostics: Vec::new(),
        };
        timing(scenario, &root, &mut problems);
        let observers = scenario
            .observers
            .iter()
            .enumerate()
            .map(|(i, o)| observer(o, root.field("observers").index(i), &mut problems))
            .collect();
        let families = families(scenario);
        let sources = sources(&scenario.sources, &root, &mut problems);
        let sources = with_families(sources, &scenario.sources, &families);
        let no_spawn_box = scenario
            .no_spawn_box
            .map(|b| sim_box(&b, root.field("no_spawn_box"), &mut problems));
        let no_removal_box = scenario
            .no_removal_box
            .map(|b| sim_box(&b, root.field("no_removal_box"), &mut problems));
        let objects = objects(scenario, &root, &mut problems);
        let barriers = barriers(scenario, &root, &mut problems);
        let directives = directives(scenario, &families, &root, &mut problems);
        let vehicle_sources = vehicle_sources(scenario, &root, &mut problems);
        let population = population(
            &scenario.population,
            root.field("population"),
            &mut problems,
        );
        let motion = motion(&scenario.motion, root.field("motion"), &mut problems);
        let crossings = crossings(&scenario.crossings, root.field("crossings"), &mut problems);
        if !problems.diagnostics.is_empty() {
            return Err(SimBuildError {
                scenario: scenario.id.clone(),
                diagnostics: problems.diagnostics,
            });
        }
        Ok(CompiledScenario {
            id: scenario.id.clone(),
            recipe: scenario.recipe.clone(),
            fixed_step_s: scenario.fixed_step_s,
            duration_frames: scenario.duration_frames,
            observers,
            sources,
            no_spawn_box,
            no_removal_box,
            directives,
            vehicle_sources,
            families,
            population,
            motion,
            crossings,
            objects,
            barriers,
        })
    }
}

/// The fixed step (within its schema range) and the duration.
fn timing(scenario: &Scenario, root: &FieldPath, problems: &mut Problems) {
    let fixed_step = scenario_field("Scenario", "fixed_step_s").range;
    if !fixed_step.is_some_and(|range| range.contains(scenario.fixed_step_s)) {
        problems.push(
            root.field("fixed_step_s"),
            SimProblem::BadFixedStep {
                fixed_step_s: scenario.fixed_step_s,
            },
        );
    }
    // As a float: every u64 above the range is still above it after rounding.
    problems.section(
        root,
        "Scenario",
        &[("duration_frames", scenario.duration_frames as f64)],
    );
}

/// The appearance families the sources name, sorted and unique.
fn families(scenario: &Scenario) -> Vec<String> {
    scenario
        .sources
        .iter()
        .filter_map(|s| s.family.clone())
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect()
}

/// Each compiled source with the index of its family in `families`.
fn with_families(
    compiled: Vec<SourceSpec>,
    sources: &[PopulationSource],
    families: &[String],
) -> Vec<SourceSpec> {
    compiled
        .into_iter()
        .zip(sources)
        .map(|(mut spec, source)| {
            spec.family = source
                .family
                .as_ref()
                .and_then(|f| families.binary_search(f).ok())
                .and_then(|i| u16::try_from(i).ok());
            spec
        })
        .collect()
}

/// The vehicle sources, each speed checked.
fn vehicle_sources(
    scenario: &Scenario,
    root: &FieldPath,
    problems: &mut Problems,
) -> Vec<VehicleSourceSpec> {
    scenario
        .vehicle_sources
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let path = root.field("vehicle_sources").index(i);
            problems.section(&path, "VehicleSource", &[("speed_m_s", v.speed_m_s)]);
            VehicleSourceSpec {
                id: v.id.clone(),
                lane: v.lane.clone(),
                target_count: v.target_count,
                speed_m_s: v.speed_m_s,
            }
        })
        .collect()
}

fn observer(o: &Observer, path: FieldPath, problems: &mut Problems) -> ObserverSpec {
    problems.finite(path.field("position"), &xyz(o.position));
    problems.finite(path.field("close_m"), &[o.close_m]);
    problems.section(&path, "Observer", &[("fade", o.fade)]);
    let path_frames: Vec<u64> = o.path.iter().map(|k| k.frame).collect();
    ascending_frames(problems, path.field("path"), &path_frames);
    for (i, key) in o.path.iter().enumerate() {
        problems.finite(
            path.field("path").index(i).field("position"),
            &xyz(key.position),
        );
    }
    let aim_frames: Vec<u64> = o.aim.iter().map(|k| k.frame).collect();
    ascending_frames(problems, path.field("aim"), &aim_frames);
    for (i, key) in o.aim.iter().enumerate() {
        let key_path = path.field("aim").index(i);
        problems.finite(key_path.field("yaw_rad"), &[key.yaw_rad]);
        problems.finite(key_path.field("pitch_rad"), &[key.pitch_rad]);
    }
    for (field, value) in [
        ("yaw_rad", o.yaw_rad),
        ("pitch_rad", o.pitch_rad),
        ("fov_y_rad", o.fov_y_rad),
        ("near_m", o.near_m),
        ("far_m", o.far_m),
        ("retain_radius_m", o.retain_radius_m),
        ("remove_radius_m", o.remove_radius_m),
    ] {
        problems.finite(path.field(field), &[value]);
    }
    ObserverSpec {
        id: o.id.clone(),
        position_m: xyz(o.position),
        yaw_rad: o.yaw_rad,
        pitch_rad: o.pitch_rad,
        fov_y_rad: o.fov_y_rad,
        near_m: o.near_m,
        far_m: o.far_m,
        retain_radius_m: o.retain_radius_m,
        remove_radius_m: o.remove_radius_m,
        close_m: o.close_m,
        spawn: spawn_ranges(o, &path, problems),
        center_m: o.center.map(xyz),
        path: o
            .path
            .iter()
            .map(|k| ObserverKey {
                frame: k.frame,
                position_m: xyz(k.position),
            })
            .collect(),
        aim: o
            .aim
            .iter()
            .map(|k| (k.frame, k.yaw_rad, k.pitch_rad))
            .collect(),
        fade: o.fade,
        valid: o.valid,
    }
}

/// The observer's two spawn ranges: each bound in [0, 100000] m, each minimum at most its
/// maximum (an absent maximum is the retain radius, an absent hidden maximum the normal one).
fn spawn_ranges(o: &Observer, path: &FieldPath, problems: &mut Problems) -> SpawnRanges {
    let ranges = SpawnRanges {
        normal_min_m: o.spawn_min_m,
        normal_max_m: o.spawn_max_m,
        hidden_min_m: o.hidden_spawn_min_m,
        hidden_max_m: o.hidden_spawn_max_m,
    };
    for (field, value) in [
        ("spawn_min_m", Some(o.spawn_min_m)),
        ("spawn_max_m", o.spawn_max_m),
        ("hidden_spawn_min_m", Some(o.hidden_spawn_min_m)),
        ("hidden_spawn_max_m", o.hidden_spawn_max_m),
    ] {
        if let Some(value) = value {
            problems.in_range(path.field(field), value, &SPAWN_RANGE_M);
        }
    }
    let normal = ranges.normal(o.retain_radius_m);
    let hidden = ranges.hidden(o.retain_radius_m);
    for (field, (min, max), text) in [
        (
            "spawn_min_m",
            normal,
            "at most the normal spawn maximum (`spawn_max_m`, else `retain_radius_m`)",
        ),
        (
            "hidden_spawn_min_m",
            hidden,
            "at most the hidden spawn maximum (`hidden_spawn_max_m`, else the normal maximum)",
        ),
    ] {
        if min.is_finite() && max.is_finite() && min > max {
            let problem = SimProblem::OutOfRange {
                value: min,
                range: text,
            };
            problems.push(path.field(field), problem);
        }
    }
    ranges
}

fn sources(
    sources: &[PopulationSource],
    root: &FieldPath,
    problems: &mut Problems,
) -> Vec<SourceSpec> {
    if u16::try_from(sources.len()).is_err() {
        problems.push(
            root.field("sources"),
            SimProblem::TooMany { what: "sources" },
        );
    }
    let mut seen = BTreeSet::new();
    let mut compiled = Vec::with_capacity(sources.len());
    for (index, source) in sources.iter().enumerate() {
        let path = root.field("sources").index(index);
        if !seen.insert(source.id.as_str()) {
            problems.push(
                path.field("id"),
                SimProblem::DuplicateSource {
                    id: source.id.clone(),
                },
            );
        }
        problems.section(
            &path,
            "Source",
            &[
                ("walk_speed_m_s", source.walk_speed_m_s),
                ("removal_multiplier", source.removal_multiplier),
                ("batch_size", f64::from(source.batch_size)),
            ],
        );
        problems.finite(path.field("candidates_m"), &source.candidates_m);
        compiled.push(SourceSpec {
            id: source.id.clone(),
            kind: source.kind,
            route: source.route.clone(),
            target_count: source.target_count,
            walk_speed_m_s: source.walk_speed_m_s,
            capacity: source.capacity.unwrap_or(source.target_count),
            batch_size: source.batch_size.max(1),
            family: None,
            candidates_m: source.candidates_m.clone(),
            removal_multiplier: source.removal_multiplier,
            stops_at_route_end: source.at_route_end == RouteEnd::Stop,
            law_enforcement: source.law_enforcement,
            motion_profile: source.motion_profile.clone(),
        });
    }
    compiled
}

fn sim_box(bounds: &Box3, path: FieldPath, problems: &mut Problems) -> SimBox {
    let bounds = SimBox {
        min_m: xyz(bounds.min),
        max_m: xyz(bounds.max),
    };
    match bounds.fault() {
        Some(BoxFault::NonFinite) => problems.push(path, SimProblem::NonFinite),
        Some(BoxFault::Inverted(axis)) => problems.push(
            path.field("min"),
            SimProblem::InvertedBox {
                axis: AXIS_NAMES[axis],
                min_m: bounds.min_m[axis],
                max_m: bounds.max_m[axis],
            },
        ),
        None => {}
    }
    bounds
}

fn objects(scenario: &Scenario, root: &FieldPath, problems: &mut Problems) -> Vec<SceneObjectSpec> {
    if u16::try_from(scenario.objects.len()).is_err() {
        problems.push(
            root.field("objects"),
            SimProblem::TooMany { what: "objects" },
        );
    }
    scenario
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let path = root.field("objects").index(i);
            problems.finite(path.field("position"), &xyz(o.position));
            problems.finite(path.field("yaw_rad"), &[o.yaw_rad]);
            problems.finite(path.field("scale"), &xyz(o.scale));
            problems.finite(path.field("half_extents_m"), &xyz(o.half_extents_m));
            SceneObjectSpec {
                id: o.id.clone(),
                position: xyz(o.position),
                yaw_rad: o.yaw_rad,
                scale: xyz(o.scale),
                half_extents_m: xyz(o.half_extents_m),
            }
        })
        .collect()
}

fn barriers(scenario: &Scenario, root: &FieldPath, problems: &mut Problems) -> Vec<BarrierSpec> {
    scenario
        .barriers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let path = root.field("barriers").index(i);
            problems.finite(path.field("from"), &xyz(b.from));
            problems.finite(path.field("to"), &xyz(b.to));
            problems.finite(path.field("thickness_m"), &[b.thickness_m]);
            BarrierSpec {
                id: b.id.clone(),
                from: xyz(b.from),
                to: xyz(b.to),
                thickness_m: b.thickness_m,
                in_navigation: b.in_navigation,
            }
        })
        .collect()
}
