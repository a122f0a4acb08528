//! Identity diff of two generations: every generated object keyed by (recipe, stage, product
//! kind, persistent child key) — never by array position — and compared field by field into
//! added, removed, moved (with the distance in meters), changed (variant, scale, rotation,
//! properties) and unchanged, in canonical order.
//!
//! Objects come from products ([`objects_of`]), so a generated bundle and a decoded cooked
//! bundle compare the same way.

use std::sync::Arc;

use crate::content::encode::ByteWriter;
use crate::content::{PointM, Product, ProductKind};
use crate::generate::GeneratedBundle;
use crate::identity::ChildKey;

/// One generated object as the diff sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffObject {
    /// The recipe (instance) that generated it (shared by every object of the recipe).
    pub recipe: Arc<str>,
    /// The emitting stage.
    pub stage: u32,
    /// The product kind it belongs to.
    pub kind: ProductKind,
    /// Its key among its siblings.
    pub key: ChildKey,
    /// Variant index, for objects that have one.
    pub variant: Option<u32>,
    /// Position in meters, for objects that have one.
    pub position_m: Option<PointM>,
    /// Rotation in 1/65536 turns, for placed objects.
    pub rotation_turns_65536: Option<u16>,
    /// Scale in the recipe's scale unit, for placed objects.
    pub scale: Option<u32>,
    /// Every other property (priority, role, geometry, …): the value itself when it fits (a
    /// placement's priority), else the first 8 bytes of its BLAKE3 digest. Only the two sides of
    /// one identity are ever compared, so both always use the same form.
    pub properties: u64,
}

impl DiffObject {
    fn identity(&self) -> (&str, u32, ProductKind, &ChildKey) {
        (&*self.recipe, self.stage, self.kind, &self.key)
    }
}

/// A field that differs between the two sides of one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangedField {
    /// The variant.
    Variant,
    /// The scale.
    Scale,
    /// The rotation.
    Rotation,
    /// Any other property.
    Properties,
}

impl ChangedField {
    /// The field's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            ChangedField::Variant => "variant",
            ChangedField::Scale => "scale",
            ChangedField::Rotation => "rotation",
            ChangedField::Properties => "properties",
        }
    }
}

/// A set of [`ChangedField`]s (a bit set: an entry of a 100,000-object diff allocates nothing
/// for it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FieldSet(u8);

impl FieldSet {
    const ALL: [ChangedField; 4] = [
        ChangedField::Variant,
        ChangedField::Scale,
        ChangedField::Rotation,
        ChangedField::Properties,
    ];

    /// The set of `fields`.
    pub fn of(fields: &[ChangedField]) -> FieldSet {
        let mut set = FieldSet::default();
        for field in fields {
            set.push(*field);
        }
        set
    }

    /// Adds `field`.
    pub fn push(&mut self, field: ChangedField) {
        self.0 |= 1 << (field as u8);
    }

    /// Whether `field` is in the set.
    pub fn contains(self, field: ChangedField) -> bool {
        self.0 & (1 << (field as u8)) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The fields, in the order variant, scale, rotation, properties.
    pub fn iter(self) -> impl Iterator<Item = ChangedField> {
        FieldSet::ALL.into_iter().filter(move |f| self.contains(*f))
    }
}

/// How one object differs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// In both, at a different position (other fields may differ too, listed).
    Moved {
        /// Distance between the positions, meters.
        distance_m: f64,
        /// Fields that changed besides the position.
        fields: FieldSet,
    },
    /// In both at the same position, with these fields different.
    Changed {
        /// The fields that differ.
        fields: FieldSet,
    },
}

impl Change {
    /// The change's stable name.
    pub const fn name(&self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Moved { .. } => "moved",
            Change::Changed { .. } => "changed",
        }
    }
}

/// One differing object: the A side (absent when added), the B side (absent when removed),
/// borrowed from the diff that holds both sides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffEntry<'a> {
    /// What changed.
    pub change: Change,
    /// The object in A.
    pub a: Option<&'a DiffObject>,
    /// The object in B.
    pub b: Option<&'a DiffObject>,
}

