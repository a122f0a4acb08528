//! Authoring tools over the Viewport: Move (drag a generated object on the ground), Rotate (drag
//! from a placed object: it turns to face the pointer), Add (click the ground to place an
//! authored object of the stage's family) and Exclude (drag a rectangle on the ground). Each gesture is one undoable edit made by `crate::authoring`; a refused one
//! says why and changes nothing. A move or a rotate into a set that exists is sent while the
//! pointer moves,
//! every edit of the drag carrying the same `MergeKey` (as the scenario handles do), so the
//! preview regenerates under the pointer and the drag is one undo step; a move that has to create
//! the set, and an exclusion, are sent once when the drag ends.

use egui::{Color32, PointerButton, Pos2, Rect, Response, Stroke, Ui};

use super::camera::OrbitCamera;
use super::picking::{pick_nearest, PickId};
use super::Preview;
use crate::authoring::{
    add_object, author_object, exclude_rect, scatter_stages, stage_variants, target_of, target_set,
    ObjectAction, Target,
};
use crate::command::{emit, Command};
use crate::edits::MergeKey;
use stagecraft_runtime::project::Project;

/// The tool the primary mouse button works with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// Click selects, drag orbits (the default).
    #[default]
    Select,
    /// Drag a generated object to move it (a `Move` override).
    Move,
    /// Drag from a placed object to turn it towards the pointer (a `Rotate` override).
    Rotate,
    /// Click the ground to add an authored object (an `Add` override).
    Add,
    /// Drag a rectangle on the ground to exclude it from the scatter (an `Exclude` override).
    Exclude,
}

impl Tool {
    /// Every tool, in toolbar order, with its name, shortcut and hover text.
    pub const ALL: [(Tool, &'static str, &'static str, &'static str); 5] = [
        (Tool::Select, "Select", "Esc", "Click selects, drag orbits"),
        (
            Tool::Move,
            "Move",
            "G",
            "Drag a generated object to move it (one undoable Move override per drag)",
        ),
        (
            Tool::Rotate,
            "Rotate",
            "R",
            "Drag from a placed object to turn it towards the pointer (one undoable Rotate override per drag)",
        ),
        (
            Tool::Add,
            "Add",
            "A",
            "Click the ground to add an authored object of the chosen variant",
        ),
        (
            Tool::Exclude,
            "Exclude",
            "X",
            "Drag a rectangle on the ground to exclude it from the scatter",
        ),
    ];
}

/// A gesture in progress.
#[derive(Clone, Debug, PartialEq)]
enum Gesture {
    Move {
        target: Target,
        to: [f64; 2],
        /// The position last sent during the drag (live moves only).
        sent: Option<[f64; 2]>,
    },
    Rotate {
        target: Target,
        /// The ground point the object turns towards.
        to: [f64; 2],
        /// The rotation last sent during the drag (live rotates only).
        sent: Option<u16>,
    },
    Exclude {
        from: [f64; 2],
        to: [f64; 2],
    },
}

/// The rotation (1/65536 turns, counter-clockwise from +x about the up axis, as the viewport
/// draws it) that faces ground point `to` from `from`, meters; `None` when they coincide.
pub fn rotation_towards(from: [f64; 2], to: [f64; 2]) -> Option<u16> {
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    if !(dx.is_finite() && dy.is_finite()) || dx.hypot(dy) < 1e-6 {
        return None;
    }
    let turns = dy.atan2(dx) / std::f64::consts::TAU;
    Some(((turns.rem_euclid(1.0) * 65_536.0).round() as u32 % 65_536) as u16)
}

/// The ground position of `target`, meters.
fn target_m(target: &Target, content: &crate::session::PreviewContent) -> Option<[f64; 2]> {
    let scatter = crate::authoring::scatter_of(content, target)?;
    Some([
        target.x as f64 * scatter.lattice_unit_m,
        target.y as f64 * scatter.lattice_unit_m,
    ])
}

impl Gesture {
    /// The authoring action the gesture makes now (moves and rotates), and what identifies it
    /// among the values already sent.
    fn action(&self, content: &crate::session::PreviewContent) -> Option<ObjectAction> {
        match self {
            Gesture::Move { to, .. } => Some(ObjectAction::Move(*to)),
            Gesture::Rotate { target, to, .. } => {
                rotation_towards(target_m(target, content)?, *to).map(ObjectAction::Rotate)
            }
            Gesture::Exclude { .. } => None,
        }
    }
}

/// Salt of the merge keys of move drags (the scenario handles use another).
const MOVE_GESTURE: u64 = 0x30fe_0000_0000_0000;

/// The tools' state between frames.
#[derive(Clone, Debug, Default)]
pub struct ToolState {
    /// The active tool.
    pub tool: Tool,
    /// The scatter stage Add and Exclude work on (default: the content's first).
    pub stage: Option<u32>,
    /// The variant Add places (default: the family's first).
    pub variant: Option<String>,
    gesture: Option<Gesture>,
    /// Counts drags, so each is its own undo step.
    drags: u64,
}

impl ToolState {
    /// Whether the active tool takes primary drags (so they do not orbit the camera).
    pub fn takes_drags(&self) -> bool {
        self.tool != Tool::Select
    }

