//! Which override (or world mutation) an authoring action makes: the one owner of that answer for
//! the Provenance buttons, the Viewport's shortcuts, context menu and tools, and their tests.
//!
//! Every function here is pure: `(project, content, target, action)` → the [`ProjectEdit`] that
//! appends the override to the recipe's override set (creating `overrides/<recipe>.overrides.ron`,
//! listed in the manifest, when the recipe has none), or an [`AuthoringRefusal`] saying why not.
//! An override records its target's base revision as the runtime computes it
//! ([`StageBase::revision`], re-drawn from the target's address, so it is the generated base's
//! whatever overrides the shown content has) and the next precedence of the recipe's sets, so it
//! wins over every override authored before it. Repeating an action on the same target updates
//! that override in place instead of stacking a second one.

mod mutations;
mod place;
pub mod rebase;
mod refusal;
mod site;

pub use mutations::{harvested, regrow, Harvested};
pub use place::{add_object, allocate_identity, exclude_rect};
pub use refusal::AuthoringRefusal;

#[cfg(test)]
mod tests;

use stagecraft_runtime::content::{Product, ScatterLayer, ScatterProduct};
use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::overrides::action_name;
use stagecraft_runtime::overrides::{harvest as harvest_mutation, MutationSite, StageBase};
use stagecraft_runtime::project::{
    FieldPath, Override, OverrideAction, OverrideSet, Project, Vec2,
};
use stagecraft_runtime::recipe::family_data;

use crate::edits::{DocId, DocValue, ProjectEdit, Selection};
use crate::session::PreviewContent;
use crate::viewport::PickId;

/// A generated object as the shown content has it, named by its scatter stage and identity.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The scatter stage that emitted it (what overrides name; a placed object's placements stage),
    /// or, for an object of a subrecipe stage's child run, that subrecipe stage.
    pub stage: u32,
    /// For an object of a child run: the child stage ids below `stage` down to the scatter stage
    /// that emitted it (`Override.nested`); empty for the recipe's own stages.
    pub nested: Vec<u32>,
    /// Its packed identity.
    pub id: ScatterId,
    /// Its variant index now.
    pub variant: u32,
    /// Its lattice position now.
    pub x: i64,
    /// Its lattice position now.
    pub y: i64,
    /// Rotation (1/65536 turns) and scale (recipe units), when a select-and-place stage gave them.
    pub transform: Option<(u16, u32)>,
}

impl Target {
    /// Where a world mutation of it points: its stage, nested path and identity.
    pub fn site(&self) -> MutationSite {
        MutationSite {
            stage: self.stage,
            nested: self.nested.clone(),
            target: self.id.bits(),
        }
    }
}

/// The generated object `pick` names in `content`, if it names one.
pub fn target_of(content: &PreviewContent, pick: &PickId) -> Option<Target> {
    let PickId::Object { stage, id } = pick else {
        return None;
    };
    let product = &content.stage(*stage)?.product;
    let index = crate::viewport::picking::object_index(product, *id)?;
    match product.as_ref() {
        Product::PlacedObjects(placed) => {
            let object = placed.objects.get(index)?;
            let p = &object.placement;
            let (stage, nested) = site::address(content, *stage, |_| placed.placements_stage);
            Some(Target {
                stage,
                nested,
                id: p.id,
                variant: p.variant,
                x: p.x,
                y: p.y,
                transform: Some((object.rotation_turns_65536, object.scale)),
            })
        }
        Product::Placements(scatter) => {
            let p = scatter.placements().nth(index)?;
            let (stage, nested) = site::address(content, *stage, |emitted| emitted);
            Some(Target {
                stage,
                nested,
                id: p.id,
                variant: p.variant,
                x: p.x,
                y: p.y,
                transform: None,
            })
        }
        _ => None,
    }
}

/// What the user does to a selected generated object.
#[derive(Clone, Debug, PartialEq)]
pub enum ObjectAction {
    /// Keep it with its current variant (`LockSelection`).
    Lock,
    /// Keep its current position, rotation and scale (`LockTransform`).
    LockTransform,
    /// Remove it (a tombstone).
    Delete,
    /// Give it this variant of its family.
    Replace(String),
    /// Keep its variant and transform and what downstream stages derive from it.
    FreezeSubtree,
    /// Harvest it (a world mutation; regrowing is [`regrow`]).
    Harvest,
    /// Move it to this ground position, meters.
    Move([f64; 2]),
    /// Turn it to this rotation about the up axis, 1/65536 turns (a placed object only).
    Rotate(u16),
}

