//! The Timeline tab: play, pause, step, step N, step back and jump to a frame in the selected
//! scenario's simulation; playback speed; the frame counter and simulated time; and a plot of
//! every counter the runtime publishes over the simulated frames; under the scrub bar, the frame
//! ruler with directive markers, notable frames and bookmarks (`timeline_marks`).
//!
//! The session is the app's; this tab borrows it. Its shortcuts (Space plays or pauses, period
//! steps one frame, comma steps one frame back) are in the app's shortcut table.

use egui::{RichText, Ui};

use super::{Command, Panel};
use crate::document::Document;
use crate::session::{Session, SPEEDS};
use crate::viewport::SharedPreview;

/// The Timeline tab.
pub struct TimelinePanel {
    preview: SharedPreview,
    /// Frames "Step N" advances.
    pub step_frames: u64,
    /// The frame "Jump" goes to.
    pub jump_frame: u64,
    /// The counter plot's toggles and last view.
    pub plot: super::timeline_plot::PlotState,
    /// The frame ruler's drag, bookmarks and typed bookmark name.
    pub marks: super::timeline_marks::MarksState,
}

impl TimelinePanel {
    /// A Timeline tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        TimelinePanel {
            preview,
            step_frames: 10,
            jump_frame: 0,
            plot: Default::default(),
            marks: Default::default(),
        }
    }
}

impl Panel for TimelinePanel {
    fn title(&self) -> &'static str {
        "Timeline"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let preview = self.preview.clone();
        let mut preview = preview.borrow_mut();
        let preview = &mut *preview;
        if preview.session.timeline().is_none() {
            scenario_picker_ui(ui, document, &mut preview.session);
            ui.add_space(8.0);
            let why = preview
                .session
                .problem()
                .unwrap_or("No scenario: add one to the project to run a simulation.");
            ui.label(RichText::new(why).weak());
            return;
        }
        let mut parts = (&mut *self, &mut *preview);
        super::plot_beside::text_beside_plots(
            ui,
            "timeline-controls",
            TEXT_SHARE,
            &mut parts,
            |ui, (panel, preview)| panel.text_ui(ui, document, preview, out),
            |ui, (panel, preview)| {
                super::timeline_plot::counts_plot_ui(ui, &preview.session, &mut panel.plot);
            },
        );
        preview.update_scene();
    }
}

/// The share of the tab's width the controls and lists take; the plot gets the rest.
const TEXT_SHARE: f32 = 0.5;

impl TimelinePanel {
    /// The scenario picker, the transport controls, the frame ruler and the lists.
    fn text_ui(
        &mut self,
        ui: &mut Ui,
        document: &Document,
        preview: &mut crate::viewport::Preview,
        out: &mut Vec<Command>,
    ) {
        scenario_picker_ui(ui, document, &mut preview.session);
        let session = &mut preview.session;
        let pick = &mut preview.directive_pick;
        self.controls_ui(ui, session);
        // The document's scenario, not the session's copy: markers follow edits at once.
        let scenario = session
            .scenario_id()
            .and_then(|id| document.project().scenarios.get(id))
            .cloned();
        if let Some(scenario) = &scenario {
            self.marks
                .ruler_ui(ui, document.dir(), scenario, session, out);
            self.marks
                .lists_ui(ui, document.dir(), scenario, session, pick, out);
        }
    }
}

fn scenario_picker_ui(ui: &mut Ui, document: &Document, session: &mut Session) {
    let scenarios: Vec<String> = document.project().scenarios.keys().cloned().collect();
    ui.horizontal_wrapped(|ui| {
        ui.label("Scenario");
        let current = session.scenario_id().unwrap_or("(none)").to_owned();
        egui::ComboBox::from_id_salt("timeline-scenario")
            .selected_text(current.clone())
            .show_ui(ui, |ui| {
                for id in &scenarios {
                    if ui.selectable_label(*id == current, id).clicked() {
                        session.choose_scenario(id);
                    }
                }
            });
        if let Some(scenario) = session.scenario() {
            ui.weak(format!(
                "recipe {} · step {} s",
                scenario.recipe, scenario.fixed_step_s
            ));
        }
    });
}

impl TimelinePanel {
    fn controls_ui(&mut self, ui: &mut Ui, session: &mut Session) {
        let frame = session.frame();
        let last = session.last_frame();
        ui.horizontal_wrapped(|ui| self.transport_ui(ui, session));
        ui.horizontal_wrapped(|ui| self.position_ui(ui, session, frame, last));
        let mut scrub = frame;
        ui.spacing_mut().slider_width = (ui.available_width() - 8.0).max(60.0);
        let slider = egui::Slider::new(&mut scrub, 0..=last.max(frame).max(1)).show_value(false);
        if ui.add(slider).on_hover_text("Scrub").changed() {
            session.playing = false;
            session.seek(scrub);
        }
    }

    /// Back, Play or Pause, Step, Step N and the speed.
    fn transport_ui(&mut self, ui: &mut Ui, session: &mut Session) {
        if ui
            .button("⏴ Back")
            .on_hover_text("Step one frame back (comma)")
            .clicked()
        {
            session.step_back();
        }
        let play_label = if session.playing {
            "⏸ Pause"
        } else {
            "▶ Play"
        };
        if ui
            .button(play_label)
            .on_hover_text("Play or pause (Space)")
            .clicked()
        {
            session.toggle_play();
        }
        if ui
            .button("Step ⏵")
            .on_hover_text("Step one frame (period)")
            .clicked()
        {
            session.step(1);
        }
        ui.separator();
        if ui.button("Step N").clicked() {
            session.step(self.step_frames);
        }
        ui.add(
            egui::DragValue::new(&mut self.step_frames)
                .range(1..=10_000)
                .suffix(" frames"),
        );
        ui.separator();
        ui.label("Speed");
        egui::ComboBox::from_id_salt("timeline-speed")
            .selected_text(format!("{}×", session.speed))
            .width(64.0)
            .show_ui(ui, |ui| {
                for speed in SPEEDS {
                    ui.selectable_value(&mut session.speed, speed, format!("{speed}×"));
                }
            });
    }

    /// The frame and time, "Go to frame", and the world's agent and checkpoint counts.
    fn position_ui(&mut self, ui: &mut Ui, session: &mut Session, frame: u64, last: u64) {
        let time_s = session.world().map_or(0.0, |w| w.time_s());
        ui.label(
            RichText::new(format!("Frame {frame} / {last}   t = {time_s:.2} s"))
                .monospace()
                .strong(),
        );
        ui.separator();
        let label = ui.label("Go to frame");
        let field = ui
            .add(
                egui::DragValue::new(&mut self.jump_frame)
                    .range(0..=last.max(1))
                    .update_while_editing(false),
            )
            .labelled_by(label.id);
        // Enter in the field jumps, as the button does.
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui.button("Jump").clicked() || entered {
            session.playing = false;
            session.seek(self.jump_frame);
        }
        if let Some(world) = session.world() {
            ui.separator();
            ui.weak(format!(
                "{} agents · {} checkpoints",
                world.agent_count(),
                session.timeline().map_or(0, |t| t.checkpoint_count())
            ));
        }
    }
}
