//! Per-source population counts per sampled frame, for `stagecraft simulate --json`: a
//! [`SourceSampler`] watches a run step by step (reading the world, changing nothing) and keeps,
//! every `every` frames and at the last one, each source's alive, born, reused, retired,
//! pooled and rejected counts.
//!
//! Memory is bounded like the counter history: past its capacity the sampler keeps every other
//! sample and doubles its interval.

use serde::Serialize;

use crate::sim::state::events::EventKind;
use crate::sim::World;

/// Most samples a sampler keeps by default.
pub const MAX_SOURCE_SAMPLES: usize = 1 << 12;

/// The sources' counts after one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceFrameJson {
    /// The frame (the world's frame after the step).
    pub frame: u64,
    /// One entry per population source, in the scenario's order.
    pub sources: Vec<SourceCountsJson>,
}

/// One source's counts at a frame; `born`, `reused`, `retired` and `rejected` count since the
/// start of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceCountsJson {
    /// The source's id.
    pub id: String,
    /// How many members it aims to keep.
    pub target: u32,
    /// Its attached peds (ambient and mission): alive and in the world.
    pub alive: u64,
    /// Ambient members.
    pub ambient: u64,
    /// Members claimed by a script.
    pub mission: u64,
    /// New peds created.
    pub born: u64,
    /// Pooled peds readmitted.
    pub reused: u64,
    /// Peds retired (into the pool or destroyed).
    pub retired: u64,
    /// Its pool entries.
    pub pooled: u64,
    /// Of which in quarantine.
    pub quarantined: u64,
    /// Whether a demand is pending.
    pub pending: bool,
    /// Candidates and demands refused, every gate.
    pub rejected: u64,
}

/// Watches a run and keeps the sources' counts every `every` frames.
#[derive(Debug, Clone)]
pub struct SourceSampler {
    every: u64,
    capacity: usize,
    /// Retirements per source so far.
    retired: Vec<u64>,
    /// The log's `logged_total` when last observed: events from it on are new.
    next_seq: u64,
    samples: Vec<SourceFrameJson>,
}

impl SourceSampler {
    /// A sampler that keeps a sample every `every_frames` frames (0: only the last frame), at
    /// most `capacity` of them (at least 2), watching a run that starts at `world`.
    pub fn new(every_frames: u64, capacity: usize, world: &World) -> SourceSampler {
        SourceSampler {
            every: every_frames,
            capacity: capacity.max(2),
            retired: vec![0; world.config().sources.len()],
            next_seq: world.events().logged_total(),
            samples: Vec::new(),
        }
    }

    /// Frames between two samples (0: only the last frame); doubles each time the sampler
    /// fills up.
    pub fn every_frames(&self) -> u64 {
        self.every
    }

    /// Observes `world` after one step: counts the step's retirements and takes a sample when
    /// the frame is on the interval.
    pub fn observe(&mut self, world: &World) {
        let log = world.events();
        let new = log
            .of_kind(EventKind::Retired)
            .rev()
            .take_while(|e| e.seq >= self.next_seq);
        for event in new {
            if let Some(count) = event
                .source
                .and_then(|s| self.retired.get_mut(usize::from(s)))
            {
                *count += 1;
            }
        }
        self.next_seq = log.logged_total();
        if self.every > 0 && world.frame().is_multiple_of(self.every) {
            self.sample(world);
            while self.samples.len() > self.capacity {
                self.every = self.every.saturating_mul(2);
                let every = self.every;
                self.samples.retain(|s| s.frame.is_multiple_of(every));
            }
        }
    }

    /// The samples, the last frame's included (taken now if it is not on the interval).
    pub fn finish(mut self, world: &World) -> Vec<SourceFrameJson> {
        if self.samples.last().map(|s| s.frame) != Some(world.frame()) {
            self.sample(world);
        }
        self.samples
    }

    fn sample(&mut self, world: &World) {
        let sources = world
            .source_statuses()
            .into_iter()
            .enumerate()
            .map(|(index, status)| {
                let rejected = world
                    .spawn_report(index)
                    .map_or(0, |r| r.rejections.iter().map(|(_, n)| n).sum());
                SourceCountsJson {
                    id: status.id,
                    target: status.target,
                    alive: status.attached,
                    ambient: status.ambient,
                    mission: status.mission,
                    born: status.created,
                    reused: status.reused,
                    retired: self.retired.get(index).copied().unwrap_or(0),
                    pooled: status.pooled,
                    quarantined: status.quarantined,
                    pending: status.pending.is_some(),
                    rejected,
                }
            })
            .collect();
        self.samples.push(SourceFrameJson {
            frame: world.frame(),
            sources,
        });
    }
}
