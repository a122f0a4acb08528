//! Tests of the P0 scatter kernel: a naive reference, splits, isolation, parallelism, golden digest.

use super::*;
use crate::content::{Placement, RejectReason, RejectedCandidate};
use crate::identity::{PackError, ScatterId, ScatterKey};
use crate::rng::philox;
use crate::rng::SamplerExhausted;
use crate::rng::{Address, Domain};
use proptest::prelude::*;

/// The fixture layer: 100-unit cells straddling the origin, one keep-out, three variants.
fn fixture() -> ScatterParams {
    ScatterParams {
        cell_size: 100,
        candidates_per_cell: 3,
        region: Rect::new(-450, -380, 730, 520),
        keep_outs: vec![
            Rect::new(-100, -100, 150, 60),
            Rect::new(400, 300, 420, 900),
        ],
        variants: vec![
            ScatterVariant {
                weight: 3,
                exclusion_radius: 40,
            },
            ScatterVariant {
                weight: 1,
                exclusion_radius: 90,
            },
            ScatterVariant {
                weight: 2,
                exclusion_radius: 10,
            },
        ],
        room: 7,
        layer: 3,
    }
}

const SEED: u64 = 0x5eed_0000_0000_0042;

fn run(params: &ScatterParams, cells: CellRange) -> ScatterOutput {
    scatter(params, SEED, cells).unwrap_or_else(|e| panic!("scatter failed: {e}"))
}

fn whole(params: &ScatterParams) -> CellRange {
    region_cells(params).unwrap_or_else(|e| panic!("invalid fixture: {e}"))
}

// ---------------------------------------------------------------------------------------------
// A deliberately naive reading of the convention: its own key derivation, bounded sampling, floor
// division and packing, and a brute-force conflict search over every candidate of the region.
// ---------------------------------------------------------------------------------------------

fn naive_key(seed: u64, domain: u32) -> [u32; 2] {
    let block = philox([domain, 0, 0, 0], [seed as u32, (seed >> 32) as u32]);
    [block[0], block[1]]
}

fn naive_word(key: [u32; 2], scope: u64, dimension: u32, attempt: u32) -> u32 {
    philox(
        [
            scope as u32,
            (scope >> 32) as u32,
            0,
            (attempt << 16) | dimension,
        ],
        key,
    )[0]
}

fn naive_bounded(key: [u32; 2], scope: u64, dimension: u32, n: u64) -> u32 {
    for attempt in 0..65_536 {
        let x = u64::from(naive_word(key, scope, dimension, attempt));
        if x < (1 << 32) - (1 << 32) % n {
            return (x % n) as u32;
        }
    }
    panic!("naive sampler exhausted");
}

fn naive_floor_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if a % b != 0 && (a < 0) != (b < 0) {
        q - 1
    } else {
        q
    }
}

fn naive_pack(room: u32, layer: u32, k: u32, cx: i64, cy: i64) -> u64 {
    (u64::from(room) << 48)
        | (u64::from(layer) << 40)
        | (u64::from(k) << 32)
        | (((cx as i16) as u16 as u64) << 16)
        | ((cy as i16) as u16 as u64)
}

struct NaiveCandidate {
    cx: i64,
    cy: i64,
    id: u64,
    x: i64,
    y: i64,
    priority: u32,
    pre_reason: Option<RejectReason>,
    variant: u32,
    radius: i64,
}

fn naive_scatter(p: &ScatterParams, seed: u64, cells: CellRange) -> ScatterOutput {
    naive_scatter_with(p, seed, cells, None)
}

