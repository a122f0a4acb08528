//! The layer rule of `runtime/src/sim`, read from its source text: every top-level module of
//! `sim` is declared in one layer of the `## Layers` list in `sim/mod.rs`'s docs, and no
//! module names a module of its own layer or of a layer above it; below the compiler, no file
//! names a `project` document type (the world holds compiled types only). Tests (`tests.rs`,
//! `*_tests.rs`, `tests/` folders, inline `mod tests` blocks) may use anything and are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stagecraft_tests::repo_root;
use stagecraft_tests::source_text::{comment_lines_blanked, group_heads, is_ident_char};

fn sim_dir() -> PathBuf {
    repo_root().join("runtime/src/sim")
}

/// The `.rs` files under `dir`, recursively, sorted, leaving test files out.
fn production_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("source folder reads") {
            let path = entry.expect("folder entry reads").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if name != "tests" {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") && !name.contains("tests") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The declared layers: `(layer number, module)` for each module named in backticks on a
/// `//! N. name — ...` line of the `## Layers` section of `sim/mod.rs`.
fn declared_layers(mod_rs: &str) -> BTreeMap<String, usize> {
    let mut layers = BTreeMap::new();
    let section = mod_rs
        .lines()
        .skip_while(|line| !line.starts_with("//! ## Layers"))
        .skip(1)
        .take_while(|line| line.starts_with("//!") && !line.starts_with("//! ##"));
    for line in section {
        let text = line.trim_start_matches("//!").trim();
        let Some((number, rest)) = text.split_once(". ") else {
            continue;
        };
        let Ok(layer) = number.parse::<usize>() else {
            continue;
        };
        for (index, name) in rest.split('`').enumerate() {
            if index % 2 == 1 {
                let previous = layers.insert(name.to_owned(), layer);
                assert!(previous.is_none(), "`{name}` is declared in two layers");
            }
        }
    }
    layers
}

/// The top-level modules of `sim`: its `.rs` files (but `mod.rs`) and its folders.
fn top_modules() -> Vec<String> {
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(sim_dir()).expect("sim reads") {
        let path = entry.expect("entry reads").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            modules.push(name.to_owned());
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "mod" && !stem.contains("tests") {
                modules.push(stem.to_owned());
            }
        }
    }
    modules.sort();
    modules
}

/// `path`'s code: comment-only lines blanked (line numbers kept) and an inline
/// `#[cfg(test)] mod tests { … }` at its end cut off.
fn code_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("source file reads");
    let mut code = comment_lines_blanked(&text);
    if let Some(at) = code.find("#[cfg(test)]\nmod tests {") {
        code.truncate(at);
    }
    code
}

/// The `sim` modules a file names, with byte offsets: what follows `crate::sim::` or
/// `super::` repeated `depth` times (the file's distance below `sim`), alone or in a group.
fn sim_modules_named(text: &str, depth: usize) -> Vec<(usize, String)> {
    let relative = "super::".repeat(depth);
    let mut named = Vec::new();
    for prefix in ["crate::sim::", relative.as_str()] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            let rest = &text[at + prefix.len()..];
            if before.is_some_and(|c| is_ident_char(c) || c == ':') || rest.starts_with("super::") {
                continue;
            }
            let offset = at + prefix.len();
            if rest.starts_with('{') {
                named.extend(
                    group_heads(rest)
                        .into_iter()
                        .map(|(at, n)| (offset + at, n)),
                );
            } else {
                let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
                named.push((offset, name));
            }
        }
    }
    named
}

/// Each import of a module of the same or a higher layer, as `file:line: a (N) names b (M)`.
fn violations(layers: &BTreeMap<String, usize>) -> Vec<String> {
    let sim = sim_dir();
    let mut found = Vec::new();
    for path in production_files(&sim) {
        let below = path.strip_prefix(&sim).expect("under sim");
        let parts: Vec<_> = below.components().collect();
        if parts.len() == 1 && below == Path::new("mod.rs") {
            continue;
        }
        let own = parts[0].as_os_str().to_string_lossy();
        let own = own.strip_suffix(".rs").unwrap_or(&own).to_owned();
        let is_mod_rs = below.file_name().is_some_and(|n| n == "mod.rs");
        let depth = parts.len() - usize::from(is_mod_rs);
        let text = code_text(&path);
        for (at, name) in sim_modules_named(&text, depth) {
            let (Some(&mine), Some(&theirs)) = (layers.get(&own), layers.get(&name)) else {
                continue;
            };
            if name != own && theirs >= mine {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!(
                    "runtime/src/sim/{}:{line}: `{own}` (layer {mine}) names `{name}` (layer {theirs})",
                    below.display()
                ));
            }
        }
    }
    found
}

