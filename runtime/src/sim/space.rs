//! The simulation's view of generated content: the walkable routes, crosswalks (with both sides
//! and their waiting points), signals, portals and vehicle lanes of every street block, and the
//! generated props as static blockers — built once from `content` products, indexed by number.
//!
//! [`SimSpace::from_products`] is the one content → simulation conversion: the editor and
//! `stagecraft simulate` both call it with the products of a generated bundle, so they build the
//! same space. Ids are kept sorted, and everything else refers to a route, signal or crosswalk by
//! its index in those sorted lists.

use std::collections::{BTreeMap, BTreeSet};

use thiserror::Error;

use super::routes::SimRoute;
use crate::content::encode::ByteWriter;
use crate::content::{PedestrianSpace, PointM, Product, StreetBlock};
use crate::project::{AssetFamily, Vec2};

/// One side of a crosswalk: the sidewalk it opens onto, the kerb and the waiting point.
#[derive(Clone, Debug, PartialEq)]
pub struct SimCrosswalkSide {
    /// Index of the sidewalk route in [`SimSpace::routes`].
    pub sidewalk: u16,
    /// Index of the sidewalk node where the crossing starts or ends.
    pub node: u32,
    /// The kerb point where crossing begins.
    pub kerb: Vec2,
    /// Where the first waiting pedestrian stands.
    pub waiting_point: Vec2,
}

/// A crosswalk: its crossing route, the signal that governs it and its two sides.
#[derive(Clone, Debug, PartialEq)]
pub struct SimCrosswalk {
    /// Stable id, such as `crosswalk.0`.
    pub id: String,
    /// Index of the crossing route (side 0 → side 1).
    pub route: u16,
    /// Index of the governing signal in [`SimSpace::signals`].
    pub signal: u16,
    /// Width of the crossing, meters.
    pub width_m: f64,
    /// Vehicle lanes the crossing spans.
    pub lanes_crossed: u32,
    /// The two sides; index 0 is where the route starts.
    pub sides: [SimCrosswalkSide; 2],
}

/// A signal: the crosswalks it governs (its phase state is the world's, not the content's).
#[derive(Clone, Debug, PartialEq)]
pub struct SimSignal {
    /// Stable id, such as `signal.0`.
    pub id: String,
    /// Indices of the crosswalks it governs, ascending.
    pub crosswalks: Vec<u16>,
}

/// Where pedestrians enter or leave the space: the end node of a route.
#[derive(Clone, Debug, PartialEq)]
pub struct SimPortal {
    /// Stable id, such as `portal.sidewalk.north.west`.
    pub id: String,
    /// Index of the route the portal opens.
    pub route: u16,
    /// Index of the route node at the portal.
    pub node: u32,
    /// The portal's position.
    pub position: Vec2,
}

/// A vehicle lane's centreline and the crosswalks it meets, in travel order.
#[derive(Clone, Debug, PartialEq)]
pub struct SimLane {
    /// Stable id, such as `lane.0`.
    pub id: String,
    /// Centreline from entry to exit.
    pub centerline: Vec<Vec2>,
    /// Lane width, meters.
    pub width_m: f64,
    /// Indices of the crosswalks it crosses, in travel order.
    pub crosswalks: Vec<u16>,
}

/// A generated prop as an obstacle: an upright cylinder on the ground.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticBlocker {
    /// The stage that generated it.
    pub stage: u32,
    /// Its index in that stage's product.
    pub index: u32,
    /// Centre on the ground, meters.
    pub position: Vec2,
    /// Collision radius (scaled), meters.
    pub radius_m: f64,
    /// Height (scaled), meters.
    pub height_m: f64,
}

/// Everything the world reads from generated content.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimSpace {
    /// Walkable routes, sorted by id when built from products (a route id that repeats keeps its
    /// first occurrence; degenerate routes are left out), in the given order from
    /// [`SimSpace::from_routes`].
    pub routes: Vec<SimRoute>,
    /// Crosswalks, sorted by id.
    pub crosswalks: Vec<SimCrosswalk>,
    /// Signals, sorted by id.
    pub signals: Vec<SimSignal>,
    /// Portals, sorted by id.
    pub portals: Vec<SimPortal>,
    /// Vehicle lanes, sorted by id.
    pub lanes: Vec<SimLane>,
    /// Props as static blockers, by (stage, index).
    pub blockers: Vec<StaticBlocker>,
    /// Props left out because their family or variant is unknown.
    pub unknown_props: u64,
}

