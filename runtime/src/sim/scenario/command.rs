//! Directives compiled: each target resolved to a source index, a handle, a point or the world,
//! each command's values checked and its names (observers, objects, families, obstacles)
//! resolved to indices; directives sorted by frame, file order within a frame.

use super::collect::{directive_duration, ground, unit_interval, xyz, Problems};
use crate::project::{Box3, DirectiveCommand, FieldPath, Scenario, Target, Vec3, VehicleRelation};
use crate::sim::state::{AgentHandle, PedEventType};

use crate::sim::config::{Command, DirectiveSpec, DirectiveTarget, Factions, Obstacle, SimBox};
use crate::sim::events::BoxSlot;
use crate::sim::problems::SimProblem;

pub(super) fn directives(
    scenario: &Scenario,
    families: &[String],
    root: &FieldPath,
    problems: &mut Problems,
) -> Vec<DirectiveSpec> {
    if u32::try_from(scenario.directives.len()).is_err() {
        problems.push(
            root.field("directives"),
            SimProblem::TooMany { what: "directives" },
        );
    }
    let mut compiled = Vec::with_capacity(scenario.directives.len());
    for (index, directive) in scenario.directives.iter().enumerate() {
        let path = root.field("directives").index(index);
        let world_command = directive.command.is_world();
        if world_command != (directive.target == Target::World) {
            problems.push(
                path.field("target"),
                SimProblem::WrongTarget { world_command },
            );
        }
        let target = target(scenario, &directive.target, path.field("target"), problems);
        let cx = CommandContext {
            scenario,
            families,
            path: path.field("command"),
        };
        let command = command(&directive.command, &cx, problems);
        if directive.source.is_empty() {
            problems.push(path.field("source"), SimProblem::EmptySource);
        }
        if directive.motion_profile.is_some() && !directive.command.is_route() {
            problems.push(path.field("motion_profile"), SimProblem::ProfileOnNonRoute);
        }
        let (Some(target), Some(command)) = (target, command) else {
            continue;
        };
        compiled.push(DirectiveSpec {
            frame: directive.frame,
            index: u32::try_from(index).unwrap_or(u32::MAX),
            target,
            command,
            source: directive.source.clone(),
            session: directive.session,
            motion_profile: directive.motion_profile.clone(),
        });
    }
    // Stable: file order within a frame.
    compiled.sort_by_key(|d| d.frame);
    compiled
}

fn target(
    scenario: &Scenario,
    target: &Target,
    path: FieldPath,
    problems: &mut Problems,
) -> Option<DirectiveTarget> {
    Some(match target {
        Target::Born { source, ordinal } => {
            let index = scenario
                .sources
                .iter()
                .position(|s| &s.id == source)
                .and_then(|i| u16::try_from(i).ok());
            let Some(index) = index else {
                problems.push(
                    path.field("source"),
                    SimProblem::UnknownSource {
                        source: source.clone(),
                    },
                );
                return None;
            };
            DirectiveTarget::Born {
                source: index,
                ordinal: *ordinal,
            }
        }
        Target::Handle { index, generation } => DirectiveTarget::Handle(AgentHandle {
            index: *index,
            generation: *generation,
        }),
        Target::NearestAmbient { point } => {
            problems.finite(path.field("point"), &xyz(*point));
            DirectiveTarget::nearest_ambient(point.x, point.y)
        }
        Target::World => DirectiveTarget::World,
    })
}

/// What compiling a command reads besides the command.
struct CommandContext<'a> {
    scenario: &'a Scenario,
    families: &'a [String],
    path: FieldPath,
}

