//! The input pins of `subrecipe` and `subrecipe.output` nodes, which have no fixed ports.
//!
//! A `subrecipe` stage has one pin per entry of its `binds` (labelled with the bind name, typed
//! by the child's declared `Product("Kind")` input, read with
//! [`child_product_inputs`]), and one empty pin more when the child declares a product input no
//! bind names: wiring it appends the stage input and the bind name in one edit; disconnecting a
//! bound pin removes both. A `subrecipe.output` stage has one pin, which takes only a `subrecipe`
//! stage (the run it republishes).

use stagecraft_runtime::content::ProductKind;
use stagecraft_runtime::ops::registry::{PortKind, Registry};
use stagecraft_runtime::project::{ParamValue, Recipe, Stage, StageInput};
use stagecraft_runtime::recipe::subrecipe::{
    child_product_inputs, SUBRECIPE_OPERATOR, SUBRECIPE_OUTPUT_OPERATOR,
};
use stagecraft_runtime::recipe::ProjectDocs;

use super::interop::{as_source, depends_on, source_kind, GraphNode, LearnedKinds, Reject};

/// A `subrecipe` stage's input pins, learned from its child.
#[derive(Clone, Debug, PartialEq)]
pub struct SubrecipePins {
    /// Per entry of `binds`, in order: the bind name and the child's declared kind, or why it is
    /// not known.
    pub bound: Vec<(String, Result<ProductKind, String>)>,
    /// The child's product inputs that no bind names yet, in name order (the empty pin).
    pub free: Vec<(String, ProductKind)>,
}

impl SubrecipePins {
    /// Learns the pins of subrecipe stage `stage` from its child in `docs`.
    pub fn learn(docs: ProjectDocs<'_>, stage: &Stage) -> SubrecipePins {
        let binds = binds_of(stage);
        let child = child_product_inputs(docs, stage);
        let bound = binds
            .iter()
            .map(|name| {
                let kind = match &child {
                    Err(why) => Err(why.clone()),
                    Ok(inputs) => match inputs.iter().find(|(n, _)| n == name) {
                        Some((_, Some(kind))) => Ok(*kind),
                        Some((_, None)) => {
                            Err(format!("the child's input `{name}` names no product kind"))
                        }
                        None => Err(format!("the child declares no product input `{name}`")),
                    },
                };
                (name.clone(), kind)
            })
            .collect();
        let free = child
            .map(|inputs| {
                inputs
                    .into_iter()
                    .filter(|(name, _)| !binds.contains(name))
                    .filter_map(|(name, kind)| Some((name, kind?)))
                    .collect()
            })
            .unwrap_or_default();
        SubrecipePins { bound, free }
    }

    /// How many pins the node draws.
    pub fn count(&self) -> usize {
        self.bound.len() + usize::from(!self.free.is_empty())
    }
}

