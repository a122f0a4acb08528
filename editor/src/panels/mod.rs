//! The dock tabs: one module per tab, each implementing [`Panel`].
//!
//! Panels read the [`Document`] and never change it: what the user does comes back as
//! [`Command`]s, which the app applies in one place (where edits enter the undo record).

pub mod authoring;
pub mod crossing_rows;
pub mod crossings;
pub mod daily;
pub mod diagnostics;
pub mod diff;
pub mod diff_rows;
pub mod draws;
pub mod elide;
pub mod event_rows;
pub mod gait_rows;
pub mod inspector;
pub mod motion;
pub mod plot_beside;
pub mod population;
pub mod project_rename;
pub mod project_tree;
pub mod provenance;
pub mod recipe_graph;
pub mod stage_steps;
pub mod task_rows;
pub mod timeline;
pub mod timeline_marks;
pub mod timeline_plot;
pub mod viewport;
pub mod viewport_legend;

use egui::Ui;
use egui_dock::{DockState, NodeIndex};
use serde::{Deserialize, Serialize};

pub use crate::command::Command;
use crate::document::Document;

/// A dock tab. Only tabs that exist: no placeholders for later features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tab {
    /// The tree of the project's documents.
    Project,
    /// Typed widgets for the selected document.
    Inspector,
    /// Errors and warnings of the last validation.
    Diagnostics,
    /// The 3D preview of generated content and the running scenario.
    Viewport,
    /// Playback and counters of the selected scenario's simulation.
    Timeline,
    /// Where the object picked in the viewport came from.
    Provenance,
    /// The selected recipe's stages and wires as a node graph.
    RecipeGraph,
    /// The scenario's population lifecycle: per-source counts, why nothing spawns, events.
    Population,
    /// The scenario's motion at scale: tiers, update and avoidance budgets, Motion Frames.
    Motion,
    /// The identity diff of the preview against the saved state, another seed or a bundle.
    Diff,
    /// The signalled crossings: each crosswalk's signal, gate, phases and queues; groups,
    /// queries and the liveness guard, plotted over the frames.
    Crossings,
    /// A day's mission previewed with its dispatched seed.
    Daily,
}

impl Tab {
    /// Every tab, in the order the command line lists them.
    pub const ALL: [Tab; 12] = [
        Tab::Project,
        Tab::Inspector,
        Tab::Diagnostics,
        Tab::Viewport,
        Tab::Timeline,
        Tab::Provenance,
        Tab::RecipeGraph,
        Tab::Population,
        Tab::Motion,
        Tab::Diff,
        Tab::Crossings,
        Tab::Daily,
    ];

    /// The names `--tab` accepts, in [`Tab::ALL`] order.
    pub const NAMES: [&'static str; 12] = [
        "project",
        "inspector",
        "diagnostics",
        "viewport",
        "timeline",
        "provenance",
        "recipe-graph",
        "population",
        "motion",
        "diff",
        "crossings",
        "daily",
    ];

    /// The tab called `name` on the command line.
    pub fn from_name(name: &str) -> Option<Tab> {
        let index = Tab::NAMES.iter().position(|n| *n == name)?;
        Tab::ALL.get(index).copied()
    }
}

/// A dock tab's contents.
pub trait Panel {
    /// The tab's title.
    fn title(&self) -> &'static str;
    /// Draws the tab; user actions go to `out`.
    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>);
}

/// The panels' state between frames.
pub struct Panels {
    /// The Project tab.
    pub project: project_tree::ProjectPanel,
    /// The Inspector tab.
    pub inspector: inspector::InspectorPanel,
    /// The Diagnostics tab.
    pub diagnostics: diagnostics::DiagnosticsPanel,
    /// The Viewport tab.
    pub viewport: viewport::ViewportPanel,
    /// The Timeline tab.
    pub timeline: timeline::TimelinePanel,
    /// The Provenance tab.
    pub provenance: provenance::ProvenancePanel,
    /// The Recipe graph tab.
    pub recipe_graph: recipe_graph::RecipeGraphPanel,
    /// The Population tab.
    pub population: population::PopulationPanel,
    /// The Motion tab.
    pub motion: motion::MotionPanel,
    /// The Diff tab.
    pub diff: diff::DiffPanel,
    /// The Crossings tab.
    pub crossings: crossings::CrossingsPanel,
    /// The Daily tab.
    pub daily: daily::DailyPanel,
}