/// Compiles one command; `None` when a name it refers to is unknown (the diagnostic is
/// pushed). World commands are compiled by [`world_command`].
fn command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    Some(match command {
        DirectiveCommand::Claim {
            owner,
            allow_transfer,
        } => Command::Claim {
            owner: owner.clone(),
            allow_transfer: *allow_transfer,
        },
        DirectiveCommand::Release { owner } => Command::Release {
            owner: owner.clone(),
        },
        DirectiveCommand::Hold => Command::Hold,
        DirectiveCommand::Continue => Command::Continue,
        DirectiveCommand::Cancel => Command::Cancel,
        DirectiveCommand::Destroy => Command::Destroy,
        DirectiveCommand::Rendezvous { .. }
        | DirectiveCommand::Redirect { .. }
        | DirectiveCommand::RendezvousWith { .. }
        | DirectiveCommand::RedirectTo { .. }
        | DirectiveCommand::Escape { .. } => goal_command(command, cx, problems)?,
        DirectiveCommand::Knockdown { impulse_n_s } => knockdown(*impulse_n_s, path, problems),
        DirectiveCommand::Stand { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::Stand {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::QueueEvent { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::QueueEvent {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::SetRemovalMultiplier { multiplier } => {
            problems.positive(path.field("multiplier"), *multiplier);
            Command::SetRemovalMultiplier {
                multiplier: *multiplier,
            }
        }
        DirectiveCommand::ExtendRemovalDistance { task } => {
            Command::ExtendRemovalDistance { task: *task }
        }
        DirectiveCommand::SetVehicleIntent { .. }
        | DirectiveCommand::SetVehicleRelation { .. }
        | DirectiveCommand::Panic { .. }
        | DirectiveCommand::SetRelevance { .. }
        | DirectiveCommand::LineOfSight { .. } => ped_command(command, path, problems)?,
        _ => world_command(command, cx, problems)?,
    })
}

/// A goal or a threat: a point, a scene object's approach point or an escape.
fn goal_command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    Some(match command {
        DirectiveCommand::Rendezvous { goal } => {
            problems.finite(path.field("goal"), &xyz(*goal));
            Command::Rendezvous {
                goal: ground(*goal),
            }
        }
        DirectiveCommand::Redirect { goal } => {
            problems.finite(path.field("goal"), &xyz(*goal));
            Command::Redirect {
                goal: ground(*goal),
            }
        }
        DirectiveCommand::RendezvousWith { object, offset } => {
            problems.finite(path.field("offset"), &xyz(*offset));
            Command::RendezvousWith {
                object: object_index(cx.scenario, object, path, problems)?,
                offset: xyz(*offset),
            }
        }
        DirectiveCommand::RedirectTo { object, offset } => {
            problems.finite(path.field("offset"), &xyz(*offset));
            Command::RedirectTo {
                object: object_index(cx.scenario, object, path, problems)?,
                offset: xyz(*offset),
            }
        }
        DirectiveCommand::Escape {
            threat,
            safe_distance_m,
            endpoint,
            restore_interrupted,
        } => {
            problems.finite(path.field("threat"), &xyz(*threat));
            problems.finite(path.field("safe_distance_m"), &[*safe_distance_m]);
            if let Some(endpoint) = endpoint {
                problems.finite(path.field("endpoint"), &xyz(*endpoint));
            }
            Command::Escape {
                threat: ground(*threat),
                safe_distance_m: *safe_distance_m,
                endpoint: endpoint.map(ground),
                restore_interrupted: *restore_interrupted,
            }
        }
        // `command` sends only the goals here.
        _ => return None,
    })
}

/// A knockdown: a finite impulse of at most `MAX_IMPULSE_N_S`.
fn knockdown(impulse_n_s: Vec3, path: &FieldPath, problems: &mut Problems) -> Command {
    let impulse = xyz(impulse_n_s);
    problems.finite(path.field("impulse_n_s"), &impulse);
    let magnitude = impulse.iter().map(|v| v * v).sum::<f64>().sqrt();
    if magnitude > crate::sim::config::MAX_IMPULSE_N_S {
        problems.push(
            path.field("impulse_n_s"),
            SimProblem::OutOfRange {
                value: magnitude,
                range: "a magnitude of at most 1000 N·s",
            },
        );
    }
    Command::Knockdown {
        impulse_n_s: impulse,
    }
}

/// A ped's vehicle relation, a panic stimulus, its relevance or a line-of-sight check.
fn ped_command(
    command: &DirectiveCommand,
    path: &FieldPath,
    problems: &mut Problems,
) -> Option<Command> {
    Some(match command {
        DirectiveCommand::SetVehicleIntent { intent } => Command::SetVehicleRelation {
            relation: if *intent {
                VehicleRelation::Intent
            } else {
                VehicleRelation::None
            },
        },
        DirectiveCommand::SetVehicleRelation { relation } => Command::SetVehicleRelation {
            relation: *relation,
        },
        DirectiveCommand::Panic {
            center,
            radius_m,
            strength,
        } => {
            problems.finite(path.field("center"), &xyz(*center));
            problems.positive(path.field("radius_m"), *radius_m);
            unit_interval(problems, path.field("strength"), *strength);
            Command::Panic {
                center: ground(*center),
                radius_m: *radius_m,
                strength: *strength,
            }
        }
        DirectiveCommand::SetRelevance { relevance } => {
            unit_interval(problems, path.field("relevance"), *relevance);
            Command::SetRelevance {
                relevance: *relevance,
            }
        }
        DirectiveCommand::LineOfSight {
            presented,
            own,
            allied,
            hostile,
            accepted_disguises,
        } => Command::LineOfSight {
            presented: presented.clone(),
            factions: Factions {
                own: own.clone(),
                allied: allied.clone(),
                hostile: hostile.clone(),
                accepted_disguises: accepted_disguises.clone(),
            },
        },
        // `command` sends only these here.
        _ => return None,
    })
}

/// A command for the world: boxes, cleanup, forced init, fill, pause, obstacles, observers,
/// families.
fn world_command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    Some(match command {
        // Boxes are checked when applied: an invalid one is refused at run time and logged,
        // keeping the slot's box (the specification's rule); `check` still warns about it.
        DirectiveCommand::SetNoSpawnBox { bounds } => Command::SetBox {
            slot: BoxSlot::NoSpawn,
            bounds: sim_box(bounds),
        },
        DirectiveCommand::SetNoRemovalBox { bounds } => Command::SetBox {
            slot: BoxSlot::NoRemoval,
            bounds: sim_box(bounds),
        },
        DirectiveCommand::ClearNoSpawnBox => Command::ClearBox {
            slot: BoxSlot::NoSpawn,
        },
        DirectiveCommand::ClearNoRemovalBox => Command::ClearBox {
            slot: BoxSlot::NoRemoval,
        },
        DirectiveCommand::SuppressCleanup => Command::SuppressCleanup,
        DirectiveCommand::ForcedInit { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::ForcedInit {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::InstantFill => Command::InstantFill,
        DirectiveCommand::PausePopulation { duration_s } => {
            directive_duration(problems, path.field("duration_s"), *duration_s);
            Command::PausePopulation {
                duration_s: *duration_s,
            }
        }
        DirectiveCommand::PlaceObstacle { .. } | DirectiveCommand::RemoveObstacle { .. } => {
            obstacle_command(command, cx, problems)?
        }
        DirectiveCommand::SetObserverFade { .. } | DirectiveCommand::SetObserverValid { .. } => {
            observer_command(command, cx, problems)?
        }
        DirectiveCommand::ClearEvents {
            event_type,
            event_source,
            tag,
        } => {
            let kind = PedEventType::from_name(event_type);
            if kind.is_none() && !event_type.is_empty() {
                problems.push(
                    path.field("event_type"),
                    SimProblem::UnknownEventType {
                        event_type: event_type.clone(),
                    },
                );
                return None;
            }
            Command::ClearEvents {
                kind,
                source: (!event_source.is_empty()).then(|| event_source.clone()),
                tag: *tag,
            }
        }
        DirectiveCommand::SetFamilyAvailable { family, available } => Command::SetFamilyAvailable {
            family: family_index(cx, family, problems)?,
            available: *available,
        },
        // Every ped command is compiled by `command` before it gets here.
        _ => return None,
    })
}

/// A directive's box as the runtime box (unchecked: see `world_command`).
fn sim_box(bounds: &Box3) -> SimBox {
    SimBox {
        min_m: xyz(bounds.min),
        max_m: xyz(bounds.max),
    }
}

/// Placing (never over an authored obstacle's id) or removing an obstacle (one placed by some
/// directive, or authored).
fn obstacle_command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    Some(match command {
        DirectiveCommand::PlaceObstacle {
            obstacle,
            from,
            to,
            thickness_m,
        } => {
            problems.finite(path.field("from"), &xyz(*from));
            problems.finite(path.field("to"), &xyz(*to));
            problems.positive(path.field("thickness_m"), *thickness_m);
            if is_authored_obstacle(cx.scenario, obstacle) {
                problems.push(
                    path.field("obstacle"),
                    SimProblem::AuthoredObstacleId {
                        obstacle: obstacle.clone(),
                    },
                );
            }
            Command::PlaceObstacle {
                id: obstacle.clone(),
                footprint: Obstacle::Segment {
                    from: ground(*from),
                    to: ground(*to),
                    half_thickness_m: thickness_m / 2.0,
                },
            }
        }
        DirectiveCommand::RemoveObstacle { obstacle } => {
            let placed = cx.scenario.directives.iter().any(|d| {
                matches!(&d.command, DirectiveCommand::PlaceObstacle { obstacle: o, .. } if o == obstacle)
            });
            if !placed && !is_authored_obstacle(cx.scenario, obstacle) {
                problems.push(
                    path.field("obstacle"),
                    SimProblem::UnknownObstacle {
                        obstacle: obstacle.clone(),
                    },
                );
            }
            Command::RemoveObstacle {
                id: obstacle.clone(),
            }
        }
        _ => return None,
    })
}

/// An observer's fade (in [0, 1]) or validity; the observer must exist.
fn observer_command(
    command: &DirectiveCommand,
    cx: &CommandContext<'_>,
    problems: &mut Problems,
) -> Option<Command> {
    let path = &cx.path;
    Some(match command {
        DirectiveCommand::SetObserverFade { observer: id, fade } => {
            if !(0.0..=1.0).contains(fade) {
                problems.push(
                    path.field("fade"),
                    SimProblem::OutOfRange {
                        value: *fade,
                        range: "a value in [0, 1]",
                    },
                );
            }
            Command::SetObserverFade {
                observer: observer_index(cx, id, problems)?,
                fade: *fade,
            }
        }
        DirectiveCommand::SetObserverValid {
            observer: id,
            valid,
        } => Command::SetObserverValid {
            observer: observer_index(cx, id, problems)?,
            valid: *valid,
        },
        _ => return None,
    })
}

/// The index of observer `id`, or a diagnostic.
fn observer_index(cx: &CommandContext<'_>, id: &str, problems: &mut Problems) -> Option<u16> {
    let found = cx
        .scenario
        .observers
        .iter()
        .position(|o| o.id == id)
        .and_then(|i| u16::try_from(i).ok());
    if found.is_none() {
        problems.push(
            cx.path.field("observer"),
            SimProblem::UnknownObserver {
                observer: id.to_owned(),
            },
        );
    }
    found
}

/// The index of appearance family `family`, or a diagnostic.
fn family_index(cx: &CommandContext<'_>, family: &str, problems: &mut Problems) -> Option<u16> {
    let found = cx
        .families
        .iter()
        .position(|f| f == family)
        .and_then(|i| u16::try_from(i).ok());
    if found.is_none() {
        problems.push(
            cx.path.field("family"),
            SimProblem::UnknownFamily {
                family: family.to_owned(),
            },
        );
    }
    found
}

/// Whether `id` names an authored obstacle: a scene object with a footprint, or a barrier.
fn is_authored_obstacle(scenario: &Scenario, id: &str) -> bool {
    let footprint = |h: Vec3, s: Vec3| (h.x * s.x).abs() > 0.0 && (h.y * s.y).abs() > 0.0;
    scenario
        .objects
        .iter()
        .any(|o| o.id == id && footprint(o.half_extents_m, o.scale))
        || scenario.barriers.iter().any(|b| b.id == id)
}

/// The index of scene object `id`, or a diagnostic.
fn object_index(
    scenario: &Scenario,
    id: &str,
    path: &FieldPath,
    problems: &mut Problems,
) -> Option<u16> {
    let found = scenario
        .objects
        .iter()
        .position(|o| o.id == id)
        .and_then(|i| u16::try_from(i).ok());
    if found.is_none() {
        problems.push(
            path.field("object"),
            SimProblem::UnknownObject {
                object: id.to_owned(),
            },
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::project::{
        Box3, Directive, DirectiveCommand as D, Observer, PopulationSource, Scenario, SceneObject,
        Target, Vec3, VehicleRelation, DEFAULT_DURATION_FRAMES, DEFAULT_FIXED_STEP_S,
    };
    use crate::sim::config::{Command, CompiledScenario};

    fn v(x: f64) -> Vec3 {
        Vec3 { x, y: 1.0, z: 0.0 }
    }

    /// One valid command of every kind, in the order of their codes' first use below.
    fn every_command() -> Vec<D> {
        let bounds = Box3 {
            min: v(0.0),
            max: v(1.0),
        };
        let object = || "car".to_owned();
        vec![
            D::Claim {
                owner: "m".into(),
                allow_transfer: true,
            },
            D::Release { owner: "m".into() },
            D::Rendezvous { goal: v(2.0) },
            D::Hold,
            D::Continue,
            D::Redirect { goal: v(3.0) },
            D::Cancel,
            D::Escape {
                threat: v(4.0),
                safe_distance_m: 5.0,
                endpoint: None,
                restore_interrupted: false,
            },
            D::Destroy,
            D::SetNoSpawnBox { bounds },
            D::ClearNoRemovalBox,
            D::SuppressCleanup,
            D::ForcedInit { duration_s: 1.0 },
            D::InstantFill,
            D::SetObserverFade {
                observer: "o".into(),
                fade: 0.5,
            },
            D::SetObserverValid {
                observer: "o".into(),
                valid: false,
            },
            D::SetRemovalMultiplier { multiplier: 2.0 },
            D::SetVehicleRelation {
                relation: VehicleRelation::Intent,
            },
            D::SetFamilyAvailable {
                family: "f".into(),
                available: true,
            },
            D::Panic {
                center: v(6.0),
                radius_m: 3.0,
                strength: 0.5,
            },
            D::SetRelevance { relevance: 0.25 },
            D::LineOfSight {
                presented: "p".into(),
                own: "a".into(),
                allied: Vec::new(),
                hostile: vec!["p".into()],
                accepted_disguises: Vec::new(),
            },
            D::RendezvousWith {
                object: object(),
                offset: v(0.0),
            },
            D::RedirectTo {
                object: object(),
                offset: v(0.0),
            },
            D::Knockdown {
                impulse_n_s: v(10.0),
            },
            D::Stand { duration_s: 2.0 },
            D::QueueEvent { duration_s: 3.0 },
            D::PausePopulation { duration_s: 4.0 },
            D::PlaceObstacle {
                obstacle: "cone".into(),
                from: v(0.0),
                to: v(1.0),
                thickness_m: 0.2,
            },
            D::RemoveObstacle {
                obstacle: "cone".into(),
            },
            D::ClearEvents {
                event_type: "threat".into(),
                event_source: String::new(),
                tag: 0,
            },
            D::SetNoRemovalBox { bounds },
            D::ClearNoSpawnBox,
            D::SetVehicleIntent { intent: false },
        ]
    }

    #[test]
    fn the_runtimes_default_source_is_the_documents() {
        assert_eq!(
            crate::sim::config::DEFAULT_SOURCE,
            crate::project::DEFAULT_DIRECTIVE_SOURCE
        );
    }

    #[test]
    fn every_command_kind_compiles_to_its_command_in_file_order() {
        let commands = every_command();
        let directives = commands
            .iter()
            .map(|command| {
                let target = if command.is_world() {
                    Target::World
                } else {
                    Target::Born {
                        source: "s".into(),
                        ordinal: 0,
                    }
                };
                Directive::new(1, target, command.clone())
            })
            .collect();
        let scenario = Scenario {
            id: "every".into(),
            recipe: "r".into(),
            fixed_step_s: DEFAULT_FIXED_STEP_S,
            duration_frames: DEFAULT_DURATION_FRAMES,
            observers: vec![Observer {
                id: "o".into(),
                ..Observer::default()
            }],
            sources: vec![PopulationSource {
                id: "s".into(),
                route: "r".into(),
                family: Some("f".into()),
                ..PopulationSource::default()
            }],
            objects: vec![SceneObject {
                id: "car".into(),
                scale: v(1.0),
                half_extents_m: v(1.0),
                ..SceneObject::default()
            }],
            directives,
            ..Scenario::default()
        };
        let compiled = CompiledScenario::compile(&scenario).expect("every command is valid");
        let codes: Vec<u8> = compiled
            .directives
            .iter()
            .map(|d| d.command.code())
            .collect();
        let mut expected: Vec<u8> = (0..31).collect();
        // The second box, clear and relation commands reuse the codes of the first ones.
        expected.extend([9, 10, 17]);
        assert_eq!(codes, expected);
        let indices: Vec<u32> = compiled.directives.iter().map(|d| d.index).collect();
        assert_eq!(indices, (0..34).collect::<Vec<u32>>());
        assert!(matches!(
            compiled.directives[17].command,
            Command::SetVehicleRelation {
                relation: VehicleRelation::Intent
            }
        ));
        assert!(matches!(
            compiled.directives[33].command,
            Command::SetVehicleRelation {
                relation: VehicleRelation::None
            }
        ));
    }
}
