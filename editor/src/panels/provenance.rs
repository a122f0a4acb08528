//! The Provenance tab: for the thing picked in the viewport, which recipe, stage, parent and asset
//! made it, the random draws it used, the constraints it passed and the overrides that apply; for
//! a rejected scatter candidate, why it was rejected; for a pedestrian, its state. Also the
//! viewport's provenance overlays: colour by stage, recipe or variant, rejected candidates, labels.
//! Under a generated object, its Author buttons (`panels::authoring`); below everything, the
//! recipe's harvested placements with Regrow.

use std::borrow::Cow;

use egui::{Grid, RichText, Ui};

use super::draws::{draw_meaning, DrawContext};
use super::{Command, Panel};
use crate::document::Document;
use crate::edits::{DocId, DocValue, ProjectEdit, Selection};
use crate::session::PreviewContent;
use crate::viewport::cells::{cell_info, CellInfo};
use crate::viewport::interact::{identity_label, reason_text, state_name};
use crate::viewport::picking::{object_index, rejected_index};
use crate::viewport::{ColourBy, PickId, Preview, SharedPreview};
use stagecraft_runtime::content::{
    ConstraintCheck, DrawRecord, ObjectProvenance, Product, RejectionProvenance,
};
use stagecraft_runtime::generate::StageRecord;
use stagecraft_runtime::identity::{ChildKey, ObjectIdentity, ScatterId};
use stagecraft_runtime::overrides::{action_name, EditList, EditRef, MutationSite};
use stagecraft_runtime::project::Project;
use stagecraft_runtime::sim::knockdown::{recovery, Clearance, RecoveryCriteria};
use stagecraft_runtime::sim::AgentHandle;

/// The Provenance tab.
pub struct ProvenancePanel {
    preview: SharedPreview,
}

impl ProvenancePanel {
    /// A Provenance tab over the shared preview.
    pub fn new(preview: SharedPreview) -> Self {
        ProvenancePanel { preview }
    }
}

impl Panel for ProvenancePanel {
    fn title(&self) -> &'static str {
        "Provenance"
    }

    fn ui(&mut self, ui: &mut Ui, document: &Document, out: &mut Vec<Command>) {
        let mut preview = self.preview.borrow_mut();
        if overlays_ui(ui, &mut preview) {
            preview.update_scene();
        }
        ui.separator();
        let message = egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let message = selection_ui(ui, &preview, document.project(), out);
                let recipe = preview.session.content().map(|c| c.recipe().to_owned());
                let regrown = recipe.and_then(|recipe| {
                    super::authoring::harvested_ui(ui, document.project(), &recipe, out)
                });
                message.or(regrown)
            })
            .inner;
        if let Some(message) = message {
            preview.authoring_message = Some(message);
        } else if !out.is_empty() {
            preview.authoring_message = None;
        }
        if let Some(message) = &preview.authoring_message {
            ui.colored_label(ui.visuals().warn_fg_color, message.as_str());
        }
    }
}

/// The overlay toggles; true when one changed.
fn overlays_ui(ui: &mut Ui, preview: &mut Preview) -> bool {
    let before = preview.options.clone();
    let options = &mut preview.options;
    ui.horizontal_wrapped(|ui| {
        ui.label("Colour by");
        for (value, name) in [
            (ColourBy::Asset, "asset"),
            (ColourBy::Stage, "stage"),
            (ColourBy::Recipe, "recipe"),
            (ColourBy::Variant, "variant"),
        ] {
            ui.selectable_value(&mut options.colour_by, value, name);
        }
        ui.separator();
        ui.checkbox(&mut options.show_rejected, "Rejected candidates");
        ui.checkbox(&mut options.show_labels, "Identity labels");
    });
    preview.options != before
}

