//! The neutral progress watch (the `liveness` agent column): every agent's time without
//! progress (a move of [`PROGRESS_M`] from the watch's anchor is progress), the stuck flag and
//! its reason. The crossings' recovery branches (`sim::crossings::stuck`: waiting-window
//! refresh, forced clear) read it; any phase may restart or test it.

use crate::project::Vec2;
use crate::sim::spatial::hypot_at_least;

use super::agents::{AgentState, Agents, Canonical};
use super::crossing::{CrosswalkPhase, SignalPhase};
use super::walking::{CandidateRejection, WaitReason, WalkDecision};

/// Moving this far from the last progress point is progress, meters.
pub const PROGRESS_M: f64 = 0.1;

/// Why an agent made no progress.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
)]
pub enum StuckReason {
    /// Queued at a crosswalk whose signal does not let it cross.
    WaitingForSignal,
    /// Held short of a crosswalk whose queue is full.
    QueueFull,
    /// Another body blocks its way (no room behind a leader, or a body conflict).
    BlockedByBody,
    /// No steering candidate or step is safe for another reason (walkway, blockers, bounds).
    NoSafeStep,
}

impl StuckReason {
    /// Every reason, in code order.
    pub const ALL: [StuckReason; 4] = [
        StuckReason::WaitingForSignal,
        StuckReason::QueueFull,
        StuckReason::BlockedByBody,
        StuckReason::NoSafeStep,
    ];

    /// A stable small number for digests.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A short name for panels and overlays.
    pub fn name(self) -> &'static str {
        match self {
            StuckReason::WaitingForSignal => "waiting for the signal",
            StuckReason::QueueFull => "queue full",
            StuckReason::BlockedByBody => "blocked by a body",
            StuckReason::NoSafeStep => "no safe step",
        }
    }
}

/// One agent's progress watch (the `liveness` agent column).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Liveness {
    /// Where it last made progress, meters.
    pub anchor: Vec2,
    /// Seconds since then.
    pub still_s: f64,
    /// Set once `still_s` passed the stuck threshold; cleared by progress.
    pub stuck: Option<StuckReason>,
}

impl Liveness {
    /// A fresh watch at `p`.
    pub fn at(p: Vec2) -> Liveness {
        Liveness {
            anchor: p,
            still_s: 0.0,
            stuck: None,
        }
    }
}

impl Canonical for Liveness {
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        self.anchor.write_canonical(bytes);
        self.still_s.write_canonical(bytes);
        bytes.push(self.stuck.map_or(u8::MAX, StuckReason::code));
    }
}

/// What one agent's watch concluded this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing new.
    Unchanged,
    /// It just became stuck for this reason.
    Stuck(StuckReason),
    /// A stuck agent moved again.
    Unstuck,
}

/// Advances row `row`'s watch by `dt_s` ([`quiet_watches`] takes runs of unlisted rows whose
/// watch ends unchanged with the same operations). `signal` gives the phase of the signal of the
/// crosswalk it is bound to (if any; asked only when a reason is needed); `occupies` whether
/// its crosswalk phase occupies the crossing; agents that are holding, arrived or pooled are
/// never stuck.
#[inline]
pub fn watch(
    agents: &mut Agents,
    row: usize,
    (dt_s, stuck_after_s): (f64, f64),
    occupies: bool,
    signal: impl FnOnce(&Agents) -> Option<SignalPhase>,
) -> Verdict {
    let here = agents.position[row];
    let idle = is_idle(
        agents.pooled[row],
        agents.state[row],
        agents.walk_decision[row],
        occupies,
    );
    let live = &mut agents.liveness[row];
    if idle || progressed(live, here) {
        let was = live.stuck.take();
        *live = Liveness::at(here);
        return if was.is_some() {
            Verdict::Unstuck
        } else {
            Verdict::Unchanged
        };
    }
    live.still_s += dt_s;
    if live.stuck.is_some() || live.still_s <= stuck_after_s {
        return Verdict::Unchanged;
    }
    let reason = reason_of(agents, row, signal(agents));
    agents.liveness[row].stuck = Some(reason);
    Verdict::Stuck(reason)
}

