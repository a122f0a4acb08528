//! The crowd over the agents, as two layers the toolbar toggles: **Tiers** (a disc under every
//! agent in its applied tier's colour — Full / Simulated / Stub, the crowd's Hero / Medium /
//! Background — a cross over each agent outside the streaming plan's loaded ring, that
//! ring's outline and the HLOD donut around it, `hlod_marks`) and **Panic** (a cone over every panicked agent, sized by its panic level, a
//! line from each fleeing agent to its exit, and a post at every exit fled to, coloured by
//! whether it still has room). Each layer has its legend, listing only what it draws. The
//! agents are read from the world's Motion Frames.

use three_d::{vec3, Srgba};

use super::layer::LayerData;
use super::meshes::Shape;
use super::overlays::{marker, standing_transform, AGENT_HEIGHT_M, AGENT_RADIUS_M};
use super::palette;
use stagecraft_runtime::sim::motion::panic::exits;
use stagecraft_runtime::sim::{AgentState, MotionFrame, World};

/// Radius of the tier disc under an agent, meters (wider than the body, so it shows as a rim
/// from above).
pub const TIER_DISC_RADIUS_M: f32 = AGENT_RADIUS_M + 0.22;
/// Where the tier disc sits, meters: on the sidewalk's top, where most agents walk (it floats a
/// little over the road, but is never hidden under the kerb).
pub const TIER_DISC_Z_M: f32 = super::build::SIDEWALK_TOP_M + 0.01;
/// Height of a flee target's post, meters.
pub const FLEE_POST_HEIGHT_M: f32 = 2.4;

/// How much smaller than a Full agent's an agent's body is drawn by its tier (the specification:
/// box size shows the presentation tier): Full 1, Simulated 0.8, Stub 0.6.
pub fn tier_body_scale(tier: stagecraft_runtime::sim::Tier) -> f32 {
    use stagecraft_runtime::sim::Tier::*;
    match tier {
        Full => 1.0,
        Simulated => 0.8,
        Stub => 0.6,
    }
}

/// The Tiers layer of `world`.
pub fn tier_marks(world: &World) -> LayerData {
    let mut data = LayerData::default();
    for (row, frame) in world.motion_frames().iter().enumerate() {
        let (x, y) = (frame.location.x, frame.location.y);
        if frame.tags.pooled || !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let colour = palette::tier(frame.tier);
        marker(
            &mut data,
            Shape::Cylinder,
            vec3(x, y, TIER_DISC_Z_M),
            TIER_DISC_RADIUS_M,
            0.04,
            colour,
        );
        if world.outside_ring(row) {
            let (r, z) = (TIER_DISC_RADIUS_M, TIER_DISC_Z_M + 0.06);
            let c = palette::OUTSIDE_RING;
            data.line(vec3(x - r, y - r, z), vec3(x + r, y + r, z), c);
            data.line(vec3(x - r, y + r, z), vec3(x + r, y - r, z), c);
        }
    }
    ring_outline(world, &mut data);
    super::hlod_marks::hlod_marks(world, &mut data);
    data
}

/// The outline of this step's loaded ring: every edge of a loaded cell that no other loaded
/// cell shares.
fn ring_outline(world: &World, data: &mut LayerData) {
    let Some(streaming) = &world.config().space.streaming else {
        return;
    };
    let cells = world.loaded_cells();
    let loaded = |x: i32, y: i32| {
        cells
            .binary_search(&stagecraft_runtime::content::StreamingCell::new(x, y))
            .is_ok()
    };
    let size = streaming.cell_size_m as f32;
    let z = 0.08;
    for cell in cells {
        let (x0, y0) = (cell.x as f32 * size, cell.y as f32 * size);
        let (x1, y1) = (x0 + size, y0 + size);
        let edges = [
            (cell.x, cell.y.saturating_sub(1), (x0, y0), (x1, y0)),
            (cell.x, cell.y.saturating_add(1), (x0, y1), (x1, y1)),
            (cell.x.saturating_sub(1), cell.y, (x0, y0), (x0, y1)),
            (cell.x.saturating_add(1), cell.y, (x1, y0), (x1, y1)),
        ];
        for (nx, ny, a, b) in edges {
            if !loaded(nx, ny) {
                data.line(vec3(a.0, a.1, z), vec3(b.0, b.1, z), palette::LOADED_RING);
            }
        }
    }
}

