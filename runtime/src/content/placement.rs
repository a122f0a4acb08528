//! Scatter products: accepted placements, rejected candidates with reasons, placed objects.
//!
//! Positions are integer lattice units; the recipe maps them to meters. Lists are in canonical order:
//! cell Y, then cell X, then candidate index, all ascending.

use std::fmt;

use super::encode::ChunkWriter;
use super::record_sink::RecordSink;
use super::sorted_merge::merge_sorted_par;
use crate::identity::ScatterId;
use thiserror::Error;

/// An accepted scatter candidate, before select-and-place.
///
/// 32 bytes: its cell and candidate index are read from the packed identity
/// ([`Placement::cell_x`], [`Placement::cell_y`], [`Placement::candidate`]), not stored twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Packed identity (room, layer, candidate, cell); also the RNG scope of its draws.
    pub id: ScatterId,
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
        self.id.canonical_key()
    }

    /// Column of the cell the candidate belongs to.
    pub fn cell_x(&self) -> i16 {
        self.id.cell_x()
    }

    /// Row of the cell the candidate belongs to.
    pub fn cell_y(&self) -> i16 {
        self.id.cell_y()
    }

    /// Candidate index within its cell.
    pub fn candidate(&self) -> u8 {
        self.id.candidate()
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
///
/// 32 bytes: the cell and candidate index are read from the packed identity, and the reason is
/// kept in one word ([`RejectedCandidate::reason`] unpacks it).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RejectedCandidate {
    /// Packed identity of the candidate.
    pub id: ScatterId,
    /// Lattice x position.
    pub x: i64,
    /// Lattice y position.
    pub y: i64,
    /// The reason in one word: 0 outside the region; `KEEP_OUT_TAG | index` inside a keep-out (its
    /// top 16 bits are zero); otherwise the winner's identity, whose room (top 16 bits) is never 0.
    reason_word: u64,
}

/// [`RejectedCandidate::reason_word`]'s mark of a keep-out index.
const KEEP_OUT_TAG: u64 = 1 << 32;

/// A reason as [`RejectedCandidate::reason_word`] keeps it.
fn reason_word(reason: RejectReason) -> u64 {
    match reason {
        RejectReason::OutsideRegion => 0,
        RejectReason::InKeepOut { keep_out } => KEEP_OUT_TAG | u64::from(keep_out),
        RejectReason::Conflict { with } => with.bits(),
    }
}

impl RejectedCandidate {
    /// A rejected candidate at lattice (`x`, `y`).
    pub fn new(id: ScatterId, x: i64, y: i64, reason: RejectReason) -> RejectedCandidate {
        RejectedCandidate {
            id,
            x,
            y,
            reason_word: reason_word(reason),
        }
    }

    /// Replaces the reason (a re-thinned candidate's new winner).
    pub fn set_reason(&mut self, reason: RejectReason) {
        self.reason_word = reason_word(reason);
    }

    /// Why it was rejected.
    pub fn reason(&self) -> RejectReason {
        match self.reason_word {
            0 => RejectReason::OutsideRegion,
            word if word >> 48 == 0 => RejectReason::InKeepOut {
                // The low 32 bits hold the index.
                keep_out: word as u32,
            },
            word => RejectReason::Conflict {
                with: ScatterId::from_room_bits(word),
            },
        }
    }

    /// Column of its cell.
    pub fn cell_x(&self) -> i16 {
        self.id.cell_x()
    }

    /// Row of its cell.
    pub fn cell_y(&self) -> i16 {
        self.id.cell_y()
    }

    /// Candidate index within its cell.
    pub fn candidate(&self) -> u8 {
        self.id.candidate()
    }

    /// The candidate's canonical record and its length (25, 29 or 33 bytes): id (u64), x (i64),
    /// y (i64), reason tag (u8: 0 outside region, 1 keep-out, 2 conflict), then the keep-out
    /// index (u32) or the winner's id (u64), little-endian.
    #[inline]
    pub fn record(&self) -> ([u8; 33], usize) {
        let mut record = [0; 33];
        record[0..8].copy_from_slice(&self.id.bits().to_le_bytes());
        record[8..16].copy_from_slice(&self.x.to_le_bytes());
        record[16..24].copy_from_slice(&self.y.to_le_bytes());
        // The word is the payload in both tagged cases: a keep-out's index in its low 32 bits, a
        // winner's identity whole. The tag and length are computed without branching on the
        // reason (rejections of every kind interleave, so a branch would mispredict often).
        record[24] = self.reason_tag();
        record[25..33].copy_from_slice(&self.reason_word.to_le_bytes());
        (record, self.record_len())
    }

    /// The reason's tag in the record: 0 outside region, 1 keep-out, 2 conflict.
    #[inline]
    fn reason_tag(&self) -> u8 {
        u8::from(self.reason_word != 0) + u8::from(self.reason_word >> 48 != 0)
    }

    /// The length of [`RejectedCandidate::record`]: 25, plus 4 for a keep-out index or 8 for a
    /// winner's id.
    #[inline]
    pub fn record_len(&self) -> usize {
        25 + 4 * usize::from(self.reason_tag())
    }

    /// The canonical sort key: (cell Y, cell X, candidate).
    pub fn canonical_key(&self) -> (i16, i16, u8) {
        self.id.canonical_key()
    }
}

