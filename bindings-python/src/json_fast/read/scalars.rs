//! The reader's scalars: strings (borrowed when they have no escape,
//! decoded otherwise) and numbers, as the reference reads them.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};

use super::{Read, Reader};

impl<'py, 't> Reader<'py, 't> {
    /// A string at `pos` (on its opening quote): its bytes as written when
    /// there is no escape, else the decoded text.
    pub(super) fn string(&mut self) -> PyResult<Option<Text<'t>>> {
        let text = self.text;
        let start = self.pos + 1;
        let mut i = start;
        loop {
            // Eight bytes at a time while none is a quote, a backslash or a
            // control character; in a chunk that has one, straight to it.
            if let Some(chunk) = text.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
                let mask = escape_mask(u64::from_le_bytes(chunk));
                if mask == 0 {
                    i += 8;
                    continue;
                }
                i += first_marked(mask);
            }
            match text.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    let Some(s) = self.src.get(start..i) else {
                        return Ok(None);
                    };
                    return Ok(Some(Text::Borrowed(s)));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return Ok(None),
                Some(_) => i += 1,
                None => return Ok(None),
            }
        }
        let Some(head) = self.src.get(start..i) else {
            return Ok(None);
        };
        let mut out = String::from(head);
        loop {
            match text.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Some(Text::Owned(out)));
                }
                Some(b'\\') => {
                    let c = match text.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let Some(hi) = hex4(text, i + 2) else {
                                return Ok(None);
                            };
                            i += 6;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                // A high surrogate needs its low half next.
                                let (Some(b'\\'), Some(b'u')) = (text.get(i), text.get(i + 1)) else {
                                    return Ok(None);
                                };
                                let Some(lo) = hex4(text, i + 2).filter(|lo| (0xDC00..0xE000).contains(lo))
                                else {
                                    return Ok(None);
                                };
                                i += 6;
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            let Some(c) = char::from_u32(code) else {
                                return Ok(None);
                            };
                            out.push(c);
                            continue;
                        }
                        _ => return Ok(None),
                    };
                    out.push(c);
                    i += 2;
                }
                Some(&b) if b < 0x20 => return Ok(None),
                Some(_) => {
                    // Copy the run up to the next quote or escape.
                    let run_start = i;
                    while let Some(&b) = text.get(i) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        i += 1;
                    }
                    let Some(run) = self.src.get(run_start..i) else {
                        return Ok(None);
                    };
                    out.push_str(run);
                }
                None => return Ok(None),
            }
        }
    }

    /// A number, as the reference turns it into Python: an integer literal
    /// becomes an exact `int`, anything else a `float` (`1e400` is `inf`).
    pub(super) fn number(&mut self) -> Read<'py> {
        let text = self.text;
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while let Some(b'0'..=b'9') = text.get(*i) {
                *i += 1;
            }
            *i - from
        };
        if text.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        let n = digits(&mut i);
        // JSON: at least one digit, and no leading zero before more digits.
        if n == 0 || (n > 1 && text.get(int_start) == Some(&b'0')) {
            return Ok(None);
        }
        let mut integer = true;
        if text.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Ok(None);
            }
            integer = false;
        }
        if let Some(b'e' | b'E') = text.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = text.get(i) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Ok(None);
            }
            integer = false;
        }
        self.pos = i;
        let Some(lexeme) = self.src.get(start..i) else {
            return Ok(None);
        };
        let py = self.py;
        if integer {
            if let Ok(v) = lexeme.parse::<i64>() {
                return Ok(Some(v.into_bound_py_any(py)?));
            }
            // Beyond 64 bits: Python's int is exact.
            return Ok(Some(py.get_type::<PyInt>().call1((lexeme,))?));
        }
        match lexeme.parse::<f64>() {
            Ok(f) => Ok(Some(PyFloat::new(py, f).into_any())),
            Err(_) => Ok(None),
        }
    }
}

pub(super) enum Text<'t> {
    Borrowed(&'t str),
    Owned(String),
}

impl Text<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Text::Borrowed(s) => s.as_bytes(),
            Text::Owned(s) => s.as_bytes(),
        }
    }
}

fn hex4(text: &[u8], at: usize) -> Option<u32> {
    let quad = text.get(at..at + 4)?;
    let s = std::str::from_utf8(quad).ok()?;
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// The bytes of `x` (eight, little-endian) that end a plain run of a JSON
/// string (below 0x20, `"` or `\`), marked by their high bit: the classic
/// "has a zero byte" test (`(v - 0x01..) & !v & 0x80..` marks each zero
/// byte of `v`, plus false marks only above a true one) on `x ^ '"'`,
/// `x ^ '\'` and `x & 0xe0` (zero for bytes below 0x20). So the lowest
/// mark is always a true one ([`first_marked`]), and no mark means no such
/// byte. (The writer's side of this scan is the core's, inside
/// `snodo::write_canonical_string`; the core has no public scan that says
/// where the first such byte is, which the reader needs.)
fn escape_mask(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\'))) | zero(x & (ONES * 0xe0))
}

/// The index of the first byte `mask` (from [`escape_mask`], not zero)
/// marks.
fn first_marked(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}
