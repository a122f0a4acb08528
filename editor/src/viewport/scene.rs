//! The CPU side of the viewport scene: layers of instances, lines and ground triangles built from
//! runtime output, each rebuilt only when its inputs changed.
//!
//! A [`SceneBuilder`] keeps, per layer, the key of the inputs it was built from. [`SceneBuilder::update`]
//! compares keys and rebuilds only the layers whose key differs, bumping their version; the GPU
//! side uploads a layer only when its version moved. Building reads runtime output and never writes
//! to it.

use std::sync::Arc;

use super::build;
pub use super::layer::{ColourBy, InstanceBatch, LayerData, Segment};
use super::overlays;
use super::picking::{Aabb, PickId};
use crate::session::PreviewContent;
use stagecraft_runtime::content::heatmap::{Heatmap, HeatmapMode};
use stagecraft_runtime::project::Scenario;
use stagecraft_runtime::sim::{Boxes, World};

/// The layers, in drawing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerKind {
    /// Ground grid and axes.
    Ground,
    /// Street surfaces, lanes, routes, crosswalks, mission cells, streaming cells.
    Content,
    /// The heatmap of the last scatter stage shown (candidates, rejections or placements).
    Heatmap,
    /// Generated objects as preview shapes.
    Placements,
    /// Rejected scatter candidates.
    Rejected,
    /// No-spawn and no-removal boxes, observers with frusta and range rings.
    Scenario,
    /// The world's recent spawn candidates, coloured by admission result.
    Spawns,
    /// Pedestrians.
    Agents,
    /// Each agent's applied tier, who is outside the streaming ring, and the ring.
    Tiers,
    /// Panicked agents, fleeing lines and flee targets.
    Panic,
    /// Selection and hover outlines.
    Highlight,
}

impl LayerKind {
    /// Every layer, in drawing order.
    pub const ALL: [LayerKind; 11] = [
        LayerKind::Ground,
        LayerKind::Content,
        LayerKind::Heatmap,
        LayerKind::Placements,
        LayerKind::Rejected,
        LayerKind::Scenario,
        LayerKind::Spawns,
        LayerKind::Agents,
        LayerKind::Tiers,
        LayerKind::Panic,
        LayerKind::Highlight,
    ];
}

/// What the viewport shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OverlayOptions {
    /// How generated objects are coloured.
    pub colour_by: ColourBy,
    /// Show rejected scatter candidates (coloured by reason).
    pub show_rejected: bool,
    /// Show identity labels next to objects and agents.
    pub show_labels: bool,
    /// Show the ground grid and axes.
    pub show_grid: bool,
    /// Show routes, crosswalks and waiting points.
    pub show_routes: bool,
    /// Show mission cells and streaming cells.
    pub show_layouts: bool,
    /// Show observers, their frusta and range rings, and the scenario boxes.
    pub show_scenario: bool,
    /// Show the world's recent spawn candidates, coloured by what admission said.
    pub show_candidates: bool,
    /// Show each agent's applied tier (and the streaming ring).
    pub show_tiers: bool,
    /// Show panicked agents, their flee lines and flee targets.
    pub show_panic: bool,
    /// The Viewport's camera drives the tiers (`sim::camera`): the run then depends on it.
    pub camera_drives_tiers: bool,
    /// …and admission too (births and retirement), when it drives the tiers.
    pub camera_drives_admission: bool,
    /// The heatmap drawn over the ground, if any ([`super::heatmap_marks`]).
    pub heatmap: Option<HeatmapMode>,
}

impl OverlayOptions {
    /// The names of the layers the toolbar toggles, as `stagecraft --layers` takes them.
    pub const LAYER_NAMES: [&'static str; 11] = [
        "grid",
        "routes",
        "layouts",
        "scenario",
        "rejected",
        "spawns",
        "labels",
        "tiers",
        "panic",
        "camera-tiers",
        "camera-admission",
    ];

