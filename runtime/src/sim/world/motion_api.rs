//! The world's motion entry points outside the step: the wall clock, why an agent has its tier,
//! a panic stimulus and a disguise presented now (the rules live in `sim::motion`).

use super::World;
use crate::project::Vec2;
use crate::sim::config::Factions;
use crate::sim::motion::disguise::apply;
use crate::sim::motion::disguise::recognise;
use crate::sim::motion::panic::apply_stimulus;
use crate::sim::motion::tiers::{nearest_view_distance, TierPolicy};
use crate::sim::motion::why::{TierCause, TierWhy};
use crate::sim::observers::Observation;
use crate::sim::state::{AgentId, Recognition};

impl World {
    /// Adds `elapsed_s` of wall-clock time and runs the whole fixed steps it buys (at most
    /// [`MAX_ACCUMULATED_STEPS`](crate::sim::motion::clock::MAX_ACCUMULATED_STEPS)); returns how many ran. The caller reads the clock; the runtime
    /// never does.
    pub fn advance_wall_clock(&mut self, elapsed_s: f64) -> u32 {
        let steps = self.wall_clock.advance(elapsed_s, self.config.fixed_step_s);
        for _ in 0..steps {
            self.step();
        }
        steps
    }

    /// Wall-clock seconds accumulated towards the next step.
    pub fn wall_clock_accumulated_s(&self) -> f64 {
        self.wall_clock.accumulated_s
    }
}

impl World {
    /// The views tiers read at this frame: the camera's when set, else the scenario's.
    pub fn tier_observation(&self) -> Observation {
        let specs = &self.config.scenario.observers;
        match self.camera {
            Some(camera) => camera.observation(specs, self.frame),
            None => Observation::take(specs, &self.pop.observers, self.frame),
        }
    }

    /// Why the live agent `id` has its tier.
    pub fn tier_why(&self, id: AgentId) -> Option<TierWhy> {
        let row = self.row_of_id(id)?;
        let agents = &self.agents;
        let applied = agents.tier[row];
        let observation = self.tier_observation();
        let phase = agents.crosswalk[row].phase;
        let cause = if observation.views.is_empty() {
            TierCause::NoObserver
        } else if phase.forces_full() {
            TierCause::Crossing(phase)
        } else {
            let policy = TierPolicy::of(&self.config.scenario.motion);
            let distance_m = nearest_view_distance(&observation, agents.position[row]);
            let by_distance = policy.by_distance(applied, distance_m);
            let by_relevance = policy.by_relevance(
                agents.relevance[row],
                agents.panic[row],
                agents.compromised[row],
            );
            let outside_ring = self.outside_ring(row);
            let wanted = by_distance.min(by_relevance);
            TierCause::Requested {
                distance_m,
                by_distance,
                by_relevance,
                outside_ring,
                requested: if outside_ring {
                    wanted.demoted()
                } else {
                    wanted
                },
            }
        };
        Some(TierWhy {
            applied,
            cause,
            camera: self.camera.is_some(),
            policy: self.config.scenario.motion.tier_policy,
        })
    }
}

impl World {
    /// Applies a panic stimulus at `center` now (what the `Panic` directive does): see
    /// [`apply_stimulus`]. Returns how many agents panicked.
    pub fn apply_panic(&mut self, center: Vec2, radius_m: f64, strength: f64) -> u32 {
        let config = std::sync::Arc::clone(&self.config);
        apply_stimulus(
            &config,
            (center, radius_m, strength),
            &mut self.agents,
            &mut self.motion.panic,
            (&self.slots, &mut self.events, self.frame),
        )
    }
}

impl World {
    /// A line-of-sight check by the agent in `row` with `factions` of `presented` (what the
    /// `LineOfSight` directive does): the recognition is applied and logged. `None` for a
    /// missing row.
    pub fn line_of_sight(
        &mut self,
        row: usize,
        factions: &Factions,
        presented: &str,
    ) -> Option<Recognition> {
        if row >= self.agents.len() {
            return None;
        }
        let recognition = recognise(factions, presented);
        apply(&mut self.agents, row, recognition);
        let handle = self.slots.handle_of(row);
        let source = Some(self.agents.source[row]);
        self.events.push(
            self.frame,
            crate::sim::state::EventKind::Recognised,
            handle,
            source,
            crate::sim::state::EventDetail::Recognition(recognition),
        );
        Some(recognition)
    }
}
