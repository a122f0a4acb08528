//! Property tests of the canonical writer: write → read gives the same document, and
//! write → read → write gives the same bytes, for generated documents of every kind.

use std::collections::BTreeMap;

use proptest::prelude::*;
use stagecraft_runtime::project::decode::Decode;
use stagecraft_runtime::project::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9.-]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(16).collect()),
    ]
}

fn finite() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |v| v.is_finite())
}

fn vec3() -> impl Strategy<Value = Vec3> {
    (finite(), finite(), finite()).prop_map(|(x, y, z)| Vec3 { x, y, z })
}

fn param() -> impl Strategy<Value = ParamValue> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(ParamValue::Bool),
        any::<i64>().prop_map(ParamValue::Int),
        finite().prop_map(ParamValue::Float),
        text().prop_map(ParamValue::Str),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(ParamValue::List),
            prop::collection::vec(inner, 0..4).prop_map(ParamValue::Tuple),
        ]
    })
}

fn stage() -> impl Strategy<Value = Stage> {
    (
        any::<u32>(),
        text(),
        text(),
        any::<u32>(),
        prop::collection::vec(
            prop_oneof![
                text().prop_map(StageInput::Named),
                any::<u32>().prop_map(StageInput::Stage)
            ],
            0..4,
        ),
        prop::collection::btree_map(text(), param(), 0..5),
    )
        .prop_map(
            |(id, label, operator, algorithm, inputs, parameters)| Stage {
                id,
                label,
                operator,
                algorithm,
                inputs,
                parameters,
            },
        )
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        text(),
        text(),
        any::<u32>(),
        prop::collection::btree_map(
            text(),
            prop_oneof![
                text().prop_map(RecipeInput::Family),
                param().prop_map(RecipeInput::Value)
            ],
            0..3,
        ),
        prop::collection::vec(stage(), 0..4),
        prop::collection::vec(any::<u32>(), 0..3),
    )
        .prop_map(
            |(id, label, address_schema, inputs, stages, outputs)| Recipe {
                id,
                label,
                address_schema,
                inputs,
                stages,
                outputs,
            },
        )
}

