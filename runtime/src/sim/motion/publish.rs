//! Incremental Motion Frame publication: the frames of the last step kept between steps, and
//! at every step's end only the rows whose frame can have changed rewritten (`FrameStore`); the
//! per-step scalars every frame shows — the simulation frame index and the updated-this-step
//! flag — are held once per step and joined to each row when a consumer reads it
//! (`MotionFrames`), so a step without motion for a row writes nothing for it.
//!
//! A row is rewritten when the agent was updated this step (its motion, fixed-step count and
//! velocity window change only then), when its row is new (a birth; the store mirrors every
//! swap-removal, so a moved row keeps its frame), when one of the narrow columns a frame shows
//! changed (state, tier, kind, pooled: one key byte per row), when a panic level changed (compared
//! only in steps after a `Panicked` or `Recognised` event, the only writers of the panic column),
//! when it is stuck, or when its last frame said it may change without an update: a crosswalk
//! phase other than Approach (the crossings move queued and crossing walkers and end a crossing
//! at the exit), a group still to be assigned, a pooled ped (its velocity window closes without
//! an update), a stuck flag, or any state but Walking (travellers, fleers and knocked-down bodies
//! move outside the walkers' update). The source and the flee exit need no key: the source
//! changes only with a readmission (pooled), the flee exit only with the state (Fleeing).
//!
//! Each frame is kept in two parts: its motion (`Moving`, one cache line: location, velocity,
//! facing, route target, animation, fixed steps) and the rest (`Standing`). An updated walker in
//! Approach whose key held rewrites its motion only. Frames equal a rebuild from scratch
//! (`frames::rebuilt`) after every step: the runtime's own tests check it at every publication.
//!
//! A publication marks and rewrites its rows in chunks of at most `PUBLISH_CHUNK_ROWS` on the
//! current rayon pool, sized so the pool's threads get about equal shares (`chunk_rows`): a
//! row's mark and frame read only that row's columns and kept frame, so the chunks are
//! independent and the frames are the same on any number of threads and any chunk size.

use std::iter::FusedIterator;
use std::slice;

use rayon::prelude::*;

use super::frames::{
    animation, AgentTags, AnimationParams, ClipFrame, Columns, FrameGroup, FrameVec2, MotionFrame,
    PublishHints,
};
use crate::project::PopulationKind;
use crate::sim::state::{AgentId, AgentState, Agents, CrosswalkPhase, Tier};

/// The frames of the last publication, one per agent in row order, and what each row's frame
/// was written from. Each frame is kept in two parts: what an update changes (`Moving`, one
/// cache line) and the rest (`Standing`), so an updated walker whose other columns did not
/// change costs one line written.
#[derive(Clone, Debug, Default)]
pub struct FrameStore {
    /// Each row's motion as last written.
    moving: Vec<Moving>,
    /// Each row's identity, tags and crossing as last written.
    standing: Vec<Standing>,
    /// Each row's narrow columns as last written ([`key_of`]), [`HOLD`] set when the row must be
    /// rewritten at the next publication whatever its columns say.
    keys: Vec<u8>,
    /// Each row's panic level as last written.
    panic: Vec<f32>,
    /// Whether each row was updated in the published step.
    updated: Vec<bool>,
    /// The simulation frame of the published step.
    sim_frame: u64,
    /// The panic mark of the last publication (`None`: compare every panic level next time).
    panic_mark: Option<u64>,
    /// Each row's mark in this publication (scratch, see `collect`).
    marks: Vec<u8>,
    /// Rows the last publication rewrote.
    rewritten: usize,
    /// The task peds' clips as the world last set them (`set_clips`), by row, ascending.
    clips: Vec<(u32, ClipFrame)>,
}

