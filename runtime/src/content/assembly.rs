//! The `AssemblyPlan` product: modules of a module family placed in the sockets of a repeated
//! frame (`assembly` operator), with stable part identities, asset choices, sockets and transforms.

use super::encode::ByteWriter;
use crate::identity::ScatterId;

/// One placed module of an [`AssemblyPlan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssemblyModule {
    /// Packed identity: room, layer, frame (cell x), row 0 (cell y), slot (candidate index).
    pub id: ScatterId,
    /// Position of the slot's centre, lattice units.
    pub x: i64,
    /// Position of the slot's centre, lattice units.
    pub y: i64,
    /// Index of the chosen module in the family's variants.
    pub variant: u32,
    /// Rotation about the up axis, 1/65536 turns.
    pub rotation_turns_65536: u16,
}

impl AssemblyModule {
    /// The frame (along the row) the module is in.
    pub const fn frame(&self) -> i16 {
        self.id.cell_x()
    }

    /// The slot of its frame, which names its socket.
    pub const fn slot(&self) -> u8 {
        self.id.candidate()
    }
}

/// The product of `assembly`: modules ordered by (frame, slot).
#[derive(Debug, Clone, PartialEq)]
pub struct AssemblyPlan {
    /// The module family.
    pub family: String,
    /// The family's variant ids (asset ids), in family order.
    pub variant_ids: Vec<String>,
    /// The socket type of each slot of a frame, in slot order.
    pub sockets: Vec<String>,
    /// Meters per lattice unit.
    pub lattice_unit_m: f64,
    /// The placed modules, by (frame, slot) ascending; deleted ones are absent.
    pub modules: Vec<AssemblyModule>,
}

impl AssemblyPlan {
    /// The socket type module `module` sits in.
    pub fn socket_of(&self, module: &AssemblyModule) -> &str {
        self.sockets
            .get(usize::from(module.slot()))
            .map_or("", String::as_str)
    }

    /// The module with identity `id`, if placed.
    pub fn module(&self, id: u64) -> Option<&AssemblyModule> {
        self.position_of(id).map(|at| &self.modules[at])
    }

    /// The index of the module with identity `id`, if placed.
    pub fn position_of(&self, id: u64) -> Option<usize> {
        self.modules
            .binary_search_by_key(&order_key(id), |m| order_key(m.id.bits()))
            .ok()
            .filter(|&at| self.modules[at].id.bits() == id)
    }

    /// The canonical encoding: `"ASSEMBL1"`, family, variant ids, sockets, unit, then one
    /// 30-byte record per module (id, x, y, variant, rotation).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut w = ByteWriter::tagged(b"ASSEMBL1");
        w.str(&self.family).count(self.variant_ids.len());
        for id in &self.variant_ids {
            w.str(id);
        }
        w.count(self.sockets.len());
        for socket in &self.sockets {
            w.str(socket);
        }
        w.f64(self.lattice_unit_m).count(self.modules.len());
        let mut bytes = w.finish();
        bytes.reserve(self.modules.len() * 30);
        for m in &self.modules {
            bytes.extend_from_slice(&m.id.bits().to_le_bytes());
            bytes.extend_from_slice(&m.x.to_le_bytes());
            bytes.extend_from_slice(&m.y.to_le_bytes());
            bytes.extend_from_slice(&m.variant.to_le_bytes());
            bytes.extend_from_slice(&m.rotation_turns_65536.to_le_bytes());
        }
        bytes
    }
}

/// The canonical order of a packed identity in a plan: frame (signed), then slot.
pub fn order_key(id: u64) -> (i16, u8) {
    let id = ScatterId::from_bits(id).ok();
    id.map_or((i16::MIN, 0), |id| (id.cell_x(), id.candidate()))
}
