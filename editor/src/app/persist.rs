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

    /// A stored layout that lacks a tab of the default layout (saved by an older build, before
    /// the tab existed) is replaced by the default, so no tab is ever out of reach.
    fn repair(&mut self) {
        let default = default_layout();
        let missing = default
            .iter_all_tabs()
            .any(|(_, tab)| !self.dock.iter_all_tabs().any(|(_, t)| t == tab));
        if missing {
            self.reset_layout();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_recent_projects_survive_a_round_trip() {
        let mut persisted = Persisted::default();
        persisted
            .dock
            .main_surface_mut()
            .push_to_focused_leaf(Tab::Project);
        persisted.remember(Path::new("/a"));
        let text = ron::to_string(&persisted).expect("serialize");
        let back: Persisted = ron::from_str(&text).expect("deserialize");
        assert_eq!(ron::to_string(&back).expect("serialize"), text);
        assert_eq!(back.recent, vec![PathBuf::from("/a")]);
    }

    #[test]
    fn reset_restores_the_default_layout() {
        let default = ron::to_string(&Persisted::default().dock).expect("serialize");
        let mut persisted = Persisted {
            dock: DockState::new(vec![Tab::Diagnostics]),
            ..Persisted::default()
        };
        persisted.repair();
        assert_eq!(ron::to_string(&persisted.dock).expect("serialize"), default);
        persisted
            .dock
            .main_surface_mut()
            .push_to_focused_leaf(Tab::Project);
        persisted.reset_layout();
        assert_eq!(ron::to_string(&persisted.dock).expect("serialize"), default);
    }

    #[test]
    fn recent_projects_are_unique_most_recent_first_and_bounded() {
        let mut persisted = Persisted::default();
        for n in 0..15 {
            persisted.remember(Path::new(&format!("/p{n}")));
        }
        persisted.remember(Path::new("/p10"));
        assert_eq!(persisted.recent.len(), RECENT_LIMIT);
        assert_eq!(persisted.recent[0], PathBuf::from("/p10"));
        assert_eq!(
            persisted
                .recent
                .iter()
                .filter(|p| p.as_path() == Path::new("/p10"))
                .count(),
            1
        );
    }
}
