//! Motion Frames (motion specification): one read-only record per agent per step, published at the
//! end of the step (after Commit, so a newborn has its frame in the step it is born and a removed
//! agent has none) — what the viewport and every panel read, never the agent columns. Beyond the
//! specification each frame carries the simulation frame index, the agent's fixed-step count and
//! whether it was updated this step, so a consumer can tell fresh data from held data, and the tags
//! a panel needs besides motion (source, kind, pooled, stuck reason, flee exit). Frame count ==
//! agent count after every step, in row order (pooled and skipped agents included).
//!
//! Frames are presentation: vectors are `f32` (world space, meters and meters per second), no
//! simulation decision reads a frame, and nothing in a frame is state (snapshots and the state
//! digest leave the frames out; a restore republishes them from the restored columns).

use crate::project::{PopulationKind, Vec2};
use crate::sim::state::{AgentId, AgentState, Agents, Tier};
use crate::sim::{
    crossings::CrossingIndex,
    state::{CrosswalkAgent, CrosswalkPhase, GroupMember, GroupRole, Liveness, StuckReason},
};

/// Below this speed an agent is not moving, meters per second.
pub const MOVING_SPEED_M_S: f64 = 0.05;
/// Beyond this turn between facing and desired direction an agent is turning, radians.
pub const TURNING_RAD: f32 = 0.1;

/// A ground vector at presentation precision, world space: meters for points, meters per
/// second for velocities, unitless for directions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameVec2 {
    /// X (east).
    pub x: f32,
    /// Y (north).
    pub y: f32,
}

impl FrameVec2 {
    /// `v` rounded to `f32`.
    pub fn of(v: Vec2) -> FrameVec2 {
        FrameVec2 {
            x: v.x as f32,
            y: v.y as f32,
        }
    }

    /// The vector widened to `f64`.
    pub fn to_vec2(self) -> Vec2 {
        Vec2 {
            x: f64::from(self.x),
            y: f64::from(self.y),
        }
    }
}

/// What an animation graph reads (the specification's binding names).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AnimationParams {
    /// Speed, meters per second.
    pub speed_m_s: f32,
    /// Facing yaw around Z, radians (0 along +X).
    pub facing_yaw_rad: f32,
    /// Yaw towards the route target, radians.
    pub desired_yaw_rad: f32,
    /// `desired − facing`, wrapped to (−π, π], radians.
    pub turn_delta_rad: f32,
    /// Whether the agent moves.
    pub moving: bool,
    /// Whether the agent turns.
    pub turning: bool,
}

/// An agent's group membership as a frame shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameGroup {
    /// Birth ordinal of the group's leader within the agent's source (the group's name).
    pub leader_ordinal: u32,
    /// Leader or Follower.
    pub role: GroupRole,
    /// Formation slot, 0 for the leader.
    pub slot: u8,
}

/// What a panel needs to know of an agent besides its motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentTags {
    /// Index of the scenario source the agent belongs to now (a reused ped's new source; its
    /// id keeps the source it was born from).
    pub source: u16,
    /// Ambient or Mission (claimed by a script).
    pub kind: PopulationKind,
    /// In the reuse pool: not a member of any source, not moving.
    pub pooled: bool,
    /// Why the liveness guard flags it stuck, when it does.
    pub stuck: Option<StuckReason>,
    /// The exit a panicked agent flees to (an index of `motion::panic::exits`).
    pub flee_exit: Option<u16>,
}

/// The clip a task ped's motion profile plays (`sim::tasks::gait`), as a frame shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotionClip {
    /// Standing, settled.
    Idle,
    /// The turn clip: rotation without translation.
    Turn,
    /// The start clip.
    Start,
    /// The loop clip (its time is the cycle time).
    Loop,
    /// The goal stop clip, scaled to the remaining route.
    Stop,
    /// The stop clip's tail after a command stop: pose change without translation.
    Hold,
}

