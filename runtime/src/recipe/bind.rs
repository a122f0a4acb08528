//! Port binding, the one definition: which operator port each stage input takes. The compiler
//! binds with it and the editor's recipe graph draws its wires with it, so both always agree.
//!
//! Inputs are bound in order: each input whose kind is known takes the first still-free port (in
//! the operator's port order) that accepts that kind.

use crate::content::ProductKind;
use crate::ops::registry::{InputPort, PortKind, Registry};
use crate::project::{Recipe, RecipeInput, StageInput};

/// What a stage input carries, when the compiler can tell: a family for a recipe input naming a
/// family, a stage's product kind for a stage whose operator is registered. `None` for a literal
/// value, a missing input or stage, a stage whose operator is unknown, or a `subrecipe` stage
/// (what it publishes is its child's: the compiler asks `subrecipe::input_kind`).
pub fn source_kind(recipe: &Recipe, registry: &Registry, input: &StageInput) -> Option<PortKind> {
    match input {
        StageInput::Named(name) => match recipe.inputs.get(name)? {
            RecipeInput::Family(_) => Some(PortKind::Family),
            RecipeInput::Value(_) => None,
            RecipeInput::Product(kind) => product_kind(kind).map(PortKind::Product),
        },
        StageInput::Stage(id) => {
            let stage = recipe.stages.iter().find(|s| s.id == *id)?;
            registry
                .get(&stage.operator, stage.algorithm)
                .and_then(|op| op.output_kind())
                .map(PortKind::Product)
        }
    }
}

/// Every product kind, in declaration order.
pub const PRODUCT_KINDS: [ProductKind; 6] = [
    ProductKind::StreetBlock,
    ProductKind::Placements,
    ProductKind::PlacedObjects,
    ProductKind::MissionLayout,
    ProductKind::StreamingPlan,
    ProductKind::AssemblyPlan,
];

/// The product kind named `name` (as `ProductKind::name` spells it), if there is one.
pub fn product_kind(name: &str) -> Option<ProductKind> {
    PRODUCT_KINDS.into_iter().find(|kind| kind.name() == name)
}

/// Binds inputs of `kinds`, in order, to `ports`: one entry per input, the index of the port it
/// takes, or `None` when its kind is unknown or no free port accepts it.
pub fn bind_ports(ports: &[InputPort], kinds: &[Option<PortKind>]) -> Vec<Option<usize>> {
    let mut taken = vec![false; ports.len()];
    kinds
        .iter()
        .map(|kind| {
            let kind = (*kind)?;
            let free = ports
                .iter()
                .zip(&taken)
                .position(|(port, taken)| port.kind == kind && !taken)?;
            taken[free] = true;
            Some(free)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_product_kind_is_named_once() {
        for kind in PRODUCT_KINDS {
            // An exhaustive match: a new kind fails to compile here until it is listed.
            let listed = match kind {
                ProductKind::StreetBlock
                | ProductKind::Placements
                | ProductKind::PlacedObjects
                | ProductKind::MissionLayout
                | ProductKind::StreamingPlan
                | ProductKind::AssemblyPlan => true,
            };
            assert!(listed);
            assert_eq!(product_kind(kind.name()), Some(kind));
        }
        assert_eq!(product_kind("Forest"), None);
    }

    const PORTS: [InputPort; 3] = [
        InputPort {
            name: "a",
            kind: PortKind::Family,
            required: true,
            doc: "First family.",
        },
        InputPort {
            name: "b",
            kind: PortKind::Product(ProductKind::StreetBlock),
            required: false,
            doc: "A block.",
        },
        InputPort {
            name: "c",
            kind: PortKind::Family,
            required: false,
            doc: "Second family.",
        },
    ];

    #[test]
    fn each_input_takes_the_first_free_port_of_its_kind() {
        let family = Some(PortKind::Family);
        let block = Some(PortKind::Product(ProductKind::StreetBlock));
        assert_eq!(
            bind_ports(&PORTS, &[family, None, block, family, family, block]),
            vec![Some(0), None, Some(1), Some(2), None, None]
        );
    }
}
