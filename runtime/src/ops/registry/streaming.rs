//! The `streaming.plan` descriptor: loaded ring, HLOD donut and budget pruning around an observer.
//!
//! A stage may name a launch profile (`profile`, see [`super::streaming_profiles`]); the parameters
//! it gives override the profile's field by field. Out-of-range cell sizes and radii, an HLOD ring
//! inside the loaded ring and a high-detail profile off 50 m cells are repaired, each a located
//! warning (`lint`), never an error. The stage's provenance says whether the whole donut fitted
//! the budget before pruning (`HlodDemandWithinBudget`).
//!
//! The observer is the `observer_m` parameter, or — when a mission layout is bound to `observer` —
//! the centre of that layout's spawn cell (see [`MissionProduct::cell_center_m`]).

use super::streaming_profiles::{sanitize_profile, PROFILE_NAMES, STREAMING_PROFILES};
use super::{
    Capacity, FailureKind, InputPort, KernelContext, Locality, OperatorDescriptor, ParamDefault,
    ParamProblem, ParamRange, ParamSet, ParamSpec, ParamType, PortKind, StageError, StageInputs,
    StageOutput, StageParams,
};
use crate::content::{
    Constraint, ConstraintCheck, FamilyReads, MissionProduct, ObjectProvenance, PointM, Product,
    ProductKind, StageProvenance, StreamingProduct,
};
use crate::identity::ChildKey;
use crate::ops::streaming::{plan_streaming, StreamingError, StreamingProfile};

/// Typed parameters of a streaming-plan stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingStageParams {
    /// The streaming profile, sanitized.
    pub profile: StreamingProfile,
    /// The HLOD layer asset path (authoring metadata: a soft reference nothing loads).
    pub hlod_layer: Option<String>,
    /// Whether the profile is a high-detail map.
    pub high_detail: bool,
    /// The authored observer position (absent when it comes from an input).
    pub observer_m: Option<PointM>,
}

const PORTS: &[InputPort] = &[InputPort {
    name: "observer",
    kind: PortKind::Product(ProductKind::MissionLayout),
    required: false,
    doc: "A mission layout whose spawn cell centre is the observer.",
}];

/// Largest radius the schema accepts; sanitizing clamps to [`MAX_RING_RADIUS_CELLS`].
const RADIUS_SCHEMA_MAX: i64 = 1 << 20;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "cell_size_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float { min: 0.0, max: 1e9 },
        default: ParamDefault::Float(50.0),
        doc: "Edge of a streaming cell; clamped to 1..=10000 m, pinned to 50 m on a high-detail profile (warnings).",
    },
    ParamSpec {
        name: "high_detail",
        ty: ParamType::Bool,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Optional,
        doc: "A high-detail map: its cells are pinned to 50 m (absent: false).",
    },
    ParamSpec {
        name: "hlod_budget_mb",
        ty: ParamType::Int,
        unit: "MB",
        range: ParamRange::Int {
            min: 0,
            max: 1 << 40,
        },
        default: ParamDefault::Int(96),
        doc: "HLOD memory budget; the donut is pruned to fit.",
    },
    ParamSpec {
        name: "hlod_layer",
        ty: ParamType::Str,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Optional,
        doc: "HLOD layer asset path (a soft reference, authoring metadata).",
    },
    ParamSpec {
        name: "hlod_mb_per_cell",
        ty: ParamType::Int,
        unit: "MB",
        range: ParamRange::Int {
            min: 0,
            max: 1 << 20,
        },
        default: ParamDefault::Int(6),
        doc: "Estimated HLOD megabytes per cell.",
    },
    ParamSpec {
        name: "hlod_radius_cells",
        ty: ParamType::Int,
        unit: "cells",
        range: ParamRange::Int {
            min: 0,
            max: RADIUS_SCHEMA_MAX,
        },
        default: ParamDefault::Int(2),
        doc: "Radius of the HLOD ring; clamped to 1..=64 and forced to at least the loaded radius + 1 (warnings).",
    },
    ParamSpec {
        name: "loaded_radius_cells",
        ty: ParamType::Int,
        unit: "cells",
        range: ParamRange::Int {
            min: 0,
            max: RADIUS_SCHEMA_MAX,
        },
        default: ParamDefault::Int(1),
        doc: "Radius R of the fully loaded ring (R = 1 → 9 cells); clamped to 0..=63 (warning).",
    },
    ParamSpec {
        name: "observer_m",
        ty: ParamType::Point,
        unit: "m",
        range: ParamRange::Float {
            min: -1e9,
            max: 1e9,
        },
        default: ParamDefault::Optional,
        doc: "Observer position; required unless `observer` is connected.",
    },
    ParamSpec {
        name: "profile",
        ty: ParamType::Str,
        unit: "",
        range: ParamRange::Choice(PROFILE_NAMES),
        default: ParamDefault::Optional,
        doc: "A launch profile whose values fill every parameter the stage leaves out.",
    },
];

