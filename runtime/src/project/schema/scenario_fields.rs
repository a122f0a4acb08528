//! The scenario's sections as field schemas (`Scenario`, `Observer`, `Source`, `Crossings`,
//! `Population`, `Motion`, `VehicleSource`, `Object`, `Barrier`, `Exit`, …): the one
//! description the compiler's range checks, the Inspector and `docs/format.md` read.

use super::fields::{
    DocumentSchema, FieldDefault as D, FieldSchema, SectionSchema, FINITE, POSITIVE, UNIT_INTERVAL,
};
use super::scenario::{
    NumberRange, BATCH_SIZE_RANGE, CYCLES_PER_FRAME_RANGE, DURATION_FRAMES_RANGE, FRAME_RATE_RANGE,
    SCENARIO_SCHEMA,
};

/// A field with a name, label, type, unit, default and help (no range, no rule).
const fn f(
    name: &'static str,
    label: &'static str,
    ty: &'static str,
    unit: &'static str,
    default: D,
    help: &'static str,
) -> FieldSchema {
    FieldSchema {
        name,
        label,
        ty,
        unit,
        range: None,
        rule: "",
        default,
        help,
    }
}

/// `field` with the checked range `range`.
const fn r(field: FieldSchema, range: NumberRange) -> FieldSchema {
    FieldSchema {
        range: Some(range),
        ..field
    }
}

/// `field` with the rule `rule` in words.
const fn w(field: FieldSchema, rule: &'static str) -> FieldSchema {
    FieldSchema { rule, ..field }
}

const P3: &str = "(x, y, z)";
const U32: &str = "integer (u32)";
const U64: &str = "integer (u64)";

/// `fixed_step_s`: (0, [`super::scenario::MAX_FIXED_STEP_S`]] seconds.
pub const FIXED_STEP_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: true,
    max: super::scenario::MAX_FIXED_STEP_S,
    text: "(0, 1]",
};

/// `crossings.lanes`.
pub const LANES_RANGE: NumberRange = NumberRange {
    min: 1.0,
    min_open: false,
    max: 5.0,
    text: "1 to 5 lateral lanes",
};

/// `crossings.queue_rows`.
pub const QUEUE_ROWS_RANGE: NumberRange = NumberRange {
    min: 1.0,
    min_open: false,
    max: 64.0,
    text: "1 to 64 queue rows",
};

/// `crossings.queries_per_step`.
pub const QUERIES_PER_STEP_RANGE: NumberRange = NumberRange {
    min: 1.0,
    min_open: false,
    max: 1e9,
    text: "at least 1 query per step",
};

/// `crossings.group_share`.
pub const GROUP_SHARE_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: 1.0,
    text: "a share in [0, 1]",
};

/// `crossings.max_group_size`.
pub const MAX_GROUP_SIZE_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: 3.0,
    text: "0 to 3 agents per group",
};

/// The longest a timed directive (a stand, a forced-init window) may last, seconds.
pub const DIRECTIVE_DURATION_RANGE: NumberRange = NumberRange {
    min: 0.0,
    min_open: true,
    max: 3600.0,
    text: "a duration in (0, 3600] seconds",
};

const SCENARIO_FIELDS: [FieldSchema; 17] = [
    w(f("schema", "Schema", "integer", "", D::Required, "schema version (2 → 3 added `objects` and `barriers`, empty when absent); files are migrated on reading"), "1–3"),
    w(f("id", "Id", "id", "", D::Required, "persistent scenario id"), "the file's name"),
    f("name", "Name", "string", "", D::Text("\"\""), "display name"),
    w(f("recipe", "Recipe", "id", "", D::Required, "the recipe whose pedestrian space the scenario runs on"), "a recipe of the project"),
    r(f("fixed_step_s", "Fixed step", "float", "s", D::Number(0.05), "fixed simulation step"), FIXED_STEP_RANGE),
    r(f("duration_frames", "Duration frames", U64, "frames", D::Number(1200.0), "length of the scenario; a run is also held to the simulation's work and memory estimate (see \"A scenario's run estimate\")"), DURATION_FRAMES_RANGE),
    f("observers", "Observers", "list of `Observer(…)`", "", D::Text("[]"), "views that decide admission, removal and streaming"),
    f("sources", "Sources", "list of `Source(…)`", "", D::Text("[]"), "where pedestrians come from"),
    w(f("no_spawn_box", "No spawn box", "`None` or `Some(Box3(…))`", "m", D::Text("None"), "no ambient births inside (inclusive)"), "min ≤ max on every axis"),
    w(f("no_removal_box", "No removal box", "`None` or `Some(Box3(…))`", "m", D::Text("None"), "ambient members inside are never retired automatically"), "min ≤ max on every axis"),
    f("vehicle_sources", "Vehicle sources", "list of `VehicleSource(…)`", "", D::Text("[]"), "lane-following vehicles (the vehicle cycle clock's work)"),
    f("crossings", "Crossings", "`Crossings(…)`", "", D::Text("Crossings()"), "signalled crosswalks, groups and the liveness guard"),
    f("population", "Population", "`Population(…)`", "", D::Text("Population()"), "population cycles, the reuse pool, cleanup and a provoked attachment failure"),
    f("motion", "Motion", "`Motion(…)`", "", D::Text("Motion()"), "LOD tiers, the avoidance budget, the crowd governor and exits"),
    f("directives", "Directives", "list of `Directive(…)`", "", D::Text("[]"), "scripted commands by frame"),
    f("objects", "Objects", "list of `Object(…)`", "", D::Text("[]"), "authored scene objects (rendezvous goals; a footprint is part of the physical scene)"),
    f("barriers", "Barriers", "list of `Barrier(…)`", "", D::Text("[]"), "wall segments of the physical scene"),
];

