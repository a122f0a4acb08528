//! The headless commands' output stream, made safe for a terminal: every character a terminal
//! would act on is written escaped, whatever command printed it and whatever file it came from.
//!
//! Line breaks and tabs pass (reports are made of lines); every other [unsafe
//! character](super::diagnostics::is_unsafe_char) — ESC, CR, BEL, backspace, C1 controls,
//! bidirectional overrides — becomes `\uXXXX`, the escape a JSON string reads back as the same
//! character, so a JSON report stays exact. Bytes that are not UTF-8 are written as `\xHH`.
//! Strings that could hold a line break (names, ids, messages) are escaped where they are printed
//! ([`super::diagnostics::escape_controls`]), so they cannot forge a line either.

use std::io::{self, Write};

use super::diagnostics::{is_unsafe_char, push_escaped};

/// A writer that escapes the unsafe characters of everything written through it.
pub struct SafeOutput<W: Write> {
    inner: W,
    /// The start of a UTF-8 sequence that the last write cut (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> SafeOutput<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> SafeOutput<W> {
        SafeOutput {
            inner,
            pending: Vec::new(),
        }
    }

    /// Escapes the complete text of `bytes` into `out`; an incomplete sequence at the end is kept
    /// for the next write.
    fn escape_into(&mut self, mut bytes: &[u8], out: &mut String) {
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    push_safe(out, text);
                    return;
                }
                Err(error) => {
                    let (valid, rest) = bytes.split_at(error.valid_up_to());
                    // `valid` is UTF-8 by construction; the fallback keeps this total.
                    push_safe(out, std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(len) => {
                            for byte in &rest[..len] {
                                out.push_str(&format!("\\x{byte:02x}"));
                            }
                            bytes = &rest[len..];
                        }
                        None => {
                            self.pending = rest.to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }
}

/// Appends `text` to `out` with every unsafe character but line breaks and tabs escaped.
fn push_safe(out: &mut String, text: &str) {
    for c in text.chars() {
        if c != '\n' && c != '\t' && is_unsafe_char(c) {
            push_escaped(out, c);
        } else {
            out.push(c);
        }
    }
}

impl<W: Write> Write for SafeOutput<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(buf);
        let mut text = String::with_capacity(bytes.len());
        self.escape_into(&bytes, &mut text);
        self.inner.write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A sequence still cut at the end of the output is not UTF-8: shown byte by byte.
        let pending = std::mem::take(&mut self.pending);
        let text: String = pending.iter().map(|b| format!("\\x{b:02x}")).collect();
        self.inner.write_all(text.as_bytes())?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(parts: &[&[u8]]) -> String {
        let mut out = SafeOutput::new(Vec::new());
        for part in parts {
            out.write_all(part).expect("write");
        }
        out.flush().expect("flush");
        String::from_utf8(out.inner).expect("utf-8")
    }

    #[test]
    fn terminal_controls_are_escaped_and_lines_pass() {
        assert_eq!(
            through(&[b"route \x1b[2J\r\x07 ok\n\tnext\n"]),
            "route \\u001b[2J\\r\\u0007 ok\n\tnext\n"
        );
        assert_eq!(
            through(&["a\u{202e}b\u{9b}c".as_bytes()]),
            "a\\u202eb\\u009bc"
        );
    }

    #[test]
    fn a_character_cut_between_writes_is_joined_and_a_bad_byte_is_shown() {
        let csi = "\u{9b}".as_bytes();
        assert_eq!(through(&[b"x", &csi[..1], &csi[1..], b"y"]), "x\\u009by");
        let e_acute = "é".as_bytes();
        assert_eq!(through(&[&e_acute[..1], &e_acute[1..]]), "é");
        assert_eq!(through(&[b"a\xffb"]), "a\\xffb");
        assert_eq!(through(&[b"a\xc3"]), "a\\xc3");
    }

    #[test]
    fn a_json_report_reads_back_the_same() {
        let value = serde_json::json!({"name": "a\u{9b}\u{202e}\u{7f}b"});
        let text = through(&[serde_json::to_string(&value).expect("json").as_bytes()]);
        assert!(!text.contains('\u{9b}'), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(back, value);
    }
}
