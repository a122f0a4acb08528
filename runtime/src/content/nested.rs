//! The provenance of a subrecipe stage's run: the child's instance, the path of recipes from the
//! root, and every stage the child ran (product and provenance), so an object's parent chain and
//! recipe path resolve inside the child (`generate::nested`).

use std::sync::Arc;

use super::{Product, StageProvenance};

/// What a subrecipe stage's child run left behind, beside the product it published.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedRun {
    /// The child's instance id, nested in its user's: `<parent instance>/<stage id>:<child id>`.
    pub instance: String,
    /// The recipe ids from the root recipe down to the child.
    pub recipes: Vec<String>,
    /// The child's stage whose product the subrecipe stage publishes.
    pub output: u32,
    /// Every stage the child ran, in its plan order.
    pub stages: Vec<NestedStage>,
    /// The products its user bound to its inputs: the stage id the child's kernels saw for each
    /// (`recipe::subrecipe::input_stage_id`) and the user's stage that made it.
    pub inputs: Vec<NestedInput>,
}

/// One product a child run was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NestedInput {
    /// The stage id the child's kernels saw (a parent reference names it).
    pub stage: u32,
    /// The user's stage that made the product.
    pub outer_stage: u32,
}

/// One stage of a child run.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedStage {
    /// The child's stage id.
    pub stage: u32,
    /// Its product.
    pub product: Arc<Product>,
    /// Its provenance.
    pub provenance: Arc<StageProvenance>,
}

impl NestedRun {
    /// The child's stage `id`, if it ran.
    pub fn stage(&self, id: u32) -> Option<&NestedStage> {
        self.stages.iter().find(|s| s.stage == id)
    }

    /// The innermost run its output comes from (itself unless the output is a subrecipe stage
    /// too): whose `recipes` is the published objects' path of recipes.
    pub fn innermost(&self) -> &NestedRun {
        match self
            .stage(self.output)
            .and_then(|s| s.provenance.nested.as_deref())
        {
            Some(inner) => inner.innermost(),
            None => self,
        }
    }
}
