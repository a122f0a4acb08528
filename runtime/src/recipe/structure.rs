//! The structural rules of a recipe, checked once, here: address schema, stage and edge limits,
//! unique stage ids, inputs that name existing recipe inputs and stages, recipe inputs that name
//! existing families, outputs, cycles — and the warnings for products and inputs nothing reads.
//! Nothing here needs an operator; [`super::compile`] resolves operators only on a recipe that
//! passed these rules.

use std::collections::{BTreeMap, BTreeSet};

use super::limits::{MAX_EDGES, MAX_STAGES, SUPPORTED_ADDRESS_SCHEMAS};
use super::report::{stage_path, Reporter};
use crate::project::{AssetFamily, FieldPath, Recipe, RecipeInput, StageInput};

/// Checks every structural rule, reporting each problem. Returns whether the recipe can be
/// resolved further (no structural error).
pub(super) fn check_structure(
    recipe: &Recipe,
    families: &BTreeMap<String, AssetFamily>,
    r: &mut Reporter<'_>,
) -> bool {
    if !SUPPORTED_ADDRESS_SCHEMAS.contains(&recipe.address_schema) {
        r.error(
            FieldPath::root().field("address_schema"),
            format!("address schema {} is not supported", recipe.address_schema),
            "address schema 1",
        );
    }
    let stages_path = FieldPath::root().field("stages");
    if recipe.stages.len() > MAX_STAGES {
        r.error(
            stages_path.clone(),
            format!(
                "recipe has {} stages, over the limit of {MAX_STAGES}",
                recipe.stages.len()
            ),
            format!("at most {MAX_STAGES} stages"),
        );
    }
    let edges: usize = recipe.stages.iter().map(|s| s.inputs.len()).sum();
    if edges > MAX_EDGES {
        r.error(
            stages_path,
            format!("recipe has {edges} edges, over the limit of {MAX_EDGES}"),
            format!("at most {MAX_EDGES} stage inputs in all"),
        );
    }
    let mut ids: BTreeSet<u32> = BTreeSet::new();
    let mut unique = true;
    for (index, stage) in recipe.stages.iter().enumerate() {
        if !ids.insert(stage.id) {
            unique = false;
            r.error(
                stage_path(index).field("id"),
                format!("duplicate stage id {}", stage.id),
                "each stage id at most once",
            );
        }
    }
    check_references(recipe, &ids, r);
    check_families(recipe, families, r);
    super::subrecipe::check_product_inputs(recipe, r);
    check_outputs(recipe, &ids, r);
    // With duplicate ids the graph is ambiguous; the duplicate is reported instead of a cycle.
    if unique {
        check_cycle(recipe, r);
    }
    warn_unused(recipe, r);
    !r.has_errors()
}

/// The outputs and every stage they read, directly or not (by id, whatever the graph's shape).
fn live_stages(recipe: &Recipe) -> BTreeSet<u32> {
    let mut live: BTreeSet<u32> = BTreeSet::new();
    let mut pending: Vec<u32> = recipe.outputs.clone();
    while let Some(id) = pending.pop() {
        if !live.insert(id) {
            continue;
        }
        for stage in recipe.stages.iter().filter(|s| s.id == id) {
            pending.extend(stage.inputs.iter().filter_map(|input| match input {
                StageInput::Stage(read) => Some(*read),
                StageInput::Named(_) => None,
            }));
        }
    }
    live
}

fn check_references(recipe: &Recipe, ids: &BTreeSet<u32>, r: &mut Reporter<'_>) {
    for (index, stage) in recipe.stages.iter().enumerate() {
        for (slot, input) in stage.inputs.iter().enumerate() {
            let path = stage_path(index).field("inputs").index(slot);
            match input {
                StageInput::Named(name) if !recipe.inputs.contains_key(name) => r.error(
                    path,
                    format!("stage {} reads the missing input `{name}`", stage.id),
                    "the name of one of the recipe's `inputs`",
                ),
                StageInput::Stage(id) if !ids.contains(id) => r.error(
                    path,
                    format!("stage {} reads the missing stage {id}", stage.id),
                    "the id of another stage of the recipe",
                ),
                _ => {}
            }
        }
    }
}

fn check_families(recipe: &Recipe, families: &BTreeMap<String, AssetFamily>, r: &mut Reporter<'_>) {
    for (name, input) in &recipe.inputs {
        if let RecipeInput::Family(family) = input {
            if !families.contains_key(family) {
                r.error(
                    FieldPath::root().field("inputs").key(name),
                    format!("input `{name}` names the missing asset family `{family}`"),
                    "the id of an asset family in the manifest's asset paths",
                );
            }
        }
    }
}