/// Why content cannot be simulated.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SpaceBuildError {
    /// More routes, crosswalks or signals than the simulation's indices hold.
    #[error("too many {what} ({count}; at most 65535)")]
    TooMany {
        /// What overflowed.
        what: &'static str,
        /// How many there were.
        count: usize,
    },
}

impl SimSpace {
    /// The space of routes only (tests and hand-made worlds), in the order given (a route id
    /// that repeats keeps its first occurrence).
    pub fn from_routes(routes: Vec<SimRoute>) -> Result<SimSpace, SpaceBuildError> {
        let mut seen = BTreeSet::new();
        let routes: Vec<SimRoute> = routes
            .into_iter()
            .filter(|route| seen.insert(route.id.clone()))
            .collect();
        check_count("routes", routes.len())?;
        Ok(SimSpace {
            routes,
            ..SimSpace::default()
        })
    }

    /// The space of generated products, given as `(stage id, product)` in plan order.
    ///
    /// Street blocks give routes, crosswalks, signals, portals and lanes (an id that repeats keeps
    /// its first occurrence). Select-and-place objects are blockers; a scatter product is a
    /// blocker set only when no select-and-place stage consumes it, so a prop is never counted
    /// twice. `families` gives each variant's collision radius and height.
    pub fn from_products<'a>(
        products: impl IntoIterator<Item = (u32, &'a Product)>,
        families: &BTreeMap<String, AssetFamily>,
    ) -> Result<SimSpace, SpaceBuildError> {
        let products: Vec<(u32, &Product)> = products.into_iter().collect();
        let blocks: Vec<&StreetBlock> = products
            .iter()
            .filter_map(|(_, product)| match product {
                Product::StreetBlock(block) => Some(block),
                _ => None,
            })
            .collect();
        let mut space = SimSpace::from_street_blocks(&blocks)?;
        let (blockers, unknown) = blockers(&products, families);
        space.blockers = blockers;
        space.unknown_props = unknown;
        Ok(space)
    }

    /// The walkable network of `blocks`, in order (first occurrence of an id wins).
    pub fn from_street_blocks(blocks: &[&StreetBlock]) -> Result<SimSpace, SpaceBuildError> {
        let mut routes: BTreeMap<&str, SimRoute> = BTreeMap::new();
        for block in blocks {
            for (id, route) in space_routes(&block.space) {
                if let (false, Ok(route)) = (routes.contains_key(id), route) {
                    routes.insert(id, route);
                }
            }
        }
        let routes: Vec<SimRoute> = routes.into_values().collect();
        check_count("routes", routes.len())?;
        let route_index = |id: &str| {
            routes
                .binary_search_by(|r| r.id.as_str().cmp(id))
                .ok()
                .and_then(|i| u16::try_from(i).ok())
        };
        let signal_ids: BTreeSet<&str> = blocks
            .iter()
            .flat_map(|b| b.space.crosswalks.iter().map(|c| c.signal_id.as_str()))
            .collect();
        check_count("signals", signal_ids.len())?;
        let signal_ids: Vec<&str> = signal_ids.into_iter().collect();
        let mut crosswalks: BTreeMap<&str, SimCrosswalk> = BTreeMap::new();
        let mut portals: BTreeMap<&str, SimPortal> = BTreeMap::new();
        for block in blocks {
            for crosswalk in &block.space.crosswalks {
                let signal = signal_ids
                    .binary_search(&crosswalk.signal_id.as_str())
                    .ok()
                    .and_then(|i| u16::try_from(i).ok());
                let built = signal.and_then(|signal| crosswalk_of(crosswalk, signal, route_index));
                if let Some(built) = built {
                    crosswalks.entry(crosswalk.id.as_str()).or_insert(built);
                }
            }
            for portal in &block.space.portals {
                if let Some(route) = route_index(&portal.route) {
                    portals.entry(portal.id.as_str()).or_insert(SimPortal {
                        id: portal.id.clone(),
                        route,
                        node: portal.node,
                        position: vec2(portal.position),
                    });
                }
            }
        }
        let crosswalks: Vec<SimCrosswalk> = crosswalks.into_values().collect();
        check_count("crosswalks", crosswalks.len())?;
        let crosswalk_index = |id: &str| {
            crosswalks
                .binary_search_by(|c| c.id.as_str().cmp(id))
                .ok()
                .and_then(|i| u16::try_from(i).ok())
        };
        let signals = signal_ids
            .iter()
            .enumerate()
            .map(|(index, id)| SimSignal {
                id: (*id).to_owned(),
                crosswalks: (0..crosswalks.len())
                    .filter(|c| usize::from(crosswalks[*c].signal) == index)
                    .filter_map(|c| u16::try_from(c).ok())
                    .collect(),
            })
            .collect();
        let lanes = lanes_of(blocks, crosswalk_index);
        Ok(SimSpace {
            routes,
            crosswalks,
            signals,
            portals: portals.into_values().collect(),
            lanes,
            blockers: Vec::new(),
            unknown_props: 0,
        })
    }

