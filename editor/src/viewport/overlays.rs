//! Layers that are not generated content: the ground grid and axes, the scenario's boxes and
//! observers (frusta and range rings), the pedestrians, and the wireframe and marker helpers the
//! other layers use.

use three_d::{vec3, InnerSpace, Mat4, Quat, Srgba, Vec3};

use super::layer::LayerData;
use super::meshes::Shape;
use super::palette;
use super::picking::{Aabb, PickId};
use crate::session::PreviewContent;
use stagecraft_runtime::project::{Box3, Observer, PopulationKind, Scenario};
use stagecraft_runtime::sim::knockdown::physics::{BODY_HALF_SEGMENT_M, BODY_RADIUS_M};
use stagecraft_runtime::sim::knockdown::BodyState;
use stagecraft_runtime::sim::SimBox;
use stagecraft_runtime::sim::{Boxes, World};

/// Outline of the thing under the cursor.
pub const HOVER_COLOUR: Srgba = palette::rgb(255, 255, 255);
/// Outline of the selected thing.
pub const SELECTION_COLOUR: Srgba = palette::rgb(255, 214, 10);

/// Radius of a pedestrian's body, meters.
pub const AGENT_RADIUS_M: f32 = 0.28;
/// Height of a pedestrian, meters.
pub const AGENT_HEIGHT_M: f32 = 1.75;
/// Aspect ratio assumed for observer frusta (16:9).
const OBSERVER_ASPECT: f32 = 16.0 / 9.0;
/// Frusta are drawn at most this deep, meters, so a 200 m far plane does not swamp the view.
const FRUSTUM_DRAW_DEPTH_M: f32 = 12.0;

/// A transform that stands a unit shape at `(x, y, z)`, turned by `rotation_rad` about z and
/// scaled to `size` = (width, depth, height).
pub fn standing_transform(x: f32, y: f32, z: f32, rotation_rad: f32, size: [f32; 3]) -> Mat4 {
    let (sin, cos) = rotation_rad.sin_cos();
    Mat4::new(
        cos * size[0],
        sin * size[0],
        0.0,
        0.0,
        -sin * size[1],
        cos * size[1],
        0.0,
        0.0,
        0.0,
        0.0,
        size[2],
        0.0,
        x,
        y,
        z,
        1.0,
    )
}

/// Adds a small upright shape of `radius` and `height` standing at `base`.
pub fn marker(
    data: &mut LayerData,
    shape: Shape,
    base: Vec3,
    radius: f32,
    height: f32,
    colour: Srgba,
) {
    let transform = standing_transform(
        base.x,
        base.y,
        base.z,
        0.0,
        [2.0 * radius, 2.0 * radius, height],
    );
    data.shape(shape).push(transform, colour);
}

/// Adds the twelve edges of a box.
pub fn box_wireframe(data: &mut LayerData, bounds: &Aabb, colour: Srgba) {
    let c = bounds.corners();
    for (a, b) in [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 0),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 4),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ] {
        data.line(c[a], c[b], colour);
    }
}

/// Adds a horizontal circle of `radius_m` around `center`.
pub fn ring(data: &mut LayerData, center: Vec3, radius_m: f32, colour: Srgba) {
    let segments = ((radius_m * 2.0) as usize).clamp(24, 128);
    let points: Vec<Vec3> = (0..segments)
        .map(|i| {
            let angle = std::f32::consts::TAU * i as f32 / segments as f32;
            center + vec3(angle.cos(), angle.sin(), 0.0) * radius_m
        })
        .collect();
    data.polygon(&points, colour);
}