/// A row key's bit saying the row must be rewritten at the next publication.
const HOLD: u8 = 0x80;
/// Rows one task of a publication marks and rewrites at most (whole words of eight marks).
const PUBLISH_CHUNK_ROWS: usize = 8192;
/// Rows one task of a publication marks and rewrites at least (fewer rows stay one chunk).
const PUBLISH_CHUNK_MIN_ROWS: usize = 1024;
/// Chunks per pool thread a publication aims at (a few, so a slow thread's share is taken).
const PUBLISH_CHUNKS_PER_THREAD: usize = 4;

/// Rows per chunk of a publication of `rows` rows on `threads` threads: about equal chunks,
/// [`PUBLISH_CHUNKS_PER_THREAD`] per thread, whole words of eight marks, within
/// [`PUBLISH_CHUNK_MIN_ROWS`] and [`PUBLISH_CHUNK_ROWS`] (10,000 rows on 2 threads: seven
/// chunks of 1,256 rows and one of 1,208, where 8,192-row chunks left one thread 1,808 rows).
fn chunk_rows(rows: usize, threads: usize) -> usize {
    let chunks = threads.max(1) * PUBLISH_CHUNKS_PER_THREAD;
    let even = rows.div_ceil(chunks).next_multiple_of(8);
    even.clamp(PUBLISH_CHUNK_MIN_ROWS, PUBLISH_CHUNK_ROWS)
}

/// What an update changes of a frame: one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(64))]
struct Moving {
    location: FrameVec2,
    velocity: FrameVec2,
    facing: FrameVec2,
    route_target: FrameVec2,
    animation: AnimationParams,
    fixed_steps: u64,
}

/// The rest of a frame (its crosswalk point is its location outside a crossing).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Standing {
    id: AgentId,
    crosswalk_point: FrameVec2,
    panic: f32,
    group: Option<FrameGroup>,
    tags: AgentTags,
    behaviour: AgentState,
    tier: Tier,
    crosswalk: CrosswalkPhase,
}

impl Standing {
    /// A row with no frame yet (its key holds it for the next publication).
    const NONE: Standing = Standing {
        id: AgentId::from_bits(u64::MAX),
        crosswalk_point: FrameVec2 { x: 0.0, y: 0.0 },
        panic: 0.0,
        group: None,
        tags: AgentTags {
            source: 0,
            kind: PopulationKind::Ambient,
            pooled: false,
            stuck: None,
            flee_exit: None,
        },
        behaviour: AgentState::Walking,
        tier: Tier::Stub,
        crosswalk: CrosswalkPhase::Approach,
    };
}

/// Whether the crosswalk point of a frame in `phase` is its own (queued or crossing), not the
/// agent's location.
fn own_point(phase: CrosswalkPhase) -> bool {
    matches!(
        phase,
        CrosswalkPhase::Requested
            | CrosswalkPhase::Waiting
            | CrosswalkPhase::Crossing
            | CrosswalkPhase::Clearing
    )
}

/// The frame of a row from its two parts.
#[inline]
fn join(
    moving: &Moving,
    standing: &Standing,
    sim_frame: u64,
    updated: bool,
    clip: Option<ClipFrame>,
) -> MotionFrame {
    MotionFrame {
        id: standing.id,
        location: moving.location,
        velocity: moving.velocity,
        facing: moving.facing,
        route_target: moving.route_target,
        behaviour: standing.behaviour,
        group: standing.group,
        crosswalk: standing.crosswalk,
        crosswalk_point: if own_point(standing.crosswalk) {
            standing.crosswalk_point
        } else {
            moving.location
        },
        animation: moving.animation,
        tier: standing.tier,
        panic: standing.panic,
        sim_frame,
        fixed_steps: moving.fixed_steps,
        updated,
        tags: standing.tags,
        clip,
    }
}

/// A frame in its two parts.
fn split(frame: &MotionFrame) -> (Moving, Standing) {
    (
        Moving {
            location: frame.location,
            velocity: frame.velocity,
            facing: frame.facing,
            route_target: frame.route_target,
            animation: frame.animation,
            fixed_steps: frame.fixed_steps,
        },
        Standing {
            id: frame.id,
            crosswalk_point: frame.crosswalk_point,
            panic: frame.panic,
            group: frame.group,
            tags: frame.tags,
            behaviour: frame.behaviour,
            tier: frame.tier,
            crosswalk: frame.crosswalk,
        },
    )
}

