//! Operator descriptors and the explicit registry the recipe compiler resolves stages against.
//!
//! An operator describes itself ([`OperatorDescriptor`]): persistent id and algorithm version, typed
//! input ports and output kind, a parameter schema, its locality, a capacity estimator, a decoder
//! from checked parameters to typed ones, and the kernel. [`Registry::standard`] registers the
//! built-in operators explicitly — no static constructors, no discovery — and a registry can be
//! extended the same way. Saved recipes name operators by id and version, never by address.

mod assembly;
pub use assembly::frame_sockets;
mod cell_graphs;
pub mod data_scope;
pub use cell_graphs::{CELL_GRAPHS, GRAPH_NAMES};
pub use data_scope::{DataScope, ScopeContract};
mod grid_mission;
mod library_param;
pub use library_param::{library_of, library_value};
pub mod params;
pub mod presets;
mod scatter;
mod select_place;
mod streaming;
mod streaming_profiles;
mod street_block;

use std::collections::{BTreeMap, BTreeSet};

use thiserror::Error;

pub use grid_mission::GridMissionStageParams;
pub use params::{ParamDefault, ParamProblem, ParamRange, ParamSet, ParamSpec, ParamType};
pub use presets::{Preset, PresetValue, Presets};
pub use scatter::{scatter_in_chunks, scatter_kernel_with, LayerCells, ScatterStageParams};
pub use select_place::SelectPlaceStageParams;
pub use streaming::StreamingStageParams;
pub use streaming_profiles::{sanitize_profile, SanitizedProfile, STREAMING_PROFILES};

use crate::content::{
    BoundsM, Derivation, FamilyData, FamilyReads, ObjectProvenance, Product, ProductKind,
    RejectionProvenance, StageProvenance,
};
use crate::identity::ChildKey;
// Failure kinds belong to generation; a kernel's error names one.
pub(crate) use crate::generate::failure::FailureKind;
use crate::ops::street_block::StreetBlockParams;

/// What a port carries: an asset family (a recipe input) or a stage product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PortKind {
    /// An asset family, named by a recipe input.
    Family,
    /// A product of another stage.
    Product(ProductKind),
}

impl PortKind {
    /// The kind's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            PortKind::Family => "Family",
            PortKind::Product(kind) => kind.name(),
        }
    }
}

/// One input port of an operator. Each port takes at most one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputPort {
    /// The port's name.
    pub name: &'static str,
    /// What it accepts.
    pub kind: PortKind,
    /// Whether a stage must connect it.
    pub required: bool,
    /// One line of documentation.
    pub doc: &'static str,
}

/// The locality contract of an operator (what its result may depend on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Locality {
    /// One object and its parameters.
    ObjectLocal,
    /// A bounded neighbourhood around the requested scope (scatter: ±2 cells).
    FiniteNeighborhood,
    /// Immutable decisions of a parent plan plus local inputs.
    ParentPlanned,
    /// A bounded region solved as a whole.
    Regional,
}

impl Locality {
    /// The locality's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            Locality::ObjectLocal => "object-local",
            Locality::FiniteNeighborhood => "finite-neighborhood",
            Locality::ParentPlanned => "parent-planned",
            Locality::Regional => "regional",
        }
    }
}

/// An upper bound of what a stage produces, computed before it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capacity {
    /// Most objects the stage can emit.
    pub objects: u64,
    /// Most candidates it evaluates.
    pub candidates: u64,
    /// Bounds of its output in meters, when known from parameters alone.
    pub bounds_m: Option<BoundsM>,
}

/// What a stage's product will hold that checks need before anything runs, known from the stage's
/// typed parameters alone: the operator publishes it, so validation never keeps its own copy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outline {
    /// The pedestrian route ids the product publishes, sorted.
    pub routes: BTreeSet<String>,
    /// The vehicle lane ids the product publishes, sorted.
    pub lanes: BTreeSet<String>,
    /// The ids of its scatter areas, in the product's order.
    pub scatter_areas: Vec<String>,
    /// How many keep-out rectangles it holds.
    pub keep_outs: usize,
    /// Bounds of everything it holds, meters, when known from the parameters.
    pub bounds_m: Option<BoundsM>,
}

