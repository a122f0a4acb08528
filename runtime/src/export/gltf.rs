//! The glTF 2.0 binary (`.glb`) of an [`ExportScene`], built with the `gltf-json` document model
//! and the `gltf` crate's GLB container: one node per instance group (recipe, stage, variant)
//! drawing the variant's preview mesh with `EXT_mesh_gpu_instancing` (`TRANSLATION`,
//! `ROTATION`, `SCALE` and `_ID` per instance, each standing on the surface under it), one node
//! per street surface kind, and empty nodes for mission layouts and streaming plans
//! ([`layout_nodes`]), all under one root node; Y up, metres.
//!
//! Provenance rides in node extras: a group's `recipe`, `stage`, `family`, `variant` and `ids`
//! (each instance's persistent identity in hex, in instance order); `_ID` is the instance's
//! index into `ids` (a feature id, so it survives tools that reorder instances). Everything is
//! written in a fixed order, so the same scene gives the same bytes.

use std::collections::BTreeMap;

use gltf::binary::{Glb, Header};
use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::buffer::{Target, View};
use gltf::json::extensions::scene::Node as NodeExtensions;
use gltf::json::material::{PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor};
use gltf::json::mesh::{Mode, Primitive, Semantic};
use gltf::json::validation::{Checked::Valid, USize64};
use gltf::json::{Accessor, Asset, Buffer, Index, Material, Mesh as JsonMesh, Node, Root, Scene};
use serde_json::value::RawValue;
use serde_json::{json, Value};

mod layout_nodes;

use super::mesh::{surface_mesh, variant_mesh, Mesh};
use super::scene::{ExportScene, InstanceGroup};
use super::{identity_hex, linear, surface_colour, y_up, yaw_quaternion, ExportError};

/// The instancing extension's name.
pub const EXT_INSTANCING: &str = "EXT_mesh_gpu_instancing";

/// The generator string written into `asset.generator`.
pub const GENERATOR: &str = concat!("Stagecraft ", env!("CARGO_PKG_VERSION"));

/// The `.glb` bytes of `scene`.
pub fn to_glb(scene: &ExportScene) -> Result<Vec<u8>, ExportError> {
    let mut doc = Document::default();
    let mut children = Vec::new();
    let mut meshes: BTreeMap<(&str, &str), Index<JsonMesh>> = BTreeMap::new();
    for group in &scene.groups {
        let key = (group.family.as_str(), group.variant.as_str());
        let mesh = match meshes.get(&key) {
            Some(mesh) => *mesh,
            None => {
                let name = format!("{}/{}", group.family, group.variant);
                let mesh = doc.mesh(&name, &variant_mesh(&group.look), group.look.colour);
                *meshes.entry(key).or_insert(mesh)
            }
        };
        children.push(doc.instanced_node(group, mesh)?);
    }
    for surfaces in &scene.surfaces {
        let kind = surfaces.kind.name();
        let name = format!("{}.{}.{kind}", surfaces.recipe, surfaces.stage);
        let mesh = doc.mesh(&name, &surface_mesh(surfaces), surface_colour(kind));
        let ids: Vec<&str> = surfaces
            .polygons
            .iter()
            .map(|(id, _)| id.as_str())
            .collect();
        let extras =
            json!({"recipe": surfaces.recipe, "stage": surfaces.stage, "kind": kind, "ids": ids});
        let node = Node {
            mesh: Some(mesh),
            name: Some(name),
            extras: Some(raw(&extras)?),
            ..Node::default()
        };
        children.push(doc.root.push(node));
    }
    for mission in &scene.missions {
        children.push(layout_nodes::mission_node(&mut doc, mission)?);
    }
    for plan in &scene.streaming {
        children.push(layout_nodes::streaming_node(&mut doc, plan)?);
    }
    let root_extras = json!({
        "project": scene.project,
        "bundle_digest": scene.bundle_digest,
        "frame": "metres, Y up; Stagecraft's (x, y, z) with Z up is written (x, z, -y)",
    });
    let top = doc.root.push(Node {
        children: (!children.is_empty()).then_some(children),
        name: Some(scene.project.clone()),
        extras: Some(raw(&root_extras)?),
        ..Node::default()
    });
    let scene_index = doc.root.push(Scene {
        extensions: None,
        extras: None,
        name: Some(scene.project.clone()),
        nodes: vec![top],
    });
    doc.root.scene = Some(scene_index);
    doc.finish()
}

fn raw(value: &Value) -> Result<Box<RawValue>, ExportError> {
    serde_json::value::to_raw_value(value).map_err(|e| ExportError::Json(e.to_string()))
}

fn le_bytes<const N: usize, T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * N);
    for v in values {
        out.extend_from_slice(&bytes(*v));
    }
    out
}

fn vec3_bytes(values: &[[f32; 3]]) -> Vec<u8> {
    let flat: Vec<f32> = values.iter().flatten().copied().collect();
    le_bytes(&flat, f32::to_le_bytes)
}

/// A document being built with its binary chunk.
#[derive(Default)]
struct Document {
    root: Root,
    bin: Vec<u8>,
}

