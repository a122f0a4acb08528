//! The authoring controls shared by the Provenance tab (buttons under the selected object, the
//! harvested placements with Regrow) and the Viewport (its context menu): each click is one
//! undoable edit that `crate::authoring` makes, or a refusal in words.

use egui::Ui;

use crate::authoring::{author_object, harvested, regrow, variants_of, ObjectAction, Target};
pub use crate::command::emit;
use crate::command::Command;
use crate::session::PreviewContent;
use stagecraft_runtime::project::Project;

/// The object actions with their buttons' hover texts and viewport shortcuts, in button order.
pub const OBJECT_ACTIONS: [(ObjectAction, &str, &str); 5] = [
    (
        ObjectAction::Lock,
        "Keep this object with its variant across regeneration",
        "L",
    ),
    (
        ObjectAction::LockTransform,
        "Keep its position, rotation and scale across regeneration",
        "Shift+L",
    ),
    (
        ObjectAction::Delete,
        "Remove it (a tombstone on its identity)",
        "Del",
    ),
    (
        ObjectAction::FreezeSubtree,
        "Keep its variant and transform and what later stages derive from it",
        "",
    ),
    (
        ObjectAction::Harvest,
        "Harvest it (a world mutation; regrow it from the harvested list)",
        "H",
    ),
];

/// The buttons (or, `in_menu`, the menu entries) of the actions on `target`; returns a refusal
/// message when a click was refused.
pub fn object_tools_ui(
    ui: &mut Ui,
    project: &Project,
    content: &PreviewContent,
    target: &Target,
    in_menu: bool,
    out: &mut Vec<Command>,
) -> Option<String> {
    let mut message = None;
    let mut act = |action: &ObjectAction, out: &mut Vec<Command>| {
        message = emit(author_object(project, content, target, action), out);
    };
    for (action, hover, key) in OBJECT_ACTIONS {
        let mut button = egui::Button::new(action.name());
        if in_menu && !key.is_empty() {
            button = button.shortcut_text(key);
        }
        if ui.add(button).on_hover_text(hover).clicked() {
            act(&action, out);
            if in_menu {
                ui.close();
            }
        }
    }
    let variants = variants_of(content, target);
    let current = variants.get(target.variant as usize).cloned();
    let mut chosen = None;
    let entries = |ui: &mut Ui, chosen: &mut Option<String>| {
        for variant in &variants {
            if Some(variant) != current.as_ref() && ui.button(variant).clicked() {
                *chosen = Some(variant.clone());
            }
        }
    };
    ui.menu_button("Replace variant", |ui| entries(ui, &mut chosen))
        .response
        .on_hover_text("Give it another variant of its family");
    if let Some(variant) = chosen {
        act(&ObjectAction::Replace(variant), out);
        if in_menu {
            ui.close();
        }
    }
    message
}

/// The harvested placements of `recipe`, each with a Regrow button; returns a refusal message
/// when a regrow was refused.
pub fn harvested_ui(
    ui: &mut Ui,
    project: &Project,
    recipe: &str,
    out: &mut Vec<Command>,
) -> Option<String> {
    let list = harvested(project, recipe);
    if list.is_empty() {
        return None;
    }
    let mut message = None;
    ui.add_space(6.0);
    ui.strong(format!("Harvested ({})", list.len()));
    for h in list {
        let id = stagecraft_runtime::identity::identity_text(h.site.target);
        let below: String = h.site.nested.iter().map(|s| format!(" › {s}")).collect();
        ui.horizontal(|ui| {
            ui.label(format!(
                "{id} (stage {}{below}) · last regrow ordinal {}",
                h.site.stage, h.ordinal
            ));
            if ui
                .small_button("Regrow")
                .on_hover_text("Commit one regrow: the ordinal advances by one (undoable)")
                .clicked()
            {
                message = emit(regrow(project, &h.set, &h.site), out);
            }
        });
    }
    message
}
