//! The `environment.select-and-place` descriptor: rotation and scale for accepted placements.
//!
//! The variant is already chosen inside the scatter (its radius decides conflicts); this stage only
//! draws transforms, in the transform domain, so changing its ranges never moves or removes a
//! placement.

use super::{
    Capacity, FailureKind, InputPort, KernelContext, Locality, OperatorDescriptor, ParamDefault,
    ParamProblem, ParamRange, ParamSet, ParamSpec, ParamType, PortKind, StageError, StageInputs,
    StageOutput, StageParams,
};
use crate::content::{
    Constraint, ConstraintCheck, Derivation, DrawPurpose, DrawRecord, FamilyReads,
    ObjectProvenance, ParentRef, PlacedProduct, Placement, Product, ProductKind, StageProvenance,
};
use crate::identity::{ChildKey, ScatterId};
use crate::ops::select_place::{
    select_and_place_each, select_and_place_par, SelectPlaceError, SelectPlaceParams,
    ROTATION_DIMENSION, SCALE_DIMENSION,
};
use crate::rng::{sample_u32, Address, Domain, DomainKey};

/// Typed parameters of a select-and-place stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectPlaceStageParams {
    /// Scale range in scale units.
    pub scale: SelectPlaceParams,
    /// The value of one scale unit (e.g. 0.001).
    pub scale_unit: f64,
}

const PORTS: &[InputPort] = &[InputPort {
    name: "placements",
    kind: PortKind::Product(ProductKind::Placements),
    required: true,
    doc: "The accepted placements of a scatter stage.",
}];

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "scale_max",
        ty: ParamType::Int,
        unit: "scale units",
        range: ParamRange::Int {
            min: 0,
            max: 1 << 31,
        },
        default: ParamDefault::Int(1000),
        doc: "Largest scale (inclusive).",
    },
    ParamSpec {
        name: "scale_min",
        ty: ParamType::Int,
        unit: "scale units",
        range: ParamRange::Int {
            min: 0,
            max: 1 << 31,
        },
        default: ParamDefault::Int(1000),
        doc: "Smallest scale.",
    },
    ParamSpec {
        name: "scale_unit",
        ty: ParamType::Float,
        unit: "",
        range: ParamRange::Float {
            min: 1e-9,
            max: 1000.0,
        },
        default: ParamDefault::Float(0.001),
        doc: "The value of one scale step (1/1000 by default).",
    },
];

/// The descriptor of `environment.select-and-place` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "environment.select-and-place",
        algorithm: 1,
        summary: "Rotation and scale for accepted placements, from the transform domain.",
        inputs: PORTS,
        output: ProductKind::PlacedObjects,
        params: PARAMS,
        presets: super::Presets::NONE,
        locality: Locality::ObjectLocal,
        data_scope: super::ScopeContract::at(super::DataScope::Object),
        decode,
        estimate,
        outline: super::no_outline,
        check: super::no_check,
        scopes: super::no_scopes,
        domains: &[Domain::Transform],
        family_reads: FamilyReads::ALL,
        lint: super::no_lint,
        kernel,
    }
}

fn decode(set: &ParamSet, _bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let typed = || -> Result<SelectPlaceStageParams, ParamProblem> {
        Ok(SelectPlaceStageParams {
            scale: SelectPlaceParams {
                scale_min: set.u32("scale_min")?,
                scale_max: set.u32("scale_max")?,
            },
            scale_unit: set.float("scale_unit")?,
        })
    };
    let params = typed().map_err(|problem| vec![problem])?;
    if params.scale.scale_min > params.scale.scale_max {
        return Err(vec![ParamProblem::new(
            "scale_min",
            format!(
                "scale range {}..={} is inverted",
                params.scale.scale_min, params.scale.scale_max
            ),
            "scale_min ≤ scale_max",
        )]);
    }
    Ok(StageParams::SelectPlace(params))
}

fn estimate(_params: &StageParams, inputs: &[Capacity]) -> Capacity {
    let objects = inputs.iter().map(|c| c.objects).sum();
    Capacity {
        objects,
        candidates: objects,
        bounds_m: None,
    }
}

fn kernel(
    params: &StageParams,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::SelectPlace(p) = params else {
        return Err(StageError::foreign_parameters());
    };
    let Some((stage, Product::Placements(scatter))) = inputs.product("placements") else {
        return Err(StageError::new(
            FailureKind::InvalidInput,
            Some("placements"),
            "port `placements` is not bound to scatter placements",
        ));
    };
    let count = scatter.placement_count();
    let placed = if context.parallel {
        let layers: Vec<&[Placement]> = scatter
            .layers
            .iter()
            .map(|layer| layer.output.placements.as_slice())
            .collect();
        select_and_place_par(&layers, context.seed, &p.scale)
    } else {
        select_and_place_each(scatter.placements(), count, context.seed, &p.scale)
    };
    let objects = placed.map_err(|error| {
        let (kind, field) = match error {
            SelectPlaceError::Sampler(_) => (FailureKind::SearchExhaustion, None),
            _ => (FailureKind::InvalidInput, Some("scale_min")),
        };
        StageError::new(kind, field, error.to_string())
    })?;
    let provenance = StageProvenance {
        family: Some(scatter.family.clone()),
        derived: Some(Derivation::SelectPlace {
            seed: context.seed,
            scale_min: p.scale.scale_min,
            placements_stage: stage,
        }),
        ..StageProvenance::default()
    };
    Ok(StageOutput {
        product: Product::PlacedObjects(PlacedProduct {
            family: scatter.family.clone(),
            variant_ids: scatter.variant_ids.clone(),
            lattice_unit_m: scatter.lattice_unit_m,
            scale_unit: p.scale_unit,
            placements_stage: stage,
            objects,
        }),
        provenance,
    })
}

/// The provenance of object `id` of a select-and-place product, re-derived: the rotation word at
/// its address, the scale offset read off the object.
pub(crate) fn derive_object(
    product: &PlacedProduct,
    seed: u64,
    scale_min: u32,
    placements_stage: u32,
    id: ScatterId,
) -> Option<ObjectProvenance> {
    let object = product.objects.iter().find(|o| o.placement.id == id)?;
    let key = DomainKey::new(seed, Domain::Transform);
    let scope = id.bits();
    let record = |dimension, value, purpose| DrawRecord {
        domain: Domain::Transform,
        seed,
        scope,
        event: 0,
        dimension,
        value,
        purpose,
    };
    Some(ObjectProvenance {
        key: ChildKey::Scatter(id),
        parent: Some(ParentRef {
            stage: placements_stage,
            key: ChildKey::Scatter(id),
        }),
        variant: Some(object.placement.variant),
        draws: vec![
            record(
                ROTATION_DIMENSION,
                sample_u32(&key, Address::new(scope, 0, ROTATION_DIMENSION)),
                DrawPurpose::Rotation,
            ),
            record(
                SCALE_DIMENSION,
                object.scale.saturating_sub(scale_min),
                DrawPurpose::Scale,
            ),
        ],
        constraints: vec![ConstraintCheck::passed(Constraint::ScaleInRange)],
    })
}
