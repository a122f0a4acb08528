//! Viewport colours: categorical palettes, agent states, mission roles, rejection reasons.
//!
//! Every colour that carries meaning is named here, so the legend in the Viewport tab and the scene
//! agree.

use stagecraft_runtime::content::{ChunkRole, RejectReason};
use stagecraft_runtime::project::Rgb;
use stagecraft_runtime::sim::{AgentState, SpawnRejection};
use three_d::Srgba;

/// A colour from its sRGB components.
pub const fn rgb(r: u8, g: u8, b: u8) -> Srgba {
    Srgba { r, g, b, a: 255 }
}

/// A colour from a project colour.
pub const fn of_rgb(colour: Rgb) -> Srgba {
    rgb(colour.0, colour.1, colour.2)
}

/// Ten distinct colours for categories (stages, recipes, variants).
pub const CATEGORIES: [Srgba; 10] = [
    rgb(78, 121, 167),
    rgb(242, 142, 43),
    rgb(225, 87, 89),
    rgb(118, 183, 178),
    rgb(89, 161, 79),
    rgb(237, 201, 72),
    rgb(176, 122, 161),
    rgb(255, 157, 167),
    rgb(156, 117, 95),
    rgb(186, 176, 172),
];

/// The category colour of `index`.
pub fn category(index: usize) -> Srgba {
    CATEGORIES[index % CATEGORIES.len()]
}

/// A stable category colour for a name (FNV-1a, so it does not change between runs).
pub fn category_of_name(name: &str) -> Srgba {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in name.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    category(hash as usize)
}

/// A task's remaining path.
pub const TASK_PATH: Srgba = rgb(90, 200, 250);
/// A task's goal.
pub const TASK_GOAL: Srgba = rgb(255, 255, 255);
/// An escape threat and its safe radius.
pub const ESCAPE_THREAT: Srgba = rgb(255, 70, 40);
/// A qualified escape candidate (the selected one is drawn larger).
pub const ESCAPE_QUALIFIED: Srgba = rgb(80, 220, 120);
/// An escape candidate with no walkable cell within the projection bound.
pub const ESCAPE_OFF_WALKWAY: Srgba = rgb(120, 120, 130);
/// An escape candidate whose endpoint another ped occupies.
pub const ESCAPE_OCCUPIED: Srgba = rgb(250, 200, 60);
/// An escape candidate too close to the threat.
pub const ESCAPE_TOO_CLOSE: Srgba = rgb(250, 120, 60);
/// An escape candidate without a full path within the expansion bound.
pub const ESCAPE_NO_PATH: Srgba = rgb(190, 90, 220);
/// Authored barriers and scene-object footprints.
pub const TASK_BARRIER: Srgba = rgb(230, 230, 90);

/// The colour of an agent in `state`.
pub fn agent_state(state: AgentState) -> Srgba {
    match state {
        AgentState::Walking => rgb(72, 199, 116),
        AgentState::Holding => rgb(245, 180, 40),
        AgentState::Travelling => rgb(70, 150, 255),
        AgentState::Arrived => rgb(170, 170, 185),
        AgentState::Fleeing => rgb(240, 60, 60),
        AgentState::KnockedDown => rgb(150, 90, 200),
        AgentState::Pooled => POOLED_AGENT,
    }
}

/// The head colour of an ambient agent in `state`: its state colour, lightened. The head is what
/// the top-down view sees of an agent, so it must carry the state too (a neutral head made every
/// agent a white dot from above).
pub fn agent_head(state: AgentState) -> Srgba {
    let c = agent_state(state);
    let lighten = |x: u8| x + ((255 - x) as f32 * 0.35).round() as u8;
    rgb(lighten(c.r), lighten(c.g), lighten(c.b))
}

/// Every agent state with its legend name.
pub const AGENT_STATES: [(AgentState, &str); 7] = [
    (AgentState::Walking, "walking"),
    (AgentState::Holding, "holding"),
    (AgentState::Travelling, "travelling"),
    (AgentState::Arrived, "arrived"),
    (AgentState::Fleeing, "fleeing"),
    (AgentState::KnockedDown, "knocked down"),
    (AgentState::Pooled, "pooled"),
];

/// The bot path through a mission layout.
pub const BOT_PATH: Srgba = rgb(250, 250, 250);

/// The head colour of agents a script owns (mission agents).
pub const MISSION_AGENT: Srgba = rgb(230, 80, 220);

