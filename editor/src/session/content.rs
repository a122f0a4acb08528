//! Generated content as the preview reads it: the runtime's [`GeneratedBundle`] (every stage's
//! product and provenance), the preview shapes of the asset families, and the walkable routes the
//! simulation gets from it.

use std::collections::BTreeMap;
use std::sync::Arc;

use stagecraft_runtime::content::{BoundsM, PedestrianSpace, Product, StreetBlock};
use stagecraft_runtime::generate::{GeneratedBundle, StageRecord};
use stagecraft_runtime::project::{AssetFamily, AssetVariant, Vec2};
use stagecraft_runtime::sim::{RouteError, SimRoute};

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

    /// The walkable routes of every street block, as the simulation walks them, sorted by id
    /// (a route id that repeats keeps its first occurrence). Degenerate routes are left out.
    pub fn sim_routes(&self) -> Vec<SimRoute> {
        let mut routes: BTreeMap<&str, SimRoute> = BTreeMap::new();
        for block in self.street_blocks() {
            for (id, route) in space_routes(&block.space) {
                if let (false, Ok(route)) = (routes.contains_key(id), route) {
                    routes.insert(id, route);
                }
            }
        }
        routes.into_values().collect()
    }

    /// The bounds of every product, meters.
    pub fn bounds_m(&self) -> Option<BoundsM> {
        self.stages()
            .iter()
            .filter_map(|s| s.summary.bounds_m)
            .reduce(BoundsM::union)
    }
}

fn space_routes(
    space: &PedestrianSpace,
) -> impl Iterator<Item = (&str, Result<SimRoute, RouteError>)> {
    space.routes.iter().map(|route| {
        let points = route
            .points
            .iter()
            .map(|p| Vec2 { x: p.x, y: p.y })
            .collect();
        (route.id.as_str(), SimRoute::new(route.id.clone(), points))
    })
}
