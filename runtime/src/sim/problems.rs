//! Why a scenario cannot run: every problem the simulation's compiler finds, with its field
//! path, what was given and what was expected. This is the one rulebook of the scenario's runtime
//! rules: `CompiledScenario::compile` refuses with these, and `stagecraft check`, the editor's
//! Diagnostics tab and `generate` show the same problems as located diagnostics
//! (`recipe::check::check_project`).

use std::fmt;

use thiserror::Error;

use crate::project::{FieldPath, DEFAULT_FIXED_STEP_S, MAX_FIXED_STEP_S};

/// What makes a scenario impossible to run.
#[derive(Clone, Debug, PartialEq)]
pub enum SimProblem {
    /// The fixed step is not a positive finite number of seconds.
    BadFixedStep {
        /// The step given.
        fixed_step_s: f64,
    },
    /// A number that must be finite is not.
    NonFinite,
    /// A speed or distance that must be positive (or not negative) is not.
    NotPositive {
        /// The value given.
        value: f64,
    },
    /// A box whose minimum exceeds its maximum on some axis.
    InvertedBox {
        /// The first axis on which it is inverted, `x`, `y` or `z`.
        axis: char,
        /// The minimum on that axis, meters.
        min_m: f64,
        /// The maximum on that axis, meters.
        max_m: f64,
    },
    /// Two sources share an id.
    DuplicateSource {
        /// The id.
        id: String,
    },
    /// A directive names a source the scenario does not have.
    UnknownSource {
        /// The source named.
        source: String,
    },
    /// A directive names an observer the scenario does not have.
    UnknownObserver {
        /// The observer named.
        observer: String,
    },
    /// A directive names a scene object the scenario does not have.
    UnknownObject {
        /// The object named.
        object: String,
    },
    /// A `RemoveObstacle` names no obstacle of the scenario (scene object with a footprint,
    /// barrier, or obstacle a `PlaceObstacle` places).
    UnknownObstacle {
        /// The obstacle named.
        obstacle: String,
    },
    /// A `PlaceObstacle` takes the id of an authored scene object or barrier.
    AuthoredObstacleId {
        /// The id given.
        obstacle: String,
    },
    /// A directive names an appearance family no source uses.
    UnknownFamily {
        /// The family named.
        family: String,
    },
    /// A `ClearEvents` names an event type there is not.
    UnknownEventType {
        /// The type named.
        event_type: String,
    },
    /// A directive's `source` is empty.
    EmptySource,
    /// A directive names a motion profile for a command that installs or redirects no route.
    ProfileOnNonRoute,
    /// A world command given a pedestrian target, or a pedestrian command given `World`.
    WrongTarget {
        /// Whether the command acts on the world.
        world_command: bool,
    },
    /// A value outside its range.
    OutOfRange {
        /// The value given.
        value: f64,
        /// What was expected, in words (such as `a value in [0, 1]`).
        range: &'static str,
    },
    /// An observer's path keyframe that does not come after the one before it.
    UnorderedKeyframe {
        /// Its frame.
        frame: u64,
        /// The frame of the keyframe before it.
        previous: u64,
    },
    /// A source names a route the pedestrian space does not publish.
    MissingRoute {
        /// The source.
        source_id: String,
        /// The route named.
        route: String,
        /// The routes the space publishes, sorted.
        known: Vec<String>,
    },
    /// A vehicle source names a lane the space does not have.
    MissingLane {
        /// The vehicle source.
        source_id: String,
        /// The lane named.
        lane: String,
        /// The lanes the space has, sorted.
        known: Vec<String>,
    },
    /// The motion settings name a tier policy that does not ship.
    UnknownTierPolicy {
        /// The name given.
        name: String,
        /// The shipped policies' names, in order.
        known: Vec<String>,
    },
    /// Two exits share an id.
    DuplicateExit {
        /// The id.
        id: String,
    },
    /// More sources or directives than the indices hold.
    TooMany {
        /// What overflowed.
        what: &'static str,
    },
    /// A run past the simulation's work ceiling (`sim::budget`).
    OverWork {
        /// The frames of the run.
        frames: u64,
        /// Agents plus population cycles of one step, at most.
        per_step: u64,
        /// Their product over the run.
        work: u64,
        /// The ceiling.
        ceiling: u64,
    },
    /// A run whose memory estimate is past the budget (`sim::budget`).
    OverMemory {
        /// The estimate, bytes.
        bytes: u64,
        /// The budget, bytes.
        budget: u64,
    },
}

