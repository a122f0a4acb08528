//! The Viewport's inspection toolbar: serial stepping through the previewed recipe's stages
//! (Back, Next, All; F10 and Shift+F10 do the same), the locked and isolated stage with its
//! release, the stage isolated with frozen inputs (F9) with its note and release, and the
//! heatmap mode. View state only: nothing here is a project edit.

use egui::Ui;
use stagecraft_runtime::content::heatmap::{HeatmapMode, RejectionKind};

use crate::command::StageCommand;
use crate::viewport::heatmap_marks::mode_name;
use crate::viewport::Preview;

/// The heatmap choices of the combo, in order (`None`: off).
pub const HEATMAP_CHOICES: [Option<HeatmapMode>; 7] = [
    None,
    Some(HeatmapMode::Candidates),
    Some(HeatmapMode::Rejections(None)),
    Some(HeatmapMode::Rejections(Some(RejectionKind::OutsideRegion))),
    Some(HeatmapMode::Rejections(Some(RejectionKind::InKeepOut))),
    Some(HeatmapMode::Rejections(Some(RejectionKind::Conflict))),
    Some(HeatmapMode::Density),
];

/// The combo's text for a heatmap choice.
pub fn choice_text(choice: Option<HeatmapMode>) -> String {
    choice.map_or_else(|| "off".to_owned(), mode_name)
}

/// The toolbar row; true when what the Viewport draws changed.
pub fn stage_toolbar_ui(ui: &mut Ui, preview: &mut Preview) -> bool {
    let content = preview.session.content().cloned();
    let mut command = None;
    let heatmap_before = preview.options.heatmap;
    ui.horizontal_wrapped(|ui| {
        let inspect = &preview.inspect;
        let stages = content.as_ref().map_or(0, |c| c.stages().len());
        ui.label("Stages");
        let back = ui
            .add_enabled(stages > 0, egui::Button::new("◀ Back"))
            .on_hover_text("One stage back in execution order (Shift+F10)");
        if back.clicked() {
            command = Some(StageCommand::Back);
        }
        let next = ui
            .add_enabled(stages > 0, egui::Button::new("Next ▶"))
            .on_hover_text("One stage further in execution order (F10)");
        if next.clicked() {
            command = Some(StageCommand::Next);
        }
        let stepping = inspect.step().is_some();
        if ui
            .add_enabled(stepping, egui::Button::new("All"))
            .on_hover_text("Show every stage's product again")
            .clicked()
        {
            command = Some(StageCommand::All);
        }
        if let Some(content) = &content {
            ui.label(step_text(preview, content));
        }
        if let Some(pinned) = inspect.pinned() {
            ui.separator();
            let stale = content.as_ref().is_some_and(|c| inspect.pin_is_stale(c));
            let text = format!(
                "locked: stage {}{}",
                pinned.stage,
                if stale { " (older than current)" } else { "" }
            );
            ui.label(egui::RichText::new(text).strong());
            if ui.button("Release").clicked() {
                command = Some(StageCommand::TogglePin(pinned.stage));
            }
        }
        if let Some(isolated) = inspect.isolated() {
            ui.separator();
            let text = format!(
                "isolated: stage {} · {}",
                isolated.stage(),
                isolated.note(content.as_deref())
            );
            ui.label(egui::RichText::new(text).strong());
            if let Some(problem) = &isolated.problem {
                let colour = ui.visuals().error_fg_color;
                ui.colored_label(colour, format!("re-run failed: {problem}"));
            }
            if ui
                .button("Release")
                .on_hover_text("Draw the live content again (F9)")
                .clicked()
            {
                command = Some(StageCommand::ToggleIsolate(isolated.stage()));
            }
        }
        ui.separator();
        heatmap_combo_ui(ui, &mut preview.options.heatmap);
    });
    if let Some(command) = command {
        preview.inspect.apply(command, content.as_deref());
    }
    command.is_some() || preview.options.heatmap != heatmap_before
}

/// Where stepping stands: `step k/n · id label`, or `all n stages`.
pub fn step_text(preview: &Preview, content: &crate::session::PreviewContent) -> String {
    let inspect = &preview.inspect;
    let n = content.stages().len();
    match (inspect.shown_steps(content), inspect.stepped_stage(content)) {
        (Some(k), Some(stage)) => {
            let label = content.stage(stage).map_or("", |s| s.label.as_str());
            format!("step {k}/{n} · {stage} {label}")
        }
        _ => format!("all {n} stages"),
    }
}

fn heatmap_combo_ui(ui: &mut Ui, heatmap: &mut Option<HeatmapMode>) {
    egui::ComboBox::from_label("Heatmap")
        .selected_text(choice_text(*heatmap))
        .show_ui(ui, |ui| {
            for choice in HEATMAP_CHOICES {
                ui.selectable_value(heatmap, choice, choice_text(choice));
            }
        })
        .response
        .on_hover_text(
            "Counts per bin of the last scatter stage shown: candidates, rejections (all or one \
             reason) or accepted placements",
        );
}