/// The naive reference, with every priority equal to `flat_priority` when given.
fn naive_scatter_with(
    p: &ScatterParams,
    seed: u64,
    cells: CellRange,
    flat_priority: Option<u32>,
) -> ScatterOutput {
    let placement_key = naive_key(seed, 1);
    let variant_key = naive_key(seed, 2);
    let cs = p.cell_size;
    let total: u64 = p.variants.iter().map(|v| u64::from(v.weight)).sum();
    let mut all = Vec::new();
    for cy in naive_floor_div(p.region.min_y, cs)..=naive_floor_div(p.region.max_y - 1, cs) {
        for cx in naive_floor_div(p.region.min_x, cs)..=naive_floor_div(p.region.max_x - 1, cs) {
            for k in 0..p.candidates_per_cell {
                let id = naive_pack(p.room, p.layer, k, cx, cy);
                let x = cx * cs + i64::from(naive_bounded(placement_key, id, 0, cs as u64));
                let y = cy * cs + i64::from(naive_bounded(placement_key, id, 1, cs as u64));
                let priority = flat_priority.unwrap_or_else(|| naive_word(placement_key, id, 2, 0));
                let inside = p.region.min_x <= x
                    && x < p.region.max_x
                    && p.region.min_y <= y
                    && y < p.region.max_y;
                let keep_out = p
                    .keep_outs
                    .iter()
                    .position(|r| r.min_x <= x && x < r.max_x && r.min_y <= y && y < r.max_y);
                let pre_reason = if !inside {
                    Some(RejectReason::OutsideRegion)
                } else {
                    keep_out.map(|i| RejectReason::InKeepOut { keep_out: i as u32 })
                };
                let (mut variant, mut radius) = (0, 0);
                if pre_reason.is_none() {
                    let mut v = u64::from(naive_bounded(variant_key, id, 0, total));
                    for (i, candidate) in p.variants.iter().enumerate() {
                        if v < u64::from(candidate.weight) {
                            variant = i as u32;
                            radius = candidate.exclusion_radius;
                            break;
                        }
                        v -= u64::from(candidate.weight);
                    }
                }
                all.push(NaiveCandidate {
                    cx,
                    cy,
                    id,
                    x,
                    y,
                    priority,
                    pre_reason,
                    variant,
                    radius,
                });
            }
        }
    }
    let in_range = |c: &NaiveCandidate| {
        i64::from(cells.min_x) <= c.cx
            && c.cx < i64::from(cells.end_x)
            && i64::from(cells.min_y) <= c.cy
            && c.cy < i64::from(cells.end_y)
    };
    let mut output = ScatterOutput::default();
    for c in all.iter().filter(|c| in_range(c)) {
        let id = ScatterId::from_bits(c.id).unwrap_or_else(|e| panic!("{e}"));
        let mut reason = c.pre_reason;
        if reason.is_none() {
            let mut winner: Option<&NaiveCandidate> = None;
            for o in all
                .iter()
                .filter(|o| o.pre_reason.is_none() && o.id != c.id)
            {
                let dx = i128::from(c.x - o.x);
                let dy = i128::from(c.y - o.y);
                let reach = i128::from(c.radius + o.radius);
                let conflicts = dx * dx + dy * dy < reach * reach;
                let higher = o.priority > c.priority || (o.priority == c.priority && o.id > c.id);
                let beats_winner = winner.is_none_or(|w| {
                    o.priority > w.priority || (o.priority == w.priority && o.id > w.id)
                });
                if conflicts && higher && beats_winner {
                    winner = Some(o);
                }
            }
            reason = winner.map(|w| RejectReason::Conflict {
                with: ScatterId::from_bits(w.id).unwrap_or_else(|e| panic!("{e}")),
            });
        }
        match reason {
            None => output.placements.push(Placement {
                id,
                x: c.x,
                y: c.y,
                variant: c.variant,
                priority: c.priority,
            }),
            Some(reason) => output
                .rejected
                .push(RejectedCandidate::new(id, c.x, c.y, reason)),
        }
    }
    // `all` was built in (cy, cx, k) order already; sort anyway so the reference states its order.
    output
        .placements
        .sort_by_key(|p| (p.cell_y(), p.cell_x(), p.candidate()));
    output
        .rejected
        .sort_by_key(|r| (r.cell_y(), r.cell_x(), r.candidate()));
    output
}