/// The body of a pedestrian in the reuse pool (detached, waiting to be readmitted).
pub const POOLED_AGENT: Srgba = rgb(110, 110, 120);

/// The body of a pooled pedestrian still in quarantine (not yet reusable).
pub const QUARANTINED_AGENT: Srgba = rgb(150, 90, 210);

/// The lifecycle colours of the agent legend strip, after the states (pooled is a state).
pub const AGENT_LIFECYCLE: [(Srgba, &str); 2] = [
    (MISSION_AGENT, "mission"),
    (QUARANTINED_AGENT, "quarantined"),
];

/// The colour of a mission cell's role.
pub fn chunk_role(role: ChunkRole) -> Srgba {
    match role {
        ChunkRole::Spawn => rgb(60, 170, 90),
        ChunkRole::Objective => rgb(230, 180, 40),
        ChunkRole::Extraction => rgb(60, 120, 220),
        ChunkRole::Connector => rgb(120, 120, 130),
        ChunkRole::Encounter => rgb(200, 80, 70),
        ChunkRole::Landmark => rgb(150, 100, 190),
        ChunkRole::Blocker => rgb(45, 45, 50),
    }
}

/// The colour of a rejected candidate's reason.
pub fn reject_reason(reason: &RejectReason) -> Srgba {
    match reason {
        RejectReason::OutsideRegion => rgb(150, 150, 150),
        RejectReason::InKeepOut { .. } => rgb(255, 140, 0),
        RejectReason::Conflict { .. } => rgb(230, 40, 40),
    }
}

/// An observer's keyframed path.
pub const OBSERVER_PATH: Srgba = rgb(250, 200, 90);

/// An admitted spawn candidate.
pub const ADMITTED_CANDIDATE: Srgba = rgb(90, 230, 110);

/// The colour of the gate that refused a spawn candidate (the no-spawn box's red for its own).
pub fn spawn_rejection(reason: SpawnRejection) -> Srgba {
    match reason {
        SpawnRejection::NoSpawnBox => NO_SPAWN,
        other => category(other as usize + 1),
    }
}

/// Road surface.
pub const ROAD: Srgba = rgb(58, 60, 66);
/// Sidewalk surface.
pub const SIDEWALK: Srgba = rgb(150, 148, 140);
/// Crosswalk base and stripes.
pub const CROSSWALK: Srgba = rgb(70, 72, 78);
/// Zebra stripes.
pub const STRIPE: Srgba = rgb(235, 235, 228);
/// Lane markings.
pub const LANE_MARK: Srgba = rgb(240, 210, 80);
/// Sidewalk route lines.
pub const ROUTE: Srgba = rgb(80, 200, 230);
/// Crosswalk route lines.
pub const CROSSING_ROUTE: Srgba = rgb(120, 230, 140);
/// Waiting points.
pub const WAITING_POINT: Srgba = rgb(255, 170, 30);
/// Scatter area outlines.
pub const SCATTER_AREA: Srgba = rgb(110, 170, 90);
/// Keep-out outlines.
pub const KEEP_OUT: Srgba = rgb(230, 120, 40);
/// An exclusion region (an `Exclude` override) drawn over the viewport.
pub const EXCLUSION: Srgba = rgb(250, 110, 170);
/// No-spawn box.
pub const NO_SPAWN: Srgba = rgb(235, 50, 50);
/// No-removal box.
pub const NO_REMOVAL: Srgba = rgb(60, 110, 245);
/// Observer frusta.
pub const OBSERVER: Srgba = rgb(200, 200, 210);
/// The frustum of an observer whose view is invalid (it neither admits nor retires anyone).
pub const OBSERVER_INVALID: Srgba = rgb(95, 95, 105);
/// Retain range ring.
pub const RETAIN_RING: Srgba = rgb(90, 220, 120);
/// Remove range ring.
pub const REMOVE_RING: Srgba = rgb(240, 130, 60);
/// Loaded streaming cells.
pub const STREAM_LOADED: Srgba = rgb(70, 190, 110);
/// HLOD streaming cells.
pub const STREAM_HLOD: Srgba = rgb(80, 130, 220);
/// HLOD cells pruned by the budget.
pub const STREAM_PRUNED: Srgba = rgb(220, 70, 70);
/// The live HLOD donut's cells pruned this step because it asked for more than its budget.
pub const HLOD_OVER_BUDGET: Srgba = STREAM_PRUNED;
/// Grid lines.
pub const GRID: Srgba = rgb(62, 66, 74);
/// Major grid lines.
pub const GRID_MAJOR: Srgba = rgb(84, 90, 100);
/// Viewport background.
pub const BACKGROUND: Srgba = rgb(32, 35, 41);

