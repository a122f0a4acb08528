//! A little-endian, length-prefixed byte writer for canonical encodings that digests are taken of.
//!
//! Fixed widths, explicit lengths, floats by their IEEE-754 bits: never native struct layout, so
//! the bytes (and the BLAKE3 digests over them) are the same on every platform.

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
