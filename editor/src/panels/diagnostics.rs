//! The Diagnostics tab: every error and warning of the last validation; a click selects the field.

use egui::{Color32, RichText, Ui};
use stagecraft_runtime::project::{Diagnostic, Severity};

use super::{Command, Panel};
use crate::document::Document;
use crate::viewport::{spawn_watch, SharedPreview};

/// The Diagnostics tab and its filters.
pub struct DiagnosticsPanel {
    show_errors: bool,
    show_warnings: bool,
    /// The running simulation, whose stalled population sources are warned about here.
    pub preview: Option<SharedPreview>,
}

impl Default for DiagnosticsPanel {
    fn default() -> Self {
        DiagnosticsPanel {
            show_errors: true,
            show_warnings: true,
            preview: None,
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

impl Panel for DiagnosticsPanel {
    fn title(&self) -> &'static str {
        "Diagnostics"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let diagnostics = document.diagnostics();
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = diagnostics.len() - errors;
        ui.horizontal(|ui| {
            ui.toggle_value(&mut self.show_errors, format!("⛔ {errors} errors"));
            ui.toggle_value(&mut self.show_warnings, format!("⚠ {warnings} warnings"));
            if diagnostics.is_empty() && document.held().is_empty() {
                ui.label(
                    RichText::new("✔ The project is valid.").color(Color32::from_rgb(90, 170, 90)),
                );
            }
        });
        if let Some(preview) = &self.preview {
            let preview = preview.borrow();
            if let Some(world) = preview.session.world() {
                spawn_watch::warnings_ui(ui, &preview.spawn_watch.stalled(world));
            }
        }
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (file, held) in document.held() {
                    ui.label(
                        RichText::new(format!(
                            "{file} changed on disk and cannot be read; the editor keeps the last good version and will not overwrite it."
                        ))
                        .color(ui.visuals().warn_fg_color),
                    );
                    for diagnostic in held {
                        self.row_ui(ui, diagnostic, out);
                    }
                    ui.separator();
                }
                for diagnostic in diagnostics {
                    self.row_ui(ui, diagnostic, out);
                }
            });
    }
}

impl DiagnosticsPanel {
    fn row_ui(&self, ui: &mut Ui, diagnostic: &Diagnostic, out: &mut Vec<Command>) {
        let (icon, colour, shown) = match diagnostic.severity {
            Severity::Error => ("⛔", ui.visuals().error_fg_color, self.show_errors),
            Severity::Warning => ("⚠", ui.visuals().warn_fg_color, self.show_warnings),
        };
        if !shown {
            return;
        }
        let text = format!(
            "{icon} {}:{}:{}  {}  — {}",
            diagnostic.file,
            diagnostic.line,
            diagnostic.column,
            diagnostic.path,
            diagnostic.message
        );
        let response = ui
            .selectable_label(false, RichText::new(text).color(colour))
            .on_hover_text(format!("expected: {}", diagnostic.expected));
        if response.clicked() {
            out.push(Command::ShowDiagnostic(diagnostic.clone()));
        }
    }
}