/// A spawn range bound: a distance in [0, 100000] meters.
pub const SPAWN_RANGE_M: NumberRange = NumberRange {
    min: 0.0,
    min_open: false,
    max: 100_000.0,
    text: "[0, 100000]",
};

/// A removal scale: [1, 100] (a scale widens the removal distances, never narrows them).
pub const REMOVAL_SCALE_RANGE: NumberRange = NumberRange {
    min: 1.0,
    min_open: false,
    max: 100.0,
    text: "[1, 100]",
};

const OBSERVER_FIELDS: [FieldSchema; 19] = [
    f("id", "Id", "id", "", D::Required, "persistent observer id"),
    r(f("position", "Position", P3, "m", D::Required, "eye position"), FINITE),
    r(f("yaw_rad", "Yaw", "float", "rad", D::Number(0.0), "heading around Z (0 looks along +X)"), FINITE),
    r(f("pitch_rad", "Pitch", "float", "rad", D::Number(0.0), "pitch (negative looks down)"), FINITE),
    w(r(f("fov_y_rad", "Fov y", "float", "rad", D::Number(1.0), "vertical field of view"), FINITE), "(0, π)"),
    w(r(f("near_m", "Near", "float", "m", D::Number(0.1), "near plane distance"), FINITE), "0 < near < far"),
    w(r(f("far_m", "Far", "float", "m", D::Number(200.0), "far plane distance"), FINITE), "> near"),
    w(r(f("retain_radius_m", "Retain radius", "float", "m", D::Number(40.0), "members within this horizontal distance are retained (Rout)"), FINITE), "≤ `remove_radius_m`"),
    w(r(f("remove_radius_m", "Remove radius", "float", "m", D::Number(80.0), "members beyond this horizontal distance are removable (Rin)"), FINITE), "≥ `retain_radius_m`"),
    r(f("close_m", "Close", "float", "m", D::Number(3.0), "closer than this to the camera (3D) a visible birth is refused"), FINITE),
    w(f("center", "Center", "`None` or `Some((x, y, z))`", "m", D::Text("None"), "population center ranges are measured from (the eye when absent); moves with the path"), "finite"),
    w(f("path", "Path", "list of `Key(frame, position)`", "frames, m", D::Text("[]"), "keyframed eye positions (linear between keys)"), "ascending frames"),
    w(f("aim", "Aim", "list of `Aim(frame, yaw_rad, pitch_rad = 0.0)`", "frames, rad", D::Text("[]"), "keyframed aim: where the camera looks (linear between keys, the heading the shorter way round; empty: `yaw_rad` and `pitch_rad` throughout)"), "ascending frames, finite"),
    r(f("fade", "Fade", "float", "", D::Number(0.0), "fade at the start (1 = black); hidden startup needs > 0.9 on every view"), UNIT_INTERVAL),
    f("valid", "Valid", "bool", "", D::Bool(true), "whether the view is valid at the start (no valid view defers generation)"),
    w(r(f("spawn_min_m", "Spawn min", "float", "m", D::Number(0.0), "normal spawn range's minimum: a birth outside hidden startup closer than this (horizontally, to the population center) to any valid view is refused (`TooCloseToView`)"), SPAWN_RANGE_M), "≤ the normal maximum"),
    w(f("spawn_max_m", "Spawn max", "`None` or `Some(float)`", "m", D::Text("None"), "normal spawn range's maximum: a birth outside hidden startup needs some valid view within this horizontal distance (`OutOfRange`); absent: `retain_radius_m`"), "[0, 100000]"),
    w(r(f("hidden_spawn_min_m", "Hidden spawn min", "float", "m", D::Number(0.0), "hidden spawn range's minimum (during hidden startup, which lifts the close-camera and frustum checks)"), SPAWN_RANGE_M), "≤ the hidden maximum"),
    w(f("hidden_spawn_max_m", "Hidden spawn max", "`None` or `Some(float)`", "m", D::Text("None"), "hidden spawn range's maximum (during hidden startup); absent: the normal maximum"), "[0, 100000]"),
];

