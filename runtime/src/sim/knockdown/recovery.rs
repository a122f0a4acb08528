//! The recovery state machine of one knocked-down ped, exactly the specification's criteria:
//! physics age ≥ 1.3 s; settled when supported, core linear speed ≤ 0.35 m/s and angular speed ≤
//! 90°/s (both finite and non-negative); stable time accumulates while settled and resets
//! otherwise; stable ≥ 0.35 s; then no standing clearance → `WaitingForSpace`; otherwise a 0.8 s
//! smoothstep blend that pauses (never rolls back, never re-enables physics) while support or
//! clearance is lost.
//!
//! Times are integer milliseconds (the fixed step rounded to a millisecond), so `1.3 s` is
//! reached on exactly the 26th 50 ms step, never one step early or late through float sums. The
//! machine is a pure function of the samples it is fed: no physics, no world.

use crate::sim::state::{KnockdownReason, RecoveryPhase};

/// Physics must have run at least this long, milliseconds.
pub const MIN_AGE_MS: u64 = 1300;
/// Core linear speed at most this to be settled, meters per second (specification: 35 cm/s).
pub const MAX_SETTLED_LINEAR_M_S: f64 = 0.35;
/// Angular speed at most this to be settled, radians per second (specification: 90°/s).
pub const MAX_SETTLED_ANGULAR_RAD_S: f64 = std::f64::consts::FRAC_PI_2;
/// Settled continuously at least this long, milliseconds.
pub const MIN_STABLE_MS: u64 = 350;
/// Length of the pose blend, milliseconds.
pub const BLEND_MS: u64 = 800;

/// Whether a standing body fits at the recovery position.
#[derive(
    serde::Serialize,
    serde::Deserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
)]
pub enum Clearance {
    /// Nothing is in the way.
    #[default]
    Clear,
    /// A prop overlaps the standing capsule.
    BlockedByProp,
    /// Another ped stands closer than the body test allows.
    BlockedByPed,
}

/// One step's observations of a body and its surroundings.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct RecoverySample {
    /// A walkable surface supports the body.
    pub supported: bool,
    /// Core linear speed: max(pelvis speed, half the upper-spine speed), meters per second.
    pub linear_m_s: f64,
    /// Angular speed of the pelvis, radians per second.
    pub angular_rad_s: f64,
    /// Whether a standing body fits at the recovery position.
    pub clearance: Clearance,
}

/// A phase change and its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The phase before.
    pub from: RecoveryPhase,
    /// The phase after.
    pub to: RecoveryPhase,
    /// Why.
    pub reason: KnockdownReason,
}

/// The recovery of one body.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Recovery {
    /// Where it is.
    pub phase: RecoveryPhase,
    /// Time physics has driven the body, milliseconds.
    pub age_ms: u64,
    /// Time settled without interruption, milliseconds.
    pub stable_ms: u64,
    /// Blend progress, milliseconds (never decreases).
    pub blend_ms: u64,
    /// The last sample fed (the live criteria values).
    pub last: RecoverySample,
}

impl Default for Recovery {
    fn default() -> Self {
        Recovery {
            phase: RecoveryPhase::Simulating,
            age_ms: 0,
            stable_ms: 0,
            blend_ms: 0,
            last: RecoverySample::default(),
        }
    }
}

/// Whether a sample is settled: supported, finite and within both speed limits. The error says
/// why not.
pub fn settled(sample: &RecoverySample) -> Result<(), KnockdownReason> {
    if !sample.supported {
        return Err(KnockdownReason::Unsupported);
    }
    let within = |v: f64, max: f64| v.is_finite() && (0.0..=max).contains(&v);
    if !within(sample.linear_m_s, MAX_SETTLED_LINEAR_M_S) {
        return Err(KnockdownReason::TooFast);
    }
    if !within(sample.angular_rad_s, MAX_SETTLED_ANGULAR_RAD_S) {
        return Err(KnockdownReason::Spinning);
    }
    Ok(())
}

