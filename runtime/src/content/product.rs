//! Stage products: the typed value each operator returns, its summary and its canonical digest.
//!
//! A [`Product`] is one of a closed set of kinds ([`ProductKind`]); the recipe compiler types stage
//! ports with these kinds. Every product has a canonical byte encoding (version-tagged, fixed-width,
//! little-endian, see [`super::encode`]) whose BLAKE3 digest identifies it in stage-cache keys and
//! in the bundle digest.

use super::assembly::AssemblyPlan;
use super::encode::{ByteWriter, ChunkWriter};
use super::geometry::{BoundsM, PointM};
use super::mission::MissionLayout;
use super::placement::{PlacedObject, Placement, ScatterOutput, ENCODE_CHUNK};
use super::record_sink::{ParAppend, RecordSink};
use super::streaming::{StreamingCell, StreamingPlan};
use super::street::StreetBlock;
use crate::content::geometry::Rect;

/// The kinds of stage products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProductKind {
    /// A street block: pedestrian space, surfaces, lanes, scatter areas and keep-outs.
    StreetBlock,
    /// Accepted scatter placements (with rejected candidates), before transforms.
    Placements,
    /// Placements with rotation and scale.
    PlacedObjects,
    /// A solved grid mission layout.
    MissionLayout,
    /// A streaming plan around one observer.
    StreamingPlan,
    /// Modules assembled in the sockets of a repeated frame.
    AssemblyPlan,
}

impl ProductKind {
    /// The kind's stable name (as shown in port lists and exports).
    pub const fn name(self) -> &'static str {
        match self {
            ProductKind::StreetBlock => "StreetBlock",
            ProductKind::Placements => "Placements",
            ProductKind::PlacedObjects => "PlacedObjects",
            ProductKind::MissionLayout => "MissionLayout",
            ProductKind::StreamingPlan => "StreamingPlan",
            ProductKind::AssemblyPlan => "AssemblyPlan",
        }
    }
}

/// An asset family as generation sees it: the variants' ids, weights and footprints.
///
/// Preview shape and colour are left out on purpose: they do not change what is generated, so
/// editing them never invalidates a cached stage.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyData {
    /// The family id.
    pub id: String,
    /// Variants in the family's persistent order.
    pub variants: Vec<FamilyVariant>,
}

/// Which variant fields of a bound family an operator's kernel reads (the family id and the
/// variant ids, in order, always count). An operator declares it in its descriptor; a family
/// enters a stage's cache key only through these fields ([`FamilyData::digest_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyReads {
    /// Selection weights.
    pub weights: bool,
    /// Exclusion radii.
    pub exclusion_radii: bool,
    /// Collision radii.
    pub collision_radii: bool,
    /// Heights.
    pub heights: bool,
    /// Socket types (modules of an assembly).
    pub sockets: bool,
}

impl FamilyReads {
    /// Every field (the conservative declaration).
    pub const ALL: FamilyReads = FamilyReads {
        weights: true,
        exclusion_radii: true,
        collision_radii: true,
        heights: true,
        sockets: true,
    };

    /// The fields as bits (weights 1, exclusion radii 2, collision radii 4, heights 8, sockets
    /// 16).
    pub fn mask(self) -> u32 {
        u32::from(self.weights)
            | u32::from(self.exclusion_radii) << 1
            | u32::from(self.collision_radii) << 2
            | u32::from(self.heights) << 3
            | u32::from(self.sockets) << 4
    }
}

/// One variant of a [`FamilyData`].
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyVariant {
    /// The variant id.
    pub id: String,
    /// Selection weight.
    pub weight: u32,
    /// Exclusion radius in scatter lattice units.
    pub exclusion_radius: i64,
    /// Collision radius, meters.
    pub collision_radius_m: f64,
    /// Height, meters.
    pub height_m: f64,
    /// Socket types the variant fits as an assembly module (empty for other families).
    pub sockets: Vec<String>,
}

impl FamilyVariant {
    /// Whether the variant fits a socket of type `socket`.
    pub fn fits(&self, socket: &str) -> bool {
        self.sockets.iter().any(|s| s == socket)
    }
}

