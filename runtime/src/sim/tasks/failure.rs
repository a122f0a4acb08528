//! Blocking and failure: a blocked step may wait and a stuck one replans; more than
//! [`MAX_REPLANS`] replans fail the movement; the parent consumes a failure exactly once.

use super::parent::{DirectiveParent, ParentState};
use crate::sim::state::{MoveFailure, ReplanCause};

/// Blocked strictly longer than this triggers a replan, seconds.
pub const BLOCKED_REPLAN_S: f64 = 1.5;
/// No progress towards the current corner strictly longer than this triggers a replan, seconds.
pub const NO_PROGRESS_REPLAN_S: f64 = 2.0;
/// More replans than this fail the movement.
pub const MAX_REPLANS: u32 = 3;

/// Whether the blocking timers call for a replan, and why (blocking is judged first).
pub fn judge(blocked_s: f64, no_progress_s: f64) -> Option<ReplanCause> {
    if blocked_s > BLOCKED_REPLAN_S {
        Some(ReplanCause::Blocked)
    } else if no_progress_s > NO_PROGRESS_REPLAN_S {
        Some(ReplanCause::NoProgress)
    } else {
        None
    }
}

/// The parent consumes a failed child: failure count + 1, the reason kept, → AwaitingDecision.
/// A parent already awaiting a decision (or ended) consumes nothing, so a child that stays
/// Failed over many updates is counted once. Returns whether it was consumed.
pub fn consume(parent: &mut DirectiveParent, why: MoveFailure) -> bool {
    if !matches!(
        parent.state,
        ParentState::Travelling | ParentState::WaitingForSignal
    ) {
        return false;
    }
    parent.failures += 1;
    parent.last_failure = Some(why);
    parent.state = ParentState::AwaitingDecision;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thresholds_are_strict() {
        assert_eq!(judge(1.5, 2.0), None);
        assert_eq!(judge(1.5 + 1e-9, 0.0), Some(ReplanCause::Blocked));
        assert_eq!(judge(0.0, 2.0 + 1e-9), Some(ReplanCause::NoProgress));
        assert_eq!(judge(1.6, 2.1), Some(ReplanCause::Blocked));
    }
}