const KEY_FIELDS: [FieldSchema; 2] = [
    w(
        f(
            "frame",
            "Frame",
            U64,
            "frames",
            D::Required,
            "the frame the eye reaches this position",
        ),
        "above the previous key's",
    ),
    r(
        f(
            "position",
            "Position",
            P3,
            "m",
            D::Required,
            "eye position at that frame",
        ),
        FINITE,
    ),
];

const AIM_FIELDS: [FieldSchema; 3] = [
    w(
        f(
            "frame",
            "Frame",
            U64,
            "frames",
            D::Required,
            "the frame the camera looks this way",
        ),
        "above the previous key's",
    ),
    r(
        f(
            "yaw_rad",
            "Yaw",
            "float",
            "rad",
            D::Required,
            "heading around Z at that frame (0 looks along +X)",
        ),
        FINITE,
    ),
    r(
        f(
            "pitch_rad",
            "Pitch",
            "float",
            "rad",
            D::Number(0.0),
            "pitch at that frame (negative looks down)",
        ),
        FINITE,
    ),
];

const SOURCE_FIELDS: [FieldSchema; 13] = [
    w(f("id", "Id", "id", "", D::Required, "persistent source id"), "unique in the scenario"),
    f("kind", "Kind", "`Ambient` or `Mission`", "", D::Text("Ambient"), "ambient population, or owned by a script"),
    w(f("route", "Route", "string", "", D::Required, "the route the source spawns on"), "a route the recipe publishes (see \"Routes a street block publishes\")"),
    f("target_count", "Target count", U32, "peds", D::Required, "how many pedestrians the source keeps alive"),
    r(f("walk_speed_m_s", "Walk speed", "float", "m/s", D::Number(1.4), "preferred walking speed"), POSITIVE),
    f("capacity", "Capacity", "`None` or `Some(u32)`", "peds", D::Text("None"), "attached peds (ambient and mission) the source may host (absent: its target)"),
    r(f("batch_size", "Batch size", U32, "peds", D::Number(1.0), "peds one demand creates at once (an atomic batch), never more than the source is short of its target"), BATCH_SIZE_RANGE),
    f("family", "Family", "`None` or `Some(\"…\")`", "", D::Text("None"), "appearance family its peds need (`SetFamilyAvailable` toggles it)"),
    r(f("candidates_m", "Candidates", "list of floats", "m", D::Text("[]"), "authored candidate progresses along the route (empty: drawn)"), FINITE),
    r(f("removal_multiplier", "Removal multiplier", "float", "×", D::Number(1.0), "removal-distance multiplier every admission applies"), POSITIVE),
    f("at_route_end", "At route end", "`TurnBack` or `Stop`", "", D::Text("TurnBack"), "what its pedestrians do at the end of their route: turn round and walk it back, or stop at its goal"),
    f("law_enforcement", "Law enforcement", "bool", "", D::Bool(false), "its peds are classified law enforcement: a qualifying ped (suppress-cleanup request, extra-distance flag) takes the population's `cops_removal_scale` instead of `special_removal_scale`, never both"),
    w(f("motion_profile", "Motion profile", "`None` or `Some(\"…\")`", "", D::Text("None"), "the motion profile a task installed on one of its peds walks with (`None`: `walking`; an escape runs with `running` unless its directive names one; written only when set)"), "`walking`, `running` or the id of a project `*.motion.ron`"),
];

const BOX_FIELDS: [FieldSchema; 2] = [
    w(
        f("min", "Min", P3, "m", D::Required, "lowest corner"),
        "≤ `max` on every axis",
    ),
    w(
        f("max", "Max", P3, "m", D::Required, "highest corner"),
        "≥ `min` on every axis",
    ),
];

const VEHICLE_SOURCE_FIELDS: [FieldSchema; 4] = [
    f(
        "id",
        "Id",
        "id",
        "",
        D::Required,
        "persistent vehicle source id",
    ),
    w(
        f(
            "lane",
            "Lane",
            "string",
            "",
            D::Required,
            "the lane of the recipe's street block it drives",
        ),
        "a lane of the recipe's street block",
    ),
    f(
        "target_count",
        "Target count",
        U32,
        "vehicles",
        D::Required,
        "vehicles it keeps on the lane",
    ),
    r(
        f(
            "speed_m_s",
            "Speed",
            "float",
            "m/s",
            D::Number(8.0),
            "driving speed",
        ),
        POSITIVE,
    ),
];

