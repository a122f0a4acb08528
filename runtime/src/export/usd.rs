//! The USD ASCII layer (`.usda`) of an [`ExportScene`]: under `/World`, one `PointInstancer` per
//! (recipe, stage, family) with one prototype `Mesh` per variant, and the street surfaces as
//! `Mesh`es under `/World/Street`; Y up, metres (`upAxis = "Y"`, `metersPerUnit = 1`).
//!
//! Each instance carries its persistent identity twice: `ids` (int64, the packed identity's bits)
//! and the primvar `stagecraft:identity` (hex, as every Stagecraft output renders it); the
//! primvars `stagecraft:recipe`, `stagecraft:stage`, `stagecraft:family` (constant) and
//! `stagecraft:variant` (per instance) give the rest of its provenance. USD has no crate worth
//! the name in Rust, so the text is written here; names are made valid prim names and unique.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::mesh::{surface_mesh, variant_mesh, Mesh};
use super::scene::{ExportScene, InstanceGroup};
use super::{identity_hex, linear, surface_colour, y_up, yaw_quaternion};

/// The `.usda` text of `scene`.
pub fn to_usda(scene: &ExportScene) -> String {
    let mut out = String::new();
    let doc = format!(
        "Stagecraft export of {}, bundle {}. Metres, Y up: Stagecraft's (x, y, z) with Z up is \
         written (x, z, -y).",
        scene.project, scene.bundle_digest
    );
    let _ = writeln!(out, "#usda 1.0\n(");
    let _ = writeln!(
        out,
        "    defaultPrim = \"World\"\n    doc = {}",
        quoted(&doc)
    );
    let _ = writeln!(out, "    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n");
    let _ = writeln!(out, "def Xform \"World\"\n{{");
    let mut names = Names::default();
    if !scene.surfaces.is_empty() {
        let _ = writeln!(out, "    def Xform \"Street\"\n    {{");
        let mut surface_names = Names::default();
        for surfaces in &scene.surfaces {
            let kind = surfaces.kind.name();
            let name =
                surface_names.unique(&format!("{}_{}_{kind}", surfaces.recipe, surfaces.stage));
            write_mesh(
                &mut out,
                2,
                &name,
                &surface_mesh(surfaces),
                surface_colour(kind),
            );
        }
        let _ = writeln!(out, "    }}");
        names.unique("Street");
    }
    for family_groups in scene
        .groups
        .chunk_by(|a, b| (&a.recipe, a.stage, &a.family) == (&b.recipe, b.stage, &b.family))
    {
        let first = &family_groups[0];
        let name = names.unique(&format!(
            "{}_{}_{}",
            first.recipe, first.stage, first.family
        ));
        write_instancer(&mut out, &name, family_groups);
    }
    let _ = writeln!(out, "}}");
    out
}

/// Valid, unique prim names among siblings.
#[derive(Default)]
struct Names(BTreeSet<String>);

impl Names {
    /// `text` as a prim name (`[A-Za-z_][A-Za-z0-9_]*`, other characters as `_`), made unique
    /// among the names given so far with a `_2`, `_3`, … suffix.
    fn unique(&mut self, text: &str) -> String {
        let mut base: String = text
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            base.insert(0, '_');
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.0.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.0.insert(name.clone());
        name
    }
}

/// A USD string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32 & 0xff);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `[item, item, …]` of `items` written by `each`.
fn list<T>(out: &mut String, items: impl Iterator<Item = T>, mut each: impl FnMut(&mut String, T)) {
    out.push('[');
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        each(out, item);
    }
    out.push(']');
}

fn vec3(out: &mut String, v: [f32; 3]) {
    let _ = write!(out, "({}, {}, {})", v[0], v[1], v[2]);
}

