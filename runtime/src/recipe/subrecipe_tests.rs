//! Tests of subrecipes: the street-planting example's two uses of one subrecipe (nested
//! identities, distinct and stable draws, recipe paths, precise re-runs), and every located error
//! (unknown file, bindings, outputs, depth beyond 8, cycles across files).

use std::collections::BTreeMap;

use super::{compile_project_recipe, load_and_check, CompiledPlan, MAX_SUBRECIPE_DEPTH};
use crate::content::{Product, ProductKind};
use crate::generate::{
    CancelToken, ExecutionMode, GenerateRequest, GeneratedBundle, Generator, NoObserver,
};
use crate::identity::{ChildKey, RecipeInstanceId, StageId};
use crate::ops::registry::Registry;
use crate::project::{LoadedProject, ProjectSources};

pub(super) const MANIFEST: &str = include_str!("../../../projects/street-planting/stagecraft.ron");
const PARENT: &str =
    include_str!("../../../projects/street-planting/recipes/street-planting.recipe.ron");
pub(super) const CHILD: &str =
    include_str!("../../../projects/street-planting/recipes/sidewalk-props.recipe.ron");
const PROPS: &str = include_str!("../../../assets/street-props.family.ron");

const PARENT_FILE: &str = "recipes/street-planting.recipe.ron";
pub(super) const CHILD_FILE: &str = "recipes/sidewalk-props.recipe.ron";

/// The example with `files` replacing or adding texts (paths relative to the project); its
/// family read from `assets/`.
pub(super) fn load(files: &[(&str, &str)]) -> LoadedProject {
    let mut texts: BTreeMap<String, String> = [
        ("stagecraft.ron", MANIFEST.replace("../../assets", "assets")),
        (PARENT_FILE, PARENT.to_owned()),
        (CHILD_FILE, CHILD.to_owned()),
        ("assets/street-props.family.ron", PROPS.to_owned()),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text))
    .collect();
    for (path, text) in files {
        texts.insert((*path).to_owned(), (*text).to_owned());
    }
    let sources = ProjectSources {
        files: texts,
        ..ProjectSources::default()
    };
    load_and_check(&sources, &Registry::standard())
}

pub(super) fn plan_of(loaded: &LoadedProject, id: &str) -> CompiledPlan {
    let outcome = compile_project_recipe(loaded, id, &Registry::standard()).expect("recipe");
    outcome
        .plan
        .unwrap_or_else(|| panic!("{:#?}", outcome.diagnostics))
}

fn generate(plan: &CompiledPlan, mode: ExecutionMode) -> GeneratedBundle {
    let request = GenerateRequest {
        root_seed: 5,
        mode,
        generation: 0,
    };
    let generated = Generator::new()
        .generate(plan, &request, &CancelToken::new(), &NoObserver)
        .expect("generates");
    (*generated.bundle).clone()
}

/// `file:line:column path: message` of every error.
pub(super) fn errors(loaded: &LoadedProject) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            format!(
                "{}:{}:{} {}: {}",
                d.file, d.line, d.column, d.path, d.message
            )
        })
        .collect()
}

fn first_key(bundle: &GeneratedBundle, stage: u32) -> ChildKey {
    match bundle.stage(stage).map(|s| s.product.as_ref()) {
        Some(Product::PlacedObjects(placed)) => ChildKey::Scatter(placed.objects[0].placement.id),
        other => panic!("stage {stage}: {other:?}"),
    }
}

#[test]
fn the_example_checks_clean_with_its_subrecipe_unlisted() {
    let loaded = load(&[]);
    assert_eq!(loaded.diagnostics, Vec::new());
    let plan = plan_of(&loaded, "street-planting");
    let ids: Vec<u32> = plan.stages().iter().map(|s| s.id()).collect();
    assert_eq!(ids, vec![1, 2, 10, 20]);
    let sub = plan
        .stage(10)
        .and_then(|s| s.subrecipe())
        .expect("subrecipe");
    assert_eq!(sub.recipe_id, "sidewalk-props");
    assert_eq!(sub.binds, vec!["block".to_owned()]);
    assert_eq!(sub.output, 2);
    assert_eq!(
        plan.stage(10).map(|s| s.output()),
        Some(ProductKind::PlacedObjects)
    );
    assert_eq!(plan.stage(10).map(|s| s.dependencies()), Some(vec![1]));
    assert_eq!(plan.stage(20).map(|s| s.dependencies()), Some(vec![2]));
}

