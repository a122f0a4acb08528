//! Reproductions of the reader's defects found by fuzzing, each fixed: comments before a first
//! field's colon, a byte-order mark, every missing field at once with its type and unit, linear
//! placement of many diagnostics, and the size limit holding for the canonical form.

use stagecraft_runtime::project::node::Locator;
use stagecraft_runtime::project::parse::{parse, MAX_SOURCE_BYTES};
use stagecraft_runtime::project::*;

const BASE_MANIFEST: &str =
    "Manifest(schema: 2, name: \"p\", root_seed: 1, asset_paths: [\"assets\"], recipes: [])\n";

fn load(files: &[(&str, &str)]) -> LoadedProject {
    let mut sources = ProjectSources::default();
    for (path, text) in files {
        sources.files.insert((*path).to_owned(), (*text).to_owned());
    }
    load_project(&sources)
}

fn described(loaded: &LoadedProject) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{} {} | {} | {}",
                d.file, d.line, d.column, d.path, d.message, d.expected
            )
        })
        .collect()
}

#[test]
fn a_comment_between_the_first_field_and_its_colon_is_accepted() {
    for text in [
        "Manifest(schema /* v */ : 2, name: \"p\", root_seed: 1)",
        "Manifest(schema // version\n : 2, name: \"p\", root_seed: 1)",
        "Manifest(schema: 2, name /* later */ : \"p\", root_seed: 1)",
    ] {
        let loaded = load(&[("stagecraft.ron", text)]);
        assert_eq!(described(&loaded), Vec::<String>::new(), "{text}");
        assert_eq!(loaded.project.expect("project").manifest.name, "p");
    }
}

#[test]
fn a_byte_order_mark_takes_no_column() {
    let parsed = parse("\u{feff}[1, :]");
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!(
        (parsed.errors[0].span.line, parsed.errors[0].span.column),
        (1, 5)
    );
    assert_eq!(parsed.errors[0].message, "unexpected `:`");
    let loaded = load(&[("stagecraft.ron", &format!("\u{feff}{BASE_MANIFEST}"))]);
    assert_eq!(described(&loaded), Vec::<String>::new());
}

#[test]
fn every_missing_field_is_reported_at_once_with_its_type_and_unit() {
    let loaded = load(&[
        ("stagecraft.ron", "Manifest(schema: 2, name: \"p\", root_seed: 1, recipes: [\"r\"], scenarios: [\"s\"])"),
        ("recipes/r.recipe.ron", "Recipe(id: \"r\")"),
        (
            "scenarios/s.scenario.ron",
            "Scenario(schema: 1, id: \"s\", recipe: \"r\", sources: [Source(id: \"a\")], observers: [Observer(id: \"o\")])",
        ),
    ]);
    let recipe: Vec<String> = described(&loaded)
        .into_iter()
        .filter(|d| d.starts_with("recipes/"))
        .collect();
    assert_eq!(
        recipe,
        vec![
            "recipes/r.recipe.ron:1:1 (document) | missing field `address_schema` in `Recipe` | field `address_schema`: an integer (u32, 0..=4294967295)",
            "recipes/r.recipe.ron:1:1 (document) | missing field `outputs` in `Recipe` | field `outputs`: a list `[…]`, each item an integer (u32, 0..=4294967295)",
            "recipes/r.recipe.ron:1:1 (document) | missing field `schema` in `Recipe` | field `schema`: an integer (u32, 0..=4294967295)",
            "recipes/r.recipe.ron:1:1 (document) | missing field `stages` in `Recipe` | field `stages`: a list `[…]`, each item a `Stage(…)` struct",
        ]
    );
    let scenario: Vec<String> = described(&loaded)
        .into_iter()
        .filter(|d| d.starts_with("scenarios/"))
        .collect();
    assert!(
        scenario.iter().any(|d| d.ends_with("missing field `position` in `Observer` | field `position`: a point `(x, y, z)` in meters")),
        "{scenario:#?}"
    );
    assert!(
        scenario.iter().any(|d| d.ends_with("missing field `target_count` in `Source` | field `target_count`: an integer (u32, 0..=4294967295)")),
        "{scenario:#?}"
    );
    assert!(
        scenario
            .iter()
            .any(|d| d
                .ends_with("missing field `route` in `Source` | field `route`: a string `\"…\"`")),
        "{scenario:#?}"
    );
}

#[test]
fn the_locator_finds_what_a_linear_search_finds() {
    let mut text = String::from("Recipe(schema: 1, inputs: {");
    for key in 0..200 {
        text.push_str(&format!("\"k{key}\": Value(Some([{key}, (a: {key})])), "));
    }
    text.push_str("}, stages: [Stage(id: 1), Stage(id: 2, parameters: {\"x\": 1})])");
    let tree = parse(&text).root.expect("parses");
    let locator = Locator::new(&tree);
    let root = FieldPath::root();
    let mut paths = vec![
        root.clone(),
        root.field("inputs"),
        root.field("inputs").key("k0"),
        root.field("inputs").key("k199").index(0),
        root.field("inputs").key("k150").index(0).index(1),
        root.field("inputs")
            .key("k150")
            .index(0)
            .index(1)
            .field("a"),
        root.field("inputs").key("missing").index(3),
        root.field("stages").index(1).field("parameters").key("x"),
        root.field("stages").index(9),
        root.field("nope").field("deeper"),
    ];
    paths.extend((0..200).map(|k| root.field("inputs").key(&format!("k{k}"))));
    for path in paths {
        assert_eq!(
            locator.deepest_at(&tree, &path).span,
            tree.deepest_at(&path).span,
            "{path}"
        );
    }
}

#[test]
fn numeric_and_string_map_keys_are_still_checked_for_duplicates() {
    let parsed = parse("{1: 2, \"1\": 3, 1: 4, true: 1, true: 2, 1.5: 0, 1.5: 1}");
    let messages: Vec<&str> = parsed.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "duplicate map key integer `1` (first at line 1, column 2)",
            "duplicate map key boolean `true` (first at line 1, column 22)",
            "duplicate map key number `1.5` (first at line 1, column 40)",
        ]
    );
}

#[test]
fn a_family_whose_canonical_form_exceeds_the_limit_is_an_error_while_a_smaller_one_is_not() {
    let variant = |i: usize| {
        format!("Variant(id:\"v{i}\",exclusion_radius:1,collision_radius_m:0.5,height_m:1.0),")
    };
    let family = |count: usize| {
        let variants: String = (0..count).map(variant).collect();
        format!("AssetFamily(schema:1,id:\"f\",variants:[{variants}])")
    };
    let big = family(4_700);
    assert!(
        big.len() < MAX_SOURCE_BYTES,
        "the compact text itself is under the limit"
    );
    let loaded = load(&[
        ("stagecraft.ron", BASE_MANIFEST),
        ("assets/f.family.ron", &big),
    ]);
    let errors: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}:{}:{} {}", d.file, d.line, d.column, d.message))
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("assets/f.family.ron:1:1 in canonical form this file would be "),
        "{errors:?}"
    );
    assert!(errors[0].ends_with(
        "bytes, over the limit of 1048576 bytes (1 MiB), so it cannot be formatted or saved"
    ));
    let small = family(100);
    let loaded = load(&[
        ("stagecraft.ron", BASE_MANIFEST),
        ("assets/f.family.ron", &small),
    ]);
    assert_eq!(described(&loaded), Vec::<String>::new());
}