/// The narrow columns of `row` in one byte: state (3 bits), tier (2), kind (1), pooled (1).
#[inline(always)]
fn key_of(columns: &Columns<'_>, row: usize) -> u8 {
    narrow_key(
        columns.state[row],
        columns.tier[row],
        columns.kind[row],
        columns.pooled[row],
    )
}

/// [`key_of`] from the values.
#[inline(always)]
fn narrow_key(state: AgentState, tier: Tier, kind: PopulationKind, pooled: bool) -> u8 {
    // Discriminants (distinct per variant) rather than `code()`: the vectoriser reads them as is.
    state as u8 | (tier as u8) << 3 | (kind as u8) << 5 | u8::from(pooled) << 6
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
        if self.moving.len() > rows {
            // Rows went without the store following them: nothing kept can be trusted.
            self.invalidate();
        }
        self.grow_to(rows);
        self.updated.clear();
        self.updated.extend_from_slice(columns.updated);
        self.sim_frame = frame;
        let panic = self.panic_mark.is_none() || hints.panic_mark != self.panic_mark;
        self.panic_mark = hints.panic_mark;
        self.collect_and_rewrite(&columns, hints, (panic, hints.stuck));
    }

    /// Marks and rewrites the rows whose frame can have changed, in chunks of [`chunk_rows`]
    /// rows on the current pool (a row's frame reads only its own row, so the chunks are
    /// independent and the result is the serial one); counts them.
    fn collect_and_rewrite(
        &mut self,
        columns: &Columns<'_>,
        hints: &PublishHints<'_>,
        (panic, stuck): (bool, bool),
    ) {
        let rows = columns.len();
        self.marks.resize(rows, 0);
        let chunk = chunk_rows(rows, rayon::current_num_threads());
        let kept = self.keys[..rows]
            .par_chunks_mut(chunk)
            .zip(self.panic[..rows].par_chunks_mut(chunk));
        let frames = self.moving[..rows]
            .par_chunks_mut(chunk)
            .zip(self.standing[..rows].par_chunks_mut(chunk));
        let parts = self.marks[..rows]
            .par_chunks_mut(chunk)
            .zip(kept)
            .zip(frames);
        self.rewritten = parts
            .enumerate()
            .map(|(index, ((marks, (keys, levels)), (moving, standing)))| {
                let mut part = Part {
                    marks,
                    kept: Kept {
                        start: index * chunk,
                        keys,
                        levels,
                        moving,
                        standing,
                    },
                };
                part.collect(columns, panic, stuck);
                part.rewrite(columns, hints)
            })
            .sum();
    }

    /// Forgets every kept frame: the next publication rewrites every row (after a restore,
    /// which replaces the rows wholesale).
    pub(in crate::sim) fn invalidate(&mut self) {
        self.moving.clear();
        self.standing.clear();
        self.keys.clear();
        self.panic.clear();
        self.updated.clear();
        self.clips.clear();
        self.panic_mark = None;
    }

    /// Sets the task peds' clips (`(row, clip)`, any order) the frames show until the next
    /// call; the rows follow swap-removals meanwhile.
    pub(in crate::sim) fn set_clips(&mut self, clips: impl IntoIterator<Item = (u32, ClipFrame)>) {
        self.clips.clear();
        self.clips.extend(clips);
        self.clips.sort_unstable_by_key(|(row, _)| *row);
    }

    /// The task peds' clips by row, ascending.
    pub fn clips(&self) -> &[(u32, ClipFrame)] {
        &self.clips
    }

    /// Follows the rows when births are appended: the new rows have no frame until the next
    /// publication.
    pub(in crate::sim) fn grow_to(&mut self, rows: usize) {
        if rows > self.moving.len() {
            self.moving.resize(rows, Moving::default());
            self.standing.resize(rows, Standing::NONE);
            self.keys.resize(rows, HOLD);
            self.panic.resize(rows, 0.0);
            self.updated.resize(rows, false);
        }
    }

    /// Follows the rows when row `row` is swap-removed: the last row's frame takes its place.
    pub(in crate::sim) fn swap_remove(&mut self, row: usize) {
        if row < self.moving.len() {
            self.moving.swap_remove(row);
            self.standing.swap_remove(row);
            self.keys.swap_remove(row);
            self.panic.swap_remove(row);
            self.updated.swap_remove(row);
            let last = self.moving.len() as u32;
            self.clips.retain(|(r, _)| *r as usize != row);
            if let Some(entry) = self.clips.iter_mut().find(|(r, _)| *r == last) {
                entry.0 = row as u32;
                self.clips.sort_unstable_by_key(|(r, _)| *r);
            }
        }
    }

    /// The published frames.
    pub fn frames(&self) -> MotionFrames<'_> {
        MotionFrames {
            moving: &self.moving,
            standing: &self.standing,
            updated: &self.updated,
            sim_frame: self.sim_frame,
            clips: &self.clips,
        }
    }

    /// Rows the last publication rewrote.
    pub fn rewritten(&self) -> usize {
        self.rewritten
    }

    /// Heap bytes of the kept frames and keys (their capacities).
    pub fn heap_bytes(&self) -> usize {
        self.moving.capacity() * std::mem::size_of::<Moving>()
            + self.standing.capacity() * std::mem::size_of::<Standing>()
            + self.keys.capacity()
            + self.panic.capacity() * std::mem::size_of::<f32>()
            + self.updated.capacity()
            + self.marks.capacity()
            + self.clips.capacity() * std::mem::size_of::<(u32, ClipFrame)>()
    }
}

