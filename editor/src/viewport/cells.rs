//! The grid cells of layout products, as things the viewport can pick and name: mission-layout
//! cells by role and streaming cells by ring (loaded, HLOD, pruned by the budget), with the
//! counts the viewport's header shows and the legend of their colours.
//!
//! The bounds here are the squares [`super::build`] draws, so a click lands on what is seen.

use three_d::{vec3, Srgba};

use super::build::mix;
use super::palette;
use super::picking::{Aabb, PickId};
use crate::session::PreviewContent;
use stagecraft_runtime::content::{ChunkRole, MissionChunk, Product, StreamingCell};

/// Thickness of a cell's pick box, meters: flat on the ground, so anything standing on a cell
/// is nearer to the camera and wins the pick.
const CELL_PICK_HEIGHT_M: f32 = 0.05;

/// How a streaming cell is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamingRing {
    /// Fully loaded, around the observer.
    Loaded,
    /// Shown as HLOD, kept within the budget.
    Hlod,
    /// An HLOD cell dropped to fit the budget.
    Pruned,
}

impl StreamingRing {
    /// The ring's name in the legend and in labels.
    pub fn name(self) -> &'static str {
        match self {
            StreamingRing::Loaded => "loaded",
            StreamingRing::Hlod => "HLOD",
            StreamingRing::Pruned => "pruned by budget",
        }
    }

    /// The colour the viewport draws the ring's cells in.
    pub fn colour(self) -> Srgba {
        // The filled rings are dimmed towards the background (as drawn); pruned cells are
        // outlines in the full colour.
        match self {
            StreamingRing::Loaded => mix(palette::STREAM_LOADED, palette::BACKGROUND, 0.55),
            StreamingRing::Hlod => mix(palette::STREAM_HLOD, palette::BACKGROUND, 0.55),
            StreamingRing::Pruned => palette::STREAM_PRUNED,
        }
    }
}

/// What a picked cell is.
#[derive(Clone, Debug, PartialEq)]
pub enum CellInfo<'a> {
    /// A mission-layout cell.
    Mission(&'a MissionChunk),
    /// A streaming cell and its ring.
    Streaming(StreamingRing),
}

/// Every cell of the content's layout products as pick targets, in stage order then the
/// product's cell order.
pub fn cell_picks(content: &PreviewContent) -> Vec<(PickId, Aabb)> {
    let mut picks = Vec::new();
    for stage in content.stages() {
        match stage.product.as_ref() {
            Product::MissionLayout(mission) => {
                let half = mission.cell_size_m as f32 * 0.5;
                for chunk in &mission.layout.chunks {
                    let c = mission.cell_center_m(chunk.cell.x, chunk.cell.y);
                    let (x, y) = (c.x as f32, c.y as f32);
                    picks.push((
                        PickId::Cell {
                            stage: stage.stage,
                            x: chunk.cell.x as i32,
                            y: chunk.cell.y as i32,
                        },
                        Aabb::new(
                            vec3(x - half, y - half, 0.0),
                            vec3(x + half, y + half, CELL_PICK_HEIGHT_M),
                        ),
                    ));
                }
            }
            Product::StreamingPlan(streaming) => {
                let s = streaming.cell_size_m as f32;
                for (cell, _) in streaming_cells(&streaming.plan) {
                    let (x, y) = (cell.x as f32 * s, cell.y as f32 * s);
                    picks.push((
                        PickId::Cell {
                            stage: stage.stage,
                            x: cell.x,
                            y: cell.y,
                        },
                        Aabb::new(vec3(x, y, -CELL_PICK_HEIGHT_M), vec3(x + s, y + s, -0.01)),
                    ));
                }
            }
            _ => {}
        }
    }
    picks
}

/// The streaming plan's cells with their rings: loaded, then HLOD, then pruned.
fn streaming_cells(
    plan: &stagecraft_runtime::content::StreamingPlan,
) -> impl Iterator<Item = (&StreamingCell, StreamingRing)> {
    let loaded = plan.loaded_cells.iter().map(|c| (c, StreamingRing::Loaded));
    let hlod = plan.hlod_cells.iter().map(|c| (c, StreamingRing::Hlod));
    let pruned = plan
        .hlod_pruned_cells
        .iter()
        .map(|c| (c, StreamingRing::Pruned));
    loaded.chain(hlod).chain(pruned)
}

