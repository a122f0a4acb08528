//! The per-agent crosswalk state machine: Approach → Requested → Waiting → Crossing → Clearing
//! (at 95 %) → Completed → Approach (after leaving the entry range), with everything the
//! machine needs saved on the agent (entry, exit, waiting point, alpha, waiting time, lane,
//! queue slot, completions), so it runs and restores without any presentation.

use crate::project::Vec2;

/// A crosser enters Clearing at this crossing fraction (specification: 95 %).
pub const CLEARING_ALPHA: f64 = 0.95;
/// A controlled walker is at its target within this distance, meters.
pub const AT_TARGET_M: f64 = 0.02;

/// Moves `from` towards `to` by at most `stride_m`; returns the new point.
pub fn step_towards(from: Vec2, to: Vec2, stride_m: f64) -> Vec2 {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let distance = dx.hypot(dy);
    if distance <= stride_m || distance <= AT_TARGET_M {
        return to;
    }
    Vec2 {
        x: from.x + dx / distance * stride_m,
        y: from.y + dy / distance * stride_m,
    }
}

/// Distance between two points, meters.
pub fn distance_m(a: Vec2, b: Vec2) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

/// The point of polyline `points` closest to `p`: `(offset_m, along_m)`, its distance from `p`
/// and its distance along the polyline from the first point (the first segment wins a tie);
/// `None` when no segment has a length.
pub fn closest_on_polyline(points: &[Vec2], p: Vec2) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    let mut start_m = 0.0;
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let length = dx.hypot(dy);
        if length > 0.0 {
            let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / (length * length)).clamp(0.0, 1.0);
            let off = (p.x - a.x - dx * t).hypot(p.y - a.y - dy * t);
            if best.is_none_or(|(d, _)| off < d) {
                best = Some((off, start_m + t * length));
            }
        }
        start_m += length;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::state::{CrosswalkAgent, CrosswalkPhase};

    #[test]
    fn phases_that_force_full_are_the_four_transaction_phases() {
        let forced: Vec<&str> = CrosswalkPhase::ALL
            .iter()
            .filter(|p| p.forces_full())
            .map(|p| p.name())
            .collect();
        assert_eq!(forced, ["requested", "waiting", "crossing", "clearing"]);
        let occupying: Vec<&str> = CrosswalkPhase::ALL
            .iter()
            .filter(|p| p.occupies())
            .map(|p| p.name())
            .collect();
        assert_eq!(occupying, ["crossing", "clearing"]);
    }

    #[test]
    fn alpha_is_the_projection_on_entry_to_exit() {
        let agent = CrosswalkAgent {
            entry: Vec2 { x: 0.0, y: -3.5 },
            exit: Vec2 { x: 0.0, y: 3.5 },
            ..CrosswalkAgent::default()
        };
        assert_eq!(agent.alpha_of(Vec2 { x: 0.3, y: 0.0 }), 0.5);
        assert!((agent.alpha_of(Vec2 { x: 0.0, y: 3.15 }) - 0.95).abs() < 1e-12);
        assert!(agent.alpha_of(Vec2 { x: 0.0, y: -4.25 }) < 0.0);
    }

    #[test]
    fn unbinding_keeps_only_the_completion_count() {
        let mut agent = CrosswalkAgent {
            phase: CrosswalkPhase::Completed,
            crosswalk: 2,
            completed: 3,
            slot: 4,
            ..CrosswalkAgent::default()
        };
        agent.unbind();
        assert_eq!(
            agent,
            CrosswalkAgent {
                completed: 3,
                ..CrosswalkAgent::default()
            }
        );
    }
}
