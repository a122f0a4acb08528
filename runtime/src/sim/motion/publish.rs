//! Incremental Motion Frame publication: the frames of the last step kept between steps, and
//! at every step's end only the rows whose frame can have changed rewritten (`FrameStore`); the
//! per-step scalars every frame shows — the simulation frame index and the updated-this-step
//! flag — are held once per step and joined to each row when a consumer reads it
//! (`MotionFrames`), so a step without motion for a row writes nothing for it.
//!
//! A row is rewritten when the agent was updated this step (its motion, fixed-step count and
//! velocity window change only then), when its row is new (a birth, or the last row moved into a
//! removed one's place — the store mirrors every swap-removal), when one of the narrow columns a
//! frame shows changed (state, tier, kind, pooled, source, flee exit, panic, stuck reason), or
//! when its last frame said it may change without an update: a crosswalk phase other than
//! Approach (the crossings move queued and crossing walkers and end a crossing at the exit), a
//! group still to be assigned, a pooled ped (its velocity window closes without an update), or
//! any state but Walking (travellers, fleers and knocked-down bodies move outside the walkers'
//! update). Frames equal a rebuild from scratch after every step (`frames::rebuilt`; the
//! runtime's own tests check it at every publication).

use std::iter::FusedIterator;
use std::slice;

use super::frames::{Columns, MotionFrame, PublishHints};
use crate::sim::agents::{AgentState, Agents};
use crate::sim::crossings::CrosswalkPhase;

/// The frames of the last publication, one per agent in row order, and what each row's frame
/// was written from.
#[derive(Clone, Debug, Default)]
pub struct FrameStore {
    /// Each row's frame as last written (its `sim_frame` and `updated` are read from the store).
    records: Vec<MotionFrame>,
    /// What each row's frame was written from.
    keys: Vec<RowKey>,
    /// Whether each row was updated in the published step.
    updated: Vec<bool>,
    /// The simulation frame of the published step.
    sim_frame: u64,
    /// Rows the last publication rewrote.
    rewritten: usize,
}

/// The narrow columns a row's frame was written from, and whether it must be rewritten at the
/// next publication whatever they say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RowKey {
    /// State, tier, kind, pooled, source and flee exit, a byte or two each.
    narrow: u64,
    /// Panic level as the frame shows it (`f32` bits).
    panic_bits: u32,
    /// Stuck reason code + 1, 0 when not stuck.
    stuck: u8,
    /// Nonzero: rewrite at the next publication (a computed key always has 0).
    hold: u8,
}

impl RowKey {
    /// The key of a row with no frame yet: never equal to a computed one.
    const STALE: RowKey = RowKey {
        narrow: 0,
        panic_bits: 0,
        stuck: 0,
        hold: 1,
    };

    /// The key of `row` now (`stuck`: whether anyone may be stuck, as the hints say).
    #[inline(always)]
    fn of(columns: &Columns<'_>, row: usize, stuck: bool) -> RowKey {
        let narrow = u64::from(columns.state[row].code())
            | (columns.tier[row] as u64) << 8
            | (columns.kind[row] as u64) << 16
            | u64::from(columns.pooled[row]) << 24
            | u64::from(columns.source[row]) << 32
            | u64::from(columns.flee_exit[row]) << 48;
        let stuck = if stuck {
            columns.liveness[row].stuck.map_or(0, |r| r.code() + 1)
        } else {
            0
        };
        RowKey {
            narrow,
            panic_bits: (columns.panic[row] as f32).to_bits(),
            stuck,
            hold: 0,
        }
    }
}

/// A placeholder frame for a row not yet written (its key is [`RowKey::STALE`]).
fn placeholder() -> MotionFrame {
    MotionFrame {
        id: crate::sim::AgentId::from_bits(u64::MAX),
        location: Default::default(),
        velocity: Default::default(),
        facing: Default::default(),
        route_target: Default::default(),
        behaviour: AgentState::Walking,
        group: None,
        crosswalk: CrosswalkPhase::Approach,
        crosswalk_point: Default::default(),
        animation: Default::default(),
        tier: Default::default(),
        panic: 0.0,
        sim_frame: 0,
        fixed_steps: 0,
        updated: false,
        tags: crate::sim::AgentTags {
            source: 0,
            kind: crate::project::PopulationKind::Ambient,
            pooled: false,
            stuck: None,
            flee_exit: None,
        },
    }
}

impl FrameStore {
    /// Publishes the frames of `agents` at simulation frame `frame`: rows beyond the last
    /// publication are new, and only rows whose frame can have changed are rewritten (see the
    /// module documentation).
    pub(in crate::sim) fn publish(
        &mut self,
        agents: &Agents,
        frame: u64,
        hints: &PublishHints<'_>,
    ) {
        let columns = Columns::of(agents);
        let rows = columns.len();
        if self.records.len() > rows {
            // Rows went without the store following them: nothing kept can be trusted.
            self.invalidate();
        }
        self.records.resize(rows, placeholder());
        self.keys.resize(rows, RowKey::STALE);
        self.updated.clear();
        self.updated.extend_from_slice(columns.updated);
        self.sim_frame = frame;
        let mut rewritten = 0;
        let rows_of = self.keys.iter_mut().zip(self.records.iter_mut());
        for (row, (key, record)) in rows_of.enumerate() {
            let now = RowKey::of(&columns, row, hints.stuck);
            if !columns.updated[row] && *key == now {
                continue;
            }
            let fresh = columns.frame_of(row, frame, hints);
            let hold = fresh.crosswalk != CrosswalkPhase::Approach
                || columns.group_pending(row)
                || fresh.tags.pooled
                || fresh.behaviour != AgentState::Walking;
            *key = RowKey {
                hold: u8::from(hold),
                ..now
            };
            *record = fresh;
            rewritten += 1;
        }
        self.rewritten = rewritten;
    }

