//! Scope compatibility on real recipes, with a test operator working at regional scope.

use std::collections::BTreeMap;

use crate::content::ProductKind;
use crate::ops::registry::{
    DataScope, InputPort, Locality, PortKind, Registry, RegistryError, ScopeContract,
};
use crate::project::{read_document, AssetFamily, AssetVariant, DocKind, Recipe};
use crate::recipe::{compile, RecipeSource};

const FILE: &str = "recipes/r.recipe.ron";

const OBJECTS: &[InputPort] = &[InputPort {
    name: "placements",
    kind: PortKind::Product(ProductKind::PlacedObjects),
    required: true,
    doc: "Placed objects summarised over the region.",
}];

/// A registry with `test.region-summary`: select-and-place's kernel and parameters, reading
/// placed objects on its one port and working at regional scope under `contract`.
fn registry(contract: ScopeContract) -> Registry {
    let mut registry = Registry::standard();
    let place = *registry
        .get("environment.select-and-place", 1)
        .unwrap_or_else(|| panic!("select-and-place"));
    let summary = crate::ops::registry::OperatorDescriptor {
        id: "test.region-summary",
        inputs: OBJECTS,
        data_scope: contract,
        ..place
    };
    registry.register(summary).unwrap_or_else(|e| panic!("{e}"));
    registry
}

fn families() -> BTreeMap<String, AssetFamily> {
    let family = AssetFamily {
        id: "trees".to_owned(),
        name: String::new(),
        variants: vec![AssetVariant {
            id: "a".to_owned(),
            weight: 1,
            exclusion_radius: 100,
            collision_radius_m: 0.5,
            height_m: 2.0,
            ..AssetVariant::default()
        }],
    };
    [("trees".to_owned(), family)].into_iter().collect()
}

/// Scatter (cell) → select-and-place (object) → the summary (regional), compiled with
/// `registry`: `"line:path: message"` of each diagnostic and whether a plan came out.
fn compile_chain(registry: &Registry) -> (Vec<String>, bool) {
    let text =
        "Recipe(schema: 1, id: \"r\", address_schema: 1, inputs: {\"family\": Family(\"trees\")},
 stages: [
  Stage(id: 10, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"],
        parameters: {\"region\": (0, 0, 4000, 4000)}),
  Stage(id: 20, operator: \"environment.select-and-place\", algorithm: 1, inputs: [10],
        parameters: {\"scale_min\": 900, \"scale_max\": 1100}),
  Stage(id: 30, operator: \"test.region-summary\", algorithm: 1, inputs: [20],
        parameters: {\"scale_min\": 900, \"scale_max\": 1100}),
 ], outputs: [30])";
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: FILE,
        tree: tree.as_ref(),
    };
    let outcome = compile(&recipe, &families(), registry, source);
    let found = outcome
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}", d.line, d.path, d.message))
        .collect();
    (found, outcome.plan.is_some())
}

#[test]
fn object_data_feeding_a_regional_stage_is_refused_at_the_input() {
    let (found, compiled) = compile_chain(&registry(ScopeContract::at(DataScope::Regional)));
    assert!(!compiled);
    assert_eq!(
        found,
        ["7:stages[2].inputs[0]: stage 30 (`test.region-summary`, regional scope) reads object data of stage 20 (`environment.select-and-place`) on port `placements`: finer data reaches a coarser stage only through an explicit conversion"]
    );
}

#[test]
fn a_converting_port_or_a_finer_consumer_is_accepted() {
    let converting = ScopeContract {
        works_at: DataScope::Regional,
        converts: &["placements"],
    };
    assert_eq!(compile_chain(&registry(converting)), (Vec::new(), true));
    // Object data feeding an object stage stays at its level.
    let object = registry(ScopeContract::at(DataScope::Object));
    assert_eq!(compile_chain(&object), (Vec::new(), true));
    // A cell stage reading object data is refused like a regional one.
    let (found, compiled) = compile_chain(&registry(ScopeContract::at(DataScope::Cell)));
    assert!(!compiled);
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("(`test.region-summary`, cell scope) reads object data"));
}

#[test]
fn data_flows_down_the_hierarchy() {
    use DataScope::{Cell, Object, Regional};
    let feeds: Vec<(DataScope, DataScope)> = [Regional, Cell, Object]
        .into_iter()
        .flat_map(|a| [Regional, Cell, Object].into_iter().map(move |b| (a, b)))
        .filter(|(a, b)| a.feeds(*b))
        .collect();
    assert_eq!(
        feeds,
        [
            (Regional, Regional),
            (Regional, Cell),
            (Regional, Object),
            (Cell, Cell),
            (Cell, Object),
            (Object, Object)
        ]
    );
    // The built-in operators: street block and mission layout regional, scatter and streaming
    // cells, select-and-place, assembly and subrecipe (what it publishes) objects.
    let levels: Vec<(&str, &str)> = Registry::standard()
        .operators()
        .map(|op| (op.id, op.data_scope.works_at.name()))
        .collect();
    assert_eq!(
        levels,
        [
            ("assembly", "object"),
            ("environment.scatter", "cell"),
            ("environment.select-and-place", "object"),
            ("layout.grid-mission", "regional"),
            ("streaming.plan", "cell"),
            ("street.block", "regional"),
            ("subrecipe", "object"),
            ("subrecipe.output", "object"),
        ]
    );
}

#[test]
fn a_malformed_scope_contract_is_not_registered() {
    let mut registry = Registry::standard();
    let place = *registry
        .get("environment.select-and-place", 1)
        .unwrap_or_else(|| panic!("select-and-place"));
    let unknown_port = crate::ops::registry::OperatorDescriptor {
        id: "test.bad-port",
        data_scope: ScopeContract {
            works_at: DataScope::Regional,
            converts: &["objects"],
        },
        ..place
    };
    assert_eq!(
        registry.register(unknown_port),
        Err(RegistryError::Malformed {
            id: "test.bad-port".to_owned(),
            why: "a converting port that is not an input port".to_owned()
        })
    );
    let planned = crate::ops::registry::OperatorDescriptor {
        id: "test.planned",
        locality: Locality::ParentPlanned,
        data_scope: ScopeContract::at(DataScope::Regional),
        ..place
    };
    assert!(matches!(
        registry.register(planned),
        Err(RegistryError::Malformed { why, .. }) if why.starts_with("a parent-planned operator")
    ));
}
