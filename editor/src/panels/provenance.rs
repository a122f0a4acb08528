//! The Provenance tab: for the thing picked in the viewport, which recipe, stage, parent and asset
//! made it, the random draws it used, the constraints it passed and the overrides that apply; for
//! a rejected scatter candidate, why it was rejected; for a pedestrian, its state. Also the
//! viewport's provenance overlays: colour by stage, recipe or variant, rejected candidates, labels.

use egui::{Grid, RichText, Ui};

use super::{Command, Panel};
use crate::document::Document;
use crate::session::PreviewContent;
use crate::viewport::interact::{identity_label, reason_text, state_name};
use crate::viewport::{ColourBy, PickId, Preview, SharedPreview};
use stagecraft_runtime::content::{
    ConstraintCheck, DrawRecord, ObjectProvenance, Product, RejectionProvenance,
};
use stagecraft_runtime::generate::StageRecord;
use stagecraft_runtime::identity::{ChildKey, ObjectIdentity, ScatterId};
use stagecraft_runtime::project::Project;

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

    fn ui(&mut self, ui: &mut Ui, document: &Document, _out: &mut Vec<Command>) {
        let mut preview = self.preview.borrow_mut();
        preview.frame_update(ui.ctx(), document);
        if overlays_ui(ui, &mut preview) {
            preview.update_scene();
        }
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| selection_ui(ui, &preview, document.project()));
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

fn selection_ui(ui: &mut Ui, preview: &Preview, project: &Project) {
    let Some(pick) = &preview.selected else {
        ui.label(RichText::new("Click an object or a pedestrian in the viewport.").weak());
        return;
    };
    let session = &preview.session;
    if let Some(label) = identity_label(session, pick) {
        ui.heading(label);
    }
    match pick {
        PickId::Object { stage, index } => {
            let Some(content) = session.content() else {
                return;
            };
            object_ui(ui, content, *stage, *index as usize, project);
        }
        PickId::Rejected {
            stage,
            layer,
            index,
        } => {
            let Some(content) = session.content() else {
                return;
            };
            rejected_ui(ui, content, *stage, *layer as usize, *index as usize);
        }
        PickId::Agent { id } => agent_ui(ui, preview, *id),
    }
}

fn stage_header_ui(ui: &mut Ui, content: &PreviewContent, stage: &StageRecord) {
    Grid::new("provenance-origin")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Recipe");
            ui.label(content.recipe());
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

fn object_ui(ui: &mut Ui, content: &PreviewContent, stage: u32, index: usize, project: &Project) {
    let Some(stage_content) = content.stage(stage) else {
        ui.label("The stage is gone from the regenerated content.");
        return;
    };
    stage_header_ui(ui, content, stage_content);
    let Some((id, family, variant)) = object_identity(stage_content, index) else {
        return;
    };
    let key = ChildKey::Scatter(id);
    // Records are in the product's object order; check the key and fall back to a search.
    let record: Option<&ObjectProvenance> = stage_content
        .provenance
        .objects
        .get(index)
        .filter(|r| r.key == key)
        .or_else(|| stage_content.provenance.object(&key));
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
            if let Some(parent) = record.and_then(|r| r.parent.as_ref()) {
                ui.label("Parent");
                ui.label(format!(
                    "stage {} · {}",
                    parent.stage,
                    child_key_text(&parent.key)
                ));
                ui.end_row();
            }
            if let Some(identity) = content.bundle.identity(stage, &key) {
                ui.label("Identity tuple");
                ui.label(RichText::new(identity_text(&identity)).monospace());
                ui.end_row();
            }
        });
    match record {
        Some(record) => {
            draws_ui(ui, "provenance-draws", &record.draws);
            constraints_ui(ui, &record.constraints);
        }
        None => {
            ui.weak("No provenance record for this object.");
        }
    }
    overrides_ui(ui, project, content.recipe(), stage, id.bits());
}

fn rejected_ui(ui: &mut Ui, content: &PreviewContent, stage: u32, layer: usize, index: usize) {
    let Some(stage_content) = content.stage(stage) else {
        return;
    };
    stage_header_ui(ui, content, stage_content);
    let Product::Placements(scatter) = stage_content.product.as_ref() else {
        return;
    };
    let Some(candidate) = scatter
        .layers
        .get(layer)
        .and_then(|l| l.output.rejected.get(index))
    else {
        return;
    };
    ui.label(
        RichText::new(format!("Rejected: {}", reason_text(&candidate.reason)))
            .color(ui.visuals().warn_fg_color)
            .strong(),
    );
    let record: Option<&RejectionProvenance> = stage_content
        .provenance
        .rejection(&ChildKey::Scatter(candidate.id));
    if let Some(record) = record {
        draws_ui(ui, "provenance-rejected-draws", &record.draws);
    }
}

