//! The exclusion regions of the previewed recipe — each `Exclude` override of its override
//! sets, a half-open ground rectangle the scatter keeps out of — drawn over the Viewport as
//! outlined, lightly filled regions with a legend entry, and found under a click so the Viewport
//! can select the override (the Inspector then shows its fields, editable with undo).
//!
//! An exclusion is named by its set and its place in the set's `overrides` list, as the
//! Inspector's selection names it; it is read from the document each frame, so an edit or an
//! undo moves the drawn region at once. The scenario's keep-out boxes (`no_spawn_box`,
//! `no_removal_box`, drawn by `overlays`) are found under a click the same way
//! ([`scenario_box_at`]).

use egui::{Color32, Pos2, Rect, Shape, Stroke, Ui};
use stagecraft_runtime::project::{FieldPath, OverrideAction, Project};
use three_d::Srgba;

use super::camera::OrbitCamera;
use super::palette;
use crate::edits::{DocId, Selection};

/// One exclusion region: where it is written and the rectangle it keeps out, meters.
#[derive(Clone, Debug, PartialEq)]
pub struct Exclusion {
    /// The override set holding it.
    pub set: String,
    /// Its index in the set's `overrides`.
    pub index: usize,
    /// The scatter stage it applies to.
    pub stage: u32,
    /// Lowest corner (included), meters.
    pub min_m: [f64; 2],
    /// Highest corner (excluded), meters.
    pub max_m: [f64; 2],
}

impl Exclusion {
    /// True when ground point `p` (meters) is inside the half-open rectangle.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        (0..2).all(|axis| self.min_m[axis] <= p[axis] && p[axis] < self.max_m[axis])
    }

    /// Its area, square meters.
    pub fn area_m2(&self) -> f64 {
        (self.max_m[0] - self.min_m[0]).max(0.0) * (self.max_m[1] - self.min_m[1]).max(0.0)
    }

    /// The selection naming it: its entry of the override set, which the Inspector opens.
    pub fn selection(&self) -> Selection {
        Selection::field(
            DocId::Overrides(self.set.clone()),
            FieldPath::root().field("overrides").index(self.index),
        )
    }

    /// True when `selection` names this exclusion or a field inside it.
    pub fn is_selected_by(&self, selection: &Selection) -> bool {
        let own = self.selection();
        selection.doc == own.doc && selection.path.0.starts_with(&own.path.0)
    }
}

/// Every `Exclude` override of the override sets of `recipe`, by set id then list order.
pub fn of(project: &Project, recipe: &str) -> Vec<Exclusion> {
    let mut found = Vec::new();
    for set in project.overrides.values().filter(|s| s.recipe == recipe) {
        for (index, item) in set.overrides.iter().enumerate() {
            if let OverrideAction::Exclude { min, max } = &item.action {
                found.push(Exclusion {
                    set: set.id.clone(),
                    index,
                    stage: item.stage,
                    min_m: [min.x, min.y],
                    max_m: [max.x, max.y],
                });
            }
        }
    }
    found
}

/// The exclusion containing ground point `p`: the smallest when several overlap (then the
/// first in order), so a region drawn inside another stays reachable.
pub fn at(exclusions: &[Exclusion], p: [f64; 2]) -> Option<&Exclusion> {
    exclusions
        .iter()
        .filter(|e| e.contains(p))
        .min_by(|a, b| a.area_m2().total_cmp(&b.area_m2()))
}

/// The scenario field of the box (`no_spawn_box` or `no_removal_box`) of `scenario` whose
/// ground footprint holds `p` (boxes are inclusive), the smaller first; as a selection of
/// scenario `id`.
pub fn scenario_box_at(
    scenario: &stagecraft_runtime::project::Scenario,
    id: &str,
    p: [f64; 2],
) -> Option<Selection> {
    let boxes = [
        ("no_spawn_box", scenario.no_spawn_box),
        ("no_removal_box", scenario.no_removal_box),
    ];
    boxes
        .into_iter()
        .filter_map(|(field, b)| Some((field, b?)))
        .filter(|(_, b)| b.min.x <= p[0] && p[0] <= b.max.x && b.min.y <= p[1] && p[1] <= b.max.y)
        .min_by(|(_, a), (_, b)| {
            let area =
                |b: &stagecraft_runtime::project::Box3| (b.max.x - b.min.x) * (b.max.y - b.min.y);
            area(a).total_cmp(&area(b))
        })
        .map(|(field, _)| {
            Selection::field(
                DocId::Scenario(id.to_owned()),
                FieldPath::root().field(field),
            )
        })
}

/// The legend entries of a scenario's keep-out boxes that are set.
pub fn scenario_box_legend(
    scenario: &stagecraft_runtime::project::Scenario,
) -> Vec<(String, Srgba)> {
    let mut entries = Vec::new();
    if scenario.no_spawn_box.is_some() {
        entries.push(("no-spawn box".to_owned(), palette::NO_SPAWN));
    }
    if scenario.no_removal_box.is_some() {
        entries.push(("no-removal box".to_owned(), palette::NO_REMOVAL));
    }
    entries
}

