//! `street.block`: a parametric straight street block → pedestrian space, road surfaces, vehicle
//! lanes, and the areas and keep-outs a downstream scatter uses.
//!
//! Layout (meters, Z up, the block centred on the origin, the road along x):
//!
//! - The carriageway spans `y ∈ [−road/2, road/2)`, split into `lanes` equal lanes counted from the
//!   south edge; the southern half drives east (right-hand traffic), lane ids `lane.{j}`.
//! - A sidewalk of `sidewalk_width_m` lies on each side. Its kerb-side strip of `furniture_zone_m` is
//!   the scatter area (`furniture.north` / `furniture.south`); the rest is the walkway, whose centre
//!   line is the route `sidewalk.north` / `sidewalk.south`, walked west to east.
//! - `crosswalks` crossings sit at `x_i = −length/2 + length·(i+1)/(crosswalks+1)`. Crossing route
//!   `crosswalk.{i}` runs from the south walkway over both kerbs to the north walkway; side 0 is the
//!   south kerb, side 1 the north one, each with a waiting point 0.75 m (one queue row) back from
//!   the kerb and signal `signal.{i}`. Both sidewalk routes have a node at every `x_i`, where the
//!   crossing route starts and ends, so the network is connected.
//! - Keep-outs `landing.{i}.{north|south}` clear the sidewalk in front of each crossing
//!   (crossing width plus 0.5 m each side) so nothing is scattered into a queue.
//! - Portals `portal.sidewalk.{north|south}.{west|east}` open the walkway ends.
//!
//! [`outline`] publishes the route ids, lane ids, scatter areas and keep-out count from the
//! parameters alone,
//! with the same naming functions the builder uses: that is how scenarios and downstream scatters
//! are checked without generating, and a test here pins the agreement.
//! The space is validated ([`PedestrianSpace::validate`]) before the block is returned.

use thiserror::Error;

use crate::content::{
    BoundsM, Crosswalk, CrosswalkSide, KeepOut, LaneDirection, PedestrianSpace, PointM, Portal,
    RectM, Route, RouteKind, ScatterArea, SpaceError, StreetBlock, SurfaceKind, SurfacePolygon,
    VehicleLane,
};
use crate::ops::registry::Outline;

/// The sidewalk route ids (also the sidewalk surfaces), north first.
pub const SIDEWALKS: [&str; 2] = ["sidewalk.north", "sidewalk.south"];
/// The scatter area ids, sorted (north first).
pub const SCATTER_AREAS: [&str; 2] = ["furniture.north", "furniture.south"];

/// The id of crossing `index`'s route (and crosswalk and surface).
pub fn crosswalk_id(index: usize) -> String {
    format!("crosswalk.{index}")
}

/// The id of vehicle lane `index` (counted from the south edge).
pub fn lane_id(index: u32) -> String {
    format!("lane.{index}")
}

/// The ids of the two landing keep-outs of crossing `index`, north first.
pub fn landing_ids(index: usize) -> [String; 2] {
    [
        format!("landing.{index}.north"),
        format!("landing.{index}.south"),
    ]
}

/// What a block with `params` publishes, known before it is built: its routes (sorted), its
/// scatter areas (in product order) and the number of its keep-outs.
pub fn outline(params: &StreetBlockParams) -> Outline {
    let crossings = params.crosswalks as usize;
    Outline {
        routes: SIDEWALKS
            .iter()
            .map(|id| (*id).to_owned())
            .chain((0..crossings).map(crosswalk_id))
            .collect(),
        lanes: (0..params.lanes).map(lane_id).collect(),
        scatter_areas: SCATTER_AREAS.iter().map(|id| (*id).to_owned()).collect(),
        keep_outs: 2 * crossings,
        bounds_m: Some(BoundsM {
            min_x: -params.length_m / 2.0,
            min_y: -(params.road_width_m / 2.0 + params.sidewalk_width_m),
            max_x: params.length_m / 2.0,
            max_y: params.road_width_m / 2.0 + params.sidewalk_width_m,
        }),
    }
}

/// Distance from the kerb to the first waiting row (the queue row spacing), meters.
pub const QUEUE_ROW_SPACING_M: f64 = 0.75;
/// Extra sidewalk kept clear on each side of a crossing's landing, meters.
pub const LANDING_MARGIN_M: f64 = 0.5;
/// Narrowest vehicle lane, meters.
pub const MIN_LANE_WIDTH_M: f64 = 2.5;
/// Narrowest walkway left beside the furniture zone, meters.
pub const MIN_WALKWAY_M: f64 = 1.0;

