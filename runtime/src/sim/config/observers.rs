//! Compiled observers: the views admission, removal and streaming read.

/// A view that admission, removal and streaming read.
#[derive(Clone, Debug, PartialEq)]
pub struct ObserverSpec {
    /// The observer's id.
    pub id: String,
    /// Eye position `[x, y, z]`, meters.
    pub position_m: [f64; 3],
    /// Heading around Z, radians.
    pub yaw_rad: f64,
    /// Pitch, radians.
    pub pitch_rad: f64,
    /// Vertical field of view, radians.
    pub fov_y_rad: f64,
    /// Near plane, meters.
    pub near_m: f64,
    /// Far plane, meters.
    pub far_m: f64,
    /// Retained within this horizontal distance (Rout), meters.
    pub retain_radius_m: f64,
    /// Removable beyond this horizontal distance (Rin), meters.
    pub remove_radius_m: f64,
    /// Closer than this to the camera (3D) a visible birth is refused, meters.
    pub close_m: f64,
    /// The population center ranges are measured from (the camera's position when `None`);
    /// it moves with the camera along the path.
    pub center_m: Option<[f64; 3]>,
    /// Keyframed camera positions, ascending by frame (empty: the camera stays put).
    pub path: Vec<ObserverKey>,
    /// Keyframed aim `(frame, yaw_rad, pitch_rad)`, ascending by frame (empty: `yaw_rad` and
    /// `pitch_rad` throughout).
    pub aim: Vec<(u64, f64, f64)>,
    /// Fade at the start, 0 (clear) to 1 (black).
    pub fade: f64,
    /// Whether the view is valid at the start.
    pub valid: bool,
}

/// One keyframe of an observer's path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObserverKey {
    /// The frame.
    pub frame: u64,
    /// Camera position at that frame, meters.
    pub position_m: [f64; 3],
}

/// Default 3D distance within which a visible birth is refused, meters.
pub const DEFAULT_CLOSE_M: f64 = 3.0;
