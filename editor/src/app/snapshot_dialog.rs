//! File → Save snapshot… / Restore snapshot…: the system file dialog runs on its own thread
//! (the UI never waits), then the session writes or restores the file and the status line says
//! what happened: the frame saved or restored, or why not (another scenario or configuration, a
//! damaged file, a world with a knockdown scene).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};

use super::actions::Action;
use super::StagecraftApp;

/// The file extension the dialogs offer.
pub const SNAPSHOT_EXTENSION: &str = "stgsnap";

/// A file dialog in flight: its answer arrives as the action to perform.
pub struct SnapshotPicker(Receiver<Option<Action>>);

impl StagecraftApp {
    /// Opens the system dialog for a snapshot file to write (`save`) or to restore.
    pub(super) fn pick_snapshot_file(&mut self, save: bool) {
        if self.snapshot_picker.is_some() {
            return;
        }
        let frame = self.preview.borrow().session.frame();
        let scenario = self
            .preview
            .borrow()
            .session
            .scenario_id()
            .unwrap_or("scenario")
            .to_owned();
        let (sender, receiver) = channel();
        let ctx = self.ctx.clone();
        let spawned = std::thread::Builder::new()
            .name("snapshot-dialog".to_owned())
            .spawn(move || {
                let dialog =
                    rfd::FileDialog::new().add_filter("Stagecraft snapshot", &[SNAPSHOT_EXTENSION]);
                let action = if save {
                    dialog
                        .set_title("Save snapshot")
                        .set_file_name(format!("{scenario}-{frame}.{SNAPSHOT_EXTENSION}"))
                        .save_file()
                        .map(Action::SaveSnapshotTo)
                } else {
                    dialog
                        .set_title("Restore snapshot")
                        .pick_file()
                        .map(Action::RestoreSnapshotFrom)
                };
                let _ = sender.send(action);
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => self.snapshot_picker = Some(SnapshotPicker(receiver)),
            Err(error) => self.status = Some((format!("No file dialog: {error}"), true)),
        }
    }

    /// Performs the file dialog's answer, when it has one.
    pub(super) fn poll_snapshot_picker(&mut self) {
        let Some(SnapshotPicker(receiver)) = &self.snapshot_picker else {
            return;
        };
        let Ok(answer) = receiver.try_recv() else {
            return;
        };
        self.snapshot_picker = None;
        if let Some(action) = answer {
            self.perform(action);
        }
    }

    /// Writes the current world to `path` and says so.
    pub(super) fn save_snapshot_to(&mut self, path: &Path) {
        let saved = self.preview.borrow().session.save_snapshot(path);
        self.status = Some(match saved {
            Ok(frame) => (
                format!("Saved the snapshot of frame {frame} to {}", path.display()),
                false,
            ),
            Err(error) => (format!("{error:#}"), true),
        });
    }

    /// Restores the snapshot file at `path` and says so.
    pub(super) fn restore_snapshot_from(&mut self, path: PathBuf) {
        let restored = self.preview.borrow_mut().session.restore_snapshot(&path);
        self.status = Some(match restored {
            Ok(header) => (
                format!(
                    "Restored frame {} of `{}` from {}",
                    header.frame,
                    header.scenario,
                    path.display()
                ),
                false,
            ),
            Err(error) => (format!("{error:#}"), true),
        });
    }
}
