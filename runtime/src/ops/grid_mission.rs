//! Seeded grid mission solver: spawn west, extraction east, objectives, blockers that keep the
//! layout playable, role-tagged fill, BFS bot path and NPC-placement check.
//!
//! Per attempt `a` (0-based) the solver draws from the structure domain under the attempt seed
//! `seed + a × 7919` (wrapping `u64`), so the same request reproduces the same layout and a failed
//! attempt deterministically perturbs the next. Address layout (key = `key(attempt_seed, structure)`,
//! dimension always 0; "index among" lists are row-major, chunk lists in library order):
//!
//! | scope | event                | draw                                                       |
//! | ----- | -------------------- | ---------------------------------------------------------- |
//! | 1     | 0                    | spawn row on the west edge, below `height`                 |
//! | 2     | 0                    | extraction row on the east edge, below `height`            |
//! | 3     | objective index      | index among free cells at Manhattan ≥ minimum from spawn   |
//! | 4     | blocker draw index   | index among free cells                                     |
//! | 5     | `y × width + x`      | index among the cell's candidates ([`cell_candidates`]: the library's chunks of the cell's role, fill cells any connector / encounter / landmark, narrowed by constraint tags, entry sockets and archetype) |
//!
//! Steps of one attempt, each failure a typed [`AttemptFailure`]: spawn and extraction (rejected when
//! closer than the minimum Manhattan distance); objectives; `floor(area × density‰ / 1000)` blocker
//! draws, each kept only if spawn → objectives → extraction stays reachable; chunk choice for every
//! cell; the NPC-placement minimum; the minimum critical path length (steps of the bot path). The bot path is a BFS over 4-neighbours (east, west, south,
//! north order) with blockers as walls, chained through the waypoints.

mod daily;
mod playability;
mod select;

pub use select::{
    cell_candidates, path_sides, socket_bits, SOCKET_E, SOCKET_N, SOCKET_S, SOCKET_W,
};

pub use daily::{
    daily_date_id, daily_key, parse_date_id, solve_daily_mission, DailyError, DailySeedBook,
    DailySeedRecord,
};

pub use playability::{
    admits_npc, find_path_through_waypoints, validate_npc_placement, validate_playability,
    NpcPlacementFailure, PlayabilityFailure, TraversalGrid,
};

use playability::{npc_cells, waypoints};

use std::num::NonZeroU32;

use thiserror::Error;

use crate::content::{ChunkRole, GridCell, MissionChunk, MissionLayout};
use crate::rng::{sample_bounded, Address, Domain, DomainKey, SamplerExhausted};

/// The stride between attempt seeds.
pub const ATTEMPT_SEED_STRIDE: u64 = 7919;
/// Largest grid width or height.
pub const MAX_GRID_SIDE: u32 = 64;
/// Largest number of objectives.
pub const MAX_OBJECTIVES: u32 = 32;
/// Largest number of attempts per request.
pub const MAX_ATTEMPTS: u32 = 64;

/// Structure-domain scope of the spawn row draw.
pub const SCOPE_SPAWN: u64 = 1;
/// Structure-domain scope of the extraction row draw.
pub const SCOPE_EXTRACTION: u64 = 2;
/// Structure-domain scope of the objective draws.
pub const SCOPE_OBJECTIVES: u64 = 3;
/// Structure-domain scope of the blocker draws.
pub const SCOPE_BLOCKERS: u64 = 4;
/// Structure-domain scope of the chunk choices.
pub const SCOPE_CHUNKS: u64 = 5;

/// One entry of the chunk library.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChunkDefinition {
    /// Unique, non-empty id (e.g. an asset path).
    pub id: String,
    /// The role the chunk plays.
    pub role: ChunkRole,
    /// Whether the chunk carries the explicit NPC-spawn tag.
    pub npc_spawn_tag: bool,
    /// Its archetype (`Room`, `Hallway`, …; empty when not authored).
    pub archetype: String,
    /// Its entry sockets as [`SOCKET_N`] | [`SOCKET_E`] | … bits (0: not authored).
    pub sockets: u8,
    /// Its authored tags (`Procgen.Constraint.*`, …).
    pub tags: Vec<String>,
}

impl ChunkDefinition {
    /// A chunk with only an id, a role and the NPC-spawn flag (an inline `chunks` entry).
    pub fn new(id: impl Into<String>, role: ChunkRole, npc_spawn_tag: bool) -> ChunkDefinition {
        ChunkDefinition {
            id: id.into(),
            role,
            npc_spawn_tag,
            archetype: String::new(),
            sockets: 0,
            tags: Vec::new(),
        }
    }
}

