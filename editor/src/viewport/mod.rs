//! The 3D viewport: a three-d scene built from runtime output (generated content, the scenario's
//! overlays, the simulation's agents), an orbit camera, picking, and the preview state (the
//! session, the picked thing, the scene) that the app owns and the Viewport, Timeline and
//! Provenance tabs borrow.
//!
//! Architecture invariant: rendering reads runtime output and never writes back. The scene is
//! built on the CPU ([`scene`], [`build`], [`overlays`]) without GL, so it is tested and benchmarked
//! headless; only [`gpu`] touches GL, inside an egui paint callback.

pub mod build;
pub mod camera;
pub mod cells;
pub mod crossing_marks;
pub mod crowd_marks;
pub mod diff_marks;
pub mod directive_pick;
pub mod exclusions;
pub mod gpu;
pub mod handles;
pub mod heatmap_marks;
pub mod hlod_marks;
pub mod inspect;
pub mod interact;
pub mod isolate;
pub mod layer;
pub mod meshes;
pub mod overlays;
pub mod palette;
pub mod picking;
pub mod scene;
pub mod spawn_watch;
pub mod task_marks;
pub mod tools;

use std::cell::RefCell;
use std::rc::Rc;

use crate::document::Document;
use crate::service::{focus_recipe, GenerationService};
use crate::session::Session;
pub use camera::{OrbitCamera, Projection};
pub use picking::{Aabb, PickId, Ray};
pub use scene::{ColourBy, LayerKind, OverlayOptions, SceneBuilder, SceneInputs};

/// How often the UI looks for content generated in the background.
const GENERATION_POLL: std::time::Duration = std::time::Duration::from_millis(15);

/// What the Viewport, Timeline and Provenance tabs share: the simulation session, the picked
/// thing, and the scene built from them. The app owns it and updates it once per frame, whether
/// or not a tab that shows it is visible.
#[derive(Default)]
pub struct Preview {
    /// The embedded simulation over the service's content.
    pub session: Session,
    /// The thing picked in the viewport, if any.
    pub selected: Option<PickId>,
    /// The thing under the cursor, if any.
    pub hovered: Option<PickId>,
    /// Display options.
    pub options: OverlayOptions,
    /// The scene's layers.
    pub scene: SceneBuilder,
    /// A frame to jump to once the first world is built (`stagecraft --frame N`).
    pub seek_on_open: Option<u64>,
    /// What the Viewport frames when the content first appears instead of all of it
    /// (`stagecraft --look-at X,Y,RADIUS`).
    pub look_on_open: Option<Aabb>,
    /// Sources that stopped spawning, for the Diagnostics tab.
    pub spawn_watch: spawn_watch::SpawnWatch,
    /// The Diff tab's entries to draw over the scene (empty: no diff shown).
    pub diff_marks: Vec<DiffMark>,
    /// Bounds another tab asks the Viewport to frame on its next frame.
    pub frame_request: Option<Aabb>,
    /// Why the last authoring action (Provenance button, viewport tool or shortcut) was
    /// refused, shown by both until the next action succeeds.
    pub authoring_message: Option<String>,
    /// The directive the Timeline armed for a target pick: the Viewport's next click fills it
    /// ([`directive_pick`]) instead of selecting.
    pub directive_pick: Option<directive_pick::DirectivePick>,
    /// Serial stepping and the locked, isolated stage: what part of the content is drawn.
    pub inspect: inspect::StageInspect,
}

/// What kind of difference a [`DiffMark`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffMarkKind {
    /// Only in the preview (green).
    Added,
    /// Only on the other side (a red ghost).
    Removed,
    /// At another position (yellow, with an arrow from the old position).
    Moved,
    /// Same position, other fields differ (blue).
    Changed,
}

/// One diff entry as the Viewport draws it: ground positions in meters on the other side
/// (`from`) and in the preview (`to`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiffMark {
    /// The kind.
    pub kind: DiffMarkKind,
    /// Position on the other side, if the object is there.
    pub from: Option<[f64; 2]>,
    /// Position in the preview, if the object is there.
    pub to: Option<[f64; 2]>,
}

/// The preview state, owned by the app and borrowed by the tabs that show it.
pub type SharedPreview = Rc<RefCell<Preview>>;

impl Preview {
    /// A new shared preview.
    pub fn shared() -> SharedPreview {
        Rc::new(RefCell::new(Preview::default()))
    }

    /// Once per UI frame (the app calls it before drawing the tabs): asks `service` for the
    /// previewed recipe of `document`, syncs the session with its newest content and advances
    /// playback by the frame's time. Returns true while playback runs (repaint wanted); while the
    /// service generates it asks for a repaint soon, to pick the result up.
    pub fn frame_update(
        &mut self,
        ctx: &egui::Context,
        document: &Document,
        service: &mut GenerationService,
    ) -> bool {
        let project = document.project();
        self.session
            .choose_scenario_for(project, document.selection().doc.as_ref());
        let recipe = focus_recipe(document, self.session.scenario_id(), service.recipe());
        service.isolate(self.inspect.frozen());
        service.sync(document, recipe.as_deref());
        self.session.sync(document, service);
        let content = self.session.content().cloned();
        self.inspect.follow(service.latest(), content.as_deref());
        if self.session.timeline().is_some() {
            if let Some(frame) = self.seek_on_open.take() {
                self.session.seek(frame.min(self.session.last_frame()));
            }
        }
        let dt_s = f64::from(ctx.input(|input| input.stable_dt));
        self.session.tick(dt_s.min(0.25));
        if let Some(world) = self.session.world() {
            self.spawn_watch
                .observe(world, self.session.world_version());
        }
        self.update_scene();
        if self.session.playing {
            ctx.request_repaint();
        } else if service.is_busy() {
            ctx.request_repaint_after(GENERATION_POLL);
        }
        self.session.playing
    }

    /// Rebuilds the scene layers whose inputs changed.
    pub fn update_scene(&mut self) -> Vec<LayerKind> {
        let session = &self.session;
        // Stepping or a locked stage draws part of the content (the simulation keeps all of it).
        let shown = session
            .content()
            .map(|c| self.inspect.shown(c, session.content_version()));
        // A selection that no longer exists (regenerated away, agent not born at this frame)
        // keeps its id: it comes back when the object does.
        let inputs = SceneInputs {
            content: shown.as_ref().map(|(c, version)| (c.as_ref(), *version)),
            scenario: session.scenario().map(|s| (s, session.scenario_version())),
            world: session.world().map(|w| (w, session.world_version())),
            options: &self.options,
            selected: self.selected.as_ref(),
            hovered: self.hovered.as_ref(),
        };
        self.scene.update(&inputs)
    }
}

#[cfg(test)]
mod tests;
