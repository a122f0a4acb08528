//! How well a crowd flows over a window of steps, for the flow benchmark report
//! (`runtime/benches/motion.rs`) and the regression test that keeps stalls from coming back:
//! each walker's net displacement over the window (its speed is that over the window's
//! duration, so sidestepping on the spot earns none), the share that moved less than
//! [`STALLED_BELOW_M`], and the least distance between any two bodies seen at any observed step.
//!
//! A [`FlowWatch`] starts at a world's current state; call [`FlowWatch::observe`] after every
//! step of the window, then [`FlowWatch::report`]. Agents are matched by id, so rows may move;
//! pooled agents and agents born during the window are left out. The watch also tallies each
//! walker's walk decisions step by step, so [`FlowWatch::stall_causes`] says what the stalled
//! walkers decided (which rule refused their steps) over the window.

use super::state::{CandidateRejection, WaitReason, WalkDecision};
use super::world::World;
use crate::project::Vec2;

/// Kinds of walk decision the watch tallies ([`decision_kind`]).
pub const DECISION_KINDS: usize = 25;

/// A walker whose net displacement over the window is below this counts as stalled, meters.
pub const STALLED_BELOW_M: f64 = 1.0;

/// The flow of a crowd over a window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowReport {
    /// Walkers measured (present at the start and at the end of the window).
    pub walkers: usize,
    /// Length of the window, seconds.
    pub duration_s: f64,
    /// Mean over the walkers of net displacement / duration, meters per second.
    pub mean_speed_m_s: f64,
    /// Median of the same, meters per second.
    pub median_speed_m_s: f64,
    /// Share of the walkers whose net displacement is below [`STALLED_BELOW_M`], 0 to 1.
    pub stalled_share: f64,
    /// Share of the walkers whose path (the sum of their steps' lengths, sidesteps and steps
    /// back included) is below [`STALLED_BELOW_M`], 0 to 1: those that did not even shuffle.
    pub still_share: f64,
    /// The least distance between two bodies at the start or after any observed step, meters
    /// (infinite with fewer than two).
    pub min_distance_m: f64,
}

/// Watches a world's crowd over a window of steps.
#[derive(Clone, Debug)]
pub struct FlowWatch {
    /// `(id, position)` at the start, sorted by id.
    start: Vec<(u64, Vec2)>,
    /// Per walker (in `start`'s order), the steps of each decision kind.
    decisions: Vec<[u32; DECISION_KINDS]>,
    /// Per walker (in `start`'s order), where it stood at the last observation and the length
    /// of its path since the start, meters.
    paths: Vec<(Vec2, f64)>,
    start_time_s: f64,
    min_distance_m: f64,
    /// Positions sorted by x (reused from step to step).
    sorted: Vec<Vec2>,
}

impl FlowWatch {
    /// Starts watching `world` at its current state.
    pub fn start(world: &World) -> FlowWatch {
        let agents = &world.agents;
        let mut start: Vec<(u64, Vec2)> = (0..agents.len())
            .filter(|&row| !agents.pooled[row])
            .map(|row| (agents.id[row], agents.position[row]))
            .collect();
        start.sort_by_key(|&(id, _)| id);
        let mut watch = FlowWatch {
            decisions: vec![[0; DECISION_KINDS]; start.len()],
            paths: start.iter().map(|&(_, p)| (p, 0.0)).collect(),
            start,
            start_time_s: world.time_s(),
            min_distance_m: f64::INFINITY,
            sorted: Vec::new(),
        };
        watch.take_least_distance(world);
        watch
    }

    /// Tallies each walker's last decision and step, and takes the least pairwise distance of
    /// the bodies as they stand now (call it once after every step).
    pub fn observe(&mut self, world: &World) {
        let agents = &world.agents;
        for row in (0..agents.len()).filter(|&row| !agents.pooled[row]) {
            if let Ok(k) = self.index_of(agents.id[row]) {
                self.decisions[k][decision_kind(agents.walk_decision[row])] += 1;
                let (last, path_m) = &mut self.paths[k];
                let p = agents.position[row];
                *path_m += (p.x - last.x).hypot(p.y - last.y);
                *last = p;
            }
        }
        self.take_least_distance(world);
    }

    /// Takes the least pairwise distance of the bodies as they stand now.
    fn take_least_distance(&mut self, world: &World) {
        let agents = &world.agents;
        self.sorted.clear();
        self.sorted.extend(
            (0..agents.len())
                .filter(|&row| !agents.pooled[row])
                .map(|row| agents.position[row]),
        );
        let least = least_pairwise_distance_m(&mut self.sorted);
        self.min_distance_m = self.min_distance_m.min(least);
    }

