//! The knockdowns' part of a world snapshot: a snapshot holds a clone of the whole physics
//! scene (bodies, colliders, islands, broad and narrow phase with their contact caches), so a
//! restored world steps exactly as one that never stopped; the state digest covers the
//! canonical bytes (sessions, recoveries, intents, anchors, every body's pose and velocities by
//! their bits); the restore preflight checks that every record names a live, knocked-down ped
//! and a body the scene has.

use super::body::KnockedBody;
use super::Knockdowns;
use crate::sim::state::{AgentState, Agents, Canonical, Slots};

impl Knockdowns {
    /// Appends the canonical bytes (nothing at all for a world that never knocked anyone
    /// down, so its digest stays what it was).
    pub fn write_canonical(&self, bytes: &mut Vec<u8>) {
        let Some(scene) = &self.scene else {
            return;
        };
        bytes.extend_from_slice(b"KNOCK001");
        self.next_session.write_canonical(bytes);
        (scene.body_count() as u64).write_canonical(bytes);
        (self.bodies.len() as u64).write_canonical(bytes);
        for (handle, body) in &self.bodies {
            handle.index.write_canonical(bytes);
            handle.generation.write_canonical(bytes);
            write_body(body, bytes);
            scene.write_body(body.handles, bytes);
        }
    }

    /// Whether every record names a live, knocked-down ped of `agents` and a body the scene
    /// holds (a restore preflight).
    pub fn is_consistent(&self, slots: &Slots, agents: &Agents) -> bool {
        let Some(scene) = &self.scene else {
            return self.bodies.is_empty();
        };
        self.bodies.iter().all(|(handle, body)| {
            let live = crate::sim::population::live_row(slots, agents, *handle)
                .is_some_and(|row| agents.state[row] == AgentState::KnockedDown);
            live && scene.has(body.handles) && body.session < self.next_session
        })
    }
}

impl PartialEq for Knockdowns {
    /// Equal when their canonical bytes are (the contact caches follow from the same history).
    fn eq(&self, other: &Self) -> bool {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        self.write_canonical(&mut a);
        other.write_canonical(&mut b);
        a == b
    }
}

fn write_body(body: &KnockedBody, bytes: &mut Vec<u8>) {
    body.session.write_canonical(bytes);
    let r = &body.recovery;
    bytes.push(r.phase.code());
    r.age_ms.write_canonical(bytes);
    r.stable_ms.write_canonical(bytes);
    r.blend_ms.write_canonical(bytes);
    r.last.supported.write_canonical(bytes);
    r.last.linear_m_s.write_canonical(bytes);
    r.last.angular_rad_s.write_canonical(bytes);
    bytes.push(r.last.clearance as u8);
    body.intent.write_canonical(bytes);
    body.cancelled.write_canonical(bytes);
    body.anchor.write_canonical(bytes);
    body.surface_z_m.write_canonical(bytes);
    body.heading.write_canonical(bytes);
}
