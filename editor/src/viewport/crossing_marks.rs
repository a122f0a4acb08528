//! The crossings drawn over the agents: each bound agent's line to its queue slot (orange) or
//! across to its exit (magenta), every queue slot of every crosswalk side, a stop bar at each
//! kerb in the colour of its signal's phase (green only while the vehicle gate is open), the
//! hazard vehicle, group leader lines, and a mast over every stuck agent in its reason's colour.
//! The agents are read from the world's Motion Frames.

use three_d::{vec3, Vec3};

use super::layer::LayerData;
use super::meshes::Shape;
use super::overlays::standing_transform;
use super::palette;
use stagecraft_runtime::sim::crossings::queue::{side_slots, slot_points};
use stagecraft_runtime::sim::{AgentState, CrosswalkPhase, FrameVec2, MotionFrame, World};
use three_d::Srgba;

/// Height the crossing marks float at, meters.
const MARK_Z: f32 = 0.05;

fn at(p: stagecraft_runtime::project::Vec2, z: f32) -> Vec3 {
    vec3(p.x as f32, p.y as f32, z)
}

fn at_frame(p: FrameVec2, z: f32) -> Vec3 {
    vec3(p.x, p.y, z)
}

/// Appends the crossing marks of `world` to `data`.
pub fn crossing_marks(world: &World, data: &mut LayerData) {
    let config = world.config();
    let settings = &config.scenario.crossings;
    for crosswalk in &config.space.crosswalks {
        let gate_open = world.crossings().gate_open(crosswalk.signal);
        let phase = world
            .crossings()
            .signals
            .get(usize::from(crosswalk.signal))
            .map(|s| s.phase);
        let colour = palette::signal(phase, gate_open);
        for side in 0..2u8 {
            for slot in 0..side_slots(crosswalk, settings.lanes, settings.queue_rows) {
                let points = slot_points(crosswalk, side, slot, settings.lanes);
                let p = at(points.waiting, MARK_Z);
                data.line(
                    p - vec3(0.08, 0.0, 0.0),
                    p + vec3(0.08, 0.0, 0.0),
                    palette::QUEUE_SLOT,
                );
                data.line(
                    p - vec3(0.0, 0.08, 0.0),
                    p + vec3(0.0, 0.08, 0.0),
                    palette::QUEUE_SLOT,
                );
            }
            let kerb = crosswalk.sides[usize::from(side)].kerb;
            let half = (crosswalk.width_m / 2.0) as f32;
            let k = at(kerb, MARK_Z);
            data.line(k - vec3(half, 0.0, 0.0), k + vec3(half, 0.0, 0.0), colour);
        }
    }
    if let Some(hazard) = world.crossings().hazard {
        let (x, y) = (hazard.position.x as f32, hazard.position.y as f32);
        data.shape(Shape::Box).push(
            standing_transform(x, y, 0.0, 0.0, [1.6, 1.6, 1.2]),
            palette::HAZARD,
        );
    }
    let frames = world.motion_frames();
    for frame in frames {
        if frame.tags.pooled {
            continue;
        }
        let here = at_frame(frame.location, MARK_Z);
        if frame.crosswalk.forces_full() {
            // Queued (Requested, Waiting): to its slot; crossing (Crossing, Clearing): across.
            data.line(
                here,
                at_frame(frame.crosswalk_point, MARK_Z),
                palette::crosswalk_phase(frame.crosswalk),
            );
        }
        if let Some(leader) = leader_of(world, &frame) {
            let lead = at_frame(leader.location, 1.0);
            data.line(vec3(here.x, here.y, 1.0), lead, palette::GROUP_LINE);
        }
        if let Some(reason) = frame.tags.stuck {
            data.line(
                vec3(here.x, here.y, 1.8),
                vec3(here.x, here.y, 2.6),
                palette::stuck(reason),
            );
        }
    }
}

/// The body colour of a walker on a crossing route by its crosswalk phase
/// ([`palette::crossing_body`]); `None` for an agent that is not walking, is pooled, or walks a
/// route that crosses no crosswalk (its body keeps its state colour).
pub fn crossing_body(world: &World, frame: &MotionFrame) -> Option<Srgba> {
    if frame.tags.pooled || frame.behaviour != AgentState::Walking {
        return None;
    }
    if frame.crosswalk == CrosswalkPhase::Approach {
        let route = world.agent_detail(frame.id)?.route;
        if !world.crossing_index().route_crosses(route) {
            return None;
        }
    }
    Some(palette::crossing_body(frame.crosswalk))
}

