//! The pedestrian space: walkable routes, crosswalk connectors with two sides, waiting points,
//! signal ids and portals — what the simulation's agents walk on.
//!
//! A space is built by an operator (`street.block`) and validated with
//! [`PedestrianSpace::validate`] before it is published: every id is unique, every route has at
//! least two finite points, every crosswalk joins exactly two sides on two different sidewalks at
//! the ends of its own route, every portal names a real route node, and all routes form one
//! connected network. Lists are sorted by id.

use std::collections::{BTreeMap, BTreeSet};

use thiserror::Error;

use super::geometry::PointM;

/// What kind of walkway a route is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RouteKind {
    /// A sidewalk along the block.
    Sidewalk,
    /// The walking line across a crosswalk, from side 0 to side 1.
    Crosswalk,
}

impl RouteKind {
    /// The kind's stable name.
    pub const fn name(self) -> &'static str {
        match self {
            RouteKind::Sidewalk => "sidewalk",
            RouteKind::Crosswalk => "crosswalk",
        }
    }
}

/// A walkable polyline; agents walk along it node to node.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Stable id, such as `sidewalk.north` or `crosswalk.0`.
    pub id: String,
    /// Sidewalk or crosswalk.
    pub kind: RouteKind,
    /// The polyline's nodes, in walking order.
    pub points: Vec<PointM>,
    /// Width of the walkable corridor, in meters.
    pub width_m: f64,
}

impl Route {
    /// Length of the polyline, in meters.
    pub fn length_m(&self) -> f64 {
        self.points.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

/// One end of a crosswalk: where it meets a sidewalk, the kerb point and the waiting point.
#[derive(Debug, Clone, PartialEq)]
pub struct CrosswalkSide {
    /// The sidewalk route this side opens onto.
    pub sidewalk: String,
    /// Index of the sidewalk node where the crosswalk route starts or ends.
    pub node: u32,
    /// The kerb point where crossing begins (the entry).
    pub kerb: PointM,
    /// Where the first waiting agent stands: the entry moved back by the queue distance.
    pub waiting_point: PointM,
}

/// A crosswalk connector: a crossing route, its two sides and the signal that governs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Crosswalk {
    /// Stable id, such as `crosswalk.0` (also the id of its route).
    pub id: String,
    /// The crossing route (side 0 → side 1).
    pub route: String,
    /// The id of the signal that governs the crossing, such as `signal.0`.
    pub signal_id: String,
    /// Width of the painted crossing, in meters.
    pub width_m: f64,
    /// Vehicle lanes the crossing spans.
    pub lanes_crossed: u32,
    /// The two sides; index 0 is where the route starts.
    pub sides: Vec<CrosswalkSide>,
}

/// Where agents enter or leave the space: the end node of a route.
#[derive(Debug, Clone, PartialEq)]
pub struct Portal {
    /// Stable id, such as `portal.sidewalk.north.west`.
    pub id: String,
    /// The route the portal opens.
    pub route: String,
    /// Index of the route node at the portal.
    pub node: u32,
    /// The portal's position (the node's position).
    pub position: PointM,
}

/// The validated walkable network of a generated place.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PedestrianSpace {
    /// Routes, sorted by id.
    pub routes: Vec<Route>,
    /// Crosswalks, sorted by id.
    pub crosswalks: Vec<Crosswalk>,
    /// Portals, sorted by id.
    pub portals: Vec<Portal>,
}

/// Why a pedestrian space cannot be published.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SpaceError {
    /// Two routes, crosswalks or portals share an id (or a list is not sorted by id).
    #[error("id `{id}` is repeated or out of order")]
    DuplicateId {
        /// The id.
        id: String,
    },
    /// A route has fewer than two points, a non-finite point or a non-positive width.
    #[error("route `{route}` is degenerate: {why}")]
    DegenerateRoute {
        /// The route.
        route: String,
        /// What is wrong.
        why: &'static str,
    },
    /// Something names a route that does not exist or has the wrong kind.
    #[error("`{owner}` names route `{route}`, which is not a {expected} route of the space")]
    UnknownRoute {
        /// Who names it.
        owner: String,
        /// The route named.
        route: String,
        /// The kind expected.
        expected: &'static str,
    },
    /// A crosswalk does not have exactly two sides on two different sidewalks.
    #[error("crosswalk `{crosswalk}` has {sides} sides on distinct sidewalks, not 2")]
    CrosswalkSides {
        /// The crosswalk.
        crosswalk: String,
        /// Sides found (on distinct sidewalks).
        sides: usize,
    },
    /// A crosswalk side or portal names a node that is not where it should be.
    #[error("`{owner}` names node {node} of `{route}`, which does not meet it")]
    BadNode {
        /// Who names the node.
        owner: String,
        /// The route.
        route: String,
        /// The node index.
        node: u32,
    },
    /// The routes form more than one network; each component lists its route ids.
    #[error("the space is not connected: {} separate networks", components.len())]
    Disconnected {
        /// The connected components, each sorted, in order of their smallest id.
        components: Vec<Vec<String>>,
    },
}