/// Parameters of a street block (ranges are checked by the operator's schema; cross-field rules by
/// [`check_params`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreetBlockParams {
    /// Block length along x, meters.
    pub length_m: f64,
    /// Carriageway width, meters.
    pub road_width_m: f64,
    /// Width of each sidewalk, meters.
    pub sidewalk_width_m: f64,
    /// Kerb-side strip of each sidewalk that scatter may fill, meters.
    pub furniture_zone_m: f64,
    /// Vehicle lanes.
    pub lanes: u32,
    /// Crossings.
    pub crosswalks: u32,
    /// Width of each crossing, meters.
    pub crosswalk_width_m: f64,
}

/// A street block that cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StreetBlockError {
    /// A parameter breaks a rule; `field` names the parameter.
    #[error("parameter `{field}`: {message}")]
    Parameter {
        /// The offending parameter.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The generated pedestrian space failed validation (never published).
    #[error("pedestrian space: {0}")]
    Space(#[from] SpaceError),
}

/// Checks the rules that involve more than one parameter, naming the parameter to change.
pub fn check_params(params: &StreetBlockParams) -> Result<(), StreetBlockError> {
    let finite = [
        ("length_m", params.length_m),
        ("road_width_m", params.road_width_m),
        ("sidewalk_width_m", params.sidewalk_width_m),
        ("furniture_zone_m", params.furniture_zone_m),
        ("crosswalk_width_m", params.crosswalk_width_m),
    ];
    for (field, value) in finite {
        if !(value.is_finite() && value > 0.0) {
            return Err(StreetBlockError::Parameter {
                field,
                message: format!("{value} is not a positive length"),
            });
        }
    }
    if params.lanes == 0 || params.road_width_m / f64::from(params.lanes) < MIN_LANE_WIDTH_M {
        return Err(StreetBlockError::Parameter {
            field: "lanes",
            message: format!(
                "{} lanes on a {} m road are narrower than {MIN_LANE_WIDTH_M} m",
                params.lanes, params.road_width_m
            ),
        });
    }
    let spacing = params.length_m / f64::from(params.crosswalks + 1);
    if params.crosswalks == 0 || spacing <= params.crosswalk_width_m + 2.0 * LANDING_MARGIN_M {
        return Err(StreetBlockError::Parameter {
            field: "crosswalks",
            message: format!(
                "{} crossings of {} m do not fit a {} m block with their landings",
                params.crosswalks, params.crosswalk_width_m, params.length_m
            ),
        });
    }
    if params.furniture_zone_m > params.sidewalk_width_m - MIN_WALKWAY_M {
        return Err(StreetBlockError::Parameter {
            field: "furniture_zone_m",
            message: format!(
                "a {} m furniture zone leaves less than {MIN_WALKWAY_M} m of a {} m sidewalk",
                params.furniture_zone_m, params.sidewalk_width_m
            ),
        });
    }
    if params.sidewalk_width_m <= QUEUE_ROW_SPACING_M {
        return Err(StreetBlockError::Parameter {
            field: "sidewalk_width_m",
            message: "the sidewalk cannot hold a waiting row".to_owned(),
        });
    }
    Ok(())
}

/// Builds and validates the block.
pub fn build_street_block(params: &StreetBlockParams) -> Result<StreetBlock, StreetBlockError> {
    check_params(params)?;
    let layout = BlockLayout::new(params);
    let mut routes = layout.sidewalk_routes();
    let mut surfaces = layout.base_surfaces();
    let mut crosswalks = Vec::new();
    let mut keep_outs = Vec::new();
    for (i, &x) in layout.crossing_xs.iter().enumerate() {
        let id = crosswalk_id(i);
        routes.push(layout.crosswalk_route(&id, x));
        crosswalks.push(layout.crosswalk(i, &id, x));
        surfaces.push(layout.crosswalk_surface(&id, x));
        keep_outs.extend(layout.landing_keep_outs(i, x));
    }
    let mut portals = layout.portals();
    let mut lanes = layout.vehicle_lanes();
    let mut scatter_areas = layout.scatter_areas();
    routes.sort_by(|a, b| a.id.cmp(&b.id));
    crosswalks.sort_by(|a, b| a.id.cmp(&b.id));
    portals.sort_by(|a, b| a.id.cmp(&b.id));
    surfaces.sort_by(|a, b| a.id.cmp(&b.id));
    lanes.sort_by(|a, b| a.id.cmp(&b.id));
    scatter_areas.sort_by(|a, b| a.id.cmp(&b.id));
    keep_outs.sort_by(|a, b| a.id.cmp(&b.id));
    let space = PedestrianSpace {
        routes,
        crosswalks,
        portals,
    };
    space.validate()?;
    Ok(StreetBlock {
        length_m: params.length_m,
        road_width_m: params.road_width_m,
        sidewalk_width_m: params.sidewalk_width_m,
        space,
        surfaces,
        lanes,
        scatter_areas,
        keep_outs,
    })
}

/// The block's derived measures, shared by the builders of each element kind.
struct BlockLayout<'p> {
    params: &'p StreetBlockParams,
    half_length_m: f64,
    half_road_m: f64,
    /// The walkway's width: the sidewalk less its furniture zone.
    walkway_m: f64,
    /// The y of the north sidewalk route (the south one is its mirror).
    north_y_m: f64,
    /// The x of each crossing, west to east.
    crossing_xs: Vec<f64>,
}

