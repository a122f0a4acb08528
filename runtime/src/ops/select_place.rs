//! Select-and-place: rotation and scale for accepted scatter placements, in the transform domain.
//!
//! Per the sampling convention, for each accepted placement (scope = its packed id, event 0):
//! rotation = high 16 bits of `sample_u32` at (transform, dim 0), in 1/65536 turns; scale =
//! `min + sample_bounded(max − min + 1)` at (transform, dim 1), in the recipe's integer scale unit.
//! Nothing in acceptance reads these draws, and they use their own domain, so changing the scale
//! range can neither move nor remove a placement.

use std::num::NonZeroU32;

use thiserror::Error;

use crate::content::{PlacedObject, Placement};
use crate::rng::{
    bounded_from_first, Address, BlockSource, Bound, Domain, DomainKey, SamplerExhausted,
};

/// Dimension of the rotation draw in the transform domain.
pub const ROTATION_DIMENSION: u16 = 0;
/// Dimension of the scale draw in the transform domain.
pub const SCALE_DIMENSION: u16 = 1;

/// Parameters of select-and-place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SelectPlaceParams {
    /// Smallest scale, in the recipe's scale unit (e.g. 850 for 0.85 at 1/1000).
    pub scale_min: u32,
    /// Largest scale (inclusive), in the same unit.
    pub scale_max: u32,
}

/// Select-and-place cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SelectPlaceError {
    /// `scale_min > scale_max`.
    #[error("scale range {min}..={max} is inverted")]
    InvertedScaleRange {
        /// The minimum given.
        min: u32,
        /// The maximum given.
        max: u32,
    },
    /// The range has 2^32 values, more than a bounded draw can address.
    #[error("scale range 0..={} is wider than 2^32 - 1 values", u32::MAX)]
    ScaleRangeTooWide,
    /// A bounded draw exhausted its attempts.
    #[error(transparent)]
    Sampler(#[from] SamplerExhausted),
}

/// Draws rotation and scale for every placement, keeping their order and fields unchanged.
pub fn select_and_place(
    placements: &[Placement],
    seed: u64,
    params: &SelectPlaceParams,
) -> Result<Vec<PlacedObject>, SelectPlaceError> {
    select_and_place_each(placements, placements.len(), seed, params)
}

/// [`select_and_place`] over placements read in order from `placements` (e.g. every layer of a
/// scatter product in turn), of which there are `count`: the result is allocated once at that size,
/// with no intermediate copy of the placements.
///
/// The draws are batched: the first words of a block of placements at dimensions 0 and 1 come
/// from [`BlockSource::first_words`] (the vectorised Philox), and a rejected scale word retries
/// alone, exactly as [`crate::rng::sample_bounded`] would.
pub fn select_and_place_each<'a>(
    placements: impl IntoIterator<Item = &'a Placement>,
    count: usize,
    seed: u64,
    params: &SelectPlaceParams,
) -> Result<Vec<PlacedObject>, SelectPlaceError> {
    let bound = Bound::new(scale_width(params)?);
    let key = DomainKey::new(seed, Domain::Transform);
    let mut objects = Vec::with_capacity(count);
    let mut draws = Draws::default();
    let mut block = Vec::with_capacity(BLOCK);
    let mut placements = placements.into_iter();
    loop {
        block.clear();
        block.extend(placements.by_ref().take(BLOCK).copied());
        if block.is_empty() {
            return Ok(objects);
        }
        draws.place(&block, &key, &bound, params.scale_min, &mut objects)?;
    }
}

/// [`select_and_place_each`] over `layers` (slices of placements read in turn), with blocks of
/// placements drawn on the current rayon pool straight into their places in the result: the
/// result is identical, as every draw is addressed by its placement alone.
pub fn select_and_place_par(
    layers: &[&[Placement]],
    seed: u64,
    params: &SelectPlaceParams,
) -> Result<Vec<PlacedObject>, SelectPlaceError> {
    use rayon::prelude::*;
    /// Placements per parallel piece: a few blocks, so a piece is worth a task.
    const PIECE: usize = 8 * BLOCK;
    let bound = Bound::new(scale_width(params)?);
    let key = DomainKey::new(seed, Domain::Transform);
    let count = layers.iter().map(|l| l.len()).sum();
    let Some(first) = layers.iter().find_map(|l| l.first()) else {
        return Ok(Vec::new());
    };
    // A placeholder in every slot, each overwritten below (the pieces cover the whole result),
    // written on the pool: the first touch of a large result's pages is work too.
    let placeholder = PlacedObject {
        placement: *first,
        rotation_turns_65536: 0,
        scale: 0,
    };
    let mut objects = Vec::with_capacity(count);
    objects.par_extend(rayon::iter::repeat_n(placeholder, count));
    let mut rest = objects.as_mut_slice();
    for layer in layers {
        let (here, after) = rest.split_at_mut(layer.len());
        rest = after;
        let failed = here
            .par_chunks_mut(PIECE)
            .zip(layer.par_chunks(PIECE))
            .try_for_each(|(out, piece)| {
                let mut draws = Draws::default();
                let mut placed = Vec::with_capacity(BLOCK);
                for (out, block) in out.chunks_mut(BLOCK).zip(piece.chunks(BLOCK)) {
                    placed.clear();
                    draws.place(block, &key, &bound, params.scale_min, &mut placed)?;
                    out.copy_from_slice(&placed);
                }
                Ok::<(), SelectPlaceError>(())
            });
        if failed.is_err() {
            // The serial run reports the first failing placement, whichever piece failed here.
            let all = layers.iter().flat_map(|layer| layer.iter());
            return select_and_place_each(all, count, seed, params);
        }
    }
    Ok(objects)
}

