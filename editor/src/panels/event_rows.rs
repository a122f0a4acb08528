//! The Events section of a pedestrian in the Provenance tab, as rows of text: each of its ped
//! events (`sim::tasks::incidents`) with its type, source and session tag, its state and the
//! frames (and seconds) of its transitions Queued → Active → Ended, why it ended, and for a
//! threat its threat, endpoint and the goal of the task its escape interrupted.

use stagecraft_runtime::sim::state::{PedEvent, PedEventEnd, PedEventState, PedEventType};
use stagecraft_runtime::sim::{AgentHandle, World};

/// One event's title ("Event 3") and its rows.
pub type EventSection = (String, Vec<(&'static str, String)>);

/// The sections of `handle`'s events, newest first (empty when it has none).
pub fn event_sections(world: &World, handle: AgentHandle) -> Vec<EventSection> {
    let step_s = world.config().fixed_step_s;
    let mut sections: Vec<EventSection> = world
        .tasks()
        .events
        .of(handle)
        .map(|e| (format!("Event {}", e.id), event_rows(e, step_s)))
        .collect();
    sections.reverse();
    sections
}

/// The rows of one event.
pub fn event_rows(e: &PedEvent, step_s: f64) -> Vec<(&'static str, String)> {
    let mut rows = vec![
        (
            "Type · source · tag",
            format!("{} · {} · {}", e.kind.name(), e.source, e.tag),
        ),
        ("State", state_text(e)),
        ("Queued at", at_text(e.queued_frame, step_s)),
    ];
    if let Some(frame) = e.active_frame {
        rows.push(("Active at", at_text(frame, step_s)));
    }
    if let Some(frame) = e.ended_frame {
        rows.push(("Ended at", at_text(frame, step_s)));
    }
    match e.kind {
        PedEventType::Threat => threat_rows(e, &mut rows),
        PedEventType::Incident => rows.push((
            "Duration",
            format!(
                "{} frames ({:.2} s)",
                e.duration_frames,
                e.duration_frames as f64 * step_s
            ),
        )),
    }
    rows
}

fn threat_rows(e: &PedEvent, rows: &mut Vec<(&'static str, String)>) {
    rows.push((
        "Threat · safe distance",
        format!("{} · {:.2} m", point_text(e.threat), e.safe_distance_m),
    ));
    let how = if e.supplied_endpoint {
        "supplied"
    } else {
        "selected"
    };
    rows.push(("Endpoint", format!("{} ({how})", point_text(e.endpoint))));
    if let Some(goal) = e.interrupted_goal {
        let fate = if e.restore_interrupted {
            "restored when the escape ends"
        } else {
            "kept for diagnostics, not restored"
        };
        rows.push(("Interrupted goal", format!("{} · {fate}", point_text(goal))));
    }
}

/// `Queued`, `Active` or `Ended (why)`.
pub fn state_text(e: &PedEvent) -> String {
    match (e.state, e.end) {
        (PedEventState::Queued, _) => "Queued".to_owned(),
        (PedEventState::Active, _) => "Active".to_owned(),
        (PedEventState::Ended, Some(PedEventEnd::Refused(why))) => {
            format!("Ended (refused: {why:?})")
        }
        (PedEventState::Ended, Some(end)) => format!("Ended ({end:?})"),
        (PedEventState::Ended, None) => "Ended".to_owned(),
    }
}

fn at_text(frame: u64, step_s: f64) -> String {
    format!("frame {frame} ({:.2} s)", frame as f64 * step_s)
}

fn point_text(p: [f64; 3]) -> String {
    format!("({:.2}, {:.2})", p[0], p[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::sim::state::InstallRefusal;

    #[test]
    fn a_threats_rows_give_its_lifecycle_frames_and_seconds() {
        let e = PedEvent {
            id: 2,
            handle: AgentHandle {
                index: 4,
                generation: 1,
            },
            kind: PedEventType::Threat,
            source: "alarm".into(),
            tag: 3,
            threat: [-12.0, 6.25, 0.0],
            safe_distance_m: 10.0,
            endpoint: [4.5, 6.0, 0.0],
            supplied_endpoint: false,
            restore_interrupted: false,
            duration_frames: 1,
            state: PedEventState::Ended,
            end: Some(PedEventEnd::Completed),
            queued_frame: 20,
            active_frame: Some(21),
            ended_frame: Some(150),
            interrupted_goal: Some([10.0, 4.5, 0.0]),
            profile: None,
        };
        let rows = event_rows(&e, 0.05);
        let text: Vec<(&str, &str)> = rows.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(
            text,
            [
                ("Type · source · tag", "threat · alarm · 3"),
                ("State", "Ended (Completed)"),
                ("Queued at", "frame 20 (1.00 s)"),
                ("Active at", "frame 21 (1.05 s)"),
                ("Ended at", "frame 150 (7.50 s)"),
                ("Threat · safe distance", "(-12.00, 6.25) · 10.00 m"),
                ("Endpoint", "(4.50, 6.00) (selected)"),
                (
                    "Interrupted goal",
                    "(10.00, 4.50) · kept for diagnostics, not restored"
                ),
            ]
        );
        let refused = PedEvent {
            end: Some(PedEventEnd::Refused(InstallRefusal::Occupancy)),
            ..e
        };
        assert_eq!(state_text(&refused), "Ended (refused: Occupancy)");
    }
}
