//! A bounds-checked little-endian reader over the bytes of a cooked product: every read names
//! what it was reading, so a truncated or inconsistent file fails with a clear error.

use super::CookError;

/// Reads fixed-width little-endian values from a byte slice, failing instead of panicking.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> ByteReader<'a> {
        ByteReader { bytes, offset: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.offset
    }

    /// The offset of the next read.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The next `len` bytes.
    pub fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], CookError> {
        if len > self.remaining() {
            return Err(CookError::Truncated {
                what: what.to_owned(),
                offset: self.offset as u64,
                needed: len as u64,
                remaining: self.remaining() as u64,
            });
        }
        let slice = &self.bytes[self.offset..self.offset + len];
        self.offset += len;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], CookError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// An 8-byte tag, which must be `expected`.
    pub fn tag(&mut self, expected: &[u8; 8], what: &str) -> Result<(), CookError> {
        let found: [u8; 8] = self.array(what)?;
        if &found != expected {
            return Err(CookError::BadMagic {
                what: what.to_owned(),
                expected: String::from_utf8_lossy(expected).into_owned(),
                found: String::from_utf8_lossy(&found).into_owned(),
            });
        }
        Ok(())
    }

    /// A byte.
    pub fn u8(&mut self, what: &str) -> Result<u8, CookError> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A boolean byte (0 or 1).
    pub fn bool(&mut self, what: &str) -> Result<bool, CookError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(CookError::invalid(what, format!("boolean byte {other}"))),
        }
    }

    /// A `u16`.
    pub fn u16(&mut self, what: &str) -> Result<u16, CookError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    /// A `u32`.
    pub fn u32(&mut self, what: &str) -> Result<u32, CookError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// A `u64`.
    pub fn u64(&mut self, what: &str) -> Result<u64, CookError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// An `i64`.
    pub fn i64(&mut self, what: &str) -> Result<i64, CookError> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// An `f64` by its bits.
    pub fn f64(&mut self, what: &str) -> Result<f64, CookError> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    /// A count of records of `record_bytes` bytes each (at least 1), checked against the bytes
    /// that remain before anything is allocated.
    pub fn count(&mut self, record_bytes: usize, what: &str) -> Result<usize, CookError> {
        let count = self.u64(what)?;
        let needed = count.saturating_mul(record_bytes.max(1) as u64);
        if needed > self.remaining() as u64 {
            return Err(CookError::CountExceedsSize {
                what: what.to_owned(),
                count,
                needed,
                remaining: self.remaining() as u64,
            });
        }
        Ok(count as usize)
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self, what: &str) -> Result<String, CookError> {
        let len = self.count(1, what)?;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| CookError::invalid(what, "a string that is not UTF-8".to_owned()))
    }

    /// Fails unless every byte was read.
    pub fn finish(&self, what: &str) -> Result<(), CookError> {
        if self.remaining() != 0 {
            return Err(CookError::TrailingBytes {
                what: what.to_owned(),
                extra: self.remaining() as u64,
            });
        }
        Ok(())
    }
}