/// The descriptor of `streaming.plan` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "streaming.plan",
        algorithm: 1,
        summary: "Streaming cells around an observer: loaded ring, HLOD donut, budget pruning.",
        inputs: PORTS,
        output: ProductKind::StreamingPlan,
        params: PARAMS,
        presets: super::Presets {
            param: "profile",
            rows: STREAMING_PROFILES,
        },
        locality: Locality::ParentPlanned,
        data_scope: super::ScopeContract::at(super::DataScope::Cell),
        decode,
        estimate,
        outline: super::no_outline,
        check: super::no_check,
        scopes: super::no_scopes,
        domains: &[],
        family_reads: FamilyReads::ALL,
        lint,
        kernel,
    }
}

fn decode(set: &ParamSet, bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let typed = || -> Result<StreamingStageParams, ParamProblem> {
        let sanitized = sanitize_profile(set)?;
        Ok(StreamingStageParams {
            profile: sanitized.profile,
            hlod_layer: sanitized.hlod_layer,
            high_detail: sanitized.high_detail,
            observer_m: set.opt_point("observer_m")?.map(|(x, y)| PointM::new(x, y)),
        })
    };
    let params = typed().map_err(|problem| vec![problem])?;
    let mut problems = Vec::new();
    match (params.observer_m.is_some(), bound.contains(&"observer")) {
        (false, false) => problems.push(ParamProblem::new(
            "observer_m",
            "missing parameter `observer_m` (no `observer` input is connected)",
            "`observer_m`: a point `(x, y)` in meters, or a mission layout input",
        )),
        (true, true) => problems.push(ParamProblem::new(
            "observer_m",
            "`observer_m` is given, but the observer comes from the `observer` input",
            "no `observer_m` when a mission layout is connected",
        )),
        _ => {}
    }
    if problems.is_empty() {
        Ok(StageParams::Streaming(params))
    } else {
        Err(problems)
    }
}

/// The repairs sanitizing makes, as warnings.
fn lint(set: &ParamSet) -> Vec<ParamProblem> {
    sanitize_profile(set)
        .map(|sanitized| sanitized.warnings)
        .unwrap_or_default()
}

fn estimate(params: &StageParams, _inputs: &[Capacity]) -> Capacity {
    let side = match params {
        StageParams::Streaming(p) => 2 * u64::from(p.profile.hlod_radius_cells) + 1,
        _ => 0,
    };
    Capacity {
        objects: side * side,
        candidates: side * side,
        bounds_m: None,
    }
}

fn kernel(
    params: &StageParams,
    inputs: &StageInputs<'_>,
    _context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::Streaming(p) = params else {
        return Err(StageError::foreign_parameters());
    };
    let observer = match (p.observer_m, inputs.product("observer")) {
        (Some(point), _) => point,
        (None, Some((_, Product::MissionLayout(mission)))) => spawn_center(mission),
        _ => {
            return Err(StageError::new(
                FailureKind::InvalidInput,
                Some("observer_m"),
                "no observer: neither `observer_m` nor a mission layout input",
            ))
        }
    };
    let plan = plan_streaming(&p.profile, observer.x, observer.y).map_err(|error| {
        let field = match error {
            StreamingError::CellSize { .. } => "cell_size_m",
            StreamingError::NonFiniteLocation { .. } | StreamingError::CellOutOfRange => {
                "observer_m"
            }
            StreamingError::RingRadius { .. } | StreamingError::HlodRadius { .. } => {
                "hlod_radius_cells"
            }
        };
        StageError::new(FailureKind::InvalidInput, Some(field), error.to_string())
    })?;
    let objects = plan
        .loaded_cells
        .iter()
        .chain(&plan.hlod_cells)
        .map(|cell| ObjectProvenance {
            key: ChildKey::GridCell {
                x: cell.x,
                y: cell.y,
            },
            parent: None,
            variant: None,
            draws: Vec::new(),
            constraints: Vec::new(),
        })
        .collect();
    let provenance = StageProvenance {
        family: None,
        constraints: vec![
            ConstraintCheck {
                constraint: Constraint::WithinBudget {
                    budget_mb: plan.hlod_budget_mb,
                },
                passed: plan.hlod_estimated_mb <= plan.hlod_budget_mb,
            },
            ConstraintCheck {
                constraint: Constraint::HlodDemandWithinBudget {
                    requested_mb: plan.hlod_requested_mb,
                    budget_mb: plan.hlod_budget_mb,
                },
                passed: plan.requested_within_budget(),
            },
        ],
        objects,
        rejected: Vec::new(),
        derived: None,
        ..StageProvenance::default()
    };
    Ok(StageOutput {
        product: Product::StreamingPlan(StreamingProduct {
            cell_size_m: p.profile.cell_size_m,
            observer_m: observer,
            plan,
        }),
        provenance,
    })
}

fn spawn_center(mission: &MissionProduct) -> PointM {
    let spawn = mission.layout.spawn;
    mission.cell_center_m(spawn.x, spawn.y)
}
