//! Identity diff of two generations: every generated object keyed by (recipe, stage, product
//! kind, persistent child key) — never by array position — and compared field by field into
//! added, removed, moved (with the distance in meters), changed (variant, scale, rotation,
//! properties) and unchanged, in canonical order.
//!
//! Objects come from products ([`objects_of`]), so a generated bundle and a decoded cooked
//! bundle compare the same way.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::content::encode::ByteWriter;
use crate::content::{PointM, Product, ProductKind};
use crate::generate::GeneratedBundle;
use crate::identity::{ChildKey, ScatterId};

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
        Product::Placements(scatter) => out.extend(
            scatter
                .placements()
                .map(|p| scatter_object(ProductKind::Placements, scatter.lattice_unit_m, p)),
        ),
        Product::PlacedObjects(placed) => out.extend(placed.objects.iter().map(|o| DiffObject {
            rotation_turns_65536: Some(o.rotation_turns_65536),
            scale: Some(o.scale),
            ..scatter_object(
                ProductKind::PlacedObjects,
                placed.lattice_unit_m,
                &o.placement,
            )
        })),
        Product::StreetBlock(block) => out.extend(street_objects(recipe, stage, block)),
        Product::MissionLayout(mission) => {
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
            out.extend(objects);
        }
        Product::StreamingPlan(streaming) => {
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
            out.extend(objects);
        }
    }
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

/// One object in merge order: its index and, for an object of a keyed group (scatter objects
/// on both sides), its merge key `(group rank, canonical key)` and packed id. The group rank
/// orders (recipe, stage, kind) over both sides; within a group the merge walks the objects in
/// their products' canonical order (room, layer, cell Y, cell X, candidate), which is the
/// order products list them, so both sides are read front to back; the differing rows are put
/// in identity order afterwards. Other objects (street slots, grid cells) have no key and merge
/// by identity.
#[derive(Debug, Clone, Copy)]
struct Ordered {
    key: Option<(u32, u64)>,
    bits: u64,
    index: u32,
}

/// The (recipe, stage, kind) groups of both sides, sorted and without repeats.
fn group_ranks(a: &[DiffObject], b: &[DiffObject]) -> Vec<(Arc<str>, u32, ProductKind)> {
    let mut groups: Vec<(Arc<str>, u32, ProductKind)> = Vec::new();
    for side in [a, b] {
        let mut last: Option<&DiffObject> = None;
        for o in side {
            if last.is_some_and(|l| same_group(l, o)) {
                continue;
            }
            last = Some(o);
            groups.push((o.recipe.clone(), o.stage, o.kind));
        }
    }
    groups.sort();
    groups.dedup();
    groups
}

/// The runs of one group (start, end) of `objects`, with the group's rank, and each object's
/// scatter identity (read in the same pass, so later passes read this compact list instead of
/// the objects).
#[allow(clippy::type_complexity)]
fn runs_of(
    objects: &[DiffObject],
    groups: &[(Arc<str>, u32, ProductKind)],
) -> (Vec<(u32, usize, usize)>, Vec<Option<ScatterId>>) {
    let mut runs: Vec<(u32, usize, usize)> = Vec::new();
    let mut ids = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        ids.push(match object.key {
            ChildKey::Scatter(id) => Some(id),
            _ => None,
        });
        match runs.last_mut() {
            Some((_, start, end)) if same_group(&objects[*start], object) => *end = i + 1,
            _ => {
                let rank = groups
                    .binary_search_by(|(r, s, k)| {
                        (&**r, *s, *k).cmp(&(&*object.recipe, object.stage, object.kind))
                    })
                    .map_or(0, |r| r as u32);
                runs.push((rank, i, i + 1));
            }
        }
    }
    (runs, ids)
}

/// One group's run of a side: (rank, start, end).
type Run = (u32, usize, usize);

/// Per group rank, whether every object of the group on both sides has a scatter key.
fn keyed_groups(sides: [(&[Option<ScatterId>], &[Run]); 2], groups: usize) -> Vec<bool> {
    let mut keyed = vec![true; groups];
    for (ids, runs) in sides {
        for &(rank, start, end) in runs {
            let scatter = ids
                .get(start..end)
                .unwrap_or_default()
                .iter()
                .all(Option::is_some);
            if let Some(k) = keyed.get_mut(rank as usize) {
                *k &= scatter;
            }
        }
    }
    keyed
}

