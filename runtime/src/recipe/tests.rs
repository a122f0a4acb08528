//! Tests of the recipe compiler: a `check(stages, expected)` helper per case.

use std::collections::BTreeMap;

use super::*;
use crate::content::ProductKind;
use crate::ops::registry::Registry;
use crate::project::{read_document, AssetFamily, AssetVariant, DocKind, Recipe};

const FILE: &str = "recipes/r.recipe.ron";

fn families() -> BTreeMap<String, AssetFamily> {
    let variant = |id: &str, radius: i64| AssetVariant {
        id: id.to_owned(),
        weight: 1,
        exclusion_radius: radius,
        collision_radius_m: 0.5,
        height_m: 2.0,
        sockets: Vec::new(),
        ..AssetVariant::default()
    };
    let family = AssetFamily {
        id: "trees".to_owned(),
        name: String::new(),
        variants: vec![variant("a", 100), variant("b", 200)],
    };
    [("trees".to_owned(), family)].into_iter().collect()
}

/// A recipe with a `family` input, the given stages (RON) and outputs.
fn recipe_text(stages: &str, outputs: &str) -> String {
    format!(
        "Recipe(schema: 1, id: \"r\", address_schema: 1, inputs: {{\"family\": Family(\"trees\")}},\n\
         stages: [\n{stages}\n], outputs: [{outputs}])\n"
    )
}

fn compile_text(text: &str) -> CompileOutcome {
    let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let source = RecipeSource {
        file: FILE,
        tree: tree.as_ref(),
    };
    compile(&recipe, &families(), &Registry::standard(), source)
}

/// Compiles and compares `"line:path: message"` of every diagnostic.
fn check(stages: &str, outputs: &str, expected: &[&str]) -> CompileOutcome {
    let outcome = compile_text(&recipe_text(stages, outputs));
    let mut found: Vec<String> = outcome
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}", d.line, d.path, d.message))
        .collect();
    found.sort();
    let mut expected = expected.to_vec();
    expected.sort_unstable();
    assert_eq!(found, expected);
    assert_eq!(
        outcome.plan.is_some(),
        !outcome.diagnostics.iter().any(|d| d.is_error())
    );
    outcome
}

const SCATTER: &str =
    "Stage(id: 10, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], \
     parameters: {\"region\": (0, 0, 4000, 4000)}),";
const PLACE: &str =
    "Stage(id: 20, operator: \"environment.select-and-place\", algorithm: 1, inputs: [10], \
     parameters: {\"scale_min\": 900, \"scale_max\": 1100}),";

#[test]
fn a_scatter_pipeline_compiles_with_defaults_filled() {
    let outcome = check(&format!("{PLACE}\n{SCATTER}"), "20", &[]);
    let plan = outcome.plan.unwrap_or_else(|| panic!("plan"));
    let ids: Vec<u32> = plan.stages().iter().map(|s| s.id()).collect();
    assert_eq!(ids, [10, 20], "(depth, id) order, not file order");
    let scatter = &plan.stages()[0];
    assert_eq!(scatter.param_set().int("cell_size"), Ok(400));
    assert_eq!(scatter.inputs()[0].port, "family");
    assert_eq!(plan.stages()[1].dependencies(), [10]);
    assert_eq!(plan.stages()[1].output(), ProductKind::PlacedObjects);
    assert_eq!(plan.dependents(10), [20]);
    assert_eq!(plan.levels().len(), 2);
    // Writing a default explicitly compiles to the same parameter bytes.
    let explicit = SCATTER.replace("parameters: {", "parameters: {\"cell_size\": 400, ");
    let again = check(&format!("{explicit}\n{PLACE}"), "20", &[]);
    let again = again.plan.unwrap_or_else(|| panic!("plan"));
    assert_eq!(again.stages()[0].param_bytes(), scatter.param_bytes());
}

#[test]
fn unknown_operators_and_versions_name_the_stage_and_field() {
    check(
        "Stage(id: 1, operator: \"environment.teleport\", algorithm: 1),",
        "1",
        &[
            "1:inputs[\"family\"]: input `family` is not read by any stage",
            "3:stages[0].operator: stage 1 uses the unknown operator `environment.teleport`",
        ],
    );
    check(
        &SCATTER.replace("algorithm: 1", "algorithm: 7"),
        "10",
        &["3:stages[0].algorithm: stage 10: operator `environment.scatter` has no algorithm version 7"],
    );
}

