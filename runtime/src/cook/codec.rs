//! Cooked product files: a fixed 40-byte header, then the product's payload — fixed-width
//! little-endian fields, lengths before lists and strings, floats by their IEEE-754 bits, never a
//! native struct layout (`docs/bundle-format.md` specifies every field).
//!
//! Decoding is lossless and strict: a decoded product re-encodes to exactly the payload it came
//! from, and its digest is the stage digest the manifest records.

use super::reader::ByteReader;
use super::CookError;
use crate::content::encode::ByteWriter;
use crate::content::geometry::Rect;
use crate::content::{
    ChunkRole, Crosswalk, CrosswalkSide, DailyKey, GridCell, KeepOut, LaneDirection, MissionChunk,
    MissionLayout, MissionProduct, PedestrianSpace, PlacedObject, PlacedProduct, Placement, PointM,
    Portal, Product, ProductKind, RectM, RejectReason, RejectedCandidate, Route, RouteKind,
    ScatterArea, ScatterLayer, ScatterOutput, ScatterProduct, StreamingCell, StreamingPlan,
    StreamingProduct, StreetBlock, SurfaceKind, SurfacePolygon, VehicleLane,
};
use crate::identity::ScatterId;

/// The magic at the start of every product file.
pub const PRODUCT_MAGIC: &[u8; 8] = b"SCBPROD1";
/// The product file format version this build reads and writes.
pub const PRODUCT_FORMAT: u32 = 1;
/// Bytes of the product file header.
pub const HEADER_BYTES: usize = 40;
/// The largest product file accepted (1 GiB).
pub const MAX_PRODUCT_BYTES: u64 = 1 << 30;
/// The largest element count a product may declare.
pub const MAX_ELEMENTS: u64 = 1 << 26;

/// The numeric code of a product kind in a product file header.
pub const fn kind_code(kind: ProductKind) -> u32 {
    match kind {
        ProductKind::StreetBlock => 1,
        ProductKind::Placements => 2,
        ProductKind::PlacedObjects => 3,
        ProductKind::MissionLayout => 4,
        ProductKind::StreamingPlan => 5,
        ProductKind::AssemblyPlan => 6,
    }
}

/// Every product kind a product file may hold, by code.
pub const KINDS: [ProductKind; 6] = [
    ProductKind::StreetBlock,
    ProductKind::Placements,
    ProductKind::PlacedObjects,
    ProductKind::MissionLayout,
    ProductKind::StreamingPlan,
    ProductKind::AssemblyPlan,
];

/// The product kind of a header code.
pub fn kind_of_code(code: u32) -> Option<ProductKind> {
    KINDS.into_iter().find(|kind| kind_code(*kind) == code)
}

/// The fixed header of a product file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProductHeader {
    /// The product kind.
    pub kind: ProductKind,
    /// The stage that produced it.
    pub stage: u32,
    /// Generated objects in it (the summary's object count).
    pub elements: u64,
    /// Bytes of the payload after the header.
    pub payload_bytes: u64,
}

/// The payload of `product`: its canonical digest encoding, except mission layouts, whose
/// canonical encoding is a summary and whose payload is the full layout (`MISSCK01`).
pub fn encode_payload(product: &Product) -> Vec<u8> {
    match product {
        Product::MissionLayout(mission) => encode_mission(mission),
        other => other.canonical_bytes(),
    }
}

/// Whether `bytes`, which [`decode_payload`] decoded to `product`, are exactly [`encode_payload`]
/// of it. Scatter products and placed objects are decoded losslessly: every byte read lands in a
/// field that re-encodes it unchanged (ids and floats by their bits, counts, strings as their
/// bytes, the empty area and the `u64::MAX` area stage one-to-one with `None`) and every byte is
/// read, so a payload they decode is their canonical encoding without encoding it again
/// (`tests.rs` corrupts every byte of one to check). The other kinds' decoders normalise (a
/// rectangle from four corners, a layout's derived fields), so their payloads are compared with
/// the re-encoding, as it streams.
fn payload_matches(product: &Product, bytes: &[u8]) -> bool {
    match product {
        Product::Placements(_) | Product::PlacedObjects(_) => true,
        Product::MissionLayout(mission) => encode_mission(mission) == bytes,
        other => other.is_canonical_encoding(bytes),
    }
}

