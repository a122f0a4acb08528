//! The crossings' recovery branches over the neutral progress watch (`sim::state::liveness`:
//! a move of `PROGRESS_M` from the watch's anchor is progress). Both are abnormal paths, never
//! the normal way through a crossing: each is counted and logged, and both stay zero in the
//! examples.
//!
//! - **Waiting window refresh**: a walker queued at a crosswalk (Requested or Waiting) that
//!   has stood more than [`AT_TARGET_M`](super::crosswalk::AT_TARGET_M) from its waiting point
//!   without progress for [`WINDOW_REFRESH_AFTER_S`] (another body is in its way) gets its
//!   window refreshed: its demand is requested again (Requested, its waiting time kept), its
//!   waiting point becomes the point where it stands (its slot, lane, entry and exit are kept)
//!   and its watch restarts, so it waits there and crosses on its lane at the next walk phase.
//!   A walker at its waiting point is waiting for the signal, which is normal, and is never
//!   refreshed. Counted in `CrossingStats::window_refreshes`, logged as `window refresh`.
//! - **Forced crosswalk clear**: a committed crosser (Crossing or Clearing) without progress
//!   for `forced_clear_after_s` is cleared to its exit (`forced_clears`, `forced clear`). The
//!   watch restarts when a walker commits, so this measures time since commitment, never the
//!   queueing before it.
//!
//! Committed crossers without progress for [`STALLED_AFTER_S`] are counted as stalled each
//! step, with the longest such time so far (`max_no_progress_s`). Any agent without progress
//! for longer than `stuck_after_s` is flagged stuck with its reason, on the agent and in the
//! event log.

use crate::sim::state::{restart_watch, AgentState, Agents, CrosswalkAgent, CrosswalkPhase};

use super::crosswalk::{distance_m, AT_TARGET_M};

/// A committed crosser this long without progress counts as stalled, seconds.
pub const STALLED_AFTER_S: f64 = 1.0;
/// A queued walker this long without progress short of its waiting point has its waiting
/// window refreshed, seconds.
pub const WINDOW_REFRESH_AFTER_S: f64 = 3.0;

/// The waiting-window refresh of row `row` (after its watch): a walker queued (Requested or
/// Waiting) but stalled short of its waiting point for [`WINDOW_REFRESH_AFTER_S`] — another
/// body is in its way — waits where it stands instead. Its demand is requested again (phase
/// Requested, its waiting time kept), its waiting point becomes its position (its queue slot,
/// lane, entry and exit are kept, so it crosses on its lane from there) and its watch restarts.
/// A walker standing at its waiting point is waiting normally and is never refreshed. Returns
/// whether it was refreshed.
pub(super) fn refresh_window(agents: &mut Agents, row: usize) -> bool {
    let c = agents.crosswalk[row];
    let here = agents.position[row];
    if !c.phase.demands()
        || agents.state[row] != AgentState::Walking
        || agents.liveness[row].still_s < WINDOW_REFRESH_AFTER_S
        || distance_m(here, c.waiting) <= AT_TARGET_M
    {
        return false;
    }
    let (dx, dy) = (c.exit.x - c.entry.x, c.exit.y - c.entry.y);
    let length = dx.hypot(dy).max(f64::MIN_POSITIVE);
    agents.crosswalk[row] = CrosswalkAgent {
        phase: CrosswalkPhase::Requested,
        waiting: here,
        // `waiting = entry − direction × queue distance`, still.
        queue_m: ((c.entry.x - here.x) * dx + (c.entry.y - here.y) * dy) / length,
        alpha: c.alpha_of(here),
        ..c
    };
    restart_watch(agents, row);
    true
}
