//! Drag handles for the scenario in the Viewport: each box's two ground corners and its centre,
//! and each observer's position. A drag is one undoable edit of the scenario (the edits of one
//! drag merge into one undo step); a position that would invert a box is refused with a message,
//! and the box stays where the drag last left it valid.

use egui::{Color32, Pos2, Rect, Sense, Ui};
use stagecraft_runtime::project::{Box3, FieldPath, Scenario, Vec3};

use super::camera::OrbitCamera;
use crate::command::Command;
use crate::edits::{DocId, DocValue, MergeKey, ProjectEdit, Selection};

/// Which of the scenario's boxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoxSlot {
    /// `no_spawn_box`.
    NoSpawn,
    /// `no_removal_box`.
    NoRemoval,
}

impl BoxSlot {
    fn field(self) -> &'static str {
        match self {
            BoxSlot::NoSpawn => "no_spawn_box",
            BoxSlot::NoRemoval => "no_removal_box",
        }
    }

    fn name(self) -> &'static str {
        match self {
            BoxSlot::NoSpawn => "no-spawn box",
            BoxSlot::NoRemoval => "no-removal box",
        }
    }

    fn get(self, scenario: &Scenario) -> Option<Box3> {
        match self {
            BoxSlot::NoSpawn => scenario.no_spawn_box,
            BoxSlot::NoRemoval => scenario.no_removal_box,
        }
    }

    fn get_mut(self, scenario: &mut Scenario) -> Option<&mut Box3> {
        match self {
            BoxSlot::NoSpawn => scenario.no_spawn_box.as_mut(),
            BoxSlot::NoRemoval => scenario.no_removal_box.as_mut(),
        }
    }
}

/// What a handle moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandleTarget {
    /// A box's lowest corner (its min x and y).
    BoxMin(BoxSlot),
    /// A box's highest corner (its max x and y).
    BoxMax(BoxSlot),
    /// A whole box, by its centre.
    BoxCentre(BoxSlot),
    /// An observer's position (x and y; its height stays).
    Observer(usize),
    /// One keyframe of an observer's path (x and y; its height stays): observer, keyframe.
    Keyframe(usize, usize),
}

/// A handle: what it moves and where it is, meters.
#[derive(Clone, Debug, PartialEq)]
pub struct Handle {
    /// What it moves.
    pub target: HandleTarget,
    /// Where it is drawn.
    pub at: Vec3,
}

/// The scenario's handles, boxes first, then observers.
pub fn handles(scenario: &Scenario) -> Vec<Handle> {
    let mut out = Vec::new();
    for slot in [BoxSlot::NoSpawn, BoxSlot::NoRemoval] {
        let Some(b) = slot.get(scenario) else {
            continue;
        };
        let z = b.min.z;
        let centre = v3(0.5 * (b.min.x + b.max.x), 0.5 * (b.min.y + b.max.y), z);
        out.push(Handle {
            target: HandleTarget::BoxMin(slot),
            at: v3(b.min.x, b.min.y, z),
        });
        out.push(Handle {
            target: HandleTarget::BoxMax(slot),
            at: v3(b.max.x, b.max.y, z),
        });
        out.push(Handle {
            target: HandleTarget::BoxCentre(slot),
            at: centre,
        });
    }
    for (index, observer) in scenario.observers.iter().enumerate() {
        out.push(Handle {
            target: HandleTarget::Observer(index),
            at: observer.position,
        });
        for (key, keyframe) in observer.path.iter().enumerate() {
            out.push(Handle {
                target: HandleTarget::Keyframe(index, key),
                at: keyframe.position,
            });
        }
    }
    out
}

fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3 { x, y, z }
}

