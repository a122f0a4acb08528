//! Motion profiles as the world runs them (tasks-and-directives, "How motion data constrains
//! path execution and step distance" and "Starting and stopping derive budgets from distance
//! curves"): start, loop, stop and turn clips as distance curves of [`CURVE_SAMPLES`] samples
//! (120 intervals, monotone by a running maximum), the authored reference and task speeds, and
//! the pure step-budget maths — the play rate clamped to [`MIN_PLAY_RATE`]..[`MAX_PLAY_RATE`],
//! the per-step budget `speed × dt`, and the [`SEARCH_ITERATIONS`]-step binary search that
//! shortens a start or stop proposal whose curve distance exceeds the budget.
//!
//! A world's profiles form a [`ProfileTable`]: the two standard profiles (`walking`,
//! `running`, [`standard_profile`]) replaced or extended by the project's `*.motion.ron`
//! assets. Movements name a profile by its index in the table.

/// Samples of every clip curve: 120 intervals including both endpoints.
pub const CURVE_SAMPLES: usize = 121;
/// Iterations of the bounded binary search that shortens a start or stop proposal.
pub const SEARCH_ITERATIONS: u32 = 12;
/// Lowest play rate (speed over reference speed).
pub const MIN_PLAY_RATE: f64 = 0.1;
/// Highest play rate.
pub const MAX_PLAY_RATE: f64 = 2.5;
/// The profile a task walks with when nothing names one.
pub const WALKING: &str = "walking";
/// The profile an escape switches to.
pub const RUNNING: &str = "running";
/// The stop tail starts where the stop clip's remaining distance is at most this, meters.
pub const TAIL_REMAINING_M: f64 = 0.001;

/// A clip's root distance over clip time: `samples_m[i]` at `i × duration / 120`, monotone
/// (a running maximum was applied), linear between samples.
#[derive(Clone, Debug, PartialEq)]
pub struct DistanceCurve {
    /// Clip duration, seconds (> 0).
    pub duration_s: f64,
    /// The samples, meters from the clip's first frame.
    pub samples_m: [f64; CURVE_SAMPLES],
}

/// Why samples cannot form a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveProblem {
    /// Not exactly [`CURVE_SAMPLES`] samples (the count found).
    SampleCount(usize),
    /// A sample or the duration is not finite.
    NotFinite,
    /// The duration is not positive.
    Duration,
}

impl DistanceCurve {
    /// The curve of `samples` (exactly [`CURVE_SAMPLES`], finite) over `duration_s` (> 0),
    /// made monotone by a running maximum.
    pub fn new(duration_s: f64, samples: &[f64]) -> Result<DistanceCurve, CurveProblem> {
        if samples.len() != CURVE_SAMPLES {
            return Err(CurveProblem::SampleCount(samples.len()));
        }
        if !duration_s.is_finite() || samples.iter().any(|s| !s.is_finite()) {
            return Err(CurveProblem::NotFinite);
        }
        if duration_s <= 0.0 {
            return Err(CurveProblem::Duration);
        }
        let mut samples_m = [0.0; CURVE_SAMPLES];
        let mut running = f64::NEG_INFINITY;
        for (out, s) in samples_m.iter_mut().zip(samples) {
            running = running.max(*s);
            *out = running;
        }
        Ok(DistanceCurve {
            duration_s,
            samples_m,
        })
    }

    /// The curve sampled from `f` over `[0, duration_s]`.
    pub fn sampled(duration_s: f64, f: impl Fn(f64) -> f64) -> DistanceCurve {
        let samples: Vec<f64> = (0..CURVE_SAMPLES)
            .map(|i| f(i as f64 / (CURVE_SAMPLES - 1) as f64))
            .collect();
        DistanceCurve::new(duration_s, &samples).unwrap_or(DistanceCurve {
            duration_s: 1.0,
            samples_m: [0.0; CURVE_SAMPLES],
        })
    }

    /// d(t), meters, `t` clamped to the clip.
    pub fn at(&self, t_s: f64) -> f64 {
        let intervals = (CURVE_SAMPLES - 1) as f64;
        let x = (t_s / self.duration_s).clamp(0.0, 1.0) * intervals;
        let i = (x.floor() as usize).min(CURVE_SAMPLES - 2);
        let f = x - i as f64;
        self.samples_m[i] + (self.samples_m[i + 1] - self.samples_m[i]) * f
    }

    /// The clip's whole distance, meters.
    pub fn total_m(&self) -> f64 {
        self.samples_m[CURVE_SAMPLES - 1] - self.samples_m[0]
    }

    /// The first sample time from which the remaining distance is at most `remaining_m`.
    pub fn time_remaining_below(&self, remaining_m: f64) -> f64 {
        let last = self.samples_m[CURVE_SAMPLES - 1];
        let i = self
            .samples_m
            .iter()
            .position(|s| last - s <= remaining_m)
            .unwrap_or(CURVE_SAMPLES - 1);
        i as f64 * self.duration_s / (CURVE_SAMPLES - 1) as f64
    }
}

