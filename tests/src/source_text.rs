//! Reading Rust source as text, for the tests that check import rules (`editor_imports`,
//! `sim_layers`): identifiers, `use` groups and comment-free code.

/// Whether `c` can stand in a Rust identifier.
pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` with every comment-only line blanked (its line numbers kept).
pub fn comment_lines_blanked(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("//") {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment of each item of the `use` group opening at `text`'s `{`, with its
/// byte offset in `text`.
pub fn group_heads(text: &str) -> Vec<(usize, String)> {
    let mut heads = Vec::new();
    let (mut depth, mut item_start) = (0usize, true);
    for (at, c) in text.char_indices() {
        match c {
            '{' => {
                depth += 1;
                item_start = depth == 1;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = true,
            c if item_start && is_ident_char(c) => {
                let name: String = text[at..]
                    .chars()
                    .take_while(|&c| is_ident_char(c))
                    .collect();
                heads.push((at, name));
                item_start = false;
            }
            _ => {}
        }
    }
    heads
}
