//! The candidate bases of subrecipe child runs, for rebasing an edit with a `nested` path: each
//! scatter stage of a child run that edits named in the new generation is recorded with the root
//! stage and the path of child stage ids that reach it, so keeping, re-targeting or filling a
//! migrated lock of a nested edit reads the child run's own base (its seed, lattice and family)
//! exactly as a root edit reads its stage's.

use super::StageBase;
use crate::content::NestedRun;
use crate::generate::GeneratedBundle;

/// The base of one scatter stage of a child run.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedStageBase {
    /// The root recipe's subrecipe stage.
    pub stage: u32,
    /// The child stage ids from that stage down to the scatter stage (the edits' `nested`).
    pub nested: Vec<u32>,
    /// The instance of the child run the scatter stage ran in (`<recipe>/10:<child>`).
    pub instance: String,
    /// Its base (its `stage` is the child's stage id, its `seed` the child run's seed).
    pub base: StageBase,
}

/// Every child-run stage base of `bundle`, root stages in plan order, each run's stages in its
/// plan order, depth first.
pub fn nested_bases(bundle: &GeneratedBundle) -> Vec<NestedStageBase> {
    let mut found = Vec::new();
    for record in &bundle.stages {
        if let Some(run) = record.provenance.nested.as_deref() {
            collect(run, record.stage, &mut Vec::new(), &mut found);
        }
    }
    found
}

fn collect(run: &NestedRun, stage: u32, path: &mut Vec<u32>, found: &mut Vec<NestedStageBase>) {
    for child in &run.stages {
        path.push(child.stage);
        if let Some(base) = &child.provenance.edit_base {
            found.push(NestedStageBase {
                stage,
                nested: path.clone(),
                instance: run.instance.clone(),
                base: base.clone(),
            });
        }
        if let Some(inner) = child.provenance.nested.as_deref() {
            collect(inner, stage, path, found);
        }
        path.pop();
    }
}

/// `stage` and its `nested` path as people read them: `10`, or `10 › 1` for child stage 1.
pub fn stage_path_text(stage: u32, nested: &[u32]) -> String {
    std::iter::once(stage)
        .chain(nested.iter().copied())
        .map(|id| id.to_string())
        .collect::<Vec<_>>()
        .join(" › ")
}
