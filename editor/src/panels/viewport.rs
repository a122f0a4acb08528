//! The Viewport tab: the three-d scene of the previewed recipe and scenario, with a toolbar for
//! the camera and the layers, a legend, and identity labels.
//!
//! Mouse: drag to orbit (top-down: pan), right- or middle-drag or Shift-drag to pan, scroll to
//! zoom, click to select. Keys: F frames the selection (or everything), T toggles top-down.
//! With the Scenario layer on, the boxes' corners and centres and the observers have drag
//! handles (`viewport::handles`): each drag is one undoable edit.
//!
//! Authoring (`crate::authoring`, one undoable override edit each): the tools of
//! `viewport::tools` (Esc select, G move, A add, X exclude), a right-click menu on an object, and
//! keys on the selected object: L lock, Shift+L lock transform, Delete (or Backspace) delete,
//! H harvest.

use egui::{Color32, Sense, Ui};

use super::{viewport_legend, Command, Panel};
use crate::document::Document;
use crate::viewport::gpu::{paint_callback, FrameToDraw, Renderer, SharedRenderer};
use crate::viewport::{interact, OrbitCamera, Preview, Projection, SharedPreview};

/// The Viewport tab.
pub struct ViewportPanel {
    preview: SharedPreview,
    /// The camera.
    pub camera: OrbitCamera,
    renderer: SharedRenderer,
    /// The content version the camera last framed automatically.
    framed: Option<u64>,
    /// The scenario's drag handles.
    pub handles: crate::viewport::handles::HandleState,
    /// The authoring tools.
    pub tools: crate::viewport::tools::ToolState,
    /// Where the scene was drawn last frame, screen points.
    pub rect: Option<egui::Rect>,
    /// Whether the legend strip is open (its header collapses it).
    pub legend_open: bool,
    /// Where the legend strip was drawn last frame, beside the scene (`None`: no strip).
    pub legend_rect: Option<egui::Rect>,
    /// The exclusion regions drawn last frame.
    pub exclusions: Vec<crate::viewport::exclusions::Exclusion>,
}

impl ViewportPanel {
    /// A Viewport tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        ViewportPanel {
            preview,
            camera: OrbitCamera::default(),
            renderer: SharedRenderer::default(),
            framed: None,
            handles: Default::default(),
            tools: Default::default(),
            rect: None,
            legend_open: true,
            legend_rect: None,
            exclusions: Vec::new(),
        }
    }

    /// Forgets the previous project's view: the camera goes back to its default and frames the
    /// next project's content as soon as it is generated.
    pub fn project_opened(&mut self) {
        self.camera = OrbitCamera::default();
        self.framed = None;
    }

    /// Why the GPU scene could not be made, if it could not.
    pub fn gpu_failure(&self) -> Option<String> {
        self.renderer
            .lock()
            .ok()
            .and_then(|r: std::sync::MutexGuard<'_, Renderer>| r.failure.clone())
    }
}

