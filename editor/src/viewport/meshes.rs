//! Unit meshes of the preview shapes, as plain vertex data (no GL): the runtime's shared shapes
//! (`runtime::export::shapes`) in the viewport's vector type.
//!
//! Every shape stands on the ground: it spans `[-0.5, 0.5]` in x and y and `[0, 1]` in z, so an
//! instance transform is translate · rotate-about-z · scale(width, depth, height).

use three_d::{vec3, Vec3};

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

impl UnitMesh {
    /// The unit mesh of `shape`: the runtime's (`runtime::export::shapes`, shared with the
    /// exports), as the viewport's vectors.
    pub fn of(shape: Shape) -> UnitMesh {
        use stagecraft_runtime::project::PreviewShape;
        let preview = match shape {
            Shape::Box => PreviewShape::Box,
            Shape::Cylinder => PreviewShape::Cylinder,
            Shape::Cone => PreviewShape::Cone,
        };
        let mesh = stagecraft_runtime::export::shapes::UnitMesh::of(preview);
        let vectors = |list: &[[f32; 3]]| list.iter().map(|v| vec3(v[0], v[1], v[2])).collect();
        UnitMesh {
            positions: vectors(&mesh.positions),
            normals: vectors(&mesh.normals),
            indices: mesh.indices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use three_d::InnerSpace;

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
