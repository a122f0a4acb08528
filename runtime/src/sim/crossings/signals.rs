//! Signals: each cycles VehicleGreen → AllStop → PedestrianCrossing → AllStop (clearance) →
//! VehicleGreen, leaving VehicleGreen only on pedestrian demand (a Requested or Waiting agent
//! at one of its crosswalks), and leaving the clearance only when nobody is still in Crossing
//! or Clearing, so committed crossers finish whatever the light says.
//!
//! The specification gives no phase durations; they are scenario settings (`SignalTiming`).

use crate::sim::config::SignalTiming;
use crate::sim::state::SignalPhase;

/// One signal's state (part of the world state: snapshots carry it).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct SignalState {
    /// What it shows.
    pub phase: SignalPhase,
    /// Seconds in the current phase.
    pub elapsed_s: f64,
    /// In AllStop: whether the walk phase comes next (false: the clearance, then green).
    pub walk_next: bool,
    /// Whether the vehicle gate is open after the last step.
    pub gate_open: bool,
    /// Times the gate went from open to closed.
    pub gate_closures: u64,
    /// Walk phases served.
    pub walk_phases: u64,
}

/// What a signal reads at the start of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignalInputs {
    /// Some agent at its crosswalks is Requested or Waiting.
    pub demand: bool,
    /// Some agent at its crosswalks is Crossing or Clearing.
    pub occupied: bool,
    /// No vehicle is inside any of its crosswalks' conflict zones.
    pub zone_clear: bool,
}

impl SignalState {
    /// A signal at the start of a world: green, gate open.
    pub fn new() -> SignalState {
        SignalState {
            gate_open: true,
            ..SignalState::default()
        }
    }

    /// Advances by `dt_s`; returns whether the phase changed.
    pub fn advance(&mut self, timing: &SignalTiming, dt_s: f64, inputs: SignalInputs) -> bool {
        self.elapsed_s += dt_s;
        let due = |duration_s: f64| self.elapsed_s >= duration_s - 1e-9;
        let next = match self.phase {
            SignalPhase::VehicleGreen
                if inputs.demand && inputs.zone_clear && due(timing.vehicle_green_s) =>
            {
                self.walk_next = true;
                Some(SignalPhase::AllStop)
            }
            SignalPhase::AllStop if self.walk_next && due(timing.all_stop_s) => {
                self.walk_phases += 1;
                Some(SignalPhase::PedestrianCrossing)
            }
            SignalPhase::PedestrianCrossing if due(timing.pedestrian_s) => {
                self.walk_next = false;
                Some(SignalPhase::AllStop)
            }
            SignalPhase::AllStop
                if !self.walk_next && !inputs.occupied && due(timing.all_stop_s) =>
            {
                Some(SignalPhase::VehicleGreen)
            }
            _ => None,
        };
        match next {
            Some(phase) => {
                self.phase = phase;
                self.elapsed_s = 0.0;
                true
            }
            None => false,
        }
    }

    /// Sets the gate after this step's transitions; counts a closure.
    pub fn set_gate(&mut self, occupied: bool) {
        let open = gate_open(self.phase, occupied);
        if self.gate_open && !open {
            self.gate_closures += 1;
        }
        self.gate_open = open;
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.push(self.phase.code());
        bytes.extend_from_slice(&self.elapsed_s.to_bits().to_le_bytes());
        bytes.push(u8::from(self.walk_next));
        bytes.push(u8::from(self.gate_open));
        bytes.extend_from_slice(&self.gate_closures.to_le_bytes());
        bytes.extend_from_slice(&self.walk_phases.to_le_bytes());
    }
}

/// The vehicle gate: open ⇔ the signal shows VehicleGreen ∧ nobody is in Crossing/Clearing.
pub fn gate_open(phase: SignalPhase, occupied: bool) -> bool {
    phase == SignalPhase::VehicleGreen && !occupied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_truth_table_over_the_three_phases() {
        let table: Vec<(SignalPhase, bool, bool)> = [
            SignalPhase::VehicleGreen,
            SignalPhase::AllStop,
            SignalPhase::PedestrianCrossing,
        ]
        .iter()
        .flat_map(|p| [(*p, false), (*p, true)])
        .map(|(p, occupied)| (p, occupied, gate_open(p, occupied)))
        .collect();
        assert_eq!(
            table,
            [
                (SignalPhase::VehicleGreen, false, true),
                (SignalPhase::VehicleGreen, true, false),
                (SignalPhase::AllStop, false, false),
                (SignalPhase::AllStop, true, false),
                (SignalPhase::PedestrianCrossing, false, false),
                (SignalPhase::PedestrianCrossing, true, false),
            ]
        );
    }

    fn run(signal: &mut SignalState, steps: u32, inputs: SignalInputs) -> Vec<SignalPhase> {
        let timing = SignalTiming::default();
        let mut seen = Vec::new();
        for _ in 0..steps {
            if signal.advance(&timing, 0.05, inputs) {
                seen.push(signal.phase);
            }
        }
        seen
    }

    #[test]
    fn demand_cycles_the_signal_and_the_clearance_waits_for_the_last_crosser() {
        let mut signal = SignalState::new();
        let idle = SignalInputs {
            demand: false,
            occupied: false,
            zone_clear: true,
        };
        // Without demand the signal stays green.
        assert!(run(&mut signal, 400, idle).is_empty());
        let demand = SignalInputs {
            demand: true,
            ..idle
        };
        // Green has lasted its minimum: AllStop at once, the walk phase 2 s (40 steps) later.
        assert_eq!(run(&mut signal, 1, demand), [SignalPhase::AllStop]);
        assert_eq!(run(&mut signal, 39, demand), []);
        assert_eq!(
            run(&mut signal, 1, demand),
            [SignalPhase::PedestrianCrossing]
        );
        // 6 s of walk phase, then the clearance.
        let crossing = SignalInputs {
            demand: false,
            occupied: true,
            zone_clear: true,
        };
        assert_eq!(run(&mut signal, 120, crossing), [SignalPhase::AllStop]);
        // While someone still crosses the signal stays in AllStop, however long.
        assert_eq!(run(&mut signal, 200, crossing), []);
        assert_eq!(signal.phase, SignalPhase::AllStop);
        // Recovery order: the last crosser leaves → (AllStop held) → VehicleGreen.
        assert_eq!(run(&mut signal, 1, idle), [SignalPhase::VehicleGreen]);
        assert_eq!(signal.walk_phases, 1);
    }

    #[test]
    fn a_vehicle_in_the_conflict_zone_keeps_the_signal_green() {
        let mut signal = SignalState::new();
        let busy = SignalInputs {
            demand: true,
            occupied: false,
            zone_clear: false,
        };
        assert!(run(&mut signal, 200, busy).is_empty());
        assert_eq!(signal.phase, SignalPhase::VehicleGreen);
    }

    #[test]
    fn closing_the_gate_is_counted_once_per_closure() {
        let mut signal = SignalState::new();
        signal.set_gate(false);
        assert!(signal.gate_open);
        signal.set_gate(true);
        signal.set_gate(true);
        assert!(!signal.gate_open);
        signal.set_gate(false);
        signal.set_gate(true);
        assert_eq!(signal.gate_closures, 2);
    }
}
