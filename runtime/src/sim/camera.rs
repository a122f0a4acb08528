//! The editor's camera as an observer: a driver setting of a world, like its wall clock (never in
//! a snapshot or the state digest). While set, one view at the camera replaces every scenario
//! view for tier assignment and, when it also drives admission, for the population's gates; the
//! scenario's observers keep their own state (fade, validity) for when it is cleared.
//!
//! Unset (the default, and always for `stagecraft simulate`, `verify` and the tests) the world
//! runs exactly as its scenario says. Set, the run depends on where the camera was at every
//! step, so its digests are no longer the scenario's: a Timeline that steps back re-simulates
//! with the camera where it is then.

use super::config::{ObserverSpec, SpawnRanges};
use super::observers::{Observation, ObserverState, View};

/// Ranges a camera observer uses when the scenario has no observer to take them from: retained
/// within, meters.
pub const DEFAULT_RETAIN_RADIUS_M: f64 = 60.0;
/// … removable beyond, meters.
pub const DEFAULT_REMOVE_RADIUS_M: f64 = 90.0;

/// Where the camera is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraObserver {
    /// The eye, meters.
    pub eye_m: [f64; 3],
    /// The point it looks at: the population center tier distances are measured from, meters.
    pub target_m: [f64; 3],
    /// Vertical field of view, radians.
    pub fov_y_rad: f64,
    /// Whether it also replaces the scenario's views for admission (births and retirement).
    pub drives_admission: bool,
}

impl CameraObserver {
    /// The observer spec of the camera: the scenario's first observer's ranges and clip planes
    /// (or defaults without one), at the eye, aimed at the target, its center the target.
    pub fn spec(&self, scenario_observers: &[ObserverSpec]) -> ObserverSpec {
        let (dx, dy, dz) = (
            self.target_m[0] - self.eye_m[0],
            self.target_m[1] - self.eye_m[1],
            self.target_m[2] - self.eye_m[2],
        );
        let yaw_rad = if dx == 0.0 && dy == 0.0 {
            0.0
        } else {
            dy.atan2(dx)
        };
        let pitch_rad = dz.atan2(dx.hypot(dy));
        let base = scenario_observers.first();
        ObserverSpec {
            id: "editor-camera".into(),
            position_m: self.eye_m,
            yaw_rad,
            pitch_rad,
            fov_y_rad: self.fov_y_rad,
            near_m: base.map_or(0.1, |b| b.near_m),
            far_m: base.map_or(1000.0, |b| b.far_m),
            retain_radius_m: base.map_or(DEFAULT_RETAIN_RADIUS_M, |b| b.retain_radius_m),
            remove_radius_m: base.map_or(DEFAULT_REMOVE_RADIUS_M, |b| b.remove_radius_m),
            close_m: base.map_or(3.0, |b| b.close_m),
            spawn: base.map_or(SpawnRanges::default(), |b| b.spawn),
            center_m: Some(self.target_m),
            path: Vec::new(),
            aim: Vec::new(),
            fade: 0.0,
            valid: true,
        }
    }

    /// The observation of the camera alone at `frame` (clear and valid).
    pub fn observation(&self, scenario_observers: &[ObserverSpec], frame: u64) -> Observation {
        let spec = self.spec(scenario_observers);
        let state = ObserverState::initial(&spec);
        Observation {
            views: vec![View::of(0, &spec, state, frame)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_view_looks_at_its_target_and_measures_from_it() {
        let camera = CameraObserver {
            eye_m: [0.0, -30.0, 30.0],
            target_m: [0.0, 0.0, 0.0],
            fov_y_rad: 0.8,
            drives_admission: false,
        };
        let spec = camera.spec(&[]);
        assert!((spec.yaw_rad - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert!((spec.pitch_rad + std::f64::consts::FRAC_PI_4).abs() < 1e-12);
        assert_eq!(spec.retain_radius_m, DEFAULT_RETAIN_RADIUS_M);
        let observation = camera.observation(&[], 7);
        assert_eq!(observation.views.len(), 1);
        let view = &observation.views[0];
        assert_eq!(view.center_m, [0.0, 0.0, 0.0]);
        assert_eq!(view.horizontal_distance_m([3.0, 4.0, 0.0]), 5.0);
        assert!(view.sees_ped([0.0, 0.0, 0.0]), "the target is in view");
        assert!(view.valid);
    }
}
