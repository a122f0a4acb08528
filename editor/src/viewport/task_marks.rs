//! The heading and gait of task peds, from the world's task frames (`World::task_frames`): a
//! line from the body along the logical heading, coloured by the clip the motion profile plays,
//! its length growing with the gait blend filtered from measured speed (0.4 m standing, 1.0 m
//! walking), with its legend (only the clips drawn now).

use three_d::{vec3, Srgba};

use super::layer::LayerData;
use super::palette;
use stagecraft_runtime::sim::tasks::gait::GaitPhase;
use stagecraft_runtime::sim::World;

/// The colour and legend name of a phase.
fn phase_colour(phase: GaitPhase) -> (Srgba, &'static str) {
    match phase {
        GaitPhase::Idle | GaitPhase::HoldTail => {
            (palette::GAIT_STANDING, "task heading · standing")
        }
        GaitPhase::Turn => (palette::GAIT_TURN, "task heading · turn clip"),
        GaitPhase::Start => (palette::GAIT_START, "task heading · start clip"),
        GaitPhase::Loop => (palette::GAIT_LOOP, "task heading · loop"),
        GaitPhase::Stop => (palette::GAIT_STOP, "task heading · goal stop"),
    }
}

/// Appends each task ped's heading line.
pub fn gait_marks(data: &mut LayerData, world: &World) {
    for frame in world.task_frames() {
        let Some(body) = world
            .row_of_id(frame.id)
            .and_then(|row| world.motion_frames().get(row))
        else {
            continue;
        };
        let length = 0.4 + 0.6 * frame.gait.blend;
        let (sin, cos) = frame.heading_rad.sin_cos();
        let from = vec3(body.location.x, body.location.y, 0.12);
        let to = from + vec3((cos * length) as f32, (sin * length) as f32, 0.0);
        data.line(from, to, phase_colour(frame.phase).0);
    }
}

/// Legend entries for the clips drawn now, in phase order.
pub fn gait_legend(world: &World) -> Vec<(String, Srgba)> {
    let mut entries: Vec<(String, Srgba)> = Vec::new();
    let order = [
        GaitPhase::Idle,
        GaitPhase::Turn,
        GaitPhase::Start,
        GaitPhase::Loop,
        GaitPhase::Stop,
    ];
    for phase in order {
        let (colour, name) = phase_colour(phase);
        let drawn = world
            .task_frames()
            .iter()
            .any(|f| phase_colour(f.phase).0 == colour);
        if drawn {
            entries.push((name.to_owned(), colour));
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::sim::directed_street_world;

    #[test]
    fn task_peds_draw_a_heading_line_per_frame_and_the_legend_names_its_clip() {
        let mut world = directed_street_world(4, 7).expect("world");
        for _ in 0..3 {
            world.step();
        }
        let mut data = LayerData::default();
        gait_marks(&mut data, &world);
        let frames = world.task_frames();
        assert_eq!(frames.len(), 4);
        assert_eq!(data.lines.len(), frames.len());
        let legend = gait_legend(&world);
        let names: Vec<&str> = legend.iter().map(|e| e.0.as_str()).collect();
        let mut wanted: Vec<&str> = frames.iter().map(|f| phase_colour(f.phase).1).collect();
        wanted.sort_by_key(|n| names.iter().position(|m| m == n));
        wanted.dedup();
        assert_eq!(names, wanted);
        assert!(names.contains(&"task heading · start clip"), "{names:?}");
    }
}