fn command() -> impl Strategy<Value = DirectiveCommand> {
    prop_oneof![
        (text(), any::<bool>()).prop_map(|(owner, allow_transfer)| DirectiveCommand::Claim {
            owner,
            allow_transfer
        }),
        text().prop_map(|owner| DirectiveCommand::Release { owner }),
        (vec3(), vec3()).prop_map(|(min, max)| DirectiveCommand::SetNoSpawnBox {
            bounds: Box3 { min, max }
        }),
        Just(DirectiveCommand::ClearNoRemovalBox),
        Just(DirectiveCommand::InstantFill),
        finite().prop_map(|duration_s| DirectiveCommand::ForcedInit { duration_s }),
        (text(), finite())
            .prop_map(|(observer, fade)| DirectiveCommand::SetObserverFade { observer, fade }),
        (text(), any::<bool>()).prop_map(|(family, available)| {
            DirectiveCommand::SetFamilyAvailable { family, available }
        }),
        vec3().prop_map(|goal| DirectiveCommand::Rendezvous { goal }),
        Just(DirectiveCommand::Hold),
        Just(DirectiveCommand::Continue),
        finite().prop_map(|duration_s| DirectiveCommand::Stand { duration_s }),
        vec3().prop_map(|goal| DirectiveCommand::Redirect { goal }),
        Just(DirectiveCommand::Cancel),
        (vec3(), finite(), prop::option::of(vec3()), any::<bool>()).prop_map(
            |(threat, safe_distance_m, endpoint, restore_interrupted)| DirectiveCommand::Escape {
                threat,
                safe_distance_m,
                endpoint,
                restore_interrupted,
            }
        ),
        (text(), text(), any::<u32>()).prop_map(|(event_type, event_source, tag)| {
            DirectiveCommand::ClearEvents {
                event_type,
                event_source,
                tag,
            }
        }),
        vec3().prop_map(|impulse_n_s| DirectiveCommand::Knockdown { impulse_n_s }),
        any::<bool>().prop_map(|task| DirectiveCommand::ExtendRemovalDistance { task }),
        (text(), vec3(), vec3(), finite()).prop_map(|(obstacle, from, to, thickness_m)| {
            DirectiveCommand::PlaceObstacle {
                obstacle,
                from,
                to,
                thickness_m,
            }
        }),
        text().prop_map(|obstacle| DirectiveCommand::RemoveObstacle { obstacle }),
        (0..VehicleRelation::ALL.len()).prop_map(|i| DirectiveCommand::SetVehicleRelation {
            relation: VehicleRelation::ALL[i]
        }),
        finite().prop_map(|duration_s| DirectiveCommand::QueueEvent { duration_s }),
        finite().prop_map(|duration_s| DirectiveCommand::PausePopulation { duration_s }),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let observer =
        (text(), vec3(), prop::collection::vec(finite(), 7)).prop_map(|(id, position, v)| {
            Observer {
                id,
                position,
                yaw_rad: v[0],
                pitch_rad: v[1],
                fov_y_rad: v[2],
                near_m: v[3],
                far_m: v[4],
                retain_radius_m: v[5],
                remove_radius_m: v[6],
                close_m: v[0].abs(),
                // Non-default spawn ranges are written; a default one is left out.
                spawn_min_m: v[4].abs(),
                spawn_max_m: (v[5] > 0.0).then_some(v[5]),
                hidden_spawn_min_m: 0.0,
                hidden_spawn_max_m: Some(v[6].abs()),
                center: Some(position),
                path: vec![Keyframe { frame: 3, position }],
                aim: vec![AimKey {
                    frame: 5,
                    yaw_rad: v[2],
                    pitch_rad: v[3],
                }],
                fade: 0.5,
                valid: v[1] > 0.0,
            }
        });
    let source = (text(), any::<bool>(), text(), any::<u32>(), finite()).prop_map(
        |(id, mission, route, target_count, walk_speed_m_s)| PopulationSource {
            id,
            kind: if mission {
                PopulationKind::Mission
            } else {
                PopulationKind::Ambient
            },
            route,
            target_count,
            walk_speed_m_s,
            capacity: Some(target_count / 2),
            batch_size: 2,
            family: Some("adult".to_owned()),
            candidates_m: vec![walk_speed_m_s],
            removal_multiplier: 1.5,
            at_route_end: if mission {
                RouteEnd::Stop
            } else {
                RouteEnd::TurnBack
            },
            law_enforcement: mission,
            motion_profile: mission.then(|| "running".to_owned()),
        },
    );
    let bounds = || prop::option::of((vec3(), vec3()).prop_map(|(min, max)| Box3 { min, max }));
    let directive = (any::<u64>(), text(), any::<u32>(), command()).prop_map(
        |(frame, source, agent, command)| Directive {
            frame,
            target: if agent % 3 == 0 {
                Target::World
            } else if agent % 3 == 1 {
                Target::Born {
                    source,
                    ordinal: agent,
                }
            } else {
                Target::Handle {
                    index: agent,
                    generation: agent / 2,
                }
            },
            command,
            source: if agent % 2 == 0 {
                "script".to_owned()
            } else {
                format!("src{agent}")
            },
            session: agent % 4,
            motion_profile: (agent % 5 == 0).then(|| "walking".to_owned()),
        },
    );
    (
        (text(), text(), text(), finite(), any::<u64>()),
        prop::collection::vec(observer, 0..3),
        prop::collection::vec(source, 0..3),
        bounds(),
        bounds(),
        prop::collection::vec(directive, 0..4),
    )
        .prop_map(
            |(
                (id, name, recipe, fixed_step_s, duration_frames),
                observers,
                sources,
                a,
                b,
                directives,
            )| {
                Scenario {
                    id,
                    name,
                    recipe,
                    fixed_step_s,
                    duration_frames,
                    observers,
                    sources,
                    no_spawn_box: a,
                    no_removal_box: b,
                    vehicle_sources: vec![VehicleSource {
                        id: "cars".to_owned(),
                        lane: "lane.0".to_owned(),
                        target_count: 2,
                        speed_m_s: 8.5,
                    }],
                    crossings: CrossingsSettings {
                        group_share: 0.5,
                        hazard: Some(HazardVehicle {
                            y_m: -1.75,
                            speed_m_s: 3.5,
                        }),
                        ..CrossingsSettings::default()
                    },
                    population: PopulationSettings {
                        fault: Some(AttachFaultSpec {
                            batch: 1,
                            item: 2,
                            fail_restore: true,
                        }),
                        cops_removal_scale: 2.0,
                        startup_at_world_start: true,
                        ..PopulationSettings::default()
                    },
                    motion: MotionSettings {
                        avoidance_budget: None,
                        exits: vec![ExitNode {
                            id: "gate".to_owned(),
                            position: Vec3 {
                                x: 1.5,
                                y: -2.0,
                                z: 0.0,
                            },
                            capacity: 3,
                        }],
                        ..MotionSettings::default()
                    },
                    directives,
                    objects: vec![SceneObject {
                        id: "car".to_owned(),
                        position: Vec3 {
                            x: 1.5,
                            y: -2.0,
                            z: 0.0,
                        },
                        yaw_rad: 0.25,
                        scale: Vec3 {
                            x: 1.0,
                            y: 2.0,
                            z: 1.0,
                        },
                        half_extents_m: Vec3 {
                            x: 2.0,
                            y: 0.9,
                            z: 0.7,
                        },
                    }],
                    barriers: vec![Barrier {
                        id: "wall".to_owned(),
                        from: Vec3::default(),
                        to: Vec3 {
                            x: 0.0,
                            y: 3.0,
                            z: 0.0,
                        },
                        thickness_m: 0.2,
                        in_navigation: false,
                    }],
                }
            },
        )
}

fn family() -> impl Strategy<Value = AssetFamily> {
    let variant = (
        text(),
        any::<u32>(),
        any::<i64>(),
        finite(),
        finite(),
        0usize..3,
        any::<(u8, u8, u8)>(),
    )
        .prop_map(
            |(id, weight, exclusion_radius, collision_radius_m, height_m, shape, c)| AssetVariant {
                sockets: Vec::new(),
                id,
                weight,
                exclusion_radius,
                collision_radius_m,
                height_m,
                shape: [
                    PreviewShape::Cone,
                    PreviewShape::Box,
                    PreviewShape::Cylinder,
                ][shape],
                colour: Rgb(c.0, c.1, c.2),
            },
        );
    (text(), text(), prop::collection::vec(variant, 0..4))
        .prop_map(|(id, name, variants)| AssetFamily { id, name, variants })
}

fn overrides() -> impl Strategy<Value = OverrideSet> {
    let point = || (finite(), finite()).prop_map(|(x, y)| Vec2 { x, y });
    let action = prop_oneof![
        text().prop_map(|variant| OverrideAction::LockSelection { variant }),
        (point(), any::<u16>(), any::<u32>()).prop_map(|(position, rotation, scale)| {
            OverrideAction::LockTransform {
                position,
                rotation,
                scale,
            }
        }),
        Just(OverrideAction::Delete),
        point().prop_map(|position| OverrideAction::Move { position }),
        text().prop_map(|variant| OverrideAction::Replace { variant }),
        (text(), point()).prop_map(|(variant, position)| OverrideAction::Add { variant, position }),
        (point(), point()).prop_map(|(min, max)| OverrideAction::Exclude { min, max }),
        (text(), point(), any::<u16>(), any::<u32>()).prop_map(
            |(variant, position, rotation, scale)| OverrideAction::FreezeSubtree {
                variant,
                position,
                rotation,
                scale,
            }
        ),
    ];
    let item = (any::<u32>(), any::<u64>(), any::<u32>(), text(), action).prop_map(
        |(stage, target, precedence, base, action)| Override {
            nested: Vec::new(),
            stage,
            target,
            precedence,
            base,
            action,
        },
    );
    let mutation = (
        any::<u32>(),
        any::<u64>(),
        text(),
        any::<bool>(),
        any::<u32>(),
        prop::collection::vec(any::<u32>(), 0..3),
    )
        .prop_map(
            |(stage, target, base, harvested, ordinal, nested)| Mutation {
                stage,
                target,
                base,
                harvested,
                ordinal,
                nested,
            },
        );
    (
        text(),
        text(),
        proptest::option::of(any::<u64>()),
        text(),
        prop::collection::vec(item, 0..4),
        prop::collection::vec(mutation, 0..3),
    )
        .prop_map(
            |(id, recipe, base_seed, base_revision, overrides, mutations)| OverrideSet {
                id,
                recipe,
                base_seed,
                base_revision,
                overrides,
                mutations,
            },
        )
}

fn manifest() -> impl Strategy<Value = Manifest> {
    let ids = || prop::collection::vec(text(), 0..3);
    (text(), any::<u64>(), ids(), ids(), ids(), ids()).prop_map(
        |(name, root_seed, asset_paths, recipes, scenarios, overrides)| Manifest {
            name,
            root_seed,
            asset_paths,
            recipes,
            scenarios,
            overrides,
        },
    )
}

/// Writes `document`, reads it back, and checks equality and byte-stable rewriting.
fn assert_round_trip<T>(kind: DocKind, document: &T) -> Result<(), TestCaseError>
where
    T: Decode + decode::Encode + PartialEq + std::fmt::Debug,
{
    let written = canonical_text(document);
    let (read, _, diagnostics) = read_document::<T>(kind, "doc.ron", &written);
    prop_assert!(diagnostics.is_empty(), "{diagnostics:?}\n{written}");
    let read = read.expect("decodes");
    prop_assert_eq!(&read, document);
    prop_assert_eq!(canonical_text(&read), written);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn recipes_round_trip(document in recipe()) {
        assert_round_trip(DocKind::Recipe, &document)?;
    }

    #[test]
    fn scenarios_round_trip(document in scenario()) {
        assert_round_trip(DocKind::Scenario, &document)?;
    }

    #[test]
    fn families_round_trip(document in family()) {
        assert_round_trip(DocKind::Family, &document)?;
    }

    #[test]
    fn override_sets_round_trip(document in overrides()) {
        assert_round_trip(DocKind::Overrides, &document)?;
    }

    #[test]
    fn manifests_round_trip(document in manifest()) {
        assert_round_trip(DocKind::Manifest, &document)?;
    }

    /// Any prefix of a valid file, and any single-byte change, is read without panicking.
    #[test]
    fn damaged_text_never_panics(cut in 0usize..2000, flip in 0usize..2000, byte in any::<u8>()) {
        let text = canonical_text(&Recipe {
            id: "r".into(),
            stages: vec![Stage { id: 1, operator: "x".into(), algorithm: 1, ..Stage::default() }],
            outputs: vec![1],
            ..Recipe::default()
        });
        let prefix: String = text.chars().take(cut).collect();
        let _ = read_document::<Recipe>(DocKind::Recipe, "r.ron", &prefix);
        let mut bytes = text.into_bytes();
        let at = flip % bytes.len();
        bytes[at] = byte;
        let damaged = String::from_utf8_lossy(&bytes).into_owned();
        let _ = read_document::<Recipe>(DocKind::Recipe, "r.ron", &damaged);
        let mut sources = ProjectSources::default();
        sources.files.insert("recipes/r.recipe.ron".into(), damaged);
        let _ = load_project(&sources);
    }
}

#[test]
fn maps_are_written_sorted() {
    let mut parameters = BTreeMap::new();
    parameters.insert("zeta".to_owned(), ParamValue::Int(1));
    parameters.insert("alpha".to_owned(), ParamValue::Int(2));
    let text = canonical_text(&Stage {
        id: 1,
        operator: "op".into(),
        algorithm: 1,
        parameters,
        ..Stage::default()
    });
    let alpha = text.find("\"alpha\"").expect("alpha");
    let zeta = text.find("\"zeta\"").expect("zeta");
    assert!(alpha < zeta, "{text}");
}