/// The ground grid (spacing chosen from the content's size) and the X/Y/Z axes.
pub fn ground(content: Option<&PreviewContent>, show: bool) -> LayerData {
    let mut data = LayerData::default();
    if !show {
        return data;
    }
    let (min, max) = match content.and_then(PreviewContent::bounds_m) {
        Some(b) => (
            [b.min_x as f32, b.min_y as f32],
            [b.max_x as f32, b.max_y as f32],
        ),
        None => ([-50.0, -50.0], [50.0, 50.0]),
    };
    let extent = (max[0] - min[0]).max(max[1] - min[1]).max(20.0);
    let spacing = [1.0f32, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
        .into_iter()
        .find(|s| extent / s <= 40.0)
        .unwrap_or(1000.0);
    let margin = spacing * 4.0;
    let start = [
        ((min[0] - margin) / spacing).floor() as i64,
        ((min[1] - margin) / spacing).floor() as i64,
    ];
    let end = [
        ((max[0] + margin) / spacing).ceil() as i64,
        ((max[1] + margin) / spacing).ceil() as i64,
    ];
    let z = -0.05;
    let (x0, x1) = (start[0] as f32 * spacing, end[0] as f32 * spacing);
    let (y0, y1) = (start[1] as f32 * spacing, end[1] as f32 * spacing);
    let colour = |i: i64| {
        if i % 5 == 0 {
            palette::GRID_MAJOR
        } else {
            palette::GRID
        }
    };
    for i in start[0]..=end[0] {
        let x = i as f32 * spacing;
        data.line(vec3(x, y0, z), vec3(x, y1, z), colour(i));
    }
    for j in start[1]..=end[1] {
        let y = j as f32 * spacing;
        data.line(vec3(x0, y, z), vec3(x1, y, z), colour(j));
    }
    let axis = spacing * 2.0;
    data.line(
        vec3(0.0, 0.0, 0.0),
        vec3(axis, 0.0, 0.0),
        palette::rgb(230, 70, 70),
    );
    data.line(
        vec3(0.0, 0.0, 0.0),
        vec3(0.0, axis, 0.0),
        palette::rgb(80, 210, 90),
    );
    data.line(
        vec3(0.0, 0.0, 0.0),
        vec3(0.0, 0.0, axis),
        palette::rgb(80, 130, 250),
    );
    data
}

fn box3(bounds: &Box3) -> Aabb {
    Aabb::new(
        vec3(
            bounds.min.x as f32,
            bounds.min.y as f32,
            bounds.min.z as f32,
        ),
        vec3(
            bounds.max.x as f32,
            bounds.max.y as f32,
            bounds.max.z as f32,
        ),
    )
}

fn sim_box3(bounds: &SimBox) -> Aabb {
    let corner = |c: [f64; 3]| vec3(c[0] as f32, c[1] as f32, c[2] as f32);
    Aabb::new(corner(bounds.min_m), corner(bounds.max_m))
}

/// Where one running world's view is now: the eye (moved along its keyframed path), the
/// population center its ranges are measured from, whether it is valid, and the direction it
/// looks (turned by its aim keys).
pub type LiveView = ([f64; 3], [f64; 3], bool, [f64; 3]);

/// Every observer's [`LiveView`], in scenario order.
pub type LiveViews = Vec<LiveView>;

/// The views of `world`'s last observation, in scenario order.
pub fn live_views(world: &World) -> LiveViews {
    world
        .observation()
        .views
        .iter()
        .map(|v| (v.camera_m, v.center_m, v.valid, v.forward()))
        .collect()
}

/// The no-spawn box (red), the no-removal box (blue) and every observer. With a world running
/// (`live`), the boxes are those in force in it (directives set, replace and clear them) and
/// each observer stands where its path has taken it, its rings around its population center;
/// otherwise the scenario file's.
pub fn scenario(scenario: &Scenario, live: Option<(&Boxes, &LiveViews)>) -> LayerData {
    let mut data = LayerData::default();
    let (no_spawn, no_removal) = match live.map(|(boxes, _)| boxes) {
        Some(boxes) => (
            boxes.no_spawn.as_ref().map(sim_box3),
            boxes.no_removal.as_ref().map(sim_box3),
        ),
        None => (
            scenario.no_spawn_box.as_ref().map(box3),
            scenario.no_removal_box.as_ref().map(box3),
        ),
    };
    if let Some(bounds) = &no_spawn {
        box_wireframe(&mut data, bounds, palette::NO_SPAWN);
    }
    if let Some(bounds) = &no_removal {
        box_wireframe(&mut data, bounds, palette::NO_REMOVAL);
    }
    for (index, observer) in scenario.observers.iter().enumerate() {
        let now = live.and_then(|(_, views)| views.get(index));
        observer_overlay(&mut data, observer, now);
    }
    for barrier in &scenario.barriers {
        let lift = |p: &stagecraft_runtime::project::Vec3| vec3(p.x as f32, p.y as f32, 0.05);
        data.line(
            lift(&barrier.from),
            lift(&barrier.to),
            palette::TASK_BARRIER,
        );
    }
    for object in &scenario.objects {
        object_footprint(&mut data, object);
    }
    data
}

/// A scene object's footprint: its box outline on the ground (scaled, turned by its yaw).
fn object_footprint(data: &mut LayerData, object: &stagecraft_runtime::project::SceneObject) {
    let (hx, hy) = (
        (object.half_extents_m.x * object.scale.x) as f32,
        (object.half_extents_m.y * object.scale.y) as f32,
    );
    let (sin, cos) = (object.yaw_rad as f32).sin_cos();
    let centre = vec3(object.position.x as f32, object.position.y as f32, 0.05);
    let corners: Vec<Vec3> = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
        .iter()
        .map(|(x, y)| centre + vec3(x * cos - y * sin, x * sin + y * cos, 0.0))
        .collect();
    data.polygon(&corners, palette::TASK_BARRIER);
}

/// The tasks of a world: each movement's remaining path and goal, and each escape selection's
/// threat, safe radius and candidates coloured by verdict.
pub fn tasks(data: &mut LayerData, world: &World) {
    use stagecraft_runtime::sim::tasks::escape::EscapeRejection;
    let at = |p: [f64; 3]| vec3(p[0] as f32, p[1] as f32, 0.08);
    for movement in world.tasks().movements.values() {
        let remaining = movement.path.iter().skip(movement.corner as usize);
        let mut from = at(movement.position);
        for corner in remaining {
            data.line(from, at(*corner), palette::TASK_PATH);
            from = at(*corner);
        }
        ring(data, at(movement.goal), 0.15, palette::TASK_GOAL);
    }
    super::task_marks::gait_marks(data, world);
    for report in world.tasks().escapes.values() {
        ring(data, at(report.threat), 0.3, palette::ESCAPE_THREAT);
        ring(
            data,
            at(report.threat),
            report.safe_distance_m as f32,
            palette::ESCAPE_THREAT,
        );
        for (index, candidate) in report.candidates.iter().enumerate() {
            let colour = match candidate.verdict {
                Ok(_) => palette::ESCAPE_QUALIFIED,
                Err(EscapeRejection::ProjectionTooFar) => palette::ESCAPE_OFF_WALKWAY,
                Err(EscapeRejection::EndpointOccupied) => palette::ESCAPE_OCCUPIED,
                Err(EscapeRejection::TooCloseToThreat) => palette::ESCAPE_TOO_CLOSE,
                Err(EscapeRejection::NoPath(_)) => palette::ESCAPE_NO_PATH,
            };
            let radius = if report.selected == Some(index) {
                0.35
            } else {
                0.15
            };
            ring(
                data,
                at(candidate.projected.unwrap_or(candidate.point)),
                radius,
                colour,
            );
        }
    }
}

/// An observer: a marker at its eye, its view frustum and its retain/remove range rings.
fn observer_overlay(data: &mut LayerData, observer: &Observer, now: Option<&LiveView>) {
    let point = |p: [f64; 3]| vec3(p[0] as f32, p[1] as f32, p[2] as f32);
    let authored = [
        observer.position.x,
        observer.position.y,
        observer.position.z,
    ];
    let authored_center = observer.center.map_or(authored, |c| [c.x, c.y, c.z]);
    let (eye, center) = match now {
        Some((camera, center, _, _)) => (point(*camera), point(*center)),
        None => (point(authored), point(authored_center)),
    };
    let (yaw, pitch) = (observer.yaw_rad as f32, observer.pitch_rad as f32);
    let forward = match now {
        Some((_, _, _, forward)) => point(*forward),
        None => vec3(
            yaw.cos() * pitch.cos(),
            yaw.sin() * pitch.cos(),
            pitch.sin(),
        ),
    };
    if !(eye.x.is_finite() && eye.y.is_finite() && eye.z.is_finite() && forward.x.is_finite()) {
        return;
    }
    let right = forward.cross(Vec3::unit_z());
    let right = if right.magnitude2() > 1e-8 {
        right.normalize()
    } else {
        Vec3::unit_x()
    };
    let up = right.cross(forward);
    let half_v = (observer.fov_y_rad as f32 * 0.5).tan();
    let half_h = half_v * OBSERVER_ASPECT;
    let near = (observer.near_m as f32).max(0.01);
    let far = (observer.far_m as f32).clamp(near, FRUSTUM_DRAW_DEPTH_M.max(near));
    let corners = |depth: f32| {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(sx, sy)| eye + (forward + right * (sx * half_h) + up * (sy * half_v)) * depth)
    };
    let (near_corners, far_corners) = (corners(near), corners(far));
    let valid = now.map_or(observer.valid, |(_, _, valid, _)| *valid);
    let frustum = if valid {
        palette::OBSERVER
    } else {
        palette::OBSERVER_INVALID
    };
    data.polygon(&near_corners, frustum);
    data.polygon(&far_corners, frustum);
    for (a, b) in near_corners.iter().zip(&far_corners) {
        data.line(eye, *a, frustum);
        data.line(*a, *b, frustum);
    }
    let ground = vec3(eye.x, eye.y, 0.05);
    data.line(ground, eye, palette::OBSERVER);
    observer_path(data, observer);
    marker(
        data,
        Shape::Cone,
        vec3(eye.x, eye.y, eye.z - 0.6),
        0.35,
        0.6,
        palette::OBSERVER,
    );
    for (radius, colour) in [
        (observer.retain_radius_m, palette::RETAIN_RING),
        (observer.remove_radius_m, palette::REMOVE_RING),
    ] {
        let radius = radius as f32;
        if radius.is_finite() && radius > 0.0 && center.x.is_finite() && center.y.is_finite() {
            ring(data, vec3(center.x, center.y, 0.05), radius, colour);
        }
    }
}