/// `clamp(speed / reference, 0.1, 2.5)`; a reference that is not positive plays at 1.
pub fn play_rate(speed_m_s: f64, reference_m_s: f64) -> f64 {
    if reference_m_s.is_nan() || reference_m_s <= 0.0 {
        return 1.0;
    }
    (speed_m_s / reference_m_s).clamp(MIN_PLAY_RATE, MAX_PLAY_RATE)
}

/// One start or stop proposal after the budget check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetedStep {
    /// The clip time the step reaches, seconds.
    pub time_s: f64,
    /// The curve distance that step covers (scaled), meters.
    pub distance_m: f64,
    /// The speed budget `max(speed, 0) × dt`, meters.
    pub budget_m: f64,
    /// The curve distance first proposed (scaled), meters.
    pub proposed_m: f64,
    /// Whether the binary search shortened the proposal.
    pub searched: bool,
}

/// The specification's start / moving-stop step: propose `min(duration, t + dt × rate)`; when
/// its scaled curve distance exceeds `max(speed, 0) × dt`, [`SEARCH_ITERATIONS`] halvings of
/// `[t, proposal]` keep the latest time whose distance fits the budget.
pub fn budgeted_step(
    curve: &DistanceCurve,
    clip_time_s: f64,
    dt_s: f64,
    speed_m_s: f64,
    reference_m_s: f64,
    scale: f64,
) -> BudgetedStep {
    let rate = play_rate(speed_m_s, reference_m_s);
    let candidate = curve.duration_s.min(clip_time_s + dt_s * rate);
    let base = curve.at(clip_time_s);
    let distance = |t: f64| (curve.at(t) - base).max(0.0) * scale;
    let budget_m = speed_m_s.max(0.0) * dt_s;
    let proposed_m = distance(candidate);
    if proposed_m <= budget_m {
        return BudgetedStep {
            time_s: candidate,
            distance_m: proposed_m,
            budget_m,
            proposed_m,
            searched: false,
        };
    }
    let (mut lo, mut hi) = (clip_time_s, candidate);
    for _ in 0..SEARCH_ITERATIONS {
        let mid = 0.5 * (lo + hi);
        if distance(mid) <= budget_m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    BudgetedStep {
        time_s: lo,
        distance_m: distance(lo),
        budget_m,
        proposed_m,
        searched: true,
    }
}

/// The loop's sample advance: `fmod(cycle + accepted / reference, cycle duration)`.
pub fn advance_cycle(cycle_s: f64, accepted_m: f64, reference_m_s: f64, duration_s: f64) -> f64 {
    if reference_m_s <= 0.0 || duration_s <= 0.0 {
        return cycle_s;
    }
    (cycle_s + accepted_m.max(0.0) / reference_m_s).rem_euclid(duration_s)
}

/// A turn clip: normalized angular progress (0 → 1) over its duration, authored for `angle_deg`.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnClip {
    /// Accumulated angle over the whole turn, normalized (last sample = 1).
    pub progress: DistanceCurve,
    /// The turn the clip was authored for, degrees (informative: the runtime multiplies the
    /// progress by the actual heading difference).
    pub angle_deg: f64,
}

impl TurnClip {
    /// Progress 0..1 at clip time `t_s`.
    pub fn progress_at(&self, t_s: f64) -> f64 {
        let total = self.progress.samples_m[CURVE_SAMPLES - 1];
        if total <= 0.0 {
            return if t_s >= self.progress.duration_s {
                1.0
            } else {
                0.0
            };
        }
        ((self.progress.at(t_s) - self.progress.samples_m[0]) / total).clamp(0.0, 1.0)
    }
}

/// One motion profile.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionProfile {
    /// Its name (the asset's id).
    pub id: String,
    /// The speed the clips were authored at, meters per second.
    pub reference_speed_m_s: f64,
    /// The speed a task walks at with this profile, meters per second.
    pub speed_m_s: f64,
    /// The start clip.
    pub start: DistanceCurve,
    /// The loop clip (its duration is the cycle).
    pub cycle: DistanceCurve,
    /// The stop clip.
    pub stop: DistanceCurve,
    /// The turn clip.
    pub turn: TurnClip,
    /// A heading change beyond this enters the turn clip, degrees.
    pub turn_clip_above_deg: f64,
    /// Smaller turns: the heading rate limit, degrees per second.
    pub turn_rate_deg_s: f64,
    /// Beyond this misalignment after the rate-limited turn the step only rotates, degrees.
    pub align_deg: f64,
}

impl MotionProfile {
    /// Where the stop tail starts: the clip time from which the stop's remaining distance is
    /// at most [`TAIL_REMAINING_M`].
    pub fn stop_tail_start_s(&self) -> f64 {
        self.stop.time_remaining_below(TAIL_REMAINING_M)
    }