#[test]
fn every_sim_module_declares_one_layer_and_imports_only_layers_below_it() {
    let mod_rs = std::fs::read_to_string(sim_dir().join("mod.rs")).expect("sim/mod.rs reads");
    let layers = declared_layers(&mod_rs);
    let modules = top_modules();
    assert!(modules.len() > 10, "sim's modules are found: {modules:?}");
    let undeclared: Vec<_> = modules
        .iter()
        .filter(|m| !layers.contains_key(*m))
        .collect();
    assert!(
        undeclared.is_empty(),
        "sim/mod.rs declares no layer for {undeclared:?}"
    );
    let missing: Vec<_> = layers.keys().filter(|m| !modules.contains(m)).collect();
    assert!(
        missing.is_empty(),
        "sim/mod.rs declares layers for missing modules {missing:?}"
    );
    let found = violations(&layers);
    assert!(
        found.is_empty(),
        "imports across layers:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_an_upward_import_through_super_and_through_a_group() {
    let layers = BTreeMap::from([("state".to_owned(), 1), ("world".to_owned(), 3)]);
    let text = "use super::super::{state::A, world::World};\nfn f() { crate::sim::world::g(); }";
    let named = sim_modules_named(text, 2);
    let names: Vec<&str> = named.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["world", "state", "world"]);
    let upward: Vec<_> = names.iter().filter(|n| layers[**n] >= 2).collect();
    assert_eq!(
        upward.len(),
        2,
        "a layer-2 module naming `world` twice is caught twice"
    );
    let sibling = sim_modules_named("use super::queue::Lanes;", 2);
    assert!(
        sibling.is_empty(),
        "a sibling inside the folder is not a sim module: {sibling:?}"
    );
}

/// The `crate::project` names `text` uses (alone or in a `{…}` group), with byte offsets.
fn project_names(text: &str) -> Vec<(usize, String)> {
    let prefix = "crate::project::";
    let mut named = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        let offset = at + prefix.len();
        if rest.starts_with('{') {
            named.extend(
                group_heads(rest)
                    .into_iter()
                    .map(|(at, n)| (offset + at, n)),
            );
        } else {
            let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
            named.push((offset, name));
        }
    }
    named
}

/// The project's plain value types and constants that the compiled world may hold; a
/// document type (a scenario, its settings, a family) never gets past the compiler.
const PROJECT_VALUES: [&str; 10] = [
    "Vec2",
    "Vec3",
    "PopulationKind",
    "VehicleRelation",
    "FieldPath",
    "DEFAULT_FIXED_STEP_S",
    "MAX_FIXED_STEP_S",
    "DIRECTIVE_DURATION_RANGE",
    "DEFAULT_FORCED_INIT_S",
    "DEFAULT_SPECIAL_REMOVAL_SCALE",
];

#[test]
fn below_the_compiler_sim_names_no_project_document_type() {
    let sim = sim_dir();
    let mod_rs = std::fs::read_to_string(sim.join("mod.rs")).expect("sim/mod.rs reads");
    let layers = declared_layers(&mod_rs);
    let world = layers["world"];
    let mut found = Vec::new();
    let mut values_seen = 0;
    for path in production_files(&sim) {
        let below = path.strip_prefix(&sim).expect("under sim");
        let top = below.components().next().expect("a first component");
        let top = top.as_os_str().to_string_lossy();
        let top = top.strip_suffix(".rs").unwrap_or(&top);
        // The compiler reads scenario documents, the space is built from a bundle's products
        // and family sizes (both turn documents into compiled types), and the tools above the
        // world (bench worlds, estimates) may write documents for the compiler.
        let above_world = layers.get(top).is_some_and(|&layer| layer > world);
        if top == "scenario" || top == "space" || top == "mod" || above_world {
            continue;
        }
        let text = code_text(&path);
        for (at, name) in project_names(&text) {
            if PROJECT_VALUES.contains(&name.as_str()) {
                values_seen += 1;
            } else {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!(
                    "runtime/src/sim/{}:{line}: `{name}`",
                    below.display()
                ));
            }
        }
    }
    assert!(
        values_seen > 20,
        "the checker reads sim's project names ({values_seen})"
    );
    assert!(
        found.is_empty(),
        "project document types below the compiler:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_document_checker_reads_grouped_project_names() {
    let names =
        project_names("use crate::project::{MotionSettings, Vec2};\nlet v: crate::project::Vec3;");
    let names: Vec<&str> = names.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["MotionSettings", "Vec2", "Vec3"]);
}
