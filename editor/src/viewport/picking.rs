//! Picking: rays, axis-aligned boxes, and the nearest pickable thing a ray hits.
//!
//! Every pickable object in the scene carries an [`Aabb`] and a [`PickId`]; a click casts the
//! camera's ray and selects the nearest box it enters. Ties (equal distance) go to the smaller id,
//! so the result never depends on the order the scene listed them in.

use stagecraft_runtime::content::{Product, ScatterLayer, ScatterProduct};
use stagecraft_runtime::identity::ScatterId;
use three_d::{vec3, InnerSpace, Vec3};

/// A ray: an origin and a unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
}

impl Ray {
    /// A ray from `origin` along `direction` (normalised here).
    pub fn new(origin: Vec3, direction: Vec3) -> Ray {
        let length = direction.magnitude();
        let direction = if length > 0.0 {
            direction / length
        } else {
            -Vec3::unit_z()
        };
        Ray { origin, direction }
    }

    /// The point `distance` along the ray.
    pub fn at(&self, distance: f32) -> Vec3 {
        self.origin + self.direction * distance
    }

    /// Where the ray meets the horizontal plane `z = height_m`, if it does in front of the origin.
    pub fn hit_plane_z(&self, height_m: f32) -> Option<Vec3> {
        if self.direction.z.abs() < 1e-9 {
            return None;
        }
        let t = (height_m - self.origin.z) / self.direction.z;
        (t >= 0.0).then(|| self.at(t))
    }
}

/// An axis-aligned box, meters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The box spanning `a` and `b` (in any order).
    pub fn new(a: Vec3, b: Vec3) -> Aabb {
        Aabb {
            min: vec3(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)),
            max: vec3(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)),
        }
    }

    /// A box standing on the ground: centre `(x, y)`, half-extent `radius` and `height` up from `z`.
    pub fn standing(x: f32, y: f32, z: f32, radius: f32, height: f32) -> Aabb {
        Aabb::new(
            vec3(x - radius, y - radius, z),
            vec3(x + radius, y + radius, z + height),
        )
    }

    /// The centre.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: vec3(
                self.min.x.min(other.min.x),
                self.min.y.min(other.min.y),
                self.min.z.min(other.min.z),
            ),
            max: vec3(
                self.max.x.max(other.max.x),
                self.max.y.max(other.max.y),
                self.max.z.max(other.max.z),
            ),
        }
    }

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        let (a, b) = (self.min, self.max);
        [
            vec3(a.x, a.y, a.z),
            vec3(b.x, a.y, a.z),
            vec3(b.x, b.y, a.z),
            vec3(a.x, b.y, a.z),
            vec3(a.x, a.y, b.z),
            vec3(b.x, a.y, b.z),
            vec3(b.x, b.y, b.z),
            vec3(a.x, b.y, b.z),
        ]
    }

    /// The distance along `ray` at which it enters the box (0 when it starts inside), or `None`
    /// when it misses (slab test).
    pub fn hit(&self, ray: &Ray) -> Option<f32> {
        let mut t_min = 0.0f32;
        let mut t_max = f32::INFINITY;
        for axis in 0..3 {
            let origin = ray.origin[axis];
            let direction = ray.direction[axis];
            let (low, high) = (self.min[axis], self.max[axis]);
            if direction.abs() < 1e-12 {
                if origin < low || origin > high {
                    return None;
                }
                continue;
            }
            let inverse = 1.0 / direction;
            let (mut near, mut far) = ((low - origin) * inverse, (high - origin) * inverse);
            if near > far {
                std::mem::swap(&mut near, &mut far);
            }
            t_min = t_min.max(near);
            t_max = t_max.min(far);
            if t_min > t_max {
                return None;
            }
        }
        Some(t_min)
    }
}

