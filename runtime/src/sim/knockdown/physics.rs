//! The rigid-body world of knocked-down peds (`rapier3d-f64` with `enhanced-determinism`): the
//! ground plane and the scene's obstacles (`sim::obstacles`: props, scene objects, barriers and
//! placed obstacles, as the set's upright solids) as fixed colliders, one dynamic capsule per
//! knocked-down ped; stepping in substeps of at most [`MAX_SUBSTEP_S`]; the support trace. The
//! standing-clearance test asks the obstacle set ([`standing_blocked`]).
//!
//! Everything that decides the next step lives in [`PhysicsScene`] (bodies, colliders, islands,
//! broad and narrow phase with their contact caches), so a clone of it is a complete snapshot.
//! The pipeline and the CCD solver are workspace: a fresh one is made for every substep, so no
//! hidden history can make a restored world step differently from one that never stopped.

use rapier3d_f64::prelude::*;

use crate::sim::obstacles::{ObstacleSet, Solid};

/// Radius of a knocked-down body's capsule, meters.
pub const BODY_RADIUS_M: f64 = 0.2;
/// Half the length of the capsule's segment (caps excluded), meters: 1.7 m tall in all.
pub const BODY_HALF_SEGMENT_M: f64 = 0.65;
/// Mass of a body, kilograms.
pub const BODY_MASS_KG: f64 = 70.0;
/// Longest physics substep, seconds (a 0.05 s fixed step runs as three).
pub const MAX_SUBSTEP_S: f64 = 1.0 / 60.0;
/// Gravity, meters per second squared (Z up).
pub const GRAVITY_M_S2: f64 = 9.81;
/// How far below the pelvis the support trace looks for a surface, meters (the standing
/// pelvis height plus a margin, so an upright body touching the ground is supported).
pub const SUPPORT_TRACE_M: f64 = BODY_HALF_SEGMENT_M + BODY_RADIUS_M + 0.15;
/// A supporting surface's normal must be within 45° of up: its Z component at least this.
pub const MIN_SUPPORT_NORMAL_Z: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// Radius of the standing capsule the clearance test places at the recovery position, meters
/// (the walkers' body radius).
pub const STANDING_RADIUS_M: f64 = crate::sim::walk::body::BODY_RADIUS_M;
/// Height of the standing capsule, meters.
pub const STANDING_HEIGHT_M: f64 = 1.8;
/// The standing capsule is lifted this far off the surface so that it does not touch it.
pub const STANDING_ALLOWANCE_M: f64 = 0.02;
/// Linear and angular damping of a body (air drag and rolling resistance, which a capsule on a
/// plane would otherwise lack), per second.
pub const LINEAR_DAMPING: f64 = 0.3;
/// See [`LINEAR_DAMPING`].
pub const ANGULAR_DAMPING: f64 = 1.5;

/// What a collider is, kept in its user data.
const GROUND: u128 = 1;
const BLOCKER: u128 = 2;
const BODY: u128 = 3;

/// The knocked-down bodies' physics state: every set rapier steps, plus the ground's handle.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct PhysicsScene {
    params: IntegrationParameters,
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
    /// Fixed colliders: the ground and the obstacles.
    statics: usize,
    /// The obstacles' colliders, in the set's solid order.
    obstacle_colliders: Vec<ColliderHandle>,
    /// The scene revision of the obstacle set they were made from.
    obstacle_revision: u32,
}

impl std::fmt::Debug for PhysicsScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhysicsScene")
            .field("bodies", &self.bodies.len())
            .field("colliders", &self.colliders.len())
            .field("statics", &self.statics)
            .finish()
    }
}

/// Handles of one knocked-down body in the scene.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyHandles {
    /// The rigid body.
    pub body: RigidBodyHandle,
    /// Its capsule.
    pub collider: ColliderHandle,
}

/// A body's state as the recovery reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Centre of the capsule (the pelvis), meters.
    pub pelvis_m: [f64; 3],
    /// Velocity of the pelvis, meters per second.
    pub pelvis_velocity_m_s: [f64; 3],
    /// Velocity of the upper end of the segment (the upper spine), meters per second.
    pub upper_velocity_m_s: [f64; 3],
    /// Angular velocity, radians per second.
    pub angular_rad_s: [f64; 3],
    /// The capsule's axis (feet → head), unit.
    pub axis: [f64; 3],
    /// Orientation quaternion `(x, y, z, w)`.
    pub rotation: [f64; 4],
    /// Whether rapier has put the body to sleep.
    pub sleeping: bool,
    /// Whether physics drives the body (false once frozen for the blend).
    pub dynamic: bool,
}

/// What the support trace below a pelvis found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SurfaceHit {
    /// The ground, at this point, with an acceptable normal.
    Ground([f64; 3]),
    /// The ground, but its normal is too steep.
    Steep,
    /// A prop (props are never walkable surfaces).
    Prop,
    /// Nothing within [`SUPPORT_TRACE_M`].
    Nothing,
}