/// An observer's keyframed path: a line from its authored position through each keyframe in
/// frame order, with a post from the ground to each keyframe's eye.
fn observer_path(data: &mut LayerData, observer: &Observer) {
    let point = |p: &stagecraft_runtime::project::Vec3| vec3(p.x as f32, p.y as f32, p.z as f32);
    let mut previous = point(&observer.position);
    for key in &observer.path {
        let at = point(&key.position);
        if !(at.x.is_finite() && at.y.is_finite() && at.z.is_finite()) {
            continue;
        }
        data.line(previous, at, palette::OBSERVER_PATH);
        data.line(vec3(at.x, at.y, 0.05), at, palette::OBSERVER_PATH);
        previous = at;
    }
}

/// Pedestrians, from the world's Motion Frames: a body coloured by state (grey in the reuse
/// pool, purple while quarantined) and a head offset towards the facing direction (magenta for
/// agents a script owns), with the crossing marks over them (`viewport::crossing_marks`).
pub fn agents(world: &World) -> LayerData {
    let frames = world.motion_frames();
    let population = world.population();
    let quarantined: std::collections::BTreeSet<u32> = population
        .pool
        .entries
        .iter()
        .filter(|e| e.in_quarantine(population.control_frame))
        .map(|e| e.handle.index)
        .collect();
    let mut data = LayerData::default();
    data.picks.reserve(frames.len());
    for (row, frame) in frames.iter().enumerate() {
        let (x, y) = (frame.location.x, frame.location.y);
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let heading = frame.facing.y.atan2(frame.facing.x);
        let pooled = frame.tags.pooled;
        let colour = match world.handle_of(row) {
            Some(h) if pooled && quarantined.contains(&h.index) => palette::QUARANTINED_AGENT,
            _ if pooled => palette::POOLED_AGENT,
            _ => super::crossing_marks::crossing_body(world, &frame)
                .unwrap_or_else(|| palette::agent_state(frame.behaviour)),
        };
        // The tier shows in the body's size as well as in the Tiers layer's disc colour.
        let scale = super::crowd_marks::tier_body_scale(frame.tier);
        let id = frame.id.bits();
        let body = world
            .handle_of(row)
            .and_then(|h| world.knockdowns().criteria(h))
            .and_then(|c| c.body);
        if let Some(body) = body {
            knocked_body(&mut data, &body, heading, colour);
            data.picks.push((
                PickId::Agent { id },
                Aabb::standing(x, y, 0.0, AGENT_HEIGHT_M * 0.5, AGENT_RADIUS_M * 2.0),
            ));
            continue;
        }
        data.shape(Shape::Cylinder).push(
            standing_transform(
                x,
                y,
                0.0,
                heading,
                [
                    2.0 * AGENT_RADIUS_M * scale,
                    2.0 * AGENT_RADIUS_M * scale,
                    AGENT_HEIGHT_M * 0.8 * scale,
                ],
            ),
            colour,
        );
        let head = match frame.tags.kind {
            PopulationKind::Mission => palette::MISSION_AGENT,
            PopulationKind::Ambient => palette::agent_head(frame.behaviour),
        };
        let (sin, cos) = heading.sin_cos();
        data.shape(Shape::Box).push(
            standing_transform(
                x + cos * 0.1 * scale,
                y + sin * 0.1 * scale,
                AGENT_HEIGHT_M * 0.8 * scale,
                heading,
                [0.36 * scale, 0.3 * scale, AGENT_HEIGHT_M * 0.2 * scale],
            ),
            head,
        );
        data.picks.push((
            PickId::Agent { id },
            Aabb::standing(x, y, 0.0, AGENT_RADIUS_M + 0.05, AGENT_HEIGHT_M),
        ));
    }
    super::crossing_marks::crossing_marks(world, &mut data);
    tasks(&mut data, world);
    data
}

