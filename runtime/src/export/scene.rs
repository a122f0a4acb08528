//! The export scene: what a cooked bundle's products become in an engine, independent of the
//! file format. Instances are grouped per (recipe, stage, variant) with their persistent
//! identities; the street blocks' paved surfaces are grouped per (recipe, stage, kind).
//!
//! Which products are exported is the viewport's rule: every select-and-place product, and a
//! scatter product only when no select-and-place stage of its recipe consumes it, so an object
//! is exported once. Each instance stands on the surface under it ([`super::ground`]). Mission
//! layouts and streaming plans come along as data ([`super::layouts`]). Positions stay in
//! Stagecraft's frame (metres, Z up) here; the writers convert with [`super::y_up`].

use std::collections::{BTreeMap, BTreeSet};

use crate::content::{PointM, Product, StreetBlock, SurfaceKind};

use super::ground::{surface_top_m, Ground};
use super::layouts::{MissionGroup, StreamingGroup};
use crate::identity::ScatterId;
use crate::project::{AssetFamily, PreviewShape};

/// How a variant looks: its preview shape, colour and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// The preview shape.
    pub shape: PreviewShape,
    /// sRGB colour.
    pub colour: [u8; 3],
    /// Collision radius, metres (the shape is 2·radius wide and deep).
    pub radius_m: f64,
    /// Height, metres.
    pub height_m: f64,
}

impl Look {
    /// The look of a variant the exporter does not know: a grey box 1 m wide and high (the
    /// viewport draws unknown variants the same way).
    pub const UNKNOWN: Look = Look {
        shape: PreviewShape::Box,
        colour: [160, 160, 160],
        radius_m: 0.5,
        height_m: 1.0,
    };

    /// The smallest radius and height a shape is given, metres (as the viewport draws them).
    pub const MIN_SIZE_M: f64 = 0.05;
}

/// Looks by (family id, variant id).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Looks(BTreeMap<(String, String), Look>);

impl Looks {
    /// The looks of every variant of `families`.
    pub fn of_families<'a>(families: impl IntoIterator<Item = &'a AssetFamily>) -> Looks {
        let mut looks = BTreeMap::new();
        for family in families {
            for v in &family.variants {
                let look = Look {
                    shape: v.shape,
                    colour: [v.colour.0, v.colour.1, v.colour.2],
                    radius_m: v.collision_radius_m,
                    height_m: v.height_m,
                };
                looks.insert((family.id.clone(), v.id.clone()), look);
            }
        }
        Looks(looks)
    }

    /// The look of `variant` of `family`, if known.
    pub fn get(&self, family: &str, variant: &str) -> Option<Look> {
        self.0
            .get(&(family.to_owned(), variant.to_owned()))
            .copied()
    }
}

/// One product of a bundle, with where it comes from.
#[derive(Debug, Clone, Copy)]
pub struct StageProduct<'a> {
    /// The recipe (instance) id.
    pub recipe: &'a str,
    /// The stage id.
    pub stage: u32,
    /// The decoded product.
    pub product: &'a Product,
}

/// One exported instance, in Stagecraft's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Instance {
    /// Persistent identity (within its recipe and stage).
    pub id: ScatterId,
    /// East, metres.
    pub x_m: f64,
    /// North, metres.
    pub y_m: f64,
    /// Up, metres: the top of the paved surface it stands on (0 outside every surface).
    pub z_m: f64,
    /// Rotation about the up axis, counter-clockwise seen from above, in 1/65536 turns.
    pub rotation_turns_65536: u16,
    /// Uniform scale (1 for scatter placements).
    pub scale: f64,
}

impl Instance {
    /// The rotation in radians.
    pub fn rotation_rad(&self) -> f64 {
        f64::from(self.rotation_turns_65536) / 65_536.0 * std::f64::consts::TAU
    }
}

/// The instances of one variant from one stage.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceGroup {
    /// The recipe id.
    pub recipe: String,
    /// The emitting stage.
    pub stage: u32,
    /// The asset family.
    pub family: String,
    /// The variant id (`#N` for an index the product's variant list lacks).
    pub variant: String,
    /// The variant's index in the family's order.
    pub variant_index: u32,
    /// How it looks ([`Look::UNKNOWN`] when the exporter was given no look for it).
    pub look: Look,
    /// Whether the look came from the family (false: [`Look::UNKNOWN`]).
    pub look_known: bool,
    /// The instances, in the product's canonical order.
    pub instances: Vec<Instance>,
}

/// The paved surfaces of one kind from one street block.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceGroup {
    /// The recipe id.
    pub recipe: String,
    /// The street block's stage.
    pub stage: u32,
    /// What the surfaces are.
    pub kind: SurfaceKind,
    /// Each surface's id and outline (counter-clockwise seen from above), metres.
    pub polygons: Vec<(String, Vec<PointM>)>,
}

impl SurfaceGroup {
    /// The height of this kind's surface above the ground, metres (the viewport's: a raised
    /// sidewalk, a crosswalk painted just above the road).
    pub fn height_m(&self) -> f64 {
        surface_top_m(self.kind)
    }
}

/// Everything an export writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportScene {
    /// The project's display name.
    pub project: String,
    /// The bundle digest (hex).
    pub bundle_digest: String,
    /// Instance groups by recipe (bundle order), stage (bundle order), variant index.
    pub groups: Vec<InstanceGroup>,
    /// Surface groups by recipe, stage, kind (road, sidewalk, crosswalk).
    pub surfaces: Vec<SurfaceGroup>,
    /// Mission layouts, in bundle order.
    pub missions: Vec<MissionGroup>,
    /// Streaming plans, in bundle order.
    pub streaming: Vec<StreamingGroup>,
}