/// Placements drawn together.
const BLOCK: usize = 512;

/// Reused buffers of the draws of one block of placements.
#[derive(Default)]
struct Draws {
    scopes: Vec<u64>,
    rotation_words: Vec<u32>,
    scale_words: Vec<u32>,
}

impl Draws {
    /// Draws rotation and scale for every placement of `block`, appending to `objects`.
    fn place(
        &mut self,
        block: &[Placement],
        key: &DomainKey,
        bound: &Bound,
        scale_min: u32,
        objects: &mut Vec<PlacedObject>,
    ) -> Result<(), SelectPlaceError> {
        let n = block.len();
        self.scopes.clear();
        self.scopes.extend(block.iter().map(|p| p.id.bits()));
        self.rotation_words.resize(n, 0);
        self.scale_words.resize(n, 0);
        key.first_words(
            &self.scopes,
            0,
            ROTATION_DIMENSION,
            &mut self.rotation_words,
        );
        key.first_words(&self.scopes, 0, SCALE_DIMENSION, &mut self.scale_words);
        let words = self.rotation_words.iter().zip(&self.scale_words);
        for (placement, (&rotation, &scale_word)) in block.iter().zip(words) {
            let address = Address::new(placement.id.bits(), 0, SCALE_DIMENSION);
            let offset = bounded_from_first(key, address, bound, scale_word)?;
            objects.push(PlacedObject {
                placement: *placement,
                // `sample_u32 >> 16`: the high half of a u32 fits u16 exactly.
                rotation_turns_65536: (rotation >> 16) as u16,
                // `offset ≤ max − min`, so the sum cannot pass `max`.
                scale: scale_min + offset,
            });
        }
        Ok(())
    }
}

