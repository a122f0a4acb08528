//! The Timeline's frame ruler and its lists: a marker per directive (click selects it and jumps
//! to its frame, drag moves it to another frame, right-click removes it), automatic markers at
//! notable frames the simulation reached, and named user bookmarks; every marker is jumpable
//! from a list too.
//!
//! Directive changes are edits of the scenario document (one undoable edit each, a drag is one
//! edit when it ends). Bookmarks are editor state, not project content: they are kept per
//! scenario in `.stagecraft/bookmarks.ron`, like the graph layout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use egui::{Color32, Pos2, Rect, Sense, Ui};
use serde::{Deserialize, Serialize};
use stagecraft_runtime::project::{FieldPath, Scenario};
use stagecraft_runtime::sim::{Counters, EventKind, EventLog};

use super::inspector::scenario::{
    command_kind, command_options, directive_summary, kind_label, new_command, new_directive,
    target_for,
};
use super::Command;
use crate::edits::{DocId, DocValue, ProjectEdit, Selection};
use crate::session::Session;
use crate::viewport::directive_pick::DirectivePick;

/// Where bookmarks are kept, relative to the project folder.
pub const BOOKMARKS_FILE: &str = ".stagecraft/bookmarks.ron";

/// Consecutive recorded frames with new rejections and no birth that make a rejection streak.
pub const REJECTION_STREAK_FRAMES: usize = 20;

/// A named frame the user wants to come back to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bookmark {
    /// The user's name for it.
    pub name: String,
    /// The frame.
    pub frame: u64,
}

/// Every scenario's bookmarks, by scenario id, each list sorted by frame.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bookmarks {
    /// Scenario id → bookmarks.
    pub scenarios: BTreeMap<String, Vec<Bookmark>>,
}

impl Bookmarks {
    /// Reads the bookmarks of the project in `dir` (none when absent or unreadable).
    pub fn load(dir: &Path) -> Bookmarks {
        crate::project_io::read_editor_state(dir, BOOKMARKS_FILE)
    }

    /// Writes the bookmarks of the project in `dir` (temp file, then rename).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        crate::project_io::write_editor_state(dir, BOOKMARKS_FILE, self)
    }

    /// Adds a bookmark, keeping the list sorted by frame (a bookmark at the same frame is
    /// renamed instead of doubled).
    pub fn add(&mut self, scenario: &str, name: &str, frame: u64) {
        let list = self.scenarios.entry(scenario.to_owned()).or_default();
        match list.iter_mut().find(|b| b.frame == frame) {
            Some(existing) => existing.name = name.to_owned(),
            None => list.push(Bookmark {
                name: name.to_owned(),
                frame,
            }),
        }
        list.sort_by_key(|b| b.frame);
    }
}

/// Why a frame is notable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotableKind {
    /// A directive whose target could not be resolved.
    DirectiveMissed,
    /// Births were rejected for [`REJECTION_STREAK_FRAMES`] recorded frames in a row with no
    /// birth in between; the marker is at the streak's first frame.
    RejectionStreak,
    /// A realization batch was rolled back.
    Rollback,
    /// A claim, release or transfer was refused.
    ClaimRefused,
}

/// An automatic marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notable {
    /// Its frame.
    pub frame: u64,
    /// Why.
    pub kind: NotableKind,
    /// What it says on hover and in the list.
    pub text: String,
}

/// The notable frames of a run, from the counters history the timeline recorded (in frame
/// order).
pub fn notable_frames(history: &[(u64, Counters)]) -> Vec<Notable> {
    let mut notable = Vec::new();
    let mut streak: Option<(u64, usize, u64)> = None;
    for pair in history.windows(2) {
        let ((_, before), (frame, after)) = (&pair[0], &pair[1]);
        let missed = after
            .directives_missed
            .saturating_sub(before.directives_missed);
        if missed > 0 {
            notable.push(Notable {
                frame: *frame,
                kind: NotableKind::DirectiveMissed,
                text: format!("frame {frame}: {missed} directive(s) had no target"),
            });
        }
        let rejected = (after.rejected_no_spawn_box + after.rejected_sampler)
            .saturating_sub(before.rejected_no_spawn_box + before.rejected_sampler);
        let born = after.births > before.births;
        streak = match (streak, rejected > 0 && !born) {
            (Some((start, length, count)), true) => Some((start, length + 1, count + rejected)),
            (None, true) => Some((*frame, 1, rejected)),
            (_, false) => None,
        };
        if let Some((start, length, count)) = streak {
            if length == REJECTION_STREAK_FRAMES {
                notable.push(Notable {
                    frame: start,
                    kind: NotableKind::RejectionStreak,
                    text: format!(
                        "frame {start}: births rejected {count} times over {length} frames with none born"
                    ),
                });
            }
        }
    }
    notable.sort_by_key(|n| n.frame);
    notable
}