#[test]
fn agrees_with_the_naive_reference_on_the_fixture() {
    let params = fixture();
    let full = run(&params, whole(&params));
    assert_eq!(full, naive_scatter(&params, SEED, whole(&params)));
    // The fixture exercises every outcome.
    assert!(!full.placements.is_empty());
    let reasons = |pred: fn(&RejectReason) -> bool| {
        full.rejected.iter().filter(|r| pred(&r.reason())).count()
    };
    assert!(reasons(|r| matches!(r, RejectReason::OutsideRegion)) > 0);
    assert!(reasons(|r| matches!(r, RejectReason::InKeepOut { .. })) > 0);
    assert!(reasons(|r| matches!(r, RejectReason::Conflict { .. })) > 0);
    // Sub-ranges, including ones reaching outside the region, agree too.
    for range in [
        CellRange::new(-2, -2, 1, 1),
        CellRange::new(-100, 2, 100, 3),
        CellRange::new(5, -4, 9, 9),
    ] {
        assert_eq!(run(&params, range), naive_scatter(&params, SEED, range));
    }
}

#[test]
fn output_is_canonical_and_conflict_free() {
    let params = fixture();
    let full = run(&params, whole(&params));
    let keys: Vec<_> = full
        .placements
        .iter()
        .map(Placement::canonical_key)
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "placements in canonical order"
    );
    let keys: Vec<_> = full
        .rejected
        .iter()
        .map(RejectedCandidate::canonical_key)
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "rejections in canonical order"
    );
    let radius = |p: &Placement| params.variants[p.variant as usize].exclusion_radius;
    for (i, a) in full.placements.iter().enumerate() {
        assert_eq!(a.id.unpack().cell_x, a.cell_x());
        assert_eq!(a.id.unpack().cell_y, a.cell_y());
        assert_eq!(a.id.unpack().candidate, a.candidate());
        for b in &full.placements[i + 1..] {
            let (dx, dy) = (a.x - b.x, a.y - b.y);
            let reach = radius(a) + radius(b);
            assert!(
                dx * dx + dy * dy >= reach * reach,
                "{} and {} overlap",
                a.id,
                b.id
            );
        }
    }
    let total = full.placements.len() + full.rejected.len();
    let cells = whole(&params);
    let cell_count = (cells.end_x - cells.min_x) * (cells.end_y - cells.min_y);
    assert_eq!(
        total,
        cell_count as usize * 3,
        "every candidate is reported once"
    );
}

/// Splits `range` into pieces of at most `w × h` cells.
fn tiles(range: CellRange, w: i32, h: i32) -> Vec<CellRange> {
    let mut pieces = Vec::new();
    let mut y = range.min_y;
    while y < range.end_y {
        let mut x = range.min_x;
        while x < range.end_x {
            pieces.push(CellRange::new(
                x,
                y,
                (x + w).min(range.end_x),
                (y + h).min(range.end_y),
            ));
            x += w;
        }
        y += h;
    }
    pieces
}

#[test]
fn any_split_merged_equals_one_call() {
    let params = fixture();
    let range = whole(&params);
    let full = run(&params, range);
    for (w, h) in [(1, 1), (1, 100), (100, 1), (2, 3), (5, 4), (3, 7)] {
        let mut pieces = tiles(range, w, h);
        // Merge order must not matter: generate in reverse.
        pieces.reverse();
        let parts = pieces.into_iter().map(|piece| run(&params, piece));
        let merged = ScatterOutput::merge(parts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged, full, "tiles {w}×{h}");
    }
    // Pieces reaching far outside the region contribute only their region cells.
    let wide = CellRange::new(-300, -300, 300, 300);
    let halves = [
        CellRange::new(-300, -300, 0, 300),
        CellRange::new(0, -300, 300, 300),
    ];
    let merged = ScatterOutput::merge(halves.map(|piece| run(&params, piece)));
    assert_eq!(merged.as_ref().ok(), Some(&run(&params, wide)));
    assert_eq!(run(&params, wide), full);
}

