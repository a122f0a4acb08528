//! Tests of the recipe ↔ snarl interop: views built from documents, and graph changes as edits.

use super::super::subrecipe_pins::SubrecipePins;
use super::*;
use stagecraft_runtime::project::{FieldPath, RecipeInput};

fn stage(id: u32, operator: &str, inputs: Vec<StageInput>) -> Stage {
    Stage {
        id,
        label: format!("s{id}"),
        operator: operator.into(),
        algorithm: 1,
        inputs,
        parameters: BTreeMap::new(),
    }
}

/// A street block (1) whose areas feed a scatter (2) of family `trees`, placed by stage 3.
fn recipe() -> Recipe {
    let mut inputs = BTreeMap::new();
    inputs.insert("trees".to_owned(), RecipeInput::Family("pines".into()));
    Recipe {
        id: "r".into(),
        label: String::new(),
        address_schema: 1,
        inputs,
        stages: vec![
            stage(1, "street.block", vec![]),
            stage(
                2,
                "environment.scatter",
                vec![StageInput::Stage(1), StageInput::Named("trees".into())],
            ),
            stage(
                3,
                "environment.select-and-place",
                vec![StageInput::Stage(2)],
            ),
        ],
        outputs: vec![3],
    }
}

fn wires(view: &GraphView) -> Vec<(GraphNode, GraphNode, usize)> {
    let mut wires: Vec<_> = view
        .snarl
        .wires()
        .filter_map(|(out, inp)| {
            Some((
                view.ids.recipe(out.node)?.clone(),
                view.ids.recipe(inp.node)?.clone(),
                inp.input,
            ))
        })
        .collect();
    wires.sort();
    wires
}

#[test]
fn document_becomes_nodes_and_wires_bound_like_the_compiler() {
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    let view = build(&recipe(), &registry, &none, &BTreeMap::new());
    assert_eq!(view.snarl.nodes().count(), 4);
    for node in [
        GraphNode::Input("trees".into()),
        GraphNode::Stage(1),
        GraphNode::Stage(2),
        GraphNode::Stage(3),
    ] {
        let id = view.ids.snarl(&node).expect("mapped");
        assert_eq!(view.ids.recipe(id), Some(&node));
        assert_eq!(view.snarl.get_node(id), Some(&node));
    }
    // The family binds scatter's port 0 and the street block its port 1, whatever the order.
    assert_eq!(
        wires(&view),
        vec![
            (GraphNode::Input("trees".into()), GraphNode::Stage(2), 0),
            (GraphNode::Stage(1), GraphNode::Stage(2), 1),
            (GraphNode::Stage(2), GraphNode::Stage(3), 0),
        ]
    );
}

#[test]
fn stored_positions_are_used() {
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    let mut positions = BTreeMap::new();
    positions.insert("stage:2".to_owned(), [5.0, 7.0]);
    let view = build(&recipe(), &registry, &none, &positions);
    let id = view.ids.snarl(&GraphNode::Stage(2)).expect("mapped");
    let info = view.snarl.get_node_info(id).expect("node");
    assert_eq!(info.pos, egui::pos2(5.0, 7.0));
}

#[test]
fn disconnect_and_connect_round_trip() {
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    let original = recipe();
    let cut = disconnect(&original, &registry, &none, 2, 1).expect("disconnects");
    assert_eq!(
        cut.stages[1].inputs,
        vec![StageInput::Named("trees".into())]
    );
    let joined = connect(&cut, &registry, &none, &GraphNode::Stage(1), 2, 1).expect("connects");
    // Rewritten in port order: the family first, then the areas.
    assert_eq!(
        joined.stages[1].inputs,
        vec![StageInput::Named("trees".into()), StageInput::Stage(1)]
    );
    let view = build(&joined, &registry, &none, &BTreeMap::new());
    assert_eq!(
        wires(&view),
        wires(&build(&original, &registry, &none, &BTreeMap::new()))
    );
}