impl Document {
    /// A buffer view over `bytes` (appended to the binary chunk, 4-byte aligned).
    fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<View> {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let padded = self.bin.len().next_multiple_of(4);
        self.bin.resize(padded, 0);
        self.root.push(View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    /// An accessor of `count` elements of `type_` over a new view of `bytes`.
    fn accessor(
        &mut self,
        bytes: &[u8],
        (count, component, type_): (usize, ComponentType, Type),
        target: Option<Target>,
        bounds: Option<(Value, Value)>,
    ) -> Index<Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = bounds.unzip();
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A mesh of one primitive with its own material.
    fn mesh(&mut self, name: &str, mesh: &Mesh, colour: [u8; 3]) -> Index<JsonMesh> {
        let (min, max) = mesh.bounds();
        let vertices = mesh.positions.len();
        let array = Some(Target::ArrayBuffer);
        let vec3 = (vertices, ComponentType::F32, Type::Vec3);
        let bounds = Some((json!(min), json!(max)));
        let positions = self.accessor(&vec3_bytes(&mesh.positions), vec3, array, bounds);
        let normals = self.accessor(&vec3_bytes(&mesh.normals), vec3, array, None);
        let count = mesh.indices.len();
        let element = Some(Target::ElementArrayBuffer);
        let indices = if vertices <= usize::from(u16::MAX) {
            let short: Vec<u16> = mesh.indices.iter().map(|i| *i as u16).collect();
            let bytes = le_bytes(&short, u16::to_le_bytes);
            self.accessor(
                &bytes,
                (count, ComponentType::U16, Type::Scalar),
                element,
                None,
            )
        } else {
            let bytes = le_bytes(&mesh.indices, u32::to_le_bytes);
            self.accessor(
                &bytes,
                (count, ComponentType::U32, Type::Scalar),
                element,
                None,
            )
        };
        let [r, g, b] = colour.map(linear);
        let material = self.root.push(Material {
            name: Some(name.to_owned()),
            pbr_metallic_roughness: PbrMetallicRoughness {
                base_color_factor: PbrBaseColorFactor([r, g, b, 1.0]),
                metallic_factor: StrengthFactor(0.0),
                roughness_factor: StrengthFactor(0.9),
                ..PbrMetallicRoughness::default()
            },
            ..Material::default()
        });
        let attributes = BTreeMap::from([
            (Valid(Semantic::Positions), positions),
            (Valid(Semantic::Normals), normals),
        ]);
        self.root.push(JsonMesh {
            extensions: None,
            extras: None,
            name: Some(name.to_owned()),
            primitives: vec![Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(indices),
                material: Some(material),
                mode: Valid(Mode::Triangles),
                targets: None,
            }],
            weights: None,
        })
    }

    /// The node of `group`: its mesh instanced at every placement.
    fn instanced_node(
        &mut self,
        group: &InstanceGroup,
        mesh: Index<JsonMesh>,
    ) -> Result<Index<Node>, ExportError> {
        let n = group.instances.len();
        let mut translation = Vec::with_capacity(n);
        let mut rotation = Vec::with_capacity(n * 4);
        let mut scale = Vec::with_capacity(n);
        let mut hex = Vec::with_capacity(n);
        for instance in &group.instances {
            translation.push(y_up([
                instance.x_m as f32,
                instance.y_m as f32,
                instance.z_m as f32,
            ]));
            rotation.extend(yaw_quaternion(instance.rotation_rad()));
            let s = instance.scale as f32;
            scale.push([s, s, s]);
            hex.push(Value::String(identity_hex(instance.id)));
        }
        let ordinals: Vec<u32> = (0..n as u32).collect();
        let columns = [
            (
                "TRANSLATION",
                vec3_bytes(&translation),
                Type::Vec3,
                ComponentType::F32,
            ),
            (
                "ROTATION",
                le_bytes(&rotation, f32::to_le_bytes),
                Type::Vec4,
                ComponentType::F32,
            ),
            ("SCALE", vec3_bytes(&scale), Type::Vec3, ComponentType::F32),
            (
                "_ID",
                le_bytes(&ordinals, u32::to_le_bytes),
                Type::Scalar,
                ComponentType::U32,
            ),
        ];
        let mut attributes = serde_json::Map::new();
        for (name, bytes, type_, component) in columns {
            let accessor = self.accessor(&bytes, (n, component, type_), None, None);
            attributes.insert(name.to_owned(), json!(accessor.value()));
        }
        let mut extensions = NodeExtensions::default();
        extensions.others.insert(
            EXT_INSTANCING.to_owned(),
            json!({ "attributes": attributes }),
        );
        let extras = json!({
            "recipe": group.recipe,
            "stage": group.stage,
            "family": group.family,
            "variant": group.variant,
            "look_known": group.look_known,
            "ids": Value::Array(hex),
        });
        let name = format!(
            "{}.{}.{}.{}",
            group.recipe, group.stage, group.family, group.variant
        );
        Ok(self.root.push(Node {
            mesh: Some(mesh),
            name: Some(name),
            extensions: Some(extensions),
            extras: Some(raw(&extras)?),
            ..Node::default()
        }))
    }

    /// The document and its binary chunk as `.glb` bytes.
    fn finish(mut self) -> Result<Vec<u8>, ExportError> {
        if self.root.nodes.iter().any(|n| n.extensions.is_some()) {
            self.root.extensions_used.push(EXT_INSTANCING.to_owned());
        }
        self.root.asset = Asset {
            generator: Some(GENERATOR.to_owned()),
            ..Asset::default()
        };
        if !self.bin.is_empty() {
            self.root.buffers.push(Buffer {
                byte_length: USize64::from(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        let json = self
            .root
            .to_vec()
            .map_err(|e| ExportError::Json(e.to_string()))?;
        let total = 12 + 8 + json.len() + 3 + 8 + self.bin.len();
        if total > u32::MAX as usize {
            return Err(ExportError::TooLarge {
                format: "glTF binary",
                what: "the file",
                size: total as u64,
                limit: u64::from(u32::MAX),
            });
        }
        let glb = Glb {
            header: Header {
                magic: *b"glTF",
                version: 2,
                length: 0,
            },
            json: json.into(),
            bin: (!self.bin.is_empty()).then(|| self.bin.into()),
        };
        glb.to_vec().map_err(|e| ExportError::Json(e.to_string()))
    }
}
