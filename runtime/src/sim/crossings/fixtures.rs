//! Test fixtures of the crossings: a straight north–south crosswalk on the y axis.

use crate::project::Vec2;
use crate::sim::space::{SimCrosswalk, SimCrosswalkSide};

/// `crosswalk.0`, 4 m wide over two lanes, governed by signal 0: its kerbs at
/// `y = ∓kerb_y_m` and its waiting points at `y = ∓waiting_y_m`, all on `x = 0`.
pub fn crosswalk(kerb_y_m: f64, waiting_y_m: f64) -> SimCrosswalk {
    let side = |sign: f64| SimCrosswalkSide {
        sidewalk: 0,
        node: 1,
        kerb: Vec2 {
            x: 0.0,
            y: sign * kerb_y_m,
        },
        waiting_point: Vec2 {
            x: 0.0,
            y: sign * waiting_y_m,
        },
    };
    SimCrosswalk {
        id: "crosswalk.0".into(),
        route: 0,
        signal: 0,
        width_m: 4.0,
        lanes_crossed: 2,
        sides: [side(-1.0), side(1.0)],
    }
}
