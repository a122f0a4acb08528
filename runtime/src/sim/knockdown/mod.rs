//! Knockdown and recovery (tasks-and-directives specification): an impulse hands a ped's body to a
//! real rigid-body engine (`physics`), its recovery (`recovery`) follows the specification's
//! criteria, and on completion the ped resumes its retained intent from where its body actually
//! lies — or stays still if that intent was cancelled meanwhile (a cancelled intent is never
//! restored).
//!
//! The interface is narrow: [`Knockdowns::knock_down`] (handle, impulse → suspended, with a
//! session), [`Knockdowns::step`] (advance physics and every recovery by one fixed step →
//! [`KnockdownUpdate`]s: anchors, transitions with reasons, completions), the retained intent
//! ([`Knockdowns::intent`], [`Knockdowns::set_intent`], [`Knockdowns::cancel_intent`]) and the
//! live criteria of a ped for a panel ([`Knockdowns::criteria`]). `phase` wires it into today's
//! world: the `Knockdown` directive, the body suspension (`AgentState::KnockedDown`, which no
//! walker moves), events, and the resume.
//!
//! The physics scene is made on the first knockdown; a world that never knocks anyone down
//! holds none, and its state digest is what it was before this module existed.

mod body;
pub(in crate::sim) mod phase;
pub mod physics;
pub mod recovery;
mod snapshot;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use crate::sim::state::{KnockdownReason, RecoveryPhase};
pub use body::{core_linear_m_s, KnockedBody, RecoveryEnv};
pub use physics::{BodyHandles, BodyState, PhysicsScene, SurfaceHit};
pub use recovery::{Clearance, Recovery, RecoverySample, Transition};

use crate::project::Vec2;
use crate::sim::obstacles::ObstacleSet;
use crate::sim::state::{AgentHandle, AgentState};

/// The largest impulse a knockdown accepts (owned by the compiled configuration, which
/// refuses a larger one).
pub use crate::sim::config::MAX_IMPULSE_N_S;

/// What a knockdown needs to know about the ped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnockdownRequest {
    /// The ped.
    pub handle: AgentHandle,
    /// Where its feet are, meters.
    pub position: Vec2,
    /// Its facing (kept until the body lies down).
    pub facing: Vec2,
    /// Its velocity on the ground, meters per second (the body starts with it).
    pub velocity_m_s: Vec2,
    /// The impulse applied at the chest, newton-seconds.
    pub impulse_n_s: [f64; 3],
    /// What it was doing: resumed after recovery.
    pub intent: AgentState,
}

/// What one step did to one knocked-down ped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnockdownUpdate {
    /// The ped.
    pub handle: AgentHandle,
    /// Its knockdown session.
    pub session: u32,
    /// The logical anchor (the ped's position while physics owns it), meters.
    pub anchor: Vec2,
    /// Its heading on the ground.
    pub heading: Vec2,
    /// The phase change of this step, if any.
    pub transition: Option<Transition>,
    /// Set when the recovery completed: what resumes.
    pub resume: Option<Resume>,
}

/// What happens when a recovery completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// The retained intent resumes from the actual position (the task layer replans to its
    /// retained goal).
    Intent(AgentState),
    /// The intent was cancelled: the ped stays where it stands.
    Ended,
}

/// The live recovery criteria of one ped (a panel reads these).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecoveryCriteria {
    /// The knockdown session.
    pub session: u32,
    /// The recovery phase.
    pub phase: RecoveryPhase,
    /// Physics age, seconds.
    pub age_s: f64,
    /// Whether a walkable surface supports the body.
    pub supported: bool,
    /// Core linear speed, meters per second.
    pub linear_m_s: f64,
    /// Angular speed, degrees per second.
    pub angular_deg_s: f64,
    /// Continuous stable time, seconds.
    pub stable_s: f64,
    /// Standing clearance at the recovery position.
    pub clearance: Clearance,
    /// Blend progress, 0..1 (never decreases).
    pub blend_progress: f64,
    /// Standing pose weight (smoothstep of the progress).
    pub blend_weight: f64,
    /// The retained intent.
    pub intent: AgentState,
    /// Whether that intent was cancelled.
    pub cancelled: bool,
    /// The body's pose now, if it is in the scene.
    pub body: Option<BodyState>,
}

/// Every knocked-down ped of a world and the physics scene their bodies live in.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Knockdowns {
    scene: Option<PhysicsScene>,
    bodies: BTreeMap<AgentHandle, KnockedBody>,
    next_session: u32,
}

impl Knockdowns {
    /// Whether no ped was ever knocked down in this world (no scene exists).
    pub fn never_used(&self) -> bool {
        self.scene.is_none()
    }

    /// Peds knocked down now.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// True when nobody is knocked down now.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// The knockdown session of `handle`, if it is knocked down now.
    pub fn session(&self, handle: AgentHandle) -> Option<u32> {
        self.bodies.get(&handle).map(|b| b.session)
    }

    /// Whether `handle` is knocked down now.
    pub fn is_down(&self, handle: AgentHandle) -> bool {
        self.bodies.contains_key(&handle)
    }