/// The notable frames the world's event log still holds: every rollback and every refused
/// claim, in frame order.
pub fn event_marks(events: &EventLog) -> Vec<Notable> {
    let mut marks: Vec<Notable> = [EventKind::RolledBack, EventKind::ClaimRefused]
        .into_iter()
        .flat_map(|kind| events.of_kind(kind))
        .map(|event| {
            let (kind, what) = match event.kind {
                EventKind::RolledBack => (NotableKind::Rollback, "a batch was rolled back"),
                _ => (NotableKind::ClaimRefused, "a claim was refused"),
            };
            let detail = crate::panels::population::detail_text(&event.detail);
            Notable {
                frame: event.frame,
                kind,
                text: format!("frame {}: {what} ({detail})", event.frame),
            }
        })
        .collect();
    marks.sort_by_key(|n| n.frame);
    marks
}

/// The ruler and lists' state.
#[derive(Default)]
pub struct MarksState {
    bookmarks: Bookmarks,
    loaded_from: Option<PathBuf>,
    /// The directive being dragged and the frame it is over.
    drag: Option<(usize, u64)>,
    /// The name typed for the next bookmark.
    pub new_bookmark: String,
    /// Where the ruler was drawn last frame and the last frame it spans.
    ruler: Option<(Rect, u64)>,
    /// The kind "+ Directive" adds (Hold until another is chosen).
    pub new_kind: Option<&'static str>,
}

/// Height of the ruler, points.
const RULER_H: f32 = 22.0;

impl MarksState {
    /// The bookmarks of the project in `dir`, read once per project.
    fn bookmarks_for(&mut self, dir: &Path) -> &mut Bookmarks {
        if self.loaded_from.as_deref() != Some(dir) {
            self.bookmarks = Bookmarks::load(dir);
            self.loaded_from = Some(dir.to_owned());
        }
        &mut self.bookmarks
    }

    /// A renamed scenario keeps its bookmarks: they are copied to the new id (the old id's stay,
    /// for an undo of the rename) and saved.
    pub fn scenario_renamed(&mut self, dir: &Path, old: &str, new: &str) {
        let bookmarks = self.bookmarks_for(dir);
        if let Some(list) = bookmarks.scenarios.get(old).cloned() {
            bookmarks.scenarios.entry(new.to_owned()).or_insert(list);
            self.save_bookmarks();
        }
    }

    fn save_bookmarks(&self) {
        if let Some(dir) = &self.loaded_from {
            // Bookmarks are a convenience: a folder that cannot be written loses only them.
            let _ = self.bookmarks.save(dir);
        }
    }

    /// Where the ruler draws `frame` (its centre line), as of the last frame drawn.
    pub fn ruler_point(&self, frame: u64) -> Option<Pos2> {
        self.ruler.map(|(rect, last)| {
            let t = frame.min(last) as f32 / last.max(1) as f32;
            Pos2::new(rect.left() + rect.width() * t, rect.center().y)
        })
    }

