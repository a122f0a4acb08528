//! Persistent identities of generated objects, and the packed 64-bit scatter identity.
//!
//! A generated object is identified by a tuple — recipe instance, parent, emitting stage, semantic
//! child key ([`ObjectIdentity`]) — never by an array position, pointer, worker id or cache path.
//! Scatter placements additionally pack their child key into 64 bits ([`ScatterKey`],
//! [`ScatterId`]), which is both their identity and their RNG address scope:
//!
//! | bits  | field     | range                                   |
//! | ----- | --------- | --------------------------------------- |
//! | 63-48 | room      | 1..=65535                               |
//! | 47-40 | layer     | 0..=255                                 |
//! | 39-32 | candidate | 0..=127 generated, 128..=255 authored    |
//! | 31-16 | cell X    | `i16`, stored as its two's-complement bits |
//! | 15-0  | cell Y    | `i16`, stored as its two's-complement bits |
//!
//! The packing is injective within these ranges; values outside them are errors, never truncated.
//!
//! The candidate field is split in two spaces. Indices below [`AUTHORED_CANDIDATE_MIN`] are the
//! generator's (a layer draws at most that many candidates per cell, so no generation parameter
//! reaches past it); indices from it up are authored objects' (`Add` overrides), allocated by
//! [`authored_id`]. An authored identity keeps the room, layer and cell of where it was added, so
//! it belongs to its layer, but no change of cell size, candidate count or seed makes the
//! generator emit it.

use std::fmt;
use std::num::NonZeroU16;

use thiserror::Error;

/// The identity of one instance of a recipe in a project (distinguishes repeated uses).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecipeInstanceId(pub String);

/// The persistent numeric id of an authored recipe stage (survives reordering and relabelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StageId(pub u32);

/// The semantic key of a child within its parent and emitting stage.
///
/// Search attempts never appear here: a key names what the object *is* (a scatter candidate, a grid
/// cell, a grammar slot), not how many tries it took.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChildKey {
    /// A scatter candidate: room, layer, cell and candidate index, packed.
    Scatter(ScatterId),
    /// A cell of a grid layout (e.g. a mission chunk).
    GridCell {
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// A named production or slot of a grammar (e.g. `"floor-2/bay-3"`).
    Slot(String),
}

/// The identity of a generated object: recipe instance, parent, emitting stage, semantic child key.
///
/// The parent is the identity of the object this one was generated under; root objects have none.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectIdentity {
    /// The recipe instance that generated the object.
    pub recipe_instance: RecipeInstanceId,
    /// The object this one was generated under, if any.
    pub parent: Option<Box<ObjectIdentity>>,
    /// The stage that emitted the object.
    pub stage: StageId,
    /// The object's key among its siblings.
    pub child_key: ChildKey,
}

impl ObjectIdentity {
    /// A root object (no parent).
    pub fn root(recipe_instance: RecipeInstanceId, stage: StageId, child_key: ChildKey) -> Self {
        ObjectIdentity {
            recipe_instance,
            parent: None,
            stage,
            child_key,
        }
    }

    /// A child of `parent`, in the parent's recipe instance.
    pub fn child(parent: &ObjectIdentity, stage: StageId, child_key: ChildKey) -> Self {
        ObjectIdentity {
            recipe_instance: parent.recipe_instance.clone(),
            parent: Some(Box::new(parent.clone())),
            stage,
            child_key,
        }
    }
}

/// A packed 64-bit scatter identity (see the module docs for the bit layout).
///
/// Only [`ScatterKey::pack`] and [`ScatterId::from_bits`] make one (and, inside the crate, bits
/// that came from one), so a value always unpacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScatterId(u64);

impl ScatterId {
    /// The raw 64 bits (also the RNG address scope of the candidate).
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Checks raw bits: the room field must be nonzero.
    pub fn from_bits(bits: u64) -> Result<ScatterId, PackError> {
        if bits >> 48 == 0 {
            return Err(PackError::Room { room: 0 });
        }
        Ok(ScatterId(bits))
    }

