//! Recipe model ↔ egui-snarl graph: the one place that converts between them.
//!
//! The recipe document is the truth. [`build`] makes a snarl view of it (one node per recipe
//! input and per stage, wires replayed with the compiler's port binding) together with a two-way
//! [`IdMap`]; what the user does to the view comes back as a new [`Recipe`] value from
//! [`connect`], [`disconnect`], [`add_stage`] or [`remove_stage`], which the panel wraps in a
//! [`ProjectEdit`]. The snarl graph is never saved and never edited in place.

use std::collections::BTreeMap;

use egui_snarl::{InPinId, NodeId, OutPinId, Snarl};
use stagecraft_runtime::content::ProductKind;
use stagecraft_runtime::ops::registry::{OperatorDescriptor, PortKind, Registry};
use stagecraft_runtime::project::{Project, Recipe, Stage, StageInput};
use stagecraft_runtime::recipe::subrecipe::{published_output, SUBRECIPE_OPERATOR};
use stagecraft_runtime::recipe::ProjectDocs;

use super::subrecipe_pins::{self, is_subrecipe, SubrecipePins};

use crate::edits::{DocId, DocValue, ProjectEdit, Selection};

/// What a graph node stands for in the recipe.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GraphNode {
    /// A named recipe input (an asset family or a literal value).
    Input(String),
    /// A stage, by persistent id.
    Stage(u32),
}

impl GraphNode {
    /// The key this node's position is stored under in the editor layout.
    pub fn layout_key(&self) -> String {
        match self {
            GraphNode::Input(name) => format!("input:{name}"),
            GraphNode::Stage(id) => format!("stage:{id}"),
        }
    }
}

/// The two-way map between snarl node ids and recipe nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdMap {
    to_snarl: BTreeMap<GraphNode, NodeId>,
    to_recipe: BTreeMap<usize, GraphNode>,
}

impl IdMap {
    /// The snarl node showing `node`.
    pub fn snarl(&self, node: &GraphNode) -> Option<NodeId> {
        self.to_snarl.get(node).copied()
    }

    /// The recipe node snarl node `id` shows.
    pub fn recipe(&self, id: NodeId) -> Option<&GraphNode> {
        self.to_recipe.get(&id.0)
    }

    fn insert(&mut self, node: GraphNode, id: NodeId) {
        self.to_recipe.insert(id.0, node.clone());
        self.to_snarl.insert(node, id);
    }
}

/// A snarl view of one recipe and its id map.
pub struct GraphView {
    /// The view.
    pub snarl: Snarl<GraphNode>,
    /// Snarl ids ↔ recipe nodes.
    pub ids: IdMap,
    /// Where each node was placed when the view was built.
    pub placed: BTreeMap<GraphNode, [f32; 2]>,
    /// The nodes placed automatically (no stored position), with their depth column.
    pub auto_columns: BTreeMap<GraphNode, usize>,
}

/// Why a graph change was refused (the recipe is left as it was).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reject {
    /// The target stage is not in the recipe.
    MissingStage(u32),
    /// The target stage's operator is not registered, so its ports are unknown.
    UnknownOperator(String),
    /// The port index is past the operator's ports.
    NoSuchPort(usize),
    /// The source's type does not match the port's.
    TypeMismatch {
        /// What the port accepts.
        expected: &'static str,
        /// What the source carries (`None`: unknown, e.g. a literal value or a broken stage).
        found: Option<&'static str>,
        /// Why a subrecipe stage's product is not known (its child does not compile, …).
        why: Option<String>,
    },
    /// The wire would make the stage depend on itself.
    Cycle,
    /// A subrecipe pin whose kind is not known (its child cannot be read, …): why.
    UntypedPin(String),
    /// A `subrecipe.output` stage reads only a `subrecipe` stage; what was offered instead.
    NotASubrecipeRun(String),
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reject::MissingStage(id) => write!(f, "stage {id} is not in the recipe"),
            Reject::UnknownOperator(op) => write!(f, "operator `{op}` is not registered"),
            Reject::NoSuchPort(port) => write!(f, "the stage has no input port {port}"),
            Reject::TypeMismatch {
                expected,
                found,
                why,
            } => {
                write!(
                    f,
                    "the port takes a {expected}, not a {}",
                    found.unwrap_or("value of unknown type")
                )?;
                match why {
                    Some(why) => write!(f, " ({why})"),
                    None => Ok(()),
                }
            }
            Reject::Cycle => f.write_str("the wire would make a cycle"),
            Reject::UntypedPin(why) => write!(f, "the pin's kind is not known ({why})"),
            Reject::NotASubrecipeRun(found) => write!(
                f,
                "the port takes a subrecipe stage (the run it republishes), not {found}"
            ),
        }
    }
}

