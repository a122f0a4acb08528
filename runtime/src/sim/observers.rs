//! Observers as population reads them: each view's camera (position along its keyframed path,
//! view direction, vertical field of view, near/far), its fade and validity (changed by
//! directives), and the population center its ranges are measured from.
//!
//! Control reads the observers once per update into an [`Observation`]; every population cycle
//! of that update shares it. Frustum tests use the candidate's bounding sphere, ranges the
//! horizontal distance to the population center, the close-view check the 3D distance to the
//! camera. No valid view is never evidence that a candidate is offscreen.

use std::f64::consts::{PI, TAU};

use super::config::ObserverSpec;

/// Width over height of every view's image (the frustum's horizontal extent).
pub const VIEW_ASPECT: f64 = 16.0 / 9.0;
/// Radius of a standing ped's bounding sphere, meters (centre 0.9 m above its feet).
pub const PED_SPHERE_RADIUS_M: f64 = 0.9;

/// What directives change about an observer while the world runs.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct ObserverState {
    /// Fade amount, 0 (clear) to 1 (black).
    pub fade: f64,
    /// Whether the view delivers observations at all.
    pub valid: bool,
}

impl ObserverState {
    /// The state an observer starts with.
    pub fn initial(spec: &ObserverSpec) -> ObserverState {
        ObserverState {
            fade: spec.fade,
            valid: spec.valid,
        }
    }

    /// Canonical bytes.
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.fade.to_bits().to_le_bytes());
        bytes.push(u8::from(self.valid));
    }
}

/// One view at one Control update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Index of the observer in the scenario.
    pub observer: u16,
    /// Camera position, meters.
    pub camera_m: [f64; 3],
    /// The point ranges are measured from (horizontally), meters.
    pub center_m: [f64; 3],
    forward: [f64; 3],
    right: [f64; 3],
    up: [f64; 3],
    tan_half_fov_y: f64,
    near_m: f64,
    far_m: f64,
    /// Closer than this to the camera (3D) a visible birth is refused, meters.
    pub close_m: f64,
    /// Rout: within this horizontal distance members are retained, and births are allowed.
    pub retain_radius_m: f64,
    /// Rin: beyond this horizontal distance members are removable.
    pub remove_radius_m: f64,
    /// The normal spawn range `(min, max)`, horizontal meters from the population center.
    pub spawn_m: (f64, f64),
    /// The hidden spawn range `(min, max)` (during hidden startup).
    pub hidden_spawn_m: (f64, f64),
    /// Fade, 0..1.
    pub fade: f64,
    /// Whether the view is valid.
    pub valid: bool,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Where an observer's camera is at `frame`: its keyframed path (linear between keys, held
/// before the first and after the last), or its fixed position.
pub fn camera_at(spec: &ObserverSpec, frame: u64) -> [f64; 3] {
    let path = &spec.path;
    let Some(first) = path.first() else {
        return spec.position_m;
    };
    if frame <= first.frame {
        return first.position_m;
    }
    for pair in path.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if frame <= b.frame {
            let t = (frame - a.frame) as f64 / (b.frame - a.frame).max(1) as f64;
            return [0, 1, 2].map(|i| a.position_m[i] + (b.position_m[i] - a.position_m[i]) * t);
        }
    }
    path.last().map_or(spec.position_m, |k| k.position_m)
}

/// Where an observer's camera looks at `frame`, `(yaw_rad, pitch_rad)`: its aim keys (linear
/// between keys, the heading along the shorter way round; held before the first and after the
/// last), or its fixed yaw and pitch.
pub fn aim_at(spec: &ObserverSpec, frame: u64) -> (f64, f64) {
    let aim = &spec.aim;
    let Some(&(first_frame, yaw, pitch)) = aim.first() else {
        return (spec.yaw_rad, spec.pitch_rad);
    };
    if frame <= first_frame {
        return (yaw, pitch);
    }
    for pair in aim.windows(2) {
        let ((fa, ya, pa), (fb, yb, pb)) = (pair[0], pair[1]);
        if frame <= fb {
            let t = (frame - fa) as f64 / (fb - fa).max(1) as f64;
            let turn = (yb - ya + PI).rem_euclid(TAU) - PI;
            return (ya + turn * t, pa + (pb - pa) * t);
        }
    }
    aim.last()
        .map_or((spec.yaw_rad, spec.pitch_rad), |k| (k.1, k.2))
}

impl View {
    /// The unit direction the camera looks along (its aim at this update).
    pub fn forward(&self) -> [f64; 3] {
        self.forward
    }