impl fmt::Debug for RejectedCandidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RejectedCandidate")
            .field("id", &self.id)
            .field("x", &self.x)
            .field("y", &self.y)
            .field("reason", &self.reason())
            .finish()
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
        merged.without_duplicates()
    }

    /// [`ScatterOutput::merge`] on the current rayon pool (the parts' placements and rejections
    /// merged by key bands at once, `super::sorted_merge`): the same output and the same error,
    /// on any number of threads.
    pub fn merge_par(parts: Vec<ScatterOutput>) -> Result<ScatterOutput, MergeError> {
        let (placements, rejected): (Vec<_>, Vec<_>) = parts
            .into_iter()
            .map(|p| (p.placements, p.rejected))
            .unzip();
        let (placements, rejected) = rayon::join(
            || merge_sorted_par(placements, Placement::canonical_key),
            || merge_sorted_par(rejected, RejectedCandidate::canonical_key),
        );
        ScatterOutput {
            placements,
            rejected,
        }
        .without_duplicates()
    }

    /// This output (in canonical order), or the first candidate it holds twice: among the
    /// placements first, then among the rejections.
    fn without_duplicates(self) -> Result<ScatterOutput, MergeError> {
        let merged = self;
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
            .map(RejectedCandidate::record_len)
            .sum();
        24 + self.placements.len() * 32 + rejected
    }

    /// Feeds [`ScatterOutput::canonical_bytes`] to `sink` in chunks of a few tens of kilobytes,
    /// so a digest never holds the whole encoding in memory.
    pub fn encode_into(&self, sink: &mut dyn FnMut(&[u8])) {
        self.encode_chunked(ENCODE_CHUNK, sink);
    }

    /// [`ScatterOutput::encode_into`] in chunks of exactly `chunk` bytes (the last one shorter).
    pub fn encode_chunked(&self, chunk: usize, sink: &mut dyn FnMut(&[u8])) {
        let mut out = ChunkWriter::new(chunk, sink);
        self.encode_to(&mut out);
        out.finish();
    }

    /// Writes [`ScatterOutput::canonical_bytes`] to `out`.
    pub(crate) fn encode_to(&self, out: &mut impl RecordSink) {
        out.put_slice(SCATTER_OUTPUT_MAGIC);
        out.put_slice(&(self.placements.len() as u64).to_le_bytes());
        out.put_all(&self.placements, |placement| (placement.record(), 32));
        out.put_slice(&(self.rejected.len() as u64).to_le_bytes());
        out.put_all(&self.rejected, RejectedCandidate::record);
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
            x: i64::from(cx) * 10,
            y: i64::from(cy) * 10,
            variant: 0,
            priority: 7,
        }
    }

    #[test]
    fn records_are_32_bytes_and_a_reason_unpacks_as_it_was_packed() {
        assert_eq!(std::mem::size_of::<Placement>(), 32);
        assert_eq!(std::mem::size_of::<RejectedCandidate>(), 32);
        let p = placement(-3, 7, 2);
        assert_eq!((p.cell_x(), p.cell_y(), p.candidate()), (-3, 7, 2));
        let winner = pack_scatter_id(65_535, 255, 255, -1, -1).unwrap_or_else(|e| panic!("{e}"));
        for reason in [
            RejectReason::OutsideRegion,
            RejectReason::InKeepOut { keep_out: 0 },
            RejectReason::InKeepOut { keep_out: u32::MAX },
            RejectReason::Conflict { with: p.id },
            RejectReason::Conflict { with: winner },
        ] {
            let mut rejected = RejectedCandidate::new(p.id, -5, 9, reason);
            assert_eq!(rejected.reason(), reason);
            assert_eq!(
                (rejected.cell_x(), rejected.cell_y(), rejected.candidate()),
                (-3, 7, 2)
            );
            let (record, len) = rejected.record();
            assert_eq!(len, rejected.record_len());
            let expected_tail: Vec<u8> = match reason {
                RejectReason::OutsideRegion => vec![0],
                RejectReason::InKeepOut { keep_out } => {
                    [&[1u8][..], &keep_out.to_le_bytes()].concat()
                }
                RejectReason::Conflict { with } => {
                    [&[2u8][..], &with.bits().to_le_bytes()].concat()
                }
            };
            assert_eq!(&record[24..len], expected_tail.as_slice());
            rejected.set_reason(RejectReason::OutsideRegion);
            assert_eq!(rejected.reason(), RejectReason::OutsideRegion);
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
        let merged = ScatterOutput::merge([a.clone(), b.clone()]).unwrap_or_else(|e| panic!("{e}"));
        let keys: Vec<_> = merged
            .placements
            .iter()
            .map(Placement::canonical_key)
            .collect();
        assert_eq!(keys, [(0, -2, 0), (0, 0, 1), (0, 1, 0), (1, -1, 1)]);
        assert_eq!(
            ScatterOutput::merge([a.clone(), a.clone()]),
            Err(MergeError::Duplicate {
                id: placement(1, 0, 0).id
            })
        );
        assert_eq!(ScatterOutput::merge_par(vec![a.clone(), b]), Ok(merged));
        assert_eq!(
            ScatterOutput::merge_par(vec![a.clone(), a]),
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
                RejectedCandidate::new(
                    p.id,
                    p.x,
                    p.y,
                    match i % 3 {
                        0 => RejectReason::OutsideRegion,
                        1 => RejectReason::InKeepOut { keep_out: 7 },
                        _ => RejectReason::Conflict { with: p.id },
                    },
                )
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
