//! The embedded simulation: a checkpointed [`Timeline`] of the selected scenario's world over
//! the content the generation service made for its recipe, kept in step with the document.
//!
//! The app owns the session (and the [`GenerationService`]); the Viewport, Timeline and
//! Provenance tabs borrow it. [`Session::sync`] takes the service's newest content when it
//! changed, and rebuilds the world when the scenario or the content changed, re-simulating to the
//! frame it was at, so an edit made while paused at frame F shows its effect at F. The session
//! reads the document and never changes it, and never generates: while the service works, the
//! current content stays on show.

pub mod content;
pub mod fixtures;

use std::sync::Arc;

use stagecraft_io::scenario::{compile_profiles, world_with_profiles};
use stagecraft_runtime::project::{MotionProfileDoc, Project, Scenario};
use stagecraft_runtime::sim::motion::clock::WallClock;
use stagecraft_runtime::sim::{CameraObserver, SimSpace, SpaceBuildError, Timeline, World};

use crate::document::Document;
use crate::edits::DocId;
use crate::service::GenerationService;
pub use content::PreviewContent;

/// Most frames one UI frame may simulate during playback, so a slow frame never snowballs.
pub const MAX_STEPS_PER_TICK: u64 = 64;

/// Playback speeds offered, as multiples of real time.
pub const SPEEDS: [f32; 7] = [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// The simulation session of the open document.
pub struct Session {
    scenario_id: Option<String>,
    /// The service version the content was last taken from.
    service_version: Option<u64>,
    /// Whether the service was generating at the last sync.
    generating: bool,
    content: Option<Arc<PreviewContent>>,
    content_version: u64,
    content_problem: Option<String>,
    scenario: Option<Scenario>,
    scenario_version: u64,
    timeline: Option<Timeline>,
    /// The space (or why there is none) and the seed the world was built with.
    world_space: Option<Result<Arc<SimSpace>, SpaceBuildError>>,
    world_seed: u64,
    /// The motion profile documents the world was built with (a change of only a
    /// `*.motion.ron`, edited or reloaded from disk, rebuilds the world).
    world_motions: std::collections::BTreeMap<String, MotionProfileDoc>,
    world_version: u64,
    world_problem: Option<String>,
    /// Whether playback runs.
    pub playing: bool,
    /// Playback speed, a multiple of real time.
    pub speed: f32,
    clock: WallClock,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            scenario_id: None,
            service_version: None,
            generating: false,
            content: None,
            content_version: 0,
            content_problem: None,
            scenario: None,
            scenario_version: 0,
            timeline: None,
            world_space: None,
            world_seed: 0,
            world_motions: Default::default(),
            world_version: 0,
            world_problem: None,
            playing: false,
            speed: 1.0,
            clock: WallClock::default(),
        }
    }
}

impl Session {
    /// The scenario the timeline runs, if any.
    pub fn scenario_id(&self) -> Option<&str> {
        self.scenario_id.as_deref()
    }

    /// Chooses the scenario to run (takes effect at the next [`Session::sync`]).
    pub fn choose_scenario(&mut self, id: &str) {
        if self.scenario_id.as_deref() != Some(id) {
            self.scenario_id = Some(id.to_owned());
            self.timeline = None;
            self.scenario = None;
            self.playing = false;
        }
    }

    /// The scenario as the world was built from it.
    pub fn scenario(&self) -> Option<&Scenario> {
        self.scenario.as_ref()
    }

    /// Bumped whenever the scenario the world runs changes.
    pub fn scenario_version(&self) -> u64 {
        self.scenario_version
    }

    /// Whether content is being generated in the background for the current inputs (the content
    /// on show is then the previous one).
    pub fn is_generating(&self) -> bool {
        self.generating
    }

    /// The generated content, if generation succeeded.
    pub fn content(&self) -> Option<&Arc<PreviewContent>> {
        self.content.as_ref()
    }

    /// Bumped whenever the content is regenerated.
    pub fn content_version(&self) -> u64 {
        self.content_version
    }

    /// The timeline, when a world could be built.
    pub fn timeline(&self) -> Option<&Timeline> {
        self.timeline.as_ref()
    }