    /// Shows exactly the layers named in `names` (of [`OverlayOptions::LAYER_NAMES`]), hiding
    /// the other toggleable ones; unknown names are ignored.
    pub fn show_only(&mut self, names: &[&str]) {
        let on = |name: &str| names.contains(&name);
        self.show_grid = on("grid");
        self.show_routes = on("routes");
        self.show_layouts = on("layouts");
        self.show_scenario = on("scenario");
        self.show_rejected = on("rejected");
        self.show_candidates = on("spawns");
        self.show_labels = on("labels");
        self.show_tiers = on("tiers");
        self.show_panic = on("panic");
        self.camera_drives_tiers = on("camera-tiers") || on("camera-admission");
        self.camera_drives_admission = on("camera-admission");
    }
}

impl Default for OverlayOptions {
    fn default() -> Self {
        OverlayOptions {
            colour_by: ColourBy::Asset,
            show_rejected: false,
            show_labels: false,
            show_grid: true,
            show_routes: true,
            show_layouts: true,
            show_scenario: true,
            show_candidates: true,
            show_tiers: false,
            show_panic: true,
            camera_drives_tiers: false,
            camera_drives_admission: false,
            heatmap: None,
        }
    }
}

/// Everything a scene is built from, with the versions that say when each part changed.
#[derive(Clone, Copy)]
pub struct SceneInputs<'a> {
    /// Generated content and its version.
    pub content: Option<(&'a PreviewContent, u64)>,
    /// The scenario shown and its version.
    pub scenario: Option<(&'a Scenario, u64)>,
    /// The running world and its version (the frame is read from it).
    pub world: Option<(&'a World, u64)>,
    /// Display options.
    pub options: &'a OverlayOptions,
    /// The selected thing.
    pub selected: Option<&'a PickId>,
    /// The thing under the cursor.
    pub hovered: Option<&'a PickId>,
}

/// One built layer: its version (bumped on every rebuild) and data.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Which layer.
    pub kind: LayerKind,
    /// Bumped each time the layer is rebuilt.
    pub version: u64,
    /// What it draws.
    pub data: Arc<LayerData>,
}

/// What the highlight layer depends on: selected, hovered, content version, world version, frame.
type HighlightKey = (Option<PickId>, Option<PickId>, u64, u64, u64);

/// What the scenario layer is built from: the document's version, whether it is shown, and a
/// running world's boxes in force and views.
type ScenarioKey = (u64, bool, Option<(Boxes, overlays::LiveViews)>);

/// The key each layer was last built from.
#[derive(Clone, Debug, Default, PartialEq)]
struct Keys {
    ground: Option<(u64, bool)>,
    content: Option<(u64, bool, bool)>,
    heatmap: Option<(u64, Option<HeatmapMode>)>,
    placements: Option<(u64, ColourBy)>,
    rejected: Option<(u64, bool)>,
    scenario: Option<ScenarioKey>,
    spawns: Option<((u64, u64), bool)>,
    agents: Option<(u64, u64)>,
    tiers: Option<((u64, u64), bool)>,
    panic: Option<((u64, u64), bool)>,
    highlight: Option<HighlightKey>,
}

/// Builds and keeps the scene's layers, rebuilding only what changed.
#[derive(Debug)]
pub struct SceneBuilder {
    layers: Vec<Layer>,
    keys: Keys,
    serial: u64,
    /// The heatmap drawn and its scatter stage, for the legend.
    heatmap: Option<(u32, Arc<Heatmap>)>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        SceneBuilder {
            layers: LayerKind::ALL
                .iter()
                .map(|kind| Layer {
                    kind: *kind,
                    version: 0,
                    data: Arc::new(LayerData::default()),
                })
                .collect(),
            keys: Keys::default(),
            serial: 0,
            heatmap: None,
        }
    }
}

impl SceneBuilder {
    /// The layers in drawing order.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// One layer's data.
    pub fn layer(&self, kind: LayerKind) -> &LayerData {
        &self.layers[kind as usize].data
    }

    /// The heatmap drawn, with its scatter stage, if one is.
    pub fn heatmap(&self) -> Option<(u32, &Heatmap)> {
        self.heatmap
            .as_ref()
            .map(|(stage, heat)| (*stage, heat.as_ref()))
    }