/// A scatter identity's place in its product's canonical order (room, layer, cell Y, cell X,
/// candidate; cells with the sign bit flipped, so they order as signed numbers). One-to-one
/// with the packed id.
fn canonical_key(id: ScatterId) -> u64 {
    let k = id.unpack();
    let signed = |v: i16| u64::from(v as u16 ^ 0x8000);
    (u64::from(k.room.get()) << 48)
        | (u64::from(k.layer) << 40)
        | (signed(k.cell_y) << 24)
        | (signed(k.cell_x) << 8)
        | u64::from(k.candidate)
}

/// The objects in merge order (see [`Ordered`]), without moving an object; a repeated identity
/// is kept once (its first occurrence). Runs of one group are ordered by rank; a keyed group's
/// members are usually in canonical order already (checked in one pass, else radix-sorted),
/// other groups (small products) are sorted with the full comparison.
fn merge_order(
    objects: &[DiffObject],
    (runs, ids): (&[Run], &[Option<ScatterId>]),
    keyed: &[bool],
) -> Vec<Ordered> {
    let mut runs = runs.to_vec();
    runs.sort_by_key(|(rank, _, _)| *rank);
    let mut order: Vec<Ordered> = Vec::with_capacity(objects.len());
    let mut r = 0;
    while r < runs.len() {
        let rank = runs[r].0;
        let mut members: Vec<u32> = Vec::new();
        while r < runs.len() && runs[r].0 == rank {
            members.extend(runs[r].1 as u32..runs[r].2 as u32);
            r += 1;
        }
        let id = |i: u32| ids.get(i as usize).copied().flatten();
        if keyed.get(rank as usize).copied().unwrap_or(false) {
            let mut by_key: Vec<(u64, u32)> = members
                .iter()
                .filter_map(|&i| id(i).map(|id| (canonical_key(id), i)))
                .collect();
            if !by_key.is_sorted() {
                radix_sort(&mut by_key);
            }
            by_key.dedup_by_key(|(key, _)| *key);
            order.extend(by_key.into_iter().map(|(key, index)| Ordered {
                key: Some((rank, key)),
                bits: id(index).map_or(0, |id| id.bits()),
                index,
            }));
        } else {
            members.sort_by(|&x, &y| cmp_identity(&objects[x as usize], &objects[y as usize]));
            members.dedup_by(|x, y| {
                cmp_identity(&objects[*x as usize], &objects[*y as usize]) == Ordering::Equal
            });
            order.extend(members.into_iter().map(|index| Ordered {
                key: None,
                bits: 0,
                index,
            }));
        }
    }
    order
}

/// Sorts `(key, index)` pairs by key, keeping the input order among equal keys (as the indices
/// ascend, the order `sort_unstable` gives the pairs): a least-significant-digit radix sort
/// over the key's bytes that skips every byte all keys share (room, layer and candidate bytes
/// usually), so a scatter of 100,000 objects takes four linear passes.
fn radix_sort(items: &mut Vec<(u64, u32)>) {
    let n = items.len();
    if n < 512 {
        items.sort_unstable();
        return;
    }
    let mut counts = [[0usize; 256]; 8];
    for (key, _) in items.iter() {
        for (digit, count) in counts.iter_mut().enumerate() {
            count[((key >> (8 * digit)) & 0xff) as usize] += 1;
        }
    }
    let mut buffer = vec![(0u64, 0u32); n];
    for (digit, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut total = 0;
        for (offset, c) in offsets.iter_mut().zip(count) {
            *offset = total;
            total += c;
        }
        for &(key, index) in items.iter() {
            let bucket = ((key >> (8 * digit)) & 0xff) as usize;
            if let Some(slot) = buffer.get_mut(offsets[bucket]) {
                *slot = (key, index);
            }
            offsets[bucket] += 1;
        }
        std::mem::swap(items, &mut buffer);
    }
}

fn cmp_identity(a: &DiffObject, b: &DiffObject) -> Ordering {
    a.identity().cmp(&b.identity())
}

