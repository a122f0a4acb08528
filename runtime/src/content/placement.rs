//! Scatter products: accepted placements, rejected candidates with reasons, placed objects.
//!
//! Positions are integer lattice units; the recipe maps them to meters. Lists are in canonical order:
//! cell Y, then cell X, then candidate index, all ascending.

use crate::identity::ScatterId;
use thiserror::Error;

/// An accepted scatter candidate, before select-and-place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Packed identity (room, layer, candidate, cell); also the RNG scope of its draws.
    pub id: ScatterId,
    /// Column of the cell the candidate belongs to.
    pub cell_x: i16,
    /// Row of the cell the candidate belongs to.
    pub cell_y: i16,
    /// Candidate index within its cell.
    pub candidate: u8,
    /// Lattice x position.
    pub x: i64,
    /// Lattice y position.
    pub y: i64,
    /// Index of the chosen variant in the family's variant order.
    pub variant: u32,
    /// Sampled thinning priority (ties broken by the packed id).
    pub priority: u32,
}

impl Placement {
    /// Appends the placement's 32-byte canonical record: id (u64), x (i64), y (i64), variant
    /// (u32), priority (u32), little-endian (the scatter and placed-object encodings share it).
    #[inline]
    pub fn encode_into(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.record());
    }

    /// The placement's 32-byte canonical record (see [`Placement::encode_into`]), built in place
    /// so that a list of placements encodes with one copy per record.
    #[inline]
    pub fn record(&self) -> [u8; 32] {
        let mut record = [0; 32];
        record[0..8].copy_from_slice(&self.id.bits().to_le_bytes());
        record[8..16].copy_from_slice(&self.x.to_le_bytes());
        record[16..24].copy_from_slice(&self.y.to_le_bytes());
        record[24..28].copy_from_slice(&self.variant.to_le_bytes());
        record[28..32].copy_from_slice(&self.priority.to_le_bytes());
        record
    }

    /// The canonical sort key: (cell Y, cell X, candidate).
    pub fn canonical_key(&self) -> (i16, i16, u8) {
        (self.cell_y, self.cell_x, self.candidate)
    }
}

/// Why a scatter candidate was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectReason {
    /// The position lies outside the layer's region.
    OutsideRegion,
    /// The position lies inside a keep-out rectangle (the lowest index of those containing it).
    InKeepOut {
        /// Index of the keep-out in the layer's keep-out list.
        keep_out: u32,
    },
    /// The candidate conflicts with an eligible candidate of higher (priority, packed id); `with` is
    /// the highest of those.
    Conflict {
        /// The winning candidate.
        with: ScatterId,
    },
}

/// A scatter candidate that was not accepted, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RejectedCandidate {
    /// Packed identity of the candidate.
    pub id: ScatterId,
    /// Column of its cell.
    pub cell_x: i16,
    /// Row of its cell.
    pub cell_y: i16,
    /// Candidate index within its cell.
    pub candidate: u8,
    /// Lattice x position.
    pub x: i64,
    /// Lattice y position.
    pub y: i64,
    /// Why it was rejected.
    pub reason: RejectReason,
}

impl RejectedCandidate {
    /// The candidate's canonical record and its length (25, 29 or 33 bytes): id (u64), x (i64),
    /// y (i64), reason tag (u8: 0 outside region, 1 keep-out, 2 conflict), then the keep-out
    /// index (u32) or the winner's id (u64), little-endian.
    #[inline]
    pub fn record(&self) -> ([u8; 33], usize) {
        let mut record = [0; 33];
        record[0..8].copy_from_slice(&self.id.bits().to_le_bytes());
        record[8..16].copy_from_slice(&self.x.to_le_bytes());
        record[16..24].copy_from_slice(&self.y.to_le_bytes());
        let len = match self.reason {
            RejectReason::OutsideRegion => 25,
            RejectReason::InKeepOut { keep_out } => {
                record[24] = 1;
                record[25..29].copy_from_slice(&keep_out.to_le_bytes());
                29
            }
            RejectReason::Conflict { with } => {
                record[24] = 2;
                record[25..33].copy_from_slice(&with.bits().to_le_bytes());
                33
            }
        };
        (record, len)
    }

    /// The canonical sort key: (cell Y, cell X, candidate).
    pub fn canonical_key(&self) -> (i16, i16, u8) {
        (self.cell_y, self.cell_x, self.candidate)
    }
}

/// The result of scattering one layer over a range of cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScatterOutput {
    /// Accepted candidates in canonical order.
    pub placements: Vec<Placement>,
    /// Rejected candidates of the requested cells, in canonical order.
    pub rejected: Vec<RejectedCandidate>,
}

/// Bytes an encoding streamed to a digest gathers before handing them on.
pub(crate) const ENCODE_CHUNK: usize = 1 << 16;

