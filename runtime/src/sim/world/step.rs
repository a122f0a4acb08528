//! One fixed step of a [`World`]: the list of phases, each a function over the sets it reads
//! and changes (built here by the `*_sets!` macros over the world's fields), the configuration
//! only read.

use super::{World, RECENT_CANDIDATES};
use crate::project::PopulationKind;
use crate::sim::config::WorldConfig;
use crate::sim::crossings::{
    crossings_phase, follow_swap_remove, gate::lane_limit_m, liveness_phase, CrossingSets,
    CrossingsState,
};
use crate::sim::motion::ring::log_changes;
use crate::sim::motion::{motion_phase, motion_publish, MotionSets};
use crate::sim::observers::Observation;
use crate::sim::population::{control_phase, population_phase, Sets};
use crate::sim::state::{agents::count_where, AgentState, Vehicles};
use crate::sim::tasks::{self, tasks_phase, Book};

/// The Population and Tasks phases' [`Sets`] over `$world`'s fields at frame `$frame`: the one
/// place a step's sets are built. A macro rather than a method: a method would borrow all of the
/// world, and the callers borrow the fields it leaves out (the panic state, the knockdowns, the
/// configuration) beside it.
macro_rules! phase_sets {
    ($world:ident, $frame:expr) => {
        Sets {
            frame: $frame,
            state: &mut $world.pop,
            agents: &mut $world.agents,
            slots: &mut $world.slots,
            births: &mut $world.births,
            staged: &mut $world.staged,
            events: &mut $world.events,
            counters: &mut $world.counters,
            rejections: &mut $world.last_rejections,
            candidates: &mut $world.last_candidates,
            tasks: &mut $world.tasks,
            signals: &$world.crossings.signals,
            scene: &mut $world.scene,
        }
    };
}

/// The Crossings and liveness phases' [`CrossingSets`] over `$world`'s fields.
macro_rules! crossing_sets {
    ($world:ident) => {
        CrossingSets {
            frame: $world.frame,
            agents: &mut $world.agents,
            state: &mut $world.crossings,
            vehicles: &$world.pop.vehicles,
            slots: &$world.slots,
            births: &$world.births,
            events: &mut $world.events,
            rows: &mut $world.crossing_rows,
            tracked: &mut $world.crossing_rows_tracked,
            marks: &mut $world.crossing_marks,
            index: &$world.built.crossing_index,
        }
    };
}

/// The Motion phase's [`MotionSets`] over `$world`'s fields, with the agents and the crossing
/// rows given (the Crossings sets lend them while they are alive).
macro_rules! motion_sets {
    ($world:ident, $agents:expr, $rows:expr) => {
        MotionSets {
            state: &mut $world.motion,
            walk: &mut $world.walk,
            scratch: &mut $world.motion_scratch,
            agents: $agents,
            crossing_rows: $rows,
        }
    };
}

/// The task movements' [`Book`] over `$world`'s fields.
macro_rules! book {
    ($world:ident) => {
        Book {
            tasks: &mut $world.tasks,
            agents: &mut $world.agents,
            slots: &$world.slots,
            events: &mut $world.events,
            frame: $world.frame,
        }
    };
}

impl World {
    /// Advances one fixed step: Control, Population, Tasks, Crossings, Motion (walking, the
    /// liveness guard, gated vehicles), Commit. Each phase is a
    /// function over the explicit sets it reads and changes; the configuration is only read.
    pub fn step(&mut self) {
        self.step_before_publication();
        // After Commit: this step's births have their frames, its removals have none.
        self.publish_motion_frames();
        self.task_frames.publish(
            &self.tasks,
            &self.agents,
            &self.slots,
            &self.config.scenario.motion.profiles,
            self.config.fixed_step_s,
        );
        let clips = self.task_frames.clips();
        self.motion_scratch.frames.set_clips(clips);
    }

    /// Every phase of a step up to and including Commit (the Motion Frames are published next).
    pub(in crate::sim) fn step_before_publication(&mut self) {
        if self.frame == 0 {
            self.apply_frame_zero_directives();
        }
        self.frame += 1;
        self.last_rejections.clear();
        self.last_candidates.clear();
        let config = &*self.config;
        let paths = &self.built.paths;
        // Control: one observation and one cycle plan for the whole update.
        let (observation, plan) = control_phase(config, self.frame, &mut self.pop);
        let (observation, tier_observation) =
            camera_views(self.camera, config, self.frame, observation);
        let mut sets = phase_sets!(self, self.frame);
        population_phase(config, &observation, plan, &mut sets);
        let (panic, knock) = (&mut self.motion.panic, &mut self.knock);
        tasks_phase(config, paths, &mut sets, panic, knock);
        let mut crossing = crossing_sets!(self);
        // Crossings before walking: a crosser who enters now closes the gate this step.
        crossings_phase(config, &mut crossing);
        let tier_view = tier_observation.as_ref().unwrap_or(&observation);
        let motion = motion_sets!(self, &mut *crossing.agents, crossing.rows.as_slice());
        motion_phase(config, (tier_view, self.scene.current()), motion);
        liveness_phase(config, &mut crossing);
        let ring = &mut self.motion_scratch.ring;
        log_changes(
            self.frame,
            &self.agents,
            &self.slots,
            &mut self.events,
            ring,
        );
        // Task movements after every walker: they read the walkers' grid.
        let obstacles = self.scene.current();
        tasks::motion(config, paths, &mut book!(self), &mut self.walk, obstacles);
        motion_publish(
            config,
            motion_sets!(self, &mut self.agents, &self.crossing_rows),
        );
        self.motion.counters.crosswalk_processed = self.crossings.stats.queries_processed;
        self.motion.counters.crosswalk_deferred = self.crossings.stats.queries_deferred;
        vehicles_phase(config, &self.crossings, &mut self.pop.vehicles);
        self.observation = observation;
        self.remember_candidates();
        commit_phase(self);
    }

