//! The `layout.grid-mission` descriptor: the seeded grid solver with its BFS playability proof.
//!
//! The solver's seed is the invocation's root seed; attempt seeds follow `seed + attempt × 7919`.

use super::{
    Capacity, FailureKind, KernelContext, Locality, OperatorDescriptor, ParamDefault, ParamProblem,
    ParamRange, ParamSet, ParamSpec, ParamType, StageError, StageInputs, StageOutput, StageParams,
};
use crate::content::{
    BoundsM, ChunkRole, Constraint, ConstraintCheck, DrawPurpose, DrawRecord, FamilyReads,
    MissionProduct, ObjectProvenance, Product, ProductKind, StageProvenance,
};
use crate::identity::ChildKey;
use crate::ops::grid_mission::{
    cell_candidates, check_library, solve_mission, ChunkDefinition, MissionError, MissionRequest,
    MAX_ATTEMPTS, MAX_GRID_SIDE, MAX_OBJECTIVES, SCOPE_CHUNKS,
};
use crate::project::chunk_library::graph_chunks;
use crate::rng::Domain;

use super::cell_graphs::{CELL_GRAPHS, GRAPH_NAMES};

/// Typed parameters of a grid-mission stage (the request without its seed).
#[derive(Debug, Clone, PartialEq)]
pub struct GridMissionStageParams {
    /// Grid width.
    pub width: u32,
    /// Grid height.
    pub height: u32,
    /// Objectives.
    pub objectives: u32,
    /// Minimum spawn–extraction Manhattan distance.
    pub min_extraction_distance: u32,
    /// Minimum spawn–objective Manhattan distance.
    pub min_objective_distance: u32,
    /// Blocker draws per mille of the area.
    pub blocker_density_permille: u32,
    /// Minimum cells admitting NPCs.
    pub min_npc_cells: u32,
    /// Attempts before giving up.
    pub max_attempts: u32,
    /// Minimum steps of the bot path (0: none).
    pub min_critical_path_steps: u32,
    /// Edge of a grid cell in the world, meters.
    pub cell_size_m: f64,
    /// The chunk library.
    pub chunks: Vec<ChunkDefinition>,
}