/// The Panic layer of `world`.
pub fn panic_marks(world: &World) -> LayerData {
    let mut data = LayerData::default();
    let exits = exits(world.config());
    let assigned = &world.motion_state().panic.assigned;
    let mut targeted = vec![false; exits.len()];
    for frame in world.motion_frames() {
        let (x, y) = (frame.location.x, frame.location.y);
        if frame.tags.pooled || !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let panic = frame.panic.clamp(0.0, 1.0);
        if panic > 0.0 {
            let radius = 0.2 + 0.3 * panic;
            let base = vec3(x, y, AGENT_HEIGHT_M + 0.15);
            marker(
                &mut data,
                Shape::Cone,
                base,
                radius,
                0.4 + 0.5 * panic,
                palette::PANICKED,
            );
        }
        if let Some(exit) = fleeing_to(&frame) {
            if let Some(flag) = targeted.get_mut(usize::from(exit)) {
                *flag = true;
            }
            // A fleer's route target is its exit.
            let (tx, ty) = (frame.route_target.x, frame.route_target.y);
            data.line(vec3(x, y, 0.3), vec3(tx, ty, 0.3), palette::FLEE_LINE);
            flee_ribbon(&mut data, (x, y), (tx, ty));
        }
    }
    for (index, exit) in exits.iter().enumerate() {
        let taken = assigned.get(index).copied().unwrap_or(0);
        if taken == 0 && !targeted[index] {
            continue;
        }
        let (x, y) = (exit.position.x as f32, exit.position.y as f32);
        if x.is_finite() && y.is_finite() {
            marker(
                &mut data,
                Shape::Cylinder,
                vec3(x, y, 0.0),
                0.35,
                FLEE_POST_HEIGHT_M,
                flee_target_colour(exit.capacity, taken),
            );
        }
    }
    data
}

/// The exit a fleeing agent runs to, if it flees to one.
pub fn fleeing_to(frame: &MotionFrame) -> Option<u16> {
    (frame.behaviour == AgentState::Fleeing)
        .then_some(frame.tags.flee_exit)
        .flatten()
}

/// Width of the ribbon on the ground under a flee line, meters (a line is one pixel wide; the
/// ribbon reads from afar).
pub const FLEE_RIBBON_M: f32 = 0.22;

/// A flat box on the ground from `from` to `to` under the flee line.
fn flee_ribbon(data: &mut LayerData, from: (f32, f32), to: (f32, f32)) {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = dx.hypot(dy);
    if !(length.is_finite() && length > 0.0) {
        return;
    }
    let centre = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
    let transform = standing_transform(
        centre.0,
        centre.1,
        // Above the sidewalk's top, where most flee paths run.
        super::build::SIDEWALK_TOP_M + 0.02,
        dy.atan2(dx),
        [length, FLEE_RIBBON_M, 0.03],
    );
    data.shape(Shape::Box).push(transform, palette::FLEE_LINE);
}

/// A flee target's colour: full once its capacity is taken, else open.
pub fn flee_target_colour(capacity: Option<u32>, assigned: u32) -> Srgba {
    match capacity {
        Some(capacity) if assigned >= capacity => palette::FLEE_TARGET_FULL,
        _ => palette::FLEE_TARGET,
    }
}

/// Legend entries of the Tiers layer: the tiers present, then the out-of-ring cross and the
/// ring outline when the world has a streaming plan.
pub fn tier_legend(world: &World) -> Vec<(String, Srgba)> {
    let frames = world.motion_frames();
    let mut entries: Vec<(String, Srgba)> = palette::TIERS
        .iter()
        .filter(|(tier, _)| frames.iter().any(|f| !f.tags.pooled && f.tier == *tier))
        .map(|(tier, name)| {
            let size = (tier_body_scale(*tier) * 100.0).round();
            (format!("{name} · body {size:.0} %"), palette::tier(*tier))
        })
        .collect();
    if world.config().space.streaming.is_some() {
        entries.push(("outside loaded ring (×)".to_owned(), palette::OUTSIDE_RING));
        entries.push(("loaded ring".to_owned(), palette::LOADED_RING));
    }
    entries.extend(super::hlod_marks::hlod_legend(world));
    entries
}