    /// Rebuilds the layers whose inputs changed; returns the layers rebuilt, in drawing order.
    pub fn update(&mut self, inputs: &SceneInputs<'_>) -> Vec<LayerKind> {
        let mut rebuilt = Vec::new();
        let content_key = inputs.content.map(|(_, v)| v).unwrap_or(0);
        self.update_content_layers(inputs, content_key, &mut rebuilt);
        self.update_scenario_layer(inputs, &mut rebuilt);
        let world_key = inputs.world.map_or((0, u64::MAX), |(w, v)| (v, w.frame()));
        self.update_world_layers(inputs, world_key, &mut rebuilt);
        self.update_highlight_layer(inputs, content_key, world_key, &mut rebuilt);
        rebuilt
    }

    /// The layers drawn from the generated content: ground, content overlays, placements,
    /// rejected candidates.
    fn update_content_layers(
        &mut self,
        inputs: &SceneInputs<'_>,
        content_key: u64,
        rebuilt: &mut Vec<LayerKind>,
    ) {
        let options = inputs.options;
        let content = inputs.content.map(|(c, _)| c);
        let key = Some((content_key, options.show_grid));
        if self.keys.ground != key {
            self.keys.ground = key;
            let data = overlays::ground(content, options.show_grid);
            self.set(LayerKind::Ground, data, rebuilt);
        }
        let key = Some((content_key, options.show_routes, options.show_layouts));
        if self.keys.content != key {
            self.keys.content = key;
            let data = content.map_or_else(LayerData::default, |c| {
                let mut data =
                    build::content_overlays(c, options.show_routes, options.show_layouts);
                if options.show_layouts {
                    data.picks.extend(super::cells::cell_picks(c));
                }
                data
            });
            self.set(LayerKind::Content, data, rebuilt);
        }
        let key = Some((content_key, options.heatmap));
        if self.keys.heatmap != key {
            self.keys.heatmap = key;
            self.heatmap = content
                .zip(options.heatmap)
                .and_then(|(c, mode)| super::heatmap_marks::heatmap(c, mode))
                .map(|(stage, heat)| (stage, Arc::new(heat)));
            let data = self
                .heatmap
                .as_ref()
                .map_or_else(LayerData::default, |(_, heat)| {
                    super::heatmap_marks::layer(heat)
                });
            self.set(LayerKind::Heatmap, data, rebuilt);
        }
        let key = Some((content_key, options.colour_by));
        if self.keys.placements != key {
            self.keys.placements = key;
            let data = content.map_or_else(LayerData::default, |c| {
                build::placements(c, options.colour_by)
            });
            self.set(LayerKind::Placements, data, rebuilt);
        }
        let key = Some((content_key, options.show_rejected));
        if self.keys.rejected != key {
            self.keys.rejected = key;
            let data = match content {
                Some(c) if options.show_rejected => build::rejected(c),
                _ => LayerData::default(),
            };
            self.set(LayerKind::Rejected, data, rebuilt);
        }
    }

    /// The scenario's overlay, with the running world's live boxes and views.
    fn update_scenario_layer(&mut self, inputs: &SceneInputs<'_>, rebuilt: &mut Vec<LayerKind>) {
        let options = inputs.options;
        let scenario_version = inputs.scenario.map_or(0, |(_, v)| v);
        let live = inputs
            .world
            .map(|(world, _)| (world.boxes(), overlays::live_views(world)));
        let key = Some((scenario_version, options.show_scenario, live));
        if self.keys.scenario != key {
            let data = match (inputs.scenario, &key) {
                (Some((scenario, _)), Some((_, true, live))) => {
                    overlays::scenario(scenario, live.as_ref().map(|(boxes, views)| (boxes, views)))
                }
                _ => LayerData::default(),
            };
            self.set(LayerKind::Scenario, data, rebuilt);
            self.keys.scenario = key;
        }
    }

