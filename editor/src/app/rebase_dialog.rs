//! Edit → Rebase overrides…: the runtime's rebase report of a recipe's override sets at a chosen
//! seed (default: the manifest's), each override and mutation as applies / orphaned / conflict
//! with its reason, a decision per entry (keep, drop, re-target to a packed id or the viewport's
//! selection, or — for a lock, a move or a freeze — materialize it as an authored object at its
//! recorded transform), and the decisions applied as one undoable edit through `overrides::rebase`.
//!
//! The report is `authoring::rebase::report`, the function `stagecraft rebase` calls, over the
//! document as edited, run on the `stagecraft-rebase` thread (it generates the recipe twice) so
//! the UI never waits for it; with the default decisions (keep what applies, drop orphans) the
//! result is what `stagecraft rebase --write` writes.

use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Receiver};

use egui::{Grid, RichText, Ui};
use stagecraft_runtime::overrides::{Decision, EditRef, RebaseEntry, RebaseReport, Standing};
use stagecraft_runtime::project::Project;

pub use crate::authoring::rebase::parse_id;
use crate::authoring::rebase::{default_decision, rebase_edit, recipes_with_sets, report};
use crate::edits::ProjectEdit;

/// What the user picked for one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Keep it (recording the new base revision).
    Keep,
    /// Remove it.
    Drop,
    /// Point it at the object typed in the entry's id field.
    Retarget,
    /// Turn the locked, moved or frozen object into an authored object at its recorded
    /// transform (`Decision::Materialize`).
    Materialize,
}

/// Whether an entry's action can be materialized (a lock, a transform lock, a move or a freeze
/// of a generated object).
pub fn materializable(action: &str) -> bool {
    matches!(
        action,
        "LockSelection" | "LockTransform" | "Move" | "FreezeSubtree"
    )
}

/// The Rebase dialog's state.
#[derive(Clone, Debug, PartialEq)]
pub struct RebaseDialog {
    /// The recipe whose sets are rebased.
    pub recipe: String,
    /// The seed to rebase to.
    pub seed: u64,
    /// The last report, for `recipe` at `seed`.
    pub report: Option<RebaseReport>,
    /// The user's choices (entries without one take the default: keep what applies, drop
    /// orphans; a conflict must be chosen).
    pub choices: BTreeMap<EditRef, Choice>,
    /// The typed re-target identity per entry (decimal or `0x…` hex).
    pub retarget: BTreeMap<EditRef, String>,
    /// Why the report or the rebase failed.
    pub error: Option<String>,
    /// Whether a report is being made on its thread.
    pub running: bool,
}

impl RebaseDialog {
    /// The dialog for the first recipe with override sets, at the manifest's seed.
    pub fn new(project: &Project) -> RebaseDialog {
        RebaseDialog {
            recipe: recipes_with_sets(project)
                .first()
                .cloned()
                .unwrap_or_default(),
            seed: project.manifest.root_seed,
            report: None,
            choices: BTreeMap::new(),
            retarget: BTreeMap::new(),
            error: None,
            running: false,
        }
    }

    /// Runs the report for the chosen recipe and seed over `project` here and now, forgetting
    /// old choices (what [`start_report`]'s thread sends to [`RebaseDialog::finish`]).
    pub fn run(&mut self, project: &Project) {
        let result = report(project, &self.recipe, self.seed);
        self.finish(result);
    }

    /// Takes a finished report (for the dialog's recipe and seed), forgetting old choices.
    pub fn finish(&mut self, result: Result<RebaseReport, String>) {
        self.running = false;
        self.choices.clear();
        self.retarget.clear();
        match result {
            Ok(report) => {
                self.report = Some(report);
                self.error = None;
            }
            Err(why) => {
                self.report = None;
                self.error = Some(why);
            }
        }
    }

    /// The choice entry `entry` stands with now.
    pub fn choice(&self, entry: &RebaseEntry) -> Option<Choice> {
        self.choices
            .get(&entry.edit)
            .copied()
            .or(match default_decision(&entry.standing) {
                Some(Decision::Keep) => Some(Choice::Keep),
                Some(Decision::Drop) => Some(Choice::Drop),
                _ => None,
            })
    }

