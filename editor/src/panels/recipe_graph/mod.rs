//! The Recipe graph tab: the selected recipe's stages and wires in an egui-snarl view rebuilt
//! from the document, an operator palette, and each stage's last output from the app's
//! generation service (the same generation the Viewport shows).
//!
//! Every change the user makes (connect, disconnect, add, remove) is turned into one
//! [`ProjectEdit`] through [`interop`] and sent as [`Command::Apply`]; the snarl graph is a view
//! and is never saved. Node positions are editor layout, stored in
//! `<project>/.stagecraft/graph-layout.ron`, never in the recipe.

pub mod interop;
pub mod palette;
pub mod stage_marks;
pub mod subrecipe_pins;
pub mod viewer;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::Ui;
use egui_snarl::ui::SnarlWidget;
use serde::{Deserialize, Serialize};
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::schema::recipe::SUBRECIPE_OPERATOR;
use stagecraft_runtime::project::{
    classify, DocKind, FieldPath, ParamValue, PathSeg, Project, Recipe,
};

use super::{Command, Panel};
use crate::document::Document;
use crate::edits::{DocId, Selection};
use crate::service::{Generation, GenerationService};
use interop::{GraphNode, GraphView};
pub use stage_marks::StageMarks;
use viewer::{fit_transform, GraphAction, RecipeViewer};

/// Frames in a row the graph is fitted to its nodes after it opens, while their sizes settle.
const FIT_FRAMES: u8 = 3;

/// The layout file, relative to the project folder.
pub const LAYOUT_FILE: &str = ".stagecraft/graph-layout.ron";

/// Node positions per recipe, by [`GraphNode::layout_key`] (editor layout, not canonical).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphLayout {
    /// Recipe id → node key → graph position.
    pub recipes: BTreeMap<String, BTreeMap<String, [f32; 2]>>,
}

impl GraphLayout {
    /// Reads the layout of the project in `dir` (empty when absent or unreadable).
    pub fn load(dir: &Path) -> GraphLayout {
        crate::project_io::read_editor_state(dir, LAYOUT_FILE)
    }

    /// Writes the layout of the project in `dir` (temp file, then rename).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        crate::project_io::write_editor_state(dir, LAYOUT_FILE, self)
    }
}

/// The Recipe graph tab's state.
pub struct RecipeGraphPanel {
    registry: Registry,
    recipe_id: Option<String>,
    /// The document state (id, revision) last looked at: the recipe is compared with the one the
    /// view was built from only when it moves.
    built_at: Option<(u64, u64)>,
    built_from: Option<Recipe>,
    /// The number of stages the view was built with (where the palette puts a new node).
    stage_count: usize,
    view: Option<GraphView>,
    layout: GraphLayout,
    layout_dir: Option<PathBuf>,
    layout_dirty: bool,
    /// The service's newest generation, handed over by the app each frame.
    generation: Option<Arc<Generation>>,
    /// The recipe the service previews.
    service_recipe: Option<String>,
    /// Whether the service is generating.
    generating: bool,
    message: Option<String>,
    snarl_selection: Vec<egui_snarl::NodeId>,
    /// Frames left in which the view is fitted to every node (set when a recipe is opened).
    fit_frames: u8,
    /// The nodes' bounds last frame, in graph coordinates.
    node_bounds: Option<egui::Rect>,
    /// Each node's rect on screen last frame.
    screen_rects: Vec<(GraphNode, egui::Rect)>,
    /// The zoom (screen points per graph unit) last frame.
    zoom: f32,
    /// The Viewport's stepping cursor and locked stage, handed over by the app each frame.
    pub stage_marks: StageMarks,
    /// The subrecipes opened in place, outermost first: the breadcrumbs back.
    trail: Vec<Crumb>,
    /// What the shown recipe's subrecipe stages publish, learned from their compiled children
    /// when the document moves (a child's edit retypes its user's pins).
    learned: interop::LearnedKinds,
}

/// One step into a subrecipe: the recipe shown before, the subrecipe stage opened, the child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crumb {
    /// The recipe the stage belongs to.
    pub recipe: String,
    /// The subrecipe stage.
    pub stage: u32,
    /// The recipe it runs.
    pub child: String,
}

