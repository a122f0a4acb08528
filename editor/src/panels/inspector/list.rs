//! List editing in the Inspector: items with move up, move down and remove, and an add button.

use egui::collapsing_header::CollapsingState;
use egui::{RichText, Ui};

use super::form::{humanize, section_colour, Form};

/// What the user did to a list this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListAction {
    Up(usize),
    Down(usize),
    Remove(usize),
    /// Add the item of the choice with this index (0 for a plain add button).
    Add(usize),
}

/// A list of records: each item is a collapsible section titled by `title`, drawn by `item_ui`.
///
/// `new_item` builds the item the add button appends, given the items already there.
pub fn record_list_ui<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    items: &mut Vec<T>,
    new_item: impl Fn(&[T]) -> T,
    title: impl Fn(usize, &T) -> String,
    item_ui: impl FnMut(&mut Form<'_>, &mut Ui, &mut T),
) {
    record_list_sorted_ui(form, ui, name, items, |_| 0, new_item, title, item_ui);
}

/// Like [`record_list_ui`], adding from a menu of `choices` (label, help) instead of one button:
/// `new_item` builds the item of the choice picked, given the items already there and its index.
#[allow(clippy::too_many_arguments)]
pub fn record_list_choice_ui<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    items: &mut Vec<T>,
    choices: &[(String, String)],
    new_item: impl Fn(&[T], usize) -> T,
    title: impl Fn(usize, &T) -> String,
    item_ui: impl FnMut(&mut Form<'_>, &mut Ui, &mut T),
) {
    let add = |ui: &mut Ui| {
        let mut picked = None;
        ui.menu_button(format!("+ Add {} ▾", singular(name)), |ui| {
            for (index, (label, help)) in choices.iter().enumerate() {
                if ui.button(label).on_hover_text(help).clicked() {
                    picked = Some(index);
                    ui.close();
                }
            }
        });
        picked
    };
    record_list_core(form, ui, name, items, |_| 0, add, new_item, title, item_ui);
}

/// Like [`record_list_ui`], listing the items by `key` (stable: file order within a key),
/// such as directives by frame; each item keeps its index in the file, and the move buttons
/// still move it in the file.
#[allow(clippy::too_many_arguments)]
pub fn record_list_sorted_ui<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    items: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
    new_item: impl Fn(&[T]) -> T,
    title: impl Fn(usize, &T) -> String,
    item_ui: impl FnMut(&mut Form<'_>, &mut Ui, &mut T),
) {
    let add = |ui: &mut Ui| {
        ui.button(format!("+ Add {}", singular(name)))
            .clicked()
            .then_some(0)
    };
    let new_item = |items: &[T], _: usize| new_item(items);
    record_list_core(form, ui, name, items, key, add, new_item, title, item_ui);
}

/// The list of [`record_list_sorted_ui`], with `add` drawing the add control (returning the
/// choice picked) and `new_item` building the item of a choice.
#[allow(clippy::too_many_arguments)]
fn record_list_core<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    items: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
    add: impl FnOnce(&mut Ui) -> Option<usize>,
    new_item: impl Fn(&[T], usize) -> T,
    title: impl Fn(usize, &T) -> String,
    mut item_ui: impl FnMut(&mut Form<'_>, &mut Ui, &mut T),
) {
    form.field(name, |form| {
        let heading = format!("{} ({})", humanize(name), items.len());
        let colour = section_colour(ui, form.worst_below());
        let id = ui.make_persistent_id(form.path().to_string());
        let mut state = CollapsingState::load_with_default_open(ui.ctx(), id, true);
        if form.is_focused() {
            state.set_open(true);
        }
        let mut action = None;
        state
            .show_header(ui, |ui| {
                ui.label(RichText::new(heading).strong().color(colour));
            })
            .body(|ui| {
                let count = items.len();
                let mut order: Vec<usize> = (0..count).collect();
                order.sort_by_key(|index| key(&items[*index]));
                for index in order {
                    let item = &mut items[index];
                    form.index(index, |form| {
                        let item_id = ui.make_persistent_id(form.path().to_string());
                        let mut item_state =
                            CollapsingState::load_with_default_open(ui.ctx(), item_id, false);
                        if form.is_focused() {
                            item_state.set_open(true);
                        }
                        let colour = section_colour(ui, form.worst_below());
                        let label = title(index, item);
                        let scroll_here = form.scrolls_here();
                        let (_, header, _) = item_state
                            .show_header(ui, |ui| {
                                // Buttons first: at the row's left they are never pushed past
                                // a narrow column's edge by wide fields below.
                                if let Some(done) = item_buttons_ui(ui, index, count) {
                                    action = Some(done);
                                }
                                crate::panels::elide::label(
                                    ui,
                                    RichText::new(label).color(colour),
                                    "",
                                );
                            })
                            .body(|ui| item_ui(form, ui, item));
                        // A selected item (a click on its region in the Viewport) comes into
                        // view with its rows below it.
                        if scroll_here {
                            header.response.scroll_to_me(Some(egui::Align::TOP));
                        }
                    });
                }
                if let Some(choice) = add(ui) {
                    action = Some(ListAction::Add(choice));
                }
            });
        if let Some(action) = action {
            apply(items, action, &new_item);
            form.changed_structure(describe(action));
        }
    });
}