fn draws_ui(ui: &mut Ui, id: &str, draws: &[DrawRecord]) {
    ui.add_space(6.0);
    ui.strong(format!("Draws ({})", draws.len()));
    Grid::new(id).num_columns(4).striped(true).show(ui, |ui| {
        ui.weak("purpose");
        ui.weak("domain");
        ui.weak("address (scope, event, dim)");
        ui.weak("value");
        ui.end_row();
        for draw in draws {
            ui.label(draw.purpose.name());
            ui.label(format!("{:?}", draw.domain));
            ui.label(
                RichText::new(format!(
                    "{:#x}, {}, {}",
                    draw.scope, draw.event, draw.dimension
                ))
                .monospace(),
            );
            ui.label(draw.value.to_string());
            ui.end_row();
        }
    });
}

fn constraints_ui(ui: &mut Ui, constraints: &[ConstraintCheck]) {
    ui.add_space(6.0);
    ui.strong(format!("Constraints ({})", constraints.len()));
    for check in constraints {
        let mark = if check.passed { "✔" } else { "✘" };
        ui.label(format!("{mark} {:?}", check.constraint));
    }
}

fn overrides_ui(ui: &mut Ui, project: &Project, recipe: &str, stage: u32, target: u64) {
    ui.add_space(6.0);
    let applying: Vec<(String, String)> = project
        .overrides
        .values()
        .filter(|set| set.recipe == recipe)
        .flat_map(|set| {
            set.overrides
                .iter()
                .filter(|o| o.stage == stage && o.target == target)
                .map(|o| {
                    (
                        set.id.clone(),
                        format!("{:?} (precedence {})", o.action, o.precedence),
                    )
                })
        })
        .collect();
    ui.strong(format!("Overrides ({})", applying.len()));
    for (set, action) in applying {
        ui.label(format!("{set}: {action}"));
    }
}

fn agent_ui(ui: &mut Ui, preview: &Preview, id: u64) {
    let Some(world) = preview.session.world() else {
        return;
    };
    let agents = world.agents();
    let Some(row) = agents.id.iter().position(|a| *a == id) else {
        ui.weak("This pedestrian is not alive at this frame.");
        return;
    };
    let config = world.config();
    let source = config.sources.get(agents.source[row] as usize);
    let route = config.routes().get(agents.route[row] as usize);
    Grid::new("provenance-agent")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let rows: [(&str, String); 9] = [
                ("Agent id", format!("{id:#x}")),
                ("Source", source.map_or("?".into(), |s| s.id.clone())),
                ("Kind", format!("{:?}", agents.kind[row])),
                ("State", state_name(agents.state[row]).to_owned()),
                ("Route", route.map_or("?".into(), |r| r.id.clone())),
                (
                    "Distance along route",
                    format!("{:.2} m", agents.distance_m[row]),
                ),
                ("Speed", format!("{:.2} m/s", agents.speed_m_s[row])),
                ("Fixed steps", agents.steps[row].to_string()),
                (
                    "Owner",
                    agents.owner[row].clone().unwrap_or_else(|| "—".into()),
                ),
            ];
            for (name, value) in rows {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            }
        });
}

/// `recipe / stage 2 scatter 0x… / stage 3 scatter 0x…`: the recipe instance, then the chain of
/// emitting stages and keys from the root object down to this one.
fn identity_text(identity: &ObjectIdentity) -> String {
    let mut chain = Vec::new();
    let mut current = Some(identity);
    while let Some(object) = current {
        chain.push(format!(
            "stage {} {}",
            object.stage.0,
            child_key_text(&object.child_key)
        ));
        current = object.parent.as_deref();
    }
    chain.push(identity.recipe_instance.0.clone());
    chain.reverse();
    chain.join(" / ")
}

fn child_key_text(key: &ChildKey) -> String {
    match key {
        ChildKey::Scatter(id) => format!("scatter {id}"),
        ChildKey::GridCell { x, y } => format!("cell ({x}, {y})"),
        ChildKey::Slot(slot) => format!("slot {slot}"),
    }
}