/// The names in stage `stage`'s `binds` parameter (an entry that is not a string reads `?`).
pub fn binds_of(stage: &Stage) -> Vec<String> {
    match stage.parameters.get("binds") {
        Some(ParamValue::List(items)) => items
            .iter()
            .map(|item| match item {
                ParamValue::Str(name) => name.clone(),
                _ => "?".to_owned(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `stage` has the pins of this module rather than its operator's ports.
pub fn is_subrecipe(stage: &Stage) -> bool {
    [SUBRECIPE_OPERATOR, SUBRECIPE_OUTPUT_OPERATOR].contains(&stage.operator.as_str())
}

/// The pins of a subrecipe or subrecipe.output stage and what each holds, and the inputs that
/// hold no pin (like `interop::bind_ports`); `None` for other stages.
pub fn ports(
    stage: &Stage,
    learned: &LearnedKinds,
) -> Option<(Vec<Option<StageInput>>, Vec<StageInput>)> {
    let pins = if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
        1
    } else if stage.operator == SUBRECIPE_OPERATOR {
        binds_of(stage).len()
    } else {
        return None;
    };
    let mut ports: Vec<Option<StageInput>> =
        (0..pins).map(|i| stage.inputs.get(i).cloned()).collect();
    if learned.pins(stage.id).is_some_and(|p| !p.free.is_empty()) {
        ports.push(None);
    }
    let unbound = stage.inputs.iter().skip(pins).cloned().collect();
    Some((ports, unbound))
}

/// `recipe` with `source` wired into pin `port` of subrecipe or subrecipe.output stage `index`.
pub fn connect(
    recipe: &Recipe,
    registry: &Registry,
    learned: &LearnedKinds,
    source: &GraphNode,
    index: usize,
    port: usize,
) -> Result<Recipe, Reject> {
    let stage = &recipe.stages[index];
    let input = as_source(source);
    let mut next = recipe.clone();
    if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
        refuse_non_run(recipe, source)?;
        if port != 0 {
            return Err(Reject::NoSuchPort(port));
        }
        refuse_cycle(recipe, source, stage.id)?;
        let inputs = &mut next.stages[index].inputs;
        match inputs.first_mut() {
            Some(first) => *first = input,
            None => inputs.push(input),
        }
        return Ok(next);
    }
    let pins = learned.pins(stage.id);
    let bound = binds_of(stage).len();
    let found = source_kind(recipe, registry, learned, &input);
    let why_source = match source {
        GraphNode::Stage(id) => learned.get(*id).and_then(|k| k.as_ref().err()).cloned(),
        GraphNode::Input(_) => None,
    };
    let mismatch = |expected: ProductKind| Reject::TypeMismatch {
        expected: expected.name(),
        found: found.map(PortKind::name),
        why: why_source.clone(),
    };
    if port < bound {
        let expected = match pins.and_then(|p| p.bound.get(port)).map(|(_, k)| k) {
            Some(Ok(kind)) => *kind,
            Some(Err(why)) => return Err(Reject::UntypedPin(why.clone())),
            None => return Err(Reject::UntypedPin("the child is not read yet".to_owned())),
        };
        if found != Some(PortKind::Product(expected)) {
            return Err(mismatch(expected));
        }
        refuse_cycle(recipe, source, stage.id)?;
        let inputs = &mut next.stages[index].inputs;
        if port < inputs.len() {
            inputs[port] = input;
        } else if port == inputs.len() {
            inputs.push(input);
        } else {
            return Err(Reject::NoSuchPort(port));
        }
        return Ok(next);
    }
    let free = pins.map_or(&[][..], |p| p.free.as_slice());
    if port != bound || free.is_empty() {
        return Err(Reject::NoSuchPort(port));
    }
    let Some((name, _)) = free
        .iter()
        .find(|(_, kind)| found == Some(PortKind::Product(*kind)))
    else {
        return Err(mismatch(free[0].1));
    };
    refuse_cycle(recipe, source, stage.id)?;
    if stage.inputs.len() < bound {
        return Err(Reject::NoSuchPort(port));
    }
    let target = &mut next.stages[index];
    target.inputs.insert(bound, input);
    let mut binds = binds_of(stage);
    binds.push(name.clone());
    set_binds(target, binds);
    Ok(next)
}

/// `recipe` with pin `port` of subrecipe or subrecipe.output stage `index` disconnected: for a
/// bound subrecipe pin, its stage input and its bind name both go.
pub fn disconnect(recipe: &Recipe, index: usize, port: usize) -> Result<Recipe, Reject> {
    let stage = &recipe.stages[index];
    let mut next = recipe.clone();
    let target = &mut next.stages[index];
    if stage.operator == SUBRECIPE_OUTPUT_OPERATOR {
        if port == 0 && !target.inputs.is_empty() {
            target.inputs.remove(0);
        }
        return Ok(next);
    }
    let mut binds = binds_of(stage);
    if port < binds.len() {
        binds.remove(port);
        set_binds(target, binds);
        if port < target.inputs.len() {
            target.inputs.remove(port);
        }
    }
    Ok(next)
}

fn set_binds(stage: &mut Stage, binds: Vec<String>) {
    stage.parameters.insert(
        "binds".to_owned(),
        ParamValue::List(binds.into_iter().map(ParamValue::Str).collect()),
    );
}

/// Refuses a source that is not a `subrecipe` stage (the only thing a subrecipe.output reads).
fn refuse_non_run(recipe: &Recipe, source: &GraphNode) -> Result<(), Reject> {
    let found = match source {
        GraphNode::Input(name) => format!("the recipe input `{name}`"),
        GraphNode::Stage(id) => match recipe.stages.iter().find(|s| s.id == *id) {
            Some(s) if s.operator == SUBRECIPE_OPERATOR => return Ok(()),
            Some(s) => format!("stage {id} ({})", s.operator),
            None => return Err(Reject::MissingStage(*id)),
        },
    };
    Err(Reject::NotASubrecipeRun(found))
}

fn refuse_cycle(recipe: &Recipe, source: &GraphNode, stage: u32) -> Result<(), Reject> {
    match source {
        GraphNode::Stage(from) if depends_on(recipe, *from, stage) => Err(Reject::Cycle),
        _ => Ok(()),
    }
}
