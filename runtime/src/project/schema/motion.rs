//! Motion profiles `<asset path>/<id>.motion.ron`: the start, loop, stop and turn clips of a task
//! ped's gait as distance curves (121 samples over each clip's duration; the runtime makes them
//! monotone by a running maximum), the speed the clips were authored at, the task speed and the
//! turn parameters. The simulation's view of them is `sim::config::profiles`.

use crate::project::decode::{Decode, Decoder};
use crate::project::node::Node;

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

impl MotionProfileDoc {
    /// Every rule the profile breaks (speeds positive, angles within range, each clip with a
    /// positive duration and exactly 121 finite samples).
    pub fn problems(&self) -> Vec<MotionProblem> {
        use crate::project::node::FieldPath;
        let mut found = Vec::new();
        let root = FieldPath::root();
        let positive = [
            ("reference_speed_m_s", self.reference_speed_m_s),
            ("speed_m_s", self.speed_m_s),
            ("turn_rate_deg_s", self.turn_rate_deg_s),
            ("turn_angle_deg", self.turn_angle_deg),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                found.push((
                    root.field(name),
                    format!("{name} is {value}"),
                    "a finite number > 0",
                ));
            }
        }
        for (name, value) in [
            ("turn_clip_above_deg", self.turn_clip_above_deg),
            ("align_deg", self.align_deg),
        ] {
            if !(0.0..=180.0).contains(&value) {
                found.push((
                    root.field(name),
                    format!("{name} is {value}"),
                    "degrees in 0..=180",
                ));
            }
        }
        let clips = [
            ("start", &self.start),
            ("cycle", &self.cycle),
            ("stop", &self.stop),
            ("turn", &self.turn),
        ];
        for (name, clip) in clips {
            let path = root.field(name);
            if !(clip.duration_s.is_finite() && clip.duration_s > 0.0) {
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
