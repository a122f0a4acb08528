//! Tests of assembly overrides: lock, replace, delete and rotate land on their module only;
//! conflicts are named.

use super::*;
use crate::ops::assembly::{assemble, AssemblyParams};
use crate::overrides::{EditList, EditRef};
use crate::project::schema::{Mutation, Override, Vec2};

type Item = (EditRef, Edit, Result<(), ConflictReason>);

fn family() -> FamilyData {
    let v = |id: &str, weight, sockets: &[&str]| crate::content::FamilyVariant {
        id: id.to_owned(),
        weight,
        exclusion_radius: 0,
        collision_radius_m: 1.0,
        height_m: 10.0,
        sockets: sockets.iter().map(|s| (*s).to_owned()).collect(),
    };
    FamilyData {
        id: "facade-modules".to_owned(),
        variants: vec![
            v("corner-brick", 2, &["corner"]),
            v("bay-window", 3, &["bay"]),
            v("bay-balcony", 1, &["bay"]),
            v("door-arched", 1, &["door"]),
        ],
    }
}

fn plan() -> AssemblyPlan {
    let params = AssemblyParams {
        sockets: ["corner", "bay", "door", "bay", "corner"]
            .map(str::to_owned)
            .to_vec(),
        frames: 4,
        slot_pitch: 300,
        frame_gap: 0,
        origin_x: 0,
        origin_y: 0,
        rotation_steps: 1,
        lattice_unit_m: 0.01,
        room: 1,
        layer: 0,
    };
    assemble(&params, &family(), 5, false).unwrap()
}

fn id(frame: u64, slot: u64) -> u64 {
    1 << 48 | slot << 32 | frame << 16
}

fn edit(index: usize, target: u64, precedence: u32, action: OverrideAction) -> Item {
    (
        EditRef {
            set: "edits".to_owned(),
            list: EditList::Override,
            index,
        },
        Edit::Override(Override {
            nested: Vec::new(),
            stage: 1,
            target,
            precedence,
            base: String::new(),
            action,
        }),
        Ok(()),
    )
}

fn run(edits: Vec<Item>) -> (AssemblyPlan, Vec<EditOutcome>) {
    let mut plan = plan();
    let outcomes = apply_assembly(&mut plan, &family(), &StageEdits { edits }, 1, 5);
    (plan, outcomes)
}

fn results(outcomes: &[EditOutcome]) -> Vec<Result<(), &'static str>> {
    outcomes
        .iter()
        .map(|o| o.result.as_ref().map(|_| ()).map_err(ConflictReason::name))
        .collect()
}

#[test]
fn lock_replace_delete_and_rotate_touch_only_their_module() {
    let base = plan();
    let select = |variant: &str| variant.to_owned();
    let (edited, outcomes) = run(vec![
        edit(
            0,
            id(0, 1),
            0,
            OverrideAction::LockSelection {
                variant: select("bay-balcony"),
            },
        ),
        edit(
            1,
            id(2, 3),
            0,
            OverrideAction::Replace {
                variant: select("bay-window"),
            },
        ),
        edit(2, id(1, 2), 0, OverrideAction::Delete),
        edit(3, id(3, 0), 0, OverrideAction::Rotate { rotation: 16384 }),
    ]);
    assert_eq!(results(&outcomes), [Ok(()), Ok(()), Ok(()), Ok(())]);
    assert_eq!(edited.modules.len(), base.modules.len() - 1);
    assert!(edited.module(id(1, 2)).is_none());
    assert_eq!(edited.module(id(0, 1)).unwrap().variant, 2);
    assert_eq!(edited.module(id(2, 3)).unwrap().variant, 1);
    assert_eq!(edited.module(id(3, 0)).unwrap().rotation_turns_65536, 16384);
    for m in &base.modules {
        if [id(0, 1), id(2, 3), id(1, 2), id(3, 0)].contains(&m.id.bits()) {
            continue;
        }
        assert_eq!(edited.module(m.id.bits()), Some(m));
    }
    // Each outcome carries the generated module's base revision.
    let found = base.module(id(0, 1)).unwrap();
    assert_eq!(outcomes[0].found_base, Some(module_revision(5, found)));
    assert_eq!(outcomes[0].found_base.as_ref().unwrap().len(), 16);
}

#[test]
fn conflicts_are_named_and_nothing_lands_elsewhere() {
    let base = plan();
    let revision = module_revision(5, base.module(id(0, 2)).unwrap());
    let mut stale = edit(4, id(0, 2), 0, OverrideAction::Delete);
    if let Edit::Override(o) = &mut stale.1 {
        o.base = "0000000000000000".to_owned();
    }
    let mut fresh = edit(5, id(0, 2), 0, OverrideAction::Rotate { rotation: 7 });
    if let Edit::Override(o) = &mut fresh.1 {
        o.base = revision;
    }
    let harvest = (
        EditRef {
            set: "edits".to_owned(),
            list: EditList::Mutation,
            index: 0,
        },
        Edit::Mutation(Mutation {
            nested: Vec::new(),
            stage: 1,
            target: id(0, 0),
            base: String::new(),
            harvested: true,
            ordinal: 0,
        }),
        Ok(()),
    );
    let (edited, outcomes) = run(vec![
        // A door module in a bay socket.
        edit(
            0,
            id(0, 1),
            0,
            OverrideAction::Replace {
                variant: "door-arched".to_owned(),
            },
        ),
        edit(
            1,
            id(0, 3),
            0,
            OverrideAction::Replace {
                variant: "palace".to_owned(),
            },
        ),
        edit(2, id(9, 1), 0, OverrideAction::Delete),
        // Two selections of one module: the higher precedence wins.
        edit(
            3,
            id(1, 1),
            2,
            OverrideAction::LockSelection {
                variant: "bay-window".to_owned(),
            },
        ),
        stale,
        fresh,
        edit(
            6,
            id(1, 1),
            1,
            OverrideAction::Replace {
                variant: "bay-balcony".to_owned(),
            },
        ),
        edit(
            7,
            0,
            0,
            OverrideAction::Exclude {
                min: Vec2 { x: 0.0, y: 0.0 },
                max: Vec2 { x: 1.0, y: 1.0 },
            },
        ),
        harvest,
    ]);
    assert_eq!(
        results(&outcomes),
        [
            Err("socket-mismatch"),
            Err("unknown-variant"),
            Err("target-gone"),
            Ok(()),
            Err("base-revision-mismatch"),
            Ok(()),
            Err("superseded"),
            Err("unsupported-stage"),
            Err("unsupported-stage"),
        ]
    );
    assert_eq!(
        outcomes[6].result,
        Err(ConflictReason::Superseded {
            by: EditRef {
                set: "edits".to_owned(),
                list: EditList::Override,
                index: 3
            }
        })
    );
    assert_eq!(edited.module(id(1, 1)).unwrap().variant, 1);
    assert_eq!(edited.module(id(0, 2)).unwrap().rotation_turns_65536, 7);
    assert_eq!(edited.modules.len(), base.modules.len());
    let changed: Vec<u64> = base
        .modules
        .iter()
        .zip(&edited.modules)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.id.bits())
        .collect();
    let mut expected = vec![id(0, 2)];
    if base.module(id(1, 1)).unwrap().variant != 1 {
        expected.push(id(1, 1));
    }
    expected.sort_by_key(|bits| crate::content::assembly::order_key(*bits));
    assert_eq!(changed, expected);
}