impl Panels {
    /// The tabs, the Viewport, Timeline and Provenance over the app's `preview`.
    pub fn new(preview: crate::viewport::SharedPreview) -> Self {
        Panels {
            project: Default::default(),
            inspector: Default::default(),
            diagnostics: diagnostics::DiagnosticsPanel::watching(preview.clone()),
            viewport: viewport::ViewportPanel::new(preview.clone()),
            timeline: timeline::TimelinePanel::new(preview.clone()),
            provenance: provenance::ProvenancePanel::new(preview.clone()),
            recipe_graph: Default::default(),
            population: population::PopulationPanel::new(preview.clone()),
            motion: motion::MotionPanel::new(preview.clone()),
            diff: diff::DiffPanel::new(preview.clone()),
            crossings: crossings::CrossingsPanel::new(preview.clone()),
            daily: Default::default(),
        }
    }

    /// Forgets what belonged to the previous project: the picked and hovered things of
    /// `preview`, the camera (which frames the new content once it is generated) and the recipe
    /// graph's view.
    pub fn project_opened(&mut self, preview: &crate::viewport::SharedPreview) {
        let mut preview = preview.borrow_mut();
        preview.selected = None;
        preview.hovered = None;
        preview.diff_marks.clear();
        preview.authoring_message = None;
        preview.inspect.reset();
        drop(preview);
        self.diff.result = None;
        self.diff.error = None;
        // Another project's frame means nothing here.
        self.timeline.jump_frame = 0;
        self.viewport.project_opened();
        self.recipe_graph.project_opened();
    }

    /// After a rename in the Project tab, the editor state kept by id (a scenario's bookmarks, a
    /// recipe's graph layout, in `.stagecraft/`) follows the new id.
    pub fn carry_rename(&mut self, dir: &std::path::Path) {
        let Some((doc, new)) = self.project.renamed.take() else {
            return;
        };
        match doc {
            crate::edits::DocId::Scenario(old) => {
                self.timeline.marks.scenario_renamed(dir, &old, &new);
            }
            crate::edits::DocId::Recipe(old) => self.recipe_graph.recipe_renamed(dir, &old, &new),
            _ => {}
        }
    }

    /// The panel behind `tab`.
    pub fn get(&mut self, tab: Tab) -> &mut dyn Panel {
        match tab {
            Tab::Project => &mut self.project,
            Tab::Inspector => &mut self.inspector,
            Tab::Diagnostics => &mut self.diagnostics,
            Tab::Viewport => &mut self.viewport,
            Tab::Timeline => &mut self.timeline,
            Tab::Provenance => &mut self.provenance,
            Tab::RecipeGraph => &mut self.recipe_graph,
            Tab::Population => &mut self.population,
            Tab::Motion => &mut self.motion,
            Tab::Diff => &mut self.diff,
            Tab::Crossings => &mut self.crossings,
            Tab::Daily => &mut self.daily,
        }
    }
}

/// Share of the dock's width the left column (Project, Inspector, Diagnostics) gets.
pub const LEFT_COLUMN_SHARE: f32 = 0.24;
/// Share of the right column's height the Viewport gets (the lower tabs get the rest).
pub const VIEWPORT_HEIGHT_SHARE: f32 = 0.74;

/// The default layout: the Viewport (with the Recipe graph) takes the upper right, more than
/// half of a 1280 × 800 window (tested); the Timeline, Crossings, Provenance, Population, Motion
/// and Diff tabs share the strip below it, tall enough for a counter plot beside their text
/// (`plot_beside`, tested); the left column holds the Project over the Inspector over
/// Diagnostics.
pub fn default_layout() -> DockState<Tab> {
    layout_with(LEFT_COLUMN_SHARE, VIEWPORT_HEIGHT_SHARE)
}

/// The default layout's arrangement with the left column's share of the width and the
/// Viewport's share of the right column's height.
fn layout_with(left_share: f32, viewport_share: f32) -> DockState<Tab> {
    let mut dock = DockState::new(vec![Tab::Viewport, Tab::RecipeGraph]);
    let surface = dock.main_surface_mut();
    let [viewport, inspector] =
        surface.split_left(NodeIndex::root(), left_share, vec![Tab::Inspector]);
    surface.split_below(
        viewport,
        viewport_share,
        vec![
            Tab::Timeline,
            Tab::Crossings,
            Tab::Provenance,
            Tab::Population,
            Tab::Motion,
            Tab::Diff,
            Tab::Daily,
        ],
    );
    let [inspector, _project] = surface.split_above(inspector, 0.22, vec![Tab::Project]);
    surface.split_below(inspector, 0.84, vec![Tab::Diagnostics]);
    dock
}

