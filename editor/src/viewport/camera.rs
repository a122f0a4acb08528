//! The viewport camera: orbit, pan and zoom around a target on the ground, a top-down orthographic
//! mode, framing a box, and the screen ↔ world maths that picking and labels use.
//!
//! Z is up and the ground is the XY plane. Screen points are in points relative to the viewport's
//! top-left corner (y grows down), as egui reports them.

use three_d::{vec3, InnerSpace, Mat4, Point3, SquareMatrix, Vec3, Vec4};

use super::picking::{Aabb, Ray};

/// Smallest and largest orbit distance, meters.
const DISTANCE_RANGE_M: (f32, f32) = (0.5, 50_000.0);
/// Pitch limits, radians: never exactly horizontal or vertical, so the view basis stays defined.
const PITCH_RANGE_RAD: (f32, f32) = (0.02, 1.55);

/// How the scene is projected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Projection {
    /// A perspective view orbiting the target.
    Perspective,
    /// Straight down onto the ground, orthographic, north up.
    TopDown,
}

/// An orbit camera around a target point.
#[derive(Clone, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point the camera looks at and orbits, meters.
    pub target: Vec3,
    /// Azimuth of the eye around the target, radians (0: the eye is east of the target).
    pub yaw_rad: f32,
    /// Elevation of the eye above the ground plane, radians.
    pub pitch_rad: f32,
    /// Distance from the eye to the target, meters.
    pub distance_m: f32,
    /// Vertical field of view, radians (the top-down view keeps the same scale at the target).
    pub fov_y_rad: f32,
    /// Perspective or top-down.
    pub projection: Projection,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera {
            target: vec3(0.0, 0.0, 0.0),
            yaw_rad: -1.2,
            pitch_rad: 0.75,
            distance_m: 90.0,
            fov_y_rad: 0.8,
            projection: Projection::Perspective,
        }
    }
}

/// The camera's eye and orthonormal basis for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewBasis {
    /// Eye position, meters.
    pub eye: Vec3,
    /// Unit vector the camera looks along.
    pub forward: Vec3,
    /// Unit vector to the right of the screen.
    pub right: Vec3,
    /// Unit vector to the top of the screen.
    pub up: Vec3,
}

impl OrbitCamera {
    /// The eye and basis vectors.
    pub fn basis(&self) -> ViewBasis {
        match self.projection {
            Projection::Perspective => {
                let (sin_p, cos_p) = self.pitch_rad.sin_cos();
                let (sin_y, cos_y) = self.yaw_rad.sin_cos();
                let offset = vec3(cos_p * cos_y, cos_p * sin_y, sin_p) * self.distance_m;
                let eye = self.target + offset;
                let forward = (-offset).normalize();
                let right = forward.cross(Vec3::unit_z()).normalize();
                let up = right.cross(forward);
                ViewBasis {
                    eye,
                    forward,
                    right,
                    up,
                }
            }
            Projection::TopDown => ViewBasis {
                eye: self.target + vec3(0.0, 0.0, self.distance_m),
                forward: -Vec3::unit_z(),
                right: Vec3::unit_x(),
                up: Vec3::unit_y(),
            },
        }
    }

    /// Near and far clip distances, meters, scaled with the orbit distance.
    pub fn near_far_m(&self) -> (f32, f32) {
        // A near plane at 1 % of the distance keeps depth precision for surfaces centimetres
        // apart (road, crosswalk, stripes) at any zoom.
        let near = (self.distance_m * 0.01).clamp(0.02, 50.0);
        (near, self.distance_m * 20.0 + 2_000.0)
    }

    /// Height of the view at the target's depth, meters (the top-down view's frustum height).
    pub fn view_height_m(&self) -> f32 {
        2.0 * self.distance_m * (self.fov_y_rad * 0.5).tan()
    }

    /// The view matrix (world → view).
    pub fn view_from_world(&self) -> Mat4 {
        let basis = self.basis();
        Mat4::look_at_rh(
            Point3::new(basis.eye.x, basis.eye.y, basis.eye.z),
            Point3::new(self.target.x, self.target.y, self.target.z),
            basis.up,
        )
    }