impl Panel for ViewportPanel {
    fn title(&self) -> &'static str {
        "Viewport"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let preview = self.preview.clone();
        let mut preview = preview.borrow_mut();
        if toolbar_ui(ui, &mut preview, &mut self.camera) {
            preview.update_scene();
        }
        if super::stage_steps::stage_toolbar_ui(ui, &mut preview) {
            preview.update_scene();
        }
        crate::viewport::tools::toolbar_ui(ui, &mut self.tools, &preview);
        let (rect, strip, sections) = self.split_for_legend(ui, &preview, document);
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        self.rect = Some(rect);
        self.legend_rect = strip;
        self.frame_once(&mut preview);
        if let Some(bounds) = preview.frame_request.take() {
            self.camera.frame(&bounds);
        }
        let observer = camera_observer(&self.camera, &preview.options);
        preview.session.set_camera_observer(observer);
        let interaction = interact::viewport_input(
            ui,
            &response,
            &mut self.camera,
            &preview.scene,
            preview.selected.as_ref(),
            self.tools.takes_drags(),
        );
        let mut changed = interaction.hovered != preview.hovered;
        preview.hovered = interaction.hovered;
        let placing = self.tools.tool == crate::viewport::tools::Tool::Add;
        let picking = preview.directive_pick.is_some();
        if picking {
            self.directive_pick_ui(ui, &response, rect, &mut preview, document, out);
        }
        if let Some(selection) = interaction.select.filter(|_| !placing && !picking) {
            // A click on empty ground inside an exclusion region selects its override.
            let region = response
                .interact_pointer_pos()
                .filter(|_| selection.is_none() && !self.tools.takes_drags())
                .and_then(|at| self.region_at(rect, at, &preview, document));
            if let Some(region) = region {
                out.push(Command::Select(region));
            }
            changed |= selection != preview.selected;
            preview.selected = selection;
        }
        changed |= self.authoring_ui(ui, &response, &mut preview, document, out);
        if changed {
            preview.update_scene();
        }
        if ui.is_rect_visible(rect) {
            self.paint_scene_ui(ui, rect, &preview, document);
            if let Some(strip) = strip {
                viewport_legend::strip_ui(ui, strip, &sections, &mut self.legend_open);
            }
            self.scene_marks_ui(ui, rect, &preview, document, out);
        }
    }
}

impl ViewportPanel {
    /// While a directive target is armed: Escape disarms it, a click picks the target.
    fn directive_pick_ui(
        &self,
        ui: &Ui,
        response: &egui::Response,
        rect: egui::Rect,
        preview: &mut Preview,
        document: &Document,
        out: &mut Vec<Command>,
    ) {
        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
            preview.directive_pick = None;
        } else if response.clicked() {
            if let Some(at) = response.interact_pointer_pos() {
                self.pick_directive_target(rect, at, preview, document, out);
            }
        }
    }

    /// The scene itself, its labels, the exclusion regions and the overlay text.
    fn paint_scene_ui(
        &self,
        ui: &mut Ui,
        rect: egui::Rect,
        preview: &Preview,
        document: &Document,
    ) {
        let frame = FrameToDraw {
            camera: self.camera.clone(),
            layers: preview.scene.layers().to_vec(),
        };
        ui.painter()
            .add(paint_callback(rect, self.renderer.clone(), frame));
        interact::labels_ui(ui, rect, preview, &self.camera, preview.options.show_labels);
        crate::viewport::exclusions::exclusions_ui(
            ui,
            rect,
            &self.camera,
            &self.exclusions,
            document.selection(),
        );
        overlay_text_ui(ui, rect, preview, self.gpu_failure());
    }

    /// Over the scene: the diff marks, the scenario's handles (when shown) and the message.
    fn scene_marks_ui(
        &mut self,
        ui: &mut Ui,
        rect: egui::Rect,
        preview: &Preview,
        document: &Document,
        out: &mut Vec<Command>,
    ) {
        crate::viewport::diff_marks::diff_marks_ui(ui, rect, &self.camera, &preview.diff_marks);
        let scenario = preview
            .session
            .scenario_id()
            .and_then(|id| document.project().scenarios.get(id))
            .filter(|_| preview.options.show_scenario);
        if let Some(scenario) = scenario {
            crate::viewport::handles::handles_ui(
                ui,
                rect,
                &self.camera,
                scenario,
                &mut self.handles,
                out,
            );
        }
        self.message_ui(ui, rect, preview);
    }
}

