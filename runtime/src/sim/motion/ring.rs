//! Out-of-ring demotion, the streaming-crowd seam (crowd specification): every step the loaded ring
//! is planned around each of the scenario's views with the generated streaming plan's profile
//! (cell size, loaded radius), as the streamer plans around the player every tick, and every
//! agent outside the union of those rings has its requested tier lowered one rung (Hero →
//! Medium, Medium → Background) before capacities and transition budgets apply. The cell is the
//! streaming planner's own floor division (`governor::ring_cell`), so the crowd and the streamer
//! agree about which cell an agent stands in.
//!
//! Which agents are outside is world state (ids ascending): an agent that leaves the ring, or
//! comes back into it, is an [`EventKind::Ring`] event with its cell. A crosser forced Full stays
//! Full (forcing overrides the request), so the ring never slows a committed crossing.

use super::super::observers::Observation;
use super::super::space::SimStreaming;
use super::governor::ring_cell;
use crate::content::StreamingCell;
use crate::ops::streaming::{loaded_ring, streaming_cell};
use crate::sim::state::{Agents, Canonical, EventDetail, EventKind, EventLog, Slots, Tier};

/// Which agents were outside the loaded ring at the last step (part of the world state).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RingState {
    /// Ids of the agents outside the loaded ring, ascending.
    pub outside: Vec<u64>,
}

impl RingState {
    /// Whether the outside set is strictly ascending and names only agents of `ids` (a restore
    /// preflight).
    pub fn is_consistent(&self, ids: &[u64]) -> bool {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        self.outside.windows(2).all(|w| w[0] < w[1])
            && self
                .outside
                .iter()
                .all(|id| sorted.binary_search(id).is_ok())
    }
}

impl Canonical for RingState {
    /// Nothing while nobody is outside, so a world without a streaming plan keeps its digest.
    fn write_canonical(&self, bytes: &mut Vec<u8>) {
        if self.outside.is_empty() {
            return;
        }
        bytes.extend_from_slice(b"RING01");
        (self.outside.len() as u64).write_canonical(bytes);
        for id in &self.outside {
            id.write_canonical(bytes);
        }
    }
}

/// This step's ring (derived, rebuilt every step) and the changes waiting to be logged.
#[derive(Clone, Debug, Default)]
pub struct RingScratch {
    /// The loaded cells of this step: the union of every view's ring, sorted row-major.
    pub loaded_cells: Vec<StreamingCell>,
    /// This step's HLOD donut and budget around the views.
    pub hlod: super::hlod::HlodStep,
    /// Rows that left (`true`) or re-entered (`false`) the ring this step, with their cell.
    changes: Vec<(usize, bool, Option<StreamingCell>)>,
    /// The next outside set while it is built.
    next: Vec<u64>,
}