impl ObjectAction {
    /// The action's name in menus and undo labels.
    pub fn name(&self) -> &'static str {
        match self {
            ObjectAction::Lock => "Lock",
            ObjectAction::LockTransform => "Lock transform",
            ObjectAction::Delete => "Delete",
            ObjectAction::Replace(_) => "Replace variant",
            ObjectAction::FreezeSubtree => "Freeze subtree",
            ObjectAction::Harvest => "Harvest",
            ObjectAction::Move(_) => "Move",
            ObjectAction::Rotate(_) => "Rotate",
        }
    }
}

/// What a stage's shown product and family say about its objects.
struct StageView<'a> {
    scatter: &'a ScatterProduct,
    base: StageBase,
}

fn stage_view(content: &PreviewContent, stage: u32) -> Result<StageView<'_>, AuthoringRefusal> {
    nested_view(content, stage, &[])
}

/// The view of the stage an override at `stage` with path `nested` names (in a child run when
/// the path is not empty).
fn nested_view<'c>(
    content: &'c PreviewContent,
    stage: u32,
    nested: &[u32],
) -> Result<StageView<'c>, AuthoringRefusal> {
    let (product, seed, id) =
        site::product_at(content, stage, nested).ok_or(AuthoringRefusal::NoContent)?;
    let Product::Placements(scatter) = product else {
        return Err(AuthoringRefusal::UnsupportedStage { stage });
    };
    let family =
        content
            .families
            .get(&scatter.family)
            .ok_or_else(|| AuthoringRefusal::NoFamily {
                family: scatter.family.clone(),
            })?;
    let base = StageBase::new(
        id,
        seed,
        &family_data(family),
        scatter.cell_size,
        scatter.candidates_per_cell,
        scatter.lattice_unit_m,
    );
    Ok(StageView { scatter, base })
}

/// The scatter stages of `content`, in plan order (what Add and Exclude can target).
pub fn scatter_stages(content: &PreviewContent) -> Vec<u32> {
    content
        .stages()
        .iter()
        .filter(|s| matches!(s.product.as_ref(), Product::Placements(_)))
        .map(|s| s.stage)
        .collect()
}

/// The variant ids of scatter stage `stage`'s family, in the family's order.
pub fn stage_variants(content: &PreviewContent, stage: u32) -> Vec<String> {
    match content.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::Placements(scatter)) => scatter.variant_ids.clone(),
        _ => Vec::new(),
    }
}

/// The scatter product of the stage that emitted `target` (in its child run for a nested one).
pub fn scatter_of<'c>(content: &'c PreviewContent, target: &Target) -> Option<&'c ScatterProduct> {
    match site::product_at(content, target.stage, &target.nested)?.0 {
        Product::Placements(scatter) => Some(scatter),
        _ => None,
    }
}

/// The variant ids of the family of `target`'s stage.
pub fn variants_of(content: &PreviewContent, target: &Target) -> Vec<String> {
    scatter_of(content, target).map_or_else(Vec::new, |s| s.variant_ids.clone())
}

/// `value_m` snapped to the lattice of `unit_m` and written with at most six decimals, so a
/// position reads in the file as the author placed it (4472 units of 0.01 m is 44.72, not
/// 44.720000000000006).
pub fn snap_m(value_m: f64, unit_m: f64) -> f64 {
    let units = (value_m / unit_m).round();
    clean_m(units * unit_m)
}

fn clean_m(value_m: f64) -> f64 {
    (value_m * 1e6).round() / 1e6
}

fn lattice_to_m(units: i64, unit_m: f64) -> f64 {
    clean_m(units as f64 * unit_m)
}

/// The next precedence of `recipe`'s sets: one above every override's (0 when there is none),
/// leaving out `except` (the override being updated).
pub fn next_precedence(project: &Project, recipe: &str, except: Option<(&str, usize)>) -> u32 {
    project
        .overrides
        .values()
        .filter(|set| set.recipe == recipe)
        .flat_map(|set| {
            set.overrides
                .iter()
                .enumerate()
                .filter(move |(i, _)| except != Some((set.id.as_str(), *i)))
                .map(|(_, o)| o.precedence)
        })
        .max()
        .map_or(0, |p| p.saturating_add(1))
}