    /// The world at the current frame.
    pub fn world(&self) -> Option<&World> {
        self.timeline.as_ref().map(Timeline::world)
    }

    /// Bumped whenever the world is rebuilt (not when it steps).
    pub fn world_version(&self) -> u64 {
        self.world_version
    }

    /// Why there is no content or no world, if so.
    pub fn problem(&self) -> Option<&str> {
        self.content_problem
            .as_deref()
            .or(self.world_problem.as_deref())
    }

    /// The current frame (0 without a world).
    pub fn frame(&self) -> u64 {
        self.timeline.as_ref().map_or(0, Timeline::frame)
    }

    /// The last frame of the scenario (its duration).
    pub fn last_frame(&self) -> u64 {
        self.scenario.as_ref().map_or(0, |s| s.duration_frames)
    }

    /// Brings content and world up to date with `document` and the service's newest content;
    /// returns true when anything changed.
    pub fn sync(&mut self, document: &Document, service: &GenerationService) -> bool {
        self.sync_project(
            document.project(),
            document.selection().doc.as_ref(),
            service,
        )
    }

    /// Follows the selection to a scenario, or to the first scenario when the chosen one is gone.
    pub fn choose_scenario_for(&mut self, project: &Project, selected: Option<&DocId>) {
        if let Some(DocId::Scenario(id)) = selected {
            if project.scenarios.contains_key(id) {
                self.choose_scenario(id);
            }
        }
        let known = self
            .scenario_id
            .as_ref()
            .is_some_and(|id| project.scenarios.contains_key(id));
        if !known {
            let first = project.scenarios.keys().next().cloned();
            if first != self.scenario_id {
                self.scenario_id = first;
                self.timeline = None;
                self.scenario = None;
                self.playing = false;
            }
        }
    }

    /// [`Session::sync`] over a bare project and the selected document.
    pub fn sync_project(
        &mut self,
        project: &Project,
        selected: Option<&DocId>,
        service: &GenerationService,
    ) -> bool {
        self.choose_scenario_for(project, selected);
        let scenario = self
            .scenario_id
            .as_ref()
            .and_then(|id| project.scenarios.get(id));
        let mut changed = self.take_content(service);
        changed |= self.sync_world(project, scenario, changed);
        changed
    }

    /// Takes the service's newest generation if it is new; returns true when the content (or the
    /// reason there is none) changed.
    fn take_content(&mut self, service: &GenerationService) -> bool {
        self.generating = service.is_busy();
        if self.service_version == Some(service.version()) {
            return false;
        }
        self.service_version = Some(service.version());
        let (content, problem) = match service.latest() {
            Some(generation) => (
                generation.content().cloned(),
                service.problem().map(ToString::to_string),
            ),
            None => (None, None),
        };
        let same = match (&self.content, &content) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same && problem == self.content_problem {
            return false;
        }
        self.content = content;
        self.content_problem = problem;
        self.content_version += 1;
        true
    }