/// Distance under which two points are the same node (meters).
const SAME_POINT_M: f64 = 1e-6;

impl PedestrianSpace {
    /// The route with id `id`.
    pub fn route(&self, id: &str) -> Option<&Route> {
        self.routes
            .binary_search_by(|route| route.id.as_str().cmp(id))
            .ok()
            .and_then(|index| self.routes.get(index))
    }

    /// The sorted ids of every route.
    pub fn route_ids(&self) -> BTreeSet<String> {
        self.routes.iter().map(|route| route.id.clone()).collect()
    }

    /// Checks every rule of the module docs; the first problem found is returned.
    pub fn validate(&self) -> Result<(), SpaceError> {
        check_sorted(self.routes.iter().map(|r| r.id.as_str()))?;
        check_sorted(self.crosswalks.iter().map(|c| c.id.as_str()))?;
        check_sorted(self.portals.iter().map(|p| p.id.as_str()))?;
        for route in &self.routes {
            check_route(route)?;
        }
        // Union-find over route indices; crosswalks join their route with both sidewalks.
        let mut parent: Vec<usize> = (0..self.routes.len()).collect();
        for crosswalk in &self.crosswalks {
            let route =
                self.route_of_kind(&crosswalk.id, &crosswalk.route, RouteKind::Crosswalk)?;
            let sidewalks: BTreeSet<&str> = crosswalk
                .sides
                .iter()
                .map(|side| side.sidewalk.as_str())
                .collect();
            if crosswalk.sides.len() != 2 || sidewalks.len() != 2 {
                return Err(SpaceError::CrosswalkSides {
                    crosswalk: crosswalk.id.clone(),
                    sides: sidewalks.len().min(crosswalk.sides.len()),
                });
            }
            let route_index = self.index_of(&crosswalk.route);
            for (which, side) in crosswalk.sides.iter().enumerate() {
                let sidewalk =
                    self.route_of_kind(&crosswalk.id, &side.sidewalk, RouteKind::Sidewalk)?;
                let end = if which == 0 {
                    route.points.first()
                } else {
                    route.points.last()
                };
                let node = sidewalk.points.get(side.node as usize);
                let meets =
                    matches!((node, end), (Some(a), Some(b)) if a.distance(*b) < SAME_POINT_M);
                if !meets || !side.kerb.is_finite() || !side.waiting_point.is_finite() {
                    return Err(SpaceError::BadNode {
                        owner: crosswalk.id.clone(),
                        route: side.sidewalk.clone(),
                        node: side.node,
                    });
                }
                union(&mut parent, route_index, self.index_of(&side.sidewalk));
            }
        }
        for portal in &self.portals {
            let route = self
                .route(&portal.route)
                .ok_or_else(|| SpaceError::UnknownRoute {
                    owner: portal.id.clone(),
                    route: portal.route.clone(),
                    expected: "known",
                })?;
            let at = route.points.get(portal.node as usize);
            if !matches!(at, Some(p) if p.distance(portal.position) < SAME_POINT_M) {
                return Err(SpaceError::BadNode {
                    owner: portal.id.clone(),
                    route: portal.route.clone(),
                    node: portal.node,
                });
            }
        }
        let mut components: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (index, route) in self.routes.iter().enumerate() {
            components
                .entry(find(&mut parent, index))
                .or_default()
                .push(route.id.clone());
        }
        if components.len() > 1 {
            let mut components: Vec<Vec<String>> = components.into_values().collect();
            components.sort();
            return Err(SpaceError::Disconnected { components });
        }
        Ok(())
    }

    fn index_of(&self, id: &str) -> usize {
        self.routes
            .binary_search_by(|route| route.id.as_str().cmp(id))
            .unwrap_or(0)
    }

    fn route_of_kind(&self, owner: &str, id: &str, kind: RouteKind) -> Result<&Route, SpaceError> {
        self.route(id)
            .filter(|route| route.kind == kind)
            .ok_or_else(|| SpaceError::UnknownRoute {
                owner: owner.to_owned(),
                route: id.to_owned(),
                expected: kind.name(),
            })
    }
}

fn check_sorted<'a>(ids: impl Iterator<Item = &'a str>) -> Result<(), SpaceError> {
    let mut previous: Option<&str> = None;
    for id in ids {
        if previous.is_some_and(|p| p >= id) {
            return Err(SpaceError::DuplicateId { id: id.to_owned() });
        }
        previous = Some(id);
    }
    Ok(())
}