impl PhysicsScene {
    /// The scene of `obstacles`: the ground plane (z = 0) and every obstacle's upright solids.
    pub fn new(obstacles: &ObstacleSet) -> PhysicsScene {
        let mut colliders = ColliderSet::new();
        let ground = ColliderBuilder::new(SharedShape::halfspace(Vector::Z));
        colliders.insert(ground.friction(0.8).user_data(GROUND));
        let mut scene = PhysicsScene {
            params: IntegrationParameters::default(),
            islands: IslandManager::new(),
            broad_phase: BroadPhaseBvh::new(),
            narrow_phase: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            colliders,
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            soft_bodies: SoftBodySet::new(),
            statics: 1,
            obstacle_colliders: Vec::new(),
            obstacle_revision: obstacles.revision(),
        };
        scene.insert_obstacles(obstacles);
        scene
    }

    fn insert_obstacles(&mut self, obstacles: &ObstacleSet) {
        for solid in obstacles.solids() {
            let builder = match solid {
                Solid::Cylinder(pose, c) => {
                    ColliderBuilder::cylinder(c.half_height, c.radius).position(*pose)
                }
                Solid::Cuboid(pose, c) => {
                    let h = c.half_extents;
                    ColliderBuilder::cuboid(h.x, h.y, h.z).position(*pose)
                }
            };
            let handle = self
                .colliders
                .insert(builder.friction(0.6).user_data(BLOCKER));
            self.obstacle_colliders.push(handle);
        }
        self.statics = 1 + self.obstacle_colliders.len();
    }

    /// Makes the fixed obstacle colliders those of `obstacles` when the scene changed since they
    /// were made (a directive placed or removed an obstacle); the bodies are woken.
    pub fn sync_obstacles(&mut self, obstacles: &ObstacleSet) {
        if obstacles.revision() == self.obstacle_revision {
            return;
        }
        for handle in std::mem::take(&mut self.obstacle_colliders) {
            self.colliders.remove(
                handle,
                &mut self.islands,
                &mut self.bodies,
                &mut self.soft_bodies,
                true,
            );
        }
        self.insert_obstacles(obstacles);
        self.obstacle_revision = obstacles.revision();
        for (_, body) in self.bodies.iter_mut() {
            body.wake_up(true);
        }
    }

    /// Fixed colliders (the ground and the obstacles).
    pub fn static_count(&self) -> usize {
        self.statics
    }

    /// Bodies in the scene (knocked down or frozen for their blend).
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Adds an upright body whose feet stand at `feet_m`, moving at `velocity_m_s`, then applies
    /// `impulse_n_s` at the upper end of its segment (the chest), so it topples.
    pub fn add_body(
        &mut self,
        feet_m: [f64; 2],
        velocity_m_s: [f64; 2],
        impulse_n_s: [f64; 3],
    ) -> BodyHandles {
        let centre_z = BODY_HALF_SEGMENT_M + BODY_RADIUS_M + STANDING_ALLOWANCE_M;
        let builder = RigidBodyBuilder::dynamic()
            .translation(Vector::new(feet_m[0], feet_m[1], centre_z))
            .linvel(Vector::new(velocity_m_s[0], velocity_m_s[1], 0.0))
            .linear_damping(LINEAR_DAMPING)
            .angular_damping(ANGULAR_DAMPING);
        let body = self.bodies.insert(builder);
        let capsule = ColliderBuilder::capsule_z(BODY_HALF_SEGMENT_M, BODY_RADIUS_M)
            .mass(BODY_MASS_KG)
            .friction(0.8)
            .restitution(0.0)
            .user_data(BODY);
        let collider = self
            .colliders
            .insert_with_parent(capsule, body, &mut self.bodies);
        if let Some(rb) = self.bodies.get_mut(body) {
            let chest = rb
                .position()
                .transform_point(Vector::Z * BODY_HALF_SEGMENT_M);
            let impulse = Vector::new(impulse_n_s[0], impulse_n_s[1], impulse_n_s[2]);
            rb.apply_impulse_at_point(impulse, chest, true);
        }
        BodyHandles { body, collider }
    }

    /// Advances every dynamic body by `dt_s` in equal substeps of at most [`MAX_SUBSTEP_S`].
    pub fn step(&mut self, dt_s: f64) {
        if !dt_s.is_finite() || dt_s <= 0.0 || self.bodies.is_empty() {
            return;
        }
        let substeps = (dt_s / MAX_SUBSTEP_S - 1e-9).ceil().max(1.0);
        self.params.dt = dt_s / substeps;
        for _ in 0..substeps as u32 {
            // Workspace only (see the module docs): fresh for every substep.
            let mut pipeline = PhysicsPipeline::new();
            let mut ccd = CCDSolver::new();
            pipeline.step(
                Vector::Z * -GRAVITY_M_S2,
                &self.params,
                &mut self.islands,
                &mut self.broad_phase,
                &mut self.narrow_phase,
                &mut self.bodies,
                &mut self.colliders,
                &mut self.impulse_joints,
                &mut self.multibody_joints,
                &mut self.soft_bodies,
                &mut ccd,
                &(),
                &(),
            );
        }
    }

