//! A pedestrian's crossing, group and tier as the Provenance tab's rows: its crosswalk phase,
//! crosswalk, lane and queue row, waiting time, completions; its group and role (leader or
//! follower, regrouping); its applied tier and what decided it. Read from the runtime's
//! `World::agent_crossing` and `World::tier_why`, looked up by id.

use stagecraft_runtime::sim::{
    AgentCrossing, AgentId, CrosswalkPhase, GroupRole, Tier, TierCause, TierWhy, World,
};

/// The crossing and group rows of agent `id` (empty when it is not alive).
pub fn crossing_rows(world: &World, id: AgentId) -> Vec<(&'static str, String)> {
    let Some(crossing) = world.agent_crossing(id) else {
        return Vec::new();
    };
    let mut rows = phase_rows(&crossing);
    rows.push(("Group", group_text(world, id, &crossing)));
    rows
}

fn phase_rows(crossing: &AgentCrossing) -> Vec<(&'static str, String)> {
    let c = &crossing.record;
    let mut rows = vec![("Crossing phase", c.phase.name().to_owned())];
    match (&crossing.crosswalk_id, crossing.lane, crossing.row) {
        (Some(id), Some(lane), Some(row)) => {
            let side = if c.entry_side == 0 {
                "side 0"
            } else {
                "side 1"
            };
            rows.push(("Crosswalk", format!("{id} from {side}")));
            rows.push((
                "Lane and row",
                format!(
                    "lane {lane} ({:.2} m right of its line) · row {row} ({:.2} m behind the kerb)",
                    c.lateral_m, c.queue_m
                ),
            ));
            rows.push(("Waiting", format!("{:.2} s", c.waiting_s)));
            if c.phase.occupies() || c.phase == CrosswalkPhase::Completed {
                rows.push((
                    "Across",
                    format!("{:.0} %", c.alpha.clamp(0.0, 1.0) * 100.0),
                ));
            }
        }
        _ => rows.push(("Crosswalk", "none bound".to_owned())),
    }
    if c.held {
        rows.push(("Held", "short of a full queue".to_owned()));
    }
    rows.push(("Crossings completed", c.completed.to_string()));
    rows
}

/// The group row: alone, or the role with the group's leader and slot, and regrouping.
fn group_text(world: &World, id: AgentId, crossing: &AgentCrossing) -> String {
    let g = &crossing.group;
    let regrouping = if g.regrouping { " · regrouping" } else { "" };
    let leader = format!("{}:{}", id.source(), g.leader_ordinal);
    match g.role {
        GroupRole::Alone => "alone".to_owned(),
        GroupRole::Leader => {
            format!("leader of group {leader} (its followers keep slots behind it)")
        }
        GroupRole::Follower => {
            let alive = world
                .motion_frame(AgentId::new(id.source() as u16, g.leader_ordinal))
                .is_some();
            format!(
                "follower in slot {} of group {leader}{}{regrouping}",
                g.slot,
                if alive { "" } else { " (leader gone)" }
            )
        }
    }
}

/// The tier rows of agent `id` (empty when it is not alive).
pub fn tier_rows(world: &World, id: AgentId) -> Vec<(&'static str, String)> {
    let Some(why) = world.tier_why(id) else {
        return Vec::new();
    };
    vec![
        (
            "Tier",
            format!("{:?} ({})", why.applied, why.applied.crowd_name()),
        ),
        ("Tier because", tier_reason(&why)),
    ]
}

