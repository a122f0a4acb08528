//! The `environment.scatter` descriptor: the P0 kernel over one family, on an authored region or on
//! the scatter areas of an upstream street block.
//!
//! Regions: with no `areas` input, the stage scatters one layer over its `region` parameter. With a
//! street block bound to `areas`, it scatters one layer per scatter area of the block, in area id
//! order, with layer ids `layer`, `layer + 1`, …; each area (meters) becomes the layer's region in
//! lattice units (`round(m / lattice_unit_m)`), and its keep-outs are the authored `keep_outs`
//! followed by every keep-out of the block. The kernel scatters one rectangle per layer, so this
//! is how a block's two sidewalks become two independent layers whose identities never collide.

use std::num::NonZeroU32;

use super::street_block::area_key;
use super::{
    meters_to_lattice, Capacity, FailureKind, InputOutline, InputOutlines, InputPort,
    KernelContext, Locality, OperatorDescriptor, Outline, ParamDefault, ParamProblem, ParamRange,
    ParamSet, ParamSpec, ParamType, PortKind, StageError, StageInputs, StageOutput, StageParams,
};
use crate::content::{
    Constraint, ConstraintCheck, Derivation, DrawPurpose, DrawRecord, FamilyData, FamilyReads,
    ObjectProvenance, ParentRef, Placement, Product, ProductKind, RectM, RejectReason,
    RejectedCandidate, RejectionProvenance, ScatterLayer, ScatterOutput, ScatterProduct,
    StageProvenance,
};
use crate::identity::{ChildKey, ScatterId};
use crate::ops::scatter::address::{DrawSlot, OFFSET_X, OFFSET_Y, PRIORITY, VARIANT};
use crate::ops::scatter::{
    region_cells, scatter_into, scatter_par_into, CellRange, Rect, ScatterError, ScatterParams,
    ScatterVariant, MAX_CANDIDATES_PER_CELL, MAX_CELL_SIZE, MAX_KEEP_OUTS, MAX_VARIANTS,
    SPARE_RECORDS,
};
use crate::rng::{sample_bounded, sample_u32, Domain, DomainKey};

/// Typed parameters of a scatter stage.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterStageParams {
    /// Cell edge, lattice units.
    pub cell_size: i64,
    /// Candidates per cell.
    pub candidates_per_cell: u32,
    /// The authored region (absent when the areas come from an input).
    pub region: Option<Rect>,
    /// Authored keep-outs, lattice units.
    pub keep_outs: Vec<Rect>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// First layer id.
    pub layer: u32,
    /// Room (recipe instance) ordinal.
    pub room: u32,
}

const PORTS: &[InputPort] = &[
    InputPort {
        name: "family",
        kind: PortKind::Family,
        required: true,
        doc: "The asset family whose variants are scattered.",
    },
    InputPort {
        name: "areas",
        kind: PortKind::Product(ProductKind::StreetBlock),
        required: false,
        doc: "A street block whose scatter areas and keep-outs replace `region`.",
    },
];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "candidates_per_cell",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int {
            min: 1,
            max: MAX_CANDIDATES_PER_CELL as i64,
        },
        default: ParamDefault::Int(1),
        doc: "Fixed candidates drawn in every cell (indices from 128 up are authored objects').",
    },
    ParamSpec {
        name: "cell_size",
        ty: ParamType::Int,
        unit: "lattice units",
        range: ParamRange::Int {
            min: 1,
            max: MAX_CELL_SIZE,
        },
        default: ParamDefault::Int(400),
        doc: "Edge of a scatter cell; every exclusion radius must be at most this.",
    },
    ParamSpec {
        name: "keep_outs",
        ty: ParamType::RectList,
        unit: "lattice units",
        range: ParamRange::Int {
            min: -(1 << 40),
            max: 1 << 40,
        },
        default: ParamDefault::EmptyList,
        doc: "Half-open rectangles where nothing is placed.",
    },
    ParamSpec {
        name: "lattice_unit_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 0.0001,
            max: 10.0,
        },
        default: ParamDefault::Float(0.01),
        doc: "Meters per lattice unit.",
    },
    ParamSpec {
        name: "layer",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int { min: 0, max: 255 },
        default: ParamDefault::Int(0),
        doc: "Layer id packed into identities (the first of consecutive ids, one per area).",
    },
    ParamSpec {
        name: "region",
        ty: ParamType::Rect,
        unit: "lattice units",
        range: ParamRange::Int {
            min: -(1 << 40),
            max: 1 << 40,
        },
        default: ParamDefault::Optional,
        doc: "Half-open region to fill; required unless `areas` is connected.",
    },
    ParamSpec {
        name: "room",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int {
            min: 1,
            max: 65_535,
        },
        default: ParamDefault::Int(1),
        doc: "Room (recipe instance) ordinal packed into identities.",
    },
];