/// What to solve.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MissionRequest {
    /// The requested seed.
    pub seed: u64,
    /// Grid width, `2..=64`.
    pub width: u32,
    /// Grid height, `1..=64`.
    pub height: u32,
    /// Objectives to place, `0..=32`.
    pub objective_count: u32,
    /// Minimum Manhattan distance between spawn and extraction.
    pub min_extraction_distance: u32,
    /// Minimum Manhattan distance from spawn to every objective.
    pub min_objective_distance: u32,
    /// Blocker draws as per mille of the grid area, `0..=1000`.
    pub blocker_density_permille: u32,
    /// Minimum number of cells admitting NPCs.
    pub min_npc_cells: u32,
    /// Attempts before giving up, `1..=64`.
    pub max_attempts: u32,
    /// Minimum critical path length: steps of the bot path spawn → objectives → extraction
    /// (0: no minimum). A shorter layout fails its attempt.
    pub min_critical_path_steps: u32,
    /// The chunks to build from, in authored order.
    pub chunk_library: Vec<ChunkDefinition>,
}

/// Why one attempt failed (the solver then tries the next attempt seed).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AttemptFailure {
    /// Spawn and extraction are closer than the minimum.
    #[error("spawn and extraction are {distance} apart, below the minimum {minimum}")]
    ExtractionTooClose {
        /// Their Manhattan distance.
        distance: u32,
        /// The minimum.
        minimum: u32,
    },
    /// No free cell is far enough from spawn for an objective.
    #[error("no free cell for objective {objective} at the minimum distance from spawn")]
    NoObjectiveCell {
        /// The index of the objective that could not be placed.
        objective: u32,
    },
    /// The layout is not playable.
    #[error("unplayable: {0}")]
    Unplayable(PlayabilityFailure),
    /// The bot path is shorter than the minimum critical path length.
    #[error("the critical path is {steps} steps, below the minimum {minimum}")]
    CriticalPathTooShort {
        /// Steps of the bot path.
        steps: u32,
        /// The minimum.
        minimum: u32,
    },
    /// Too few cells admit NPCs.
    #[error("{found} cells admit NPCs, below the minimum {required}")]
    NotEnoughNpcCells {
        /// Cells admitting NPCs.
        found: u32,
        /// The minimum.
        required: u32,
    },
}

/// A request that cannot be solved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MissionError {
    /// The grid size is outside the limits.
    #[error("grid {width}×{height} is outside 2..={MAX_GRID_SIDE} × 1..={MAX_GRID_SIDE}")]
    GridSize {
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
    },
    /// More objectives than [`MAX_OBJECTIVES`].
    #[error("{count} objectives exceed {MAX_OBJECTIVES}")]
    TooManyObjectives {
        /// Count given.
        count: u32,
    },
    /// Density above 1000‰.
    #[error("blocker density {permille}‰ exceeds 1000‰")]
    BlockerDensity {
        /// Density given.
        permille: u32,
    },
    /// Attempts outside `1..=MAX_ATTEMPTS`.
    #[error("max attempts {max_attempts} is outside 1..={MAX_ATTEMPTS}")]
    Attempts {
        /// Count given.
        max_attempts: u32,
    },
    /// A chunk id is empty or repeated.
    #[error("chunk id {id:?} is empty or repeated")]
    ChunkId {
        /// The id.
        id: String,
    },
    /// The library has no chunk for a role the solver needs (fill: any of connector, encounter,
    /// landmark).
    #[error("the chunk library has no {} chunk", role.name())]
    MissingChunkRole {
        /// The missing role.
        role: ChunkRole,
    },
    /// Every attempt failed; one reason per attempt, in attempt order.
    #[error("no playable layout in {} attempts", attempts.len())]
    Unsolved {
        /// Why each attempt failed.
        attempts: Vec<AttemptFailure>,
    },
    /// A bounded draw exhausted its attempts.
    #[error(transparent)]
    Sampler(#[from] SamplerExhausted),
}

/// The seed of attempt `attempt`: `seed + attempt × 7919`, wrapping.
pub fn attempt_seed(seed: u64, attempt: u32) -> u64 {
    seed.wrapping_add(u64::from(attempt).wrapping_mul(ATTEMPT_SEED_STRIDE))
}

/// Solves `request`: the first attempt that passes every check, or every attempt's failure.
pub fn solve_mission(request: &MissionRequest) -> Result<MissionLayout, MissionError> {
    validate_request(request)?;
    let mut failures = Vec::new();
    for attempt in 0..request.max_attempts {
        match solve_attempt(request, attempt)? {
            Ok(layout) => return Ok(layout),
            Err(failure) => failures.push(failure),
        }
    }
    Err(MissionError::Unsolved { attempts: failures })
}