    /// Forgets every kept frame: the next publication rewrites every row (after a restore,
    /// which replaces the rows wholesale).
    pub(in crate::sim) fn invalidate(&mut self) {
        self.records.clear();
        self.keys.clear();
    }

    /// Follows the rows when a birth is appended outside a publication: the new rows have no
    /// frame until the next one.
    pub(in crate::sim) fn grow_to(&mut self, rows: usize) {
        if rows > self.records.len() {
            self.records.resize(rows, placeholder());
            self.keys.resize(rows, RowKey::STALE);
            self.updated.resize(rows, false);
        }
    }

    /// Follows the rows when row `row` is swap-removed: the last row's frame takes its place.
    pub(in crate::sim) fn swap_remove(&mut self, row: usize) {
        if row < self.records.len() {
            self.records.swap_remove(row);
            self.keys.swap_remove(row);
        }
        if row < self.updated.len() {
            self.updated.swap_remove(row);
        }
    }

    /// The published frames.
    pub fn frames(&self) -> MotionFrames<'_> {
        MotionFrames {
            records: &self.records,
            updated: &self.updated,
            sim_frame: self.sim_frame,
        }
    }

    /// Rows the last publication rewrote.
    pub fn rewritten(&self) -> usize {
        self.rewritten
    }

    /// Heap bytes of the kept frames and keys (their capacities).
    pub fn heap_bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<MotionFrame>()
            + self.keys.capacity() * std::mem::size_of::<RowKey>()
            + self.updated.capacity()
    }
}

/// The Motion Frames of the last step, one per agent in row order (`World::motion_frames`):
/// frame `row` is the agent of row `row`, and the count is the agent count. Frames are read by
/// value (each joins its row's kept record to the step's frame index and updated flag).
#[derive(Clone, Copy)]
pub struct MotionFrames<'a> {
    records: &'a [MotionFrame],
    updated: &'a [bool],
    sim_frame: u64,
}

impl<'a> MotionFrames<'a> {
    /// Number of frames (the agent count).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are no frames.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The frame of row `row`.
    pub fn get(&self, row: usize) -> Option<MotionFrame> {
        let record = self.records.get(row)?;
        Some(self.join(record, self.updated.get(row).copied().unwrap_or(false)))
    }

    /// The first frame.
    pub fn first(&self) -> Option<MotionFrame> {
        self.get(0)
    }

    /// The last frame.
    pub fn last(&self) -> Option<MotionFrame> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The simulation frame index of the published step.
    pub fn sim_frame(&self) -> u64 {
        self.sim_frame
    }

    /// The frames in row order.
    pub fn iter(&self) -> Frames<'a> {
        Frames {
            records: self.records.iter(),
            updated: self.updated.iter(),
            sim_frame: self.sim_frame,
        }
    }

    /// The frames, copied.
    pub fn to_vec(&self) -> Vec<MotionFrame> {
        self.iter().collect()
    }

    fn join(&self, record: &MotionFrame, updated: bool) -> MotionFrame {
        MotionFrame {
            sim_frame: self.sim_frame,
            updated,
            ..*record
        }
    }
}

impl PartialEq for MotionFrames<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for MotionFrames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for MotionFrames<'a> {
    type Item = MotionFrame;
    type IntoIter = Frames<'a>;

    fn into_iter(self) -> Frames<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &MotionFrames<'a> {
    type Item = MotionFrame;
    type IntoIter = Frames<'a>;

    fn into_iter(self) -> Frames<'a> {
        self.iter()
    }
}

/// The frames of a [`MotionFrames`] in row order, by value.
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    records: slice::Iter<'a, MotionFrame>,
    updated: slice::Iter<'a, bool>,
    sim_frame: u64,
}

impl Frames<'_> {
    fn join(&self, record: &MotionFrame, updated: Option<&bool>) -> MotionFrame {
        MotionFrame {
            sim_frame: self.sim_frame,
            updated: updated.copied().unwrap_or(false),
            ..*record
        }
    }
}

impl Iterator for Frames<'_> {
    type Item = MotionFrame;

    fn next(&mut self) -> Option<MotionFrame> {
        let record = self.records.next()?;
        let updated = self.updated.next();
        Some(self.join(record, updated))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl DoubleEndedIterator for Frames<'_> {
    fn next_back(&mut self) -> Option<MotionFrame> {
        // The two slices have the same length (the store keeps them together).
        let record = self.records.next_back()?;
        let updated = self.updated.next_back();
        Some(self.join(record, updated))
    }
}

impl ExactSizeIterator for Frames<'_> {}

impl FusedIterator for Frames<'_> {}