    /// The flow from the start of the watch to `world`'s current state.
    pub fn report(&self, world: &World) -> FlowReport {
        let agents = &world.agents;
        let mut speeds = Vec::with_capacity(self.start.len());
        let duration_s = world.time_s() - self.start_time_s;
        let (mut stalled, mut still) = (0usize, 0usize);
        for row in (0..agents.len()).filter(|&row| !agents.pooled[row]) {
            let Ok(k) = self.index_of(agents.id[row]) else {
                continue;
            };
            let (from, to) = (self.start[k].1, agents.position[row]);
            let moved_m = (to.x - from.x).hypot(to.y - from.y);
            stalled += usize::from(moved_m < STALLED_BELOW_M);
            still += usize::from(self.paths[k].1 < STALLED_BELOW_M);
            speeds.push(if duration_s > 0.0 {
                moved_m / duration_s
            } else {
                0.0
            });
        }
        let walkers = speeds.len();
        speeds.sort_by(f64::total_cmp);
        let mean_speed_m_s = speeds.iter().sum::<f64>() / walkers.max(1) as f64;
        FlowReport {
            walkers,
            duration_s,
            mean_speed_m_s,
            median_speed_m_s: median(&speeds),
            stalled_share: stalled as f64 / walkers.max(1) as f64,
            still_share: still as f64 / walkers.max(1) as f64,
            min_distance_m: self.min_distance_m,
        }
    }
}

impl FlowWatch {
    fn index_of(&self, id: u64) -> Result<usize, usize> {
        self.start.binary_search_by_key(&id, |&(id, _)| id)
    }

    /// What the walkers stalled at `world`'s current state (net displacement below
    /// [`STALLED_BELOW_M`]) decided over the window: steps of each decision kind, summed over
    /// them, with the kind's label, most steps first (kinds never decided left out).
    pub fn stall_causes(&self, world: &World) -> Vec<(&'static str, u64)> {
        let agents = &world.agents;
        let mut steps = [0u64; DECISION_KINDS];
        for row in (0..agents.len()).filter(|&row| !agents.pooled[row]) {
            let Ok(k) = self.index_of(agents.id[row]) else {
                continue;
            };
            let (from, to) = (self.start[k].1, agents.position[row]);
            if (to.x - from.x).hypot(to.y - from.y) < STALLED_BELOW_M {
                for (total, &n) in steps.iter_mut().zip(&self.decisions[k]) {
                    *total += u64::from(n);
                }
            }
        }
        let mut causes: Vec<(&'static str, u64)> = (0..DECISION_KINDS)
            .filter(|&kind| steps[kind] > 0)
            .map(|kind| (DECISION_LABELS[kind], steps[kind]))
            .collect();
        causes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        causes
    }
}

/// The labels of the decision kinds, by [`decision_kind`].
const DECISION_LABELS: [&str; DECISION_KINDS] = [
    "idle",
    "straight",
    "following",
    "steered",
    "turned back",
    "waiting: no budget",
    "waiting: no room behind a leader",
    "",
    "",
    "yielded",
    "completed",
    "no safe candidate, straight refused: off the walkway (corridor)",
    "no safe candidate, straight refused: reverse projection",
    "no safe candidate, straight refused: beyond the end",
    "no safe candidate, straight refused: far from the goal",
    "no safe candidate, straight refused: static blocker",
    "no safe candidate, straight refused: no forward exit",
    "no safe candidate, straight refused: body conflict",
    "step rejected: off the walkway (corridor)",
    "step rejected: reverse projection",
    "step rejected: beyond the end",
    "step rejected: far from the goal",
    "step rejected: static blocker",
    "step rejected: no forward exit",
    "step rejected: body conflict",
];

/// The tally index of a decision: its kind code, the refusal reason spread out for the two
/// waiting kinds that carry one.
pub fn decision_kind(decision: WalkDecision) -> usize {
    let rejection = |r: CandidateRejection| usize::from(r.code()).min(6);
    match decision {
        WalkDecision::Waiting(WaitReason::NoSafeCandidate(r)) => 11 + rejection(r),
        WalkDecision::Waiting(WaitReason::StepRejected(r)) => 18 + rejection(r),
        other => usize::from(other.code().0).min(10),
    }
}

/// The median of sorted `values` (0 when empty).
fn median(values: &[f64]) -> f64 {
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The least distance between two of `points` (infinite with fewer than two), by a sweep
/// along x (`points` is sorted by x in place).
pub fn least_pairwise_distance_m(points: &mut [Vec2]) -> f64 {
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    let mut least = f64::INFINITY;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            if b.x - a.x >= least {
                break;
            }
            least = least.min((b.x - a.x).hypot(b.y - a.y));
        }
    }
    least
}