/// The descriptor of `environment.scatter` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "environment.scatter",
        algorithm: 1,
        summary: "P0 scatter: fixed candidates per lattice cell, thinned by addressed priority.",
        inputs: PORTS,
        output: ProductKind::Placements,
        params: PARAMS,
        presets: super::Presets::NONE,
        locality: Locality::FiniteNeighborhood,
        data_scope: super::ScopeContract::at(super::DataScope::Cell),
        decode,
        estimate,
        outline: super::no_outline,
        check,
        scopes,
        // The kernel draws variants by weight and thins by exclusion radius; heights and
        // collision radii are the simulation's and the viewport's, never the scatter's.
        domains: &[Domain::Placement, Domain::Variant],
        family_reads: FamilyReads {
            weights: true,
            exclusion_radii: true,
            collision_radii: false,
            heights: false,
            sockets: false,
        },
        lint: super::no_lint,
        kernel,
    }
}

fn decode(set: &ParamSet, bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let typed = || -> Result<ScatterStageParams, ParamProblem> {
        Ok(ScatterStageParams {
            cell_size: set.int("cell_size")?,
            candidates_per_cell: set.u32("candidates_per_cell")?,
            region: set.opt_rect("region")?,
            keep_outs: set.rects("keep_outs")?,
            lattice_unit_m: set.float("lattice_unit_m")?,
            layer: set.u32("layer")?,
            room: set.u32("room")?,
        })
    };
    let params = typed().map_err(|problem| vec![problem])?;
    if params.keep_outs.len() > MAX_KEEP_OUTS {
        return Err(vec![ParamProblem::new(
            "keep_outs",
            format!(
                "`keep_outs` has {} rectangles, over the limit of {MAX_KEEP_OUTS}",
                params.keep_outs.len()
            ),
            format!("at most {MAX_KEEP_OUTS} keep-outs per layer"),
        )]);
    }
    let has_areas = bound.contains(&"areas");
    match (&params.region, has_areas) {
        (None, false) => Err(vec![ParamProblem::new(
            "region",
            "missing parameter `region` (no `areas` input is connected)",
            "`region`: a rectangle `(x0, y0, x1, y1)`, or a street block input",
        )]),
        (Some(_), true) => Err(vec![ParamProblem::new(
            "region",
            "`region` is given, but the regions come from the `areas` input",
            "no `region` when a street block is connected",
        )]),
        (Some(region), false) if !cells_fit_identity(region, params.cell_size) => {
            Err(vec![ParamProblem::new(
                "region",
                format!(
                    "the cells of region ({}, {}, {}, {}) at cell size {} do not fit the packed identity",
                    region.min_x, region.min_y, region.max_x, region.max_y, params.cell_size
                ),
                "a region whose cell coordinates fit i16 (−32768..=32767)",
            )])
        }
        _ => Ok(StageParams::Scatter(params)),
    }
}

/// The rules across the parameters and what the inputs hold: every variant's exclusion radius fits
/// the cell size, the family is within the kernel's variant limit, and a street block's areas fit
/// the layer ids and, with its keep-outs, the keep-out limit.
fn check(params: &StageParams, inputs: &InputOutlines<'_>) -> Vec<ParamProblem> {
    let StageParams::Scatter(p) = params else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (port, input) in inputs {
        match (*port, input) {
            ("family", InputOutline::Family(family)) => check_family(p, family, &mut problems),
            ("areas", InputOutline::Product(outline)) => check_areas(p, outline, &mut problems),
            _ => {}
        }
    }
    problems
}