impl FamilyData {
    /// BLAKE3 of the canonical encoding (`"FAMILY01"`, id, then each variant's fields).
    pub fn digest(&self) -> [u8; 32] {
        let mut w = ByteWriter::tagged(b"FAMILY01");
        w.str(&self.id).count(self.variants.len());
        for variant in &self.variants {
            w.str(&variant.id)
                .u32(variant.weight)
                .i64(variant.exclusion_radius)
                .f64(variant.collision_radius_m)
                .f64(variant.height_m);
        }
        // Sockets follow as one section only when some variant has one, so the digest of a
        // family without modules is what it was before sockets existed.
        if self.variants.iter().any(|v| !v.sockets.is_empty()) {
            w.str("sockets");
            for variant in &self.variants {
                sockets(&mut w, &variant.sockets);
            }
        }
        w.digest()
    }

    /// The digest of what an operator reading `reads` sees of the family: [`FamilyData::digest`]
    /// when it reads every field (so those keys stay as they were), otherwise BLAKE3 over
    /// `"FAMREAD1"`, the read mask, the id and each variant's id and read fields. A stage's cache
    /// key holds this, so editing a field its operator does not read keeps its key.
    pub fn digest_for(&self, reads: FamilyReads) -> [u8; 32] {
        if reads == FamilyReads::ALL {
            return self.digest();
        }
        let mut w = ByteWriter::tagged(b"FAMREAD1");
        w.u32(reads.mask()).str(&self.id).count(self.variants.len());
        for variant in &self.variants {
            w.str(&variant.id);
            if reads.weights {
                w.u32(variant.weight);
            }
            if reads.exclusion_radii {
                w.i64(variant.exclusion_radius);
            }
            if reads.collision_radii {
                w.f64(variant.collision_radius_m);
            }
            if reads.heights {
                w.f64(variant.height_m);
            }
            if reads.sockets {
                sockets(&mut w, &variant.sockets);
            }
        }
        w.digest()
    }

    /// The variant ids in order.
    pub fn variant_ids(&self) -> Vec<String> {
        self.variants.iter().map(|v| v.id.clone()).collect()
    }
}

/// One scatter layer's result: its region, keep-outs and kernel output.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterLayer {
    /// The layer id packed into the placements' identities.
    pub layer: u8,
    /// The room (recipe instance) ordinal packed into the identities.
    pub room: u16,
    /// The upstream area the layer filled (e.g. `furniture.north`), if the region came from one.
    pub area: Option<String>,
    /// The layer's region in lattice units.
    pub region: Rect,
    /// The keep-outs in lattice units (authored ones first, then those from the input).
    pub keep_outs: Vec<Rect>,
    /// Accepted and rejected candidates in canonical order.
    pub output: ScatterOutput,
}

/// The product of `environment.scatter`: one or more layers over one family.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterProduct {
    /// The family scattered.
    pub family: String,
    /// The family's variant ids, indexed by a placement's `variant`.
    pub variant_ids: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// Cell edge, lattice units.
    pub cell_size: i64,
    /// Candidates per cell.
    pub candidates_per_cell: u32,
    /// The stage whose areas gave the regions, if any.
    pub area_stage: Option<u32>,
    /// Layers in ascending layer id.
    pub layers: Vec<ScatterLayer>,
}

impl ScatterProduct {
    /// Every accepted placement, layer by layer, each layer in canonical order.
    pub fn placements(&self) -> impl Iterator<Item = &Placement> {
        self.layers
            .iter()
            .flat_map(|layer| layer.output.placements.iter())
    }

    /// Total accepted placements.
    pub fn placement_count(&self) -> usize {
        self.layers.iter().map(|l| l.output.placements.len()).sum()
    }

    /// Total rejected candidates.
    pub fn rejected_count(&self) -> usize {
        self.layers.iter().map(|l| l.output.rejected.len()).sum()
    }
}

/// The product of `environment.select-and-place`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedProduct {
    /// The family of the placements.
    pub family: String,
    /// The family's variant ids.
    pub variant_ids: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// The value of one scale step (e.g. 0.001).
    pub scale_unit: f64,
    /// The scatter stage the placements came from.
    pub placements_stage: u32,
    /// Placed objects in the scatter's order.
    pub objects: Vec<PlacedObject>,
}