/// The selected thing's provenance; returns an authoring refusal in words, if a click was refused.
fn selection_ui(
    ui: &mut Ui,
    preview: &Preview,
    project: &Project,
    out: &mut Vec<Command>,
) -> Option<String> {
    let Some(pick) = &preview.selected else {
        ui.label(RichText::new("Click an object or a pedestrian in the viewport.").weak());
        return None;
    };
    let session = &preview.session;
    if let Some(label) = identity_label(session, pick) {
        // Long identities wrap inside the panel instead of running past its edge.
        ui.add(egui::Label::new(RichText::new(label).heading()).wrap());
    }
    match pick {
        PickId::Object { stage, id } => {
            let content = session.content()?;
            object_ui(ui, content, *stage, *id, project, out);
            let target = crate::authoring::target_of(content, pick)?;
            ui.add_space(6.0);
            ui.strong("Author");
            return ui
                .horizontal_wrapped(|ui| {
                    super::authoring::object_tools_ui(ui, project, content, &target, false, out)
                })
                .inner;
        }
        PickId::Rejected { stage, id } => {
            let content = session.content()?;
            rejected_ui(ui, content, *stage, *id);
        }
        PickId::Cell { stage, x, y } => {
            let content = session.content()?;
            cell_ui(ui, content, *stage, (*x, *y));
        }
        PickId::Agent { id } => agent_ui(ui, preview, *id),
        PickId::SpawnCandidate { frame, ordinal } => candidate_ui(ui, preview, *frame, *ordinal),
    }
    None
}

/// A spawn candidate: where it stood, which gate refused it and what would unblock it.
fn candidate_ui(ui: &mut Ui, preview: &Preview, frame: u64, ordinal: u32) {
    let Some(world) = preview.session.world() else {
        return;
    };
    let Some(mark) = crate::viewport::overlays::spawn_candidate(world, frame, ordinal) else {
        ui.label(
            RichText::new("This candidate is no longer among the world's recent draws.").weak(),
        );
        return;
    };
    match mark.rejection {
        None => {
            ui.label("Admitted: every gate passed and the batch was realized or rolled back.");
        }
        Some(reason) => {
            ui.label(format!("Refused by the {reason:?} gate."));
            ui.label(format!("Would pass with: {}.", reason.remedy()));
        }
    }
    if let Some(report) = world.spawn_report(usize::from(mark.source)) {
        ui.add_space(6.0);
        ui.label(RichText::new(report.text()).weak());
    }
}

fn cell_ui(ui: &mut Ui, content: &PreviewContent, stage: u32, (x, y): (i32, i32)) {
    let Some(stage_content) = content.stage(stage) else {
        ui.label("The stage is gone from the regenerated content.");
        return;
    };
    stage_header_ui(ui, content, stage_content);
    let Some(info) = cell_info(content, stage, x, y) else {
        ui.weak("This cell is gone from the regenerated content.");
        return;
    };
    let mut context = DrawContext::default();
    Grid::new("provenance-cell")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Cell");
            ui.label(format!("({x}, {y})"));
            ui.end_row();
            match &info {
                CellInfo::Mission(chunk) => {
                    ui.label("Role");
                    ui.label(chunk.role.name());
                    ui.end_row();
                    ui.label("Chunk");
                    ui.label(&chunk.chunk_id);
                    ui.end_row();
                    ui.label("Blocks traversal");
                    ui.label(if chunk.blocks_traversal { "yes" } else { "no" });
                    ui.end_row();
                    ui.label("NPC spawn tag");
                    ui.label(if chunk.npc_spawn_tag { "yes" } else { "no" });
                    ui.end_row();
                    context.chunk_id = Some(chunk.chunk_id.clone());
                }
                CellInfo::Streaming(ring) => {
                    ui.label("Ring");
                    ui.label(ring.name());
                    ui.end_row();
                }
            }
        });
    let key = ChildKey::GridCell { x, y };
    if let Some(identity) = content.bundle.identity(stage, &key) {
        identity_tuple_ui(ui, &identity_text(&identity));
    }
    match stage_content.provenance.object(&key) {
        Some(record) => {
            draws_ui(ui, &record.draws, &context);
            constraints_ui(ui, &stage_content.provenance.constraints);
        }
        None => {
            ui.weak("No provenance record: the budget pruned this cell, so nothing was generated for it.");
            constraints_ui(ui, &stage_content.provenance.constraints);
        }
    }
}