/// The subrecipe stage a frame's actions open (the last double-clicked), if any.
fn opened_subrecipe(actions: &[GraphAction]) -> Option<u32> {
    actions.iter().rev().find_map(|action| match action {
        GraphAction::OpenSubrecipe(stage) => Some(*stage),
        _ => None,
    })
}

/// The recipe subrecipe stage `stage` of `recipe` runs, when it names one the project has.
pub fn subrecipe_of(project: &Project, recipe: &Recipe, stage: u32) -> Option<String> {
    let stage = recipe.stages.iter().find(|s| s.id == stage)?;
    if stage.operator != SUBRECIPE_OPERATOR {
        return None;
    }
    let Some(ParamValue::Str(file)) = stage.parameters.get("recipe") else {
        return None;
    };
    let (_, id) = classify(file).filter(|(kind, _)| *kind == DocKind::Recipe)?;
    project.recipes.contains_key(&id).then_some(id)
}

impl Default for RecipeGraphPanel {
    fn default() -> Self {
        RecipeGraphPanel {
            registry: Registry::standard(),
            recipe_id: None,
            built_at: None,
            built_from: None,
            stage_count: 0,
            view: None,
            layout: GraphLayout::default(),
            layout_dir: None,
            layout_dirty: false,
            generation: None,
            service_recipe: None,
            generating: false,
            message: None,
            snarl_selection: Vec::new(),
            fit_frames: FIT_FRAMES,
            node_bounds: None,
            screen_rects: Vec::new(),
            zoom: 1.0,
            stage_marks: StageMarks::default(),
            trail: Vec::new(),
            learned: interop::LearnedKinds::default(),
        }
    }
}

/// The stage index a selection path points into (`stages[i]…`).
fn selected_stage_index(path: &FieldPath) -> Option<usize> {
    match path.0.as_slice() {
        [PathSeg::Field(field), PathSeg::Index(index), ..] if field == "stages" => Some(*index),
        _ => None,
    }
}

/// The selection of stage `stage` of recipe `recipe_id` (what the Inspector shows for it).
pub fn stage_selection(recipe_id: &str, recipe: &Recipe, stage: u32) -> Option<Selection> {
    let index = recipe.stages.iter().position(|s| s.id == stage)?;
    Some(Selection::field(
        DocId::Recipe(recipe_id.to_owned()),
        FieldPath::root().field("stages").index(index),
    ))
}

/// The recipe the graph shows: the selected one, else the one the service previews, else the
/// last shown, else the one a project opens on.
fn shown_recipe(
    project: &Project,
    selection: &Selection,
    previewed: Option<&String>,
    last: Option<&String>,
) -> Option<String> {
    if let Some(DocId::Recipe(id)) = &selection.doc {
        if project.recipes.contains_key(id) {
            return Some(id.clone());
        }
    }
    if let Some(previewed) = previewed.filter(|id| project.recipes.contains_key(*id)) {
        return Some(previewed.clone());
    }
    if let Some(last) = last.filter(|id| project.recipes.contains_key(*id)) {
        return Some(last.clone());
    }
    crate::service::first_recipe(project)
}

impl RecipeGraphPanel {
    /// A project was opened: forget the old graph's selection and fit the next one to its nodes.
    pub fn project_opened(&mut self) {
        self.snarl_selection.clear();
        self.view = None;
        self.node_bounds = None;
        self.fit_frames = FIT_FRAMES;
    }

    /// The subrecipes opened in place, outermost first.
    pub fn trail(&self) -> &[Crumb] {
        &self.trail
    }

    /// Opens subrecipe stage `stage` of `recipe_id` in place: the child becomes the selection
    /// (so the graph and the Inspector show it) and a breadcrumb leads back. Whether the stage
    /// runs a recipe of the project.
    pub fn open_subrecipe(
        &mut self,
        project: &Project,
        recipe_id: &str,
        stage: u32,
        out: &mut Vec<Command>,
    ) -> bool {
        let Some(child) = project
            .recipes
            .get(recipe_id)
            .and_then(|recipe| subrecipe_of(project, recipe, stage))
        else {
            return false;
        };
        out.push(Command::Select(Selection::doc(DocId::Recipe(
            child.clone(),
        ))));
        self.trail.push(Crumb {
            recipe: recipe_id.to_owned(),
            stage,
            child,
        });
        true
    }