const CROSSINGS_FIELDS: [FieldSchema; 12] = [
    r(f("lanes", "Lanes", U32, "lanes", D::Number(2.0), "lateral lanes across each crossing: each direction keeps to the right half of a crosswalk's width, split into equal lanes (as many as fit one body, 0.63 m, apart)"), LANES_RANGE),
    r(f("queue_rows", "Queue rows", U32, "rows", D::Number(3.0), "queue rows per lane behind each waiting point (0.75 m apart)"), QUEUE_ROWS_RANGE),
    r(f("entry_range_m", "Entry range", "float", "m", D::Number(4.0), "a walker binds to a crosswalk this far before its entry kerb"), POSITIVE),
    r(f("queries_per_step", "Queries per step", U32, "queries", D::Number(128.0), "crosswalk queries processed per step; the rest are deferred"), QUERIES_PER_STEP_RANGE),
    r(f("vehicle_green_s", "Vehicle green", "float", "s", D::Number(4.0), "shortest vehicle green before pedestrian demand is served"), POSITIVE),
    r(f("all_stop_s", "All stop", "float", "s", D::Number(2.0), "each all-stop interval (before the walk phase and the clearance after it)"), POSITIVE),
    r(f("pedestrian_s", "Pedestrian", "float", "s", D::Number(6.0), "the pedestrian walk phase"), POSITIVE),
    r(f("stuck_after_s", "Stuck after", "float", "s", D::Number(15.0), "an agent without progress this long is flagged stuck"), POSITIVE),
    r(f("forced_clear_after_s", "Forced clear after", "float", "s", D::Number(10.0), "a committed crosser without progress this long is cleared to its exit"), POSITIVE),
    r(f("group_share", "Group share", "float", "", D::Number(0.25), "share of agents walking in groups"), GROUP_SHARE_RANGE),
    r(f("max_group_size", "Max group size", U32, "agents", D::Number(3.0), "largest group (0 or 1 disables groups)"), MAX_GROUP_SIZE_RANGE),
    f("hazard", "Hazard", "`None` or `Some(Hazard(…))`", "", D::Text("None"), "the seed's hazard vehicle, driving along x through the crosswalks"),
];

const HAZARD_FIELDS: [FieldSchema; 2] = [
    r(f("y_m", "Y", "float", "m", D::Required, "the line it drives along (from x = −12 m, wrapping past +12 m; it advances only while every vehicle gate is open)"), FINITE),
    r(f("speed_m_s", "Speed", "float", "m/s", D::Number(4.0), "its speed"), POSITIVE),
];

const POPULATION_FIELDS: [FieldSchema; 11] = [
    r(
        f(
            "ped_frame_rate",
            "Ped frame rate",
            "float",
            "Hz",
            D::Number(20.0),
            "frames per second the ped clock counts against (rate = frame rate × cycles per frame)",
        ),
        FRAME_RATE_RANGE,
    ),
    r(
        f(
            "ped_cycles_per_frame",
            "Ped cycles per frame",
            "float",
            "cycles",
            D::Number(1.0),
            "ped cycles per such frame",
        ),
        CYCLES_PER_FRAME_RANGE,
    ),
    r(
        f(
            "vehicle_frame_rate",
            "Vehicle frame rate",
            "float",
            "Hz",
            D::Number(20.0),
            "frames per second the vehicle clock counts against",
        ),
        FRAME_RATE_RANGE,
    ),
    r(
        f(
            "vehicle_cycles_per_frame",
            "Vehicle cycles per frame",
            "float",
            "cycles",
            D::Number(1.0),
            "vehicle cycles per such frame",
        ),
        CYCLES_PER_FRAME_RANGE,
    ),
    r(
        f(
            "max_frame_time_s",
            "Max frame time",
            "float",
            "s",
            D::Number(0.1),
            "longest elapsed time one update adds to the clocks",
        ),
        POSITIVE,
    ),
    f(
        "pool_capacity",
        "Pool capacity",
        U32,
        "entries",
        D::Number(16.0),
        "entries the reuse pool holds",
    ),
    f(
        "aggressive_cleanup",
        "Aggressive cleanup",
        "bool",
        "",
        D::Bool(true),
        "whether the intermediate band removes offscreen members",
    ),
    f(
        "fault",
        "Fault",
        "`None` or `Some(AttachFault(…))`",
        "",
        D::Text("None"),
        "a provoked attachment failure (fault-injection scenarios)",
    ),
    r(
        f(
            "special_removal_scale",
            "Special removal scale",
            "float",
            "×",
            D::Number(1.6),
            "scales the removal distances of a qualifying ped (a suppress-cleanup request, an ordinary or task extra-distance flag) that is not law enforcement; the ped's own multiplier applies after it",
        ),
        REMOVAL_SCALE_RANGE,
    ),
    r(
        f(
            "cops_removal_scale",
            "Cops removal scale",
            "float",
            "×",
            D::Number(1.6),
            "selected instead of the special scale for a qualifying ped of a law-enforcement source (the two never multiply)",
        ),
        REMOVAL_SCALE_RANGE,
    ),
    f(
        "startup_at_world_start",
        "Startup at world start",
        "bool",
        "",
        D::Bool(false),
        "the world starts with the startup flag set: a hidden-startup reason from the first Control update until the first fill (no source short of its target) completes",
    ),
];

