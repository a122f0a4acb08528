//! Motion profiles `<asset path>/<id>.motion.ron`: the start, loop, stop and turn clips of a task
//! ped's gait as distance curves (121 samples over each clip's duration; the runtime makes them
//! monotone by a running maximum), the speed the clips were authored at, the task speed and the
//! turn parameters. The simulation's view of them is `sim::config::profiles`.

use crate::project::decode::{Decode, Decoder};
use crate::project::node::Node;

use super::document_fields::MOTION_DOCUMENT;

/// The profiles every project has without a `*.motion.ron` (`sim::config::profiles`
/// builds them; a project file of the same id replaces one).
pub const STANDARD_MOTION_PROFILES: [&str; 2] = ["walking", "running"];

/// Current schema version of motion profiles.
pub const MOTION_SCHEMA: u32 = 1;

/// One motion profile document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MotionProfileDoc {
    /// Persistent id; also the file name `<id>.motion.ron` and the name tasks pick it by.
    pub id: String,
    /// The speed the clips were authored at, meters per second (> 0).
    pub reference_speed_m_s: f64,
    /// The speed a task walks at with this profile, meters per second (> 0).
    pub speed_m_s: f64,
    /// A heading change beyond this plays the turn clip, degrees (0..=180).
    pub turn_clip_above_deg: f64,
    /// Smaller turns turn at most this fast, degrees per second (> 0).
    pub turn_rate_deg_s: f64,
    /// A step still misaligned beyond this after turning only rotates, degrees (0..=180).
    pub align_deg: f64,
    /// The turn the turn clip was authored for, degrees (> 0).
    pub turn_angle_deg: f64,
    /// The start clip: root distance from the first frame, meters.
    pub start: Clip,
    /// The loop clip (its duration is the cycle), meters.
    pub cycle: Clip,
    /// The stop clip, meters.
    pub stop: Clip,
    /// The turn clip: accumulated turn angle (any unit; normalized by its last sample).
    pub turn: Clip,
}

crate::project::codec_macro::record_codec!(MotionProfileDoc "MotionProfile" schema MOTION_SCHEMA {
    id: String,
    reference_speed_m_s: f64,
    speed_m_s: f64,
    turn_clip_above_deg: f64 = 60.0,
    turn_rate_deg_s: f64 = 360.0,
    align_deg: f64 = 45.0,
    turn_angle_deg: f64 = 180.0,
    start: Clip,
    cycle: Clip,
    stop: Clip,
    turn: Clip,
});

/// One clip as a sampled curve.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clip {
    /// Duration, seconds (> 0).
    pub duration_s: f64,
    /// Exactly 121 samples at `i × duration / 120`.
    pub samples: Vec<f64>,
}

crate::project::codec_macro::record_codec!(Clip "Clip" {
    duration_s: f64,
    samples: Vec<f64>,
});

/// Decodes a whole motion profile document (for callers that hold a tree).
pub fn decode_profile(node: &Node, cx: &mut Decoder) -> Option<MotionProfileDoc> {
    MotionProfileDoc::decode(node, cx)
}

/// One rule a motion profile breaks: where, what is wrong, what was expected.
pub type MotionProblem = (crate::project::node::FieldPath, String, &'static str);

/// The names of a profile's clips, in schema order.
pub const CLIP_NAMES: [&str; 4] = ["start", "cycle", "stop", "turn"];

impl MotionProfileDoc {
    /// The number field `name` (a field of the schema with a range), if it is one.
    pub fn number(&self, name: &str) -> Option<f64> {
        Some(match name {
            "reference_speed_m_s" => self.reference_speed_m_s,
            "speed_m_s" => self.speed_m_s,
            "turn_clip_above_deg" => self.turn_clip_above_deg,
            "turn_rate_deg_s" => self.turn_rate_deg_s,
            "align_deg" => self.align_deg,
            "turn_angle_deg" => self.turn_angle_deg,
            _ => return None,
        })
    }

    /// The number field `name`, to edit.
    pub fn number_mut(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "reference_speed_m_s" => &mut self.reference_speed_m_s,
            "speed_m_s" => &mut self.speed_m_s,
            "turn_clip_above_deg" => &mut self.turn_clip_above_deg,
            "turn_rate_deg_s" => &mut self.turn_rate_deg_s,
            "align_deg" => &mut self.align_deg,
            "turn_angle_deg" => &mut self.turn_angle_deg,
            _ => return None,
        })
    }

    /// The clip `name` ([`CLIP_NAMES`]).
    pub fn clip(&self, name: &str) -> Option<&Clip> {
        Some(match name {
            "start" => &self.start,
            "cycle" => &self.cycle,
            "stop" => &self.stop,
            "turn" => &self.turn,
            _ => return None,
        })
    }

    /// The clip `name`, to edit.
    pub fn clip_mut(&mut self, name: &str) -> Option<&mut Clip> {
        Some(match name {
            "start" => &mut self.start,
            "cycle" => &mut self.cycle,
            "stop" => &mut self.stop,
            "turn" => &mut self.turn,
            _ => return None,
        })
    }

    /// Every rule the profile breaks: each number within its schema range (speeds positive,
    /// angles within a half turn), each clip with a duration in its range and exactly 121
    /// finite samples. The ranges are the schema's (`MOTION_DOCUMENT`), which the Inspector and
    /// `docs/format.md` show.
    pub fn problems(&self) -> Vec<MotionProblem> {
        use crate::project::node::FieldPath;
        let mut found = Vec::new();
        let root = FieldPath::root();
        let [profile, clip] = MOTION_DOCUMENT.sections else {
            return found;
        };
        for field in profile.fields {
            if let (Some(range), Some(value)) = (field.range, self.number(field.name)) {
                if !range.contains(value) {
                    let name = field.name;
                    found.push((root.field(name), format!("{name} is {value}"), range.text));
                }
            }
        }
        let duration = clip.get("duration_s").range;
        for name in CLIP_NAMES {
            let Some(clip) = self.clip(name) else {
                continue;
            };
            let path = root.field(name);
            if duration.is_some_and(|range| !range.contains(clip.duration_s)) {
                found.push((
                    path.field("duration_s"),
                    format!("clip duration {} s", clip.duration_s),
                    "a finite duration > 0 s",
                ));
            }
            if clip.samples.len() != CLIP_SAMPLES {
                found.push((
                    path.field("samples"),
                    format!("{} samples", clip.samples.len()),
                    "exactly 121 samples (120 intervals, both ends included)",
                ));
            }
            if let Some(i) = clip.samples.iter().position(|s| !s.is_finite()) {
                found.push((
                    path.field("samples").index(i),
                    format!("sample {i} is not finite"),
                    "finite numbers",
                ));
            }
        }
        found
    }
}

/// Samples of every clip.
pub const CLIP_SAMPLES: usize = 121;
