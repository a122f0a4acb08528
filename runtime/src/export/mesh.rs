//! Meshes of an export in the engines' frame (Y up, metres): a variant's preview shape at its
//! size, and a street block's paved surfaces as flat triangulated polygons.

use super::scene::{Look, SurfaceGroup};
use super::shapes::{normalize, UnitMesh, Vec3f};
use super::y_up;

/// Indexed triangles with per-vertex normals, Y up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions, metres.
    pub positions: Vec<Vec3f>,
    /// Unit normals, one per position.
    pub normals: Vec<Vec3f>,
    /// Three indices per triangle, counter-clockwise seen from the front.
    pub indices: Vec<u32>,
}

impl Mesh {
    /// The component-wise minimum and maximum of the positions (zeros for no positions).
    pub fn bounds(&self) -> (Vec3f, Vec3f) {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            min = [0, 1, 2].map(|k| min[k].min(p[k]));
            max = [0, 1, 2].map(|k| max[k].max(p[k]));
        }
        if self.positions.is_empty() {
            return ([0.0; 3], [0.0; 3]);
        }
        (min, max)
    }
}

/// The preview shape of `look` at its size (2·radius wide and deep, height high, at least
/// [`Look::MIN_SIZE_M`] each), standing on the ground at the origin, Y up.
pub fn variant_mesh(look: &Look) -> Mesh {
    let unit = UnitMesh::of(look.shape);
    let width = (2.0 * look.radius_m.max(Look::MIN_SIZE_M)) as f32;
    let height = look.height_m.max(Look::MIN_SIZE_M) as f32;
    let size = [width, width, height];
    let positions = unit
        .positions
        .iter()
        .map(|p| y_up([p[0] * size[0], p[1] * size[1], p[2] * size[2]]))
        .collect();
    // Normals transform by the inverse transpose of the scale.
    let normals = unit
        .normals
        .iter()
        .map(|n| y_up(normalize([n[0] / size[0], n[1] / size[1], n[2] / size[2]])))
        .collect();
    Mesh {
        positions,
        normals,
        indices: unit.indices,
    }
}

/// The surfaces of `group` as flat polygons at the kind's height, facing up, each outline
/// triangulated as a fan (the street block's outlines are convex); a clockwise outline is
/// reversed first.
pub fn surface_mesh(group: &SurfaceGroup) -> Mesh {
    let z = group.height_m();
    let mut mesh = Mesh::default();
    for (_, outline) in &group.polygons {
        let twice_area: f64 = outline
            .iter()
            .zip(outline.iter().cycle().skip(1))
            .map(|(a, b)| a.x * b.y - b.x * a.y)
            .sum();
        let base = mesh.positions.len() as u32;
        let mut corners: Vec<Vec3f> = outline
            .iter()
            .map(|p| y_up([p.x as f32, p.y as f32, z as f32]))
            .collect();
        if twice_area < 0.0 {
            corners.reverse();
        }
        for k in 1..corners.len().saturating_sub(1) as u32 {
            mesh.indices
                .extend_from_slice(&[base, base + k, base + k + 1]);
        }
        mesh.normals
            .extend(corners.iter().map(|_| y_up([0.0, 0.0, 1.0])));
        mesh.positions.extend(corners);
    }
    mesh
}