impl MotionClip {
    /// The clip's name as panels and exports write it (`idle`, `turn`, `start`, `loop`,
    /// `stop`, `hold`).
    pub fn name(self) -> &'static str {
        match self {
            MotionClip::Idle => "idle",
            MotionClip::Turn => "turn",
            MotionClip::Start => "start",
            MotionClip::Loop => "loop",
            MotionClip::Stop => "stop",
            MotionClip::Hold => "hold",
        }
    }
}

/// Where in its clip a task ped's motion profile is at one step (presentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipFrame {
    /// The clip.
    pub clip: MotionClip,
    /// Progress through the clip, 0..=1 (time over the clip's duration; 0 while idle).
    pub phase: f32,
    /// Time in the clip, seconds (the loop: its cycle time).
    pub time_s: f32,
}

/// One agent's published motion at one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionFrame {
    /// The agent's stable id.
    pub id: AgentId,
    /// Ground position, meters (world space).
    pub location: FrameVec2,
    /// Observed velocity, meters per second (a skipped agent's last one, never a false zero).
    pub velocity: FrameVec2,
    /// Unit facing.
    pub facing: FrameVec2,
    /// Where the agent walks to (its connection's goal, a travel goal or a flee exit).
    pub route_target: FrameVec2,
    /// Behaviour state.
    pub behaviour: AgentState,
    /// Group membership (`None` when alone).
    pub group: Option<FrameGroup>,
    /// Crosswalk phase, for every agent (Approach when not bound).
    pub crosswalk: CrosswalkPhase,
    /// Where the crosswalk sends the agent: its queue slot while Requested or Waiting, the far
    /// kerb while Crossing or Clearing, its location otherwise (meters, world space).
    pub crosswalk_point: FrameVec2,
    /// Animation parameters.
    pub animation: AnimationParams,
    /// Applied tier (presentation tier).
    pub tier: Tier,
    /// Panic level 0..1.
    pub panic: f32,
    /// Simulation frame index of this step.
    pub sim_frame: u64,
    /// The agent's fixed-step count (updates it received).
    pub fixed_steps: u64,
    /// Whether the agent's motion was updated in this step (a newborn's is not).
    pub updated: bool,
    /// Source, kind, pool, stuck flag and flee exit.
    pub tags: AgentTags,
    /// The clip, phase and clip time of a task ped's motion profile (`None` for every other
    /// agent, and for a task ped until the step that installs its task has ended).
    pub clip: Option<ClipFrame>,
}

impl MotionFrame {
    /// A follower's group leader, by id (the leader was born from the same source).
    pub fn group_leader(&self) -> Option<AgentId> {
        let group = self.group?;
        (group.role == GroupRole::Follower).then(|| {
            let source = u16::try_from(self.id.source()).unwrap_or(u16::MAX);
            AgentId::new(source, group.leader_ordinal)
        })
    }
}

/// The agent columns a Motion Frame is made from, sliced to the row count once (so the
/// passes over them index without bounds checks).
pub(in crate::sim) struct Columns<'a> {
    pub(super) id: &'a [u64],
    pub(super) position: &'a [Vec2],
    pub(super) velocity: &'a [Vec2],
    pub(super) facing: &'a [Vec2],
    pub(super) goal: &'a [Vec2],
    pub(super) state: &'a [AgentState],
    pub(super) tier: &'a [Tier],
    pub(super) panic: &'a [f64],
    pub(super) steps: &'a [u64],
    pub(super) updated: &'a [bool],
    pub(super) source: &'a [u16],
    pub(super) kind: &'a [PopulationKind],
    pub(super) pooled: &'a [bool],
    pub(super) flee_exit: &'a [u16],
    pub(super) route: &'a [u16],
    pub(super) crosswalk: &'a [CrosswalkAgent],
    pub(super) group: &'a [GroupMember],
    pub(super) liveness: &'a [Liveness],
}