impl GridMissionStageParams {
    /// The solver's request at `seed` (the daily ladder solves it with a dispatched seed).
    pub fn request(&self, seed: u64) -> MissionRequest {
        MissionRequest {
            seed,
            width: self.width,
            height: self.height,
            objective_count: self.objectives,
            min_extraction_distance: self.min_extraction_distance,
            min_objective_distance: self.min_objective_distance,
            blocker_density_permille: self.blocker_density_permille,
            min_npc_cells: self.min_npc_cells,
            max_attempts: self.max_attempts,
            min_critical_path_steps: self.min_critical_path_steps,
            chunk_library: self.chunks.clone(),
        }
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
    int(
        "blocker_density_permille",
        0,
        1000,
        150,
        "Blocker draws as per mille of the grid area (‰).",
    ),
    ParamSpec {
        name: "cell_size_m",
        ty: ParamType::Float,
        unit: "m",
        range: ParamRange::Float {
            min: 1.0,
            max: 1000.0,
        },
        default: ParamDefault::Float(12.0),
        doc: "Edge of a grid cell in the world.",
    },
    ParamSpec {
        name: "chunks",
        ty: ParamType::ChunkList,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Optional,
        doc: "The chunks, inline: (id, role, npc_spawn_tag) per chunk, in authored order; ids non-empty and unique; at least one spawn, objective, extraction and blocker chunk, and one connector, encounter or landmark. Give this or `library`.",
    },
    int(
        "height",
        1,
        MAX_GRID_SIDE as i64,
        6,
        "Grid height in cells.",
    ),
    ParamSpec {
        name: "graph",
        ty: ParamType::Str,
        unit: "",
        range: ParamRange::Choice(GRAPH_NAMES),
        default: ParamDefault::Optional,
        doc: "A cell graph whose grid size, objectives, minimum critical path and blocker density fill every parameter the stage leaves out.",
    },
    ParamSpec {
        name: "library",
        ty: ParamType::ChunkLibrary,
        unit: "",
        range: ParamRange::Any,
        default: ParamDefault::Optional,
        doc: "A chunk library of the project (`chunks/<id>.chunks.ron`): its rows of the stage's `graph` are the chunks, each cell drawing among its role's rows narrowed by constraint tags, entry sockets and archetype. Give this or `chunks`.",
    },
    int(
        "max_attempts",
        1,
        MAX_ATTEMPTS as i64,
        16,
        "Attempts before the solver gives up.",
    ),
    ParamSpec {
        name: "min_critical_path_steps",
        ty: ParamType::Int,
        unit: "cells",
        range: ParamRange::Int { min: 0, max: 4096 },
        default: ParamDefault::Optional,
        doc: "Minimum steps of the bot path spawn → objectives → extraction; a shorter layout fails its attempt (absent: none).",
    },
    int(
        "min_extraction_distance",
        0,
        128,
        6,
        "Minimum Manhattan distance spawn → extraction.",
    ),
    int(
        "min_npc_cells",
        0,
        4096,
        8,
        "Minimum cells that admit NPCs.",
    ),
    int(
        "min_objective_distance",
        0,
        128,
        2,
        "Minimum Manhattan distance spawn → objective.",
    ),
    int(
        "objectives",
        0,
        MAX_OBJECTIVES as i64,
        3,
        "Objectives to place.",
    ),
    int("width", 2, MAX_GRID_SIDE as i64, 8, "Grid width in cells."),
];

/// The descriptor of `layout.grid-mission` version 1.
pub fn descriptor() -> OperatorDescriptor {
    OperatorDescriptor {
        id: "layout.grid-mission",
        algorithm: 1,
        summary: "Seeded grid mission layout with a BFS playability proof and NPC placement check.",
        inputs: &[],
        output: ProductKind::MissionLayout,
        params: PARAMS,
        presets: super::Presets {
            param: "graph",
            rows: CELL_GRAPHS,
        },
        locality: Locality::Regional,
        data_scope: super::ScopeContract::at(super::DataScope::Regional),
        decode,
        estimate,
        outline: super::no_outline,
        check: super::no_check,
        scopes: super::no_scopes,
        domains: &[Domain::Structure],
        family_reads: FamilyReads::ALL,
        lint: super::no_lint,
        kernel,
    }
}

fn decode(set: &ParamSet, _bound: &[&'static str]) -> Result<StageParams, Vec<ParamProblem>> {
    let typed = || -> Result<GridMissionStageParams, ParamProblem> {
        Ok(GridMissionStageParams {
            width: set.u32("width")?,
            height: set.u32("height")?,
            objectives: set.u32("objectives")?,
            min_extraction_distance: set.u32("min_extraction_distance")?,
            min_objective_distance: set.u32("min_objective_distance")?,
            blocker_density_permille: set.u32("blocker_density_permille")?,
            min_npc_cells: set.u32("min_npc_cells")?,
            max_attempts: set.u32("max_attempts")?,
            min_critical_path_steps: match set.get("min_critical_path_steps") {
                Some(_) => set.u32("min_critical_path_steps")?,
                None => 0,
            },
            cell_size_m: set.float("cell_size_m")?,
            chunks: stage_chunks(set)?,
        })
    };
    let params = typed().map_err(|problem| vec![problem])?;
    // The solver's library rules, reported at compile time rather than by the kernel.
    if let Err(error) = check_library(&params.chunks) {
        let expected = match error {
            MissionError::ChunkId { .. } => "each chunk id non-empty and at most once",
            _ => "a chunk for each of spawn, objective, extraction and blocker, and one connector, encounter or landmark",
        };
        let field = if set.has("library") {
            "library"
        } else {
            "chunks"
        };
        return Err(vec![ParamProblem::new(field, error.to_string(), expected)]);
    }
    let problems = unsatisfiable(&params);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(StageParams::GridMission(params))
}

/// The stage's chunks: the inline `chunks`, or the rows of `library` for the stage's `graph`.
fn stage_chunks(set: &ParamSet) -> Result<Vec<ChunkDefinition>, ParamProblem> {
    let library = set.library("library")?;
    match (set.has("chunks"), library) {
        (true, None) => set.chunks("chunks"),
        (false, Some(library)) => {
            let Some(crate::project::ParamValue::Str(graph)) = set.get("graph") else {
                return Err(ParamProblem::new(
                    "graph",
                    format!(
                        "chunk library `{}` is given without a graph to take its rows of",
                        library.id
                    ),
                    format!("`graph`: one of {}", GRAPH_NAMES.join(", ")),
                ));
            };
            Ok(graph_chunks(&library, graph))
        }
        (true, Some(_)) => Err(ParamProblem::new(
            "library",
            "both `chunks` and `library` are given",
            "either inline `chunks` or a `library`, not both",
        )),
        (false, None) => Err(ParamProblem::new(
            "chunks",
            "missing parameter `chunks` (or `library`)",
            "`chunks`: a list of chunks, or `library`: a chunk library id",
        )),
    }
}

/// Minimums no attempt can meet on the grid, whatever the draws: every attempt would fail and the
/// kernel would report an exhausted search, so they are refused with the parameters instead.
fn unsatisfiable(p: &GridMissionStageParams) -> Vec<ParamProblem> {
    // The farthest two cells of the grid are this far apart (spawn and extraction on opposite
    // edges, in opposite corners).
    let farthest = (p.width + p.height).saturating_sub(2);
    let area = p.width.saturating_mul(p.height);
    let mut problems = Vec::new();
    if p.min_extraction_distance > farthest {
        problems.push(ParamProblem::new(
            "min_extraction_distance",
            format!(
                "spawn and extraction are never more than {farthest} cells apart on a {}×{} grid, below the minimum {}",
                p.width, p.height, p.min_extraction_distance
            ),
            format!("at most {farthest} (width + height − 2)"),
        ));
    }
    if p.objectives > 0 && p.min_objective_distance > farthest {
        problems.push(ParamProblem::new(
            "min_objective_distance",
            format!(
                "no cell of a {}×{} grid is {} cells from the spawn",
                p.width, p.height, p.min_objective_distance
            ),
            format!("at most {farthest} (width + height − 2)"),
        ));
    }
    // Spawn and extraction take two cells.
    if p.objectives > area.saturating_sub(2) {
        problems.push(ParamProblem::new(
            "objectives",
            format!(
                "{} objectives do not fit beside the spawn and the extraction on a {}×{} grid",
                p.objectives, p.width, p.height
            ),
            format!(
                "at most {} (the grid's cells less two)",
                area.saturating_sub(2)
            ),
        ));
    }
    if p.min_npc_cells > area {
        problems.push(ParamProblem::new(
            "min_npc_cells",
            format!(
                "a {}×{} grid has {area} cells, fewer than the {} that must admit NPCs",
                p.width, p.height, p.min_npc_cells
            ),
            format!("at most {area} (width × height)"),
        ));
    }
    problems
}

fn estimate(params: &StageParams, _inputs: &[Capacity]) -> Capacity {
    let StageParams::GridMission(p) = params else {
        return Capacity {
            objects: 0,
            candidates: 0,
            bounds_m: None,
        };
    };
    let area = u64::from(p.width) * u64::from(p.height);
    Capacity {
        objects: area,
        candidates: area.saturating_mul(u64::from(p.max_attempts)),
        bounds_m: Some(BoundsM {
            min_x: 0.0,
            min_y: -f64::from(p.height) * p.cell_size_m,
            max_x: f64::from(p.width) * p.cell_size_m,
            max_y: 0.0,
        }),
    }
}

fn kernel(
    params: &StageParams,
    _inputs: &StageInputs<'_>,
    context: &KernelContext<'_>,
) -> Result<StageOutput, StageError> {
    let StageParams::GridMission(p) = params else {
        return Err(StageError::foreign_parameters());
    };
    let request = p.request(context.seed);
    let layout = solve_mission(&request).map_err(mission_stage_error)?;
    let objects = layout
        .chunks
        .iter()
        .map(|chunk| chunk_provenance(&p.chunks, &layout, chunk))
        .collect();
    let provenance = StageProvenance {
        family: None,
        constraints: vec![
            ConstraintCheck::passed(Constraint::Playable),
            ConstraintCheck::passed(Constraint::NpcPlacement {
                minimum: p.min_npc_cells,
            }),
        ],
        objects,
        rejected: Vec::new(),
        derived: None,
        ..StageProvenance::default()
    };
    Ok(StageOutput {
        product: Product::MissionLayout(MissionProduct {
            cell_size_m: p.cell_size_m,
            layout,
        }),
        provenance,
    })
}

/// The stage error of a mission the solver refused: the parameter at fault, or search
/// exhaustion with every attempt's failure.
fn mission_stage_error(error: MissionError) -> StageError {
    let (kind, field) = match &error {
        MissionError::Unsolved { .. } | MissionError::Sampler(_) => {
            (FailureKind::SearchExhaustion, None)
        }
        MissionError::GridSize { .. } => (FailureKind::InvalidInput, Some("width")),
        MissionError::TooManyObjectives { .. } => (FailureKind::InvalidInput, Some("objectives")),
        MissionError::BlockerDensity { .. } => {
            (FailureKind::InvalidInput, Some("blocker_density_permille"))
        }
        MissionError::Attempts { .. } => (FailureKind::InvalidInput, Some("max_attempts")),
        MissionError::ChunkId { .. } | MissionError::MissingChunkRole { .. } => {
            (FailureKind::InvalidInput, Some("chunks"))
        }
    };
    let detail = match &error {
        MissionError::Unsolved { attempts } => attempts
            .iter()
            .enumerate()
            .map(|(i, failure)| format!("attempt {i}: {failure}"))
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::new(),
    };
    let message = if detail.is_empty() {
        error.to_string()
    } else {
        format!("{error} ({detail})")
    };
    StageError::new(kind, field, message)
}

/// The provenance of one placed chunk: its cell and the chunk draw that chose it among the
/// cell's candidates ([`cell_candidates`]).
fn chunk_provenance(
    library: &[ChunkDefinition],
    layout: &crate::content::MissionLayout,
    chunk: &crate::content::MissionChunk,
) -> ObjectProvenance {
    let role = (!ChunkRole::FILL.contains(&chunk.role)).then_some(chunk.role);
    let choices = cell_candidates(library, role, chunk.cell, &layout.bot_path);
    let index = choices
        .iter()
        .position(|c| c.id == chunk.chunk_id)
        .unwrap_or(0);
    ObjectProvenance {
        key: ChildKey::GridCell {
            x: chunk.cell.x as i32,
            y: chunk.cell.y as i32,
        },
        parent: None,
        variant: None,
        draws: vec![DrawRecord {
            domain: Domain::Structure,
            seed: layout.attempt_seed,
            scope: SCOPE_CHUNKS,
            event: chunk.cell.y * layout.width + chunk.cell.x,
            dimension: 0,
            value: index as u32,
            purpose: DrawPurpose::Chunk,
        }],
        constraints: Vec::new(),
    }
}
