//! The [`SnarlViewer`] of the Recipe graph: draws nodes, ports and last-output summaries, and
//! turns what the user does into [`GraphAction`]s. It never changes the snarl graph itself; the
//! panel applies the actions to the recipe and the graph is rebuilt from the document.

use egui::emath::TSTransform;
use egui::{Color32, Pos2, Rect, Ui};
use egui_snarl::ui::{PinInfo, SnarlPin, SnarlViewer};
use egui_snarl::{InPin, NodeId, OutPin, Snarl};
use stagecraft_runtime::ops::registry::{PortKind, Registry};
use stagecraft_runtime::project::{Recipe, RecipeInput, Stage};
use stagecraft_runtime::recipe::bind::product_kind;
use stagecraft_runtime::recipe::subrecipe::SUBRECIPE_OUTPUT_OPERATOR;

use super::interop::{operator_of, GraphNode, LearnedKinds};
use super::palette::palette_ui;
use super::subrecipe_pins;
use crate::service::Generation;

/// What the user did in the graph this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphAction {
    /// Wire `source` into input `port` of stage `stage`.
    Connect {
        /// The source node.
        source: GraphNode,
        /// The target stage.
        stage: u32,
        /// The target port.
        port: usize,
    },
    /// Disconnect input `port` of stage `stage`.
    Disconnect {
        /// The stage.
        stage: u32,
        /// The port.
        port: usize,
    },
    /// Add a stage of operator (`id`, `algorithm`) at graph position `pos`.
    Add {
        /// Operator id.
        id: &'static str,
        /// Algorithm version.
        algorithm: u32,
        /// Where to put the node.
        pos: [f32; 2],
    },
    /// Remove stage `stage`.
    Remove(u32),
    /// Publish stage `stage`'s product as a recipe output, or stop publishing it.
    TogglePublished(u32),
    /// Select stage `stage` (shows it in the Inspector).
    Select(u32),
    /// Move the Viewport's stage inspection (step to a stage, lock and isolate one).
    Inspect(crate::command::StageCommand),
    /// Open subrecipe stage `stage` in place (a double click on its node).
    OpenSubrecipe(u32),
}

/// Draws one recipe's graph.
pub struct RecipeViewer<'a> {
    /// The recipe shown.
    pub recipe: &'a Recipe,
    /// The operator registry.
    pub registry: &'a Registry,
    /// The last accepted generation of this recipe, if any.
    pub outcome: Option<&'a Generation>,
    /// The selected stage, if any.
    pub selected: Option<u32>,
    /// What the user did.
    pub actions: Vec<GraphAction>,
    /// A graph → screen transform to apply this frame (fitting every node), if any.
    pub fit: Option<TSTransform>,
    /// Each node's rect this frame, in graph coordinates, in drawing order.
    pub node_rects: Vec<(NodeId, Rect)>,
    /// The graph → screen transform snarl drew this frame with.
    pub transform: Option<TSTransform>,
    /// The Viewport's stepping cursor and locked stage.
    pub marks: super::StageMarks,
    /// What the recipe's subrecipe stages publish (or why that is not known).
    pub learned: &'a LearnedKinds,
}

/// Nothing learned: every subrecipe stage's pin untyped.
static NOTHING_LEARNED: LearnedKinds = LearnedKinds::NONE;

impl<'a> RecipeViewer<'a> {
    /// A viewer of `recipe` with nothing done yet.
    pub fn new(
        recipe: &'a Recipe,
        registry: &'a Registry,
        outcome: Option<&'a Generation>,
        selected: Option<u32>,
    ) -> Self {
        RecipeViewer {
            recipe,
            registry,
            outcome,
            selected,
            actions: Vec::new(),
            fit: None,
            node_rects: Vec::new(),
            transform: None,
            marks: super::StageMarks::default(),
            learned: &NOTHING_LEARNED,
        }
    }
}

/// Space between a pin label and the node's edge, where the pin's circle is drawn, points.
const PIN_LABEL_GAP: f32 = 6.0;

/// Largest zoom a fit uses: a small graph is shown at a comfortable size, not blown up.
const FIT_MAX_SCALE: f32 = 1.25;
/// Margin around the nodes when fitting, in screen points.
const FIT_MARGIN: f32 = 24.0;

