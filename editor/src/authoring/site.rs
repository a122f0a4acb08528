//! Where an override of a shown object points when the object comes from a subrecipe stage's
//! child run: the child-stage path below the root stage (`Override.nested`), and the product and
//! seed the child's stage drew it under (what its base revision is computed from).

use stagecraft_runtime::content::{NestedRun, Product};
use stagecraft_runtime::generate::nested::nested_seed;

use crate::session::PreviewContent;

/// The child runs root stage `stage` published its product from, outermost first, each with the
/// root seed it drew under (empty for a stage of the recipe itself).
fn runs_below(content: &PreviewContent, stage: u32) -> Vec<(&NestedRun, u64)> {
    let mut runs = Vec::new();
    let mut seed = content.seed();
    let mut next = content
        .stage(stage)
        .and_then(|r| r.provenance.nested.as_deref());
    while let Some(run) = next {
        seed = nested_seed(seed, &run.instance);
        runs.push((run, seed));
        next = run
            .stage(run.output)
            .and_then(|s| s.provenance.nested.as_deref());
    }
    runs
}

/// Where an object shown at root stage `stage` was emitted: the stage id an override names and
/// its nested path. `emitted` maps the innermost run's output stage to the stage that emitted
/// the object there (a placed object's placements stage).
pub(super) fn address(
    content: &PreviewContent,
    stage: u32,
    emitted: impl Fn(u32) -> u32,
) -> (u32, Vec<u32>) {
    let runs = runs_below(content, stage);
    let Some(((innermost, _), outer)) = runs.split_last() else {
        return (emitted(stage), Vec::new());
    };
    let mut nested: Vec<u32> = outer.iter().map(|(run, _)| run.output).collect();
    nested.push(emitted(innermost.output));
    (stage, nested)
}

/// The product and seed of the stage an override at `stage` with path `nested` names, and that
/// stage's id in its run.
pub(super) fn product_at<'c>(
    content: &'c PreviewContent,
    stage: u32,
    nested: &[u32],
) -> Option<(&'c Product, u64, u32)> {
    let Some(last) = nested.last() else {
        let record = content.stage(stage)?;
        return Some((record.product.as_ref(), content.seed(), stage));
    };
    let runs = runs_below(content, stage);
    let through = runs.iter().zip(nested).take(nested.len() - 1);
    if runs.len() != nested.len() || !through.clone().all(|((run, _), id)| run.output == *id) {
        return None;
    }
    let (run, seed) = runs.last()?;
    let found = run.stage(*last)?;
    Some((found.product.as_ref(), *seed, *last))
}