/// The whole product file of `product` from stage `stage`: the header, then the payload
/// ([`encode_payload`]) encoded into the same buffer and its length written into the header.
pub fn encode_product_file(stage: u32, product: &Product) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES);
    bytes.extend_from_slice(PRODUCT_MAGIC);
    bytes.extend_from_slice(&PRODUCT_FORMAT.to_le_bytes());
    bytes.extend_from_slice(&kind_code(product.kind()).to_le_bytes());
    bytes.extend_from_slice(&stage.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&product.counts().0.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    match product {
        Product::MissionLayout(mission) => bytes.extend_from_slice(&encode_mission(mission)),
        other => other.append_canonical_bytes(&mut bytes),
    }
    let payload = (bytes.len() - HEADER_BYTES) as u64;
    bytes[HEADER_BYTES - 8..HEADER_BYTES].copy_from_slice(&payload.to_le_bytes());
    bytes
}

/// Reads and checks the header of a product file: magic, version, kind, limits, and that the
/// declared payload length is exactly what follows.
pub fn read_header(bytes: &[u8]) -> Result<ProductHeader, CookError> {
    if bytes.len() as u64 > MAX_PRODUCT_BYTES {
        return Err(CookError::TooLarge {
            what: "product file".to_owned(),
            size: bytes.len() as u64,
            limit: MAX_PRODUCT_BYTES,
        });
    }
    let mut r = ByteReader::new(bytes);
    r.tag(PRODUCT_MAGIC, "product file magic")?;
    let format = r.u32("product format version")?;
    if format != PRODUCT_FORMAT {
        return Err(CookError::UnsupportedVersion {
            what: "product format".to_owned(),
            found: u64::from(format),
            supported: u64::from(PRODUCT_FORMAT),
        });
    }
    let code = r.u32("product kind")?;
    let kind = kind_of_code(code)
        .ok_or_else(|| CookError::invalid("product kind", format!("unknown kind code {code}")))?;
    let stage = r.u32("stage id")?;
    let reserved = r.u32("reserved header field")?;
    if reserved != 0 {
        return Err(CookError::invalid(
            "reserved header field",
            format!("{reserved}, not 0"),
        ));
    }
    let elements = r.u64("element count")?;
    if elements > MAX_ELEMENTS {
        return Err(CookError::TooLarge {
            what: "element count".to_owned(),
            size: elements,
            limit: MAX_ELEMENTS,
        });
    }
    let payload_bytes = r.u64("payload length")?;
    if payload_bytes != r.remaining() as u64 {
        return Err(CookError::SizeMismatch {
            what: "payload".to_owned(),
            declared: payload_bytes,
            actual: r.remaining() as u64,
        });
    }
    Ok(ProductHeader {
        kind,
        stage,
        elements,
        payload_bytes,
    })
}

/// Decodes a whole product file: header, payload, and that the element count agrees with the
/// decoded product and the payload is exactly its canonical re-encoding.
pub fn decode_product_file(bytes: &[u8]) -> Result<(ProductHeader, Product), CookError> {
    decode_checked(bytes).map(|d| (d.header, d.product))
}

/// A product file decoded and checked by [`decode_checked`].
#[derive(Debug, Clone)]
pub struct DecodedFile {
    /// The header.
    pub header: ProductHeader,
    /// The product.
    pub product: Product,
    /// Its rejected candidates or pruned cells (the summary's `rejected`; its object count is
    /// the header's `elements`, checked).
    pub rejected: u64,
    /// BLAKE3 of the product's canonical digest encoding (the stage digest).
    pub digest: [u8; 32],
}

