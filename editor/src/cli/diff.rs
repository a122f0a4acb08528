//! `stagecraft diff A B`: the identity diff of two generations. Each side is a project folder
//! (generated here, optionally with `--a-seed`/`--b-seed` and `--a-set`/`--b-set
//! STAGE.PARAM=VALUE`) or a cooked bundle folder (verified and decoded). Exit 0 when equal, 1
//! when they differ, 2 on an error (like `diff`).

use std::io::Write;
use std::path::Path;

use stagecraft_runtime::diff::{diff_objects, BundleDiff, Change};

use super::diagnostics::escape_controls;
use super::error::CliError;

pub use crate::cook::side::{apply_sets, key_text, side_objects, DiffSide};

fn fields_text(change: &Change) -> String {
    let fields = match change {
        Change::Moved { fields, .. } | Change::Changed { fields } => fields,
        _ => return String::new(),
    };
    fields
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn diff_json(diff: &BundleDiff) -> serde_json::Value {
    let entries: Vec<serde_json::Value> = diff
        .entries()
        .filter_map(|e| {
            let o = e.object()?;
            let distance = match e.change {
                Change::Moved { distance_m, .. } => Some(distance_m),
                _ => None,
            };
            let fields: Vec<&str> = match &e.change {
                Change::Moved { fields, .. } | Change::Changed { fields } => {
                    fields.iter().map(|f| f.name()).collect()
                }
                _ => Vec::new(),
            };
            Some(serde_json::json!({
                "change": e.change.name(), "recipe": o.recipe, "stage": o.stage,
                "kind": o.kind.name(), "key": key_text(&o.key),
                "distance_m": distance, "fields": fields,
            }))
        })
        .collect();
    let c = diff.counts;
    serde_json::json!({
        "equal": diff.is_empty(),
        "counts": {"added": c.added, "removed": c.removed, "moved": c.moved, "changed": c.changed, "unchanged": c.unchanged},
        "entries": entries,
    })
}

/// `stagecraft diff`: exit 0 equal, 1 different, 2 on an error.
pub fn diff(
    a: &Path,
    b: &Path,
    sides: (&DiffSide<'_>, &DiffSide<'_>),
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<i32> {
    let objects = side_objects(a, sides.0).and_then(|x| Ok((x, side_objects(b, sides.1)?)));
    let (oa, ob) = match objects {
        Ok(pair) => pair,
        Err(error) => {
            return Err(CliError::new(2, "unreadable_side", format!("{error:#}")).into());
        }
    };
    let diff = diff_objects(oa, ob);
    if json {
        super::json_out::write_document(out, "diff", &diff_json(&diff))?;
    } else {
        for e in diff.entries() {
            let Some(o) = e.object() else { continue };
            let detail = match e.change {
                Change::Moved { distance_m, .. } => format!(" by {distance_m:.3} m"),
                _ => String::new(),
            };
            let fields = fields_text(&e.change);
            writeln!(
                out,
                "{:<8} {} stage {} {} {}{}{}",
                e.change.name(),
                escape_controls(&o.recipe),
                o.stage,
                o.kind.name(),
                escape_controls(&key_text(&o.key)),
                detail,
                if fields.is_empty() {
                    String::new()
                } else {
                    format!(" ({fields})")
                }
            )?;
        }
        let c = diff.counts;
        writeln!(
            out,
            "{} added, {} removed, {} moved, {} changed, {} unchanged",
            c.added, c.removed, c.moved, c.changed, c.unchanged
        )?;
    }
    Ok(i32::from(!diff.is_empty()))
}
