//! `stagecraft.Generation`: the bundles of one `Project.generate()` call — their digests (the
//! ones `stagecraft generate` prints) and every placement as a NumPy structured array.

use std::f64::consts::TAU;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stagecraft_runtime::content::{Placement, Product};
use stagecraft_runtime::generate::GeneratedBundle;

use crate::records::{dtype, push_text, structured, text_width, Field};

/// The generated bundles of one call, one per recipe, in the manifest's order.
#[pyclass(module = "stagecraft", frozen)]
pub struct Generation {
    seed: u64,
    pub(crate) bundles: Vec<Arc<GeneratedBundle>>,
}

impl Generation {
    /// The generation of `bundles` at `seed`.
    pub fn new(seed: u64, bundles: Vec<Arc<GeneratedBundle>>) -> Generation {
        Generation { seed, bundles }
    }
}

/// One placement row before it is packed.
struct Row<'a> {
    id: u64,
    x_m: f64,
    y_m: f64,
    rotation_rad: f64,
    scale: f64,
    variant_index: u32,
    stage: u32,
    recipe: &'a str,
    family: &'a str,
    variant: &'a str,
    kind: &'static str,
}

fn rows_of<'a>(recipe: &'a str, stage: u32, product: &'a Product, rows: &mut Vec<Row<'a>>) {
    let row = |p: &Placement, unit: f64, family: &'a str, variants: &'a [String]| Row {
        id: p.id.bits(),
        x_m: p.x as f64 * unit,
        y_m: p.y as f64 * unit,
        rotation_rad: 0.0,
        scale: 1.0,
        variant_index: p.variant,
        stage,
        recipe,
        family,
        variant: variants.get(p.variant as usize).map_or("", String::as_str),
        kind: "Placements",
    };
    match product {
        Product::Placements(scatter) => rows.extend(scatter.placements().map(|p| {
            row(
                p,
                scatter.lattice_unit_m,
                &scatter.family,
                &scatter.variant_ids,
            )
        })),
        Product::PlacedObjects(placed) => rows.extend(placed.objects.iter().map(|o| Row {
            rotation_rad: f64::from(o.rotation_turns_65536) / 65536.0 * TAU,
            scale: f64::from(o.scale) * placed.scale_unit,
            kind: "PlacedObjects",
            ..row(
                &o.placement,
                placed.lattice_unit_m,
                &placed.family,
                &placed.variant_ids,
            )
        })),
        _ => {}
    }
}

#[pymethods]
impl Generation {
    /// The root seed generated with.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The recipes generated, in the manifest's order.
    #[getter]
    fn recipes(&self) -> Vec<String> {
        self.bundles.iter().map(|b| b.recipe_id.clone()).collect()
    }

    /// Recipe id → bundle digest (hex), the digest `stagecraft generate` prints.
    #[getter]
    fn digests<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for bundle in &self.bundles {
            dict.set_item(&bundle.recipe_id, bundle.digest_hex())?;
        }
        Ok(dict)
    }

    /// Recipe id → generated objects over every stage (as `stagecraft generate` counts them).
    #[getter]
    fn object_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for bundle in &self.bundles {
            dict.set_item(&bundle.recipe_id, bundle.object_count())?;
        }
        Ok(dict)
    }

    /// Every placement of every recipe as a NumPy structured array, stage by stage in plan
    /// order: `id` (u64 persistent scatter identity; `stagecraft.id_hex(id)` spells it as the
    /// CLI does), `x_m`, `y_m` (ground position, meters), `rotation_rad` (about the up axis),
    /// `scale`, `variant_index`, `stage`, `recipe`, `family`, `variant`, and `kind`:
    /// `"Placements"` (a scatter stage's accepted candidates: rotation 0, scale 1) or
    /// `"PlacedObjects"` (a select-and-place stage's, with their transforms; the same ids as the
    /// scatter they came from).
    #[getter]
    fn placements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut rows = Vec::new();
        for bundle in &self.bundles {
            for (stage, product) in bundle.products() {
                rows_of(&bundle.recipe_id, stage, product, &mut rows);
            }
        }
        let recipe_w = text_width(rows.iter().map(|r| r.recipe));
        let family_w = text_width(rows.iter().map(|r| r.family));
        let variant_w = text_width(rows.iter().map(|r| r.variant));
        let kind_w = "PlacedObjects".len();
        let fields = [
            Field::new("id", "<u8"),
            Field::new("x_m", "<f8"),
            Field::new("y_m", "<f8"),
            Field::new("rotation_rad", "<f8"),
            Field::new("scale", "<f8"),
            Field::new("variant_index", "<u4"),
            Field::new("stage", "<u4"),
            Field::new("recipe", &format!("<U{recipe_w}")),
            Field::new("family", &format!("<U{family_w}")),
            Field::new("variant", &format!("<U{variant_w}")),
            Field::new("kind", &format!("<U{kind_w}")),
        ];
        let size = 48 + 4 * (recipe_w + family_w + variant_w + kind_w);
        let mut bytes = Vec::with_capacity(rows.len() * size);
        for r in &rows {
            bytes.extend_from_slice(&r.id.to_le_bytes());
            for value in [r.x_m, r.y_m, r.rotation_rad, r.scale] {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
            bytes.extend_from_slice(&r.variant_index.to_le_bytes());
            bytes.extend_from_slice(&r.stage.to_le_bytes());
            push_text(&mut bytes, r.recipe, recipe_w);
            push_text(&mut bytes, r.family, family_w);
            push_text(&mut bytes, r.variant, variant_w);
            push_text(&mut bytes, r.kind, kind_w);
        }
        structured(py, bytes, &dtype(py, &fields)?)
    }

    fn __repr__(&self) -> String {
        let digests: Vec<String> = self
            .bundles
            .iter()
            .map(|b| format!("{}={}", b.recipe_id, &b.digest_hex()[..12]))
            .collect();
        format!(
            "<stagecraft.Generation seed {} {}>",
            self.seed,
            digests.join(" ")
        )
    }
}