const FAULT_FIELDS: [FieldSchema; 3] = [
    f(
        "batch",
        "Batch",
        U64,
        "",
        D::Required,
        "realization batch ordinal (from 0)",
    ),
    f(
        "item",
        "Item",
        U32,
        "",
        D::Required,
        "item within the batch",
    ),
    f(
        "fail_restore",
        "Fail restore",
        "bool",
        "",
        D::Bool(false),
        "whether putting reused peds back into the pool fails too",
    ),
];

/// The rule of `motion.tier_policy` (a test holds it equal to the shipped policies' names).
pub const TIER_POLICY_RULE: &str = "one of `motion-bands`, `crowd-radii`";

/// What a tier field's help adds: the named policy fills it when the scenario leaves it out.
macro_rules! tier_help {
    ($help:literal) => {
        concat!($help, "; left out: the tier policy's")
    };
}

const MOTION_FIELDS: [FieldSchema; 16] = [
    w(f("tier_policy", "Tier policy", "string", "", D::Text("\"motion-bands\""), "the named tier policy whose bands, capacities, budgets and relevance thresholds the scenario runs (see \"Tier policies\"); written only when not `motion-bands`"), TIER_POLICY_RULE),
    r(f("full_enter_m", "Full enter", "float", "m", D::Number(25.0), tier_help!("within this distance of the nearest observer an agent becomes Full")), POSITIVE),
    w(r(f("full_exit_m", "Full exit", "float", "m", D::Number(32.0), tier_help!("beyond this distance a Full agent leaves Full")), POSITIVE), "≥ `full_enter_m`"),
    w(r(f("simulated_enter_m", "Simulated enter", "float", "m", D::Number(55.0), tier_help!("within this distance an agent becomes Simulated")), POSITIVE), "≥ `full_exit_m`"),
    w(r(f("simulated_exit_m", "Simulated exit", "float", "m", D::Number(65.0), tier_help!("beyond this distance a Simulated agent becomes Stub")), POSITIVE), "≥ `simulated_enter_m`"),
    f("full_capacity", "Full capacity", U32, "agents", D::Number(12.0), tier_help!("agents that may be Full at once (forced-full agents may exceed it)")),
    f("simulated_capacity", "Simulated capacity", U32, "agents", D::Number(12.0), tier_help!("agents that may be Simulated at once")),
    f("promotions_per_step", "Promotions per step", U32, "agents", D::Number(12.0), tier_help!("tier promotions applied per step")),
    f("demotions_per_step", "Demotions per step", U32, "agents", D::Number(24.0), tier_help!("tier demotions applied per step")),
    r(f("hero_relevance", "Hero relevance", "float", "", D::Number(0.85), tier_help!("at or above this relevance an agent asks for Full (Hero)")), UNIT_INTERVAL),
    w(r(f("medium_relevance", "Medium relevance", "float", "", D::Number(0.35), tier_help!("at or above this relevance (or panicking, or alert) an agent asks for at least Simulated (Medium)")), UNIT_INTERVAL), "≤ `hero_relevance`"),
    f("avoidance_budget", "Avoidance budget", "`None` or `Some(u32)`", "walkers", D::Text("Some(128)"), "walkers whose avoidance (the steering fan) runs per step (`None`: all)"),
    f("crowd_governor", "Crowd governor", "bool", "", D::Bool(false), "whether the crowd governor demotes agents when its estimate exceeds the budget (the estimate is published either way)"),
    r(f("crowd_budget_ms", "Crowd budget", "float", "ms", D::Number(8.0), "the crowd governor's budget per step"), POSITIVE),
    r(f("default_relevance", "Default relevance", "float", "", D::Number(0.0), "agents' relevance when no directive sets it"), UNIT_INTERVAL),
    w(f("exits", "Exits", "list of `Exit(…)`", "", D::Text("[]"), "exits fleeing agents run to, besides the street block's portals"), "ids unique"),
];

const EXIT_FIELDS: [FieldSchema; 3] = [
    w(
        f("id", "Id", "id", "", D::Required, "persistent exit id"),
        "unique among the exits",
    ),
    r(
        f(
            "position",
            "Position",
            P3,
            "m",
            D::Required,
            "where the exit is",
        ),
        FINITE,
    ),
    f(
        "capacity",
        "Capacity",
        U32,
        "agents",
        D::Number(1.0),
        "agents it takes before it is full",
    ),
];

