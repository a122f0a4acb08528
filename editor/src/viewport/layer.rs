//! What one viewport layer draws ([`LayerData`]: ground triangles, line segments, lit shape
//! instances and pick targets) and how generated objects are coloured ([`ColourBy`]). The scene
//! builds layers with [`super::build`] and [`super::overlays`], which fill them; all three depend
//! on this module, which depends on none of them.

use three_d::{Mat4, Srgba, Vec3};

use super::meshes::Shape;
use super::picking::{Aabb, PickId};

/// Instances of one shape: a transform and a colour each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstanceBatch {
    /// Unit-shape → world transforms.
    pub transforms: Vec<Mat4>,
    /// Colours, one per transform.
    pub colours: Vec<Srgba>,
}

impl InstanceBatch {
    /// Adds one instance.
    pub fn push(&mut self, transform: Mat4, colour: Srgba) {
        self.transforms.push(transform);
        self.colours.push(colour);
    }

    /// Number of instances.
    pub fn len(&self) -> usize {
        self.transforms.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }
}

/// A straight line segment drawn as a thin beam.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Start, meters.
    pub a: Vec3,
    /// End, meters.
    pub b: Vec3,
    /// Colour.
    pub colour: Srgba,
}

/// What one layer draws: flat ground triangles, lines, lit shape instances, and pick targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayerData {
    /// Unlit triangles (three positions per triangle) with one colour per vertex.
    pub triangles: Vec<(Vec3, Srgba)>,
    /// Line segments.
    pub lines: Vec<Segment>,
    /// Lit instances per shape, indexed by [`Shape::index`].
    pub shapes: [InstanceBatch; 3],
    /// What a click can select, with its bounds.
    pub picks: Vec<(PickId, Aabb)>,
}

impl LayerData {
    /// The instances of `shape`.
    pub fn shape(&mut self, shape: Shape) -> &mut InstanceBatch {
        &mut self.shapes[shape.index()]
    }

    /// Adds a line segment.
    pub fn line(&mut self, a: Vec3, b: Vec3, colour: Srgba) {
        self.lines.push(Segment { a, b, colour });
    }

    /// Adds a closed polyline.
    pub fn polygon(&mut self, points: &[Vec3], colour: Srgba) {
        for (i, a) in points.iter().enumerate() {
            let b = points[(i + 1) % points.len()];
            self.line(*a, b, colour);
        }
    }

    /// Adds a filled convex polygon (fan triangulation).
    pub fn fill_convex(&mut self, points: &[Vec3], colour: Srgba) {
        for i in 1..points.len().saturating_sub(1) {
            self.triangles.push((points[0], colour));
            self.triangles.push((points[i], colour));
            self.triangles.push((points[i + 1], colour));
        }
    }

    /// The bounds of everything drawn, if anything is.
    pub fn bounds(&self) -> Option<Aabb> {
        let mut bounds: Option<Aabb> = None;
        let mut add = |b: Aabb| bounds = Some(bounds.map_or(b, |a| a.union(&b)));
        for (point, _) in &self.triangles {
            add(Aabb::new(*point, *point));
        }
        for segment in &self.lines {
            add(Aabb::new(segment.a, segment.b));
        }
        for (_, b) in &self.picks {
            add(*b);
        }
        bounds
    }
}

/// How generated objects are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColourBy {
    /// The asset variant's own preview colour.
    #[default]
    Asset,
    /// The stage that emitted the object.
    Stage,
    /// The recipe that generated it.
    Recipe,
    /// The variant index within the family.
    Variant,
}