    /// The ruler under the scrub bar: markers for directives, notable frames and bookmarks.
    pub fn ruler_ui(
        &mut self,
        ui: &mut Ui,
        dir: &Path,
        scenario: &Scenario,
        session: &mut Session,
        out: &mut Vec<Command>,
    ) {
        let last = session.last_frame().max(1);
        let (rect, background) =
            ui.allocate_exact_size(egui::vec2(ui.available_width(), RULER_H), Sense::click());
        self.ruler = Some((rect, last));
        let x_of = |frame: u64| rect.left() + rect.width() * (frame.min(last) as f32 / last as f32);
        let frame_at = |x: f32| {
            let t = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
            (t as f64 * last as f64).round() as u64
        };
        let painter = ui.painter_at(rect.expand(2.0));
        painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
        let cursor_x = x_of(session.frame());
        painter.line_segment(
            [
                Pos2::new(cursor_x, rect.top()),
                Pos2::new(cursor_x, rect.bottom()),
            ],
            egui::Stroke::new(1.5, ui.visuals().strong_text_color()),
        );
        if background.clicked() {
            if let Some(at) = background.interact_pointer_pos() {
                session.playing = false;
                session.seek(frame_at(at.x));
            }
        }
        let mut notable = session
            .timeline()
            .map(|t| notable_frames(t.history()))
            .unwrap_or_default();
        if let Some(world) = session.world() {
            notable.extend(event_marks(world.events()));
        }
        notable_marks_ui(ui, &painter, rect, &notable, &x_of, session);
        let bookmarks = self
            .bookmarks_for(dir)
            .scenarios
            .get(&scenario.id)
            .cloned()
            .unwrap_or_default();
        bookmark_marks_ui(ui, &painter, rect, &bookmarks, &x_of, session);
        self.directive_markers_ui(ui, rect, last, scenario, session, out);
    }