    /// The scatter stage and variant Add and Exclude use with `content`, if it has a scatter stage.
    pub fn stage_and_variant(
        &self,
        content: &crate::session::PreviewContent,
    ) -> Option<(u32, String)> {
        let stages = scatter_stages(content);
        let stage = self
            .stage
            .filter(|s| stages.contains(s))
            .or(stages.first().copied())?;
        let variants = stage_variants(content, stage);
        let variant = self
            .variant
            .clone()
            .filter(|v| variants.contains(v))
            .or(variants.first().cloned())?;
        Some((stage, variant))
    }
}

/// The tool buttons and, for Add, the stage's variant palette.
pub fn toolbar_ui(ui: &mut Ui, state: &mut ToolState, preview: &Preview) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Tool");
        for (tool, name, key, hover) in Tool::ALL {
            ui.selectable_value(&mut state.tool, tool, name)
                .on_hover_text(format!("{hover} ({key})"));
        }
        let Some(content) = preview.session.content() else {
            return;
        };
        if !matches!(state.tool, Tool::Add | Tool::Exclude) {
            return;
        }
        let Some((stage, variant)) = state.stage_and_variant(content) else {
            ui.weak("no scatter stage");
            return;
        };
        ui.separator();
        let stages = scatter_stages(content);
        if stages.len() > 1 {
            egui::ComboBox::from_id_salt("tool-stage")
                .selected_text(format!("stage {stage}"))
                .show_ui(ui, |ui| {
                    for s in stages {
                        ui.selectable_value(&mut state.stage, Some(s), format!("stage {s}"));
                    }
                });
        }
        if state.tool == Tool::Add {
            egui::ComboBox::from_id_salt("tool-variant")
                .selected_text(variant.clone())
                .show_ui(ui, |ui| {
                    for v in stage_variants(content, stage) {
                        ui.selectable_value(&mut state.variant, Some(v.clone()), v);
                    }
                });
        }
    });
}

/// The ground point (z = 0) under screen point `at` of the viewport `rect`, meters.
pub fn ground_at(camera: &OrbitCamera, rect: Rect, at: Pos2) -> Option<[f64; 2]> {
    let local = at - rect.min;
    let hit = camera
        .ray([local.x, local.y], [rect.width(), rect.height()])
        .and_then(|ray| ray.hit_plane_z(0.0))?;
    Some([f64::from(hit.x), f64::from(hit.y)])
}

/// What the tools did this frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutcome {
    /// Select this (the object a move started on).
    pub select: Option<PickId>,
    /// Why the gesture was refused, in words.
    pub message: Option<String>,
    /// Whether an edit was sent.
    pub edited: bool,
}

