//! Generated content as the preview reads it: the runtime's [`GeneratedBundle`] (every stage's
//! product and provenance) and the preview shapes of the asset families. The simulation's space
//! is built from it by the runtime ([`SimSpace::from_products`]); nothing here converts content.

use std::collections::BTreeMap;
use std::sync::Arc;

use stagecraft_io::scenario::world_over;
use stagecraft_runtime::content::{BoundsM, Product, StreetBlock};
use stagecraft_runtime::generate::{GeneratedBundle, StageRecord};
use stagecraft_runtime::project::{AssetFamily, AssetVariant, Scenario};
use stagecraft_runtime::sim::{SimSpace, SpaceBuildError, World};

/// A generated recipe instance, ready to preview.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewContent {
    /// The bundle the generator published.
    pub bundle: Arc<GeneratedBundle>,
    /// Asset families by id (their preview shapes and colours).
    pub families: BTreeMap<String, AssetFamily>,
}

impl PreviewContent {
    /// The recipe generated.
    pub fn recipe(&self) -> &str {
        &self.bundle.recipe_id
    }

    /// The root seed it was generated with.
    pub fn seed(&self) -> u64 {
        self.bundle.root_seed
    }

    /// Stage records in plan order.
    pub fn stages(&self) -> &[StageRecord] {
        &self.bundle.stages
    }

    /// The record of stage `stage`.
    pub fn stage(&self, stage: u32) -> Option<&StageRecord> {
        self.bundle.stage(stage)
    }

    /// Position of stage `stage` in plan order (for palettes); past the end when absent.
    pub fn stage_ordinal(&self, stage: u32) -> usize {
        self.stages()
            .iter()
            .position(|s| s.stage == stage)
            .unwrap_or(self.stages().len())
    }

    /// The variant `variant` of family `family`, if known.
    pub fn variant(&self, family: &str, variant: u32) -> Option<&AssetVariant> {
        self.families
            .get(family)?
            .variants
            .get(usize::try_from(variant).ok()?)
    }

    /// The street blocks, in plan order.
    pub fn street_blocks(&self) -> impl Iterator<Item = &StreetBlock> {
        self.stages()
            .iter()
            .filter_map(|s| match s.product.as_ref() {
                Product::StreetBlock(block) => Some(block),
                _ => None,
            })
    }

    /// The simulation's space of this content: the runtime's one content → simulation
    /// conversion over the bundle's products and the families' collision sizes.
    pub fn sim_space(&self) -> Result<SimSpace, SpaceBuildError> {
        SimSpace::from_products(self.bundle.products(), &self.families)
    }

    /// A world of `scenario` over this content, seeded with `seed`, built by the runtime (tests
    /// and benchmarks; the session keeps the space to compare it).
    pub fn world(&self, scenario: &Scenario, seed: u64) -> Result<World, String> {
        let space = Arc::new(self.sim_space().map_err(|e| e.to_string())?);
        world_over(&space, scenario, seed)
    }

    /// The bounds of every product, meters.
    pub fn bounds_m(&self) -> Option<BoundsM> {
        self.stages()
            .iter()
            .filter_map(|s| s.summary.bounds_m)
            .reduce(BoundsM::union)
    }
}
