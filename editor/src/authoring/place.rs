//! Authored objects and exclusions: the identity an added object gets (its cell, an index of the
//! authored space, which the generator never emits, that no `Add` of the recipe uses) and the
//! edits that add one at a ground point or exclude a dragged rectangle.

use stagecraft_runtime::content::ScatterLayer;
use stagecraft_runtime::identity::{authored_id, ScatterId};
use stagecraft_runtime::project::{FieldPath, Override, OverrideAction, Project, Vec2};

use super::{
    commit, eligible, ground, lattice_to_m, next_precedence, stage_view, target_set,
    AuthoringRefusal,
};
use crate::edits::ProjectEdit;
use crate::session::PreviewContent;

/// The identity an authored object at lattice (`x`, `y`) of `layer` gets: its room, layer and cell,
/// and the lowest index of the authored space (`identity::authored_id`, which no generation
/// parameter reaches) that no `Add` of the recipe's sets uses in that cell.
pub fn allocate_identity(
    project: &Project,
    recipe: &str,
    stage: u32,
    layer: &ScatterLayer,
    cell_size: i64,
    (x, y): (i64, i64),
) -> Result<ScatterId, AuthoringRefusal> {
    let cs = cell_size.max(1);
    let (cx, cy) = (x.div_euclid(cs), y.div_euclid(cs));
    let used: Vec<u64> = project
        .overrides
        .values()
        .filter(|set| set.recipe == recipe)
        .flat_map(|set| set.overrides.iter())
        .filter(|o| o.stage == stage && matches!(o.action, OverrideAction::Add { .. }))
        .map(|o| o.target)
        .collect();
    authored_id(u32::from(layer.room), u32::from(layer.layer), cx, cy, &used)
        .ok_or(AuthoringRefusal::NoFreeIdentity)
}

/// The edit that adds an authored object of `variant` of scatter stage `stage`'s family at
/// ground point `position_m`, with a freshly allocated identity.
pub fn add_object(
    project: &Project,
    content: &PreviewContent,
    stage: u32,
    variant: &str,
    position_m: [f64; 2],
) -> Result<ProjectEdit, AuthoringRefusal> {
    let view = stage_view(content, stage)?;
    if view.base.variant_index(variant).is_none() {
        return Err(AuthoringRefusal::UnknownVariant {
            variant: variant.to_owned(),
        });
    }
    let unit_m = view.scatter.lattice_unit_m;
    let (x, y) = ground(&view, position_m[0], position_m[1])?;
    let (x_m, y_m) = (lattice_to_m(x, unit_m), lattice_to_m(y, unit_m));
    // The layer whose region holds the point; a point in none is refused by the first layer.
    let layer = view
        .scatter
        .layers
        .iter()
        .find(|l| l.region.contains(x, y))
        .or(view.scatter.layers.first())
        .ok_or(AuthoringRefusal::OutsideRegion { x_m, y_m })?;
    eligible(layer, x, y, unit_m)?;
    let id = allocate_identity(
        project,
        content.recipe(),
        stage,
        layer,
        view.scatter.cell_size,
        (x, y),
    )?;
    let (mut set, created) = target_set(project, content.recipe(), content.seed())?;
    set.overrides.push(Override {
        nested: Vec::new(),
        stage,
        target: id.bits(),
        precedence: next_precedence(project, content.recipe(), None),
        base: String::new(),
        action: OverrideAction::Add {
            variant: variant.to_owned(),
            position: Vec2 { x: x_m, y: y_m },
        },
    });
    let path = FieldPath::root()
        .field("overrides")
        .index(set.overrides.len() - 1);
    let label = format!("Add {variant} at ({x_m:.2}, {y_m:.2}) m");
    Ok(commit(project, set, created, path, label))
}

/// The edit that excludes the ground rectangle with corners `a_m` and `b_m` (any two opposite
/// corners, snapped to the lattice) from scatter stage `stage`.
pub fn exclude_rect(
    project: &Project,
    content: &PreviewContent,
    stage: u32,
    a_m: [f64; 2],
    b_m: [f64; 2],
) -> Result<ProjectEdit, AuthoringRefusal> {
    let view = stage_view(content, stage)?;
    let unit_m = view.scatter.lattice_unit_m;
    let (ax, ay) = ground(&view, a_m[0], a_m[1])?;
    let (bx, by) = ground(&view, b_m[0], b_m[1])?;
    let (min_x, max_x) = (ax.min(bx), ax.max(bx));
    let (min_y, max_y) = (ay.min(by), ay.max(by));
    if min_x == max_x || min_y == max_y {
        return Err(AuthoringRefusal::EmptyRectangle);
    }
    let m = |v| lattice_to_m(v, unit_m);
    let (min, max) = (
        Vec2 {
            x: m(min_x),
            y: m(min_y),
        },
        Vec2 {
            x: m(max_x),
            y: m(max_y),
        },
    );
    let (mut set, created) = target_set(project, content.recipe(), content.seed())?;
    set.overrides.push(Override {
        nested: Vec::new(),
        stage,
        target: 0,
        precedence: next_precedence(project, content.recipe(), None),
        base: String::new(),
        action: OverrideAction::Exclude { min, max },
    });
    let path = FieldPath::root()
        .field("overrides")
        .index(set.overrides.len() - 1);
    let label = format!(
        "Exclude ({:.2}, {:.2})–({:.2}, {:.2}) m",
        min.x, min.y, max.x, max.y
    );
    Ok(commit(project, set, created, path, label))
}
