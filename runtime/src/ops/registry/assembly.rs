//! The `assembly` descriptor: modules of a module family placed in the sockets of a frame
//! repeated along a row (kernel: [`crate::ops::assembly`]).

use super::{
    meters_to_lattice, Capacity, FailureKind, InputOutline, InputOutlines, InputPort,
    KernelContext, Locality, OperatorDescriptor, ParamDefault, ParamProblem, ParamRange, ParamSet,
    ParamSpec, ParamType, PortKind, StageError, StageInputs, StageOutput, StageParams,
};
use crate::content::{
    AssemblyPlan, BoundsM, Constraint, ConstraintCheck, DrawPurpose, DrawRecord, FamilyReads,
    ObjectProvenance, Product, ProductKind, StageProvenance,
};
use crate::identity::ChildKey;
use crate::ops::assembly::{
    assemble, Assembler, AssemblyError, AssemblyParams, MAX_FRAMES, MAX_SLOTS, ROTATION,
};
use crate::ops::scatter::address::VARIANT;
use crate::rng::Domain;

const PORTS: &[InputPort] = &[InputPort {
    name: "modules",
    kind: PortKind::Family,
    required: true,
    doc: "The module family: variants with the socket types they fit.",
}];

const fn float(
    name: &'static str,
    min: f64,
    max: f64,
    default: f64,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float { min, max },
        default: ParamDefault::Float(default),
        doc,
    }
}

const fn int(name: &'static str, min: i64, max: i64, default: i64, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::Int,
        unit: "",
        range: ParamRange::Int { min, max },
        default: ParamDefault::Int(default),
        doc,
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "frame",
        ty: ParamType::Str,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Required,
        doc: "Socket types of one frame's slots, in order, separated by spaces (1 to 128).",
    },
    float(
        "frame_gap_m",
        0.0,
        1000.0,
        0.0,
        "Gap between consecutive frames.",
    ),
    int(
        "frames",
        1,
        MAX_FRAMES as i64,
        1,
        "Frames along the row (identity cell columns 0 …).",
    ),
    float(
        "lattice_unit_m",
        0.0001,
        10.0,
        0.01,
        "Meters per lattice unit.",
    ),
    int("layer", 0, 255, 0, "Layer id packed into identities."),
    float(
        "origin_x_m",
        -1.0e6,
        1.0e6,
        0.0,
        "Where the row starts along x.",
    ),
    float("origin_y_m", -1.0e6, 1.0e6, 0.0, "The row's line, y."),
    int(
        "room",
        1,
        65_535,
        1,
        "Room (recipe instance) ordinal packed into identities.",
    ),
    int(
        "rotation_steps",
        1,
        8,
        1,
        "Rotations a module may take about the up axis (1: none, 4: quarter turns).",
    ),
    float(
        "slot_pitch_m",
        0.01,
        1000.0,
        3.0,
        "Distance between slot centres along the row.",
    ),
];

/// The descriptor of `assembly` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "assembly",
        algorithm: 1,
        summary: "Modular assembly: modules of a family placed by socket type in a frame repeated along a row, chosen by weight through the addressed RNG.",
        inputs: PORTS,
        output: ProductKind::AssemblyPlan,
        params: PARAMS,
        presets: super::Presets::NONE,
        locality: Locality::ObjectLocal,
        data_scope: super::ScopeContract::at(super::DataScope::Object),
        decode,
        estimate,
        outline: super::no_outline,
        check,
        scopes,
        // The kernel picks modules by socket type and weight; footprints and heights are the
        // viewport's.
        domains: &[Domain::Variant, Domain::Transform],
        family_reads: FamilyReads {
            weights: true,
            exclusion_radii: false,
            collision_radii: false,
            heights: false,
            sockets: true,
        },
        lint: super::no_lint,
        kernel,
    }
}

