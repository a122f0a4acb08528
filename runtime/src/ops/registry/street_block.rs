//! The `street.block` descriptor: schema, decoder, estimator and kernel adapter.

use super::{
    Capacity, FailureKind, KernelContext, Locality, OperatorDescriptor, Outline, ParamDefault,
    ParamProblem, ParamRange, ParamSet, ParamSpec, ParamType, StageError, StageInputs, StageOutput,
    StageParams,
};
use crate::content::{
    BoundsM, Constraint, ConstraintCheck, FamilyReads, ObjectProvenance, Product, ProductKind,
    StageProvenance, StreetBlock,
};
use crate::identity::ChildKey;
use crate::ops::street_block::{
    build_street_block, check_params, StreetBlockError, StreetBlockParams,
};

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "crosswalk_width_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 2.0,
            max: 10.0,
        },
        default: ParamDefault::Float(4.0),
        doc: "Width of each painted crossing.",
    },
    ParamSpec {
        name: "crosswalks",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int { min: 1, max: 8 },
        default: ParamDefault::Int(1),
        doc: "Crossings, evenly spaced along the block (routes crosswalk.0 …).",
    },
    ParamSpec {
        name: "furniture_zone_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 0.5,
            max: 10.0,
        },
        default: ParamDefault::Float(1.5),
        doc: "Kerb-side strip of each sidewalk that a scatter may fill.",
    },
    ParamSpec {
        name: "lanes",
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int { min: 1, max: 8 },
        default: ParamDefault::Int(2),
        doc: "Vehicle lanes; the southern half drives east.",
    },
    ParamSpec {
        name: "length_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 10.0,
            max: 2000.0,
        },
        default: ParamDefault::Float(80.0),
        doc: "Length of the block along x.",
    },
    ParamSpec {
        name: "road_width_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 2.5,
            max: 40.0,
        },
        default: ParamDefault::Float(7.0),
        doc: "Width of the carriageway.",
    },
    ParamSpec {
        name: "sidewalk_width_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 1.5,
            max: 20.0,
        },
        default: ParamDefault::Float(4.0),
        doc: "Width of each sidewalk, furniture zone included.",
    },
];

/// The descriptor of `street.block` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "street.block",
        algorithm: 1,
        summary: "A straight street block: pedestrian space, road surfaces, lanes, scatter areas and keep-outs.",
        inputs: &[],
        output: ProductKind::StreetBlock,
        params: PARAMS,
        presets: super::Presets::NONE,
        locality: Locality::ObjectLocal,
        data_scope: super::ScopeContract::at(super::DataScope::Regional),
        decode,
        estimate,
        outline,
        check: super::no_check,
        scopes: super::no_scopes,
        domains: &[],
        family_reads: FamilyReads::ALL,
        lint: super::no_lint,
        kernel,
    }
}

fn decode(set: &ParamSet, _bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let params = typed(set).map_err(|problem| vec![problem])?;
    check_params(&params).map_err(|error| match error {
        StreetBlockError::Parameter { field, message } => {
            vec![ParamProblem::new(
                field,
                message,
                "a value that fits the other parameters",
            )]
        }
        other => vec![ParamProblem::new("", other.to_string(), "a valid block")],
    })?;
    Ok(StageParams::StreetBlock(params))
}

fn typed(set: &ParamSet) -> Result<StreetBlockParams, ParamProblem> {
    Ok(StreetBlockParams {
        length_m: set.float("length_m")?,
        road_width_m: set.float("road_width_m")?,
        sidewalk_width_m: set.float("sidewalk_width_m")?,
        furniture_zone_m: set.float("furniture_zone_m")?,
        lanes: set.u32("lanes")?,
        crosswalks: set.u32("crosswalks")?,
        crosswalk_width_m: set.float("crosswalk_width_m")?,
    })
}

fn estimate(params: &StageParams, _inputs: &[Capacity]) -> Capacity {
    let StageParams::StreetBlock(p) = params else {
        return Capacity {
            objects: 0,
            candidates: 0,
            bounds_m: None,
        };
    };
    let crossings = u64::from(p.crosswalks);
    let half_l = p.length_m / 2.0;
    let half_w = p.road_width_m / 2.0 + p.sidewalk_width_m;
    Capacity {
        // Routes, crosswalks, portals, surfaces, lanes, areas and keep-outs.
        objects: (2 + crossings)
            + crossings
            + 4
            + (3 + crossings)
            + u64::from(p.lanes)
            + 2
            + 2 * crossings,
        candidates: 0,
        bounds_m: Some(BoundsM {
            min_x: -half_l,
            min_y: -half_w,
            max_x: half_l,
            max_y: half_w,
        }),
    }
}

fn outline(params: &StageParams) -> Outline {
    match params {
        StageParams::StreetBlock(p) => crate::ops::street_block::outline(p),
        _ => Outline::default(),
    }
}

fn kernel(
    params: &StageParams,
    _inputs: &StageInputs<'_>,
    _context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::StreetBlock(params) = params else {
        return Err(StageError::foreign_parameters());
    };
    let block = build_street_block(params).map_err(|error| match error {
        StreetBlockError::Parameter { field, message } => {
            StageError::new(FailureKind::InvalidInput, Some(field), message)
        }
        StreetBlockError::Space(space) => {
            StageError::new(FailureKind::UnmetConstraints, None, space.to_string())
        }
    })?;
    let provenance = provenance(&block);
    Ok(StageOutput {
        product: Product::StreetBlock(block),
        provenance,
    })
}

/// One record per element, in the order routes, crosswalks, portals, surfaces, lanes, scatter
/// areas, keep-outs; keys are `"{kind}/{id}"` slots.
fn provenance(block: &StreetBlock) -> StageProvenance {
    let space = &block.space;
    let keys = space
        .routes
        .iter()
        .map(|r| format!("route/{}", r.id))
        .chain(
            space
                .crosswalks
                .iter()
                .map(|c| format!("crosswalk/{}", c.id)),
        )
        .chain(space.portals.iter().map(|p| format!("portal/{}", p.id)))
        .chain(block.surfaces.iter().map(|s| format!("surface/{}", s.id)))
        .chain(block.lanes.iter().map(|l| format!("lane/{}", l.id)))
        .chain(block.scatter_areas.iter().map(|a| format!("area/{}", a.id)))
        .chain(block.keep_outs.iter().map(|k| format!("keep-out/{}", k.id)));
    StageProvenance {
        family: None,
        constraints: vec![
            ConstraintCheck::passed(Constraint::SpaceConnected),
            ConstraintCheck::passed(Constraint::CrosswalksHaveTwoSides {
                count: space.crosswalks.len() as u32,
            }),
        ],
        objects: keys
            .map(|key| ObjectProvenance {
                key: ChildKey::Slot(key),
                parent: None,
                variant: None,
                draws: Vec::new(),
                constraints: Vec::new(),
            })
            .collect(),
        rejected: Vec::new(),
        derived: None,
        ..StageProvenance::default()
    }
}

/// The provenance key of scatter area `id` of a street block.
pub(crate) fn area_key(id: &str) -> ChildKey {
    ChildKey::Slot(format!("area/{id}"))
}