impl<'a> Columns<'a> {
    /// The columns of `agents`.
    pub(in crate::sim) fn of(agents: &'a Agents) -> Columns<'a> {
        let rows = agents.len();
        Columns {
            id: &agents.id[..rows],
            position: &agents.position[..rows],
            velocity: &agents.velocity_m_s[..rows],
            facing: &agents.facing[..rows],
            goal: &agents.goal[..rows],
            state: &agents.state[..rows],
            tier: &agents.tier[..rows],
            panic: &agents.panic[..rows],
            steps: &agents.steps[..rows],
            updated: &agents.updated[..rows],
            source: &agents.source[..rows],
            kind: &agents.kind[..rows],
            pooled: &agents.pooled[..rows],
            flee_exit: &agents.flee_exit[..rows],
            route: &agents.route[..rows],
            crosswalk: &agents.crosswalk[..rows],
            group: &agents.group[..rows],
            liveness: &agents.liveness[..rows],
        }
    }

    /// Number of rows.
    pub(in crate::sim) fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether the group assignment of `row` is still to be made (the first crossings phase
    /// after a birth makes it, whatever the row's tier).
    pub(super) fn group_pending(&self, row: usize) -> bool {
        !self.group[row].assigned
    }

    /// Whether the agent of `row` may be bound to a crosswalk (its route crosses one, as the
    /// hints' crossing index says; every agent may without the index).
    #[inline(always)]
    pub(super) fn may_bind(&self, row: usize, hints: &PublishHints<'_>) -> bool {
        hints
            .crossings
            .is_none_or(|index| index.route_crosses(self.route[row]))
    }

    /// The Motion Frame of `row` at simulation frame `frame`. Two wide columns are read only
    /// where `hints` says an agent may differ from the default: the crosswalk state of agents
    /// whose route crosses a crosswalk, the liveness watch while anyone is stuck.
    #[inline]
    pub(in crate::sim) fn frame_of(
        &self,
        row: usize,
        frame: u64,
        hints: &PublishHints<'_>,
    ) -> MotionFrame {
        let location = FrameVec2::of(self.position[row]);
        let (crosswalk, crosswalk_point) = if self.may_bind(row, hints) {
            crosswalk_of(&self.crosswalk[row], location)
        } else {
            (CrosswalkPhase::Approach, location)
        };
        let stuck = if hints.stuck {
            self.liveness[row].stuck
        } else {
            None
        };
        let exit = self.flee_exit[row];
        let (position, velocity) = (self.position[row], self.velocity[row]);
        let (facing, goal) = (self.facing[row], self.goal[row]);
        MotionFrame {
            id: AgentId::from_bits(self.id[row]),
            location,
            velocity: FrameVec2::of(velocity),
            facing: FrameVec2::of(facing),
            route_target: FrameVec2::of(goal),
            behaviour: self.state[row],
            group: group_of(&self.group[row]),
            crosswalk,
            crosswalk_point,
            animation: animation(position, velocity, facing, goal),
            tier: self.tier[row],
            panic: self.panic[row] as f32,
            sim_frame: frame,
            fixed_steps: self.steps[row],
            updated: self.updated[row],
            tags: AgentTags {
                source: self.source[row],
                kind: self.kind[row],
                pooled: self.pooled[row],
                stuck,
                flee_exit: (exit != super::panic::NO_EXIT).then_some(exit),
            },
            clip: None,
        }
    }
}

/// The Motion Frames of `agents` at simulation frame `frame` built from scratch, every column
/// read (no hints): one per row, in row order. The reference the incremental publication
/// (`motion::publish`) is tested against, and what a consumer would get from a full rebuild.
pub fn rebuilt(agents: &Agents, frame: u64) -> Vec<MotionFrame> {
    let columns = Columns::of(agents);
    (0..columns.len())
        .map(|row| columns.frame_of(row, frame, &PublishHints::ALL))
        .collect()
}

/// [`rebuilt`] with the task peds' clips (`(row, clip)`, as the world last set them) laid over.
pub fn rebuilt_with_clips(
    agents: &Agents,
    frame: u64,
    clips: &[(u32, ClipFrame)],
) -> Vec<MotionFrame> {
    let mut frames = rebuilt(agents, frame);
    for (row, clip) in clips {
        if let Some(f) = frames.get_mut(*row as usize) {
            f.clip = Some(*clip);
        }
    }
    frames
}

/// Which wide columns publication may skip, and where: a hint only ever skips a read whose
/// value is known to be the column's default.
#[derive(Clone, Copy, Debug)]
pub struct PublishHints<'a> {
    /// The crossing index: an agent binds only to a crosswalk its route crosses
    /// (`crossings::phase::queries_step`), and its route changes only with a whole fresh row, so
    /// an agent on a route that crosses nothing is in Approach. `None` reads every agent's.
    pub crossings: Option<&'a CrossingIndex>,
    /// Whether anyone may be flagged stuck (the liveness guard's count of this step; births are
    /// never stuck and removals only lower it). `false` skips the liveness column.
    pub stuck: bool,
    /// A mark that changes whenever a panic level may have changed: every write of the panic
    /// column (a stimulus, a recognition) logs a `Panicked` or `Recognised` event, so the
    /// newest sequence number of those two kinds. The incremental publication compares panic
    /// levels only when the mark differs from its last one; `None` always compares.
    pub panic_mark: Option<u64>,
}

impl PublishHints<'_> {
    /// Read every column (always right; the hints only save reads).
    pub const ALL: PublishHints<'static> = PublishHints {
        crossings: None,
        stuck: true,
        panic_mark: None,
    };
}

