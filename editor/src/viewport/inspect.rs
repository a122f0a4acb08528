//! Stage inspection in the Viewport: serial stepping (the content of the recipe's first `k`
//! stages in execution order) and lock-and-isolate (one stage's product pinned and shown alone).
//!
//! The generation service publishes the whole recipe's bundle, which holds every stage's
//! product; a step or an isolated stage is a view of it built by the runtime
//! ([`GeneratedBundle::through`], [`GeneratedBundle::isolated`]), sharing the products, so
//! stepping runs nothing and equals generating up to that stage (the runtime tests it). A pinned
//! stage keeps the product it had when it was locked until it is released, whatever the service
//! regenerates meanwhile. Isolation with frozen inputs ([`super::isolate`]) instead re-runs one
//! stage against its inputs as they were, so its own edits show and upstream ones wait. View
//! state only: never a project edit.

use std::sync::Arc;

use stagecraft_runtime::generate::{bundle_through, GeneratedBundle};

use super::isolate::Isolation;
use crate::command::StageCommand;
use crate::service::Generation;
use crate::session::PreviewContent;

/// A stage locked and isolated: its product as it was when locked, shown alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    /// The stage.
    pub stage: u32,
    /// The recipe it belongs to.
    pub recipe: String,
    /// The bundle of that stage alone, as it was when locked.
    pub bundle: Arc<GeneratedBundle>,
}

/// The Viewport's stage inspection: a stepping cursor and a pinned stage.
#[derive(Clone, Debug, Default)]
pub struct StageInspect {
    /// Stepped up to this many stages of the execution order (`None`: the whole recipe).
    step: Option<usize>,
    /// The locked and isolated stage, if any.
    pinned: Option<Pinned>,
    /// The stage isolated with frozen inputs, if any (never with a pinned one).
    isolated: Option<Isolation>,
    /// A stage to isolate with frozen inputs once content has it (`stagecraft --isolate`).
    isolate_on_open: Option<u32>,
    /// Bumped on every change of cursor or pin.
    revision: u64,
    /// The content last shown: (content version, revision) → content and its version.
    shown: Option<((u64, u64), Arc<PreviewContent>, u64)>,
    /// Versions handed out for derived content (above any version the session uses).
    serial: u64,
}

/// Versions of derived content start here, far above the session's content versions.
const DERIVED_VERSIONS: u64 = 1 << 48;

impl StageInspect {
    /// The stepping cursor: how many stages are shown (`None`: all of them).
    pub fn step(&self) -> Option<usize> {
        self.step
    }

    /// The pinned stage, if any.
    pub fn pinned(&self) -> Option<&Pinned> {
        self.pinned.as_ref()
    }

    /// The stage isolated with frozen inputs, if any.
    pub fn isolated(&self) -> Option<&Isolation> {
        self.isolated.as_ref()
    }

    /// The frozen inputs the generation service re-runs the isolated stage against.
    pub fn frozen(&self) -> Option<Arc<stagecraft_runtime::generate::FrozenInputs>> {
        self.isolated.as_ref().map(|i| Arc::clone(&i.frozen))
    }

    /// The stage the cursor is on in `content` (the last one shown), while stepping.
    pub fn stepped_stage(&self, content: &PreviewContent) -> Option<u32> {
        let step = self.shown_steps(content)?;
        content.stages().get(step.checked_sub(1)?).map(|s| s.stage)
    }

    /// How many stages of `content` the cursor shows (clamped to them), while stepping.
    pub fn shown_steps(&self, content: &PreviewContent) -> Option<usize> {
        let stages = content.stages().len();
        self.step.map(|step| step.clamp(1, stages.max(1)))
    }

    /// One stage further (F10): from the whole recipe, the first stage; stops at the last.
    pub fn step_next(&mut self, stages: usize) {
        let next = match self.step {
            None => 1,
            Some(step) => (step + 1).min(stages),
        };
        self.set_step((stages > 0).then_some(next));
    }