    /// The directive markers: drawn at their frame (or where a drag has them), interactive.
    fn directive_markers_ui(
        &mut self,
        ui: &mut Ui,
        rect: Rect,
        last: u64,
        scenario: &Scenario,
        session: &mut Session,
        out: &mut Vec<Command>,
    ) {
        let x_of = |frame: u64| rect.left() + rect.width() * (frame.min(last) as f32 / last as f32);
        let painter = ui.painter_at(rect.expand(2.0));
        for (index, directive) in scenario.directives.iter().enumerate() {
            let shown = match self.drag {
                Some((dragged, frame)) if dragged == index => frame,
                _ => directive.frame,
            };
            let centre = Pos2::new(x_of(shown), rect.center().y);
            let colour = Color32::from_rgb(120, 220, 140);
            painter.add(egui::Shape::convex_polygon(
                vec![
                    centre + egui::vec2(-5.0, -6.0),
                    centre + egui::vec2(5.0, -6.0),
                    centre + egui::vec2(0.0, 4.0),
                ],
                colour,
                egui::Stroke::new(1.0, Color32::from_gray(30)),
            ));
            let hit = Rect::from_center_size(centre, egui::vec2(12.0, 14.0));
            let response = ui
                .interact(
                    hit,
                    ui.id().with(("directive", index)),
                    Sense::click_and_drag(),
                )
                .on_hover_text(format!(
                    "{}\nclick: select · drag: move · right-click: remove",
                    directive_summary(directive)
                ));
            if response.clicked() {
                out.push(Command::Select(directive_selection(scenario, index)));
                session.playing = false;
                session.seek(directive.frame);
            }
            if response.dragged() {
                if let Some(at) = response.interact_pointer_pos() {
                    let t = ((at.x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
                    self.drag = Some((index, (t as f64 * last as f64).round() as u64));
                }
            }
            if response.drag_stopped() {
                if let Some((_, frame)) = self.drag.take() {
                    if frame != directive.frame {
                        out.push(Command::Apply(move_directive(scenario, index, frame)));
                    }
                }
            }
            response.context_menu(|ui| {
                if ui.button("Remove directive").clicked() {
                    out.push(Command::Apply(remove_directive(scenario, index)));
                    ui.close();
                }
            });
        }
    }

    /// The directives and bookmarks lists, with "+ Directive at frame N" of the chosen kind,
    /// a "Pick" per directive (its target from the next viewport click, into `pick`), and
    /// "Bookmark".
    pub fn lists_ui(
        &mut self,
        ui: &mut Ui,
        dir: &Path,
        scenario: &Scenario,
        session: &mut Session,
        pick: &mut Option<DirectivePick>,
        out: &mut Vec<Command>,
    ) {
        let frame = session.frame();
        let bookmark_count = self
            .bookmarks_for(dir)
            .scenarios
            .get(&scenario.id)
            .map_or(0, Vec::len);
        egui::CollapsingHeader::new(format!(
            "Directives ({}) · Bookmarks ({bookmark_count})",
            scenario.directives.len()
        ))
        .id_salt("timeline-marks")
        .default_open(false)
        .show(ui, |ui| {
            self.new_directive_ui(ui, scenario, frame, out);
            let armed = pick
                .as_ref()
                .filter(|p| p.scenario == scenario.id)
                .map(|p| p.index);
            if let Some(armed) = armed {
                ui.horizontal(|ui| {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!(
                            "Click a pedestrian, a scene object or the ground in the Viewport \
                             to fill directive {armed}"
                        ),
                    );
                    if ui.small_button("Cancel pick").clicked() {
                        *pick = None;
                    }
                });
            }
            for (index, directive) in scenario.directives.iter().enumerate() {
                directive_row_ui(ui, scenario, index, directive, session, pick, out);
            }
            ui.separator();
            self.bookmarks_ui(ui, dir, &scenario.id, session);
        });
    }

    /// The kind of the next directive and "+ Directive at frame N".
    fn new_directive_ui(
        &mut self,
        ui: &mut Ui,
        scenario: &Scenario,
        frame: u64,
        out: &mut Vec<Command>,
    ) {
        let kind = self.new_kind.unwrap_or("Hold");
        ui.horizontal(|ui| {
            let mut chosen = kind;
            egui::ComboBox::from_id_salt("timeline-new-directive-kind")
                .selected_text(kind_label(kind))
                .show_ui(ui, |ui| {
                    for (k, label) in command_options() {
                        ui.selectable_value(&mut chosen, k, label);
                    }
                });
            self.new_kind = Some(chosen);
            if ui
                .button(format!("+ Directive at frame {frame}"))
                .on_hover_text(
                    "Adds a directive of the chosen kind at the current frame; edit it in \
                     the Inspector or pick its target in the Viewport",
                )
                .clicked()
            {
                out.push(Command::Apply(add_directive_of(scenario, frame, chosen)));
            }
        });
    }

    fn bookmarks_ui(&mut self, ui: &mut Ui, dir: &Path, scenario: &str, session: &mut Session) {
        let frame = session.frame();
        let mut changed = false;
        ui.horizontal(|ui| {
            let label = ui.label("Bookmark name");
            ui.add(
                egui::TextEdit::singleline(&mut self.new_bookmark)
                    .hint_text("e.g. crossers wait")
                    .desired_width(140.0),
            )
            .labelled_by(label.id);
            if ui.button(format!("Bookmark frame {frame}")).clicked() {
                let name = match self.new_bookmark.trim() {
                    "" => format!("frame {frame}"),
                    name => name.to_owned(),
                };
                self.bookmarks_for(dir).add(scenario, &name, frame);
                self.new_bookmark.clear();
                changed = true;
            }
        });
        let list = self
            .bookmarks_for(dir)
            .scenarios
            .get(scenario)
            .cloned()
            .unwrap_or_default();
        let mut remove = None;
        for (index, bookmark) in list.iter().enumerate() {
            ui.horizontal(|ui| {
                if ui.small_button("Jump").clicked() {
                    session.playing = false;
                    session.seek(bookmark.frame);
                }
                if ui.small_button("🗑").on_hover_text("Remove").clicked() {
                    remove = Some(index);
                }
                ui.label(format!("{} · frame {}", bookmark.name, bookmark.frame));
            });
        }
        if let Some(index) = remove {
            if let Some(list) = self.bookmarks.scenarios.get_mut(scenario) {
                list.remove(index);
            }
            changed = true;
        }
        if changed {
            self.save_bookmarks();
        }
    }
}

fn diamond(centre: Pos2, r: f32) -> Vec<Pos2> {
    vec![
        centre + egui::vec2(0.0, -r),
        centre + egui::vec2(r, 0.0),
        centre + egui::vec2(0.0, r),
        centre + egui::vec2(-r, 0.0),
    ]
}

fn directive_selection(scenario: &Scenario, index: usize) -> Selection {
    Selection::field(
        DocId::Scenario(scenario.id.clone()),
        FieldPath::root().field("directives").index(index),
    )
}

fn scenario_edit(scenario: Scenario, index: usize, label: String) -> ProjectEdit {
    let selection = directive_selection(&scenario, index);
    ProjectEdit::replace(
        DocId::Scenario(scenario.id.clone()),
        Some(DocValue::Scenario(scenario)),
        selection,
        label,
    )
}

/// The edit that adds a directive at `frame` (after the existing ones).
pub fn add_directive(scenario: &Scenario, frame: u64) -> ProjectEdit {
    add_directive_of(scenario, frame, "Hold")
}

/// The edit that adds a directive of `kind` at `frame` (after the existing ones), for the first
/// source's first pedestrian, or the world for a world command.
pub fn add_directive_of(scenario: &Scenario, frame: u64, kind: &str) -> ProjectEdit {
    let sources: Vec<String> = scenario.sources.iter().map(|s| s.id.clone()).collect();
    let mut directive = new_directive(&sources, frame);
    if kind != command_kind(&directive.command) {
        directive.command = new_command(kind, &directive.command);
    }
    directive.target = target_for(&directive.command, &directive.target, &sources);
    let mut changed = scenario.clone();
    changed.directives.push(directive);
    let index = changed.directives.len() - 1;
    scenario_edit(
        changed,
        index,
        format!("Add {} directive at frame {frame}", kind_label(kind)),
    )
}

/// The edit that moves directive `index` to `frame`.
pub fn move_directive(scenario: &Scenario, index: usize, frame: u64) -> ProjectEdit {
    let mut changed = scenario.clone();
    if let Some(directive) = changed.directives.get_mut(index) {
        directive.frame = frame;
    }
    scenario_edit(
        changed,
        index,
        format!("Move directive {index} to frame {frame}"),
    )
}

/// The edit that removes directive `index`.
pub fn remove_directive(scenario: &Scenario, index: usize) -> ProjectEdit {
    let mut changed = scenario.clone();
    if index < changed.directives.len() {
        changed.directives.remove(index);
    }
    let selection = Selection::field(
        DocId::Scenario(scenario.id.clone()),
        FieldPath::root().field("directives"),
    );
    ProjectEdit::replace(
        DocId::Scenario(scenario.id.clone()),
        Some(DocValue::Scenario(changed)),
        selection,
        format!("Remove directive {index}"),
    )
}

/// One directive of the list: Jump, Pick, remove, and its summary (click to select).
fn directive_row_ui(
    ui: &mut Ui,
    scenario: &Scenario,
    index: usize,
    directive: &stagecraft_runtime::project::Directive,
    session: &mut Session,
    pick: &mut Option<DirectivePick>,
    out: &mut Vec<Command>,
) {
    ui.horizontal(|ui| {
        if ui.small_button("Jump").clicked() {
            session.playing = false;
            session.seek(directive.frame);
        }
        if ui
            .small_button("Pick")
            .on_hover_text(
                "Pick its target in the Viewport: a pedestrian, a scene object or a \
                 point on the ground",
            )
            .clicked()
        {
            *pick = Some(DirectivePick {
                scenario: scenario.id.clone(),
                index,
            });
        }
        if ui.small_button("🗑").on_hover_text("Remove").clicked() {
            out.push(Command::Apply(remove_directive(scenario, index)));
        }
        if ui
            .selectable_label(false, directive_summary(directive))
            .on_hover_text("Select to edit in the Inspector")
            .clicked()
        {
            out.push(Command::Select(directive_selection(scenario, index)));
        }
    });
}

/// The notable frames and events as diamonds under the ruler; a click seeks there.
fn notable_marks_ui(
    ui: &Ui,
    painter: &egui::Painter,
    rect: Rect,
    notable: &[Notable],
    x_of: &dyn Fn(u64) -> f32,
    session: &mut Session,
) {
    for (index, mark) in notable.iter().enumerate() {
        let centre = Pos2::new(x_of(mark.frame), rect.bottom() - 5.0);
        painter.add(egui::Shape::convex_polygon(
            diamond(centre, 4.5),
            ui.visuals().warn_fg_color,
            egui::Stroke::NONE,
        ));
        let hit = Rect::from_center_size(centre, egui::vec2(10.0, 10.0));
        let response = ui
            .interact(hit, ui.id().with(("notable", index)), Sense::click())
            .on_hover_text(&mark.text);
        if response.clicked() {
            session.playing = false;
            session.seek(mark.frame);
        }
    }
}

/// The scenario's bookmarks as flags on the ruler; a click seeks there.
fn bookmark_marks_ui(
    ui: &Ui,
    painter: &egui::Painter,
    rect: Rect,
    bookmarks: &[Bookmark],
    x_of: &dyn Fn(u64) -> f32,
    session: &mut Session,
) {
    for (index, bookmark) in bookmarks.iter().enumerate() {
        let x = x_of(bookmark.frame);
        let colour = Color32::from_rgb(90, 160, 255);
        painter.line_segment(
            [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
            egui::Stroke::new(1.0, colour),
        );
        painter.add(egui::Shape::convex_polygon(
            vec![
                Pos2::new(x, rect.top()),
                Pos2::new(x + 7.0, rect.top() + 3.5),
                Pos2::new(x, rect.top() + 7.0),
            ],
            colour,
            egui::Stroke::NONE,
        ));
        let hit = Rect::from_min_size(Pos2::new(x - 2.0, rect.top()), egui::vec2(10.0, 8.0));
        let response = ui
            .interact(hit, ui.id().with(("bookmark", index)), Sense::click())
            .on_hover_text(format!("{} (frame {})", bookmark.name, bookmark.frame));
        if response.clicked() {
            session.playing = false;
            session.seek(bookmark.frame);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(births: u64, rejected: u64, missed: u64) -> Counters {
        Counters {
            births,
            rejected_no_spawn_box: rejected,
            directives_missed: missed,
            ..Counters::default()
        }
    }

    #[test]
    fn a_missed_directive_and_a_rejection_streak_are_notable() {
        let mut history = vec![(0, counters(0, 0, 0))];
        // Frames 1..=25 each reject one birth and bear none; frame 26 misses a directive.
        for frame in 1..=25 {
            history.push((frame, counters(0, frame, 0)));
        }
        history.push((26, counters(1, 25, 1)));
        let notable = notable_frames(&history);
        assert_eq!(notable.len(), 2, "{notable:?}");
        assert_eq!(notable[0].frame, 1);
        assert_eq!(notable[0].kind, NotableKind::RejectionStreak);
        assert_eq!(
            notable[0].text,
            "frame 1: births rejected 20 times over 20 frames with none born"
        );
        assert_eq!(
            (notable[1].frame, notable[1].kind),
            (26, NotableKind::DirectiveMissed)
        );
    }

    #[test]
    fn rollbacks_and_refused_claims_in_the_event_log_are_notable() {
        use stagecraft_runtime::sim::{ClaimRefusal, EventDetail};
        let mut events = EventLog::default();
        events.push(9, EventKind::Admitted, None, Some(0), EventDetail::None);
        let rollback = EventDetail::Rollback {
            complete: true,
            undone: 2,
        };
        events.push(30, EventKind::RolledBack, None, Some(0), rollback);
        let refused = EventDetail::Claim(ClaimRefusal::Pooled);
        events.push(12, EventKind::ClaimRefused, None, Some(1), refused);
        let marks = event_marks(&events);
        let got: Vec<(u64, NotableKind)> = marks.iter().map(|m| (m.frame, m.kind)).collect();
        assert_eq!(
            got,
            vec![(12, NotableKind::ClaimRefused), (30, NotableKind::Rollback)]
        );
        assert_eq!(
            marks[1].text,
            "frame 30: a batch was rolled back (2 item(s) compensated in reverse)"
        );
    }

    #[test]
    fn a_streak_broken_by_a_birth_is_not_notable() {
        let mut history = vec![(0, counters(0, 0, 0))];
        for frame in 1..=30 {
            // A birth every 10th frame breaks every streak before it reaches 20 frames.
            history.push((frame, counters(frame / 10, frame, 0)));
        }
        assert_eq!(notable_frames(&history), Vec::new());
    }

    #[test]
    fn bookmarks_stay_sorted_and_a_second_one_at_a_frame_renames_it() {
        let mut bookmarks = Bookmarks::default();
        bookmarks.add("rush", "crossers start", 300);
        bookmarks.add("rush", "courier claimed", 40);
        bookmarks.add("rush", "claim", 40);
        let list = &bookmarks.scenarios["rush"];
        let frames: Vec<(u64, &str)> = list.iter().map(|b| (b.frame, b.name.as_str())).collect();
        assert_eq!(frames, vec![(40, "claim"), (300, "crossers start")]);
        let dir = tempfile::tempdir().expect("temp dir");
        bookmarks.save(dir.path()).expect("saves");
        assert_eq!(Bookmarks::load(dir.path()), bookmarks);
    }
}
