//! The Diff tab's entries drawn over the Viewport: added objects as green rings, removed ones as
//! red ghost rings at their old position, moved ones as a yellow arrow from the old position to
//! the new, changed ones as blue rings.

use egui::{Color32, Pos2, Rect, Stroke, Ui};

use super::camera::OrbitCamera;
use super::{DiffMark, DiffMarkKind};

/// Height above the ground the marks are drawn at, meters.
const MARK_Z_M: f32 = 0.3;

fn colour(kind: DiffMarkKind) -> Color32 {
    match kind {
        DiffMarkKind::Added => Color32::from_rgb(90, 210, 110),
        DiffMarkKind::Removed => Color32::from_rgba_unmultiplied(235, 80, 70, 170),
        DiffMarkKind::Moved => Color32::from_rgb(240, 200, 60),
        DiffMarkKind::Changed => Color32::from_rgb(90, 150, 255),
    }
}

/// Draws `marks` over the viewport `rect` seen by `camera`.
pub fn diff_marks_ui(ui: &Ui, rect: Rect, camera: &OrbitCamera, marks: &[DiffMark]) {
    if marks.is_empty() {
        return;
    }
    let painter = ui.painter_at(rect);
    let size = [rect.width(), rect.height()];
    let screen = |p: [f64; 2]| -> Option<Pos2> {
        let point = camera.project(three_d::vec3(p[0] as f32, p[1] as f32, MARK_Z_M), size)?;
        Some(rect.min + egui::vec2(point[0], point[1]))
    };
    for mark in marks {
        let stroke = Stroke::new(2.0, colour(mark.kind));
        match (
            mark.kind,
            mark.from.and_then(screen),
            mark.to.and_then(screen),
        ) {
            (DiffMarkKind::Moved, Some(from), Some(to)) => {
                painter.circle_stroke(from, 4.0, Stroke::new(1.0, colour(mark.kind)));
                painter.arrow(from, to - from, stroke);
            }
            (DiffMarkKind::Removed, Some(at), _) => {
                painter.circle_stroke(at, 6.0, stroke);
                painter.line_segment(
                    [at + egui::vec2(-4.0, -4.0), at + egui::vec2(4.0, 4.0)],
                    stroke,
                );
            }
            (_, _, Some(at)) | (_, Some(at), None) => {
                painter.circle_stroke(at, 6.0, stroke);
            }
            _ => {}
        }
    }
}
