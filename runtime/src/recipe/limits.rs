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
