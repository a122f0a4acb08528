//! Times the loader's phases on a 1 MiB recipe inputs map (a profiling aid, not a test).
use std::time::Instant;
use stagecraft_runtime::ops::registry::Registry;
use stagecraft_runtime::project::parse::parse;
use stagecraft_runtime::project::*;
use stagecraft_runtime::recipe::check_project;
fn main() {
    let mut recipe = String::from("Recipe(schema: 1, id: \"r\", address_schema: 1, stages: [Stage(id: 1, operator: \"street.block\", algorithm: 1, inputs: [\"k0\"])], outputs: [1], inputs: {");
    let mut i = 0;
    while recipe.len() < 1_040_000 { recipe.push_str(&format!("\"k{i}\": Value(1), ")); i += 1; }
    recipe.push_str("})\n");
    let manifest = "Manifest(schema: 2, name: \"p\", root_seed: 1, recipes: [\"r\"])\n";
    let t = Instant::now();
    let parsed = parse(&recipe);
    println!("parse: {:?} ({} errors)", t.elapsed(), parsed.errors.len());
    let mut sources = ProjectSources::default();
    sources.files.insert(MANIFEST_FILE.into(), manifest.into());
    sources.files.insert("recipes/r.recipe.ron".into(), recipe.clone());
    let t = Instant::now();
    let loaded = load_project(&sources);
    println!("load_project: {:?} ({} diagnostics)", t.elapsed(), loaded.diagnostics.len());
    let t = Instant::now();
    let project = loaded.project.as_ref().unwrap();
    let files = project.canonical_files();
    println!("canonical_files: {:?} ({} bytes)", t.elapsed(), files.values().map(|f| f.len()).sum::<usize>());
    let t = Instant::now();
    let checked = check_project(&loaded, &Registry::standard());
    println!("check_project: {:?} ({} diagnostics) {:?}", t.elapsed(), checked.len(), checked.first().map(|d| &d.message));
}
