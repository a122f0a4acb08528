//! A bounded history of the counters of simulated frames: every frame until it holds its
//! capacity, then every other kept frame is dropped and the stride doubles, so a run of any
//! length keeps at most `capacity` frames. The Timeline and `stagecraft simulate` both record
//! through it.

use super::crossings::CrossingSample;
use super::motion::MotionCounters;
use crate::sim::state::Counters;

/// Most frames whose counters a history keeps by default.
pub const MAX_HISTORY_FRAMES: usize = 1 << 14;

/// `(frame, counters after it)` and `(frame, motion counters of it)` for every `stride`-th frame,
/// ascending, at most `capacity` of them.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterHistory {
    counters: Vec<(u64, Counters)>,
    motion: Vec<(u64, MotionCounters)>,
    /// The crossing samples of the same frames, when the recorder records them
    /// ([`CounterHistory::record_crossings`]).
    crossings: Vec<(u64, CrossingSample)>,
    stride: u64,
    capacity: usize,
}

impl Default for CounterHistory {
    fn default() -> Self {
        CounterHistory::with_capacity_frames(MAX_HISTORY_FRAMES)
    }
}

impl CounterHistory {
    /// An empty history that keeps at most `capacity` frames (at least 2).
    pub fn with_capacity_frames(capacity: usize) -> CounterHistory {
        CounterHistory {
            counters: Vec::new(),
            motion: Vec::new(),
            crossings: Vec::new(),
            stride: 1,
            capacity: capacity.max(2),
        }
    }

    /// The counters of the kept frames, ascending.
    pub fn counters(&self) -> &[(u64, Counters)] {
        &self.counters
    }

    /// The motion counters of the same frames.
    pub fn motion(&self) -> &[(u64, MotionCounters)] {
        &self.motion
    }

    /// The crossing samples of the same frames (those recorded).
    pub fn crossings(&self) -> &[(u64, CrossingSample)] {
        &self.crossings
    }

    /// Records `frame`'s crossing sample when the stride keeps it (call it after
    /// [`CounterHistory::record`] of the same frame, which thins the samples with the rest).
    pub fn record_crossings(&mut self, frame: u64, sample: CrossingSample) {
        if frame.is_multiple_of(self.stride) {
            upsert(&mut self.crossings, (frame, sample));
        }
    }

    /// Frames between two kept entries (1 until the history first fills up).
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// The most frames it keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records `frame`'s counters when the stride keeps it (replacing an earlier run's entry of
    /// that frame); past the capacity, thins to every other kept frame.
    pub fn record(&mut self, frame: u64, counters: Counters, motion: MotionCounters) {
        if !frame.is_multiple_of(self.stride) {
            return;
        }
        upsert(&mut self.counters, (frame, counters));
        upsert(&mut self.motion, (frame, motion));
        while self.counters.len() > self.capacity {
            self.stride = self.stride.saturating_mul(2);
            let stride = self.stride;
            self.counters.retain(|(f, _)| f.is_multiple_of(stride));
            self.motion.retain(|(f, _)| f.is_multiple_of(stride));
            self.crossings.retain(|(f, _)| f.is_multiple_of(stride));
        }
    }
}

/// Inserts `entry` into the frame-sorted `history`, replacing an earlier run's entry of its frame.
fn upsert<T>(history: &mut Vec<(u64, T)>, entry: (u64, T)) {
    match history.binary_search_by_key(&entry.0, |(f, _)| *f) {
        Ok(index) => history[index] = entry,
        Err(index) => history.insert(index, entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(frame: u64) -> Counters {
        Counters {
            births: frame,
            ..Counters::default()
        }
    }

    #[test]
    fn a_long_run_keeps_at_most_its_capacity_and_the_frames_on_its_stride() {
        let mut history = CounterHistory::with_capacity_frames(16);
        let mut longest = 0;
        for frame in 1..=100_000u64 {
            history.record(frame, counters(frame), MotionCounters::default());
            longest = longest.max(history.counters().len());
        }
        assert_eq!(longest, 16);
        // 100,000 frames into 16 entries: the stride doubled to 8192, whose multiples up to
        // 100,000 are 12.
        assert_eq!(history.stride(), 8192);
        let frames: Vec<u64> = history.counters().iter().map(|(f, _)| *f).collect();
        assert_eq!(frames, (1..=12).map(|i| i * 8192).collect::<Vec<u64>>());
        assert!(history.counters().iter().all(|(f, c)| c.births == *f));
        assert_eq!(history.motion().len(), 12);
    }

    #[test]
    fn crossing_samples_are_kept_and_thinned_with_the_counters() {
        let mut history = CounterHistory::with_capacity_frames(4);
        for frame in 1..=8u64 {
            history.record(frame, counters(frame), MotionCounters::default());
            let sample = CrossingSample {
                completed: frame * 10,
                ..CrossingSample::default()
            };
            history.record_crossings(frame, sample);
        }
        // Eight frames into four entries: the stride doubled to 2.
        let kept: Vec<(u64, u64)> = history
            .crossings()
            .iter()
            .map(|(f, s)| (*f, s.completed))
            .collect();
        assert_eq!(kept, [(2, 20), (4, 40), (6, 60), (8, 80)]);
    }

    #[test]
    fn re_recording_a_kept_frame_replaces_it() {
        let mut history = CounterHistory::with_capacity_frames(4);
        for frame in 1..=4 {
            history.record(frame, counters(frame), MotionCounters::default());
        }
        history.record(2, counters(20), MotionCounters::default());
        let births: Vec<u64> = history.counters().iter().map(|(_, c)| c.births).collect();
        assert_eq!(births, [1, 20, 3, 4]);
    }
}