/// The watches of the unlisted rows of `range` that end [`Verdict::Unchanged`] (see
/// [`watch`]: an unlisted row occupies no crossing), over the columns' slices: a
/// row that is idle or made progress restarts its watch, any other adds `dt_s` while it is
/// already stuck or stays within `stuck_after_s`. Stops, changing nothing of it, at the first
/// row whose watch would report (a stuck row that moves, a row that becomes stuck). Returns
/// that row (the range's end when none) and how many of the rows passed are stuck.
pub fn quiet_watches(
    agents: &mut Agents,
    range: std::ops::Range<usize>,
    dt_s: f64,
    stuck_after_s: f64,
) -> (usize, u64) {
    let start = range.start;
    let columns = WatchColumns {
        position: &agents.position[range.clone()],
        pooled: &agents.pooled[range.clone()],
        state: &agents.state[range.clone()],
        decision: &agents.walk_decision[range.clone()],
    };
    let liveness = &mut agents.liveness[range];
    let (at, stuck) = columns.quiet(liveness, dt_s, stuck_after_s);
    (start + at, stuck)
}

/// The columns a quiet watch reads of a run of rows (slices of the same rows, the run's first
/// row at index 0).
#[derive(Clone, Copy, Debug)]
pub struct WatchColumns<'a> {
    /// Positions.
    pub position: &'a [Vec2],
    /// Pooled flags.
    pub pooled: &'a [bool],
    /// States.
    pub state: &'a [AgentState],
    /// Walk decisions.
    pub decision: &'a [WalkDecision],
}

impl WatchColumns<'_> {
    /// [`quiet_watches`] over these rows and their `liveness` (the same rows): returns the
    /// index of the first row whose watch would report, unchanged (the rows' count when none),
    /// and how many of the rows before it are stuck.
    pub fn quiet(&self, liveness: &mut [Liveness], dt_s: f64, stuck_after_s: f64) -> (usize, u64) {
        let mut stuck = 0u64;
        let rows = self.position.iter().zip(self.pooled);
        let rows = rows.zip(self.state).zip(self.decision);
        for (at, ((((here, pooled), state), decision), live)) in rows.zip(liveness).enumerate() {
            if is_idle(*pooled, *state, *decision, false) || progressed(live, *here) {
                if live.stuck.is_some() {
                    return (at, stuck);
                }
                *live = Liveness::at(*here);
                continue;
            }
            let still_s = live.still_s + dt_s;
            // As `watch` compares (a NaN threshold is never within).
            let within = still_s <= stuck_after_s;
            if live.stuck.is_some() {
                stuck += 1;
            } else if !within {
                return (at, stuck);
            }
            live.still_s = still_s;
        }
        (self.position.len(), stuck)
    }
}

/// Whether a row's watch rests: pooled, holding or arrived (unless its crosswalk phase
/// `occupies` the crossing), or done with its route.
#[inline(always)]
fn is_idle(pooled: bool, state: AgentState, decision: WalkDecision, occupies: bool) -> bool {
    pooled
        || (matches!(state, AgentState::Holding | AgentState::Arrived) && !occupies)
        || decision == WalkDecision::Completed
}

/// Whether `here` is at least [`PROGRESS_M`] from the watch's anchor (`distance_m(here,
/// anchor) >= PROGRESS_M`, exactly).
#[inline(always)]
fn progressed(live: &Liveness, here: Vec2) -> bool {
    hypot_at_least(here.x - live.anchor.x, here.y - live.anchor.y, PROGRESS_M)
}