    /// The decisions of every entry, or the first entry that has none (or a bad re-target id).
    pub fn decisions(&self) -> Result<BTreeMap<EditRef, Decision>, String> {
        let Some(report) = &self.report else {
            return Err("run the report first".to_owned());
        };
        let mut decisions = BTreeMap::new();
        for entry in &report.entries {
            let decision = match self.choice(entry) {
                Some(Choice::Keep) => Decision::Keep,
                Some(Choice::Drop) => Decision::Drop,
                Some(Choice::Materialize) => Decision::Materialize,
                Some(Choice::Retarget) => {
                    let text = self.retarget.get(&entry.edit).map_or("", String::as_str);
                    Decision::Retarget(parse_id(text).ok_or_else(|| {
                        format!("{}: type the packed id to re-target to", entry.edit)
                    })?)
                }
                None => return Err(format!("{} conflicts and needs a decision", entry.edit)),
            };
            decisions.insert(entry.edit.clone(), decision);
        }
        Ok(decisions)
    }
}

/// A report being made on its thread.
pub struct RebaseJob {
    receiver: Receiver<Result<RebaseReport, String>>,
}

impl RebaseJob {
    /// The report, once the thread has sent it.
    pub fn poll(&self) -> Option<Result<RebaseReport, String>> {
        self.receiver.try_recv().ok()
    }
}

/// Starts the report of `recipe` of `project` (a copy of the document as edited) at `seed` on the
/// `stagecraft-rebase` thread; `repaint` is called when it is done.
pub fn start_report(
    project: Project,
    recipe: String,
    seed: u64,
    repaint: impl Fn() + Send + 'static,
) -> Result<RebaseJob, String> {
    let (sender, receiver) = channel();
    std::thread::Builder::new()
        .name("stagecraft-rebase".to_owned())
        .spawn(move || {
            let _ = sender.send(report(&project, &recipe, seed));
            repaint();
        })
        .map_err(|e| format!("cannot start the rebase report: {e}"))?;
    Ok(RebaseJob { receiver })
}

/// What the user answered.
#[derive(Clone, Debug, PartialEq)]
pub enum RebaseAnswer {
    /// Nothing yet.
    None,
    /// Make the report for the dialog's recipe and seed.
    Run,
    /// Close the dialog.
    Close,
    /// Apply this edit (one undo step) and close.
    Apply(ProjectEdit),
}

/// The dialog's contents over `project`; `selected` is the packed id of the object selected in
/// the viewport, offered as a re-target.
pub fn rebase_ui(
    ui: &mut Ui,
    dialog: &mut RebaseDialog,
    project: &Project,
    selected: Option<u64>,
) -> RebaseAnswer {
    ui.heading("Rebase overrides");
    ui.label(
        "After a seed, parameter or family change: where each override and world mutation \
         stands against the new base, and what to do with it. Applied as one undoable edit.",
    );
    let before = (dialog.recipe.clone(), dialog.seed);
    let mut answer = RebaseAnswer::None;
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("Recipe")
            .selected_text(dialog.recipe.clone())
            .show_ui(ui, |ui| {
                for recipe in recipes_with_sets(project) {
                    ui.selectable_value(&mut dialog.recipe, recipe.clone(), recipe);
                }
            });
        let label = ui.label("Seed");
        ui.add(egui::DragValue::new(&mut dialog.seed))
            .labelled_by(label.id);
        if dialog.running {
            ui.spinner();
        } else if ui.button("Run report").clicked() {
            answer = RebaseAnswer::Run;
        }
    });
    if before != (dialog.recipe.clone(), dialog.seed) {
        dialog.report = None;
    }
    if let Some(why) = &dialog.error {
        ui.colored_label(ui.visuals().error_fg_color, why.as_str());
    }
    if dialog.report.is_some() {
        entries_ui(ui, dialog, selected);
    }
    ui.separator();
    ui.horizontal(|ui| {
        let ready = dialog.decisions();
        let apply = ui
            .add_enabled(ready.is_ok(), egui::Button::new("Apply rebase"))
            .on_disabled_hover_text(ready.as_ref().err().cloned().unwrap_or_default());
        if apply.clicked() {
            if let (Ok(decisions), Some(report)) = (&ready, &dialog.report) {
                match rebase_edit(project, report, decisions) {
                    Ok(edit) => answer = RebaseAnswer::Apply(edit),
                    Err(why) => dialog.error = Some(why),
                }
            }
        }
        if ui.button("Close").clicked() {
            answer = RebaseAnswer::Close;
        }
        if let (Err(why), Some(_)) = (&ready, &dialog.report) {
            ui.weak(why.as_str());
        }
    });
    answer
}