fn check_outputs(recipe: &Recipe, ids: &BTreeSet<u32>, r: &mut Reporter<'_>) {
    let outputs_path = FieldPath::root().field("outputs");
    if recipe.outputs.is_empty() {
        r.error(
            outputs_path.clone(),
            "recipe publishes no output".to_owned(),
            "at least one stage id in `outputs`",
        );
    }
    let mut seen = BTreeSet::new();
    for (index, output) in recipe.outputs.iter().enumerate() {
        let path = outputs_path.index(index);
        if !ids.contains(output) {
            r.error(
                path,
                format!("output names the missing stage {output}"),
                "the id of a stage of the recipe",
            );
        } else if !seen.insert(*output) {
            r.error(
                path,
                format!("duplicate output {output}"),
                "each output at most once",
            );
        }
    }
}

fn check_cycle(recipe: &Recipe, r: &mut Reporter<'_>) {
    let Some(cycle) = find_cycle(recipe) else {
        return;
    };
    let first = cycle.first().copied().unwrap_or(0);
    let index = recipe
        .stages
        .iter()
        .position(|stage| stage.id == first)
        .unwrap_or(0);
    let chain: Vec<String> = cycle
        .iter()
        .chain(cycle.first())
        .map(u32::to_string)
        .collect();
    r.error(
        stage_path(index).field("inputs"),
        format!("stage graph has a cycle: {}", chain.join(" → ")),
        "stages that read only stages before them in the graph (no cycles)",
    );
}

/// A cycle of stage ids, if the stage graph has one (the cycle through the smallest id found),
/// written in reading order: each stage is read by the next one.
pub fn find_cycle(recipe: &Recipe) -> Option<Vec<u32>> {
    let reads: BTreeMap<u32, Vec<u32>> = recipe
        .stages
        .iter()
        .map(|stage| {
            let deps = stage
                .inputs
                .iter()
                .filter_map(|input| match input {
                    StageInput::Stage(id) => Some(*id),
                    StageInput::Named(_) => None,
                })
                .collect();
            (stage.id, deps)
        })
        .collect();
    // Iterative depth-first search with colours; deterministic because ids are visited in order.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour: BTreeMap<u32, Colour> = reads.keys().map(|id| (*id, Colour::White)).collect();
    for &start in reads.keys() {
        if colour.get(&start) != Some(&Colour::White) {
            continue;
        }
        let mut stack: Vec<(u32, usize)> = vec![(start, 0)];
        colour.insert(start, Colour::Grey);
        while let Some((node, next)) = stack.last_mut() {
            let deps = reads.get(node).map(Vec::as_slice).unwrap_or(&[]);
            if *next < deps.len() {
                let dep = deps[*next];
                *next += 1;
                match colour.get(&dep) {
                    Some(Colour::White) => {
                        colour.insert(dep, Colour::Grey);
                        stack.push((dep, 0));
                    }
                    Some(Colour::Grey) => {
                        let position = stack.iter().position(|(id, _)| *id == dep).unwrap_or(0);
                        let mut cycle: Vec<u32> =
                            stack[position..].iter().map(|(id, _)| *id).collect();
                        cycle.reverse();
                        let smallest = cycle
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, id)| **id)
                            .map(|(i, _)| i)
                            .unwrap_or(0);
                        cycle.rotate_left(smallest);
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                colour.insert(*node, Colour::Black);
                stack.pop();
            }
        }
    }
    None
}

/// Warns about every stage whose product reaches no output, directly or through other stages
/// (input liveness: the compiled plan leaves such stages out, so they are never run), and every
/// recipe input no stage reads.
fn warn_unused(recipe: &Recipe, r: &mut Reporter<'_>) {
    let live = live_stages(recipe);
    for (index, stage) in recipe.stages.iter().enumerate() {
        if !live.contains(&stage.id) {
            r.warning(
                stage_path(index).field("id"),
                format!(
                    "the product of stage {} is not used (it reaches no output), so the stage is not run",
                    stage.id
                ),
                "a stage that is an output or read by a stage leading to one",
            );
        }
    }
    let named: BTreeSet<&str> = recipe
        .stages
        .iter()
        .flat_map(|s| &s.inputs)
        .filter_map(|input| match input {
            StageInput::Named(name) => Some(name.as_str()),
            StageInput::Stage(_) => None,
        })
        .collect();
    for name in recipe.inputs.keys() {
        if !named.contains(name.as_str()) {
            r.warning(
                FieldPath::root().field("inputs").key(name),
                format!("input `{name}` is not read by any stage"),
                "every input to be read by a stage",
            );
        }
    }
}