/// Legend entries of the Panic layer: only what it draws now.
pub fn panic_legend(world: &World, drawn: &LayerData) -> Vec<(String, Srgba)> {
    let mut entries = Vec::new();
    if world.motion_frames().iter().any(|f| f.panic > 0.0) {
        entries.push((
            "panicked (cone grows with panic)".to_owned(),
            palette::PANICKED,
        ));
    }
    if drawn.lines.iter().any(|l| l.colour == palette::FLEE_LINE) {
        entries.push(("fleeing → exit".to_owned(), palette::FLEE_LINE));
    }
    let posts = &drawn.shapes[Shape::Cylinder.index()].colours;
    for (colour, name) in [
        (palette::FLEE_TARGET, "flee target"),
        (palette::FLEE_TARGET_FULL, "flee target full"),
    ] {
        if posts.contains(&colour) {
            entries.push((name.to_owned(), colour));
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::session::fixtures::street_content;
    use crate::viewport::scene::{LayerKind, OverlayOptions, SceneBuilder, SceneInputs};
    use stagecraft_runtime::project::Scenario;
    use stagecraft_runtime::sim::{build_world, CompiledScenario, SimStreaming};

    fn scenario(id: &str) -> Scenario {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/street-block");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        loaded.project.expect("example loads").scenarios[id].clone()
    }

    /// The street block's panic-flee world ten frames after the panic (frame 200).
    fn fleeing_world() -> World {
        let mut world = street_content("r")
            .world(&scenario("panic-flee"), 7)
            .expect("world");
        while world.frame() < 210 {
            world.step();
        }
        world
    }

    #[test]
    fn panic_marks_show_every_panicked_agent_each_flee_line_and_the_exits_fled_to() {
        let world = fleeing_world();
        let frames = world.motion_frames().to_vec();
        let panicked = frames.iter().filter(|f| f.panic > 0.0).count();
        let fleeing: Vec<usize> = (0..frames.len())
            .filter(|r| fleeing_to(&frames[*r]).is_some())
            .collect();
        assert!(fleeing.len() >= 3, "{} fleeing", fleeing.len());
        let data = panic_marks(&world);
        // One cone per panicked agent, its size growing with the panic level.
        let cones = &data.shapes[Shape::Cone.index()];
        assert_eq!(cones.len(), panicked);
        assert!(cones.colours.iter().all(|c| *c == palette::PANICKED));
        // One line per fleeing agent, ending at its exit, over a ribbon on the ground.
        assert_eq!(data.lines.len(), fleeing.len());
        assert_eq!(data.shapes[Shape::Box.index()].len(), fleeing.len());
        let exit_points = exits(world.config());
        for (line, row) in data.lines.iter().zip(&fleeing) {
            let frame = &frames[*row];
            let exit = &exit_points[usize::from(fleeing_to(frame).expect("an exit"))];
            let target = exit.position;
            assert_eq!((line.b.x, line.b.y), (target.x as f32, target.y as f32));
            assert_eq!(line.colour, palette::FLEE_LINE);
        }
        // The two-place shop door (exit 0) is full; the portals fled to still have room.
        let exits = exits(world.config());
        let assigned = &world.motion_state().panic.assigned;
        assert_eq!(assigned[0], 2);
        let posts = &data.shapes[Shape::Cylinder.index()];
        let fled_to = (0..exits.len())
            .filter(|i| assigned.get(*i).copied().unwrap_or(0) > 0)
            .count();
        assert_eq!(posts.len(), fled_to);
        assert_eq!(posts.colours[0], palette::FLEE_TARGET_FULL);
        assert!(posts.colours[1..]
            .iter()
            .all(|c| *c == palette::FLEE_TARGET));
        // The legend names exactly what is drawn.
        let legend: Vec<Srgba> = panic_legend(&world, &data).iter().map(|e| e.1).collect();
        assert_eq!(
            legend,
            [
                palette::PANICKED,
                palette::FLEE_LINE,
                palette::FLEE_TARGET,
                palette::FLEE_TARGET_FULL
            ]
        );
    }

    #[test]
    fn before_the_panic_the_panic_layer_is_empty_and_so_is_its_legend() {
        let mut world = street_content("r")
            .world(&scenario("panic-flee"), 7)
            .expect("world");
        for _ in 0..50 {
            world.step();
        }
        let data = panic_marks(&world);
        assert!(data.lines.is_empty());
        assert!(data.shapes.iter().all(|s| s.is_empty()));
        assert!(panic_legend(&world, &data).is_empty());
    }

    #[test]
    fn tier_discs_follow_each_agents_applied_tier() {
        let world = fleeing_world();
        let frames = world.motion_frames().to_vec();
        let data = tier_marks(&world);
        let discs = &data.shapes[Shape::Cylinder.index()];
        let shown: Vec<usize> = (0..frames.len())
            .filter(|r| !frames[*r].tags.pooled)
            .collect();
        assert_eq!(discs.len(), shown.len());
        for (colour, row) in discs.colours.iter().zip(&shown) {
            assert_eq!(*colour, palette::tier(frames[*row].tier));
        }
        // No streaming plan: no cross, no ring, and the legend lists only the tiers present.
        assert!(data.lines.is_empty());
        let legend = tier_legend(&world);
        let present = palette::TIERS
            .iter()
            .filter(|(t, _)| shown.iter().any(|r| frames[*r].tier == *t))
            .count();
        assert_eq!(legend.len(), present);
        assert!(present >= 2, "the crowd spans tiers");
    }

    #[test]
    fn an_agents_body_is_sized_by_its_tier_and_the_legend_says_so() {
        let world = fleeing_world();
        let frames = world.motion_frames().to_vec();
        let layer = crate::viewport::overlays::agents(&world);
        let bodies = &layer.shapes[Shape::Cylinder.index()];
        assert_eq!(bodies.len(), frames.len());
        let mut heights = std::collections::BTreeSet::new();
        for (transform, frame) in bodies.transforms.iter().zip(&frames) {
            let expected = AGENT_HEIGHT_M * 0.8 * tier_body_scale(frame.tier);
            assert!((transform.z.z - expected).abs() < 1e-6, "{frame:?}");
            let width = (transform.x.x.powi(2) + transform.x.y.powi(2)).sqrt();
            let expected = 2.0 * AGENT_RADIUS_M * tier_body_scale(frame.tier);
            assert!((width - expected).abs() < 1e-5);
            heights.insert((transform.z.z * 1000.0).round() as i64);
        }
        assert!(
            heights.len() >= 2,
            "the crowd spans tiers, so bodies of two sizes"
        );
        let legend: Vec<String> = tier_legend(&world).into_iter().map(|e| e.0).collect();
        assert!(
            legend.iter().any(|n| n == "tier Full (Hero) · body 100 %"
                || n == "tier Stub (Background) · body 60 %"),
            "{legend:?}"
        );
    }

    #[test]
    fn agents_outside_the_streaming_ring_are_crossed_and_the_ring_is_outlined() {
        let content = street_content("r");
        let mut space = content.sim_space().expect("space");
        // 20 m cells and a ring of one cell around the camera at (0, −30): cell (0, −2), so
        // x in [0, 20) and y in [−40, −20) are loaded, and every walker is outside.
        space.streaming = Some(SimStreaming {
            stage: 9,
            cell_size_m: 20.0,
            loaded_radius_cells: 0,
            hlod: Default::default(),
        });
        let compiled = CompiledScenario::compile(&scenario("panic-flee")).expect("compiles");
        let mut world = build_world(&Arc::new(space), &Arc::new(compiled), 7).expect("world");
        for _ in 0..60 {
            world.step();
        }
        let outside = world.motion_counters().outside_ring as usize;
        assert!(outside > 0);
        let data = tier_marks(&world);
        let crosses = data
            .lines
            .iter()
            .filter(|l| l.colour == palette::OUTSIDE_RING)
            .count();
        assert_eq!(crosses, 2 * outside);
        let ring: Vec<_> = data
            .lines
            .iter()
            .filter(|l| l.colour == palette::LOADED_RING)
            .collect();
        assert_eq!(ring.len(), 4, "one cell: four edges");
        assert!(ring.iter().all(|l| l.a.x >= 0.0 && l.b.x <= 20.0));
        assert!(ring.iter().all(|l| l.a.y >= -40.0 && l.b.y <= -20.0));
        let legend: Vec<String> = tier_legend(&world).into_iter().map(|e| e.0).collect();
        assert!(legend.contains(&"loaded ring".to_owned()), "{legend:?}");
    }

    #[test]
    fn the_hlod_donut_is_drawn_around_the_camera_and_over_budget_in_the_warning_colour() {
        let content = street_content("r");
        let mut space = content.sim_space().expect("space");
        // 20 m cells, only the camera's cell (0, −2) loaded, an HLOD ring of radius 2 at 6 MB a
        // cell under a 24 MB budget: 25 − 1 = 24 cells ask 144 MB, 4 are kept, 20 pruned.
        space.streaming = Some(SimStreaming {
            stage: 9,
            cell_size_m: 20.0,
            loaded_radius_cells: 0,
            hlod: stagecraft_runtime::sim::SimHlod {
                radius_cells: 2,
                mb_per_cell: 6,
                budget_mb: 24,
            },
        });
        let compiled = CompiledScenario::compile(&scenario("panic-flee")).expect("compiles");
        let mut world = build_world(&Arc::new(space), &Arc::new(compiled), 7).expect("world");
        for _ in 0..5 {
            world.step();
        }
        let data = tier_marks(&world);
        let count = |colour| data.lines.iter().filter(|l| l.colour == colour).count();
        assert_eq!(
            count(palette::STREAM_HLOD),
            4 * 4,
            "four kept cells, four edges each"
        );
        assert_eq!(
            count(palette::HLOD_OVER_BUDGET),
            20 * 6,
            "twenty pruned cells, outlined and crossed"
        );
        // The kept cells are the nearest: the four cells beside the one loaded cell, and the
        // outlines are drawn in them.
        assert_eq!(world.loaded_cells().len(), 1);
        let c = world.loaded_cells()[0];
        let axis = [
            (c.x, c.y - 1),
            (c.x - 1, c.y),
            (c.x + 1, c.y),
            (c.x, c.y + 1),
        ];
        let kept: Vec<(i32, i32)> = world.hlod_step().cells.iter().map(|k| (k.x, k.y)).collect();
        assert_eq!(kept, axis);
        assert!(data
            .lines
            .iter()
            .filter(|l| l.colour == palette::STREAM_HLOD)
            .all(|l| {
                let (x, y) = (l.a.x.min(l.b.x), l.a.y.min(l.b.y));
                axis.contains(&((x / 20.0).floor() as i32, (y / 20.0).floor() as i32))
            }));
        let legend: Vec<String> = tier_legend(&world).into_iter().map(|e| e.0).collect();
        assert!(
            legend.contains(&"HLOD donut · 4 cells · 24 / 24 MB".to_owned()),
            "{legend:?}"
        );
        assert!(
            legend.contains(&"HLOD over budget · 144 MB asked · 20 cells pruned (×)".to_owned()),
            "{legend:?}"
        );
    }

    #[test]
    fn the_tiers_and_panic_layers_are_toggled_like_the_other_layers() {
        let content = street_content("r");
        let world = fleeing_world();
        let mut options = OverlayOptions::default();
        assert!(!options.show_tiers && options.show_panic);
        let mut builder = SceneBuilder::default();
        let mut update = |options: &OverlayOptions| {
            builder.update(&SceneInputs {
                content: Some((&content, 1)),
                scenario: None,
                world: Some((&world, 1)),
                options,
                selected: None,
                hovered: None,
            })
        };
        update(&options);
        options.show_tiers = true;
        assert_eq!(update(&options), [LayerKind::Tiers]);
        options.show_panic = false;
        assert_eq!(update(&options), [LayerKind::Panic]);
        let tiers = builder.layer(LayerKind::Tiers);
        let shown = world
            .motion_frames()
            .iter()
            .filter(|f| !f.tags.pooled)
            .count();
        assert_eq!(tiers.shapes[Shape::Cylinder.index()].len(), shown);
        assert!(builder.layer(LayerKind::Panic).lines.is_empty());
        options.show_panic = true;
        builder.update(&SceneInputs {
            content: Some((&content, 1)),
            scenario: None,
            world: Some((&world, 1)),
            options: &options,
            selected: None,
            hovered: None,
        });
        assert!(!builder.layer(LayerKind::Panic).lines.is_empty());
    }
}
