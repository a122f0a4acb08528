//! The loader's fuzz target: mutated project files (seeded from the examples) over the mutation
//! families the hardening issue used — truncation, token, number, string, nesting, Unicode and
//! structural mutations — must never panic, must locate every diagnostic inside its input, must
//! either decode or diagnose every document, and every accepted input must write → read → write
//! to the same bytes.
//!
//! CI runs a bounded number of cases; a long run by hand:
//! `PROPTEST_CASES=200000 cargo test -p stagecraft-runtime --release --test fuzz_loader`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use stagecraft_runtime::project::{
    classify, has_errors, load_project, DocKind, LoadedProject, ProjectSources,
};

/// The example projects' files, keyed by project then path (families under `assets/`).
fn examples() -> Vec<ProjectSources> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut families = BTreeMap::new();
    read_folder(&root.join("assets"), "../../assets", &mut families);
    ["street-block", "pine-clearing", "tactical-mission"]
        .iter()
        .map(|name| {
            let dir = root.join("projects").join(name);
            let mut files = families.clone();
            read_folder(&dir, "", &mut files);
            for folder in ["recipes", "scenarios", "overrides"] {
                read_folder(&dir.join(folder), folder, &mut files);
            }
            ProjectSources {
                files,
                ..ProjectSources::default()
            }
        })
        .collect()
}

fn read_folder(dir: &Path, key: &str, into: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".ron") && entry.path().is_file() {
            let path = if key.is_empty() {
                name
            } else {
                format!("{key}/{name}")
            };
            let text = std::fs::read_to_string(entry.path()).expect("example text");
            into.insert(path, text);
        }
    }
}

/// One mutation of a text, chosen and placed by the generated numbers.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    DeleteRange(usize, usize),
    InsertToken(usize, &'static str),
    ReplaceNumber(usize, String),
    ReplaceString(usize, String),
    Nest(usize, usize),
    InsertUnicode(usize, char),
    SwapLines(usize, usize),
    DuplicateLine(usize),
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "/*",
    "*/",
    "//",
    "None",
    "Some(",
    "Recipe",
    "Manifest",
    "schema: 1,",
    "schema: 2,",
    "seed: 5,",
    "assets: \"x\",",
    "inf",
    "NaN",
    "-",
    "0x",
    "1e999",
    "x: 1,",
    "\\u{",
    "\n",
    "\u{feff}",
    "true",
    "id: \"../etc\",",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        at.prop_map(Mutation::Truncate),
        (at, 0usize..64).prop_map(|(a, n)| Mutation::DeleteRange(a, n)),
        (at, prop::sample::select(TOKENS)).prop_map(|(a, t)| Mutation::InsertToken(a, t)),
        (
            at,
            prop_oneof![
                Just("0".to_owned()),
                Just("-1".to_owned()),
                Just("18446744073709551616".to_owned()),
                Just("340282366920938463463374607431768211456".to_owned()),
                Just("1.0".to_owned()),
                Just("1e308".to_owned()),
                any::<i64>().prop_map(|v| v.to_string()),
                any::<f64>().prop_map(|v| format!("{v:?}")),
            ]
        )
            .prop_map(|(a, n)| Mutation::ReplaceNumber(a, n)),
        (at, any::<String>()).prop_map(|(a, s)| Mutation::ReplaceString(a, s)),
        (at, 1usize..40).prop_map(|(a, d)| Mutation::Nest(a, d)),
        (at, any::<char>()).prop_map(|(a, c)| Mutation::InsertUnicode(a, c)),
        (at, at).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        at.prop_map(Mutation::DuplicateLine),
    ]
}

/// The char boundary at or before `at % (len + 1)`.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, mutation: &Mutation) -> String {
    match mutation {
        Mutation::Truncate(at) => text[..boundary(text, *at)].to_owned(),
        Mutation::DeleteRange(at, len) => {
            let start = boundary(text, *at);
            let end = boundary(text, start + len).max(start);
            format!("{}{}", &text[..start], &text[end..])
        }
        Mutation::InsertToken(at, token) => {
            let at = boundary(text, *at);
            format!("{}{token}{}", &text[..at], &text[at..])
        }
        Mutation::ReplaceNumber(at, number) => {
            replace_nth(text, *at, number, |c| c.is_ascii_digit())
        }
        Mutation::ReplaceString(at, string) => {
            let escaped = format!("{string:?}");
            let quoted: Vec<usize> = text.match_indices('"').map(|(i, _)| i).collect();
            if quoted.len() < 2 {
                return text.to_owned();
            }
            let pair = (at % (quoted.len() / 2)) * 2;
            format!(
                "{}{escaped}{}",
                &text[..quoted[pair]],
                &text[quoted[pair + 1] + 1..]
            )
        }
        Mutation::Nest(at, depth) => {
            let at = boundary(text, *at);
            format!(
                "{}{}{}{}",
                &text[..at],
                "[".repeat(*depth),
                "]".repeat(*depth),
                &text[at..]
            )
        }
        Mutation::InsertUnicode(at, c) => {
            let at = boundary(text, *at);
            format!("{}{c}{}", &text[..at], &text[at..])
        }
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            let (a, b) = (a % lines.len(), b % lines.len());
            lines.swap(a, b);
            lines.join("\n")
        }
        Mutation::DuplicateLine(a) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            let a = a % lines.len();
            lines.insert(a, lines[a]);
            lines.join("\n")
        }
    }
}

