//! The authoring functions on the pine-clearing example: identities, base revisions,
//! precedences and positions in meters, each checked against the file's own values or by
//! regenerating with the new set.

use std::sync::Arc;

use stagecraft_runtime::content::Product;
use stagecraft_runtime::identity::ScatterId;
use stagecraft_runtime::overrides::{Overrides, StageBase};
use stagecraft_runtime::project::{Override, OverrideAction, OverrideSet, Project, Vec2};
use stagecraft_runtime::recipe::{compile, family_data, RecipeSource};
use undo::Record;

use super::*;
use crate::edits::ProjectEdit;
use crate::session::PreviewContent;

const SET: &str = "pine-clearing-edits";
const RECIPE: &str = "pine-clearing";

fn pine() -> Project {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/pine-clearing");
    let (_, loaded) = crate::project_io::load_dir(&dir).expect("readable");
    loaded.project.expect("loads")
}

/// The project's generation with its overrides, as the preview shows it.
fn content(project: &Project) -> PreviewContent {
    let registry = stagecraft_runtime::ops::registry::Registry::standard();
    let plan = compile(
        &project.recipes[RECIPE],
        &project.families,
        &registry,
        RecipeSource {
            file: "recipes/pine-clearing.recipe.ron",
            tree: None,
        },
    )
    .plan
    .expect("compiles");
    let overrides = Overrides::of_recipe(project, RECIPE);
    let bundle = crate::cook::generate_plan(&plan, project.manifest.root_seed, &overrides)
        .expect("generates");
    PreviewContent {
        bundle: Arc::new(bundle),
        families: project.families.clone(),
    }
}

/// The shown placed object (stage 1002) with identity `bits`.
fn object(content: &PreviewContent, bits: u64) -> Target {
    let Product::PlacedObjects(placed) = content.stage(1002).expect("stage").product.as_ref()
    else {
        panic!("placed objects");
    };
    let id = placed
        .objects
        .iter()
        .map(|o| o.placement.id)
        .find(|id| id.bits() == bits)
        .expect("shown");
    target_of(content, &PickId::Object { stage: 1002, id }).expect("a target")
}

/// The first shown placed object that no override or mutation of the file names.
fn unnamed(content: &PreviewContent, project: &Project) -> u64 {
    let named: Vec<u64> = set(project)
        .overrides
        .iter()
        .map(|o| o.target)
        .chain(set(project).mutations.iter().map(|m| m.target))
        .collect();
    let Product::PlacedObjects(placed) = content.stage(1002).expect("stage").product.as_ref()
    else {
        panic!("placed objects");
    };
    placed
        .objects
        .iter()
        .map(|o| o.placement.id.bits())
        .find(|bits| !named.contains(bits))
        .expect("an unnamed object")
}

fn applied(mut project: Project, edit: ProjectEdit) -> Project {
    let mut record = Record::new();
    record.edit(&mut project, edit);
    project
}

fn set(project: &Project) -> &OverrideSet {
    &project.overrides[SET]
}

#[test]
fn locking_what_the_file_locks_reproduces_its_values_and_updates_in_place() {
    let project = pine();
    let content = content(&project);
    let before = set(&project).clone();
    // The file's LockTransform of 0x0001_0000_0009_0001 and FreezeSubtree of …0003_0004 were
    // authored against this generation: authoring them again gives the same values.
    for (bits, action, index) in [
        (281474977431553u64, ObjectAction::LockTransform, 1usize),
        (281474976972804, ObjectAction::FreezeSubtree, 6),
        (281474976776192, ObjectAction::Lock, 0),
    ] {
        let target = object(&content, bits);
        let edit = author_object(&project, &content, &target, &action).expect("an edit");
        let after = applied(project.clone(), edit);
        let changed = set(&after);
        assert_eq!(changed.overrides.len(), before.overrides.len(), "in place");
        let o = &changed.overrides[index];
        assert_eq!((o.stage, o.target), (1001, bits));
        assert_eq!(o.base, before.overrides[index].base, "{action:?}");
        assert_eq!(o.action, before.overrides[index].action, "{action:?}");
        assert_eq!(o.precedence, 1, "one above the file's precedence 0");
    }
}

#[test]
fn deleting_a_new_object_appends_a_tombstone_that_applies_on_regeneration() {
    let project = pine();
    let content = content(&project);
    let bits = unnamed(&content, &project);
    let target = object(&content, bits);
    let edit = author_object(&project, &content, &target, &ObjectAction::Delete).expect("edit");
    let after = applied(project.clone(), edit);
    let o = set(&after).overrides.last().expect("appended");
    assert_eq!(set(&after).overrides.len(), 8);
    let family = family_data(&project.families["alpine-trees"]);
    let base = StageBase::new(1001, 20261129, &family, 400, 2, 0.01);
    let id = ScatterId::from_bits(bits).expect("valid");
    assert_eq!(o.base, base.revision(id).expect("a base"));
    assert_eq!(o.base.len(), 16);
    assert_eq!(
        (o.target, o.precedence, &o.action),
        (bits, 1, &OverrideAction::Delete)
    );
    let regenerated = self::content(&after);
    let outcome = regenerated
        .stage(1001)
        .expect("stage")
        .provenance
        .edits
        .iter()
        .find(|e| e.target == bits)
        .expect("an outcome")
        .result
        .clone();
    assert_eq!(outcome, Ok(()));
    let again = author_object(&after, &content, &target, &ObjectAction::Delete);
    assert_eq!(
        again,
        Err(AuthoringRefusal::AlreadyDeleted { set: SET.into() })
    );
}

