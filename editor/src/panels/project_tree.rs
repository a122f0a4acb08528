//! The Project tab: a tree of the manifest, recipes, scenarios, override sets and asset families.

use egui::{RichText, Ui};
use stagecraft_runtime::project::{FieldPath, Severity};

use super::inspector::list::fresh_id;
use super::project_rename::{renamable, rename_row_ui, Renaming};
use super::{Command, Panel};
use crate::document::Document;
use crate::edits::{DocId, DocValue, ProjectEdit, Selection};

/// The Project tab.
#[derive(Default)]
pub struct ProjectPanel {
    /// The document being renamed, if any ("Rename…" in a row's menu, or F2).
    pub renaming: Option<Renaming>,
    /// The last rename emitted (the document and its new id), until the app carries the editor
    /// state kept by id over ([`super::Panels::carry_rename`]).
    pub renamed: Option<(DocId, String)>,
}

impl Panel for ProjectPanel {
    fn title(&self) -> &'static str {
        "Project"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        // F2 renames the selected recipe, scenario or override set, unless a field is being typed in.
        let typing = ui.memory(|m| m.focused().is_some());
        if !typing && self.renaming.is_none() && ui.input(|i| i.key_pressed(egui::Key::F2)) {
            if let Some(doc) = document.selection().doc.clone().filter(renamable) {
                self.renaming = Some(Renaming::of(doc));
            }
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| tree_ui(ui, document, out, self));
    }
}

fn tree_ui(ui: &mut Ui, document: &Document, out: &mut Vec<Command>, panel: &mut ProjectPanel) {
    let ProjectPanel { renaming, renamed } = panel;
    let project = document.project();
    let mut doc_row = |ui: &mut Ui,
                       out: &mut Vec<Command>,
                       doc: DocId,
                       title: &str,
                       children: &[(String, FieldPath)]| {
        if renaming.as_ref().is_some_and(|r| r.doc == doc) {
            rename_row_ui(ui, document, out, renaming, renamed);
            return;
        }
        if item_ui(ui, document, out, doc.clone(), title, children) {
            *renaming = Some(Renaming::of(doc));
        }
    };
    doc_row(ui, out, DocId::Manifest, "📄 Manifest", &[]);
    ui.separator();

    section_ui(ui, "Recipes", project.recipes.len(), |ui| {
        for (id, recipe) in &project.recipes {
            let doc = DocId::Recipe(id.clone());
            let title = if recipe.label.is_empty() {
                format!("🔧 {id}")
            } else {
                format!("🔧 {id} — {}", recipe.label)
            };
            doc_row(ui, out, doc, &title, &recipe_children(recipe));
        }
        if ui.small_button("+ New recipe").clicked() {
            out.push(Command::Apply(new_recipe(document)));
        }
    });
    section_ui(ui, "Scenarios", project.scenarios.len(), |ui| {
        for (id, scenario) in &project.scenarios {
            let doc = DocId::Scenario(id.clone());
            doc_row(
                ui,
                out,
                doc,
                &format!("🎬 {id}"),
                &scenario_children(scenario),
            );
        }
        if ui.small_button("+ New scenario").clicked() {
            out.push(Command::Apply(new_scenario(document)));
        }
    });
    section_ui(ui, "Overrides", project.overrides.len(), |ui| {
        for (id, set) in &project.overrides {
            let doc = DocId::Overrides(id.clone());
            let title = format!("✏ {id} ({} overrides)", set.overrides.len());
            doc_row(ui, out, doc, &title, &[]);
        }
    });
    section_ui(ui, "Asset families", project.families.len(), |ui| {
        for (id, family) in &project.families {
            let doc = DocId::Family(id.clone());
            doc_row(ui, out, doc, &format!("🌲 {id}"), &family_children(family));
        }
    });
    section_ui(ui, "Motion profiles", project.motions.len(), |ui| {
        for (id, profile) in &project.motions {
            let doc = DocId::Motion(id.clone());
            let title = format!("🏃 {id} ({:.2} m/s)", profile.speed_m_s);
            doc_row(ui, out, doc, &title, &motion_children());
        }
    });
    unreadable_ui(ui, document, out);
}