/// The legend entry of the regions, when there are any.
pub fn legend(exclusions: &[Exclusion]) -> Vec<(String, Srgba)> {
    if exclusions.is_empty() {
        return Vec::new();
    }
    vec![(
        "exclusion (Exclude override)".to_owned(),
        palette::EXCLUSION,
    )]
}

/// The on-screen outline of `exclusion` in the viewport `rect` seen by `camera`, when every
/// corner projects.
pub fn outline(rect: Rect, camera: &OrbitCamera, exclusion: &Exclusion) -> Option<[Pos2; 4]> {
    let size = [rect.width(), rect.height()];
    let (a, b) = (exclusion.min_m, exclusion.max_m);
    let corners = [[a[0], a[1]], [b[0], a[1]], [b[0], b[1]], [a[0], b[1]]];
    let mut points = [Pos2::ZERO; 4];
    for (point, corner) in points.iter_mut().zip(corners) {
        let at = camera.project(
            three_d::vec3(corner[0] as f32, corner[1] as f32, 0.02),
            size,
        )?;
        *point = rect.min + egui::vec2(at[0], at[1]);
    }
    Some(points)
}

/// Draws `exclusions` over the viewport `rect`: a light fill and an outline each, thicker for
/// the one `selection` names.
pub fn exclusions_ui(
    ui: &Ui,
    rect: Rect,
    camera: &OrbitCamera,
    exclusions: &[Exclusion],
    selection: &Selection,
) {
    let painter = ui.painter_at(rect);
    let c = palette::EXCLUSION;
    for exclusion in exclusions {
        let Some(points) = outline(rect, camera, exclusion) else {
            continue;
        };
        let selected = exclusion.is_selected_by(selection);
        let fill = Color32::from_rgba_unmultiplied(c.r, c.g, c.b, if selected { 70 } else { 40 });
        let width = if selected { 3.0 } else { 1.5 };
        let stroke = Stroke::new(width, Color32::from_rgb(c.r, c.g, c.b));
        painter.add(Shape::convex_polygon(points.to_vec(), fill, Stroke::NONE));
        painter.add(Shape::closed_line(points.to_vec(), stroke));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(index: usize, min_m: [f64; 2], max_m: [f64; 2]) -> Exclusion {
        Exclusion {
            set: "edits".to_owned(),
            index,
            stage: 1001,
            min_m,
            max_m,
        }
    }

    #[test]
    fn the_smallest_region_containing_a_point_is_found_half_open() {
        let big = region(0, [0.0, 0.0], [10.0, 10.0]);
        let small = region(3, [2.0, 2.0], [4.0, 4.0]);
        let regions = [big.clone(), small.clone()];
        assert_eq!(at(&regions, [3.0, 3.0]), Some(&small));
        assert_eq!(at(&regions, [8.0, 1.0]), Some(&big));
        // The highest corner is excluded from the region, as the scatter excludes it.
        assert_eq!(at(&regions, [10.0, 5.0]), None);
        assert_eq!(at(&regions, [0.0, 0.0]), Some(&big));
        assert_eq!(
            small.selection().path.to_string(),
            FieldPath::root().field("overrides").index(3).to_string()
        );
        assert!(small.is_selected_by(&Selection::field(
            DocId::Overrides("edits".into()),
            FieldPath::root()
                .field("overrides")
                .index(3)
                .field("action"),
        )));
        assert!(!big.is_selected_by(&small.selection()));
    }

    #[test]
    fn a_point_in_a_scenario_box_selects_its_field() {
        use stagecraft_runtime::project::{Box3, Scenario, Vec3};
        let cube = |h: f64| Box3 {
            min: Vec3 {
                x: -h,
                y: -h,
                z: 0.0,
            },
            max: Vec3 { x: h, y: h, z: 2.0 },
        };
        let scenario = Scenario {
            no_spawn_box: Some(cube(10.0)),
            no_removal_box: Some(cube(2.0)),
            ..Scenario::default()
        };
        let field = |p| scenario_box_at(&scenario, "s", p).map(|s| s.path.to_string());
        assert_eq!(field([1.0, 1.0]), Some("no_removal_box".to_owned()));
        assert_eq!(field([5.0, -10.0]), Some("no_spawn_box".to_owned()));
        assert_eq!(field([10.5, 0.0]), None);
        assert_eq!(scenario_box_legend(&scenario).len(), 2);
    }

    #[test]
    fn the_pine_clearing_exclusion_is_read_from_its_override_set() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("example readable");
        let project = loaded.project.expect("example loads");
        let found = of(&project, "pine-clearing");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].set, "pine-clearing-edits");
        assert_eq!(found[0].stage, 1001);
        assert_eq!(
            (found[0].min_m, found[0].max_m),
            ([25.0, 44.0], [29.0, 48.0])
        );
        assert!(of(&project, "another-recipe").is_empty());
        assert_eq!(legend(&found).len(), 1);
    }
}