/// The set an authoring action of `recipe` writes to, and whether it has to be created: the set
/// with the recipe's id, else the recipe's first set by id, else a new set `<recipe>` (or
/// `<recipe>-edits` when that id is another recipe's) bound to `seed`.
pub fn target_set(
    project: &Project,
    recipe: &str,
    seed: u64,
) -> Result<(OverrideSet, bool), AuthoringRefusal> {
    let of_recipe = |set: &&OverrideSet| set.recipe == recipe;
    let existing = project
        .overrides
        .get(recipe)
        .filter(of_recipe)
        .or_else(|| project.overrides.values().find(of_recipe));
    if let Some(set) = existing {
        let mut set = set.clone();
        let empty = set.overrides.is_empty() && set.mutations.is_empty();
        if set.base_seed != Some(seed) {
            if !empty {
                return Err(AuthoringRefusal::SetNotBound {
                    bound: set
                        .base_seed
                        .map_or("no seed".to_owned(), |s| format!("seed {s}")),
                    set: set.id,
                    seed,
                });
            }
            set.base_seed = Some(seed);
        }
        return Ok((set, false));
    }
    let mut id = recipe.to_owned();
    let mut n = 1;
    while project.overrides.contains_key(&id) {
        id = if n == 1 {
            format!("{recipe}-edits")
        } else {
            format!("{recipe}-edits-{n}")
        };
        n += 1;
    }
    let set = OverrideSet {
        id,
        recipe: recipe.to_owned(),
        base_seed: Some(seed),
        ..OverrideSet::default()
    };
    Ok((set, true))
}

/// The edit that puts `set` into the project (and, when `created`, lists it in the manifest), one
/// undo step selecting `path` of the set.
fn commit(
    project: &Project,
    set: OverrideSet,
    created: bool,
    path: FieldPath,
    label: String,
) -> ProjectEdit {
    let doc = DocId::Overrides(set.id.clone());
    let selection = Selection::field(doc.clone(), path);
    let mut edits = Vec::new();
    if created {
        let mut manifest = project.manifest.clone();
        manifest.overrides.push(set.id.clone());
        edits.push(ProjectEdit::replace(
            DocId::Manifest,
            Some(DocValue::Manifest(manifest)),
            selection.clone(),
            label.clone(),
        ));
    }
    let replace = ProjectEdit::replace(
        doc,
        Some(DocValue::Overrides(set)),
        selection.clone(),
        label.clone(),
    );
    if edits.is_empty() {
        return replace;
    }
    edits.push(replace);
    ProjectEdit::Batch {
        edits,
        selection,
        label,
    }
}

/// The edit that makes `action` an override (or, for a harvest, a world mutation) of `target`.
pub fn author_object(
    project: &Project,
    content: &PreviewContent,
    target: &Target,
    action: &ObjectAction,
) -> Result<ProjectEdit, AuthoringRefusal> {
    let view = nested_view(content, target.stage, &target.nested)?;
    let base = view
        .base
        .revision(target.id)
        .ok_or(AuthoringRefusal::NoBase)?;
    let (mut set, created) = target_set(project, content.recipe(), content.seed())?;
    let label = format!("{} {}", action.name(), target.id);
    if let ObjectAction::Harvest = action {
        // A child run's placement is harvested by its nested path, like an override names it.
        let index = harvest_mutation(&mut set.mutations, &target.site(), base);
        let path = FieldPath::root().field("mutations").index(index);
        return Ok(commit(project, set, created, path, label));
    }
    let new_action = override_action(&view, target, action)?;
    let same_kind = |o: &Override| {
        o.stage == target.stage
            && o.nested == target.nested
            && o.target == target.id.bits()
            && action_name(&o.action) == action_name(&new_action)
    };
    let existing = set.overrides.iter().position(same_kind);
    if matches!(new_action, OverrideAction::Delete) && existing.is_some() {
        return Err(AuthoringRefusal::AlreadyDeleted { set: set.id });
    }
    let next = next_precedence(
        project,
        content.recipe(),
        existing.map(|i| (set.id.as_str(), i)),
    );
    let index = match existing {
        Some(index) => {
            let o = &mut set.overrides[index];
            o.precedence = o.precedence.max(next);
            o.base = base;
            o.action = new_action;
            index
        }
        None => {
            set.overrides.push(Override {
                nested: target.nested.clone(),
                stage: target.stage,
                target: target.id.bits(),
                precedence: next,
                base,
                action: new_action,
            });
            set.overrides.len() - 1
        }
    };
    let path = FieldPath::root().field("overrides").index(index);
    Ok(commit(project, set, created, path, label))
}