    /// One stage back (Shift+F10): from the whole recipe, the stage before the last; stops at
    /// the first.
    pub fn step_back(&mut self, stages: usize) {
        let back = match self.step {
            None => stages.saturating_sub(1),
            Some(step) => step.saturating_sub(1),
        };
        self.set_step((stages > 0).then_some(back.max(1)));
    }

    /// Does what `command` asks, over `content` (the whole generation, when there is one).
    pub fn apply(&mut self, command: StageCommand, content: Option<&PreviewContent>) {
        let stages = content.map_or(0, |c| c.stages().len());
        match command {
            StageCommand::Next => self.step_next(stages),
            StageCommand::Back => self.step_back(stages),
            StageCommand::All => self.show_all(),
            StageCommand::To(stage) => {
                let at = content.and_then(|c| c.stages().iter().position(|s| s.stage == stage));
                if let Some(at) = at {
                    self.set_step(Some(at + 1));
                }
            }
            StageCommand::TogglePin(stage) => {
                if let Some(content) = content {
                    self.toggle_pin(content, stage);
                }
            }
            StageCommand::ToggleIsolate(stage) => {
                if let Some(content) = content {
                    self.toggle_isolate(content, stage);
                }
            }
            StageCommand::IsolateHere => match (&self.isolated, content) {
                (Some(isolated), _) => {
                    let stage = isolated.stage();
                    self.apply(StageCommand::ToggleIsolate(stage), content);
                }
                (None, Some(content)) => {
                    let here = self
                        .stepped_stage(content)
                        .or_else(|| content.stages().last().map(|s| s.stage));
                    if let Some(stage) = here {
                        self.toggle_isolate(content, stage);
                    }
                }
                (None, None) => {}
            },
        }
    }

    /// Isolates `stage` of `content` with its inputs frozen as they are now (releasing any
    /// locked stage), or releases it when it is the isolated one; a stage the content lacks
    /// changes nothing.
    pub fn toggle_isolate(&mut self, content: &PreviewContent, stage: u32) {
        if self.isolated.as_ref().is_some_and(|i| i.stage() == stage) {
            self.release_isolation();
            return;
        }
        if let Some(isolation) = Isolation::freeze(content, stage) {
            self.pinned = None;
            self.isolated = Some(isolation);
            self.revision += 1;
        }
    }

    /// Releases the stage isolated with frozen inputs: the live content is drawn again.
    pub fn release_isolation(&mut self) {
        if self.isolated.take().is_some() {
            self.revision += 1;
        }
    }

    /// Isolates `stage` with frozen inputs as soon as content has it (`stagecraft --isolate`).
    pub fn isolate_at_start(&mut self, stage: u32) {
        self.isolate_on_open = Some(stage);
    }

    /// Takes the isolated re-run of `generation` (the service's newest) and does a pending
    /// `--isolate` once `content` has its stage; true when what is drawn changed.
    pub fn follow(
        &mut self,
        generation: Option<&Arc<Generation>>,
        content: Option<&PreviewContent>,
    ) -> bool {
        if let (Some(stage), Some(content)) = (self.isolate_on_open, content) {
            if content.stage(stage).is_some() {
                self.isolate_on_open = None;
                self.toggle_isolate(content, stage);
                return true;
            }
        }
        let run = generation.and_then(|g| g.isolated.as_ref());
        let (Some(isolated), Some(run)) = (&mut self.isolated, run) else {
            return false;
        };
        let changed = isolated.take(run);
        if changed {
            self.revision += 1;
        }
        changed
    }

    /// Steps to the first `steps` stages before any content is known (`stagecraft --step N`);
    /// the shown content clamps it to the stages there are.
    pub fn start_at(&mut self, steps: usize) {
        self.set_step(Some(steps.max(1)));
    }

    /// Shows the whole recipe again.
    pub fn show_all(&mut self) {
        self.set_step(None);
    }

    fn set_step(&mut self, step: Option<usize>) {
        if self.step != step {
            self.step = step;
            self.revision += 1;
        }
    }