/// The scopes of a scatter stage: its room with its one layer, or with one layer per scatter area
/// of the street block bound to `areas` (`layer`, `layer + 1`, …).
fn scopes(params: &StageParams, inputs: &InputOutlines<'_>) -> Vec<(u32, u32)> {
    let StageParams::Scatter(p) = params else {
        return Vec::new();
    };
    let areas = inputs
        .iter()
        .find_map(|(port, input)| match (*port, input) {
            ("areas", InputOutline::Product(outline)) => Some(outline.scatter_areas.len()),
            _ => None,
        });
    let layers = areas.unwrap_or(1) as u32;
    (0..layers)
        .map(|i| (p.room, p.layer.saturating_add(i)))
        .collect()
}

fn check_family(p: &ScatterStageParams, family: &FamilyData, problems: &mut Vec<ParamProblem>) {
    if family.variants.len() > MAX_VARIANTS {
        problems.push(ParamProblem::new(
            "family",
            format!(
                "family `{}` has {} variants, over the scatter limit of {MAX_VARIANTS}",
                family.id,
                family.variants.len()
            ),
            format!("a family of at most {MAX_VARIANTS} variants"),
        ));
    }
    let too_wide: Vec<_> = family
        .variants
        .iter()
        .filter(|v| v.exclusion_radius > p.cell_size)
        .collect();
    if let Some(first) = too_wide.first() {
        let widest = too_wide
            .iter()
            .map(|v| v.exclusion_radius)
            .max()
            .unwrap_or(first.exclusion_radius);
        let more = match too_wide.len() {
            1 => String::new(),
            n => format!(" (and {} more variants)", n - 1),
        };
        problems.push(ParamProblem::new(
            "cell_size",
            format!(
                "variant `{}` of family `{}` has exclusion radius {}, above the cell size {}{more}",
                first.id, family.id, first.exclusion_radius, p.cell_size
            ),
            format!(
                "a cell size of at least {widest} lattice units (no exclusion radius may exceed it)"
            ),
        ));
    }
}

fn check_areas(p: &ScatterStageParams, outline: &Outline, problems: &mut Vec<ParamProblem>) {
    let areas = outline.scatter_areas.len() as u64;
    if let Some(last) = (u64::from(p.layer) + areas).checked_sub(1) {
        if last > 255 {
            problems.push(ParamProblem::new(
                "layer",
                format!(
                    "the {areas} scatter areas of the `areas` input need layers {}..={last}, above 255",
                    p.layer
                ),
                format!("a `layer` of at most {}", 256u64.saturating_sub(areas)),
            ));
        }
    }
    if let Some(bounds) = outline.bounds_m {
        let to = |m: f64| meters_to_lattice(m, p.lattice_unit_m);
        let lattice = match (
            to(bounds.min_x),
            to(bounds.min_y),
            to(bounds.max_x),
            to(bounds.max_y),
        ) {
            (Some(x0), Some(y0), Some(x1), Some(y1)) => Some(Rect::new(x0, y0, x1, y1)),
            _ => None,
        };
        if !lattice.is_some_and(|rect| cells_fit_identity(&rect, p.cell_size)) {
            problems.push(ParamProblem::new(
                "cell_size",
                format!(
                    "the `areas` input spans {:.1} m × {:.1} m, whose cells at cell size {} and {} m per lattice unit do not fit the packed identity",
                    bounds.width_m(),
                    bounds.depth_m(),
                    p.cell_size,
                    p.lattice_unit_m
                ),
                "a larger cell size or lattice unit, so cell coordinates fit i16 (−32768..=32767)",
            ));
        }
    }
    let total = p.keep_outs.len() + outline.keep_outs;
    if total > MAX_KEEP_OUTS {
        problems.push(ParamProblem::new(
            "keep_outs",
            format!(
                "{} authored keep-outs and {} of the `areas` input make {total}, over the limit of {MAX_KEEP_OUTS}",
                p.keep_outs.len(),
                outline.keep_outs
            ),
            format!("at most {MAX_KEEP_OUTS} keep-outs per layer in all"),
        ));
    }
}

