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
    /// The normal and hidden spawn ranges.
    pub spawn: SpawnRanges,
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

/// An observer's two spawn ranges, horizontal distances from its population center: the normal
/// range applies outside hidden startup (with the close-camera and frustum checks), the hidden
/// range during it. A candidate closer than a range's minimum to any valid view is refused; it
/// must lie within the maximum of at least one valid view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpawnRanges {
    /// Normal minimum, meters.
    pub normal_min_m: f64,
    /// Normal maximum, meters (`None`: the retain radius).
    pub normal_max_m: Option<f64>,
    /// Hidden minimum, meters.
    pub hidden_min_m: f64,
    /// Hidden maximum, meters (`None`: the normal maximum).
    pub hidden_max_m: Option<f64>,
}

impl SpawnRanges {
    /// The normal range `(min, max)` of a view whose retain radius is `retain_radius_m`.
    pub fn normal(&self, retain_radius_m: f64) -> (f64, f64) {
        (
            self.normal_min_m,
            self.normal_max_m.unwrap_or(retain_radius_m),
        )
    }

    /// The hidden range `(min, max)` of a view whose retain radius is `retain_radius_m`.
    pub fn hidden(&self, retain_radius_m: f64) -> (f64, f64) {
        let normal_max = self.normal(retain_radius_m).1;
        (self.hidden_min_m, self.hidden_max_m.unwrap_or(normal_max))
    }

    /// Whether every field is at its default (the canonical bytes leave such ranges out).
    pub fn is_default(&self) -> bool {
        *self == SpawnRanges::default()
    }
}