/// What one bound input holds at compile time, for an operator's rules across its inputs.
#[derive(Debug, Clone, Copy)]
pub enum InputOutline<'a> {
    /// An asset family.
    Family(&'a FamilyData),
    /// The outline of an upstream stage's product.
    Product(&'a Outline),
}

/// The inputs of a stage at compile time, by port name.
pub type InputOutlines<'a> = [(&'static str, InputOutline<'a>)];

/// Typed, validated parameters of one stage (one variant per operator).
#[derive(Debug, Clone, PartialEq)]
pub enum StageParams {
    /// `street.block`.
    StreetBlock(StreetBlockParams),
    /// `environment.scatter`.
    Scatter(ScatterStageParams),
    /// `environment.select-and-place`.
    SelectPlace(SelectPlaceStageParams),
    /// `layout.grid-mission`.
    GridMission(GridMissionStageParams),
    /// `streaming.plan`.
    Streaming(StreamingStageParams),
    /// `assembly`.
    Assembly(crate::ops::assembly::AssemblyParams),
    /// A `subrecipe` stage: what it runs is its compiled stage's `Subrecipe`, run by the
    /// executor (`crate::recipe::subrecipe`).
    Subrecipe,
}

/// Why a kernel could not produce its product.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}: {message}", kind.name())]
pub struct StageError {
    /// The failure kind.
    pub kind: FailureKind,
    /// The parameter or port at fault, if one is.
    pub field: Option<String>,
    /// What went wrong.
    pub message: String,
}

impl StageError {
    /// A failure of `kind`, optionally naming a field.
    pub fn new(kind: FailureKind, field: Option<&str>, message: impl Into<String>) -> Self {
        StageError {
            kind,
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    /// A kernel was handed the parameters of another operator (a registry wiring error).
    pub fn foreign_parameters() -> Self {
        StageError::new(
            FailureKind::InvalidInput,
            None,
            "parameters of another operator",
        )
    }
}

/// A value bound to an input port.
#[derive(Debug, Clone, Copy)]
pub enum InputValue<'a> {
    /// An asset family.
    Family(&'a FamilyData),
    /// The product of stage `stage`.
    Product {
        /// The producing stage.
        stage: u32,
        /// Its product.
        product: &'a Product,
    },
}

/// The values bound to a stage's ports, by port name.
#[derive(Debug, Clone, Default)]
pub struct StageInputs<'a> {
    ports: BTreeMap<&'static str, InputValue<'a>>,
}

impl<'a> StageInputs<'a> {
    /// Binds `value` to `port`.
    pub fn bind(&mut self, port: &'static str, value: InputValue<'a>) {
        self.ports.insert(port, value);
    }

    /// The value bound to `port`, if any.
    pub fn get(&self, port: &str) -> Option<InputValue<'a>> {
        self.ports.get(port).copied()
    }

    /// The family bound to `port`, or an invalid-input error.
    pub fn family(&self, port: &str) -> Result<&'a FamilyData, StageError> {
        match self.get(port) {
            Some(InputValue::Family(family)) => Ok(family),
            _ => Err(unbound(port, "an asset family")),
        }
    }

    /// The product bound to `port` and its stage, if the port is bound to a product.
    pub fn product(&self, port: &str) -> Option<(u32, &'a Product)> {
        match self.get(port) {
            Some(InputValue::Product { stage, product }) => Some((stage, product)),
            _ => None,
        }
    }
}

fn unbound(port: &str, what: &str) -> StageError {
    StageError::new(
        FailureKind::InvalidInput,
        Some(port),
        format!("port `{port}` is not bound to {what}"),
    )
}