/// Something the viewport can select.
///
/// Generated objects and rejected candidates are named by their persistent identity, never by
/// their place in a product's list: after a regeneration (an override applied, a parameter
/// changed) a pick names the same object or, when that object is gone, nothing — never the
/// object that took its place in the list. Find where it is now with [`object_index`] and
/// [`rejected_index`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PickId {
    /// A generated object: its emitting stage and its identity.
    Object {
        /// The emitting stage.
        stage: u32,
        /// The object's packed identity.
        id: ScatterId,
    },
    /// A rejected scatter candidate: its stage and its identity.
    Rejected {
        /// The scatter stage.
        stage: u32,
        /// The candidate's packed identity.
        id: ScatterId,
    },
    /// A grid cell of a layout product (a mission-layout cell or a streaming cell): its stage
    /// and the cell's column and row.
    Cell {
        /// The emitting stage.
        stage: u32,
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// A pedestrian, by its stable agent id.
    Agent {
        /// The agent's id (`source << 32 | ordinal`).
        id: u64,
    },
    /// A spawn candidate the world drew: the frame that drew it and its place among that
    /// frame's candidates.
    SpawnCandidate {
        /// The frame that drew it.
        frame: u64,
        /// Its index among that frame's candidates.
        ordinal: u32,
    },
}

/// The index of the object with identity `id` in `product`'s object list (a select-and-place
/// product's objects, or a scatter product's placements layer by layer), if it has one now.
pub fn object_index(product: &Product, id: ScatterId) -> Option<usize> {
    match product {
        Product::PlacedObjects(placed) => placed.objects.iter().position(|o| o.placement.id == id),
        Product::Placements(scatter) => {
            let mut offset = 0;
            for layer in &scatter.layers {
                if holds(layer, id) {
                    let index = find_in(&layer.output.placements, id, |p| p.id)?;
                    return Some(offset + index);
                }
                offset += layer.output.placements.len();
            }
            None
        }
        _ => None,
    }
}

/// The layer index and the index in that layer's rejected list of the rejected candidate `id`
/// of `scatter`, if it is rejected now.
pub fn rejected_index(scatter: &ScatterProduct, id: ScatterId) -> Option<(usize, usize)> {
    let layer = scatter.layers.iter().position(|layer| holds(layer, id))?;
    let index = find_in(&scatter.layers[layer].output.rejected, id, |c| c.id)?;
    Some((layer, index))
}

/// Whether identity `id` belongs to `layer` (its room and layer fields).
fn holds(layer: &ScatterLayer, id: ScatterId) -> bool {
    let key = id.unpack();
    key.layer == layer.layer && key.room.get() == layer.room
}

/// The index of `id` in `records` (a layer's list, in canonical order: binary search, then a scan
/// in case a list is not in that order).
fn find_in<T>(records: &[T], id: ScatterId, id_of: impl Fn(&T) -> ScatterId) -> Option<usize> {
    let key = id.canonical_key();
    match records.binary_search_by(|r| id_of(r).canonical_key().cmp(&key)) {
        Ok(index) if id_of(&records[index]) == id => Some(index),
        _ => records.iter().position(|r| id_of(r) == id),
    }
}