/// A recipe's children: its stages.
fn recipe_children(recipe: &stagecraft_runtime::project::Recipe) -> Vec<(String, FieldPath)> {
    recipe
        .stages
        .iter()
        .enumerate()
        .map(|(index, stage)| {
            (
                format!("Stage {} · {}", stage.id, stage.operator),
                FieldPath::root().field("stages").index(index),
            )
        })
        .collect()
}

/// A scenario's children: its observers, sources and directives.
fn scenario_children(scenario: &stagecraft_runtime::project::Scenario) -> Vec<(String, FieldPath)> {
    let mut children = Vec::new();
    for (field, names) in [
        (
            "observers",
            scenario
                .observers
                .iter()
                .map(|o| format!("👁 {}", o.id))
                .collect::<Vec<_>>(),
        ),
        (
            "sources",
            scenario
                .sources
                .iter()
                .map(|s| format!("🚶 {}", s.id))
                .collect(),
        ),
        (
            "directives",
            scenario
                .directives
                .iter()
                .map(|d| format!("⏱ frame {} · {}", d.frame, d.target))
                .collect(),
        ),
    ] {
        for (index, name) in names.into_iter().enumerate() {
            children.push((name, FieldPath::root().field(field).index(index)));
        }
    }
    children
}

/// A motion profile's children: its clips.
fn motion_children() -> Vec<(String, FieldPath)> {
    use stagecraft_runtime::project::schema::motion::CLIP_NAMES;
    CLIP_NAMES
        .iter()
        .map(|name| (format!("{name} clip"), FieldPath::root().field(name)))
        .collect()
}

/// An asset family's children: its variants and their weights.
fn family_children(family: &stagecraft_runtime::project::AssetFamily) -> Vec<(String, FieldPath)> {
    family
        .variants
        .iter()
        .enumerate()
        .map(|(index, variant)| {
            (
                format!("{} ×{}", variant.id, variant.weight),
                FieldPath::root().field("variants").index(index),
            )
        })
        .collect()
}

fn section_ui(ui: &mut Ui, title: &str, count: usize, body: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(RichText::new(format!("{title} ({count})")).strong())
        .id_salt(title)
        .default_open(true)
        .show(ui, body);
}

/// One document: a selectable row, with selectable children (stages, observers, …) below it.
/// Returns true when the row's menu asked to rename it.
fn item_ui(
    ui: &mut Ui,
    document: &Document,
    out: &mut Vec<Command>,
    doc: DocId,
    title: &str,
    children: &[(String, FieldPath)],
) -> bool {
    let mut rename = false;
    let selection = document.selection();
    let file = doc.file(document.project()).unwrap_or_default();
    let worst = document
        .diagnostics()
        .iter()
        .filter(|d| d.file == file)
        .map(|d| d.severity)
        .min();
    let held = document.held().contains_key(&file);
    let mut text = RichText::new(title);
    text = match worst {
        Some(Severity::Error) => text.color(ui.visuals().error_fg_color),
        Some(Severity::Warning) => text.color(ui.visuals().warn_fg_color),
        None => text,
    };
    let is_selected = selection.doc.as_ref() == Some(&doc);
    let mut row = |ui: &mut Ui, out: &mut Vec<Command>| {
        let selected = is_selected && selection.path.0.is_empty();
        let response = super::elide::selectable(ui, selected, text.clone(), &file);
        if response.clicked() {
            out.push(Command::Select(Selection::doc(doc.clone())));
        }
        if renamable(&doc) {
            response.context_menu(|ui| {
                if ui
                    .button("Rename…")
                    .on_hover_text("Rename it and every reference to it (F2)")
                    .clicked()
                {
                    rename = true;
                    ui.close();
                }
            });
        }
        if held {
            ui.colored_label(ui.visuals().warn_fg_color, "⚠ changed on disk")
                .on_hover_text("The file on disk cannot be read; the last good version is kept.");
        }
    };
    if children.is_empty() {
        ui.horizontal(|ui| row(ui, out));
        return rename;
    }
    let id = ui.make_persistent_id(("tree", &doc));
    let mut state =
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false);
    if is_selected && !selection.path.0.is_empty() {
        state.set_open(true);
    }
    state.show_header(ui, |ui| row(ui, out)).body(|ui| {
        for (name, path) in children {
            let selected = is_selected && selection.path.0.starts_with(&path.0);
            if super::elide::selectable(ui, selected, RichText::new(name), "").clicked() {
                out.push(Command::Select(Selection::field(doc.clone(), path.clone())));
            }
        }
    });
    rename
}