/// The identity tuple on its own full-width, wrapping line with a button copying it.
fn identity_tuple_ui(ui: &mut Ui, text: &str) {
    ui.add_space(6.0);
    ui.horizontal(|ui| {
        ui.strong("Identity tuple");
        if ui
            .small_button("Copy")
            .on_hover_text("Copy the identity tuple to the clipboard")
            .clicked()
        {
            ui.ctx().copy_text(text.to_owned());
        }
    });
    ui.add(egui::Label::new(RichText::new(text).monospace()).wrap());
}

fn stage_header_ui(ui: &mut Ui, content: &PreviewContent, stage: &StageRecord) {
    Grid::new("provenance-origin")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            // Through subrecipe stages, the path of recipes down to the one that emitted it.
            ui.label("Recipe");
            ui.label(content.bundle.recipe_path(stage.stage).join(" › "));
            ui.end_row();
            ui.label("Stage");
            ui.label(format!(
                "{} “{}” ({})",
                stage.stage, stage.label, stage.operator
            ));
            ui.end_row();
            ui.label("Root seed");
            ui.label(content.seed().to_string());
            ui.end_row();
        });
}

/// The scatter identity and asset of object `index` of a stage's product.
fn object_identity(stage: &StageRecord, index: usize) -> Option<(ScatterId, String, String)> {
    match stage.product.as_ref() {
        Product::PlacedObjects(placed) => {
            let object = placed.objects.get(index)?;
            let variant = placed
                .variant_ids
                .get(object.placement.variant as usize)
                .cloned()
                .unwrap_or_default();
            Some((object.placement.id, placed.family.clone(), variant))
        }
        Product::Placements(scatter) => {
            let placement = scatter.placements().nth(index)?;
            let variant = scatter
                .variant_ids
                .get(placement.variant as usize)
                .cloned()
                .unwrap_or_default();
            Some((placement.id, scatter.family.clone(), variant))
        }
        _ => None,
    }
}

fn object_ui(
    ui: &mut Ui,
    content: &PreviewContent,
    stage: u32,
    id: ScatterId,
    project: &Project,
    out: &mut Vec<Command>,
) {
    let Some(stage_content) = content.stage(stage) else {
        ui.label("The stage is gone from the regenerated content.");
        return;
    };
    stage_header_ui(ui, content, stage_content);
    let Some(index) = object_index(&stage_content.product, id) else {
        ui.label(format!(
            "{id} is not in the shown content (deleted or regenerated away)."
        ));
        return;
    };
    let Some((id, family, variant)) = object_identity(stage_content, index) else {
        return;
    };
    let key = ChildKey::Scatter(id);
    // Stored records are in the product's object order; check the key, else ask the stage (which
    // searches its stored records or derives the record from the product on demand).
    let record: Option<Cow<'_, ObjectProvenance>> = stage_content
        .provenance
        .objects
        .get(index)
        .filter(|r| r.key == key)
        .map(Cow::Borrowed)
        .or_else(|| stage_content.object_provenance(&key));
    Grid::new("provenance-object")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Identity");
            ui.label(RichText::new(id.to_string()).monospace());
            ui.end_row();
            let unpacked = id.unpack();
            ui.label("Cell, candidate");
            ui.label(format!(
                "({}, {}) #{} · layer {} · room {}",
                unpacked.cell_x, unpacked.cell_y, unpacked.candidate, unpacked.layer, unpacked.room
            ));
            ui.end_row();
            ui.label("Asset");
            ui.label(format!("{family} / {variant}"));
            ui.end_row();
            if let Some(parent) = record.as_ref().and_then(|r| r.parent.as_ref()) {
                ui.label("Parent");
                ui.label(format!(
                    "stage {} · {}",
                    parent.stage,
                    child_key_text(&parent.key)
                ));
                ui.end_row();
            }
        });
    if let Some(identity) = content.bundle.identity(stage, &key) {
        identity_tuple_ui(ui, &identity_text(&identity));
    }
    let context = object_draw_context(content, stage_content, index, &family);
    match record {
        Some(record) => {
            draws_ui(ui, &record.draws, &context);
            constraints_ui(ui, &record.constraints);
        }
        None => {
            ui.weak("No provenance record for this object.");
        }
    }
    overrides_ui(ui, project, content, stage_content, id.bits(), out);
}