/// The product of `layout.grid-mission`, with the size of a grid cell in the world.
///
/// Cell `(x, y)` (y grows south) is centred at `((x + ½)·s, −(y + ½)·s)` meters.
#[derive(Debug, Clone, PartialEq)]
pub struct MissionProduct {
    /// Edge of a grid cell, meters.
    pub cell_size_m: f64,
    /// The solved layout.
    pub layout: MissionLayout,
}

impl MissionProduct {
    /// The world position of the centre of grid cell `(x, y)`.
    pub fn cell_center_m(&self, x: u32, y: u32) -> PointM {
        PointM::new(
            (f64::from(x) + 0.5) * self.cell_size_m,
            -(f64::from(y) + 0.5) * self.cell_size_m,
        )
    }
}

/// The product of `streaming.plan`.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingProduct {
    /// Edge of a streaming cell, meters.
    pub cell_size_m: f64,
    /// The observer's position, meters.
    pub observer_m: PointM,
    /// The plan.
    pub plan: StreamingPlan,
}

/// Any stage product.
#[derive(Debug, Clone, PartialEq)]
pub enum Product {
    /// From `street.block`.
    StreetBlock(StreetBlock),
    /// From `environment.scatter`.
    Placements(ScatterProduct),
    /// From `environment.select-and-place`.
    PlacedObjects(PlacedProduct),
    /// From `layout.grid-mission`.
    MissionLayout(MissionProduct),
    /// From `streaming.plan`.
    StreamingPlan(StreamingProduct),
    /// From `assembly`.
    AssemblyPlan(AssemblyPlan),
}

/// Counts and bounds of a product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProductSummary {
    /// Generated objects (placements, placed objects, chunks, planned cells, block elements).
    pub objects: u64,
    /// Rejected candidates (scatter) or pruned cells (streaming).
    pub rejected: u64,
    /// Bounds of the objects in meters, if there are any.
    pub bounds_m: Option<BoundsM>,
}

impl Product {
    /// The product's kind.
    pub fn kind(&self) -> ProductKind {
        match self {
            Product::StreetBlock(_) => ProductKind::StreetBlock,
            Product::Placements(_) => ProductKind::Placements,
            Product::PlacedObjects(_) => ProductKind::PlacedObjects,
            Product::MissionLayout(_) => ProductKind::MissionLayout,
            Product::StreamingPlan(_) => ProductKind::StreamingPlan,
            Product::AssemblyPlan(_) => ProductKind::AssemblyPlan,
        }
    }