/// Whether every cell the region touches has coordinates that fit the identity's `i16` fields
/// (checked here so that a recipe that cannot be packed is rejected when it is compiled).
fn cells_fit_identity(region: &Rect, cell_size: i64) -> bool {
    let cs = cell_size.max(1);
    let fits = |v: i64| i16::try_from(v.div_euclid(cs)).is_ok();
    fits(region.min_x) && fits(region.min_y) && fits(region.max_x - 1) && fits(region.max_y - 1)
}

fn estimate(params: &StageParams, inputs: &[Capacity]) -> Capacity {
    let empty = Capacity {
        objects: 0,
        candidates: 0,
        bounds_m: None,
    };
    let StageParams::Scatter(p) = params else {
        return empty;
    };
    let cs = p.cell_size.max(1);
    let cells = |w: i64, h: i64| -> u64 {
        let along = |extent: i64| (extent.max(0) / cs).saturating_add(2).unsigned_abs();
        along(w).saturating_mul(along(h))
    };
    let cells = match (p.region, inputs.iter().find_map(|c| c.bounds_m)) {
        (Some(region), _) => cells(region.max_x - region.min_x, region.max_y - region.min_y),
        (None, Some(bounds)) => {
            let to = |m: f64| meters_to_lattice(m, p.lattice_unit_m).unwrap_or(i64::MAX);
            // Each area is inside the block's bounds; two layers at most cover it twice.
            cells(to(bounds.width_m()), to(bounds.depth_m())).saturating_mul(2)
        }
        (None, None) => return empty,
    };
    let candidates = cells.saturating_mul(u64::from(p.candidates_per_cell));
    Capacity {
        objects: candidates,
        candidates,
        bounds_m: None,
    }
}

/// One layer to scatter: its id, region, keep-outs and the area it fills.
struct LayerPlan {
    layer: u32,
    area: Option<String>,
    region: Rect,
    keep_outs: Vec<Rect>,
}

fn kernel(
    params: &StageParams,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    scatter_kernel_with(params, inputs, context, &scatter_in_chunks)
}

/// Where a scatter stage's kernel gets the output of one layer's cells (the layer's kernel
/// parameters, its region cells, the run's context, the candidates evaluated so far): the
/// kernel scatters them itself ([`scatter_kernel_with`] with the chunked scatter); a tiled cook
/// (`cook::tiles`) hands it the merge of tiles cooked elsewhere, or scatters one tile.
pub type LayerCells<'a> = dyn Fn(&ScatterParams, CellRange, &KernelContext<'_>, &mut u64) -> Result<ScatterOutput, StageError>
    + 'a;

/// The `environment.scatter` kernel with each layer's output taken from `cells` (see
/// [`LayerCells`]); everything else — the layers, the product around them, the provenance — is
/// the kernel's own, so any `cells` that returns the layer's exact output gives the kernel's exact
/// product.
pub fn scatter_kernel_with(
    params: &StageParams,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
    cells_of: &LayerCells<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::Scatter(p) = params else {
        return Err(StageError::foreign_parameters());
    };
    let family = inputs.family("family")?;
    let variants: Vec<ScatterVariant> = family
        .variants
        .iter()
        .map(|v| ScatterVariant {
            weight: v.weight,
            exclusion_radius: v.exclusion_radius,
        })
        .collect();
    let (area_stage, plans) = layer_plans(p, inputs)?;
    let mut layers = Vec::with_capacity(plans.len());
    let mut evaluated = 0u64;
    for plan in plans {
        let kernel_params = ScatterParams {
            cell_size: p.cell_size,
            candidates_per_cell: p.candidates_per_cell,
            region: plan.region,
            keep_outs: plan.keep_outs,
            variants: variants.clone(),
            room: p.room,
            layer: plan.layer,
        };
        let cells = region_cells(&kernel_params).map_err(scatter_error)?;
        let output = cells_of(&kernel_params, cells, context, &mut evaluated)?;
        layers.push(ScatterLayer {
            // Both fit: `scatter` checked them against the packed identity's field widths.
            layer: plan.layer as u8,
            room: p.room as u16,
            area: plan.area,
            region: kernel_params.region,
            keep_outs: kernel_params.keep_outs,
            output,
        });
    }
    let product = ScatterProduct {
        family: family.id.clone(),
        variant_ids: family.variant_ids(),
        lattice_unit_m: p.lattice_unit_m,
        cell_size: p.cell_size,
        candidates_per_cell: p.candidates_per_cell,
        area_stage,
        layers,
    };
    let provenance = provenance(family, context.seed);
    Ok(StageOutput {
        product: Product::Placements(product),
        provenance,
    })
}