impl ExportScene {
    /// The scene of a bundle's products (in manifest order), each variant looked up in `looks`.
    pub fn from_products(
        project: &str,
        bundle_digest: &str,
        products: &[StageProduct<'_>],
        looks: &Looks,
    ) -> ExportScene {
        let consumed: BTreeSet<(&str, u32)> = products
            .iter()
            .filter_map(|p| match p.product {
                Product::PlacedObjects(placed) => Some((p.recipe, placed.placements_stage)),
                _ => None,
            })
            .collect();
        let ground = Ground::of_products(products);
        let mut scene = ExportScene {
            project: project.to_owned(),
            bundle_digest: bundle_digest.to_owned(),
            groups: Vec::new(),
            surfaces: Vec::new(),
            missions: Vec::new(),
            streaming: Vec::new(),
        };
        for p in products {
            match p.product {
                Product::PlacedObjects(placed) => {
                    let unit = placed.lattice_unit_m;
                    let instances = placed.objects.iter().map(|o| {
                        let at = &o.placement;
                        let scale = f64::from(o.scale) * placed.scale_unit;
                        let turns = o.rotation_turns_65536;
                        let mut i = instance(at.id, (at.x, at.y), unit, turns, scale);
                        i.z_m = ground.height_m(p.recipe, i.x_m, i.y_m);
                        (at.variant, i)
                    });
                    let names = (&placed.family, &placed.variant_ids[..]);
                    scene.add_groups(p, names, instances, looks);
                }
                Product::Placements(scatter) if !consumed.contains(&(p.recipe, p.stage)) => {
                    let unit = scatter.lattice_unit_m;
                    let instances = scatter.placements().map(|at| {
                        let mut i = instance(at.id, (at.x, at.y), unit, 0, 1.0);
                        i.z_m = ground.height_m(p.recipe, i.x_m, i.y_m);
                        (at.variant, i)
                    });
                    let names = (&scatter.family, &scatter.variant_ids[..]);
                    scene.add_groups(p, names, instances, looks);
                }
                Product::AssemblyPlan(plan) => {
                    let unit = plan.lattice_unit_m;
                    let instances = plan.modules.iter().map(|m| {
                        let at = (m.x, m.y);
                        let mut i = instance(m.id, at, unit, m.rotation_turns_65536, 1.0);
                        i.z_m = ground.height_m(p.recipe, i.x_m, i.y_m);
                        (m.variant, i)
                    });
                    let names = (&plan.family, &plan.variant_ids[..]);
                    scene.add_groups(p, names, instances, looks);
                }
                Product::StreetBlock(block) => scene.add_surfaces(p, block),
                Product::MissionLayout(mission) => scene.missions.push(MissionGroup {
                    recipe: p.recipe.to_owned(),
                    stage: p.stage,
                    product: mission.clone(),
                }),
                Product::StreamingPlan(plan) => scene.streaming.push(StreamingGroup {
                    recipe: p.recipe.to_owned(),
                    stage: p.stage,
                    product: plan.clone(),
                }),
                _ => {}
            }
        }
        scene
    }

    /// The paved surfaces of `block` (emitted by `from`), one group per kind that has any.
    fn add_surfaces(&mut self, from: &StageProduct<'_>, block: &StreetBlock) {
        for kind in [
            SurfaceKind::Road,
            SurfaceKind::Sidewalk,
            SurfaceKind::Crosswalk,
        ] {
            let polygons: Vec<(String, Vec<PointM>)> = block
                .surfaces
                .iter()
                .filter(|s| s.kind == kind && s.outline.len() >= 3)
                .map(|s| (s.id.clone(), s.outline.clone()))
                .collect();
            if !polygons.is_empty() {
                self.surfaces.push(SurfaceGroup {
                    recipe: from.recipe.to_owned(),
                    stage: from.stage,
                    kind,
                    polygons,
                });
            }
        }
    }

    fn add_groups(
        &mut self,
        from: &StageProduct<'_>,
        (family, variant_ids): (&String, &[String]),
        instances: impl Iterator<Item = (u32, Instance)>,
        looks: &Looks,
    ) {
        let mut by_variant: BTreeMap<u32, Vec<Instance>> = BTreeMap::new();
        for (variant, instance) in instances {
            by_variant.entry(variant).or_default().push(instance);
        }
        for (index, instances) in by_variant {
            let variant = match variant_ids.get(index as usize) {
                Some(id) => id.clone(),
                None => format!("#{index}"),
            };
            let found = looks.get(family, &variant);
            self.groups.push(InstanceGroup {
                recipe: from.recipe.to_owned(),
                stage: from.stage,
                family: family.clone(),
                variant,
                variant_index: index,
                look: found.unwrap_or(Look::UNKNOWN),
                look_known: found.is_some(),
                instances,
            });
        }
    }

    /// Instances in all.
    pub fn instance_count(&self) -> usize {
        self.groups.iter().map(|g| g.instances.len()).sum()
    }
}

/// An instance at lattice position `(x, y)` of `unit` metres per lattice unit.
fn instance(id: ScatterId, (x, y): (i64, i64), unit: f64, rotation: u16, scale: f64) -> Instance {
    Instance {
        id,
        x_m: x as f64 * unit,
        y_m: y as f64 * unit,
        z_m: 0.0,
        rotation_turns_65536: rotation,
        scale,
    }
}