/// The graph → screen transform that shows all of `nodes` (graph coordinates) centred in
/// `screen`, never zoomed in beyond [`FIT_MAX_SCALE`].
pub fn fit_transform(nodes: Rect, screen: Rect) -> TSTransform {
    let room = (screen.size() - egui::vec2(2.0, 2.0) * FIT_MARGIN).max(egui::vec2(1.0, 1.0));
    let size = nodes.size().max(egui::vec2(1.0, 1.0));
    let scale = (room.x / size.x).min(room.y / size.y).min(FIT_MAX_SCALE);
    TSTransform {
        scaling: scale,
        translation: screen.center().to_vec2() - nodes.center().to_vec2() * scale,
    }
}

/// A colour per port kind, so matching ports are easy to see.
fn kind_colour(kind: Option<PortKind>) -> Color32 {
    match kind {
        Some(PortKind::Family) => Color32::from_rgb(120, 190, 120),
        Some(PortKind::Product(product)) => match product.name().len() % 4 {
            0 => Color32::from_rgb(110, 160, 230),
            1 => Color32::from_rgb(230, 170, 90),
            2 => Color32::from_rgb(200, 120, 200),
            _ => Color32::from_rgb(220, 210, 110),
        },
        None => Color32::GRAY,
    }
}

impl RecipeViewer<'_> {
    fn output_kind(&self, node: &GraphNode) -> Option<PortKind> {
        match node {
            GraphNode::Input(name) => match self.recipe.inputs.get(name)? {
                RecipeInput::Family(_) => Some(PortKind::Family),
                RecipeInput::Value(_) => None,
                RecipeInput::Product(kind) => product_kind(kind).map(PortKind::Product),
            },
            GraphNode::Stage(id) => {
                if let Some(learned) = self.learned.get(*id) {
                    return learned.as_ref().ok().copied().map(PortKind::Product);
                }
                let stage = self.recipe.stages.iter().find(|s| s.id == *id)?;
                operator_of(self.registry, stage)
                    .and_then(|op| op.output_kind())
                    .map(PortKind::Product)
            }
        }
    }

    fn stage_of(snarl: &Snarl<GraphNode>, node: NodeId) -> Option<u32> {
        match snarl.get_node(node)? {
            GraphNode::Stage(id) => Some(*id),
            GraphNode::Input(_) => None,
        }
    }
}

