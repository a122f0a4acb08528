//! The Viewport's legend strip: every legend entry of what is drawn (agent states and
//! lifecycle, layout colours, crossing phases, spawn candidates, tiers, panic, exclusions) in a
//! column at the tab's right edge, beside the scene and never over it, so no legend covers the
//! scene's content or a drag handle. Its header collapses it to a narrow tab, giving the scene
//! the width back.

use egui::{Color32, Rect, RichText, Ui, UiBuilder};
use three_d::Srgba;

use crate::viewport::exclusions::Exclusion;
use crate::viewport::{palette, Preview};

/// The strip's width while open, points (names longer than it are elided, whole on hover).
pub const OPEN_W: f32 = 190.0;

/// The strip's width while collapsed: room for its header button.
pub const COLLAPSED_W: f32 = 26.0;

/// The legend's sections: a title and its entries (a name and a colour) each.
pub type Sections = Vec<(&'static str, Vec<(String, Srgba)>)>;

/// Height of one legend row, points.
const ROW_H: f32 = 17.0;

/// The strip's width: none when there is nothing to explain, else [`OPEN_W`] or, collapsed,
/// [`COLLAPSED_W`].
pub fn strip_width(entries: usize, open: bool) -> f32 {
    match (entries, open) {
        (0, _) => 0.0,
        (_, true) => OPEN_W,
        (_, false) => COLLAPSED_W,
    }
}

/// Splits the Viewport's drawing `rect` into the scene and, when `strip_w` is not zero, the
/// legend strip along its right edge; the two never overlap.
pub fn split(rect: Rect, strip_w: f32) -> (Rect, Option<Rect>) {
    if strip_w <= 0.0 {
        return (rect, None);
    }
    let strip_w = strip_w.min(rect.width() * 0.5);
    let scene = Rect::from_min_max(rect.min, egui::pos2(rect.max.x - strip_w, rect.max.y));
    let strip = Rect::from_min_max(egui::pos2(scene.max.x, rect.min.y), rect.max);
    (scene, Some(strip))
}

/// The legend's sections, each a title and its entries: the agents' colours when a world runs,
/// then what the shown layers and the `exclusions` draw ([`layer_entries`]); empty sections are
/// left out.
pub fn sections(
    preview: &Preview,
    exclusions: &[Exclusion],
) -> Vec<(&'static str, Vec<(String, Srgba)>)> {
    let mut sections = Vec::new();
    if preview.session.world().is_some() {
        let agents = palette::AGENT_STATES
            .iter()
            .map(|(state, name)| ((*name).to_owned(), palette::agent_state(*state)))
            .chain(
                palette::AGENT_LIFECYCLE
                    .iter()
                    .map(|(colour, name)| ((*name).to_owned(), *colour)),
            )
            .collect();
        sections.push(("Agents", agents));
    }
    let layers = layer_entries(preview, exclusions);
    if !layers.is_empty() {
        sections.push(("Layers", layers));
    }
    if let Some((stage, heat)) = preview.scene.heatmap() {
        sections.push((
            "Heatmap",
            crate::viewport::heatmap_marks::legend(stage, heat),
        ));
    }
    sections
}

/// Adds `entries` to the end of the "Layers" section (made when missing).
pub fn add_layer_entries(
    sections: &mut Vec<(&'static str, Vec<(String, Srgba)>)>,
    entries: Vec<(String, Srgba)>,
) {
    if entries.is_empty() {
        return;
    }
    match sections.iter_mut().find(|(title, _)| *title == "Layers") {
        Some((_, layers)) => layers.extend(entries),
        None => sections.push(("Layers", entries)),
    }
}

/// Every legend entry of what the shown layers draw now: exclusions, layout colours, crossing
/// colours of the bodies, spawn candidates, tiers and panic.
pub fn layer_entries(preview: &Preview, exclusions: &[Exclusion]) -> Vec<(String, Srgba)> {
    let session = &preview.session;
    let mut legend = crate::viewport::exclusions::legend(exclusions);
    legend.extend(
        session
            .content()
            .filter(|_| preview.options.show_layouts)
            .map(|c| crate::viewport::cells::legend(c))
            .unwrap_or_default(),
    );
    if let Some(world) = session.world() {
        legend.extend(crate::viewport::crossing_marks::crossing_legend(world));
        legend.extend(crate::viewport::task_marks::gait_legend(world));
    }
    if let Some(world) = session.world().filter(|_| preview.options.show_candidates) {
        legend.extend(candidate_legend(world));
    }
    if let Some(world) = session.world().filter(|_| preview.options.show_tiers) {
        legend.extend(crate::viewport::crowd_marks::tier_legend(world));
    }
    if let Some(world) = session.world().filter(|_| preview.options.show_panic) {
        let drawn = preview.scene.layer(crate::viewport::LayerKind::Panic);
        legend.extend(crate::viewport::crowd_marks::panic_legend(world, drawn));
    }
    legend
}

/// Legend entries for the spawn-candidate marks the world keeps: admitted, then each refusing
/// gate present, in gate order.
fn candidate_legend(world: &stagecraft_runtime::sim::World) -> Vec<(String, Srgba)> {
    let mut admitted = false;
    let mut gates = std::collections::BTreeSet::new();
    for (_, mark) in world.recent_candidates() {
        match mark.rejection {
            None => admitted = true,
            Some(reason) => {
                gates.insert(reason);
            }
        }
    }
    let mut entries = Vec::new();
    if admitted {
        entries.push(("spawn admitted".to_owned(), palette::ADMITTED_CANDIDATE));
    }
    entries.extend(
        gates
            .into_iter()
            .map(|r| (format!("spawn refused: {r:?}"), palette::spawn_rejection(r))),
    );
    entries
}

/// Draws the strip in `strip`: its header (a button that collapses or opens it) and, open, the
/// sections' entries in a scroll area.
pub fn strip_ui(
    ui: &mut Ui,
    strip: Rect,
    sections: &[(&'static str, Vec<(String, Srgba)>)],
    open: &mut bool,
) {
    ui.scope_builder(UiBuilder::new().max_rect(strip), |ui| {
        ui.set_clip_rect(strip.intersect(ui.clip_rect()));
        ui.painter()
            .rect_filled(strip, 0.0, ui.visuals().faint_bg_color);
        let count: usize = sections.iter().map(|(_, entries)| entries.len()).sum();
        let (header, hover) = if *open {
            (
                "Legend ⏵".to_owned(),
                "Hide the legend (the scene takes its width)",
            )
        } else {
            ("⏴".to_owned(), "Show the legend")
        };
        // The header keeps clear of the strip's top edge, which the toolbar above may overdraw.
        ui.add_space(4.0);
        let clicked = ui
            .add(egui::Button::new(RichText::new(header).small()).small())
            .on_hover_text(format!("{hover}: {count} entries"))
            .clicked();
        if clicked {
            *open = !*open;
        }
        if !*open {
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("viewport-legend")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.spacing_mut().item_spacing.y = 1.0;
                for (title, entries) in sections {
                    ui.label(RichText::new(*title).small().strong());
                    for (name, colour) in entries {
                        entry_ui(ui, name, *colour);
                    }
                    ui.add_space(4.0);
                }
            });
    });
}

/// One legend row: a swatch in `colour` and the elided `name`.
fn entry_ui(ui: &mut Ui, name: &str, colour: Srgba) {
    ui.horizontal(|ui| {
        let (swatch, _) =
            ui.allocate_exact_size(egui::vec2(10.0, ROW_H - 5.0), egui::Sense::hover());
        let swatch = Rect::from_center_size(swatch.center(), egui::vec2(10.0, 10.0));
        // A translucent colour (the heatmap's) is painted translucent, as in the scene.
        let fill = Color32::from_rgba_unmultiplied(colour.r, colour.g, colour.b, colour.a);
        ui.painter().rect_filled(swatch, 2.0, fill);
        ui.painter().rect_stroke(
            swatch,
            2.0,
            egui::Stroke::new(1.0, Color32::from_gray(90)),
            egui::StrokeKind::Outside,
        );
        let text = RichText::new(name)
            .small()
            .color(ui.visuals().strong_text_color());
        super::elide::label(ui, text, "");
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strip_is_beside_the_scene_never_over_it() {
        let rect = Rect::from_min_size(egui::pos2(320.0, 100.0), egui::vec2(950.0, 470.0));
        let (scene, strip) = split(rect, strip_width(12, true));
        let strip = strip.expect("a strip");
        assert_eq!(scene.max.x, 1080.0);
        assert_eq!(
            strip,
            Rect::from_min_max(egui::pos2(1080.0, 100.0), rect.max)
        );
        assert!(!scene.intersects(strip.shrink(0.5)));
        let (scene, strip) = split(rect, strip_width(12, false));
        assert_eq!(strip.map(|s| s.width()), Some(COLLAPSED_W));
        assert_eq!(scene.width(), 950.0 - COLLAPSED_W);
        assert_eq!(split(rect, strip_width(0, true)), (rect, None));
    }
}