impl<'p> BlockLayout<'p> {
    fn new(params: &'p StreetBlockParams) -> Self {
        let half_length_m = params.length_m / 2.0;
        let half_road_m = params.road_width_m / 2.0;
        let walkway_m = params.sidewalk_width_m - params.furniture_zone_m;
        let north_y_m = half_road_m + params.furniture_zone_m + walkway_m / 2.0;
        let crossing_xs = (0..params.crosswalks)
            .map(|i| {
                -half_length_m
                    + params.length_m * f64::from(i + 1) / f64::from(params.crosswalks + 1)
            })
            .collect();
        Self {
            params,
            half_length_m,
            half_road_m,
            walkway_m,
            north_y_m,
            crossing_xs,
        }
    }

    fn south_y_m(&self) -> f64 {
        -self.north_y_m
    }

    /// The two sidewalk routes, each with a node at every crossing.
    fn sidewalk_routes(&self) -> Vec<Route> {
        let half_l = self.half_length_m;
        let sidewalk_route = |id: &str, y: f64| Route {
            id: id.to_owned(),
            kind: RouteKind::Sidewalk,
            points: std::iter::once(-half_l)
                .chain(self.crossing_xs.iter().copied())
                .chain(std::iter::once(half_l))
                .map(|x| PointM::new(x, y))
                .collect(),
            width_m: self.walkway_m,
        };
        vec![
            sidewalk_route(SIDEWALKS[0], self.north_y_m),
            sidewalk_route(SIDEWALKS[1], self.south_y_m()),
        ]
    }

    /// The road and the two sidewalk surfaces.
    fn base_surfaces(&self) -> Vec<SurfacePolygon> {
        let (half_l, half_r) = (self.half_length_m, self.half_road_m);
        let side = self.params.sidewalk_width_m;
        vec![
            surface(
                "road",
                SurfaceKind::Road,
                RectM::new(-half_l, -half_r, half_l, half_r),
            ),
            surface(
                SIDEWALKS[0],
                SurfaceKind::Sidewalk,
                RectM::new(-half_l, half_r, half_l, half_r + side),
            ),
            surface(
                SIDEWALKS[1],
                SurfaceKind::Sidewalk,
                RectM::new(-half_l, -half_r - side, half_l, -half_r),
            ),
        ]
    }

    fn crosswalk_route(&self, id: &str, x: f64) -> Route {
        let half_r = self.half_road_m;
        Route {
            id: id.to_owned(),
            kind: RouteKind::Crosswalk,
            points: vec![
                PointM::new(x, self.south_y_m()),
                PointM::new(x, -half_r),
                PointM::new(x, half_r),
                PointM::new(x, self.north_y_m),
            ],
            width_m: self.params.crosswalk_width_m,
        }
    }

    fn crosswalk(&self, i: usize, id: &str, x: f64) -> Crosswalk {
        let half_r = self.half_road_m;
        // Node 0 of a sidewalk route is its west end, so crossing i meets node i + 1.
        let node = (i + 1) as u32;
        Crosswalk {
            id: id.to_owned(),
            route: id.to_owned(),
            signal_id: format!("signal.{i}"),
            width_m: self.params.crosswalk_width_m,
            lanes_crossed: self.params.lanes,
            sides: vec![
                CrosswalkSide {
                    sidewalk: SIDEWALKS[1].to_owned(),
                    node,
                    kerb: PointM::new(x, -half_r),
                    waiting_point: PointM::new(x, -half_r - QUEUE_ROW_SPACING_M),
                },
                CrosswalkSide {
                    sidewalk: SIDEWALKS[0].to_owned(),
                    node,
                    kerb: PointM::new(x, half_r),
                    waiting_point: PointM::new(x, half_r + QUEUE_ROW_SPACING_M),
                },
            ],
        }
    }