/// Rounds to centimetres, so dragged values read well in the Inspector and the file.
fn to_cm(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The scenario with `target` dragged to ground point (`x`, `y`), or why that is refused.
pub fn apply_drag(
    scenario: &Scenario,
    target: HandleTarget,
    x: f64,
    y: f64,
) -> Result<Scenario, String> {
    if !x.is_finite() || !y.is_finite() {
        return Err("the pointer is not over the ground".to_owned());
    }
    let (x, y) = (to_cm(x), to_cm(y));
    let mut changed = scenario.clone();
    match target {
        HandleTarget::BoxMin(slot) | HandleTarget::BoxMax(slot) | HandleTarget::BoxCentre(slot) => {
            let Some(b) = slot.get_mut(&mut changed) else {
                return Err(format!("the scenario has no {}", slot.name()));
            };
            match target {
                HandleTarget::BoxMin(_) => {
                    b.min.x = x;
                    b.min.y = y;
                }
                HandleTarget::BoxMax(_) => {
                    b.max.x = x;
                    b.max.y = y;
                }
                _ => {
                    let dx = x - to_cm(0.5 * (b.min.x + b.max.x));
                    let dy = y - to_cm(0.5 * (b.min.y + b.max.y));
                    b.min.x = to_cm(b.min.x + dx);
                    b.max.x = to_cm(b.max.x + dx);
                    b.min.y = to_cm(b.min.y + dy);
                    b.max.y = to_cm(b.max.y + dy);
                }
            }
            for (axis, min, max) in [("x", b.min.x, b.max.x), ("y", b.min.y, b.max.y)] {
                if min > max {
                    return Err(format!(
                        "refused: the {}'s min {axis} {min:.2} m would pass its max {axis} {max:.2} m",
                        slot.name()
                    ));
                }
            }
        }
        HandleTarget::Observer(index) => {
            let Some(observer) = changed.observers.get_mut(index) else {
                return Err(format!("the scenario has no observer {index}"));
            };
            observer.position.x = x;
            observer.position.y = y;
        }
        HandleTarget::Keyframe(index, key) => {
            let Some(keyframe) = changed
                .observers
                .get_mut(index)
                .and_then(|o| o.path.get_mut(key))
            else {
                return Err(format!("observer {index} has no keyframe {key}"));
            };
            keyframe.position.x = x;
            keyframe.position.y = y;
        }
    }
    Ok(changed)
}

fn target_path(target: HandleTarget) -> (FieldPath, String) {
    match target {
        HandleTarget::BoxMin(slot) | HandleTarget::BoxMax(slot) | HandleTarget::BoxCentre(slot) => {
            (
                FieldPath::root().field(slot.field()),
                format!("Move the {}", slot.name()),
            )
        }
        HandleTarget::Observer(index) => (
            FieldPath::root()
                .field("observers")
                .index(index)
                .field("position"),
            format!("Move observer {index}"),
        ),
        HandleTarget::Keyframe(index, key) => (
            FieldPath::root()
                .field("observers")
                .index(index)
                .field("path")
                .index(key)
                .field("position"),
            format!("Move keyframe {key} of observer {index}"),
        ),
    }
}

fn colour(target: HandleTarget) -> Color32 {
    match target {
        HandleTarget::BoxMin(BoxSlot::NoSpawn)
        | HandleTarget::BoxMax(BoxSlot::NoSpawn)
        | HandleTarget::BoxCentre(BoxSlot::NoSpawn) => Color32::from_rgb(235, 80, 70),
        HandleTarget::BoxMin(BoxSlot::NoRemoval)
        | HandleTarget::BoxMax(BoxSlot::NoRemoval)
        | HandleTarget::BoxCentre(BoxSlot::NoRemoval) => Color32::from_rgb(80, 130, 255),
        HandleTarget::Observer(_) => Color32::from_gray(235),
        HandleTarget::Keyframe(..) => Color32::from_rgb(250, 200, 90),
    }
}

/// The handles' drag state: the gesture count (each drag is its own undo step), the last
/// refusal, and where each handle was drawn.
#[derive(Default)]
pub struct HandleState {
    gesture: u64,
    /// Why the last drag was refused, shown over the viewport until the next drag.
    pub message: Option<String>,
    /// Where each handle was drawn last frame, in screen points.
    pub drawn: Vec<(HandleTarget, Pos2)>,
}

/// Draws the handles of `scenario` over the viewport `rect` seen by `camera` and turns their
/// drags into edits.
pub fn handles_ui(
    ui: &Ui,
    rect: Rect,
    camera: &OrbitCamera,
    scenario: &Scenario,
    state: &mut HandleState,
    out: &mut Vec<Command>,
) {
    let size = [rect.width(), rect.height()];
    let painter = ui.painter_at(rect);
    state.drawn.clear();
    for handle in handles(scenario) {
        let world = three_d::vec3(handle.at.x as f32, handle.at.y as f32, handle.at.z as f32);
        let Some(point) = camera.project(world, size) else {
            continue;
        };
        let at = rect.min + egui::vec2(point[0], point[1]);
        if !rect.contains(at) {
            continue;
        }
        state.drawn.push((handle.target, at));
        let id = ui.id().with(("scenario-handle", handle.target));
        let response = ui
            .interact(
                Rect::from_center_size(at, egui::vec2(14.0, 14.0)),
                id,
                Sense::drag(),
            )
            .on_hover_text(format!("{} — drag to move", target_path(handle.target).1));
        let radius = if response.hovered() || response.dragged() {
            6.5
        } else {
            5.0
        };
        paint_handle(&painter, at, radius, handle.target);
        if response.drag_started() {
            state.gesture += 1;
            state.message = None;
        }
        if !response.dragged() {
            continue;
        }
        let Some(pointer) = response.interact_pointer_pos() else {
            continue;
        };
        let local = pointer - rect.min;
        let Some(ground) = camera
            .ray([local.x, local.y], size)
            .and_then(|ray| ray.hit_plane_z(handle.at.z as f32))
        else {
            continue;
        };
        let ground_m = (f64::from(ground.x), f64::from(ground.y));
        drag_edit(scenario, handle.target, ground_m, state, out);
    }
}

/// A handle: a square for a box centre, a dot otherwise, outlined.
fn paint_handle(painter: &egui::Painter, at: Pos2, radius: f32, target: HandleTarget) {
    let fill = colour(target);
    if matches!(target, HandleTarget::BoxCentre(_)) {
        painter.rect_filled(
            Rect::from_center_size(at, egui::vec2(radius * 2.0, radius * 2.0)),
            2.0,
            fill,
        );
    } else {
        painter.circle_filled(at, radius, fill);
    }
    painter.circle_stroke(at, radius, egui::Stroke::new(1.0, Color32::from_gray(20)));
}

/// Moves `target` to the ground point `(x, y)` in meters: an edit merging with the rest of the
/// drag's gesture when the scenario changes, or why the move is refused.
fn drag_edit(
    scenario: &Scenario,
    target: HandleTarget,
    (x_m, y_m): (f64, f64),
    state: &mut HandleState,
    out: &mut Vec<Command>,
) {
    match apply_drag(scenario, target, x_m, y_m) {
        Ok(changed) if changed != *scenario => {
            let doc = DocId::Scenario(scenario.id.clone());
            let (path, label) = target_path(target);
            let edit = ProjectEdit::replace(
                doc.clone(),
                Some(DocValue::Scenario(changed)),
                Selection::field(doc, path),
                label,
            )
            .merging(Some(MergeKey(0x5ce0_0000_0000_0000 ^ state.gesture)));
            out.push(Command::Apply(edit));
        }
        Ok(_) => {}
        Err(why) => state.message = Some(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        Scenario {
            id: "rush".to_owned(),
            no_spawn_box: Some(Box3 {
                min: v3(-6.0, -3.5, -1.0),
                max: v3(6.0, 3.5, 3.0),
            }),
            ..Scenario::default()
        }
    }

    #[test]
    fn corners_and_centre_move_the_box_and_an_inverting_drag_is_refused() {
        let base = scenario();
        let moved = apply_drag(&base, HandleTarget::BoxMax(BoxSlot::NoSpawn), 8.004, 5.0)
            .expect("a valid drag");
        let b = moved.no_spawn_box.expect("box");
        assert_eq!((b.max.x, b.max.y, b.max.z), (8.0, 5.0, 3.0));
        assert_eq!((b.min.x, b.min.y), (-6.0, -3.5));

        let shifted = apply_drag(&base, HandleTarget::BoxCentre(BoxSlot::NoSpawn), 10.0, 1.0)
            .expect("a valid drag");
        let b = shifted.no_spawn_box.expect("box");
        assert_eq!((b.min.x, b.max.x, b.min.y, b.max.y), (4.0, 16.0, -2.5, 4.5));

        let refused = apply_drag(&base, HandleTarget::BoxMin(BoxSlot::NoSpawn), 7.0, 0.0);
        assert_eq!(
            refused,
            Err("refused: the no-spawn box's min x 7.00 m would pass its max x 6.00 m".to_owned())
        );
        assert_eq!(
            apply_drag(&base, HandleTarget::BoxMin(BoxSlot::NoRemoval), 0.0, 0.0),
            Err("the scenario has no no-removal box".to_owned())
        );
    }

    #[test]
    fn an_observer_moves_on_the_ground_and_keeps_its_height() {
        let mut base = scenario();
        base.observers.push(stagecraft_runtime::project::Observer {
            position: v3(0.0, -30.0, 12.0),
            ..Default::default()
        });
        let moved = apply_drag(&base, HandleTarget::Observer(0), 5.5, -20.25).expect("moves");
        let p = moved.observers[0].position;
        assert_eq!((p.x, p.y, p.z), (5.5, -20.25, 12.0));
        let listed: Vec<HandleTarget> = handles(&base).iter().map(|h| h.target).collect();
        assert_eq!(
            listed,
            vec![
                HandleTarget::BoxMin(BoxSlot::NoSpawn),
                HandleTarget::BoxMax(BoxSlot::NoSpawn),
                HandleTarget::BoxCentre(BoxSlot::NoSpawn),
                HandleTarget::Observer(0),
            ]
        );
    }

    #[test]
    fn a_path_keyframe_has_a_handle_and_moves_on_the_ground_keeping_frame_and_height() {
        use stagecraft_runtime::project::{Keyframe, Observer};
        let mut base = Scenario::default();
        base.observers.push(Observer {
            position: v3(0.0, 0.0, 1.7),
            path: vec![
                Keyframe {
                    frame: 0,
                    position: v3(0.0, 0.0, 1.7),
                },
                Keyframe {
                    frame: 200,
                    position: v3(10.0, 0.0, 2.5),
                },
            ],
            ..Default::default()
        });
        let listed: Vec<HandleTarget> = handles(&base).iter().map(|h| h.target).collect();
        assert_eq!(
            listed,
            vec![
                HandleTarget::Observer(0),
                HandleTarget::Keyframe(0, 0),
                HandleTarget::Keyframe(0, 1),
            ]
        );
        let moved = apply_drag(&base, HandleTarget::Keyframe(0, 1), 12.344, -3.0).expect("moves");
        let key = &moved.observers[0].path[1];
        assert_eq!(key.frame, 200);
        assert_eq!(
            (key.position.x, key.position.y, key.position.z),
            (12.34, -3.0, 2.5)
        );
        assert_eq!(moved.observers[0].path[0], base.observers[0].path[0]);
        assert_eq!(moved.observers[0].position, base.observers[0].position);
        assert_eq!(
            apply_drag(&base, HandleTarget::Keyframe(0, 2), 0.0, 0.0),
            Err("observer 0 has no keyframe 2".to_owned())
        );
        let (path, label) = target_path(HandleTarget::Keyframe(0, 1));
        assert_eq!(path.to_string(), "observers[0].path[1].position");
        assert_eq!(label, "Move keyframe 1 of observer 0");
    }
}