    /// Goes back to breadcrumb `index`: its recipe shown again with its subrecipe stage
    /// selected, the crumbs from it on dropped.
    pub fn back_to(&mut self, project: &Project, index: usize, out: &mut Vec<Command>) {
        let Some(crumb) = self.trail.get(index).cloned() else {
            return;
        };
        self.trail.truncate(index);
        let selection = project
            .recipes
            .get(&crumb.recipe)
            .and_then(|recipe| stage_selection(&crumb.recipe, recipe, crumb.stage))
            .unwrap_or_else(|| Selection::doc(DocId::Recipe(crumb.recipe.clone())));
        out.push(Command::Select(selection));
    }

    /// The breadcrumb bar (while a subrecipe is open) and the button opening the selected
    /// subrecipe stage.
    fn subrecipe_bar_ui(
        &mut self,
        ui: &mut Ui,
        document: &Document,
        recipe_id: &str,
        selected: Option<u32>,
        out: &mut Vec<Command>,
    ) {
        // Breadcrumbs hold while the graph shows where they lead (another recipe chosen
        // elsewhere drops them).
        if self
            .trail
            .last()
            .is_some_and(|crumb| crumb.child != recipe_id)
        {
            self.trail.clear();
        }
        let project = document.project();
        let openable = selected.filter(|stage| {
            project
                .recipes
                .get(recipe_id)
                .and_then(|recipe| subrecipe_of(project, recipe, *stage))
                .is_some()
        });
        if self.trail.is_empty() && openable.is_none() {
            return;
        }
        let mut back = None;
        let mut open = false;
        ui.horizontal(|ui| {
            for (index, crumb) in self.trail.iter().enumerate() {
                if ui
                    .button(&crumb.recipe)
                    .on_hover_text("Back to this recipe")
                    .clicked()
                {
                    back = Some(index);
                }
                ui.weak(format!("› stage {} ›", crumb.stage));
            }
            if !self.trail.is_empty() {
                ui.strong(recipe_id);
            }
            if let Some(stage) = openable {
                open = ui
                    .button(format!("Open subrecipe of stage {stage}"))
                    .on_hover_text(
                        "Show the recipe this stage runs, in place (breadcrumbs lead back)",
                    )
                    .clicked();
            }
        });
        if let Some(index) = back {
            self.back_to(project, index, out);
        } else if let (true, Some(stage)) = (open, openable) {
            self.open_subrecipe(project, recipe_id, stage, out);
        }
    }

    /// Each node's rect on screen as last drawn, in drawing order.
    pub fn node_screen_rects(&self) -> &[(GraphNode, egui::Rect)] {
        &self.screen_rects
    }

    /// The wires of the graph as last built: (source, target stage node, target pin), sorted.
    pub fn wires(&self) -> Vec<(GraphNode, GraphNode, usize)> {
        let Some(view) = &self.view else {
            return Vec::new();
        };
        let mut wires: Vec<_> = view
            .snarl
            .wires()
            .filter_map(|(out, to)| {
                Some((
                    view.ids.recipe(out.node)?.clone(),
                    view.ids.recipe(to.node)?.clone(),
                    to.input,
                ))
            })
            .collect();
        wires.sort();
        wires
    }

    /// The zoom last drawn at: screen points per graph unit (1 shows text at its normal size).
    pub fn zoom(&self) -> f32 {
        self.zoom
    }

    /// Fits the view to every node on the next frames.
    pub fn fit(&mut self) {
        self.fit_frames = FIT_FRAMES;
    }

    /// Takes the service's newest generation and state (the app calls this every frame).
    pub fn follow(&mut self, service: &GenerationService) {
        service.follow_latest(&mut self.generation);
        if self.service_recipe.as_deref() != service.recipe() {
            self.service_recipe = service.recipe().map(str::to_owned);
        }
        self.generating = service.is_busy();
    }

