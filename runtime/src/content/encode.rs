//! A little-endian, length-prefixed byte writer for canonical encodings that digests are taken of.
//!
//! Fixed widths, explicit lengths, floats by their IEEE-754 bits: never native struct layout, so
//! the bytes (and the BLAKE3 digests over them) are the same on every platform.

/// A buffer that an encoding is written into at a cursor and handed to a sink in pieces of exactly
/// `chunk` bytes (the last one shorter). A power-of-two `chunk` keeps a BLAKE3 hasher fed whole,
/// aligned subtrees, which it hashes many chunks at a time; pieces of any other length leave it a
/// partial chunk to finish block by block at every call.
pub(crate) struct ChunkWriter<'s> {
    buffer: Vec<u8>,
    at: usize,
    chunk: usize,
    sink: &'s mut dyn FnMut(&[u8]),
}

impl<'s> ChunkWriter<'s> {
    /// The largest fixed-size record [`ChunkWriter::put_all`] is given.
    pub(crate) const MAX_RECORD: usize = 64;

    /// A writer handing `chunk`-byte pieces (at least 1) to `sink`.
    pub(crate) fn new(chunk: usize, sink: &'s mut dyn FnMut(&[u8])) -> ChunkWriter<'s> {
        let chunk = chunk.max(1);
        ChunkWriter {
            buffer: vec![0; chunk + Self::MAX_RECORD],
            at: 0,
            chunk,
            sink,
        }
    }

    /// Appends every item's record: the first `len` bytes of the `N` (≤
    /// [`ChunkWriter::MAX_RECORD`]) that `record` gives, each copied whole (a fixed-size copy)
    /// with the cursor moved by `len`, so a shorter record's unused tail is overwritten by what
    /// follows. As many as surely fit before the chunk boundary are written in one run with no
    /// boundary test per record.
    #[inline]
    pub(crate) fn put_all<T, const N: usize>(
        &mut self,
        items: &[T],
        record: impl Fn(&T) -> ([u8; N], usize),
    ) {
        const { assert!(N <= Self::MAX_RECORD) };
        let mut items = items;
        while !items.is_empty() {
            // `at < chunk`: at least one record fits in the buffer's spare `MAX_RECORD` bytes.
            let fit = ((self.chunk - self.at) / N).clamp(1, items.len());
            let (now, later) = items.split_at(fit);
            let end = (self.at + fit * N).min(self.buffer.len());
            let window = &mut self.buffer[self.at..end];
            let mut written = 0;
            for item in now {
                let (bytes, len) = record(item);
                // Each record before this one took at most `N` bytes, so the slot is inside.
                if let Some(slot) = window.get_mut(written..written + N) {
                    slot.copy_from_slice(&bytes);
                }
                written += len.min(N);
            }
            self.at += written;
            while self.at >= self.chunk {
                self.spill();
            }
            items = later;
        }
    }

    /// Appends bytes of any length.
    pub(crate) fn put_slice(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = self.chunk - self.at;
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.buffer[self.at..self.at + now.len()].copy_from_slice(now);
            self.at += now.len();
            if self.at >= self.chunk {
                self.spill();
            }
            bytes = later;
        }
    }

    /// Hands the first `chunk` bytes to the sink and moves what was written past them to the
    /// front (`at ≥ chunk`).
    fn spill(&mut self) {
        (self.sink)(&self.buffer[..self.chunk]);
        self.buffer.copy_within(self.chunk..self.at, 0);
        self.at -= self.chunk;
    }

    /// Hands what is left to the sink.
    pub(crate) fn finish(mut self) {
        (self.sink)(&self.buffer[..self.at]);
        self.at = 0;
    }
}

/// Appends fixed-width little-endian values to a byte vector.
#[derive(Debug, Default, Clone)]
pub struct ByteWriter {
    bytes: Vec<u8>,
}

impl ByteWriter {
    /// An empty writer that starts with an 8-byte version tag.
    pub fn tagged(tag: &[u8; 8]) -> ByteWriter {
        let mut writer = ByteWriter::default();
        writer.bytes.extend_from_slice(tag);
        writer
    }

    /// Appends raw bytes as they are (for nested canonical encodings, length first).
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.u64(bytes.len() as u64);
        self.bytes.extend_from_slice(bytes);
        self
    }

    /// Appends a byte.
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.bytes.push(value);
        self
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, value: u16) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends an `i64`.
    pub fn i64(&mut self, value: i64) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends an `f64` by its bits.
    pub fn f64(&mut self, value: f64) -> &mut Self {
        self.u64(value.to_bits())
    }

    /// Appends a length or count as `u64`.
    pub fn count(&mut self, len: usize) -> &mut Self {
        self.u64(len as u64)
    }

    /// Appends a boolean as one byte.
    pub fn bool(&mut self, value: bool) -> &mut Self {
        self.u8(u8::from(value))
    }

    /// Appends a UTF-8 string, length first.
    pub fn str(&mut self, value: &str) -> &mut Self {
        self.bytes(value.as_bytes())
    }

    /// The bytes written so far.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }

    /// BLAKE3 of the bytes written so far.
    pub fn digest(&self) -> [u8; 32] {
        *blake3::hash(&self.bytes).as_bytes()
    }
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8]) -> String {
    let mut text = String::with_capacity(digest.len() * 2);
    for byte in digest {
        text.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        text.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_writer_hands_on_exact_chunks_of_everything_written() {
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let mut sink = |piece: &[u8]| pieces.push(piece.to_vec());
        let mut out = ChunkWriter::new(16, &mut sink);
        let mut expected = Vec::new();
        for i in 0..40u8 {
            let record = [i; 33];
            let len = 25 + usize::from(i % 3) * 4;
            out.put_all(&[i], |_| (record, len));
            expected.extend_from_slice(&record[..len]);
            let slice = vec![i ^ 0x5a; usize::from(i % 7) * 5];
            out.put_slice(&slice);
            expected.extend_from_slice(&slice);
        }
        let records: Vec<u32> = (0..50).collect();
        out.put_all(&records, |&r| {
            let record = r.to_le_bytes();
            (record, 1 + r as usize % 4)
        });
        for &r in &records {
            expected.extend_from_slice(&r.to_le_bytes()[..1 + r as usize % 4]);
        }
        out.finish();
        assert_eq!(pieces.concat(), expected);
        let (last, whole) = pieces.split_last().unwrap_or_else(|| panic!("pieces"));
        assert!(whole.iter().all(|piece| piece.len() == 16));
        assert_eq!(last.len(), expected.len() % 16);
    }

    #[test]
    fn encoding_is_fixed_width_and_hex_matches_blake3() {
        let mut writer = ByteWriter::tagged(b"TESTTAG1");
        writer.u16(1).f64(0.5).str("ab");
        let bytes = writer.clone().finish();
        assert_eq!(bytes.len(), 8 + 2 + 8 + 8 + 2);
        assert_eq!(
            hex(&writer.digest()),
            blake3::hash(&bytes).to_hex().to_string()
        );
    }
}
