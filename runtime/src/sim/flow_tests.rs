//! The flow measurement (`sim::flow`) and the regression that keeps counter-flow stalls from
//! coming back: a short two-way street at the bench streets' density.

use super::flow::{least_pairwise_distance_m, FlowWatch};
use super::state::body::BODY_RADIUS_M;
use super::walk::body::SAFETY_DIAMETER_M;
use super::{two_way_street_of, World};
use crate::project::Vec2;

fn v(x: f64, y: f64) -> Vec2 {
    Vec2 { x, y }
}

#[test]
fn the_least_pairwise_distance_is_the_closest_pair_whatever_the_order() {
    let mut points = [
        v(5.0, 0.0),
        v(0.0, 0.0),
        v(0.6, 0.8),
        v(5.0, 0.61),
        v(9.0, 9.0),
    ];
    // Closest pair: (5, 0) and (5, 0.61), not (0, 0) and (0.6, 0.8) 1 m apart.
    assert!((least_pairwise_distance_m(&mut points) - 0.61).abs() < 1e-12);
    let mut points = [v(0.3, 0.4), v(0.0, 0.0)];
    assert!((least_pairwise_distance_m(&mut points) - 0.5).abs() < 1e-12);
    assert_eq!(least_pairwise_distance_m(&mut [v(1.0, 1.0)]), f64::INFINITY);
}

/// The two-way street of 250 walkers on 50 m (walkways 3 m wide, 0.83 walkers per m², the
/// 1,000-walker bench street's density), 40 warm-up steps, then 10 simulated seconds.
fn short_street_flow() -> (super::FlowReport, Vec<(&'static str, u64)>) {
    flow_of(two_way_street_of(250, 50.0, 7).expect("street"))
}

/// `world` after 40 warm-up steps, watched for 10 simulated seconds.
fn flow_of(mut world: World) -> (super::FlowReport, Vec<(&'static str, u64)>) {
    for _ in 0..40 {
        world.step();
    }
    let mut watch = FlowWatch::start(&world);
    for _ in 0..200 {
        world.step();
        watch.observe(&world);
    }
    (watch.report(&world), watch.stall_causes(&world))
}

#[test]
fn a_counter_flow_street_flows_without_stalls_or_overlap() {
    // Counter-flow at the bench streets' density: each walker keeps a lane of its heading
    // inside the corridor of its own path, gives way towards it (or, still after 0.1 s, to the
    // far side), edges when boxed in and backs off when boxed in face to face (see `sim::walk`),
    // so every walker moves on. Before (the corridor centred on the route's line, no lanes, no
    // edging) 59.2 % of this crowd stalled at a mean of 0.173 m/s; with lanes and half-step
    // edging 0.4 % (one walker boxed in) at 0.887 m/s; giving way with the executed step 1.2 %
    // (three walkers that turned back at the street's end within the window) at 0.947 m/s. Now
    // no walker's net displacement is under 1 m: the watch lists no stall cause at all. What 10 s
    // of it computes is pinned (re-pin deliberately), and no two bodies ever come closer than
    // the body diameter — in fact than the safety diameter (they are placed that far apart and
    // a step never brings two closer).
    let (flow, causes) = short_street_flow();
    assert_eq!(flow.walkers, 250);
    assert!((flow.duration_s - 10.0).abs() < 1e-9, "{flow:?}");
    assert!(flow.stalled_share == 0.0, "{flow:?} {causes:?}");
    assert!(flow.still_share == 0.0, "{flow:?} {causes:?}");
    assert!(flow.mean_speed_m_s >= 0.95, "{flow:?} {causes:?}");
    assert!(causes.is_empty(), "{flow:?} {causes:?}");
    assert_eq!(
        (
            (flow.stalled_share * 1000.0).round() as u32,
            (flow.still_share * 1000.0).round() as u32,
            (flow.mean_speed_m_s * 1000.0).round() as u32,
            (flow.median_speed_m_s * 1000.0).round() as u32,
        ),
        (0, 0, 964, 1021),
        "{causes:?}"
    );
    assert!(flow.min_distance_m >= 2.0 * BODY_RADIUS_M, "{flow:?}");
    assert!(flow.min_distance_m >= SAFETY_DIAMETER_M - 1e-9, "{flow:?}");
}

#[test]
fn every_walker_starts_on_its_own_path_inside_its_corridor() {
    // 250 walkers on 50 m: each is placed on its sidewalk's route at its own lateral offset,
    // which is its own path's (`path_offset_m`): it starts on that path, in its corridor.
    let world: World = two_way_street_of(250, 50.0, 7).expect("street");
    let agents = &world.agents;
    assert_eq!(agents.len(), 250);
    let space = &world.config.space;
    let mut offsets: Vec<f64> = Vec::new();
    for row in 0..agents.len() {
        let route = &space.routes[usize::from(agents.route[row])];
        let (on_line, along) = route.sample(agents.distance_m[row]);
        let p = agents.position[row];
        let lateral = (p.y - on_line.y) * along.x - (p.x - on_line.x) * along.y;
        assert!(
            (lateral - agents.path_offset_m[row]).abs() < 1e-9,
            "{lateral}"
        );
        offsets.push(agents.path_offset_m[row]);
    }
    // Spread across the 3 m walkway (3 placement rows at −0.73, 0 and +0.73 m, jittered).
    offsets.sort_by(f64::total_cmp);
    assert!(offsets[0] < -0.6 && offsets[249] > 0.6, "{offsets:?}");
}