    /// The generation the graph shows for the recipe it shows, if any.
    pub fn generation(&self) -> Option<&Arc<Generation>> {
        self.generation
            .as_ref()
            .filter(|g| self.recipe_id.as_deref() == Some(g.recipe()))
    }

    /// The bundle digest the graph shows (hex), if its generation succeeded.
    pub fn shown_digest(&self) -> Option<String> {
        self.generation().and_then(|g| g.digest_hex())
    }

    /// Keeps the view and the layout in step with the document (the revision says when the
    /// recipe may have changed; nothing is compared or cloned otherwise).
    fn sync(&mut self, document: &Document, recipe_id: &str) {
        if self.layout_dir.as_deref() != Some(document.dir()) {
            self.layout = GraphLayout::load(document.dir());
            self.layout_dir = Some(document.dir().to_path_buf());
            self.view = None;
            self.fit_frames = FIT_FRAMES;
        }
        let Some(recipe) = document.project().recipes.get(recipe_id) else {
            return;
        };
        let state = (document.id(), document.revision());
        let moved = self.built_at != Some(state);
        self.built_at = Some(state);
        let mut retyped = false;
        if moved || self.recipe_id.as_deref() != Some(recipe_id) {
            let learned = interop::LearnedKinds::learn(document.project(), recipe, &self.registry);
            retyped = learned != self.learned;
            self.learned = learned;
        }
        if self.recipe_id.as_deref() != Some(recipe_id)
            || (moved && self.built_from.as_ref() != Some(recipe))
            || retyped
            || self.view.is_none()
        {
            if self.recipe_id.as_deref() != Some(recipe_id) || self.view.is_none() {
                // Another recipe (not an edit of this one): show all of it.
                self.fit_frames = FIT_FRAMES;
                self.node_bounds = None;
            }
            self.harvest_positions();
            let positions = self
                .layout
                .recipes
                .get(recipe_id)
                .cloned()
                .unwrap_or_default();
            self.view = Some(interop::build(
                recipe,
                &self.registry,
                &self.learned,
                &positions,
            ));
            self.built_from = Some(recipe.clone());
            self.stage_count = recipe.stages.len();
            self.recipe_id = Some(recipe_id.to_owned());
        }
    }

    /// A renamed recipe keeps its node positions: they are copied to the new id (the old id's
    /// stay, for an undo of the rename) and saved.
    pub fn recipe_renamed(&mut self, dir: &Path, old: &str, new: &str) {
        if self.layout_dir.as_deref() != Some(dir) {
            self.layout = GraphLayout::load(dir);
            self.layout_dir = Some(dir.to_path_buf());
        }
        if let Some(positions) = self.layout.recipes.get(old).cloned() {
            self.layout
                .recipes
                .entry(new.to_owned())
                .or_insert(positions);
            // A failed write is tried again the next time the tab is drawn.
            self.layout_dirty = self.layout.save(dir).is_err();
        }
    }

    /// Copies the positions of nodes the user moved into the layout, marking it dirty when
    /// they changed (nodes left where they were placed write nothing).
    fn harvest_positions(&mut self) {
        let (Some(view), Some(recipe_id)) = (&self.view, &self.recipe_id) else {
            return;
        };
        for (id, pos, _) in view.snarl.nodes_pos_ids() {
            let Some(node) = view.ids.recipe(id) else {
                continue;
            };
            let pos = [pos.x, pos.y];
            let key = node.layout_key();
            let stored = self
                .layout
                .recipes
                .get(recipe_id)
                .and_then(|positions| positions.get(&key))
                .copied();
            let moved = view.placed.get(node) != Some(&pos);
            if stored != Some(pos) && (moved || stored.is_some()) {
                self.layout
                    .recipes
                    .entry(recipe_id.clone())
                    .or_default()
                    .insert(key, pos);
                self.layout_dirty = true;
            }
        }
    }

