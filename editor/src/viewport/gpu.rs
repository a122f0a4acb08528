//! The GPU side of the viewport: three-d objects for each scene layer, drawn inside an egui paint
//! callback on eframe's own GL context.
//!
//! The three-d [`Context`] is built once from the painter's glow context and cached. Each frame the
//! UI hands the callback the layers (shared, immutable data) with their versions; a layer's GPU
//! objects are rebuilt only when its version moved. Lines are drawn as thin instanced beams whose
//! width follows the zoom, so they stay about 1.5 pixels wide.

use std::sync::{Arc, Mutex, PoisonError};

use three_d::{
    AmbientLight, ClearState, ColorMaterial, Context, CpuMaterial, CpuMesh, DirectionalLight, Gm,
    Indices, InnerSpace, InstancedMesh, Instances, Light, Mat4, Mesh, PhysicalMaterial, Positions,
    RenderTarget, ScissorBox, Srgba, Vec3,
};

use super::camera::OrbitCamera;
use super::meshes::{Shape, UnitMesh};
use super::palette;
use super::scene::{Layer, LayerData, Segment};

/// Screen width of overlay lines, pixels.
const LINE_WIDTH_PX: f32 = 1.6;
/// Horizontal lines below this height are drawn as flat ribbons, meters.
const GROUND_LINE_MAX_Z_M: f32 = 0.5;
/// Vertical thickness of those ribbons, meters.
const GROUND_LINE_THICKNESS_M: f32 = 0.004;

/// What one paint callback draws: the camera and the layers.
#[derive(Clone)]
pub struct FrameToDraw {
    /// The camera.
    pub camera: OrbitCamera,
    /// The layers with their versions, in drawing order.
    pub layers: Vec<Layer>,
}

/// The renderer shared between the UI thread's frames and the paint callbacks.
pub type SharedRenderer = Arc<Mutex<Renderer>>;

/// Holds the GPU scene once the first callback has made it.
#[derive(Default)]
pub struct Renderer {
    gpu: Option<GpuScene>,
    /// Why the GPU scene could not be made, if it could not.
    pub failure: Option<String>,
}

/// An egui paint callback that draws `frame` with `renderer` in `rect`.
pub fn paint_callback(
    rect: egui::Rect,
    renderer: SharedRenderer,
    frame: FrameToDraw,
) -> egui::PaintCallback {
    egui::PaintCallback {
        rect,
        callback: Arc::new(egui_glow::CallbackFn::new(move |info, painter| {
            let mut renderer = renderer.lock().unwrap_or_else(PoisonError::into_inner);
            renderer.paint(&info, painter.gl(), &frame);
        })),
    }
}

impl Renderer {
    fn paint(
        &mut self,
        info: &egui::PaintCallbackInfo,
        gl: &Arc<egui_glow::glow::Context>,
        frame: &FrameToDraw,
    ) {
        if self.failure.is_some() {
            return;
        }
        if self.gpu.is_none() {
            match Context::from_gl_context(gl.clone()) {
                Ok(context) => self.gpu = Some(GpuScene::new(context)),
                Err(error) => {
                    self.failure = Some(format!("cannot use the GL context: {error}"));
                    return;
                }
            }
        }
        if let Some(gpu) = &mut self.gpu {
            gpu.draw(info, frame);
        }
    }
}

struct GpuLayer {
    version: u64,
    data: Arc<LayerData>,
    triangles: Option<Gm<Mesh, ColorMaterial>>,
    shapes: [Option<Gm<InstancedMesh, PhysicalMaterial>>; 3],
    lines: Option<Gm<InstancedMesh, ColorMaterial>>,
    line_width_m: f32,
}

struct GpuScene {
    context: Context,
    unit_meshes: [CpuMesh; 3],
    layers: Vec<GpuLayer>,
}

fn cpu_mesh(mesh: &UnitMesh) -> CpuMesh {
    CpuMesh {
        positions: Positions::F32(mesh.positions.clone()),
        normals: Some(mesh.normals.clone()),
        indices: Indices::U32(mesh.indices.clone()),
        ..Default::default()
    }
}

fn instances(transforms: Vec<Mat4>, colours: Vec<Srgba>) -> Instances {
    Instances {
        transformations: transforms,
        texture_transformations: None,
        colors: Some(colours),
    }
}

/// The transform that stretches the unit box into a beam from `a` to `b`, `width_m` thick.
pub fn beam_transform(segment: &Segment, width_m: f32) -> Option<Mat4> {
    let along = segment.b - segment.a;
    if along.magnitude2() < 1e-12 {
        return None;
    }
    let hint = if along.normalize().z.abs() > 0.9 {
        Vec3::unit_x()
    } else {
        Vec3::unit_z()
    };
    let side = along.cross(hint).normalize() * width_m;
    // Lines lying on the ground are flat ribbons, so they never poke through the surfaces a few
    // centimetres above them (the grid under the road, routes on a sidewalk).
    let on_ground = segment.a.z.max(segment.b.z) < GROUND_LINE_MAX_Z_M && along.z.abs() < 1e-3;
    let thickness = if on_ground {
        GROUND_LINE_THICKNESS_M
    } else {
        width_m
    };
    let other = along.cross(side).normalize() * thickness;
    // The unit box is centred on its z axis, which becomes the segment.
    Some(Mat4::from_cols(
        side.extend(0.0),
        other.extend(0.0),
        along.extend(0.0),
        segment.a.extend(1.0),
    ))
}