/// What a kernel may know about its invocation: never a file, a clock or a global RNG.
#[derive(Clone, Copy)]
pub struct KernelContext<'a> {
    /// The recipe instance.
    pub recipe: &'a str,
    /// The emitting stage.
    pub stage: u32,
    /// The root seed of the invocation.
    pub seed: u64,
    /// Whether the kernel may run its work on the current rayon pool (the result is the same).
    pub parallel: bool,
    /// The run's cancellation flag: a long kernel checks it between pieces of its work and
    /// stops with the `cancellation` failure kind.
    pub cancel: &'a crate::generate::CancelToken,
    /// Told how many candidates the kernel has evaluated so far.
    pub progress: &'a (dyn Fn(u64) + Sync),
}

impl std::fmt::Debug for KernelContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelContext")
            .field("recipe", &self.recipe)
            .field("stage", &self.stage)
            .field("seed", &self.seed)
            .field("parallel", &self.parallel)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl KernelContext<'_> {
    /// The failure a kernel returns when it finds the run cancelled.
    pub fn cancelled(&self) -> StageError {
        StageError::new(FailureKind::Cancellation, None, "cancelled")
    }
}

/// What a kernel returns: the product and the provenance of everything in it.
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutput {
    /// The product.
    pub product: Product,
    /// Its provenance.
    pub provenance: StageProvenance,
}