/// The nearest target `ray` hits: its id and the distance along the ray.
pub fn pick_nearest<'a>(
    ray: &Ray,
    targets: impl IntoIterator<Item = (&'a PickId, &'a Aabb)>,
) -> Option<(PickId, f32)> {
    let mut best: Option<(&PickId, f32)> = None;
    for (id, bounds) in targets {
        let Some(distance) = bounds.hit(ray) else {
            continue;
        };
        let better = match best {
            None => true,
            Some((best_id, best_distance)) => {
                distance < best_distance || (distance == best_distance && id < best_id)
            }
        };
        if better {
            best = Some((id, distance));
        }
    }
    best.map(|(id, distance)| (id.clone(), distance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewport::camera::{OrbitCamera, Projection};

    fn down_at(x: f32, y: f32) -> Ray {
        Ray::new(vec3(x, y, 50.0), vec3(0.0, 0.0, -1.0))
    }

    fn object(cell_x: i64) -> PickId {
        let id = stagecraft_runtime::identity::pack_scatter_id(1, 0, 0, cell_x, 0).expect("fits");
        PickId::Object { stage: 3, id }
    }

    #[test]
    fn rays_hit_and_miss_boxes() {
        let bounds = Aabb::standing(2.0, 3.0, 0.0, 0.5, 2.0);
        assert_eq!(bounds.hit(&down_at(2.0, 3.0)), Some(48.0));
        assert_eq!(bounds.hit(&down_at(2.49, 3.49)), Some(48.0));
        assert_eq!(bounds.hit(&down_at(2.51, 3.0)), None);
        // Pointing away from the box.
        assert_eq!(
            bounds.hit(&Ray::new(vec3(2.0, 3.0, 50.0), Vec3::unit_z())),
            None
        );
        // Starting inside counts as distance zero.
        assert_eq!(
            bounds.hit(&Ray::new(vec3(2.0, 3.0, 1.0), Vec3::unit_x())),
            Some(0.0)
        );
        // A grazing horizontal ray outside the slab misses.
        assert_eq!(
            bounds.hit(&Ray::new(vec3(0.0, 5.0, 1.0), Vec3::unit_x())),
            None
        );
    }

    #[test]
    fn the_nearest_hit_wins_and_ties_go_to_the_smaller_id() {
        let low = Aabb::standing(0.0, 0.0, 0.0, 1.0, 1.0);
        let tall = Aabb::standing(0.0, 0.0, 0.0, 0.5, 4.0);
        let beside = Aabb::standing(5.0, 0.0, 0.0, 1.0, 9.0);
        let targets = [(object(7), low), (object(2), tall), (object(1), beside)];
        let hit = pick_nearest(&down_at(0.0, 0.0), targets.iter().map(|(i, b)| (i, b)));
        assert_eq!(hit, Some((object(2), 46.0)));
        let twins = [(object(9), low), (object(4), low)];
        let hit = pick_nearest(&down_at(0.2, 0.2), twins.iter().map(|(i, b)| (i, b)));
        assert_eq!(hit.map(|h| h.0), Some(object(4)));
        assert_eq!(
            pick_nearest(&down_at(30.0, 30.0), targets.iter().map(|(i, b)| (i, b))),
            None
        );
    }

    #[test]
    fn a_click_on_a_projected_object_picks_it() {
        let agent = PickId::Agent { id: 1 << 32 };
        let prop = object(0);
        let agent_box = Aabb::standing(10.0, 4.0, 0.0, 0.3, 1.8);
        let prop_box = Aabb::standing(-6.0, -2.0, 0.0, 0.6, 1.0);
        let targets = [(agent.clone(), agent_box), (prop.clone(), prop_box)];
        for projection in [Projection::Perspective, Projection::TopDown] {
            let camera = OrbitCamera {
                projection,
                ..OrbitCamera::default()
            };
            let size = [1000.0, 700.0];
            for (id, bounds) in &targets {
                let on_screen = camera.project(bounds.center(), size).expect("visible");
                let ray = camera.ray(on_screen, size).expect("ray");
                let hit = pick_nearest(&ray, targets.iter().map(|(i, b)| (i, b)));
                assert_eq!(hit.map(|h| h.0).as_ref(), Some(id), "{projection:?}");
            }
            // Empty ground between them picks nothing.
            let empty = camera
                .project(vec3(30.0, 30.0, 0.0), size)
                .expect("visible");
            let ray = camera.ray(empty, size).expect("ray");
            assert_eq!(
                pick_nearest(&ray, targets.iter().map(|(i, b)| (i, b))),
                None
            );
        }
    }

    #[test]
    fn rays_meet_the_ground() {
        let ray = Ray::new(vec3(0.0, 0.0, 10.0), vec3(1.0, 0.0, -1.0));
        let ground = ray.hit_plane_z(0.0).expect("hits");
        assert!((ground - vec3(10.0, 0.0, 0.0)).magnitude() < 1e-4);
        assert_eq!(
            Ray::new(Vec3::unit_z(), Vec3::unit_x()).hit_plane_z(0.0),
            None
        );
    }
}