fn write_mesh(out: &mut String, depth: usize, name: &str, mesh: &Mesh, colour: [u8; 3]) {
    let pad = "    ".repeat(depth);
    let _ = writeln!(out, "{pad}def Mesh \"{name}\"\n{pad}{{");
    let (min, max) = mesh.bounds();
    let _ = write!(out, "{pad}    float3[] extent = ");
    list(out, [min, max].into_iter(), vec3);
    let _ = write!(out, "\n{pad}    int[] faceVertexCounts = ");
    list(out, mesh.indices.chunks(3), |o, _| o.push('3'));
    let _ = write!(out, "\n{pad}    int[] faceVertexIndices = ");
    list(out, mesh.indices.iter(), |o, i| {
        let _ = write!(o, "{i}");
    });
    let _ = write!(out, "\n{pad}    normal3f[] normals = ");
    list(out, mesh.normals.iter(), |o, n| vec3(o, *n));
    let _ = write!(
        out,
        " (\n{pad}        interpolation = \"vertex\"\n{pad}    )"
    );
    let _ = write!(out, "\n{pad}    point3f[] points = ");
    list(out, mesh.positions.iter(), |o, p| vec3(o, *p));
    let _ = write!(out, "\n{pad}    color3f[] primvars:displayColor = ");
    list(out, [colour.map(linear)].into_iter(), vec3);
    let _ = writeln!(
        out,
        "\n{pad}    uniform token subdivisionScheme = \"none\"\n{pad}}}"
    );
}

/// One `PointInstancer` over the groups of one (recipe, stage, family), prototypes by variant.
fn write_instancer(out: &mut String, name: &str, groups: &[InstanceGroup]) {
    let first = &groups[0];
    let path = format!("/World/{name}/Prototypes");
    let mut proto_names = Names::default();
    let protos: Vec<String> = groups
        .iter()
        .map(|g| proto_names.unique(&g.variant))
        .collect();
    let instances = || {
        groups
            .iter()
            .enumerate()
            .flat_map(|(k, g)| g.instances.iter().map(move |i| (k, g, i)))
    };
    let _ = writeln!(out, "    def PointInstancer \"{name}\"\n    {{");
    let _ = write!(out, "        int64[] ids = ");
    list(out, instances(), |o, (_, _, i)| {
        let _ = write!(o, "{}", i.id.bits() as i64);
    });
    let _ = write!(out, "\n        quath[] orientations = ");
    list(out, instances(), |o, (_, _, i)| {
        let [x, y, z, w] = yaw_quaternion(i.rotation_rad());
        let _ = write!(o, "({w}, {x}, {y}, {z})");
    });
    let _ = write!(out, "\n        point3f[] positions = ");
    list(out, instances(), |o, (_, _, i)| {
        vec3(o, y_up([i.x_m as f32, i.y_m as f32, i.z_m as f32]))
    });
    let _ = write!(out, "\n        int[] protoIndices = ");
    list(out, instances(), |o, (k, _, _)| {
        let _ = write!(o, "{k}");
    });
    let _ = write!(out, "\n        rel prototypes = ");
    list(out, protos.iter(), |o, p| {
        let _ = write!(o, "<{path}/{p}>");
    });
    let _ = write!(out, "\n        float3[] scales = ");
    list(out, instances(), |o, (_, _, i)| {
        let s = i.scale as f32;
        vec3(o, [s, s, s])
    });
    let _ = write!(out, "\n        string[] primvars:stagecraft:identity = ");
    list(out, instances(), |o, (_, _, i)| {
        o.push_str(&quoted(&identity_hex(i.id)))
    });
    let vertex = "(\n            interpolation = \"vertex\"\n        )";
    let constant = "(\n            interpolation = \"constant\"\n        )";
    let _ = write!(
        out,
        " {vertex}\n        string[] primvars:stagecraft:variant = "
    );
    list(out, instances(), |o, (_, g, _)| {
        o.push_str(&quoted(&g.variant))
    });
    let _ = writeln!(out, " {vertex}");
    let _ = writeln!(
        out,
        "        string primvars:stagecraft:recipe = {} {constant}",
        quoted(&first.recipe)
    );
    let _ = writeln!(
        out,
        "        int primvars:stagecraft:stage = {} {constant}",
        first.stage
    );
    let _ = writeln!(
        out,
        "        string primvars:stagecraft:family = {} {constant}",
        quoted(&first.family)
    );
    let _ = writeln!(out, "\n        def Scope \"Prototypes\"\n        {{");
    for (group, proto) in groups.iter().zip(&protos) {
        write_mesh(out, 3, proto, &variant_mesh(&group.look), group.look.colour);
    }
    let _ = writeln!(out, "        }}\n    }}");
}
