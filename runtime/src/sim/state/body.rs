//! The walking body's dimensions every phase that moves or tests a body shares (walking, the
//! props index, task movements, crossings, knockdowns).

/// Body radius of a walking pedestrian, meters (separate from the 0.35 m spawn capsule).
pub const BODY_RADIUS_M: f64 = 0.30;
/// Lookahead distance of a candidate's predicted endpoint, meters.
pub const LOOKAHEAD_M: f64 = 1.0;