/// `max − min + 1` as a bound, checked.
fn scale_width(params: &SelectPlaceParams) -> Result<NonZeroU32, SelectPlaceError> {
    let (min, max) = (params.scale_min, params.scale_max);
    if min > max {
        return Err(SelectPlaceError::InvertedScaleRange { min, max });
    }
    (max - min)
        .checked_add(1)
        .and_then(NonZeroU32::new)
        .ok_or(SelectPlaceError::ScaleRangeTooWide)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::digest_placed;
    use crate::ops::scatter::{region_cells, scatter, Rect, ScatterParams, ScatterVariant};
    use crate::rng::philox;

    fn layer() -> ScatterParams {
        ScatterParams {
            cell_size: 400,
            candidates_per_cell: 2,
            region: Rect::new(-2_000, -1_200, 2_400, 1_600),
            keep_outs: vec![Rect::new(0, 0, 300, 300)],
            variants: vec![
                ScatterVariant {
                    weight: 1,
                    exclusion_radius: 150,
                },
                ScatterVariant {
                    weight: 2,
                    exclusion_radius: 300,
                },
            ],
            room: 12,
            layer: 1,
        }
    }

    const SEED: u64 = 99;

    fn pipeline(scale_min: u32, scale_max: u32) -> Vec<PlacedObject> {
        let params = layer();
        let range = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
        let scattered = scatter(&params, SEED, range).unwrap_or_else(|e| panic!("{e}"));
        select_and_place(
            &scattered.placements,
            SEED,
            &SelectPlaceParams {
                scale_min,
                scale_max,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn draws_follow_the_convention() {
        let placed = pipeline(850, 1_150);
        assert!(!placed.is_empty());
        let key = DomainKey::new(SEED, Domain::Transform).words();
        for object in &placed {
            let scope = object.placement.id.bits();
            let rotation = philox([scope as u32, (scope >> 32) as u32, 0, 0], key)[0] >> 16;
            assert_eq!(u32::from(object.rotation_turns_65536), rotation);
            assert!((850..=1_150).contains(&object.scale));
        }
        // A one-value range always yields that value.
        assert!(pipeline(1_000, 1_000).iter().all(|o| o.scale == 1_000));
    }

    #[test]
    fn changing_the_scale_range_never_moves_or_removes_a_placement() {
        let base = pipeline(850, 1_150);
        for (min, max) in [(1_000, 1_000), (1, 3), (0, u32::MAX - 1), (500, 2_000)] {
            let other = pipeline(min, max);
            assert_eq!(other.len(), base.len());
            for (a, b) in base.iter().zip(&other) {
                assert_eq!(a.placement, b.placement);
                assert_eq!(a.rotation_turns_65536, b.rotation_turns_65536);
                assert!((min..=max).contains(&b.scale));
            }
        }
    }

    #[test]
    fn invalid_ranges_are_errors() {
        let params = SelectPlaceParams {
            scale_min: 2,
            scale_max: 1,
        };
        assert_eq!(
            select_and_place(&[], SEED, &params),
            Err(SelectPlaceError::InvertedScaleRange { min: 2, max: 1 })
        );
        let params = SelectPlaceParams {
            scale_min: 0,
            scale_max: u32::MAX,
        };
        assert_eq!(
            select_and_place(&[], SEED, &params),
            Err(SelectPlaceError::ScaleRangeTooWide)
        );
    }

    #[test]
    fn placed_digest_is_stable_across_runs() {
        let first = digest_placed(&pipeline(850, 1_150));
        assert_eq!(first, digest_placed(&pipeline(850, 1_150)));
        assert_ne!(first, digest_placed(&pipeline(851, 1_150)));
    }

    #[test]
    fn placing_pieces_in_turn_equals_placing_them_joined() {
        let params = layer();
        let range = region_cells(&params).unwrap_or_else(|e| panic!("{e}"));
        let scattered = scatter(&params, SEED, range).unwrap_or_else(|e| panic!("{e}"));
        let all = &scattered.placements;
        assert!(all.len() > 4, "{} placements", all.len());
        let (head, tail) = all.split_at(all.len() / 3);
        let scale = SelectPlaceParams {
            scale_min: 850,
            scale_max: 1_150,
        };
        let joined = select_and_place(all, SEED, &scale).unwrap_or_else(|e| panic!("{e}"));
        let pieces = select_and_place_each(head.iter().chain(tail), all.len(), SEED, &scale)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pieces, joined);
        assert_eq!(pieces.capacity(), all.len(), "allocated once at its size");
        let ids: Vec<u64> = pieces.iter().map(|o| o.placement.id.bits()).collect();
        let expected: Vec<u64> = all.iter().map(|p| p.id.bits()).collect();
        assert_eq!(ids, expected);
        assert!(pieces.iter().all(|o| (850..=1_150).contains(&o.scale)));
    }

    #[test]
    fn placing_in_parallel_equals_placing_in_turn() {
        use crate::identity::pack_scatter_id;
        // Two layers of synthetic placements, more than one parallel piece each.
        let layer = |layer: u32, count: i64| -> Vec<Placement> {
            (0..count)
                .map(|i| {
                    let (cx, cy) = (i % 300, i / 300);
                    let id = pack_scatter_id(3, layer, (i % 2) as u32, cx, cy)
                        .unwrap_or_else(|e| panic!("{e}"));
                    Placement {
                        id,
                        x: cx * 10,
                        y: cy * 10,
                        variant: (i % 3) as u32,
                        priority: i as u32,
                    }
                })
                .collect()
        };
        let (first, second) = (layer(0, 9_000), layer(1, 5_003));
        // A width that does not divide 2^32 (attempt 0 is sometimes rejected) and the widest.
        for (scale_min, scale_max) in [(850, 1_150), (0, u32::MAX - 1), (7, 7)] {
            let params = SelectPlaceParams {
                scale_min,
                scale_max,
            };
            let all = first.iter().chain(&second);
            let serial = select_and_place_each(all, first.len() + second.len(), SEED, &params)
                .unwrap_or_else(|e| panic!("{e}"));
            for threads in [1, 2, 4] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap_or_else(|e| panic!("{e}"));
                let parallel = pool
                    .install(|| select_and_place_par(&[&first, &[], &second], SEED, &params))
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(parallel, serial, "{threads} threads");
            }
            // Each object is the convention's scalar draw.
            let key = DomainKey::new(SEED, Domain::Transform);
            let width = NonZeroU32::new(scale_max - scale_min + 1).unwrap_or(NonZeroU32::MIN);
            for object in serial.iter().step_by(97) {
                let scope = object.placement.id.bits();
                let rotation = crate::rng::sample_u32(&key, Address::new(scope, 0, 0)) >> 16;
                let offset = crate::rng::sample_bounded(&key, Address::new(scope, 0, 1), width)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(u32::from(object.rotation_turns_65536), rotation);
                assert_eq!(object.scale, scale_min + offset);
            }
        }
        assert_eq!(
            select_and_place_par(
                &[],
                SEED,
                &SelectPlaceParams {
                    scale_min: 1,
                    scale_max: 2
                }
            ),
            Ok(Vec::new())
        );
    }
}