fn rejected_ui(ui: &mut Ui, content: &PreviewContent, stage: u32, id: ScatterId) {
    let Some(stage_content) = content.stage(stage) else {
        return;
    };
    stage_header_ui(ui, content, stage_content);
    let Product::Placements(scatter) = stage_content.product.as_ref() else {
        return;
    };
    let Some((layer, index)) = rejected_index(scatter, id) else {
        ui.label(format!("{id} is no longer a rejected candidate here."));
        return;
    };
    let candidate = &scatter.layers[layer].output.rejected[index];
    ui.label(
        RichText::new(format!("Rejected: {}", reason_text(&candidate.reason())))
            .color(ui.visuals().warn_fg_color)
            .strong(),
    );
    let record: Option<Cow<'_, RejectionProvenance>> =
        stage_content.rejection(&ChildKey::Scatter(candidate.id));
    if let Some(record) = record {
        let context = DrawContext {
            lattice_unit_m: Some(scatter.lattice_unit_m),
            variants: family_weights(content, &scatter.family),
            ..DrawContext::default()
        };
        draws_ui(ui, &record.draws, &context);
    }
}

/// The family's variants as (id, weight), in their persistent order.
fn family_weights(content: &PreviewContent, family: &str) -> Vec<(String, u32)> {
    content
        .families
        .get(family)
        .map(|f| {
            f.variants
                .iter()
                .map(|v| (v.id.clone(), v.weight))
                .collect()
        })
        .unwrap_or_default()
}

/// What the draws of object `index` of a stage need to be put in words.
fn object_draw_context(
    content: &PreviewContent,
    stage: &StageRecord,
    index: usize,
    family: &str,
) -> DrawContext {
    let mut context = DrawContext {
        variants: family_weights(content, family),
        ..DrawContext::default()
    };
    match stage.product.as_ref() {
        Product::PlacedObjects(placed) => {
            context.lattice_unit_m = Some(placed.lattice_unit_m);
            context.scale = placed
                .objects
                .get(index)
                .map(|object| (placed.scale_unit, object.scale));
        }
        Product::Placements(scatter) => context.lattice_unit_m = Some(scatter.lattice_unit_m),
        _ => {}
    }
    context
}

/// Each draw as `purpose = value — meaning`, with its domain and address below it.
fn draws_ui(ui: &mut Ui, draws: &[DrawRecord], context: &DrawContext) {
    ui.add_space(6.0);
    ui.strong(format!("Draws ({})", draws.len()));
    for draw in draws {
        ui.add(
            egui::Label::new(format!(
                "{} = {} — {}",
                draw.purpose.name(),
                draw.value,
                draw_meaning(draw, context)
            ))
            .wrap(),
        );
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "    {:?} domain · address ({}, {}, {})",
                    draw.domain,
                    stagecraft_runtime::identity::identity_text(draw.scope),
                    draw.event,
                    draw.dimension
                ))
                .monospace()
                .weak(),
            )
            .wrap(),
        );
    }
}

fn constraints_ui(ui: &mut Ui, constraints: &[ConstraintCheck]) {
    ui.add_space(6.0);
    ui.strong(format!("Constraints ({})", constraints.len()));
    for check in constraints {
        let mark = if check.passed { "✔" } else { "✘" };
        ui.label(format!("{mark} {:?}", check.constraint));
    }
}