impl GpuScene {
    fn new(context: Context) -> GpuScene {
        GpuScene {
            unit_meshes: Shape::ALL.map(|shape| cpu_mesh(&UnitMesh::of(shape))),
            context,
            layers: Vec::new(),
        }
    }

    fn shape_material(&self) -> PhysicalMaterial {
        let mut material = PhysicalMaterial::new_opaque(
            &self.context,
            &CpuMaterial {
                albedo: Srgba::WHITE,
                roughness: 0.85,
                metallic: 0.0,
                ..Default::default()
            },
        );
        material.render_states.cull = three_d::Cull::Back;
        material
    }

    fn flat_material(&self) -> ColorMaterial {
        ColorMaterial::new_opaque(
            &self.context,
            &CpuMaterial {
                albedo: Srgba::WHITE,
                ..Default::default()
            },
        )
    }

    fn translucent_material(&self) -> ColorMaterial {
        ColorMaterial::new_transparent(
            &self.context,
            &CpuMaterial {
                albedo: Srgba::WHITE,
                ..Default::default()
            },
        )
    }

    /// Brings the GPU objects of every layer up to date with `layers`.
    fn sync(&mut self, layers: &[Layer], line_width_m: f32) {
        self.layers.truncate(layers.len());
        for (index, layer) in layers.iter().enumerate() {
            if index == self.layers.len() {
                self.layers.push(GpuLayer {
                    version: u64::MAX,
                    data: Arc::new(LayerData::default()),
                    triangles: None,
                    shapes: [None, None, None],
                    lines: None,
                    line_width_m: 0.0,
                });
            }
            if self.layers[index].version != layer.version {
                self.upload(index, layer);
            }
            let gpu = &self.layers[index];
            let ratio = gpu.line_width_m / line_width_m;
            if !gpu.data.lines.is_empty() && !(0.8..=1.25).contains(&ratio) {
                self.upload_lines(index, line_width_m);
            }
        }
    }

    fn upload(&mut self, index: usize, layer: &Layer) {
        let data = Arc::clone(&layer.data);
        let triangles = (!data.triangles.is_empty()).then(|| {
            let mesh = CpuMesh {
                positions: Positions::F32(data.triangles.iter().map(|(p, _)| *p).collect()),
                colors: Some(data.triangles.iter().map(|(_, c)| *c).collect()),
                ..Default::default()
            };
            // A layer with translucent triangles (the heatmap) blends over what is under it,
            // drawn after the opaque ones and writing no depth.
            let translucent = data.triangles.iter().any(|(_, c)| c.a < 255);
            let material = if translucent {
                self.translucent_material()
            } else {
                self.flat_material()
            };
            Gm::new(Mesh::new(&self.context, &mesh), material)
        });
        let mut shapes: [Option<Gm<InstancedMesh, PhysicalMaterial>>; 3] = [None, None, None];
        for shape in Shape::ALL {
            let batch = &data.shapes[shape.index()];
            if batch.is_empty() {
                continue;
            }
            let instances = instances(batch.transforms.clone(), batch.colours.clone());
            // Reuse the buffers of the previous upload when there is one.
            let previous = self.layers[index].shapes[shape.index()].take();
            shapes[shape.index()] = Some(match previous {
                Some(mut gm) => {
                    gm.geometry.set_instances(&instances);
                    gm
                }
                None => Gm::new(
                    InstancedMesh::new(&self.context, &instances, &self.unit_meshes[shape.index()]),
                    self.shape_material(),
                ),
            });
        }
        let gpu = &mut self.layers[index];
        gpu.version = layer.version;
        gpu.data = data;
        gpu.triangles = triangles;
        gpu.shapes = shapes;
        let width = gpu.line_width_m.max(0.01);
        self.upload_lines(index, width);
    }

    fn upload_lines(&mut self, index: usize, width_m: f32) {
        let data = Arc::clone(&self.layers[index].data);
        let mut transforms = Vec::with_capacity(data.lines.len());
        let mut colours = Vec::with_capacity(data.lines.len());
        for segment in &data.lines {
            if let Some(transform) = beam_transform(segment, width_m) {
                transforms.push(transform);
                colours.push(segment.colour);
            }
        }
        let lines = (!transforms.is_empty()).then(|| {
            let instances = instances(transforms, colours);
            Gm::new(
                InstancedMesh::new(
                    &self.context,
                    &instances,
                    &self.unit_meshes[Shape::Box.index()],
                ),
                self.flat_material(),
            )
        });
        let gpu = &mut self.layers[index];
        gpu.lines = lines;
        gpu.line_width_m = width_m;
    }