impl ViewportPanel {
    /// Reads the exclusion regions and the legend's sections, and splits the space left into
    /// the scene and the legend strip beside it (never over it).
    fn split_for_legend(
        &mut self,
        ui: &Ui,
        preview: &Preview,
        document: &Document,
    ) -> (egui::Rect, Option<egui::Rect>, viewport_legend::Sections) {
        self.exclusions = preview
            .session
            .content()
            .map(|c| crate::viewport::exclusions::of(document.project(), c.recipe()))
            .unwrap_or_default();
        let boxes = preview
            .session
            .scenario_id()
            .and_then(|id| document.project().scenarios.get(id))
            .filter(|_| preview.options.show_scenario)
            .map(crate::viewport::exclusions::scenario_box_legend)
            .unwrap_or_default();
        let mut sections = viewport_legend::sections(preview, &self.exclusions);
        viewport_legend::add_layer_entries(&mut sections, boxes);
        let entries = sections.iter().map(|(_, e)| e.len()).sum();
        let strip_w = viewport_legend::strip_width(entries, self.legend_open);
        let (rect, strip) = viewport_legend::split(ui.available_rect_before_wrap(), strip_w);
        (rect, strip, sections)
    }

    /// Frames the content once when it first appears (not on every regeneration, which would
    /// yank the camera while the user edits).
    fn frame_once(&mut self, preview: &mut Preview) {
        // `frame_update` has synced the session with this document, so content that is not
        // being regenerated is this project's (after an open, the old project's content is
        // still shown while the new one generates: it must not be framed).
        let current = !preview.session.is_generating();
        if self.framed.is_none() && current && preview.session.content().is_some() {
            if let Some(look) = preview.look_on_open.take() {
                // The box spans the circle asked for; its bounding sphere is √2 too generous.
                self.camera.frame(&look);
                self.camera.distance_m /= std::f32::consts::SQRT_2;
                self.framed = Some(preview.session.content_version());
            } else if let Some(bounds) = preview.scene.content_bounds() {
                self.camera.frame(&bounds);
                // The bounding sphere is generous for long, flat blocks: come closer.
                self.camera.distance_m *= 0.55;
                self.framed = Some(preview.session.content_version());
            }
        }
    }

    /// The message over the scene's top: a handle's or an authoring refusal, or the armed
    /// directive pick's prompt.
    fn message_ui(&self, ui: &Ui, rect: egui::Rect, preview: &Preview) {
        let prompt = preview.directive_pick.as_ref().map(|armed| {
            format!(
                "Pick for directive {}: click a pedestrian, a scene object or the ground \
                 (Esc cancels)",
                armed.index
            )
        });
        let message = self
            .handles
            .message
            .as_ref()
            .or(preview.authoring_message.as_ref())
            .or(prompt.as_ref());
        if let Some(message) = message {
            let painter = ui.painter_at(rect);
            let galley = painter.layout_no_wrap(
                message.clone(),
                egui::FontId::proportional(13.0),
                ui.visuals().warn_fg_color,
            );
            let at = egui::pos2(rect.center().x - galley.size().x / 2.0, rect.top() + 8.0);
            painter.rect_filled(
                egui::Rect::from_min_size(at, galley.size()).expand(4.0),
                3.0,
                Color32::from_black_alpha(200),
            );
            painter.galley(at, galley, Color32::WHITE);
        }
    }
}

/// The Viewport camera as the world's observer when the toolbar says it drives the tiers: its
/// eye, the point it orbits (the population center tier distances are measured from) and its
/// field of view.
pub fn camera_observer(
    camera: &OrbitCamera,
    options: &crate::viewport::OverlayOptions,
) -> Option<stagecraft_runtime::sim::CameraObserver> {
    if !options.camera_drives_tiers {
        return None;
    }
    let eye = camera.basis().eye;
    let target = camera.target;
    let finite = [eye.x, eye.y, eye.z, target.x, target.y, target.z]
        .iter()
        .all(|v| v.is_finite());
    finite.then(|| stagecraft_runtime::sim::CameraObserver {
        eye_m: [f64::from(eye.x), f64::from(eye.y), f64::from(eye.z)],
        target_m: [f64::from(target.x), f64::from(target.y), 0.0],
        fov_y_rad: f64::from(camera.fov_y_rad),
        drives_admission: options.camera_drives_admission,
    })
}