    /// Raw bits the caller knows to have a nonzero room (bits 48..64), as
    /// [`ScatterId::from_bits`] would accept.
    pub(crate) const fn from_room_bits(bits: u64) -> ScatterId {
        ScatterId(bits)
    }

    /// The column of the candidate's cell.
    pub const fn cell_x(self) -> i16 {
        (self.0 >> 16) as u16 as i16
    }

    /// The row of the candidate's cell.
    pub const fn cell_y(self) -> i16 {
        self.0 as u16 as i16
    }

    /// The candidate's index within its cell.
    pub const fn candidate(self) -> u8 {
        (self.0 >> 32) as u8
    }

    /// Whether this is an authored object's identity (candidate index in the authored space,
    /// which the generator never emits).
    pub const fn is_authored(self) -> bool {
        self.candidate() >= AUTHORED_CANDIDATE_MIN
    }

    /// The canonical order of records: (cell Y, cell X, candidate).
    pub const fn canonical_key(self) -> (i16, i16, u8) {
        (self.cell_y(), self.cell_x(), self.candidate())
    }

    /// The fields of this identity.
    pub fn unpack(self) -> ScatterKey {
        let room = (self.0 >> 48) as u16;
        ScatterKey {
            // `from_bits` and `pack` guarantee a nonzero room; MIN is unreachable.
            room: NonZeroU16::new(room).unwrap_or(NonZeroU16::MIN),
            layer: (self.0 >> 40) as u8,
            candidate: self.candidate(),
            cell_x: self.cell_x(),
            cell_y: self.cell_y(),
        }
    }
}

impl fmt::Display for ScatterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&identity_text(self.0))
    }
}

/// How a packed identity is written wherever people read it (the command line, the editor's
/// panels, diagnostics): `0x` and 16 lowercase hex digits (`0x0001000000010000`), whatever the
/// bits hold. Override files keep their decimal `target:` numbers.
pub fn identity_text(bits: u64) -> String {
    format!("{bits:#018x}")
}

/// The unpacked fields of a scatter identity, in their exact widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScatterKey {
    /// Room (or recipe instance) ordinal, 1..=65535.
    pub room: NonZeroU16,
    /// Authored layer id.
    pub layer: u8,
    /// Candidate index within its cell.
    pub candidate: u8,
    /// Cell column.
    pub cell_x: i16,
    /// Cell row.
    pub cell_y: i16,
}

impl ScatterKey {
    /// Checks wide values against the field ranges; nothing is truncated.
    pub fn try_new(
        room: u32,
        layer: u32,
        candidate: u32,
        cell_x: i64,
        cell_y: i64,
    ) -> Result<ScatterKey, PackError> {
        let room = u16::try_from(room)
            .ok()
            .and_then(NonZeroU16::new)
            .ok_or(PackError::Room { room })?;
        let layer = u8::try_from(layer).map_err(|_| PackError::Layer { layer })?;
        let candidate = u8::try_from(candidate).map_err(|_| PackError::Candidate { candidate })?;
        let cell_x = i16::try_from(cell_x).map_err(|_| PackError::CellX { cell_x })?;
        let cell_y = i16::try_from(cell_y).map_err(|_| PackError::CellY { cell_y })?;
        Ok(ScatterKey {
            room,
            layer,
            candidate,
            cell_x,
            cell_y,
        })
    }

    /// Packs the fields into 64 bits (exact: the field types are the field widths).
    pub fn pack(self) -> ScatterId {
        ScatterId(
            u64::from(self.room.get()) << 48
                | u64::from(self.layer) << 40
                | u64::from(self.candidate) << 32
                | u64::from(self.cell_x as u16) << 16
                | u64::from(self.cell_y as u16),
        )
    }
}

/// The first candidate index of the authored space: generated candidates are `0..128` (the most a
/// layer draws per cell), authored objects `128..=255`.
pub const AUTHORED_CANDIDATE_MIN: u8 = 128;

