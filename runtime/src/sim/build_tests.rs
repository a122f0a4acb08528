//! Tests of world construction: the space built from generated products, the compiled scenario's
//! diagnostics with field paths, and a world built from a real street block.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;
use crate::content::{PlacedObject, PlacedProduct, Placement, Product};
use crate::identity::pack_scatter_id;
use crate::ops::street_block::{build_street_block, StreetBlockParams};
use crate::project::{
    AssetFamily, AssetVariant, Box3, Directive, DirectiveCommand, PopulationSource, Scenario,
    Target, Vec3,
};

fn street_block() -> Product {
    let params = StreetBlockParams {
        length_m: 80.0,
        road_width_m: 7.0,
        sidewalk_width_m: 4.0,
        furniture_zone_m: 1.5,
        lanes: 2,
        crosswalks: 1,
        crosswalk_width_m: 4.0,
    };
    Product::StreetBlock(build_street_block(&params).expect("the example's parameters"))
}

fn family() -> BTreeMap<String, AssetFamily> {
    let variant = |id: &str, radius| AssetVariant {
        id: id.into(),
        weight: 1,
        exclusion_radius: 10,
        collision_radius_m: radius,
        height_m: 1.0,
        sockets: Vec::new(),
        ..AssetVariant::default()
    };
    let family = AssetFamily {
        id: "props".into(),
        name: "Props".into(),
        variants: vec![variant("bin", 0.3), variant("bench", 0.9)],
    };
    BTreeMap::from([("props".to_owned(), family)])
}

/// Placed objects of stage 3 over scatter stage 2: lattice (x, y), variant, scale in 1/1000.
fn placed(objects: &[(i64, i64, u32, u32)]) -> Product {
    let objects = objects
        .iter()
        .enumerate()
        .map(|(index, &(x, y, variant, scale))| PlacedObject {
            placement: Placement {
                id: pack_scatter_id(1, 0, index as u32, 0, 0).expect("packs"),
                x,
                y,
                variant,
                priority: 0,
            },
            rotation_turns_65536: 0,
            scale,
        })
        .collect();
    Product::PlacedObjects(PlacedProduct {
        family: "props".into(),
        variant_ids: vec!["bin".into(), "bench".into()],
        lattice_unit_m: 0.01,
        scale_unit: 0.001,
        placements_stage: 2,
        objects,
    })
}

#[test]
fn the_space_of_a_street_block_has_its_crosswalk_sides_signals_portals_and_lanes() {
    let block = street_block();
    let space = SimSpace::from_products([(1, &block)], &BTreeMap::new()).expect("space");
    let ids: Vec<&str> = space.route_ids().collect();
    assert_eq!(ids, ["crosswalk.0", "sidewalk.north", "sidewalk.south"]);
    assert_eq!(space.crosswalks.len(), 1);
    let crosswalk = &space.crosswalks[0];
    assert_eq!(crosswalk.route, 0);
    let sidewalks = [crosswalk.sides[0].sidewalk, crosswalk.sides[1].sidewalk];
    assert!(sidewalks == [1, 2] || sidewalks == [2, 1], "{sidewalks:?}");
    for side in &crosswalk.sides {
        // The waiting point stands back from the kerb, on the sidewalk's side.
        assert!(side.waiting_point.y.abs() > side.kerb.y.abs(), "{side:?}");
    }
    assert_eq!(space.signals.len(), 1);
    assert_eq!(space.signals[0].crosswalks, [0]);
    assert_eq!(usize::from(crosswalk.signal), 0);
    assert_eq!(space.portals.len(), 4, "two ends of each sidewalk");
    assert!(space.portals.iter().all(|p| p.route != 0));
    assert_eq!(space.lanes.len(), 2);
    assert!(space.lanes.iter().all(|l| l.crosswalks == [0]));
    assert!(space.blockers.is_empty());
}

#[test]
fn props_become_scaled_blockers_and_unknown_variants_are_counted() {
    let block = street_block();
    let props = placed(&[(100, 200, 0, 1000), (-300, 50, 1, 2000), (0, 0, 7, 1000)]);
    let space = SimSpace::from_products([(1, &block), (3, &props)], &family()).expect("space");
    assert_eq!(space.blockers.len(), 2);
    assert_eq!(space.unknown_props, 1);
    let first = &space.blockers[0];
    assert_eq!((first.stage, first.index), (3, 0));
    assert_eq!((first.position.x, first.position.y), (1.0, 2.0));
    assert_eq!(first.radius_m, 0.3);
    let second = &space.blockers[1];
    assert_eq!((second.position.x, second.position.y), (-3.0, 0.5));
    assert_eq!((second.radius_m, second.height_m), (1.8, 2.0));
}