impl<'a> DiffEntry<'a> {
    /// The object (its B side when present, else its A side).
    pub fn object(&self) -> Option<&'a DiffObject> {
        self.b.or(self.a)
    }
}

/// Counts per kind of change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffCounts {
    /// Only in B.
    pub added: u64,
    /// Only in A.
    pub removed: u64,
    /// At another position.
    pub moved: u64,
    /// Same position, other fields differ.
    pub changed: u64,
    /// Identical.
    pub unchanged: u64,
}

/// A differing object as the diff stores it: the change and the index of each side's object
/// ([`NO_SIDE`] for none), so a diff of 100,000 objects copies none of them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    change: Change,
    a: u32,
    b: u32,
}

/// The side index of an entry without that side.
const NO_SIDE: u32 = u32::MAX;

/// The diff of two generations: both sides' objects and the differing ones among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BundleDiff {
    a: Vec<DiffObject>,
    b: Vec<DiffObject>,
    rows: Vec<Row>,
    /// Counts.
    pub counts: DiffCounts,
}

impl BundleDiff {
    /// Whether the two sides hold the same objects with the same fields.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many objects differ.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The differing objects, sorted by (recipe, stage, kind, key).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = DiffEntry<'_>> + '_ {
        self.rows.iter().map(|row| self.entry_of(row))
    }

    /// The `index`-th differing object.
    pub fn entry(&self, index: usize) -> Option<DiffEntry<'_>> {
        self.rows.get(index).map(|row| self.entry_of(row))
    }

    fn entry_of(&self, row: &Row) -> DiffEntry<'_> {
        DiffEntry {
            change: row.change,
            a: self.a.get(row.a as usize),
            b: self.b.get(row.b as usize),
        }
    }
}

/// Every object of a generated bundle.
pub fn bundle_objects(bundle: &GeneratedBundle) -> Vec<DiffObject> {
    let mut objects = Vec::with_capacity(bundle.object_count() as usize + 2);
    let recipe: Arc<str> = Arc::from(bundle.recipe_id.as_str());
    for (stage, product) in bundle.products() {
        objects_into(&recipe, stage, product, &mut objects);
    }
    objects
}

