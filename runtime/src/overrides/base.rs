//! The generated base of one scatter candidate, re-drawn from its address alone, and the base
//! revision (fingerprint) an override expects of its target.
//!
//! A candidate's position, priority and variant are addressed draws (`CONTRACTS.md`, P0 scatter),
//! so they are known for any packed identity without running the kernel: this is how an override
//! is checked against a regenerated base, and how a candidate that was thinned gets its rank back
//! when the candidate that outranked it is moved away.

use std::num::NonZeroU32;

use crate::content::{FamilyData, ScatterLayer};
use crate::identity::ScatterId;
use crate::ops::scatter::address::{OFFSET_X, OFFSET_Y, PRIORITY, VARIANT};
use crate::rng::{sample_bounded, sample_u32, DomainKey};

/// What a stage's family and cells say about any of its candidates: enough to re-draw one.
#[derive(Debug, Clone, PartialEq)]
pub struct StageBase {
    /// The scatter stage.
    pub stage: u32,
    /// The root seed of the generation.
    pub seed: u64,
    /// Cell edge, lattice units.
    pub cell_size: i64,
    /// Candidates per cell.
    pub candidates_per_cell: u32,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// The family's variant ids, in order.
    pub variant_ids: Vec<String>,
    /// Cumulative variant weights; the last is the total.
    pub cumulative_weights: Vec<u32>,
    /// Exclusion radius per variant, lattice units.
    pub radii: Vec<i64>,
    /// The placement and variant domain keys of the seed, derived once.
    keys: (DomainKey, DomainKey),
}

/// A candidate as the generated base draws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateBase {
    /// Lattice position.
    pub x: i64,
    /// Lattice position.
    pub y: i64,
    /// Thinning priority.
    pub priority: u32,
    /// Variant index.
    pub variant: u32,
}

impl StageBase {
    /// The base of a scatter stage from its family, seed and lattice.
    pub fn new(
        stage: u32,
        seed: u64,
        family: &FamilyData,
        cell_size: i64,
        candidates_per_cell: u32,
        lattice_unit_m: f64,
    ) -> StageBase {
        let mut total = 0u32;
        let cumulative_weights = family
            .variants
            .iter()
            .map(|v| {
                total = total.saturating_add(v.weight);
                total
            })
            .collect();
        StageBase {
            stage,
            seed,
            cell_size,
            candidates_per_cell,
            lattice_unit_m,
            variant_ids: family.variant_ids(),
            cumulative_weights,
            radii: family.variants.iter().map(|v| v.exclusion_radius).collect(),
            keys: (
                DomainKey::new(seed, OFFSET_X.domain),
                DomainKey::new(seed, VARIANT.domain),
            ),
        }
    }

    /// The same stage drawn with another root seed (the base an edit bound to `seed` was
    /// authored against, while the stage's parameters are unchanged).
    pub fn with_seed(&self, seed: u64) -> StageBase {
        StageBase {
            seed,
            keys: (
                DomainKey::new(seed, OFFSET_X.domain),
                DomainKey::new(seed, VARIANT.domain),
            ),
            ..self.clone()
        }
    }

    /// The total variant weight, if nonzero.
    pub fn total_weight(&self) -> Option<NonZeroU32> {
        NonZeroU32::new(self.cumulative_weights.last().copied().unwrap_or(0))
    }

    /// The variant a weighted draw `v < total` selects.
    pub fn variant_of(&self, v: u32) -> u32 {
        self.cumulative_weights.partition_point(|&c| c <= v) as u32
    }

    /// The index of variant `id`.
    pub fn variant_index(&self, id: &str) -> Option<u32> {
        self.variant_ids
            .iter()
            .position(|v| v == id)
            .map(|i| i as u32)
    }

    /// The exclusion radius of variant `variant` (0 for an unknown index).
    pub fn radius(&self, variant: u32) -> i64 {
        self.radii.get(variant as usize).copied().unwrap_or(0)
    }