/// The union of the loaded rings of radius `streaming.loaded_radius_cells` around every view's
/// population centre, sorted row-major (a view whose cell or ring cannot be planned adds none).
pub fn loaded_cells(
    streaming: &SimStreaming,
    observation: &Observation,
    out: &mut Vec<StreamingCell>,
) {
    out.clear();
    for view in &observation.views {
        let Ok(center) = streaming_cell(view.center_m[0], view.center_m[1], streaming.cell_size_m)
        else {
            continue;
        };
        if let Ok(ring) = loaded_ring(center, streaming.loaded_radius_cells) {
            out.extend(ring);
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// Plans this step's ring and lowers the request of every agent outside it one rung; pooled
/// peds are detached and never outside. Records who left or re-entered the ring in `scratch`
/// and returns how many requests were lowered (an outside Background agent has no rung to
/// lose and is not counted).
pub fn demote_requests(
    streaming: &SimStreaming,
    observation: &Observation,
    agents: &Agents,
    requested: &mut [Tier],
    state: &mut RingState,
    scratch: &mut RingScratch,
) -> u64 {
    loaded_cells(streaming, observation, &mut scratch.loaded_cells);
    super::hlod::plan_hlod(
        streaming,
        observation,
        &scratch.loaded_cells,
        &mut scratch.hlod,
    );
    scratch.changes.clear();
    scratch.next.clear();
    let mut demoted = 0;
    for row in 0..agents.len() {
        if agents.pooled[row] {
            continue;
        }
        let id = agents.id[row];
        let was_outside = state.outside.binary_search(&id).is_ok();
        let (cell, inside) = ring_cell(
            agents.position[row],
            &scratch.loaded_cells,
            streaming.cell_size_m,
        );
        if !inside {
            scratch.next.push(id);
            if let Some(tier) = requested.get_mut(row) {
                let lowered = tier.demoted();
                demoted += u64::from(lowered != *tier);
                *tier = lowered;
            }
        }
        if inside == was_outside {
            scratch.changes.push((row, !inside, cell));
        }
    }
    scratch.next.sort_unstable();
    std::mem::swap(&mut state.outside, &mut scratch.next);
    demoted
}

/// Logs this step's ring changes as [`EventKind::Ring`] events, in row order (rows are those of
/// the Motion phase: nothing is born or removed before Commit).
pub fn log_changes(
    frame: u64,
    agents: &Agents,
    slots: &Slots,
    events: &mut EventLog,
    scratch: &mut RingScratch,
) {
    for (row, outside, cell) in scratch.changes.drain(..) {
        let source = agents.source.get(row).copied();
        let detail = EventDetail::Ring { outside, cell };
        events.push(frame, EventKind::Ring, slots.handle_of(row), source, detail);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::content::StreamingCell;
    use crate::project::{
        Keyframe, MotionSettings, Observer, PopulationSource, Scenario, Vec2, Vec3,
    };
    use crate::sim::state::Tier;
    use crate::sim::{
        build_world, CompiledScenario, EventDetail, EventKind, SimRoute, SimSpace, SimStreaming,
        World,
    };

    /// The crowd specification's streaming fixture as a world: 50 m cells, a one-cell loaded ring,
    /// the observer at (52.5, −12.5) m (cell (1, −1)) until frame 20, then moving to (402.5, −12.5)
    /// m (cell (8, −1)) by frame 30. Three walkers on a straight route along y = 0: at x = 10 m
    /// (relevance 0.9: Hero), at 400 m (0.9: Hero) and at −310 m (0.5: Medium).
    fn streamed_world() -> World {
        streamed_world_with(96)
    }

    /// [`streamed_world`] with an HLOD ring of radius 2 at 6 MB per cell and `budget_mb`.
    fn streamed_world_with(budget_mb: u64) -> World {
        let route = SimRoute::new(
            "walk",
            vec![Vec2 { x: -1000.0, y: 0.0 }, Vec2 { x: 1000.0, y: 0.0 }],
        )
        .expect("route");
        let mut space = SimSpace::from_routes(vec![route]).expect("space");
        space.streaming = Some(SimStreaming {
            stage: 2,
            cell_size_m: 50.0,
            loaded_radius_cells: 1,
            hlod: crate::sim::space::SimHlod {
                radius_cells: 2,
                mb_per_cell: 6,
                budget_mb,
            },
        });
        let at = |x| Vec3 {
            x,
            y: -12.5,
            z: 10.0,
        };
        let scenario = Scenario {
            id: "ring".into(),
            recipe: "r".into(),
            fixed_step_s: 0.05,
            duration_frames: 100,
            observers: vec![Observer {
                position: at(52.5),
                path: vec![
                    Keyframe {
                        frame: 20,
                        position: at(52.5),
                    },
                    Keyframe {
                        frame: 30,
                        position: at(402.5),
                    },
                ],
                retain_radius_m: 5000.0,
                remove_radius_m: 10_000.0,
                far_m: 10_000.0,
                ..Observer::with_defaults("camera".into())
            }],
            sources: vec![PopulationSource {
                id: "walkers".into(),
                route: "walk".into(),
                target_count: 3,
                ..PopulationSource::default()
            }],
            motion: MotionSettings::default(),
            ..Scenario::default()
        };
        let scenario = Arc::new(CompiledScenario::compile(&scenario).expect("compiles"));
        let mut world = build_world(&Arc::new(space), &scenario, 7).expect("world");
        for (x, relevance) in [(10.0, 0.9), (400.0, 0.9), (-310.0, 0.5)] {
            world
                .place_walker(0, 0, x + 1000.0, 1, 1.2, 0.0)
                .expect("placed");
            let row = world.agents.len() - 1;
            world.agents.relevance[row] = relevance;
        }
        world
    }

    fn ring_events(world: &World) -> Vec<(u64, u32, bool, Option<StreamingCell>)> {
        world
            .events()
            .of_kind(EventKind::Ring)
            .filter_map(|e| match e.detail {
                EventDetail::Ring { outside, cell } => {
                    let row = world.resolve(e.handle?)?;
                    Some((e.frame, world.agents().id[row] as u32, outside, cell))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn exactly_the_two_agents_outside_the_ring_demote_one_rung_in_the_step() {
        let mut world = streamed_world();
        for _ in 0..3 {
            world.step();
        }
        // The specification's ring: 9 cells around (1, −1), the diagonal (0, −2) included.
        let cells = world.loaded_cells();
        assert_eq!(cells.len(), 9);
        assert_eq!(cells.first(), Some(&StreamingCell::new(0, -2)));
        assert_eq!(cells.last(), Some(&StreamingCell::new(2, 0)));
        // Hero inside stays Hero; the far-east Hero is Medium, the far-west Medium Background.
        assert_eq!(
            world.agents().tier,
            vec![Tier::Full, Tier::Simulated, Tier::Stub]
        );
        let counters = world.motion_counters();
        assert_eq!((counters.ring_demotions, counters.outside_ring), (2, 2));
        assert_eq!(world.motion_state().ring.outside, vec![1, 2]);
        assert!(!world.outside_ring(0) && world.outside_ring(1) && world.outside_ring(2));
        // Each agent left the ring once, at the first step, in its own cell.
        assert_eq!(
            ring_events(&world),
            vec![
                (1, 1, true, Some(StreamingCell::new(8, 0))),
                (1, 2, true, Some(StreamingCell::new(-7, 0))),
            ]
        );
    }

    #[test]
    fn the_ring_follows_the_observer_and_logs_who_leaves_and_comes_back() {
        let mut world = streamed_world();
        for _ in 0..40 {
            world.step();
        }
        // The observer now stands in cell (8, −1): the agent near 400 m is back in the ring
        // (Hero again), the one near 10 m has left it (Medium), the far-west one stays out.
        assert_eq!(
            world.loaded_cells().first(),
            Some(&StreamingCell::new(7, -2))
        );
        assert_eq!(
            world.agents().tier,
            vec![Tier::Simulated, Tier::Full, Tier::Stub]
        );
        assert_eq!(world.motion_state().ring.outside, vec![0, 2]);
        assert_eq!(world.motion_counters().ring_demotions, 2);
        let events = ring_events(&world);
        assert_eq!(events.len(), 4, "{events:?}");
        // The ring leaves the agent near 10 m behind at frame 22 (the observer at 122.5 m, in
        // cell 2) and reaches the one near 400 m at frame 29 (367.5 m, cell 7).
        let later: Vec<(u64, u32, bool)> = events[2..].iter().map(|e| (e.0, e.1, e.2)).collect();
        assert_eq!(later, vec![(22, 0, true), (29, 1, false)]);
    }

    #[test]
    fn a_restored_world_continues_the_ring_bit_identically() {
        let mut straight = streamed_world();
        for _ in 0..15 {
            straight.step();
        }
        let snapshot = straight.snapshot();
        let mut restored = straight.clone();
        for _ in 0..25 {
            straight.step();
        }
        restored.restore(&snapshot).expect("restores");
        for _ in 0..25 {
            restored.step();
        }
        assert_eq!(restored.state_digest(), straight.state_digest());
        assert_eq!(restored.loaded_cells(), straight.loaded_cells());
    }

    #[test]
    fn the_hlod_donut_is_the_specifications_16_cells_within_96_mb_around_the_observer() {
        let mut world = streamed_world();
        world.step();
        let hlod = world.hlod_step();
        // Radius 2 around cell (1, −1) less the 3×3 loaded ring: 25 − 9 = 16 cells × 6 MB.
        assert_eq!(hlod.cells.len(), 16);
        assert!(hlod.pruned.is_empty());
        assert_eq!(
            (hlod.requested_mb, hlod.estimated_mb, hlod.budget_mb),
            (96, 96, 96)
        );
        assert!(!hlod.over_budget());
        assert!(hlod
            .cells
            .iter()
            .all(|c| c.chebyshev_distance(StreamingCell::new(1, -1)) == 2));
        let digest = world.state_digest();
        // The donut is derived: another budget changes no state.
        let mut tight = streamed_world_with(24);
        tight.step();
        assert_eq!(tight.state_digest(), digest);
    }

    #[test]
    fn over_budget_the_donut_is_pruned_to_the_nearest_cells_and_says_so() {
        let mut world = streamed_world_with(24);
        world.step();
        let hlod = world.hlod_step().clone();
        assert!(hlod.over_budget());
        // 24 MB / 6 MB = 4 cells: the four axis cells at distance 2, row then column.
        assert_eq!(
            hlod.cells,
            vec![
                StreamingCell::new(1, -3),
                StreamingCell::new(-1, -1),
                StreamingCell::new(3, -1),
                StreamingCell::new(1, 1),
            ]
        );
        assert_eq!(hlod.pruned.len(), 12);
        assert_eq!(
            (hlod.requested_mb, hlod.estimated_mb, hlod.budget_mb),
            (96, 24, 24)
        );
        assert_eq!(hlod.rows()[1], ("hlod pruned", 12.0));
    }

    #[test]
    fn the_hlod_donut_follows_the_observer() {
        let mut world = streamed_world_with(24);
        for _ in 0..40 {
            world.step();
        }
        // The observer stands in cell (8, −1) now: the donut's axis cells are around it.
        assert_eq!(
            world.hlod_step().cells,
            vec![
                StreamingCell::new(8, -3),
                StreamingCell::new(6, -1),
                StreamingCell::new(10, -1),
                StreamingCell::new(8, 1),
            ]
        );
    }

    #[test]
    fn a_snapshot_whose_ring_names_a_missing_agent_is_refused_whole() {
        let mut world = streamed_world();
        for _ in 0..3 {
            world.step();
        }
        let before = world.state_digest();
        let mut snapshot = world.snapshot();
        snapshot.motion_mut().ring.outside.push(99);
        assert!(matches!(
            world.restore(&snapshot),
            Err(crate::sim::SnapshotError::Inconsistent(_))
        ));
        assert_eq!(world.state_digest(), before, "nothing was applied");
    }

    #[test]
    fn the_space_takes_the_generated_plans_cell_size_and_radius() {
        use crate::content::{PointM, Product, StreamingProduct};
        use crate::ops::streaming::{plan_streaming, StreamingProfile};
        let profile = StreamingProfile {
            cell_size_m: 25.0,
            loaded_radius_cells: 2,
            hlod_radius_cells: 3,
            hlod_budget_mb: 96,
            hlod_mb_per_cell: 6,
        };
        let product = Product::StreamingPlan(StreamingProduct {
            cell_size_m: 25.0,
            observer_m: PointM::new(52.5, -12.5),
            plan: plan_streaming(&profile, 52.5, -12.5).expect("plan"),
        });
        let space = SimSpace::from_products([(4, &product)], &Default::default()).expect("space");
        assert_eq!(
            space.streaming,
            Some(SimStreaming {
                stage: 4,
                cell_size_m: 25.0,
                loaded_radius_cells: 2,
                hlod: crate::sim::space::SimHlod {
                    radius_cells: 3,
                    mb_per_cell: 6,
                    budget_mb: 96,
                },
            })
        );
    }

    #[test]
    fn a_world_without_a_streaming_plan_has_nobody_outside() {
        let mut world = super::super::tests::pressure_world(30);
        for _ in 0..5 {
            world.step();
        }
        assert!(world.loaded_cells().is_empty());
        assert!(world.motion_state().ring.outside.is_empty());
        assert_eq!(world.motion_counters().ring_demotions, 0);
        assert_eq!(world.events().of_kind(EventKind::Ring).count(), 0);
    }
}
