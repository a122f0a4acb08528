//! The fonts the editor loads: egui's defaults, then a subset of DejaVu Sans for the arrows,
//! shapes and marks they lack (`⇥`, `●`, `→`, `✘`, …).
//!
//! The symbol font comes after egui's fonts in every family, so it only draws what they cannot.
//! A test checks that every non-ASCII character in the editor's code is covered.

use std::sync::Arc;

use egui::{FontData, FontDefinitions, FontFamily};

/// DejaVu Sans, cut down to its symbol blocks (see `editor/assets/fonts/README.md`).
pub const SYMBOLS_FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Symbols.ttf");

/// The name the symbol font is registered under.
pub const SYMBOLS_FONT_NAME: &str = "dejavu-symbols";

/// egui's default fonts with the symbol font as the last fallback of each family.
pub fn definitions() -> FontDefinitions {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        SYMBOLS_FONT_NAME.to_owned(),
        Arc::new(FontData::from_static(SYMBOLS_FONT)),
    );
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .push(SYMBOLS_FONT_NAME.to_owned());
    }
    fonts
}

/// Loads [`definitions`] into `ctx`.
pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(definitions());
}

/// The non-ASCII characters in `source` outside comments: what the code can show on screen.
///
/// A small scanner, not a Rust lexer: it knows line comments, string literals and their
/// escapes, which is what the editor's sources use.
pub fn symbols_in_code_unsorted(source: &str) -> Vec<char> {
    let mut found = Vec::new();
    for line in source.lines() {
        let mut in_string = false;
        let mut escaped = false;
        let mut previous = ' ';
        for c in line.chars() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
            } else if c == '"' {
                in_string = true;
            } else if c == '/' && previous == '/' {
                break;
            }
            if !c.is_ascii() {
                found.push(c);
            }
            previous = c;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// Every symbol in the editor's code, with the file it appears in first.
    fn ui_symbols() -> Vec<(char, String)> {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        files.sort();
        let mut seen = BTreeSet::new();
        let mut symbols = Vec::new();
        for (file, text) in &files {
            for c in symbols_in_code_unsorted(text) {
                if seen.insert(c) {
                    symbols.push((c, file.clone()));
                }
            }
        }
        symbols
    }

    /// Whether a font of `family` in `fonts` maps `c` (what egui's fallback chain looks at;
    /// egui's own `has_glyph` answers false for anything the replacement glyph's font holds).
    fn covers(fonts: &FontDefinitions, family: &FontFamily, c: char) -> bool {
        use skrifa::MetadataProvider as _;
        fonts
            .families
            .get(family)
            .into_iter()
            .flatten()
            .filter_map(|name| fonts.font_data.get(name))
            .any(|data| {
                skrifa::FontRef::from_index(&data.font, data.index)
                    .is_ok_and(|font| font.charmap().map(c).is_some())
            })
    }

    /// The characters of `symbols` that `fonts` cannot draw, per family.
    fn missing(fonts: FontDefinitions, symbols: &[(char, String)]) -> Vec<String> {
        let mut missing = Vec::new();
        for (c, file) in symbols {
            for family in [FontFamily::Proportional, FontFamily::Monospace] {
                if !covers(&fonts, &family, *c) {
                    missing.push(format!("{c:?} (U+{:04X}, {file}, {family:?})", *c as u32));
                }
            }
        }
        missing
    }

    #[test]
    fn the_scanner_skips_comments_and_keeps_strings() {
        let code = "// ignored ●\nlet a = \"x ⇥\"; // not → this\nlet b = '✘'; let c = \"\\\"●\";";
        assert_eq!(symbols_in_code_unsorted(code), vec!['⇥', '✘', '●']);
    }

    #[test]
    fn every_symbol_the_ui_uses_is_covered_by_the_loaded_fonts() {
        let symbols = ui_symbols();
        for needed in ['⇥', '●', '→', '⚠', '⛔', '🗑'] {
            assert!(
                symbols.iter().any(|(c, _)| *c == needed),
                "the scan finds {needed}"
            );
        }
        let missing = missing(definitions(), &symbols);
        assert!(missing.is_empty(), "not covered: {missing:#?}");
        // egui's defaults alone lack some of them: the symbol font is what covers them.
        let without = missing_default(&symbols);
        assert!(without.iter().any(|m| m.starts_with("'⇥'")), "{without:?}");
    }

    fn missing_default(symbols: &[(char, String)]) -> Vec<String> {
        missing(FontDefinitions::default(), symbols)
    }
}
