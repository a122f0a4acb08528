//! Which library chunks a cell may draw from: its role, then the constraint tags, entry sockets and
//! archetypes the cell asks for.
//!
//! The candidates of a cell are the library's chunks of its role (a cell without a role: every
//! connector, encounter and landmark chunk), in library order, narrowed by three preferences in
//! turn. Each narrowing is kept only when it leaves at least one chunk, so a library that authors
//! no tags, sockets or archetypes (an inline `chunks` list) draws among exactly its role's chunks.
//!
//! 1. **Constraint tag.** Spawn cells prefer `Procgen.Constraint.EdgeWest`, extraction cells
//!    `EdgeEast`, objectives `Objective`, blockers `Blocks`; a fill cell on the bot path prefers
//!    `Traversable` or `NpcSpawn` (something a bot walks through).
//! 2. **Entry sockets.** A cell on the bot path prefers chunks with an entry socket on every side
//!    the path enters or leaves it by; failing that, on at least one of them.
//! 3. **Archetype.** A cell off the bot path prefers any archetype but `Hallway` (a corridor that
//!    leads nowhere).
//!
//! The chosen chunk is then the structure-domain draw of scope 5 among the candidates (see the
//! parent module), so the same seed and library give the same chunks.

use crate::content::{ChunkRole, GridCell};

use super::ChunkDefinition;

/// Entry socket bit of the north side (towards row `y − 1`).
pub const SOCKET_N: u8 = 1;
/// Entry socket bit of the east side (towards column `x + 1`).
pub const SOCKET_E: u8 = 2;
/// Entry socket bit of the south side (towards row `y + 1`).
pub const SOCKET_S: u8 = 4;
/// Entry socket bit of the west side (towards column `x − 1`).
pub const SOCKET_W: u8 = 8;

/// The socket bits of side names `N`, `E`, `S`, `W` (others are ignored).
pub fn socket_bits<'a>(sides: impl IntoIterator<Item = &'a str>) -> u8 {
    sides.into_iter().fold(0, |bits, side| {
        bits | match side {
            "N" => SOCKET_N,
            "E" => SOCKET_E,
            "S" => SOCKET_S,
            "W" => SOCKET_W,
            _ => 0,
        }
    })
}

/// The tag prefix of constraint tags.
const TAG: &str = "Procgen.Constraint.";

/// The constraint tags a cell of `role` prefers (`None`: a fill cell), on the bot path or not.
fn preferred_tags(role: Option<ChunkRole>, on_path: bool) -> &'static [&'static str] {
    match role {
        Some(ChunkRole::Spawn) => &["EdgeWest"],
        Some(ChunkRole::Extraction) => &["EdgeEast"],
        Some(ChunkRole::Objective) => &["Objective"],
        Some(ChunkRole::Blocker) => &["Blocks"],
        Some(_) | None if on_path => &["Traversable", "NpcSpawn"],
        _ => &[],
    }
}

/// The sides by which the bot path enters or leaves `cell` (empty off the path).
pub fn path_sides(cell: GridCell, bot_path: &[GridCell]) -> u8 {
    let side = |from: GridCell, to: GridCell| -> u8 {
        match (
            i64::from(to.x) - i64::from(from.x),
            i64::from(to.y) - i64::from(from.y),
        ) {
            (1, 0) => SOCKET_E,
            (-1, 0) => SOCKET_W,
            (0, 1) => SOCKET_S,
            (0, -1) => SOCKET_N,
            _ => 0,
        }
    };
    bot_path.windows(2).fold(0, |bits, step| {
        if step[0] == cell {
            bits | side(step[0], step[1])
        } else if step[1] == cell {
            bits | side(step[1], step[0])
        } else {
            bits
        }
    })
}

/// Keeps the chunks passing `keep` when at least one does.
fn narrow(
    candidates: Vec<&ChunkDefinition>,
    keep: impl Fn(&ChunkDefinition) -> bool,
) -> Vec<&ChunkDefinition> {
    let kept: Vec<&ChunkDefinition> = candidates.iter().copied().filter(|c| keep(c)).collect();
    if kept.is_empty() {
        candidates
    } else {
        kept
    }
}

/// The chunks `cell` may draw from, in library order: `role` is the cell's role (`None`: a fill
/// cell), `bot_path` the layout's bot path.
pub fn cell_candidates<'a>(
    library: &'a [ChunkDefinition],
    role: Option<ChunkRole>,
    cell: GridCell,
    bot_path: &[GridCell],
) -> Vec<&'a ChunkDefinition> {
    let of_role: Vec<&ChunkDefinition> = library
        .iter()
        .filter(|c| match role {
            Some(role) => c.role == role,
            None => ChunkRole::FILL.contains(&c.role),
        })
        .collect();
    let on_path = bot_path.contains(&cell);
    let tags = preferred_tags(role, on_path);
    let tagged = narrow(of_role, |c| {
        c.tags.iter().any(|tag| {
            tag.strip_prefix(TAG)
                .is_some_and(|name| tags.contains(&name))
        })
    });
    let sides = path_sides(cell, bot_path);
    let socketed = if sides == 0 {
        tagged
    } else {
        let every = narrow(tagged, |c| c.sockets & sides == sides);
        narrow(every, |c| c.sockets & sides != 0)
    };
    if on_path {
        socketed
    } else {
        narrow(socketed, |c| c.archetype != "Hallway")
    }
}