    /// Locks and isolates `stage` of `content` (its product as it is now), or releases it when
    /// it is the pinned one; a stage the content lacks changes nothing.
    pub fn toggle_pin(&mut self, content: &PreviewContent, stage: u32) {
        if self.pinned.as_ref().is_some_and(|p| p.stage == stage) {
            self.unpin();
            return;
        }
        if let Some(bundle) = content.bundle.isolated(stage) {
            self.isolated = None;
            self.pinned = Some(Pinned {
                stage,
                recipe: content.recipe().to_owned(),
                bundle: Arc::new(bundle),
            });
            self.revision += 1;
        }
    }

    /// Releases the pinned stage.
    pub fn unpin(&mut self) {
        if self.pinned.take().is_some() {
            self.revision += 1;
        }
    }

    /// Whether the pinned stage's product differs from the one `content` now has (it was
    /// regenerated since it was locked, or is gone).
    pub fn pin_is_stale(&self, content: &PreviewContent) -> bool {
        self.pinned.as_ref().is_some_and(|pinned| {
            let now = content.stage(pinned.stage).map(|s| s.digest);
            pinned.recipe != content.recipe()
                || now != pinned.bundle.stages.first().map(|s| s.digest)
        })
    }

    /// Forgets cursor and pin (another project).
    pub fn reset(&mut self) {
        self.step = None;
        self.unpin();
        self.isolated = None;
        self.revision += 1;
    }