impl fmt::Display for SimProblem {
    // Long because (over 80 lines): a flat table, one message per problem variant, beside
    // `expected`'s table of the same variants; split up, it would only be scattered.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimProblem::BadFixedStep { fixed_step_s } => {
                write!(f, "fixed step {fixed_step_s} s is out of range")
            }
            SimProblem::NonFinite => f.write_str("the value is not a finite number"),
            SimProblem::NotPositive { value } => write!(f, "{value} is not a positive number"),
            SimProblem::InvertedBox { axis, min_m, max_m } => {
                write!(f, "box minimum {axis} {min_m} is above its maximum {max_m}")
            }
            SimProblem::DuplicateSource { id } => write!(f, "duplicate source id `{id}`"),
            SimProblem::UnknownSource { source } => {
                write!(f, "directive names the missing source `{source}`")
            }
            SimProblem::UnknownObserver { observer } => {
                write!(f, "directive names the missing observer `{observer}`")
            }
            SimProblem::UnknownObject { object } => {
                write!(f, "directive names the missing scene object `{object}`")
            }
            SimProblem::UnknownObstacle { obstacle } => {
                write!(f, "directive names the missing obstacle `{obstacle}`")
            }
            SimProblem::AuthoredObstacleId { obstacle } => write!(
                f,
                "`{obstacle}` is an authored scene object or barrier, not a placed obstacle"
            ),
            SimProblem::UnknownEventType { event_type } => {
                write!(
                    f,
                    "directive names the event type `{event_type}`, which there is not"
                )
            }
            SimProblem::EmptySource => write!(f, "directive names an empty source"),
            SimProblem::ProfileOnNonRoute => write!(
                f,
                "directive names a motion profile, but its command walks no route"
            ),
            SimProblem::UnknownFamily { family } => {
                write!(
                    f,
                    "directive names the family `{family}`, which no source uses"
                )
            }
            SimProblem::WrongTarget {
                world_command: true,
            } => f.write_str("a world command given a pedestrian target"),
            SimProblem::WrongTarget {
                world_command: false,
            } => f.write_str("a pedestrian command given the target `World`"),
            SimProblem::OutOfRange { value, .. } => write!(f, "{value} is out of range"),
            SimProblem::UnorderedKeyframe { frame, previous } => write!(
                f,
                "keyframe at frame {frame} does not come after the one at frame {previous}"
            ),
            SimProblem::MissingRoute {
                source_id,
                route,
                known,
            } => write!(
                f,
                "source `{source_id}` names the route `{route}`, which the pedestrian space does \
                 not have (it has: {})",
                listed(known)
            ),
            SimProblem::MissingLane {
                source_id,
                lane,
                known,
            } => write!(
                f,
                "vehicle source `{source_id}` names the lane `{lane}`, which the space does not \
                 have (it has: {})",
                listed(known)
            ),
            SimProblem::DuplicateExit { id } => write!(f, "duplicate exit id `{id}`"),
            SimProblem::UnknownTierPolicy { name, known } => write!(
                f,
                "the tier policy `{name}` does not exist (known: {})",
                quoted(known)
            ),
            SimProblem::TooMany { what } => write!(f, "too many {what} (at most 65535)"),
            SimProblem::OverWork {
                frames,
                per_step,
                work,
                ceiling,
            } => write!(
                f,
                "a run of {frames} frames with up to {per_step} agents and population cycles per \
                 step could take {work} steps of work, over the ceiling of {ceiling}"
            ),
            SimProblem::OverMemory { bytes, budget } => write!(
                f,
                "the scenario could need {} of memory, over the budget of {}",
                mib(*bytes),
                mib(*budget)
            ),
        }
    }
}