#[test]
fn tiles_merged_in_parallel_equal_one_call_on_any_pool() {
    // Large enough (120 × 120 cells, 3 candidates each) for the banded parallel merge.
    let params = ScatterParams {
        region: Rect::new(0, 0, 12_000, 12_000),
        ..fixture()
    };
    let range = whole(&params);
    let full = run(&params, range);
    assert_eq!(full.placements.len() + full.rejected.len(), 43_200);
    let mut pieces = tiles(range, 30, 30);
    pieces.reverse();
    let parts: Vec<ScatterOutput> = pieces.into_iter().map(|p| run(&params, p)).collect();
    for threads in [1, 2, 5] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let merged = pool.install(|| ScatterOutput::merge_par(parts.clone()));
        assert_eq!(merged.as_ref().ok(), Some(&full), "{threads} threads");
    }
    // Overlapping parts: the same error as the serial merge's.
    let twice = [parts.clone(), parts[..1].to_vec()].concat();
    assert_eq!(
        ScatterOutput::merge_par(twice.clone()),
        ScatterOutput::merge(twice)
    );
}

#[test]
fn isolated_cells_match_their_part_of_the_whole() {
    let params = fixture();
    let range = whole(&params);
    let full = run(&params, range);
    assert!(
        range.min_x < 0 && range.min_y < 0,
        "the fixture covers negative cells"
    );
    for cy in range.min_y..range.end_y {
        for cx in range.min_x..range.end_x {
            let (cell_x, cell_y) = (cx as i16, cy as i16);
            let alone = run(&params, CellRange::single(cell_x, cell_y));
            let expected = ScatterOutput {
                placements: full
                    .placements
                    .iter()
                    .filter(|p| (p.cell_x(), p.cell_y()) == (cell_x, cell_y))
                    .copied()
                    .collect(),
                rejected: full
                    .rejected
                    .iter()
                    .filter(|r| (r.cell_x(), r.cell_y()) == (cell_x, cell_y))
                    .copied()
                    .collect(),
            };
            assert_eq!(alone, expected, "cell ({cx}, {cy})");
        }
    }
}

#[test]
fn empty_and_outside_ranges_give_nothing() {
    let params = fixture();
    assert_eq!(
        run(&params, CellRange::new(3, 3, 3, 9)),
        ScatterOutput::default()
    );
    assert_eq!(
        run(&params, CellRange::new(100, 100, 120, 120)),
        ScatterOutput::default()
    );
    assert_eq!(
        scatter(&params, SEED, CellRange::new(3, 3, 2, 9)),
        Err(ScatterError::InvertedRange)
    );
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("thread pool: {e}"))
}

#[test]
fn parallel_equals_serial_on_one_and_two_threads() {
    let params = fixture();
    let range = whole(&params);
    let serial = run(&params, range);
    for threads in [1, 2] {
        let parallel = pool(threads).install(|| scatter_par(&params, SEED, range));
        assert_eq!(parallel.as_ref().ok(), Some(&serial), "{threads} threads");
        let piece = CellRange::new(-1, -1, 2, 2);
        let parallel = pool(threads).install(|| scatter_par(&params, SEED, piece));
        assert_eq!(parallel.ok(), Some(run(&params, piece)));
    }
}

/// A layer tall enough for the parallel schedule to cut it into several bands of rows.
fn tall() -> ScatterParams {
    ScatterParams {
        region: Rect::new(-230, -3_050, 170, 2_960),
        keep_outs: vec![Rect::new(-50, -400, 60, 900)],
        ..fixture()
    }
}