    fn sync_world(
        &mut self,
        project: &Project,
        scenario: Option<&Scenario>,
        content_changed: bool,
    ) -> bool {
        let Some(scenario) = scenario else {
            let had = self.timeline.is_some() || self.scenario.is_some();
            self.timeline = None;
            self.scenario = None;
            self.world_problem = None;
            if had {
                self.world_version += 1;
                self.scenario_version += 1;
            }
            return had;
        };
        let motions_changed = self.world_motions != project.motions;
        if !content_changed && !motions_changed && self.scenario.as_ref() == Some(scenario) {
            return false;
        }
        if self.content.is_none() && self.content_problem.is_none() && self.is_generating() {
            // The first content is on its way; the world is built from it when it arrives.
            return false;
        }
        // The runtime builds the space from the bundle; without content the space is empty.
        let space = self
            .content
            .as_ref()
            .map_or_else(|| Ok(SimSpace::default()), |c| c.sim_space())
            .map(Arc::new);
        let seed = project.manifest.root_seed;
        // Regenerated content with the same space (a label edited, say) leaves the world as it is.
        let same_world = self.scenario.as_ref() == Some(scenario)
            && self.world_space.as_ref() == Some(&space)
            && self.world_seed == seed
            && !motions_changed
            && (self.timeline.is_some() || self.world_problem.is_some());
        if same_world {
            return false;
        }
        if self.scenario.as_ref() != Some(scenario) {
            self.scenario = Some(scenario.clone());
            self.scenario_version += 1;
        }
        self.world_version += 1;
        self.world_space = Some(space.clone());
        self.world_seed = seed;
        self.world_motions = project.motions.clone();
        // The one world constructor `stagecraft simulate` and Python's `Simulation` use too.
        let built = space.map_err(|e| e.to_string()).and_then(|space| {
            let profiles = compile_profiles(&project.motions);
            world_with_profiles(&space, scenario, seed, &profiles)
        });
        match built {
            Ok(world) => {
                self.world_problem = None;
                match &mut self.timeline {
                    Some(timeline) => timeline.rebuild(world),
                    None => self.timeline = Some(Timeline::new(world)),
                }
            }
            Err(error) => {
                self.world_problem = Some(error);
                self.timeline = None;
                self.playing = false;
            }
        }
        true
    }

    /// Advances playback by `dt_s` seconds of real time; returns the frames stepped.
    pub fn tick(&mut self, dt_s: f64) -> u64 {
        let Some(timeline) = &mut self.timeline else {
            self.playing = false;
            return 0;
        };
        if !self.playing {
            self.clock = WallClock::default();
            return 0;
        }
        let fixed_step_s = timeline.world().config().fixed_step_s;
        // The runtime's wall-clock accumulator, bounded by this player's per-tick cap (playback
        // may run at a multiple of real time).
        let steps = u64::from(self.clock.advance_bounded(
            dt_s.max(0.0) * f64::from(self.speed),
            fixed_step_s,
            MAX_STEPS_PER_TICK as u32,
        ));
        let last = self
            .scenario
            .as_ref()
            .map_or(u64::MAX, |s| s.duration_frames);
        let steps = steps.min(last.saturating_sub(timeline.frame()));
        timeline.step_n(steps);
        if timeline.frame() >= last {
            self.playing = false;
        }
        steps
    }

    /// Starts or pauses playback (starting again from the beginning at the last frame).
    pub fn toggle_play(&mut self) {
        if !self.playing && self.frame() >= self.last_frame() && self.last_frame() > 0 {
            self.seek(0);
        }
        self.playing = !self.playing && self.timeline.is_some();
    }

    /// Pauses and steps `frames` forward.
    pub fn step(&mut self, frames: u64) {
        self.playing = false;
        if let Some(timeline) = &mut self.timeline {
            timeline.step_n(frames);
        }
    }

    /// Pauses and steps one frame back.
    pub fn step_back(&mut self) {
        self.playing = false;
        if let Some(timeline) = &mut self.timeline {
            timeline.step_back();
        }
    }

    /// Sets (or clears) the Viewport camera as the world's observer (`sim::camera`): switching
    /// it on or off re-simulates the frames shown so far; a camera moved while paused
    /// re-simulates the frame on show from the checkpoint before it; during playback it takes
    /// effect from the next step. Either way the tiers on show follow the camera.
    pub fn set_camera_observer(&mut self, camera: Option<CameraObserver>) {
        let playing = self.playing;
        let Some(timeline) = &mut self.timeline else {
            return;
        };
        let was = timeline.world().camera_observer();
        if was == camera {
            return;
        }
        timeline.set_camera_observer(camera);
        let switched = was.is_some() != camera.is_some()
            || was.map(|c| c.drives_admission) != camera.map(|c| c.drives_admission);
        if switched {
            timeline.replay();
        } else if !playing {
            timeline.resimulate_recent();
        }
    }

    /// Jumps to `frame` (restoring the nearest checkpoint and re-simulating).
    pub fn seek(&mut self, frame: u64) {
        if let Some(timeline) = &mut self.timeline {
            timeline.seek(frame);
        }
    }
}

mod snapshot;

#[cfg(test)]
mod tests;