/// The override action `action` makes of `target`, with values read off the shown content.
fn override_action(
    view: &StageView<'_>,
    target: &Target,
    action: &ObjectAction,
) -> Result<OverrideAction, AuthoringRefusal> {
    let unit_m = view.scatter.lattice_unit_m;
    let position = Vec2 {
        x: lattice_to_m(target.x, unit_m),
        y: lattice_to_m(target.y, unit_m),
    };
    let variant = || {
        view.scatter
            .variant_ids
            .get(target.variant as usize)
            .cloned()
            .ok_or(AuthoringRefusal::NoBase)
    };
    Ok(match action {
        ObjectAction::Lock => OverrideAction::LockSelection {
            variant: variant()?,
        },
        ObjectAction::LockTransform => {
            let (rotation, scale) = target.transform.ok_or(AuthoringRefusal::NoTransform)?;
            OverrideAction::LockTransform {
                position,
                rotation,
                scale,
            }
        }
        ObjectAction::Delete => OverrideAction::Delete,
        ObjectAction::Replace(id) => {
            if view.base.variant_index(id).is_none() {
                return Err(AuthoringRefusal::UnknownVariant {
                    variant: id.clone(),
                });
            }
            if *id == variant()? {
                return Err(AuthoringRefusal::SameVariant {
                    variant: id.clone(),
                });
            }
            OverrideAction::Replace {
                variant: id.clone(),
            }
        }
        ObjectAction::FreezeSubtree => {
            let (rotation, scale) = target.transform.ok_or(AuthoringRefusal::NoTransform)?;
            OverrideAction::FreezeSubtree {
                variant: variant()?,
                position,
                rotation,
                scale,
            }
        }
        ObjectAction::Move([x_m, y_m]) => {
            let (x, y) = ground(view, *x_m, *y_m)?;
            layer_of(view.scatter, target.id)
                .map(|layer| eligible(layer, x, y, unit_m))
                .transpose()?;
            OverrideAction::Move {
                position: Vec2 {
                    x: lattice_to_m(x, unit_m),
                    y: lattice_to_m(y, unit_m),
                },
            }
        }
        ObjectAction::Rotate(rotation) => {
            // Only select-and-place gives an object a rotation to turn.
            target.transform.ok_or(AuthoringRefusal::NoTransform)?;
            OverrideAction::Rotate {
                rotation: *rotation,
            }
        }
        // Harvest is a mutation, handled by the caller.
        ObjectAction::Harvest => return Err(AuthoringRefusal::NoBase),
    })
}

/// A ground point in lattice units, or why it is not one.
fn ground(view: &StageView<'_>, x_m: f64, y_m: f64) -> Result<(i64, i64), AuthoringRefusal> {
    if !x_m.is_finite() || !y_m.is_finite() {
        return Err(AuthoringRefusal::NotOnGround);
    }
    match (view.base.to_lattice(x_m), view.base.to_lattice(y_m)) {
        (Some(x), Some(y)) => Ok((x, y)),
        _ => Err(AuthoringRefusal::NotOnGround),
    }
}

/// The layer of `scatter` an identity belongs to.
fn layer_of(scatter: &ScatterProduct, id: ScatterId) -> Option<&ScatterLayer> {
    let key = id.unpack();
    scatter
        .layers
        .iter()
        .find(|l| l.room == key.room.get() && l.layer == key.layer)
}

/// Whether lattice point (`x`, `y`) is eligible in `layer`: inside its region and outside every
/// keep-out (the authored ones and the exclusions), as the runtime's hard constraints have it.
fn eligible(layer: &ScatterLayer, x: i64, y: i64, unit_m: f64) -> Result<(), AuthoringRefusal> {
    let (x_m, y_m) = (lattice_to_m(x, unit_m), lattice_to_m(y, unit_m));
    if !layer.region.contains(x, y) {
        return Err(AuthoringRefusal::OutsideRegion { x_m, y_m });
    }
    match layer.keep_outs.iter().position(|r| r.contains(x, y)) {
        Some(keep_out) => Err(AuthoringRefusal::InsideKeepOut { x_m, y_m, keep_out }),
        None => Ok(()),
    }
}
