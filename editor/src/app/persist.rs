//! What the editor remembers per user between runs (eframe storage): the dock layout and the
//! recent projects. Kept apart from runtime resources (document, watcher, threads).

use std::path::{Path, PathBuf};

use egui_dock::DockState;
use serde::{Deserialize, Serialize};

use crate::panels::{default_layout, Tab};

/// The storage key of [`Persisted`].
pub const STORAGE_KEY: &str = "stagecraft-editor";

/// How many recent projects are remembered.
pub const RECENT_LIMIT: usize = 10;

/// Per-user editor state that survives restarts.
#[derive(Clone, Serialize, Deserialize)]
pub struct Persisted {
    /// The dock layout.
    pub dock: DockState<Tab>,
    /// Recently opened project folders, most recent first.
    pub recent: Vec<PathBuf>,
}

impl Default for Persisted {
    fn default() -> Self {
        Persisted {
            dock: default_layout(),
            recent: Vec::new(),
        }
    }
}

impl Persisted {
    /// Loads the state from eframe storage; defaults when absent or unreadable.
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Persisted {
        let mut persisted: Persisted = storage
            .and_then(|storage| eframe::get_value(storage, STORAGE_KEY))
            .unwrap_or_default();
        persisted.repair();
        persisted
    }

    /// Stores the state.
    pub fn store(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, self);
    }

    /// Puts the default layout back.
    pub fn reset_layout(&mut self) {
        self.dock = default_layout();
    }

    /// Moves `dir` to the front of the recent projects.
    pub fn remember(&mut self, dir: &Path) {
        self.recent.retain(|known| known != dir);
        self.recent.insert(0, dir.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }

    /// A stored layout that lost a tab (from an older build) is replaced by the default.
    fn repair(&mut self) {
        let has = |tab: Tab| self.dock.iter_all_tabs().any(|(_, t)| *t == tab);
        if !(has(Tab::Project) && has(Tab::Inspector) && has(Tab::Diagnostics)) {
            self.reset_layout();
        }
    }
}