/// The report's counts and one row per entry with its decision.
fn entries_ui(ui: &mut Ui, dialog: &mut RebaseDialog, selected: Option<u64>) {
    // Taken out while its rows draw (they change only the choices) and put back after.
    let Some(report) = dialog.report.take() else {
        return;
    };
    ui.label(format!(
        "recipe {} at seed {}: {} apply, {} orphaned, {} conflict",
        report.recipe,
        report.seed,
        report.count("applies"),
        report.count("orphaned"),
        report.count("conflict")
    ));
    egui::ScrollArea::vertical()
        .max_height(360.0)
        .show(ui, |ui| {
            Grid::new("rebase-entries")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    for entry in &report.entries {
                        entry_row_ui(ui, dialog, entry, selected);
                        ui.end_row();
                    }
                });
        });
    dialog.report = Some(report);
}

/// ` (stage 10 › 1)` for an edit of a subrecipe child run's object, nothing for a root edit.
fn nested_text(entry: &RebaseEntry) -> String {
    if entry.nested.is_empty() {
        return String::new();
    }
    let path =
        stagecraft_runtime::overrides::rebase_nested::stage_path_text(entry.stage, &entry.nested);
    format!(" (stage {path})")
}

fn entry_row_ui(
    ui: &mut Ui,
    dialog: &mut RebaseDialog,
    entry: &RebaseEntry,
    selected: Option<u64>,
) {
    ui.label(
        RichText::new(format!(
            "{} {} {}{}",
            entry.edit,
            entry.action,
            stagecraft_runtime::identity::identity_text(entry.target),
            nested_text(entry)
        ))
        .monospace(),
    );
    let standing = match &entry.standing {
        Standing::Applies => RichText::new("applies"),
        Standing::Orphaned => RichText::new("orphaned").color(ui.visuals().warn_fg_color),
        Standing::Conflict(reason) => {
            RichText::new(format!("conflict ({}): {reason}", reason.name()))
                .color(ui.visuals().error_fg_color)
        }
    };
    ui.label(standing);
    let current = dialog.choice(entry);
    let targeted = !matches!(entry.action, "Add" | "Exclude");
    ui.horizontal(|ui| {
        let mut choose = |ui: &mut Ui, choice: Choice, name: &str| {
            let id = ui.id().with((&entry.edit, name));
            let response = ui.push_id(id, |ui| ui.selectable_label(current == Some(choice), name));
            if response.inner.clicked() {
                dialog.choices.insert(entry.edit.clone(), choice);
            }
        };
        choose(ui, Choice::Keep, "Keep");
        choose(ui, Choice::Drop, "Drop");
        if targeted {
            choose(ui, Choice::Retarget, "Re-target");
        }
        if materializable(entry.action) {
            choose(ui, Choice::Materialize, "Materialize");
        }
        if dialog.choices.get(&entry.edit) == Some(&Choice::Retarget) {
            let text = dialog.retarget.entry(entry.edit.clone()).or_default();
            ui.add(
                egui::TextEdit::singleline(text)
                    .desired_width(150.0)
                    .hint_text("packed id"),
            );
            if let Some(id) = selected {
                if ui
                    .small_button("Use selection")
                    .on_hover_text(format!("The object selected in the viewport, {id:#018x}"))
                    .clicked()
                {
                    *text = format!("{id:#018x}");
                }
            }
        }
    });
}