    /// Meters to lattice units, rounded to nearest; `None` when not representable.
    pub fn to_lattice(&self, value_m: f64) -> Option<i64> {
        crate::ops::registry::meters_to_lattice(value_m, self.lattice_unit_m)
    }

    /// The base draws of candidate `id` (its cell and index as packed). `None` when a bounded draw
    /// is exhausted or the family has no weight (the kernel would have failed).
    pub fn candidate(&self, id: ScatterId) -> Option<CandidateBase> {
        let key = id.unpack();
        let placement = &self.keys.0;
        let cell = NonZeroU32::new(u32::try_from(self.cell_size).ok()?)?;
        let dx = sample_bounded(placement, OFFSET_X.address(id), cell).ok()?;
        let dy = sample_bounded(placement, OFFSET_Y.address(id), cell).ok()?;
        Some(CandidateBase {
            x: i64::from(key.cell_x) * self.cell_size + i64::from(dx),
            y: i64::from(key.cell_y) * self.cell_size + i64::from(dy),
            priority: sample_u32(placement, PRIORITY.address(id)),
            variant: self.drawn_variant(id)?,
        })
    }

    /// The variant candidate `id` draws (one draw, for its radius).
    pub fn drawn_variant(&self, id: ScatterId) -> Option<u32> {
        let total = self.total_weight()?;
        let v = sample_bounded(&self.keys.1, VARIANT.address(id), total).ok()?;
        Some(self.variant_of(v))
    }

    /// The thinning priority candidate `id` draws.
    pub fn drawn_priority(&self, id: ScatterId) -> u32 {
        sample_u32(&self.keys.0, PRIORITY.address(id))
    }

    /// Whether `id` is a generated candidate of `layer`: its room and layer, a cell of the region
    /// and an index below the candidates per cell.
    pub fn is_candidate_of(&self, layer: &ScatterLayer, id: ScatterId) -> bool {
        let key = id.unpack();
        let cs = self.cell_size.max(1);
        let r = &layer.region;
        let cells_x = r.min_x.div_euclid(cs)..=(r.max_x - 1).div_euclid(cs);
        let cells_y = r.min_y.div_euclid(cs)..=(r.max_y - 1).div_euclid(cs);
        key.room.get() == layer.room
            && key.layer == layer.layer
            && u32::from(key.candidate) < self.candidates_per_cell
            && cells_x.contains(&i64::from(key.cell_x))
            && cells_y.contains(&i64::from(key.cell_y))
    }

    /// The base revision of candidate `id`: 16 lowercase hex digits of BLAKE3 over `"OBJBASE1"`,
    /// the seed, the id and its drawn position and variant. It changes when the seed, the cell size
    /// or the family's weights change what the candidate is; `None` as [`StageBase::candidate`].
    pub fn revision(&self, id: ScatterId) -> Option<String> {
        let c = self.candidate(id)?;
        Some(revision_of(self.seed, id, &c))
    }
}

/// The base revision of a candidate with base `c` (see [`StageBase::revision`]): the
/// `OBJBASE1` encoding is fixed-width, so it is hashed from the stack and only the 8 bytes the
/// revision shows are turned into hex.
pub fn revision_of(seed: u64, id: ScatterId, c: &CandidateBase) -> String {
    let mut bytes = [0u8; 44];
    bytes[..8].copy_from_slice(b"OBJBASE1");
    bytes[8..16].copy_from_slice(&seed.to_le_bytes());
    bytes[16..24].copy_from_slice(&id.bits().to_le_bytes());
    bytes[24..32].copy_from_slice(&c.x.to_le_bytes());
    bytes[32..40].copy_from_slice(&c.y.to_le_bytes());
    bytes[40..44].copy_from_slice(&c.variant.to_le_bytes());
    crate::content::encode::hex(&blake3::hash(&bytes).as_bytes()[..8])
}
