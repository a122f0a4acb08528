//! Hidden startup: `hidden = has startup reason ∧ all required views valid ∧ min fade > 0.9`.
//! Reasons are a forced-init window (default 0.7 s, kept in integer milliseconds, expiring only
//! once passed; repeats extend and never shorten; early completion with no pending demand needs
//! more than 100 ms), an instant fill (10 population updates × 2 extra ped cycles, not refilled
//! while active, decremented once per Control update), a full-fade streak, and the world-start
//! startup flag: a world whose population settings ask for it starts with the flag set, so a
//! world that starts faded fills its first population hidden from the first Control update
//! (hidden range, no close-camera or frustum check, 100 attempts) instead of waiting for the
//! full-fade streak; the flag clears after the first population update that leaves no source
//! short of its target (the first fill) and is never set again.

use crate::project::DEFAULT_FORCED_INIT_S;
use crate::sim::observers::Observation;

/// Hidden admission needs the minimum fade strictly above this.
pub const HIDDEN_FADE: f64 = 0.9;
/// A fade at or above this counts towards the full-fade streak.
pub const FULL_FADE: f64 = 0.99;
/// Control updates of full fade that make a startup reason.
pub const FULL_FADE_STREAK: u32 = 3;
/// An early completion needs strictly more than this since the window started, ms.
pub const EARLY_COMPLETION_MS: u64 = 100;
/// Default forced-init window, ms.
pub const DEFAULT_FORCED_INIT_MS: u64 = (DEFAULT_FORCED_INIT_S * 1000.0 + 0.5) as u64;
/// Population updates an instant fill lasts.
pub const INSTANT_FILL_UPDATES: u32 = 10;
/// Extra ped cycles per update while an instant fill lasts.
pub const INSTANT_FILL_EXTRA_CYCLES: u32 = 2;
/// Candidates one generation attempt may try while hidden.
pub const HIDDEN_ATTEMPTS: u32 = 100;
/// Candidates one generation attempt may try otherwise.
pub const VISIBLE_ATTEMPTS: u32 = 2;

/// Why a forced-init request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartupError {
    /// The duration is not a finite number of seconds in `(0, 3600]`.
    BadDuration,
}

/// The startup runtime's state.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Startup {
    /// Control time, ms.
    pub now_ms: u64,
    /// The forced-init window `(start, end)` in ms, while active.
    pub forced: Option<(u64, u64)>,
    /// Consecutive Control updates at full fade.
    pub full_fade_streak: u32,
    /// Population updates left in the instant fill.
    pub instant_fill_left: u32,
    /// The world-start startup flag, until the first fill completes.
    #[serde(default)]
    pub world_start: bool,
}

impl Startup {
    /// Requests a forced-init window of `duration_s` from now: the first request opens it, a
    /// repeat extends it to the later end and never shortens it.
    pub fn request_forced_init(&mut self, duration_s: f64) -> Result<(), StartupError> {
        if !crate::sim::config::is_directive_duration(duration_s) {
            return Err(StartupError::BadDuration);
        }
        let end = self.now_ms + (duration_s * 1000.0).round() as u64;
        self.forced = Some(match self.forced {
            Some((start, old_end)) => (start, old_end.max(end)),
            None => (self.now_ms, end),
        });
        Ok(())
    }

    /// Requests an instant fill; an active one is not refilled.
    pub fn request_instant_fill(&mut self) {
        if self.instant_fill_left == 0 {
            self.instant_fill_left = INSTANT_FILL_UPDATES;
        }
    }

    /// One Control update at `now_ms`: the window expires once passed (or completes early with
    /// no pending demand after more than 100 ms); the full-fade streak follows the observation.
    pub fn control_update(&mut self, now_ms: u64, observation: &Observation, pending: bool) {
        self.now_ms = now_ms;
        if let Some((start, end)) = self.forced {
            let early = !pending && now_ms - start > EARLY_COMPLETION_MS;
            if now_ms > end || early {
                self.forced = None;
            }
        }
        let full =
            observation.all_valid() && observation.min_fade().is_some_and(|f| f >= FULL_FADE);
        self.full_fade_streak = if full {
            self.full_fade_streak.saturating_add(1)
        } else {
            0
        };
    }

    /// The startup state of a world that starts with the startup flag set or not.
    pub fn at_world_start(flag: bool) -> Startup {
        Startup {
            world_start: flag,
            ..Startup::default()
        }
    }

    /// Whether any startup reason holds.
    pub fn has_reason(&self) -> bool {
        self.world_start
            || self.forced.is_some()
            || self.instant_fill_left > 0
            || self.full_fade_streak >= FULL_FADE_STREAK
    }

    /// Hidden startup under `observation`.
    pub fn hidden(&self, observation: &Observation) -> bool {
        self.has_reason()
            && observation.all_valid()
            && observation.min_fade().is_some_and(|f| f > HIDDEN_FADE)
    }

    /// Extra ped cycles this update grants.
    pub fn extra_ped_cycles(&self) -> u32 {
        if self.instant_fill_left > 0 {
            INSTANT_FILL_EXTRA_CYCLES
        } else {
            0
        }
    }

    /// Candidates one attempt may try.
    pub fn attempts(hidden: bool) -> u32 {
        if hidden {
            HIDDEN_ATTEMPTS
        } else {
            VISIBLE_ATTEMPTS
        }
    }

    /// After the population update of a Control update: the instant fill counts down once,
    /// whatever was created; the world-start flag clears once no source is short (`filled`).
    pub fn after_population_update(&mut self, filled: impl FnOnce() -> bool) {
        self.instant_fill_left = self.instant_fill_left.saturating_sub(1);
        if self.world_start && filled() {
            self.world_start = false;
        }
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.now_ms.to_le_bytes());
        let (start, end) = self.forced.unwrap_or((u64::MAX, u64::MAX));
        bytes.extend_from_slice(&start.to_le_bytes());
        bytes.extend_from_slice(&end.to_le_bytes());
        bytes.extend_from_slice(&self.full_fade_streak.to_le_bytes());
        bytes.extend_from_slice(&self.instant_fill_left.to_le_bytes());
        // Only while set, so worlds without the flag keep their bytes.
        if self.world_start {
            bytes.extend_from_slice(b"WSTART01");
        }
    }
}