/// Runs the active tool on the viewport's `response` and draws its gesture; edits go to `out`.
pub fn tools_ui(
    ui: &Ui,
    response: &Response,
    camera: &OrbitCamera,
    preview: &Preview,
    project: &Project,
    state: &mut ToolState,
    out: &mut Vec<Command>,
) -> ToolOutcome {
    let mut outcome = ToolOutcome::default();
    let rect = response.rect;
    let Some(content) = preview.session.content() else {
        return outcome;
    };
    let pointer = response.interact_pointer_pos();
    let ground = pointer.and_then(|p| ground_at(camera, rect, p));
    let before = out.len();
    match state.tool {
        Tool::Select => {}
        Tool::Add => {
            if let (true, Some(point)) = (response.clicked(), ground) {
                if let Some((stage, variant)) = state.stage_and_variant(content) {
                    outcome.message =
                        emit(add_object(project, content, stage, &variant, point), out);
                }
            }
        }
        Tool::Move | Tool::Rotate | Tool::Exclude => {
            if response.drag_started_by(PointerButton::Primary) {
                let origin = ui.input(|i| i.pointer.press_origin()).or(pointer);
                state.gesture = origin.and_then(|at| start(state.tool, camera, rect, at, preview));
                state.drags += 1;
                if let Some(Gesture::Move { .. } | Gesture::Rotate { .. }) = &state.gesture {
                    outcome.select = origin.and_then(|at| pick_at(camera, rect, at, preview));
                }
            }
            if let (Some(gesture), Some(point)) = (&mut state.gesture, ground) {
                match gesture {
                    Gesture::Move { to, .. }
                    | Gesture::Rotate { to, .. }
                    | Gesture::Exclude { to, .. } => *to = point,
                }
            }
            let key = MergeKey(MOVE_GESTURE ^ state.drags);
            if response.dragged()
                && target_set(project, content.recipe(), content.seed())
                    .is_ok_and(|(_, created)| !created)
            {
                if let Some(message) = live_edit(state, project, content, key, out) {
                    outcome.message = message;
                }
            }
            if response.drag_stopped() {
                if let Some(gesture) = state.gesture.take() {
                    outcome.message = finish(&gesture, project, content, state, key, out);
                }
            }
        }
    }
    if let Some(gesture) = &state.gesture {
        draw_gesture(ui, rect, camera, gesture, content.as_ref());
    }
    outcome.edited = out.len() > before;
    outcome
}

/// Sends the move or rotate the gesture makes now, when it differs from the last one sent (a
/// drag's live edits share `key`, so the drag is one undo step). Returns the emitted outcome.
fn live_edit(
    state: &mut ToolState,
    project: &Project,
    content: &crate::session::PreviewContent,
    key: MergeKey,
    out: &mut Vec<Command>,
) -> Option<Option<String>> {
    let gesture = state.gesture.as_mut()?;
    let action = gesture.action(content)?;
    let (target, changed) = match (&mut *gesture, &action) {
        (Gesture::Move { target, sent, to }, _) => {
            let changed = sent.is_none_or(|s| (s[0] - to[0]).hypot(s[1] - to[1]) >= 0.005);
            if changed {
                *sent = Some(*to);
            }
            (target.clone(), changed)
        }
        (Gesture::Rotate { target, sent, .. }, ObjectAction::Rotate(rotation)) => {
            let changed = *sent != Some(*rotation);
            if changed {
                *sent = Some(*rotation);
            }
            (target.clone(), changed)
        }
        _ => return None,
    };
    if !changed {
        return None;
    }
    let result = author_object(project, content, &target, &action);
    Some(emit(result.map(|e| e.merging(Some(key))), out))
}

fn pick_at(camera: &OrbitCamera, rect: Rect, at: Pos2, preview: &Preview) -> Option<PickId> {
    let local = at - rect.min;
    camera
        .ray([local.x, local.y], [rect.width(), rect.height()])
        .and_then(|ray| pick_nearest(&ray, preview.scene.picks()))
        .map(|(id, _)| id)
}

