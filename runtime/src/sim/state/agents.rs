//! Pedestrians as structure-of-arrays columns keyed by a stable agent id, declared once.

use super::crossing::{CrosswalkAgent, GroupMember};
use super::liveness::Liveness;
use super::tier::Tier;
use super::walking::WalkDecision;
use crate::project::{PopulationKind, Vec2, VehicleRelation};

/// A stable reference to an agent: its slot (see `sim::state::slots`) and the generation of that slot.
///
/// The generation changes when a slot is reused, so a stale handle is detected, never confused
/// with the slot's new occupant.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub struct AgentHandle {
    /// Slot index (not a row: rows move when an agent is removed).
    pub index: u32,
    /// Generation of the slot when the handle was made.
    pub generation: u32,
}

#[cfg(test)]
impl AgentHandle {
    /// The handle of slot `index` in its first generation (for tests).
    pub(crate) fn first(index: u32) -> AgentHandle {
        AgentHandle {
            index,
            generation: 0,
        }
    }
}

/// An agent's stable id: the source it was born from and its birth ordinal within that source,
/// packed as `source << 32 | ordinal` in the agents' `id` column. Code outside the runtime reads
/// it through the accessors, never by shifting bits.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub struct AgentId(u64);

impl AgentId {
    /// The id of the `ordinal`-th agent born from source `source`.
    pub fn new(source: u16, ordinal: u32) -> AgentId {
        AgentId((u64::from(source) << 32) | u64::from(ordinal))
    }

    /// The id stored in the `id` column.
    pub const fn from_bits(bits: u64) -> AgentId {
        AgentId(bits)
    }

    /// The packed value.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Index of the source the agent was born from (in the scenario's source order).
    pub fn source(self) -> usize {
        (self.0 >> 32) as usize
    }

    /// Birth ordinal within the source (0-based).
    pub fn ordinal(self) -> u32 {
        (self.0 & 0xffff_ffff) as u32
    }
}

/// What an agent is doing.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum AgentState {
    /// Walking along its route, turning back at its ends.
    Walking,
    /// Stopped by a `Hold` directive; `Continue` resumes what it did before.
    Holding,
    /// Walking straight to a directive's goal.
    Travelling,
    /// Standing at a reached goal.
    Arrived,
    /// Running away from a threat.
    Fleeing,
    /// Knocked down: physics owns the body (see `sim::knockdown`); no walker moves it, and its
    /// intent waits in the knockdown record until the recovery completes.
    KnockedDown,
    /// Retired into the reuse pool: detached from its source, updates suppressed, no task; it
    /// walks again only when a batch acquires it (its row is then rebuilt).
    Pooled,
}

impl AgentState {
    /// A stable small number for digests and colours.
    pub fn code(self) -> u8 {
        match self {
            AgentState::Walking => 0,
            AgentState::Holding => 1,
            AgentState::Travelling => 2,
            AgentState::Arrived => 3,
            AgentState::Fleeing => 4,
            AgentState::KnockedDown => 5,
            AgentState::Pooled => 6,
        }
    }
}

/// A value's canonical bytes in the state digest: fixed-width little-endian, floats by their bits.
pub trait Canonical {
    /// Appends the value's bytes.
    fn write_canonical(&self, bytes: &mut Vec<u8>);
}

impl Canonical for u64 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Canonical for u32 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Canonical for u16 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Canonical for bool {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(u8::from(*self));
    }
}

impl Canonical for i8 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(*self as u8);
    }
}

impl Canonical for f64 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_bits().to_le_bytes());
    }
}

impl Canonical for Vec2 {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.x.write_canonical(bytes);
        self.y.write_canonical(bytes);
    }
}

impl Canonical for AgentState {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.code());
    }
}

impl Canonical for VehicleRelation {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.code());
    }
}

impl Canonical for PopulationKind {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(*self as u8);
    }
}

impl Canonical for Option<Vec2> {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        match self {
            Some(point) => {
                bytes.push(1);
                point.write_canonical(bytes);
            }
            None => bytes.push(0),
        }
    }
}

impl Canonical for Option<String> {
    /// The text and a terminating zero (no owner writes just the zero).
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(self.as_deref().unwrap_or("").as_bytes());
        bytes.push(0);
    }
}

