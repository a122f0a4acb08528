//! The dock tabs: one module per tab, each implementing [`Panel`].
//!
//! Panels read the [`Document`] and never change it: what the user does comes back as
//! [`Command`]s, which the app applies in one place (where edits enter the undo record).

pub mod diagnostics;
pub mod inspector;
pub mod project_tree;

use egui::Ui;
use egui_dock::{DockState, NodeIndex};
use serde::{Deserialize, Serialize};
use stagecraft_runtime::project::Diagnostic;

use crate::document::Document;
use crate::edits::{ProjectEdit, Selection};

/// A dock tab. Only tabs that exist: no placeholders for later features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tab {
    /// The tree of the project's documents.
    Project,
    /// Typed widgets for the selected document.
    Inspector,
    /// Errors and warnings of the last validation.
    Diagnostics,
}

/// What a panel asks the app to do.
#[must_use]
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Change the selection.
    Select(Selection),
    /// Apply an edit (and record it for undo).
    Apply(ProjectEdit),
    /// Select the document and field a diagnostic is about and bring the Inspector forward.
    ShowDiagnostic(Diagnostic),
}

/// A dock tab's contents.
pub trait Panel {
    /// The tab's title.
    fn title(&self) -> &'static str;
    /// Draws the tab; user actions go to `out`.
    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>);
}

/// The panels' state between frames.
#[derive(Default)]
pub struct Panels {
    /// The Project tab.
    pub project: project_tree::ProjectPanel,
    /// The Inspector tab.
    pub inspector: inspector::InspectorPanel,
    /// The Diagnostics tab.
    pub diagnostics: diagnostics::DiagnosticsPanel,
}

impl Panels {
    /// The panel behind `tab`.
    pub fn get(&mut self, tab: Tab) -> &mut dyn Panel {
        match tab {
            Tab::Project => &mut self.project,
            Tab::Inspector => &mut self.inspector,
            Tab::Diagnostics => &mut self.diagnostics,
        }
    }
}

/// The default layout: Project on the left, Inspector in the middle, Diagnostics below.
pub fn default_layout() -> DockState<Tab> {
    let mut dock = DockState::new(vec![Tab::Inspector]);
    let surface = dock.main_surface_mut();
    let [inspector, _project] = surface.split_left(NodeIndex::root(), 0.24, vec![Tab::Project]);
    surface.split_below(inspector, 0.78, vec![Tab::Diagnostics]);
    dock
}

/// Shows the dock tabs over one document.
pub struct TabViewer<'a> {
    /// The panels.
    pub panels: &'a mut Panels,
    /// The open document.
    pub document: &'a Document,
    /// Commands the panels emit.
    pub out: &'a mut Vec<Command>,
}

impl egui_dock::TabViewer for TabViewer<'_> {
    type Tab = Tab;

    fn id(&mut self, tab: &mut Tab) -> egui::Id {
        egui::Id::new(("stagecraft-tab", *tab))
    }

    fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
        let title = self.panels.get(*tab).title();
        if *tab == Tab::Diagnostics {
            let count = self.document.diagnostics().len();
            if count > 0 {
                return format!("{title} ({count})").into();
            }
        }
        title.into()
    }

    fn ui(&mut self, ui: &mut Ui, tab: &mut Tab) {
        self.panels.get(*tab).ui(ui, self.document, self.out);
    }

    fn is_closeable(&self, _tab: &Tab) -> bool {
        // Every tab is essential; "Reset layout" is the way back from any arrangement.
        false
    }
}