/// Version tag at the start of [`ScatterOutput::canonical_bytes`].
const SCATTER_OUTPUT_MAGIC: &[u8; 8] = b"SCATTER1";
/// Version tag at the start of the encoding hashed by [`digest_placed`].
const PLACED_MAGIC: &[u8; 8] = b"PLACED01";

impl ScatterOutput {
    /// Merges outputs of disjoint cell ranges into canonical order.
    ///
    /// Fails if two parts contain the same candidate (overlapping ranges).
    pub fn merge(
        parts: impl IntoIterator<Item = ScatterOutput>,
    ) -> Result<ScatterOutput, MergeError> {
        let mut merged = ScatterOutput::default();
        for part in parts {
            merged.placements.extend(part.placements);
            merged.rejected.extend(part.rejected);
        }
        merged.placements.sort_by_key(Placement::canonical_key);
        merged
            .rejected
            .sort_by_key(RejectedCandidate::canonical_key);
        if let Some(pair) = merged
            .placements
            .windows(2)
            .find(|pair| pair[0].canonical_key() == pair[1].canonical_key())
        {
            return Err(MergeError::Duplicate { id: pair[0].id });
        }
        if let Some(pair) = merged
            .rejected
            .windows(2)
            .find(|pair| pair[0].canonical_key() == pair[1].canonical_key())
        {
            return Err(MergeError::Duplicate { id: pair[0].id });
        }
        Ok(merged)
    }

    /// The canonical byte encoding, all integers little-endian:
    /// `"SCATTER1"`, placement count (u64), per placement id (u64) x (i64) y (i64) variant (u32)
    /// priority (u32); rejected count (u64), per rejection id (u64) x (i64) y (i64) reason tag (u8:
    /// 0 outside region, 1 keep-out, 2 conflict) then keep-out index (u32) or winner id (u64).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut |chunk| bytes.extend_from_slice(chunk));
        bytes
    }

    /// The length of [`ScatterOutput::canonical_bytes`], without encoding.
    pub fn encoded_len(&self) -> usize {
        let rejected: usize = self
            .rejected
            .iter()
            .map(|r| match r.reason {
                RejectReason::OutsideRegion => 25,
                RejectReason::InKeepOut { .. } => 29,
                RejectReason::Conflict { .. } => 33,
            })
            .sum();
        24 + self.placements.len() * 32 + rejected
    }

    /// Feeds [`ScatterOutput::canonical_bytes`] to `sink` in chunks of a few tens of kilobytes,
    /// so a digest never holds the whole encoding in memory.
    pub fn encode_into(&self, sink: &mut dyn FnMut(&[u8])) {
        self.encode_chunked(ENCODE_CHUNK, sink);
    }

    /// [`ScatterOutput::encode_into`] in chunks of about `chunk` bytes (at least one record).
    pub fn encode_chunked(&self, chunk: usize, sink: &mut dyn FnMut(&[u8])) {
        let mut bytes: Vec<u8> = Vec::with_capacity(chunk + 64);
        bytes.extend_from_slice(SCATTER_OUTPUT_MAGIC);
        bytes.extend_from_slice(&(self.placements.len() as u64).to_le_bytes());
        // Records are built whole and appended with one fixed-size copy each (a rejection's
        // 33 bytes, then cut back to its length), so no record costs a variable-length copy.
        for group in self.placements.chunks((chunk / 32).max(1)) {
            bytes.reserve(group.len() * 32);
            for placement in group {
                bytes.extend_from_slice(&placement.record());
            }
            if bytes.len() >= chunk {
                sink(&bytes);
                bytes.clear();
            }
        }
        bytes.extend_from_slice(&(self.rejected.len() as u64).to_le_bytes());
        for group in self.rejected.chunks((chunk / 33).max(1)) {
            bytes.reserve(group.len() * 33);
            for rejected in group {
                let (record, len) = rejected.record();
                bytes.extend_from_slice(&record);
                bytes.truncate(bytes.len() - (record.len() - len));
            }
            if bytes.len() >= chunk {
                sink(&bytes);
                bytes.clear();
            }
        }
        sink(&bytes);
    }

    /// BLAKE3 digest of [`ScatterOutput::canonical_bytes`], hashed as it is encoded.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        self.encode_into(&mut |chunk| {
            hasher.update(chunk);
        });
        *hasher.finalize().as_bytes()
    }

    /// [`ScatterOutput::digest`] as lowercase hex.
    pub fn digest_hex(&self) -> String {
        super::encode::hex(&self.digest())
    }
}

/// Outputs could not be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MergeError {
    /// The same candidate appears in two parts: their cell ranges overlap.
    #[error("candidate {id} appears in more than one part (overlapping cell ranges)")]
    Duplicate {
        /// The duplicated candidate.
        id: ScatterId,
    },
}