/// One chunk of a publication: rows `start..start + marks.len()` of the store's columns.
struct Part<'s> {
    /// Each row's mark in this publication (bit 0: updated, bit 1: whole).
    marks: &'s mut [u8],
    kept: Kept<'s>,
}

/// What a publication keeps of the rows `start..start + keys.len()`.
struct Kept<'s> {
    start: usize,
    keys: &'s mut [u8],
    levels: &'s mut [f32],
    moving: &'s mut [Moving],
    standing: &'s mut [Standing],
}

impl Part<'_> {
    /// Marks the rows to rewrite: updated rows (bit 0: motion only, unless more changed) and
    /// rows whose key changed or is held (bit 1: whole); with `panic`, rows whose panic level
    /// changed; with `stuck`, stuck rows; in passes over whole columns the compiler vectorises.
    fn collect(&mut self, columns: &Columns<'_>, panic: bool, stuck: bool) {
        let rows = self.kept.start..self.kept.start + self.marks.len();
        let narrow = columns.state[rows.clone()]
            .iter()
            .zip(&columns.tier[rows.clone()])
            .zip(&columns.kind[rows.clone()]);
        let rest = columns.pooled[rows.clone()]
            .iter()
            .zip(&columns.updated[rows.clone()]);
        let kept = self.marks.iter_mut().zip(self.kept.keys.iter());
        for ((((state, tier), kind), (pooled, updated)), (mark, key)) in narrow.zip(rest).zip(kept)
        {
            let now = narrow_key(*state, *tier, *kind, *pooled);
            *mark = u8::from(*key != now) << 1 | u8::from(*updated);
        }
        if panic {
            let levels = columns.panic[rows.clone()]
                .iter()
                .zip(self.kept.levels.iter());
            for (mark, (level, kept)) in self.marks.iter_mut().zip(levels) {
                *mark |= u8::from((*level as f32).to_bits() != kept.to_bits()) << 1;
            }
        }
        if stuck {
            for (mark, watch) in self.marks.iter_mut().zip(&columns.liveness[rows]) {
                *mark |= u8::from(watch.stuck.is_some()) << 1;
            }
        }
    }

    /// Rewrites the marked rows (gathered eight marks at a time): an updated row whose key held
    /// and which is still in Approach gets its motion, any other its whole frame. Returns how
    /// many it rewrote.
    fn rewrite(&mut self, columns: &Columns<'_>, hints: &PublishHints<'_>) -> usize {
        let (marks, kept) = (&*self.marks, &mut self.kept);
        let mut rewritten = 0;
        let mut chunks = marks.chunks_exact(8);
        for (chunk_index, chunk) in chunks.by_ref().enumerate() {
            let mut word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            while word != 0 {
                let byte = word.trailing_zeros() / 8;
                let local = chunk_index * 8 + byte as usize;
                let whole = (word >> (byte * 8)) & 2 != 0;
                kept.rewrite_row(columns, hints, local, whole);
                rewritten += 1;
                word &= !(0xff << (byte * 8));
            }
        }
        let tail = marks.len() - chunks.remainder().len();
        for (offset, mark) in chunks.remainder().iter().enumerate() {
            if *mark != 0 {
                kept.rewrite_row(columns, hints, tail + offset, *mark & 2 != 0);
                rewritten += 1;
            }
        }
        rewritten
    }
}