/// Declares the agent columns once: the [`Agents`] struct of columns, the [`AgentRow`] a birth
/// pushes, and the operations that must visit every column (push, length check, canonical bytes,
/// removal), so a new column cannot be forgotten by any of them. The `canonical` columns are
/// the state: their declaration order is the order of a row's bytes in the state digest. The
/// `derived` columns follow from the canonical ones and the configuration (a snapshot restore
/// checks them); they travel with their row everywhere but are not in the digest.
macro_rules! agent_columns {
    (
        canonical { $($(#[$doc:meta])* $name:ident: $ty:ty,)* }
        derived { $($(#[$ddoc:meta])* $dname:ident: $dty:ty,)* }
    ) => {
        /// The agents of a world, one column per property; row `i` of every column is one agent.
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct Agents {
            $($(#[$doc])* pub $name: Vec<$ty>,)*
            $($(#[$ddoc])* pub $dname: Vec<$dty>,)*
        }

        /// One agent's value of every column: what a birth appends.
        #[derive(Clone, Debug, PartialEq)]
        pub struct AgentRow {
            $($(#[$doc])* pub $name: $ty,)*
            $($(#[$ddoc])* pub $dname: $dty,)*
        }

        impl Agents {
            /// Appends one agent to every column.
            pub fn push(&mut self, row: AgentRow) {
                $(self.$name.push(row.$name);)*
                $(self.$dname.push(row.$dname);)*
            }

            /// Whether every column has as many rows as the id column.
            pub fn columns_agree(&self) -> bool {
                let rows = self.id.len();
                true $(&& self.$name.len() == rows)* $(&& self.$dname.len() == rows)*
            }

            /// Appends the canonical bytes of row `row`, canonical column by column in
            /// declaration order (the derived columns are left out).
            pub fn write_row(&self, row: usize, bytes: &mut Vec<u8>) {
                $(self.$name[row].write_canonical(bytes);)*
            }

            /// Row `row`'s value of every column.
            pub fn row(&self, row: usize) -> AgentRow {
                AgentRow {
                    $($name: self.$name[row].clone(),)*
                    $($dname: self.$dname[row].clone(),)*
                }
            }

            /// Replaces row `row`'s value of every column.
            pub fn set_row(&mut self, row: usize, value: AgentRow) {
                $(self.$name[row] = value.$name;)*
                $(self.$dname[row] = value.$dname;)*
            }

            /// Removes row `row` from every column, moving the last row into its place.
            pub fn swap_remove(&mut self, row: usize) {
                $(self.$name.swap_remove(row);)*
                $(self.$dname.swap_remove(row);)*
            }

            /// Bytes one row takes in the columns (inline sizes; heap text of owners excluded).
            pub fn row_bytes() -> usize {
                0 $(+ std::mem::size_of::<$ty>())* $(+ std::mem::size_of::<$dty>())*
            }

            /// Makes room for `additional` more rows in every column, exactly (no doubling).
            pub fn reserve_exact(&mut self, additional: usize) {
                $(self.$name.reserve_exact(additional);)*
                $(self.$dname.reserve_exact(additional);)*
            }

            /// Heap bytes the columns hold (their capacities × inline sizes).
            pub fn heap_bytes(&self) -> usize {
                0 $(+ self.$name.capacity() * std::mem::size_of::<$ty>())*
                  $(+ self.$dname.capacity() * std::mem::size_of::<$dty>())*
            }
        }
    };
}

agent_columns! {
    canonical {
    /// Stable agent id: `source index << 32 | birth ordinal within the source`.
    id: u64,
    /// Slot generation (see [`AgentHandle`]).
    generation: u32,
    /// Index of the scenario source the agent was born from.
    source: u16,
    /// Index of the route the agent walks.
    route: u16,
    /// Distance along the route, meters.
    distance_m: f64,
    /// Walking speed, meters per second.
    speed_m_s: f64,
    /// Ground position, meters.
    position: Vec2,
    /// Unit facing direction on the ground.
    facing: Vec2,
    /// Safe distance while fleeing, meters.
    safe_distance_m: f64,
    /// +1 walks towards the route's end, −1 towards its start.
    direction: i8,
    /// Where its own path lies across its route: the route's line moved this far to the left
    /// of the route's direction, meters (0 for a population birth, which stands on the line; a
    /// bench placement's lateral offset). Its route corridor is centred on that path.
    path_offset_m: f64,
    /// Current state.
    state: AgentState,
    /// State to resume after a hold.
    resume: AgentState,
    /// Ambient or Mission (claimed by a script).
    kind: PopulationKind,
    /// Goal of `Travelling`, or the threat of `Fleeing`.
    target: Option<Vec2>,
    /// Script owner of a claimed agent.
    owner: Option<String>,
    /// Fixed steps this agent has been updated.
    steps: u64,
    // population lifecycle
    /// In the reuse pool: not a member of any source, not moving, identity kept.
    pooled: bool,
    /// Per-ped multiplier of the removal distances (the source's default on every admission).
    removal_multiplier: f64,
    /// Its vehicle relationship (seated, entering, exiting, intent): any protects the ped from
    /// retirement. Its byte is the former intent flag's for `None` and `Intent`.
    vehicle: VehicleRelation,
    /// The source's generation when the ped was admitted.
    source_generation: u32,
    // walking
    /// Velocity observed over the last completed window (`sim::walk::VELOCITY_WINDOW_S`), m/s.
    velocity_m_s: Vec2,
    /// Position at the start of the current observation window, meters.
    window_origin: Vec2,
    /// Fixed steps into the current observation window.
    window_steps: u32,
    /// What the agent's last Motion phase decided (see `sim::walk`).
    walk_decision: WalkDecision,
    // motion at scale (`sim::motion`)
    /// Stable hash of the id that phases the update cadence (`motion::tiers::stable_hash`).
    schedule_hash: u32,
    /// Applied LOD tier.
    tier: Tier,
    /// Steps since the last motion update: the next update advances `skipped + 1` steps' time.
    skipped_steps: u32,
    /// Whether the agent's motion was updated in the last step.
    updated: bool,
    /// Fan angle of the last avoidance the agent got: its last reliable steering, degrees.
    steer_deg: i8,
    /// The point the agent walked towards at its last update (route goal or travel goal).
    goal: Vec2,
    // crowd (`sim::motion::governor`, `::panic`, `::disguise`)
    /// Relevance 0..1 (scenario default, or set by a directive).
    relevance: f64,
    /// Panic level 0..1.
    panic: f64,
    /// Exit the agent flees to (`motion::panic::NO_EXIT` for none).
    flee_exit: u16,
    /// Whether the agent saw through a presented disguise (a Hostile recognition): it stays alert.
    compromised: bool,
    // crossings
    /// Crosswalk state machine (see `sim::crossings::crosswalk`); its phase forces Full.
    crosswalk: CrosswalkAgent,
    /// Progress watch and stuck flag (see `sim::crossings::stuck`).
    liveness: Liveness,
    /// Group membership (see `sim::crossings::groups`).
    group: GroupMember,
    }
    derived {
    // route points (`sim::routes::RouteTable`)
    /// Index of the route's first point in the flat route-point table (its route's span).
    route_offset: u32,
    /// Number of the route's points in the flat route-point table.
    route_len: u32,
    /// Whether it stops at its route's goal rather than turning back (its source's setting).
    stops_at_route_end: bool,
    }
}

/// How many of `values` satisfy `test`: counted in `u32` runs (a run's count cannot overflow),
/// which the compiler vectorises over narrow columns, then summed.
#[inline]
pub(in crate::sim) fn count_where<T>(values: &[T], test: impl Fn(&T) -> bool) -> u64 {
    values
        .chunks(1 << 20)
        .map(|run| {
            let count: u32 = run.iter().map(|v| u32::from(test(v))).sum();
            u64::from(count)
        })
        .sum()
}

impl Agents {
    /// Number of agents.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// True when there are no agents.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Number of agents in `state`.
    pub fn count_in(&self, state: AgentState) -> u64 {
        self.state.iter().filter(|s| **s == state).count() as u64
    }
}

/// The state a ped takes when its task ends (completed or cancelled) with nothing restored: it
/// is an ordinary ambient ped again, doing what its source's peds do — walking its route on from
/// where it stands, or, for a source whose peds stop at their goal, standing where the task left
/// it — and retires under the normal rules (only an unfinished task protects it).
pub(in crate::sim) fn ambient_state(agents: &Agents, row: usize) -> AgentState {
    if agents.stops_at_route_end[row] {
        AgentState::Arrived
    } else {
        AgentState::Walking
    }
}