impl SimProblem {
    /// What the field should hold instead, in words (a located diagnostic's "expected").
    pub fn expected(&self) -> String {
        match self {
            SimProblem::BadFixedStep { .. } => {
                format!("a step in (0, {MAX_FIXED_STEP_S}] seconds, such as {DEFAULT_FIXED_STEP_S}")
            }
            SimProblem::NonFinite => "a finite number".into(),
            SimProblem::NotPositive { .. } => "a positive number".into(),
            SimProblem::InvertedBox { .. } => "min ≤ max on every axis".into(),
            SimProblem::DuplicateSource { .. } | SimProblem::DuplicateExit { .. } => {
                "each id at most once".into()
            }
            SimProblem::UnknownSource { .. } => "the id of one of the scenario's sources".into(),
            SimProblem::UnknownObserver { .. } => {
                "the id of one of the scenario's observers".into()
            }
            SimProblem::UnknownObject { .. } => {
                "the id of one of the scenario's scene objects".into()
            }
            SimProblem::UnknownObstacle { .. } => {
                "the id of a scene object with a footprint, a barrier, or an obstacle a \
                 `PlaceObstacle` places"
                    .into()
            }
            SimProblem::AuthoredObstacleId { .. } => {
                "an id no scene object or barrier has (remove an authored one with \
                 `RemoveObstacle`)"
                    .into()
            }
            SimProblem::UnknownFamily { .. } => {
                "the family of one of the scenario's sources".into()
            }
            SimProblem::UnknownEventType { .. } => "`threat`, `incident` or empty (any)".into(),
            SimProblem::EmptySource => "a source name (`script` when left out)".into(),
            SimProblem::ProfileOnNonRoute => {
                "no `motion_profile`, or a route command (`Rendezvous`, `RendezvousWith`, `Redirect`, `RedirectTo`, `Escape`)".into()
            }
            SimProblem::WrongTarget {
                world_command: true,
            } => "the target `World`".into(),
            SimProblem::WrongTarget {
                world_command: false,
            } => "a pedestrian target such as `Born(source: …, ordinal: 0)`".into(),
            SimProblem::OutOfRange { range, .. } => (*range).to_owned(),
            SimProblem::UnorderedKeyframe { .. } => "keyframes in ascending frame order".into(),
            SimProblem::MissingRoute { known, .. } => {
                format!("a route of the pedestrian space: {}", listed(known))
            }
            SimProblem::MissingLane { known, .. } => {
                format!("a lane of the street block: {}", listed(known))
            }
            SimProblem::TooMany { what } => format!("at most 65535 {what}"),
            SimProblem::UnknownTierPolicy { known, .. } => format!("one of {}", quoted(known)),
            SimProblem::OverWork { .. } => {
                "a shorter scenario (`duration_frames`), fewer agents or fewer population cycles \
                 per step"
                    .into()
            }
            SimProblem::OverMemory { .. } => {
                "fewer agents (target counts, capacities, the pool) or a shorter scenario, or a \
                 larger memory budget (`--memory-budget-mib`)"
                    .into()
            }
        }
    }
}

/// Bytes in MiB, rounded up (below one MiB in bytes), as the recipe compiler prints its budget.
fn mib(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

/// `known` quoted in backticks and joined with commas.
fn quoted(known: &[String]) -> String {
    let quoted: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    quoted.join(", ")
}

/// `known` joined with commas, or `none`.
fn listed(known: &[String]) -> String {
    if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    }
}

/// One problem at one field of the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct SimDiagnostic {
    /// Where in the scenario document, such as `sources[1].route`.
    pub path: FieldPath,
    /// What is wrong.
    pub problem: SimProblem,
}

impl fmt::Display for SimDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

/// Why a world could not be built: every problem found, in document order.
#[derive(Clone, Debug, PartialEq, Error)]
pub struct SimBuildError {
    /// The id of the scenario.
    pub scenario: String,
    /// The problems, at least one.
    pub diagnostics: Vec<SimDiagnostic>,
}

impl fmt::Display for SimBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "scenario `{}` cannot run: ", self.scenario)?;
        for (index, diagnostic) in self.diagnostics.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}
