//! What the Recipe graph shows of the Viewport's stage inspection: the stage serial stepping is
//! on (highlighted), the stages it has not reached (greyed), the locked, isolated stage and the
//! stage isolated with frozen inputs (with their digest and whether upstream changed since). The
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
    /// The stage isolated with frozen inputs.
    pub isolated: Option<IsolatedMark>,
}

/// How the graph marks the stage isolated with frozen inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IsolatedMark {
    /// The stage.
    pub stage: u32,
    /// `inputs frozen at <digest>`, with `upstream changed since freezing (stage N)` when so.
    pub note: String,
    /// Whether the live upstream differs from the frozen inputs.
    pub upstream_changed: bool,
    /// Why its newest re-run made no output, if so.
    pub problem: Option<String>,
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
        let isolated = inspect
            .isolated()
            .filter(|i| i.recipe() == content.recipe());
        let alone = isolated.map(|i| i.stage()).or(pinned.map(|p| p.stage));
        let beyond = match (alone, steps) {
            (Some(alone), _) => stages.iter().copied().filter(|s| *s != alone).collect(),
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
            isolated: isolated.map(|i| IsolatedMark {
                stage: i.stage(),
                note: i.note(Some(content)),
                upstream_changed: !i.upstream_changed(content).is_empty(),
                problem: i.problem.clone(),
            }),
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
