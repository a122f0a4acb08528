//! The Daily tab: previews a day's mission. Pick a cell (graph) and a UTC day; the seed comes from
//! the project's `daily-seeds.ron` when one is dispatched for that cell and day (or is typed), and
//! the project's first `layout.grid-mission` stage is solved with it exactly as `stagecraft daily
//! generate` solves it: the grid as a map, the numbers and the determinism signature. The first
//! showing previews the default day (PCG_Tactical, 2026-05-23, the specification's seed 424242
//! unless the file dispatches another).
//!
//! Read only: the tab never edits the project or writes the seed file (`stagecraft daily
//! dispatch` does); it reads the file when asked.

use egui::{RichText, Ui};
use stagecraft_runtime::content::MissionLayout;
use stagecraft_runtime::ops::grid_mission::{solve_daily_mission, DailySeedBook, DailySeedRecord};
use stagecraft_runtime::ops::registry::{Registry, StageParams};
use stagecraft_runtime::project::daily_seeds::{read_daily_seeds, DAILY_SEEDS_FILE};

use super::{Command, Panel};
use crate::document::Document;

/// The Daily tab.
pub struct DailyPanel {
    /// The procedural cell (graph) id.
    pub cell: String,
    /// The UTC day, `YYYY-MM-DD`.
    pub date: String,
    /// The seed to solve with.
    pub seed: u64,
    /// Where the seed came from, or why none was found.
    pub seed_note: String,
    /// The last preview, or why there is none.
    pub result: Option<Result<MissionLayout, String>>,
    /// Whether the tab has shown itself once (the first showing previews the default day).
    shown: bool,
}

impl Default for DailyPanel {
    fn default() -> Self {
        DailyPanel {
            cell: "PCG_Tactical".to_owned(),
            date: "2026-05-23".to_owned(),
            seed: 424_242,
            seed_note: String::new(),
            result: None,
            shown: false,
        }
    }
}

impl Panel for DailyPanel {
    fn title(&self) -> &'static str {
        "Daily"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, _out: &mut Vec<Command>) {
        if !self.shown {
            // The first showing previews the default day with its dispatched seed, if any.
            self.shown = true;
            self.load_seed(document);
            self.result = Some(preview(document, &self.cell, &self.date, self.seed));
        }
        ui.horizontal(|ui| {
            ui.label("Cell");
            ui.add(egui::TextEdit::singleline(&mut self.cell).desired_width(120.0));
            ui.label("Day");
            ui.add(egui::TextEdit::singleline(&mut self.date).desired_width(90.0));
            ui.label("Seed");
            ui.add(egui::DragValue::new(&mut self.seed));
            if ui
                .button("Dispatched seed")
                .on_hover_text(format!(
                    "Read the seed of this cell and day from {DAILY_SEEDS_FILE}"
                ))
                .clicked()
            {
                self.load_seed(document);
            }
            if ui.button("Preview").clicked() {
                self.result = Some(preview(document, &self.cell, &self.date, self.seed));
            }
        });
        if !self.seed_note.is_empty() {
            ui.label(&self.seed_note);
        }
        match &self.result {
            None => {
                ui.label("Preview solves the project's grid mission with the day's seed.");
            }
            Some(Err(why)) => {
                ui.colored_label(ui.visuals().error_fg_color, why);
            }
            Some(Ok(layout)) => layout_ui(ui, layout),
        }
    }
}

impl DailyPanel {
    /// Takes the seed dispatched for the cell and day from the project's seed file.
    pub fn load_seed(&mut self, document: &Document) {
        let path = document.dir().join(DAILY_SEEDS_FILE);
        let text = match stagecraft_io::read_project_file(&path) {
            Ok(Some(text)) => text,
            Ok(None) => {
                self.seed_note = format!("{DAILY_SEEDS_FILE} does not exist yet");
                return;
            }
            Err(problem) => {
                self.seed_note = problem.message;
                return;
            }
        };
        let (seeds, diagnostics) = read_daily_seeds(DAILY_SEEDS_FILE, &text);
        self.seed_note = match seeds.as_ref().and_then(|s| s.get(&self.cell, &self.date)) {
            Some(record) => {
                self.seed = record.seed;
                format!(
                    "seed {} dispatched {} (signature {:?})",
                    record.seed, record.dispatch_utc, record.server_signature
                )
            }
            None if seeds.is_some() => {
                format!("no seed dispatched for {}:{}", self.cell, self.date)
            }
            None => diagnostics
                .first()
                .map(ToString::to_string)
                .unwrap_or_default(),
        };
    }
}

/// Solves the project's first grid-mission stage with `seed` as the daily mission of `cell` on
/// `date`.
pub fn preview(
    document: &Document,
    cell: &str,
    date: &str,
    seed: u64,
) -> Result<MissionLayout, String> {
    let project = document.project();
    let registry = Registry::standard();
    let template = project
        .recipes
        .keys()
        .find_map(|id| {
            // With the project's recipes, as the generation service compiles it.
            let outcome = crate::service::compile_recipe(project, id, &registry)?;
            outcome
                .plan?
                .stages()
                .iter()
                .find_map(|stage| match stage.params() {
                    StageParams::GridMission(params) => Some(params.request(0)),
                    _ => None,
                })
        })
        .ok_or_else(|| "no recipe compiles with a layout.grid-mission stage".to_owned())?;
    let mut book = DailySeedBook::new();
    book.dispatch(DailySeedRecord {
        cell_id: cell.to_owned(),
        date_id: date.to_owned(),
        seed,
        server_signature: String::new(),
    })
    .map_err(|e| e.to_string())?;
    solve_daily_mission(&book, cell, date, &template).map_err(|e| e.to_string())
}

fn layout_ui(ui: &mut Ui, layout: &MissionLayout) {
    ui.label(format!(
        "seed {} · attempt {} · {}×{} · spawn ({}, {}) · extraction ({}, {}) · {} objectives · critical path {} steps",
        layout.seed,
        layout.attempt,
        layout.width,
        layout.height,
        layout.spawn.x,
        layout.spawn.y,
        layout.extraction.x,
        layout.extraction.y,
        layout.objectives.len(),
        layout.bot_path.len().saturating_sub(1)
    ));
    // The key and the signature beside the map, so the preview keeps to the map's height.
    ui.horizontal_top(|ui| {
        ui.label(RichText::new(layout.ascii_map()).monospace());
        ui.add_space(16.0);
        ui.label("S spawn\nX extraction\nO objective\n# blocker\n* bot path");
        ui.add_space(16.0);
        let signature = RichText::new(format!("signature\n{}", layout.signature())).small();
        // The signature is long: it wraps in the width left beside the key.
        ui.add(egui::Label::new(signature).wrap());
    });
}