    fn crosswalk_surface(&self, id: &str, x: f64) -> SurfacePolygon {
        let half_cw = self.params.crosswalk_width_m / 2.0;
        let half_r = self.half_road_m;
        surface(
            id,
            SurfaceKind::Crosswalk,
            RectM::new(x - half_cw, -half_r, x + half_cw, half_r),
        )
    }

    /// The keep-outs on both kerbs of crossing i, north first.
    fn landing_keep_outs(&self, i: usize, x: f64) -> [KeepOut; 2] {
        let half_cw = self.params.crosswalk_width_m / 2.0;
        let (half_r, side) = (self.half_road_m, self.params.sidewalk_width_m);
        let (x0, x1) = (
            x - half_cw - LANDING_MARGIN_M,
            x + half_cw + LANDING_MARGIN_M,
        );
        let [north, south] = landing_ids(i);
        [
            KeepOut {
                id: north,
                rect: RectM::new(x0, half_r, x1, half_r + side),
            },
            KeepOut {
                id: south,
                rect: RectM::new(x0, -half_r - side, x1, -half_r),
            },
        ]
    }

    /// A portal at each end of each sidewalk.
    fn portals(&self) -> Vec<Portal> {
        let half_l = self.half_length_m;
        let last_node = (self.crossing_xs.len() + 1) as u32;
        let portal = |route: &str, end: &str, node: u32, x: f64, y: f64| Portal {
            id: format!("portal.{route}.{end}"),
            route: route.to_owned(),
            node,
            position: PointM::new(x, y),
        };
        let (north_y, south_y) = (self.north_y_m, self.south_y_m());
        vec![
            portal(SIDEWALKS[0], "east", last_node, half_l, north_y),
            portal(SIDEWALKS[0], "west", 0, -half_l, north_y),
            portal(SIDEWALKS[1], "east", last_node, half_l, south_y),
            portal(SIDEWALKS[1], "west", 0, -half_l, south_y),
        ]
    }

    /// The road's lanes, south to north: the southern half eastbound, the rest westbound.
    fn vehicle_lanes(&self) -> Vec<VehicleLane> {
        let (half_l, half_r) = (self.half_length_m, self.half_road_m);
        let params = self.params;
        let lane_width = params.road_width_m / f64::from(params.lanes);
        let eastbound_lanes = params.lanes.div_ceil(2);
        (0..params.lanes)
            .map(|j| {
                let y = -half_r + (f64::from(j) + 0.5) * lane_width;
                let ids = (0..self.crossing_xs.len()).map(crosswalk_id);
                let (direction, centerline, crossed) = if j < eastbound_lanes {
                    let line = vec![PointM::new(-half_l, y), PointM::new(half_l, y)];
                    (LaneDirection::Eastbound, line, ids.collect())
                } else {
                    let line = vec![PointM::new(half_l, y), PointM::new(-half_l, y)];
                    (LaneDirection::Westbound, line, ids.rev().collect())
                };
                VehicleLane {
                    id: lane_id(j),
                    direction,
                    centerline,
                    width_m: lane_width,
                    crosswalks: crossed,
                }
            })
            .collect()
    }

    /// The furniture zones along both kerbs.
    fn scatter_areas(&self) -> Vec<ScatterArea> {
        let (half_l, half_r) = (self.half_length_m, self.half_road_m);
        let zone = self.params.furniture_zone_m;
        vec![
            ScatterArea {
                id: SCATTER_AREAS[0].to_owned(),
                rect: RectM::new(-half_l, half_r, half_l, half_r + zone),
            },
            ScatterArea {
                id: SCATTER_AREAS[1].to_owned(),
                rect: RectM::new(-half_l, -half_r - zone, half_l, -half_r),
            },
        ]
    }
}