    /// The view of `spec` at `frame` with state `state`. The population center is the camera
    /// unless the spec names one; a named center moves with the camera along its path.
    pub fn of(observer: u16, spec: &ObserverSpec, state: ObserverState, frame: u64) -> View {
        let camera_m = camera_at(spec, frame);
        let center_m = match spec.center_m {
            Some(center) => {
                let shift = sub(camera_m, spec.position_m);
                [0, 1, 2].map(|i| center[i] + if spec.path.is_empty() { 0.0 } else { shift[i] })
            }
            None => camera_m,
        };
        let (yaw_rad, pitch_rad) = aim_at(spec, frame);
        let (sy, cy) = yaw_rad.sin_cos();
        let (sp, cp) = pitch_rad.sin_cos();
        let forward = [cp * cy, cp * sy, sp];
        let right = [sy, -cy, 0.0];
        let up = cross(right, forward);
        View {
            observer,
            camera_m,
            center_m,
            forward,
            right,
            up,
            tan_half_fov_y: (spec.fov_y_rad * 0.5).tan(),
            near_m: spec.near_m,
            far_m: spec.far_m,
            close_m: spec.close_m,
            retain_radius_m: spec.retain_radius_m,
            remove_radius_m: spec.remove_radius_m,
            spawn_m: spec.spawn.normal(spec.retain_radius_m),
            hidden_spawn_m: spec.spawn.hidden(spec.retain_radius_m),
            fade: state.fade,
            valid: state.valid,
        }
    }

    /// Whether a sphere touches the view frustum (tested against all six planes).
    pub fn sphere_in_frustum(&self, center_m: [f64; 3], radius_m: f64) -> bool {
        let v = sub(center_m, self.camera_m);
        let z = dot(v, self.forward);
        if z < self.near_m - radius_m || z > self.far_m + radius_m {
            return false;
        }
        let side = |offset: f64, tan: f64| (offset.abs() - z * tan) / (1.0 + tan * tan).sqrt();
        side(dot(v, self.up), self.tan_half_fov_y) <= radius_m
            && side(dot(v, self.right), self.tan_half_fov_y * VIEW_ASPECT) <= radius_m
    }

    /// Whether a ped standing with its feet at `feet_m` is (partly) in view.
    pub fn sees_ped(&self, feet_m: [f64; 3]) -> bool {
        let centre = [feet_m[0], feet_m[1], feet_m[2] + PED_SPHERE_RADIUS_M];
        self.sphere_in_frustum(centre, PED_SPHERE_RADIUS_M)
    }

    /// Horizontal distance from the population center, meters.
    pub fn horizontal_distance_m(&self, point_m: [f64; 3]) -> f64 {
        (point_m[0] - self.center_m[0]).hypot(point_m[1] - self.center_m[1])
    }

    /// The spawn range `(min, max)` that applies: the hidden one during hidden startup.
    pub fn spawn_range_m(&self, hidden: bool) -> (f64, f64) {
        if hidden {
            self.hidden_spawn_m
        } else {
            self.spawn_m
        }
    }

    /// 3D distance from the camera, meters.
    pub fn camera_distance_m(&self, point_m: [f64; 3]) -> f64 {
        let v = sub(point_m, self.camera_m);
        dot(v, v).sqrt()
    }
}

/// Every view at one Control update: what all population cycles of that update read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observation {
    /// The views in scenario order, valid or not.
    pub views: Vec<View>,
}

impl Observation {
    /// The observation of `specs` with `states` at `frame`.
    pub fn take(specs: &[ObserverSpec], states: &[ObserverState], frame: u64) -> Observation {
        Observation {
            views: specs
                .iter()
                .zip(states)
                .enumerate()
                .map(|(i, (spec, state))| View::of(i as u16, spec, *state, frame))
                .collect(),
        }
    }

    /// The valid views.
    pub fn valid(&self) -> impl Iterator<Item = &View> {
        self.views.iter().filter(|v| v.valid)
    }

    /// Whether at least one view is valid.
    pub fn any_valid(&self) -> bool {
        self.valid().next().is_some()
    }

    /// Whether every view is valid (and there is one).
    pub fn all_valid(&self) -> bool {
        !self.views.is_empty() && self.views.iter().all(|v| v.valid)
    }

    /// The smallest fade over the views, `None` without views.
    pub fn min_fade(&self) -> Option<f64> {
        self.views.iter().map(|v| v.fade).reduce(f64::min)
    }