impl SnarlViewer<GraphNode> for RecipeViewer<'_> {
    fn title(&mut self, node: &GraphNode) -> String {
        match node {
            GraphNode::Input(name) => format!("input {name}"),
            GraphNode::Stage(id) => match self.recipe.stages.iter().find(|s| s.id == *id) {
                Some(stage) => format!("{id} {} ({})", stage.label, stage.operator),
                None => format!("stage {id}"),
            },
        }
    }

    fn show_header(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        let Some(graph_node) = snarl.get_node(node).cloned() else {
            return;
        };
        match graph_node {
            GraphNode::Stage(id) => {
                let Some(stage) = self.recipe.stages.iter().find(|s| s.id == id) else {
                    ui.label(format!("stage {id}"));
                    return;
                };
                // The operator goes on its own weak line, so nodes stay narrow and the graph
                // fits at a readable zoom.
                let published = self.recipe.outputs.contains(&id);
                let marker = if published { " ⇥" } else { "" };
                let title = format!("{id} {}{marker}", stage.label);
                // Titles never wrap: a wrapped title makes a tall, narrow node that reads badly.
                let extend = |text: egui::RichText| egui::Label::new(text).extend();
                ui.vertical(|ui| {
                    let beyond = self.marks.beyond.contains(&id);
                    let response = if self.selected == Some(id) {
                        ui.add(extend(egui::RichText::new(format!("▶ {title}")).strong()))
                    } else if beyond {
                        ui.add(extend(egui::RichText::new(title).weak()))
                            .on_hover_text(
                            "Not drawn: stepping has not reached it, or another stage is isolated",
                        )
                    } else {
                        ui.add(extend(egui::RichText::new(title)))
                    };
                    if published {
                        response.on_hover_text("⇥ published as a recipe output");
                    }
                    ui.add(extend(egui::RichText::new(stage.operator.as_str()).weak()));
                    self.inspection_marks_ui(ui, id);
                });
            }
            GraphNode::Input(_) => {
                ui.label(self.title(&graph_node));
            }
        }
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, _snarl: &mut Snarl<GraphNode>) {
        if let Some(fit) = self.fit.take() {
            *to_global = fit;
        }
        self.transform = Some(*to_global);
    }

    fn final_node_rect(
        &mut self,
        node: NodeId,
        rect: Rect,
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        self.node_rects.push((node, rect));
        // A plain left click anywhere on a node selects it (snarl itself only selects with
        // Shift); clicks on the node's widgets count too, as the user means the node.
        let (clicked, double) = ui.input(|i| {
            let at = (i.pointer.primary_clicked() && i.modifiers.is_none())
                .then(|| i.pointer.interact_pos())
                .flatten();
            let double = i
                .pointer
                .button_double_clicked(egui::PointerButton::Primary);
            (at, double)
        });
        // The snarl layer is transformed: compare in graph coordinates, and only for clicks on
        // the graph's own layer order (not on a menu or popup above it).
        let on_node = clicked
            .zip(self.transform)
            .is_some_and(|(screen, to_screen)| {
                let graph = to_screen.inverse() * screen;
                let layer = ui.ctx().layer_id_at(screen);
                rect.contains(graph)
                    && ui.clip_rect().contains(graph)
                    && layer.is_none_or(|l| l.order == ui.layer_id().order)
            });
        if on_node {
            if let Some(id) = Self::stage_of(snarl, node) {
                self.actions
                    .retain(|a| !matches!(a, GraphAction::Select(_)));
                self.actions.push(GraphAction::Select(id));
                if double {
                    self.actions.push(GraphAction::OpenSubrecipe(id));
                }
            }
        }
    }

    fn inputs(&mut self, node: &GraphNode) -> usize {
        match node {
            GraphNode::Input(_) => 0,
            GraphNode::Stage(id) => {
                let Some(stage) = self.recipe.stages.iter().find(|s| s.id == *id) else {
                    return 0;
                };
                if let Some((ports, _)) = subrecipe_pins::ports(stage, self.learned) {
                    return ports.len();
                }
                operator_of(self.registry, stage).map_or(0, |op| op.inputs.len())
            }
        }
    }

    fn show_input(
        &mut self,
        pin: &InPin,
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) -> impl SnarlPin + 'static {
        let stage = Self::stage_of(snarl, pin.id.node)
            .and_then(|id| self.recipe.stages.iter().find(|s| s.id == id));
        if let Some(stage) = stage.filter(|s| subrecipe_pins::is_subrecipe(s)) {
            return self.subrecipe_input_ui(stage, pin.id.input, ui);
        }
        let port = stage
            .and_then(|stage| operator_of(self.registry, stage))
            .and_then(|op| op.inputs.get(pin.id.input));
        match port {
            Some(port) => {
                // The kind is in the pin's colour and the hover text; the name alone keeps the
                // node narrow.
                let star = if port.required { "*" } else { "" };
                ui.add_space(PIN_LABEL_GAP);
                ui.add(egui::Label::new(format!("{}{star}", port.name)).extend())
                    .on_hover_text(format!(
                        "{}: {}{}",
                        port.kind.name(),
                        port.doc,
                        if port.required { " (required)" } else { "" }
                    ));
                PinInfo::circle().with_fill(kind_colour(Some(port.kind)))
            }
            None => {
                ui.label("?");
                PinInfo::circle().with_fill(kind_colour(None))
            }
        }
    }

    fn outputs(&mut self, _node: &GraphNode) -> usize {
        1
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) -> impl SnarlPin + 'static {
        let node = snarl.get_node(pin.id.node);
        let kind = node.and_then(|node| self.output_kind(node));
        // A subrecipe stage's kind, learned from its compiled child, or why it is not known.
        let learned = match node {
            Some(GraphNode::Stage(id)) => self.learned.get(*id),
            _ => None,
        };
        // The pin sits on the node's edge and is wider than the frame's margin: keep the label
        // clear of it (the layout is right to left, so this space is next to the pin).
        ui.add_space(PIN_LABEL_GAP);
        let text = match learned {
            Some(Err(_)) => "untyped",
            _ => kind.map_or("value", PortKind::name),
        };
        let label = ui.add(egui::Label::new(text).extend());
        match learned {
            Some(Err(why)) => {
                label.on_hover_text(format!("Untyped, wires to no typed port: {why}"));
            }
            Some(Ok(_)) => {
                label.on_hover_text(format!("{text}: the subrecipe's chosen output"));
            }
            None => {}
        }
        PinInfo::circle().with_fill(kind_colour(kind))
    }

    fn has_footer(&mut self, node: &GraphNode) -> bool {
        matches!(node, GraphNode::Stage(_))
    }

    fn show_footer(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        let Some(id) = Self::stage_of(snarl, node) else {
            return;
        };
        let Some(outcome) = self.outcome else {
            ui.weak("not generated yet");
            return;
        };
        match outcome.stages.get(&id) {
            Some(summary) => match &summary.error {
                Some(error) => {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                None => {
                    let cache = if summary.cache_hit { "hit" } else { "miss" };
                    let time = summary
                        .time_ms
                        .map_or_else(|| "–".to_owned(), |ms| format!("{ms:.2} ms"));
                    ui.weak(format!(
                        "{} objects, {} rejected\n{time} · cache {cache}",
                        summary.objects, summary.rejected
                    ));
                }
            },
            None => match &outcome.result {
                Err(error) => {
                    ui.colored_label(ui.visuals().warn_fg_color, error.to_string());
                }
                Ok(_) => {
                    ui.weak("no output");
                }
            },
        }
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<GraphNode>) {
        let (Some(source), Some(stage)) = (
            snarl.get_node(from.id.node).cloned(),
            Self::stage_of(snarl, to.id.node),
        ) else {
            return;
        };
        self.actions.push(GraphAction::Connect {
            source,
            stage,
            port: to.id.input,
        });
    }

    fn disconnect(&mut self, _from: &OutPin, to: &InPin, snarl: &mut Snarl<GraphNode>) {
        if let Some(stage) = Self::stage_of(snarl, to.id.node) {
            self.actions.push(GraphAction::Disconnect {
                stage,
                port: to.id.input,
            });
        }
    }

    fn drop_inputs(&mut self, pin: &InPin, snarl: &mut Snarl<GraphNode>) {
        if let Some(stage) = Self::stage_of(snarl, pin.id.node) {
            self.actions.push(GraphAction::Disconnect {
                stage,
                port: pin.id.input,
            });
        }
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<GraphNode>) {
        for remote in &pin.remotes {
            if let Some(stage) = Self::stage_of(snarl, remote.node) {
                self.actions.push(GraphAction::Disconnect {
                    stage,
                    port: remote.input,
                });
            }
        }
    }

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<GraphNode>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut Ui, _snarl: &mut Snarl<GraphNode>) {
        ui.label("Add stage");
        if let Some((id, algorithm)) = palette_ui(ui, self.registry) {
            self.actions.push(GraphAction::Add {
                id,
                algorithm,
                pos: [pos.x, pos.y],
            });
            ui.close();
        }
    }

    fn has_node_menu(&mut self, node: &GraphNode) -> bool {
        matches!(node, GraphNode::Stage(_))
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        let Some(id) = Self::stage_of(snarl, node) else {
            return;
        };
        if ui.button("Select").clicked() {
            self.actions.push(GraphAction::Select(id));
            ui.close();
        }
        self.inspection_menu_ui(ui, id);
        let published = self.recipe.outputs.contains(&id);
        let text = if published {
            "Stop publishing"
        } else {
            "Publish as output"
        };
        if ui.button(text).clicked() {
            self.actions.push(GraphAction::TogglePublished(id));
            ui.close();
        }
        if ui.button("Remove stage").clicked() {
            self.actions.push(GraphAction::Remove(id));
            ui.close();
        }
    }
}