#[test]
fn moving_updates_the_existing_move_snapped_to_centimetres_and_refuses_a_keep_out() {
    let project = pine();
    let content = content(&project);
    let target = object(&content, 281474976710658);
    // Shown where the file's Move put it.
    assert_eq!((target.x, target.y), (300, 1300));
    let edit = author_object(
        &project,
        &content,
        &target,
        &ObjectAction::Move([3.456, 12.0]),
    )
    .expect("edit");
    let after = applied(project.clone(), edit);
    assert_eq!(set(&after).overrides.len(), 7, "no second Move stacked");
    let o = &set(&after).overrides[3];
    assert_eq!(
        o.action,
        OverrideAction::Move {
            position: Vec2 { x: 3.46, y: 12.0 }
        }
    );
    assert_eq!(o.base, "458f7436ed544c13");
    assert_eq!(o.precedence, 1);
    // Keep-out 0 is (20, 20)–(40, 40) m.
    let refused = author_object(
        &project,
        &content,
        &target,
        &ObjectAction::Move([30.0, 30.0]),
    );
    assert_eq!(
        refused,
        Err(AuthoringRefusal::InsideKeepOut {
            x_m: 30.0,
            y_m: 30.0,
            keep_out: 0
        })
    );
}

#[test]
fn an_added_object_takes_the_next_free_authored_candidate_of_its_cell() {
    let project = pine();
    let content = content(&project);
    // The file's added boulder is authored candidate 130 of cell (11, 6) (128 + its schema-2
    // index 2); the lowest free authored index there is 128.
    let edit = add_object(&project, &content, 1001, "boulder", [47.304, 24.2]).expect("edit");
    let after = applied(project.clone(), edit);
    let o = set(&after).overrides.last().expect("appended");
    let expected = (1u64 << 48) | (128 << 32) | (11 << 16) | 6;
    assert_eq!(o.target, expected);
    assert_eq!(o.precedence, 1);
    assert_eq!(o.base, "");
    assert_eq!(
        o.action,
        OverrideAction::Add {
            variant: "boulder".into(),
            position: Vec2 { x: 47.3, y: 24.2 }
        }
    );
    let outcome = self::content(&after)
        .stage(1001)
        .expect("stage")
        .provenance
        .edits
        .iter()
        .find(|e| e.target == expected)
        .map(|e| e.result.clone());
    assert_eq!(outcome, Some(Ok(())));
    assert_eq!(
        add_object(&project, &content, 1001, "oak", [47.0, 24.0]),
        Err(AuthoringRefusal::UnknownVariant {
            variant: "oak".into()
        })
    );
    assert_eq!(
        add_object(&project, &content, 1001, "boulder", [70.0, 1.0]),
        Err(AuthoringRefusal::OutsideRegion {
            x_m: 70.0,
            y_m: 1.0
        })
    );
    assert_eq!(
        add_object(&project, &content, 1002, "boulder", [1.0, 1.0]),
        Err(AuthoringRefusal::UnsupportedStage { stage: 1002 })
    );
}

#[test]
fn an_exclusion_is_the_snapped_rectangle_whatever_corners_were_dragged() {
    let project = pine();
    let content = content(&project);
    let edit = exclude_rect(&project, &content, 1001, [10.004, 50.0], [5.0, 52.5]).expect("edit");
    let after = applied(project.clone(), edit);
    let o: &Override = set(&after).overrides.last().expect("appended");
    assert_eq!((o.target, o.precedence), (0, 1));
    assert_eq!(
        o.action,
        OverrideAction::Exclude {
            min: Vec2 { x: 5.0, y: 50.0 },
            max: Vec2 { x: 10.0, y: 52.5 }
        }
    );
    assert_eq!(
        exclude_rect(&project, &content, 1001, [5.0, 1.0], [5.001, 9.0]),
        Err(AuthoringRefusal::EmptyRectangle)
    );
}

/// Placement `target` of the recipe's own scatter stage 1001.
fn own(target: u64) -> MutationSite {
    MutationSite {
        stage: 1001,
        nested: Vec::new(),
        target,
    }
}

