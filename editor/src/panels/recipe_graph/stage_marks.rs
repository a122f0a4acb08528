//! What the Recipe graph shows of the Viewport's stage inspection: the stage serial stepping is
//! on (highlighted), the stages it has not reached (greyed) and the locked, isolated stage. The
//! app hands them over each frame; the graph's node menu sends [`StageCommand`]s back.
//!
//! [`StageCommand`]: crate::command::StageCommand

use crate::viewport::Preview;

/// The inspection marks of the graph's nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageMarks {
    /// The recipe the marks are about.
    pub recipe: Option<String>,
    /// The stage the stepping cursor is on, with its place (1-based) and the stage count.
    pub stepped: Option<(u32, usize, usize)>,
    /// Stages the Viewport does not draw: after the cursor while stepping, every other stage
    /// while one is locked and isolated (greyed in the graph).
    pub beyond: Vec<u32>,
    /// The locked, isolated stage, and whether its product has been regenerated since.
    pub pinned: Option<(u32, bool)>,
}

impl StageMarks {
    /// The marks of `preview`'s inspection over its content.
    pub fn of(preview: &Preview) -> StageMarks {
        let Some(content) = preview.session.content() else {
            return StageMarks::default();
        };
        let inspect = &preview.inspect;
        let stages: Vec<u32> = content.stages().iter().map(|s| s.stage).collect();
        let steps = inspect.shown_steps(content);
        let pinned = inspect.pinned().filter(|p| p.recipe == content.recipe());
        let beyond = match (pinned, steps) {
            (Some(p), _) => stages.iter().copied().filter(|s| *s != p.stage).collect(),
            (None, Some(k)) => stages.get(k..).unwrap_or(&[]).to_vec(),
            (None, None) => Vec::new(),
        };
        StageMarks {
            recipe: Some(content.recipe().to_owned()),
            stepped: steps
                .zip(inspect.stepped_stage(content))
                .map(|(k, stage)| (stage, k, stages.len())),
            beyond,
            pinned: pinned.map(|p| (p.stage, inspect.pin_is_stale(content))),
        }
    }

    /// The marks for the graph of recipe `recipe` (none for another recipe).
    pub fn for_recipe(&self, recipe: &str) -> StageMarks {
        if self.recipe.as_deref() == Some(recipe) {
            self.clone()
        } else {
            StageMarks::default()
        }
    }
}
