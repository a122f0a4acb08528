//! The motion rows of a task ped in the Provenance tab: its motion profile, gait phase (the
//! clip), clip and cycle time, the last substep's budget, proposal and accepted distance, the
//! goal stop's scale or the hold's stop tail, and its heading and turn state; and the clip, phase
//! (0..1) and clip time its Motion Frame publishes.

use stagecraft_runtime::sim::config::profiles::play_rate;
use stagecraft_runtime::sim::tasks::gait::{Gait, GaitPhase};
use stagecraft_runtime::sim::tasks::movement::remaining_route_m;
use stagecraft_runtime::sim::{AgentHandle, World};

/// Appends the motion rows of `handle`'s movement, if it has one.
pub fn gait_rows(world: &World, handle: AgentHandle, rows: &mut Vec<(&'static str, String)>) {
    let Some(m) = world.tasks().movements.get(&handle) else {
        return;
    };
    let g = &m.gait;
    let profile = world.config().scenario.motion.profiles.get(g.profile);
    rows.push((
        "Motion",
        format!(
            "{} · {} clip · {:?} · clip {:.2} s · cycle {:.2} s · serial {}",
            profile.id,
            g.phase.clip(),
            g.phase,
            g.clip_time_s,
            g.cycle_time_s,
            g.serial
        ),
    ));
    if let Some(clip) = world
        .resolve(handle)
        .and_then(|row| world.motion_frames().clip(row))
    {
        rows.push((
            "Clip",
            format!(
                "{} · phase {:.3} · {:.2} s (Motion Frame)",
                clip.clip.name(),
                clip.phase,
                clip.time_s
            ),
        ));
    }
    rows.push((
        "Step budget",
        format!(
            "rate {:.3} · budget {:.4} m · proposed {:.4} m{} · accepted {:.4} m · {:.2} m/s",
            play_rate(profile.speed_m_s, profile.reference_speed_m_s),
            g.budget_m,
            g.proposed_m,
            if g.searched { " (searched)" } else { "" },
            g.accepted_m,
            m.speed_m_s
        ),
    ));
    match g.phase {
        GaitPhase::Stop => rows.push((
            "Stop",
            format!(
                "goal stop · scale {:.3} of {:.2} m authored · {:.2} m left",
                g.stop_scale,
                profile.stop.total_m(),
                remaining_route_m(m)
            ),
        )),
        GaitPhase::HoldTail => rows.push((
            "Stop",
            format!(
                "command stop · stop tail from {:.2} s, no translation",
                profile.stop_tail_start_s()
            ),
        )),
        _ => {}
    }
    rows.push(("Turn", turn_text(g, m.heading_rad, profile.turn_rate_deg_s)));
}

fn turn_text(g: &Gait, heading_rad: f64, rate_deg_s: f64) -> String {
    if g.phase == GaitPhase::Turn {
        format!(
            "heading {:.1}° · turn clip from {:.1}° by {:.1}° · clip {:.2} s",
            heading_rad.to_degrees(),
            g.turn_from_rad.to_degrees(),
            g.turn_by_rad.to_degrees(),
            g.clip_time_s
        )
    } else {
        format!(
            "heading {:.1}° · small turns at most {rate_deg_s:.0}°/s",
            heading_rad.to_degrees()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::sim::directed_street_world;

    #[test]
    fn a_task_ped_shows_its_clip_phase_budget_and_turn() {
        let mut world = directed_street_world(4, 7).expect("world");
        for _ in 0..3 {
            world.step();
        }
        let handle = world.handle_of(1).expect("a ped");
        let mut rows = Vec::new();
        gait_rows(&world, handle, &mut rows);
        let text = |label: &str| {
            rows.iter()
                .find(|(l, _)| *l == label)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let m = &world.tasks().movements[&handle];
        assert_eq!(m.gait.phase, GaitPhase::Start, "{rows:?}");
        assert!(
            text("Motion").starts_with("walking · start clip · Start · clip "),
            "{rows:?}"
        );
        // Walking: rate 1, budget 1.4 m/s × 0.05 s.
        assert!(
            text("Step budget").starts_with("rate 1.000 · budget 0.0700 m"),
            "{rows:?}"
        );
        assert!(
            text("Turn").contains("small turns at most 360°/s"),
            "{rows:?}"
        );
        assert_eq!(text("Stop"), "");
        let phase = m.gait.clip_time_s / profile_start_s(&world);
        assert_eq!(
            text("Clip"),
            format!(
                "start · phase {:.3} · {:.2} s (Motion Frame)",
                phase, m.gait.clip_time_s
            ),
            "{rows:?}"
        );
        assert!(phase > 0.0 && phase < 1.0, "{phase}");
    }

    fn profile_start_s(world: &World) -> f64 {
        world
            .config()
            .scenario
            .motion
            .profiles
            .get(0)
            .start
            .duration_s
    }
}