    /// The projection matrix (view → clip) for a viewport of `aspect` = width / height.
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far_m();
        match self.projection {
            Projection::Perspective => {
                three_d::perspective(three_d::radians(self.fov_y_rad), aspect, near, far)
            }
            Projection::TopDown => {
                let height = self.view_height_m();
                let width = height * aspect;
                three_d::ortho(
                    -0.5 * width,
                    0.5 * width,
                    -0.5 * height,
                    0.5 * height,
                    near,
                    far,
                )
            }
        }
    }

    /// The three-d camera for a viewport (pixels, origin bottom-left).
    pub fn three_d_camera(&self, viewport: three_d::Viewport) -> three_d::Camera {
        let basis = self.basis();
        let (near, far) = self.near_far_m();
        match self.projection {
            Projection::Perspective => three_d::Camera::new_perspective(
                viewport,
                basis.eye,
                self.target,
                basis.up,
                three_d::radians(self.fov_y_rad),
                near,
                far,
            ),
            // three-d scales an orthographic height by the eye–target distance.
            Projection::TopDown => three_d::Camera::new_orthographic(
                viewport,
                basis.eye,
                self.target,
                basis.up,
                self.view_height_m() / self.distance_m,
                near,
                far,
            ),
        }
    }

    /// The ray through `point` (points from the viewport's top-left) of a viewport `size` points
    /// wide and high. `None` for an empty viewport.
    pub fn ray(&self, point: [f32; 2], size: [f32; 2]) -> Option<Ray> {
        if size[0] <= 0.0 || size[1] <= 0.0 {
            return None;
        }
        let ndc_x = 2.0 * point[0] / size[0] - 1.0;
        let ndc_y = 1.0 - 2.0 * point[1] / size[1];
        let aspect = size[0] / size[1];
        let basis = self.basis();
        let half_height = match self.projection {
            Projection::Perspective => (self.fov_y_rad * 0.5).tan(),
            Projection::TopDown => self.view_height_m() * 0.5,
        };
        let half_width = half_height * aspect;
        let ray = match self.projection {
            Projection::Perspective => Ray::new(
                basis.eye,
                basis.forward
                    + basis.right * (ndc_x * half_width)
                    + basis.up * (ndc_y * half_height),
            ),
            Projection::TopDown => Ray::new(
                basis.eye + basis.right * (ndc_x * half_width) + basis.up * (ndc_y * half_height),
                basis.forward,
            ),
        };
        Some(ray)
    }

    /// Where `world` appears in a viewport `size` points wide and high (points from its top-left),
    /// or `None` when it is behind the camera or outside the clip depth range.
    pub fn project(&self, world: Vec3, size: [f32; 2]) -> Option<[f32; 2]> {
        if size[0] <= 0.0 || size[1] <= 0.0 {
            return None;
        }
        let clip = self.clip_from_view(size[0] / size[1])
            * self.view_from_world()
            * Vec4::new(world.x, world.y, world.z, 1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        if !(-1.0..=1.0).contains(&ndc.z) {
            return None;
        }
        Some([(ndc.x + 1.0) * 0.5 * size[0], (1.0 - ndc.y) * 0.5 * size[1]])
    }

    /// Orbits by a drag of `delta` points (only in perspective; the top-down view stays down).
    pub fn orbit(&mut self, delta: [f32; 2]) {
        if self.projection == Projection::TopDown {
            return;
        }
        self.yaw_rad -= delta[0] * 0.008;
        self.pitch_rad =
            (self.pitch_rad + delta[1] * 0.008).clamp(PITCH_RANGE_RAD.0, PITCH_RANGE_RAD.1);
    }

    /// Pans by a drag of `delta` points in a viewport `height_pt` points high, so the ground under
    /// the cursor follows it at the target's depth.
    pub fn pan(&mut self, delta: [f32; 2], height_pt: f32) {
        if height_pt <= 0.0 {
            return;
        }
        let meters_per_point = self.view_height_m() / height_pt;
        let basis = self.basis();
        // Move over the ground plane: screen-up becomes "away from the eye" on the ground.
        let ground_up = if basis.up.z.abs() > 0.999 {
            basis.up
        } else {
            let flat = vec3(basis.forward.x, basis.forward.y, 0.0);
            if flat.magnitude2() > 1e-8 {
                flat.normalize()
            } else {
                basis.up
            }
        };
        self.target -= basis.right * (delta[0] * meters_per_point);
        self.target += ground_up * (delta[1] * meters_per_point);
    }

    /// Zooms by `factor` (below 1 moves closer).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance_m =
                (self.distance_m * factor).clamp(DISTANCE_RANGE_M.0, DISTANCE_RANGE_M.1);
        }
    }

    /// Aims at `bounds` and moves back until its bounding sphere fits the view.
    pub fn frame(&mut self, bounds: &Aabb) {
        let center = bounds.center();
        let radius = (bounds.max - bounds.min).magnitude() * 0.5;
        if !(center.x.is_finite() && center.y.is_finite() && center.z.is_finite()) {
            return;
        }
        self.target = center;
        let radius = radius.max(1.0);
        let fit = radius / (self.fov_y_rad * 0.5).sin();
        self.distance_m = (fit * 1.05).clamp(DISTANCE_RANGE_M.0, DISTANCE_RANGE_M.1);
    }

    /// Switches between perspective and top-down.
    pub fn toggle_top_down(&mut self) {
        self.projection = match self.projection {
            Projection::Perspective => Projection::TopDown,
            Projection::TopDown => Projection::Perspective,
        };
    }

    /// The world → clip matrix for a viewport of `aspect`.
    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }

    /// True when the camera's matrices are usable (finite and invertible).
    pub fn is_valid(&self, aspect: f32) -> bool {
        self.clip_from_world(aspect).invert().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: [f32; 2] = [800.0, 600.0];

    fn close(a: f32, b: f32, tolerance: f32) -> bool {
        (a - b).abs() <= tolerance
    }

    fn cameras() -> Vec<OrbitCamera> {
        let top = OrbitCamera {
            target: vec3(5.0, -3.0, 0.0),
            projection: Projection::TopDown,
            ..OrbitCamera::default()
        };
        vec![
            OrbitCamera::default(),
            OrbitCamera {
                target: vec3(12.0, 4.0, 1.0),
                yaw_rad: 2.1,
                pitch_rad: 0.3,
                distance_m: 35.0,
                ..OrbitCamera::default()
            },
            top,
        ]
    }

    #[test]
    fn the_centre_ray_goes_through_the_target() {
        for camera in cameras() {
            let ray = camera.ray([400.0, 300.0], SIZE).expect("ray");
            let to_target = camera.target - ray.origin;
            let along = to_target.dot(ray.direction);
            let closest = ray.origin + ray.direction * along;
            assert!((closest - camera.target).magnitude() < 1e-3, "{camera:?}");
        }
    }

    #[test]
    fn rays_and_projection_agree_at_any_screen_point() {
        for camera in cameras() {
            for point in [[0.0, 0.0], [800.0, 600.0], [123.0, 456.0], [700.0, 20.0]] {
                let ray = camera.ray(point, SIZE).expect("ray");
                let world = ray.at(camera.distance_m * 0.7);
                let back = camera.project(world, SIZE).expect("in front");
                assert!(close(back[0], point[0], 0.05), "{point:?} → {back:?}");
                assert!(close(back[1], point[1], 0.05), "{point:?} → {back:?}");
            }
        }
    }

    #[test]
    fn projection_matches_three_d_cameras() {
        let viewport = three_d::Viewport {
            x: 0,
            y: 0,
            width: SIZE[0] as u32,
            height: SIZE[1] as u32,
        };
        for camera in cameras() {
            let three = camera.three_d_camera(viewport);
            for world in [
                vec3(0.0, 0.0, 0.0),
                vec3(10.0, 5.0, 2.0),
                vec3(-7.0, 3.0, 0.5),
            ] {
                let ours = camera.project(world, SIZE).expect("visible");
                let pixel = three.pixel_at_position(world);
                // three-d counts pixels from the bottom.
                assert!(
                    close(ours[0], pixel.x, 0.05),
                    "{world:?}: {ours:?} vs {pixel:?}"
                );
                assert!(close(SIZE[1] - ours[1], pixel.y, 0.05), "{world:?}");
            }
        }
    }

    #[test]
    fn points_behind_the_camera_do_not_project() {
        let camera = OrbitCamera::default();
        let basis = camera.basis();
        assert_eq!(camera.project(basis.eye - basis.forward * 5.0, SIZE), None);
        assert_eq!(camera.ray([1.0, 1.0], [0.0, 10.0]), None);
    }

    #[test]
    fn top_down_looks_straight_down_with_north_up() {
        let mut camera = OrbitCamera::default();
        camera.toggle_top_down();
        let north = camera.project(vec3(0.0, 10.0, 0.0), SIZE).expect("visible");
        let south = camera
            .project(vec3(0.0, -10.0, 0.0), SIZE)
            .expect("visible");
        assert!(north[1] < south[1]);
        assert!(close(north[0], south[0], 1e-3));
        // Orbiting does nothing in the top-down view.
        let before = camera.clone();
        camera.orbit([50.0, 50.0]);
        assert_eq!(camera, before);
    }

    #[test]
    fn pan_moves_the_ground_with_the_cursor_in_top_down() {
        let mut camera = OrbitCamera {
            projection: Projection::TopDown,
            ..OrbitCamera::default()
        };
        let ground = vec3(3.0, 4.0, 0.0);
        let before = camera.project(ground, SIZE).expect("visible");
        camera.pan([40.0, -25.0], SIZE[1]);
        let after = camera.project(ground, SIZE).expect("visible");
        assert!(
            close(after[0] - before[0], 40.0, 0.01),
            "{before:?} {after:?}"
        );
        assert!(
            close(after[1] - before[1], -25.0, 0.01),
            "{before:?} {after:?}"
        );
    }

    #[test]
    fn zoom_and_orbit_stay_in_range() {
        let mut camera = OrbitCamera::default();
        camera.zoom(1e-9);
        assert_eq!(camera.distance_m, DISTANCE_RANGE_M.0);
        camera.zoom(f32::NAN);
        assert_eq!(camera.distance_m, DISTANCE_RANGE_M.0);
        camera.orbit([0.0, 1e6]);
        assert_eq!(camera.pitch_rad, PITCH_RANGE_RAD.1);
        assert!(camera.is_valid(1.5));
    }

    #[test]
    fn framing_fits_the_box_in_view() {
        let mut camera = OrbitCamera::default();
        let bounds = Aabb::new(vec3(100.0, 100.0, 0.0), vec3(180.0, 120.0, 5.0));
        camera.frame(&bounds);
        assert_eq!(camera.target, bounds.center());
        for corner in bounds.corners() {
            let point = camera.project(corner, SIZE).expect("visible");
            assert!(
                (0.0..=SIZE[0]).contains(&point[0]),
                "{corner:?} at {point:?}"
            );
            assert!(
                (0.0..=SIZE[1]).contains(&point[1]),
                "{corner:?} at {point:?}"
            );
        }
    }
}