impl Kept<'_> {
    /// Rewrites the part's row `local`: its motion only, or (`whole`, or a row that may bind
    /// outside Approach) its whole frame.
    #[inline]
    fn rewrite_row(
        &mut self,
        columns: &Columns<'_>,
        hints: &PublishHints<'_>,
        local: usize,
        whole: bool,
    ) {
        let row = self.start + local;
        let crossing = columns.may_bind(row, hints)
            && columns.crosswalk[row].phase != CrosswalkPhase::Approach;
        if !(whole || crossing) {
            self.moving[local] = motion_of(columns, row);
            return;
        }
        let fresh = columns.frame_of(row, 0, hints);
        let hold = fresh.crosswalk != CrosswalkPhase::Approach
            || columns.group_pending(row)
            || fresh.tags.pooled
            || fresh.tags.stuck.is_some()
            || fresh.behaviour != AgentState::Walking;
        self.keys[local] = key_of(columns, row) | if hold { HOLD } else { 0 };
        self.levels[local] = fresh.panic;
        (self.moving[local], self.standing[local]) = split(&fresh);
    }
}

/// The motion part of row `row`'s frame (the columns an update changes).
#[inline]
fn motion_of(columns: &Columns<'_>, row: usize) -> Moving {
    let (position, velocity) = (columns.position[row], columns.velocity[row]);
    let (facing, goal) = (columns.facing[row], columns.goal[row]);
    Moving {
        location: FrameVec2::of(position),
        velocity: FrameVec2::of(velocity),
        facing: FrameVec2::of(facing),
        route_target: FrameVec2::of(goal),
        animation: animation(position, velocity, facing, goal),
        fixed_steps: columns.steps[row],
    }
}

/// The Motion Frames of the last step, one per agent in row order (`World::motion_frames`):
/// frame `row` is the agent of row `row`, and the count is the agent count. Frames are read by
/// value (each joins its row's kept parts to the step's frame index and updated flag).
#[derive(Clone, Copy)]
pub struct MotionFrames<'a> {
    moving: &'a [Moving],
    standing: &'a [Standing],
    updated: &'a [bool],
    sim_frame: u64,
    clips: &'a [(u32, ClipFrame)],
}

impl<'a> MotionFrames<'a> {
    /// Number of frames (the agent count).
    pub fn len(&self) -> usize {
        self.moving.len()
    }

    /// Whether there are no frames.
    pub fn is_empty(&self) -> bool {
        self.moving.is_empty()
    }

    /// The frame of row `row`.
    pub fn get(&self, row: usize) -> Option<MotionFrame> {
        Some(join(
            self.moving.get(row)?,
            self.standing.get(row)?,
            self.sim_frame,
            self.updated.get(row).copied().unwrap_or(false),
            self.clip(row),
        ))
    }