const OBJECT_FIELDS: [FieldSchema; 5] = [
    f("id", "Id", "id", "", D::Required, "persistent id (directives name it)"),
    r(f("position", "Position", P3, "m", D::Required, "translation"), FINITE),
    r(f("yaw_rad", "Yaw", "float", "rad", D::Number(0.0), "rotation about Z"), FINITE),
    r(f("scale", "Scale", P3, "", D::Text("(1.0, 1.0, 1.0)"), "scale per local axis"), FINITE),
    r(f("half_extents_m", "Half extents", P3, "m", D::Text("(0.0, 0.0, 0.0)"), "half extents of the footprint before scaling; a non-zero footprint (x and y) is part of the physical scene (paths, walkers, admission and recovery meet it), standing `2 × z × scale.z` tall (1 m when zero)"), FINITE),
];

const BARRIER_FIELDS: [FieldSchema; 5] = [
    f("id", "Id", "id", "", D::Required, "persistent barrier id"),
    r(f("from", "From", P3, "m", D::Required, "one end of the wall (1 m tall)"), FINITE),
    r(f("to", "To", P3, "m", D::Required, "the other end"), FINITE),
    r(f("thickness_m", "Thickness", "float", "m", D::Number(0.2), "wall thickness"), FINITE),
    f("in_navigation", "In navigation", "bool", "", D::Bool(true), "whether path queries know it (`false`: only bodies meet it, so a task movement is blocked and replans)"),
];

const DIRECTIVE_FIELDS: [FieldSchema; 6] = [
    w(f("frame", "Frame", U64, "frames", D::Required, "the frame at which the command is issued (a frame past the scenario's end is an error: it would never run)"), "≤ `duration_frames`"),
    w(f("target", "Target", "a target", "", D::Required, "who the command is for (world commands take `World`); an unresolvable target is logged, never a panic"), "one of `Born(source: \"…\", ordinal: N)`, `Handle(index: N, generation: N)`, `NearestAmbient(point: (x, y, z))`, `World`"),
    w(f("command", "Command", "a command", "", D::Required, "what happens (see \"Directive commands\")"), "a kind of the directive table"),
    f("source", "Source", "string", "", D::Text("\"script\""), "who issues it: the task source a task command installs (another source's active or pending task refuses it) or must own (hold, continue, redirect, stand, cancel); an escape's event carries it (written only when not `script`)"),
    f("session", "Session", U32, "", D::Number(0.0), "the session tag a task command targets: refused unless the ped's task has it; 0: the ped's current task of `source` (written only when not 0)"),
    w(f("motion_profile", "Motion profile", "`None` or `Some(\"…\")`", "", D::Text("None"), "the motion profile the task of a route command (`Rendezvous`, `RendezvousWith`, `Redirect`, `RedirectTo`, `Escape`) walks with from this command on; `None`: the source's profile, else `walking` (an escape: `running`) (written only when set)"), "`walking`, `running` or the id of a project `*.motion.ron`; only on a route command"),
];

/// Every section of a scenario, the root first, in the order the docs and the Inspector show
/// them.
pub const SCENARIO_SECTIONS: &[SectionSchema] = &[
    SectionSchema { name: "Scenario", path: "", label: "Scenario", help: "`scenarios/<id>.scenario.ron`", fields: &SCENARIO_FIELDS },
    SectionSchema { name: "Observer", path: "observers[…]", label: "Observer", help: "one entry of a scenario's `observers`", fields: &OBSERVER_FIELDS },
    SectionSchema { name: "Key", path: "observers[…].path[…]", label: "Path key", help: "one keyframe of an observer's `path`", fields: &KEY_FIELDS },
    SectionSchema { name: "Aim", path: "observers[…].aim[…]", label: "Aim key", help: "one keyframe of an observer's `aim`", fields: &AIM_FIELDS },
    SectionSchema { name: "Source", path: "sources[…]", label: "Source", help: "one entry of a scenario's `sources`", fields: &SOURCE_FIELDS },
    SectionSchema { name: "Box3", path: "no_spawn_box", label: "Box", help: "a scenario box (`no_spawn_box`, `no_removal_box`)", fields: &BOX_FIELDS },
    SectionSchema { name: "VehicleSource", path: "vehicle_sources[…]", label: "Vehicle source", help: "one entry of a scenario's `vehicle_sources`", fields: &VEHICLE_SOURCE_FIELDS },
    SectionSchema { name: "Crossings", path: "crossings", label: "Crossings", help: "a scenario's `crossings`: signalled crosswalks, groups and the liveness guard", fields: &CROSSINGS_FIELDS },
    SectionSchema { name: "Hazard", path: "crossings.hazard", label: "Hazard vehicle", help: "the seed's hazard vehicle", fields: &HAZARD_FIELDS },
    SectionSchema { name: "Population", path: "population", label: "Population", help: "a scenario's `population`: cycles, the reuse pool and cleanup", fields: &POPULATION_FIELDS },
    SectionSchema { name: "AttachFault", path: "population.fault", label: "Attach fault", help: "item `item` of realization batch `batch` fails to attach", fields: &FAULT_FIELDS },
    SectionSchema { name: "Motion", path: "motion", label: "Motion", help: "a scenario's `motion`: LOD tiers Full / Simulated / Stub (every 1 / 2 / 8 steps) by a named tier policy (distance to the nearest observer, relevance), the avoidance budget and the crowd governor", fields: &MOTION_FIELDS },
    SectionSchema { name: "Exit", path: "motion.exits[…]", label: "Exit", help: "one entry of the motion settings' `exits`", fields: &EXIT_FIELDS },
    SectionSchema { name: "Object", path: "objects[…]", label: "Object", help: "one entry of a scenario's `objects`", fields: &OBJECT_FIELDS },
    SectionSchema { name: "Barrier", path: "barriers[…]", label: "Barrier", help: "one entry of a scenario's `barriers`", fields: &BARRIER_FIELDS },
    SectionSchema { name: "Directive", path: "directives[…]", label: "Directive", help: "one entry of a scenario's `directives`", fields: &DIRECTIVE_FIELDS },
];

