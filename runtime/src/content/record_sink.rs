//! Where a large canonical encoding (a scatter product, placed objects) is written: streamed in
//! chunks to a sink ([`ChunkWriter`], for digests) or appended to one buffer ([`ParAppend`],
//! for product files), whose long runs of records are encoded on the rayon pool. Both write the
//! same bytes: the encoders are written once, against [`RecordSink`].

use rayon::prelude::*;

use super::encode::ChunkWriter;

/// A destination of a canonical encoding's bytes, in order.
pub(crate) trait RecordSink {
    /// Appends bytes of any length.
    fn put_slice(&mut self, bytes: &[u8]);

    /// Appends every item's record: the first `len` bytes of the `N` that `record` gives
    /// (`N` ≤ [`ChunkWriter::MAX_RECORD`]).
    fn put_all<T: Sync, const N: usize>(
        &mut self,
        items: &[T],
        record: impl Fn(&T) -> ([u8; N], usize) + Sync,
    );
}

impl RecordSink for ChunkWriter<'_> {
    fn put_slice(&mut self, bytes: &[u8]) {
        ChunkWriter::put_slice(self, bytes);
    }

    fn put_all<T: Sync, const N: usize>(
        &mut self,
        items: &[T],
        record: impl Fn(&T) -> ([u8; N], usize) + Sync,
    ) {
        ChunkWriter::put_all(self, items, record);
    }
}

/// Appends to a buffer. A run of at least [`ParAppend::PAR_MIN_ITEMS`] records on a pool of more
/// than one thread is cut into pieces of [`ParAppend::PIECE_ITEMS`]: each piece's length is
/// summed, the buffer grows by the total (zero-filled on the pool, so the first touch of its
/// pages is shared too), and the pieces are encoded into their own ranges at once.
pub(crate) struct ParAppend<'a>(pub(crate) &'a mut Vec<u8>);

impl ParAppend<'_> {
    /// Fewer records than this are appended on this thread.
    pub(crate) const PAR_MIN_ITEMS: usize = 1 << 14;
    /// Records per piece encoded on the pool.
    pub(crate) const PIECE_ITEMS: usize = 1 << 13;
}

impl RecordSink for ParAppend<'_> {
    fn put_slice(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn put_all<T: Sync, const N: usize>(
        &mut self,
        items: &[T],
        record: impl Fn(&T) -> ([u8; N], usize) + Sync,
    ) {
        if items.len() < Self::PAR_MIN_ITEMS || rayon::current_num_threads() < 2 {
            for item in items {
                let (bytes, len) = record(item);
                self.0.extend_from_slice(&bytes[..len.min(N)]);
            }
            return;
        }
        let pieces: Vec<&[T]> = items.chunks(Self::PIECE_ITEMS).collect();
        let lens: Vec<usize> = pieces
            .par_iter()
            .map(|piece| piece.iter().map(|item| record(item).1.min(N)).sum())
            .collect();
        let start = self.0.len();
        let total: usize = lens.iter().sum();
        self.0.par_extend(rayon::iter::repeat_n(0u8, total));
        let mut rest = &mut self.0[start..];
        let mut ranges = Vec::with_capacity(pieces.len());
        for len in &lens {
            let (here, after) = std::mem::take(&mut rest).split_at_mut(*len);
            ranges.push(here);
            rest = after;
        }
        ranges
            .into_par_iter()
            .zip(pieces)
            .for_each(|(out, piece)| write_records(out, piece, &record));
    }
}

/// Writes each item's record into `out` end to end (`out` is exactly as long as they are).
fn write_records<T, const N: usize>(
    out: &mut [u8],
    items: &[T],
    record: &impl Fn(&T) -> ([u8; N], usize),
) {
    let mut at = 0;
    for item in items {
        let (bytes, len) = record(item);
        let len = len.min(N);
        // A whole-record copy (fixed size) where it fits; the last records copy their length.
        match out.get_mut(at..at + N) {
            Some(slot) => slot.copy_from_slice(&bytes),
            None => out[at..at + len].copy_from_slice(&bytes[..len]),
        }
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of 3 to 9 bytes: the item's index, then as many bytes as it says.
    fn record(item: &u32) -> ([u8; 9], usize) {
        let mut bytes = [0xEE; 9];
        bytes[..4].copy_from_slice(&item.to_le_bytes());
        for (i, b) in bytes[4..].iter_mut().enumerate() {
            *b = (*item as u8).wrapping_add(i as u8);
        }
        (bytes, 3 + (*item % 7) as usize)
    }

    fn chunked(items: &[u32], chunk: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut sink = |piece: &[u8]| bytes.extend_from_slice(piece);
        let mut out = ChunkWriter::new(chunk, &mut sink);
        RecordSink::put_slice(&mut out, b"head");
        RecordSink::put_all(&mut out, items, record);
        RecordSink::put_slice(&mut out, b"tail");
        out.finish();
        bytes
    }

    fn appended(items: &[u32], threads: usize) -> Vec<u8> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut bytes = b"already".to_vec();
        pool.install(|| {
            let mut out = ParAppend(&mut bytes);
            out.put_slice(b"head");
            out.put_all(items, record);
            out.put_slice(b"tail");
        });
        bytes
    }

    #[test]
    fn appending_on_any_pool_writes_the_chunked_bytes() {
        let many: Vec<u32> = (0..(ParAppend::PAR_MIN_ITEMS as u32 * 3 + 11)).collect();
        let expected = [b"already".as_slice(), &chunked(&many, 4096)].concat();
        // 3..=9 bytes a record, 6 on average: the lengths vary within and across pieces.
        assert_eq!(expected.len(), 7 + 4 + 4 + 294_973);
        assert_eq!(&expected[7..11], b"head");
        assert_eq!(&expected[11..14], &[0, 0, 0], "item 0 is its first 3 bytes");
        assert_eq!(&expected[14..18], &[1, 0, 0, 0], "item 1 starts after them");
        for threads in [1, 2, 3] {
            assert_eq!(appended(&many, threads), expected, "{threads} threads");
        }
        let few: Vec<u32> = (0..100).collect();
        let expected = [b"already".as_slice(), &chunked(&few, 64)].concat();
        assert_eq!(appended(&few, 2), expected);
    }
}