fn scenario() -> Scenario {
    Scenario {
        id: "s".into(),
        recipe: "r".into(),
        fixed_step_s: 0.05,
        duration_frames: 100,
        sources: vec![PopulationSource {
            id: "walkers".into(),
            route: "sidewalk.north".into(),
            target_count: 4,
            walk_speed_m_s: 1.4,
            ..PopulationSource::default()
        }],
        directives: vec![
            Directive {
                frame: 20,
                target: crate::project::Target::Born {
                    source: "walkers".into(),
                    ordinal: 0,
                },
                command: DirectiveCommand::Hold,
                ..Default::default()
            },
            Directive {
                frame: 10,
                target: crate::project::Target::Born {
                    source: "walkers".into(),
                    ordinal: 1,
                },
                command: DirectiveCommand::Rendezvous {
                    goal: Vec3 {
                        x: 1.0,
                        y: 2.0,
                        z: 3.0,
                    },
                },
                ..Default::default()
            },
        ],
        ..Scenario::default()
    }
}

#[test]
fn compiling_resolves_directive_targets_and_sorts_by_frame() {
    let compiled = CompiledScenario::compile(&scenario()).expect("compiles");
    let frames: Vec<(u64, u32)> = compiled
        .directives
        .iter()
        .map(|d| (d.frame, d.index))
        .collect();
    assert_eq!(frames, [(10, 1), (20, 0)]);
    assert_eq!(
        compiled.directives[0].target,
        DirectiveTarget::Born {
            source: 0,
            ordinal: 1
        }
    );
    assert_eq!(
        compiled.directives[0].command,
        Command::Rendezvous {
            goal: crate::project::Vec2 { x: 1.0, y: 2.0 }
        }
    );
}

/// The field paths and problems of compiling `scenario`.
fn problems(scenario: &Scenario) -> Vec<(String, SimProblem)> {
    match CompiledScenario::compile(scenario) {
        Ok(_) => Vec::new(),
        Err(error) => error
            .diagnostics
            .into_iter()
            .map(|d| (d.path.to_string(), d.problem))
            .collect(),
    }
}

#[test]
fn compile_diagnostics_name_their_fields() {
    let mut bad = scenario();
    bad.fixed_step_s = 0.0;
    bad.sources.push(PopulationSource {
        id: "walkers".into(),
        route: "sidewalk.south".into(),
        walk_speed_m_s: -1.0,
        ..PopulationSource::default()
    });
    bad.no_spawn_box = Some(Box3 {
        min: Vec3 {
            x: 0.0,
            y: 5.0,
            z: 0.0,
        },
        max: Vec3 {
            x: 1.0,
            y: 4.0,
            z: 1.0,
        },
    });
    bad.directives[0].target = Target::Born {
        source: "nobody".into(),
        ordinal: 0,
    };
    bad.directives[1].command = DirectiveCommand::Redirect {
        goal: Vec3 {
            x: f64::NAN,
            y: 0.0,
            z: 0.0,
        },
    };
    assert_eq!(
        problems(&bad),
        [
            (
                "fixed_step_s".to_owned(),
                SimProblem::BadFixedStep { fixed_step_s: 0.0 }
            ),
            (
                "sources[1].id".to_owned(),
                SimProblem::DuplicateSource {
                    id: "walkers".into()
                }
            ),
            (
                "sources[1].walk_speed_m_s".to_owned(),
                SimProblem::NotPositive { value: -1.0 }
            ),
            (
                "no_spawn_box.min".to_owned(),
                SimProblem::InvertedBox {
                    axis: 'y',
                    min_m: 5.0,
                    max_m: 4.0
                }
            ),
            (
                "directives[0].target.source".to_owned(),
                SimProblem::UnknownSource {
                    source: "nobody".into()
                }
            ),
            (
                "directives[1].command.goal".to_owned(),
                SimProblem::NonFinite
            ),
        ]
    );
    assert_eq!(problems(&scenario()), []);
}