/// Radius of a spawn-candidate mark, meters.
pub const CANDIDATE_RADIUS_M: f32 = 0.2;

/// The world's recent spawn candidates: a flat disc where each stood, green when admitted, else
/// the colour of the gate that refused it; each pickable by its frame and place in that frame.
pub fn spawn_candidates(world: &World) -> LayerData {
    let mut data = LayerData::default();
    let mut previous_frame = None;
    let mut ordinal = 0u32;
    for (frame, mark) in world.recent_candidates() {
        ordinal = if previous_frame == Some(frame) {
            ordinal + 1
        } else {
            0
        };
        previous_frame = Some(frame);
        let (x, y) = (mark.position.x as f32, mark.position.y as f32);
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let colour = mark
            .rejection
            .map_or(palette::ADMITTED_CANDIDATE, palette::spawn_rejection);
        marker(
            &mut data,
            Shape::Cylinder,
            vec3(x, y, 0.0),
            CANDIDATE_RADIUS_M,
            0.05,
            colour,
        );
        data.picks.push((
            PickId::SpawnCandidate { frame, ordinal },
            Aabb::standing(x, y, 0.0, CANDIDATE_RADIUS_M, 0.1),
        ));
    }
    data
}

/// The spawn candidate `frame`'s `ordinal`-th draw, if the world still keeps it.
pub fn spawn_candidate(
    world: &World,
    frame: u64,
    ordinal: u32,
) -> Option<stagecraft_runtime::sim::CandidateMark> {
    world
        .recent_candidates()
        .filter(|(f, _)| *f == frame)
        .nth(ordinal as usize)
        .map(|(_, mark)| *mark)
}