    /// The clip of row `row`, when it is a task ped's.
    pub fn clip(&self, row: usize) -> Option<ClipFrame> {
        let at = self
            .clips
            .binary_search_by_key(&row, |(r, _)| *r as usize)
            .ok()?;
        Some(self.clips[at].1)
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
            moving: self.moving.iter(),
            standing: self.standing.iter(),
            updated: self.updated.iter(),
            sim_frame: self.sim_frame,
            clips: self.clips,
            front: 0,
            back: self.moving.len(),
        }
    }

    /// The frames, copied.
    pub fn to_vec(&self) -> Vec<MotionFrame> {
        self.iter().collect()
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
    moving: slice::Iter<'a, Moving>,
    standing: slice::Iter<'a, Standing>,
    updated: slice::Iter<'a, bool>,
    sim_frame: u64,
    /// The clips of the rows not yet yielded, ascending by row.
    clips: &'a [(u32, ClipFrame)],
    /// The next row from the front.
    front: usize,
    /// One past the next row from the back.
    back: usize,
}

// The store keeps its parts the same length, so the three iterators end together.
impl Iterator for Frames<'_> {
    type Item = MotionFrame;

    fn next(&mut self) -> Option<MotionFrame> {
        let (moving, standing) = (self.moving.next()?, self.standing.next()?);
        let updated = self.updated.next().copied().unwrap_or(false);
        let row = self.front;
        self.front += 1;
        let clip = match self.clips.split_first() {
            Some(((r, clip), rest)) if *r as usize == row => {
                self.clips = rest;
                Some(*clip)
            }
            _ => None,
        };
        Some(join(moving, standing, self.sim_frame, updated, clip))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.moving.size_hint()
    }
}

impl DoubleEndedIterator for Frames<'_> {
    fn next_back(&mut self) -> Option<MotionFrame> {
        let (moving, standing) = (self.moving.next_back()?, self.standing.next_back()?);
        let updated = self.updated.next_back().copied().unwrap_or(false);
        self.back -= 1;
        let clip = match self.clips.split_last() {
            Some(((r, clip), rest)) if *r as usize == self.back => {
                self.clips = rest;
                Some(*clip)
            }
            _ => None,
        };
        Some(join(moving, standing, self.sim_frame, updated, clip))
    }
}

impl ExactSizeIterator for Frames<'_> {}