#[test]
fn two_uses_emit_distinct_objects_with_nested_identities_and_recipe_paths() {
    let plan = plan_of(&load(&[]), "street-planting");
    let serial = generate(&plan, ExecutionMode::Serial);
    assert_eq!(generate(&plan, ExecutionMode::Parallel), serial);
    let (ten, twenty) = (serial.stage(10).expect("10"), serial.stage(20).expect("20"));
    assert_eq!((ten.summary.objects, twenty.summary.objects), (21, 15));
    assert_ne!(ten.digest, twenty.digest);
    let key = first_key(&serial, 10);
    let identity = serial.identity(10, &key).expect("identity");
    let instance = RecipeInstanceId("street-planting/10:sidewalk-props".to_owned());
    assert_eq!(identity.recipe_instance, instance);
    assert_eq!(identity.stage, StageId(2));
    assert_eq!(identity.child_key, key);
    let parent = identity.parent.as_deref().expect("a scatter placement");
    assert_eq!(
        (&parent.recipe_instance, parent.stage, &parent.child_key),
        (&instance, StageId(1), &key)
    );
    // The placement's parent is an area of the user's street block: the tuple crosses back
    // into the parent instance, at the stage the child's input was bound to.
    let area = parent.parent.as_deref().expect("an area");
    assert_eq!(
        (
            &area.recipe_instance.0[..],
            area.stage,
            &area.child_key,
            &area.parent
        ),
        (
            "street-planting",
            StageId(1),
            &ChildKey::Slot("area/furniture.north".to_owned()),
            &None
        )
    );
    let other = serial
        .identity(20, &first_key(&serial, 20))
        .expect("identity");
    assert_eq!(other.recipe_instance.0, "street-planting/20:sidewalk-props");
    let path = vec!["street-planting".to_owned(), "sidewalk-props".to_owned()];
    assert_eq!(serial.recipe_path(10), path);
    assert_eq!(serial.recipe_path(1), vec!["street-planting".to_owned()]);
    let view = serial.provenance(10, &key).expect("provenance");
    assert_eq!(view.recipes, path);
    assert_eq!(view.identity, identity);
    assert_eq!(
        view.asset.map(|(family, _)| family),
        Some("street-props".to_owned())
    );
}

#[test]
fn a_third_use_leaves_the_first_two_unchanged() {
    let before = generate(
        &plan_of(&load(&[]), "street-planting"),
        ExecutionMode::Serial,
    );
    let third = "        Stage(id: 30, operator: \"subrecipe\", algorithm: 1, inputs: [1], parameters: {\"binds\": [\"block\"], \"recipe\": \"recipes/sidewalk-props.recipe.ron\"}),\n    ],\n    outputs: [";
    let parent = PARENT.replacen("    ],\n    outputs: [", third, 1);
    let after = generate(
        &plan_of(&load(&[(PARENT_FILE, &parent)]), "street-planting"),
        ExecutionMode::Serial,
    );
    for stage in [1, 2, 10, 20] {
        assert_eq!(
            after.stage(stage).map(|s| s.digest),
            before.stage(stage).map(|s| s.digest),
            "stage {stage}"
        );
    }
    let digest = |b: &GeneratedBundle, s: u32| b.stage(s).map(|r| r.digest);
    assert_ne!(
        digest(&after, 30),
        digest(&after, 10),
        "same block, its own draws"
    );
}