    /// BLAKE3 of [`Product::canonical_bytes`]; scatter products and placed objects are hashed
    /// as they are encoded (in chunks of 64 KiB, so BLAKE3 hashes many blocks at once), never
    /// held whole.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        self.encode_streamed(ENCODE_CHUNK, &mut |chunk| {
            hasher.update(chunk);
        });
        *hasher.finalize().as_bytes()
    }

    /// [`Product::digest`] with the hashing spread over the current rayon pool: the encoding is
    /// hashed in chunks of 1 MiB, each through BLAKE3's multi-threaded `update_rayon`. The value
    /// is the same by construction (BLAKE3's tree does not depend on how its input is split).
    pub fn digest_par(&self) -> [u8; 32] {
        /// Bytes encoded before they are hashed: enough for BLAKE3 to split among threads
        /// (it gains from 128 KiB up), small next to the product.
        const PAR_CHUNK: usize = 1 << 20;
        let mut hasher = blake3::Hasher::new();
        self.encode_streamed(PAR_CHUNK, &mut |chunk| {
            hasher.update_rayon(chunk);
        });
        *hasher.finalize().as_bytes()
    }

    /// Feeds [`Product::canonical_bytes`] to `sink`: in chunks of exactly `chunk` bytes (the last
    /// one shorter) as they are encoded for the large kinds (scatter products, placed objects), whole for the others.
    fn encode_streamed(&self, chunk: usize, sink: &mut dyn FnMut(&[u8])) {
        match self {
            Product::Placements(scatter) => encode_scatter(scatter, chunk, sink),
            Product::PlacedObjects(placed) => encode_placed(placed, chunk, sink),
            other => sink(&other.canonical_bytes()),
        }
    }

    /// Approximate heap bytes the product holds: its element records (placements, rejections,
    /// placed objects) by their inline sizes, and a flat 64 bytes per object of the small kinds.
    /// What an in-memory cache budgets with.
    pub fn approx_heap_bytes(&self) -> usize {
        match self {
            Product::Placements(scatter) => scatter
                .layers
                .iter()
                .map(|layer| {
                    layer.output.placements.len() * std::mem::size_of::<Placement>()
                        + layer.output.rejected.len()
                            * std::mem::size_of::<crate::content::placement::RejectedCandidate>()
                })
                .sum(),
            Product::PlacedObjects(placed) => {
                placed.objects.len()
                    * std::mem::size_of::<crate::content::placement::PlacedObject>()
            }
            other => {
                let summary = other.summary();
                (summary.objects + summary.rejected) as usize * 64
            }
        }
    }

    /// Counts and bounds.
    pub fn summary(&self) -> ProductSummary {
        let (objects, rejected) = self.counts();
        ProductSummary {
            objects,
            rejected,
            bounds_m: self.bounds_m(),
        }
    }

    /// The summary's counts alone, (objects, rejected), without walking the elements for their
    /// bounds (what verifying a cooked product compares with its manifest entry).
    pub fn counts(&self) -> (u64, u64) {
        match self {
            Product::StreetBlock(block) => (
                (block.space.routes.len()
                    + block.space.crosswalks.len()
                    + block.space.portals.len()
                    + block.surfaces.len()
                    + block.lanes.len()
                    + block.scatter_areas.len()
                    + block.keep_outs.len()) as u64,
                0,
            ),
            Product::Placements(scatter) => (
                scatter.placement_count() as u64,
                scatter.rejected_count() as u64,
            ),
            Product::PlacedObjects(placed) => (placed.objects.len() as u64, 0),
            Product::AssemblyPlan(plan) => (plan.modules.len() as u64, 0),
            Product::MissionLayout(mission) => (mission.layout.chunks.len() as u64, 0),
            Product::StreamingPlan(streaming) => {
                let plan = &streaming.plan;
                (
                    (plan.loaded_cells.len() + plan.hlod_cells.len()) as u64,
                    plan.hlod_pruned_cells.len() as u64,
                )
            }
        }
    }

    /// The summary's bounds of the objects in meters, if there are any.
    fn bounds_m(&self) -> Option<BoundsM> {
        let lattice = |unit: f64, p: &Placement| PointM::new(p.x as f64 * unit, p.y as f64 * unit);
        match self {
            Product::StreetBlock(block) => block.bounds(),
            Product::Placements(scatter) => {
                lattice_bounds(scatter.placements(), scatter.lattice_unit_m)
            }
            Product::PlacedObjects(placed) => BoundsM::of_points(
                placed
                    .objects
                    .iter()
                    .map(|o| lattice(placed.lattice_unit_m, &o.placement)),
            ),
            Product::AssemblyPlan(plan) => {
                let unit = plan.lattice_unit_m;
                BoundsM::of_points(
                    plan.modules
                        .iter()
                        .map(|m| PointM::new(m.x as f64 * unit, m.y as f64 * unit)),
                )
            }
            Product::MissionLayout(mission) => {
                let (w, h) = (mission.layout.width, mission.layout.height);
                let s = mission.cell_size_m;
                Some(BoundsM {
                    min_x: 0.0,
                    min_y: -f64::from(h) * s,
                    max_x: f64::from(w) * s,
                    max_y: 0.0,
                })
            }
            Product::StreamingPlan(streaming) => {
                let s = streaming.cell_size_m;
                let plan = &streaming.plan;
                let corners = plan
                    .loaded_cells
                    .iter()
                    .chain(&plan.hlod_cells)
                    .flat_map(|c| {
                        let (x, y) = (f64::from(c.x) * s, f64::from(c.y) * s);
                        [PointM::new(x, y), PointM::new(x + s, y + s)]
                    });
                BoundsM::of_points(corners)
            }
        }
    }

    /// Whether `bytes` are exactly [`Product::canonical_bytes`], compared as the encoding is
    /// produced where the product streams it (scatter placements), so checking a large product
    /// does not build a second copy of it.
    pub fn is_canonical_encoding(&self, bytes: &[u8]) -> bool {
        let mut at = 0usize;
        let mut same = true;
        self.encode_streamed(ENCODE_CHUNK, &mut |chunk| {
            let end = at + chunk.len();
            same = same && bytes.get(at..end) == Some(chunk);
            at = end;
        });
        same && at == bytes.len()
    }

    /// Appends [`Product::canonical_bytes`] to `out`, the large kinds (scatter products, placed
    /// objects) encoded straight into it, room for them reserved first (a product file is its
    /// header and this, in one buffer).
    pub fn append_canonical_bytes(&self, out: &mut Vec<u8>) {
        match self {
            Product::Placements(scatter) => {
                let records: usize = scatter.layers.iter().map(|l| l.output.encoded_len()).sum();
                out.reserve(records + 1024);
                encode_scatter_to(scatter, &mut ParAppend(out));
            }
            Product::PlacedObjects(placed) => {
                out.reserve(placed.objects.len() * 38 + 1024);
                encode_placed_to(placed, &mut ParAppend(out));
            }
            other => out.extend_from_slice(&other.canonical_bytes()),
        }
    }

    /// The canonical encoding: a kind tag, then every field in declaration order.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        match self {
            Product::StreetBlock(block) => encode_street(block),
            Product::AssemblyPlan(plan) => plan.canonical_bytes(),
            Product::Placements(scatter) => {
                let mut bytes = Vec::new();
                encode_scatter(scatter, ENCODE_CHUNK, &mut |chunk| {
                    bytes.extend_from_slice(chunk)
                });
                bytes
            }
            Product::PlacedObjects(placed) => {
                // 38 bytes per object (id, x, y, variant, priority, rotation, scale).
                let mut bytes = Vec::with_capacity(placed.objects.len() * 38 + 128);
                encode_placed(placed, ENCODE_CHUNK, &mut |chunk| {
                    bytes.extend_from_slice(chunk)
                });
                bytes
            }
            Product::MissionLayout(mission) => {
                let layout = &mission.layout;
                let mut w = ByteWriter::tagged(b"MISSION1");
                w.f64(mission.cell_size_m)
                    .u64(layout.attempt_seed)
                    .str(&layout.signature())
                    .count(layout.chunks.len());
                for chunk in &layout.chunks {
                    w.bool(chunk.npc_spawn_tag);
                }
                w.count(layout.bot_path.len());
                for cell in &layout.bot_path {
                    w.u32(cell.x).u32(cell.y);
                }
                w.count(layout.npc_cells.len());
                for cell in &layout.npc_cells {
                    w.u32(cell.x).u32(cell.y);
                }
                w.finish()
            }
            Product::StreamingPlan(streaming) => {
                let plan = &streaming.plan;
                let mut w = ByteWriter::tagged(b"STREAM01");
                w.f64(streaming.cell_size_m)
                    .f64(streaming.observer_m.x)
                    .f64(streaming.observer_m.y);
                cells(&mut w, &[plan.observer_cell]);
                cells(&mut w, &plan.loaded_cells);
                cells(&mut w, &plan.hlod_cells);
                cells(&mut w, &plan.hlod_pruned_cells);
                w.u64(plan.hlod_requested_mb)
                    .u64(plan.hlod_estimated_mb)
                    .u64(plan.hlod_budget_mb);
                w.finish()
            }
        }
    }
}