    /// The scenario's frame-0 directives, before the first step's control phase (none: nothing
    /// changes, so worlds without any keep their digests).
    fn apply_frame_zero_directives(&mut self) {
        let config = &*self.config;
        if config
            .scenario
            .directives
            .first()
            .is_none_or(|d| d.frame != 0)
        {
            return;
        }
        let mut sets = phase_sets!(self, 0);
        let paths = &self.built.paths;
        tasks::frame_zero_directives(
            config,
            paths,
            &mut sets,
            &mut self.motion.panic,
            &mut self.knock,
        );
    }

    /// Keeps this step's spawn candidates among the last [`RECENT_CANDIDATES`].
    fn remember_candidates(&mut self) {
        for mark in &self.last_candidates {
            self.recent_candidates.push_back((self.frame, *mark));
        }
        while self.recent_candidates.len() > RECENT_CANDIDATES {
            self.recent_candidates.pop_front();
        }
    }
}

/// The views of this step: the editor's camera, when set, replaces the views tiers read (and
/// admission's too when it drives admission); unset, both read the scenario's observation.
/// Returns admission's observation and, when it differs, the tiers'.
fn camera_views(
    camera: Option<crate::sim::camera::CameraObserver>,
    config: &WorldConfig,
    frame: u64,
    observation: Observation,
) -> (Observation, Option<Observation>) {
    match camera {
        None => (observation, None),
        Some(camera) => {
            let seen = camera.observation(&config.scenario.observers, frame);
            if camera.drives_admission {
                (seen, None)
            } else {
                (observation, Some(seen))
            }
        }
    }
}

/// The gated vehicles: each lane's vehicles advance up to the first closed crosswalk gate.
fn vehicles_phase(config: &WorldConfig, crossings: &CrossingsState, vehicles: &mut Vehicles) {
    let (lanes, crosswalks) = (&config.space.lanes, &config.space.crosswalks);
    vehicles.advance(
        &config.vehicle_sources,
        lanes,
        config.fixed_step_s,
        |lane, from_m| {
            lanes.get(lane).map_or(f64::INFINITY, |lane| {
                lane_limit_m(lane, crosswalks, |c| crossings.gate_open(c.signal), from_m)
            })
        },
    );
}
/// Commit: apply the staged births (in slot-allocation order, so each lands on the row its
/// slot names) and removals, then recount the per-frame counters.
fn commit_phase(world: &mut World) {
    for (_, row) in world.staged.births.drain(..) {
        world.agents.push(row);
    }
    // The published frames follow the rows (births appended, removals swapped), so the next
    // publication finds each kept frame on its agent's row.
    let frames = &mut world.motion_scratch.frames;
    frames.grow_to(world.agents.len());
    for handle in std::mem::take(&mut world.staged.removals) {
        if let Ok(row) = world.slots.release(handle) {
            follow_swap_remove(&mut world.crossing_rows, row, world.agents.len() - 1);
            world.agents.swap_remove(row);
            frames.swap_remove(row);
        }
    }
    let agents = &world.agents;
    let pop = &world.pop;
    let counters = &mut world.counters;
    counters.alive = agents.len() as u64;
    // Four counts over the two narrow columns, each vectorised.
    counters.walking = count_where(&agents.state, |s| *s == AgentState::Walking);
    counters.holding = count_where(&agents.state, |s| *s == AgentState::Holding);
    counters.travelling = count_where(&agents.state, |s| *s == AgentState::Travelling);
    counters.mission = count_where(&agents.kind, |k| *k == PopulationKind::Mission);
    counters.pooled = pop.pool.entries.len() as u64;
    counters.pending_demands = pop.sources.iter().filter(|s| s.pending.is_some()).count() as u64;
    counters.ped_cycles = pop.stats.planned_ped_cycles;
    counters.reused = pop.sources.iter().map(|s| s.reused).sum();
    counters.retired = pop.stats.retirements;
    counters.vehicles = pop.vehicles.len() as u64;
}