/// Legend entries of the crossing colours: one per body colour (cyan moving, orange requested or
/// waiting, magenta crossing or clearing) when the space has a crosswalk, none otherwise.
pub fn crossing_legend(world: &World) -> Vec<(String, Srgba)> {
    if world.config().space.crosswalks.is_empty() {
        return Vec::new();
    }
    let mut entries: Vec<(String, Srgba)> = palette::CROSSING_BODIES
        .iter()
        .map(|(colour, name)| ((*name).to_owned(), *colour))
        .collect();
    if world.crossings().stats.groups > 0 {
        entries.push(("group: follower → leader".to_owned(), palette::GROUP_LINE));
    }
    entries
}

/// A follower's leader's Motion Frame, if the leader is alive (looked up by id).
fn leader_of(world: &World, frame: &MotionFrame) -> Option<MotionFrame> {
    let leader = frame.group_leader()?;
    world.motion_frame(leader)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        crate::session::fixtures::crossing_world(6, 600)
    }

    #[test]
    fn marks_show_every_slot_both_stop_bars_the_hazard_and_each_bound_agent() {
        let mut w = world();
        let mut checked = 0;
        for _ in 0..600 {
            w.step();
            let mut data = LayerData::default();
            crossing_marks(&w, &mut data);
            let frames = w.motion_frames();
            let lines_to_targets = frames
                .iter()
                .filter(|f| !f.tags.pooled)
                .filter(|f| f.crosswalk.demands() || f.crosswalk.occupies())
                .count();
            let leaders = frames
                .iter()
                .filter(|f| !f.tags.pooled && leader_of(&w, f).is_some())
                .count();
            let stuck = frames.iter().filter(|f| f.tags.stuck.is_some()).count();
            // Two sides × six slots × a cross of two lines, and a stop bar per side.
            assert_eq!(
                data.lines.len(),
                24 + 2 + lines_to_targets + leaders + stuck
            );
            assert_eq!(
                data.shapes[Shape::Box.index()].transforms.len(),
                1,
                "the hazard"
            );
            // Side 0's six slot crosses come first, then its stop bar.
            let bar = data.lines[12].colour;
            let open = w.crossings().signals[0].gate_open;
            assert_eq!(
                bar == palette::signal(
                    Some(stagecraft_runtime::sim::SignalPhase::VehicleGreen),
                    true
                ),
                open
            );
            checked += usize::from(lines_to_targets > 0);
        }
        assert!(checked > 0, "some agent was bound");
    }

    #[test]
    fn crossers_wear_the_seeds_colours_and_the_legend_names_each() {
        let mut w = world();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..600 {
            w.step();
            for frame in w.motion_frames() {
                let Some(colour) = crossing_body(&w, &frame) else {
                    continue;
                };
                let expected = match frame.crosswalk {
                    CrosswalkPhase::Approach | CrosswalkPhase::Completed => {
                        palette::CROSSING_MOVING
                    }
                    CrosswalkPhase::Requested | CrosswalkPhase::Waiting => palette::CROSSING_QUEUED,
                    CrosswalkPhase::Crossing | CrosswalkPhase::Clearing => {
                        palette::CROSSING_COMMITTED
                    }
                };
                assert_eq!(colour, expected);
                seen.insert((colour.r, colour.g, colour.b));
            }
        }
        assert_eq!(seen.len(), 3, "cyan, orange and magenta all show");
        let legend: Vec<(String, Srgba)> = crossing_legend(&w)
            .into_iter()
            .filter(|(_, c)| *c != palette::GROUP_LINE)
            .collect();
        let names: Vec<&str> = legend.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "crosser moving (approach, completed)",
                "crosser requested / waiting",
                "crosser crossing / clearing"
            ]
        );
        let colours: Vec<Srgba> = legend.iter().map(|(_, c)| *c).collect();
        assert_eq!(
            colours,
            [
                palette::CROSSING_MOVING,
                palette::CROSSING_QUEUED,
                palette::CROSSING_COMMITTED
            ]
        );
    }
}