#[test]
fn inputs_are_typed_against_ports() {
    check(
        &format!("{SCATTER}\n{}", PLACE.replace("[10]", "[\"family\"]")),
        "20",
        &[
            "3:stages[0].id: the product of stage 10 is not used (it reaches no output), so the stage is not run",
            "4:stages[1].inputs[0]: stage 20: input `family` is a Family, but \
             `environment.select-and-place` has no free input port of that type",
        ],
    );
    check(
        &SCATTER.replace("[\"family\"]", "[]"),
        "10",
        &[
            "1:inputs[\"family\"]: input `family` is not read by any stage",
            "3:stages[0].inputs: stage 10 is missing its `family` input (Family)",
        ],
    );
    check(
        &format!("{SCATTER}\n{}", PLACE.replace("[10]", "[10, 10]")),
        "20",
        &[
            "4:stages[1].inputs[1]: stage 20: stage 10 is a Placements, but \
           `environment.select-and-place` has no free input port of that type",
        ],
    );
}

#[test]
fn parameters_are_checked_against_the_schema() {
    check(
        &SCATTER.replace(
            "{\"region\"",
            "{\"cell_size\": 0, \"layer\": \"top\", \"colour\": 3, \"region\"",
        ),
        "10",
        &[
            "3:stages[0].parameters[\"cell_size\"]: stage 10: parameter `cell_size` is 0, out of range",
            "3:stages[0].parameters[\"colour\"]: stage 10: unknown parameter `colour`",
            "3:stages[0].parameters[\"layer\"]: stage 10: parameter `layer` is string \"top\"",
        ],
    );
    check(
        &SCATTER.replace("\"region\": (0, 0, 4000, 4000)", ""),
        "10",
        &["3:stages[0].parameters: stage 10: missing parameter `region` (no `areas` input is connected)"],
    );
    check(
        &format!("{SCATTER}\n{}", PLACE.replace("900", "1200")),
        "20",
        &["4:stages[1].parameters[\"scale_min\"]: stage 20: scale range 1200..=1100 is inverted"],
    );
}

#[test]
fn cycles_and_missing_references_are_errors() {
    let a = "Stage(id: 1, operator: \"streaming.plan\", algorithm: 1, inputs: [2]),";
    let b = "Stage(id: 2, operator: \"layout.grid-mission\", algorithm: 1, inputs: [1], \
             parameters: {\"chunks\": []}),";
    let outcome = compile_text(&recipe_text(&format!("{a}\n{b}"), "1"));
    let messages: Vec<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages.contains(&"stage graph has a cycle: 1 → 2 → 1"),
        "{messages:?}"
    );
    assert!(outcome.plan.is_none());
    check(
        &PLACE.replace("[10]", "[99]"),
        "20",
        &[
            "3:stages[0].inputs[0]: stage 20 reads the missing stage 99",
            "1:inputs[\"family\"]: input `family` is not read by any stage",
        ],
    );
}

#[test]
fn limits_and_capacity_ceilings_are_checked() {
    let many: String = (1..=129)
        .map(|id| format!("Stage(id: {id}, operator: \"street.block\", algorithm: 1),\n"))
        .collect();
    let outcome = compile_text(&recipe_text(&many, "1"));
    assert!(outcome
        .diagnostics
        .iter()
        .any(|d| d.message == "recipe has 129 stages, over the limit of 128"));
    check(
        &SCATTER.replace("(0, 0, 4000, 4000)", "(0, 0, 4000000, 4000000)"),
        "10",
        &[
            "2:stages: the recipe could produce 100040004 objects, over the ceiling of 67108864",
            "3:stages[0].parameters: stage 10 could evaluate 100040004 candidates, over the ceiling of 16777216",
            "2:stages: the recipe could need 33583 MiB of memory, over the budget of 8192 MiB",
            "3:stages[0].parameters: stage 10 could need 33583 MiB of memory, over the budget of 8192 MiB",
        ],
    );
}

#[test]
fn the_memory_budget_bounds_each_stage_and_the_plan() {
    // 4000 × 4000 lattice units at 400-unit cells: 10 × 10 cells of 1 candidate = 100.
    let text = recipe_text(SCATTER, "10");
    let (recipe, tree, _) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let compile_with = |budget: u64| {
        let source = RecipeSource {
            file: FILE,
            tree: tree.as_ref(),
        };
        let registry = Registry::standard().with_memory_budget(budget);
        compile(&recipe, &families(), &registry, source)
    };
    // The estimate covers the 12 × 12 cells a conflict can reach (the region's 10 × 10 and a
    // ring around it), 352 bytes per candidate and object.
    let capacity = compile_with(u64::MAX)
        .plan
        .unwrap_or_else(|| panic!("plan"))
        .stages()[0]
        .capacity();
    assert_eq!((capacity.candidates, capacity.objects), (144, 144));
    let needed = crate::recipe::limits::estimated_bytes(144, 144);
    assert_eq!(needed, 144 * 352);
    let fits = compile_with(needed);
    assert!(fits.plan.is_some(), "{:?}", fits.diagnostics);
    let over = compile_with(needed - 1);
    let messages: Vec<String> = over
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}", d.line, d.path, d.message))
        .collect();
    assert_eq!(
        messages,
        [
            "2:stages: the recipe could need 50688 bytes of memory, over the budget of 50687 bytes",
            "3:stages[0].parameters: stage 10 could need 50688 bytes of memory, over the budget of 50687 bytes",
        ]
    );
    assert!(over.plan.is_none());
    assert_eq!(
        Registry::standard().memory_budget_bytes(),
        crate::recipe::limits::DEFAULT_MEMORY_BUDGET_BYTES
    );
}