/// The diff of object sets `a` and `b` (any order; a repeated identity on one side is kept
/// once). The diff keeps both sets; its entries refer to their objects, sorted by identity.
pub fn diff_objects(a: Vec<DiffObject>, b: Vec<DiffObject>) -> BundleDiff {
    let groups = group_ranks(&a, &b);
    let ((runs_a, ids_a), (runs_b, ids_b)) = (runs_of(&a, &groups), runs_of(&b, &groups));
    let keyed = keyed_groups([(&ids_a, &runs_a), (&ids_b, &runs_b)], groups.len());
    let (order_a, order_b) = (
        merge_order(&a, (&runs_a, &ids_a), &keyed),
        merge_order(&b, (&runs_b, &ids_b), &keyed),
    );
    let mut rows = Vec::with_capacity(order_a.len().max(order_b.len()));
    // Per row of a keyed group: its rank and packed id, to put the rows in identity order.
    let mut row_ids: Vec<Option<(u32, u64)>> = Vec::with_capacity(rows.capacity());
    let mut counts = DiffCounts::default();
    let (mut ia, mut ib) = (0, 0);
    loop {
        let (x, y) = (order_a.get(ia), order_b.get(ib));
        let order = match (x, y) {
            (Some(x), Some(y)) => match (x.key, y.key) {
                (Some(kx), Some(ky)) => kx.cmp(&ky),
                _ => cmp_identity(&a[x.index as usize], &b[y.index as usize]),
            },
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        let row_id = |o: &Ordered| o.key.map(|(rank, _)| (rank, o.bits));
        match (order, x, y) {
            (Ordering::Less, Some(x), _) => {
                counts.removed += 1;
                rows.push(Row {
                    change: Change::Removed,
                    a: x.index,
                    b: NO_SIDE,
                });
                row_ids.push(row_id(x));
                ia += 1;
            }
            (Ordering::Greater, _, Some(y)) => {
                counts.added += 1;
                rows.push(Row {
                    change: Change::Added,
                    a: NO_SIDE,
                    b: y.index,
                });
                row_ids.push(row_id(y));
                ib += 1;
            }
            (Ordering::Equal, Some(x), Some(y)) => {
                match compare(&a[x.index as usize], &b[y.index as usize]) {
                    None => counts.unchanged += 1,
                    Some(change) => {
                        match change {
                            Change::Moved { .. } => counts.moved += 1,
                            _ => counts.changed += 1,
                        }
                        rows.push(Row {
                            change,
                            a: x.index,
                            b: y.index,
                        });
                        row_ids.push(row_id(x));
                    }
                }
                ia += 1;
                ib += 1;
            }
            _ => break,
        }
    }
    let rows = identity_rows(rows, &row_ids);
    BundleDiff { a, b, rows, counts }
}

/// `rows` with each keyed group's rows (merged in canonical order) put in packed-id order: the
/// rows of one group are consecutive, and groups already follow their ranks.
fn identity_rows(rows: Vec<Row>, row_ids: &[Option<(u32, u64)>]) -> Vec<Row> {
    if row_ids.iter().all(Option::is_none) {
        return rows;
    }
    let mut order: Vec<u32> = Vec::with_capacity(rows.len());
    let mut i = 0;
    while i < rows.len() {
        let Some(Some((rank, _))) = row_ids.get(i).copied() else {
            order.push(i as u32);
            i += 1;
            continue;
        };
        let mut segment: Vec<(u64, u32)> = Vec::new();
        while let Some(Some((r, bits))) = row_ids.get(i).copied() {
            if r != rank {
                break;
            }
            segment.push((bits, i as u32));
            i += 1;
        }
        radix_sort(&mut segment);
        order.extend(segment.into_iter().map(|(_, row)| row));
    }
    order
        .into_iter()
        .filter_map(|row| rows.get(row as usize).copied())
        .collect()
}

/// Whether two objects belong to one (recipe, stage, kind) group.
fn same_group(a: &DiffObject, b: &DiffObject) -> bool {
    a.stage == b.stage
        && a.kind == b.kind
        && (Arc::ptr_eq(&a.recipe, &b.recipe) || *a.recipe == *b.recipe)
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

#[cfg(test)]
mod tests;