/// Why an agent has its tier, in words.
pub fn tier_reason(why: &TierWhy) -> String {
    let observer = if why.camera {
        "the editor camera"
    } else {
        "the nearest observer"
    };
    match why.cause {
        TierCause::NoObserver => "no observer: every agent is Full".to_owned(),
        TierCause::Crossing(phase) => {
            format!("forced Full while {} at a crosswalk", phase.name())
        }
        TierCause::Requested {
            distance_m,
            by_distance,
            by_relevance,
            outside_ring,
            requested,
        } => {
            let mut text = format!(
                "{distance_m:.1} m from {observer} asks for {by_distance:?} by the {} policy",
                why.policy
            );
            if by_relevance < by_distance {
                text.push_str(&format!("; relevance asks for {by_relevance:?}"));
            }
            if outside_ring {
                text.push_str("; outside the loaded ring, one rung lower");
            }
            if requested != why.applied {
                let held = if requested < why.applied {
                    "a capacity or the promotion budget holds it"
                } else {
                    "the demotion budget or the crowd governor moved it"
                };
                text.push_str(&format!(
                    "; requested {requested:?}, {held} at {:?}",
                    why.applied
                ));
            } else if requested == Tier::Stub && by_distance == Tier::Stub {
                text.push_str(" (beyond every band)");
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_reasons_read_as_the_runtime_decided() {
        let forced = TierWhy {
            applied: Tier::Full,
            cause: TierCause::Crossing(CrosswalkPhase::Waiting),
            camera: false,
            policy: "motion-bands",
        };
        assert_eq!(
            tier_reason(&forced),
            "forced Full while waiting at a crosswalk"
        );
        let held = TierWhy {
            applied: Tier::Simulated,
            cause: TierCause::Requested {
                distance_m: 12.34,
                by_distance: Tier::Full,
                by_relevance: Tier::Stub,
                outside_ring: false,
                requested: Tier::Full,
            },
            camera: true,
            policy: "crowd-radii",
        };
        assert_eq!(
            tier_reason(&held),
            "12.3 m from the editor camera asks for Full by the crowd-radii policy; requested \
             Full, a capacity or the promotion budget holds it at Simulated"
        );
        let none = TierWhy {
            applied: Tier::Full,
            cause: TierCause::NoObserver,
            camera: false,
            policy: "motion-bands",
        };
        assert_eq!(tier_reason(&none), "no observer: every agent is Full");
    }

    fn value(rows: &[(&'static str, String)], name: &str) -> String {
        rows.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no row {name}: {rows:?}"))
    }

    #[test]
    fn a_waiting_follower_shows_its_crosswalk_lane_row_wait_group_and_tier() {
        let mut world = crate::panels::crossings::crossing_world();
        let (mut waiting, mut followers) = (0, 0);
        for _ in 0..900 {
            world.step();
            for frame in world.motion_frames() {
                let Some(crossing) = world.agent_crossing(frame.id) else {
                    continue;
                };
                let rows = crossing_rows(&world, frame.id);
                let c = crossing.record;
                assert_eq!(value(&rows, "Crossing phase"), frame.crosswalk.name());
                assert_eq!(c.phase, frame.crosswalk);
                if c.phase == CrosswalkPhase::Waiting {
                    waiting += 1;
                    let side = format!("crosswalk.0 from side {}", c.entry_side);
                    assert_eq!(value(&rows, "Crosswalk"), side);
                    // Two usable lanes: the slot's lane and row.
                    let (lane, row) = (c.slot % 2, c.slot / 2);
                    assert!(value(&rows, "Lane and row").starts_with(&format!("lane {lane} (")));
                    assert!(value(&rows, "Lane and row").contains(&format!("· row {row} (")));
                    assert_eq!(value(&rows, "Waiting"), format!("{:.2} s", c.waiting_s));
                    assert!(c.waiting_s > 0.0);
                }
                if crossing.group.role == GroupRole::Follower {
                    followers += 1;
                    let group = value(&rows, "Group");
                    let leader = frame.group_leader().expect("a follower has a leader");
                    assert!(
                        group.starts_with(&format!(
                            "follower in slot {} of group 0:{}",
                            crossing.group.slot,
                            leader.ordinal()
                        )),
                        "{group}"
                    );
                    assert_eq!(group.ends_with(" · regrouping"), crossing.group.regrouping);
                }
                let tier = tier_rows(&world, frame.id);
                assert_eq!(
                    value(&tier, "Tier"),
                    format!("{:?} ({})", frame.tier, frame.tier.crowd_name())
                );
                // No observer in this world: every agent is Full.
                assert_eq!(
                    value(&tier, "Tier because"),
                    "no observer: every agent is Full"
                );
            }
        }
        assert!(waiting > 0 && followers > 0, "{waiting} {followers}");
    }
}
