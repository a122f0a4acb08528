//! Two import rules of the editor, read from its source text: the Viewport
//! (`editor/src/viewport/`) names no panel, and a CLI command module never names another
//! command's module. The commands are the `pub mod` block under `// The commands` in
//! `editor/src/cli/mod.rs`; what two commands share lives in the modules declared after it.

use std::path::{Path, PathBuf};

use stagecraft_tests::repo_root;
use stagecraft_tests::source_text::{comment_lines_blanked, group_heads, is_ident_char};

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder).expect("source folder reads");
        for entry in entries {
            let path = entry.expect("folder entry reads").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `path`'s text with every comment-only line blanked (its line numbers kept).
fn code_text(path: &Path) -> String {
    comment_lines_blanked(&std::fs::read_to_string(path).expect("source file reads"))
}

/// The 1-based line of byte `offset` in `text`, and that line.
fn line_at(text: &str, offset: usize) -> (usize, &str) {
    let number = text[..offset].matches('\n').count() + 1;
    let line = text.lines().nth(number - 1).unwrap_or("");
    (number, line.trim())
}

/// `path` relative to the repository root, for messages.
fn shown(path: &Path) -> String {
    let root = repo_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Byte offsets in `text` where the identifier `name` stands alone (not part of a longer one).
fn word_offsets<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(name)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
        })
}

/// Each line of a file under `editor/src/viewport/` that names the `panels` module.
fn viewport_violations() -> Vec<String> {
    let dir = repo_root().join("editor/src/viewport");
    let files = rust_files(&dir);
    assert!(files.len() > 5, "the viewport's files are found in {dir:?}");
    let mut violations = Vec::new();
    for path in files {
        let text = code_text(&path);
        for at in word_offsets(&text, "panels") {
            let (number, line) = line_at(&text, at);
            violations.push(format!(
                "{}:{number} names the panels: `{line}`",
                shown(&path)
            ));
        }
    }
    violations
}

/// The command modules: the `pub mod` lines of the block under `// The commands` in `mod_rs`.
fn command_modules(mod_rs: &str) -> Vec<String> {
    let mut lines = mod_rs
        .lines()
        .skip_while(|line| !line.starts_with("// The commands"))
        .skip_while(|line| line.starts_with("//"));
    let mut modules = Vec::new();
    while let Some(name) = lines
        .next()
        .and_then(|line| line.strip_prefix("pub mod "))
        .and_then(|rest| rest.strip_suffix(';'))
    {
        modules.push(name.to_owned());
    }
    modules
}

/// The modules of `editor/src/cli` a file names, with their byte offsets: what follows its path
/// to `cli` (`crate::cli::`, or `super::` repeated `depth` times), alone or in a `{…}` group.
fn cli_modules_named(text: &str, depth: usize) -> Vec<(usize, String)> {
    let relative = "super::".repeat(depth);
    let mut named = Vec::new();
    for prefix in ["crate::cli::", relative.as_str()] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| is_ident_char(c) || c == ':') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            if rest.starts_with("super::") {
                continue;
            }
            let offset = at + prefix.len();
            if rest.starts_with('{') {
                named.extend(
                    group_heads(rest)
                        .into_iter()
                        .map(|(at, name)| (offset + at, name)),
                );
            } else {
                let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
                named.push((offset, name));
            }
        }
    }
    named
}

/// Each line of a command module that names another command module.
fn cli_violations() -> Vec<String> {
    let cli = repo_root().join("editor/src/cli");
    let mod_rs = std::fs::read_to_string(cli.join("mod.rs")).expect("cli/mod.rs reads");
    let commands = command_modules(&mod_rs);
    assert!(
        commands.len() > 5 && commands.iter().any(|c| c == "cook"),
        "cli/mod.rs declares the commands under `// The commands`: {commands:?}"
    );
    let mut violations = Vec::new();
    for command in &commands {
        let (file, folder) = (cli.join(format!("{command}.rs")), cli.join(command));
        let files = if file.is_file() {
            vec![file]
        } else {
            rust_files(&folder)
        };
        assert!(
            !files.is_empty(),
            "the command module `{command}` has a file"
        );
        for path in files {
            let below_cli = path
                .strip_prefix(&cli)
                .expect("under cli")
                .components()
                .count();
            let depth = below_cli - usize::from(path.ends_with("mod.rs"));
            let text = code_text(&path);
            for (at, name) in cli_modules_named(&text, depth) {
                if name != *command && commands.contains(&name) {
                    let (number, line) = line_at(&text, at);
                    violations.push(format!(
                        "{}:{number} names the command `{name}`: `{line}`",
                        shown(&path)
                    ));
                }
            }
        }
    }
    violations
}

#[test]
fn the_viewport_names_no_panel() {
    let violations = viewport_violations();
    assert!(
        violations.is_empty(),
        "the Viewport imports no panel (move what both use below them, e.g. `crate::command`):\n{}",
        violations.join("\n")
    );
}

#[test]
fn cli_commands_never_name_each_other() {
    let violations = cli_violations();
    assert!(
        violations.is_empty(),
        "a CLI command never imports another (move what they share to a shared module of \
         cli/mod.rs):\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_import_readers_find_paths_alone_and_in_groups() {
    let text = "use super::error::CliError;\nuse super::{json_out, generate::{a, b}};\n\
                let x = crate::cli::cook::run();\nuse super::super::other;\nfoo::super::bar;";
    let named: Vec<String> = cli_modules_named(text, 1)
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(named, ["cook", "error", "json_out", "generate"]);
    let nested: Vec<String> = cli_modules_named(text, 2)
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(nested, ["cook", "other"]);
    let mod_rs = "pub mod a;\n// The commands, one each.\n// More words.\npub mod check;\n\
                  pub mod cook;\n\n// Shared.\npub mod error;\n";
    assert_eq!(command_modules(mod_rs), ["check", "cook"]);
    let offsets: Vec<usize> =
        word_offsets("panels::x; my_panels; crate::panels", "panels").collect();
    assert_eq!(offsets, [0, 29]);
}
