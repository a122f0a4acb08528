//! `stagecraft rebase --write --retarget EDIT=ID`: the re-target decisions of the command line
//! (`pine-edits:overrides[0]=0x0001000000050005`, an edit as the report names it and a packed
//! identity in decimal or `0x…` hex), and a refused rebase as a located error at the edit's field
//! of the file read — the runtime's `overrides::diagnose::rebase_error_diagnostic`, which the
//! editor's Rebase dialog shows for the same decision.

use std::collections::BTreeMap;

use stagecraft_runtime::overrides::diagnose::rebase_error_diagnostic;
use stagecraft_runtime::overrides::{Decision, EditList, EditRef, RebaseError, RebaseReport};
use stagecraft_runtime::project::{LoadedProject, ProjectSources};

use super::error::CliError;
use crate::authoring::rebase::{parse_id, refusal_text};

/// `SET:overrides[N]=ID` or `SET:mutations[N]=ID` as the edit and the packed identity.
pub fn parse_retarget(text: &str) -> Result<(EditRef, u64), String> {
    let bad = || {
        format!("--retarget {text:?}: expected EDIT=ID, as `SET:overrides[N]=0x…` or `SET:mutations[N]=ID`")
    };
    let (edit, id) = text.rsplit_once('=').ok_or_else(bad)?;
    let (set, place) = edit.rsplit_once(':').ok_or_else(bad)?;
    let (list, index) = place
        .strip_suffix(']')
        .and_then(|p| p.split_once('['))
        .ok_or_else(bad)?;
    let list = match list {
        "overrides" => EditList::Override,
        "mutations" => EditList::Mutation,
        _ => return Err(bad()),
    };
    let index = index.parse().map_err(|_| bad())?;
    let id = parse_id(id).ok_or_else(bad)?;
    if set.is_empty() {
        return Err(bad());
    }
    let edit = EditRef {
        set: set.to_owned(),
        list,
        index,
    };
    Ok((edit, id))
}

/// The re-targets of `retargets` that name an edit of `report`, added to `decisions` (they take
/// the place of the default decision).
pub fn add_retargets(
    decisions: &mut BTreeMap<EditRef, Decision>,
    report: &RebaseReport,
    retargets: &[(EditRef, u64)],
) {
    for (edit, id) in retargets {
        if report.entries.iter().any(|e| &e.edit == edit) {
            decisions.insert(edit.clone(), Decision::Retarget(*id));
        }
    }
}

/// The first re-target that names no edit of any of `reports`, as an error.
pub fn unknown_retarget(reports: &[RebaseReport], retargets: &[(EditRef, u64)]) -> Option<String> {
    retargets
        .iter()
        .find(|(edit, _)| {
            !reports
                .iter()
                .any(|r| r.entries.iter().any(|e| &e.edit == edit))
        })
        .map(|(edit, _)| {
            format!("--retarget names {edit}, which is no edit of the rebased recipes' sets")
        })
}

/// A rebase `error` as the located error of the file read (exit code 1, `rebase_refused`).
pub fn refused(error: &RebaseError, loaded: &LoadedProject, sources: &ProjectSources) -> CliError {
    let tree_of = |file: &str| loaded.trees.get(file);
    let diagnostic = rebase_error_diagnostic(error, &tree_of);
    CliError::new(1, "rebase_refused", refusal_text(&diagnostic))
        .with_diagnostics(&[diagnostic], sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retargets_parse_as_the_report_names_edits() {
        let (edit, id) = parse_retarget("edits:mutations[2]=0x0001000000050005").expect("parses");
        assert_eq!(edit.to_string(), "edits:mutations[2]");
        assert_eq!(id, 0x0001_0000_0005_0005);
        let (edit, id) = parse_retarget("a:b:overrides[0]=42").expect("parses");
        assert_eq!(
            (edit.set.as_str(), edit.list, edit.index, id),
            ("a:b", EditList::Override, 0, 42)
        );
        for bad in [
            "edits:mutations[2]",
            "edits:rocks[0]=1",
            ":overrides[0]=1",
            "e:overrides[x]=1",
            "e:overrides[0]=zz",
        ] {
            assert!(parse_retarget(bad).is_err(), "{bad}");
        }
    }
}