fn sockets(w: &mut ByteWriter, sockets: &[String]) {
    w.count(sockets.len());
    for socket in sockets {
        w.str(socket);
    }
}

fn rect(w: &mut ByteWriter, rect: &Rect) {
    w.i64(rect.min_x)
        .i64(rect.min_y)
        .i64(rect.max_x)
        .i64(rect.max_y);
}

fn cells(w: &mut ByteWriter, cells: &[StreamingCell]) {
    w.count(cells.len());
    for cell in cells {
        w.u32(cell.x as u32).u32(cell.y as u32);
    }
}

fn point(w: &mut ByteWriter, point: PointM) {
    w.f64(point.x).f64(point.y);
}

fn points(w: &mut ByteWriter, list: &[PointM]) {
    w.count(list.len());
    for p in list {
        point(w, *p);
    }
}

fn encode_street(block: &StreetBlock) -> Vec<u8> {
    let mut w = ByteWriter::tagged(b"STREET01");
    w.f64(block.length_m)
        .f64(block.road_width_m)
        .f64(block.sidewalk_width_m);
    let space = &block.space;
    w.count(space.routes.len());
    for route in &space.routes {
        w.str(&route.id).str(route.kind.name()).f64(route.width_m);
        points(&mut w, &route.points);
    }
    w.count(space.crosswalks.len());
    for crosswalk in &space.crosswalks {
        w.str(&crosswalk.id)
            .str(&crosswalk.route)
            .str(&crosswalk.signal_id)
            .f64(crosswalk.width_m)
            .u32(crosswalk.lanes_crossed)
            .count(crosswalk.sides.len());
        for side in &crosswalk.sides {
            w.str(&side.sidewalk).u32(side.node);
            point(&mut w, side.kerb);
            point(&mut w, side.waiting_point);
        }
    }
    w.count(space.portals.len());
    for portal in &space.portals {
        w.str(&portal.id).str(&portal.route).u32(portal.node);
        point(&mut w, portal.position);
    }
    w.count(block.surfaces.len());
    for surface in &block.surfaces {
        w.str(&surface.id).str(surface.kind.name());
        points(&mut w, &surface.outline);
    }
    w.count(block.lanes.len());
    for lane in &block.lanes {
        w.str(&lane.id).str(lane.direction.name()).f64(lane.width_m);
        points(&mut w, &lane.centerline);
        w.count(lane.crosswalks.len());
        for id in &lane.crosswalks {
            w.str(id);
        }
    }
    w.count(block.scatter_areas.len());
    for area in &block.scatter_areas {
        w.str(&area.id);
        points(&mut w, &area.rect.corners());
    }
    w.count(block.keep_outs.len());
    for keep_out in &block.keep_outs {
        w.str(&keep_out.id);
        points(&mut w, &keep_out.rect.corners());
    }
    w.finish()
}

