//! An override set's world mutations in the Inspector: stage, nested path (for a placement of a
//! subrecipe stage's child run), target, base revision, harvested and regrow ordinal, each row
//! with its help from the runtime's field schema.

use egui::Ui;
use stagecraft_runtime::identity::identity_text;
use stagecraft_runtime::project::Mutation;

use super::form::Form;
use super::list::record_list_ui;
use super::scenario::{named_checkbox, nested_text, nested_ui};

/// The set's `mutations`, one collapsible item each, titled by stage, path and target.
pub fn mutations_ui(
    form: &mut Form<'_>,
    ui: &mut Ui,
    mutations: &mut Vec<Mutation>,
    stage_ids: &[(u32, String)],
) {
    record_list_ui(
        form,
        ui,
        "mutations",
        mutations,
        |_| Mutation {
            stage: stage_ids.first().map(|(id, _)| *id).unwrap_or(0),
            target: 0,
            base: String::new(),
            harvested: true,
            ordinal: 0,
            nested: Vec::new(),
        },
        |index, item| {
            let what = if item.harvested {
                "harvested"
            } else {
                "regrown"
            };
            format!(
                "{index}: stage {}{} · target {} · {what}",
                item.stage,
                nested_text(&item.nested),
                identity_text(item.target)
            )
        },
        |form, ui, item| mutation_ui(form, ui, item, stage_ids),
    );
}

fn mutation_ui(form: &mut Form<'_>, ui: &mut Ui, item: &mut Mutation, stage_ids: &[(u32, String)]) {
    let stages = super::scenario::stage_choices(stage_ids, item.stage);
    form.choice_ui(
        ui,
        "stage",
        "The scatter stage that emitted the placement (for a nested path: the subrecipe stage).",
        &mut item.stage,
        &stages,
    );
    nested_ui(form, ui, &mut item.nested);
    form.identity_ui(
        ui,
        "target",
        "The placement's packed identity, shown in hex (type hex or decimal).",
        &mut item.target,
    );
    form.text_ui(
        ui,
        "base",
        "The placement's expected base revision (as `stagecraft rebase` prints it).",
        &mut item.base,
    );
    form.row_ui(
        ui,
        "harvested",
        "Whether the placement is harvested now.",
        |ui| named_checkbox(ui, &mut item.harvested, "harvested"),
    );
    form.number_ui(
        ui,
        "ordinal",
        "The ordinal of the last committed regrow (0: never regrown).",
        &mut item.ordinal,
        0..=u32::MAX,
        "",
    );
}
