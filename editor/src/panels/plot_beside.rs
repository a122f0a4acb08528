//! The lower tabs' layout (Timeline, Population, Motion, Crossings): controls, text and tables
//! on the left in their own scroll area, the counter plots on the right as tall as the tab body
//! (never shorter than [`MIN_PLOT_HEIGHT`]), so the default 1280×800 layout shows every plot
//! without scrolling, however long the text beside it.

use egui::{pos2, vec2, Rect, Sense, Ui, UiBuilder};

use super::timeline_plot::MIN_PLOT_HEIGHT;

/// The gap between the text column and the plots, points.
const GAP: f32 = 10.0;

/// Where the text and the plots go in a tab body `rect`: the text takes `text_share` of the
/// width, the plots the rest; both are as tall as the body and at least [`MIN_PLOT_HEIGHT`]
/// (a shorter body scrolls as a whole).
pub fn split(rect: Rect, text_share: f32) -> (Rect, Rect) {
    let height = rect.height().max(MIN_PLOT_HEIGHT);
    let text_w = (rect.width() * text_share.clamp(0.0, 1.0)).round();
    let text = Rect::from_min_size(rect.min, vec2(text_w, height));
    let plots = Rect::from_min_max(
        pos2((rect.min.x + text_w + GAP).min(rect.max.x), rect.min.y),
        pos2(rect.max.x, rect.min.y + height),
    );
    (text, plots)
}

/// Draws `text` in a scroll area (`id`) over `text_share` of the width left in `ui` and `plots`
/// beside it, filling the height left, both over `state`; returns the rect the plots got.
pub fn text_beside_plots<T>(
    ui: &mut Ui,
    id: &str,
    text_share: f32,
    state: &mut T,
    text: impl FnOnce(&mut Ui, &mut T),
    plots: impl FnOnce(&mut Ui, &mut T),
) -> Rect {
    let rect = ui.available_rect_before_wrap();
    let (text_rect, plot_rect) = split(rect, text_share);
    ui.scope_builder(UiBuilder::new().max_rect(text_rect), |ui| {
        ui.set_clip_rect(text_rect.intersect(ui.clip_rect()));
        egui::ScrollArea::vertical()
            .id_salt(id)
            .auto_shrink([false, false])
            .show(ui, |ui| text(ui, state));
    });
    ui.scope_builder(UiBuilder::new().max_rect(plot_rect), |ui| {
        ui.set_clip_rect(plot_rect.intersect(ui.clip_rect()));
        plots(ui, state);
    });
    ui.allocate_rect(text_rect.union(plot_rect), Sense::hover());
    plot_rect
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plots_get_the_rest_of_the_width_and_the_whole_height() {
        let body = Rect::from_min_size(pos2(350.0, 620.0), vec2(920.0, 180.0));
        let (text, plots) = split(body, 0.4);
        assert_eq!(
            text,
            Rect::from_min_size(pos2(350.0, 620.0), vec2(368.0, 180.0))
        );
        assert_eq!(
            plots,
            Rect::from_min_max(pos2(728.0, 620.0), pos2(1270.0, 800.0))
        );
        // A body shorter than a plot's minimum: both columns keep it (the tab scrolls).
        let short = Rect::from_min_size(pos2(0.0, 0.0), vec2(500.0, 90.0));
        let (text, plots) = split(short, 0.5);
        assert_eq!(
            (text.height(), plots.height()),
            (MIN_PLOT_HEIGHT, MIN_PLOT_HEIGHT)
        );
        assert_eq!(plots.min.x, 260.0);
    }
}