#[test]
fn a_street_block_feeds_scatter_areas() {
    let block =
        "Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {\"crosswalks\": 2}),";
    let scatter =
        "Stage(id: 2, operator: \"environment.scatter\", algorithm: 1, inputs: [1, \"family\"], \
                   parameters: {\"cell_size\": 300}),";
    let outcome = check(&format!("{scatter}\n{block}"), "1, 2", &[]);
    let plan = outcome.plan.unwrap_or_else(|| panic!("plan"));
    let ports: Vec<&str> = plan.stages()[1].inputs().iter().map(|b| b.port).collect();
    assert_eq!(ports, ["family", "areas"], "bound in port order");
    assert_eq!(plan.stages()[1].depth(), 1);
    check(
        &format!(
            "{}\n{block}",
            scatter.replace("{\"cell_size\": 300}", "{\"region\": (0, 0, 10, 10)}")
        ),
        "1, 2",
        &["3:stages[0].parameters[\"region\"]: stage 2: `region` is given, but the regions come from the `areas` input"],
    );
}

#[test]
fn unsupported_address_schemas_are_rejected() {
    let text = recipe_text(SCATTER, "10").replace("address_schema: 1", "address_schema: 2");
    let outcome = compile_text(&text);
    assert_eq!(outcome.diagnostics.len(), 1);
    assert_eq!(
        outcome.diagnostics[0].message,
        "address schema 2 is not supported"
    );
}

#[test]
fn a_region_whose_cells_cannot_be_packed_is_rejected_at_compile_time() {
    check(
        &SCATTER.replace("(0, 0, 4000, 4000)", "(-20000000, 0, 0, 4000)"),
        "10",
        &["3:stages[0].parameters[\"region\"]: stage 10: the cells of region (-20000000, 0, 0, 4000) \
           at cell size 400 do not fit the packed identity"],
    );
}

#[test]
fn routes_are_what_the_operators_publish() {
    let block =
        "Stage(id: 1, operator: \"street.block\", algorithm: 1, parameters: {\"crosswalks\": 3}),";
    let text = recipe_text(&format!("{block}\n{SCATTER}"), "1, 10");
    let (recipe, _, _) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    let routes: Vec<String> = published_routes(&recipe, &families(), &Registry::standard())
        .into_iter()
        .collect();
    assert_eq!(
        routes,
        [
            "crosswalk.0",
            "crosswalk.1",
            "crosswalk.2",
            "sidewalk.north",
            "sidewalk.south"
        ]
    );
    // A recipe that does not compile publishes nothing.
    let broken = text.replace("\"crosswalks\": 3", "\"crosswalks\": 30");
    let (recipe, _, _) = read_document::<Recipe>(DocKind::Recipe, FILE, &broken);
    let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
    assert!(published_routes(&recipe, &families(), &Registry::standard()).is_empty());
}

#[test]
fn a_zero_width_keep_out_is_reported_at_its_rectangle() {
    check(
        &SCATTER.replace(
            "{\"region\": (0, 0, 4000, 4000)}",
            "{\"region\": (0, 0, 4000, 4000), \"keep_outs\": [(0, 0, 5, 5), (7, 0, 7, 5)]}",
        ),
        "10",
        &["3:stages[0].parameters[\"keep_outs\"][1]: stage 10: item 1 of `keep_outs` is (7, 0, 7, 5), \
           which is empty or inverted: a rectangle (x0, y0, x1, y1) needs x0 < x1 and y0 < y1"],
    );
}