/// An accepted placement with its select-and-place transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlacedObject {
    /// The accepted placement (unchanged by select-and-place).
    pub placement: Placement,
    /// Rotation about the up axis in 1/65536 turns.
    pub rotation_turns_65536: u16,
    /// Scale in the recipe's scale unit (e.g. 1/1000).
    pub scale: u32,
}

/// BLAKE3 digest of placed objects, in the order given: `"PLACED01"`, count (u64), then per object
/// id (u64) x (i64) y (i64) variant (u32) priority (u32) rotation (u16) scale (u32), little-endian.
pub fn digest_placed(objects: &[PlacedObject]) -> [u8; 32] {
    let mut bytes = Vec::with_capacity(16 + objects.len() * 38);
    bytes.extend_from_slice(PLACED_MAGIC);
    bytes.extend_from_slice(&(objects.len() as u64).to_le_bytes());
    for object in objects {
        let placement = &object.placement;
        bytes.extend_from_slice(&placement.id.bits().to_le_bytes());
        bytes.extend_from_slice(&placement.x.to_le_bytes());
        bytes.extend_from_slice(&placement.y.to_le_bytes());
        bytes.extend_from_slice(&placement.variant.to_le_bytes());
        bytes.extend_from_slice(&placement.priority.to_le_bytes());
        bytes.extend_from_slice(&object.rotation_turns_65536.to_le_bytes());
        bytes.extend_from_slice(&object.scale.to_le_bytes());
    }
    *blake3::hash(&bytes).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::pack_scatter_id;

    fn placement(cx: i16, cy: i16, k: u8) -> Placement {
        let id = pack_scatter_id(1, 0, u32::from(k), i64::from(cx), i64::from(cy))
            .unwrap_or_else(|e| panic!("{e}"));
        Placement {
            id,
            cell_x: cx,
            cell_y: cy,
            candidate: k,
            x: i64::from(cx) * 10,
            y: i64::from(cy) * 10,
            variant: 0,
            priority: 7,
        }
    }

    #[test]
    fn merge_sorts_canonically_and_rejects_duplicates() {
        let a = ScatterOutput {
            placements: vec![placement(1, 0, 0), placement(-1, 1, 1)],
            rejected: vec![],
        };
        let b = ScatterOutput {
            placements: vec![placement(0, 0, 1), placement(-2, 0, 0)],
            rejected: vec![],
        };
        let merged = ScatterOutput::merge([a.clone(), b]).unwrap_or_else(|e| panic!("{e}"));
        let keys: Vec<_> = merged
            .placements
            .iter()
            .map(Placement::canonical_key)
            .collect();
        assert_eq!(keys, [(0, -2, 0), (0, 0, 1), (0, 1, 0), (1, -1, 1)]);
        assert_eq!(
            ScatterOutput::merge([a.clone(), a]),
            Err(MergeError::Duplicate {
                id: placement(1, 0, 0).id
            })
        );
    }

    #[test]
    fn digest_depends_on_every_field() {
        let base = ScatterOutput {
            placements: vec![placement(0, 0, 0)],
            rejected: vec![],
        };
        let mut moved = base.clone();
        moved.placements[0].x += 1;
        let mut reprioritized = base.clone();
        reprioritized.placements[0].priority += 1;
        assert_ne!(base.digest(), moved.digest());
        assert_ne!(base.digest(), reprioritized.digest());
        assert_eq!(base.digest(), base.clone().digest());
        assert_eq!(base.digest_hex().len(), 64);
    }

    #[test]
    fn chunked_encoding_is_the_canonical_bytes_and_their_digest() {
        // Enough records to span several chunks, with every rejection reason.
        let placements: Vec<Placement> = (0..3000i16)
            .map(|i| placement(i % 100, i / 100, 0))
            .collect();
        let rejected: Vec<RejectedCandidate> = (0..3000i16)
            .map(|i| {
                let p = placement(i % 100, i / 100, 1);
                RejectedCandidate {
                    id: p.id,
                    cell_x: p.cell_x,
                    cell_y: p.cell_y,
                    candidate: p.candidate,
                    x: p.x,
                    y: p.y,
                    reason: match i % 3 {
                        0 => RejectReason::OutsideRegion,
                        1 => RejectReason::InKeepOut { keep_out: 7 },
                        _ => RejectReason::Conflict { with: p.id },
                    },
                }
            })
            .collect();
        let output = ScatterOutput {
            placements,
            rejected,
        };
        let bytes = output.canonical_bytes();
        assert_eq!(bytes.len(), output.encoded_len());
        assert_eq!(bytes.len(), 24 + 3000 * 32 + 1000 * (25 + 29 + 33));
        let mut chunks = 0;
        output.encode_into(&mut |_| chunks += 1);
        assert!(chunks > 2, "{chunks} chunks");
        assert_eq!(output.digest(), *blake3::hash(&bytes).as_bytes());
    }
}