/// The overrides and world mutations of the project that name this object, each with what it did
/// in the shown generation and a button that removes it (one undoable edit).
fn overrides_ui(
    ui: &mut Ui,
    project: &Project,
    content: &PreviewContent,
    stage: &StageRecord,
    target: u64,
    out: &mut Vec<Command>,
) {
    ui.add_space(6.0);
    let site = edit_site(content, stage, target);
    // A child run's edits are reported as its subrecipe stage's, the stage they name.
    let outcomes = content
        .stage(site.stage)
        .map(|s| s.provenance.edits.as_slice())
        .unwrap_or_default();
    let entries = edits_naming(project, content.recipe(), &site);
    ui.strong(format!("Overrides ({})", entries.len()));
    for entry in entries {
        let outcome = outcomes.iter().find(|o| o.edit == entry.edit);
        let status = match outcome.map(|o| &o.result) {
            Some(Ok(())) => "applied".to_owned(),
            Some(Err(reason)) => format!("not applied: {reason}"),
            None => "not in this generation".to_owned(),
        };
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{} · {} · {status}", entry.edit, entry.description));
            let remove = ui
                .small_button("Remove")
                .on_hover_text("Remove this edit from its override set (undoable).");
            if remove.clicked() {
                if let Some(command) = remove_edit(project, &entry.edit) {
                    out.push(command);
                }
            }
        });
    }
}

/// Where edits of object `target` shown at `stage` point: the scatter stage (a placed object's is
/// the stage it was placed from) or, for an object of a subrecipe stage's child run, that stage
/// and the nested path below it, as the authoring actions write them.
fn edit_site(content: &PreviewContent, stage: &StageRecord, target: u64) -> MutationSite {
    let pick = ScatterId::from_bits(target).ok().map(|id| PickId::Object {
        stage: stage.stage,
        id,
    });
    if let Some(found) = pick.and_then(|pick| crate::authoring::target_of(content, &pick)) {
        return found.site();
    }
    let edited = match stage.product.as_ref() {
        Product::PlacedObjects(placed) => placed.placements_stage,
        _ => stage.stage,
    };
    MutationSite {
        stage: edited,
        nested: Vec::new(),
        target,
    }
}

/// One override or mutation of the project naming an object.
struct NamingEdit {
    edit: EditRef,
    description: String,
}

/// The overrides and mutations of recipe `recipe`'s sets naming the object at `site` (its stage,
/// nested path and identity), sets by id.
fn edits_naming(project: &Project, recipe: &str, site: &MutationSite) -> Vec<NamingEdit> {
    let mut found = Vec::new();
    for set in project
        .overrides
        .values()
        .filter(|set| set.recipe == recipe)
    {
        let at = |list, index| EditRef {
            set: set.id.clone(),
            list,
            index,
        };
        for (index, o) in set.overrides.iter().enumerate() {
            if o.stage == site.stage && o.nested == site.nested && o.target == site.target {
                found.push(NamingEdit {
                    edit: at(EditList::Override, index),
                    description: format!(
                        "{} (precedence {})",
                        action_name(&o.action),
                        o.precedence
                    ),
                });
            }
        }
        for (index, m) in set.mutations.iter().enumerate() {
            if site.names(m) {
                let what = if m.harvested { "harvested" } else { "regrown" };
                found.push(NamingEdit {
                    edit: at(EditList::Mutation, index),
                    description: format!("{what}, regrow ordinal {}", m.ordinal),
                });
            }
        }
    }
    found
}

/// The edit that removes `edit` from its override set, if the set holds it.
pub fn remove_edit(project: &Project, edit: &EditRef) -> Option<Command> {
    let mut set = project.overrides.get(&edit.set)?.clone();
    match edit.list {
        EditList::Override if edit.index < set.overrides.len() => {
            set.overrides.remove(edit.index);
        }
        EditList::Mutation if edit.index < set.mutations.len() => {
            set.mutations.remove(edit.index);
        }
        _ => return None,
    }
    let doc = DocId::Overrides(edit.set.clone());
    Some(Command::Apply(ProjectEdit::replace(
        doc.clone(),
        Some(DocValue::Overrides(set)),
        Selection::doc(doc),
        format!("Remove {edit}"),
    )))
}