fn layer_plans(
    p: &ScatterStageParams,
    inputs: &StageInputs<'_>,
) -> Result<(Option<u32>, Vec<LayerPlan>), StageError> {
    let Some((stage, product)) = inputs.product("areas") else {
        let region = p.region.ok_or_else(|| {
            StageError::new(
                FailureKind::InvalidInput,
                Some("region"),
                "no region and no areas input",
            )
        })?;
        return Ok((
            None,
            vec![LayerPlan {
                layer: p.layer,
                area: None,
                region,
                keep_outs: p.keep_outs.clone(),
            }],
        ));
    };
    let Product::StreetBlock(block) = product else {
        return Err(StageError::new(
            FailureKind::InvalidInput,
            Some("areas"),
            "the `areas` input is not a street block",
        ));
    };
    let to_lattice = |rect: &RectM, field: &str| -> Result<Rect, StageError> {
        let convert = |m: f64| {
            meters_to_lattice(m, p.lattice_unit_m).ok_or_else(|| {
                StageError::new(
                    FailureKind::InvalidInput,
                    Some(field),
                    format!(
                        "{m} m is not representable in lattice units of {} m",
                        p.lattice_unit_m
                    ),
                )
            })
        };
        Ok(Rect::new(
            convert(rect.min_x)?,
            convert(rect.min_y)?,
            convert(rect.max_x)?,
            convert(rect.max_y)?,
        ))
    };
    let mut keep_outs = p.keep_outs.clone();
    for keep_out in &block.keep_outs {
        keep_outs.push(to_lattice(&keep_out.rect, "areas")?);
    }
    let mut plans = Vec::with_capacity(block.scatter_areas.len());
    for (index, area) in block.scatter_areas.iter().enumerate() {
        let layer = p.layer.saturating_add(index as u32);
        if layer > 255 {
            return Err(StageError::new(
                FailureKind::InvalidInput,
                Some("layer"),
                format!("area `{}` would need layer {layer}, above 255", area.id),
            ));
        }
        plans.push(LayerPlan {
            layer,
            area: Some(area.id.clone()),
            region: to_lattice(&area.rect, "areas")?,
            keep_outs: keep_outs.clone(),
        });
    }
    Ok((Some(stage), plans))
}

/// Rows of cells one piece of a scatter covers. Between pieces the kernel checks for cancellation
/// and reports progress; splitting never changes the result (the sampling convention's split
/// guarantee), and pieces this tall regenerate under 2 % of their rows at their borders.
const CHUNK_ROWS: i32 = 256;