fn crosswalk_of(c: &CrosswalkAgent, location: FrameVec2) -> (CrosswalkPhase, FrameVec2) {
    let point = match c.phase {
        CrosswalkPhase::Requested | CrosswalkPhase::Waiting => FrameVec2::of(c.waiting),
        CrosswalkPhase::Crossing | CrosswalkPhase::Clearing => FrameVec2::of(c.exit),
        CrosswalkPhase::Approach | CrosswalkPhase::Completed => location,
    };
    (c.phase, point)
}

fn group_of(g: &GroupMember) -> Option<FrameGroup> {
    (g.role != GroupRole::Alone).then_some(FrameGroup {
        leader_ordinal: g.leader_ordinal,
        role: g.role,
        slot: g.slot,
    })
}

/// The animation parameters of an agent at `location` with velocity `v`, facing `facing`,
/// walking towards `goal`.
#[inline(always)]
pub(super) fn animation(location: Vec2, v: Vec2, facing: Vec2, goal: Vec2) -> AnimationParams {
    // `sqrt` of the squares, not `hypot`: exact enough for presentation and far cheaper.
    let speed = (v.x * v.x + v.y * v.y).sqrt();
    let facing_yaw = atan2_f32(facing.y as f32, facing.x as f32);
    let (dx, dy) = ((goal.x - location.x) as f32, (goal.y - location.y) as f32);
    // Both computed, one selected: no branch.
    let towards = atan2_f32(dy, dx);
    let desired_yaw = if dx * dx + dy * dy > 1e-8 {
        towards
    } else {
        facing_yaw
    };
    let turn = wrap_pi(desired_yaw - facing_yaw);
    AnimationParams {
        speed_m_s: speed as f32,
        facing_yaw_rad: facing_yaw,
        desired_yaw_rad: desired_yaw,
        turn_delta_rad: turn,
        moving: speed > MOVING_SPEED_M_S,
        turning: turn.abs() > TURNING_RAD,
    }
}

/// `atan2(y, x)` to within about 1e-5 rad, free of branches (every choice is a select) so the
/// animation pass vectorises and publishing 100,000 frames stays fast (a presentation value; no
/// simulation decision reads it). `atan2_f32(0, 0) == 0`.
#[inline(always)]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = if ax > ay { (ay, ax) } else { (ax, ay) };
    // `lo ≤ hi`, so `a` is in [0, 1]; at the origin `lo = hi = 0` and `a = 0`.
    let a = if hi > 0.0 { lo / hi } else { 0.0 };
    let s = a * a;
    // Minimax polynomial of atan on [0, 1].
    let r = ((-0.046_496_475 * s + 0.159_314_22) * s - 0.327_622_77) * s * a + a;
    let r = if ay > ax { FRAC_PI_2 - r } else { r };
    let r = if x < 0.0 { PI - r } else { r };
    if y < 0.0 {
        -r
    } else {
        r
    }
}

#[inline(always)]
fn wrap_pi(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let a = if angle > PI { angle - TAU } else { angle };
    if a <= -PI {
        a + TAU
    } else {
        a
    }
}