/// Checks the request's limits and library before any attempt.
fn validate_request(request: &MissionRequest) -> Result<(), MissionError> {
    let (width, height) = (request.width, request.height);
    if !(2..=MAX_GRID_SIDE).contains(&width) || !(1..=MAX_GRID_SIDE).contains(&height) {
        return Err(MissionError::GridSize { width, height });
    }
    if request.objective_count > MAX_OBJECTIVES {
        return Err(MissionError::TooManyObjectives {
            count: request.objective_count,
        });
    }
    if request.blocker_density_permille > 1000 {
        return Err(MissionError::BlockerDensity {
            permille: request.blocker_density_permille,
        });
    }
    if !(1..=MAX_ATTEMPTS).contains(&request.max_attempts) {
        return Err(MissionError::Attempts {
            max_attempts: request.max_attempts,
        });
    }
    check_library(&request.chunk_library)
}

/// The library's own rules, known before any draw: every chunk id non-empty and unique, and a
/// chunk for every role the solver places (spawn, objective, extraction, blocker, and one of the
/// fill roles). The operator's parameter decoding applies them too, so `check` reports what the
/// solver would refuse.
pub fn check_library(chunks: &[ChunkDefinition]) -> Result<(), MissionError> {
    let mut ids: Vec<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(id) = ids.first().filter(|id| id.is_empty()) {
        return Err(MissionError::ChunkId {
            id: (*id).to_owned(),
        });
    }
    if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(MissionError::ChunkId {
            id: pair[0].to_owned(),
        });
    }
    let has = |role: ChunkRole| chunks.iter().any(|c| c.role == role);
    for role in [
        ChunkRole::Spawn,
        ChunkRole::Objective,
        ChunkRole::Extraction,
        ChunkRole::Blocker,
    ] {
        if !has(role) {
            return Err(MissionError::MissingChunkRole { role });
        }
    }
    if !ChunkRole::FILL.into_iter().any(has) {
        return Err(MissionError::MissingChunkRole {
            role: ChunkRole::Connector,
        });
    }
    Ok(())
}

/// A bounded structure draw below `n` (`n ≥ 1` is the caller's precondition; 0 maps to 1).
fn draw(key: &DomainKey, scope: u64, event: u32, n: usize) -> Result<usize, SamplerExhausted> {
    let bound = u32::try_from(n)
        .ok()
        .and_then(NonZeroU32::new)
        .unwrap_or(NonZeroU32::MIN);
    sample_bounded(key, Address::new(scope, event, 0), bound).map(|v| v as usize)
}

/// One attempt: the outer `Result` carries fatal sampler errors, the inner one the attempt's failure.
fn solve_attempt(
    request: &MissionRequest,
    attempt: u32,
) -> Result<Result<MissionLayout, AttemptFailure>, SamplerExhausted> {
    let seed = attempt_seed(request.seed, attempt);
    let cells = AttemptCells {
        request,
        key: DomainKey::new(seed, Domain::Structure),
        width: request.width,
        area: (request.width * request.height) as usize,
    };
    let (width, height) = (request.width, request.height);
    let mut roles: Vec<Option<ChunkRole>> = vec![None; cells.area];

    let spawn = GridCell::new(0, draw(&cells.key, SCOPE_SPAWN, 0, height as usize)? as u32);
    let extraction = GridCell::new(
        width - 1,
        draw(&cells.key, SCOPE_EXTRACTION, 0, height as usize)? as u32,
    );
    let distance = spawn.manhattan(extraction);
    if distance < request.min_extraction_distance {
        return Ok(Err(AttemptFailure::ExtractionTooClose {
            distance,
            minimum: request.min_extraction_distance,
        }));
    }
    roles[cells.index(spawn)] = Some(ChunkRole::Spawn);
    roles[cells.index(extraction)] = Some(ChunkRole::Extraction);
    let objectives = match cells.place_objectives(&mut roles, spawn)? {
        Ok(objectives) => objectives,
        Err(failure) => return Ok(Err(failure)),
    };

    let points = waypoints(spawn, &objectives, extraction);
    let mut grid = match TraversalGrid::new(width, height) {
        Ok(grid) => grid,
        Err(failure) => return Ok(Err(AttemptFailure::Unplayable(failure))),
    };
    let path = match find_path_through_waypoints(&grid, &points) {
        Ok(path) => path,
        Err(failure) => return Ok(Err(AttemptFailure::Unplayable(failure))),
    };
    cells.place_blockers(&mut roles, &mut grid, path, &points)?;
    // A fresh search on the final grid, so the bot path does not depend on the blocker history.
    let bot_path = match find_path_through_waypoints(&grid, &points) {
        Ok(path) => path,
        Err(failure) => return Ok(Err(AttemptFailure::Unplayable(failure))),
    };
    let chunks = cells.pick_chunks(&roles, &bot_path)?;

    let npc_cells = npc_cells(&chunks);
    let found = u32::try_from(npc_cells.len()).unwrap_or(u32::MAX);
    if found < request.min_npc_cells {
        return Ok(Err(AttemptFailure::NotEnoughNpcCells {
            found,
            required: request.min_npc_cells,
        }));
    }
    let steps = u32::try_from(bot_path.len().saturating_sub(1)).unwrap_or(u32::MAX);
    if steps < request.min_critical_path_steps {
        return Ok(Err(AttemptFailure::CriticalPathTooShort {
            steps,
            minimum: request.min_critical_path_steps,
        }));
    }
    Ok(Ok(MissionLayout {
        seed: request.seed,
        attempt,
        attempt_seed: seed,
        width,
        height,
        spawn,
        extraction,
        objectives,
        chunks,
        bot_path,
        npc_cells,
        daily: None,
    }))
}