/// Scatters `cells` piece by piece (rows `CHUNK_ROWS` at a time), stopping when the run is
/// cancelled and adding each piece's candidates to `evaluated` for the progress report.
///
/// Every piece appends to one output reserved once for all of the range's candidates, so no
/// record is copied after the kernel writes it (room no record reaches is never touched).
pub fn scatter_in_chunks(
    params: &ScatterParams,
    cells: CellRange,
    context: &KernelContext<'_>,
    evaluated: &mut u64,
) -> Result<ScatterOutput, StageError> {
    let mut output = ScatterOutput::default();
    let per_row = u64::try_from(cells.end_x.saturating_sub(cells.min_x)).unwrap_or(0)
        * u64::from(params.candidates_per_cell);
    let rows = u64::try_from(cells.end_y.saturating_sub(cells.min_y)).unwrap_or(0);
    let room = usize::try_from(per_row.saturating_mul(rows))
        .unwrap_or(usize::MAX)
        .saturating_add(SPARE_RECORDS);
    let out_of_memory = |items| scatter_error(ScatterError::OutOfMemory { items });
    output
        .placements
        .try_reserve_exact(room)
        .map_err(|_| out_of_memory(room))?;
    output
        .rejected
        .try_reserve_exact(room)
        .map_err(|_| out_of_memory(room))?;
    let mut first = cells.min_y;
    while first < cells.end_y {
        if context.cancel.is_cancelled() {
            return Err(context.cancelled());
        }
        let end = first.saturating_add(CHUNK_ROWS).min(cells.end_y);
        let piece = CellRange::new(cells.min_x, first, cells.end_x, end);
        if context.parallel {
            scatter_par_into(params, context.seed, piece, &mut output)
        } else {
            scatter_into(params, context.seed, piece, &mut output)
        }
        .map_err(scatter_error)?;
        *evaluated = evaluated.saturating_add(per_row * u64::try_from(end - first).unwrap_or(0));
        (context.progress)(*evaluated);
        first = end;
    }
    Ok(output)
}

fn scatter_error(error: ScatterError) -> StageError {
    let (kind, field) = match error {
        ScatterError::CellSize { .. } => (FailureKind::InvalidInput, Some("cell_size")),
        ScatterError::CandidatesPerCell { .. } => {
            (FailureKind::InvalidInput, Some("candidates_per_cell"))
        }
        ScatterError::EmptyRegion | ScatterError::RegionCells { .. } => {
            (FailureKind::InvalidInput, Some("region"))
        }
        ScatterError::TooManyKeepOuts { .. } | ScatterError::InvertedKeepOut { .. } => {
            (FailureKind::InvalidInput, Some("keep_outs"))
        }
        ScatterError::NoVariants
        | ScatterError::TooManyVariants { .. }
        | ScatterError::VariantWeight { .. }
        | ScatterError::TotalWeight
        | ScatterError::ExclusionRadius { .. } => (FailureKind::InvalidInput, Some("family")),
        ScatterError::Identity(_) => (FailureKind::InvalidInput, Some("room")),
        ScatterError::InvertedRange => (FailureKind::InvalidInput, None),
        ScatterError::Capacity { .. } => (FailureKind::ExhaustedCapacity, None),
        ScatterError::Sampler(_) => (FailureKind::SearchExhaustion, None),
        ScatterError::OutOfMemory { .. } => (FailureKind::OutOfMemory, None),
    };
    StageError::new(kind, field, error.to_string())
}

/// Draw records of a candidate: its x and y offsets and, when it was eligible (`eligible` holds
/// the family's total weight), its priority and variant — the kernel draws those for eligible
/// candidates only.
fn candidate_draws(
    seed: u64,
    keys: &(DomainKey, DomainKey),
    id: ScatterId,
    offsets: (i64, i64),
    eligible: Option<NonZeroU32>,
) -> Result<Vec<DrawRecord>, StageError> {
    let record = |slot: DrawSlot, value, purpose| DrawRecord {
        domain: slot.domain,
        seed,
        scope: id.bits(),
        event: slot.address(id).event,
        dimension: slot.dimension,
        value,
        purpose,
    };
    // Offsets are below the cell size, which fits u32 (MAX_CELL_SIZE = 2^29).
    let mut draws = vec![
        record(OFFSET_X, offsets.0 as u32, DrawPurpose::OffsetX),
        record(OFFSET_Y, offsets.1 as u32, DrawPurpose::OffsetY),
    ];
    if let Some(total) = eligible {
        draws.push(record(
            PRIORITY,
            sample_u32(&keys.0, PRIORITY.address(id)),
            DrawPurpose::Priority,
        ));
        let value = sample_bounded(&keys.1, VARIANT.address(id), total)
            .map_err(|e| StageError::new(FailureKind::SearchExhaustion, None, e.to_string()))?;
        draws.push(record(VARIANT, value, DrawPurpose::Variant));
    }
    Ok(draws)
}