/// The authored identity in room `room`, layer `layer`, cell (`cell_x`, `cell_y`) with the lowest
/// authored candidate index that `used` (packed identities already given out) does not hold;
/// `None` when the fields do not pack or all 128 authored indices of the cell are used.
pub fn authored_id(
    room: u32,
    layer: u32,
    cell_x: i64,
    cell_y: i64,
    used: &[u64],
) -> Option<ScatterId> {
    (u32::from(AUTHORED_CANDIDATE_MIN)..=255)
        .filter_map(|candidate| pack_scatter_id(room, layer, candidate, cell_x, cell_y).ok())
        .find(|id| !used.contains(&id.bits()))
}

/// Packs wide values into a scatter identity, rejecting anything out of range.
pub fn pack_scatter_id(
    room: u32,
    layer: u32,
    candidate: u32,
    cell_x: i64,
    cell_y: i64,
) -> Result<ScatterId, PackError> {
    Ok(ScatterKey::try_new(room, layer, candidate, cell_x, cell_y)?.pack())
}

/// A value that does not fit its field of the packed scatter identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PackError {
    /// The room is outside 1..=65535.
    #[error("room {room} is outside 1..=65535")]
    Room {
        /// The rejected room.
        room: u32,
    },
    /// The layer is outside 0..=255.
    #[error("layer {layer} is outside 0..=255")]
    Layer {
        /// The rejected layer.
        layer: u32,
    },
    /// The candidate index is outside 0..=255.
    #[error("candidate {candidate} is outside 0..=255")]
    Candidate {
        /// The rejected candidate index.
        candidate: u32,
    },
    /// The cell column does not fit `i16`.
    #[error("cell x {cell_x} does not fit i16")]
    CellX {
        /// The rejected column.
        cell_x: i64,
    },
    /// The cell row does not fit `i16`.
    #[error("cell y {cell_y} does not fit i16")]
    CellY {
        /// The rejected row.
        cell_y: i64,
    },
}

/// The persistent id of a simulated agent: the index of its population source and its birth
/// ordinal within that source, packed as `source << 32 | ordinal`. Read it through the accessors,
/// never by shifting bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(u64);

impl AgentId {
    /// The id of the `ordinal`-th agent born from source `source_index`.
    pub const fn new(source_index: u32, ordinal: u32) -> AgentId {
        AgentId(((source_index as u64) << 32) | ordinal as u64)
    }

    /// The id whose packed bits are `bits` (every `u64` is one).
    pub const fn from_bits(bits: u64) -> AgentId {
        AgentId(bits)
    }