    /// Whether a ped at `feet_m` is outside every view's frustum with every view valid: false
    /// without views or with any view invalid (a missing observation is not evidence of being
    /// offscreen). Band removal, safety at retirement and at a reuse destination all ask this.
    pub fn offscreen_for_all(&self, feet_m: [f64; 3]) -> bool {
        self.all_valid() && self.views.iter().all(|v| !v.sees_ped(feet_m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::config::ObserverKey;

    fn spec() -> ObserverSpec {
        ObserverSpec {
            id: "cam".into(),
            position_m: [0.0, 0.0, 1.7],
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            fov_y_rad: 1.0,
            near_m: 0.1,
            far_m: 100.0,
            retain_radius_m: 40.0,
            remove_radius_m: 80.0,
            close_m: 3.0,
            spawn: crate::sim::config::SpawnRanges::default(),
            center_m: None,
            path: Vec::new(),
            aim: Vec::new(),
            fade: 0.0,
            valid: true,
        }
    }

    #[test]
    fn the_frustum_tests_the_bounding_sphere_against_every_plane() {
        let view = View::of(0, &spec(), ObserverState::initial(&spec()), 0);
        assert!(view.sees_ped([10.0, 0.0, 0.0]), "straight ahead");
        assert!(!view.sees_ped([-10.0, 0.0, 0.0]), "behind");
        assert!(!view.sees_ped([200.0, 0.0, 0.0]), "beyond far");
        // tan(0.5) × 16/9 ≈ 0.971: at 10 m ahead the half-width is 9.71 m; the plane distance
        // of a sphere at lateral offset y is (y − 9.71) / √(1 + 0.971²) ≈ (y − 9.71) / 1.394.
        assert!(
            view.sees_ped([10.0, 10.9, 0.0]),
            "just outside the edge, sphere overlaps"
        );
        assert!(!view.sees_ped([10.0, 11.1, 0.0]), "sphere wholly outside");
    }

    #[test]
    fn a_keyframed_camera_moves_and_its_center_follows() {
        let mut s = spec();
        s.center_m = Some([1.0, 0.0, 0.0]);
        s.path = vec![
            ObserverKey {
                frame: 10,
                position_m: [0.0, 0.0, 1.7],
            },
            ObserverKey {
                frame: 20,
                position_m: [100.0, 0.0, 1.7],
            },
        ];
        assert_eq!(camera_at(&s, 0), [0.0, 0.0, 1.7]);
        assert_eq!(camera_at(&s, 15), [50.0, 0.0, 1.7]);
        assert_eq!(camera_at(&s, 99), [100.0, 0.0, 1.7]);
        let view = View::of(0, &s, ObserverState::initial(&s), 15);
        assert_eq!(view.center_m, [51.0, 0.0, 0.0]);
        assert_eq!(view.horizontal_distance_m([51.0, 3.0, 9.0]), 3.0);
        assert!((view.camera_distance_m([50.0, 0.0, 4.7]) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_aim_turns_the_shorter_way_between_keys_and_holds_outside_them() {
        let mut s = spec();
        let deg = |d: f64| d.to_radians();
        s.aim = vec![(10, deg(170.0), 0.0), (20, deg(-170.0), deg(-20.0))];
        assert_eq!(aim_at(&s, 0), (deg(170.0), 0.0));
        // Halfway: 180° (through the back, not through 0°), pitch halfway down.
        let (yaw, pitch) = aim_at(&s, 15);
        assert!((yaw - deg(180.0)).abs() < 1e-12, "{yaw}");
        assert!((pitch - deg(-10.0)).abs() < 1e-12, "{pitch}");
        assert_eq!(aim_at(&s, 99), (deg(-170.0), deg(-20.0)));
        // Without keys the fixed aim holds.
        assert_eq!(aim_at(&spec(), 15), (0.0, 0.0));
        // The view follows: at frame 20 the camera looks back along −X (slightly south).
        let view = View::of(0, &s, ObserverState::initial(&s), 20);
        assert!(view.sees_ped([-10.0, 2.0, -4.0]));
        assert!(!view.sees_ped([10.0, 0.0, 0.0]));
    }

    #[test]
    fn no_valid_view_never_says_offscreen() {
        let s = spec();
        let hidden = ObserverState {
            fade: 1.0,
            valid: false,
        };
        let observation = Observation::take(std::slice::from_ref(&s), &[hidden], 0);
        assert!(!observation.any_valid());
        assert!(!observation.offscreen_for_all([-50.0, 0.0, 0.0]));
        let observation =
            Observation::take(std::slice::from_ref(&s), &[ObserverState::initial(&s)], 0);
        assert!(observation.offscreen_for_all([-50.0, 0.0, 0.0]));
        assert!(!observation.offscreen_for_all([50.0, 0.0, 0.0]));
    }

    #[test]
    fn one_invalid_view_among_valid_ones_is_no_evidence_of_offscreen() {
        let ahead = spec();
        let mut behind = spec();
        behind.yaw_rad = std::f64::consts::PI;
        let specs = [ahead.clone(), behind.clone()];
        let both = [
            ObserverState::initial(&ahead),
            ObserverState::initial(&behind),
        ];
        // 50 m to the side, outside both frustums: offscreen while both views are valid.
        let side = [0.0, 50.0, 0.0];
        assert!(Observation::take(&specs, &both, 0).offscreen_for_all(side));
        let one_missing = [
            both[0],
            ObserverState {
                fade: 0.0,
                valid: false,
            },
        ];
        let observation = Observation::take(&specs, &one_missing, 0);
        assert!(observation.any_valid());
        assert!(!observation.offscreen_for_all(side));
    }
}
