//! The Diff tab: the identity diff (`runtime::diff`) of the previewed generation against the
//! last saved state of the project, the same recipe with another root seed, or a cooked bundle.
//! Counts per kind are toggles that filter the list; the list can be filtered by text; clicking
//! an entry selects its object and frames it in the Viewport, where every entry is drawn:
//! added green, removed as a red ghost, moved yellow with an arrow, changed blue.
//!
//! The other side is read synchronously: the saved project or a cooked bundle exactly as
//! `stagecraft diff` reads a side (`cook::side::side_objects`), another seed by generating the
//! document as edited with the cook driver's one-shot run (the same runtime executor, overrides
//! applied). The examples take milliseconds.

use std::path::Path;

use egui::{Color32, RichText, Ui};
use stagecraft_runtime::content::Product;
use stagecraft_runtime::diff::{bundle_objects, diff_objects, BundleDiff, Change};
use stagecraft_runtime::diff::{DiffEntry, DiffObject};
use stagecraft_runtime::identity::ChildKey;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::Project;

use super::{Command, Panel};
use crate::cook::side::AssetNames;
use crate::document::Document;
use crate::viewport::{Aabb, DiffMark, DiffMarkKind, PickId, SharedPreview};

/// What the previewed generation is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// The project as last saved on disk.
    Saved,
    /// The current project with another root seed.
    Seed,
    /// A cooked bundle folder.
    Bundle,
}

/// The result of one comparison.
pub struct DiffResult {
    /// What A was ("saved state", "seed 7", the bundle path).
    pub label: String,
    /// The recipe compared.
    pub recipe: String,
    /// The diff, A = the other side, B = the preview.
    pub diff: BundleDiff,
    /// The assets of both sides' placing stages, which the rows name.
    pub assets: SideAssets,
}

/// The Diff tab.
pub struct DiffPanel {
    preview: SharedPreview,
    /// What to compare with.
    pub against: Against,
    /// The seed for [`Against::Seed`].
    pub seed: u64,
    /// The folder for [`Against::Bundle`].
    pub bundle_path: String,
    /// The last comparison.
    pub result: Option<DiffResult>,
    /// Why the last comparison failed.
    pub error: Option<String>,
    /// Which kinds the list and the viewport show: added, removed, moved, changed.
    pub shown: [bool; 4],
    /// Text the list's entries must contain.
    pub filter: String,
}

impl DiffPanel {
    /// A Diff tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        DiffPanel {
            preview,
            against: Against::Saved,
            seed: 1,
            bundle_path: String::new(),
            result: None,
            error: None,
            shown: [true; 4],
            filter: String::new(),
        }
    }

    /// Compares the previewed generation with the chosen side and publishes its marks.
    pub fn compare(&mut self, document: &Document) {
        let outcome = self.run(document);
        match outcome {
            Ok(result) => {
                self.error = None;
                self.result = Some(result);
            }
            Err(why) => {
                self.error = Some(why);
                self.result = None;
            }
        }
        self.publish_marks();
    }

    fn run(&self, document: &Document) -> Result<DiffResult, String> {
        let preview = self.preview.borrow();
        let content = preview
            .session
            .content()
            .ok_or("nothing is generated yet: open a recipe")?;
        let recipe = content.recipe().to_owned();
        let current = bundle_objects(&content.bundle);
        let assets_b = AssetNames::of_bundle(&content.bundle);
        drop(preview);
        let (label, (other, assets_a)) = match self.against {
            Against::Saved => (
                "saved state".to_owned(),
                saved_side(document.dir(), &recipe)?,
            ),
            Against::Seed => (
                format!("seed {}", self.seed),
                generate(document.project(), &recipe, self.seed)?,
            ),
            Against::Bundle => {
                let path = Path::new(self.bundle_path.trim());
                (path.display().to_string(), saved_side(path, &recipe)?)
            }
        };
        Ok(DiffResult {
            label,
            recipe,
            diff: diff_objects(other, current),
            assets: SideAssets {
                a: assets_a,
                b: assets_b,
            },
        })
    }

    /// Puts the shown entries' marks on the preview for the Viewport to draw.
    fn publish_marks(&self) {
        let marks = self.result.as_ref().map_or_else(Vec::new, |result| {
            result
                .diff
                .entries()
                .filter(|e| self.shown[kind_index(&e.change)])
                .filter_map(|e| mark_of(&e))
                .collect()
        });
        self.preview.borrow_mut().diff_marks = marks;
    }

    /// Selects `entry`'s object (its current side) and asks the Viewport to frame it.
    fn select(&self, entry: &DiffEntry<'_>) {
        let mut preview = self.preview.borrow_mut();
        if let Some(object) = entry.b {
            preview.selected = preview.session.content().and_then(|content| {
                let (_, product) = content
                    .bundle
                    .products()
                    .find(|(stage, _)| *stage == object.stage)?;
                pick_of(product, object)
            });
        }
        let at = entry
            .b
            .and_then(|o| o.position_m)
            .or(entry.a.and_then(|o| o.position_m));
        if let Some(at) = at {
            let (x, y) = (at.x as f32, at.y as f32);
            preview.frame_request = Some(Aabb::new(
                three_d::vec3(x - 3.0, y - 3.0, 0.0),
                three_d::vec3(x + 3.0, y + 3.0, 2.0),
            ));
        }
        preview.update_scene();
    }
}