    /// The packed bits.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The index of the agent's population source in its scenario.
    pub const fn source_index(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The agent's birth ordinal within its source.
    pub const fn ordinal(self) -> u32 {
        self.0 as u32
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}#{}", self.source_index(), self.ordinal())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_round_trip(room: u32, layer: u32, candidate: u32, x: i64, y: i64, bits: u64) {
        let id = pack_scatter_id(room, layer, candidate, x, y);
        assert_eq!(id.map(ScatterId::bits), Ok(bits));
        let key = ScatterId::from_bits(bits).map(ScatterId::unpack);
        let expected = ScatterKey::try_new(room, layer, candidate, x, y);
        assert_eq!(key, expected);
        let key = key.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (
                u32::from(key.room.get()),
                u32::from(key.layer),
                u32::from(key.candidate),
                i64::from(key.cell_x),
                i64::from(key.cell_y)
            ),
            (room, layer, candidate, x, y)
        );
    }

    #[test]
    fn packs_fields_into_the_documented_bits() {
        check_round_trip(1, 0, 0, 0, 0, 0x0001_0000_0000_0000);
        check_round_trip(0xABCD, 0x12, 0x34, 0x5678, 0x1234, 0xABCD_1234_5678_1234);
        check_round_trip(65535, 255, 255, 32767, 32767, 0xFFFF_FFFF_7FFF_7FFF);
    }

    #[test]
    fn negative_cells_pack_as_twos_complement_bits() {
        check_round_trip(3, 1, 2, -1, -1, 0x0003_0102_FFFF_FFFF);
        check_round_trip(3, 1, 2, -32768, 5, 0x0003_0102_8000_0005);
        check_round_trip(3, 1, 2, 7, -2, 0x0003_0102_0007_FFFE);
    }

    #[test]
    fn out_of_range_values_are_errors_not_truncations() {
        assert_eq!(
            pack_scatter_id(0, 0, 0, 0, 0),
            Err(PackError::Room { room: 0 })
        );
        assert_eq!(
            pack_scatter_id(65536, 0, 0, 0, 0),
            Err(PackError::Room { room: 65536 })
        );
        assert_eq!(
            pack_scatter_id(1, 256, 0, 0, 0),
            Err(PackError::Layer { layer: 256 })
        );
        assert_eq!(
            pack_scatter_id(1, 0, 256, 0, 0),
            Err(PackError::Candidate { candidate: 256 })
        );
        assert_eq!(
            pack_scatter_id(1, 0, 0, 32768, 0),
            Err(PackError::CellX { cell_x: 32768 })
        );
        assert_eq!(
            pack_scatter_id(1, 0, 0, 0, -32769),
            Err(PackError::CellY { cell_y: -32769 })
        );
        assert_eq!(
            ScatterId::from_bits(0x0000_FFFF_FFFF_FFFF),
            Err(PackError::Room { room: 0 })
        );
    }

    #[test]
    fn packing_is_injective_on_a_sample() {
        let mut seen = std::collections::BTreeSet::new();
        for room in [1u32, 2, 65535] {
            for layer in [0u32, 1, 255] {
                for candidate in [0u32, 1, 255] {
                    for x in [-32768i64, -1, 0, 1, 32767] {
                        for y in [-32768i64, -1, 0, 1, 32767] {
                            let id = pack_scatter_id(room, layer, candidate, x, y);
                            assert!(id.is_ok());
                            assert!(seen.insert(id.map(ScatterId::bits).ok()));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn authored_identities_take_the_lowest_free_index_of_the_authored_space() {
        let first = authored_id(1, 0, 3, -2, &[]).map(ScatterId::bits);
        assert_eq!(first, Some(0x0001_0080_0003_FFFE));
        let taken = [0x0001_0080_0003_FFFE, 0x0001_0081_0003_FFFE];
        let third = authored_id(1, 0, 3, -2, &taken).map(ScatterId::bits);
        assert_eq!(third, Some(0x0001_0082_0003_FFFE));
        let all: Vec<u64> = (128..=255)
            .filter_map(|k| pack_scatter_id(1, 0, k, 0, 0).ok().map(ScatterId::bits))
            .collect();
        assert_eq!(authored_id(1, 0, 0, 0, &all), None);
        let id = authored_id(7, 2, 0, 0, &[]).map(|id| (id.is_authored(), id.candidate()));
        assert_eq!(id, Some((true, 128)));
        let generated = pack_scatter_id(7, 2, 127, 0, 0).map(ScatterId::is_authored);
        assert_eq!(generated, Ok(false));
    }

    #[test]
    fn identities_nest_parents() {
        let root = ObjectIdentity::root(
            RecipeInstanceId("blocks/north".into()),
            StageId(1001),
            ChildKey::GridCell { x: 2, y: -1 },
        );
        let child = ObjectIdentity::child(&root, StageId(1002), ChildKey::Slot("bay-3".into()));
        assert_eq!(child.recipe_instance, root.recipe_instance);
        assert_eq!(child.parent.as_deref(), Some(&root));
        assert_ne!(child, root);
    }

    #[test]
    fn agent_ids_pack_source_and_ordinal() {
        let id = AgentId::new(3, 0xffff_fffe);
        assert_eq!(id.bits(), 0x0000_0003_ffff_fffe);
        assert_eq!(AgentId::from_bits(id.bits()), id);
        assert_eq!((id.source_index(), id.ordinal()), (3, 0xffff_fffe));
        assert_eq!(AgentId::new(u32::MAX, 0).source_index(), u32::MAX);
        assert_eq!(id.to_string(), "agent 3#4294967294");
    }
}
