//! The Diagnostics tab: every error and warning of the last validation — the same diagnostics,
//! compiler's included, that `stagecraft check` prints — a warning at every override or mutation
//! the generation service's newest run did not apply (as `check` warns for the manifest's seed),
//! and why that run failed, if it did; a click selects the field.
//!
//! The counters heading the list, the tab's title and the status line all read one [`Tally`]
//! of the rows the tab lists ([`listed_rows`] and the stalled sources), so they never disagree
//! with the list.

use std::sync::Arc;

use std::collections::BTreeMap;

use egui::{Color32, RichText, Ui};
use stagecraft_runtime::overrides::diagnose::outcome_warnings;
use stagecraft_runtime::project::node::Node;
use stagecraft_runtime::project::parse::parse;
use stagecraft_runtime::project::{canonical_text, overrides_file, Diagnostic, Project, Severity};

use super::{Command, Panel};
use crate::document::Document;
use crate::service::{Generation, GenerationError, GenerationService};
use crate::viewport::{spawn_watch, SharedPreview};

/// The Diagnostics tab and its filters.
pub struct DiagnosticsPanel {
    show_errors: bool,
    show_warnings: bool,
    /// The running simulation, whose stalled population sources are warned about here.
    pub preview: Option<SharedPreview>,
    /// The service's newest generation, handed over by the app each frame.
    generation: Option<Arc<Generation>>,
    /// The warnings of the edits that generation did not apply, for (generation, document
    /// revision): made once per new generation or edit, not every frame.
    unapplied: Option<((usize, u64), Vec<Diagnostic>)>,
    /// The counts of what the tab lists, as of the last [`DiagnosticsPanel::refresh`] or draw.
    pub tally: Tally,
}

/// How many errors and warnings the Diagnostics tab lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Error rows.
    pub errors: usize,
    /// Warning rows (diagnostics, unapplied edits and stalled population sources).
    pub warnings: usize,
}

impl Tally {
    /// The counts of `rows` plus `stalled` warnings about population sources that stopped
    /// spawning.
    pub fn of(rows: &[&Diagnostic], stalled: usize) -> Tally {
        let errors = rows.iter().filter(|d| d.is_error()).count();
        Tally {
            errors,
            warnings: rows.len() - errors + stalled,
        }
    }

    /// Every row counted.
    pub fn total(&self) -> usize {
        self.errors + self.warnings
    }
}

/// The diagnostic rows the tab lists, in its order: each held file's (a file changed on disk
/// into something unreadable), then the document's, then the warnings of `unapplied` edits.
pub fn listed_rows<'a>(document: &'a Document, unapplied: &'a [Diagnostic]) -> Vec<&'a Diagnostic> {
    document
        .held()
        .values()
        .flat_map(|held| held.diagnostics.iter())
        .chain(document.diagnostics())
        .chain(unapplied)
        .collect()
}

impl Default for DiagnosticsPanel {
    fn default() -> Self {
        DiagnosticsPanel {
            show_errors: true,
            show_warnings: true,
            preview: None,
            generation: None,
            unapplied: None,
            tally: Tally::default(),
        }
    }
}

impl DiagnosticsPanel {
    /// A Diagnostics tab that also warns about the shared preview's stalled population sources.
    pub fn watching(preview: SharedPreview) -> Self {
        DiagnosticsPanel {
            preview: Some(preview),
            ..DiagnosticsPanel::default()
        }
    }
}

/// The warnings of the edits `generation` did not apply (`overrides::diagnose`, what `stagecraft
/// check` reports for the manifest's seed), each at its entry of the override set as `project`
/// writes it; none when the generation failed.
pub fn unapplied_edit_warnings(generation: &Generation, project: &Project) -> Vec<Diagnostic> {
    let Some(content) = generation.content() else {
        return Vec::new();
    };
    let trees: BTreeMap<String, Node> = project
        .overrides
        .values()
        .filter(|set| set.recipe == generation.recipe())
        .filter_map(|set| {
            let tree = parse(&canonical_text(set)).root?;
            Some((overrides_file(&set.id), tree))
        })
        .collect();
    let tree_of = |file: &str| trees.get(file);
    outcome_warnings(content.bundle.edit_outcomes(), &tree_of)
}

/// A diagnostic as its row reads: location, field path and message.
pub fn row_text(diagnostic: &Diagnostic) -> String {
    format!(
        "{}:{}:{}  {}  — {}",
        diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.path, diagnostic.message
    )
}

impl DiagnosticsPanel {
    /// Takes the service's newest generation (the app calls this every frame).
    pub fn follow(&mut self, service: &GenerationService) {
        service.follow_latest(&mut self.generation);
    }

    /// Counts what the tab lists for `document` now into [`DiagnosticsPanel::tally`] (the app
    /// calls this every frame, so the title and the status line agree with the list even when
    /// the tab is hidden).
    pub fn refresh(&mut self, document: &Document) {
        let unapplied = self.unapplied(document);
        let rows = listed_rows(document, &unapplied);
        self.tally = Tally::of(&rows, self.stalled(None).len());
    }

