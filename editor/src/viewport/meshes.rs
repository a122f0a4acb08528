//! Unit meshes of the preview shapes, as plain vertex data (no GL).
//!
//! Every shape stands on the ground: it spans `[-0.5, 0.5]` in x and y and `[0, 1]` in z, so an
//! instance transform is translate · rotate-about-z · scale(width, depth, height).

use three_d::{vec3, InnerSpace, Vec3};

/// The primitives the viewport draws instances of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// A box (props, buildings, line beams, markers).
    Box,
    /// A cylinder (posts, bins, pedestrians).
    Cylinder,
    /// A cone (trees, observers).
    Cone,
}

impl Shape {
    /// Every shape, in the order scene batches are indexed.
    pub const ALL: [Shape; 3] = [Shape::Box, Shape::Cylinder, Shape::Cone];

    /// Index into per-shape arrays.
    pub const fn index(self) -> usize {
        match self {
            Shape::Box => 0,
            Shape::Cylinder => 1,
            Shape::Cone => 2,
        }
    }

    /// The preview shape an asset variant declares.
    pub fn of_preview(shape: stagecraft_runtime::project::PreviewShape) -> Shape {
        use stagecraft_runtime::project::PreviewShape;
        match shape {
            PreviewShape::Box => Shape::Box,
            PreviewShape::Cylinder => Shape::Cylinder,
            PreviewShape::Cone => Shape::Cone,
        }
    }
}

/// Triangles with per-vertex normals, indexed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitMesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Unit normals, one per position.
    pub normals: Vec<Vec3>,
    /// Three indices per triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

/// Segments around the circle of round shapes.
const ROUND_SEGMENTS: u32 = 16;

impl UnitMesh {
    /// The unit mesh of `shape`.
    pub fn of(shape: Shape) -> UnitMesh {
        match shape {
            Shape::Box => unit_box(),
            Shape::Cylinder => unit_cylinder(ROUND_SEGMENTS),
            Shape::Cone => unit_cone(ROUND_SEGMENTS),
        }
    }

    fn quad(&mut self, corners: [Vec3; 4], normal: Vec3) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&corners);
        self.normals.extend_from_slice(&[normal; 4]);
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    fn disc(&mut self, z: f32, normal_z: f32, segments: u32) {
        let center = self.positions.len() as u32;
        let normal = vec3(0.0, 0.0, normal_z);
        self.positions.push(vec3(0.0, 0.0, z));
        self.normals.push(normal);
        for i in 0..segments {
            let (x, y) = ring_point(i, segments);
            self.positions.push(vec3(x, y, z));
            self.normals.push(normal);
        }
        for i in 0..segments {
            let (a, b) = (center + 1 + i, center + 1 + (i + 1) % segments);
            if normal_z > 0.0 {
                self.indices.extend_from_slice(&[center, a, b]);
            } else {
                self.indices.extend_from_slice(&[center, b, a]);
            }
        }
    }
}

fn ring_point(i: u32, segments: u32) -> (f32, f32) {
    let angle = std::f32::consts::TAU * i as f32 / segments as f32;
    (0.5 * angle.cos(), 0.5 * angle.sin())
}

fn unit_box() -> UnitMesh {
    let mut mesh = UnitMesh::default();
    let (l, h) = (-0.5, 0.5);
    let p = |x: f32, y: f32, z: f32| vec3(x, y, z);
    mesh.quad(
        [p(l, l, 1.0), p(h, l, 1.0), p(h, h, 1.0), p(l, h, 1.0)],
        Vec3::unit_z(),
    );
    mesh.quad(
        [p(l, l, 0.0), p(l, h, 0.0), p(h, h, 0.0), p(h, l, 0.0)],
        -Vec3::unit_z(),
    );
    mesh.quad(
        [p(l, l, 0.0), p(h, l, 0.0), p(h, l, 1.0), p(l, l, 1.0)],
        -Vec3::unit_y(),
    );
    mesh.quad(
        [p(h, h, 0.0), p(l, h, 0.0), p(l, h, 1.0), p(h, h, 1.0)],
        Vec3::unit_y(),
    );
    mesh.quad(
        [p(h, l, 0.0), p(h, h, 0.0), p(h, h, 1.0), p(h, l, 1.0)],
        Vec3::unit_x(),
    );
    mesh.quad(
        [p(l, h, 0.0), p(l, l, 0.0), p(l, l, 1.0), p(l, h, 1.0)],
        -Vec3::unit_x(),
    );
    mesh
}

fn unit_cylinder(segments: u32) -> UnitMesh {
    let mut mesh = UnitMesh::default();
    for i in 0..segments {
        let (x0, y0) = ring_point(i, segments);
        let (x1, y1) = ring_point(i + 1, segments);
        let base = mesh.positions.len() as u32;
        mesh.positions.extend_from_slice(&[
            vec3(x0, y0, 0.0),
            vec3(x1, y1, 0.0),
            vec3(x1, y1, 1.0),
            vec3(x0, y0, 1.0),
        ]);
        let (n0, n1) = (vec3(x0, y0, 0.0).normalize(), vec3(x1, y1, 0.0).normalize());
        mesh.normals.extend_from_slice(&[n0, n1, n1, n0]);
        mesh.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    mesh.disc(1.0, 1.0, segments);
    mesh.disc(0.0, -1.0, segments);
    mesh
}

fn unit_cone(segments: u32) -> UnitMesh {
    let mut mesh = UnitMesh::default();
    // The side normal of a cone of radius 0.5 and height 1 leans up by atan(0.5).
    let slope = 0.5f32;
    for i in 0..segments {
        let (x0, y0) = ring_point(i, segments);
        let (x1, y1) = ring_point(i + 1, segments);
        let (xm, ym) = ring_point(2 * i + 1, 2 * segments);
        let normal =
            |x: f32, y: f32| (vec3(x, y, 0.0).normalize() + vec3(0.0, 0.0, slope)).normalize();
        let base = mesh.positions.len() as u32;
        mesh.positions.extend_from_slice(&[
            vec3(x0, y0, 0.0),
            vec3(x1, y1, 0.0),
            vec3(0.0, 0.0, 1.0),
        ]);
        mesh.normals
            .extend_from_slice(&[normal(x0, y0), normal(x1, y1), normal(xm, ym)]);
        mesh.indices.extend_from_slice(&[base, base + 1, base + 2]);
    }
    mesh.disc(0.0, -1.0, segments);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_meshes_stand_in_the_unit_cell_and_face_outwards() {
        for shape in Shape::ALL {
            let mesh = UnitMesh::of(shape);
            assert_eq!(mesh.positions.len(), mesh.normals.len());
            assert_eq!(mesh.indices.len() % 3, 0);
            for p in &mesh.positions {
                assert!((-0.5..=0.5).contains(&p.x) && (-0.5..=0.5).contains(&p.y));
                assert!((0.0..=1.0).contains(&p.z));
            }
            // Each triangle's winding agrees with its vertex normals (outward faces).
            for triangle in mesh.indices.chunks(3) {
                let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[triangle[k] as usize]);
                let face = (b - a).cross(c - a);
                let normal = mesh.normals[triangle[0] as usize];
                assert!(face.dot(normal) > 0.0, "{shape:?}: {triangle:?}");
            }
        }
    }
}