/// Turns checked parameters into typed ones; gets the names of the bound ports for rules that
/// depend on them. Problems name their parameter.
pub type DecodeFn = fn(&ParamSet, &[&'static str]) -> Result<StageParams, Vec<ParamProblem>>;
/// Bounds the output from typed parameters and the capacities of the bound product inputs.
pub type EstimateFn = fn(&StageParams, &[Capacity]) -> Capacity;
/// What the product will hold, from typed parameters (see [`Outline`]).
pub type OutlineFn = fn(&StageParams) -> Outline;
/// The operator's rules across its parameters and what its inputs hold at compile time (a family's
/// variants, an upstream product's outline): everything the kernel would refuse for a reason the
/// recipe files show. Problems name their parameter.
pub type CheckFn = fn(&StageParams, &InputOutlines<'_>) -> Vec<ParamProblem>;
/// The packed address scopes `(room, layer)` whose identities the stage's objects take, from
/// typed parameters and what its inputs hold at compile time. Two stages of a project that share
/// one would emit identical identities (and draws), so that is an admission error.
pub type ScopesFn = fn(&StageParams, &InputOutlines<'_>) -> Vec<(u32, u32)>;
/// What the operator repairs in checked parameters rather than refuses (clamped values, forced
/// orderings): reported as located warnings, the decoder applies the same repairs. Problems name
/// their parameter.
pub type LintFn = fn(&ParamSet) -> Vec<ParamProblem>;
/// Runs the operator.
pub type KernelFn =
    fn(&StageParams, &StageInputs<'_>, &KernelContext<'_>) -> Result<StageOutput, StageError>;

/// Everything the engine, the compiler and the editor know about one operator version.
#[derive(Debug, Clone, Copy)]
pub struct OperatorDescriptor {
    /// Persistent id, such as `environment.scatter`.
    pub id: &'static str,
    /// Algorithm version.
    pub algorithm: u32,
    /// One line of documentation.
    pub summary: &'static str,
    /// Input ports, in binding order.
    pub inputs: &'static [InputPort],
    /// The product kind of the output port.
    pub output: ProductKind,
    /// The parameter schema.
    pub params: &'static [ParamSpec],
    /// Named presets of the parameters ([`Presets::NONE`] for most operators).
    pub presets: Presets,
    /// The locality contract.
    pub locality: Locality,
    /// The level of the world hierarchy it works at, and the ports converting finer data.
    pub data_scope: ScopeContract,
    /// Typed-parameter decoder.
    pub decode: DecodeFn,
    /// Capacity estimator.
    pub estimate: EstimateFn,
    /// What the product will hold.
    pub outline: OutlineFn,
    /// Rules across parameters and inputs, checked when a recipe is compiled.
    pub check: CheckFn,
    /// The packed address scopes its objects' identities use (none for most operators).
    pub scopes: ScopesFn,
    /// The random domains its kernel draws from (its part of the recipe instance's scope
    /// manifest); empty for an operator that draws nothing.
    pub domains: &'static [crate::rng::Domain],
    /// The variant fields of a bound family its kernel reads: a family enters the stage's cache
    /// key only through them (`FamilyReads::ALL` for an operator reading no family).
    pub family_reads: FamilyReads,
    /// What it repairs and warns about rather than refuses.
    pub lint: LintFn,
    /// The kernel.
    pub kernel: KernelFn,
}

impl OperatorDescriptor {
    /// The product kind every stage of the operator publishes; `None` for an operator whose
    /// stages each decide it (a `subrecipe` stage publishes the kind of the child output it
    /// names, known only with the project's recipes: `recipe::compile`).
    pub fn output_kind(&self) -> Option<ProductKind> {
        let decided_per_stage = [
            crate::project::schema::recipe::SUBRECIPE_OPERATOR,
            crate::recipe::subrecipe_output::SUBRECIPE_OUTPUT_OPERATOR,
        ];
        (!decided_per_stage.contains(&self.id)).then_some(self.output)
    }

    /// Checks a stage's given parameters against the schema, after filling in the chosen
    /// preset's values (see [`presets`]).
    pub fn check_params(
        &self,
        given: &BTreeMap<String, crate::project::ParamValue>,
    ) -> Result<ParamSet, Vec<ParamProblem>> {
        ParamSet::check(self.params, &self.presets.apply(given))
    }
}

/// A registry cannot accept a descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistryError {
    /// The same id and version is already registered.
    #[error("operator `{id}` version {algorithm} is already registered")]
    Duplicate {
        /// The id.
        id: String,
        /// The version.
        algorithm: u32,
    },
    /// The descriptor is malformed (empty id, version 0, repeated port or parameter name).
    #[error("operator `{id}` is malformed: {why}")]
    Malformed {
        /// The id.
        id: String,
        /// What is wrong.
        why: String,
    },
}

/// The operators a compiler can resolve, by (id, version), in id then version order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    operators: BTreeMap<(&'static str, u32), OperatorDescriptor>,
    /// The memory budget compiled plans must fit, by their capacity estimates; `None` means
    /// [`DEFAULT_MEMORY_BUDGET_BYTES`](crate::recipe::limits::DEFAULT_MEMORY_BUDGET_BYTES).
    memory_budget_bytes: Option<u64>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// The built-in operators: `street.block`, `environment.scatter`,
    /// `environment.select-and-place`, `layout.grid-mission`, `streaming.plan`, `assembly` and
    /// `subrecipe` (`crate::recipe::subrecipe`), version 1 each.
    pub fn standard() -> Registry {
        let mut registry = Registry::new();
        for descriptor in [
            street_block::descriptor(),
            scatter::descriptor(),
            select_place::descriptor(),
            grid_mission::descriptor(),
            streaming::descriptor(),
            assembly::descriptor(),
            crate::recipe::subrecipe::descriptor(),
            crate::recipe::subrecipe_output::descriptor(),
        ] {
            // The built-in descriptors are distinct and well formed (a test checks it), so
            // registration cannot fail; a failure would only drop that operator.
            let _ = registry.register(descriptor);
        }
        registry
    }

    /// The same registry compiling against a memory budget of `bytes` (the estimate of every
    /// stage and of the whole plan must fit it).
    pub fn with_memory_budget(mut self, bytes: u64) -> Registry {
        self.memory_budget_bytes = Some(bytes);
        self
    }

    /// The memory budget plans compiled with this registry must fit, in bytes.
    pub fn memory_budget_bytes(&self) -> u64 {
        self.memory_budget_bytes
            .unwrap_or(crate::recipe::limits::DEFAULT_MEMORY_BUDGET_BYTES)
    }

    /// Adds a descriptor.
    pub fn register(&mut self, descriptor: OperatorDescriptor) -> Result<(), RegistryError> {
        let malformed = |why: &str| RegistryError::Malformed {
            id: descriptor.id.to_owned(),
            why: why.to_owned(),
        };
        if descriptor.id.is_empty() {
            return Err(malformed("empty id"));
        }
        if descriptor.algorithm == 0 {
            return Err(malformed("algorithm version 0"));
        }
        let mut ports: Vec<&str> = descriptor.inputs.iter().map(|p| p.name).collect();
        ports.sort_unstable();
        if ports.windows(2).any(|w| w[0] == w[1]) {
            return Err(malformed("repeated port name"));
        }
        let mut names: Vec<&str> = descriptor.params.iter().map(|p| p.name).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(malformed("repeated parameter name"));
        }
        if let Some(why) = descriptor.data_scope.malformed(descriptor.locality, &ports) {
            return Err(malformed(why));
        }
        let key = (descriptor.id, descriptor.algorithm);
        if self.operators.contains_key(&key) {
            return Err(RegistryError::Duplicate {
                id: descriptor.id.to_owned(),
                algorithm: descriptor.algorithm,
            });
        }
        self.operators.insert(key, descriptor);
        Ok(())
    }

    /// The descriptor of `id` at `algorithm`, if registered.
    pub fn get(&self, id: &str, algorithm: u32) -> Option<&OperatorDescriptor> {
        self.operators
            .iter()
            .find(|((op, version), _)| *op == id && *version == algorithm)
            .map(|(_, descriptor)| descriptor)
    }

    /// The registered versions of `id`, ascending.
    pub fn versions(&self, id: &str) -> Vec<u32> {
        self.operators
            .keys()
            .filter(|(op, _)| *op == id)
            .map(|(_, version)| *version)
            .collect()
    }

    /// Every descriptor, by id then version.
    pub fn operators(&self) -> impl Iterator<Item = &OperatorDescriptor> {
        self.operators.values()
    }
}

/// The provenance of object `key` of `product`, derived as `derivation` says (for stages that do
/// not store their records; see [`crate::content::provenance`]). Never advances a stream.
pub fn derive_object(
    product: &Product,
    derivation: &Derivation,
    key: &ChildKey,
) -> Option<ObjectProvenance> {
    let ChildKey::Scatter(id) = key else {
        return None;
    };
    match (product, *derivation) {
        (Product::Placements(scatter), Derivation::Scatter { seed, total_weight }) => {
            scatter::derive_object(scatter, seed, total_weight, *id)
        }
        (
            Product::PlacedObjects(placed),
            Derivation::SelectPlace {
                seed,
                scale_min,
                placements_stage,
            },
        ) => select_place::derive_object(placed, seed, scale_min, placements_stage, *id),
        _ => None,
    }
}

/// The provenance of rejected candidate `key` of `product`, derived as `derivation` says.
pub fn derive_rejection(
    product: &Product,
    derivation: &Derivation,
    key: &ChildKey,
) -> Option<RejectionProvenance> {
    match (product, *derivation, key) {
        (
            Product::Placements(scatter),
            Derivation::Scatter { seed, total_weight },
            ChildKey::Scatter(id),
        ) => scatter::derive_rejection(scatter, seed, total_weight, *id),
        _ => None,
    }
}

/// An [`OutlineFn`] for operators whose products publish nothing checks need.
pub fn no_outline(_params: &StageParams) -> Outline {
    Outline::default()
}

/// A [`ScopesFn`] for operators whose objects take no packed scatter identity.
pub fn no_scopes(_params: &StageParams, _inputs: &InputOutlines<'_>) -> Vec<(u32, u32)> {
    Vec::new()
}

/// A [`CheckFn`] for operators whose decoder already checks every rule.
pub fn no_check(_params: &StageParams, _inputs: &InputOutlines<'_>) -> Vec<ParamProblem> {
    Vec::new()
}

/// A [`LintFn`] for operators that repair nothing.
pub fn no_lint(_set: &ParamSet) -> Vec<ParamProblem> {
    Vec::new()
}

/// Converts a length in meters to lattice units (rounded to nearest), checking that it is finite
/// and fits comfortably in `i64`.
pub(crate) fn meters_to_lattice(value_m: f64, unit_m: f64) -> Option<i64> {
    let units = (value_m / unit_m).round();
    (units.is_finite() && units.abs() < 1e15).then_some(units as i64)
}

#[cfg(test)]
mod library_tests;
#[cfg(test)]
mod streaming_tests;
#[cfg(test)]
mod tests;