    /// The index of route `id`.
    pub fn route_index(&self, id: &str) -> Option<u16> {
        self.routes
            .iter()
            .position(|r| r.id == id)
            .and_then(|i| u16::try_from(i).ok())
    }

    /// The route ids, in index order.
    pub fn route_ids(&self) -> impl Iterator<Item = &str> {
        self.routes.iter().map(|r| r.id.as_str())
    }

    /// Canonical bytes of everything in the space (floats by their bits).
    pub fn write_canonical(&self, w: &mut ByteWriter) {
        w.count(self.routes.len());
        for route in &self.routes {
            w.str(&route.id)
                .f64(route.width_m())
                .count(route.points().len());
            for point in route.points() {
                w.f64(point.x).f64(point.y);
            }
        }
        w.count(self.crosswalks.len());
        for crosswalk in &self.crosswalks {
            w.str(&crosswalk.id)
                .u16(crosswalk.route)
                .u16(crosswalk.signal)
                .f64(crosswalk.width_m)
                .u32(crosswalk.lanes_crossed);
            for side in &crosswalk.sides {
                w.u16(side.sidewalk).u32(side.node);
                w.f64(side.kerb.x).f64(side.kerb.y);
                w.f64(side.waiting_point.x).f64(side.waiting_point.y);
            }
        }
        w.count(self.signals.len());
        for signal in &self.signals {
            w.str(&signal.id).count(signal.crosswalks.len());
            for crosswalk in &signal.crosswalks {
                w.u16(*crosswalk);
            }
        }
        w.count(self.portals.len());
        for portal in &self.portals {
            w.str(&portal.id).u16(portal.route).u32(portal.node);
            w.f64(portal.position.x).f64(portal.position.y);
        }
        w.count(self.lanes.len());
        for lane in &self.lanes {
            w.str(&lane.id)
                .f64(lane.width_m)
                .count(lane.centerline.len());
            for point in &lane.centerline {
                w.f64(point.x).f64(point.y);
            }
            w.count(lane.crosswalks.len());
            for crosswalk in &lane.crosswalks {
                w.u16(*crosswalk);
            }
        }
        w.count(self.blockers.len());
        for blocker in &self.blockers {
            w.u32(blocker.stage).u32(blocker.index);
            w.f64(blocker.position.x).f64(blocker.position.y);
            w.f64(blocker.radius_m).f64(blocker.height_m);
        }
        w.u64(self.unknown_props);
    }
}

fn check_count(what: &'static str, count: usize) -> Result<(), SpaceBuildError> {
    if count > usize::from(u16::MAX) {
        return Err(SpaceBuildError::TooMany { what, count });
    }
    Ok(())
}

fn vec2(point: PointM) -> Vec2 {
    Vec2 {
        x: point.x,
        y: point.y,
    }
}