/// The selected pedestrian: its Motion Frame and the runtime's detail of it, both looked up
/// by id (never a scan of the agents).
fn agent_ui(ui: &mut Ui, preview: &Preview, id: u64) {
    let Some(world) = preview.session.world() else {
        return;
    };
    let agent = stagecraft_runtime::sim::AgentId::from_bits(id);
    let (Some(frame), Some(detail), Some(handle)) = (
        world.motion_frame(agent),
        world.agent_detail(agent),
        world.handle_of_id(agent),
    ) else {
        ui.weak("This pedestrian is not alive at this frame.");
        return;
    };
    let config = world.config();
    let source = config.sources.get(usize::from(frame.tags.source));
    let route = config.routes().get(usize::from(detail.route));
    Grid::new("provenance-agent")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let rows: [(&str, String); 9] = [
                ("Agent id", format!("{id:#x}")),
                ("Source", source.map_or("?".into(), |s| s.id.clone())),
                ("Kind", format!("{:?}", frame.tags.kind)),
                ("State", state_name(frame.behaviour).to_owned()),
                ("Route", route.map_or("?".into(), |r| r.id.clone())),
                (
                    "Distance along route",
                    format!("{:.2} m", detail.distance_m),
                ),
                ("Speed", format!("{:.2} m/s", detail.walk_speed_m_s)),
                ("Fixed steps", frame.fixed_steps.to_string()),
                ("Owner", detail.owner.unwrap_or("—").to_owned()),
            ];
            for (name, value) in rows {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            }
        });
    let crossing = super::crossing_rows::crossing_rows(world, agent);
    rows_ui(ui, "provenance-crossing", "Crossing and group", crossing);
    let tier = super::crossing_rows::tier_rows(world, agent);
    rows_ui(ui, "provenance-tier", "Tier", tier);
    task_ui(ui, world, handle);
    for (title, rows) in super::event_rows::event_sections(world, handle) {
        ui.push_id(&title, |ui| rows_ui(ui, "provenance-event", &title, rows));
    }
    recovery_ui(ui, world, handle);
    lifecycle_ui(ui, world, handle);
}

/// A titled two-column table of `rows` (nothing when empty).
fn rows_ui(ui: &mut Ui, id: &str, title: &str, rows: Vec<(&'static str, String)>) {
    if rows.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong(title);
    Grid::new(id).num_columns(2).striped(true).show(ui, |ui| {
        for (name, value) in rows {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        }
    });
}

/// The pedestrian's tasks (see `panels::task_rows`), when it has any.
fn task_ui(ui: &mut Ui, world: &stagecraft_runtime::sim::World, handle: AgentHandle) {
    let rows = super::task_rows::task_rows(world, handle);
    if rows.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong("Task");
    Grid::new("provenance-task")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (name, value) in rows {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            }
        });
}

/// A knocked-down pedestrian's recovery: its phase and the specification's criteria, live, each
/// with the threshold it must meet.
fn recovery_ui(ui: &mut Ui, world: &stagecraft_runtime::sim::World, handle: AgentHandle) {
    let Some(criteria) = world.knockdowns().criteria(handle) else {
        return;
    };
    ui.add_space(6.0);
    ui.strong(format!("Knockdown {}", criteria.session));
    Grid::new("provenance-recovery")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (name, value) in recovery_rows(&criteria) {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            }
        });
}