    /// The state of a body, if the scene has it.
    pub fn body_state(&self, handles: BodyHandles) -> Option<BodyState> {
        let rb = self.bodies.get(handles.body)?;
        let pose = rb.position();
        let upper = pose.transform_point(Vector::Z * BODY_HALF_SEGMENT_M);
        let axis = pose.transform_vector(Vector::Z);
        let q = pose.rotation;
        Some(BodyState {
            pelvis_m: xyz(pose.translation),
            pelvis_velocity_m_s: xyz(rb.linvel()),
            upper_velocity_m_s: xyz(rb.velocity_at_point(upper)),
            angular_rad_s: xyz(rb.angvel()),
            axis: xyz(axis),
            rotation: [q.x, q.y, q.z, q.w],
            sleeping: rb.is_sleeping(),
            dynamic: rb.is_dynamic(),
        })
    }

    /// Stops simulating a body (the blend owns its pose now): it becomes fixed where it lies,
    /// with no velocity. Physics is never re-enabled for it.
    pub fn freeze(&mut self, handles: BodyHandles) {
        if let Some(rb) = self.bodies.get_mut(handles.body) {
            rb.set_linvel(Vector::ZERO, false);
            rb.set_angvel(Vector::ZERO, false);
            rb.set_body_type(RigidBodyType::Fixed, false);
        }
    }

    /// Removes a body and its capsule.
    pub fn remove(&mut self, handles: BodyHandles) {
        self.bodies.remove(
            handles.body,
            &mut self.islands,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.soft_bodies,
            true,
        );
    }

    /// Whether both handles name live entries of the scene (a restore preflight).
    pub fn has(&self, handles: BodyHandles) -> bool {
        self.bodies.contains(handles.body) && self.colliders.contains(handles.collider)
    }

    /// Traces down from `pelvis_m` for the first fixed surface within [`SUPPORT_TRACE_M`].
    pub fn surface_below(&self, pelvis_m: [f64; 3]) -> SurfaceHit {
        let statics_only = |_: ColliderHandle, c: &Collider| c.user_data != BODY;
        let filter = QueryFilter::new().predicate(&statics_only);
        let query = self.broad_phase.as_query_pipeline(
            self.narrow_phase.query_dispatcher(),
            &self.bodies,
            &self.colliders,
            filter,
        );
        let origin = Vector::new(pelvis_m[0], pelvis_m[1], pelvis_m[2]);
        let ray = Ray::new(origin, -Vector::Z);
        let Some((handle, hit)) = query.cast_ray_and_get_normal(&ray, SUPPORT_TRACE_M, true) else {
            return SurfaceHit::Nothing;
        };
        match self.colliders.get(handle).map(|c| c.user_data) {
            Some(GROUND) if hit.normal.z >= MIN_SUPPORT_NORMAL_Z => {
                SurfaceHit::Ground(xyz(origin - Vector::Z * hit.time_of_impact))
            }
            Some(GROUND) => SurfaceHit::Steep,
            _ => SurfaceHit::Prop,
        }
    }

    /// Appends the canonical bytes of a body's pose and velocities (floats by their bits).
    pub fn write_body(&self, handles: BodyHandles, bytes: &mut Vec<u8>) {
        let (index, generation) = handles.body.into_raw_parts();
        bytes.extend_from_slice(&index.to_le_bytes());
        bytes.extend_from_slice(&generation.to_le_bytes());
        match self.body_state(handles) {
            Some(s) => {
                bytes.push(1);
                let floats = s
                    .pelvis_m
                    .iter()
                    .chain(&s.pelvis_velocity_m_s)
                    .chain(&s.angular_rad_s)
                    .chain(&s.rotation);
                for v in floats {
                    bytes.extend_from_slice(&v.to_bits().to_le_bytes());
                }
                bytes.push(u8::from(s.sleeping));
                bytes.push(u8::from(s.dynamic));
            }
            None => bytes.push(0),
        }
    }
}

#[cfg(test)]
impl PhysicsScene {
    /// Changes the first body's linear velocity by one bit (a digest must notice).
    pub(super) fn nudge_for_test(&mut self) {
        if let Some((_, rb)) = self.bodies.iter_mut().next() {
            let v = rb.linvel();
            rb.set_linvel(
                Vector::new(f64::from_bits(v.x.to_bits() ^ 1), v.y, v.z),
                false,
            );
        }
    }
}

fn xyz(v: Vector) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Whether a standing capsule whose feet are at `feet_m` overlaps an obstacle of the scene
/// (recovery's standing-clearance test).
pub fn standing_blocked(obstacles: &ObstacleSet, feet_m: [f64; 3]) -> bool {
    obstacles.capsule_blocked(
        feet_m,
        STANDING_RADIUS_M,
        STANDING_HEIGHT_M,
        STANDING_ALLOWANCE_M,
    )
}