/// The operator of `stage`, if registered.
pub fn operator_of<'r>(registry: &'r Registry, stage: &Stage) -> Option<&'r OperatorDescriptor> {
    registry.get(&stage.operator, stage.algorithm)
}

/// What the recipe's stages without a fixed output kind (`subrecipe` and `subrecipe.output`
/// stages) publish, learned
/// from their compiled children ([`published_output`]), or why it is not known (the child does
/// not compile, `recipe` is unset, …). Learned once per document revision by the panel.
/// Also the input pins of each `subrecipe` stage ([`SubrecipePins`]), learned from its child.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LearnedKinds {
    outputs: BTreeMap<u32, Result<ProductKind, String>>,
    pins: BTreeMap<u32, SubrecipePins>,
}

impl LearnedKinds {
    /// Nothing learned.
    pub const NONE: LearnedKinds = LearnedKinds {
        outputs: BTreeMap::new(),
        pins: BTreeMap::new(),
    };

    /// Learns what each subrecipe stage of `recipe` (a recipe of `project`) publishes.
    pub fn learn(project: &Project, recipe: &Recipe, registry: &Registry) -> LearnedKinds {
        let docs = ProjectDocs {
            families: &project.families,
            libraries: &project.chunk_libraries,
            recipes: Some(&project.recipes),
            trees: None,
        };
        let subrecipes = || recipe.stages.iter().filter(|s| is_subrecipe(s));
        LearnedKinds {
            outputs: subrecipes()
                .map(|stage| {
                    let learned = published_output(recipe, docs, registry, stage.id);
                    (stage.id, learned)
                })
                .collect(),
            pins: subrecipes()
                .filter(|stage| stage.operator == SUBRECIPE_OPERATOR)
                .map(|stage| (stage.id, SubrecipePins::learn(docs, stage)))
                .collect(),
        }
    }

    /// The input pins of subrecipe stage `stage`, if learned.
    pub fn pins(&self, stage: u32) -> Option<&SubrecipePins> {
        self.pins.get(&stage)
    }

    /// What subrecipe stage `stage` publishes, or why that is not known; `None` for a stage
    /// whose operator says what it publishes.
    pub fn get(&self, stage: u32) -> Option<&Result<ProductKind, String>> {
        self.outputs.get(&stage)
    }
}

/// What a source node carries, if known: the compiler's own answer, and for a subrecipe stage
/// the kind learned from its compiled child.
pub fn source_kind(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    source: &StageInput,
) -> Option<PortKind> {
    if let StageInput::Stage(id) = source {
        if let Some(kind) = learned.get(*id) {
            return kind.as_ref().ok().copied().map(PortKind::Product);
        }
    }
    stagecraft_runtime::recipe::source_kind(recipe, registry, source)
}

/// Binds `stage`'s inputs to its operator's ports with the compiler's binding
/// ([`stagecraft_runtime::recipe::bind_ports`]): one slot per port, and the inputs that bound
/// nowhere.
pub fn bind_ports(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    stage: &Stage,
) -> (Vec<Option<StageInput>>, Vec<StageInput>) {
    if let Some(ports) = subrecipe_pins::ports(stage, learned) {
        return ports;
    }
    let Some(op) = operator_of(registry, stage) else {
        return (Vec::new(), stage.inputs.clone());
    };
    let kinds: Vec<Option<PortKind>> = stage
        .inputs
        .iter()
        .map(|input| source_kind(recipe, registry, learned, input))
        .collect();
    let mut ports: Vec<Option<StageInput>> = vec![None; op.inputs.len()];
    let mut unbound = Vec::new();
    for (input, port) in stage
        .inputs
        .iter()
        .zip(stagecraft_runtime::recipe::bind_ports(op.inputs, &kinds))
    {
        match port.and_then(|i| ports.get_mut(i)) {
            Some(slot) => *slot = Some(input.clone()),
            None => unbound.push(input.clone()),
        }
    }
    (ports, unbound)
}