/// The stage's provenance: the family and how each record is derived when asked (nothing per
/// object is stored).
fn provenance(family: &FamilyData, seed: u64) -> StageProvenance {
    // The kernel checked that the weights sum to a nonzero `u32`.
    let total: u64 = family.variants.iter().map(|v| u64::from(v.weight)).sum();
    StageProvenance {
        family: Some(family.id.clone()),
        derived: Some(Derivation::Scatter {
            seed,
            total_weight: u32::try_from(total).unwrap_or(0),
        }),
        ..StageProvenance::default()
    }
}

/// The layer of `product` that packs `id`, and the parent reference of its objects.
fn layer_of(product: &ScatterProduct, id: ScatterId) -> Option<(&ScatterLayer, Option<ParentRef>)> {
    let key = id.unpack();
    let layer = product
        .layers
        .iter()
        .find(|l| l.layer == key.layer && l.room == key.room.get())?;
    let parent = match (&layer.area, product.area_stage) {
        (Some(area), Some(stage)) => Some(ParentRef {
            stage,
            key: area_key(area),
        }),
        _ => None,
    };
    Some((layer, parent))
}

fn keys(seed: u64) -> (DomainKey, DomainKey) {
    (
        DomainKey::new(seed, PRIORITY.domain),
        DomainKey::new(seed, VARIANT.domain),
    )
}

/// The provenance of placement `id` of a scatter product, re-derived from its addressed draws.
pub(crate) fn derive_object(
    product: &ScatterProduct,
    seed: u64,
    total_weight: u32,
    id: ScatterId,
) -> Option<ObjectProvenance> {
    let (layer, parent) = layer_of(product, id)?;
    let key = id.unpack();
    let placements = &layer.output.placements;
    let index = placements
        .binary_search_by_key(
            &(key.cell_y, key.cell_x, key.candidate),
            Placement::canonical_key,
        )
        .ok()?;
    let p = placements.get(index)?;
    // An authored object (a candidate index the generator never emits) made no draws; a moved
    // one's draws are those of its generated candidate, re-drawn (its position is the override's).
    let draws = if u32::from(key.candidate) >= product.candidates_per_cell {
        Vec::new()
    } else {
        let cell = NonZeroU32::new(u32::try_from(product.cell_size).ok()?)?;
        let placement_key = DomainKey::new(seed, OFFSET_X.domain);
        let dx = sample_bounded(&placement_key, OFFSET_X.address(p.id), cell).ok()?;
        let dy = sample_bounded(&placement_key, OFFSET_Y.address(p.id), cell).ok()?;
        let offsets = (i64::from(dx), i64::from(dy));
        let total = NonZeroU32::new(total_weight);
        candidate_draws(seed, &keys(seed), p.id, offsets, total).ok()?
    };
    Some(ObjectProvenance {
        key: ChildKey::Scatter(p.id),
        parent,
        variant: Some(p.variant),
        draws,
        constraints: vec![
            ConstraintCheck::passed(Constraint::InsideRegion),
            ConstraintCheck::passed(Constraint::OutsideKeepOuts {
                count: layer.keep_outs.len() as u32,
            }),
            ConstraintCheck::passed(Constraint::NoStrongerConflict),
        ],
    })
}