#[test]
fn type_checking_rejects_a_mismatched_port() {
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    // A street block into scatter's family port.
    assert_eq!(
        connect(&recipe(), &registry, &none, &GraphNode::Stage(1), 2, 0),
        Err(Reject::TypeMismatch {
            expected: "Family",
            found: Some("StreetBlock"),
            why: None,
        })
    );
    // A family into select-and-place's placements port.
    assert!(matches!(
        connect(
            &recipe(),
            &registry,
            &none,
            &GraphNode::Input("trees".into()),
            3,
            0
        ),
        Err(Reject::TypeMismatch { .. })
    ));
    assert_eq!(
        connect(&recipe(), &registry, &none, &GraphNode::Stage(1), 2, 9),
        Err(Reject::NoSuchPort(9))
    );
    assert_eq!(
        connect(&recipe(), &registry, &none, &GraphNode::Stage(1), 42, 0),
        Err(Reject::MissingStage(42))
    );
}

#[test]
fn cycles_are_found() {
    // No standard operator can close a loop with matching types, so check the walk itself.
    let looped = recipe();
    assert!(depends_on(&looped, 3, 1));
    assert!(!depends_on(&looped, 1, 3));
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    assert!(connect(&looped, &registry, &none, &GraphNode::Stage(3), 3, 0).is_err());
}

#[test]
fn add_and_remove_stages() {
    let registry = Registry::standard();
    let op = registry
        .operators()
        .find(|op| op.id == "environment.scatter")
        .expect("registered");
    let (added, id) = add_stage(&recipe(), op);
    assert_eq!(id, 4);
    let new = added.stages.last().expect("added");
    assert_eq!(new.operator, "environment.scatter");
    assert!(new
        .parameters
        .keys()
        .all(|k| op.params.iter().any(|p| p.name == k)));

    let removed = remove_stage(&recipe(), 2).expect("removes");
    assert!(removed.stages.iter().all(|s| s.id != 2));
    assert!(removed.stages[1].inputs.is_empty(), "wires into 3 are gone");
    assert_eq!(remove_stage(&recipe(), 9), Err(Reject::MissingStage(9)));
}

#[test]
fn changes_become_one_recipe_edit() {
    let registry = Registry::standard();
    let none = LearnedKinds::default();
    let next = disconnect(&recipe(), &registry, &none, 3, 0).expect("disconnects");
    let selection = Selection::field(
        DocId::Recipe("r".into()),
        FieldPath::root().field("stages").index(2),
    );
    let edit = recipe_edit("r", next.clone(), selection.clone(), "Disconnect");
    match edit {
        ProjectEdit::Replace {
            doc,
            value,
            selection: s,
            ..
        } => {
            assert_eq!(doc, DocId::Recipe("r".into()));
            assert_eq!(value.map(|v| *v), Some(DocValue::Recipe(next)));
            assert_eq!(s, selection);
        }
        ProjectEdit::Batch { .. } => panic!("one replace"),
    }
}

#[test]
fn publishing_toggles_an_output() {
    let published = toggle_output(&recipe(), 2).expect("publishes");
    assert_eq!(published.outputs, vec![3, 2]);
    let back = toggle_output(&published, 2).expect("unpublishes");
    assert_eq!(back.outputs, vec![3]);
    assert_eq!(toggle_output(&recipe(), 8), Err(Reject::MissingStage(8)));
}

/// [`recipe`] with subrecipe stage 10 (binds `binds`, reading `inputs`) and subrecipe.output
/// stage 11 reading `run`.
fn with_subrecipe(binds: &[&str], inputs: Vec<StageInput>, run: Vec<StageInput>) -> Recipe {
    use stagecraft_runtime::project::ParamValue;
    let mut recipe = recipe();
    let mut sub = stage(10, SUBRECIPE_OPERATOR, inputs);
    sub.parameters.insert(
        "binds".into(),
        ParamValue::List(binds.iter().map(|b| ParamValue::Str((*b).into())).collect()),
    );
    recipe.stages.push(sub);
    recipe.stages.push(stage(11, "subrecipe.output", run));
    recipe
}

fn learned_pins(pins: SubrecipePins) -> LearnedKinds {
    let mut learned = LearnedKinds::default();
    learned.pins.insert(10, pins);
    learned
}