/// What cell `(x, y)` of stage `stage` is, if the content has it.
pub fn cell_info(content: &PreviewContent, stage: u32, x: i32, y: i32) -> Option<CellInfo<'_>> {
    match content.stage(stage)?.product.as_ref() {
        Product::MissionLayout(mission) => mission
            .layout
            .chunks
            .iter()
            .find(|chunk| chunk.cell.x as i32 == x && chunk.cell.y as i32 == y)
            .map(CellInfo::Mission),
        Product::StreamingPlan(streaming) => streaming_cells(&streaming.plan)
            .find(|(cell, _)| cell.x == x && cell.y == y)
            .map(|(_, ring)| CellInfo::Streaming(ring)),
        _ => None,
    }
}

/// A one-line identity of a cell: `mission cell (3, 2) objective · chunk obj-a (stage 2)`.
pub fn cell_label(content: &PreviewContent, stage: u32, x: i32, y: i32) -> Option<String> {
    Some(match cell_info(content, stage, x, y)? {
        CellInfo::Mission(chunk) => format!(
            "mission cell ({x}, {y}) {} · chunk {} (stage {stage})",
            chunk.role.name(),
            chunk.chunk_id
        ),
        CellInfo::Streaming(ring) => {
            format!("streaming cell ({x}, {y}) {} (stage {stage})", ring.name())
        }
    })
}

/// What the viewport draws, counted the way the header shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawnCounts {
    /// Generated objects drawn as shapes.
    pub objects: usize,
    /// Mission-layout cells.
    pub mission_cells: usize,
    /// Streaming cells kept (loaded and HLOD).
    pub streaming_cells: usize,
    /// Streaming cells pruned by the budget (drawn as outlines).
    pub pruned_cells: usize,
}

impl DrawnCounts {
    /// Counts the cells of `content`'s layout products; `objects` is what the placements layer
    /// drew.
    pub fn of(content: &PreviewContent, objects: usize) -> DrawnCounts {
        let mut counts = DrawnCounts {
            objects,
            ..DrawnCounts::default()
        };
        for stage in content.stages() {
            match stage.product.as_ref() {
                Product::MissionLayout(mission) => {
                    counts.mission_cells += mission.layout.chunks.len();
                }
                Product::StreamingPlan(streaming) => {
                    let plan = &streaming.plan;
                    counts.streaming_cells += plan.loaded_cells.len() + plan.hlod_cells.len();
                    counts.pruned_cells += plan.hlod_pruned_cells.len();
                }
                _ => {}
            }
        }
        counts
    }

    /// `30 mission cells · 13 streaming cells (4 pruned)`; objects are always named, other
    /// kinds only when there are some.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if self.objects > 0 || (self.mission_cells == 0 && self.streaming_cells == 0) {
            parts.push(format!("{} objects", self.objects));
        }
        if self.mission_cells > 0 {
            parts.push(format!("{} mission cells", self.mission_cells));
        }
        if self.streaming_cells > 0 || self.pruned_cells > 0 {
            let pruned = if self.pruned_cells > 0 {
                format!(" (+{} pruned)", self.pruned_cells)
            } else {
                String::new()
            };
            parts.push(format!("{} streaming cells{pruned}", self.streaming_cells));
        }
        parts.join(" · ")
    }
}

