//! SQLite's variable-length integers and record format (fileformat2 §1.6 "B-tree Pages" and
//! §2.1 "Record Format"): a record is a header (its own length as a varint, then one serial
//! type varint per column) followed by the column bodies. Integers take the smallest serial
//! type that holds them (8 and 9 for 0 and 1, schema format 4), as SQLite's `OP_MakeRecord`
//! chooses; reals are serial type 7 (8-byte big-endian IEEE 754); text is `13 + 2 × length`
//! bytes of UTF-8. NULLs and blobs are not written by this crate.
//!
//! One difference from SQLite's own `INSERT`: it stores a REAL column's value that is a whole
//! number as an integer to save bytes (and reads it back as REAL), which turns −0.0 into 0.0;
//! here every real is stored as serial type 7, which SQLite reads back as the same REAL, bit for
//! bit (−0.0 included).

use anyhow::bail;

/// One column value of a record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// A 64-bit signed integer.
    Integer(i64),
    /// A finite or infinite IEEE 754 double (never NaN: SQLite reads a NaN as NULL).
    Real(f64),
    /// UTF-8 text.
    Text(&'a str),
}

/// Bytes of `value` as an SQLite varint (1 to 9).
pub fn varint_len(value: u64) -> usize {
    if value >> 56 != 0 {
        return 9;
    }
    let bits = 64 - value.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// `value` as an SQLite varint: big-endian groups of 7 bits with the high bit set on all but
/// the last byte; a ninth byte carries 8 bits. The bytes and how many of them there are.
pub fn varint_bytes(value: u64) -> ([u8; 9], usize) {
    let mut bytes = [0u8; 9];
    if value < 0x80 {
        bytes[0] = value as u8;
        return (bytes, 1);
    }
    let len = varint_len(value);
    if len == 9 {
        for (byte, shift) in bytes.iter_mut().zip((1..=8).rev()) {
            *byte = ((value >> (shift * 7 + 1)) as u8 & 0x7f) | 0x80;
        }
        bytes[8] = value as u8;
        return (bytes, 9);
    }
    for (byte, shift) in bytes.iter_mut().zip((1..len).rev()) {
        *byte = ((value >> (shift * 7)) as u8 & 0x7f) | 0x80;
    }
    bytes[len - 1] = value as u8 & 0x7f;
    (bytes, len)
}

/// Appends `value` as an SQLite varint ([`varint_bytes`]).
pub fn put_varint(out: &mut Vec<u8>, value: u64) {
    let (bytes, len) = varint_bytes(value);
    out.extend_from_slice(&bytes[..len]);
}

/// The serial type of an integer and its body length in bytes.
fn integer_type(value: i64) -> (u64, usize) {
    match value {
        0 => (8, 0),
        1 => (9, 0),
        -0x80..=0x7f => (1, 1),
        -0x8000..=0x7fff => (2, 2),
        -0x80_0000..=0x7f_ffff => (3, 3),
        -0x8000_0000..=0x7fff_ffff => (4, 4),
        -0x8000_0000_0000..=0x7fff_ffff_ffff => (5, 6),
        _ => (6, 8),
    }
}

/// The serial type of a value and its body length in bytes.
fn serial_type(value: &Value<'_>) -> (u64, usize) {
    match value {
        Value::Integer(n) => integer_type(*n),
        Value::Real(_) => (7, 8),
        Value::Text(text) => (13 + 2 * text.len() as u64, text.len()),
    }
}

/// Columns a record may have here (the trajectory table has 12).
pub const MAX_COLUMNS: usize = 32;

/// The header and body lengths of the record of `values`. An error for a NaN (SQLite has no
/// NaN: it would read NULL) or more than [`MAX_COLUMNS`] values.
pub fn record_len(values: &[Value<'_>]) -> anyhow::Result<(usize, usize)> {
    if values.len() > MAX_COLUMNS {
        bail!(
            "a record of {} columns (at most {MAX_COLUMNS})",
            values.len()
        );
    }
    let (mut types_len, mut body_len) = (0, 0);
    for value in values {
        if matches!(value, Value::Real(x) if x.is_nan()) {
            bail!("a NaN cannot be stored in SQLite");
        }
        let (kind, len) = serial_type(value);
        types_len += varint_len(kind);
        body_len += len;
    }
    Ok((header_len(types_len), body_len))
}

/// The length of a record header whose serial types take `types_len` bytes: the header's
/// length counts its own varint.
fn header_len(types_len: usize) -> usize {
    if types_len < 0x7f {
        return types_len + 1;
    }
    (1..=9)
        .map(|own| types_len + own)
        .find(|&total| varint_len(total as u64) == total - types_len)
        .unwrap_or(types_len + 9)
}

/// Appends the record of `values` whose header is `header_len` bytes (from [`record_len`],
/// which also refused what cannot be stored).
pub fn put_record_bytes(out: &mut Vec<u8>, values: &[Value<'_>], header_len: usize) {
    put_varint(out, header_len as u64);
    for value in values {
        put_varint(out, serial_type(value).0);
    }
    for value in values {
        match value {
            Value::Integer(n) => {
                let len = integer_type(*n).1;
                out.extend_from_slice(&n.to_be_bytes()[8 - len..]);
            }
            Value::Real(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
            Value::Text(text) => out.extend_from_slice(text.as_bytes()),
        }
    }
}

/// Appends the record of `values`; its length. An error for a NaN or more than
/// [`MAX_COLUMNS`] values ([`record_len`]).
pub fn put_record(out: &mut Vec<u8>, values: &[Value<'_>]) -> anyhow::Result<usize> {
    let (header_len, body_len) = record_len(values)?;
    let start = out.len();
    out.reserve(header_len + body_len);
    put_record_bytes(out, values, header_len);
    debug_assert_eq!(out.len() - start, header_len + body_len);
    Ok(out.len() - start)
}

/// Writes the record of `values` at the start of `out` when it is a small one — at most
/// [`MAX_COLUMNS`] columns, each serial type one byte (integers, reals other than NaN, texts
/// under 58 bytes) —
/// and fits with 8 bytes to spare; its length. `None` otherwise (nothing promised about `out`):
/// [`put_record`] encodes every record, and reports what cannot be stored. The same bytes as
/// [`put_record`], without its second pass or a push per byte: integers and reals are stored as
/// 8-byte words of which the record keeps the leading `len` bytes.
pub fn put_small_record(out: &mut [u8], values: &[Value<'_>]) -> Option<usize> {
    let header_len = values.len() + 1;
    if values.len() > MAX_COLUMNS || out.len() < header_len {
        return None;
    }
    let (header, bodies) = out.split_at_mut(header_len);
    header[0] = header_len as u8;
    let mut body = 0;
    for (serial, value) in header[1..].iter_mut().zip(values) {
        let (kind, len) = match *value {
            Value::Integer(n) => {
                let (kind, len) = integer_type(n);
                // A body of 0 bytes shifts by 64, which wraps to 0: its word is written, not kept.
                let word = (n as u64).wrapping_shl(8 * (8 - len as u32));
                *bodies.get_mut(body..body + 8)?.first_chunk_mut()? = word.to_be_bytes();
                (kind, len)
            }
            Value::Real(x) if x.is_nan() => return None,
            Value::Real(x) => {
                *bodies.get_mut(body..body + 8)?.first_chunk_mut()? = x.to_bits().to_be_bytes();
                (7, 8)
            }
            Value::Text(text) if text.len() < 58 => {
                bodies
                    .get_mut(body..body + text.len())?
                    .copy_from_slice(text.as_bytes());
                (13 + 2 * text.len() as u64, text.len())
            }
            Value::Text(_) => return None,
        };
        *serial = kind as u8;
        body += len;
    }
    // Kept for the spare bytes the promise names (a caller may then write past the record).
    (body + 8 <= bodies.len()).then_some(header_len + body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, value);
        assert_eq!(out.len(), varint_len(value), "{value}");
        out
    }

    #[test]
    fn varints_are_big_endian_seven_bit_groups_with_a_full_ninth_byte() {
        assert_eq!(varint(0), [0]);
        assert_eq!(varint(0x7f), [0x7f]);
        assert_eq!(varint(0x80), [0x81, 0x00]);
        assert_eq!(varint(300), [0x82, 0x2c]);
        assert_eq!(varint(0x3fff), [0xff, 0x7f]);
        assert_eq!(varint(0x4000), [0x81, 0x80, 0x00]);
        assert_eq!(
            varint((1 << 56) - 1),
            [0xff; 7].into_iter().chain([0x7f]).collect::<Vec<_>>()
        );
        assert_eq!(
            varint(1 << 56),
            [0x80, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]
        );
        assert_eq!(varint(u64::MAX), [0xff; 9]);
    }

    #[test]
    fn a_record_has_its_header_then_the_smallest_bodies() {
        let mut out = Vec::new();
        let values = [
            Value::Integer(0),
            Value::Integer(1),
            Value::Integer(-2),
            Value::Integer(300),
            Value::Integer(1 << 40),
            Value::Real(1.5),
            Value::Text("ab"),
        ];
        let len = put_record(&mut out, &values).expect("encodes");
        let mut want = vec![
            8, 8, 9, 1, 2, 5, 7, 17, 0xfe, 0x01, 0x2c, 0x01, 0, 0, 0, 0, 0,
        ];
        want.extend_from_slice(&1.5f64.to_bits().to_be_bytes());
        want.extend_from_slice(b"ab");
        assert_eq!(out, want);
        assert_eq!(len, want.len());
        assert!(put_record(&mut out, &[Value::Real(f64::NAN)]).is_err());
    }

    #[test]
    fn a_small_record_is_the_same_bytes_as_put_record() {
        let text57 = "t".repeat(57);
        let cases: Vec<Vec<Value<'_>>> = vec![
            vec![
                Value::Integer(0),
                Value::Integer(1),
                Value::Integer(-2),
                Value::Integer(300),
                Value::Integer(1 << 40),
                Value::Integer(i64::MIN),
                Value::Integer(-0x8000_0001),
                Value::Real(1.5),
                Value::Real(-0.0),
                Value::Real(f64::INFINITY),
                Value::Text("ab"),
                Value::Text(""),
                Value::Text("knocked_down"),
                Value::Text(&text57),
            ],
            vec![],
            vec![Value::Integer(7); MAX_COLUMNS],
        ];
        for values in cases {
            let mut want = Vec::new();
            let len = put_record(&mut want, &values).expect("encodes");
            let mut out = [0xee_u8; 1024];
            assert_eq!(put_small_record(&mut out, &values), Some(len));
            assert_eq!(out[..len], want[..], "{values:?}");
        }
        let mut out = [0_u8; 1024];
        let text58 = "t".repeat(58);
        assert_eq!(put_small_record(&mut out, &[Value::Text(&text58)]), None);
        assert_eq!(put_small_record(&mut out, &[Value::Real(f64::NAN)]), None);
        let too_many = [Value::Integer(3); MAX_COLUMNS + 1];
        assert_eq!(put_small_record(&mut out, &too_many), None);
        // Too little room, also for the 8 spare bytes.
        assert_eq!(put_small_record(&mut out[..10], &[Value::Real(2.0)]), None);
        assert_eq!(
            put_small_record(&mut out[..18], &[Value::Real(2.0)]),
            Some(10)
        );
    }

    #[test]
    fn a_header_past_127_bytes_counts_its_two_byte_length() {
        let texts = vec![Value::Text("x"); 130];
        assert!(put_record(&mut Vec::new(), &texts).is_err());
        assert_eq!(header_len(126), 127);
        assert_eq!(header_len(127), 129);
        assert_eq!(header_len(0x3ffd), 0x3fff);
        assert_eq!(header_len(0x3ffe), 0x4001);
    }
}