fn check_route(route: &Route) -> Result<(), SpaceError> {
    let why = if route.points.len() < 2 {
        Some("fewer than two points")
    } else if !route.points.iter().all(|p| p.is_finite()) {
        Some("a point is not finite")
    } else if !(route.width_m.is_finite() && route.width_m > 0.0) {
        Some("the width is not positive")
    } else {
        None
    };
    match why {
        Some(why) => Err(SpaceError::DegenerateRoute {
            route: route.id.clone(),
            why,
        }),
        None => Ok(()),
    }
}

fn find(parent: &mut [usize], mut index: usize) -> usize {
    while parent[index] != index {
        parent[index] = parent[parent[index]];
        index = parent[index];
    }
    index
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    // The smaller index becomes the root, so component order never depends on union order.
    if ra < rb {
        parent[rb] = ra;
    } else {
        parent[ra] = rb;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sidewalk(id: &str, y: f64) -> Route {
        Route {
            id: id.to_owned(),
            kind: RouteKind::Sidewalk,
            points: vec![
                PointM::new(-10.0, y),
                PointM::new(0.0, y),
                PointM::new(10.0, y),
            ],
            width_m: 3.0,
        }
    }

    fn space() -> PedestrianSpace {
        let side = |sidewalk: &str, y: f64| CrosswalkSide {
            sidewalk: sidewalk.to_owned(),
            node: 1,
            kerb: PointM::new(0.0, y * 0.5),
            waiting_point: PointM::new(0.0, y * 0.6),
        };
        PedestrianSpace {
            routes: vec![
                Route {
                    id: "crosswalk.0".to_owned(),
                    kind: RouteKind::Crosswalk,
                    points: vec![PointM::new(0.0, -5.0), PointM::new(0.0, 5.0)],
                    width_m: 4.0,
                },
                sidewalk("sidewalk.north", 5.0),
                sidewalk("sidewalk.south", -5.0),
            ],
            crosswalks: vec![Crosswalk {
                id: "crosswalk.0".to_owned(),
                route: "crosswalk.0".to_owned(),
                signal_id: "signal.0".to_owned(),
                width_m: 4.0,
                lanes_crossed: 2,
                sides: vec![side("sidewalk.south", -5.0), side("sidewalk.north", 5.0)],
            }],
            portals: vec![Portal {
                id: "portal.a".to_owned(),
                route: "sidewalk.north".to_owned(),
                node: 0,
                position: PointM::new(-10.0, 5.0),
            }],
        }
    }

    #[test]
    fn a_connected_space_validates() {
        assert_eq!(space().validate(), Ok(()));
        assert_eq!(
            space().route("crosswalk.0").map(Route::length_m),
            Some(10.0)
        );
    }

    #[test]
    fn a_crosswalk_needs_two_sides_on_two_sidewalks() {
        let mut one_side = space();
        one_side.crosswalks[0].sides.pop();
        assert!(matches!(
            one_side.validate(),
            Err(SpaceError::CrosswalkSides { sides: 1, .. })
        ));
        let mut same_sidewalk = space();
        same_sidewalk.crosswalks[0].sides[1].sidewalk = "sidewalk.south".to_owned();
        assert!(matches!(
            same_sidewalk.validate(),
            Err(SpaceError::CrosswalkSides { sides: 1, .. })
        ));
    }

    #[test]
    fn a_space_without_crosswalks_is_disconnected() {
        let mut space = space();
        space.crosswalks.clear();
        assert_eq!(
            space.validate(),
            Err(SpaceError::Disconnected {
                components: vec![
                    vec!["crosswalk.0".to_owned()],
                    vec!["sidewalk.north".to_owned()],
                    vec!["sidewalk.south".to_owned()],
                ]
            })
        );
    }

    #[test]
    fn bad_references_are_reported() {
        let mut moved = space();
        moved.crosswalks[0].sides[0].node = 2;
        assert!(matches!(
            moved.validate(),
            Err(SpaceError::BadNode { node: 2, .. })
        ));
        let mut portal = space();
        portal.portals[0].route = "nowhere".to_owned();
        assert!(matches!(
            portal.validate(),
            Err(SpaceError::UnknownRoute { .. })
        ));
        let mut degenerate = space();
        degenerate.routes[1].points.truncate(1);
        assert!(matches!(
            degenerate.validate(),
            Err(SpaceError::DegenerateRoute { .. })
        ));
        let mut unsorted = space();
        unsorted.routes.swap(1, 2);
        assert!(matches!(
            unsorted.validate(),
            Err(SpaceError::DuplicateId { .. })
        ));
    }
}
