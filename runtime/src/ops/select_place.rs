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
use crate::rng::{sample_bounded, sample_u32, Address, Domain, DomainKey, SamplerExhausted};

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
pub fn select_and_place_each<'a>(
    placements: impl IntoIterator<Item = &'a Placement>,
    count: usize,
    seed: u64,
    params: &SelectPlaceParams,
) -> Result<Vec<PlacedObject>, SelectPlaceError> {
    let width = scale_width(params)?;
    let key = DomainKey::new(seed, Domain::Transform);
    let mut objects = Vec::with_capacity(count);
    for placement in placements {
        let scope = placement.id.bits();
        let rotation = sample_u32(&key, Address::new(scope, 0, ROTATION_DIMENSION)) >> 16;
        let offset = sample_bounded(&key, Address::new(scope, 0, SCALE_DIMENSION), width)?;
        objects.push(PlacedObject {
            placement: *placement,
            // The high half of a u32 fits u16 exactly.
            rotation_turns_65536: rotation as u16,
            // `offset ≤ max − min`, so the sum cannot pass `max`.
            scale: params.scale_min + offset,
        });
    }
    Ok(objects)
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
}