/// Why row `row` makes no progress.
fn reason_of(agents: &Agents, row: usize, signal: Option<SignalPhase>) -> StuckReason {
    let crossing = agents.crosswalk[row];
    if crossing.held {
        return StuckReason::QueueFull;
    }
    if crossing.phase.demands() && signal != Some(SignalPhase::PedestrianCrossing) {
        return StuckReason::WaitingForSignal;
    }
    match agents.walk_decision[row] {
        WalkDecision::Waiting(WaitReason::NoRoomBehindLeader)
        | WalkDecision::Waiting(WaitReason::NoSafeCandidate(CandidateRejection::BodyConflict))
        | WalkDecision::Waiting(WaitReason::StepRejected(CandidateRejection::BodyConflict)) => {
            StuckReason::BlockedByBody
        }
        _ if crossing.phase == CrosswalkPhase::Waiting => StuckReason::WaitingForSignal,
        _ => StuckReason::NoSafeStep,
    }
}

/// Restarts row `row`'s progress watch where it stands as it commits to a crossing (its stuck
/// flag, if any, stays until it moves): the forced clear measures time without progress since
/// commitment, never the queueing before it.
pub(in crate::sim) fn restart_watch(agents: &mut Agents, row: usize) {
    let live = &mut agents.liveness[row];
    live.anchor = agents.position[row];
    live.still_s = 0.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_watches_leave_every_row_as_watch_does() {
        let mut world = crate::sim::observed_street_world(3_000, 7).expect("world");
        for _ in 0..3 {
            world.step();
        }
        let mut agents = world.agents.clone();
        let (dt_s, stuck_after_s) = (0.05, 15.0);
        // Every kind of row: moved on, still and far from the threshold, still and just below
        // it (becomes stuck), stuck and still, stuck and moved on (unstuck), pooled.
        for row in 0..agents.len() {
            let here = agents.position[row];
            let live = &mut agents.liveness[row];
            let still = |still_s, stuck| Liveness {
                anchor: here,
                still_s,
                stuck,
            };
            *live = match row % 6 {
                0 => Liveness::at(Vec2 {
                    x: here.x + 1.0,
                    y: here.y,
                }),
                1 => still(3.0, None),
                2 => still(stuck_after_s - 0.01, None),
                3 => still(20.0, Some(StuckReason::BlockedByBody)),
                4 => Liveness {
                    stuck: Some(StuckReason::NoSafeStep),
                    ..Liveness::at(Vec2 {
                        x: here.x,
                        y: here.y - 2.0,
                    })
                },
                _ => still(stuck_after_s - 0.01, None),
            };
            if row % 12 == 5 {
                agents.pooled[row] = true;
            }
        }
        let rows = agents.len();
        let mut by_watch = agents.clone();
        let mut stuck_by_watch = 0;
        for row in 0..rows {
            watch(&mut by_watch, row, (dt_s, stuck_after_s), false, |_| None);
            stuck_by_watch += u64::from(by_watch.liveness[row].stuck.is_some());
        }
        // Runs through `quiet_watches`, each row it stops at through `watch`, as the phase does.
        let (mut next, mut stuck_quietly, mut stops) = (0, 0, 0);
        while next < rows {
            let (stop, stuck) = quiet_watches(&mut agents, next..rows, dt_s, stuck_after_s);
            stuck_quietly += stuck;
            if stop == rows {
                break;
            }
            watch(&mut agents, stop, (dt_s, stuck_after_s), false, |_| None);
            stuck_quietly += u64::from(agents.liveness[stop].stuck.is_some());
            stops += 1;
            next = stop + 1;
        }
        assert_eq!(agents.liveness, by_watch.liveness);
        assert_eq!(stuck_quietly, stuck_by_watch);
        // Rows 2 and 4 of every six (and the unpooled 5s) stop the quiet pass; the rest do not.
        assert!(stops > rows / 4 && stops < rows, "{stops} of {rows}");
        assert!(
            stuck_by_watch > rows as u64 / 4,
            "{stuck_by_watch} of {rows}"
        );
    }
}