#[test]
fn two_scatter_stages_packing_one_scope_are_an_admission_error_at_the_second_ones_room() {
    let second = |id: u32, params: &str| {
        format!(
            "Stage(id: {id}, operator: \"environment.scatter\", algorithm: 1, inputs: [\"family\"], \
             parameters: {{\"region\": (0, 0, 4000, 4000){params}}}),"
        )
    };
    // Defaults (room 1, layer 0) on both: reported at the second stage's parameters.
    check(
        &format!("{SCATTER}\n{}", second(11, "")),
        "10, 11",
        &["4:stages[1].parameters: stage 11 packs identities in room 1, layer 0, which stage 10 already packs: both would emit the same identities and draws"],
    );
    // An authored room that collides is reported there; a layer of its own does not collide.
    check(
        &format!("{SCATTER}\n{}", second(11, ", \"room\": 1")),
        "10, 11",
        &["4:stages[1].parameters[\"room\"]: stage 11 packs identities in room 1, layer 0, which stage 10 already packs: both would emit the same identities and draws"],
    );
    check(
        &format!("{SCATTER}\n{}", second(11, ", \"layer\": 1")),
        "10, 11",
        &[],
    );
    check(
        &format!("{SCATTER}\n{}", second(11, ", \"room\": 2")),
        "10, 11",
        &[],
    );
}

/// A grid mission whose chunk library lacks a role, or whose minimums no grid of its size can
/// meet, is refused when it compiles (so by `check`), never first by the kernel in `generate`.
#[test]
fn a_mission_the_solver_must_refuse_is_refused_at_compile_time() {
    let mission = |chunks: &str, extra: &str| {
        format!(
            "Stage(id: 5, operator: \"layout.grid-mission\", algorithm: 1, parameters: {{\"chunks\": [{chunks}]{extra}}}),"
        )
    };
    let full = "(\"s\", \"spawn\", false), (\"o\", \"objective\", false), (\"e\", \"extraction\", false), (\"b\", \"blocker\", false), (\"c\", \"connector\", false)";
    check(&format!("{}\n{SCATTER}", mission(full, "")), "5, 10", &[]);
    let no_extraction = full.replace("(\"e\", \"extraction\", false), ", "");
    check(
        &format!("{}\n{SCATTER}", mission(&no_extraction, "")),
        "5, 10",
        &["3:stages[0].parameters[\"chunks\"]: stage 5: the chunk library has no extraction chunk"],
    );
    let no_fill = full.replace(", (\"c\", \"connector\", false)", "");
    check(
        &format!("{}\n{SCATTER}", mission(&no_fill, "")),
        "5, 10",
        &["3:stages[0].parameters[\"chunks\"]: stage 5: the chunk library has no connector chunk"],
    );
    let unreachable = ", \"width\": 3, \"height\": 2, \"min_extraction_distance\": 4, \"objectives\": 5, \"min_npc_cells\": 7";
    check(
        &format!("{}\n{SCATTER}", mission(full, unreachable)),
        "5, 10",
        &[
            "3:stages[0].parameters[\"min_extraction_distance\"]: stage 5: spawn and extraction are never more than 3 cells apart on a 3×2 grid, below the minimum 4",
            "3:stages[0].parameters[\"objectives\"]: stage 5: 5 objectives do not fit beside the spawn and the extraction on a 3×2 grid",
            "3:stages[0].parameters[\"min_npc_cells\"]: stage 5: a 3×2 grid has 6 cells, fewer than the 7 that must admit NPCs",
        ],
    );
}

/// A recipe with more problems than the per-file budget keeps the first 1000 diagnostics and one
/// warning counting the rest; it still does not compile (a dropped error is still an error).
#[test]
fn a_file_reports_at_most_its_diagnostic_budget() {
    let unknown: String = (0..1500).map(|i| format!("\"p{i:04}\": 1, ")).collect();
    let stage = SCATTER.replace("{\"region\"", &format!("{{{unknown}\"region\""));
    let outcome = compile_text(&recipe_text(&stage, "10"));
    assert!(outcome.plan.is_none());
    assert_eq!(
        outcome.diagnostics.len(),
        budget::MAX_DIAGNOSTICS_PER_FILE + 1
    );
    let errors = outcome.diagnostics.iter().filter(|d| d.is_error()).count();
    assert_eq!(errors, 1000);
    let last = outcome
        .diagnostics
        .last()
        .unwrap_or_else(|| panic!("a summary"));
    assert!(!last.is_error());
    assert_eq!(
        last.message,
        "500 more diagnostics of this file (70500 bytes) were dropped: a file reports at most \
         1000 diagnostics and 262144 bytes of them"
    );
    // Under the budget, nothing is dropped and no summary is added.
    let few: String = (0..3).map(|i| format!("\"p{i}\": 1, ")).collect();
    let stage = SCATTER.replace("{\"region\"", &format!("{{{few}\"region\""));
    let outcome = compile_text(&recipe_text(&stage, "10"));
    assert_eq!(outcome.diagnostics.len(), 3);
}

