//! The flow measurement (`sim::flow`) and the regression that keeps counter-flow stalls from
//! coming back: a short two-way street at the bench streets' density.

use super::flow::{least_pairwise_distance_m, FlowWatch};
use super::state::body::BODY_RADIUS_M;
use super::walk::body::SAFETY_DIAMETER_M;
use super::walk::ground::lateral_limit_m;
use super::{two_way_street_lanes_of, two_way_street_of, World};
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
fn a_counter_flow_street_flows_as_pinned_without_overlap() {
    // The walking rules stall most of this crowd (see `sim::walk`'s documentation): what 10 s
    // of it computes is pinned (re-pin deliberately; a rule that lets it flow lowers the
    // stalled share), and no two bodies ever come closer than the body diameter — in fact
    // than the safety diameter (they are placed that far apart and a step never brings two
    // closer).
    let (flow, causes) = short_street_flow();
    assert_eq!(flow.walkers, 250);
    assert!((flow.duration_s - 10.0).abs() < 1e-9, "{flow:?}");
    assert_eq!(
        (
            (flow.stalled_share * 1000.0).round() as u32,
            (flow.still_share * 1000.0).round() as u32,
            (flow.mean_speed_m_s * 1000.0).round() as u32,
            (flow.median_speed_m_s * 1000.0).round() as u32,
        ),
        (592, 368, 173, 63),
        "{causes:?}"
    );
    assert!(flow.min_distance_m >= 2.0 * BODY_RADIUS_M, "{flow:?}");
    assert!(flow.min_distance_m >= SAFETY_DIAMETER_M - 1e-9, "{flow:?}");
}

#[test]
fn on_lanes_of_their_own_every_walker_starts_inside_its_corridor() {
    // 250 walkers on 50 m: 125 per sidewalk, 3 rows of the placement grid, so 3 lane routes
    // per sidewalk (at −0.73, 0 and +0.73 m of its line on the 3 m walkway, each as wide as
    // keeps it on the walkway) besides the sidewalks and the crosswalk.
    let world: World = two_way_street_lanes_of(250, 50.0, 7).expect("street");
    let space = &world.config.space;
    let lanes: Vec<(&str, f64)> = space
        .routes
        .iter()
        .filter(|r| r.id.contains(".lane"))
        .map(|r| (r.id.as_str(), r.width_m()))
        .collect();
    assert_eq!(lanes.len(), 6, "{lanes:?}");
    let widths: Vec<u32> = lanes.iter().map(|l| (l.1 * 100.0).round() as u32).collect();
    assert_eq!(widths, [153, 300, 153, 153, 300, 153], "{lanes:?}");
    let agents = &world.agents;
    assert_eq!(agents.len(), 250);
    let mut on_lanes = [0usize; 2];
    for row in 0..agents.len() {
        let route = &space.routes[usize::from(agents.route[row])];
        assert!(route.id.contains(".lane"), "{}", route.id);
        on_lanes[usize::from(route.id.ends_with("lane001"))] += 1;
        // Its lateral offset from its own path is inside the corridor the walkway leaves it.
        let (on_line, along) = route.sample(agents.distance_m[row]);
        let p = agents.position[row];
        let lateral = (p.y - on_line.y) * along.x - (p.x - on_line.x) * along.y;
        let limit = lateral_limit_m(route.width_m());
        assert!(lateral.abs() <= limit, "{} {lateral} > {limit}", route.id);
    }
    // Each lane holds its row: 46 columns, so 46 walkers in the middle row of each sidewalk.
    assert_eq!(on_lanes, [158, 92], "{on_lanes:?}");
}

#[test]
fn a_counter_flow_street_on_lanes_flows_as_pinned_without_overlap() {
    // The same crowd each on a lane route of its own (`two_way_street_lanes_of`): its corridor
    // centred on its own path leaves the streams the whole walkway, and fewer stall than on the
    // sidewalks' routes (556 instead of 592 in 1,000), though they average slower.
    let (flow, causes) = flow_of(two_way_street_lanes_of(250, 50.0, 7).expect("street"));
    assert_eq!(flow.walkers, 250);
    assert_eq!(
        (
            (flow.stalled_share * 1000.0).round() as u32,
            (flow.still_share * 1000.0).round() as u32,
            (flow.mean_speed_m_s * 1000.0).round() as u32,
            (flow.median_speed_m_s * 1000.0).round() as u32,
        ),
        (556, 224, 159, 77),
        "{causes:?}"
    );
    assert!(flow.min_distance_m >= SAFETY_DIAMETER_M - 1e-9, "{flow:?}");
}