#[test]
fn a_subrecipe_bind_pin_is_typed_by_the_child_input_or_refuses_saying_why() {
    let registry = Registry::standard();
    let recipe = with_subrecipe(&["block"], vec![StageInput::Stage(1)], vec![]);
    let typed = learned_pins(SubrecipePins {
        bound: vec![("block".into(), Ok(ProductKind::StreetBlock))],
        free: vec![],
    });
    // The bind's wire is drawn at its pin.
    let view = build(&recipe, &registry, &typed, &BTreeMap::new());
    assert!(wires(&view).contains(&(GraphNode::Stage(1), GraphNode::Stage(10), 0)));
    // A scatter's Placements is no StreetBlock.
    let wrong = connect(&recipe, &registry, &typed, &GraphNode::Stage(2), 10, 0);
    assert_eq!(
        wrong.map(|_| ()).map_err(|e| e.to_string()),
        Err("the port takes a StreetBlock, not a Placements".to_owned())
    );
    // A child that cannot be read leaves the pin untyped: refused with the reason.
    let untyped = learned_pins(SubrecipePins {
        bound: vec![(
            "block".into(),
            Err("stage 10 names the missing recipe file `x`".into()),
        )],
        free: vec![],
    });
    let refused = connect(&recipe, &registry, &untyped, &GraphNode::Stage(1), 10, 0);
    assert_eq!(
        refused.map(|_| ()).map_err(|e| e.to_string()),
        Err("the pin's kind is not known (stage 10 names the missing recipe file `x`)".to_owned())
    );
}

#[test]
fn the_empty_subrecipe_pin_binds_an_unbound_child_input_and_disconnect_unbinds_it() {
    let registry = Registry::standard();
    let recipe = with_subrecipe(&[], vec![], vec![]);
    let learned = learned_pins(SubrecipePins {
        bound: vec![],
        free: vec![("block".into(), ProductKind::StreetBlock)],
    });
    let view = build(&recipe, &registry, &learned, &BTreeMap::new());
    let id = view.ids.snarl(&GraphNode::Stage(10)).expect("node");
    assert_eq!(
        view.snarl
            .in_pin(egui_snarl::InPinId { node: id, input: 0 })
            .remotes,
        []
    );
    let wrong = connect(&recipe, &registry, &learned, &GraphNode::Stage(2), 10, 0);
    assert!(matches!(
        wrong,
        Err(Reject::TypeMismatch {
            expected: "StreetBlock",
            ..
        })
    ));
    let next = connect(&recipe, &registry, &learned, &GraphNode::Stage(1), 10, 0).expect("binds");
    let stage = next.stages.iter().find(|s| s.id == 10).expect("stage 10");
    assert_eq!(stage.inputs, [StageInput::Stage(1)]);
    assert_eq!(super::subrecipe_pins::binds_of(stage), ["block"]);
    // Disconnecting the bound pin takes both away; an input past the binds stays.
    let mut extra = next.clone();
    extra.stages[3].inputs.push(StageInput::Stage(2));
    let back = disconnect(&extra, &registry, &learned, 10, 0).expect("unbinds");
    let stage = back.stages.iter().find(|s| s.id == 10).expect("stage 10");
    assert_eq!(stage.inputs, [StageInput::Stage(2)]);
    assert!(super::subrecipe_pins::binds_of(stage).is_empty());
}

#[test]
fn a_subrecipe_output_pin_takes_only_a_subrecipe_stage() {
    let registry = Registry::standard();
    let recipe = with_subrecipe(&[], vec![], vec![]);
    let none = LearnedKinds::default();
    let refuse = |source: GraphNode| {
        connect(&recipe, &registry, &none, &source, 11, 0)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        refuse(GraphNode::Input("trees".into())),
        Err("the port takes a subrecipe stage (the run it republishes), not the recipe input `trees`".to_owned())
    );
    assert_eq!(
        refuse(GraphNode::Stage(1)),
        Err(
            "the port takes a subrecipe stage (the run it republishes), not stage 1 (street.block)"
                .to_owned()
        )
    );
    let next = connect(&recipe, &registry, &none, &GraphNode::Stage(10), 11, 0).expect("wires");
    assert_eq!(next.stages[4].inputs, [StageInput::Stage(10)]);
    let view = build(&next, &registry, &none, &BTreeMap::new());
    assert!(wires(&view).contains(&(GraphNode::Stage(10), GraphNode::Stage(11), 0)));
    let back = disconnect(&next, &registry, &none, 11, 0).expect("drops");
    assert_eq!(back.stages[4].inputs, []);
}