impl FusedIterator for Frames<'_> {}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::frames::rebuilt;
    use crate::ops::street_block::{build_street_block, StreetBlockParams};
    use crate::project::{PopulationKind, Vec2};
    use crate::sim::config::Factions;
    use crate::sim::config::{
        Command, CompiledScenario, DirectiveSpec, DirectiveTarget, ObserverKey, ObserverSpec,
        SourceSpec,
    };
    use crate::sim::crossings::CrosswalkPhase;

    use crate::sim::state::{Recognition, Tier};
    use crate::sim::{build_world, SimSpace, World};

    #[test]
    fn publication_chunks_split_the_rows_about_evenly_over_the_threads() {
        use super::chunk_rows;
        // 10,000 rows on 2 threads: seven chunks of 1,256 rows and one of 1,208.
        assert_eq!(chunk_rows(10_000, 2), 1_256);
        assert_eq!(10_000usize.div_ceil(chunk_rows(10_000, 2)), 8);
        assert_eq!(chunk_rows(10_000, 1), 2_504);
        // Large worlds keep the largest chunk, small ones the smallest.
        assert_eq!(chunk_rows(100_000, 2), 8_192);
        assert_eq!(chunk_rows(100, 16), 1_024);
        assert_eq!(chunk_rows(0, 0), 1_024);
        for (rows, threads) in [(9_999, 3), (123_457, 7), (50_001, 16)] {
            assert_eq!(chunk_rows(rows, threads) % 8, 0);
        }
    }

    #[test]
    fn task_clips_are_joined_to_their_rows_and_follow_a_swap_removal() {
        use super::super::frames::{ClipFrame, MotionClip};
        use super::FrameStore;
        let clip = |clip, time_s: f32| ClipFrame {
            clip,
            phase: time_s / 2.0,
            time_s,
        };
        let (start, stop) = (clip(MotionClip::Start, 0.5), clip(MotionClip::Stop, 1.5));
        let mut store = FrameStore::default();
        store.grow_to(4);
        store.set_clips([(3, stop), (1, start)]);
        let clips = |store: &FrameStore| -> Vec<Option<ClipFrame>> {
            store.frames().iter().map(|f| f.clip).collect()
        };
        assert_eq!(clips(&store), vec![None, Some(start), None, Some(stop)]);
        let backwards: Vec<_> = store.frames().iter().rev().map(|f| f.clip).collect();
        assert_eq!(backwards, vec![Some(stop), None, Some(start), None]);
        assert_eq!(store.frames().get(3).and_then(|f| f.clip), Some(stop));
        assert_eq!(store.frames().clip(2), None);
        // Row 1 leaves: row 3 takes its place, with its clip.
        store.swap_remove(1);
        assert_eq!(clips(&store), vec![None, Some(stop), None]);
        assert_eq!(store.clips(), &[(1, stop)]);
        store.invalidate();
        assert!(store.clips().is_empty());
    }

    fn source(id: &str, route: &str, target: u32) -> SourceSpec {
        SourceSpec {
            id: id.into(),
            kind: PopulationKind::Ambient,
            route: route.into(),
            target_count: target,
            walk_speed_m_s: 1.3,
            capacity: target,
            batch_size: 2,
            family: None,
            candidates_m: Vec::new(),
            removal_multiplier: 1.0,
            stops_at_route_end: false,
            law_enforcement: false,
            motion_profile: None,
        }
    }

    /// Crossers born one at a time at authored places on the crosswalk route's sidewalk ends
    /// (admission refuses the roadway while the signal does not show the walk phase).
    fn crossers() -> SourceSpec {
        SourceSpec {
            batch_size: 1,
            candidates_m: vec![0.5, 16.0, 2.0, 14.5, 1.2, 15.2],
            ..source("crossers", "crosswalk.0", 12)
        }
    }

    /// A camera over the block's crosswalk that flies 500 m away at frames 100–140 and is back
    /// by frame 260: walkers retire into the pool while it is away and are readmitted after.
    fn camera() -> ObserverSpec {
        let key = |frame, y| ObserverKey {
            frame,
            position_m: [0.0, y, 12.0],
        };
        ObserverSpec {
            id: "camera".into(),
            position_m: [0.0, 0.0, 12.0],
            yaw_rad: 0.0,
            pitch_rad: -1.2,
            fov_y_rad: 1.6,
            near_m: 0.1,
            far_m: 300.0,
            retain_radius_m: 40.0,
            remove_radius_m: 80.0,
            close_m: 3.0,
            spawn: crate::sim::config::SpawnRanges::default(),
            center_m: None,
            path: vec![
                key(100, 0.0),
                key(140, 500.0),
                key(220, 500.0),
                key(260, 0.0),
            ],
            // Black at first (hidden startup: the crossers may be born in view), cleared at
            // frame 30.
            aim: Vec::new(),
            fade: 1.0,
            valid: true,
        }
    }

    /// Crossers in groups at a signalled crosswalk and walkers on both sidewalks, around a
    /// camera that leaves and comes back.
    fn world() -> World {
        let block = build_street_block(&StreetBlockParams {
            length_m: 80.0,
            road_width_m: 7.0,
            sidewalk_width_m: 6.0,
            furniture_zone_m: 1.5,
            lanes: 2,
            crosswalks: 1,
            crosswalk_width_m: 4.0,
        })
        .expect("block");
        let space = Arc::new(SimSpace::from_street_blocks(&[&block]).expect("space"));
        let scenario = CompiledScenario {
            id: "frames".into(),
            recipe: "r".into(),
            fixed_step_s: 0.05,
            duration_frames: 1000,
            observers: vec![camera()],
            sources: vec![
                crossers(),
                source("north", "sidewalk.north", 30),
                source("south", "sidewalk.south", 30),
            ],
            no_spawn_box: None,
            no_removal_box: None,
            directives: vec![DirectiveSpec {
                frame: 30,
                index: 0,
                target: DirectiveTarget::World,
                command: Command::SetObserverFade {
                    observer: 0,
                    fade: 0.0,
                },
                source: "script".to_owned(),
                session: 0,
                motion_profile: None,
            }],
            vehicle_sources: Vec::new(),
            families: Vec::new(),
            population: Default::default(),
            motion: Default::default(),
            crossings: crate::sim::CrossingSettings {
                group_share: 0.5,
                ..Default::default()
            },
            objects: Vec::new(),
            barriers: Vec::new(),
        };
        build_world(&space, &Arc::new(scenario), 11).expect("world")
    }

    fn assert_rebuilt(world: &World) {
        assert_eq!(
            world.motion_frames().to_vec(),
            rebuilt(&world.agents, world.frame()),
            "frame {}",
            world.frame()
        );
    }

    #[test]
    fn incremental_frames_equal_a_rebuild_through_births_retirements_the_pool_crossings_and_restores(
    ) {
        let mut world = world();
        let (mut skipped_rows, mut crossing, mut pooled) = (0, 0, 0);
        let mut snapshot = None;
        for frame in 1..=420u64 {
            world.step();
            assert_rebuilt(&world);
            skipped_rows += world.agent_count() - world.motion_frames_rewritten();
            let frames = world.motion_frames();
            crossing += frames
                .iter()
                .filter(|f| f.crosswalk == CrosswalkPhase::Crossing)
                .count();
            pooled += frames.iter().filter(|f| f.tags.pooled).count();
            if frame == 180 {
                snapshot = Some(world.snapshot());
            }
            if frame == 290 {
                // A hostile recognition by a walker already off Background raises only its
                // panic level: the panic mark makes the next publication compare panic levels.
                let row = (0..world.agent_count())
                    .find(|r| world.agents.tier[*r] != Tier::Stub && !world.agents.pooled[*r])
                    .expect("a detailed walker");
                let guard = Factions {
                    own: "guards".into(),
                    hostile: vec!["intruders".into()],
                    ..Factions::default()
                };
                let seen = world.line_of_sight(row, &guard, "intruders");
                assert_eq!(seen, Some(Recognition::Hostile));
            }
            if frame == 300 {
                // A panic between steps: the next publication sees it.
                let panicked = world.apply_panic(Vec2 { x: 0.0, y: 6.0 }, 40.0, 0.9);
                assert!(panicked > 0);
            }
        }
        let counters = world.counters();
        assert!(counters.retired > 0 && counters.reused > 0, "{counters:?}");
        assert!(pooled > 0, "pooled peds had frames");
        assert!(crossing > 100, "{crossing} crossing frames");
        let frames = world.motion_frames();
        assert!(frames.iter().any(|f| f.panic > 0.0), "panicked agents");
        assert!(frames.iter().any(|f| f.group_leader().is_some()), "groups");
        // Incremental: a step rewrites only some rows (the skipped tiers' rows are kept).
        assert!(skipped_rows > 1000, "{skipped_rows} rows kept");
        // A world stepped elsewhere, restored mid-run, publishes what the straight run did.
        let snapshot = snapshot.expect("taken at frame 180");
        let mut straight = self::world();
        let mut resumed = self::world();
        for _ in 0..60 {
            resumed.step();
        }
        for _ in 0..180 {
            straight.step();
        }
        resumed.restore(&snapshot).expect("restore");
        assert_rebuilt(&resumed);
        assert_eq!(resumed.motion_frames(), straight.motion_frames());
        for _ in 0..120 {
            resumed.step();
            straight.step();
            assert_rebuilt(&resumed);
            assert_eq!(resumed.motion_frames(), straight.motion_frames());
        }
    }
}