/// The socket types of a `frame` text, or why it is not one.
pub fn frame_sockets(frame: &str) -> Result<Vec<String>, ParamProblem> {
    let sockets: Vec<String> = frame.split_whitespace().map(str::to_owned).collect();
    let expected = "socket type ids (letters, digits, `-`, `_`) separated by spaces, 1 to 128";
    if sockets.is_empty() || sockets.len() > MAX_SLOTS {
        return Err(ParamProblem::new(
            "frame",
            format!("a frame has 1 to {MAX_SLOTS} slots, not {}", sockets.len()),
            expected,
        ));
    }
    let bad = |s: &&String| {
        !s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if let Some(socket) = sockets.iter().find(bad) {
        return Err(ParamProblem::new(
            "frame",
            format!("`{socket}` is not a socket type id"),
            expected,
        ));
    }
    Ok(sockets)
}

fn decode(set: &ParamSet, _bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let typed = || -> Result<AssemblyParams, ParamProblem> {
        let unit = set.float("lattice_unit_m")?;
        let lattice = |name: &str| -> Result<i64, ParamProblem> {
            let value = set.float(name)?;
            meters_to_lattice(value, unit).ok_or_else(|| {
                ParamProblem::new(
                    name,
                    "not representable in lattice units",
                    "a smaller value",
                )
            })
        };
        let params = AssemblyParams {
            sockets: frame_sockets(set.str("frame")?)?,
            frames: set.u32("frames")?,
            slot_pitch: lattice("slot_pitch_m")?,
            frame_gap: lattice("frame_gap_m")?,
            origin_x: lattice("origin_x_m")?,
            origin_y: lattice("origin_y_m")?,
            rotation_steps: set.u32("rotation_steps")?,
            lattice_unit_m: unit,
            room: set.u32("room")?,
            layer: set.u32("layer")?,
        };
        if params.slot_pitch < 1 {
            return Err(ParamProblem::new(
                "slot_pitch_m",
                "rounds to 0 lattice units",
                "at least one lattice unit",
            ));
        }
        Ok(params)
    };
    typed().map(StageParams::Assembly).map_err(|p| vec![p])
}

fn estimate(params: &StageParams, _inputs: &[Capacity]) -> Capacity {
    let StageParams::Assembly(p) = params else {
        return Capacity {
            objects: 0,
            candidates: 0,
            bounds_m: None,
        };
    };
    let modules = p.sockets.len() as u64 * u64::from(p.frames);
    let unit = p.lattice_unit_m;
    let stride = p.sockets.len() as i64 * p.slot_pitch + p.frame_gap;
    let end = p.origin_x + i64::from(p.frames) * stride;
    Capacity {
        objects: modules,
        candidates: modules,
        bounds_m: Some(BoundsM {
            min_x: p.origin_x as f64 * unit,
            min_y: p.origin_y as f64 * unit,
            max_x: end as f64 * unit,
            max_y: p.origin_y as f64 * unit,
        }),
    }
}

/// Every socket type of the frame must be fitted by a module of the bound family.
fn check(params: &StageParams, inputs: &InputOutlines<'_>) -> Vec<ParamProblem> {
    let StageParams::Assembly(p) = params else {
        return Vec::new();
    };
    let Some(family) = inputs.iter().find_map(|(port, input)| match input {
        InputOutline::Family(family) if *port == "modules" => Some(*family),
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (slot, socket) in p.sockets.iter().enumerate() {
        let fits = family
            .variants
            .iter()
            .any(|v| v.fits(socket) && v.weight > 0);
        let seen_before = p.sockets[..slot].contains(socket);
        if !fits && !seen_before {
            problems.push(ParamProblem::new(
                "frame",
                format!(
                    "no module of family `{}` fits socket `{socket}` (slot {slot})",
                    family.id
                ),
                "socket types that some variant of the family lists in its `sockets`",
            ));
        }
    }
    problems
}

fn scopes(params: &StageParams, _inputs: &InputOutlines<'_>) -> Vec<(u32, u32)> {
    match params {
        StageParams::Assembly(p) => vec![(p.room, p.layer)],
        _ => Vec::new(),
    }
}

fn kernel(
    params: &StageParams,
    inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::Assembly(params) = params else {
        return Err(StageError::foreign_parameters());
    };
    if context.cancel.is_cancelled() {
        return Err(context.cancelled());
    }
    let family = inputs.family("modules")?;
    let plan = assemble(params, family, context.seed, context.parallel).map_err(stage_error)?;
    (context.progress)(plan.modules.len() as u64);
    let assembler = Assembler::new(params, family, context.seed).map_err(stage_error)?;
    let provenance = provenance(&plan, &assembler, context.seed);
    Ok(StageOutput {
        product: Product::AssemblyPlan(plan),
        provenance,
    })
}

fn stage_error(error: AssemblyError) -> StageError {
    match error {
        AssemblyError::NoFittingModule { .. } => StageError::new(
            FailureKind::UnmetConstraints,
            Some("frame"),
            error.to_string(),
        ),
        AssemblyError::OutOfRange(_) => {
            StageError::new(FailureKind::InvalidInput, None, error.to_string())
        }
        AssemblyError::Exhausted { .. } => {
            StageError::new(FailureKind::SearchExhaustion, None, error.to_string())
        }
    }
}

/// One record per module: its variant, the socket it fits, and its draws with full addresses.
pub fn provenance(plan: &AssemblyPlan, assembler: &Assembler<'_>, seed: u64) -> StageProvenance {
    let objects = plan
        .modules
        .iter()
        .map(|m| {
            let slot = usize::from(m.slot());
            let mut draws = Vec::with_capacity(2);
            if let Ok(value) = assembler.variant_draw(m.id, slot) {
                draws.push(draw(
                    VARIANT,
                    seed,
                    m.id.bits(),
                    value,
                    DrawPurpose::Variant,
                ));
            }
            if let Some(Ok(value)) = assembler.rotation_draw(m.id) {
                draws.push(draw(
                    ROTATION,
                    seed,
                    m.id.bits(),
                    value,
                    DrawPurpose::Rotation,
                ));
            }
            ObjectProvenance {
                key: ChildKey::Scatter(m.id),
                parent: None,
                variant: Some(m.variant),
                draws,
                constraints: vec![ConstraintCheck::passed(Constraint::SocketFits {
                    slot: slot as u32,
                })],
            }
        })
        .collect();
    StageProvenance {
        family: Some(plan.family.clone()),
        constraints: Vec::new(),
        objects,
        ..StageProvenance::default()
    }
}

fn draw(
    slot: crate::ops::scatter::address::DrawSlot,
    seed: u64,
    scope: u64,
    value: u32,
    purpose: DrawPurpose,
) -> DrawRecord {
    DrawRecord {
        domain: slot.domain,
        seed,
        scope,
        event: crate::ops::scatter::address::EVENT,
        dimension: slot.dimension,
        value,
        purpose,
    }
}