#[test]
fn a_world_built_from_a_street_block_walks_its_routes() {
    let block = street_block();
    let space = Arc::new(SimSpace::from_products([(1, &block)], &BTreeMap::new()).expect("space"));
    let compiled = Arc::new(CompiledScenario::compile(&scenario()).expect("compiles"));
    let mut world = build_world(&space, &compiled, 7).expect("world");
    assert_eq!(world.config().sources[0].route, 1, "sidewalk.north");
    for _ in 0..30 {
        world.step();
    }
    assert_eq!(world.counters().births, 4);
    let north = &space.routes[1];
    let y = north.points()[0].y;
    let agents = world.agents();
    assert!(agents.state.contains(&AgentState::Travelling));
    for row in 0..agents.len() {
        if agents.state[row] == AgentState::Walking {
            assert_eq!(agents.position[row].y, y, "on the sidewalk's line");
        }
    }
    // The same inputs give the same world; another seed another one.
    let mut again = build_world(&space, &compiled, 7).expect("world");
    let mut reseeded = build_world(&space, &compiled, 8).expect("world");
    for _ in 0..30 {
        again.step();
        reseeded.step();
    }
    assert_eq!(again.state_digest(), world.state_digest());
    assert_ne!(reseeded.state_digest(), world.state_digest());
    assert_ne!(reseeded.config().digest, world.config().digest);
}

#[test]
fn every_agents_route_span_addresses_exactly_its_routes_points_in_the_flat_table() {
    let block = street_block();
    let space = Arc::new(SimSpace::from_products([(1, &block)], &BTreeMap::new()).expect("space"));
    let mut scenario = scenario();
    // Walkers on every route of the block, so every span is used.
    scenario.sources = space
        .routes
        .iter()
        .map(|route| PopulationSource {
            id: format!("on.{}", route.id),
            route: route.id.clone(),
            target_count: 3,
            ..PopulationSource::default()
        })
        .collect();
    scenario.directives.clear();
    let compiled = Arc::new(CompiledScenario::compile(&scenario).expect("compiles"));
    let mut world = build_world(&space, &compiled, 7).expect("world");
    for _ in 0..40 {
        world.step();
    }
    let table = &world.config().route_points;
    // The table is every route's points, route after route, each span right after the last.
    let mut offset = 0;
    for (index, route) in space.routes.iter().enumerate() {
        let span = table.span(index as u16).expect("a span per route");
        assert_eq!(
            (span.offset, span.len as usize),
            (offset, route.points().len())
        );
        offset += span.len;
    }
    assert_eq!(table.points().len(), offset as usize);
    assert!(space.routes.len() >= 3, "{} routes", space.routes.len());
    // Each agent's columns address its own route's points, exactly, in route order.
    let agents = world.agents();
    assert!(
        agents.len() >= space.routes.len() * 2,
        "{} agents",
        agents.len()
    );
    for row in 0..agents.len() {
        let route = &space.routes[usize::from(agents.route[row])];
        let (start, len) = (
            agents.route_offset[row] as usize,
            agents.route_len[row] as usize,
        );
        let points = &table.points()[start..start + len];
        assert_eq!(points, route.route_points(), "row {row}");
        let at: Vec<_> = points.iter().map(|p| p.at).collect();
        assert_eq!(at, route.points(), "row {row}");
        assert_eq!(points[0].distance_m, 0.0);
        assert_eq!(points[len - 1].distance_m, route.length_m());
        // Followed through the span, the route has the connections it has on its own.
        let span = RouteSpan {
            offset: start as u32,
            len: len as u32,
        };
        let path = table.path(span).expect("a path");
        assert_eq!(path.connection_count(), route.connection_count());
        for j in 0..route.connection_count() {
            assert_eq!(path.connection(j), route.connection(j));
        }
        // Found from the walker's own route first, or from any other hint, it is the same path.
        for hint in [
            agents.route[row],
            agents.route[row].wrapping_add(1),
            u16::MAX,
        ] {
            let hinted = table.path_of(hint, span).expect("a hinted path");
            assert_eq!(
                hinted.connection_count(),
                route.connection_count(),
                "{hint}"
            );
            for j in 0..route.connection_count() {
                assert_eq!(hinted.connection(j), route.connection(j), "{hint}");
            }
        }
    }
    // A span past the table is no path.
    let past = RouteSpan {
        offset: offset - 1,
        len: 2,
    };
    assert!(table.path(past).is_none());
    assert!(table.path_of(0, past).is_none());
}
