//! JSON strings in the canonical form (docs/canonical-json.md): the one
//! escaping, and the scan that finds where escaping starts (shared with the
//! streaming canonicaliser). Split from `canonical.rs` in the sixth pass of
//! issue 16, when the buffer sink gained its own way to write short strings.

use super::Sink;

/// Writes the canonical form of the JSON string `s`. One escaping for
/// strings: `"` and `\` escaped, the short escapes
/// `\b \f \n \r \t`, other control characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else as raw UTF-8.
pub fn write_string<S: Sink>(s: &str, out: &mut S) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    // Almost no string needs an escape: one table lookup per byte finds
    // that, and the string is then written in one piece (issue 16), its
    // quotes stored as bytes rather than copied as slices (sixth pass).
    let first = plain_run(bytes);
    if first == bytes.len() {
        out.put_quoted(bytes);
        return;
    }
    out.put_byte(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        if !ESCAPE[b as usize] {
            continue;
        }
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            _ => None,
        };
        out.put(&bytes[start..i]);
        match esc {
            Some(e) => out.put(e),
            None => out.put(&[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]),
        }
        start = i + 1;
    }
    out.put(&bytes[start..]);
    out.put_byte(b'"');
}

/// The bytes `write_string` escapes: control characters, `"` and `\`.
static ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// How many bytes of `rest` come before the first byte `write_string`
/// escapes (the `ESCAPE` set, which is also where a plain JSON string
/// ends); all of them if none. Eight bytes at a time while none of them can stop (a
/// long string, such as a padded state, otherwise costs a lookup per
/// byte), then byte by byte; the word test only skips, the bytes decide.
pub(crate) fn plain_run(rest: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Non-zero if some byte of `v` is below `n` (n at most 128).
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    // Most strings (keys, short values) end within a few bytes: those
    // byte by byte, without setting up the word loop.
    const SHORT: usize = 16;
    let head = rest.get(..SHORT).unwrap_or(rest);
    if let Some(i) = head.iter().position(|&b| ESCAPE[b as usize]) {
        return i;
    }
    let mut skipped = head.len();
    for chunk in rest.get(skipped..).unwrap_or_default().chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        let v = u64::from_le_bytes(word);
        if below(v, 0x20) | below(v ^ (ONES * u64::from(b'"')), 1) | below(v ^ (ONES * u64::from(b'\\')), 1)
            != 0
        {
            break;
        }
        skipped += 8;
    }
    let tail = rest.get(skipped..).unwrap_or_default();
    skipped + tail.iter().position(|&b| ESCAPE[b as usize]).unwrap_or(tail.len())
}