/// The objects of `recipe` in the project folder or cooked bundle at `path`, read as
/// `stagecraft diff` reads a side (a project is loaded, checked and generated with its overrides;
/// a bundle is verified and decoded).
fn saved_side(path: &Path, recipe: &str) -> Result<(Vec<DiffObject>, AssetNames), String> {
    let side = crate::cook::side::DiffSide::default();
    let (objects, assets) =
        crate::cook::side::side_objects_and_assets(path, &side).map_err(|e| format!("{e:#}"))?;
    let objects = objects
        .into_iter()
        .filter(|o| o.recipe.as_ref() == recipe)
        .collect();
    Ok((objects, assets))
}

/// Compiles `recipe` of `project` (the document as edited, unsaved) and generates it with
/// `seed`.
fn generate(
    project: &Project,
    recipe: &str,
    seed: u64,
) -> Result<(Vec<DiffObject>, AssetNames), String> {
    let registry = Registry::standard();
    // With the project's recipes, as the generation service compiles it (subrecipe stages).
    let outcome = crate::service::compile_recipe(project, recipe, &registry)
        .ok_or_else(|| format!("the other side has no recipe `{recipe}`"))?;
    let plan = outcome
        .plan
        .ok_or_else(|| format!("recipe `{recipe}` does not compile on the other side"))?;
    let overrides = stagecraft_runtime::overrides::Overrides::of_recipe(project, recipe);
    let bundle = crate::cook::generate_plan(&plan, seed, &overrides).map_err(|e| e.to_string())?;
    Ok((bundle_objects(&bundle), AssetNames::of_bundle(&bundle)))
}

fn kind_index(change: &Change) -> usize {
    match change {
        Change::Added => 0,
        Change::Removed => 1,
        Change::Moved { .. } => 2,
        Change::Changed { .. } => 3,
    }
}

const KIND_NAMES: [&str; 4] = ["added", "removed", "moved", "changed"];

/// The colour of each kind: added green, removed red, moved yellow, changed blue.
pub const KIND_COLOURS: [Color32; 4] = [
    Color32::from_rgb(90, 210, 110),
    Color32::from_rgb(235, 80, 70),
    Color32::from_rgb(240, 200, 60),
    Color32::from_rgb(90, 150, 255),
];

fn mark_of(entry: &DiffEntry<'_>) -> Option<DiffMark> {
    let point = |o: Option<&DiffObject>| o.and_then(|o| o.position_m).map(|p| [p.x, p.y]);
    let kind = match entry.change {
        Change::Added => DiffMarkKind::Added,
        Change::Removed => DiffMarkKind::Removed,
        Change::Moved { .. } => DiffMarkKind::Moved,
        Change::Changed { .. } => DiffMarkKind::Changed,
    };
    let (from, to) = (point(entry.a), point(entry.b));
    (from.is_some() || to.is_some()).then_some(DiffMark { kind, from, to })
}

/// The pick of `object` in `product` (its identity), when the product shows it.
fn pick_of(product: &Product, object: &DiffObject) -> Option<PickId> {
    let ChildKey::Scatter(id) = object.key else {
        return None;
    };
    crate::viewport::picking::object_index(product, id)?;
    Some(PickId::Object {
        stage: object.stage,
        id,
    })
}

