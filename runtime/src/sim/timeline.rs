//! A world with checkpoints: step forward, step back and jump to any frame by restoring the
//! nearest checkpoint and re-simulating, bit-identical to stepping straight through. Checkpoints
//! and the counters history are both bounded, however long the run.

use std::collections::BTreeMap;

use super::history::CounterHistory;
use super::motion::MotionCounters;
use super::snapshot::file::{SnapshotFileError, SnapshotHeader};
use super::snapshot::Snapshot;
use super::world::World;
use crate::sim::state::Counters;

/// Frames between checkpoints.
pub const CHECKPOINT_INTERVAL_FRAMES: u64 = 64;

/// Most checkpoints kept; past it, every other one is dropped (the interval doubles), so memory
/// stays bounded however long the run.
pub const MAX_CHECKPOINTS: usize = 64;

/// A world plus its checkpoints and the counters of the simulated frames.
#[derive(Clone, Debug)]
pub struct Timeline {
    world: World,
    checkpoints: BTreeMap<u64, Snapshot>,
    interval: u64,
    /// The counters of the simulated frames, bounded (`MAX_HISTORY_FRAMES`).
    history: CounterHistory,
}

impl Timeline {
    /// A timeline starting at frame 0 of `world`.
    pub fn new(world: World) -> Timeline {
        let mut checkpoints = BTreeMap::new();
        checkpoints.insert(world.frame(), world.snapshot());
        Timeline {
            world,
            checkpoints,
            interval: CHECKPOINT_INTERVAL_FRAMES,
            history: CounterHistory::default(),
        }
    }

    /// The world at the current frame.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The current frame.
    pub fn frame(&self) -> u64 {
        self.world.frame()
    }

    /// `(frame, counters after it)` of the frames simulated so far, ascending: every frame
    /// until [`MAX_HISTORY_FRAMES`], then every [`Timeline::history_stride`]-th.
    ///
    /// [`MAX_HISTORY_FRAMES`]: super::history::MAX_HISTORY_FRAMES
    pub fn history(&self) -> &[(u64, Counters)] {
        self.history.counters()
    }

    /// `(frame, motion counters of it)` for the same frames as [`Timeline::history`].
    pub fn motion_history(&self) -> &[(u64, MotionCounters)] {
        self.history.motion()
    }

    /// Frames between two history entries (1 until the history first fills up).
    pub fn history_stride(&self) -> u64 {
        self.history.stride()
    }

    /// Number of checkpoints held.
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Steps one frame forward, recording a checkpoint on the interval.
    pub fn step(&mut self) {
        self.world.step();
        let frame = self.world.frame();
        self.record(frame);
        if frame.is_multiple_of(self.interval) && !self.checkpoints.contains_key(&frame) {
            self.checkpoints.insert(frame, self.world.snapshot());
            self.thin_out();
        }
    }

    /// Steps `frames` frames forward.
    pub fn step_n(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step();
        }
    }

    /// Steps one frame back (no-op at frame 0).
    pub fn step_back(&mut self) {
        let frame = self.frame();
        if frame > 0 {
            self.seek(frame - 1);
        }
    }

    /// Jumps to `frame`: restores the nearest checkpoint at or before it and re-simulates.
    pub fn seek(&mut self, frame: u64) {
        if frame < self.frame() || !self.has_no_checkpoint_between(frame) {
            if let Some((_, snapshot)) = self.checkpoints.range(..=frame).next_back() {
                let snapshot = snapshot.clone();
                // The snapshot came from this world's own configuration, so restoring it cannot
                // fail; if it somehow did, stepping on from the current state is still correct
                // for forward seeks, and backward seeks keep the current frame.
                if self.world.restore(&snapshot).is_err() {
                    return;
                }
            }
        }
        while self.frame() < frame {
            self.step();
        }
    }

    fn has_no_checkpoint_between(&self, frame: u64) -> bool {
        // An empty range (seeking to the current frame) holds no checkpoint; `range` would panic.
        if frame <= self.frame() {
            return true;
        }
        self.checkpoints
            .range(self.frame() + 1..=frame)
            .next()
            .is_none()
    }

    /// Restores a snapshot file's bytes (`World::restore_bytes`: checked whole, the world
    /// unchanged on error); the checkpoints past its frame are dropped and one is kept at it, so
    /// stepping on continues from the file's state and seeking back re-simulates this
    /// configuration's own run (the same state by determinism).
    pub fn restore_bytes(&mut self, bytes: &[u8]) -> Result<SnapshotHeader, SnapshotFileError> {
        let header = self.world.restore_bytes(bytes)?;
        let frame = self.world.frame();
        self.checkpoints.retain(|at, _| *at <= frame);
        self.checkpoints.insert(frame, self.world.snapshot());
        Ok(header)
    }

    /// Replaces the world (after an edit) and re-simulates to the frame it was at.
    pub fn rebuild(&mut self, world: World) {
        let frame = self.frame();
        let camera = self.world.camera_observer();
        *self = Timeline::new(world);
        self.world.set_camera_observer(camera);
        self.seek(frame);
    }

    /// Sets (or clears) the editor's camera as the world's observer (`sim::camera`): the steps
    /// simulated from now on read it, including the re-simulation of a seek.
    pub fn set_camera_observer(&mut self, camera: Option<super::camera::CameraObserver>) {
        self.world.set_camera_observer(camera);
    }

    /// Re-simulates from frame 0 to the current frame, dropping every later checkpoint: after
    /// the camera observer is set or cleared, so the frames on show (and the ones a seek
    /// restores) follow it.
    pub fn replay(&mut self) {
        let frame = self.frame();
        self.checkpoints.retain(|f, _| *f == 0);
        self.interval = CHECKPOINT_INTERVAL_FRAMES;
        if frame > 0 {
            self.seek(0);
            self.seek(frame);
        }
    }

    /// Re-simulates the current frame from the checkpoint before it (at most a checkpoint
    /// interval of steps): after the camera observer moved while paused, so the frame on show
    /// follows it.
    pub fn resimulate_recent(&mut self) {
        let frame = self.frame();
        if frame > 0 {
            self.seek(frame - 1);
            self.step();
        }
    }

    /// `(frame, crossing sample of it)` for the same frames as [`Timeline::history`].
    pub fn crossing_history(&self) -> &[(u64, super::crossings::CrossingSample)] {
        self.history.crossings()
    }

    /// Records the counters of `frame` in the history (replacing an earlier run's entry).
    fn record(&mut self, frame: u64) {
        self.history
            .record(frame, self.world.counters(), self.world.motion_counters());
        self.history
            .record_crossings(frame, self.world.crossing_sample());
    }

    fn thin_out(&mut self) {
        if self.checkpoints.len() <= MAX_CHECKPOINTS {
            return;
        }
        self.interval *= 2;
        let interval = self.interval;
        self.checkpoints
            .retain(|frame, _| *frame == 0 || frame.is_multiple_of(interval));
    }
}