/// The rows of the recovery table: each criterion's live value, its threshold and whether it
/// holds (✓ / ✗).
pub fn recovery_rows(c: &RecoveryCriteria) -> Vec<(&'static str, String)> {
    let mark = |ok: bool| if ok { "✓" } else { "✗" };
    // The runtime's thresholds, compared and shown from the same values.
    let min_age_s = recovery::MIN_AGE_MS as f64 / 1000.0;
    let max_linear_m_s = recovery::MAX_SETTLED_LINEAR_M_S;
    let max_angular_deg_s = recovery::MAX_SETTLED_ANGULAR_RAD_S.to_degrees();
    let min_stable_s = recovery::MIN_STABLE_MS as f64 / 1000.0;
    let age_ok = c.age_s >= min_age_s;
    let linear_ok = c.linear_m_s <= max_linear_m_s;
    let angular_ok = c.angular_deg_s <= max_angular_deg_s;
    let stable_ok = c.stable_s >= min_stable_s;
    let clear = c.clearance == Clearance::Clear;
    let intent = if c.cancelled {
        "cancelled (stays still after recovery)".to_owned()
    } else {
        state_name(c.intent).to_owned()
    };
    vec![
        ("Phase", c.phase.name().to_owned()),
        (
            "Physics age",
            format!("{:.2} s ≥ {min_age_s:.2} s {}", c.age_s, mark(age_ok)),
        ),
        ("Supported", mark(c.supported).to_owned()),
        (
            "Core linear speed",
            format!(
                "{:.3} m/s ≤ {max_linear_m_s:.2} m/s {}",
                c.linear_m_s,
                mark(linear_ok)
            ),
        ),
        (
            "Angular speed",
            format!(
                "{:.1} °/s ≤ {max_angular_deg_s:.0} °/s {}",
                c.angular_deg_s,
                mark(angular_ok)
            ),
        ),
        (
            "Stable for",
            format!(
                "{:.2} s ≥ {min_stable_s:.2} s {}",
                c.stable_s,
                mark(stable_ok)
            ),
        ),
        (
            "Standing clearance",
            format!("{:?} {}", c.clearance, mark(clear)),
        ),
        (
            "Blend",
            format!(
                "{:.0} % (pose weight {:.2})",
                c.blend_progress * 100.0,
                c.blend_weight
            ),
        ),
        ("Retained intent", intent),
    ]
}

/// The pedestrian's lifecycle history from the world's event log: admission, realization,
/// claims, pooling and reuse, each with its frame and reason.
fn lifecycle_ui(ui: &mut Ui, world: &stagecraft_runtime::sim::World, handle: AgentHandle) {
    let events = world.events().for_handle(handle);
    ui.add_space(6.0);
    ui.strong(format!(
        "Lifecycle of {} ({} events)",
        super::population::handle_text(handle),
        events.len()
    ));
    egui::ScrollArea::vertical()
        .id_salt("provenance-lifecycle")
        .max_height(180.0)
        .show(ui, |ui| {
            for event in &events {
                ui.label(super::population::event_text(world, event));
            }
        });
}

/// `recipe / stage 2 scatter 0x… / stage 3 scatter 0x…`: the recipe instance, then the chain of
/// emitting stages and keys from the root object down to this one; where the chain enters a
/// subrecipe's instance (`recipe/10:child`), that instance before its stages.
fn identity_text(identity: &ObjectIdentity) -> String {
    let mut objects = Vec::new();
    let mut current = Some(identity);
    while let Some(object) = current {
        objects.push(object);
        current = object.parent.as_deref();
    }
    objects.reverse();
    let mut chain = Vec::new();
    let mut instance: Option<&str> = None;
    for object in objects {
        if instance != Some(object.recipe_instance.0.as_str()) {
            instance = Some(&object.recipe_instance.0);
            chain.push(object.recipe_instance.0.clone());
        }
        chain.push(format!(
            "stage {} {}",
            object.stage.0,
            child_key_text(&object.child_key)
        ));
    }
    chain.join(" / ")
}