/// The scenario document's schema.
pub const SCENARIO_DOCUMENT: DocumentSchema = DocumentSchema {
    kind: "scenario",
    file: "scenarios/<id>.scenario.ron",
    version: SCENARIO_SCHEMA,
    sections: SCENARIO_SECTIONS,
};

/// The scenario section written `name` in files (`Crossings`); a name no section has gives the
/// root section (the tests walk every name the Inspector asks for).
pub fn scenario_section(name: &str) -> &'static SectionSchema {
    SCENARIO_SECTIONS
        .iter()
        .find(|s| s.name == name)
        .unwrap_or(&SCENARIO_SECTIONS[0])
}

/// The field `field` of scenario section `section` (`scenario_field("Crossings", "lanes")`).
pub fn scenario_field(section: &str, field: &str) -> &'static FieldSchema {
    scenario_section(section).get(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::decode::Encode;
    use crate::project::write::Doc;
    use crate::project::FieldDefault;
    use crate::project::{
        AimKey, AttachFaultSpec, Barrier, Box3, CrossingsSettings, Directive, ExitNode,
        HazardVehicle, Keyframe, MotionSettings, Observer, PopulationSettings, PopulationSource,
        Scenario, SceneObject, VehicleSource,
    };

    /// (section, the record's file name, its fields in canonical order, its encoding with the
    /// decoder's defaults).
    fn records() -> Vec<(&'static str, &'static [&'static str], Doc)> {
        vec![
            (
                Scenario::RON_NAME,
                Scenario::FIELD_NAMES,
                Scenario {
                    fixed_step_s: super::super::scenario::DEFAULT_FIXED_STEP_S,
                    duration_frames: super::super::scenario::DEFAULT_DURATION_FRAMES,
                    ..Scenario::default()
                }
                .encode(),
            ),
            (
                Observer::RON_NAME,
                Observer::FIELD_NAMES,
                Observer::with_defaults(String::new()).encode(),
            ),
            (
                Keyframe::RON_NAME,
                Keyframe::FIELD_NAMES,
                Keyframe::default().encode(),
            ),
            (
                AimKey::RON_NAME,
                AimKey::FIELD_NAMES,
                AimKey::default().encode(),
            ),
            (
                PopulationSource::RON_NAME,
                PopulationSource::FIELD_NAMES,
                PopulationSource::default().encode(),
            ),
            (Box3::RON_NAME, Box3::FIELD_NAMES, Box3::default().encode()),
            (
                VehicleSource::RON_NAME,
                VehicleSource::FIELD_NAMES,
                VehicleSource {
                    speed_m_s: 8.0,
                    ..VehicleSource::default()
                }
                .encode(),
            ),
            (
                CrossingsSettings::RON_NAME,
                CrossingsSettings::FIELD_NAMES,
                CrossingsSettings::default().encode(),
            ),
            (
                HazardVehicle::RON_NAME,
                HazardVehicle::FIELD_NAMES,
                HazardVehicle {
                    y_m: 0.0,
                    speed_m_s: 4.0,
                }
                .encode(),
            ),
            (
                PopulationSettings::RON_NAME,
                PopulationSettings::FIELD_NAMES,
                PopulationSettings::default().encode(),
            ),
            (
                AttachFaultSpec::RON_NAME,
                AttachFaultSpec::FIELD_NAMES,
                AttachFaultSpec::default().encode(),
            ),
            (
                MotionSettings::RON_NAME,
                MotionSettings::FIELD_NAMES,
                // Every tier field given at the default policy's value (left out, none is
                // written).
                {
                    let v = crate::project::default_tier_policy().values;
                    MotionSettings {
                        full_enter_m: Some(v.full_enter_m),
                        full_exit_m: Some(v.full_exit_m),
                        simulated_enter_m: Some(v.simulated_enter_m),
                        simulated_exit_m: Some(v.simulated_exit_m),
                        full_capacity: Some(v.full_capacity),
                        simulated_capacity: Some(v.simulated_capacity),
                        promotions_per_step: Some(v.promotions_per_step),
                        demotions_per_step: Some(v.demotions_per_step),
                        hero_relevance: Some(v.hero_relevance),
                        medium_relevance: Some(v.medium_relevance),
                        ..MotionSettings::default()
                    }
                    .encode()
                },
            ),
            (
                ExitNode::RON_NAME,
                ExitNode::FIELD_NAMES,
                ExitNode {
                    capacity: 1,
                    ..ExitNode::default()
                }
                .encode(),
            ),
            (
                SceneObject::RON_NAME,
                SceneObject::FIELD_NAMES,
                SceneObject::default().encode(),
            ),
            (
                Barrier::RON_NAME,
                Barrier::FIELD_NAMES,
                Barrier {
                    thickness_m: 0.2,
                    in_navigation: true,
                    ..Barrier::default()
                }
                .encode(),
            ),
            (
                Directive::RON_NAME,
                Directive::FIELD_NAMES,
                Directive::default().encode(),
            ),
        ]
    }

    #[test]
    fn every_scenario_record_has_its_section_with_its_fields_in_file_order() {
        let records = records();
        assert_eq!(records.len(), SCENARIO_SECTIONS.len());
        for ((name, fields, _), section) in records.iter().zip(SCENARIO_SECTIONS.iter()) {
            assert_eq!(*name, section.name);
            let listed: Vec<&str> = section.fields.iter().map(|f| f.name).collect();
            assert_eq!(listed, fields.to_vec(), "section {name}");
            assert!(section
                .fields
                .iter()
                .all(|f| !f.label.is_empty() && !f.help.is_empty()));
        }
    }

    #[test]
    fn every_numeric_and_boolean_default_is_the_decoders_default() {
        let mut checked = 0;
        for (name, _, doc) in records() {
            let Doc::Struct(_, values) = doc else {
                panic!("{name} encodes as a record");
            };
            let section = scenario_section(name);
            for (field, value) in values {
                let schema = section.get(field);
                match (schema.default, value) {
                    (FieldDefault::Number(n), Doc::Float(v)) => assert_eq!(n, v, "{name}.{field}"),
                    (FieldDefault::Number(n), Doc::Int(v)) => {
                        assert_eq!(n, v as f64, "{name}.{field}");
                        assert!(schema.is_integer(), "{name}.{field} is an integer");
                    }
                    (FieldDefault::Bool(b), Doc::Bool(v)) => assert_eq!(b, v, "{name}.{field}"),
                    (FieldDefault::Number(_) | FieldDefault::Bool(_), other) => {
                        panic!("{name}.{field}: default vs {other:?}")
                    }
                    _ => continue,
                }
                checked += 1;
            }
        }
        assert!(checked >= 50, "{checked} defaults checked");
    }

    #[test]
    fn the_tier_fields_defaults_are_the_default_policys_values_and_the_rule_names_every_policy() {
        let policy = crate::project::default_tier_policy().values;
        for name in super::super::motion_settings::TIER_FIELDS {
            let field = scenario_field("Motion", name);
            assert_eq!(field.name, name);
            assert_eq!(field.default.number(), policy.number(name), "{name}");
            assert!(field.help.contains("tier policy"), "{name}");
        }
        assert_eq!(
            TIER_POLICY_RULE,
            format!("one of {}", crate::project::tier_policy_names())
        );
    }

    #[test]
    fn the_lookups_find_fields_by_section_and_name() {
        let lanes = scenario_field("Crossings", "lanes");
        assert_eq!((lanes.unit, lanes.range), ("lanes", Some(LANES_RANGE)));
        assert_eq!(lanes.default.text(true), "`2`");
        assert_eq!(
            scenario_field("Motion", "crowd_budget_ms").range_text(),
            "> 0"
        );
        assert_eq!(
            scenario_field("Motion", "full_exit_m").range_text(),
            "> 0; ≥ `full_enter_m`"
        );
        assert_eq!(
            scenario_field("Scenario", "fixed_step_s")
                .default
                .text(false),
            "`0.05`"
        );
    }
}
