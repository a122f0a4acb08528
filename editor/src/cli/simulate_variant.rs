//! A variant of a scenario run, as a sweep row names it: `simulate --seed N` seeds the world
//! (the simulation's root RNG seed) with N instead of the manifest's root seed, and `--set
//! STAGE.PARAM=VALUE` edits a stage parameter of the scenario's recipe before it is generated
//! (the syntax and meaning of `diff --set`). The content is still generated at the manifest's
//! seed with its override sets, so a seed sweep runs many worlds over one street.

use stagecraft_io::scenario::ScenarioContent;
use stagecraft_runtime::project::LoadedProject;

/// The seed and parameter edits of one run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Variant<'a> {
    /// The world's seed instead of the manifest's root seed.
    pub seed: Option<u64>,
    /// `STAGE.PARAM=VALUE` edits of the recipe (RON values), applied in order.
    pub sets: &'a [String],
}

impl Variant<'_> {
    /// Applies the `--set` edits to the loaded documents (an unknown stage or a value that is
    /// not RON is an error naming the argument).
    pub fn edit(&self, loaded: &mut LoadedProject) -> anyhow::Result<()> {
        crate::cook::side::apply_sets(loaded, self.sets)
    }

    /// The content with the world's seed replaced when `--seed` is given.
    pub fn reseed(&self, mut content: ScenarioContent) -> ScenarioContent {
        if let Some(seed) = self.seed {
            content.seed = seed;
        }
        content
    }
}
