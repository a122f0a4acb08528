//! Population cycle clocks: separate pedestrian and vehicle debt (f64, with a 1e-6 tolerance at
//! integer boundaries), `rate = frameRate × cyclesPerFrame`, `acceptedDt = min(dt,
//! maxFrameTime)`, the pedestrian alternation cap while vehicles compensate, and pause adding no
//! debt. A cycle is a processing opportunity, not a birth: planned cycles, actual creations and
//! pending demands are counted apart.

use crate::sim::config::ClocksConfig;

/// Tolerance at integer boundaries of the debt.
pub const DEBT_TOLERANCE: f64 = 1e-6;

/// Cycles one update plans, per type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CyclePlan {
    /// Vehicle cycles (run first).
    pub vehicle: u32,
    /// Pedestrian cycles.
    pub ped: u32,
}

/// The clocks' state: each type's debt and whether pedestrians took the single-cycle cap on the
/// previous update (the alternation is persistent state, not reset per call).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct CycleClocks {
    /// Accumulated pedestrian opportunities not yet planned.
    pub ped_debt: f64,
    /// Accumulated vehicle opportunities not yet planned.
    pub vehicle_debt: f64,
    /// Whether the previous update capped pedestrians at one cycle.
    pub ped_capped_last: bool,
}

/// Takes the whole cycles out of `debt` (at most `cap`), leaving the fraction; a debt within
/// the tolerance below an integer counts as that integer and leaves no negative remainder.
fn take_whole(debt: &mut f64, cap: u32) -> u32 {
    let whole = (*debt + DEBT_TOLERANCE).floor().max(0.0);
    let cycles = whole.min(f64::from(cap)) as u32;
    *debt -= f64::from(cycles);
    if *debt < 0.0 {
        *debt = 0.0;
    }
    cycles
}

impl CycleClocks {
    /// Plans one update of `dt_s` seconds. A paused update (`enabled` false) adds no debt and
    /// plans nothing, keeping fractions and deferred work.
    pub fn advance(&mut self, config: &ClocksConfig, dt_s: f64, enabled: bool) -> CyclePlan {
        if !enabled || dt_s.is_nan() || dt_s <= 0.0 {
            return CyclePlan::default();
        }
        let accepted_s = dt_s.min(config.max_frame_time_s);
        self.vehicle_debt += accepted_s * config.vehicle.rate();
        // Vehicles are not capped below what the longest accepted frame can owe.
        let vehicle = take_whole(&mut self.vehicle_debt, u32::MAX);
        self.ped_debt += accepted_s * config.ped.rate();
        let normal_cap = (config.max_frame_time_s * config.ped.rate() - DEBT_TOLERANCE)
            .ceil()
            .clamp(1.0, f64::from(u32::MAX)) as u32;
        let compensating = vehicle > 1;
        let cap = if compensating && !self.ped_capped_last {
            self.ped_capped_last = true;
            1
        } else {
            self.ped_capped_last = false;
            normal_cap
        };
        let ped = take_whole(&mut self.ped_debt, cap);
        CyclePlan { vehicle, ped }
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.ped_debt.to_bits().to_le_bytes());
        bytes.extend_from_slice(&self.vehicle_debt.to_bits().to_le_bytes());
        bytes.push(u8::from(self.ped_capped_last));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::ClockConfig;

    fn config(ped_rate: f64, vehicle_rate: f64) -> ClocksConfig {
        ClocksConfig {
            ped: ClockConfig {
                frame_rate: ped_rate,
                cycles_per_frame: 1.0,
            },
            vehicle: ClockConfig {
                frame_rate: vehicle_rate,
                cycles_per_frame: 1.0,
            },
            max_frame_time_s: 0.1,
        }
    }

    #[test]
    fn debt_accumulates_in_f64_with_the_tolerance_at_integer_boundaries() {
        // 30 cycles/s at 1/30 s: 0.1 + 0.1 + … in binary is not exactly 1 after ten steps, but
        // every step still plans exactly one cycle.
        let c = config(30.0, 30.0);
        let mut clocks = CycleClocks::default();
        for _ in 0..300 {
            assert_eq!(clocks.advance(&c, 1.0 / 30.0, true).ped, 1);
        }
        assert!(clocks.ped_debt.abs() < 1e-9);
        // 1.5 cycles per update: 1, 2, 1, 2… (vehicles at 10/s never compensate here)
        let c = config(30.0, 10.0);
        let mut clocks = CycleClocks::default();
        let plans: Vec<u32> = (0..4).map(|_| clocks.advance(&c, 0.05, true).ped).collect();
        assert_eq!(plans, [1, 2, 1, 2]);
    }

    #[test]
    fn pause_adds_no_debt_and_keeps_the_fraction() {
        let c = config(30.0, 10.0);
        let mut clocks = CycleClocks::default();
        assert_eq!(clocks.advance(&c, 0.05, true).ped, 1);
        assert!((clocks.ped_debt - 0.5).abs() < 1e-12);
        for _ in 0..10 {
            assert_eq!(clocks.advance(&c, 0.05, false), CyclePlan::default());
        }
        assert!(
            (clocks.ped_debt - 0.5).abs() < 1e-12,
            "pause keeps the fraction"
        );
        assert_eq!(clocks.advance(&c, 0.05, true).ped, 2);
    }

    #[test]
    fn a_long_frame_adds_only_max_frame_time() {
        let c = config(30.0, 10.0);
        let mut clocks = CycleClocks::default();
        // 2 s accepted as 0.1 s: 3 ped cycles, 1 vehicle cycle.
        let plan = clocks.advance(&c, 2.0, true);
        assert_eq!(plan, CyclePlan { vehicle: 1, ped: 3 });
        assert!(clocks.ped_debt.abs() < 1e-9 && clocks.vehicle_debt.abs() < 1e-9);
    }

    #[test]
    fn pedestrians_alternate_into_a_single_cycle_cap_while_vehicles_compensate() {
        // Vehicles at 40/s owe 4 cycles per 0.1 s update (compensating); peds at 30/s owe 3.
        let c = config(30.0, 40.0);
        let mut clocks = CycleClocks::default();
        let plans: Vec<CyclePlan> = (0..4).map(|_| clocks.advance(&c, 0.1, true)).collect();
        let peds: Vec<u32> = plans.iter().map(|p| p.ped).collect();
        assert!(plans.iter().all(|p| p.vehicle == 4));
        // Capped to 1 (2 deferred), then the normal cap of 3 (debt 5 → 2 left), capped again…
        assert_eq!(peds, [1, 3, 1, 3]);
        assert!(
            (clocks.ped_debt - 4.0).abs() < 1e-9,
            "deferred debt survives"
        );
        // Without compensation the alternation ends.
        let calm = config(30.0, 10.0);
        assert_eq!(clocks.advance(&calm, 0.1, true).ped, 3);
        assert!(!clocks.ped_capped_last);
    }
}