#[test]
fn editing_the_child_reruns_exactly_the_stages_that_use_it() {
    let request = GenerateRequest {
        root_seed: 5,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let mut generator = Generator::new();
    let mut run = |loaded: &LoadedProject| {
        let plan = plan_of(loaded, "street-planting");
        let generated = generator
            .generate(&plan, &request, &CancelToken::new(), &NoObserver)
            .expect("generates");
        generated.report.ran()
    };
    assert_eq!(run(&load(&[])), vec![1, 2, 10, 20]);
    assert_eq!(
        run(&load(&[])),
        Vec::<u32>::new(),
        "warm: every stage a hit"
    );
    let child = CHILD.replace("\"scale_max\": 1100", "\"scale_max\": 1200");
    assert_eq!(run(&load(&[(CHILD_FILE, &child)])), vec![10, 20]);
    let props = PROPS.replace("weight: 2,", "weight: 3,");
    let family = [
        (CHILD_FILE, child.as_str()),
        ("assets/street-props.family.ron", &props),
    ];
    assert_eq!(
        run(&load(&family)),
        vec![10, 20],
        "a family the child reads"
    );
    let parent = PARENT.replace("\"length_m\": 50.0", "\"length_m\": 40.0");
    let edited = [
        (CHILD_FILE, child.as_str()),
        ("assets/street-props.family.ron", &props),
        (PARENT_FILE, &parent),
    ];
    assert_eq!(
        run(&load(&edited)),
        vec![2, 20],
        "the side street and its props"
    );
}

/// A stage of `street-planting` (stage 10's place) replaced by `stage`.
fn with_stage_10(parameters: &str, inputs: &str) -> String {
    let start = PARENT
        .find("        Stage(\n            id: 10,")
        .expect("stage 10");
    let end = PARENT
        .find("        Stage(\n            id: 20,")
        .expect("stage 20");
    format!(
        "{}        Stage(id: 10, operator: \"subrecipe\", algorithm: 1, inputs: [{inputs}],\n            parameters: {{{parameters}}}),\n{}",
        &PARENT[..start],
        &PARENT[end..]
    )
}

fn parent_errors(parameters: &str, inputs: &str) -> Vec<String> {
    errors(&load(&[(PARENT_FILE, &with_stage_10(parameters, inputs))]))
}

const CHILD_PATH: &str = "\"recipe\": \"recipes/sidewalk-props.recipe.ron\"";

#[test]
fn an_unknown_file_or_parameter_is_a_located_error() {
    assert_eq!(
        parent_errors("\"recipe\": \"recipes/nope.recipe.ron\", \"binds\": [\"block\"]", "1"),
        vec![
            "recipes/street-planting.recipe.ron:39:36 stages[2].parameters[\"recipe\"]: stage 10 names the missing recipe file `recipes/nope.recipe.ron`"
        ]
    );
    assert_eq!(
        parent_errors("\"recipe\": \"props.ron\", \"colour\": 1", "1"),
        vec![
            "recipes/street-planting.recipe.ron:39:36 stages[2].parameters[\"recipe\"]: stage 10: `recipe` is not a recipe file of the project",
            "recipes/street-planting.recipe.ron:39:59 stages[2].parameters[\"colour\"]: stage 10: a subrecipe stage has no parameter `colour`",
        ]
    );
}

#[test]
fn bindings_are_checked_name_by_name() {
    let at = "recipes/street-planting.recipe.ron";
    assert_eq!(
        parent_errors(CHILD_PATH, ""),
        vec![format!("{at}:38:68 stages[2].inputs: stage 10 does not bind input `block` (StreetBlock) of subrecipe `sidewalk-props`")]
    );
    assert_eq!(
        parent_errors(&format!("{CHILD_PATH}, \"binds\": [\"blok\"]"), "1"),
        vec![
            format!("{at}:38:68 stages[2].inputs: stage 10 does not bind input `block` (StreetBlock) of subrecipe `sidewalk-props`"),
            format!("{at}:39:83 stages[2].parameters[\"binds\"][0]: stage 10: subrecipe `sidewalk-props` declares no input `blok`"),
        ]
    );
    assert_eq!(
        parent_errors(&format!("{CHILD_PATH}, \"binds\": [\"block\", \"block\"]"), "1"),
        vec![format!("{at}:39:82 stages[2].parameters[\"binds\"]: stage 10: `binds` names 2 inputs for 1 stage inputs")]
    );
    assert_eq!(
        parent_errors(&format!("{CHILD_PATH}, \"binds\": [\"block\"]"), "20"),
        vec![format!("{at}:38:69 stages[2].inputs[0]: stage 10: input `block` of subrecipe `sidewalk-props` is a StreetBlock, but this input is a PlacedObjects")]
    );
}

#[test]
fn the_published_output_must_be_declared() {
    assert_eq!(
        parent_errors(&format!("{CHILD_PATH}, \"binds\": [\"block\"], \"output\": 1"), "1"),
        vec!["recipes/street-planting.recipe.ron:39:103 stages[2].parameters[\"output\"]: stage 10: subrecipe `sidewalk-props` publishes no output 1"]
    );
    let child = CHILD.replace(
        "outputs: [\n        2,",
        "outputs: [\n        1,\n        2,",
    );
    let loaded = load(&[(CHILD_FILE, &child)]);
    let found = errors(&loaded);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].ends_with("stage 10: subrecipe `sidewalk-props` publishes several outputs (1, 2); the stage publishes one"), "{found:#?}");
}