    /// Applies the frame's actions to the recipe as one edit (or a message saying why not).
    fn apply_actions(
        &mut self,
        document: &Document,
        recipe_id: &str,
        actions: Vec<GraphAction>,
        out: &mut Vec<Command>,
    ) {
        let Some(original) = document.project().recipes.get(recipe_id) else {
            return;
        };
        let doc = DocId::Recipe(recipe_id.to_owned());
        let mut recipe = original.clone();
        let mut labels = Vec::new();
        let mut selection = document.selection().clone();
        // What subrecipe stages publish, learned again for the recipe as the edits leave it.
        let mut learned: Option<(Recipe, interop::LearnedKinds)> = None;
        let mut learn = |recipe: &Recipe| -> interop::LearnedKinds {
            match &learned {
                Some((at, kinds)) if at == recipe => kinds.clone(),
                _ => {
                    let kinds =
                        interop::LearnedKinds::learn(document.project(), recipe, &self.registry);
                    learned = Some((recipe.clone(), kinds.clone()));
                    kinds
                }
            }
        };
        for action in actions {
            let result = match action {
                GraphAction::Select(stage) => {
                    if let Some(selection) = stage_selection(recipe_id, &recipe, stage) {
                        out.push(Command::Select(selection));
                    }
                    continue;
                }
                GraphAction::Inspect(command) => {
                    out.push(Command::Inspect(command));
                    continue;
                }
                // Opened after the frame's edits and selections (`Panel::ui`).
                GraphAction::OpenSubrecipe(_) => continue,
                GraphAction::Connect {
                    source,
                    stage,
                    port,
                } => {
                    let kinds = learn(&recipe);
                    interop::connect(&recipe, &self.registry, &kinds, &source, stage, port)
                        .map(|next| (next, "Connect stages"))
                }
                GraphAction::Disconnect { stage, port } => {
                    let kinds = learn(&recipe);
                    interop::disconnect(&recipe, &self.registry, &kinds, stage, port)
                        .map(|next| (next, "Disconnect stages"))
                }
                GraphAction::TogglePublished(stage) => interop::toggle_output(&recipe, stage)
                    .map(|next| (next, "Toggle recipe output")),
                GraphAction::Remove(stage) => {
                    interop::remove_stage(&recipe, stage).map(|next| (next, "Remove stage"))
                }
                GraphAction::Add { id, algorithm, pos } => {
                    let Some(op) = self.registry.get(id, algorithm) else {
                        continue;
                    };
                    let (next, new_id) = interop::add_stage(&recipe, op);
                    self.layout
                        .recipes
                        .entry(recipe_id.to_owned())
                        .or_default()
                        .insert(GraphNode::Stage(new_id).layout_key(), pos);
                    self.layout_dirty = true;
                    let index = next.stages.len().saturating_sub(1);
                    selection = Selection::field(
                        doc.clone(),
                        FieldPath::root().field("stages").index(index),
                    );
                    Ok((next, "Add stage"))
                }
            };
            match result {
                Ok((next, label)) => {
                    recipe = next;
                    labels.push(label);
                    self.message = None;
                }
                Err(reject) => self.message = Some(format!("Refused: {reject}.")),
            }
        }
        if recipe != *original {
            let label = if labels.len() == 1 {
                labels[0].to_owned()
            } else {
                "Edit recipe graph".to_owned()
            };
            out.push(Command::Apply(interop::recipe_edit(
                recipe_id, recipe, selection, label,
            )));
        }
    }

    /// The toolbar: recipe name, palette, status of the background generation.
    fn toolbar_ui(&mut self, ui: &mut Ui, recipe_id: &str) -> Option<GraphAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            ui.strong(format!("recipe {recipe_id}"));
            ui.menu_button("Add stage", |ui| {
                if let Some((id, algorithm)) = palette::palette_ui(ui, &self.registry) {
                    let count = self.stage_count;
                    action = Some(GraphAction::Add {
                        id,
                        algorithm,
                        pos: [260.0 * (count + 1) as f32, 320.0],
                    });
                    ui.close();
                }
            });
            if ui
                .button("Fit")
                .on_hover_text("Show every node (double-click the background does too)")
                .clicked()
            {
                self.fit();
            }
            if self.generating {
                ui.spinner();
                ui.weak("generating…");
            } else if let Some(generation) = self.generation() {
                let digest = generation
                    .digest_hex()
                    .map(|d| format!(" · digest {}", &d[..d.len().min(12)]))
                    .unwrap_or_default();
                ui.weak(format!(
                    "generated in {:.1} ms{digest}",
                    generation.elapsed_ms
                ));
            }
            if let Some(message) = &self.message {
                ui.colored_label(ui.visuals().warn_fg_color, message);
            }
        });
        action
    }
}