#[test]
fn harvest_then_regrow_advance_the_ordinal_exactly_once() {
    let project = pine();
    let content = content(&project);
    let bits = unnamed(&content, &project);
    let target = object(&content, bits);
    let edit = author_object(&project, &content, &target, &ObjectAction::Harvest).expect("edit");
    let after = applied(project.clone(), edit);
    let m = &set(&after).mutations[2];
    assert_eq!((m.target, m.harvested, m.ordinal), (bits, true, 0));
    assert_eq!(m.base.len(), 16);
    let listed: Vec<(u64, u32)> = harvested(&after, RECIPE)
        .iter()
        .map(|h| (h.site.target, h.ordinal))
        .collect();
    assert_eq!(listed, vec![(281474977234957, 0), (bits, 0)]);
    let regrown = applied(
        after.clone(),
        regrow(&after, SET, &own(bits)).expect("regrows"),
    );
    let m = &set(&regrown).mutations[2];
    assert_eq!((m.harvested, m.ordinal), (false, 1));
    // The file's regrown tree (ordinal 1) is not harvested, so it cannot regrow again.
    assert_eq!(
        regrow(&project, SET, &own(281474977562638)),
        Err(AuthoringRefusal::NotHarvested)
    );
    let mut exhausted = project.clone();
    if let Some(set) = exhausted.overrides.get_mut(SET) {
        set.mutations[0].ordinal = u32::MAX;
    }
    assert_eq!(
        regrow(&exhausted, SET, &own(281474977234957)),
        Err(AuthoringRefusal::OrdinalExhausted)
    );
}

#[test]
fn a_recipe_without_a_set_gets_one_listed_in_the_manifest_and_an_unbound_set_is_refused() {
    let mut project = pine();
    let content = content(&project);
    project.overrides.clear();
    project.manifest.overrides.clear();
    let target = object(&content, 281474976776192);
    let edit = author_object(&project, &content, &target, &ObjectAction::Lock).expect("edit");
    assert_eq!(
        edit.docs(),
        vec![DocId::Manifest, DocId::Overrides(RECIPE.into())]
    );
    let after = applied(project.clone(), edit);
    assert_eq!(after.manifest.overrides, vec![RECIPE.to_owned()]);
    let created = &after.overrides[RECIPE];
    assert_eq!(
        (created.recipe.as_str(), created.base_seed),
        (RECIPE, Some(20261129))
    );
    assert_eq!(created.overrides[0].precedence, 0, "the first override");
    assert_eq!(
        created.overrides[0].action,
        OverrideAction::LockSelection {
            variant: "pine-young".into()
        }
    );

    let mut unbound = pine();
    if let Some(set) = unbound.overrides.get_mut(SET) {
        set.base_seed = Some(7);
    }
    assert_eq!(
        author_object(&unbound, &content, &target, &ObjectAction::Delete),
        Err(AuthoringRefusal::SetNotBound {
            set: SET.into(),
            bound: "seed 7".into(),
            seed: 20261129
        })
    );
}

#[test]
fn replacing_needs_another_variant_of_the_family() {
    let project = pine();
    let content = content(&project);
    let target = object(&content, 281474976776192);
    assert_eq!(
        variants_of(&content, &target),
        vec!["pine-tall", "pine-young", "boulder"]
    );
    assert_eq!(
        author_object(
            &project,
            &content,
            &target,
            &ObjectAction::Replace("pine-young".into())
        ),
        Err(AuthoringRefusal::SameVariant {
            variant: "pine-young".into()
        })
    );
    let edit = author_object(
        &project,
        &content,
        &target,
        &ObjectAction::Replace("boulder".into()),
    )
    .expect("edit");
    let after = applied(project, edit);
    let o = set(&after).overrides.last().expect("appended");
    assert_eq!(
        o.action,
        OverrideAction::Replace {
            variant: "boulder".into()
        }
    );
    assert_eq!(o.base, "cd1c5eaaf5a65d02");
}

#[test]
fn rotating_turns_the_placed_object_on_regeneration_and_a_second_rotate_updates_it() {
    let project = pine();
    let content = content(&project);
    let bits = unnamed(&content, &project);
    let target = object(&content, bits);
    let (_, scale) = target.transform.expect("a placed object");
    let edit =
        author_object(&project, &content, &target, &ObjectAction::Rotate(12_000)).expect("edit");
    let after = applied(project.clone(), edit);
    let o = set(&after).overrides.last().expect("appended");
    assert_eq!(
        (o.stage, o.target, &o.action),
        (1001, bits, &OverrideAction::Rotate { rotation: 12_000 })
    );
    let turned = object(&self::content(&after), bits);
    assert_eq!(
        turned.transform,
        Some((12_000, scale)),
        "scale stays generated"
    );
    assert_eq!(
        (turned.x, turned.y),
        (target.x, target.y),
        "position untouched"
    );
    let again =
        author_object(&after, &content, &target, &ObjectAction::Rotate(40_000)).expect("edit");
    let twice = applied(after.clone(), again);
    assert_eq!(set(&twice).overrides.len(), set(&after).overrides.len());
    assert_eq!(
        set(&twice).overrides.last().map(|o| o.action.clone()),
        Some(OverrideAction::Rotate { rotation: 40_000 })
    );
    // A placement without select-and-place has no rotation to turn.
    let bare = Target {
        transform: None,
        ..target
    };
    assert_eq!(
        author_object(&project, &content, &bare, &ObjectAction::Rotate(1)),
        Err(AuthoringRefusal::NoTransform)
    );
}