fn props(build: impl FnOnce(&mut ByteWriter)) -> u64 {
    let mut w = ByteWriter::tagged(b"DIFFPRP1");
    build(&mut w);
    let digest = w.digest();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

fn slot(
    recipe: &Arc<str>,
    stage: u32,
    key: String,
    position_m: Option<PointM>,
    p: u64,
) -> DiffObject {
    DiffObject {
        recipe: Arc::clone(recipe),
        stage,
        kind: ProductKind::StreetBlock,
        key: ChildKey::Slot(key),
        variant: None,
        position_m,
        rotation_turns_65536: None,
        scale: None,
        properties: p,
    }
}

/// The objects of one product, keyed as their provenance keys them.
pub fn objects_of(recipe: &Arc<str>, stage: u32, product: &Product) -> Vec<DiffObject> {
    let mut objects = Vec::new();
    objects_into(recipe, stage, product, &mut objects);
    objects
}

/// [`objects_of`], appended to `objects` (a bundle's objects are built in place, never copied
/// from one list into another).
pub fn objects_into(recipe: &Arc<str>, stage: u32, product: &Product, out: &mut Vec<DiffObject>) {
    let scatter_object = |kind, unit: f64, p: &crate::content::Placement| DiffObject {
        recipe: Arc::clone(recipe),
        stage,
        kind,
        key: ChildKey::Scatter(p.id),
        variant: Some(p.variant),
        position_m: Some(PointM::new(p.x as f64 * unit, p.y as f64 * unit)),
        rotation_turns_65536: None,
        scale: None,
        properties: u64::from(p.priority),
    };
    match product {
        Product::Placements(scatter) => {
            // Layer by layer, so each extend knows its length.
            for layer in &scatter.layers {
                out.extend(
                    layer.output.placements.iter().map(|p| {
                        scatter_object(ProductKind::Placements, scatter.lattice_unit_m, p)
                    }),
                );
            }
        }
        Product::PlacedObjects(placed) => out.extend(placed.objects.iter().map(|o| DiffObject {
            rotation_turns_65536: Some(o.rotation_turns_65536),
            scale: Some(o.scale),
            ..scatter_object(
                ProductKind::PlacedObjects,
                placed.lattice_unit_m,
                &o.placement,
            )
        })),
        Product::AssemblyPlan(plan) => {
            let unit = plan.lattice_unit_m;
            out.extend(plan.modules.iter().map(|m| DiffObject {
                recipe: Arc::clone(recipe),
                stage,
                kind: ProductKind::AssemblyPlan,
                key: ChildKey::Scatter(m.id),
                variant: Some(m.variant),
                position_m: Some(PointM::new(m.x as f64 * unit, m.y as f64 * unit)),
                rotation_turns_65536: Some(m.rotation_turns_65536),
                scale: None,
                // The slot's socket type, hashed: a module moved to another socket differs.
                properties: props(|w| {
                    w.str(plan.socket_of(m));
                }),
            }));
        }
        Product::StreetBlock(block) => out.extend(street_objects(recipe, stage, block)),
        Product::MissionLayout(mission) => {
            out.extend(mission_objects(recipe, stage, product, mission))
        }
        Product::StreamingPlan(streaming) => {
            out.extend(streaming_objects(recipe, stage, product, streaming));
        }
    }
}

/// A mission's chunks, one per grid cell, and the whole layout as one more object.
fn mission_objects(
    recipe: &Arc<str>,
    stage: u32,
    product: &Product,
    mission: &crate::content::MissionProduct,
) -> Vec<DiffObject> {
    let layout = &mission.layout;
    let cell = |x: u32, y: u32, p| DiffObject {
        recipe: Arc::clone(recipe),
        stage,
        kind: ProductKind::MissionLayout,
        key: ChildKey::GridCell {
            x: x as i32,
            y: y as i32,
        },
        variant: None,
        position_m: None,
        rotation_turns_65536: None,
        scale: None,
        properties: p,
    };
    let mut objects: Vec<DiffObject> = layout
        .chunks
        .iter()
        .map(|c| {
            cell(
                c.cell.x,
                c.cell.y,
                props(|w| {
                    w.str(c.role.name())
                        .str(&c.chunk_id)
                        .bool(c.blocks_traversal)
                        .bool(c.npc_spawn_tag);
                }),
            )
        })
        .collect();
    let mut whole = slot(
        recipe,
        stage,
        "layout".to_owned(),
        None,
        props(|w| {
            w.bytes(&product.canonical_bytes());
        }),
    );
    whole.kind = ProductKind::MissionLayout;
    objects.push(whole);
    objects
}

/// A streaming plan's loaded (tier 0) and HLOD (tier 1) cells, and the whole plan as one more
/// object.
fn streaming_objects(
    recipe: &Arc<str>,
    stage: u32,
    product: &Product,
    streaming: &crate::content::StreamingProduct,
) -> Vec<DiffObject> {
    let plan = &streaming.plan;
    let cell = |c: &crate::content::StreamingCell, tier: u8| DiffObject {
        recipe: Arc::clone(recipe),
        stage,
        kind: ProductKind::StreamingPlan,
        key: ChildKey::GridCell { x: c.x, y: c.y },
        variant: None,
        position_m: None,
        rotation_turns_65536: None,
        scale: None,
        properties: u64::from(tier),
    };
    let mut objects: Vec<DiffObject> = plan
        .loaded_cells
        .iter()
        .map(|c| cell(c, 0))
        .chain(plan.hlod_cells.iter().map(|c| cell(c, 1)))
        .collect();
    let mut whole = slot(
        recipe,
        stage,
        "plan".to_owned(),
        None,
        props(|w| {
            w.bytes(&product.canonical_bytes());
        }),
    );
    whole.kind = ProductKind::StreamingPlan;
    objects.push(whole);
    objects
}

fn street_objects(
    recipe: &Arc<str>,
    stage: u32,
    block: &crate::content::StreetBlock,
) -> Vec<DiffObject> {
    let space = &block.space;
    let mut objects = Vec::new();
    let pts = |w: &mut ByteWriter, list: &[PointM]| {
        w.count(list.len());
        for p in list {
            w.f64(p.x).f64(p.y);
        }
    };
    for r in &space.routes {
        let p = props(|w| {
            w.str(r.kind.name()).f64(r.width_m);
            pts(w, &r.points);
        });
        objects.push(slot(recipe, stage, format!("route/{}", r.id), None, p));
    }
    for c in &space.crosswalks {
        let p = props(|w| {
            w.str(&c.route)
                .str(&c.signal_id)
                .f64(c.width_m)
                .u32(c.lanes_crossed);
            for s in &c.sides {
                w.str(&s.sidewalk).u32(s.node);
                pts(w, &[s.kerb, s.waiting_point]);
            }
        });
        objects.push(slot(recipe, stage, format!("crosswalk/{}", c.id), None, p));
    }
    for portal in &space.portals {
        let p = props(|w| {
            w.str(&portal.route).u32(portal.node);
        });
        objects.push(slot(
            recipe,
            stage,
            format!("portal/{}", portal.id),
            Some(portal.position),
            p,
        ));
    }
    for s in &block.surfaces {
        let p = props(|w| {
            w.str(s.kind.name());
            pts(w, &s.outline);
        });
        objects.push(slot(recipe, stage, format!("surface/{}", s.id), None, p));
    }
    for l in &block.lanes {
        let p = props(|w| {
            w.str(l.direction.name()).f64(l.width_m);
            pts(w, &l.centerline);
            for id in &l.crosswalks {
                w.str(id);
            }
        });
        objects.push(slot(recipe, stage, format!("lane/{}", l.id), None, p));
    }
    for a in &block.scatter_areas {
        let p = props(|w| pts(w, &a.rect.corners()));
        objects.push(slot(recipe, stage, format!("area/{}", a.id), None, p));
    }
    for k in &block.keep_outs {
        let p = props(|w| pts(w, &k.rect.corners()));
        objects.push(slot(recipe, stage, format!("keep-out/{}", k.id), None, p));
    }
    objects
}

/// How `b` differs from `a` (the same identity), or `None` when identical.
fn compare(a: &DiffObject, b: &DiffObject) -> Option<Change> {
    let mut fields = FieldSet::default();
    if a.variant != b.variant {
        fields.push(ChangedField::Variant);
    }
    if a.scale != b.scale {
        fields.push(ChangedField::Scale);
    }
    if a.rotation_turns_65536 != b.rotation_turns_65536 {
        fields.push(ChangedField::Rotation);
    }
    if a.properties != b.properties {
        fields.push(ChangedField::Properties);
    }
    match (a.position_m, b.position_m) {
        (Some(p), Some(q)) if p != q => Some(Change::Moved {
            distance_m: (p.x - q.x).hypot(p.y - q.y),
            fields,
        }),
        (Some(_), None) | (None, Some(_)) => {
            fields.push(ChangedField::Properties);
            Some(Change::Changed { fields })
        }
        _ if !fields.is_empty() => Some(Change::Changed { fields }),
        _ => None,
    }
}

/// The diff of two generated bundles.
pub fn diff_bundles(a: &GeneratedBundle, b: &GeneratedBundle) -> BundleDiff {
    diff_objects(bundle_objects(a), bundle_objects(b))
}

mod merge;
pub use merge::diff_objects;

#[cfg(test)]
mod tests;