/// [`decode_product_file`] with the product's rejected count and digest. For every kind whose
/// payload is its canonical digest encoding, the canonical check proves the payload is those
/// bytes, so the digest is taken of the payload directly instead of encoding the product again.
pub fn decode_checked(bytes: &[u8]) -> Result<DecodedFile, CookError> {
    let header = read_header(bytes)?;
    let payload = &bytes[HEADER_BYTES..];
    let product = decode_payload(header.kind, payload)?;
    let (objects, rejected) = product.counts();
    if objects != header.elements {
        return Err(CookError::SizeMismatch {
            what: "element count".to_owned(),
            declared: header.elements,
            actual: objects,
        });
    }
    if !payload_matches(&product, payload) {
        return Err(CookError::invalid(
            "payload",
            "bytes that are not the canonical encoding of the product they decode to".to_owned(),
        ));
    }
    let digest = match product {
        Product::MissionLayout(_) => product.digest(),
        _ => *blake3::hash(payload).as_bytes(),
    };
    Ok(DecodedFile {
        header,
        product,
        rejected,
        digest,
    })
}

/// Decodes a payload of `kind`; every byte must be read.
pub fn decode_payload(kind: ProductKind, payload: &[u8]) -> Result<Product, CookError> {
    let mut r = ByteReader::new(payload);
    let product = match kind {
        ProductKind::StreetBlock => Product::StreetBlock(decode_street(&mut r)?),
        ProductKind::Placements => Product::Placements(decode_scatter(&mut r)?),
        ProductKind::PlacedObjects => Product::PlacedObjects(decode_placed(&mut r)?),
        ProductKind::MissionLayout => Product::MissionLayout(decode_mission(&mut r)?),
        ProductKind::StreamingPlan => Product::StreamingPlan(decode_streaming(&mut r)?),
        ProductKind::AssemblyPlan => Product::AssemblyPlan(decode_assembly(&mut r)?),
    };
    r.finish("payload")?;
    Ok(product)
}

fn point(r: &mut ByteReader<'_>, what: &str) -> Result<PointM, CookError> {
    Ok(PointM::new(r.f64(what)?, r.f64(what)?))
}

fn points(r: &mut ByteReader<'_>, what: &str) -> Result<Vec<PointM>, CookError> {
    let n = r.count(16, what)?;
    (0..n).map(|_| point(r, what)).collect()
}

fn strings(r: &mut ByteReader<'_>, what: &str) -> Result<Vec<String>, CookError> {
    let n = r.count(8, what)?;
    (0..n).map(|_| r.str(what)).collect()
}