/// Graph units between the left edges of two columns of automatically placed nodes.
const COLUMN_SPACING: f32 = 240.0;
/// Graph units between the tops of two rows of automatically placed nodes.
const ROW_SPACING: f32 = 150.0;

/// Each stage's column: 0 for a stage that reads no stage, else one more than the deepest stage
/// it reads (wires that name a missing stage or form a cycle count as nothing).
fn stage_depths(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
) -> BTreeMap<u32, usize> {
    let mut depths: BTreeMap<u32, usize> = BTreeMap::new();
    // At most one pass per stage settles every acyclic chain, whatever the file order.
    for _ in 0..recipe.stages.len().max(1) {
        let mut changed = false;
        for stage in &recipe.stages {
            let (ports, extra) = bind_ports(recipe, registry, learned, stage);
            let depth = ports
                .iter()
                .flatten()
                .chain(&extra)
                .filter_map(|input| match input {
                    StageInput::Stage(id) if *id != stage.id => depths.get(id).map(|d| d + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
                .min(recipe.stages.len());
            if depths.get(&stage.id) != Some(&depth) {
                depths.insert(stage.id, depth);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    depths
}

/// Builds the snarl view of `recipe`, placing nodes at `positions` (by [`GraphNode::layout_key`])
/// or, where absent, in columns by stage order.
pub fn build(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    positions: &BTreeMap<String, [f32; 2]>,
) -> GraphView {
    let mut snarl = Snarl::new();
    let mut ids = IdMap::default();
    let mut placed = BTreeMap::new();
    let mut auto_columns = BTreeMap::new();
    let mut place = |node: GraphNode, column: usize, row: usize| {
        let pos = match positions.get(&node.layout_key()) {
            Some(pos) => *pos,
            None => {
                auto_columns.insert(node.clone(), column);
                [column as f32 * COLUMN_SPACING, row as f32 * ROW_SPACING]
            }
        };
        let id = snarl.insert_node(egui::pos2(pos[0], pos[1]), node.clone());
        placed.insert(node.clone(), pos);
        ids.insert(node, id);
    };
    // Nodes without a stored position go in columns by depth (inputs and stages that read no
    // stage first, each stage one column right of the deepest stage it reads), so a chain is
    // as compact as its longest path and the whole graph fits the tab at a readable zoom.
    let depths = stage_depths(recipe, registry, learned);
    let mut rows_used: BTreeMap<usize, usize> = BTreeMap::new();
    let mut next_row = |column: usize| {
        let row = rows_used.entry(column).or_insert(0);
        *row += 1;
        *row - 1
    };
    for name in recipe.inputs.keys() {
        let row = next_row(0);
        place(GraphNode::Input(name.clone()), 0, row);
    }
    for stage in &recipe.stages {
        let column = depths.get(&stage.id).copied().unwrap_or(0);
        let row = next_row(column);
        place(GraphNode::Stage(stage.id), column, row);
    }
    for stage in &recipe.stages {
        let Some(to) = ids.snarl(&GraphNode::Stage(stage.id)) else {
            continue;
        };
        let (ports, _) = bind_ports(recipe, registry, learned, stage);
        for (port, source) in ports.iter().enumerate() {
            let Some(source) = source else { continue };
            let from = match source {
                StageInput::Named(name) => ids.snarl(&GraphNode::Input(name.clone())),
                StageInput::Stage(id) => ids.snarl(&GraphNode::Stage(*id)),
            };
            if let Some(from) = from {
                snarl.connect(
                    OutPinId {
                        node: from,
                        output: 0,
                    },
                    InPinId {
                        node: to,
                        input: port,
                    },
                );
            }
        }
    }
    GraphView {
        snarl,
        ids,
        placed,
        auto_columns,
    }
}

/// Gap between two columns of automatically placed nodes once their widths are known.
const COLUMN_GAP: f32 = 48.0;

/// Moves the automatically placed nodes' columns next to each other, each as wide as its widest
/// node (`rects`: each node's rect as last drawn, graph coordinates) plus a gap, so the graph is
/// no wider than it needs to be. Nodes with a stored position stay where they are. Returns true
/// when a node moved.
pub fn pack_columns(view: &mut GraphView, rects: &[(GraphNode, egui::Rect)]) -> bool {
    let mut widths: BTreeMap<usize, f32> = BTreeMap::new();
    for (node, rect) in rects {
        if let Some(column) = view.auto_columns.get(node) {
            let width = widths.entry(*column).or_insert(0.0);
            *width = width.max(rect.width());
        }
    }
    let mut lefts: BTreeMap<usize, f32> = BTreeMap::new();
    let mut x = 0.0;
    for (column, width) in &widths {
        lefts.insert(*column, x);
        x += width + COLUMN_GAP;
    }
    let mut moved = false;
    for (node, column) in &view.auto_columns {
        let (Some(left), Some(id)) = (lefts.get(column), view.ids.snarl(node)) else {
            continue;
        };
        let Some(info) = view.snarl.get_node_info_mut(id) else {
            continue;
        };
        if (info.pos.x - left).abs() > 0.5 {
            info.pos.x = *left;
            moved = true;
        }
        // Not a move by the user: nothing goes into the layout file for it.
        view.placed.insert(node.clone(), [info.pos.x, info.pos.y]);
    }
    moved
}

/// The source a graph node feeds into a stage.
pub fn as_source(node: &GraphNode) -> StageInput {
    match node {
        GraphNode::Input(name) => StageInput::Named(name.clone()),
        GraphNode::Stage(id) => StageInput::Stage(*id),
    }
}

/// Whether stage `from` (transitively) reads stage `target`.
pub(super) fn depends_on(recipe: &Recipe, from: u32, target: u32) -> bool {
    let mut stack = vec![from];
    let mut seen = Vec::new();
    while let Some(id) = stack.pop() {
        if id == target {
            return true;
        }
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        if let Some(stage) = recipe.stages.iter().find(|s| s.id == id) {
            stack.extend(stage.inputs.iter().filter_map(|input| match input {
                StageInput::Stage(dep) => Some(*dep),
                StageInput::Named(_) => None,
            }));
        }
    }
    false
}

/// Rewrites a stage's inputs in port order, keeping inputs that bound nowhere at the end (so
/// nothing the author wrote is lost; the diagnostics report them).
fn set_ports(stage: &mut Stage, ports: Vec<Option<StageInput>>, unbound: Vec<StageInput>) {
    stage.inputs = ports.into_iter().flatten().chain(unbound).collect();
}

/// The position of stage `stage` in `recipe`.
fn stage_index(recipe: &Recipe, stage: u32) -> Result<usize, Reject> {
    recipe
        .stages
        .iter()
        .position(|s| s.id == stage)
        .ok_or(Reject::MissingStage(stage))
}

/// `recipe` with `source` wired into input `port` of stage `stage` (replacing what was there).
pub fn connect(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    source: &GraphNode,
    stage: u32,
    port: usize,
) -> Result<Recipe, Reject> {
    let index = stage_index(recipe, stage)?;
    let target = &recipe.stages[index];
    if is_subrecipe(target) {
        return subrecipe_pins::connect(recipe, registry, learned, source, index, port);
    }
    let op = operator_of(registry, target)
        .ok_or_else(|| Reject::UnknownOperator(target.operator.clone()))?;
    let expected = op.inputs.get(port).ok_or(Reject::NoSuchPort(port))?.kind;
    let input = as_source(source);
    let found = source_kind(recipe, registry, learned, &input);
    if found != Some(expected) {
        let why = match source {
            GraphNode::Stage(id) => learned.get(*id).and_then(|k| k.as_ref().err()).cloned(),
            GraphNode::Input(_) => None,
        };
        return Err(Reject::TypeMismatch {
            expected: expected.name(),
            found: found.map(PortKind::name),
            why,
        });
    }
    if let GraphNode::Stage(from) = source {
        if depends_on(recipe, *from, stage) {
            return Err(Reject::Cycle);
        }
    }
    let (mut ports, unbound) = bind_ports(recipe, registry, learned, target);
    ports[port] = Some(input);
    let mut next = recipe.clone();
    set_ports(&mut next.stages[index], ports, unbound);
    Ok(next)
}

/// `recipe` with input `port` of stage `stage` disconnected.
pub fn disconnect(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    stage: u32,
    port: usize,
) -> Result<Recipe, Reject> {
    let index = stage_index(recipe, stage)?;
    let target = &recipe.stages[index];
    if is_subrecipe(target) {
        return subrecipe_pins::disconnect(recipe, index, port);
    }
    let (mut ports, unbound) = bind_ports(recipe, registry, learned, target);
    let slot = ports.get_mut(port).ok_or(Reject::NoSuchPort(port))?;
    *slot = None;
    let mut next = recipe.clone();
    set_ports(&mut next.stages[index], ports, unbound);
    Ok(next)
}

/// `recipe` with a new stage of operator `op` (parameters at their schema defaults, id one past
/// the largest) appended; returns the new recipe and the new stage's id.
pub fn add_stage(recipe: &Recipe, op: &OperatorDescriptor) -> (Recipe, u32) {
    let id = recipe
        .stages
        .iter()
        .map(|s| s.id)
        .max()
        .map_or(1, |m| m + 1);
    let mut next = recipe.clone();
    next.stages.push(new_stage(id, op));
    (next, id)
}

/// A stage `id` of operator `op`: labelled with the operator's summary, no inputs, parameters
/// at their schema defaults. The graph's palette and the Inspector's "+ Add stage" both make it.
pub fn new_stage(id: u32, op: &OperatorDescriptor) -> Stage {
    Stage {
        id,
        label: op.summary.to_owned(),
        operator: op.id.to_owned(),
        algorithm: op.algorithm,
        inputs: Vec::new(),
        parameters: crate::panels::inspector::operator_pick::default_parameters(op),
    }
}

/// `recipe` without stage `stage`, its wires and its place among the outputs.
pub fn remove_stage(recipe: &Recipe, stage: u32) -> Result<Recipe, Reject> {
    if !recipe.stages.iter().any(|s| s.id == stage) {
        return Err(Reject::MissingStage(stage));
    }
    let mut next = recipe.clone();
    next.stages.retain(|s| s.id != stage);
    for other in &mut next.stages {
        other
            .inputs
            .retain(|input| *input != StageInput::Stage(stage));
    }
    next.outputs.retain(|id| *id != stage);
    Ok(next)
}

/// `recipe` with stage `stage` published (appended to the outputs) or, if it was, no longer.
pub fn toggle_output(recipe: &Recipe, stage: u32) -> Result<Recipe, Reject> {
    if !recipe.stages.iter().any(|s| s.id == stage) {
        return Err(Reject::MissingStage(stage));
    }
    let mut next = recipe.clone();
    if next.outputs.contains(&stage) {
        next.outputs.retain(|id| *id != stage);
    } else {
        next.outputs.push(stage);
    }
    Ok(next)
}

/// The edit that replaces recipe document `recipe_id` by `next`, selecting `selection`.
pub fn recipe_edit(
    recipe_id: &str,
    next: Recipe,
    selection: Selection,
    label: impl Into<String>,
) -> ProjectEdit {
    let doc = DocId::Recipe(recipe_id.to_owned());
    ProjectEdit::replace(doc, Some(DocValue::Recipe(next)), selection, label)
}

#[cfg(test)]
#[path = "interop_tests.rs"]
mod tests;