pub use super::diff_rows::{entry_text, SideAssets};

impl Panel for DiffPanel {
    fn title(&self) -> &'static str {
        "Diff"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, _out: &mut Vec<Command>) {
        self.comparison_bar_ui(ui, document);
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let Some(result) = &self.result else {
            if self.error.is_none() {
                ui.weak("Choose what to compare with and press Compare.");
            }
            return;
        };
        let counts = result.diff.counts;
        ui.label(format!(
            "{} against {}: {} unchanged",
            result.recipe, result.label, counts.unchanged
        ));
        let numbers = [counts.added, counts.removed, counts.moved, counts.changed];
        let toggled = kind_toggles_ui(ui, &mut self.shown, &mut self.filter, numbers);
        let filter = self.filter.trim().to_lowercase();
        let rows: Vec<(usize, String)> = result
            .diff
            .entries()
            .enumerate()
            .filter(|(_, e)| self.shown[kind_index(&e.change)])
            .map(|(i, e)| (i, entry_text(&e, &result.assets)))
            .filter(|(_, text)| filter.is_empty() || text.to_lowercase().contains(&filter))
            .collect();
        if result.diff.is_empty() {
            ui.label("The two generations are identical.");
        }
        let clicked = entry_rows_ui(ui, result, &rows);
        if let Some(index) = clicked {
            if let Some(entry) = self.result.as_ref().and_then(|r| r.diff.entry(index)) {
                self.select(&entry);
            }
        }
        if toggled {
            self.publish_marks();
        }
    }
}

impl DiffPanel {
    /// What to compare the preview with (saved state, a seed, a cooked bundle), Compare and
    /// Clear.
    fn comparison_bar_ui(&mut self, ui: &mut Ui, document: &Document) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Compare the preview with");
            ui.selectable_value(&mut self.against, Against::Saved, "Saved state");
            ui.selectable_value(&mut self.against, Against::Seed, "Seed");
            ui.selectable_value(&mut self.against, Against::Bundle, "Cooked bundle");
            match self.against {
                Against::Seed => {
                    ui.add(egui::DragValue::new(&mut self.seed).prefix("seed "));
                }
                Against::Bundle => {
                    ui.add(
                        egui::TextEdit::singleline(&mut self.bundle_path)
                            .hint_text("bundle folder")
                            .desired_width(200.0),
                    );
                    if ui.button("Browse…").clicked() {
                        if let Some(dir) = rfd::FileDialog::new().pick_folder() {
                            self.bundle_path = dir.display().to_string();
                        }
                    }
                }
                Against::Saved => {}
            }
            if ui.button("Compare").clicked() {
                self.compare(document);
            }
            if self.result.is_some() && ui.button("Clear").clicked() {
                self.result = None;
                self.publish_marks();
            }
        });
    }
}

/// The toggles of each kind of change, with its count, and the filter field; whether a toggle
/// was clicked.
fn kind_toggles_ui(
    ui: &mut Ui,
    shown: &mut [bool; 4],
    filter: &mut String,
    numbers: [u64; 4],
) -> bool {
    let mut toggled = false;
    ui.horizontal(|ui| {
        for (index, name) in KIND_NAMES.iter().enumerate() {
            let text =
                RichText::new(format!("{name} {}", numbers[index])).color(KIND_COLOURS[index]);
            if ui.selectable_label(shown[index], text).clicked() {
                shown[index] = !shown[index];
                toggled = true;
            }
        }
        ui.add(
            egui::TextEdit::singleline(filter)
                .hint_text("filter")
                .desired_width(120.0),
        );
    });
    toggled
}

/// The shown rows of the diff, coloured by kind; the index of the entry clicked, if one was.
fn entry_rows_ui(ui: &mut Ui, result: &DiffResult, rows: &[(usize, String)]) -> Option<usize> {
    let mut clicked = None;
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show_rows(ui, 18.0, rows.len(), |ui, range| {
            for (index, text) in &rows[range] {
                let Some(entry) = result.diff.entry(*index) else {
                    continue;
                };
                let colour = KIND_COLOURS[kind_index(&entry.change)];
                if ui
                    .selectable_label(false, RichText::new(text).color(colour))
                    .clicked()
                {
                    clicked = Some(*index);
                }
            }
        });
    clicked
}