/// A chain that reaches no output (30 → 40) is warned about stage by stage and left out of the
/// plan; the live stages keep their order and depths.
#[test]
fn stages_that_reach_no_output_are_left_out_of_the_plan() {
    let dead_scatter = SCATTER
        .replace("id: 10", "id: 30")
        .replace("{\"region\"", "{\"layer\": 1, \"region\"");
    let dead_place = PLACE.replace("id: 20", "id: 40").replace("[10]", "[30]");
    let outcome = check(
        &format!("{SCATTER}\n{PLACE}\n{dead_scatter}\n{dead_place}"),
        "20",
        &[
            "5:stages[2].id: the product of stage 30 is not used (it reaches no output), so the stage is not run",
            "6:stages[3].id: the product of stage 40 is not used (it reaches no output), so the stage is not run",
        ],
    );
    let plan = outcome.plan.unwrap_or_else(|| panic!("a plan"));
    let ids: Vec<(u32, u32)> = plan.stages().iter().map(|s| (s.id(), s.depth())).collect();
    assert_eq!(ids, [(10, 0), (20, 1)]);
}

/// An assembly stage reads a module family: a frame socket no module fits is a located error of
/// `frame`, and an assembly packing the scope of a scatter stage is an admission error.
#[test]
fn an_assembly_is_checked_against_its_module_family_and_the_scopes_of_other_stages() {
    let mut families = families();
    let module = |id: &str, sockets: &[&str]| AssetVariant {
        id: id.to_owned(),
        weight: 1,
        sockets: sockets.iter().map(|s| (*s).to_owned()).collect(),
        ..AssetVariant::default()
    };
    families.insert(
        "modules".to_owned(),
        AssetFamily {
            id: "modules".to_owned(),
            name: String::new(),
            variants: vec![module("bay", &["bay"]), module("door", &["door", "bay"])],
        },
    );
    let compile_with = |frame: &str, room: u32| {
        let text = format!(
            "Recipe(schema: 1, id: \"r\", address_schema: 1, inputs: {{\"family\": Family(\"trees\"), \"modules\": Family(\"modules\")}},\n\
             stages: [\n{SCATTER}\nStage(id: 30, operator: \"assembly\", algorithm: 1, inputs: [\"modules\"], \
             parameters: {{\"frame\": \"{frame}\", \"frames\": 3, \"room\": {room}}}),\n], outputs: [10, 30])\n"
        );
        let (recipe, tree, diagnostics) = read_document::<Recipe>(DocKind::Recipe, FILE, &text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let recipe = recipe.unwrap_or_else(|| panic!("recipe"));
        let source = RecipeSource {
            file: FILE,
            tree: tree.as_ref(),
        };
        let outcome = compile(&recipe, &families, &Registry::standard(), source);
        let found: Vec<String> = outcome
            .diagnostics
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.path, d.message))
            .collect();
        (outcome.plan.is_some(), found)
    };
    let (compiled, found) = compile_with("bay door bay", 2);
    assert_eq!((compiled, found), (true, Vec::<String>::new()));
    let (compiled, found) = compile_with("bay roof door roof", 2);
    assert!(!compiled);
    assert_eq!(
        found,
        ["4:stages[1].parameters[\"frame\"]: stage 30: no module of family `modules` fits socket `roof` (slot 1)"]
    );
    let (compiled, found) = compile_with("bay door", 1);
    assert!(!compiled);
    assert_eq!(
        found,
        ["4:stages[1].parameters[\"room\"]: stage 30 packs identities in room 1, layer 0, which stage 10 already packs: both would emit the same identities and draws"]
    );
    let (_, found) = compile_with("bay do:or", 2);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`do:or` is not a socket type id"),
        "{found:?}"
    );
}

/// The scope manifest lists each stage's locality, packed scopes and random domains.
#[test]
fn the_scope_manifest_names_each_stages_scopes_and_domains() {
    let outcome = check(&format!("{SCATTER}\n{PLACE}"), "20", &[]);
    let manifest = scope_manifest(&outcome.plan.unwrap_or_else(|| panic!("plan")));
    assert_eq!(manifest.recipe, "r");
    assert_eq!(manifest.address_schema, 1);
    assert_eq!(
        manifest.stages,
        [
            ScopeEntry {
                stage: 10,
                operator: "environment.scatter",
                locality: "finite-neighborhood",
                data_scope: "cell",
                scopes: vec![(1, 0)],
                domains: vec![1, 2],
                subrecipe: None,
            },
            ScopeEntry {
                stage: 20,
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