/// The input pins of `subrecipe` and `subrecipe.output` nodes.
impl RecipeViewer<'_> {
    /// Draws pin `port` of subrecipe or subrecipe.output stage `stage`: a bind (its name, typed
    /// by the child's declared input, or untyped saying why), the empty pin for an unbound child
    /// input, or a subrecipe.output's run.
    fn subrecipe_input_ui(&self, stage: &Stage, port: usize, ui: &mut Ui) -> PinInfo {
        ui.add_space(PIN_LABEL_GAP);
        let extend = |text: String| egui::Label::new(text).extend();
        if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
            ui.add(extend("run*".to_owned())).on_hover_text(
                "subrecipe stage: the run whose other output this stage republishes (required)",
            );
            return PinInfo::circle().with_fill(kind_colour(None));
        }
        let pins = self.learned.pins(stage.id);
        let bound = subrecipe_pins::binds_of(stage);
        match (bound.get(port), pins) {
            (Some(name), pins) => {
                let kind = pins.and_then(|p| p.bound.get(port)).map(|(_, k)| k);
                let label = ui.add(extend(name.clone()));
                match kind {
                    Some(Ok(kind)) => {
                        label.on_hover_text(format!("{}: the child's input `{name}`", kind.name()));
                        PinInfo::circle().with_fill(kind_colour(Some(PortKind::Product(*kind))))
                    }
                    Some(Err(why)) => {
                        label.on_hover_text(format!("Untyped: {why}"));
                        PinInfo::circle().with_fill(kind_colour(None))
                    }
                    None => PinInfo::circle().with_fill(kind_colour(None)),
                }
            }
            (None, Some(pins)) if !pins.free.is_empty() => {
                let names: Vec<String> = pins
                    .free
                    .iter()
                    .map(|(name, kind)| format!("`{name}` ({})", kind.name()))
                    .collect();
                ui.add(extend("+ input".to_owned())).on_hover_text(format!(
                    "Wire a product here to bind the child's unbound input: {}",
                    names.join(", ")
                ));
                let kind = pins.free.first().map(|(_, k)| PortKind::Product(*k));
                PinInfo::circle().with_fill(kind_colour(kind))
            }
            _ => {
                ui.label("?");
                PinInfo::circle().with_fill(kind_colour(None))
            }
        }
    }
}