fn named<T: Copy>(
    r: &mut ByteReader<'_>,
    what: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<T, CookError> {
    let text = r.str(what)?;
    all.iter()
        .copied()
        .find(|value| name(*value) == text)
        .ok_or_else(|| CookError::invalid(what, format!("unknown name `{text}`")))
}

fn rect_from_corners(r: &mut ByteReader<'_>, what: &str) -> Result<RectM, CookError> {
    let corners = points(r, what)?;
    match corners.as_slice() {
        [a, _, c, _] => Ok(RectM {
            min_x: a.x,
            min_y: a.y,
            max_x: c.x,
            max_y: c.y,
        }),
        _ => Err(CookError::invalid(
            what,
            format!("{} corners, not 4", corners.len()),
        )),
    }
}

fn decode_street(r: &mut ByteReader<'_>) -> Result<StreetBlock, CookError> {
    r.tag(b"STREET01", "street block tag")?;
    let (length_m, road_width_m, sidewalk_width_m) = (
        r.f64("length")?,
        r.f64("road width")?,
        r.f64("sidewalk width")?,
    );
    let space = decode_space(r)?;
    let mut surfaces = Vec::new();
    for _ in 0..r.count(24, "surfaces")? {
        surfaces.push(decode_surface(r)?);
    }
    let mut lanes = Vec::new();
    for _ in 0..r.count(40, "lanes")? {
        lanes.push(decode_lane(r)?);
    }
    let mut scatter_areas = Vec::new();
    for _ in 0..r.count(16, "scatter areas")? {
        let id = r.str("scatter area id")?;
        scatter_areas.push(ScatterArea {
            id,
            rect: rect_from_corners(r, "scatter area corners")?,
        });
    }
    let mut keep_outs = Vec::new();
    for _ in 0..r.count(16, "keep-outs")? {
        let id = r.str("keep-out id")?;
        keep_outs.push(KeepOut {
            id,
            rect: rect_from_corners(r, "keep-out corners")?,
        });
    }
    Ok(StreetBlock {
        length_m,
        road_width_m,
        sidewalk_width_m,
        space,
        surfaces,
        lanes,
        scatter_areas,
        keep_outs,
    })
}

/// The block's pedestrian space: routes, crosswalks, portals.
fn decode_space(r: &mut ByteReader<'_>) -> Result<PedestrianSpace, CookError> {
    let mut space = PedestrianSpace::default();
    for _ in 0..r.count(24, "routes")? {
        space.routes.push(Route {
            id: r.str("route id")?,
            kind: named(
                r,
                "route kind",
                &[RouteKind::Sidewalk, RouteKind::Crosswalk],
                RouteKind::name,
            )?,
            width_m: r.f64("route width")?,
            points: points(r, "route points")?,
        });
    }
    for _ in 0..r.count(44, "crosswalks")? {
        space.crosswalks.push(decode_crosswalk(r)?);
    }
    for _ in 0..r.count(36, "portals")? {
        space.portals.push(Portal {
            id: r.str("portal id")?,
            route: r.str("portal route")?,
            node: r.u32("portal node")?,
            position: point(r, "portal position")?,
        });
    }
    Ok(space)
}

fn decode_crosswalk(r: &mut ByteReader<'_>) -> Result<Crosswalk, CookError> {
    let (id, route, signal_id) = (r.str("crosswalk id")?, r.str("route")?, r.str("signal")?);
    let (width_m, lanes_crossed) = (r.f64("crosswalk width")?, r.u32("lanes crossed")?);
    let mut sides = Vec::new();
    for _ in 0..r.count(44, "crosswalk sides")? {
        sides.push(CrosswalkSide {
            sidewalk: r.str("side sidewalk")?,
            node: r.u32("side node")?,
            kerb: point(r, "kerb")?,
            waiting_point: point(r, "waiting point")?,
        });
    }
    Ok(Crosswalk {
        id,
        route,
        signal_id,
        width_m,
        lanes_crossed,
        sides,
    })
}

fn decode_surface(r: &mut ByteReader<'_>) -> Result<SurfacePolygon, CookError> {
    Ok(SurfacePolygon {
        id: r.str("surface id")?,
        kind: named(
            r,
            "surface kind",
            &[
                SurfaceKind::Road,
                SurfaceKind::Sidewalk,
                SurfaceKind::Crosswalk,
            ],
            SurfaceKind::name,
        )?,
        outline: points(r, "surface outline")?,
    })
}

fn decode_lane(r: &mut ByteReader<'_>) -> Result<VehicleLane, CookError> {
    Ok(VehicleLane {
        id: r.str("lane id")?,
        direction: named(
            r,
            "lane direction",
            &[LaneDirection::Eastbound, LaneDirection::Westbound],
            LaneDirection::name,
        )?,
        width_m: r.f64("lane width")?,
        centerline: points(r, "lane centerline")?,
        crosswalks: strings(r, "lane crosswalks")?,
    })
}

#[inline]
fn scatter_id(bits: u64, what: &str) -> Result<ScatterId, CookError> {
    match ScatterId::from_bits(bits) {
        Ok(id) => Ok(id),
        Err(e) => Err(bad_id(what, &e)),
    }
}

#[cold]
fn bad_id(what: &str, error: &crate::identity::PackError) -> CookError {
    CookError::invalid(what, error.to_string())
}

fn lattice_rect(r: &mut ByteReader<'_>, what: &str) -> Result<Rect, CookError> {
    Ok(Rect {
        min_x: r.i64(what)?,
        min_y: r.i64(what)?,
        max_x: r.i64(what)?,
        max_y: r.i64(what)?,
    })
}

/// The 8 bytes of `record` at `at` (a record whose length was checked).
#[inline]
fn le8(record: &[u8], at: usize) -> [u8; 8] {
    let mut out = [0u8; 8];
    if let Some(bytes) = record.get(at..at + 8) {
        out.copy_from_slice(bytes);
    }
    out
}

/// The 4 bytes of `record` at `at` (a record whose length was checked).
#[inline]
fn le4(record: &[u8], at: usize) -> [u8; 4] {
    let mut out = [0u8; 4];
    if let Some(bytes) = record.get(at..at + 4) {
        out.copy_from_slice(bytes);
    }
    out
}

/// Decodes `records` (each at least 32 bytes, whose length the caller took from the reader)
/// with `make`, given each record and the placement of its first 32 bytes (id, x, y, variant,
/// priority), into `out`. Every field fits, so only an id can be invalid: the first invalid one
/// fails the decode. The list is extended in one go (the records' count is known), which is what
/// makes decoding 100,000 placements cheap.
fn placements_into<T>(
    records: std::slice::ChunksExact<'_, u8>,
    make: impl Fn(&[u8], Placement) -> T,
    out: &mut Vec<T>,
) -> Result<(), CookError> {
    // Stands in for an invalid id until the decode fails (a room of 1 is valid).
    let placeholder = scatter_id(1 << 48, "placement id")?;
    let mut invalid: Option<u64> = None;
    out.extend(records.map(|record| {
        let bits = u64::from_le_bytes(le8(record, 0));
        let id = match ScatterId::from_bits(bits) {
            Ok(id) => id,
            Err(_) => {
                invalid.get_or_insert(bits);
                placeholder
            }
        };
        let placement = Placement {
            id,
            x: i64::from_le_bytes(le8(record, 8)),
            y: i64::from_le_bytes(le8(record, 16)),
            variant: u32::from_le_bytes(le4(record, 24)),
            priority: u32::from_le_bytes(le4(record, 28)),
        };
        make(record, placement)
    }));
    match invalid {
        Some(bits) => scatter_id(bits, "placement id").map(|_| ()),
        None => Ok(()),
    }
}

fn decode_output(r: &mut ByteReader<'_>) -> Result<ScatterOutput, CookError> {
    r.tag(b"SCATTER1", "scatter output tag")?;
    let mut output = ScatterOutput::default();
    let n = r.count(32, "placements")?;
    // The count was checked against the bytes left, so the records are taken at once.
    let records = r.take(n * 32, "placements")?;
    output.placements.reserve_exact(n);
    placements_into(
        records.chunks_exact(32),
        |_, placement| placement,
        &mut output.placements,
    )?;
    let rejected = r.count(25, "rejected candidates")?;
    // The count was checked against the bytes left (25 bytes at least each).
    output.rejected.reserve_exact(rejected);
    for _ in 0..rejected {
        let id = scatter_id(r.u64("rejected id")?, "rejected id")?;
        let (x, y) = (r.i64("rejected x")?, r.i64("rejected y")?);
        let reason = match r.u8("rejection reason")? {
            0 => RejectReason::OutsideRegion,
            1 => RejectReason::InKeepOut {
                keep_out: r.u32("keep-out index")?,
            },
            2 => RejectReason::Conflict {
                with: scatter_id(r.u64("conflict winner")?, "conflict winner")?,
            },
            other => {
                return Err(CookError::invalid(
                    "rejection reason",
                    format!("unknown reason tag {other}"),
                ))
            }
        };
        output
            .rejected
            .push(RejectedCandidate::new(id, x, y, reason));
    }
    Ok(output)
}

fn decode_scatter(r: &mut ByteReader<'_>) -> Result<ScatterProduct, CookError> {
    r.tag(b"SCATPRD1", "scatter product tag")?;
    let family = r.str("family")?;
    let variant_ids = strings(r, "variant ids")?;
    let lattice_unit_m = r.f64("lattice unit")?;
    let cell_size = r.i64("cell size")?;
    let candidates_per_cell = r.u32("candidates per cell")?;
    let area_stage = match r.u64("area stage")? {
        u64::MAX => None,
        id => {
            Some(u32::try_from(id).map_err(|_| CookError::invalid("area stage", format!("{id}")))?)
        }
    };
    let mut layers = Vec::new();
    for _ in 0..r.count(59, "layers")? {
        let (layer, room) = (r.u8("layer id")?, r.u16("room")?);
        let area = r.str("layer area")?;
        let region = lattice_rect(r, "layer region")?;
        let mut keep_outs = Vec::new();
        for _ in 0..r.count(32, "layer keep-outs")? {
            keep_outs.push(lattice_rect(r, "layer keep-out")?);
        }
        let len = r.count(1, "layer output length")?;
        let mut inner = ByteReader::new(r.take(len, "layer output")?);
        let output = decode_output(&mut inner)?;
        inner.finish("layer output")?;
        layers.push(ScatterLayer {
            layer,
            room,
            area: (!area.is_empty()).then_some(area),
            region,
            keep_outs,
            output,
        });
    }
    Ok(ScatterProduct {
        family,
        variant_ids,
        lattice_unit_m,
        cell_size,
        candidates_per_cell,
        area_stage,
        layers,
    })
}

fn decode_placed(r: &mut ByteReader<'_>) -> Result<PlacedProduct, CookError> {
    r.tag(b"PLACEPR1", "placed product tag")?;
    let family = r.str("family")?;
    let variant_ids = strings(r, "variant ids")?;
    let lattice_unit_m = r.f64("lattice unit")?;
    let scale_unit = r.f64("scale unit")?;
    let placements_stage = r.u32("placements stage")?;
    let n = r.count(38, "placed objects")?;
    // The count was checked against the bytes left, so the records are taken at once.
    let records = r.take(n * 38, "placed objects")?;
    let mut objects = Vec::with_capacity(n);
    placements_into(
        records.chunks_exact(38),
        |record, placement| PlacedObject {
            placement,
            rotation_turns_65536: u16::from_le_bytes([
                record.get(32).copied().unwrap_or(0),
                record.get(33).copied().unwrap_or(0),
            ]),
            scale: u32::from_le_bytes(le4(record, 34)),
        },
        &mut objects,
    )?;
    Ok(PlacedProduct {
        family,
        variant_ids,
        lattice_unit_m,
        scale_unit,
        placements_stage,
        objects,
    })
}

fn decode_assembly(r: &mut ByteReader<'_>) -> Result<crate::content::AssemblyPlan, CookError> {
    r.tag(b"ASSEMBL1", "assembly plan tag")?;
    let family = r.str("family")?;
    let variant_ids = strings(r, "variant ids")?;
    let sockets = strings(r, "sockets")?;
    let lattice_unit_m = r.f64("lattice unit")?;
    let n = r.count(30, "modules")?;
    let mut modules = Vec::with_capacity(n);
    for _ in 0..n {
        let bits = r.u64("module id")?;
        let id = crate::identity::ScatterId::from_bits(bits)
            .map_err(|_| CookError::invalid("module id", format!("{bits:#018x} has room 0")))?;
        modules.push(crate::content::AssemblyModule {
            id,
            x: r.i64("module x")?,
            y: r.i64("module y")?,
            variant: r.u32("module variant")?,
            rotation_turns_65536: r.u16("module rotation")?,
        });
    }
    Ok(crate::content::AssemblyPlan {
        family,
        variant_ids,
        sockets,
        lattice_unit_m,
        modules,
    })
}

fn grid_cells(w: &mut ByteWriter, cells: &[GridCell]) {
    w.count(cells.len());
    for cell in cells {
        w.u32(cell.x).u32(cell.y);
    }
}

fn read_grid_cell(r: &mut ByteReader<'_>, what: &str) -> Result<GridCell, CookError> {
    Ok(GridCell::new(r.u32(what)?, r.u32(what)?))
}

fn read_grid_cells(r: &mut ByteReader<'_>, what: &str) -> Result<Vec<GridCell>, CookError> {
    let n = r.count(8, what)?;
    (0..n).map(|_| read_grid_cell(r, what)).collect()
}

fn role_code(role: ChunkRole) -> u8 {
    ChunkRole::ALL
        .iter()
        .position(|r| *r == role)
        .map_or(u8::MAX, |i| i as u8)
}

fn encode_mission(mission: &MissionProduct) -> Vec<u8> {
    let layout = &mission.layout;
    let mut w = ByteWriter::tagged(b"MISSCK01");
    w.f64(mission.cell_size_m)
        .u64(layout.seed)
        .u32(layout.attempt)
        .u64(layout.attempt_seed)
        .u32(layout.width)
        .u32(layout.height)
        .u32(layout.spawn.x)
        .u32(layout.spawn.y)
        .u32(layout.extraction.x)
        .u32(layout.extraction.y);
    grid_cells(&mut w, &layout.objectives);
    w.count(layout.chunks.len());
    for chunk in &layout.chunks {
        w.u32(chunk.cell.x)
            .u32(chunk.cell.y)
            .u8(role_code(chunk.role))
            .str(&chunk.chunk_id)
            .bool(chunk.blocks_traversal)
            .bool(chunk.npc_spawn_tag);
    }
    grid_cells(&mut w, &layout.bot_path);
    grid_cells(&mut w, &layout.npc_cells);
    match &layout.daily {
        Some(daily) => w.u8(1).str(&daily.cell_id).str(&daily.date_id),
        None => w.u8(0),
    };
    w.finish()
}

fn decode_mission(r: &mut ByteReader<'_>) -> Result<MissionProduct, CookError> {
    r.tag(b"MISSCK01", "mission layout tag")?;
    let cell_size_m = r.f64("cell size")?;
    let (seed, attempt, attempt_seed) = (r.u64("seed")?, r.u32("attempt")?, r.u64("attempt seed")?);
    let (width, height) = (r.u32("width")?, r.u32("height")?);
    let spawn = read_grid_cell(r, "spawn")?;
    let extraction = read_grid_cell(r, "extraction")?;
    let objectives = read_grid_cells(r, "objectives")?;
    let mut chunks = Vec::new();
    for _ in 0..r.count(19, "chunks")? {
        let cell = read_grid_cell(r, "chunk cell")?;
        let code = r.u8("chunk role")?;
        let role = *ChunkRole::ALL
            .get(usize::from(code))
            .ok_or_else(|| CookError::invalid("chunk role", format!("unknown role {code}")))?;
        chunks.push(MissionChunk {
            cell,
            role,
            chunk_id: r.str("chunk id")?,
            blocks_traversal: r.bool("blocks traversal")?,
            npc_spawn_tag: r.bool("npc spawn tag")?,
        });
    }
    let bot_path = read_grid_cells(r, "bot path")?;
    let npc_cells = read_grid_cells(r, "npc cells")?;
    let daily = match r.u8("daily flag")? {
        0 => None,
        1 => Some(DailyKey {
            cell_id: r.str("daily cell")?,
            date_id: r.str("daily date")?,
        }),
        other => return Err(CookError::invalid("daily flag", format!("{other}"))),
    };
    Ok(MissionProduct {
        cell_size_m,
        layout: MissionLayout {
            seed,
            attempt,
            attempt_seed,
            width,
            height,
            spawn,
            extraction,
            objectives,
            chunks,
            bot_path,
            npc_cells,
            daily,
        },
    })
}

fn streaming_cells(r: &mut ByteReader<'_>, what: &str) -> Result<Vec<StreamingCell>, CookError> {
    let n = r.count(8, what)?;
    (0..n)
        .map(|_| Ok(StreamingCell::new(r.u32(what)? as i32, r.u32(what)? as i32)))
        .collect()
}

fn decode_streaming(r: &mut ByteReader<'_>) -> Result<StreamingProduct, CookError> {
    r.tag(b"STREAM01", "streaming plan tag")?;
    let cell_size_m = r.f64("cell size")?;
    let observer_m = point(r, "observer")?;
    let observer = streaming_cells(r, "observer cell")?;
    let [observer_cell] = observer.as_slice() else {
        return Err(CookError::invalid(
            "observer cell",
            format!("{} cells, not 1", observer.len()),
        ));
    };
    let observer_cell = *observer_cell;
    Ok(StreamingProduct {
        cell_size_m,
        observer_m,
        plan: StreamingPlan {
            observer_cell,
            loaded_cells: streaming_cells(r, "loaded cells")?,
            hlod_cells: streaming_cells(r, "hlod cells")?,
            hlod_pruned_cells: streaming_cells(r, "pruned cells")?,
            hlod_requested_mb: r.u64("requested MB")?,
            hlod_estimated_mb: r.u64("estimated MB")?,
            hlod_budget_mb: r.u64("budget MB")?,
        },
    })
}