impl ViewportPanel {
    /// The ground point (meters) under screen point `at` of the scene drawn in `rect`.
    fn ground_at(&self, rect: egui::Rect, at: egui::Pos2) -> Option<[f64; 2]> {
        let local = [at.x - rect.min.x, at.y - rect.min.y];
        let ground = self
            .camera
            .ray(local, [rect.width(), rect.height()])?
            .hit_plane_z(0.0)?;
        Some([f64::from(ground.x), f64::from(ground.y)])
    }

    /// The exclusion region under screen point `at` of the scene drawn in `rect`, if any.
    pub fn exclusion_at(
        &self,
        rect: egui::Rect,
        at: egui::Pos2,
    ) -> Option<&crate::viewport::exclusions::Exclusion> {
        let point = self.ground_at(rect, at)?;
        crate::viewport::exclusions::at(&self.exclusions, point)
    }

    /// What a click at `at` on empty ground selects: the exclusion region there, else the shown
    /// scenario's keep-out box there (with the Scenario layer on).
    fn region_at(
        &self,
        rect: egui::Rect,
        at: egui::Pos2,
        preview: &Preview,
        document: &Document,
    ) -> Option<crate::edits::Selection> {
        if let Some(region) = self.exclusion_at(rect, at) {
            return Some(region.selection());
        }
        let id = preview.session.scenario_id()?;
        let scenario = document.project().scenarios.get(id)?;
        let point = self.ground_at(rect, at)?;
        preview
            .options
            .show_scenario
            .then(|| crate::viewport::exclusions::scenario_box_at(scenario, id, point))
            .flatten()
    }

    /// A click at `at` while the Timeline armed a directive pick: fills the directive's target,
    /// object or point from what the click hit (one undoable edit) and disarms; a click that
    /// fills nothing says so and stays armed.
    fn pick_directive_target(
        &self,
        rect: egui::Rect,
        at: egui::Pos2,
        preview: &mut Preview,
        document: &Document,
        out: &mut Vec<Command>,
    ) {
        use crate::viewport::directive_pick::{pick_edit, picked_by};
        let Some(armed) = preview.directive_pick.clone() else {
            return;
        };
        let Some(scenario) = document.project().scenarios.get(&armed.scenario) else {
            preview.directive_pick = None;
            return;
        };
        let local = [at.x - rect.min.x, at.y - rect.min.y];
        let Some(ray) = self.camera.ray(local, [rect.width(), rect.height()]) else {
            return;
        };
        let edit = picked_by(preview, scenario, &ray)
            .and_then(|picked| pick_edit(scenario, armed.index, &picked));
        match edit {
            Some(edit) => {
                out.push(Command::Apply(edit));
                preview.directive_pick = None;
                preview.authoring_message = None;
            }
            None => {
                preview.authoring_message = Some(format!(
                    "that click fills nothing in directive {}: pick a pedestrian, a scene object \
                     or a point its command takes",
                    armed.index
                ));
            }
        }
    }

    /// The authoring tools, keys and right-click menu over the scene's `response`; true when the
    /// selection changed.
    fn authoring_ui(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        preview: &mut Preview,
        document: &Document,
        out: &mut Vec<Command>,
    ) -> bool {
        let mut changed = false;
        if response.secondary_clicked() && preview.hovered.is_some() {
            changed |= preview.hovered != preview.selected;
            preview.selected = preview.hovered.clone();
        }
        let before = out.len();
        let tooled = crate::viewport::tools::tools_ui(
            ui,
            response,
            &self.camera,
            preview,
            document.project(),
            &mut self.tools,
            out,
        );
        if let Some(pick) = tooled.select {
            changed |= preview.selected.as_ref() != Some(&pick);
            preview.selected = Some(pick);
        }
        let mut message = tooled.message;
        if response.hovered() || response.has_focus() {
            message = message.or_else(|| keys_ui(ui, &mut self.tools, preview, document, out));
        }
        let mut refused = None;
        response.context_menu(|ui| refused = context_menu_ui(ui, preview, document, out));
        message = message.or(refused);
        if message.is_some() {
            preview.authoring_message = message;
        } else if out.len() > before {
            preview.authoring_message = None;
        }
        changed
    }
}