#[test]
fn bands_of_rows_on_any_pool_equal_the_serial_reference() {
    let params = tall();
    let range = whole(&params);
    assert_eq!(range.end_y - range.min_y, 61, "61 rows");
    let serial = run(&params, range);
    assert_eq!(serial, naive_scatter(&params, SEED, range));
    for threads in [1, 2, 3, 4] {
        let parallel = pool(threads).install(|| scatter_par(&params, SEED, range));
        assert_eq!(parallel.as_ref().ok(), Some(&serial), "{threads} threads");
    }
    // A request that starts and ends mid-layer, so bands meet requested edges too.
    let piece = CellRange::new(-1, -20, 1, 19);
    let expected = run(&params, piece);
    assert_eq!(
        expected.placements.len() + expected.rejected.len(),
        2 * 39 * 3
    );
    for threads in [2, 4] {
        let parallel = pool(threads).install(|| scatter_par(&params, SEED, piece));
        assert_eq!(parallel.ok(), Some(expected.clone()), "{threads} threads");
    }
}

/// The pinned golden output of the fixture. Update deliberately, never to make a test pass: a
/// change here changes every generated world.
#[test]
fn golden_digest_is_pinned() {
    let params = fixture();
    let full = run(&params, whole(&params));
    let conflicts = full
        .rejected
        .iter()
        .filter(|r| matches!(r.reason(), RejectReason::Conflict { .. }))
        .count();
    assert_eq!(
        (full.placements.len(), full.rejected.len(), conflicts),
        (GOLDEN_COUNTS.0, GOLDEN_COUNTS.1, GOLDEN_COUNTS.2)
    );
    assert_eq!(full.digest_hex(), GOLDEN_DIGEST);
    let first = full
        .placements
        .first()
        .map(|p| (p.id.bits(), p.x, p.y, p.variant, p.priority));
    assert_eq!(first, Some(GOLDEN_FIRST));
}

/// Placements, rejections, and rejections by conflict.
const GOLDEN_COUNTS: (usize, usize, usize) = (79, 311, 224);
/// BLAKE3 of the canonical bytes of the fixture's whole-region output.
const GOLDEN_DIGEST: &str = "ad12693b2eb422626dcb0d195d697a6177d2e1c82c34b04b6de40867fb9b92b3";
/// The first placement: room 7, layer 3, candidate 0 of cell (-4, -4).
const GOLDEN_FIRST: (u64, i64, i64, u32, u32) =
    (0x0007_0300_FFFC_FFFC, -311, -314, 0, 1_781_818_436);

#[test]
fn a_different_seed_changes_the_output() {
    let params = fixture();
    let range = whole(&params);
    let other = scatter(&params, SEED + 1, range).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(other.digest(), run(&params, range).digest());
}

#[test]
fn invalid_parameters_are_reported_with_their_field() {
    type Mutation = fn(&mut ScatterParams);
    let cases: [(Mutation, ScatterError); 14] = [
        (|p| p.cell_size = 0, ScatterError::CellSize { cell_size: 0 }),
        (
            |p| p.cell_size = MAX_CELL_SIZE + 1,
            ScatterError::CellSize {
                cell_size: MAX_CELL_SIZE + 1,
            },
        ),
        (
            |p| p.candidates_per_cell = 0,
            ScatterError::CandidatesPerCell { candidates: 0 },
        ),
        (
            |p| p.candidates_per_cell = 129,
            ScatterError::CandidatesPerCell { candidates: 129 },
        ),
        (
            |p| p.region = Rect::new(5, 0, 5, 10),
            ScatterError::EmptyRegion,
        ),
        (
            |p| p.region = Rect::new(0, 0, 3_276_900, 10),
            ScatterError::RegionCells {
                min_x: 0,
                min_y: 0,
                max_x: 32_768,
                max_y: 0,
            },
        ),
        (
            |p| p.keep_outs.push(Rect::new(0, 10, 5, 9)),
            ScatterError::InvertedKeepOut { index: 2 },
        ),
        (|p| p.variants.clear(), ScatterError::NoVariants),
        (
            |p| p.variants[1].weight = 0,
            ScatterError::VariantWeight { index: 1 },
        ),
        (
            |p| {
                p.variants[0].weight = u32::MAX;
            },
            ScatterError::TotalWeight,
        ),
        (
            |p| p.variants[2].exclusion_radius = 101,
            ScatterError::ExclusionRadius {
                index: 2,
                radius: 101,
            },
        ),
        (
            |p| p.variants[0].exclusion_radius = -1,
            ScatterError::ExclusionRadius {
                index: 0,
                radius: -1,
            },
        ),
        (
            |p| p.room = 0,
            ScatterError::Identity(PackError::Room { room: 0 }),
        ),
        (
            |p| p.layer = 256,
            ScatterError::Identity(PackError::Layer { layer: 256 }),
        ),
    ];
    for (mutate, expected) in cases {
        let mut params = fixture();
        mutate(&mut params);
        assert_eq!(validate(&params), Err(expected));
        assert_eq!(
            scatter(&params, SEED, CellRange::new(0, 0, 1, 1)),
            Err(expected)
        );
    }
    let mut params = fixture();
    params.region = Rect::new(-32_768 * 100, -32_768 * 100, 32_768 * 100, 32_768 * 100);
    assert!(validate(&params).is_ok());
    assert!(matches!(
        scatter(
            &params,
            SEED,
            CellRange::new(i32::MIN, i32::MIN, i32::MAX, i32::MAX)
        ),
        Err(ScatterError::Capacity { .. })
    ));
}

