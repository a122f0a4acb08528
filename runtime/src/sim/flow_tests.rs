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
    let mut world: World = two_way_street_of(250, 50.0, 7).expect("street");
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