    /// Canonical bytes (the configuration digest covers a project's profiles).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&(self.id.len() as u64).to_le_bytes());
        bytes.extend_from_slice(self.id.as_bytes());
        let scalars = [
            self.reference_speed_m_s,
            self.speed_m_s,
            self.turn.angle_deg,
            self.turn_clip_above_deg,
            self.turn_rate_deg_s,
            self.align_deg,
        ];
        for v in scalars {
            bytes.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        for curve in [&self.start, &self.cycle, &self.stop, &self.turn.progress] {
            bytes.extend_from_slice(&curve.duration_s.to_bits().to_le_bytes());
            for s in curve.samples_m {
                bytes.extend_from_slice(&s.to_bits().to_le_bytes());
            }
        }
    }
}

/// Smoothstep 0..1.
fn smooth(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// Distance of a body accelerating uniformly from 0 to `v` over `t_s`, at fraction `u`.
fn accelerating(v: f64, t_s: f64, u: f64) -> f64 {
    0.5 * v * t_s * u * u
}

/// Distance of a body slowing uniformly from `v` to 0 over the first `decel_s` of the clip, then
/// settling (no translation), at clip time `t`.
fn decelerating(v: f64, decel_s: f64, t: f64) -> f64 {
    let t = t.min(decel_s);
    v * t - 0.5 * v * t * t / decel_s
}

/// The standard profile `name` (`walking` or `running`), the curves sampled from uniform
/// acceleration and deceleration: running at the specification's reference speed 5.94324 m/s
/// with the task speed 3.30 m/s and its stop tail from 0.7 s of a 1.0 s stop; walking at
/// 1.40 m/s. `None` for another name.
pub fn standard_profile(name: &str) -> Option<MotionProfile> {
    let (reference, speed, start_s, stop_s, decel_s, cycle_s, turn_s) = match name {
        WALKING => (1.4, 1.4, 0.6, 0.8, 0.6, 1.1, 0.8),
        RUNNING => (5.94324, 3.3, 0.5, 1.0, 0.7, 0.7, 0.6),
        _ => return None,
    };
    Some(MotionProfile {
        id: name.to_owned(),
        reference_speed_m_s: reference,
        speed_m_s: speed,
        start: DistanceCurve::sampled(start_s, |u| accelerating(reference, start_s, u)),
        cycle: DistanceCurve::sampled(cycle_s, |u| reference * cycle_s * u),
        stop: DistanceCurve::sampled(stop_s, |u| decelerating(reference, decel_s, u * stop_s)),
        turn: TurnClip {
            progress: DistanceCurve::sampled(turn_s, smooth),
            angle_deg: 180.0,
        },
        turn_clip_above_deg: 60.0,
        turn_rate_deg_s: 360.0,
        align_deg: 45.0,
    })
}

/// A world's motion profiles, in a fixed order (the standard ones first, then the project's by
/// id); movements name a profile by its index.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileTable {
    profiles: Vec<MotionProfile>,
}

impl Default for ProfileTable {
    fn default() -> Self {
        ProfileTable::standard()
    }
}

impl ProfileTable {
    /// `walking` (index 0) and `running` (index 1).
    pub fn standard() -> ProfileTable {
        ProfileTable {
            profiles: [WALKING, RUNNING]
                .into_iter()
                .filter_map(standard_profile)
                .collect(),
        }
    }

    /// The standard table with `project` profiles replacing the standard ones of the same id
    /// and the others appended in the given order.
    pub fn with_project(project: Vec<MotionProfile>) -> ProfileTable {
        let mut table = ProfileTable::standard();
        for profile in project {
            match table.profiles.iter().position(|p| p.id == profile.id) {
                Some(i) => table.profiles[i] = profile,
                None => table.profiles.push(profile),
            }
        }
        table
    }

    /// Whether this is the standard table (its bytes are then left out of the digest).
    pub fn is_standard(&self) -> bool {
        *self == ProfileTable::standard()
    }

    /// The index of profile `id`.
    pub fn index_of(&self, id: &str) -> Option<u16> {
        self.profiles
            .iter()
            .position(|p| p.id == id)
            .and_then(|i| u16::try_from(i).ok())
    }

    /// Profile `index`, or the walking profile when there is none.
    pub fn get(&self, index: u16) -> &MotionProfile {
        self.profiles
            .get(usize::from(index))
            .unwrap_or(&self.profiles[0])
    }

    /// Every profile in table order.
    pub fn profiles(&self) -> &[MotionProfile] {
        &self.profiles
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&(self.profiles.len() as u64).to_le_bytes());
        for p in &self.profiles {
            p.write_canonical(bytes);
        }
    }
}

#[cfg(test)]
#[path = "profiles_tests.rs"]
mod tests;