/// The legend of the cell colours `content` uses: each mission role present (in
/// [`ChunkRole::ALL`] order), then each streaming ring present.
pub fn legend(content: &PreviewContent) -> Vec<(String, Srgba)> {
    let mut roles = Vec::new();
    let mut rings = Vec::new();
    for stage in content.stages() {
        match stage.product.as_ref() {
            Product::MissionLayout(mission) => {
                roles.extend(mission.layout.chunks.iter().map(|chunk| chunk.role));
            }
            Product::StreamingPlan(streaming) => {
                rings.extend(streaming_cells(&streaming.plan).map(|(_, ring)| ring));
            }
            _ => {}
        }
    }
    let mut entries: Vec<(String, Srgba)> = ChunkRole::ALL
        .iter()
        .filter(|role| roles.contains(role))
        .map(|role| (role.name().to_owned(), palette::chunk_role(*role)))
        .collect();
    if !roles.is_empty() {
        entries.push(("bot path".to_owned(), palette::BOT_PATH));
        entries.push(("NPC spawn tag".to_owned(), palette::MISSION_AGENT));
    }
    for ring in [
        StreamingRing::Loaded,
        StreamingRing::Hlod,
        StreamingRing::Pruned,
    ] {
        if rings.contains(&ring) {
            entries.push((format!("streaming: {}", ring.name()), ring.colour()));
        }
    }
    if !rings.is_empty() {
        entries.push(("streaming observer".to_owned(), palette::OBSERVER));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewport::camera::{OrbitCamera, Projection};
    use crate::viewport::picking::pick_nearest;
    use crate::viewport::scene::{LayerKind, OverlayOptions, SceneBuilder, SceneInputs};

    fn tactical() -> PreviewContent {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/tactical-mission");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        let registry = stagecraft_runtime::ops::registry::Registry::standard();
        let outcome = stagecraft_runtime::recipe::compile_project_recipe(
            &loaded,
            "tactical-mission",
            &registry,
        )
        .expect("the recipe reads");
        let plan = outcome.plan.expect("compiles");
        let project = loaded.project.expect("example loads");
        let request = stagecraft_runtime::generate::GenerateRequest {
            root_seed: project.manifest.root_seed,
            mode: stagecraft_runtime::generate::ExecutionMode::Serial,
            generation: 1,
        };
        let generated = stagecraft_runtime::generate::Generator::new()
            .generate(
                &plan,
                &request,
                &stagecraft_runtime::generate::CancelToken::default(),
                &stagecraft_runtime::generate::NoObserver,
            )
            .expect("generates");
        PreviewContent {
            bundle: generated.bundle,
            families: project.families.clone(),
        }
    }

    fn scene(content: &PreviewContent) -> SceneBuilder {
        let options = OverlayOptions::default();
        let mut scene = SceneBuilder::default();
        scene.update(&SceneInputs {
            content: Some((content, 1)),
            scenario: None,
            world: None,
            options: &options,
            selected: None,
            hovered: None,
        });
        scene
    }

    #[test]
    fn every_drawn_cell_is_pickable_and_counted_in_the_header() {
        let content = tactical();
        let counts = DrawnCounts::of(&content, 0);
        assert!(
            counts.mission_cells > 0 && counts.streaming_cells > 0,
            "{counts:?}"
        );
        let scene = scene(&content);
        let cells = scene
            .picks()
            .filter(|(pick, _)| matches!(pick, PickId::Cell { .. }))
            .count();
        assert_eq!(
            cells,
            counts.mission_cells + counts.streaming_cells + counts.pruned_cells
        );
        let text = counts.text();
        assert!(!text.contains("0 objects"), "{text}");
        assert!(
            text.contains(&format!("{} mission cells", counts.mission_cells)),
            "{text}"
        );
        // A click on a mission cell's centre, from the default camera and from above, picks
        // that cell, and its label names its role and chunk.
        let Some(Product::MissionLayout(mission)) = content
            .stages()
            .iter()
            .map(|s| s.product.as_ref())
            .find(|p| matches!(p, Product::MissionLayout(_)))
        else {
            panic!("a mission layout");
        };
        let stage = content.stages()[0].stage;
        let chunk = &mission.layout.chunks[7];
        let centre = mission.cell_center_m(chunk.cell.x, chunk.cell.y);
        let target = vec3(centre.x as f32, centre.y as f32, 0.0);
        for projection in [Projection::Perspective, Projection::TopDown] {
            let camera = OrbitCamera {
                projection,
                target,
                ..OrbitCamera::default()
            };
            let size = [800.0, 600.0];
            let at = camera.project(target, size).expect("visible");
            let ray = camera.ray(at, size).expect("ray");
            let (pick, _) = pick_nearest(&ray, scene.picks()).expect("a hit");
            let expected = PickId::Cell {
                stage,
                x: chunk.cell.x as i32,
                y: chunk.cell.y as i32,
            };
            assert_eq!(pick, expected, "{projection:?}");
            assert!(scene.bounds_of(&pick).is_some());
        }
        let label =
            cell_label(&content, stage, chunk.cell.x as i32, chunk.cell.y as i32).expect("a label");
        assert!(label.contains(chunk.role.name()) && label.contains(&chunk.chunk_id));
    }

    #[test]
    fn each_cell_colour_drawn_has_a_legend_entry() {
        let content = tactical();
        let legend = legend(&content);
        let colours: Vec<Srgba> = legend.iter().map(|(_, c)| *c).collect();
        let scene = scene(&content);
        let layer = scene.layer(LayerKind::Content);
        for (_, colour) in &layer.triangles {
            assert!(colours.contains(colour), "{colour:?} has no legend entry");
        }
        for segment in &layer.lines {
            assert!(colours.contains(&segment.colour), "{:?}", segment.colour);
        }
        for batch in &layer.shapes {
            for colour in &batch.colours {
                assert!(colours.contains(colour), "{colour:?} has no legend entry");
            }
        }
        let names: Vec<&str> = legend.iter().map(|(n, _)| n.as_str()).collect();
        assert!(
            names.contains(&"spawn") && names.contains(&"streaming: loaded"),
            "{names:?}"
        );
    }
}
