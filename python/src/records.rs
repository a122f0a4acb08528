//! NumPy structured arrays from packed little-endian records: the records are written into one
//! `Vec<u8>`, which becomes a `uint8` array without a copy (`PyArray1::from_vec`) and is then
//! viewed with the structured dtype (`ndarray.view`, no copy either).

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// One field of a record: its name and NumPy type string (`"<u8"`, `"<f4"`, `"|b1"`, `"<U12"`).
pub struct Field {
    /// The field's name.
    pub name: &'static str,
    /// Its NumPy type, little-endian.
    pub format: String,
}

impl Field {
    /// A field of type `format`.
    pub fn new(name: &'static str, format: &str) -> Field {
        Field {
            name,
            format: format.to_owned(),
        }
    }
}

/// The packed dtype of `fields` (no padding, in order).
pub fn dtype<'py>(py: Python<'py>, fields: &[Field]) -> PyResult<Bound<'py, PyAny>> {
    let list = PyList::empty(py);
    for field in fields {
        list.append((field.name, field.format.as_str()))?;
    }
    py.import("numpy")?.getattr("dtype")?.call1((list,))
}

/// The structured array of the records in `bytes` (each `dtype.itemsize` bytes).
pub fn structured<'py>(
    py: Python<'py>,
    bytes: Vec<u8>,
    dtype: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    PyArray1::from_vec(py, bytes).call_method1("view", (dtype,))
}

/// Appends `text` as a NumPy unicode field of `width` characters (UTF-32, zero padded; longer
/// text is cut, which [`text_width`] prevents).
pub fn push_text(out: &mut Vec<u8>, text: &str, width: usize) {
    let mut written = 0;
    for c in text.chars().take(width) {
        out.extend_from_slice(&u32::from(c).to_le_bytes());
        written += 1;
    }
    out.resize(out.len() + (width - written) * 4, 0);
}

/// The width of a unicode field that holds every one of `texts` (at least 1).
pub fn text_width<'a>(texts: impl Iterator<Item = &'a str>) -> usize {
    texts.map(|t| t.chars().count()).max().unwrap_or(0).max(1)
}