/// The authoring keys on the selected object and the tool keys, unless a text field has the
/// keyboard; returns a refusal in words.
fn keys_ui(
    ui: &Ui,
    tools: &mut crate::viewport::tools::ToolState,
    preview: &Preview,
    document: &Document,
    out: &mut Vec<Command>,
) -> Option<String> {
    use crate::authoring::{author_object, target_of, ObjectAction};
    use crate::viewport::tools::Tool;
    use egui::{Key, Modifiers};
    if ui.ctx().egui_wants_keyboard_input() {
        return None;
    }
    let pressed = |modifiers, key| ui.input_mut(|i| i.consume_key(modifiers, key));
    for (key, tool) in [
        (Key::Escape, Tool::Select),
        (Key::G, Tool::Move),
        (Key::R, Tool::Rotate),
        (Key::A, Tool::Add),
        (Key::X, Tool::Exclude),
    ] {
        if pressed(Modifiers::NONE, key) {
            tools.tool = tool;
        }
    }
    let action = if pressed(Modifiers::SHIFT, Key::L) {
        Some(ObjectAction::LockTransform)
    } else if pressed(Modifiers::NONE, Key::L) {
        Some(ObjectAction::Lock)
    } else if pressed(Modifiers::NONE, Key::Delete) || pressed(Modifiers::NONE, Key::Backspace) {
        Some(ObjectAction::Delete)
    } else if pressed(Modifiers::NONE, Key::H) {
        Some(ObjectAction::Harvest)
    } else {
        None
    }?;
    let content = preview.session.content()?;
    let target = preview
        .selected
        .as_ref()
        .and_then(|pick| target_of(content, pick))?;
    let result = author_object(document.project(), content, &target, &action);
    crate::panels::authoring::emit(result, out)
}

/// The right-click menu on the selected object: the Provenance tab's authoring actions.
fn context_menu_ui(
    ui: &mut Ui,
    preview: &Preview,
    document: &Document,
    out: &mut Vec<Command>,
) -> Option<String> {
    let content = preview.session.content()?;
    let Some(target) = preview
        .selected
        .as_ref()
        .and_then(|pick| crate::authoring::target_of(content, pick))
    else {
        ui.weak("Right-click a generated object to author it");
        return None;
    };
    ui.label(format!("{} (stage {})", target.id, target.stage));
    ui.separator();
    crate::panels::authoring::object_tools_ui(ui, document.project(), content, &target, true, out)
}

/// The camera and layer toolbar; true when a layer option changed.
fn toolbar_ui(ui: &mut Ui, preview: &mut Preview, camera: &mut OrbitCamera) -> bool {
    let before = preview.options.clone();
    ui.horizontal_wrapped(|ui| {
        let top_down = camera.projection == Projection::TopDown;
        if ui
            .selectable_label(top_down, "Top-down")
            .on_hover_text("Orthographic view straight down, north up (T)")
            .clicked()
        {
            camera.toggle_top_down();
        }
        if ui
            .button("Frame")
            .on_hover_text("Frame the selection, or everything (F)")
            .clicked()
        {
            let bounds = preview
                .selected
                .as_ref()
                .and_then(|pick| preview.scene.bounds_of(pick))
                .or_else(|| preview.scene.content_bounds());
            if let Some(bounds) = bounds {
                camera.frame(&bounds);
            }
        }
        ui.separator();
        let options = &mut preview.options;
        ui.checkbox(&mut options.show_grid, "Grid");
        ui.checkbox(&mut options.show_routes, "Routes");
        ui.checkbox(&mut options.show_layouts, "Layouts");
        ui.checkbox(&mut options.show_scenario, "Scenario");
        ui.checkbox(&mut options.show_rejected, "Rejected");
        ui.checkbox(&mut options.show_candidates, "Spawns")
            .on_hover_text("The world's recent spawn candidates, coloured by admission result");
        ui.checkbox(&mut options.show_tiers, "Tiers").on_hover_text(
            "Each agent's applied tier (Full / Simulated / Stub = Hero / Medium / Background) \
             and the streaming ring",
        );
        ui.checkbox(&mut options.show_panic, "Panic")
            .on_hover_text("Panicked agents, their flee lines and the exits they flee to");
        ui.checkbox(&mut options.camera_drives_tiers, "Camera drives tiers")
            .on_hover_text(
                "This camera is the observer: the point it orbits decides each agent's \
                 Full / Simulated / Stub tier from the next step on (play to watch them change). \
                 The run then depends on the camera; off, it is the scenario's (as `stagecraft \
                 simulate` runs it).",
            );
        if options.camera_drives_tiers {
            ui.checkbox(&mut options.camera_drives_admission, "…and admission")
                .on_hover_text("The camera also decides births and retirement");
        } else {
            options.camera_drives_admission = false;
        }
        ui.checkbox(&mut options.show_labels, "Labels");
    });
    preview.options != before
}