    /// The layers drawn from the running world: spawn candidates, agents, tiers, panic.
    fn update_world_layers(
        &mut self,
        inputs: &SceneInputs<'_>,
        world_key: (u64, u64),
        rebuilt: &mut Vec<LayerKind>,
    ) {
        let options = inputs.options;
        let key = Some((world_key, options.show_candidates));
        if self.keys.spawns != key {
            self.keys.spawns = key;
            let data = match inputs.world {
                Some((world, _)) if options.show_candidates => overlays::spawn_candidates(world),
                _ => LayerData::default(),
            };
            self.set(LayerKind::Spawns, data, rebuilt);
        }
        if self.keys.agents != Some(world_key) {
            self.keys.agents = Some(world_key);
            let data = inputs
                .world
                .map_or_else(LayerData::default, |(w, _)| overlays::agents(w));
            self.set(LayerKind::Agents, data, rebuilt);
        }
        let key = Some((world_key, options.show_tiers));
        if self.keys.tiers != key {
            self.keys.tiers = key;
            let data = match inputs.world {
                Some((world, _)) if options.show_tiers => super::crowd_marks::tier_marks(world),
                _ => LayerData::default(),
            };
            self.set(LayerKind::Tiers, data, rebuilt);
        }
        let key = Some((world_key, options.show_panic));
        if self.keys.panic != key {
            self.keys.panic = key;
            let data = match inputs.world {
                Some((world, _)) if options.show_panic => super::crowd_marks::panic_marks(world),
                _ => LayerData::default(),
            };
            self.set(LayerKind::Panic, data, rebuilt);
        }
    }

    /// The hover and selection boxes.
    fn update_highlight_layer(
        &mut self,
        inputs: &SceneInputs<'_>,
        content_key: u64,
        world_key: (u64, u64),
        rebuilt: &mut Vec<LayerKind>,
    ) {
        let key = Some((
            inputs.selected.cloned(),
            inputs.hovered.cloned(),
            content_key,
            world_key.0,
            world_key.1,
        ));
        if self.keys.highlight != key {
            self.keys.highlight = key;
            let mut data = LayerData::default();
            for (pick, colour) in [
                (inputs.hovered, overlays::HOVER_COLOUR),
                (inputs.selected, overlays::SELECTION_COLOUR),
            ] {
                if let Some(bounds) = pick.and_then(|p| self.bounds_of(p)) {
                    overlays::box_wireframe(&mut data, &bounds, colour);
                }
            }
            self.set(LayerKind::Highlight, data, rebuilt);
        }
    }

    fn set(&mut self, kind: LayerKind, data: LayerData, rebuilt: &mut Vec<LayerKind>) {
        self.serial += 1;
        let layer = &mut self.layers[kind as usize];
        layer.version = self.serial;
        layer.data = Arc::new(data);
        rebuilt.push(kind);
    }

    /// The bounds of a pickable thing, if the scene has it.
    pub fn bounds_of(&self, pick: &PickId) -> Option<Aabb> {
        let kind = match pick {
            PickId::Object { .. } => LayerKind::Placements,
            PickId::Rejected { .. } => LayerKind::Rejected,
            PickId::Cell { .. } => LayerKind::Content,
            PickId::Agent { .. } => LayerKind::Agents,
            PickId::SpawnCandidate { .. } => LayerKind::Spawns,
        };
        self.layer(kind)
            .picks
            .iter()
            .find(|(id, _)| id == pick)
            .map(|(_, bounds)| *bounds)
    }

    /// Every pick target of every layer.
    pub fn picks(&self) -> impl Iterator<Item = (&PickId, &Aabb)> {
        self.layers
            .iter()
            .flat_map(|layer| layer.data.picks.iter().map(|(id, b)| (id, b)))
    }

    /// The bounds of the generated content and agents (for framing the whole scene).
    pub fn content_bounds(&self) -> Option<Aabb> {
        [LayerKind::Content, LayerKind::Placements, LayerKind::Agents]
            .iter()
            .filter_map(|kind| self.layer(*kind).bounds())
            .reduce(|a, b| a.union(&b))
    }
}