/// The Diagnostics tab's title: its badge counts the rows the tab lists (`tally`, the tab's own
/// count) and, when the files on disk are what has errors (the document is saved), says so.
pub fn diagnostics_title(document: &Document, tally: diagnostics::Tally) -> String {
    let count = tally.total();
    let errors = tally.errors;
    if errors > 0 && !document.is_dirty() {
        let saved = crate::app::count_text(errors, "error");
        return format!("Diagnostics ({count}) · saved with {saved}");
    }
    if count > 0 {
        format!("Diagnostics ({count})")
    } else {
        "Diagnostics".to_owned()
    }
}

/// Shows the dock tabs over one document.
pub struct TabViewer<'a> {
    /// The panels.
    pub panels: &'a mut Panels,
    /// The open document.
    pub document: &'a Document,
    /// Commands the panels emit.
    pub out: &'a mut Vec<Command>,
}

impl egui_dock::TabViewer for TabViewer<'_> {
    type Tab = Tab;

    fn id(&mut self, tab: &mut Tab) -> egui::Id {
        egui::Id::new(("stagecraft-tab", *tab))
    }

    fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
        if *tab == Tab::Diagnostics {
            return diagnostics_title(self.document, self.panels.diagnostics.tally).into();
        }
        self.panels.get(*tab).title().into()
    }

    fn ui(&mut self, ui: &mut Ui, tab: &mut Tab) {
        self.panels.get(*tab).ui(ui, self.document, self.out);
    }

    fn is_closeable(&self, _tab: &Tab) -> bool {
        // Every tab is essential; "Reset layout" is the way back from any arrangement.
        false
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    /// Tabs with nothing in them: only the layout is measured.
    struct Blank;

    impl egui_dock::TabViewer for Blank {
        type Tab = Tab;

        fn id(&mut self, tab: &mut Tab) -> egui::Id {
            egui::Id::new(("layout-test-tab", *tab))
        }

        fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
            format!("{tab:?}").into()
        }

        fn ui(&mut self, _ui: &mut Ui, _tab: &mut Tab) {}
    }

    /// The tab bodies of `dock` laid out in a 1280 × 800 window (the menu bar above the dock
    /// and the status line below it), by the first tab of each leaf.
    pub(super) fn bodies_at_1280_by_800(dock: &mut DockState<Tab>) -> Vec<(Tab, egui::Rect)> {
        let ctx = egui::Context::default();
        let (width, height) = (1280.0, 800.0);
        let (menu, status) = (24.0, 24.0);
        for _ in 0..3 {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(width, height),
                )),
                ..Default::default()
            };
            let mut output = ctx.run_ui(input, |ui| {
                ui.add_space(menu);
                let size = egui::vec2(ui.available_width(), ui.available_height() - status);
                ui.allocate_ui(size, |ui| {
                    egui_dock::DockArea::new(dock).show_inside(ui, &mut Blank);
                });
            });
            output.textures_delta.clear();
        }
        dock.main_surface()
            .iter()
            .filter_map(|node| match node {
                egui_dock::Node::Leaf(leaf) => Some((leaf.tabs[0], leaf.viewport)),
                _ => None,
            })
            .collect()
    }

    fn body_of(bodies: &[(Tab, egui::Rect)], tab: Tab) -> egui::Rect {
        bodies
            .iter()
            .find(|(t, _)| *t == tab)
            .map(|(_, rect)| *rect)
            .expect("the tab heads a leaf")
    }

    #[test]
    fn the_viewport_gets_at_least_half_of_a_1280_by_800_window() {
        let (width, height) = (1280.0, 800.0);
        let body = body_of(&bodies_at_1280_by_800(&mut default_layout()), Tab::Viewport);
        let share = body.area() / (width * height);
        assert!(
            share >= 0.5,
            "the Viewport's tab body is {share:.3} of the window"
        );
        assert!(body.height() >= 0.6 * height, "{body:?}");
    }

    #[test]
    fn the_lower_tabs_are_tall_enough_for_a_plot_beside_their_text() {
        use super::timeline_plot::MIN_PLOT_HEIGHT;
        let bodies = bodies_at_1280_by_800(&mut default_layout());
        let lower = body_of(&bodies, Tab::Timeline);
        assert!(lower.height() >= MIN_PLOT_HEIGHT, "{lower:?}");
        // Wide enough for the text column and the plot with its legend side by side.
        assert!(lower.width() >= 900.0, "{lower:?}");
        let inspector = body_of(&bodies, Tab::Inspector);
        assert!(inspector.width() >= 300.0, "{inspector:?}");
    }

    #[test]
    fn every_tab_is_in_the_default_layout_and_named() {
        let dock = default_layout();
        for tab in Tab::ALL {
            assert!(dock.iter_all_tabs().any(|(_, t)| *t == tab), "{tab:?}");
        }
        assert_eq!(Tab::from_name("crossings"), Some(Tab::Crossings));
    }
}
