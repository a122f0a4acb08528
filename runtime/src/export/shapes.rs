//! Unit meshes of the preview shapes (box, cylinder, cone) as plain vertex data, shared by the
//! exports and the editor's viewport.
//!
//! Every shape stands on the ground in Stagecraft's Z-up frame: it spans `[-0.5, 0.5]` in x and y
//! and `[0, 1]` in z, so an instance transform is translate · rotate-about-z · scale(width, depth,
//! height). Triangles are counter-clockwise seen from outside, with per-vertex unit normals.

use crate::project::PreviewShape;

/// A vector of three `f32`s (x, y, z).
pub type Vec3f = [f32; 3];

/// Triangles with per-vertex normals, indexed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitMesh {
    /// Vertex positions.
    pub positions: Vec<Vec3f>,
    /// Unit normals, one per position.
    pub normals: Vec<Vec3f>,
    /// Three indices per triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

/// Segments around the circle of round shapes.
pub const ROUND_SEGMENTS: u32 = 16;

fn add(a: Vec3f, b: Vec3f) -> Vec3f {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `v` scaled to unit length, computed as `v · (1 / |v|)` with `|v| = √(x² + y² + z²)` summed
/// in that order (the viewport's vector library does the same, so meshes are bit-identical).
pub fn normalize(v: Vec3f) -> Vec3f {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let k = 1.0 / length;
    [v[0] * k, v[1] * k, v[2] * k]
}

impl UnitMesh {
    /// The unit mesh of `shape`.
    pub fn of(shape: PreviewShape) -> UnitMesh {
        match shape {
            PreviewShape::Box => unit_box(),
            PreviewShape::Cylinder => unit_cylinder(ROUND_SEGMENTS),
            PreviewShape::Cone => unit_cone(ROUND_SEGMENTS),
        }
    }

    fn quad(&mut self, corners: [Vec3f; 4], normal: Vec3f) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&corners);
        self.normals.extend_from_slice(&[normal; 4]);
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    fn disc(&mut self, z: f32, normal_z: f32, segments: u32) {
        let center = self.positions.len() as u32;
        let normal = [0.0, 0.0, normal_z];
        self.positions.push([0.0, 0.0, z]);
        self.normals.push(normal);
        for i in 0..segments {
            let (x, y) = ring_point(i, segments);
            self.positions.push([x, y, z]);
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
    let p = |x: f32, y: f32, z: f32| [x, y, z];
    mesh.quad(
        [p(l, l, 1.0), p(h, l, 1.0), p(h, h, 1.0), p(l, h, 1.0)],
        [0.0, 0.0, 1.0],
    );
    mesh.quad(
        [p(l, l, 0.0), p(l, h, 0.0), p(h, h, 0.0), p(h, l, 0.0)],
        [0.0, 0.0, -1.0],
    );
    mesh.quad(
        [p(l, l, 0.0), p(h, l, 0.0), p(h, l, 1.0), p(l, l, 1.0)],
        [0.0, -1.0, 0.0],
    );
    mesh.quad(
        [p(h, h, 0.0), p(l, h, 0.0), p(l, h, 1.0), p(h, h, 1.0)],
        [0.0, 1.0, 0.0],
    );
    mesh.quad(
        [p(h, l, 0.0), p(h, h, 0.0), p(h, h, 1.0), p(h, l, 1.0)],
        [1.0, 0.0, 0.0],
    );
    mesh.quad(
        [p(l, h, 0.0), p(l, l, 0.0), p(l, l, 1.0), p(l, h, 1.0)],
        [-1.0, 0.0, 0.0],
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
            [x0, y0, 0.0],
            [x1, y1, 0.0],
            [x1, y1, 1.0],
            [x0, y0, 1.0],
        ]);
        let (n0, n1) = (normalize([x0, y0, 0.0]), normalize([x1, y1, 0.0]));
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
        let normal = |x: f32, y: f32| normalize(add(normalize([x, y, 0.0]), [0.0, 0.0, slope]));
        let base = mesh.positions.len() as u32;
        mesh.positions
            .extend_from_slice(&[[x0, y0, 0.0], [x1, y1, 0.0], [0.0, 0.0, 1.0]]);
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

    const ALL: [PreviewShape; 3] = [
        PreviewShape::Box,
        PreviewShape::Cylinder,
        PreviewShape::Cone,
    ];

    fn sub(a: Vec3f, b: Vec3f) -> Vec3f {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    fn cross(a: Vec3f, b: Vec3f) -> Vec3f {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[test]
    fn unit_meshes_stand_in_the_unit_cell_and_face_outwards() {
        let counts: Vec<(usize, usize)> = ALL
            .iter()
            .map(|s| {
                let m = UnitMesh::of(*s);
                (m.positions.len(), m.indices.len() / 3)
            })
            .collect();
        // Box: 6 quads; cylinder: 16 side quads + 2 discs of 17; cone: 16 sides + 1 disc.
        assert_eq!(counts, vec![(24, 12), (16 * 4 + 34, 64), (16 * 3 + 17, 32)]);
        for shape in ALL {
            let mesh = UnitMesh::of(shape);
            assert_eq!(mesh.positions.len(), mesh.normals.len());
            for p in &mesh.positions {
                assert!((-0.5..=0.5).contains(&p[0]) && (-0.5..=0.5).contains(&p[1]));
                assert!((0.0..=1.0).contains(&p[2]));
            }
            for n in &mesh.normals {
                let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                assert!((length - 1.0).abs() < 1e-6, "{shape:?}: {n:?}");
            }
            for triangle in mesh.indices.chunks(3) {
                let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[triangle[k] as usize]);
                let face = cross(sub(b, a), sub(c, a));
                let n = mesh.normals[triangle[0] as usize];
                let dot = face[0] * n[0] + face[1] * n[1] + face[2] * n[2];
                assert!(dot > 0.0, "{shape:?}: {triangle:?}");
            }
        }
    }
}