#[test]
fn an_unknown_product_kind_is_reported_in_the_child() {
    let child = CHILD.replace("Product(\"StreetBlock\")", "Product(\"Forest\")");
    let found = errors(&load(&[(CHILD_FILE, &child)]));
    assert!(found.contains(&"recipes/sidewalk-props.recipe.ron:7:18 inputs[\"block\"]: input `block` names the unknown product kind `Forest`".to_owned()), "{found:#?}");
}

/// A recipe whose only stage runs `child` (no inputs), or a street block when `None`.
fn chain_recipe(id: &str, child: Option<&str>) -> String {
    let stage = match child {
        Some(child) => format!(
            "Stage(id: 1, operator: \"subrecipe\", algorithm: 1, inputs: [], parameters: {{\"recipe\": \"recipes/{child}.recipe.ron\"}})"
        ),
        None => "Stage(id: 1, operator: \"street.block\", algorithm: 1, inputs: [], parameters: {})".to_owned(),
    };
    format!("Recipe(schema: 1, id: \"{id}\", address_schema: 1, inputs: {{}},\n    stages: [\n        {stage},\n    ],\n    outputs: [1])\n")
}

#[test]
fn more_than_eight_levels_is_a_located_error_at_the_top() {
    assert_eq!(MAX_SUBRECIPE_DEPTH, 8);
    let ids: Vec<String> = (0..=9).map(|i| format!("r{i}")).collect();
    let texts: Vec<(String, String)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let child = ids.get(i + 1).map(String::as_str);
            (format!("recipes/{id}.recipe.ron"), chain_recipe(id, child))
        })
        .collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let loaded = load(&files);
    // r1 … r9 is eight levels below r1: it compiles; r0 reaches nine.
    let plan = plan_of(&loaded, "r1");
    assert_eq!(
        plan.stage(1)
            .and_then(|s| s.subrecipe())
            .map(|s| s.recipe_id.as_str()),
        Some("r2")
    );
    let found: Vec<String> = errors(&loaded)
        .into_iter()
        .filter(|e| e.starts_with("recipes/r0"))
        .collect();
    assert_eq!(
        found,
        vec!["recipes/r0.recipe.ron:3:94 stages[0].parameters[\"recipe\"]: stage 1: subrecipe `r1` does not compile: recipes/r8.recipe.ron:3:94: stage 1: subrecipe `r9` would be nesting level 9: r0 → r1 → r2 → r3 → r4 → r5 → r6 → r7 → r8 → r9, over the limit of 8"]
    );
    // Only r0 fails (and the unlisted recipes warn nothing: each is used as a subrecipe).
    assert_eq!(errors(&loaded).len(), 1, "{:#?}", errors(&loaded));
}

#[test]
fn a_cycle_across_files_is_refused_naming_it() {
    let a = chain_recipe("a", Some("b"));
    let b = chain_recipe("b", Some("a"));
    let itself = chain_recipe("c", Some("c"));
    let loaded = load(&[
        ("recipes/a.recipe.ron", &a),
        ("recipes/b.recipe.ron", &b),
        ("recipes/c.recipe.ron", &itself),
    ]);
    assert_eq!(
        errors(&loaded),
        vec![
            "recipes/a.recipe.ron:3:94 stages[0].parameters[\"recipe\"]: stage 1: subrecipe `b` does not compile: recipes/b.recipe.ron:3:94: stage 1: subrecipes form a cycle: a → b → a",
            "recipes/b.recipe.ron:3:94 stages[0].parameters[\"recipe\"]: stage 1: subrecipe `a` does not compile: recipes/a.recipe.ron:3:94: stage 1: subrecipes form a cycle: b → a → b",
            "recipes/c.recipe.ron:3:94 stages[0].parameters[\"recipe\"]: stage 1: subrecipes form a cycle: c → c",
        ]
    );
}

