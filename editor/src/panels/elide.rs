//! Long labels (project tree names, Inspector headings and list titles, diagnostics rows) are
//! cut to the width they get with "…", never wrapped or pushed past the panel's edge; hovering
//! shows the whole text.

use egui::{Response, RichText, Ui};

/// A selectable row showing `text` on one line, elided to the width left in `ui`; its hover
/// text is the whole `text`, then `more` (when not empty) under it.
pub fn selectable(ui: &mut Ui, selected: bool, text: RichText, more: &str) -> Response {
    let full = text.text().to_owned();
    ui.add(egui::Button::selectable(selected, text).truncate())
        .on_hover_text(hover_text(&full, more))
}

/// A label showing `text` on one line, elided to the width left in `ui`; its hover text is the
/// whole `text`, then `more` (when not empty) under it.
pub fn label(ui: &mut Ui, text: RichText, more: &str) -> Response {
    let full = text.text().to_owned();
    ui.add(
        egui::Label::new(text)
            .truncate()
            .show_tooltip_when_elided(false),
    )
    .on_hover_text(hover_text(&full, more))
}

/// What hovering an elided row shows: the whole text, then `more` under it.
pub fn hover_text(full: &str, more: &str) -> String {
    if more.is_empty() {
        full.to_owned()
    } else {
        format!("{full}\n{more}")
    }
}

#[cfg(test)]
mod tests {
    use super::hover_text;

    #[test]
    fn the_hover_text_is_the_whole_text_then_more() {
        assert_eq!(hover_text("a-long-id", ""), "a-long-id");
        assert_eq!(
            hover_text("a-long-id", "scenarios/a.ron"),
            "a-long-id\nscenarios/a.ron"
        );
    }
}