    /// The knocked-down peds, ascending by handle.
    pub fn handles(&self) -> impl Iterator<Item = AgentHandle> + '_ {
        self.bodies.keys().copied()
    }

    /// The physics scene, once someone was knocked down.
    pub fn scene(&self) -> Option<&PhysicsScene> {
        self.scene.as_ref()
    }

    /// Knocks a ped down: its body enters the physics scene (made from `obstacles` on first
    /// use) with the ped's velocity, and the impulse is applied. Returns the new session. The
    /// caller checks the refusals (pooled, already down, vehicle intent) first.
    pub fn knock_down(&mut self, obstacles: &ObstacleSet, request: KnockdownRequest) -> u32 {
        let scene = self
            .scene
            .get_or_insert_with(|| PhysicsScene::new(obstacles));
        scene.sync_obstacles(obstacles);
        let p = request.position;
        let v = request.velocity_m_s;
        let finite = |a: f64| if a.is_finite() { a } else { 0.0 };
        let impulse = request
            .impulse_n_s
            .map(|i| finite(i).clamp(-MAX_IMPULSE_N_S, MAX_IMPULSE_N_S));
        let handles = scene.add_body([p.x, p.y], [finite(v.x), finite(v.y)], impulse);
        let session = self.next_session;
        self.next_session = self.next_session.wrapping_add(1);
        let body = KnockedBody {
            session,
            handles,
            recovery: Recovery::default(),
            intent: request.intent,
            cancelled: false,
            anchor: p,
            surface_z_m: 0.0,
            heading: request.facing,
        };
        self.bodies.insert(request.handle, body);
        session
    }

    /// The retained intent of a knocked-down ped.
    pub fn intent(&self, handle: AgentHandle) -> Option<AgentState> {
        self.bodies.get(&handle).map(|b| b.intent)
    }

    /// Replaces the retained intent (a directive arrived during the knockdown); a new intent
    /// clears an earlier cancel.
    pub fn set_intent(&mut self, handle: AgentHandle, intent: AgentState) {
        if let Some(b) = self.bodies.get_mut(&handle) {
            b.intent = intent;
            b.cancelled = false;
        }
    }

    /// Ends the retained intent: the recovery goes on, nothing resumes after it. Returns the
    /// session, if the ped is knocked down.
    pub fn cancel_intent(&mut self, handle: AgentHandle) -> Option<u32> {
        let b = self.bodies.get_mut(&handle)?;
        b.intent = AgentState::Arrived;
        b.cancelled = true;
        Some(b.session)
    }

    /// Forgets a ped that left the world: its body leaves the scene. Returns its session.
    pub fn forget(&mut self, handle: AgentHandle) -> Option<u32> {
        let body = self.bodies.remove(&handle)?;
        if let Some(scene) = &mut self.scene {
            scene.remove(body.handles);
        }
        Some(body.session)
    }

    /// The live criteria of a knocked-down ped.
    pub fn criteria(&self, handle: AgentHandle) -> Option<RecoveryCriteria> {
        let b = self.bodies.get(&handle)?;
        let r = &b.recovery;
        Some(RecoveryCriteria {
            session: b.session,
            phase: r.phase,
            age_s: r.age_ms as f64 / 1000.0,
            supported: r.last.supported,
            linear_m_s: r.last.linear_m_s,
            angular_deg_s: r.last.angular_rad_s.to_degrees(),
            stable_s: r.stable_ms as f64 / 1000.0,
            clearance: r.last.clearance,
            blend_progress: r.blend_progress(),
            blend_weight: r.blend_weight(),
            intent: b.intent,
            cancelled: b.cancelled,
            body: self.scene.as_ref().and_then(|s| s.body_state(b.handles)),
        })
    }

    /// Makes the physics scene's fixed obstacles those of `obstacles` (when a directive changed
    /// the scene since they were made).
    pub fn sync_obstacles(&mut self, obstacles: &ObstacleSet) {
        if let Some(scene) = &mut self.scene {
            scene.sync_obstacles(obstacles);
        }
    }

    /// Advances physics by `dt_s`, then every recovery in handle order. A completed recovery
    /// removes its body from the scene and reports what resumes.
    pub fn step(&mut self, dt_s: f64, env: &RecoveryEnv<'_>) -> Vec<KnockdownUpdate> {
        let Some(scene) = &mut self.scene else {
            return Vec::new();
        };
        scene.step(dt_s);
        let dt_ms = (dt_s * 1000.0).round().max(0.0) as u64;
        let mut updates = Vec::with_capacity(self.bodies.len());
        for (handle, body) in &mut self.bodies {
            let sample = body.sample(*handle, scene, env);
            let mut transition = body.recovery.advance(dt_ms, sample);
            let mut resume = None;
            if let Some(t) = &mut transition {
                if t.to == RecoveryPhase::Blending && t.from != RecoveryPhase::BlendPaused {
                    scene.freeze(body.handles);
                }
                if t.to == RecoveryPhase::Complete {
                    scene.remove(body.handles);
                    resume = Some(if body.cancelled {
                        t.reason = KnockdownReason::IntentEnded;
                        Resume::Ended
                    } else {
                        Resume::Intent(body.intent)
                    });
                }
            }
            updates.push(KnockdownUpdate {
                handle: *handle,
                session: body.session,
                anchor: body.anchor,
                heading: body.heading,
                transition,
                resume,
            });
        }
        self.bodies
            .retain(|_, b| b.recovery.phase != RecoveryPhase::Complete);
        updates
    }
}