fn space_routes(
    space: &PedestrianSpace,
) -> impl Iterator<Item = (&str, Result<SimRoute, super::routes::RouteError>)> {
    space.routes.iter().map(|route| {
        let points = route.points.iter().map(|p| vec2(*p)).collect();
        let built = SimRoute::new(route.id.clone(), points).map(|r| r.with_width_m(route.width_m));
        (route.id.as_str(), built)
    })
}

/// A crosswalk whose route and both sidewalks are in the space; `None` otherwise.
fn crosswalk_of(
    crosswalk: &crate::content::Crosswalk,
    signal: u16,
    route_index: impl Fn(&str) -> Option<u16>,
) -> Option<SimCrosswalk> {
    let route = route_index(&crosswalk.route)?;
    let side = |index: usize| {
        let side = crosswalk.sides.get(index)?;
        Some(SimCrosswalkSide {
            sidewalk: route_index(&side.sidewalk)?,
            node: side.node,
            kerb: vec2(side.kerb),
            waiting_point: vec2(side.waiting_point),
        })
    };
    Some(SimCrosswalk {
        id: crosswalk.id.clone(),
        route,
        signal,
        width_m: crosswalk.width_m,
        lanes_crossed: crosswalk.lanes_crossed,
        sides: [side(0)?, side(1)?],
    })
}

fn lanes_of(
    blocks: &[&StreetBlock],
    crosswalk_index: impl Fn(&str) -> Option<u16>,
) -> Vec<SimLane> {
    let mut lanes: BTreeMap<&str, SimLane> = BTreeMap::new();
    for block in blocks {
        for lane in &block.lanes {
            lanes.entry(lane.id.as_str()).or_insert_with(|| SimLane {
                id: lane.id.clone(),
                centerline: lane.centerline.iter().map(|p| vec2(*p)).collect(),
                width_m: lane.width_m,
                crosswalks: lane
                    .crosswalks
                    .iter()
                    .filter_map(|c| crosswalk_index(c))
                    .collect(),
            });
        }
    }
    lanes.into_values().collect()
}

/// Props as blockers, sorted by (stage, index), and how many were left out as unknown.
fn blockers(
    products: &[(u32, &Product)],
    families: &BTreeMap<String, AssetFamily>,
) -> (Vec<StaticBlocker>, u64) {
    let consumed: BTreeSet<u32> = products
        .iter()
        .filter_map(|(_, product)| match product {
            Product::PlacedObjects(placed) => Some(placed.placements_stage),
            _ => None,
        })
        .collect();
    let mut blockers = Vec::new();
    let mut unknown = 0;
    let mut push = |stage: u32, index: usize, family: &str, variant: u32, at: Vec2, scale: f64| {
        let variant = families
            .get(family)
            .and_then(|f| f.variants.get(usize::try_from(variant).ok()?));
        match (variant, u32::try_from(index)) {
            (Some(variant), Ok(index)) => blockers.push(StaticBlocker {
                stage,
                index,
                position: at,
                radius_m: variant.collision_radius_m * scale,
                height_m: variant.height_m * scale,
            }),
            _ => unknown += 1,
        }
    };
    for (stage, product) in products {
        match product {
            Product::PlacedObjects(placed) => {
                let unit = placed.lattice_unit_m;
                for (index, object) in placed.objects.iter().enumerate() {
                    let p = &object.placement;
                    let at = Vec2 {
                        x: p.x as f64 * unit,
                        y: p.y as f64 * unit,
                    };
                    let scale = f64::from(object.scale) * placed.scale_unit;
                    push(*stage, index, &placed.family, p.variant, at, scale);
                }
            }
            Product::Placements(scatter) if !consumed.contains(stage) => {
                let unit = scatter.lattice_unit_m;
                for (index, p) in scatter.placements().enumerate() {
                    let at = Vec2 {
                        x: p.x as f64 * unit,
                        y: p.y as f64 * unit,
                    };
                    push(*stage, index, &scatter.family, p.variant, at, 1.0);
                }
            }
            _ => {}
        }
    }
    blockers.sort_by_key(|b| (b.stage, b.index));
    (blockers, unknown)
}
