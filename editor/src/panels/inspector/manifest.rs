//! Inspector widgets for the manifest and asset families.

use egui::Ui;
use stagecraft_runtime::project::{AssetFamily, AssetVariant, Manifest, PreviewShape, Rgb};

use super::form::Form;
use super::list::{fresh_id, record_list_ui, value_list_ui};

/// The manifest: name, seed, asset folders and the document lists.
pub fn manifest_ui(form: &mut Form<'_>, ui: &mut Ui, manifest: &mut Manifest) {
    form.text_ui(
        ui,
        "name",
        "Display name of the project.",
        &mut manifest.name,
    );
    form.u64_text_ui(
        ui,
        "root_seed",
        "Root seed of every generation and simulation in the project (decimal or 0x hex).",
        &mut manifest.root_seed,
    );
    value_list_ui(
        form,
        ui,
        "asset_paths",
        "Folders holding asset families, relative to the project folder.",
        &mut manifest.asset_paths,
        |_| "assets".to_owned(),
        |form, ui, path| {
            form.row_here_ui(ui, "path", "", |ui| ui.text_edit_singleline(path));
        },
    );
    let project = form.project;
    let lists: [(&str, &mut Vec<String>, Vec<String>); 3] = [
        (
            "recipes",
            &mut manifest.recipes,
            project.recipes.keys().cloned().collect(),
        ),
        (
            "scenarios",
            &mut manifest.scenarios,
            project.scenarios.keys().cloned().collect(),
        ),
        (
            "overrides",
            &mut manifest.overrides,
            project.overrides.keys().cloned().collect(),
        ),
    ];
    for (name, ids, known) in lists {
        value_list_ui(
            form,
            ui,
            name,
            "Documents of the project, by id; each is a file in its folder.",
            ids,
            |listed| {
                known
                    .iter()
                    .find(|id| !listed.contains(id))
                    .cloned()
                    .unwrap_or_default()
            },
            |form, ui, id| form.id_picker_here_ui(ui, "id", id, &known),
        );
    }
}

const SHAPES: [(PreviewShape, &str); 3] = [
    (PreviewShape::Cone, "Cone"),
    (PreviewShape::Box, "Box"),
    (PreviewShape::Cylinder, "Cylinder"),
];

/// An asset family: name and weighted variants.
pub fn family_ui(form: &mut Form<'_>, ui: &mut Ui, family: &mut AssetFamily) {
    form.read_only_ui(ui, "id", "Persistent id; also the file name.", &family.id);
    form.text_ui(ui, "name", "Display name.", &mut family.name);
    record_list_ui(
        form,
        ui,
        "variants",
        &mut family.variants,
        |variants| AssetVariant {
            id: fresh_id("variant", variants.iter().map(|v| v.id.as_str())),
            weight: 1,
            exclusion_radius: 1,
            collision_radius_m: 0.5,
            height_m: 1.0,
            sockets: Vec::new(),
            shape: PreviewShape::Box,
            colour: Rgb(160, 160, 160),
        },
        |index, variant| format!("{index}: {} (weight {})", variant.id, variant.weight),
        variant_ui,
    );
}

fn variant_ui(form: &mut Form<'_>, ui: &mut Ui, variant: &mut AssetVariant) {
    form.text_ui(
        ui,
        "id",
        "Persistent id within the family.",
        &mut variant.id,
    );
    form.number_ui(
        ui,
        "weight",
        "Relative selection weight, at least 1.",
        &mut variant.weight,
        1..=1_000_000,
        "",
    );
    form.number_ui(
        ui,
        "exclusion_radius",
        "Exclusion radius in scatter lattice units (at most the layer's cell size).",
        &mut variant.exclusion_radius,
        0..=(1 << 29),
        " units",
    );
    form.number_ui(
        ui,
        "collision_radius_m",
        "Collision radius.",
        &mut variant.collision_radius_m,
        0.0..=100.0,
        " m",
    );
    form.number_ui(
        ui,
        "height_m",
        "Height.",
        &mut variant.height_m,
        0.0..=500.0,
        " m",
    );
    form.choice_ui(
        ui,
        "shape",
        "Preview shape in the viewport.",
        &mut variant.shape,
        &SHAPES,
    );
    form.row_ui(ui, "colour", "Preview colour in the viewport.", |ui| {
        let mut rgb = [variant.colour.0, variant.colour.1, variant.colour.2];
        let response = ui.color_edit_button_srgb(&mut rgb);
        variant.colour = Rgb(rgb[0], rgb[1], rgb[2]);
        response
    });
}