/// Replaces the `nth` run of characters matching `class` with `with`.
fn replace_nth(text: &str, nth: usize, with: &str, class: fn(char) -> bool) -> String {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (class(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, text.len()));
    }
    if runs.is_empty() {
        return text.to_owned();
    }
    let (s, e) = runs[nth % runs.len()];
    format!("{}{with}{}", &text[..s], &text[e..])
}

/// Every property the loader promises, for one input.
fn check_input(sources: &ProjectSources) -> Result<(), TestCaseError> {
    let loaded = load_project(sources);
    for diagnostic in &loaded.diagnostics {
        let text = sources.files.get(&diagnostic.file);
        if let Some(text) = text {
            let lines: Vec<&str> = text.split('\n').collect();
            let line = diagnostic.line as usize;
            prop_assert!(
                line >= 1 && line <= lines.len(),
                "{diagnostic:?} outside {} lines",
                lines.len()
            );
            let columns = lines[line - 1].chars().count() + 1;
            prop_assert!(
                diagnostic.column >= 1 && diagnostic.column as usize <= columns,
                "{diagnostic:?} outside a line of {columns} columns"
            );
        } else {
            prop_assert!(
                (diagnostic.line, diagnostic.column) == (1, 1),
                "{diagnostic:?}"
            );
        }
    }
    check_every_document_accounted_for(sources, &loaded)?;
    if !has_errors(&loaded.diagnostics) {
        let project = loaded.project.as_ref().expect("a project without errors");
        let written = project.canonical_files();
        let reread = load_project(&ProjectSources {
            files: written.clone(),
            ..ProjectSources::default()
        });
        prop_assert!(!has_errors(&reread.diagnostics), "{:?}", reread.diagnostics);
        let rewritten = reread.project.expect("reread").canonical_files();
        prop_assert_eq!(written, rewritten);
    }
    Ok(())
}

/// Each document file is decoded into the project or has an error of its own (or, without a
/// readable manifest, the manifest has one).
fn check_every_document_accounted_for(
    sources: &ProjectSources,
    loaded: &LoadedProject,
) -> Result<(), TestCaseError> {
    let Some(project) = &loaded.project else {
        let manifest_errors = loaded
            .diagnostics_of("stagecraft.ron")
            .any(|d| d.is_error());
        prop_assert!(
            manifest_errors,
            "no project and no manifest error: {:?}",
            loaded.diagnostics
        );
        return Ok(());
    };
    for path in sources.files.keys() {
        let Some((kind, id)) = classify(path) else {
            continue;
        };
        let decoded = match kind {
            DocKind::Manifest => true,
            DocKind::Recipe => project.recipes.contains_key(&id),
            DocKind::Scenario => project.scenarios.contains_key(&id),
            DocKind::Overrides => project.overrides.contains_key(&id),
            DocKind::Family => project.families.contains_key(&id),
            DocKind::Motion => project.motions.contains_key(&id),
        };
        let diagnosed = loaded.diagnostics_of(path).any(|d| d.is_error());
        prop_assert!(
            decoded || diagnosed,
            "{path} was dropped silently: {:?}",
            loaded.diagnostics
        );
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn mutated_project_files_are_read_or_diagnosed(
        project in 0usize..3,
        file in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut sources = examples().swap_remove(project);
        let paths: Vec<String> = sources.files.keys().cloned().collect();
        let path = &paths[file % paths.len()];
        let mut text = sources.files[path].clone();
        for mutation in &mutations {
            text = apply(&text, mutation);
        }
        sources.files.insert(path.clone(), text);
        check_input(&sources)?;
    }
}

#[test]
fn the_examples_themselves_pass_every_property() {
    for sources in examples() {
        check_input(&sources).expect("example");
        assert!(!has_errors(&load_project(&sources).diagnostics));
    }
}

#[test]
fn a_top_level_that_is_not_a_struct_is_diagnosed_never_dropped() {
    for top in ["Manifest", "[]", "5", "\"x\"", "Manifest()"] {
        let mut sources = examples().swap_remove(1);
        sources
            .files
            .insert("stagecraft.ron".to_owned(), top.to_owned());
        let loaded = load_project(&sources);
        let errors: Vec<String> = loaded
            .diagnostics_of("stagecraft.ron")
            .filter(|d| d.is_error())
            .map(|d| format!("{}:{} {}", d.line, d.column, d.message))
            .collect();
        assert_eq!(errors.len(), 1, "{top}: {errors:?}");
        assert!(
            errors[0].starts_with("1:1 wrong type: found"),
            "{top}: {errors:?}"
        );
    }
    for top in ["Recipe", "Recipe()"] {
        let mut sources = examples().swap_remove(1);
        sources.files.insert(
            "recipes/pine-clearing.recipe.ron".to_owned(),
            top.to_owned(),
        );
        let loaded = load_project(&sources);
        let errors: Vec<String> = loaded
            .diagnostics_of("recipes/pine-clearing.recipe.ron")
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect();
        assert!(!errors.is_empty(), "{top} must be diagnosed");
        assert!(
            errors[0].starts_with("wrong type: found"),
            "{top}: {errors:?}"
        );
    }
}