/// A block source whose first word is always `u32::MAX`, rejected below any bound that does not
/// divide 2^32 (the fixture's cell size is 100).
struct AlwaysMax;

impl BlockSource for AlwaysMax {
    fn block(&self, _address: Address, _attempt: u16) -> [u32; 4] {
        [u32::MAX; 4]
    }
}

#[test]
fn sampler_exhaustion_is_reported_serially_and_in_parallel() {
    let params = fixture();
    let variant = DomainKey::new(SEED, Domain::Variant);
    let range = CellRange::new(0, 0, 1, 1);
    // The first candidate drawn is the first of the evaluated margin: cell (-2, -2), k = 0.
    let scope = ScatterKey::try_new(7, 3, 0, -2, -2)
        .map(ScatterKey::pack)
        .map(ScatterId::bits);
    let expected = scope.map(|scope| {
        ScatterError::Sampler(SamplerExhausted {
            address: Address::new(scope, 0, 0),
            bound: 100,
        })
    });
    for schedule in [Schedule::Serial, Schedule::Parallel] {
        let result =
            pool(2).install(|| scatter_with(&params, &AlwaysMax, &variant, range, schedule));
        assert!(expected.is_ok());
        assert_eq!(result.err(), expected.ok());
    }
}

/// How many candidates of `output` lost a conflict.
fn conflicts(output: &ScatterOutput) -> usize {
    output
        .rejected
        .iter()
        .filter(|r| matches!(r.reason(), RejectReason::Conflict { .. }))
        .count()
}

/// Placement draws with every priority equal, so that only packed ids order the candidates.
struct FlatPriority(DomainKey);

/// The priority [`FlatPriority`] gives every candidate.
const FLAT_PRIORITY: u32 = 0x8000_0001;

impl BlockSource for FlatPriority {
    fn block(&self, address: Address, attempt: u16) -> [u32; 4] {
        if address.dimension == 2 {
            [FLAT_PRIORITY; 4]
        } else {
            self.0.block(address, attempt)
        }
    }
}

#[test]
fn equal_priorities_are_ordered_by_packed_id_across_the_origin() {
    // The fixture straddles cell 0 on both axes, where packed ids wrap (cell −1 packs as 0xFFFF).
    let params = fixture();
    let placement = FlatPriority(DomainKey::new(SEED, Domain::Placement));
    let variant = DomainKey::new(SEED, Domain::Variant);
    for range in [whole(&params), CellRange::new(-3, -2, 2, 4)] {
        let expected = naive_scatter_with(&params, SEED, range, Some(FLAT_PRIORITY));
        let conflicts = conflicts(&expected);
        assert!(conflicts > 20, "only {conflicts} conflicts");
        for schedule in [Schedule::Serial, Schedule::Parallel] {
            let output = pool(2)
                .install(|| scatter_with(&params, &placement, &variant, range, schedule))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(output, expected);
        }
    }
}