/// The step and lock marks under a node's title, and the node menu's inspection entries.
impl RecipeViewer<'_> {
    /// The colour of the stepping highlight.
    const STEP_COLOUR: Color32 = Color32::from_rgb(255, 190, 60);
    /// The colour of the lock mark.
    const PIN_COLOUR: Color32 = Color32::from_rgb(120, 200, 255);

    fn inspection_marks_ui(&self, ui: &mut Ui, id: u32) {
        let extend = |text: egui::RichText| egui::Label::new(text).extend();
        if let Some((_, k, n)) = self.marks.stepped.filter(|(stage, _, _)| *stage == id) {
            ui.add(extend(
                egui::RichText::new(format!("⏵ step {k}/{n} (F10 next, Shift+F10 back)"))
                    .color(Self::STEP_COLOUR)
                    .strong(),
            ));
        }
        if let Some((_, stale)) = self.marks.pinned.filter(|(stage, _)| *stage == id) {
            let text = if stale {
                "locked and isolated (older than the current product)"
            } else {
                "locked and isolated"
            };
            ui.add(extend(
                egui::RichText::new(text).color(Self::PIN_COLOUR).strong(),
            ));
        }
        if let Some(mark) = self.marks.isolated.as_ref().filter(|m| m.stage == id) {
            ui.add(extend(
                egui::RichText::new("isolated (F9 releases)")
                    .color(Self::PIN_COLOUR)
                    .strong(),
            ));
            ui.add(extend(
                egui::RichText::new(&mark.note).color(Self::PIN_COLOUR),
            ));
            if let Some(problem) = &mark.problem {
                ui.add(extend(
                    egui::RichText::new(format!("re-run failed: {problem}"))
                        .color(ui.visuals().error_fg_color),
                ));
            }
        }
    }

    fn inspection_menu_ui(&mut self, ui: &mut Ui, id: u32) {
        use crate::command::StageCommand;
        if ui
            .button("Step to here")
            .on_hover_text("The Viewport shows this stage's product and those before it")
            .clicked()
        {
            self.actions
                .push(GraphAction::Inspect(StageCommand::To(id)));
            ui.close();
        }
        let pinned = self.marks.pinned.is_some_and(|(stage, _)| stage == id);
        let text = if pinned {
            "Release isolation"
        } else {
            "Lock and isolate"
        };
        if ui
            .button(text)
            .on_hover_text("The Viewport shows only this stage's product, kept as it is now")
            .clicked()
        {
            self.actions
                .push(GraphAction::Inspect(StageCommand::TogglePin(id)));
            ui.close();
        }
        let isolated = self.marks.isolated.as_ref().is_some_and(|m| m.stage == id);
        let text = if isolated {
            "Release frozen inputs"
        } else {
            "Isolate with frozen inputs"
        };
        if ui
            .button(text)
            .on_hover_text(
                "The Viewport shows only this stage, re-run on every edit of its parameters or \
                 overrides against its inputs as they are now; upstream edits wait until release",
            )
            .clicked()
        {
            self.actions
                .push(GraphAction::Inspect(StageCommand::ToggleIsolate(id)));
            ui.close();
        }
    }
}