/// The canonical encoding of placed objects, fed to `sink` in chunks of a few tens of kilobytes.
fn encode_placed(placed: &PlacedProduct, chunk: usize, sink: &mut dyn FnMut(&[u8])) {
    let mut out = ChunkWriter::new(chunk, sink);
    encode_placed_to(placed, &mut out);
    out.finish();
}

/// Writes the canonical encoding of placed objects to `out`.
fn encode_placed_to(placed: &PlacedProduct, out: &mut impl RecordSink) {
    let mut w = ByteWriter::tagged(b"PLACEPR1");
    w.str(&placed.family).count(placed.variant_ids.len());
    for id in &placed.variant_ids {
        w.str(id);
    }
    w.f64(placed.lattice_unit_m)
        .f64(placed.scale_unit)
        .u32(placed.placements_stage)
        .count(placed.objects.len());
    out.put_slice(&w.finish());
    // Fixed-size records of 38 bytes, each built whole and written with one fixed-size copy.
    out.put_all(&placed.objects, |object| {
        let mut record = [0; 38];
        record[..32].copy_from_slice(&object.placement.record());
        record[32..34].copy_from_slice(&object.rotation_turns_65536.to_le_bytes());
        record[34..].copy_from_slice(&object.scale.to_le_bytes());
        (record, 38)
    });
}

/// The bounds in meters of placements at `unit` meters per lattice unit. With a positive unit,
/// `lattice → meters` never decreases, so the bounds of the integer positions converted are
/// exactly the bounds of the converted positions (and the integer extremes are found without
/// a floating-point comparison per point); any other unit converts every point.
fn lattice_bounds<'a>(
    placements: impl Iterator<Item = &'a Placement>,
    unit: f64,
) -> Option<BoundsM> {
    let meters = |x: i64| x as f64 * unit;
    if !(unit > 0.0 && unit.is_finite()) {
        return BoundsM::of_points(placements.map(|p| PointM::new(meters(p.x), meters(p.y))));
    }
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
    let mut any = false;
    for p in placements {
        any = true;
        min_x = min_x.min(p.x);
        min_y = min_y.min(p.y);
        max_x = max_x.max(p.x);
        max_y = max_y.max(p.y);
    }
    any.then(|| BoundsM {
        min_x: meters(min_x),
        min_y: meters(min_y),
        max_x: meters(max_x),
        max_y: meters(max_y),
    })
}

