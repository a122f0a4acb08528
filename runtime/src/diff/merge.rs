//! The merge of two sides' objects into the diff's rows, group by group ((recipe, stage, kind),
//! in order). A scatter group is walked in its products' canonical order (room, layer, cell Y,
//! cell X, candidate), which is the order products list their objects, so both sides are read
//! front to back without building an order first; its differing rows are then radix-sorted into
//! identity (packed id) order. Other groups (street slots, grid cells: small products) are
//! sorted with the full identity comparison.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{compare, BundleDiff, Change, DiffCounts, DiffObject, Row, NO_SIDE};
use crate::content::ProductKind;
use crate::identity::{ChildKey, ScatterId};

/// A (recipe, stage, kind) group.
type Group = (Arc<str>, u32, ProductKind);

/// A run of consecutive objects of one group on one side.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// The group's rank among both sides' groups (set once every group is known).
    rank: u32,
    start: usize,
    end: usize,
    /// Whether every object of the run has a scatter key.
    keyed: bool,
}

/// One side as the merge reads it: its objects, their runs in input order, and each object's
/// canonical key ([`canonical_key`]) or 0 for an object without a scatter key (no canonical key
/// is 0: a scatter identity's room never is).
struct Side<'a> {
    objects: &'a [DiffObject],
    runs: Vec<Run>,
    keys: Vec<u64>,
}

