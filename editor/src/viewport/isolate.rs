//! Lock-and-isolate of a stage's inputs in the Viewport: the products feeding one stage frozen
//! as they were ([`FrozenInputs`]), and that stage's output re-run against them drawn alone.
//!
//! Freezing is view state: the generation service re-runs the stage against the frozen inputs
//! after every generation of its recipe ([`crate::service::GenerationService::isolate`]), so the
//! stage's own parameter and override edits — ordinary, undoable document edits — show at once,
//! while upstream edits do not reach it until it is released. At freezing the output is the live
//! one (the inputs are the live products, so the re-run equals it). The note says when the live
//! upstream differs from the frozen inputs.

use std::sync::Arc;

use stagecraft_runtime::generate::{FrozenInputs, GeneratedBundle};

use crate::service::IsolatedRun;
use crate::session::PreviewContent;

/// A stage isolated with frozen inputs, and its newest re-run.
#[derive(Clone, Debug, PartialEq)]
pub struct Isolation {
    /// The frozen inputs (naming the recipe and the stage).
    pub frozen: Arc<FrozenInputs>,
    /// The newest output of the stage re-run alone (its bundle holds that stage only).
    pub output: Arc<GeneratedBundle>,
    /// Why the newest re-run made no output (a rewired stage, a failing kernel); the last
    /// output stays drawn meanwhile.
    pub problem: Option<String>,
}

impl Isolation {
    /// Freezes the inputs of stage `stage` of `content` as they are now; `None` when the content
    /// lacks the stage.
    pub fn freeze(content: &PreviewContent, stage: u32) -> Option<Isolation> {
        let frozen = FrozenInputs::freeze(&content.bundle, stage)?;
        let output = content.bundle.isolated(stage)?;
        Some(Isolation {
            frozen: Arc::new(frozen),
            output: Arc::new(output),
            problem: None,
        })
    }

    /// The isolated stage.
    pub fn stage(&self) -> u32 {
        self.frozen.stage()
    }

    /// The recipe of the isolated stage.
    pub fn recipe(&self) -> &str {
        self.frozen.recipe()
    }

    /// Takes `run` when it answers these frozen inputs; true when what is drawn or said changed.
    pub fn take(&mut self, run: &IsolatedRun) -> bool {
        if run.stage != self.stage() || run.frozen != self.frozen.digest() {
            return false;
        }
        match &run.result {
            Ok(bundle) => {
                let same = Arc::ptr_eq(bundle, &self.output) || **bundle == *self.output;
                let changed = !same || self.problem.is_some();
                if !same {
                    self.output = Arc::clone(bundle);
                }
                self.problem = None;
                changed
            }
            Err(error) => {
                let problem = error
                    .failures
                    .first()
                    .map_or_else(|| error.to_string(), std::string::ToString::to_string);
                let changed = self.problem.as_deref() != Some(problem.as_str());
                self.problem = Some(problem);
                changed
            }
        }
    }

    /// The frozen upstream stages whose live product in `content` now differs.
    pub fn upstream_changed(&self, content: &PreviewContent) -> Vec<u32> {
        if content.recipe() != self.recipe() {
            return Vec::new();
        }
        self.frozen.changed_upstream(&content.bundle)
    }

    /// What the inspector says of it: `inputs frozen at <8 hex digits>`, and when the live
    /// upstream of `content` differs, `upstream changed since freezing (stage N)`.
    pub fn note(&self, content: Option<&PreviewContent>) -> String {
        let mut note = format!("inputs frozen at {}", self.frozen.short_digest());
        let changed = content
            .map(|c| self.upstream_changed(c))
            .unwrap_or_default();
        if !changed.is_empty() {
            let ids: Vec<String> = changed.iter().map(u32::to_string).collect();
            note.push_str(&format!(
                " · upstream changed since freezing (stage {})",
                ids.join(", ")
            ));
        }
        note
    }

    /// The content the Viewport draws: the stage's newest output alone.
    pub fn content(&self, families: &PreviewContent) -> PreviewContent {
        PreviewContent {
            bundle: Arc::clone(&self.output),
            families: families.families.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fixtures::{example_content, with_stage};
    use stagecraft_runtime::generate::{FailureKind, GenerateError, StageFailure};

    fn run(
        isolation: &Isolation,
        result: Result<Arc<GeneratedBundle>, GenerateError>,
    ) -> IsolatedRun {
        IsolatedRun {
            stage: isolation.stage(),
            frozen: isolation.frozen.digest(),
            result,
            cache_hit: false,
        }
    }

    /// Freezing takes the live output; a re-run answering these inputs replaces it, a failure
    /// is said and keeps it, a re-run of other inputs is ignored.
    #[test]
    fn a_frozen_stage_takes_its_reruns_and_says_when_upstream_moved() {
        let content = example_content("street-block", "street-block").expect("generates");
        let mut isolation = Isolation::freeze(&content, 3).expect("stage 3");
        assert_eq!(isolation.stage(), 3);
        assert_eq!(isolation.recipe(), "street-block");
        assert_eq!(*isolation.output, content.bundle.isolated(3).expect("3"));
        let live2 = content.stage(2).expect("2").digest;
        assert_eq!(isolation.frozen.inputs(), vec![(2, live2)]);
        let short = isolation.frozen.short_digest();
        assert_eq!(
            isolation.note(Some(&content)),
            format!("inputs frozen at {short}")
        );
        // Another re-run: stage 2's output alone stands in for a changed stage 3.
        let other = Arc::new(content.bundle.isolated(2).expect("2"));
        let mut stray = run(&isolation, Ok(Arc::clone(&other)));
        stray.frozen = [9; 32];
        assert!(!isolation.take(&stray));
        assert!(isolation.take(&run(&isolation, Ok(Arc::clone(&other)))));
        assert!(Arc::ptr_eq(&isolation.output, &other));
        assert!(!isolation.take(&run(&isolation, Ok(Arc::clone(&other)))));
        let failure = GenerateError {
            failures: vec![StageFailure {
                stage: Some(3),
                kind: FailureKind::InvalidInput,
                field: Some("placements".into()),
                message: "rewired".into(),
            }],
        };
        assert!(isolation.take(&run(&isolation, Err(failure))));
        assert_eq!(
            isolation.problem.as_deref(),
            Some("stage 3: invalid-input (at `placements`): rewired")
        );
        assert!(Arc::ptr_eq(&isolation.output, &other));
        assert!(isolation.take(&run(&isolation, Ok(Arc::clone(&other)))));
        assert_eq!(isolation.problem, None);
        // Upstream moved on: stage 2 of the live content is another product.
        let mut moved = content.stage(3).expect("3").clone();
        moved.stage = 2;
        let live = with_stage(&content, moved);
        assert_eq!(isolation.upstream_changed(&live), vec![2]);
        assert_eq!(
            isolation.note(Some(&live)),
            format!("inputs frozen at {short} · upstream changed since freezing (stage 2)")
        );
        assert!(Isolation::freeze(&content, 42).is_none());
    }
}