impl Panel for RecipeGraphPanel {
    fn title(&self) -> &'static str {
        "Recipe graph"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let selection = document.selection().clone();
        let Some(recipe_id) = shown_recipe(
            document.project(),
            &selection,
            self.service_recipe.as_ref(),
            self.recipe_id.as_ref(),
        ) else {
            ui.weak("The project has no recipes.");
            return;
        };
        self.sync(document, &recipe_id);
        let Some(recipe) = document.project().recipes.get(&recipe_id) else {
            return;
        };
        let selected = Self::selected_stage_id(&selection, &recipe_id, recipe);
        self.subrecipe_bar_ui(ui, document, &recipe_id, selected, out);
        let mut actions: Vec<GraphAction> = self.toolbar_ui(ui, &recipe_id).into_iter().collect();
        let outcome = self
            .generation
            .as_deref()
            .filter(|generation| generation.recipe() == recipe_id);
        let mut viewer = RecipeViewer::new(recipe, &self.registry, outcome, selected);
        viewer.learned = &self.learned;
        viewer.marks = self.stage_marks.for_recipe(&recipe_id);
        if self.fit_frames > 0 {
            if let Some(bounds) = self.node_bounds {
                viewer.fit = Some(fit_transform(bounds, ui.available_rect_before_wrap()));
                self.fit_frames -= 1;
            }
            // Node sizes are known after a frame: come back without waiting for input.
            ui.ctx().request_repaint();
        }
        if let Some(view) = &mut self.view {
            let widget = SnarlWidget::new().id_salt(("stagecraft-recipe-graph", &recipe_id));
            widget.show(&mut view.snarl, &mut viewer, ui);
            self.node_bounds = viewer
                .node_rects
                .iter()
                .map(|(_, rect)| *rect)
                .reduce(|a, b| a.union(b));
            if self.fit_frames > 0 {
                // While fitting after an open, node sizes are known: pack the columns.
                let graph_rects: Vec<(GraphNode, egui::Rect)> = viewer
                    .node_rects
                    .iter()
                    .filter_map(|(id, rect)| Some((view.ids.recipe(*id)?.clone(), *rect)))
                    .collect();
                if interop::pack_columns(view, &graph_rects) {
                    self.node_bounds = None;
                    self.fit_frames = self.fit_frames.max(2);
                }
            }
            let transform = viewer.transform.unwrap_or_default();
            self.zoom = transform.scaling;
            self.screen_rects = viewer
                .node_rects
                .iter()
                .filter_map(|(id, rect)| Some((view.ids.recipe(*id)?.clone(), transform * *rect)))
                .collect();
            // A newly selected single stage node becomes the editor's selection.
            let chosen = widget.get_selected_nodes(ui);
            if chosen != self.snarl_selection {
                if let [node] = chosen.as_slice() {
                    if let Some(GraphNode::Stage(id)) = view.ids.recipe(*node) {
                        viewer.actions.push(GraphAction::Select(*id));
                    }
                }
                self.snarl_selection = chosen;
            }
        }
        actions.extend(viewer.actions);
        self.harvest_positions();
        self.save_layout_when_idle(ui);
        let open = opened_subrecipe(&actions);
        if !actions.is_empty() {
            self.apply_actions(document, &recipe_id, actions, out);
        }
        // A double click selects the node, then opens what it runs (the last selection wins).
        if let Some(stage) = open {
            self.open_subrecipe(document.project(), &recipe_id, stage, out);
        }
    }
}

impl RecipeGraphPanel {
    /// Writes the node layout once it changed and no pointer button is down (a drag ended).
    fn save_layout_when_idle(&mut self, ui: &Ui) {
        let dragging = ui.input(|i| i.pointer.any_down());
        if self.layout_dirty && !dragging {
            if let Some(dir) = &self.layout_dir {
                // Layout is a convenience: a failed write keeps the positions for this session.
                if self.layout.save(dir).is_ok() {
                    self.layout_dirty = false;
                }
            }
        }
    }

