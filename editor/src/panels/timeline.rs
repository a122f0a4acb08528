//! The Timeline tab: play, pause, step, step N, step back and jump to a frame in the selected
//! scenario's simulation; playback speed; the frame counter and simulated time; and a plot of
//! every counter the runtime publishes over the simulated frames.
//!
//! Shortcuts (whenever a preview tab is shown and no text field has focus): Space plays or
//! pauses, period steps one frame, comma steps one frame back.

use egui::{Key, Modifiers, RichText, Ui};
use egui_plot::{Legend, Line, Plot, PlotPoints, VLine};

use super::{Command, Panel};
use crate::document::Document;
use crate::session::{Session, SPEEDS};
use crate::viewport::SharedPreview;
use stagecraft_runtime::sim::Counters;

/// Points per counter line in the plot, at most (about).
const PLOT_POINTS: usize = 2_000;

/// The Timeline tab.
pub struct TimelinePanel {
    preview: SharedPreview,
    /// Frames "Step N" advances.
    pub step_frames: u64,
    /// The frame "Jump" goes to.
    pub jump_frame: u64,
}

impl TimelinePanel {
    /// A Timeline tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        TimelinePanel {
            preview,
            step_frames: 10,
            jump_frame: 0,
        }
    }
}

/// Applies the timeline's keyboard shortcuts (Space, period, comma) to `session`.
pub fn timeline_shortcuts(ctx: &egui::Context, session: &mut Session) {
    if ctx.egui_wants_keyboard_input() || session.timeline().is_none() {
        return;
    }
    let (play, step, back) = ctx.input_mut(|input| {
        (
            input.consume_key(Modifiers::NONE, Key::Space),
            input.consume_key(Modifiers::NONE, Key::Period),
            input.consume_key(Modifiers::NONE, Key::Comma),
        )
    });
    if play {
        session.toggle_play();
    }
    if step {
        session.step(1);
    }
    if back {
        session.step_back();
    }
}

impl Panel for TimelinePanel {
    fn title(&self) -> &'static str {
        "Timeline"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, _out: &mut Vec<Command>) {
        let preview = self.preview.clone();
        let mut preview = preview.borrow_mut();
        preview.frame_update(ui.ctx(), document);
        let session = &mut preview.session;
        scenario_picker_ui(ui, document, session);
        if session.timeline().is_none() {
            ui.add_space(8.0);
            let why = session
                .problem()
                .unwrap_or("No scenario: add one to the project to run a simulation.");
            ui.label(RichText::new(why).weak());
            return;
        }
        self.controls_ui(ui, session);
        ui.separator();
        counts_plot_ui(ui, session);
        drop(preview);
        self.preview.borrow_mut().update_scene();
    }
}

fn scenario_picker_ui(ui: &mut Ui, document: &Document, session: &mut Session) {
    let scenarios: Vec<String> = document.project().scenarios.keys().cloned().collect();
    ui.horizontal(|ui| {
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
        ui.horizontal(|ui| {
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
        });
        ui.horizontal(|ui| {
            let time_s = session.world().map_or(0.0, |w| w.time_s());
            ui.label(
                RichText::new(format!("Frame {frame} / {last}   t = {time_s:.2} s"))
                    .monospace()
                    .strong(),
            );
            ui.separator();
            ui.add(egui::DragValue::new(&mut self.jump_frame).range(0..=last.max(1)));
            if ui.button("Jump").clicked() {
                session.playing = false;
                session.seek(self.jump_frame);
            }
            if let Some(world) = session.world() {
                ui.separator();
                ui.weak(format!(
                    "{} agents · {} checkpoints",
                    world.agents().len(),
                    session.timeline().map_or(0, |t| t.checkpoint_count())
                ));
            }
        });
        let mut scrub = frame;
        ui.spacing_mut().slider_width = (ui.available_width() - 8.0).max(60.0);
        let slider = egui::Slider::new(&mut scrub, 0..=last.max(frame).max(1)).show_value(false);
        if ui.add(slider).on_hover_text("Scrub").changed() {
            session.playing = false;
            session.seek(scrub);
        }
    }
}

/// Every published counter over the simulated frames, with the current frame marked.
fn counts_plot_ui(ui: &mut Ui, session: &Session) {
    let Some(timeline) = session.timeline() else {
        return;
    };
    let history = timeline.history();
    let names = Counters::default().rows().map(|(name, _)| name);
    // Long runs are thinned to about PLOT_POINTS points per line; the last frame is always kept.
    let stride = history.len() / PLOT_POINTS + 1;
    Plot::new("timeline-counts")
        .legend(
            Legend::default()
                .position(egui_plot::Corner::LeftTop)
                .text_style(egui::TextStyle::Small)
                .background_alpha(0.5)
                .follow_insertion_order(true),
        )
        .allow_scroll(false)
        .x_axis_label("frame")
        .show(ui, |plot| {
            for (index, name) in names.iter().enumerate() {
                let points: PlotPoints<'_> = history
                    .iter()
                    .enumerate()
                    .filter(|(entry, _)| entry % stride == 0 || entry + 1 == history.len())
                    .map(|(_, (frame, counters))| [*frame as f64, counters.rows()[index].1 as f64])
                    .collect();
                plot.line(Line::new(*name, points));
            }
            plot.vline(
                VLine::new("current frame", timeline.frame() as f64)
                    .stroke(egui::Stroke::new(1.5, egui::Color32::WHITE)),
            );
        });
}