fn surface(id: &str, kind: SurfaceKind, rect: RectM) -> SurfacePolygon {
    SurfacePolygon {
        id: id.to_owned(),
        kind,
        outline: rect.corners().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn params(crosswalks: u32) -> StreetBlockParams {
        StreetBlockParams {
            length_m: 80.0,
            road_width_m: 7.0,
            sidewalk_width_m: 4.0,
            furniture_zone_m: 1.5,
            lanes: 2,
            crosswalks,
            crosswalk_width_m: 4.0,
        }
    }

    fn build(params: &StreetBlockParams) -> StreetBlock {
        build_street_block(params).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_outline_is_exactly_what_the_block_publishes() {
        for crosswalks in 1..=8 {
            let p = params(crosswalks);
            let block = build(&p);
            let outline = outline(&p);
            assert_eq!(
                block.space.route_ids(),
                outline.routes,
                "{crosswalks} crossings"
            );
            assert_eq!(outline.routes.len(), 2 + crosswalks as usize);
            let lanes: BTreeSet<String> = block.lanes.iter().map(|l| l.id.clone()).collect();
            assert_eq!(lanes, outline.lanes);
            assert_eq!(outline.lanes.len(), p.lanes as usize);
            let areas: Vec<String> = block.scatter_areas.iter().map(|a| a.id.clone()).collect();
            assert_eq!(areas, outline.scatter_areas);
            assert_eq!(block.keep_outs.len(), outline.keep_outs);
            assert_eq!(outline.keep_outs, 2 * crosswalks as usize);
            assert_eq!(outline.bounds_m, block.bounds());
        }
    }

    #[test]
    fn every_crosswalk_has_two_sides_with_waiting_points_on_the_sidewalk() {
        let block = build(&params(3));
        assert_eq!(block.space.crosswalks.len(), 3);
        for crosswalk in &block.space.crosswalks {
            assert_eq!(crosswalk.sides.len(), 2);
            assert!(crosswalk.signal_id.starts_with("signal."));
            for side in &crosswalk.sides {
                let sidewalk = block
                    .surfaces
                    .iter()
                    .find(|s| s.id == side.sidewalk)
                    .unwrap_or_else(|| panic!("surface {}", side.sidewalk));
                let (lo, hi) = (sidewalk.outline[0].y, sidewalk.outline[2].y);
                assert!(lo <= side.waiting_point.y && side.waiting_point.y < hi);
                assert!((side.kerb.distance(side.waiting_point) - 0.75).abs() < 1e-12);
            }
        }
        assert_eq!(block.space.validate(), Ok(()));
        assert_eq!(block.space.portals.len(), 4);
    }

    #[test]
    fn lanes_split_the_road_and_meet_crossings_in_travel_order() {
        let block = build(&params(2));
        assert_eq!(block.lanes.len(), 2);
        assert_eq!(block.lanes[0].direction, LaneDirection::Eastbound);
        assert_eq!(block.lanes[0].crosswalks, ["crosswalk.0", "crosswalk.1"]);
        assert_eq!(block.lanes[1].direction, LaneDirection::Westbound);
        assert_eq!(block.lanes[1].crosswalks, ["crosswalk.1", "crosswalk.0"]);
        assert!(block.lanes.iter().all(|lane| lane.width_m == 3.5));
        let bounds = block.bounds().unwrap_or_else(|| panic!("bounds"));
        assert_eq!((bounds.width_m(), bounds.depth_m()), (80.0, 15.0));
    }

    #[test]
    fn landings_keep_the_crossing_mouths_clear_of_the_furniture_zone() {
        let block = build(&params(1));
        let north = &block.scatter_areas[0];
        assert_eq!(north.id, "furniture.north");
        assert_eq!(north.rect, RectM::new(-40.0, 3.5, 40.0, 5.0));
        let landing = &block.keep_outs[0];
        assert_eq!(landing.id, "landing.0.north");
        assert!(landing
            .rect
            .contains(block.space.crosswalks[0].sides[1].waiting_point));
    }

    #[test]
    fn cross_field_rules_name_the_parameter() {
        let field = |p: StreetBlockParams| match build_street_block(&p) {
            Err(StreetBlockError::Parameter { field, .. }) => field,
            other => panic!("expected a parameter error, got {other:?}"),
        };
        assert_eq!(
            field(StreetBlockParams {
                lanes: 4,
                ..params(1)
            }),
            "lanes"
        );
        assert_eq!(field(params(0)), "crosswalks");
        assert_eq!(field(params(20)), "crosswalks");
        assert_eq!(
            field(StreetBlockParams {
                furniture_zone_m: 3.5,
                ..params(1)
            }),
            "furniture_zone_m"
        );
        assert_eq!(
            field(StreetBlockParams {
                length_m: f64::NAN,
                ..params(1)
            }),
            "length_m"
        );
    }

    #[test]
    fn building_twice_gives_the_same_block() {
        assert_eq!(build(&params(2)), build(&params(2)));
    }
}