/// A list of small values (ids, numbers): one row per item with its buttons.
pub fn value_list_ui<T>(
    form: &mut Form<'_>,
    ui: &mut Ui,
    name: &str,
    help: &str,
    items: &mut Vec<T>,
    new_item: impl Fn(&[T]) -> T,
    mut item_ui: impl FnMut(&mut Form<'_>, &mut Ui, &mut T),
) {
    form.field(name, |form| {
        let colour = section_colour(ui, form.worst_below());
        ui.label(RichText::new(humanize(name)).color(colour))
            .on_hover_text(format!("`{name}`: {help}"));
        let mut action = None;
        ui.indent(form.path().to_string(), |ui| {
            let count = items.len();
            for (index, item) in items.iter_mut().enumerate() {
                form.index(index, |form| {
                    ui.horizontal(|ui| {
                        if let Some(done) = item_buttons_ui(ui, index, count) {
                            action = Some(done);
                        }
                        item_ui(form, ui, item);
                    });
                });
            }
            if ui
                .small_button(format!("+ Add {}", singular(name)))
                .clicked()
            {
                action = Some(ListAction::Add(0));
            }
        });
        if let Some(action) = action {
            apply(items, action, &|items: &[T], _| new_item(items));
            form.changed_structure(describe(action));
        }
    });
}

/// The move up, move down and remove buttons of one item, left to right (⬆ ⬇ 🗑), placed at
/// the start of the row so no column width can clip them.
fn item_buttons_ui(ui: &mut Ui, index: usize, count: usize) -> Option<ListAction> {
    let mut action = None;
    let spacing = ui.spacing().item_spacing.x;
    ui.spacing_mut().item_spacing.x = 2.0;
    if ui
        .add_enabled(index > 0, egui::Button::new("⬆").small())
        .on_hover_text("Move up")
        .clicked()
    {
        action = Some(ListAction::Up(index));
    }
    if ui
        .add_enabled(index + 1 < count, egui::Button::new("⬇").small())
        .on_hover_text("Move down")
        .clicked()
    {
        action = Some(ListAction::Down(index));
    }
    if ui
        .add(egui::Button::new("🗑").small())
        .on_hover_text("Remove")
        .clicked()
    {
        action = Some(ListAction::Remove(index));
    }
    ui.spacing_mut().item_spacing.x = spacing;
    action
}

fn apply<T>(items: &mut Vec<T>, action: ListAction, new_item: &impl Fn(&[T], usize) -> T) {
    match action {
        ListAction::Up(index) if index > 0 && index < items.len() => items.swap(index - 1, index),
        ListAction::Down(index) if index + 1 < items.len() => items.swap(index, index + 1),
        ListAction::Remove(index) if index < items.len() => {
            items.remove(index);
        }
        ListAction::Add(choice) => {
            let item = new_item(items, choice);
            items.push(item);
        }
        _ => {}
    }
}

fn describe(action: ListAction) -> &'static str {
    match action {
        ListAction::Up(_) | ListAction::Down(_) => "Reorder",
        ListAction::Remove(_) => "Remove from",
        ListAction::Add(_) => "Add to",
    }
}

/// `observers` → `observer`, for "Add observer".
fn singular(name: &str) -> String {
    let human = humanize(name).to_lowercase();
    human
        .strip_suffix("ies")
        .map(|stem| format!("{stem}y"))
        .or_else(|| human.strip_suffix('s').map(str::to_owned))
        .unwrap_or(human)
}

/// An id not yet in `taken`: `stem`, `stem-2`, `stem-3`, …
pub fn fresh_id<'a>(stem: &str, taken: impl Iterator<Item = &'a str> + Clone) -> String {
    let free = |candidate: &str| !taken.clone().any(|id| id == candidate);
    if free(stem) {
        return stem.to_owned();
    }
    (2..)
        .map(|n| format!("{stem}-{n}"))
        .find(|candidate| free(candidate))
        .unwrap_or_else(|| stem.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_actions_move_remove_and_add() {
        let mut items = vec![1, 2, 3];
        let zero = |_: &[i32], _: usize| 0;
        apply(&mut items, ListAction::Up(2), &zero);
        assert_eq!(items, [1, 3, 2]);
        apply(&mut items, ListAction::Down(0), &zero);
        assert_eq!(items, [3, 1, 2]);
        apply(&mut items, ListAction::Remove(1), &zero);
        assert_eq!(items, [3, 2]);
        apply(&mut items, ListAction::Add(0), &|items: &[i32], _| {
            items.len() as i32
        });
        assert_eq!(items, [3, 2, 2]);
        apply(&mut items, ListAction::Add(5), &|_: &[i32], choice| {
            choice as i32
        });
        assert_eq!(items, [3, 2, 2, 5]);
        apply(&mut items, ListAction::Up(0), &zero);
        assert_eq!(items, [3, 2, 2, 5]);
    }

    #[test]
    fn fresh_ids_and_singulars() {
        let taken = ["a", "a-2"];
        assert_eq!(fresh_id("a", taken.iter().copied()), "a-3");
        assert_eq!(fresh_id("b", taken.iter().copied()), "b");
        assert_eq!(singular("observers"), "observer");
        assert_eq!(singular("directives"), "directive");
        assert_eq!(singular("asset_paths"), "asset path");
        assert_eq!(singular("families"), "family");
    }
}