#[test]
fn the_largest_cells_radii_candidate_and_variant_counts_agree_with_the_reference() {
    let cs = MAX_CELL_SIZE;
    let variant = |weight, exclusion_radius| ScatterVariant {
        weight,
        exclusion_radius,
    };
    // Differences reach 4 · 2^29 = 2^31 lattice units across the compared cells.
    let largest_cells = ScatterParams {
        cell_size: cs,
        candidates_per_cell: 4,
        region: Rect::new(-5 * cs + 7, -4 * cs, 4 * cs - 3, 5 * cs),
        keep_outs: vec![Rect::new(-cs, -cs, cs / 3, cs / 2)],
        variants: vec![variant(1, cs), variant(2, cs / 2), variant(1, 0)],
        room: 65_535,
        layer: 255,
    };
    // Every candidate index of a cell, across the origin.
    let most_candidates = ScatterParams {
        cell_size: 40,
        candidates_per_cell: MAX_CANDIDATES_PER_CELL,
        region: Rect::new(-70, -30, 50, 45),
        keep_outs: vec![],
        variants: vec![variant(1, 3), variant(1, 7)],
        room: 1,
        layer: 0,
    };
    // More variants than the branch-free variant count handles: the binary search.
    let many_variants = ScatterParams {
        cell_size: 50,
        candidates_per_cell: 3,
        region: Rect::new(-260, -190, 240, 310),
        keep_outs: vec![],
        variants: (0..40).map(|i| variant(1 + i % 3, i64::from(i))).collect(),
        room: 2,
        layer: 9,
    };
    for params in [largest_cells, most_candidates, many_variants] {
        let full = run(&params, whole(&params));
        let conflicts = conflicts(&full);
        assert!(conflicts > 10, "only {conflicts} conflicts");
        assert_eq!(full, naive_scatter(&params, SEED, whole(&params)));
    }
}