impl<'a> Side<'a> {
    /// The runs and keys of `objects`, read in one pass (ranks are set by [`rank_runs`]).
    fn new(objects: &'a [DiffObject]) -> Side<'a> {
        let mut runs: Vec<Run> = Vec::new();
        let mut keys = Vec::with_capacity(objects.len());
        for (i, object) in objects.iter().enumerate() {
            let key = match object.key {
                ChildKey::Scatter(id) => canonical_key(id),
                _ => 0,
            };
            keys.push(key);
            match runs.last_mut() {
                Some(run) if same_group(&objects[run.start], object) => {
                    run.end = i + 1;
                    run.keyed &= key != 0;
                }
                _ => runs.push(Run {
                    rank: 0,
                    start: i,
                    end: i + 1,
                    keyed: key != 0,
                }),
            }
        }
        Side {
            objects,
            runs,
            keys,
        }
    }

    fn group_of(&self, run: &Run) -> Group {
        let o = &self.objects[run.start];
        (o.recipe.clone(), o.stage, o.kind)
    }

    /// The group's members (`rank`) on this side, for a keyed group: its single run when that
    /// is strictly ascending by canonical key (the usual case), else the (key, index) pairs
    /// sorted by key, a repeated identity kept once (its first occurrence).
    fn keyed_members(&self, rank: u32, buffer: &mut Vec<(u64, u32)>) -> Members {
        let mut runs = self.runs.iter().filter(|r| r.rank == rank);
        let (first, second) = (runs.next(), runs.next());
        if let (Some(run), None) = (first, second) {
            let keys = self.keys.get(run.start..run.end).unwrap_or_default();
            if keys.windows(2).all(|w| w[0] < w[1]) {
                return Members::Range(run.start as u32, run.end as u32);
            }
        }
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        for run in self.runs.iter().filter(|r| r.rank == rank) {
            let keys = self.keys.get(run.start..run.end).unwrap_or_default();
            pairs.extend(keys.iter().zip(run.start as u32..).map(|(k, i)| (*k, i)));
        }
        radix_sort_by_key(&mut pairs, buffer, |(key, _)| *key);
        pairs.dedup_by_key(|(key, _)| *key);
        Members::Sorted(pairs)
    }

    /// The group's members (`rank`) on this side sorted by identity, a repeated identity kept
    /// once (its first occurrence).
    fn sorted_members(&self, rank: u32) -> Vec<u32> {
        let mut members: Vec<u32> = Vec::new();
        for run in self.runs.iter().filter(|r| r.rank == rank) {
            members.extend(run.start as u32..run.end as u32);
        }
        let objects = self.objects;
        members.sort_by(|&x, &y| cmp_identity(&objects[x as usize], &objects[y as usize]));
        members.dedup_by(|x, y| {
            cmp_identity(&objects[*x as usize], &objects[*y as usize]) == Ordering::Equal
        });
        members
    }
}

/// A keyed group's members on one side, in canonical key order.
enum Members {
    /// Objects `start..end`, already in order.
    Range(u32, u32),
    /// (canonical key, object index) pairs.
    Sorted(Vec<(u64, u32)>),
}

impl Members {
    /// The `i`-th member's (canonical key, object index).
    #[inline]
    fn get(&self, keys: &[u64], i: usize) -> Option<(u64, u32)> {
        match self {
            Members::Range(start, end) => {
                let index = *start as usize + i;
                (index < *end as usize)
                    .then(|| (keys.get(index).copied().unwrap_or(0), index as u32))
            }
            Members::Sorted(pairs) => pairs.get(i).copied(),
        }
    }
}

/// Sets each run's rank and returns the (recipe, stage, kind) groups of both sides, sorted and
/// without repeats, with whether each is keyed (every object of it on both sides has a scatter
/// key).
fn rank_runs(sides: [&mut Side<'_>; 2]) -> Vec<(Group, bool)> {
    let mut groups: Vec<Group> = Vec::new();
    for side in &sides {
        for run in &side.runs {
            groups.push(side.group_of(run));
        }
    }
    groups.sort();
    groups.dedup();
    let mut keyed = vec![true; groups.len()];
    for side in sides {
        for i in 0..side.runs.len() {
            let run = side.runs[i];
            let o = &side.objects[run.start];
            let rank = groups
                .binary_search_by(|(r, s, k)| (&**r, *s, *k).cmp(&(&*o.recipe, o.stage, o.kind)))
                .map_or(0, |r| r as u32);
            side.runs[i].rank = rank;
            if let Some(k) = keyed.get_mut(rank as usize) {
                *k &= run.keyed;
            }
        }
    }
    groups.into_iter().zip(keyed).collect()
}

/// The diff of object sets `a` and `b` (any order; a repeated identity on one side is kept
/// once). The diff keeps both sets; its entries refer to their objects, sorted by identity.
pub fn diff_objects(a: Vec<DiffObject>, b: Vec<DiffObject>) -> BundleDiff {
    let (mut side_a, mut side_b) = (Side::new(&a), Side::new(&b));
    let groups = rank_runs([&mut side_a, &mut side_b]);
    let mut merge = Merge {
        rows: Vec::new(),
        counts: DiffCounts::default(),
        segment: Vec::new(),
        segment_buffer: Vec::new(),
        pair_buffer: Vec::new(),
    };
    for (rank, (_, keyed)) in groups.iter().enumerate() {
        let rank = rank as u32;
        if *keyed {
            let ma = side_a.keyed_members(rank, &mut merge.pair_buffer);
            let mb = side_b.keyed_members(rank, &mut merge.pair_buffer);
            merge.keyed([(&side_a, &ma), (&side_b, &mb)]);
        } else {
            let (ma, mb) = (side_a.sorted_members(rank), side_b.sorted_members(rank));
            merge.by_identity((&a, &ma), (&b, &mb));
        }
    }
    let (rows, counts) = (merge.rows, merge.counts);
    drop((side_a, side_b));
    BundleDiff { a, b, rows, counts }
}

/// The rows and counts so far, and the buffers the groups reuse.
struct Merge {
    rows: Vec<Row>,
    counts: DiffCounts,
    /// A keyed group's rows with their packed ids, before they are put in identity order.
    segment: Vec<(u64, Row)>,
    segment_buffer: Vec<(u64, Row)>,
    pair_buffer: Vec<(u64, u32)>,
}

impl Merge {
    /// Counts a pair of one identity; returns its row when the two differ.
    #[inline]
    fn pair(&mut self, x: &DiffObject, y: &DiffObject, ia: u32, ib: u32) -> Option<Row> {
        match compare(x, y) {
            None => {
                self.counts.unchanged += 1;
                None
            }
            Some(change) => {
                match change {
                    Change::Moved { .. } => self.counts.moved += 1,
                    _ => self.counts.changed += 1,
                }
                Some(Row {
                    change,
                    a: ia,
                    b: ib,
                })
            }
        }
    }

    /// Merges one keyed group: both sides walked in canonical key order, the differing rows
    /// then put in packed-id order.
    fn keyed(&mut self, [(a, ma), (b, mb)]: [(&Side<'_>, &Members); 2]) {
        self.segment.clear();
        let (mut i, mut j) = (0, 0);
        loop {
            let (x, y) = (ma.get(&a.keys, i), mb.get(&b.keys, j));
            let order = match (x, y) {
                (Some((kx, _)), Some((ky, _))) => kx.cmp(&ky),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            match (order, x, y) {
                (Ordering::Less, Some((key, ia)), _) => {
                    self.counts.removed += 1;
                    let row = Row {
                        change: Change::Removed,
                        a: ia,
                        b: NO_SIDE,
                    };
                    self.segment.push((packed_bits(key), row));
                    i += 1;
                }
                (Ordering::Greater, _, Some((key, ib))) => {
                    self.counts.added += 1;
                    let row = Row {
                        change: Change::Added,
                        a: NO_SIDE,
                        b: ib,
                    };
                    self.segment.push((packed_bits(key), row));
                    j += 1;
                }
                (Ordering::Equal, Some((key, ia)), Some((_, ib))) => {
                    let (ox, oy) = (&a.objects[ia as usize], &b.objects[ib as usize]);
                    if let Some(row) = self.pair(ox, oy, ia, ib) {
                        self.segment.push((packed_bits(key), row));
                    }
                    i += 1;
                    j += 1;
                }
                _ => break,
            }
        }
        radix_sort_by_key(&mut self.segment, &mut self.segment_buffer, |(bits, _)| {
            *bits
        });
        self.rows.extend(self.segment.iter().map(|(_, row)| *row));
    }

    /// Merges one group by the full identity comparison (members sorted by identity).
    fn by_identity(&mut self, (a, ma): (&[DiffObject], &[u32]), (b, mb): (&[DiffObject], &[u32])) {
        let (mut i, mut j) = (0, 0);
        loop {
            let (x, y) = (ma.get(i).copied(), mb.get(j).copied());
            let order = match (x, y) {
                (Some(x), Some(y)) => cmp_identity(&a[x as usize], &b[y as usize]),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            match (order, x, y) {
                (Ordering::Less, Some(ia), _) => {
                    self.counts.removed += 1;
                    self.rows.push(Row {
                        change: Change::Removed,
                        a: ia,
                        b: NO_SIDE,
                    });
                    i += 1;
                }
                (Ordering::Greater, _, Some(ib)) => {
                    self.counts.added += 1;
                    self.rows.push(Row {
                        change: Change::Added,
                        a: NO_SIDE,
                        b: ib,
                    });
                    j += 1;
                }
                (Ordering::Equal, Some(ia), Some(ib)) => {
                    if let Some(row) = self.pair(&a[ia as usize], &b[ib as usize], ia, ib) {
                        self.rows.push(row);
                    }
                    i += 1;
                    j += 1;
                }
                _ => break,
            }
        }
    }
}

/// A scatter identity's place in its product's canonical order (room, layer, cell Y, cell X,
/// candidate; cells with the sign bit flipped, so they order as signed numbers). One-to-one
/// with the packed id ([`packed_bits`] is the inverse).
pub(super) fn canonical_key(id: ScatterId) -> u64 {
    let bits = id.bits();
    let flip = |v: u64| (v & 0xffff) ^ 0x8000;
    (bits & 0xffff_ff00_0000_0000) // room, layer
        | (flip(bits) << 24) // cell Y
        | (flip(bits >> 16) << 8) // cell X
        | ((bits >> 32) & 0xff) // candidate
}

/// The packed id of canonical key `key` (the inverse of [`canonical_key`]).
pub(super) fn packed_bits(key: u64) -> u64 {
    let flip = |v: u64| (v & 0xffff) ^ 0x8000;
    (key & 0xffff_ff00_0000_0000) | ((key & 0xff) << 32) | (flip(key >> 8) << 16) | flip(key >> 24)
}

/// Sorts `items` by `key`, keeping the input order among equal keys: a least-significant-digit
/// radix sort over 16-bit digits that skips every digit the items are already in order by (a
/// digit all keys share, or the cell row of objects listed in canonical order), so putting
/// 100,000 scatter rows from canonical into packed-id order is one pass. `buffer` is scratch.
pub(super) fn radix_sort_by_key<T: Copy>(
    items: &mut Vec<T>,
    buffer: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
) {
    let n = items.len();
    if n < 1024 {
        items.sort_by_key(|t| key(t));
        return;
    }
    let mut counts = vec![0u32; 1 << 16];
    for digit in 0..4 {
        let shift = 16 * digit;
        let digit_of = |t: &T| ((key(t) >> shift) & 0xffff) as usize;
        if items.windows(2).all(|w| digit_of(&w[0]) <= digit_of(&w[1])) {
            continue;
        }
        counts.fill(0);
        for t in items.iter() {
            counts[digit_of(t)] += 1;
        }
        let mut total = 0u32;
        for c in counts.iter_mut() {
            let here = *c;
            *c = total;
            total += here;
        }
        if buffer.len() != n {
            // Every slot is written by the pass below (the counts place each item once).
            buffer.clear();
            buffer.resize(n, items[0]);
        }
        for t in items.iter() {
            let slot = &mut counts[digit_of(t)];
            if let Some(out) = buffer.get_mut(*slot as usize) {
                *out = *t;
            }
            *slot += 1;
        }
        std::mem::swap(items, buffer);
    }
}

fn cmp_identity(a: &DiffObject, b: &DiffObject) -> Ordering {
    a.identity().cmp(&b.identity())
}

/// Whether two objects belong to one (recipe, stage, kind) group.
fn same_group(a: &DiffObject, b: &DiffObject) -> bool {
    a.stage == b.stage
        && a.kind == b.kind
        && (Arc::ptr_eq(&a.recipe, &b.recipe) || *a.recipe == *b.recipe)
}