/// A knocked-down pedestrian: its capsule at the physics pose (a cylinder along the body's
/// axis, centred on the pelvis) and its head at the upper end.
fn knocked_body(data: &mut LayerData, body: &BodyState, heading: f32, colour: Srgba) {
    let [qx, qy, qz, qw] = body.rotation.map(|v| v as f32);
    let [px, py, pz] = body.pelvis_m.map(|v| v as f32);
    let length = (2.0 * (BODY_HALF_SEGMENT_M + BODY_RADIUS_M)) as f32;
    let width = (2.0 * BODY_RADIUS_M) as f32;
    let transform = Mat4::from_translation(vec3(px, py, pz))
        * Mat4::from(Quat::new(qw, qx, qy, qz))
        * Mat4::from_nonuniform_scale(width, width, length)
        * Mat4::from_translation(vec3(0.0, 0.0, -0.5));
    data.shape(Shape::Cylinder).push(transform, colour);
    let reach = (BODY_HALF_SEGMENT_M + BODY_RADIUS_M * 0.5) as f32;
    let [ax, ay, az] = body.axis.map(|v| v as f32);
    let head = vec3(px + ax * reach, py + ay * reach, pz + az * reach);
    data.shape(Shape::Box).push(
        standing_transform(head.x, head.y, head.z - 0.15, heading, [0.3, 0.3, 0.3]),
        palette::agent_head(stagecraft_runtime::sim::AgentState::KnockedDown),
    );
}
