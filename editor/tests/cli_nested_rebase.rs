//! `stagecraft rebase` of edits inside a subrecipe child run after the child recipe changed
//! (the shared fixture, `support::nested_rebase`): the report names each edit's stage and nested
//! path, `--write --retarget EDIT=ID` points the delete and the harvest at placements of the
//! moved child run with those placements' base revisions (so `generate` applies both and a
//! second rebase keeps them), and a re-target naming no candidate of stage 10 › 1 is a located
//! error at the edit's `target`, with nothing written.

mod support;

use support::nested_rebase::{placements, write_moved_fixture, HARVESTED};
use support::{example, stagecraft, stdout};

const SET_FILE: &str = "overrides/edits.overrides.ron";

fn json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let output = stagecraft(args);
    let value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&output)));
    (output.status.code(), value)
}

/// (edit, stage, nested, standing, found_base) of each entry of `rebase --json`.
fn entries(dir: &str) -> Vec<(String, u64, serde_json::Value, String, serde_json::Value)> {
    let (code, report) = json(&["rebase", dir, "--json"]);
    assert_eq!(code, Some(0));
    report["recipes"][0]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["edit"].as_str().unwrap_or_default().to_owned(),
                e["stage"].as_u64().unwrap_or_default(),
                e["nested"].clone(),
                e["standing"].as_str().unwrap_or_default().to_owned(),
                e["found_base"].clone(),
            )
        })
        .collect()
}

#[test]
fn retargeting_nested_edits_after_the_child_moved_applies_them_again() {
    let example = example("street-planting");
    let deleted = write_moved_fixture(&example.dir);
    let dir = example.dir.display().to_string();
    let before = entries(&dir);
    assert_eq!(before.len(), 2);
    for (edit, stage, nested, standing, _) in &before {
        assert_eq!((*stage, nested), (10, &serde_json::json!([1])), "{edit}");
        assert_ne!(standing, "applies", "{edit}: the lattice moved its target");
    }
    let text = stdout(&stagecraft(&["rebase", &dir]));
    assert!(
        text.contains("edits:mutations[0] Harvest 0x00010100fff9fffe (stage 10 › 1): "),
        "{text}"
    );

    let moved = placements(&example.dir, 10);
    let fresh: Vec<u64> = moved
        .iter()
        .copied()
        .filter(|id| *id != deleted && *id != HARVESTED)
        .collect();
    let (to_delete, to_harvest) = (fresh[0], fresh[1]);
    let delete_arg = format!("edits:overrides[0]={to_delete:#x}");
    let harvest_arg = format!("edits:mutations[0]={to_harvest}");
    let output = stagecraft(&[
        "rebase",
        &dir,
        "--write",
        "--retarget",
        &delete_arg,
        "--retarget",
        &harvest_arg,
    ]);
    assert!(output.status.success(), "{}", stdout(&output));

    let document = stagecraft_editor::document::Document::open(&example.dir).expect("opens");
    let set = document.project().overrides["edits"].clone();
    assert_eq!(
        (set.overrides[0].target, set.mutations[0].target),
        (to_delete, to_harvest)
    );
    assert_eq!(
        (
            set.overrides[0].nested.as_slice(),
            set.mutations[0].nested.as_slice()
        ),
        ([1].as_slice(), [1].as_slice())
    );
    // The recorded bases are the moved child run's: a second report finds them, and keeps both.
    let after = entries(&dir);
    let found: Vec<(String, String, serde_json::Value)> = after
        .iter()
        .map(|(edit, _, _, standing, found)| (edit.clone(), standing.clone(), found.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "edits:overrides[0]".to_owned(),
                "applies".to_owned(),
                serde_json::json!(set.overrides[0].base)
            ),
            (
                "edits:mutations[0]".to_owned(),
                "applies".to_owned(),
                serde_json::json!(set.mutations[0].base)
            ),
        ]
    );
    assert_eq!(set.overrides[0].base.len(), 16);
    assert_ne!(set.overrides[0].base, set.mutations[0].base);
    // `generate` applies both, to exactly those placements of the main street's run.
    let (code, generated) = json(&["generate", &dir, "--json"]);
    assert_eq!(code, Some(0));
    let recipe = &generated["recipes"][0];
    let objects = |stage: u64| {
        recipe["stages"]
            .as_array()
            .expect("stages")
            .iter()
            .find(|s| s["stage"] == stage)
            .and_then(|s| s["objects"].as_u64())
            .expect("objects")
    };
    assert_eq!(objects(10), moved.len() as u64 - 2);
    assert_eq!(objects(20), placements(&example.dir, 20).len() as u64);
    let check = stagecraft(&["check", &dir]);
    assert!(
        stdout(&check).contains("0 errors, 0 warnings"),
        "{}",
        stdout(&check)
    );
}

#[test]
fn a_retarget_to_no_candidate_of_the_child_stage_is_located_and_writes_nothing() {
    let example = example("street-planting");
    let deleted = write_moved_fixture(&example.dir);
    let dir = example.dir.display().to_string();
    let file = example.dir.join(SET_FILE);
    // The delete is re-targeted to a placement of the moved run; the harvest to no candidate.
    let to_delete = placements(&example.dir, 10)
        .into_iter()
        .find(|id| *id != deleted && *id != HARVESTED)
        .expect("a placement");
    let delete_arg = format!("edits:overrides[0]={to_delete}");
    let before = std::fs::read_to_string(&file).expect("set");
    // Candidate 1 of cell (0, 0): the child scatter draws one candidate per cell.
    let (code, error) = json(&[
        "rebase",
        &dir,
        "--write",
        "--json",
        "--retarget",
        &delete_arg,
        "--retarget",
        "edits:mutations[0]=0x0001010100000000",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(error["schema"], "stagecraft.error/1");
    assert_eq!(error["code"], "rebase_refused");
    assert_eq!(error["file"], SET_FILE);
    assert_eq!(error["path"], "mutations[0].target");
    let line = error["line"].as_u64().expect("line") as usize;
    let column = error["column"].as_u64().expect("column") as usize;
    let at = before.lines().nth(line - 1).expect("the line");
    assert!(
        at[column - 1..].starts_with(&format!("{HARVESTED},")),
        "{at}"
    );
    assert_eq!(
        error["message"],
        format!(
            "{SET_FILE}:{line}:{column} mutations[0].target: edits:mutations[0] cannot be re-targeted to 0x0001010100000000: not a candidate of stage 10 › 1 (child run street-planting/10:sidewalk-props) (expected the packed id of a candidate of stage 10 › 1 in the new generation)"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("set"),
        before,
        "nothing written"
    );
    // An edit that no set has is a usage error.
    let (code, error) = json(&[
        "rebase",
        &dir,
        "--write",
        "--json",
        "--retarget",
        "edits:mutations[4]=1",
    ]);
    assert_eq!((code, error["code"].as_str()), (Some(2), Some("usage")));
}
