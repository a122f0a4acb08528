//! The operator palette: one button per registered operator (id and version), from the runtime
//! registry, so a new operator appears here without touching the editor.

use egui::Ui;
use stagecraft_runtime::ops::registry::Registry;

/// Shows the operators of `registry`, by id then version; returns the one clicked.
pub fn palette_ui(ui: &mut Ui, registry: &Registry) -> Option<(&'static str, u32)> {
    let mut chosen = None;
    for op in registry.operators() {
        let text = format!("{} v{}", op.id, op.algorithm);
        if ui.button(text).on_hover_text(op.summary).clicked() {
            chosen = Some((op.id, op.algorithm));
        }
    }
    chosen
}
