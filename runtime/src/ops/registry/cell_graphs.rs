//! The five procedural cell graphs of `layout.grid-mission` (the specification's
//! `BuildDefaultCellGraphs`): grid size, objective count, minimum critical path length and blocker
//! density per genre.
//!
//! The specification gives the Tactical cell 6×5 with 15 % blockers and the 2D arcade cell a wide
//! 8×3 with 6 %; it names the other numbers only as "tuned to its genre", so the rest are ours:
//! objectives, critical paths (steps of the bot path spawn → objectives → extraction; at least
//! the grid width − 1, which every layout needs to cross west to east) and the three remaining
//! graphs' sizes and densities.

use super::presets::{Preset, PresetValue};

/// The graph names, in documentation order (the `graph` parameter's choices).
pub const GRAPH_NAMES: &[&str] = &[
    "PCG_Tactical",
    "PCG_Stealth",
    "PCG_RTST",
    "PCG_ARPG",
    "PCG_2D",
];

/// One graph: grid `width`×`height`, `objectives`, minimum critical path `steps`, blocker density
/// in per mille.
const fn graph(
    name: &'static str,
    doc: &'static str,
    values: &'static [(&'static str, PresetValue)],
) -> Preset {
    Preset { name, doc, values }
}

/// The five cell graphs, in the order of [`GRAPH_NAMES`].
pub const CELL_GRAPHS: &[Preset] = &[
    graph(
        "PCG_Tactical",
        "Tactical cell: 6×5, 3 objectives, critical path ≥ 8 steps, 15 % blockers.",
        &[
            ("blocker_density_permille", PresetValue::Int(150)),
            ("height", PresetValue::Int(5)),
            ("min_critical_path_steps", PresetValue::Int(8)),
            ("objectives", PresetValue::Int(3)),
            ("width", PresetValue::Int(6)),
        ],
    ),
    graph(
        "PCG_Stealth",
        "Stealth cell: 7×6, 2 objectives, critical path ≥ 10 steps, 12 % blockers.",
        &[
            ("blocker_density_permille", PresetValue::Int(120)),
            ("height", PresetValue::Int(6)),
            ("min_critical_path_steps", PresetValue::Int(10)),
            ("objectives", PresetValue::Int(2)),
            ("width", PresetValue::Int(7)),
        ],
    ),
    graph(
        "PCG_RTST",
        "Real-time strategy-tactics cell: 8×6, 4 objectives, critical path ≥ 12 steps, 10 % blockers.",
        &[
            ("blocker_density_permille", PresetValue::Int(100)),
            ("height", PresetValue::Int(6)),
            ("min_critical_path_steps", PresetValue::Int(12)),
            ("objectives", PresetValue::Int(4)),
            ("width", PresetValue::Int(8)),
        ],
    ),
    graph(
        "PCG_ARPG",
        "Action-RPG cell: 7×7, 3 objectives, critical path ≥ 10 steps, 12 % blockers.",
        &[
            ("blocker_density_permille", PresetValue::Int(120)),
            ("height", PresetValue::Int(7)),
            ("min_critical_path_steps", PresetValue::Int(10)),
            ("objectives", PresetValue::Int(3)),
            ("width", PresetValue::Int(7)),
        ],
    ),
    graph(
        "PCG_2D",
        "2D arcade cell: a wide 8×3, 2 objectives, critical path ≥ 7 steps, 6 % blockers.",
        &[
            ("blocker_density_permille", PresetValue::Int(60)),
            ("height", PresetValue::Int(3)),
            ("min_critical_path_steps", PresetValue::Int(7)),
            ("objectives", PresetValue::Int(2)),
            ("width", PresetValue::Int(8)),
        ],
    ),
];