/// One attempt's grid cells, indexed row by row, and the structure key its draws use.
struct AttemptCells<'r> {
    request: &'r MissionRequest,
    key: DomainKey,
    width: u32,
    area: usize,
}

impl AttemptCells<'_> {
    fn index(&self, cell: GridCell) -> usize {
        (cell.y * self.width + cell.x) as usize
    }

    fn cell_of(&self, i: usize) -> GridCell {
        GridCell::new(i as u32 % self.width, i as u32 / self.width)
    }

    /// Draws each objective among the free cells far enough from the spawn.
    fn place_objectives(
        &self,
        roles: &mut [Option<ChunkRole>],
        spawn: GridCell,
    ) -> Result<Result<Vec<GridCell>, AttemptFailure>, SamplerExhausted> {
        let mut objectives = Vec::new();
        for objective in 0..self.request.objective_count {
            let eligible: Vec<usize> = (0..self.area)
                .filter(|&i| {
                    roles[i].is_none()
                        && self.cell_of(i).manhattan(spawn) >= self.request.min_objective_distance
                })
                .collect();
            if eligible.is_empty() {
                return Ok(Err(AttemptFailure::NoObjectiveCell { objective }));
            }
            let chosen = eligible[draw(&self.key, SCOPE_OBJECTIVES, objective, eligible.len())?];
            roles[chosen] = Some(ChunkRole::Objective);
            objectives.push(self.cell_of(chosen));
        }
        Ok(Ok(objectives))
    }

    /// Draws blockers among the free cells, keeping each only if a path through the waypoints
    /// survives it.
    fn place_blockers(
        &self,
        roles: &mut [Option<ChunkRole>],
        grid: &mut TraversalGrid,
        mut path: Vec<GridCell>,
        points: &[GridCell],
    ) -> Result<(), SamplerExhausted> {
        let blocker_draws = self.area * self.request.blocker_density_permille as usize / 1000;
        for event in 0..blocker_draws {
            let free: Vec<usize> = (0..self.area).filter(|&i| roles[i].is_none()).collect();
            if free.is_empty() {
                break;
            }
            let chosen = free[draw(&self.key, SCOPE_BLOCKERS, event as u32, free.len())?];
            let cell = self.cell_of(chosen);
            grid.set_wall(cell, true);
            // A blocker off the current path cannot break it; one on it needs a new proof.
            if path.contains(&cell) {
                match find_path_through_waypoints(grid, points) {
                    Ok(new_path) => path = new_path,
                    Err(_) => {
                        grid.set_wall(cell, false);
                        continue;
                    }
                }
            }
            roles[chosen] = Some(ChunkRole::Blocker);
        }
        Ok(())
    }

    /// Draws a library chunk for every cell among its candidates ([`cell_candidates`]); sorted
    /// by cell.
    fn pick_chunks(
        &self,
        roles: &[Option<ChunkRole>],
        bot_path: &[GridCell],
    ) -> Result<Vec<MissionChunk>, SamplerExhausted> {
        let mut chunks = Vec::with_capacity(self.area);
        for (i, role) in roles.iter().enumerate() {
            let cell = self.cell_of(i);
            let choices = cell_candidates(&self.request.chunk_library, *role, cell, bot_path);
            let Some(&chosen) =
                choices.get(draw(&self.key, SCOPE_CHUNKS, i as u32, choices.len())?)
            else {
                // Unreachable: the library was checked to hold every role the solver assigns.
                continue;
            };
            chunks.push(MissionChunk {
                cell,
                role: chosen.role,
                chunk_id: chosen.id.clone(),
                blocks_traversal: chosen.role == ChunkRole::Blocker,
                npc_spawn_tag: chosen.npc_spawn_tag,
            });
        }
        chunks.sort_by_key(|chunk| chunk.cell);
        Ok(chunks)
    }
}

#[cfg(test)]
mod tests;
