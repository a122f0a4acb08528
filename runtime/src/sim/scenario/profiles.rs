//! A project's motion profile documents → the world's [`ProfileTable`] (the standard walking
//! and running profiles replaced or extended by the project's, in id order). A profile that
//! breaks a rule (`MotionProfileDoc::problems`, reported by `check`) is left out.

use std::collections::BTreeMap;

use crate::project::schema::motion::{Clip, MotionProfileDoc};
use crate::sim::config::profiles::{DistanceCurve, MotionProfile, ProfileTable, TurnClip};

/// The table of `docs` (by id).
pub fn compile_profiles(docs: &BTreeMap<String, MotionProfileDoc>) -> ProfileTable {
    ProfileTable::with_project(docs.values().filter_map(compile_profile).collect())
}

/// One document as the world runs it; `None` when it breaks a rule.
pub fn compile_profile(doc: &MotionProfileDoc) -> Option<MotionProfile> {
    if !doc.problems().is_empty() {
        return None;
    }
    let curve = |clip: &Clip| DistanceCurve::new(clip.duration_s, &clip.samples).ok();
    Some(MotionProfile {
        id: doc.id.clone(),
        reference_speed_m_s: doc.reference_speed_m_s,
        speed_m_s: doc.speed_m_s,
        start: curve(&doc.start)?,
        cycle: curve(&doc.cycle)?,
        stop: curve(&doc.stop)?,
        turn: TurnClip {
            progress: curve(&doc.turn)?,
            angle_deg: doc.turn_angle_deg,
        },
        turn_clip_above_deg: doc.turn_clip_above_deg,
        turn_rate_deg_s: doc.turn_rate_deg_s,
        align_deg: doc.align_deg,
    })
}

/// The document of a world profile (how the example assets are written).
pub fn profile_document(p: &MotionProfile) -> MotionProfileDoc {
    let clip = |c: &DistanceCurve| Clip {
        duration_s: c.duration_s,
        samples: c.samples_m.to_vec(),
    };
    MotionProfileDoc {
        id: p.id.clone(),
        reference_speed_m_s: p.reference_speed_m_s,
        speed_m_s: p.speed_m_s,
        turn_clip_above_deg: p.turn_clip_above_deg,
        turn_rate_deg_s: p.turn_rate_deg_s,
        align_deg: p.align_deg,
        turn_angle_deg: p.turn.angle_deg,
        start: clip(&p.start),
        cycle: clip(&p.cycle),
        stop: clip(&p.stop),
        turn: clip(&p.turn.progress),
    }
}