    /// The sources of the running simulation that stopped spawning; `preview` when the caller
    /// already borrowed it.
    fn stalled(
        &self,
        preview: Option<&crate::viewport::Preview>,
    ) -> Vec<spawn_watch::StalledSource> {
        let stalled = |preview: &crate::viewport::Preview| {
            preview
                .session
                .world()
                .map(|world| preview.spawn_watch.stalled(world))
                .unwrap_or_default()
        };
        match (preview, &self.preview) {
            (Some(preview), _) => stalled(preview),
            (None, Some(shared)) => shared.try_borrow().map(|p| stalled(&p)).unwrap_or_default(),
            (None, None) => Vec::new(),
        }
    }

    /// Why the newest generation failed, under the document's diagnostics.
    fn generation_ui(&self, ui: &mut Ui) {
        let Some(generation) = &self.generation else {
            return;
        };
        let Err(error) = &generation.result else {
            return;
        };
        ui.separator();
        let colour = ui.visuals().error_fg_color;
        match error {
            GenerationError::Compile { recipe, .. } => {
                ui.label(
                    RichText::new(format!(
                        "⛔ recipe {recipe} is not generated: it has errors (listed above)"
                    ))
                    .color(colour),
                );
            }
            GenerationError::Generate(failed) => {
                ui.label(
                    RichText::new(format!(
                        "⛔ generating recipe {} failed",
                        generation.recipe()
                    ))
                    .color(colour),
                );
                for failure in &failed.failures {
                    ui.label(RichText::new(format!("    {failure}")).color(colour));
                }
            }
            other => {
                ui.label(RichText::new(format!("⛔ {other}")).color(colour));
            }
        }
    }
}

impl Panel for DiagnosticsPanel {
    fn title(&self) -> &'static str {
        "Diagnostics"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let unapplied = self.unapplied(document);
        let rows = listed_rows(document, &unapplied);
        let stalled = self.stalled(None);
        let tally = Tally::of(&rows, stalled.len());
        self.tally = tally;
        ui.horizontal(|ui| {
            let errors = crate::app::count_text(tally.errors, "error");
            let warnings = crate::app::count_text(tally.warnings, "warning");
            ui.toggle_value(&mut self.show_errors, format!("⛔ {errors}"));
            ui.toggle_value(&mut self.show_warnings, format!("⚠ {warnings}"));
            let generation_failed = self.generation.as_ref().is_some_and(|g| g.result.is_err());
            if tally.total() == 0 && !generation_failed {
                ui.label(
                    RichText::new("✔ The project is valid.").color(Color32::from_rgb(90, 170, 90)),
                );
            }
        });
        if self.show_warnings {
            spawn_watch::warnings_ui(ui, &stalled);
        }
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let mut rows = rows.iter();
                for (file, unreadable) in document.held() {
                    ui.label(
                        RichText::new(format!(
                            "{file} changed on disk and cannot be read; the editor keeps the last good version and will not overwrite it without asking."
                        ))
                        .color(ui.visuals().warn_fg_color),
                    );
                    for _ in &unreadable.diagnostics {
                        if let Some(diagnostic) = rows.next() {
                            self.row_ui(ui, diagnostic, out);
                        }
                    }
                    ui.separator();
                }
                for diagnostic in rows {
                    self.row_ui(ui, diagnostic, out);
                }
                self.generation_ui(ui);
            });
    }
}

impl DiagnosticsPanel {
    /// The warnings of the edits the newest generation did not apply, remade only when the
    /// generation or the document changed.
    fn unapplied(&mut self, document: &Document) -> Vec<Diagnostic> {
        let Some(generation) = &self.generation else {
            return Vec::new();
        };
        let key = (Arc::as_ptr(generation) as usize, document.revision());
        match &self.unapplied {
            Some((made_for, warnings)) if *made_for == key => warnings.clone(),
            _ => {
                let warnings = unapplied_edit_warnings(generation, document.project());
                self.unapplied = Some((key, warnings.clone()));
                warnings
            }
        }
    }

    fn row_ui(&self, ui: &mut Ui, diagnostic: &Diagnostic, out: &mut Vec<Command>) {
        let (icon, colour, shown) = match diagnostic.severity {
            Severity::Error => ("⛔", ui.visuals().error_fg_color, self.show_errors),
            Severity::Warning => ("⚠", ui.visuals().warn_fg_color, self.show_warnings),
        };
        if !shown {
            return;
        }
        let text = format!("{icon} {}", row_text(diagnostic));
        let expected = format!("expected: {}", diagnostic.expected);
        let response =
            super::elide::selectable(ui, false, RichText::new(text).color(colour), &expected);
        if response.clicked() {
            out.push(Command::ShowDiagnostic(diagnostic.clone()));
        }
    }
}
