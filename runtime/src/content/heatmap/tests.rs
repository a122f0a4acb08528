//! Heatmap bins counted by hand on a small scatter product.

use super::*;
use crate::content::geometry::Rect;
use crate::content::placement::{Placement, RejectedCandidate, ScatterOutput};
use crate::content::product::ScatterLayer;
use crate::identity::{pack_scatter_id, ScatterId};

fn id(candidate: u32, cell_x: i64, cell_y: i64) -> ScatterId {
    pack_scatter_id(1, 0, candidate, cell_x, cell_y).unwrap_or_else(|e| panic!("{e}"))
}

fn placed(candidate: u32, cell: (i64, i64)) -> Placement {
    Placement {
        id: id(candidate, cell.0, cell.1),
        x: cell.0 * 10 + 5,
        y: cell.1 * 10 + 5,
        variant: 0,
        priority: 0,
    }
}

fn rejected(candidate: u32, cell: (i64, i64), reason: RejectReason) -> RejectedCandidate {
    RejectedCandidate::new(
        id(candidate, cell.0, cell.1),
        cell.0 * 10,
        cell.1 * 10,
        reason,
    )
}

/// Cells of 10 lattice units of 0.1 m (1 m cells); region x −10..30, y 0..20: cells x −1..=2,
/// y 0..=1; one outside-region rejection in cell (3, 1) widens the grid to x −1..=3.
fn product() -> ScatterProduct {
    let conflict = RejectReason::Conflict { with: id(0, 0, 0) };
    let output = ScatterOutput {
        placements: vec![placed(0, (0, 0)), placed(1, (0, 0)), placed(0, (2, 1))],
        rejected: vec![
            rejected(2, (0, 0), conflict),
            rejected(0, (-1, 0), RejectReason::InKeepOut { keep_out: 0 }),
            rejected(1, (-1, 0), RejectReason::InKeepOut { keep_out: 0 }),
            rejected(1, (2, 1), conflict),
            rejected(0, (3, 1), RejectReason::OutsideRegion),
        ],
    };
    ScatterProduct {
        family: "props".to_owned(),
        variant_ids: vec!["bench".to_owned()],
        lattice_unit_m: 0.1,
        cell_size: 10,
        candidates_per_cell: 3,
        area_stage: None,
        layers: vec![ScatterLayer {
            layer: 0,
            room: 1,
            area: None,
            region: Rect {
                min_x: -10,
                min_y: 0,
                max_x: 30,
                max_y: 20,
            },
            keep_outs: Vec::new(),
            output,
        }],
    }
}

fn map(mode: HeatmapMode, max_bins: u32) -> Heatmap {
    scatter_heatmap(&product(), mode, max_bins).unwrap_or_else(|| panic!("a layer"))
}

#[test]
fn one_bin_per_cell_counts_every_candidate_in_its_cell() {
    let heat = map(HeatmapMode::Candidates, 64);
    assert_eq!(heat.first_cell, (-1, 0));
    assert_eq!((heat.columns, heat.rows, heat.cells_per_bin), (5, 2, 1));
    // Row 0 (cell y 0): cells x −1, 0, 1, 2, 3; row 1 (cell y 1).
    assert_eq!(heat.counts, vec![2, 3, 0, 0, 0, 0, 0, 0, 2, 1]);
    assert_eq!((heat.max(), heat.total()), (3, 8));
    assert!((heat.bin_size_m - 1.0).abs() < 1e-12);
    assert_eq!(heat.origin_m, (-1.0, 0.0));
    assert_eq!(heat.bin_origin_m(3, 1), (2.0, 1.0));
    assert_eq!(heat.count(1, 0), 3);
    assert_eq!(heat.count(5, 0), 0);
}

#[test]
fn density_counts_accepted_placements_only() {
    let heat = map(HeatmapMode::Density, 64);
    assert_eq!(heat.counts, vec![0, 2, 0, 0, 0, 0, 0, 0, 1, 0]);
    assert!((heat.bin_area_m2() - 1.0).abs() < 1e-12);
}

#[test]
fn rejections_filter_by_reason() {
    let all = map(HeatmapMode::Rejections(None), 64);
    assert_eq!(all.counts, vec![2, 1, 0, 0, 0, 0, 0, 0, 1, 1]);
    let by = |kind| map(HeatmapMode::Rejections(Some(kind)), 64).counts;
    assert_eq!(
        by(RejectionKind::InKeepOut),
        vec![2, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        by(RejectionKind::Conflict),
        vec![0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    );
    assert_eq!(
        by(RejectionKind::OutsideRegion),
        vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    );
    let names: Vec<&str> = RejectionKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, ["outside-region", "in-keep-out", "conflict"]);
}

/// At most two bins a side: 5 cells across need bins of 3 cells, so 2 × 1 bins.
#[test]
fn a_bin_limit_merges_cells() {
    let heat = map(HeatmapMode::Candidates, 2);
    assert_eq!((heat.columns, heat.rows, heat.cells_per_bin), (2, 1, 3));
    // Cells x −1..=1 in bin 0 (2 + 3 + 0 + 0 in row 1), x 2..=3 in bin 1 (2 + 1).
    assert_eq!(heat.counts, vec![5, 3]);
    assert!((heat.bin_size_m - 3.0).abs() < 1e-12);
    let zero = map(HeatmapMode::Candidates, 0);
    assert_eq!((zero.columns, zero.rows), (1, 1));
    assert_eq!(zero.counts, vec![8]);
}

#[test]
fn a_product_without_layers_has_no_heatmap() {
    let mut empty = product();
    empty.layers.clear();
    assert_eq!(scatter_heatmap(&empty, HeatmapMode::Density, 8), None);
}