/// The smoothstep of the blend: `a²(3 − 2a)` for `a = clamp(t, 0, 1)`.
pub fn smoothstep(t: f64) -> f64 {
    let a = t.clamp(0.0, 1.0);
    a * a * (3.0 - 2.0 * a)
}

impl Recovery {
    /// Whether physics drives the body in this phase.
    pub fn physics_active(&self) -> bool {
        matches!(
            self.phase,
            RecoveryPhase::Simulating | RecoveryPhase::WaitingForSpace
        )
    }

    /// Linear blend progress, 0..1.
    pub fn blend_progress(&self) -> f64 {
        self.blend_ms.min(BLEND_MS) as f64 / BLEND_MS as f64
    }

    /// The standing pose's weight: the smoothstep of the blend progress (the fallen pose has
    /// the rest).
    pub fn blend_weight(&self) -> f64 {
        smoothstep(self.blend_progress())
    }

    /// Feeds one step of `dt_ms` milliseconds; returns the phase change, if any.
    pub fn advance(&mut self, dt_ms: u64, sample: RecoverySample) -> Option<Transition> {
        self.last = sample;
        let from = self.phase;
        let (to, reason) = match from {
            RecoveryPhase::Simulating | RecoveryPhase::WaitingForSpace => {
                self.physics_step(dt_ms, &sample)?
            }
            RecoveryPhase::Blending | RecoveryPhase::BlendPaused => {
                self.blend_step(dt_ms, &sample)?
            }
            RecoveryPhase::Complete => return None,
        };
        self.phase = to;
        Some(Transition { from, to, reason })
    }

    fn physics_step(
        &mut self,
        dt_ms: u64,
        sample: &RecoverySample,
    ) -> Option<(RecoveryPhase, KnockdownReason)> {
        self.age_ms = self.age_ms.saturating_add(dt_ms);
        let verdict = settled(sample);
        self.stable_ms = match verdict {
            Ok(()) => self.stable_ms.saturating_add(dt_ms),
            Err(_) => 0,
        };
        let can_leave = self.age_ms >= MIN_AGE_MS && self.stable_ms >= MIN_STABLE_MS;
        let waiting = self.phase == RecoveryPhase::WaitingForSpace;
        if !can_leave {
            // Only a waiting body that became unsettled changes phase (back to simulating).
            let why = verdict.err()?;
            return waiting.then_some((RecoveryPhase::Simulating, why));
        }
        match sample.clearance {
            Clearance::Clear => Some((RecoveryPhase::Blending, KnockdownReason::SettledWithSpace)),
            blocked if !waiting => Some((RecoveryPhase::WaitingForSpace, blocked_reason(blocked))),
            _ => None,
        }
    }

    fn blend_step(
        &mut self,
        dt_ms: u64,
        sample: &RecoverySample,
    ) -> Option<(RecoveryPhase, KnockdownReason)> {
        let paused = self.phase == RecoveryPhase::BlendPaused;
        let unsafe_reason = if !sample.supported {
            Some(KnockdownReason::Unsupported)
        } else if sample.clearance != Clearance::Clear {
            Some(blocked_reason(sample.clearance))
        } else {
            None
        };
        if let Some(why) = unsafe_reason {
            // Frozen: progress is kept, never rolled back.
            return (!paused).then_some((RecoveryPhase::BlendPaused, why));
        }
        self.blend_ms = self.blend_ms.saturating_add(dt_ms).min(BLEND_MS);
        if self.blend_ms >= BLEND_MS {
            return Some((RecoveryPhase::Complete, KnockdownReason::Resumed));
        }
        paused.then_some((RecoveryPhase::Blending, KnockdownReason::SafeAgain))
    }
}

fn blocked_reason(clearance: Clearance) -> KnockdownReason {
    match clearance {
        Clearance::BlockedByPed => KnockdownReason::PedInTheWay,
        _ => KnockdownReason::PropInTheWay,
    }
}
