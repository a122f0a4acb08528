//! The Task section of a pedestrian in the Provenance tab, as rows of text: its directive
//! parent (state, source, session, command and failure counts), its movement (generation,
//! motion state, replans, blocking timers, corner and path, goal), a task a higher-priority one
//! suspended, its stop causes with their owners, and the last escape selection's candidates by
//! verdict.

use stagecraft_runtime::sim::tasks::escape::EscapeRejection;
use stagecraft_runtime::sim::{AgentHandle, World};

/// `(label, value)` rows describing the tasks of `handle`, empty when it has none.
pub fn task_rows(world: &World, handle: AgentHandle) -> Vec<(&'static str, String)> {
    let tasks = world.tasks();
    let mut rows = Vec::new();
    parent_rows(world, handle, &mut rows);
    movement_rows(world, handle, &mut rows);
    super::gait_rows::gait_rows(world, handle, &mut rows);
    if let Some(held) = tasks.suspended.get(&handle) {
        rows.push((
            "Suspended task",
            format!(
                "{} · session {} · {:?} · until the higher-priority task ends",
                held.parent.kind_name(),
                held.parent.session,
                held.parent.state
            ),
        ));
    }
    let stops = tasks.stops_of(handle).active();
    if !stops.is_empty() {
        let text: Vec<String> = stops
            .iter()
            .map(|(cause, owner)| format!("{cause:?} (owner {owner:?})"))
            .collect();
        rows.push(("Stop causes", text.join(", ")));
    }
    escape_rows(world, handle, &mut rows);
    rows
}

type Rows = Vec<(&'static str, String)>;

/// The directive parent: kind and state, source and session, counts, last failure, goal.
fn parent_rows(world: &World, handle: AgentHandle, rows: &mut Rows) {
    let tasks = world.tasks();
    if let Some(p) = tasks.parents.get(&handle) {
        rows.push(("Parent", format!("{} · {:?}", p.kind_name(), p.state)));
        rows.push(("Source · session", format!("{} · {}", p.source, p.session)));
        rows.push((
            "Commands · failures",
            format!("{} · {}", p.commands, p.failures),
        ));
        if let Some(why) = p.last_failure {
            rows.push(("Last failure", format!("{why:?}")));
        }
        rows.push(("Goal", point_text(p.goal)));
    }
}

/// The movement: generation and state, replans and timers, corner and path.
fn movement_rows(world: &World, handle: AgentHandle, rows: &mut Rows) {
    let tasks = world.tasks();
    if let Some(m) = tasks.movements.get(&handle) {
        rows.push((
            "Movement",
            format!("generation {} · {:?}", m.generation, m.state),
        ));
        rows.push((
            "Replans · blocked · no progress",
            format!(
                "{} · {:.2} s · {:.2} s",
                m.replans, m.blocked_s, m.no_progress_s
            ),
        ));
        rows.push((
            "Path",
            format!(
                "corner {} of {} · {:.2} m to the goal",
                m.corner,
                m.path.len(),
                m.distance_to_goal_m()
            ),
        ));
    }
}

/// The last escape selection's candidates by verdict, and the one selected.
fn escape_rows(world: &World, handle: AgentHandle, rows: &mut Rows) {
    let tasks = world.tasks();
    if let Some(report) = tasks.escapes.get(&handle) {
        let qualified = report
            .candidates
            .iter()
            .filter(|c| c.verdict.is_ok())
            .count();
        let reason = |r: fn(&EscapeRejection) -> bool| {
            report
                .candidates
                .iter()
                .filter(|c| c.verdict.as_ref().err().is_some_and(r))
                .count()
        };
        rows.push((
            "Escape candidates",
            format!(
                "{} · {qualified} qualified · {} off the walkway · {} occupied · {} too close · {} no path · selected {}",
                report.candidates.len(),
                reason(|r| *r == EscapeRejection::ProjectionTooFar),
                reason(|r| *r == EscapeRejection::EndpointOccupied),
                reason(|r| *r == EscapeRejection::TooCloseToThreat),
                reason(|r| matches!(r, EscapeRejection::NoPath(_))),
                report
                    .selected
                    .map_or("none (not accepted)".to_owned(), |s| format!("#{s}")),
            ),
        ));
    }
}

fn point_text(p: [f64; 3]) -> String {
    format!("({:.2}, {:.2}, {:.2}) m", p[0], p[1], p[2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::sim::directed_street_world;

    #[test]
    fn a_directed_ped_shows_its_parent_movement_and_goal() {
        let mut world = directed_street_world(4, 7).expect("world");
        for _ in 0..3 {
            world.step();
        }
        // Walker 1 walks 15 m east (walker 0's goal is half a metre away and already reached).
        let handle = world.handle_of(1).expect("a ped");
        let rows = task_rows(&world, handle);
        let text = |label: &str| {
            rows.iter()
                .find(|(l, _)| *l == label)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(text("Parent"), "rendezvous · Travelling");
        assert_eq!(text("Source · session"), "script · 2");
        assert_eq!(text("Commands · failures"), "1 · 0");
        assert_eq!(text("Movement"), "generation 1 · Walking");
        assert!(text("Path").starts_with("corner 1 of 2"), "{rows:?}");
        assert!(text("Stop causes").is_empty());
    }
}