fn arbitrary_params() -> impl Strategy<Value = (ScatterParams, u64)> {
    (1i64..=60, 1u32..=4, any::<u64>()).prop_flat_map(|(cs, k, seed)| {
        let span = 12 * cs;
        let rect = (-span..span, -span..span, 1..=span, 1..=span)
            .prop_map(|(x, y, w, h)| Rect::new(x, y, x + w, y + h));
        let variant = (1u32..=4, 0..=cs).prop_map(|(weight, exclusion_radius)| ScatterVariant {
            weight,
            exclusion_radius,
        });
        (
            rect.clone(),
            prop::collection::vec(rect, 0..3),
            prop::collection::vec(variant, 1..4),
            1u32..=65_535,
            0u32..=255,
        )
            .prop_map(move |(region, keep_outs, variants, room, layer)| {
                (
                    ScatterParams {
                        cell_size: cs,
                        candidates_per_cell: k,
                        region,
                        keep_outs,
                        variants,
                        room,
                        layer,
                    },
                    seed,
                )
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_layers_agree_with_the_reference_under_any_split(
        (params, seed) in arbitrary_params(),
        split_x in 0i32..40,
        split_y in 0i32..40,
    ) {
        let range = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
        let full = scatter(&params, seed, range).unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(&full, &naive_scatter(&params, seed, range));
        let sx = range.min_x + split_x % (range.end_x - range.min_x);
        let sy = range.min_y + split_y % (range.end_y - range.min_y);
        let quarters = [
            CellRange::new(range.min_x, range.min_y, sx, sy),
            CellRange::new(sx, range.min_y, range.end_x, sy),
            CellRange::new(range.min_x, sy, sx, range.end_y),
            CellRange::new(sx, sy, range.end_x, range.end_y),
        ];
        let parts = quarters.map(|q| scatter(&params, seed, q).unwrap_or_else(|e| panic!("{e}")));
        prop_assert_eq!(ScatterOutput::merge(parts).ok(), Some(full));
    }
}

#[test]
fn an_allocation_the_allocator_refuses_is_an_out_of_memory_error_not_an_abort() {
    let mut records: Vec<Placement> = Vec::new();
    assert_eq!(
        reserve(&mut records, usize::MAX / 2),
        Err(ScatterError::OutOfMemory {
            items: usize::MAX / 2
        })
    );
    assert!(reserve(&mut records, 16).is_ok());
    assert!(records.capacity() >= 16);
}

#[test]
fn outputs_keep_spare_room_for_overrides_and_the_same_records() {
    let params = tall();
    let range = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
    let serial = scatter(&params, 5, range).unwrap_or_else(|e| panic!("{e}"));
    let parallel = scatter_par(&params, 5, range).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(serial, parallel);
    assert!(serial.placements.len() > 100 && serial.rejected.len() > 100);
    for output in [&serial, &parallel] {
        // Merging up to SPARE_RECORDS records in (what a few overrides add) never reallocates.
        assert!(output.placements.capacity() >= output.placements.len() + SPARE_RECORDS);
        assert!(output.rejected.capacity() >= output.rejected.len() + SPARE_RECORDS);
    }
    // The spare room is used in place: the list does not move.
    let mut grown = parallel;
    let before = grown.rejected.as_ptr();
    let extra = grown.rejected[..SPARE_RECORDS].to_vec();
    grown.rejected.extend_from_slice(&extra);
    assert_eq!(grown.rejected.as_ptr(), before);
}

#[test]
fn row_pieces_appended_to_one_output_equal_one_call_and_are_never_moved() {
    let params = tall();
    let range = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
    let whole = scatter(&params, 5, range).unwrap_or_else(|e| panic!("{e}"));
    for schedule in [Schedule::Serial, Schedule::Parallel] {
        let mut output = ScatterOutput::default();
        let cells = ((range.end_x - range.min_x) * (range.end_y - range.min_y)) as usize;
        let room = cells * params.candidates_per_cell as usize + SPARE_RECORDS;
        output.placements.reserve_exact(room);
        output.rejected.reserve_exact(room);
        let (placements_at, rejected_at) = (output.placements.as_ptr(), output.rejected.as_ptr());
        for first in (range.min_y..range.end_y).step_by(3) {
            let piece = CellRange::new(
                range.min_x,
                first,
                range.end_x,
                (first + 3).min(range.end_y),
            );
            let keys = Keys::new(5);
            pool(2)
                .install(|| {
                    scatter_with_into(
                        &params,
                        &keys.placement,
                        &keys.variant,
                        piece,
                        schedule,
                        &mut output,
                    )
                })
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(output, whole);
        // Reserved once for every candidate: no piece reallocated either list.
        assert_eq!(output.placements.as_ptr(), placements_at);
        assert_eq!(output.rejected.as_ptr(), rejected_at);
    }
}

#[test]
fn a_failed_append_leaves_the_output_as_it_was() {
    let params = fixture();
    let variant = DomainKey::new(SEED, Domain::Variant);
    let before =
        scatter(&params, SEED, CellRange::new(0, 0, 2, 1)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!before.placements.is_empty() || !before.rejected.is_empty());
    for schedule in [Schedule::Serial, Schedule::Parallel] {
        let mut output = before.clone();
        let result = pool(2).install(|| {
            scatter_with_into(
                &params,
                &AlwaysMax,
                &variant,
                CellRange::new(0, 1, 2, 2),
                schedule,
                &mut output,
            )
        });
        assert!(
            matches!(result, Err(ScatterError::Sampler(_))),
            "{result:?}"
        );
        assert_eq!(output, before);
    }
}
