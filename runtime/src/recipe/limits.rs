//! The limits a recipe and its compiled plan must respect (`procedural-recipes.txt`: 128 stages and
//! 256 edges per expanded DAG, explicit ceilings for candidates and objects).

/// Most stages in one recipe.
pub const MAX_STAGES: usize = 128;
/// Most edges (stage inputs) in one recipe.
pub const MAX_EDGES: usize = 256;
/// The address schema versions the engine implements.
pub const SUPPORTED_ADDRESS_SCHEMAS: [u32; 1] = [1];
/// Most candidates one stage may evaluate, by its capacity estimate.
pub const MAX_STAGE_CANDIDATES: u64 = 1 << 24;
/// Most objects one plan may produce, by its capacity estimates.
pub const MAX_PLAN_OBJECTS: u64 = 1 << 26;

/// The default memory budget of one plan: what compiling refuses beyond, by the capacity
/// estimates. 8 GiB fits a 24 GiB machine with room for the editor and the operating system; a
/// caller with more or less memory sets its own through [`Registry::with_memory_budget`].
///
/// [`Registry::with_memory_budget`]: crate::ops::registry::Registry::with_memory_budget
pub const DEFAULT_MEMORY_BUDGET_BYTES: u64 = 8 << 30;

/// Bytes one evaluated candidate may hold at the peak of its stage: its generated row slot and
/// words, its decision and its rejection record, with the vectors' growth slack. Measured on a
/// 1 km² scatter (peak resident memory over evaluated candidates) and rounded up.
pub const BYTES_PER_CANDIDATE: u64 = 160;

/// Bytes one emitted object may hold: the product record, its share of the bundle and export.
pub const BYTES_PER_OBJECT: u64 = 192;

/// The memory a stage's capacity estimate needs at most, in bytes (saturating).
pub fn estimated_bytes(candidates: u64, objects: u64) -> u64 {
    candidates
        .saturating_mul(BYTES_PER_CANDIDATE)
        .saturating_add(objects.saturating_mul(BYTES_PER_OBJECT))
}

/// Most levels of subrecipes below a recipe (a subrecipe of a subrecipe is two levels): the
/// specification's 8 nested subrecipe levels per expanded DAG.
pub const MAX_SUBRECIPE_DEPTH: usize = 8;
