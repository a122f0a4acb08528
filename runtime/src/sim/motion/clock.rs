//! The wall-clock accumulator that drives a world from real time (the editor's playback): elapsed
//! seconds are added, whole fixed steps are consumed, and at most [`MAX_ACCUMULATED_STEPS`]
//! steps' time is kept, so a long frame never triggers an unbounded catch-up (motion
//! specification). It is separate from the simulation's own frame index and from the tier scheduler
//! frame.

/// The most fixed steps' time the accumulator holds (0.2 s at the default 0.05 s step).
pub const MAX_ACCUMULATED_STEPS: u32 = 4;

/// Elapsed wall-clock time not yet turned into steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallClock {
    /// Seconds accumulated, below one fixed step after each advance.
    pub accumulated_s: f64,
}

impl WallClock {
    /// Adds `elapsed_s` (non-finite or negative adds nothing), bounds the total to
    /// [`MAX_ACCUMULATED_STEPS`] steps, and returns how many whole steps of `fixed_step_s` to
    /// run now, keeping the remainder.
    pub fn advance(&mut self, elapsed_s: f64, fixed_step_s: f64) -> u32 {
        self.advance_bounded(elapsed_s, fixed_step_s, MAX_ACCUMULATED_STEPS)
    }

    /// [`WallClock::advance`] with another bound, `max_steps` (a player that runs faster than
    /// real time, such as the editor's playback at a speed multiple, needs a larger one).
    pub fn advance_bounded(&mut self, elapsed_s: f64, fixed_step_s: f64, max_steps: u32) -> u32 {
        if fixed_step_s.is_nan() || fixed_step_s <= 0.0 {
            return 0;
        }
        if elapsed_s.is_finite() && elapsed_s > 0.0 {
            self.accumulated_s += elapsed_s;
        }
        let cap_s = fixed_step_s * f64::from(max_steps);
        self.accumulated_s = self.accumulated_s.min(cap_s);
        // A tolerance so that four 0.05 s frames make four steps despite rounding.
        let steps = ((self.accumulated_s + 1e-9) / fixed_step_s).floor() as u32;
        let steps = steps.min(max_steps);
        self.accumulated_s = (self.accumulated_s - f64::from(steps) * fixed_step_s).max(0.0);
        steps
    }
}