    /// The id of the stage the editor's selection is on, when it is in the recipe shown.
    fn selected_stage_id(selection: &Selection, recipe_id: &str, recipe: &Recipe) -> Option<u32> {
        (selection.doc == Some(DocId::Recipe(recipe_id.to_owned())))
            .then(|| selected_stage_index(&selection.path))
            .flatten()
            .and_then(|index| recipe.stages.get(index))
            .map(|stage| stage.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_selects_its_inspector_path_and_back() {
        let recipe = Recipe {
            id: "r".into(),
            stages: vec![
                stagecraft_runtime::project::Stage {
                    id: 7,
                    ..Default::default()
                },
                stagecraft_runtime::project::Stage {
                    id: 9,
                    ..Default::default()
                },
            ],
            ..Recipe::default()
        };
        let selection = stage_selection("r", &recipe, 9).expect("stage 9");
        assert_eq!(selection.doc, Some(DocId::Recipe("r".into())));
        assert_eq!(selection.path, FieldPath::root().field("stages").index(1));
        assert_eq!(selected_stage_index(&selection.path), Some(1));
        let deeper = selection.path.field("parameters").key("cell_size");
        assert_eq!(selected_stage_index(&deeper), Some(1));
        assert_eq!(stage_selection("r", &recipe, 3), None);
    }

    fn document() -> Document {
        let mut recipe = Recipe {
            id: "r".into(),
            address_schema: 1,
            ..Recipe::default()
        };
        recipe.inputs.insert(
            "trees".into(),
            stagecraft_runtime::project::RecipeInput::Family("pines".into()),
        );
        for (id, operator) in [(1, "street.block"), (2, "environment.scatter")] {
            recipe.stages.push(stagecraft_runtime::project::Stage {
                id,
                operator: operator.into(),
                algorithm: 1,
                ..Default::default()
            });
        }
        let mut project = Project::default();
        project.recipes.insert("r".into(), recipe);
        Document::from_parts(Path::new("/nonexistent"), project, Default::default())
    }

    #[test]
    fn graph_actions_become_one_edit_and_refusals_a_message() {
        let mut document = document();
        let mut panel = RecipeGraphPanel::default();
        let mut out = Vec::new();
        // Two wires in one frame: one undoable edit.
        let actions = vec![
            GraphAction::Connect {
                source: GraphNode::Input("trees".into()),
                stage: 2,
                port: 0,
            },
            GraphAction::Connect {
                source: GraphNode::Stage(1),
                stage: 2,
                port: 1,
            },
        ];
        panel.apply_actions(&document, "r", actions, &mut out);
        assert_eq!(out.len(), 1);
        let Some(Command::Apply(edit)) = out.pop() else {
            panic!("one edit");
        };
        assert_eq!(edit.docs(), vec![DocId::Recipe("r".into())]);
        document.apply(edit);
        assert_eq!(document.project().recipes["r"].stages[1].inputs.len(), 2);
        assert!(document.undo());
        assert!(document.project().recipes["r"].stages[1].inputs.is_empty());

        // A mismatched port: no edit, a message saying why.
        let wrong = vec![GraphAction::Connect {
            source: GraphNode::Stage(1),
            stage: 2,
            port: 0,
        }];
        panel.apply_actions(&document, "r", wrong, &mut out);
        assert!(out.is_empty());
        assert!(panel
            .message
            .as_deref()
            .is_some_and(|m| m.contains("Family")));
    }

    #[test]
    fn layout_round_trips_through_stagecraft_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut layout = GraphLayout::default();
        layout
            .recipes
            .entry("r".into())
            .or_default()
            .insert(GraphNode::Stage(2).layout_key(), [10.0, -4.5]);
        layout.save(dir.path()).expect("saves");
        assert!(dir.path().join(LAYOUT_FILE).is_file());
        assert_eq!(GraphLayout::load(dir.path()), layout);
        assert_eq!(
            GraphLayout::load(&dir.path().join("missing")),
            GraphLayout::default()
        );
    }
}