/// A queue slot's cross at a crosswalk.
pub const QUEUE_SLOT: Srgba = rgb(255, 200, 120);
/// The specification's hazard vehicle (a red box).
pub const HAZARD: Srgba = rgb(220, 40, 40);
/// A follower's line to its group leader.
pub const GROUP_LINE: Srgba = rgb(250, 250, 140);

/// The disc under an agent by its applied tier (the crowd's Hero / Medium / Background): bright
/// for the most detail, dim for the least.
pub fn tier(tier: stagecraft_runtime::sim::motion::Tier) -> Srgba {
    use stagecraft_runtime::sim::motion::Tier::*;
    match tier {
        Full => rgb(255, 236, 110),
        Simulated => rgb(40, 200, 210),
        Stub => rgb(96, 92, 130),
    }
}

/// Every tier with its legend text, most detailed first.
pub const TIERS: [(stagecraft_runtime::sim::motion::Tier, &str); 3] = [
    (
        stagecraft_runtime::sim::motion::Tier::Full,
        "tier Full (Hero)",
    ),
    (
        stagecraft_runtime::sim::motion::Tier::Simulated,
        "tier Simulated (Medium)",
    ),
    (
        stagecraft_runtime::sim::motion::Tier::Stub,
        "tier Stub (Background)",
    ),
];
/// The cross over an agent outside the streaming plan's loaded ring (demoted one tier).
pub const OUTSIDE_RING: Srgba = rgb(235, 235, 245);
/// The outline of the streaming ring the world loads this step.
pub const LOADED_RING: Srgba = STREAM_LOADED;
/// The cone over a panicked agent (its size grows with the panic level).
pub const PANICKED: Srgba = rgb(255, 45, 140);
/// A fleeing agent's line to its exit.
pub const FLEE_LINE: Srgba = rgb(255, 150, 30);
/// An exit agents flee to that still has room (or no capacity).
pub const FLEE_TARGET: Srgba = rgb(40, 230, 160);
/// An exit whose capacity is taken: later fleers spill to the next.
pub const FLEE_TARGET_FULL: Srgba = rgb(170, 30, 70);

/// A bound agent's crossing line by its crosswalk phase (the specification's colours: cyan moving,
/// orange requested or waiting, magenta crossing or clearing).
pub fn crosswalk_phase(phase: stagecraft_runtime::sim::CrosswalkPhase) -> Srgba {
    use stagecraft_runtime::sim::CrosswalkPhase::*;
    match phase {
        Approach | Completed => rgb(60, 220, 230),
        Requested => rgb(255, 190, 60),
        Waiting => rgb(245, 140, 30),
        Crossing => rgb(230, 60, 220),
        Clearing => rgb(180, 60, 240),
    }
}

/// A walker on a crossing route, moving (Approach, Completed): the specification's cyan.
pub const CROSSING_MOVING: Srgba = rgb(60, 220, 230);
/// A walker queued at a crosswalk (Requested, Waiting): the specification's orange.
pub const CROSSING_QUEUED: Srgba = rgb(250, 140, 20);
/// A committed crosser (Crossing, Clearing): the specification's magenta.
pub const CROSSING_COMMITTED: Srgba = rgb(235, 50, 225);

/// The body of a walker on a crossing route by its crosswalk phase, as the specification colours
/// its boxes: cyan moving, orange requested or waiting, magenta crossing or clearing.
pub fn crossing_body(phase: stagecraft_runtime::sim::CrosswalkPhase) -> Srgba {
    use stagecraft_runtime::sim::CrosswalkPhase::*;
    match phase {
        Approach | Completed => CROSSING_MOVING,
        Requested | Waiting => CROSSING_QUEUED,
        Crossing | Clearing => CROSSING_COMMITTED,
    }
}

/// The crossing body colours with their legend text.
pub const CROSSING_BODIES: [(Srgba, &str); 3] = [
    (CROSSING_MOVING, "crosser moving (approach, completed)"),
    (CROSSING_QUEUED, "crosser requested / waiting"),
    (CROSSING_COMMITTED, "crosser crossing / clearing"),
];

