//! Identities read one way in every panel: `0x` and 16 hex digits, as the command line prints them
//! (`stagecraft_runtime::identity::identity_text`), never the decimal the override files hold.

mod support;

use egui_kittest::kittest::Queryable as _;
use stagecraft_editor::edits::{DocId, Selection};
use stagecraft_runtime::identity::identity_text;
use stagecraft_runtime::project::FieldPath;
use support::{example, harness};

/// `overrides[3]` of the pine clearing's set targets 281474976710658 (decimal in the file).
const TARGET: u64 = 281_474_976_710_658;

#[test]
fn the_inspector_shows_an_override_target_in_hex() {
    assert_eq!(identity_text(TARGET), "0x0001000000000002");
    let example = example("pine-clearing");
    let mut harness = harness(&example.dir);
    harness.set_size(egui::vec2(1280.0, 1800.0));
    harness.run_steps(2);
    let doc = DocId::Overrides("pine-clearing-edits".into());
    harness
        .state_mut()
        .document_mut()
        .expect("a document")
        .select(Selection::field(
            doc,
            FieldPath::root().field("overrides").index(3),
        ));
    harness.run_steps(3);
    // The item's title and its target field.
    assert!(harness
        .query_by_label("3: stage 1001 · target 0x0001000000000002")
        .is_some());
    assert!(harness
        .query_by_label_contains(&TARGET.to_string())
        .is_none());
    let field = harness
        .get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|node| node.value().as_deref() == Some("0x0001000000000002"));
    assert!(
        field.is_some(),
        "the target field shows the identity in hex"
    );
}