/// The provenance of rejected candidate `id` of a scatter product, re-derived: its offsets, and
/// its priority and variant when it was eligible (a conflict; the others never drew them).
pub(crate) fn derive_rejection(
    product: &ScatterProduct,
    seed: u64,
    total_weight: u32,
    id: ScatterId,
) -> Option<RejectionProvenance> {
    let (layer, _) = layer_of(product, id)?;
    let key = id.unpack();
    let rejected = &layer.output.rejected;
    let index = rejected
        .binary_search_by_key(
            &(key.cell_y, key.cell_x, key.candidate),
            RejectedCandidate::canonical_key,
        )
        .ok()?;
    let r = rejected.get(index)?;
    let cs = product.cell_size;
    let offsets = (
        r.x - i64::from(r.cell_x()) * cs,
        r.y - i64::from(r.cell_y()) * cs,
    );
    let eligible = matches!(r.reason(), RejectReason::Conflict { .. });
    let total = NonZeroU32::new(total_weight).filter(|_| eligible);
    let draws = candidate_draws(seed, &keys(seed), r.id, offsets, total).ok()?;
    Some(RejectionProvenance {
        key: ChildKey::Scatter(r.id),
        reason: r.reason(),
        draws,
    })
}

#[cfg(test)]
mod failure_kind_tests {
    use super::*;
    use crate::generate::CancelToken;
    use std::sync::Mutex;

    /// 7 × 602 cells of 3 candidates: three pieces of up to 256 rows.
    fn tall() -> ScatterParams {
        ScatterParams {
            cell_size: 100,
            candidates_per_cell: 3,
            region: Rect::new(-250, -30_050, 330, 30_020),
            keep_outs: vec![Rect::new(-50, -400, 60, 900)],
            variants: vec![
                ScatterVariant {
                    weight: 3,
                    exclusion_radius: 40,
                },
                ScatterVariant {
                    weight: 1,
                    exclusion_radius: 90,
                },
            ],
            room: 1,
            layer: 0,
        }
    }

    fn context<'a>(
        cancel: &'a CancelToken,
        progress: &'a (dyn Fn(u64) + Sync),
        parallel: bool,
    ) -> KernelContext<'a> {
        KernelContext {
            recipe: "r",
            stage: 1,
            seed: 77,
            parallel,
            cancel,
            progress,
        }
    }

    #[test]
    fn a_scatter_in_pieces_equals_one_call_and_reports_each_piece() {
        let params = tall();
        let cells = region_cells(&params).expect("cells");
        assert_eq!(cells.end_y - cells.min_y, 602);
        let whole = crate::ops::scatter::scatter(&params, 77, cells).expect("scatter");
        for parallel in [false, true] {
            let reports = Mutex::new(Vec::new());
            let progress = |done: u64| reports.lock().expect("lock").push(done);
            let cancel = CancelToken::default();
            let mut evaluated = 0;
            let pieces = scatter_in_chunks(
                &params,
                cells,
                &context(&cancel, &progress, parallel),
                &mut evaluated,
            )
            .expect("pieces");
            assert_eq!(pieces, whole);
            let per_row = 7 * 3;
            assert_eq!(
                reports.into_inner().expect("lock"),
                vec![per_row * 256, per_row * 512, per_row * 602]
            );
            assert_eq!(evaluated, per_row * 602);
        }
    }

    #[test]
    fn a_cancelled_scatter_stops_between_pieces() {
        let params = tall();
        let cells = region_cells(&params).expect("cells");
        let cancel = CancelToken::default();
        let pieces_done = Mutex::new(0);
        let progress = |_: u64| {
            *pieces_done.lock().expect("lock") += 1;
            cancel.cancel();
        };
        let mut evaluated = 0;
        let error = scatter_in_chunks(
            &params,
            cells,
            &context(&cancel, &progress, false),
            &mut evaluated,
        )
        .expect_err("cancelled");
        assert_eq!(error.kind, FailureKind::Cancellation);
        assert_eq!(
            *pieces_done.lock().expect("lock"),
            1,
            "it stopped after the first piece"
        );
    }

    #[test]
    fn out_of_memory_is_its_own_failure_kind() {
        let error = scatter_error(ScatterError::OutOfMemory { items: 7 });
        assert_eq!(error.kind, FailureKind::OutOfMemory);
        assert_eq!(
            error.message,
            "could not reserve memory for 7 output records"
        );
    }
}