/// A kerb's stop bar: green only while the vehicle gate is open, amber in AllStop, red in the
/// pedestrian phase (and with someone still on the crossing during a green).
pub fn signal(phase: Option<stagecraft_runtime::sim::SignalPhase>, gate_open: bool) -> Srgba {
    use stagecraft_runtime::sim::SignalPhase::*;
    match (phase, gate_open) {
        (Some(VehicleGreen), true) | (None, _) => rgb(70, 220, 90),
        (Some(AllStop), _) => rgb(250, 190, 40),
        _ => rgb(235, 50, 50),
    }
}

/// The mast over a stuck agent, by reason.
pub fn stuck(reason: stagecraft_runtime::sim::StuckReason) -> Srgba {
    use stagecraft_runtime::sim::StuckReason::*;
    match reason {
        WaitingForSignal => rgb(250, 190, 40),
        QueueFull => rgb(255, 120, 40),
        BlockedByBody => rgb(240, 60, 60),
        NoSafeStep => rgb(200, 60, 255),
    }
}

/// A task ped's heading line while it stands (idle, or the stop tail of a hold).
pub const GAIT_STANDING: Srgba = rgb(200, 200, 200);
/// … while it plays its turn clip.
pub const GAIT_TURN: Srgba = rgb(240, 120, 240);
/// … while it plays its start clip.
pub const GAIT_START: Srgba = rgb(120, 230, 120);
/// … while it loops.
pub const GAIT_LOOP: Srgba = rgb(60, 160, 255);
/// … while it plays its goal stop.
pub const GAIT_STOP: Srgba = rgb(255, 170, 40);

/// The heatmap's colour ramp, low to high (perceptually ordered, after viridis): a bin's count is
/// drawn in the colour of its fifth of the largest count ([`heat_bucket`]).
pub const HEAT: [Srgba; 5] = [
    rgb(68, 1, 84),
    rgb(59, 82, 139),
    rgb(33, 145, 140),
    rgb(94, 201, 98),
    rgb(253, 231, 37),
];

/// Opacity of the heatmap's squares: the ground, surfaces and object bases read through them.
pub const HEAT_ALPHA: u8 = 110;

/// The colour a heatmap square of ramp step `bucket` is drawn in (and its legend swatch):
/// [`HEAT`]'s, translucent by [`HEAT_ALPHA`].
pub fn heat_colour(bucket: usize) -> Srgba {
    let Srgba { r, g, b, .. } = HEAT[bucket.min(HEAT.len() - 1)];
    Srgba {
        r,
        g,
        b,
        a: HEAT_ALPHA,
    }
}

/// The ramp step of `count` out of `max` (counts 1..=max in five equal steps); `None` for 0.
pub fn heat_bucket(count: u32, max: u32) -> Option<usize> {
    if count == 0 || max == 0 {
        return None;
    }
    let steps = HEAT.len() as u64;
    let bucket = (u64::from(count) * steps)
        .div_ceil(u64::from(max))
        .clamp(1, steps)
        - 1;
    usize::try_from(bucket).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fixtures::street_content;
    use crate::viewport::meshes::Shape;
    use stagecraft_runtime::project::PopulationKind;

    #[test]
    fn seen_from_above_an_agent_still_shows_its_state_colour() {
        let content = street_content("r");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        let scenario = loaded.project.expect("loads").scenarios["crosswalk-rush"].clone();
        let mut world = content.world(&scenario, 7).expect("world");
        for _ in 0..200 {
            world.step();
        }
        let layer = crate::viewport::overlays::agents(&world);
        // The head (a box on top) is what the top-down view sees.
        let heads = &layer.shapes[Shape::Box.index()].colours;
        let frames = world.motion_frames();
        assert_eq!(heads.len(), frames.len());
        let mut ambient = 0;
        for (frame, head) in frames.iter().zip(heads) {
            if frame.tags.kind == PopulationKind::Mission {
                continue;
            }
            ambient += 1;
            assert_eq!(*head, agent_head(frame.behaviour));
        }
        assert!(ambient > 10);
        let heads: Vec<Srgba> = AGENT_STATES.iter().map(|(s, _)| agent_head(*s)).collect();
        for (i, a) in heads.iter().enumerate() {
            for b in &heads[i + 1..] {
                assert_ne!(a, b, "two states share a head colour");
            }
        }
    }
}