fn child_key_text(key: &ChildKey) -> String {
    match key {
        ChildKey::Scatter(id) => format!("scatter {id}"),
        ChildKey::GridCell { x, y } => format!("cell ({x}, {y})"),
        ChildKey::Slot(slot) => format!("slot {slot}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pine() -> Project {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
        let (_, loaded) = crate::project_io::load_dir(&dir).expect("readable");
        loaded.project.expect("loads")
    }

    #[test]
    fn an_identity_through_a_subrecipe_names_each_instance_where_the_chain_enters_it() {
        use stagecraft_runtime::identity::{RecipeInstanceId, StageId};
        let object = |instance: &str, stage, key, parent: Option<ObjectIdentity>| ObjectIdentity {
            recipe_instance: RecipeInstanceId(instance.to_owned()),
            parent: parent.map(Box::new),
            stage: StageId(stage),
            child_key: key,
        };
        let area = object("street", 1, ChildKey::Slot("area/a".to_owned()), None);
        let child = "street/10:props";
        let placement = object(child, 1, ChildKey::GridCell { x: 1, y: 2 }, Some(area));
        let placed = object(child, 2, ChildKey::GridCell { x: 1, y: 2 }, Some(placement));
        assert_eq!(
            identity_text(&placed),
            "street / stage 1 slot area/a / street/10:props / stage 1 cell (1, 2) / stage 2 cell (1, 2)"
        );
    }

    #[test]
    fn the_recovery_rows_show_each_criterion_against_its_threshold() {
        use stagecraft_runtime::sim::knockdown::RecoveryPhase;
        use stagecraft_runtime::sim::AgentState;
        let criteria = RecoveryCriteria {
            session: 3,
            phase: RecoveryPhase::WaitingForSpace,
            age_s: 1.45,
            supported: true,
            linear_m_s: 0.36,
            angular_deg_s: 12.0,
            stable_s: 0.1,
            clearance: Clearance::BlockedByPed,
            blend_progress: 0.0,
            blend_weight: 0.0,
            intent: AgentState::Fleeing,
            cancelled: false,
            body: None,
        };
        let rows = recovery_rows(&criteria);
        let value = |name: &str| {
            rows.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(value("Phase"), "waiting for space");
        assert_eq!(value("Physics age"), "1.45 s ≥ 1.30 s ✓");
        assert_eq!(value("Core linear speed"), "0.360 m/s ≤ 0.35 m/s ✗");
        assert_eq!(value("Angular speed"), "12.0 °/s ≤ 90 °/s ✓");
        assert_eq!(value("Stable for"), "0.10 s ≥ 0.35 s ✗");
        assert_eq!(value("Standing clearance"), "BlockedByPed ✗");
        assert_eq!(value("Retained intent"), state_name(AgentState::Fleeing));
    }

    #[test]
    fn the_edits_naming_an_object_and_removing_one() {
        let project = pine();
        let site = |target| MutationSite {
            stage: 1001,
            nested: Vec::new(),
            target,
        };
        let naming = edits_naming(&project, "pine-clearing", &site(281474977562638));
        let labels: Vec<String> = naming
            .iter()
            .map(|e| format!("{} {}", e.edit, e.description))
            .collect();
        assert_eq!(
            labels,
            vec!["pine-clearing-edits:mutations[1] regrown, regrow ordinal 1"]
        );
        let delete = &edits_naming(&project, "pine-clearing", &site(281474977628161))[0].edit;
        let Some(Command::Apply(ProjectEdit::Replace {
            doc,
            value: Some(value),
            ..
        })) = remove_edit(&project, delete)
        else {
            panic!("a replace edit of the set");
        };
        assert_eq!(doc, DocId::Overrides("pine-clearing-edits".into()));
        let DocValue::Overrides(set) = *value else {
            panic!("an override set");
        };
        let before = &project.overrides["pine-clearing-edits"];
        assert_eq!(set.overrides.len(), before.overrides.len() - 1);
        assert!(set.overrides.iter().all(|o| o.target != 281474977628161));
        assert_eq!(set.mutations, before.mutations);
        let gone = EditRef {
            index: 99,
            ..delete.clone()
        };
        assert!(remove_edit(&project, &gone).is_none());
    }
}