/// Files that exist on disk but could not be read into a document.
fn unreadable_ui(ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
    let project = document.project();
    let dropped = document.dropped_files();
    let mut unreadable: Vec<&String> = document
        .disk()
        .files
        .keys()
        .filter(|path| {
            DocId::of_file(project, path).is_some_and(|doc| document.get(&doc).is_none())
        })
        // A renamed document's old file is not unreadable: the next save removes it.
        .filter(|path| !dropped.contains(*path))
        .collect();
    // Files that could not even be read as text (not UTF-8, a folder, a broken link).
    unreadable.extend(document.disk().unreadable.keys());
    unreadable.sort();
    unreadable.dedup();
    if unreadable.is_empty() {
        return;
    }
    ui.separator();
    ui.label(RichText::new("Unreadable files").color(ui.visuals().error_fg_color));
    for path in unreadable {
        if ui
            .selectable_label(false, format!("⛔ {path}"))
            .on_hover_text("Click to show its first problem")
            .clicked()
        {
            if let Some(diagnostic) = document.diagnostics().iter().find(|d| &d.file == path) {
                out.push(Command::ShowDiagnostic(diagnostic.clone()));
            }
        }
    }
}

/// A batch edit adding a recipe (one stage publishing it) and listing it in the manifest.
fn new_recipe(document: &Document) -> ProjectEdit {
    let project = document.project();
    let id = fresh_id("recipe", project.recipes.keys().map(String::as_str));
    let mut recipe = crate::document::template::new_project("")
        .recipes
        .into_values()
        .next()
        .unwrap_or_default();
    recipe.id = id.clone();
    recipe.label = "New recipe".to_owned();
    add_document(document, DocValue::Recipe(recipe), |m| &mut m.recipes, &id)
}

/// A batch edit adding a scenario on the first recipe and listing it in the manifest.
fn new_scenario(document: &Document) -> ProjectEdit {
    let project = document.project();
    let id = fresh_id("scenario", project.scenarios.keys().map(String::as_str));
    let mut scenario = crate::document::template::new_project("")
        .scenarios
        .into_values()
        .next()
        .unwrap_or_default();
    scenario.id = id.clone();
    scenario.name = "New scenario".to_owned();
    if let Some(recipe) = project.recipes.keys().next() {
        scenario.recipe = recipe.clone();
    }
    add_document(
        document,
        DocValue::Scenario(scenario),
        |m| &mut m.scenarios,
        &id,
    )
}

fn add_document(
    document: &Document,
    value: DocValue,
    list: impl FnOnce(&mut stagecraft_runtime::project::Manifest) -> &mut Vec<String>,
    id: &str,
) -> ProjectEdit {
    let doc = value.id();
    let mut manifest = document.project().manifest.clone();
    list(&mut manifest).push(id.to_owned());
    let selection = Selection::doc(doc.clone());
    ProjectEdit::Batch {
        edits: vec![
            ProjectEdit::replace(doc.clone(), Some(value), selection.clone(), ""),
            ProjectEdit::replace(
                DocId::Manifest,
                Some(DocValue::Manifest(manifest)),
                selection.clone(),
                "",
            ),
        ],
        selection,
        label: format!("New {}", doc.label()),
    }
}