/// The gesture a primary drag starting at `at` begins: a move of the object under it, or a
/// rectangle from the ground point under it.
fn start(
    tool: Tool,
    camera: &OrbitCamera,
    rect: Rect,
    at: Pos2,
    preview: &Preview,
) -> Option<Gesture> {
    let content = preview.session.content()?;
    let from = ground_at(camera, rect, at)?;
    match tool {
        Tool::Move => {
            let pick = pick_at(camera, rect, at, preview)?;
            let target = target_of(content, &pick)?;
            Some(Gesture::Move {
                target,
                to: from,
                sent: None,
            })
        }
        Tool::Rotate => {
            let pick = pick_at(camera, rect, at, preview)?;
            let target = target_of(content, &pick)?;
            Some(Gesture::Rotate {
                target,
                to: from,
                sent: None,
            })
        }
        Tool::Exclude => Some(Gesture::Exclude { from, to: from }),
        Tool::Select | Tool::Add => None,
    }
}

/// The edit a drag ends with: a move's last position (merged into the drag's live edits, or
/// the one edit of a move that creates the set), an exclusion's rectangle.
fn finish(
    gesture: &Gesture,
    project: &Project,
    content: &crate::session::PreviewContent,
    state: &ToolState,
    key: MergeKey,
    out: &mut Vec<Command>,
) -> Option<String> {
    match gesture {
        Gesture::Move { sent, to, .. } if *sent == Some(*to) => None,
        Gesture::Move { target, to, sent } => {
            let result = author_object(project, content, target, &ObjectAction::Move(*to));
            emit(result.map(|e| e.merging(sent.map(|_| key))), out)
        }
        Gesture::Rotate { target, sent, .. } => {
            // A drag that never left the object turns nothing.
            let action = gesture.action(content)?;
            if let ObjectAction::Rotate(rotation) = action {
                if *sent == Some(rotation) {
                    return None;
                }
            }
            let result = author_object(project, content, target, &action);
            emit(result.map(|e| e.merging(sent.map(|_| key))), out)
        }
        Gesture::Exclude { from, to } => {
            let (stage, _) = state.stage_and_variant(content)?;
            emit(exclude_rect(project, content, stage, *from, *to), out)
        }
    }
}

/// A moved object's line from where it is to where it goes, a rotated one's line towards the
/// pointer; an exclusion's rectangle.
fn draw_gesture(
    ui: &Ui,
    rect: Rect,
    camera: &OrbitCamera,
    gesture: &Gesture,
    content: &crate::session::PreviewContent,
) {
    let painter = ui.painter_at(rect);
    let size = [rect.width(), rect.height()];
    let screen = |[x, y]: [f64; 2]| {
        camera
            .project(three_d::vec3(x as f32, y as f32, 0.0), size)
            .map(|p| rect.min + egui::vec2(p[0], p[1]))
    };
    let colour = Color32::from_rgb(250, 200, 60);
    match gesture {
        Gesture::Move { target, to, .. } | Gesture::Rotate { target, to, .. } => {
            let Some(from) = target_m(target, content) else {
                return;
            };
            if let (Some(a), Some(b)) = (screen(from), screen(*to)) {
                painter.line_segment([a, b], Stroke::new(2.0, colour));
                painter.circle_stroke(b, 7.0, Stroke::new(2.0, colour));
            }
        }
        Gesture::Exclude { from, to } => {
            let corners = [
                [from[0], from[1]],
                [to[0], from[1]],
                [to[0], to[1]],
                [from[0], to[1]],
            ];
            let points: Option<Vec<Pos2>> = corners.into_iter().map(screen).collect();
            if let Some(points) = points {
                painter.add(egui::Shape::closed_line(points, Stroke::new(2.0, colour)));
            }
        }
    }
}