/// Feeds the canonical encoding of a scatter product to `sink` in chunks: `"SCATPRD1"`, family,
/// variant ids, lattice unit, cell size, candidates per cell, area stage, then per layer its id,
/// room, area, region, keep-outs and its output's canonical bytes (length first).
fn encode_scatter(scatter: &ScatterProduct, chunk: usize, sink: &mut dyn FnMut(&[u8])) {
    let mut out = ChunkWriter::new(chunk, sink);
    encode_scatter_to(scatter, &mut out);
    out.finish();
}

/// Writes the canonical encoding of a scatter product to `out`.
fn encode_scatter_to(scatter: &ScatterProduct, out: &mut impl RecordSink) {
    let mut w = ByteWriter::tagged(b"SCATPRD1");
    w.str(&scatter.family).count(scatter.variant_ids.len());
    for id in &scatter.variant_ids {
        w.str(id);
    }
    w.f64(scatter.lattice_unit_m)
        .i64(scatter.cell_size)
        .u32(scatter.candidates_per_cell)
        .u64(scatter.area_stage.map_or(u64::MAX, u64::from))
        .count(scatter.layers.len());
    for layer in &scatter.layers {
        w.u8(layer.layer)
            .u16(layer.room)
            .str(layer.area.as_deref().unwrap_or(""));
        rect(&mut w, &layer.region);
        w.count(layer.keep_outs.len());
        for keep_out in &layer.keep_outs {
            rect(&mut w, keep_out);
        }
        w.count(layer.output.encoded_len());
        out.put_slice(&std::mem::take(&mut w).finish());
        layer.output.encode_to(out);
    }
    out.put_slice(&w.finish());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::pack_scatter_id;

    fn at(x: i64, y: i64) -> Placement {
        Placement {
            id: pack_scatter_id(1, 0, 0, 0, 0).unwrap_or_else(|e| panic!("{e}")),
            x,
            y,
            variant: 0,
            priority: 0,
        }
    }

    #[test]
    fn integer_bounds_converted_equal_the_bounds_of_converted_points() {
        let points = [
            at(-7, 3),
            at(123_456_789, -1),
            at(0, 0),
            at(-99_999, 88_888),
            at(5, -123_456),
        ];
        for unit in [0.01, 0.1, 1.0 / 3.0, 0.0001, 7.5] {
            let expected = BoundsM::of_points(
                points
                    .iter()
                    .map(|p| PointM::new(p.x as f64 * unit, p.y as f64 * unit)),
            );
            assert_eq!(lattice_bounds(points.iter(), unit), expected, "unit {unit}");
        }
        // A unit that is not positive converts every point (the order may flip).
        let flipped = lattice_bounds(points.iter(), -0.5).unwrap_or_else(|| panic!("bounds"));
        assert_eq!((flipped.min_x, flipped.max_x), (-61_728_394.5, 49_999.5));
        assert_eq!(lattice_bounds([].iter(), 0.01), None);
    }
}

#[cfg(test)]
mod family_reads_tests {
    use super::*;

    fn family(height_m: f64, radius: i64) -> FamilyData {
        FamilyData {
            id: "trees".to_owned(),
            variants: vec![FamilyVariant {
                id: "pine".to_owned(),
                weight: 3,
                exclusion_radius: radius,
                collision_radius_m: 0.5,
                height_m,
                sockets: Vec::new(),
            }],
        }
    }

    #[test]
    fn a_family_digest_covers_only_the_fields_read() {
        let scatter = FamilyReads {
            weights: true,
            exclusion_radii: true,
            collision_radii: false,
            heights: false,
            sockets: false,
        };
        let (base, taller, wider) = (family(14.0, 250), family(15.5, 250), family(14.0, 330));
        assert_eq!(base.digest_for(FamilyReads::ALL), base.digest());
        assert_ne!(base.digest_for(scatter), base.digest());
        assert_eq!(base.digest_for(scatter), taller.digest_for(scatter));
        assert_ne!(base.digest_for(scatter), wider.digest_for(scatter));
        assert_ne!(
            base.digest_for(FamilyReads::ALL),
            taller.digest_for(FamilyReads::ALL)
        );
        assert_eq!(scatter.mask(), 0b0011);
        assert_eq!(FamilyReads::ALL.mask(), 0b1_1111);
    }
}
