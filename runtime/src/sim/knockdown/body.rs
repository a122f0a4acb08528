//! One knocked-down ped's record: its physics handles, recovery, session, retained intent and
//! logical anchor, and how one step's sample is read from the physics scene (support trace with
//! the walkable projection, core speeds, standing clearance against the scene's obstacles).

use super::physics::{BodyHandles, BodyState, PhysicsScene, SurfaceHit};
use super::recovery::{Clearance, Recovery, RecoverySample};
use crate::project::Vec2;
use crate::sim::state::{AgentHandle, AgentState};

/// What the recovery reads about the world besides the physics scene.
pub struct RecoveryEnv<'a> {
    /// Whether a ground point lies on the pedestrian space (the walkable projection).
    pub walkable: &'a dyn Fn(Vec2) -> bool,
    /// Whether another ped (not `handle`) stands too close to `point` for it to stand up.
    pub ped_in_the_way: &'a dyn Fn(AgentHandle, Vec2) -> bool,
    /// Whether a standing capsule with its feet at a point overlaps an obstacle of the scene
    /// (`physics::standing_blocked` over the world's obstacle set).
    pub standing_blocked: &'a dyn Fn([f64; 3]) -> bool,
}

/// A knocked-down ped.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct KnockedBody {
    /// This knockdown's session (ascending per world, never reused).
    pub session: u32,
    /// Its body in the physics scene.
    pub handles: BodyHandles,
    /// Its recovery.
    pub recovery: Recovery,
    /// What the ped was doing (or was told to do since): resumed after recovery.
    pub intent: AgentState,
    /// A cancel ended the intent: recovery completes, nothing resumes.
    pub cancelled: bool,
    /// The logical anchor: the last supported pelvis position on the ground, meters.
    pub anchor: Vec2,
    /// Height of the surface under the anchor, meters.
    pub surface_z_m: f64,
    /// Facing on the ground (the body's feet → head direction once it lies).
    pub heading: Vec2,
}

impl KnockedBody {
    /// Reads this step's sample: support (trace below the pelvis, then the walkable
    /// projection), the core speeds and the clearance at the anchor. Moves the anchor to the
    /// supported point while physics drives the body.
    pub fn sample(
        &mut self,
        handle: AgentHandle,
        scene: &PhysicsScene,
        env: &RecoveryEnv<'_>,
    ) -> RecoverySample {
        let Some(state) = scene.body_state(self.handles) else {
            return RecoverySample::default();
        };
        let supported = match scene.surface_below(state.pelvis_m) {
            SurfaceHit::Ground(point) => {
                let ground = Vec2 {
                    x: point[0],
                    y: point[1],
                };
                let walkable = (env.walkable)(ground);
                if walkable && self.recovery.physics_active() {
                    self.anchor = ground;
                    self.surface_z_m = point[2];
                }
                walkable
            }
            SurfaceHit::Steep | SurfaceHit::Prop | SurfaceHit::Nothing => false,
        };
        if self.recovery.physics_active() {
            if let Some(heading) = horizontal(state.axis) {
                self.heading = heading;
            }
        }
        let feet = [self.anchor.x, self.anchor.y, self.surface_z_m];
        let clearance = if (env.standing_blocked)(feet) {
            Clearance::BlockedByProp
        } else if (env.ped_in_the_way)(handle, self.anchor) {
            Clearance::BlockedByPed
        } else {
            Clearance::Clear
        };
        RecoverySample {
            supported,
            linear_m_s: core_linear_m_s(&state),
            angular_rad_s: length(state.angular_rad_s),
            clearance,
        }
    }
}

/// The specification's core linear speed: the larger of the pelvis speed and half the upper-spine
/// speed (limb jitter does not keep a lying body from settling).
pub fn core_linear_m_s(state: &BodyState) -> f64 {
    length(state.pelvis_velocity_m_s).max(0.5 * length(state.upper_velocity_m_s))
}

fn length(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The horizontal unit direction of `axis`, if it has one.
fn horizontal(axis: [f64; 3]) -> Option<Vec2> {
    let len = axis[0].hypot(axis[1]);
    (len > 1e-6 && len.is_finite()).then(|| Vec2 {
        x: axis[0] / len,
        y: axis[1] / len,
    })
}