#[test]
fn a_subrecipe_run_on_its_own_names_its_unbound_input() {
    let plan = plan_of(&load(&[]), "sidewalk-props");
    let request = GenerateRequest {
        root_seed: 5,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let error = Generator::new()
        .generate(&plan, &request, &CancelToken::new(), &NoObserver)
        .expect_err("unbound");
    assert_eq!(error.failures[0].stage, Some(1));
    assert_eq!(
        error.failures[0].message,
        "input `block` is bound only when recipe `sidewalk-props` runs as a subrecipe stage"
    );
}

#[test]
fn an_edit_naming_a_subrecipe_stage_is_reported_and_applies_to_nothing() {
    let set = "OverrideSet(schema: 3, id: \"edits\", recipe: \"street-planting\", base_seed: Some(5),\n    overrides: [Override(stage: 10, target: 281479270825985, precedence: 0, base: \"\", action: Delete)])\n";
    let manifest = MANIFEST
        .replace("../../assets", "assets")
        .replace("overrides: [],", "overrides: [\n        \"edits\",\n    ],");
    let loaded = load(&[
        ("stagecraft.ron", &manifest),
        ("overrides/edits.overrides.ron", set),
    ]);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    let project = loaded.project.as_ref().expect("loads");
    let plan = plan_of(&loaded, "street-planting");
    let plain = generate(&plan, ExecutionMode::Serial);
    let overrides = crate::overrides::Overrides::of_recipe(project, "street-planting");
    let request = GenerateRequest {
        root_seed: 5,
        mode: ExecutionMode::Serial,
        generation: 0,
    };
    let edited = Generator::new()
        .generate_with(
            &plan,
            &request,
            &overrides,
            &CancelToken::new(),
            &NoObserver,
        )
        .expect("generates");
    let outcomes: Vec<_> = edited.bundle.edit_outcomes().collect();
    assert_eq!(outcomes.len(), 1);
    assert_eq!(
        (outcomes[0].stage, outcomes[0].target, &outcomes[0].result),
        (
            10,
            281479270825985,
            &Err(crate::overrides::ConflictReason::UnsupportedStage)
        )
    );
    // The objects are those of the plain generation; the edit shows in the bundle digest.
    let digest = |b: &GeneratedBundle, s: u32| b.stage(s).map(|r| r.digest);
    assert_eq!(digest(&edited.bundle, 10), digest(&plain, 10));
    assert_ne!(edited.bundle.digest(), plain.digest());
}

#[test]
fn the_scope_manifest_folds_each_child_run_in_under_its_stage() {
    use super::{scope_manifest, ScopeEntry};
    let manifest = scope_manifest(&plan_of(&load(&[]), "street-planting"));
    assert_eq!(manifest.recipe, "street-planting");
    let top: Vec<(u32, &str, bool)> = manifest
        .stages
        .iter()
        .map(|e| (e.stage, e.operator, e.subrecipe.is_some()))
        .collect();
    assert_eq!(
        top,
        [
            (1, "street.block", false),
            (2, "street.block", false),
            (10, "subrecipe", true),
            (20, "subrecipe", true)
        ]
    );
    for stage in [10, 20] {
        let entry = manifest.stages.iter().find(|e| e.stage == stage);
        let child = entry.and_then(|e| e.subrecipe.as_deref()).expect("child");
        assert_eq!(
            child.recipe,
            format!("street-planting/{stage}:sidewalk-props")
        );
        assert_eq!(
            child.stages,
            [
                ScopeEntry {
                    stage: 1,
                    operator: "environment.scatter",
                    locality: "finite-neighborhood",
                    data_scope: "cell",
                    scopes: vec![(1, 0), (1, 1)],
                    domains: vec![1, 2],
                    subrecipe: None,
                },
                ScopeEntry {
                    stage: 2,
                    operator: "environment.select-and-place",
                    locality: "object-local",
                    data_scope: "object",
                    scopes: vec![],
                    domains: vec![3],
                    subrecipe: None,
                },
            ]
        );
    }
    // Deeper levels nest the same way, each under its own instance.
    let files = [
        ("recipes/r1.recipe.ron", chain_recipe("r1", Some("r2"))),
        ("recipes/r2.recipe.ron", chain_recipe("r2", Some("r3"))),
        ("recipes/r3.recipe.ron", chain_recipe("r3", None)),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let manifest = scope_manifest(&plan_of(&load(&files), "r1"));
    let mut instances = Vec::new();
    let mut at = Some(&manifest);
    while let Some(m) = at {
        instances.push(m.recipe.clone());
        at = m.stages[0].subrecipe.as_deref();
    }
    assert_eq!(instances, ["r1", "r1/1:r2", "r1/1:r2/1:r3"]);
}

/// What a subrecipe stage publishes, learned from its compiled child (the editor's graph types
/// its pin with it): the kind of the chosen output, or the first error why not.
#[test]
fn the_published_output_kind_is_learned_from_the_compiled_child() {
    use super::subrecipe::published_output;
    use super::ProjectDocs;
    let learn = |loaded: &LoadedProject, stage: u32| {
        let project = loaded.project.as_ref().expect("project");
        let docs = ProjectDocs {
            families: &project.families,
            libraries: &project.chunk_libraries,
            recipes: Some(&project.recipes),
            trees: None,
        };
        let recipe = &project.recipes["street-planting"];
        published_output(recipe, docs, &Registry::standard(), stage)
    };
    let loaded = load(&[]);
    assert_eq!(learn(&loaded, 10), Ok(ProductKind::PlacedObjects));
    assert_eq!(
        learn(&loaded, 1),
        Err("stage 1 is not a subrecipe stage".to_owned())
    );
    // Publishing the child's scatter instead: its kind.
    let child = CHILD.replace(
        "outputs: [\n        2,",
        "outputs: [\n        1,\n        2,",
    );
    let picked = with_stage_10(
        &format!("{CHILD_PATH}, \"binds\": [\"block\"], \"output\": 1"),
        "1",
    );
    let loaded = load(&[(CHILD_FILE, &child), (PARENT_FILE, &picked)]);
    assert_eq!(learn(&loaded, 10), Ok(ProductKind::Placements));
    // No `recipe`, or a child that does not compile: why.
    let unset = load(&[(PARENT_FILE, &with_stage_10("\"binds\": [\"block\"]", "1"))]);
    assert_eq!(
        learn(&unset, 10),
        Err("stage 10: a subrecipe stage needs its `recipe`".to_owned())
    );
    let broken = CHILD.replace("\"cell_size\": 300", "\"cell_size\": \"wide\"");
    let loaded = load(&[(CHILD_FILE, &broken)]);
    let why = learn(&loaded, 10).expect_err("the child does not compile");
    assert!(
        why.starts_with("stage 10: subrecipe `sidewalk-props` does not compile: recipes/sidewalk-props.recipe.ron:"),
        "{why}"
    );
}

/// The child's declared `Product(…)` inputs, read without compiling it (the editor's graph
/// draws a subrecipe node's input pins with them), or why the child cannot be read.
#[test]
fn the_child_product_inputs_are_read_from_its_document() {
    use super::subrecipe::child_product_inputs;
    use super::ProjectDocs;
    let read = |loaded: &LoadedProject, stage: u32| {
        let project = loaded.project.as_ref().expect("project");
        let docs = ProjectDocs {
            families: &project.families,
            libraries: &project.chunk_libraries,
            recipes: Some(&project.recipes),
            trees: None,
        };
        let recipe = &project.recipes["street-planting"];
        let stage = recipe.stages.iter().find(|s| s.id == stage).expect("stage");
        child_product_inputs(docs, stage)
    };
    let loaded = load(&[]);
    assert_eq!(
        read(&loaded, 10),
        Ok(vec![("block".to_owned(), Some(ProductKind::StreetBlock))])
    );
    let unset = load(&[(PARENT_FILE, &with_stage_10("\"binds\": [\"block\"]", "1"))]);
    assert_eq!(
        read(&unset, 10),
        Err("stage 10: a subrecipe stage needs its `recipe`".to_owned())
    );
    let missing = load(&[(
        PARENT_FILE,
        &with_stage_10("\"recipe\": \"recipes/nowhere.recipe.ron\"", "1"),
    )]);
    assert_eq!(
        read(&missing, 10),
        Err("stage 10 names the missing recipe file `recipes/nowhere.recipe.ron`".to_owned())
    );
}