    /// What the Viewport shows of `content` (version `version`): the pinned stage alone, else the
    /// stages up to the cursor, else all of it; with the version the scene keys its layers by.
    pub fn shown(
        &mut self,
        content: &Arc<PreviewContent>,
        version: u64,
    ) -> (Arc<PreviewContent>, u64) {
        if self.pinned.is_none() && self.step.is_none() && self.isolated.is_none() {
            return (Arc::clone(content), version);
        }
        let key = (version, self.revision);
        if let Some((at, shown, shown_version)) = &self.shown {
            if *at == key {
                return (Arc::clone(shown), *shown_version);
            }
        }
        let bundle = match (&self.pinned, self.step) {
            _ if self.isolated.is_some() => self.isolated.as_ref().map(|i| Arc::clone(&i.output)),
            (Some(pinned), _) => Some(Arc::clone(&pinned.bundle)),
            (None, Some(step)) => {
                let stages = content.stages().len();
                bundle_through(&content.bundle, step.clamp(1, stages.max(1)))
            }
            (None, None) => None,
        };
        let shown = Arc::new(PreviewContent {
            bundle: bundle.unwrap_or_else(|| Arc::clone(&content.bundle)),
            families: content.families.clone(),
        });
        self.serial += 1;
        let shown_version = DERIVED_VERSIONS + self.serial;
        self.shown = Some((key, Arc::clone(&shown), shown_version));
        (shown, shown_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fixtures::example_content;

    fn street_block() -> Arc<PreviewContent> {
        Arc::new(example_content("street-block", "street-block").expect("generates"))
    }

    #[test]
    fn the_cursor_steps_through_the_execution_order_and_stops_at_the_ends() {
        let mut inspect = StageInspect::default();
        inspect.step_next(3);
        assert_eq!(inspect.step(), Some(1));
        inspect.step_next(3);
        inspect.step_next(3);
        inspect.step_next(3);
        assert_eq!(inspect.step(), Some(3));
        inspect.step_back(3);
        inspect.step_back(3);
        inspect.step_back(3);
        assert_eq!(inspect.step(), Some(1));
        inspect.show_all();
        inspect.step_back(3);
        assert_eq!(inspect.step(), Some(2));
        inspect.show_all();
        inspect.step_next(0);
        assert_eq!(inspect.step(), None);
    }

    #[test]
    fn a_step_shows_the_prefix_and_a_pin_its_stage_alone() {
        let content = street_block();
        let stages: Vec<u32> = content.stages().iter().map(|s| s.stage).collect();
        assert_eq!(stages, [1, 2, 3]);
        let mut inspect = StageInspect::default();
        let (all, version) = inspect.shown(&content, 5);
        assert!(Arc::ptr_eq(&all, &content));
        assert_eq!(version, 5);
        inspect.step_next(stages.len());
        let (first, v1) = inspect.shown(&content, 5);
        assert_eq!(first.stages().len(), 1);
        assert_eq!(first.stages()[0].stage, stages[0]);
        assert_eq!(inspect.stepped_stage(&content), Some(stages[0]));
        // Same inputs, same content and version; a step moves the version.
        let (again, v2) = inspect.shown(&content, 5);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(v1, v2);
        inspect.step_next(stages.len());
        let (second, v3) = inspect.shown(&content, 5);
        assert_eq!(second.stages().len(), 2);
        assert_ne!(v3, v2);
        // The step's products are the full generation's, shared.
        assert!(Arc::ptr_eq(
            &second.stages()[1].product,
            &content.stages()[1].product
        ));
        assert_eq!(second.bundle.outputs, [1, 2]);
        // A pin wins over the cursor and keeps its product.
        let last = 3;
        inspect.toggle_pin(&content, last);
        let (pinned, _) = inspect.shown(&content, 5);
        assert_eq!(
            pinned.stages().iter().map(|s| s.stage).collect::<Vec<_>>(),
            [last]
        );
        assert!(!inspect.pin_is_stale(&content));
        // Regenerated without that stage's product (another recipe's content): stale, still
        // shown as locked.
        let other = Arc::new(example_content("pine-clearing", "pine-clearing").expect("pine"));
        assert!(inspect.pin_is_stale(&other));
        let (still, _) = inspect.shown(&other, 6);
        assert_eq!(still.stages()[0].stage, last);
        inspect.toggle_pin(&content, last);
        assert!(inspect.pinned().is_none());
        inspect.toggle_pin(&content, 999);
        assert!(inspect.pinned().is_none());
    }

    /// Isolating with frozen inputs releases a locked stage and the other way round; F9
    /// isolates the stage the cursor is on and releases it; the isolated output is drawn alone.
    #[test]
    fn isolation_and_lock_exclude_each_other_and_f9_isolates_the_cursor_stage() {
        let content = street_block();
        let mut inspect = StageInspect::default();
        inspect.toggle_pin(&content, 2);
        inspect.apply(StageCommand::ToggleIsolate(3), Some(&content));
        assert!(inspect.pinned().is_none());
        assert_eq!(inspect.isolated().map(|i| i.stage()), Some(3));
        assert_eq!(inspect.frozen().map(|f| f.stage()), Some(3));
        let (shown, _) = inspect.shown(&content, 5);
        assert_eq!(
            shown.stages().iter().map(|s| s.stage).collect::<Vec<_>>(),
            [3]
        );
        inspect.toggle_pin(&content, 1);
        assert!(inspect.isolated().is_none());
        inspect.unpin();
        // F9 with no stepping: the last stage; again: released.
        inspect.apply(StageCommand::IsolateHere, Some(&content));
        assert_eq!(inspect.isolated().map(|i| i.stage()), Some(3));
        inspect.apply(StageCommand::IsolateHere, Some(&content));
        assert!(inspect.isolated().is_none() && inspect.frozen().is_none());
        inspect.apply(StageCommand::To(2), Some(&content));
        inspect.apply(StageCommand::IsolateHere, Some(&content));
        assert_eq!(inspect.isolated().map(|i| i.stage()), Some(2));
        // `--isolate`: pending until content has the stage.
        let mut start = StageInspect::default();
        start.isolate_at_start(1);
        assert!(!start.follow(None, None));
        assert!(start.follow(None, Some(&content)));
        assert_eq!(start.isolated().map(|i| i.stage()), Some(1));
        inspect.reset();
        assert!(inspect.isolated().is_none());
    }
}