/// Counts, the agent-state legend and any problem, drawn over the viewport's corner.
fn overlay_text_ui(ui: &Ui, rect: egui::Rect, preview: &Preview, gpu_failure: Option<String>) {
    let painter = ui.painter_at(rect);
    let session = &preview.session;
    let mut lines: Vec<(String, Color32)> = Vec::new();
    if let Some(content) = session.content() {
        let placements = preview
            .scene
            .layer(crate::viewport::LayerKind::Placements)
            .picks
            .len();
        let generating = if session.is_generating() {
            " · regenerating…"
        } else {
            ""
        };
        let drawn = crate::viewport::cells::DrawnCounts::of(content, placements);
        lines.push((
            format!("{} · {}{generating}", content.recipe(), drawn.text()),
            Color32::from_gray(220),
        ));
    } else if session.is_generating() {
        lines.push(("generating…".to_owned(), Color32::from_gray(220)));
    }
    if let Some(content) = session.content() {
        // The same digest the Recipe graph shows: both read the service's one generation.
        let digest = content.bundle.digest_hex();
        lines.push((
            format!("bundle {}", &digest[..digest.len().min(12)]),
            Color32::from_gray(170),
        ));
        if let Some(pinned) = preview.inspect.pinned() {
            lines.push((
                format!("stage {} locked and isolated", pinned.stage),
                Color32::from_rgb(120, 200, 255),
            ));
        } else if preview.inspect.step().is_some() {
            lines.push((
                super::stage_steps::step_text(preview, content),
                Color32::from_rgb(255, 190, 60),
            ));
        }
    }
    if let Some(world) = session.world() {
        lines.push((
            format!(
                "frame {} · t = {:.2} s · {} agents{}",
                world.frame(),
                world.time_s(),
                world.agent_count(),
                if session.playing { " · playing" } else { "" }
            ),
            Color32::from_gray(220),
        ));
    }
    if let Some(camera) = session.world().and_then(|w| w.camera_observer()) {
        let what = if camera.drives_admission {
            "tiers and admission"
        } else {
            "tiers"
        };
        lines.push((
            format!("the camera drives the {what}: this run depends on where it looks"),
            ui.visuals().warn_fg_color,
        ));
    }
    if let Some(problem) = session.problem() {
        lines.push((problem.to_owned(), ui.visuals().warn_fg_color));
    }
    if let Some(failure) = gpu_failure {
        lines.push((failure, ui.visuals().error_fg_color));
    }
    let font = egui::FontId::proportional(13.0);
    let mut y = rect.top() + 6.0;
    for (text, colour) in lines {
        let galley = painter.layout_no_wrap(text, font.clone(), colour);
        let at = egui::pos2(rect.left() + 8.0, y);
        painter.rect_filled(
            egui::Rect::from_min_size(at, galley.size()).expand(3.0),
            3.0,
            Color32::from_black_alpha(150),
        );
        y += galley.size().y + 6.0;
        painter.galley(at, galley, colour);
    }
}