    fn draw(&mut self, info: &egui::PaintCallbackInfo, frame: &FrameToDraw) {
        let viewport_px = info.viewport_in_pixels();
        let clip_px = info.clip_rect_in_pixels();
        if viewport_px.width_px <= 0 || viewport_px.height_px <= 0 {
            return;
        }
        let viewport = three_d::Viewport {
            x: viewport_px.left_px,
            y: viewport_px.from_bottom_px,
            width: viewport_px.width_px as u32,
            height: viewport_px.height_px as u32,
        };
        // Draw (and clear) only where the viewport and the clip rectangle overlap: the clip
        // rectangle alone may cover the tab's toolbar.
        let left = viewport_px.left_px.max(clip_px.left_px);
        let bottom = viewport_px.from_bottom_px.max(clip_px.from_bottom_px);
        let right =
            (viewport_px.left_px + viewport_px.width_px).min(clip_px.left_px + clip_px.width_px);
        let top = (viewport_px.from_bottom_px + viewport_px.height_px)
            .min(clip_px.from_bottom_px + clip_px.height_px);
        if right <= left || top <= bottom {
            return;
        }
        let scissor = ScissorBox {
            x: left,
            y: bottom,
            width: (right - left) as u32,
            height: (top - bottom) as u32,
        };
        let meters_per_pixel = frame.camera.view_height_m() / viewport.height as f32;
        self.sync(&frame.layers, LINE_WIDTH_PX * meters_per_pixel);

        let camera = frame.camera.three_d_camera(viewport);
        let [screen_w, screen_h] = info.screen_size_px;
        let target = RenderTarget::screen(&self.context, screen_w, screen_h);
        let background = palette::BACKGROUND;
        target.clear_partially(
            scissor,
            ClearState::color_and_depth(
                f32::from(background.r) / 255.0,
                f32::from(background.g) / 255.0,
                f32::from(background.b) / 255.0,
                1.0,
                1.0,
            ),
        );
        let ambient = AmbientLight::new(&self.context, 0.55, Srgba::WHITE);
        let sun = DirectionalLight::new(
            &self.context,
            2.2,
            Srgba::WHITE,
            three_d::vec3(-0.45, -0.3, -1.0),
        );
        let lights: [&dyn Light; 2] = [&ambient, &sun];
        let mut flat: Vec<&dyn three_d::Object> = Vec::new();
        let mut lit: Vec<&dyn three_d::Object> = Vec::new();
        for layer in &self.layers {
            if let Some(triangles) = &layer.triangles {
                flat.push(triangles);
            }
            if let Some(lines) = &layer.lines {
                flat.push(lines);
            }
            for shape in layer.shapes.iter().flatten() {
                lit.push(shape);
            }
        }
        target.render_partially(scissor, &camera, flat, &[]);
        target.render_partially(scissor, &camera, lit, &lights);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use three_d::{vec3, vec4};

    #[test]
    fn beams_run_from_a_to_b_and_are_centred_on_the_segment() {
        let segment = Segment {
            a: vec3(1.0, 2.0, 1.0),
            b: vec3(4.0, 6.0, 1.0),
            colour: Srgba::WHITE,
        };
        let transform = beam_transform(&segment, 0.1).expect("not degenerate");
        // The unit box's bottom and top centres map to the segment's ends.
        let start = (transform * vec4(0.0, 0.0, 0.0, 1.0)).truncate();
        let end = (transform * vec4(0.0, 0.0, 1.0, 1.0)).truncate();
        assert!((start - segment.a).magnitude() < 1e-5);
        assert!((end - segment.b).magnitude() < 1e-5);
        // Its corners lie half a width from the axis.
        let corner = (transform * vec4(0.5, 0.5, 0.0, 1.0)).truncate();
        assert!(((corner - start).magnitude() - 0.1 * 0.5f32.sqrt()).abs() < 1e-5);
        // On the ground the beam is a flat ribbon: wide across, thin vertically.
        let ground = Segment {
            a: vec3(1.0, 2.0, 0.0),
            b: vec3(4.0, 6.0, 0.0),
            colour: Srgba::WHITE,
        };
        let ribbon = beam_transform(&ground, 0.1).expect("not degenerate");
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
            .map(|(x, y)| (ribbon * vec4(x, y, 0.0, 1.0)).truncate());
        assert!(corners.iter().all(|c| c.z.abs() <= GROUND_LINE_THICKNESS_M));
        assert!((corners[0] - corners[2]).magnitude() > 0.09);
        let vertical = Segment {
            a: vec3(0.0, 0.0, 0.0),
            b: vec3(0.0, 0.0, 3.0),
            colour: Srgba::WHITE,
        };
        assert!(beam_transform(&vertical, 0.1).is_some());
        let point = Segment {
            b: segment.a,
            ..segment
        };
        assert_eq!(beam_transform(&point, 0.1), None);
    }
}
